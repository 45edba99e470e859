//! Each `/api/v1` operation defined once: from the list, the router, the OpenAPI document,
//! `Remote` and `Embedded` are derived.

pub use evaldeck_contract::spec;
pub use evaldeck_core::service;
pub mod operations;
