//! evaldeck: the binary that ties the crates together (see the README's picture), the demo
//! MCP server, and the paths the integration tests use (`evaldeck::service`, …).

pub use evaldeck_api::api;
pub use evaldeck_cli::cli;
pub use evaldeck_client::client;
pub use evaldeck_contract::spec;
pub use evaldeck_core::{admin, service};
pub use evaldeck_operations::operations;
pub use evaldeck_tui::tui;
pub mod demo;
