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
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

use super::assertion::EvalAssertion;
use super::error::{Error, Violation};
use super::validate::{self, Checker, MAX_SAFE_INTEGER, join};

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

/// Like [`validate::from_value`], but names serde's faults precisely: a missing field becomes
/// rule `required` at the field's own path, an unknown field of a closed object
/// `additionalProperties`, an unknown enum value `enum`; everything else stays `type`.
pub fn decode<T: DeserializeOwned>(v: Value) -> Result<T, Error> {
    validate::from_value(v).map_err(refine)
}

/// Like [`validate::parse_body`] (UTF-8 and JSON faults are violations of the whole body),
/// with [`decode`]'s rule names.
pub fn decode_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    let v: Value = validate::parse_body(bytes)?;
    decode(v)
}

fn refine(e: Error) -> Error {
    let violations = e.violations();
    if violations.is_empty() {
        return e;
    }
    let refined = violations.into_iter().map(refine_one).collect();
    Error::validation(refined)
}

fn refine_one(v: Violation) -> Violation {
    if v.rule != "type" {
        return v;
    }
    let quoted = |prefix: &str| -> Option<String> {
        let rest = v.message.strip_prefix(prefix)?;
        let end = rest.find('`')?;
        Some(rest[..end].to_string())
    };
    if let Some(field) = quoted("missing field `") {
        return Violation {
            path: join(&v.path, &field),
            rule: "required".into(),
            message: v.message,
        };
    }
    if v.message.starts_with("unknown field `") {
        return Violation { rule: "additionalProperties".into(), ..v };
    }
    if v.message.starts_with("unknown variant `") {
        return Violation { rule: "enum".into(), ..v };
    }
    v
}

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
        EvalTestStep { prompt: Some(prompt.into()), ..Self::bare(id, StepKind::Prompt) }
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
        EvalTestStep { tool_name, action: Some(action), ..Self::bare(id, StepKind::Interact) }
    }

    pub fn new_assert(id: impl Into<String>, assertion: Map<String, Value>) -> Self {
        EvalTestStep { assertion: Some(assertion), ..Self::bare(id, StepKind::Assert) }
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
            c.fail(join(&p, "id"), "uniqueItems", format!("step id `{}` is used twice", s.id));
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
        CaseModel { model: model.into(), provider }
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
            c.length(&join(path, "sourceCaseKey"), k, 1, Some(MAX_SOURCE_CASE_KEY));
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
        c.length(&join(path, "fileName"), &self.file_name, 1, Some(MAX_FILE_NAME));
        let hash_ok = self.file_hash.len() == 64
            && self.file_hash.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
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
    pub iterations: i64,
    /// Trials under per-case grading; replaces the suite default. Absent means inherit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetitions: Option<i64>,
    /// Fraction of trials that must pass (0 to 1). Absent means inherit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_threshold: Option<f64>,
    /// When true the case passes if no tools are called.
    pub is_negative: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
    /// Analytics grouping label; absent means unlabelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
    pub suppressed_suite_standard_check_ids: Vec<String>,
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
        }
    }

    /// Reports every violated rule, under `path`.
    pub fn validate(&self, path: &str, c: &mut Checker) {
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
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub title: Option<String>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<EvalTestStep>")]
    pub steps: Option<Vec<EvalTestStep>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<Option<String>>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    pub iterations: Option<i64>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub repetitions: Option<Option<i64>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub pass_threshold: Option<Option<f64>>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub is_negative: Option<bool>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub scenario: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub intent: Option<Option<String>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub kind: Option<Option<CaseKind>>,
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<CaseModel>")]
    pub models: Option<Vec<CaseModel>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub match_options: Option<Option<Map<String, Value>>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub checks: Option<Option<Checks>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub judge: Option<Option<Judge>>,
    #[serde(default, deserialize_with = "nullable", skip_serializing_if = "Option::is_none")]
    pub import: Option<Option<EvalCaseImportClaim>>,
    /// Omitted preserves; `[]` clears.
    #[serde(default, deserialize_with = "present", skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<String>")]
    pub suppressed_suite_standard_check_ids: Option<Vec<String>>,
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
