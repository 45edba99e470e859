//! Eval runs: `POST eval-runs` (body and 202 answer), the run, its iterations and the trace,
//! in the shapes of `wire-shapes.md` ("Suites, runs, iterations, traces").
//!
//! Decisions where the spec and the shapes are silent:
//! - Exactly one of `suiteId` and `suiteName` is given; `suiteName` needs `tests` and
//!   `serverIds`; `tests` with `suiteId` is rejected rather than ignored. Each inline test's
//!   `runs`, `model` and `provider` are optional (the spec's rule for suite tests): clients
//!   that send all three, as the shapes describe, and clients that send none both work. A
//!   test without `model` runs on the run's `model`, else on the first model a test names,
//!   else on the built-in baseline; without `runs` it runs once.
//! - Additive request fields: `caseIds` (run a subset of the suite's cases),
//!   `approvedCaseIds` (approve `approximated` cases for this run only; stored on the run,
//!   never on the case), `expectedEnvironmentRevision` (the caller's pin: a different
//!   current revision is 409 `CONFLICT`), `provider` (with `model`, for provider-native ids).
//! - `summary` counts iterations (trials); `summary.cases` counts case verdicts. Tokens and
//!   latency are totals over the run's iterations.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::case::decode_body;
use super::environment::EnvironmentRef;
use super::error::Error;
use super::suite::{CaseUpsert, MAX_TESTS, PassCriteria, SuiteServerRef, SuiteTest};
use super::validate::{Checker, join};

/// Bounds of `iterationOverride`.
pub const MIN_ITERATION_OVERRIDE: i64 = 1;
pub const MAX_ITERATION_OVERRIDE: i64 = 10;

/// Who started a run. `api` over HTTP, `ui` from the embedded workbench or the CLI, `sdk`
/// for ingested runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum RunSource {
    Api,
    Ui,
    Sdk,
}

impl RunSource {
    pub fn as_str(self) -> &'static str {
        match self {
            RunSource::Api => "api",
            RunSource::Ui => "ui",
            RunSource::Sdk => "sdk",
        }
    }
}

/// Body of `POST /projects/{p}/eval-runs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunCreate {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tests: Option<Vec<SuiteTest>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_ids: Option<Vec<String>>,
    /// Keys for provider-native model ids, by provider. Kept in memory only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_api_keys: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_criteria: Option<PassCriteria>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iteration_override: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub environment_id: Option<String>,
    /// Overrides every case's model for this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Additive: run only these cases (ids) of the suite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_ids: Option<Vec<String>>,
    /// Additive: `approximated` cases approved for this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub approved_case_ids: Option<Vec<String>>,
    /// Additive: the environment revision the caller expects; another one is 409.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_environment_revision: Option<i64>,
}

impl RunCreate {
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        let r: Self = decode_body(body)?;
        r.validate()?;
        Ok(r)
    }

    /// The shape rules (rule 1 and the field bounds); the rules that need the store are
    /// the service's.
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        match (&self.suite_id, &self.suite_name) {
            (Some(_), Some(_)) => c.fail(
                "/suiteName",
                "oneOf",
                "give either `suiteId` (rerun) or `suiteName` with `tests` (new suite), not both",
            ),
            (None, None) => c.fail(
                "/suiteId",
                "required",
                "give `suiteId` (rerun) or `suiteName` with `tests` and `serverIds` (new suite)",
            ),
            (Some(id), None) => {
                c.length("/suiteId", id, 1, None);
                if self.tests.is_some() {
                    c.fail(
                        "/tests",
                        "oneOf",
                        "inline `tests` create a new suite: send them with `suiteName`, not `suiteId`",
                    );
                }
            }
            (None, Some(name)) => {
                c.length("/suiteName", name, 1, None);
                match &self.tests {
                    None => c.fail("/tests", "required", "a new suite needs `tests`"),
                    Some(t) if t.is_empty() => {
                        c.fail("/tests", "minItems", "must have at least 1 test")
                    }
                    Some(t) if t.len() > MAX_TESTS => c.fail(
                        "/tests",
                        "maxItems",
                        format!("must have at most {MAX_TESTS} tests"),
                    ),
                    Some(_) => {}
                }
                for (i, t) in self.tests.iter().flatten().enumerate() {
                    let p = join("/tests", i);
                    t.validate(&p, &mut c);
                }
                match &self.server_ids {
                    None => c.fail("/serverIds", "required", "a new suite needs `serverIds`"),
                    Some(s) if s.is_empty() => {
                        c.fail("/serverIds", "minItems", "must name at least 1 server")
                    }
                    Some(_) => {}
                }
                if self.environment_id.is_some() {
                    c.fail(
                        "/environmentId",
                        "requires",
                        "`environmentId` requires `suiteId`: a new suite has no attached environment",
                    );
                }
            }
        }
        for (i, s) in self.server_ids.iter().flatten().enumerate() {
            c.length(&join("/serverIds", i), s, 1, None);
        }
        if let Some(n) = self.iteration_override {
            c.range_i64(
                "/iterationOverride",
                n,
                MIN_ITERATION_OVERRIDE,
                MAX_ITERATION_OVERRIDE,
            );
        }
        if let Some(pc) = &self.pass_criteria {
            pc.validate("/passCriteria", &mut c);
        }
        if let Some(m) = &self.model {
            c.length("/model", m, 1, None);
        }
        if let Some(e) = &self.environment_id {
            c.length("/environmentId", e, 1, None);
        }
        for (k, v) in self.model_api_keys.iter().flatten() {
            c.length(&join("/modelApiKeys", k), v, 1, None);
        }
        c.finish()
    }
}

