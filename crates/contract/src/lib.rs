//! The wire contract of `/api/v1`: its types (serde) and their validation rules.

pub mod spec;
