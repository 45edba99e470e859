//! `cases/import`: the request body, the committed response, the authoring job body and the
//! entries of `skipped`.
//!
//! Decisions where the spec is silent:
//! - `fileName` defaults to [`DEFAULT_FILE_NAME`] (every case's provenance needs one).
//! - `duplicatePolicy` defaults to `block`.
//! - `servers`, when given, must name at least one server, and no entry may be empty;
//!   `environmentId` must not be empty. The mutual-exclusion violation is reported at
//!   `/environmentId` with rule `mutuallyExclusive`.
//! - An `overrideReason` missing where the policy needs one is rule `required` at
//!   `/overrideReason`.
//! - Unknown request keys are ignored (the spec does not close the object).
//! - Each `skipped` entry carries `{draftId, title, reason, code}` and optionally the draft's
//!   line span and the case it duplicates; see [`skip_code`] for the codes.
//! - `EvalCaseImported` also carries the job's `jobId` (additive), so a client can reach the
//!   skipped drafts without parsing `reviewUrl`; and `warnings` (additive) records
//!   duplicates created under `warn`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::case::{CaseModel, EvalCase, decode_body};
use super::error::Error;
use super::validate::{Checker, join};

/// Largest `content`, in characters (Unicode scalar values, not bytes).
pub const MAX_CONTENT_CHARS: usize = 102_400;
/// Longest `fileName`.
pub const MAX_FILE_NAME: usize = 255;
/// Longest `idempotencyKey`.
pub const MAX_IDEMPOTENCY_KEY: usize = 256;
/// The file name recorded on provenance when the request gives none.
pub const DEFAULT_FILE_NAME: &str = "document";

fn null_is_block<'de, D: serde::Deserializer<'de>>(d: D) -> Result<DuplicatePolicy, D::Error> {
    Ok(Option::<DuplicatePolicy>::deserialize(d)?.unwrap_or_default())
}

/// What the commit does with a draft that duplicates an existing case of the suite.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DuplicatePolicy {
    /// Skip the draft (it stays on the job, with its reason).
    #[default]
    Block,
    /// Create it and record a warning.
    Warn,
    /// Create it.
    CreateAnyway,
}

impl DuplicatePolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            DuplicatePolicy::Block => "block",
            DuplicatePolicy::Warn => "warn",
            DuplicatePolicy::CreateAnyway => "create_anyway",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "block" => Some(DuplicatePolicy::Block),
            "warn" => Some(DuplicatePolicy::Warn),
            "create_anyway" => Some(DuplicatePolicy::CreateAnyway),
            _ => None,
        }
    }
}

/// Body of `POST /projects/{p}/eval-suites/{s}/cases/import`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalCaseImportRequest {
    /// The document as text, at most 102400 characters.
    #[schemars(length(max = 102400))]
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 255))]
    pub file_name: Option<String>,
    /// Server ids or names to discover tools from; exclusive with `environmentId`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_id: Option<String>,
    /// Models for the authored cases; absent means the suite's default model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_models: Option<Vec<CaseModel>>,
    /// Applied at commit. Defaults to `block`, also when sent as `null` (as every other
    /// optional field of the request may be).
    #[serde(default, deserialize_with = "null_is_block")]
    pub duplicate_policy: DuplicatePolicy,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1))]
    pub override_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(length(min = 1, max = 256))]
    pub idempotency_key: Option<String>,
}

impl EvalCaseImportRequest {
    pub fn new(content: impl Into<String>) -> Self {
        EvalCaseImportRequest {
            content: content.into(),
            file_name: None,
            servers: None,
            environment_id: None,
            case_models: None,
            duplicate_policy: DuplicatePolicy::Block,
            override_reason: None,
            idempotency_key: None,
        }
    }