/// The 202 answer of `POST eval-runs`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunCreated {
    pub run_id: String,
    pub suite_id: String,
    pub status: String,
    #[serde(default)]
    pub servers: Vec<SuiteServerRef>,
    #[serde(default)]
    pub case_upsert: CaseUpsert,
    /// The environment the run uses (implicitly when the suite has exactly one), or `null`.
    #[serde(default)]
    pub environment: Option<EnvironmentRef>,
}

/// Token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, o: &Usage) {
        self.input_tokens += o.input_tokens;
        self.output_tokens += o.output_tokens;
        self.total_tokens += o.total_tokens;
    }
}

/// Case verdict counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaseCounts {
    pub total: i64,
    pub passed: i64,
    pub failed: i64,
    /// Additive: cases with a trial that ended as an error (no verdict).
    #[serde(default)]
    pub errored: i64,
}

/// A run's summary: counts over iterations, case verdicts, tokens and latency.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub total: i64,
    pub passed: i64,
    pub failed: i64,
    /// Additive: iterations that ended as an error (`result: "error"`): the server stopped
    /// answering, the model failed, or there were no credits. They have no verdict, count
    /// neither as passed nor as failed, and a run with any is not passed.
    #[serde(default)]
    pub errored: i64,
    /// Passed iterations over those with a verdict, 0 to 1; `null` before any.
    pub pass_rate: Option<f64>,
    /// Iterations not yet finished (pending or running) or cancelled.
    #[serde(default)]
    pub pending: i64,
    #[serde(default)]
    pub cancelled: i64,
    #[serde(default)]
    pub cases: CaseCounts,
    #[serde(default)]
    pub tokens: Usage,
    /// Sum and mean of iteration durations, in milliseconds.
    #[serde(default)]
    pub latency_ms: Latency,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Latency {
    pub total: f64,
    pub mean: Option<f64>,
}

/// One eval run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalRun {
    pub id: String,
    pub suite_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_number: Option<i64>,
    /// `pending`, `running`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// `passed`, `failed`, or `null` until the run completes.
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<RunSummary>,
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notes: Option<String>,
    pub created_at: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completed_at: Option<i64>,
    /// From the run's immutable snapshot; `null` for a saved-server-selection run.
    #[serde(default)]
    pub environment: Option<EnvironmentRef>,
    /// Additive: why a failed run failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Additive: the servers the run talks to.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<SuiteServerRef>,
    /// Additive: the model override of the run, when one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Additive: `approximated` cases approved for this run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approved_case_ids: Vec<String>,
    /// Additive: what started the run beyond `source` (`manual`, `schedule`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// Additive: set once the stored transcripts were graded again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regraded_at: Option<i64>,
    /// Additive, ingested runs: the reporter's id for the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external_run_id: Option<String>,
    /// Additive, ingested runs: the test framework that produced the results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub framework: Option<String>,
    /// Additive, ingested runs: where the CI job ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<crate::spec::ingest::CiInfo>,
}

impl EvalRun {
    /// `source`, with what started the run when that says more (`api · schedule`).
    pub fn source_label(&self) -> String {
        match self.trigger.as_deref() {
            Some(t) if t != "manual" => format!("{} · {t}", self.source),
            _ => self.source.clone(),
        }
    }

    pub fn is_terminal(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }
}

/// A tool call as iterations list it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallSummary {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ms: Option<f64>,
}

/// One trial of one case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalIteration {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub test_case_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// 1-based within the case and model.
    pub iteration_number: i64,
    /// Additive: 1-based repetition of the iteration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetition: Option<i64>,
    /// `pending`, `running`, `completed`, `failed` (the iteration could not be carried
    /// out: see `error`) or `cancelled`.
    pub status: String,
    #[serde(default)]
    pub result: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tokens_used: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(default)]
    pub actual_tool_calls: Vec<ToolCallSummary>,
    #[serde(default)]
    pub expected_tool_calls: Vec<ToolCallSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scores: Option<Value>,
    /// Additive: the widget snapshots an ingested result named, resolved against the
    /// project's uploads (see `eval-ingest`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widget_snapshots: Option<Vec<crate::spec::widget_snapshot::WidgetSnapshot>>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: Value) -> Vec<(String, String)> {
        match RunCreate::parse(v.to_string().as_bytes()) {
            Ok(_) => vec![],
            Err(e) => e
                .violations()
                .into_iter()
                .map(|v| (v.path, v.rule))
                .collect(),
        }
    }

    #[test]
    fn rule_one_shapes() {
        assert_eq!(rules(json!({"suiteId": "sut_1"})), vec![]);
        assert_eq!(rules(json!({}))[0], ("/suiteId".into(), "required".into()));
        assert_eq!(
            rules(json!({"suiteId": "a", "suiteName": "b"}))[0].1,
            "oneOf"
        );
        let t = json!({"title": "t", "steps": [{"id": "s", "kind": "prompt", "prompt": "hi"}]});
        // Per-test `runs`, `model` and `provider` are optional, and accepted when given.
        assert_eq!(
            rules(json!({"suiteName": "n", "tests": [t.clone()], "serverIds": ["demo"]})),
            vec![]
        );
        let mut full = t.clone();
        full["runs"] = json!(2);
        full["model"] = json!("builtin/baseline");
        full["provider"] = json!("builtin");
        assert_eq!(
            rules(json!({"suiteName": "n", "tests": [full], "serverIds": ["demo"]})),
            vec![]
        );
        let got = rules(json!({"suiteName": "n", "tests": [t]}));
        assert!(got.contains(&("/serverIds".into(), "required".into())));
        assert_eq!(
            rules(json!({"suiteId": "s", "iterationOverride": 11}))[0].1,
            "range"
        );
    }
}
