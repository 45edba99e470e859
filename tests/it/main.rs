//! The one integration test binary: a module per capability.
mod mcp;
