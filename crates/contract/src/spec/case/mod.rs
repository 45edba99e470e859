//! `EvalCase`, the persisted steps-first case, with its parts (steps, models, checks, judge,
//! import claim, provenance, suppressed standard checks) and [`EvalCaseUpdate`], the partial
//! edit body.
//!
//! Decisions where the spec is silent:
//! - `title` must not be empty; step ids must be non-empty and unique within a case, since
//!   traces and expected-versus-actual analysis address steps by id.
//! - Each step kind needs the field that makes it meaningful: `prompt` for `prompt`,
//!   `toolName` for `toolCall`, `action` for `interact`, `assertion` for `assert`. Other keys
//!   are allowed on any step and kept verbatim.
//! - `checks.list` defaults to `[]` (a bare `{mode: "inherit"}` is natural); `mode` is required.
//! - `models[].model` and `provider` must not be empty.
//! - In [`EvalCaseUpdate`], an omitted field is preserved and `null` clears an optional field;
//!   `null` for a required field (or for `suppressedSuiteStandardCheckIds`, which `[]` clears)
//!   is a type violation. Unknown keys are rejected, so a misspelt edit is not silently lost.
//!   `id`, `declaredId`, `source` and the timestamps are not editable.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::error::Error;
use super::validate::{Checker, MAX_SAFE_INTEGER, join};

/// `iterations` bounds.
pub const MIN_ITERATIONS: i64 = 1;
pub const MAX_ITERATIONS: i64 = 10;
/// Longest `intent`, in characters.
pub const MAX_INTENT: usize = 64;
/// Longest claim `sourceCaseKey` and `note`, in characters.
pub const MAX_SOURCE_CASE_KEY: usize = 512;
pub const MAX_CLAIM_NOTE: usize = 2000;
/// Longest source `fileName`, `excerpt` and `extractorVersion`, in characters.
pub const MAX_FILE_NAME: usize = 255;
pub const MAX_EXCERPT: usize = 102_400;
pub const MAX_EXTRACTOR_VERSION: usize = 100;
/// Most entries of `suppressedSuiteStandardCheckIds` (counted as sent, before normalising).
pub const MAX_SUPPRESSED_CHECK_IDS: usize = 64;

/// The allowed values of `suppressedSuiteStandardCheckIds`.
pub const STANDARD_CHECK_IDS: &[&str] = &[
    "discovery.description",
    "discovery.annotations",
    "discovery.collisions",
    "discovery.deprecated",
    "call.schema",
    "response.schema",
    "selection.hops",
    "call.parameters",
    "call.repeated",
    "response.performance",
    "response.size",
    "response.errors",
    "response.recovery",
    "response.pagination",
    "userValue.turns",
];

// ---------------------------------------------------------------------------------------------
// Decoding with precise rules
// ---------------------------------------------------------------------------------------------

/// Typed decoding whose faults are violations with precise rules (`required`,
/// `additionalProperties`, `enum`, `type`): the validator's own, under the names callers use.
pub use super::validate::{from_value as decode, parse_body as decode_body};

mod step;
pub use step::*;
mod parts;
pub use parts::*;
mod update;
pub use update::*;

// ---------------------------------------------------------------------------------------------
// Small shared checks
// ---------------------------------------------------------------------------------------------

/// An integer of at least 1 and at most 2^53 - 1 (`repetitions`, line numbers).
fn positive(c: &mut Checker, path: &str, n: i64) {
    if n < 1 || n as u64 > MAX_SAFE_INTEGER {
        c.fail(
            path,
            "positiveInteger",
            format!("must be an integer greater than 0 and at most {MAX_SAFE_INTEGER}"),
        );
    }
}

fn check_iterations(c: &mut Checker, path: &str, n: i64) {
    c.range_i64(path, n, MIN_ITERATIONS, MAX_ITERATIONS);
}

fn check_pass_threshold(c: &mut Checker, path: &str, v: f64) {
    c.range_f64(path, v, 0.0, 1.0);
}

/// 1 to 64 characters with no leading or trailing whitespace.
fn check_intent(c: &mut Checker, path: &str, s: &str) {
    c.length(path, s, 1, Some(MAX_INTENT));
    if !s.is_empty() && s.trim() != s {
        c.fail(path, "pattern", "must not start or end with whitespace");
    }
}

fn check_title(c: &mut Checker, path: &str, s: &str) {
    c.length(path, s, 1, None);
}