    /// Parses and validates a raw body: UTF-8, JSON, field types, then every rule.
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        let req: Self = decode_body(body)?;
        req.validate()?;
        Ok(req)
    }

    /// The file name to record: the given one or [`DEFAULT_FILE_NAME`].
    pub fn file_name(&self) -> &str {
        self.file_name.as_deref().unwrap_or(DEFAULT_FILE_NAME)
    }

    /// Reports every violated rule at once.
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        let n = self.content.chars().count();
        if n > MAX_CONTENT_CHARS {
            c.fail(
                "/content",
                "maxLength",
                format!("must be at most {MAX_CONTENT_CHARS} characters (got {n})"),
            );
        }
        if let Some(f) = &self.file_name {
            c.length("/fileName", f, 1, Some(MAX_FILE_NAME));
        }
        if let Some(servers) = &self.servers {
            if servers.is_empty() {
                c.fail("/servers", "minItems", "must name at least 1 server");
            }
            for (i, s) in servers.iter().enumerate() {
                c.length(&join("/servers", i), s, 1, None);
            }
        }
        if let Some(e) = &self.environment_id {
            c.length("/environmentId", e, 1, None);
        }
        if self.servers.is_some() && self.environment_id.is_some() {
            c.fail(
                "/environmentId",
                "mutuallyExclusive",
                "give either `servers` or `environmentId`, not both",
            );
        }
        if let Some(models) = &self.case_models {
            for (i, m) in models.iter().enumerate() {
                m.validate(&join("/caseModels", i), &mut c);
            }
        }
        match &self.override_reason {
            Some(r) => c.length("/overrideReason", r, 1, None),
            None if self.duplicate_policy != DuplicatePolicy::Block => c.fail(
                "/overrideReason",
                "required",
                format!(
                    "duplicatePolicy `{}` needs an overrideReason",
                    self.duplicate_policy.as_str()
                ),
            ),
            None => {}
        }
        if let Some(k) = &self.idempotency_key {
            c.length("/idempotencyKey", k, 1, Some(MAX_IDEMPOTENCY_KEY));
        }
        c.finish()
    }
}

/// How many cases were (or would be) created, by polarity.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportCounts {
    pub normal: u64,
    pub negative: u64,
}

impl ImportCounts {
    pub fn of(cases: &[EvalCase]) -> Self {
        let negative = cases.iter().filter(|c| c.is_negative).count() as u64;
        ImportCounts {
            normal: cases.len() as u64 - negative,
            negative,
        }
    }
}

/// Stable values of [`SkippedDraft::code`].
pub mod skip_code {
    /// `duplicatePolicy: block` and the draft duplicates an existing case.
    pub const DUPLICATE: &str = "DUPLICATE";
    /// The draft does not satisfy the spec's case rules.
    pub const INVALID: &str = "INVALID_DRAFT";
}

/// A draft the commit could not write. It stays on the job, to be finished in the workbench.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SkippedDraft {
    #[serde(default)]
    pub draft_id: String,
    #[serde(default)]
    pub title: String,
    /// Why it was skipped, for people.
    pub reason: String,
    /// Why it was skipped, for programs ([`skip_code`]).
    #[serde(default)]
    pub code: String,
    /// The existing case it duplicates (code `DUPLICATE`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// The draft's 1-based inclusive line span in the document.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_line: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_line: Option<i64>,
}

/// A case created although it duplicates an existing one (`duplicatePolicy: warn`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportWarning {
    pub case_id: String,
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
}

/// The import response once the job committed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalCaseImported {
    pub generation_model: String,
    pub created: Vec<EvalCase>,
    pub counts: ImportCounts,
    /// Present only when something was skipped.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<SkippedDraft>,
    /// Present only when something was skipped: opens the workbench on those drafts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_url: Option<String>,
    /// The authoring job that produced this (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// Duplicates created under `warn` (additive).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<ImportWarning>,
}

/// States of an authoring job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum JobStatus {
    Pending,
    Completed,
    Failed,
    Cancelled,
}

impl JobStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Completed => "completed",
            JobStatus::Failed => "failed",
            JobStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(JobStatus::Pending),
            "completed" => Some(JobStatus::Completed),
            "failed" => Some(JobStatus::Failed),
            "cancelled" => Some(JobStatus::Cancelled),
            _ => None,
        }
    }

    /// Authoring has stopped (a `completed` job may still await its commit).
    pub fn is_finished(self) -> bool {
        self != JobStatus::Pending
    }
}

/// The authoring job's status body (202 while running; 200 when it finished uncommitted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalAuthoringJobAccepted {
    pub job_id: String,
    pub status: JobStatus,
    /// Present only on a failed job.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generation_model: Option<String>,
    /// Always empty here: nothing is written until the job is committed.
    #[serde(default)]
    pub created: Vec<EvalCase>,
    /// Drafts authored so far, by polarity.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counts: Option<ImportCounts>,
}

