//! evaldeck: test MCP servers from a terminal.
//!
//! Layers, each depending only on those before it: [`spec`] (the contract) ←
//! [`service`] (the core) ← [`api`] (HTTP); [`client`] (the `Backend` over the embedded core
//! or a remote base URL) ← [`cli`] and [`tui`]. [`operations`] defines each `/api/v1`
//! operation once; [`api`] serves the list and [`client`] calls it.

pub mod api;
pub mod cli;
pub mod client;
pub mod demo;
pub mod operations;
pub mod service;
pub mod spec;
pub mod tui;
