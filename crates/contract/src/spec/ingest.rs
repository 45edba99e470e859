//! Result ingestion (`POST /projects/{p}/eval-ingest/…`): runs executed outside evaldeck,
//! reported by an eval SDK, a CI step or `evaldeck ingest`, in the shapes of
//! `wire-shapes.md` ("Result ingestion"). Every success body carries `ok: true`.
//!
//! Decisions where the shapes are silent (bounds are in characters):
//! - `suiteName` 1–200, `suiteDescription` ≤ 2000, `notes` ≤ 10000, `externalRunId` and
//!   `externalIterationId` and `externalCaseId` 1–256, `framework` 1–100, `serverNames` ≤ 50
//!   of 1–200, `tags` ≤ 50 of 1–100, `ci.runUrl` ≤ 2048 and the other `ci` fields ≤ 256,
//!   `expectedIterations` 1–1000000.
//! - A result: `caseTitle` 1–500, `query` ≤ 100000, `error` ≤ 20000, `provider` ≤ 100,
//!   `model` ≤ 200, `durationMs` 0–10^12, at most 500 expected and 500 actual tool calls
//!   (`toolName` 1–200), `trace` a string, an array of messages or an object (`{messages?,
//!   spans?}`), `metadata` an object, `widgetSnapshots` (additive) widget snapshots by
//!   storage id ([`super::widget_snapshot`]).
//! - `results`: 1–200 per request (`report` and `runs/iterations` alike).
//! - Unknown keys are ignored (reporters send more than these shapes, e.g. replay configs).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{Error, Violation};
use super::suite::PassCriteria;
use super::validate::{Checker, from_value, join, parse_body};
use super::widget_snapshot::{WidgetSnapshotInput, WidgetSnapshotRef};

/// Results in one `report` or `runs/iterations` request.
pub const MAX_RESULTS: usize = 200;
pub const MAX_SUITE_NAME: usize = 200;
pub const MAX_DESCRIPTION: usize = 2_000;
pub const MAX_NOTES: usize = 10_000;
pub const MAX_EXTERNAL_ID: usize = 256;
pub const MAX_FRAMEWORK: usize = 100;
pub const MAX_SERVER_NAMES: usize = 50;
pub const MAX_NAME: usize = 200;
pub const MAX_TAGS: usize = 50;
pub const MAX_TAG: usize = 100;
pub const MAX_URL: usize = 2_048;
pub const MAX_CI_FIELD: usize = 256;
pub const MAX_EXPECTED_ITERATIONS: i64 = 1_000_000;
pub const MAX_CASE_TITLE: usize = 500;
pub const MAX_QUERY: usize = 100_000;
pub const MAX_ERROR: usize = 20_000;
pub const MAX_PROVIDER: usize = 100;
pub const MAX_MODEL: usize = 200;
pub const MAX_TOOL_CALLS: usize = 500;
pub const MAX_DURATION_MS: f64 = 1e12;

/// The literal project id that names the key organization's default project.
pub const DEFAULT_PROJECT: &str = "default";

/// Where a CI job ran.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CiInfo {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pipeline_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_sha: Option<String>,
}

