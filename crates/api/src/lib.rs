//! The HTTP API: axum `/api/v1` from the operation list; auth, rate limit, idempotency,
//! error bodies, OpenAPI.

pub use evaldeck_contract::spec;
pub use evaldeck_core::service;
pub use evaldeck_operations::operations;
pub mod api;
