//! The service core: one method per operation, typed in and out; no HTTP, no terminal.

pub mod mcp;
pub mod store;
