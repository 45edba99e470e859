//! Reusable pieces: lists, inputs, modals, help, palette, highlighting.

pub mod doc;
pub mod form;
pub mod help;
pub mod highlight;
pub mod input;
pub mod json_edit;
pub mod list;
pub mod modal;
pub mod palette;
pub mod picture;
pub mod schema_form;
