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
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::assertion::EvalAssertion;
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
// Steps
// ---------------------------------------------------------------------------------------------

/// What a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StepKind {
    /// A user message and a model turn.
    Prompt,
    /// A deterministic, model-free tool call.
    ToolCall,
    /// One pure widget action.
    Interact,
    /// An expectation.
    Assert,
}

impl StepKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Prompt => "prompt",
            StepKind::ToolCall => "toolCall",
            StepKind::Interact => "interact",
            StepKind::Assert => "assert",
        }
    }
}

/// One ordered step of a case. Keys beyond the spec's are kept in `extra` and written back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalTestStep {
    pub id: String,
    pub kind: StepKind,
    /// For `prompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// For `toolCall`: the server owning the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// For `toolCall` and `interact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For `toolCall`; free-form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// For `interact`; free-form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Map<String, Value>>,
    /// For `assert`: a transcript predicate or a DOM widget assertion; free-form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<Map<String, Value>>,
    /// Additional properties, preserved verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl EvalTestStep {
    fn bare(id: impl Into<String>, kind: StepKind) -> Self {
        EvalTestStep {
            id: id.into(),
            kind,
            prompt: None,
            server_name: None,
            tool_name: None,
            arguments: None,
            action: None,
            assertion: None,
            extra: Map::new(),
        }
    }

    pub fn new_prompt(id: impl Into<String>, prompt: impl Into<String>) -> Self {
        EvalTestStep {
            prompt: Some(prompt.into()),
            ..Self::bare(id, StepKind::Prompt)
        }
    }

    pub fn new_tool_call(
        id: impl Into<String>,
        tool_name: impl Into<String>,
        arguments: Map<String, Value>,
    ) -> Self {
        EvalTestStep {
            tool_name: Some(tool_name.into()),
            arguments: Some(arguments),
            ..Self::bare(id, StepKind::ToolCall)
        }
    }

    pub fn new_interact(
        id: impl Into<String>,
        tool_name: Option<String>,
        action: Map<String, Value>,
    ) -> Self {
        EvalTestStep {
            tool_name,
            action: Some(action),
            ..Self::bare(id, StepKind::Interact)
        }
    }

    pub fn new_assert(id: impl Into<String>, assertion: Map<String, Value>) -> Self {
        EvalTestStep {
            assertion: Some(assertion),
            ..Self::bare(id, StepKind::Assert)
        }
    }

    pub fn validate(&self, path: &str, c: &mut Checker) {
        c.length(&join(path, "id"), &self.id, 1, None);
        let (field, present) = match self.kind {
            StepKind::Prompt => {
                if let Some(p) = &self.prompt {
                    c.length(&join(path, "prompt"), p, 1, None);
                }
                ("prompt", self.prompt.is_some())
            }
            StepKind::ToolCall => {
                if let Some(t) = &self.tool_name {
                    c.length(&join(path, "toolName"), t, 1, None);
                }
                ("toolName", self.tool_name.is_some())
            }
            StepKind::Interact => ("action", self.action.is_some()),
            StepKind::Assert => ("assertion", self.assertion.is_some()),
        };
        if !present {
            c.fail(
                join(path, field),
                "required",
                format!("a `{}` step needs `{field}`", self.kind.as_str()),
            );
        }
    }
}

/// At least one step, each valid, ids unique.
pub fn validate_steps(path: &str, steps: &[EvalTestStep], c: &mut Checker) {
    if steps.is_empty() {
        c.fail(path, "minItems", "must have at least 1 step");
    }
    let mut seen = std::collections::HashSet::new();
    for (i, s) in steps.iter().enumerate() {
        let p = join(path, i);
        s.validate(&p, c);
        if !s.id.is_empty() && !seen.insert(s.id.as_str()) {
            c.fail(
                join(&p, "id"),
                "uniqueItems",
                format!("step id `{}` is used twice", s.id),
            );
        }
    }
}

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

// ---------------------------------------------------------------------------------------------
// Partial edit
// ---------------------------------------------------------------------------------------------

