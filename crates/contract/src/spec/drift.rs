//! Drift between two snapshots of a server (`evaldeck diff`), and the lock file of tool
//! hashes `evaldeck pin` writes and `evaldeck check --pins` holds a server to.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a change affects the server's clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DriftClass {
    /// A client written for the old version can break: a removed tool, a new required
    /// parameter, a narrowed type or enum.
    Breaking,
    /// What a careful reader should look at: text the model reads changed (a description),
    /// or hints it acts on (annotations).
    Review,
    /// Additions and widenings.
    NonBreaking,
}

impl DriftClass {
    pub fn as_str(self) -> &'static str {
        match self {
            DriftClass::Breaking => "breaking",
            DriftClass::Review => "review",
            DriftClass::NonBreaking => "non-breaking",
        }
    }
}

/// One change between the two snapshots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftChange {
    /// A stable rule id: `tool.removed`, `input.required-added`, `input.type-narrowed`, …
    pub rule: String,
    pub class: DriftClass,
    /// `tool`, `prompt`, `resource` or `template`.
    pub kind: String,
    /// The item's name (a URI for resources).
    pub name: String,
    /// A JSON Pointer into the item, empty for the item itself.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub pointer: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftSummary {
    pub breaking: usize,
    pub review: usize,
    pub non_breaking: usize,
}

/// `evaldeck diff`'s report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DriftReport {
    /// `evaldeck/drift-report`.
    pub kind: String,
    /// Where each side came from: a file, `server:NAME` (now), `last:NAME[~N] (the check
    /// of DATE)`.
    pub old: String,
    pub new: String,
    pub summary: DriftSummary,
    pub changes: Vec<DriftChange>,
}

/// The value of [`DriftReport::kind`].
pub const DRIFT_KIND: &str = "evaldeck/drift-report";

/// The lock file of `evaldeck pin`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PinFile {
    /// Format version: 1.
    #[serde(rename = "evaldeck/pins")]
    pub version: u32,
    pub server: String,
    /// ISO 8601 date-time.
    pub pinned_at: String,
    /// How each hash is made; informative.
    pub algorithm: String,
    /// Tool name → `sha256:HEX`.
    pub tools: BTreeMap<String, String>,
}

/// [`PinFile::algorithm`]'s text.
pub const PIN_ALGORITHM: &str = "sha256 of the canonical JSON (object keys sorted, no whitespace) of {name, description, inputSchema, outputSchema, annotations}";
