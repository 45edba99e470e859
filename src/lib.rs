//! evaldeck: test MCP servers from a terminal.
//!
//! Layers, each depending only on those before it: [`spec`] (the contract) ←
//! [`service`] (the core) ← [`api`] (HTTP); [`client`] (the `Backend` over the embedded core
//! or a remote base URL) ← [`cli`] and [`tui`].

pub mod spec;
pub mod demo;
pub mod service;