impl CiInfo {
    fn validate(&self, c: &mut Checker) {
        for (field, v, max) in [
            ("provider", &self.provider, MAX_CI_FIELD),
            ("pipelineId", &self.pipeline_id, MAX_CI_FIELD),
            ("jobId", &self.job_id, MAX_CI_FIELD),
            ("runUrl", &self.run_url, MAX_URL),
            ("branch", &self.branch, MAX_CI_FIELD),
            ("commitSha", &self.commit_sha, MAX_CI_FIELD),
        ] {
            if let Some(v) = v {
                c.length(&join("/ci", field), v, 1, Some(max));
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self == &CiInfo::default()
    }
}

/// The run fields `report` and `runs/start` share.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunFields {
    /// The suite the run is filed under, found or created by name in the project.
    pub suite_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_description: Option<String>,
    /// Saved servers by name; names not saved in the project are kept on the run only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_names: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    /// `minimumPassRate` is a percent (0–100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_criteria: Option<PassCriteria>,
    /// The reporter's id for the run, unique per project: retries reuse the run.
    pub external_run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framework: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<CiInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_iterations: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
}

impl RunFields {
    fn validate(&self, c: &mut Checker) {
        c.length("/suiteName", &self.suite_name, 1, Some(MAX_SUITE_NAME));
        if let Some(d) = &self.suite_description {
            c.length("/suiteDescription", d, 0, Some(MAX_DESCRIPTION));
        }
        if let Some(names) = &self.server_names {
            if names.len() > MAX_SERVER_NAMES {
                c.fail(
                    "/serverNames",
                    "maxItems",
                    format!("must name at most {MAX_SERVER_NAMES} servers"),
                );
            }
            for (i, n) in names.iter().enumerate() {
                c.length(&join("/serverNames", i), n, 1, Some(MAX_NAME));
            }
        }
        if let Some(n) = &self.notes {
            c.length("/notes", n, 0, Some(MAX_NOTES));
        }
        if let Some(pc) = &self.pass_criteria {
            pc.validate("/passCriteria", c);
        }
        c.length(
            "/externalRunId",
            &self.external_run_id,
            1,
            Some(MAX_EXTERNAL_ID),
        );
        if let Some(f) = &self.framework {
            c.length("/framework", f, 1, Some(MAX_FRAMEWORK));
        }
        if let Some(ci) = &self.ci {
            ci.validate(c);
        }
        if let Some(n) = self.expected_iterations {
            c.range_i64("/expectedIterations", n, 1, MAX_EXPECTED_ITERATIONS);
        }
        if let Some(tags) = &self.tags {
            if tags.len() > MAX_TAGS {
                c.fail(
                    "/tags",
                    "maxItems",
                    format!("must have at most {MAX_TAGS} tags"),
                );
            }
            for (i, t) in tags.iter().enumerate() {
                c.length(&join("/tags", i), t, 1, Some(MAX_TAG));
            }
        }
    }
}

/// A tool call a result expected or made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestToolCall {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
}

/// Token counts of one result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestTokens {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
}

/// One finished iteration as a reporter sends it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestResult {
    pub case_title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_tool_calls: Option<Vec<IngestToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actual_tool_calls: Option<Vec<IngestToolCall>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens: Option<IngestTokens>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// A string, an array of messages, or `{messages?, spans?}`; returned by the trace
    /// endpoint as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Value>,
    /// The reporter's id for this iteration: a replayed one is skipped.
    pub external_iteration_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_case_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_negative_test: Option<bool>,
    /// Additive: widget snapshots uploaded through upload URLs, by storage id (a string, or
    /// an object with `storageId` and what the snapshot shows); kept on the iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<Vec<WidgetSnapshotInput>>")]
    pub widget_snapshots: Option<Vec<WidgetSnapshotRef>>,
}

impl IngestResult {
    /// A passing result with only the required fields.
    pub fn new(
        case_title: impl Into<String>,
        passed: bool,
        external_id: impl Into<String>,
    ) -> Self {
        IngestResult {
            case_title: case_title.into(),
            query: None,
            passed,
            duration_ms: None,
            provider: None,
            model: None,
            expected_tool_calls: None,
            actual_tool_calls: None,
            tokens: None,
            error: None,
            trace: None,
            external_iteration_id: external_id.into(),
            external_case_id: None,
            metadata: None,
            is_negative_test: None,
            widget_snapshots: None,
        }
    }