fn check_models(c: &mut Checker, path: &str, models: &[CaseModel]) {
    for (i, m) in models.iter().enumerate() {
        m.validate(&join(path, i), c);
    }
}

// ---------------------------------------------------------------------------------------------
// The case
// ---------------------------------------------------------------------------------------------

/// A persisted case (steps-first).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalCase {
    pub id: String,
    /// Effective declared id; absent on cases authored before declared identity existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declared_id: Option<String>,
    pub title: String,
    pub steps: Vec<EvalTestStep>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<String>,
    #[schemars(range(min = 1, max = 10))]
    pub iterations: i64,
    /// Trials under per-case grading; replaces the suite default. Absent means inherit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetitions: Option<i64>,
    /// Fraction of trials that must pass (0 to 1). Absent means inherit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0, max = 1))]
    pub pass_threshold: Option<f64>,
    /// When true the case passes if no tools are called.
    pub is_negative: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Analytics grouping label; absent means unlabelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 64))]
    pub intent: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<CaseKind>,
    pub models: Vec<CaseModel>,
    /// Omitted when the case sets none, never `null`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub match_options: Option<Map<String, Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checks: Option<Checks>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<Judge>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<EvalCaseImportClaim>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<EvalCaseSource>,
    /// Epoch milliseconds; the spec types it "number or null", so `null` is written.
    #[serde(default)]
    pub created_at: Option<i64>,
    #[serde(default)]
    pub updated_at: Option<i64>,
    /// Unique and sorted once normalised ([`EvalCase::normalize`]); omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[schemars(length(max = 64))]
    pub suppressed_suite_standard_check_ids: Vec<String>,
    /// Additive: how a run answers an elicitation the server makes during this case's
    /// tool calls (accept with content, decline, cancel); without it the server's saved
    /// answer, else decline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<crate::spec::client_features::ElicitationAnswer>,
}

impl EvalCase {
    /// A case with one iteration, not negative, no models and nothing optional set.
    pub fn new(id: impl Into<String>, title: impl Into<String>, steps: Vec<EvalTestStep>) -> Self {
        EvalCase {
            id: id.into(),
            declared_id: None,
            title: title.into(),
            steps,
            expected_output: None,
            iterations: 1,
            repetitions: None,
            pass_threshold: None,
            is_negative: false,
            scenario: None,
            intent: None,
            kind: None,
            models: Vec::new(),
            match_options: None,
            checks: None,
            judge: None,
            import: None,
            source: None,
            created_at: None,
            updated_at: None,
            suppressed_suite_standard_check_ids: Vec::new(),
            elicitation: None,
        }
    }

    /// Reports every violated rule, under `path`.
    pub fn validate(&self, path: &str, c: &mut Checker) {
        if let Some(e) = &self.elicitation {
            e.validate(&join(path, "elicitation"), c);
        }
        check_title(c, &join(path, "title"), &self.title);
        validate_steps(&join(path, "steps"), &self.steps, c);
        check_iterations(c, &join(path, "iterations"), self.iterations);
        if let Some(r) = self.repetitions {
            positive(c, &join(path, "repetitions"), r);
        }
        if let Some(t) = self.pass_threshold {
            check_pass_threshold(c, &join(path, "passThreshold"), t);
        }
        if let Some(i) = &self.intent {
            check_intent(c, &join(path, "intent"), i);
        }
        check_models(c, &join(path, "models"), &self.models);
        if let Some(ch) = &self.checks {
            ch.validate(&join(path, "checks"), c);
        }
        if let Some(claim) = &self.import {
            claim.validate(&join(path, "import"), c);
        }
        if let Some(s) = &self.source {
            s.validate(&join(path, "source"), c);
        }
        validate_check_ids(
            &join(path, "suppressedSuiteStandardCheckIds"),
            &self.suppressed_suite_standard_check_ids,
            c,
        );
    }

    /// The case as a whole body: `Ok` or one `VALIDATION_ERROR` listing every violation.
    pub fn check(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        self.validate("", &mut c);
        c.finish()
    }

    /// Brings the case to its stored form (suppressed check ids unique and sorted).
    pub fn normalize(&mut self) {
        normalize_check_ids(&mut self.suppressed_suite_standard_check_ids);
    }

    /// Whether the case may run (its import claim, if any, is not unsupported/unresolved).
    pub fn is_runnable(&self) -> bool {
        self.import.as_ref().is_none_or(|c| c.status.is_runnable())
    }
}

#[cfg(test)]
mod tests;
