//! The ratatui workbench: event loop, state, panes, widgets, theme, keymap. Talks to a
//! `Backend` only.

pub use evaldeck_client::{client, local, spec};
pub mod tui;
