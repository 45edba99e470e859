//! The non-interactive commands, over a `Backend`.

pub use evaldeck_client::{client, service, spec};
pub use evaldeck_tui::tui;
pub mod cli;
