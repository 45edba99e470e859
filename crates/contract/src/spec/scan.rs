//! The security scan's findings: a rule, a severity, where in the server's listing (or in a
//! tool call's result) it was found, and the text that matched.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth a look; never fails a run.
    Note,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A scan rule as the scanner declares it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleSpec {
    /// `scan.…`, stable.
    pub id: &'static str,
    pub title: &'static str,
    pub severity: Severity,
    /// Why it matters and what to do, for reports.
    pub help: &'static str,
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub rule: String,
    pub severity: Severity,
    pub message: String,
    /// `tool:NAME`, `prompt:NAME`, `resource:URI`, `template:URI`, `call:NAME`.
    pub location: String,
    /// A JSON Pointer into that item (`/description`, `/inputSchema/properties/path`).
    pub pointer: String,
    /// The text that matched (invisible characters shown as `U+XXXX`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<String>,
}
