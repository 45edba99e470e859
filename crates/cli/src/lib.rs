//! The non-interactive commands, over a `Backend`.

pub use evaldeck_client::{client, local, spec};
pub use evaldeck_tui::tui;
pub mod cli;