    pub fn validate(&self, p: &str, c: &mut Checker) {
        c.length(
            &join(p, "caseTitle"),
            &self.case_title,
            1,
            Some(MAX_CASE_TITLE),
        );
        if let Some(q) = &self.query {
            c.length(&join(p, "query"), q, 0, Some(MAX_QUERY));
        }
        if let Some(d) = self.duration_ms {
            c.range_f64(&join(p, "durationMs"), d, 0.0, MAX_DURATION_MS);
        }
        if let Some(v) = &self.provider {
            c.length(&join(p, "provider"), v, 1, Some(MAX_PROVIDER));
        }
        if let Some(v) = &self.model {
            c.length(&join(p, "model"), v, 1, Some(MAX_MODEL));
        }
        for (field, calls) in [
            ("expectedToolCalls", &self.expected_tool_calls),
            ("actualToolCalls", &self.actual_tool_calls),
        ] {
            let Some(calls) = calls else { continue };
            let base = join(p, field);
            if calls.len() > MAX_TOOL_CALLS {
                c.fail(
                    &base,
                    "maxItems",
                    format!("must have at most {MAX_TOOL_CALLS} tool calls"),
                );
            }
            for (i, call) in calls.iter().enumerate() {
                c.length(
                    &join(&join(&base, i), "toolName"),
                    &call.tool_name,
                    1,
                    Some(MAX_NAME),
                );
            }
        }
        if let Some(e) = &self.error {
            c.length(&join(p, "error"), e, 0, Some(MAX_ERROR));
        }
        if let Some(t) = &self.trace
            && !(t.is_string() || t.is_array() || t.is_object())
        {
            c.fail(
                join(p, "trace"),
                "type",
                "must be a string, an array of messages or an object with `messages` and `spans`",
            );
        }
        c.length(
            &join(p, "externalIterationId"),
            &self.external_iteration_id,
            1,
            Some(MAX_EXTERNAL_ID),
        );
        if let Some(id) = &self.external_case_id {
            c.length(&join(p, "externalCaseId"), id, 1, Some(MAX_EXTERNAL_ID));
        }
        if let Some(m) = &self.metadata
            && !m.is_object()
        {
            c.fail(join(p, "metadata"), "type", "must be an object");
        }
        if let Some(w) = &self.widget_snapshots {
            WidgetSnapshotRef::validate_all(w, &join(p, "widgetSnapshots"), c);
        }
    }
}

fn validate_results(results: &[IngestResult], c: &mut Checker) {
    if results.is_empty() {
        c.fail("/results", "minItems", "must have at least 1 result");
    }
    if results.len() > MAX_RESULTS {
        c.fail(
            "/results",
            "maxItems",
            format!(
                "must have at most {MAX_RESULTS} results (send more with runs/start, runs/iterations and runs/finalize)"
            ),
        );
    }
    for (i, r) in results.iter().enumerate() {
        r.validate(&join("/results", i), c);
    }
}

/// Decodes `body.results` (required), keeping the violation paths absolute.
fn decode_results(v: &Value) -> Result<Vec<IngestResult>, Error> {
    let Some(results) = v.get("results") else {
        return Err(Error::invalid(
            "/results",
            "required",
            "`results` is required",
        ));
    };
    from_value::<Vec<IngestResult>>(results.clone()).map_err(|e| prefixed(e, "/results"))
}

fn prefixed(e: Error, prefix: &str) -> Error {
    let v = e.violations();
    if v.is_empty() {
        return e;
    }
    Error::validation(
        v.into_iter()
            .map(|x| Violation {
                path: format!("{prefix}{}", x.path),
                ..x
            })
            .collect(),
    )
}

fn object(v: &Value) -> Result<(), Error> {
    if v.is_object() {
        Ok(())
    } else {
        Err(Error::invalid("", "type", "the body must be a JSON object"))
    }
}

/// An ingestion request body. `decode` only reads the shape (naming the faulty path); the
/// service runs `check` on whatever a backend hands it, so an HTTP request is checked once.
pub trait IngestBody: Sized {
    /// Reads a JSON object into the type.
    fn decode_object(v: Value) -> Result<Self, Error>;
    /// Every bound the body breaks, at once.
    fn check(&self) -> Result<(), Error>;

    fn decode(v: Value) -> Result<Self, Error> {
        object(&v)?;
        Self::decode_object(v)
    }

    /// Decodes and checks raw bytes.
    fn parse(body: &[u8]) -> Result<Self, Error> {
        let r = Self::decode(parse_body(body)?)?;
        r.check()?;
        Ok(r)
    }
}