/// A present field must not be `null` (for fields where only omission means "keep").
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Omitted → `None` (keep), `null` → `Some(None)` (clear), a value → `Some(Some(v))`.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// Body of a case edit: every field optional; omitted keeps, `null` clears an optional field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvalCaseUpdate {
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "String")]
    pub title: Option<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Vec<EvalTestStep>")]
    pub steps: Option<Vec<EvalTestStep>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub expected_output: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "i64")]
    pub iterations: Option<i64>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub repetitions: Option<Option<i64>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub pass_threshold: Option<Option<f64>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "bool")]
    pub is_negative: Option<bool>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub scenario: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub intent: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub kind: Option<Option<CaseKind>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Vec<CaseModel>")]
    pub models: Option<Vec<CaseModel>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub match_options: Option<Option<Map<String, Value>>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub checks: Option<Option<Checks>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub judge: Option<Option<Judge>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub import: Option<Option<EvalCaseImportClaim>>,
    /// Omitted preserves; `[]` clears.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Vec<String>")]
    pub suppressed_suite_standard_check_ids: Option<Vec<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub elicitation: Option<Option<crate::spec::client_features::ElicitationAnswer>>,
}

impl EvalCaseUpdate {
    /// Reports every violated rule of the fields present, with paths from the body's root.
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        if let Some(t) = &self.title {
            check_title(&mut c, "/title", t);
        }
        if let Some(s) = &self.steps {
            validate_steps("/steps", s, &mut c);
        }
        if let Some(n) = self.iterations {
            check_iterations(&mut c, "/iterations", n);
        }
        if let Some(Some(r)) = self.repetitions {
            positive(&mut c, "/repetitions", r);
        }
        if let Some(Some(t)) = self.pass_threshold {
            check_pass_threshold(&mut c, "/passThreshold", t);
        }
        if let Some(Some(i)) = &self.intent {
            check_intent(&mut c, "/intent", i);
        }
        if let Some(m) = &self.models {
            check_models(&mut c, "/models", m);
        }
        if let Some(Some(ch)) = &self.checks {
            ch.validate("/checks", &mut c);
        }
        if let Some(Some(claim)) = &self.import {
            claim.validate("/import", &mut c);
        }
        if let Some(ids) = &self.suppressed_suite_standard_check_ids {
            validate_check_ids("/suppressedSuiteStandardCheckIds", ids, &mut c);
        }
        if let Some(Some(e)) = &self.elicitation {
            e.validate("/elicitation", &mut c);
        }
        c.finish()
    }

    /// Writes the present fields into `case` (normalising suppressed check ids). Does not
    /// touch `id` or the timestamps: the service stamps `updatedAt`.
    pub fn apply(self, case: &mut EvalCase) {
        fn set<T>(slot: &mut T, v: Option<T>) {
            if let Some(v) = v {
                *slot = v;
            }
        }
        set(&mut case.title, self.title);
        set(&mut case.steps, self.steps);
        set(&mut case.expected_output, self.expected_output);
        set(&mut case.iterations, self.iterations);
        set(&mut case.repetitions, self.repetitions);
        set(&mut case.pass_threshold, self.pass_threshold);
        set(&mut case.is_negative, self.is_negative);
        set(&mut case.scenario, self.scenario);
        set(&mut case.elicitation, self.elicitation);
        set(&mut case.intent, self.intent);
        set(&mut case.kind, self.kind);
        set(&mut case.models, self.models);
        set(&mut case.match_options, self.match_options);
        set(&mut case.checks, self.checks);
        set(&mut case.judge, self.judge);
        set(&mut case.import, self.import);
        if let Some(mut ids) = self.suppressed_suite_standard_check_ids {
            normalize_check_ids(&mut ids);
            case.suppressed_suite_standard_check_ids = ids;
        }
    }

    /// Whether the edit changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == EvalCaseUpdate::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(e: &Error) -> Vec<(String, String)> {
        e.violations()
            .into_iter()
            .map(|v| (v.path, v.rule))
            .collect()
    }

    /// Decodes and validates a case body, returning every violation.
    fn case_violations(v: Value) -> Vec<(String, String)> {
        match decode::<EvalCase>(v) {
            Err(e) => pairs(&e),
            Ok(case) => case.check().err().map(|e| pairs(&e)).unwrap_or_default(),
        }
    }

    fn source() -> Value {
        json!({
            "format": "markdown", "method": "ai", "fileName": "plan.md",
            "fileHash": sha256_hex("# plan"), "excerpt": "1. Search for shoes",
            "startLine": 3, "endLine": 5, "extractorVersion": "evaldeck-extract/1"
        })
    }

    fn base() -> Value {
        json!({
            "id": "case_1", "title": "Search works",
            "steps": [{"id": "s1", "kind": "prompt", "prompt": "Find shoes"}],
            "iterations": 1, "isNegative": false, "models": [{"model": "gpt-4o"}]
        })
    }

    /// `base()` with the value at `ptr` replaced (`Some`) or removed (`None`).
    fn with(ptr: &str, new: Option<Value>) -> Value {
        let mut v = base();
        let (parent, key) = ptr.rsplit_once('/').unwrap();
        let slot = v.pointer_mut(parent).unwrap();
        match (slot, new) {
            (Value::Object(m), Some(n)) => {
                m.insert(key.to_string(), n);
            }
            (Value::Object(m), None) => {
                m.remove(key);
            }
            (Value::Array(a), Some(n)) => a[key.parse::<usize>().unwrap()] = n,
            _ => panic!("bad pointer {ptr}"),
        }
        v
    }

    #[test]
    fn good_cases_are_accepted() {
        let sets: Vec<(&str, Value)> = vec![
            ("/iterations", json!(1)),
            ("/iterations", json!(10)),
            ("/repetitions", json!(1)),
            ("/repetitions", json!(MAX_SAFE_INTEGER)),
            ("/passThreshold", json!(0)),
            ("/passThreshold", json!(1)),
            ("/passThreshold", json!(0.75)),
            ("/intent", json!("a")),
            ("/intent", json!("checkout flow")),
            ("/intent", json!("x".repeat(64))),
            ("/intent", json!("é".repeat(64))),
            ("/kind", json!("capability")),
            ("/kind", json!("regression")),
            ("/matchOptions", json!({})),
            ("/matchOptions", json!({"ignoreOrder": true})),
            ("/checks", json!({"mode": "inherit"})),
            ("/checks", json!({"mode": "replace", "list": []})),
            (
                "/checks",
                json!({"mode": "extend", "list": [{"type": "noToolErrors"},
                {"type": "noDeprecatedToolExposed", "role": "advisory"}]}),
            ),
            ("/judge", json!({"enabled": false})),
            (
                "/import",
                json!({"status": "exact", "note": "numbered step -> prompt step"}),
            ),
            ("/import", json!({"status": "approximated"})),
            ("/import", json!({"status": "unsupported", "note": "n"})),
            (
                "/import",
                json!({"status": "unresolved", "sourceCaseKey": "k".repeat(512),
                "note": "n".repeat(2000)}),
            ),
            ("/source", source()),
            ("/createdAt", json!(null)),
            ("/createdAt", json!(1_700_000_000_000_i64)),
            ("/updatedAt", json!(1_700_000_000_000_i64)),
            ("/suppressedSuiteStandardCheckIds", json!([])),
            (
                "/suppressedSuiteStandardCheckIds",
                json!(STANDARD_CHECK_IDS),
            ),
            (
                "/suppressedSuiteStandardCheckIds",
                json!(["call.schema", "call.schema"]),
            ),
            ("/declaredId", json!("TC-12")),
            ("/expectedOutput", json!("A list of shoes")),
            ("/scenario", json!("A returning customer")),
            ("/models", json!([])),
            (
                "/models",
                json!([{"model": "claude-sonnet-4", "provider": "anthropic"}]),
            ),
            ("/isNegative", json!(true)),
            (
                "/steps",
                json!([
                    {"id": "p", "kind": "prompt", "prompt": "hi", "attachments": ["a.png"]},
                    {"id": "t", "kind": "toolCall", "toolName": "search", "serverName": "shop",
                     "arguments": {"q": "x"}},
                    {"id": "i", "kind": "interact", "toolName": "cart", "action": {"click": "#buy"}},
                    {"id": "a", "kind": "assert", "assertion": {"type": "responseContains", "needle": "x"}},
                ]),
            ),
            ("/title", json!("é")),
        ];
        for (ptr, v) in sets {
            let body = with(ptr, Some(v.clone()));
            assert_eq!(case_violations(body), vec![], "{ptr} = {v}");
        }
        assert_eq!(case_violations(base()), vec![]);
    }

    #[test]
    fn bad_cases_name_path_and_rule() {
        let src = |k: &str, v: Option<Value>| {
            let mut s = source();
            match v {
                Some(v) => s[k] = v,
                None => {
                    s.as_object_mut().unwrap().remove(k);
                }
            }
            s
        };
        let sets: Vec<(&str, Option<Value>, &str, &str)> = vec![
            ("/title", Some(json!("")), "/title", "minLength"),
            ("/title", None, "/title", "required"),
            ("/id", None, "/id", "required"),
            ("/steps", Some(json!([])), "/steps", "minItems"),
            ("/steps", None, "/steps", "required"),
            (
                "/steps/0",
                Some(json!({"id": "", "kind": "prompt", "prompt": "p"})),
                "/steps/0/id",
                "minLength",
            ),
            (
                "/steps/0",
                Some(json!({"kind": "prompt", "prompt": "p"})),
                "/steps/0/id",
                "required",
            ),
            (
                "/steps/0",
                Some(json!({"id": 5, "kind": "prompt", "prompt": "p"})),
                "/steps/0/id",
                "type",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "prompt": "p"})),
                "/steps/0/kind",
                "required",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "teleport"})),
                "/steps/0/kind",
                "enum",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "prompt"})),
                "/steps/0/prompt",
                "required",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "prompt", "prompt": ""})),
                "/steps/0/prompt",
                "minLength",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "toolCall"})),
                "/steps/0/toolName",
                "required",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "toolCall", "toolName": ""})),
                "/steps/0/toolName",
                "minLength",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "toolCall", "toolName": "t", "arguments": "q=1"})),
                "/steps/0/arguments",
                "type",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "interact", "toolName": "w"})),
                "/steps/0/action",
                "required",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "assert"})),
                "/steps/0/assertion",
                "required",
            ),
            (
                "/steps/0",
                Some(json!({"id": "s", "kind": "assert", "assertion": "x"})),
                "/steps/0/assertion",
                "type",
            ),
            (
                "/steps",
                Some(json!([{"id": "s", "kind": "prompt", "prompt": "a"},
                {"id": "s", "kind": "prompt", "prompt": "b"}])),
                "/steps/1/id",
                "uniqueItems",
            ),
            ("/iterations", Some(json!(0)), "/iterations", "range"),
            ("/iterations", Some(json!(11)), "/iterations", "range"),
            ("/iterations", Some(json!("1")), "/iterations", "type"),
            ("/iterations", Some(json!(1.5)), "/iterations", "type"),
            ("/iterations", None, "/iterations", "required"),
            (
                "/repetitions",
                Some(json!(0)),
                "/repetitions",
                "positiveInteger",
            ),
            (
                "/repetitions",
                Some(json!(-3)),
                "/repetitions",
                "positiveInteger",
            ),
            (
                "/repetitions",
                Some(json!(MAX_SAFE_INTEGER + 1)),
                "/repetitions",
                "positiveInteger",
            ),
            (
                "/passThreshold",
                Some(json!(-0.1)),
                "/passThreshold",
                "range",
            ),
            (
                "/passThreshold",
                Some(json!(1.01)),
                "/passThreshold",
                "range",
            ),
            (
                "/passThreshold",
                Some(json!("0.5")),
                "/passThreshold",
                "type",
            ),
            ("/isNegative", None, "/isNegative", "required"),
            ("/isNegative", Some(json!("no")), "/isNegative", "type"),
            ("/intent", Some(json!("")), "/intent", "minLength"),
            (
                "/intent",
                Some(json!("x".repeat(65))),
                "/intent",
                "maxLength",
            ),
            ("/intent", Some(json!(" checkout")), "/intent", "pattern"),
            ("/intent", Some(json!("checkout ")), "/intent", "pattern"),
            ("/intent", Some(json!("checkout\n")), "/intent", "pattern"),
            ("/kind", Some(json!("smoke")), "/kind", "enum"),
            ("/models", None, "/models", "required"),
            ("/models", Some(json!([{}])), "/models/0/model", "required"),
            (
                "/models",
                Some(json!([{"provider": "openai"}])),
                "/models/0/model",
                "required",
            ),
            (
                "/models",
                Some(json!([{"model": ""}])),
                "/models/0/model",
                "minLength",
            ),
            (
                "/models",
                Some(json!([{"model": "m", "provider": ""}])),
                "/models/0/provider",
                "minLength",
            ),
            ("/matchOptions", Some(json!([1])), "/matchOptions", "type"),
            (
                "/checks",
                Some(json!({"list": []})),
                "/checks/mode",
                "required",
            ),
            (
                "/checks",
                Some(json!({"mode": "merge"})),
                "/checks/mode",
                "enum",
            ),
            (
                "/checks",
                Some(json!({"mode": "extend", "list": [{"type": "nope"}]})),
                "/checks/list/0/type",
                "enum",
            ),
            (
                "/checks",
                Some(json!({"mode": "extend", "list": [{"type": "noDeprecatedToolExposed"}]})),
                "/checks/list/0/role",
                "observationRole",
            ),
            (
                "/checks",
                Some(json!({"mode": "extend", "list": [{"type": "noToolErrors"},
                {"type": "toolResultContains", "needle": "x".repeat(1001)}]})),
                "/checks/list/1/needle",
                "maxLength",
            ),
            (
                "/judge",
                Some(json!({"enabled": true, "weight": 1})),
                "/judge/weight",
                "additionalProperties",
            ),
            ("/judge", Some(json!({})), "/judge/enabled", "required"),
            (
                "/judge",
                Some(json!({"enabled": "yes"})),
                "/judge/enabled",
                "type",
            ),
            (
                "/import",
                Some(json!({"status": "exact"})),
                "/import/note",
                "required",
            ),
            (
                "/import",
                Some(json!({"status": "approved"})),
                "/import/status",
                "enum",
            ),
            (
                "/import",
                Some(json!({"note": "n"})),
                "/import/status",
                "required",
            ),
            (
                "/import",
                Some(json!({"status": "approximated", "approvedBy": "usr_1"})),
                "/import/approvedBy",
                "additionalProperties",
            ),
            (
                "/import",
                Some(json!({"status": "approximated", "approved": true})),
                "/import/approved",
                "additionalProperties",
            ),
            (
                "/import",
                Some(json!({"status": "exact", "note": "n", "approvedAt": 1})),
                "/import/approvedAt",
                "additionalProperties",
            ),
            (
                "/import",
                Some(json!({"status": "unresolved", "_internalDraftId": "d1"})),
                "/import/_internalDraftId",
                "additionalProperties",
            ),
            (
                "/import",
                Some(json!({"status": "approximated", "sourceCaseKey": ""})),
                "/import/sourceCaseKey",
                "minLength",
            ),
            (
                "/import",
                Some(json!({"status": "approximated", "sourceCaseKey": "k".repeat(513)})),
                "/import/sourceCaseKey",
                "maxLength",
            ),
            (
                "/import",
                Some(json!({"status": "exact", "note": ""})),
                "/import/note",
                "minLength",
            ),
            (
                "/import",
                Some(json!({"status": "approximated", "note": "n".repeat(2001)})),
                "/import/note",
                "maxLength",
            ),
            (
                "/source",
                Some(src("format", Some(json!("html")))),
                "/source/format",
                "enum",
            ),
            (
                "/source",
                Some(src("method", Some(json!("manual")))),
                "/source/method",
                "enum",
            ),
            (
                "/source",
                Some(src("fileName", Some(json!("")))),
                "/source/fileName",
                "minLength",
            ),
            (
                "/source",
                Some(src("fileName", Some(json!("f".repeat(256))))),
                "/source/fileName",
                "maxLength",
            ),
            (
                "/source",
                Some(src("fileHash", Some(json!(sha256_hex("x").to_uppercase())))),
                "/source/fileHash",
                "pattern",
            ),
            (
                "/source",
                Some(src("fileHash", Some(json!("a".repeat(63))))),
                "/source/fileHash",
                "pattern",
            ),
            (
                "/source",
                Some(src("fileHash", Some(json!("g".repeat(64))))),
                "/source/fileHash",
                "pattern",
            ),
            (
                "/source",
                Some(src(
                    "fileHash",
                    Some(json!(format!("{}\n", sha256_hex("x")))),
                )),
                "/source/fileHash",
                "pattern",
            ),
            (
                "/source",
                Some(src("excerpt", Some(json!("")))),
                "/source/excerpt",
                "minLength",
            ),
            (
                "/source",
                Some(src("excerpt", Some(json!("é".repeat(MAX_EXCERPT + 1))))),
                "/source/excerpt",
                "maxLength",
            ),
            (
                "/source",
                Some(src("startLine", Some(json!(0)))),
                "/source/startLine",
                "positiveInteger",
            ),
            (
                "/source",
                Some(src("endLine", Some(json!(0)))),
                "/source/endLine",
                "positiveInteger",
            ),
            (
                "/source",
                Some(src("endLine", Some(json!(2)))),
                "/source/endLine",
                "notBeforeStartLine",
            ),
            (
                "/source",
                Some(src("extractorVersion", Some(json!("")))),
                "/source/extractorVersion",
                "minLength",
            ),
            (
                "/source",
                Some(src("extractorVersion", Some(json!("v".repeat(101))))),
                "/source/extractorVersion",
                "maxLength",
            ),
            (
                "/source",
                Some(src("reviewedBy", Some(json!("usr_1")))),
                "/source/reviewedBy",
                "additionalProperties",
            ),
            (
                "/source",
                Some(src("excerpt", None)),
                "/source/excerpt",
                "required",
            ),
            (
                "/source",
                Some(src("extractorVersion", None)),
                "/source/extractorVersion",
                "required",
            ),
            (
                "/suppressedSuiteStandardCheckIds",
                Some(json!(["call.schema", "nope"])),
                "/suppressedSuiteStandardCheckIds/1",
                "enum",
            ),
            (
                "/suppressedSuiteStandardCheckIds",
                Some(json!(vec!["call.schema"; 65])),
                "/suppressedSuiteStandardCheckIds",
                "maxItems",
            ),
            ("/createdAt", Some(json!("yesterday")), "/createdAt", "type"),
        ];
        for (ptr, v, path, rule) in sets {
            let body = with(ptr, v.clone());
            assert_eq!(
                case_violations(body),
                vec![(path.to_string(), rule.to_string())],
                "{ptr} = {v:?}"
            );
        }
    }

    #[test]
    fn boundaries_of_the_source_and_suppressed_ids() {
        let mut s = source();
        s["excerpt"] = json!("é".repeat(MAX_EXCERPT));
        s["fileName"] = json!("f".repeat(255));
        s["startLine"] = json!(7);
        s["endLine"] = json!(7);
        s["extractorVersion"] = json!("v".repeat(100));
        assert_eq!(case_violations(with("/source", Some(s))), vec![]);
        let ids = json!(vec!["call.schema"; 64]);
        assert_eq!(
            case_violations(with("/suppressedSuiteStandardCheckIds", Some(ids))),
            vec![]
        );
    }

    #[test]
    fn every_violation_is_reported_at_once() {
        let mut v = base();
        v["title"] = json!("");
        v["iterations"] = json!(0);
        v["intent"] = json!(" x");
        v["import"] = json!({"status": "exact"});
        v["suppressedSuiteStandardCheckIds"] = json!(["nope"]);
        let got = case_violations(v);
        assert_eq!(
            got,
            [
                ("/title", "minLength"),
                ("/iterations", "range"),
                ("/intent", "pattern"),
                ("/import/note", "required"),
                ("/suppressedSuiteStandardCheckIds/0", "enum"),
            ]
            .map(|(p, r)| (p.to_string(), r.to_string()))
        );
        let e = decode::<EvalCase>(base()).unwrap();
        assert!(e.check().is_ok());
    }

    #[test]
    fn none_fields_are_omitted_and_timestamps_are_null() {
        let case = EvalCase::new("case_1", "T", vec![EvalTestStep::new_prompt("s1", "hi")]);
        let v = serde_json::to_value(&case).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "id",
                "title",
                "steps",
                "iterations",
                "isNegative",
                "models",
                "createdAt",
                "updatedAt"
            ]
        );
        assert_eq!(v["createdAt"], Value::Null);
        assert_eq!(
            v["steps"],
            json!([{"id": "s1", "kind": "prompt", "prompt": "hi"}])
        );
        // `matchOptions: null` on input is written back as omitted, never `null`.
        let mut with_null = base();
        with_null["matchOptions"] = Value::Null;
        let case: EvalCase = decode(with_null).unwrap();
        assert!(
            serde_json::to_value(&case)
                .unwrap()
                .get("matchOptions")
                .is_none()
        );
    }

    #[test]
    fn step_extras_and_assertion_keys_survive_a_round_trip() {
        let mut v = base();
        v["steps"] = json!([
            {"id": "s1", "kind": "prompt", "prompt": "hi", "timeoutMs": 5000,
             "meta": {"origin": "import", "tags": ["a"]}},
            {"id": "s2", "kind": "assert", "assertion": {"type": "widgetVisible", "selector": "#x"},
             "x-custom": null}
        ]);
        v["checks"] = json!({"mode": "extend", "list": [
            {"type": "toolNeverCalled", "toolName": "rm", "x-reviewer-note": "keep me"}]});
        v["matchOptions"] = json!({"toolOrder": "any"});
        v["createdAt"] = json!(1);
        v["updatedAt"] = json!(2);
        let case: EvalCase = decode(v.clone()).unwrap();
        assert_eq!(case.steps[0].extra["timeoutMs"], json!(5000));
        assert_eq!(serde_json::to_value(&case).unwrap(), v);
    }

    #[test]
    fn suppressed_ids_normalise_to_unique_sorted() {
        let mut ids = vec![
            "response.size".to_string(),
            "call.schema".into(),
            "response.size".into(),
        ];
        normalize_check_ids(&mut ids);
        assert_eq!(ids, ["call.schema", "response.size"]);
        let mut case: EvalCase = decode(with(
            "/suppressedSuiteStandardCheckIds",
            Some(json!([
                "userValue.turns",
                "call.repeated",
                "userValue.turns"
            ])),
        ))
        .unwrap();
        case.normalize();
        assert_eq!(
            case.suppressed_suite_standard_check_ids,
            ["call.repeated", "userValue.turns"]
        );
    }

    #[test]
    fn claims_and_hashes() {
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(ClaimStatus::Exact.is_runnable());
        assert!(ClaimStatus::Approximated.is_runnable());
        assert!(!ClaimStatus::Unsupported.is_runnable());
        assert!(!ClaimStatus::Unresolved.is_runnable());
        let case: EvalCase =
            decode(with("/import", Some(json!({"status": "unresolved"})))).unwrap();
        assert!(!case.is_runnable());
    }

    fn update_violations(v: Value) -> Vec<(String, String)> {
        match decode::<EvalCaseUpdate>(v) {
            Err(e) => pairs(&e),
            Ok(u) => u.validate().err().map(|e| pairs(&e)).unwrap_or_default(),
        }
    }

    #[test]
    fn update_rules() {
        let good = [
            json!({}),
            json!({"title": "New"}),
            json!({"intent": null, "repetitions": null, "passThreshold": null, "kind": null,
                   "matchOptions": null, "checks": null, "judge": null, "import": null,
                   "expectedOutput": null, "scenario": null}),
            json!({"suppressedSuiteStandardCheckIds": []}),
            json!({"iterations": 10, "repetitions": 2, "passThreshold": 0.5, "isNegative": true}),
            json!({"import": {"status": "exact", "note": "1:1"}}),
        ];
        for g in good {
            assert_eq!(update_violations(g.clone()), vec![], "{g}");
        }
        let bad = [
            (json!({"title": null}), "/title", "type"),
            (json!({"title": ""}), "/title", "minLength"),
            (json!({"steps": null}), "/steps", "type"),
            (json!({"steps": []}), "/steps", "minItems"),
            (json!({"iterations": null}), "/iterations", "type"),
            (json!({"iterations": 0}), "/iterations", "range"),
            (json!({"isNegative": null}), "/isNegative", "type"),
            (json!({"models": null}), "/models", "type"),
            (
                json!({"models": [{"model": ""}]}),
                "/models/0/model",
                "minLength",
            ),
            (json!({"repetitions": 0}), "/repetitions", "positiveInteger"),
            (json!({"passThreshold": 2}), "/passThreshold", "range"),
            (json!({"intent": " x"}), "/intent", "pattern"),
            (json!({"kind": "smoke"}), "/kind", "enum"),
            (
                json!({"checks": {"mode": "extend", "list": [{}]}}),
                "/checks/list/0/type",
                "required",
            ),
            (
                json!({"judge": {"enabled": true, "x": 1}}),
                "/judge/x",
                "additionalProperties",
            ),
            (
                json!({"import": {"status": "exact"}}),
                "/import/note",
                "required",
            ),
            (
                json!({"import": {"status": "exact", "note": "n", "approvedBy": "u"}}),
                "/import/approvedBy",
                "additionalProperties",
            ),
            (
                json!({"suppressedSuiteStandardCheckIds": null}),
                "/suppressedSuiteStandardCheckIds",
                "type",
            ),
            (
                json!({"suppressedSuiteStandardCheckIds": ["x"]}),
                "/suppressedSuiteStandardCheckIds/0",
                "enum",
            ),
            (json!({"id": "case_2"}), "/id", "additionalProperties"),
            (json!({"source": {}}), "/source", "additionalProperties"),
            (json!({"titel": "typo"}), "/titel", "additionalProperties"),
        ];
        for (v, path, rule) in bad {
            assert_eq!(
                update_violations(v.clone()),
                vec![(path.into(), rule.into())],
                "{v}"
            );
        }
    }

    #[test]
    fn update_apply_keeps_clears_and_normalises() {
        let mut case: EvalCase = decode(base()).unwrap();
        case.intent = Some("checkout".into());
        case.repetitions = Some(2);
        case.suppressed_suite_standard_check_ids = vec!["call.schema".into()];
        case.created_at = Some(1);

        let u: EvalCaseUpdate =
            decode(json!({"title": "New", "intent": null, "repetitions": 3})).unwrap();
        assert!(!u.is_empty());
        u.apply(&mut case);
        assert_eq!(case.title, "New");
        assert_eq!(case.intent, None);
        assert_eq!(case.repetitions, Some(3));
        assert_eq!(
            case.suppressed_suite_standard_check_ids,
            ["call.schema"],
            "omitted preserves"
        );
        assert_eq!(case.created_at, Some(1));
        assert_eq!(case.id, "case_1");

        let u: EvalCaseUpdate = decode(json!({"suppressedSuiteStandardCheckIds":
            ["response.size", "call.repeated", "response.size"]}))
        .unwrap();
        u.apply(&mut case);
        assert_eq!(
            case.suppressed_suite_standard_check_ids,
            ["call.repeated", "response.size"]
        );

        let u: EvalCaseUpdate = decode(json!({"suppressedSuiteStandardCheckIds": []})).unwrap();
        u.apply(&mut case);
        assert!(
            case.suppressed_suite_standard_check_ids.is_empty(),
            "[] clears"
        );

        let empty: EvalCaseUpdate = decode(json!({})).unwrap();
        assert!(empty.is_empty());
        let before = case.clone();
        empty.apply(&mut case);
        assert_eq!(case, before);
    }

    #[test]
    fn update_serialises_clears_as_null_and_omits_the_rest() {
        let u = EvalCaseUpdate {
            intent: Some(None),
            title: Some("T".into()),
            ..Default::default()
        };
        assert_eq!(
            serde_json::to_value(&u).unwrap(),
            json!({"title": "T", "intent": null})
        );
        let back: EvalCaseUpdate = decode(json!({"title": "T", "intent": null})).unwrap();
        assert_eq!(back, u);
    }

    #[test]
    fn decode_body_names_body_faults() {
        let e = decode_body::<EvalCase>(b"\xff").unwrap_err();
        assert_eq!(pairs(&e), [("".to_string(), "utf8".to_string())]);
        let e = decode_body::<EvalCase>(b"{\"id\":").unwrap_err();
        assert_eq!(pairs(&e)[0].1, "json");
        let e = decode_body::<EvalCase>(b"[]").unwrap_err();
        assert_eq!(pairs(&e), [("".to_string(), "type".to_string())]);
    }

    #[test]
    fn schemas_generate() {
        for v in [
            serde_json::to_value(schemars::schema_for!(EvalCase)).unwrap(),
            serde_json::to_value(schemars::schema_for!(EvalCaseUpdate)).unwrap(),
        ] {
            assert!(v.get("properties").is_some(), "{v}");
        }
    }
}