impl EvalAuthoringJobAccepted {
    pub fn new(job_id: impl Into<String>, status: JobStatus) -> Self {
        EvalAuthoringJobAccepted {
            job_id: job_id.into(),
            status,
            error: None,
            generation_model: None,
            created: Vec::new(),
            counts: None,
        }
    }
}

/// Either answer of the import operation, as a client reads it: a body with `jobId` and
/// `status` is the job body, anything else the committed result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ImportResponse {
    Job(EvalAuthoringJobAccepted),
    Imported(EvalCaseImported),
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn pairs(e: &Error) -> Vec<(String, String)> {
        e.violations()
            .into_iter()
            .map(|v| (v.path, v.rule))
            .collect()
    }

    fn parse_json(v: &Value) -> Result<EvalCaseImportRequest, Error> {
        EvalCaseImportRequest::parse(&serde_json::to_vec(v).unwrap())
    }

    fn violations(v: &Value) -> Vec<(String, String)> {
        parse_json(v).err().map(|e| pairs(&e)).unwrap_or_default()
    }

    #[test]
    fn defaults() {
        let r = parse_json(&json!({"content": "# Plan"})).unwrap();
        assert_eq!(r.duplicate_policy, DuplicatePolicy::Block);
        let r = parse_json(&json!({"content": "# Plan", "duplicatePolicy": null})).unwrap();
        assert_eq!(r.duplicate_policy, DuplicatePolicy::Block);
        assert_eq!(r.file_name(), DEFAULT_FILE_NAME);
        assert_eq!(r, EvalCaseImportRequest::new("# Plan"));
        // An empty body or `{}` lacks the required content.
        let e = EvalCaseImportRequest::parse(b"").unwrap_err();
        assert_eq!(
            pairs(&e),
            [("/content".to_string(), "required".to_string())]
        );
    }

    #[test]
    fn good_requests_are_accepted() {
        let good = [
            json!({"content": ""}),
            json!({"content": "x", "fileName": "f"}),
            json!({"content": "x", "fileName": "f".repeat(255)}),
            json!({"content": "x", "servers": ["srv_1", "shop"]}),
            json!({"content": "x", "environmentId": "env_1"}),
            json!({"content": "x", "caseModels": []}),
            json!({"content": "x", "caseModels": [{"model": "gpt-4o"},
                {"model": "claude-sonnet-4", "provider": "anthropic"}]}),
            json!({"content": "x", "duplicatePolicy": "block"}),
            json!({"content": "x", "duplicatePolicy": "block", "overrideReason": "r"}),
            json!({"content": "x", "duplicatePolicy": "warn", "overrideReason": "re-import"}),
            json!({"content": "x", "duplicatePolicy": "create_anyway", "overrideReason": "r"}),
            json!({"content": "x", "idempotencyKey": "k"}),
            json!({"content": "x", "idempotencyKey": "k".repeat(256)}),
            json!({"content": "x", "someFutureField": true}),
        ];
        for g in &good {
            assert_eq!(violations(g), vec![], "{g}");
        }
    }

    #[test]
    fn bad_requests_name_path_and_rule() {
        let bad = [
            (json!({}), "/content", "required"),
            (json!({"content": 5}), "/content", "type"),
            (json!({"content": null}), "/content", "type"),
            (
                json!({"content": "x", "fileName": ""}),
                "/fileName",
                "minLength",
            ),
            (
                json!({"content": "x", "fileName": "f".repeat(256)}),
                "/fileName",
                "maxLength",
            ),
            (
                json!({"content": "x", "servers": ["a"], "environmentId": "env_1"}),
                "/environmentId",
                "mutuallyExclusive",
            ),
            (
                json!({"content": "x", "servers": []}),
                "/servers",
                "minItems",
            ),
            (
                json!({"content": "x", "servers": ["a", ""]}),
                "/servers/1",
                "minLength",
            ),
            (json!({"content": "x", "servers": "a"}), "/servers", "type"),
            (
                json!({"content": "x", "environmentId": ""}),
                "/environmentId",
                "minLength",
            ),
            (
                json!({"content": "x", "duplicatePolicy": "skip"}),
                "/duplicatePolicy",
                "enum",
            ),
            (
                json!({"content": "x", "duplicatePolicy": "createAnyway", "overrideReason": "r"}),
                "/duplicatePolicy",
                "enum",
            ),
            (
                json!({"content": "x", "duplicatePolicy": "warn"}),
                "/overrideReason",
                "required",
            ),
            (
                json!({"content": "x", "duplicatePolicy": "create_anyway"}),
                "/overrideReason",
                "required",
            ),
            (
                json!({"content": "x", "duplicatePolicy": "warn", "overrideReason": ""}),
                "/overrideReason",
                "minLength",
            ),
            (
                json!({"content": "x", "idempotencyKey": ""}),
                "/idempotencyKey",
                "minLength",
            ),
            (
                json!({"content": "x", "idempotencyKey": "k".repeat(257)}),
                "/idempotencyKey",
                "maxLength",
            ),
            (
                json!({"content": "x", "caseModels": [{}]}),
                "/caseModels/0/model",
                "required",
            ),
            (
                json!({"content": "x", "caseModels": [{"model": "m"}, {"provider": "openai"}]}),
                "/caseModels/1/model",
                "required",
            ),
            (
                json!({"content": "x", "caseModels": [{"model": ""}]}),
                "/caseModels/0/model",
                "minLength",
            ),
            (
                json!({"content": "x", "caseModels": [{"model": "m", "provider": ""}]}),
                "/caseModels/0/provider",
                "minLength",
            ),
        ];
        for (v, path, rule) in &bad {
            assert_eq!(
                violations(v),
                vec![(path.to_string(), rule.to_string())],
                "{v}"
            );
        }
    }

    #[test]
    fn content_is_counted_in_characters_not_bytes() {
        for unit in ["a", "é", "漢", "🦀"] {
            let ok = unit.repeat(MAX_CONTENT_CHARS);
            let body = serde_json::to_vec(&json!({"content": ok})).unwrap();
            let r = EvalCaseImportRequest::parse(&body).unwrap_or_else(|e| panic!("{unit}: {e}"));
            assert_eq!(r.content.chars().count(), MAX_CONTENT_CHARS);
            if unit != "a" {
                assert!(
                    r.content.len() > MAX_CONTENT_CHARS,
                    "multi-byte: bytes exceed the limit"
                );
            }
            let over = format!("{ok}{unit}");
            let e = parse_json(&json!({"content": over})).unwrap_err();
            assert_eq!(
                pairs(&e),
                [("/content".to_string(), "maxLength".to_string())],
                "{unit}"
            );
        }
        // Escaped in JSON (as a typed client may send it), the same document is still valid.
        let escaped = format!(r#"{{"content":"{}"}}"#, "\\u00e9".repeat(MAX_CONTENT_CHARS));
        assert!(EvalCaseImportRequest::parse(escaped.as_bytes()).is_ok());
    }

    #[test]
    fn body_faults_are_validation_errors() {
        let e = EvalCaseImportRequest::parse(b"{\"content\":\"\xff\"}").unwrap_err();
        assert_eq!(e.code, crate::spec::Code::ValidationError);
        assert_eq!(pairs(&e), [("".to_string(), "utf8".to_string())]);
        let e = EvalCaseImportRequest::parse(b"content: x").unwrap_err();
        assert_eq!(pairs(&e)[0].1, "json");
        let e = EvalCaseImportRequest::parse(b"{\"content\":\"x\"} {}").unwrap_err();
        assert_eq!(pairs(&e), [("".to_string(), "json".to_string())]);
    }

    #[test]
    fn every_violation_is_reported_at_once() {
        let v = json!({"content": "x", "fileName": "", "servers": ["a"], "environmentId": "e",
                       "duplicatePolicy": "warn", "idempotencyKey": ""});
        let got = violations(&v);
        assert_eq!(
            got,
            [
                ("/fileName", "minLength"),
                ("/environmentId", "mutuallyExclusive"),
                ("/overrideReason", "required"),
                ("/idempotencyKey", "minLength"),
            ]
            .map(|(p, r)| (p.to_string(), r.to_string()))
        );
    }

    #[test]
    fn request_serialisation_omits_absent_fields() {
        let r = EvalCaseImportRequest::new("x");
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"content": "x", "duplicatePolicy": "block"})
        );
        for p in [
            DuplicatePolicy::Block,
            DuplicatePolicy::Warn,
            DuplicatePolicy::CreateAnyway,
        ] {
            assert_eq!(serde_json::to_value(p).unwrap(), json!(p.as_str()));
            assert_eq!(DuplicatePolicy::parse(p.as_str()), Some(p));
        }
    }

    fn case(id: &str, negative: bool) -> EvalCase {
        let mut c = EvalCase::new(
            id,
            "t",
            vec![crate::spec::case::EvalTestStep::new_prompt("s", "p")],
        );
        c.is_negative = negative;
        c
    }

    #[test]
    fn imported_body_shape() {
        let created = vec![
            case("case_1", false),
            case("case_2", true),
            case("case_3", false),
        ];
        let counts = ImportCounts::of(&created);
        assert_eq!(
            counts,
            ImportCounts {
                normal: 2,
                negative: 1
            }
        );
        let mut body = EvalCaseImported {
            generation_model: "evaldeck-extract/1".into(),
            created,
            counts,
            skipped: vec![],
            review_url: None,
            job_id: None,
            warnings: vec![],
        };
        let v = serde_json::to_value(&body).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["generationModel", "created", "counts"]);

        body.skipped.push(SkippedDraft {
            draft_id: "drf_1".into(),
            title: "Dup".into(),
            reason: "duplicates case_1".into(),
            code: skip_code::DUPLICATE.into(),
            duplicate_of: Some("case_1".into()),
            start_line: Some(4),
            end_line: None,
        });
        body.review_url = Some("evaldeck://review/job_1".into());
        let v = serde_json::to_value(&body).unwrap();
        assert_eq!(
            v["skipped"],
            json!([{"draftId": "drf_1", "title": "Dup", "reason": "duplicates case_1",
                    "code": "DUPLICATE", "duplicateOf": "case_1", "startLine": 4}])
        );
        assert_eq!(v["reviewUrl"], json!("evaldeck://review/job_1"));
        let back: EvalCaseImported = serde_json::from_value(v).unwrap();
        assert_eq!(back, body);
        // A foreign server's skipped entry carrying only a reason still reads.
        let s: SkippedDraft = serde_json::from_value(json!({"reason": "r"})).unwrap();
        assert_eq!(s.reason, "r");
    }

    #[test]
    fn job_body_shape() {
        let pending = EvalAuthoringJobAccepted::new("job_1", JobStatus::Pending);
        assert_eq!(
            serde_json::to_value(&pending).unwrap(),
            json!({"jobId": "job_1", "status": "pending", "created": []})
        );
        let mut failed = EvalAuthoringJobAccepted::new("job_2", JobStatus::Failed);
        failed.error = Some("model endpoint refused the key".into());
        failed.generation_model = Some("gpt-4o".into());
        failed.counts = Some(ImportCounts::default());
        assert_eq!(
            serde_json::to_value(&failed).unwrap(),
            json!({"jobId": "job_2", "status": "failed", "error": "model endpoint refused the key",
                   "generationModel": "gpt-4o", "created": [], "counts": {"normal": 0, "negative": 0}})
        );
        for s in [
            JobStatus::Pending,
            JobStatus::Completed,
            JobStatus::Failed,
            JobStatus::Cancelled,
        ] {
            assert_eq!(serde_json::to_value(s).unwrap(), json!(s.as_str()));
            assert_eq!(JobStatus::parse(s.as_str()), Some(s));
            assert_eq!(s.is_finished(), s != JobStatus::Pending);
        }
        assert!(serde_json::from_value::<JobStatus>(json!("running")).is_err());
    }

    #[test]
    fn either_response_is_told_apart() {
        let job: ImportResponse =
            serde_json::from_value(json!({"jobId": "job_1", "status": "pending", "created": []}))
                .unwrap();
        assert!(matches!(job, ImportResponse::Job(j) if j.job_id == "job_1"));
        let done: ImportResponse =
            serde_json::from_value(json!({"generationModel": "m", "created": [],
            "counts": {"normal": 0, "negative": 0}, "jobId": "job_1"}))
            .unwrap();
        assert!(
            matches!(done, ImportResponse::Imported(i) if i.job_id.as_deref() == Some("job_1"))
        );
    }

    #[test]
    fn schemas_generate() {
        let v = serde_json::to_value(schemars::schema_for!(EvalCaseImportRequest)).unwrap();
        assert_eq!(v["required"], json!(["content"]));
        let _ = schemars::schema_for!(ImportResponse);
    }
}
