//! The service core: one method per operation, typed in and out; storage behind the
//! store's traits, MCP, authoring, evals, models and widgets. No HTTP, no terminal.

pub use evaldeck_contract::spec;
pub mod admin;
pub mod service;
