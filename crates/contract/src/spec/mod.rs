//! The contract: wire types of `/api/v1` and the validation rules beside them, shared by the
//! service, the HTTP layer, both backends, the CLI and the workbench.

pub mod agent;
pub mod allow;
pub mod artifacts;
pub mod assertion;
pub mod authoring;
pub mod case;
pub mod catalog;
pub mod client_features;
pub mod conformance;
pub mod drift;
pub mod environment;
pub mod error;
pub mod host;
/// The error as an HTTP response (the spec's body, the status its code stands for).
#[cfg(feature = "http")]
mod http_error;
pub mod import;
pub mod ingest;
pub mod mcp_config;
pub mod page;
pub mod primitives;
pub mod run;
pub mod scan;
pub mod schedule;
pub mod server;
pub mod suite;
pub mod suite_file;
pub mod uri_template;
pub mod validate;
pub mod widget;
pub mod widget_snapshot;

pub use error::{Code, Error, Result, Violation};
pub use page::Page;