/// Body of `report`: the run fields and its finished results.
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestReport {
    #[serde(flatten)]
    pub run: RunFields,
    /// 1 to 200 results.
    pub results: Vec<IngestResult>,
}

impl IngestBody for IngestReport {
    fn decode_object(v: Value) -> Result<Self, Error> {
        let results = decode_results(&v)?;
        Ok(IngestReport {
            run: from_value(v)?,
            results,
        })
    }

    fn check(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        self.run.validate(&mut c);
        validate_results(&self.results, &mut c);
        c.finish()
    }
}

/// Body of `runs/start`: the run fields alone.
pub type IngestStart = RunFields;

impl IngestBody for RunFields {
    fn decode_object(v: Value) -> Result<Self, Error> {
        from_value(v)
    }

    fn check(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        self.validate(&mut c);
        c.finish()
    }
}

/// Body of `runs/iterations`: a batch of results for a started run.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestIterations {
    pub run_id: String,
    /// 1 to 200 results.
    pub results: Vec<IngestResult>,
}

impl IngestBody for IngestIterations {
    fn decode_object(v: Value) -> Result<Self, Error> {
        let results = decode_results(&v)?;
        let run_id = match v.get("runId") {
            Some(Value::String(s)) => s.clone(),
            Some(_) => return Err(Error::invalid("/runId", "type", "must be a string")),
            None => return Err(Error::invalid("/runId", "required", "`runId` is required")),
        };
        Ok(IngestIterations { run_id, results })
    }

    fn check(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        c.length("/runId", &self.run_id, 1, Some(MAX_EXTERNAL_ID));
        validate_results(&self.results, &mut c);
        c.finish()
    }
}

/// Body of `runs/finalize`. `externalRunId`, when given, must be the run's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestFinalize {
    pub run_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_run_id: Option<String>,
}

impl IngestBody for IngestFinalize {
    fn decode_object(v: Value) -> Result<Self, Error> {
        from_value(v)
    }

    fn check(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        c.length("/runId", &self.run_id, 1, Some(MAX_EXTERNAL_ID));
        if let Some(e) = &self.external_run_id {
            c.length("/externalRunId", e, 1, Some(MAX_EXTERNAL_ID));
        }
        c.finish()
    }
}

/// `summary` of an ingestion answer: iteration counts and `passRate` (0 to 1; 0 when empty).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestSummary {
    pub total: i64,
    pub passed: i64,
    pub failed: i64,
    pub pass_rate: f64,
}

impl IngestSummary {
    pub fn new(passed: i64, failed: i64) -> Self {
        let total = passed + failed;
        IngestSummary {
            total,
            passed,
            failed,
            pass_rate: if total > 0 {
                passed as f64 / total as f64
            } else {
                0.0
            },
        }
    }
}

/// The answer of `report`, `runs/start` and `runs/finalize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestRun {
    pub ok: bool,
    pub suite_id: String,
    pub run_id: String,
    pub external_run_id: String,
    /// Whether the run already existed (a retry, or a repeated `runs/start`).
    pub reused: bool,
    /// `running` until finalized, then `completed` (or `cancelled`).
    pub status: String,
    /// `passed` or `failed` once finalized, else `null`.
    pub result: Option<String>,
    pub summary: IngestSummary,
}

/// The answer of `runs/iterations`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IngestBatch {
    pub ok: bool,
    pub run_id: String,
    /// Results stored by this request.
    pub inserted: i64,
    /// Results whose `externalIterationId` the run already had (replays), or repeated
    /// within the batch.
    pub skipped: i64,
    /// Results in this request (`inserted + skipped`).
    pub total: i64,
    /// Additive: iterations the run holds now.
    pub run_total: i64,
}

/// The artifact formats an upload URL accepts: test reports, and (additive) `widget`, the
/// HTML snapshot of an MCP Apps view, which is stored and makes no run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ArtifactKind {
    Junit,
    Jest,
    Vitest,
    Widget,
}

