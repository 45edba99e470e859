//! A case's parts: models, checks, judge, import claim, provenance.

use super::*;
use crate::spec::assertion::EvalAssertion;
use crate::spec::validate::{Checker, join};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

// ---------------------------------------------------------------------------------------------
// Case parts
// ---------------------------------------------------------------------------------------------

/// A model a case runs on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaseModel {
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
}

impl CaseModel {
    pub fn new(model: impl Into<String>, provider: Option<String>) -> Self {
        CaseModel {
            model: model.into(),
            provider,
        }
    }

    pub fn validate(&self, path: &str, c: &mut Checker) {
        c.length(&join(path, "model"), &self.model, 1, None);
        if let Some(p) = &self.provider {
            c.length(&join(path, "provider"), p, 1, None);
        }
    }
}

/// `capability` or `regression`; absent means derived from `matchOptions`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum CaseKind {
    Capability,
    Regression,
}

/// How a case's `checks.list` combines with the suite's default checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum CheckMode {
    Inherit,
    Replace,
    Extend,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Checks {
    pub mode: CheckMode,
    #[serde(default)]
    pub list: Vec<EvalAssertion>,
}

impl Checks {
    pub fn validate(&self, path: &str, c: &mut Checker) {
        let list = join(path, "list");
        for (i, a) in self.list.iter().enumerate() {
            a.validate(&join(&list, i), c);
        }
    }
}

/// `enabled: false` skips goal-completion grading for the case. No other keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Judge {
    pub enabled: bool,
}

/// What a converter claimed about a case's mapping from its source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ClaimStatus {
    /// A converter-claimed one-to-one structural mapping (not verified).
    Exact,
    /// Interpreted: needs human approval for every run.
    Approximated,
    /// The source behaviour cannot be represented.
    Unsupported,
    /// A deterministic reference does not resolve against the live target.
    Unresolved,
}

impl ClaimStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ClaimStatus::Exact => "exact",
            ClaimStatus::Approximated => "approximated",
            ClaimStatus::Unsupported => "unsupported",
            ClaimStatus::Unresolved => "unresolved",
        }
    }

    /// A selected `unsupported` or `unresolved` case cannot run.
    pub fn is_runnable(self) -> bool {
        matches!(self, ClaimStatus::Exact | ClaimStatus::Approximated)
    }
}

/// The `import` claim on a case. Closed: approval or internal keys are rejected, not stripped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvalCaseImportClaim {
    pub status: ClaimStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_case_key: Option<String>,
    /// Required when `status` is `exact`: cites the mapping rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl EvalCaseImportClaim {
    pub fn validate(&self, path: &str, c: &mut Checker) {
        if let Some(k) = &self.source_case_key {
            c.length(
                &join(path, "sourceCaseKey"),
                k,
                1,
                Some(MAX_SOURCE_CASE_KEY),
            );
        }
        match &self.note {
            Some(n) => c.length(&join(path, "note"), n, 1, Some(MAX_CLAIM_NOTE)),
            None if self.status == ClaimStatus::Exact => c.fail(
                join(path, "note"),
                "required",
                "an `exact` claim needs a `note` citing the mapping rule",
            ),
            None => {}
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SourceFormat {
    Markdown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum SourceMethod {
    /// An extractor proposed the case and a person reviewed it before saving.
    Ai,
}

/// Provenance of an authored case. Closed; every field required.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvalCaseSource {
    pub format: SourceFormat,
    pub method: SourceMethod,
    pub file_name: String,
    /// SHA-256 of the document's UTF-8 bytes, lowercase hex ([`sha256_hex`]).
    pub file_hash: String,
    /// Exactly the passage the case came from.
    pub excerpt: String,
    /// 1-based, inclusive.
    pub start_line: i64,
    pub end_line: i64,
    pub extractor_version: String,
}

/// SHA-256 of `content`'s UTF-8 bytes as 64 lowercase hex digits (no normalisation first).
pub fn sha256_hex(content: &str) -> String {
    use sha2::Digest;
    use std::fmt::Write;
    let digest = sha2::Sha256::digest(content.as_bytes());
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

impl EvalCaseSource {
    pub fn validate(&self, path: &str, c: &mut Checker) {
        c.length(
            &join(path, "fileName"),
            &self.file_name,
            1,
            Some(MAX_FILE_NAME),
        );
        let hash_ok = self.file_hash.len() == 64
            && self
                .file_hash
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !hash_ok {
            c.fail(
                join(path, "fileHash"),
                "pattern",
                "must be 64 lowercase hexadecimal digits (SHA-256)",
            );
        }
        c.length(&join(path, "excerpt"), &self.excerpt, 1, Some(MAX_EXCERPT));
        positive(c, &join(path, "startLine"), self.start_line);
        positive(c, &join(path, "endLine"), self.end_line);
        if self.end_line >= 1 && self.end_line < self.start_line {
            c.fail(
                join(path, "endLine"),
                "notBeforeStartLine",
                format!("must not be less than startLine ({})", self.start_line),
            );
        }
        c.length(
            &join(path, "extractorVersion"),
            &self.extractor_version,
            1,
            Some(MAX_EXTRACTOR_VERSION),
        );
    }
}

/// Checks `suppressedSuiteStandardCheckIds` as sent: at most 64 entries, each allowed.
pub fn validate_check_ids(path: &str, ids: &[String], c: &mut Checker) {
    if ids.len() > MAX_SUPPRESSED_CHECK_IDS {
        c.fail(
            path,
            "maxItems",
            format!("must have at most {MAX_SUPPRESSED_CHECK_IDS} items"),
        );
    }
    for (i, id) in ids.iter().enumerate() {
        c.one_of(&join(path, i), id, STANDARD_CHECK_IDS);
    }
}

/// The stored form of `suppressedSuiteStandardCheckIds`: unique and sorted.
pub fn normalize_check_ids(ids: &mut Vec<String>) {
    ids.sort();
    ids.dedup();
}
