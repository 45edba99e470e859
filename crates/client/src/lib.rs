//! The client: `Backend`, embedded (the core in process) and remote (HTTP), each one
//! generic dispatch over the operation list.

pub use evaldeck_contract::spec;
pub(crate) use evaldeck_operations::operations;
pub mod client;

/// What the workbench and the CLI use of the core besides `Backend`: pure helpers over
/// wire types (drift, pins, the scan, the check catalogue), the MCP call hooks (progress,
/// the asker) and what opens the embedded store.
pub mod service {
    pub use evaldeck_core::service::*;
}