impl ArtifactKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ArtifactKind::Junit => "junit",
            ArtifactKind::Jest => "jest",
            ArtifactKind::Vitest => "vitest",
            ArtifactKind::Widget => "widget",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "junit" => Some(ArtifactKind::Junit),
            "jest" => Some(ArtifactKind::Jest),
            "vitest" => Some(ArtifactKind::Vitest),
            "widget" => Some(ArtifactKind::Widget),
            _ => None,
        }
    }
}

/// Body of `artifacts/upload-url`: `{}` or the artifact kind and the run it belongs to.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadUrlRequest {
    /// Absent: sniffed from the file (HTML, or a `text/html` upload, is a `widget`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ArtifactKind>,
    /// An open ingested run to append to (a widget makes no run: ignored for it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    /// The suite of the new run (absent: the artifact's own suite name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_name: Option<String>,
    /// The new run's external id (absent: derived from the upload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_run_id: Option<String>,
}

impl IngestBody for UploadUrlRequest {
    fn decode_object(v: Value) -> Result<Self, Error> {
        from_value(v)
    }

    fn check(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        if let Some(r) = &self.run_id {
            c.length("/runId", r, 1, Some(MAX_EXTERNAL_ID));
        }
        if let Some(s) = &self.suite_name {
            c.length("/suiteName", s, 1, Some(MAX_SUITE_NAME));
        }
        if let Some(e) = &self.external_run_id {
            c.length("/externalRunId", e, 1, Some(MAX_EXTERNAL_ID));
        }
        if self.run_id.is_some() && (self.suite_name.is_some() || self.external_run_id.is_some()) {
            c.fail(
                "/runId",
                "oneOf",
                "give `runId` (append to a started run) or `suiteName`/`externalRunId` (a new run), not both",
            );
        }
        c.finish()
    }
}

/// The answer of `artifacts/upload-url`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UploadUrl {
    pub ok: bool,
    /// POST the raw file here, without an Authorization header; single use.
    pub upload_url: String,
    /// Epoch milliseconds after which the URL is refused.
    pub expires_at: i64,
}

/// The answer of a POST to an upload URL: a test report's results, or a stored widget.
/// Either way `storageId` names the upload; a client tells them apart by `kind`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ArtifactUploaded {
    Report(ArtifactIngested),
    Widget(WidgetStored),
}

impl ArtifactUploaded {
    pub fn storage_id(&self) -> &str {
        match self {
            ArtifactUploaded::Report(r) => &r.storage_id,
            ArtifactUploaded::Widget(w) => &w.storage_id,
        }
    }
}

/// The answer of a widget upload (additive): stored as sent, no run made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStored {
    pub ok: bool,
    /// What a result's `widgetSnapshots` names it by.
    pub storage_id: String,
    /// Always `widget`.
    pub kind: ArtifactKind,
    pub content_type: String,
    pub bytes: i64,
    pub sha256: String,
}

/// `GET eval-ingest/artifacts/{storageId}` (extension): an uploaded artifact read back. The
/// content is text (every accepted kind is UTF-8), so it travels in JSON like every answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StoredArtifact {
    pub ok: bool,
    pub storage_id: String,
    pub kind: ArtifactKind,
    /// `text/html; charset=utf-8` for a widget, `application/xml` or `application/json`
    /// for a report.
    pub content_type: String,
    pub bytes: i64,
    pub sha256: String,
    /// Epoch milliseconds of the upload.
    pub uploaded_at: i64,
    /// The run a report's results went to (none for a widget).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_id: Option<String>,
    pub content: String,
}

/// The answer of a POST to an upload URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactIngested {
    pub ok: bool,
    /// The stored artifact.
    pub storage_id: String,
    pub kind: ArtifactKind,
    pub suite_id: String,
    pub run_id: String,
    /// Test cases turned into iterations.
    pub inserted: i64,
    /// Test cases the run already had (a re-upload of the same file).
    pub skipped: i64,
    /// Test cases the file marks skipped, pending or todo: not iterations.
    pub not_run: i64,
    pub status: String,
    pub result: Option<String>,
    pub summary: IngestSummary,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result() -> Value {
        json!({"caseTitle": "adds", "passed": true, "externalIterationId": "r1-1"})
    }

    fn report(extra: Value) -> Value {
        let mut b = json!({"suiteName": "SDK smoke", "externalRunId": "r1", "results": [result()]});
        for (k, v) in extra.as_object().unwrap() {
            if v.is_null() {
                b.as_object_mut().unwrap().remove(k);
            } else {
                b[k] = v.clone();
            }
        }
        b
    }

    fn rules(v: Value) -> Vec<(String, String)> {
        match IngestReport::parse(v.to_string().as_bytes()) {
            Ok(_) => vec![],
            Err(e) => e
                .violations()
                .into_iter()
                .map(|v| (v.path, v.rule))
                .collect(),
        }
    }

    #[test]
    fn good_reports_are_accepted() {
        assert_eq!(rules(report(json!({}))), vec![]);
        let full = json!({
            "suiteName": "s", "suiteDescription": "d", "serverNames": ["asana"], "notes": "n",
            "passCriteria": {"minimumPassRate": 80}, "externalRunId": "r", "framework": "vitest",
            "ci": {"provider": "github", "pipelineId": "1", "jobId": "2", "runUrl": "https://x/1",
                   "branch": "main", "commitSha": "abc"},
            "expectedIterations": 3, "tags": ["nightly"], "serverReplayConfigs": [{"x": 1}],
            "results": [{
                "caseTitle": "t", "query": "q", "passed": false, "durationMs": 12.5,
                "provider": "openai", "model": "gpt", "expectedToolCalls": [{"toolName": "a", "arguments": {"x": 1}}],
                "actualToolCalls": [{"toolName": "b"}], "tokens": {"input": 1, "output": 2, "total": 3},
                "error": "boom", "trace": {"messages": [], "spans": []}, "externalIterationId": "i",
                "externalCaseId": "c", "metadata": {"k": "v"}, "isNegativeTest": true, "widgetSnapshots": []
            }]
        });
        assert_eq!(rules(full), vec![]);
        for trace in [json!("text"), json!([{"role": "user", "content": "hi"}])] {
            let mut r = result();
            r["trace"] = trace;
            assert_eq!(rules(report(json!({"results": [r]}))), vec![]);
        }
        let many: Vec<Value> = (0..MAX_RESULTS).map(|_| result()).collect();
        assert_eq!(rules(report(json!({"results": many}))), vec![]);
    }

    #[test]
    fn bad_reports_name_path_and_rule() {
        let with_result = |k: &str, v: Value| {
            let mut r = result();
            if v.is_null() {
                r.as_object_mut().unwrap().remove(k);
            } else {
                r[k] = v;
            }
            report(json!({"results": [r]}))
        };
        let too_many: Vec<Value> = (0..=MAX_RESULTS).map(|_| result()).collect();
        let cases = [
            (report(json!({"suiteName": null})), "/suiteName", "required"),
            (report(json!({"suiteName": ""})), "/suiteName", "minLength"),
            (
                report(json!({"suiteName": "x".repeat(MAX_SUITE_NAME + 1)})),
                "/suiteName",
                "maxLength",
            ),
            (
                report(json!({"externalRunId": null})),
                "/externalRunId",
                "required",
            ),
            (report(json!({"results": null})), "/results", "required"),
            (report(json!({"results": []})), "/results", "minItems"),
            (report(json!({"results": too_many})), "/results", "maxItems"),
            (
                report(json!({"passCriteria": {"minimumPassRate": 101}})),
                "/passCriteria/minimumPassRate",
                "range",
            ),
            (
                report(json!({"expectedIterations": 0})),
                "/expectedIterations",
                "range",
            ),
            (report(json!({"tags": [""]})), "/tags/0", "minLength"),
            (
                report(json!({"ci": {"runUrl": "u".repeat(MAX_URL + 1)}})),
                "/ci/runUrl",
                "maxLength",
            ),
            (
                with_result("passed", Value::Null),
                "/results/0/passed",
                "required",
            ),
            (
                with_result("passed", json!("yes")),
                "/results/0/passed",
                "type",
            ),
            (
                with_result("caseTitle", json!("")),
                "/results/0/caseTitle",
                "minLength",
            ),
            (
                with_result("externalIterationId", Value::Null),
                "/results/0/externalIterationId",
                "required",
            ),
            (
                with_result("durationMs", json!(-1)),
                "/results/0/durationMs",
                "range",
            ),
            (with_result("trace", json!(5)), "/results/0/trace", "type"),
            (
                with_result("metadata", json!([1])),
                "/results/0/metadata",
                "type",
            ),
            (
                with_result("actualToolCalls", json!([{"toolName": ""}])),
                "/results/0/actualToolCalls/0/toolName",
                "minLength",
            ),
            (
                with_result("tokens", json!({"input": -1})),
                "/results/0/tokens/input",
                "type",
            ),
            (
                with_result("widgetSnapshots", json!("art_1")),
                "/results/0/widgetSnapshots",
                "type",
            ),
            (
                with_result("widgetSnapshots", json!(["art_1", 5])),
                "/results/0/widgetSnapshots/1",
                "type",
            ),
            (
                with_result("widgetSnapshots", json!([{"toolName": "chart"}])),
                "/results/0/widgetSnapshots/0/storageId",
                "required",
            ),
        ];
        for (body, path, rule) in cases {
            assert_eq!(
                rules(body.clone()),
                vec![(path.to_string(), rule.to_string())],
                "{body}"
            );
        }
        let e = IngestReport::parse(b"[1]").unwrap_err();
        assert_eq!(e.violations()[0].rule, "type");
        let e = IngestReport::parse(b"{\"suiteName\":").unwrap_err();
        assert_eq!(e.violations()[0].rule, "json");
    }

    #[test]
    fn widget_snapshots_are_ids_or_objects() {
        let mut r = result();
        r["widgetSnapshots"] = json!([
            "art_1",
            {"widgetHtmlBlobId": "art_2", "toolName": "chart", "protocol": "mcp-apps"},
            {"toolName": "chart", "widgetHtml": "<html></html>"}
        ]);
        let rep =
            IngestReport::parse(report(json!({"results": [r]})).to_string().as_bytes()).unwrap();
        let w = rep.results[0].widget_snapshots.as_ref().unwrap();
        assert_eq!(w[0].storage_id.as_deref(), Some("art_1"));
        assert_eq!(w[1].storage_id.as_deref(), Some("art_2"));
        assert_eq!(w[2].storage_id, None);
        // What a typed client sends back reads the same.
        let again = IngestReport::parse(serde_json::to_string(&rep).unwrap().as_bytes()).unwrap();
        assert_eq!(again, rep);
    }

    #[test]
    fn other_bodies() {
        assert!(IngestIterations::parse(br#"{"runId": "run_1", "results": [{"caseTitle": "a", "passed": true, "externalIterationId": "x"}]}"#).is_ok());
        let e = IngestIterations::parse(br#"{"results": []}"#).unwrap_err();
        assert_eq!(e.violations()[0].path, "/runId");
        assert!(IngestFinalize::parse(br#"{"runId": "r", "externalRunId": "e"}"#).is_ok());
        assert!(IngestFinalize::parse(br#"{}"#).is_err());
        assert!(UploadUrlRequest::parse(b"{}").is_ok());
        assert!(UploadUrlRequest::parse(b"").is_ok());
        let e = UploadUrlRequest::parse(br#"{"kind": "trx"}"#).unwrap_err();
        assert_eq!(
            (
                e.violations()[0].path.as_str(),
                e.violations()[0].rule.as_str()
            ),
            ("/kind", "enum")
        );
        let e = UploadUrlRequest::parse(br#"{"runId": "r", "suiteName": "s"}"#).unwrap_err();
        assert_eq!(e.violations()[0].rule, "oneOf");
        assert!(RunFields::parse(br#"{"suiteName": "s", "externalRunId": "e"}"#).is_ok());
    }

    #[test]
    fn report_serializes_flat() {
        let r = IngestReport::parse(report(json!({})).to_string().as_bytes()).unwrap();
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v, report(json!({})));
    }
}
