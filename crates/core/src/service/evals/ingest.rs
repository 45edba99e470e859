//! Result ingestion (`/projects/{p}/eval-ingest/…`): runs executed elsewhere become ordinary
//! runs of the project (`source: sdk`, `trigger: ingest`), beside native ones.
//!
//! Decisions where the spec is silent:
//! - **`default`** as `{projectId}` is the key organization's default project: its oldest
//!   (the one `/me` reports as `defaultProjectId`).
//! - **Suites** are found by exact name in the project (the oldest of that name) or created
//!   empty (no servers, no cases; `passCriteria` from the request). Ingested results do not
//!   become cases of the suite: a result's `testCaseId` is `xcase_` + a hash of its
//!   `externalCaseId` (else its `caseTitle`), so repeats of one case group together.
//! - **Idempotency.** `externalRunId` is unique per project: `runs/start` and `report` with a
//!   known one return that run (`reused: true`; a finalized run as is; `report` on a started
//!   run appends and finalizes it). The same `externalRunId` under another suite name is 409
//!   `CONFLICT` with reason `EXTERNAL_RUN_ID_REUSED`. `externalIterationId` is unique per
//!   run: a replayed result is skipped and counted in `skipped`.
//! - **Order.** Iterations keep arrival order; `iterationNumber` is dense over the run
//!   (1, 2, 3 … across batches; skipped replays take no number).
//! - **Errors.** A `runId` unknown in the project is 404; a native run is 409 reason
//!   `NOT_INGESTED`; results for a finalized run are 409 reason `RUN_FINALIZED`; a
//!   `runs/finalize` whose `externalRunId` is not the run's is 404.
//! - **Verdict.** `report` and `runs/finalize` complete the run: with
//!   `passCriteria.minimumPassRate` (a percent) the run passes when the pass rate reaches
//!   it; without, when every result passed. A run with no results fails. `summary.passRate`
//!   in the ingestion answers is 0–1 (0 when empty); the run itself carries the full
//!   summary like native runs. An iteration is `failed` (status) when it was reported as not
//!   passed with an `error`, else `completed`.
//! - **Not a runner's run.** Ingested runs hold no concurrency slot (the cap does not apply
//!   to ingestion), are never taken over on restart (an open one stays open until
//!   finalized), cannot be regraded (409: there are no transcripts), and cancelling an open
//!   one finalizes it as `cancelled`.
//! - **Traces.** A result's `trace` is kept as sent and returned by the trace endpoint
//!   (`messages` and `spans` lifted out of it); none sent is 404 `TRACE_NOT_AVAILABLE`.
//! - **Widget snapshots.** A result's `widgetSnapshots` are resolved against the project's
//!   uploads when it is stored (inline HTML is kept as an upload first) and shown,
//!   additively, on the iteration and its trace ([`widgets`]).

mod upload;
mod widgets;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::runner::{RunBody, Timing, summarize};
use crate::service::store::ingest::{
    self as db, Begun, IngestTx, NewIngestIteration, NewIngestRun, ingest_write,
};
use crate::service::store::new_id;
use crate::service::store::projects::ProjectRole;
use crate::service::store::runs::StoredRun;
use crate::service::{Principal, Service};
use crate::spec::case::sha256_hex;
use crate::spec::ingest::{
    DEFAULT_PROJECT, IngestBatch, IngestBody, IngestFinalize, IngestIterations, IngestReport,
    IngestResult, IngestRun, IngestSummary, RunFields,
};
use crate::spec::run::{EvalIteration, RunSummary, ToolCallSummary, Usage};
use crate::spec::suite::{PassCriteria, SuiteServerRef, SuiteSettings};
use crate::spec::{Code, Error, Result};

pub use db::SOURCE;

/// Ingestion settings; the upload timer is configurable so tests run in milliseconds.
#[derive(Debug, Clone)]
pub struct IngestConfig {
    /// The origin upload URLs are built from (`serve --public-url`, else the listen address);
    /// `None` leaves it to the HTTP layer (the request's `Host`).
    pub public_url: Option<String>,
    /// How long an upload URL stays valid.
    pub upload_ttl: Duration,
    /// The largest artifact an upload URL accepts, in bytes.
    pub max_artifact_bytes: usize,
}

impl Default for IngestConfig {
    fn default() -> Self {
        IngestConfig {
            public_url: None,
            upload_ttl: Duration::from_secs(15 * 60),
            max_artifact_bytes: 4 * 1024 * 1024,
        }
    }
}

/// The additive run fields ingestion stores in the run body (`body.ingest`).
pub struct RunExtras {
    pub external_run_id: Option<String>,
    pub framework: Option<String>,
    pub ci: Option<crate::spec::ingest::CiInfo>,
}

impl RunExtras {
    pub fn of(body: &Value) -> RunExtras {
        let i = &body["ingest"];
        RunExtras {
            external_run_id: i["externalRunId"].as_str().map(str::to_string),
            framework: i["framework"].as_str().map(str::to_string),
            ci: serde_json::from_value(i["ci"].clone()).ok(),
        }
    }
}

/// The case id results of one case share.
fn case_id(r: &IngestResult) -> String {
    let key = match &r.external_case_id {
        Some(id) => format!("id\u{0}{id}"),
        None => format!("title\u{0}{}", r.case_title),
    };
    format!("xcase_{}", &sha256_hex(&key)[..24])
}

fn calls(c: &Option<Vec<crate::spec::ingest::IngestToolCall>>) -> Vec<ToolCallSummary> {
    c.iter()
        .flatten()
        .map(|c| ToolCallSummary {
            tool_name: c.tool_name.clone(),
            arguments: c.arguments.clone(),
            server_name: None,
            is_error: None,
            latency_ms: None,
        })
        .collect()
}

/// A reported result as an iteration row (its number is assigned on insert).
pub(crate) fn iteration(r: &IngestResult) -> NewIngestIteration {
    let id = new_id("itr");
    let usage = r.tokens.map(|t| {
        let (i, o) = (t.input.unwrap_or(0), t.output.unwrap_or(0));
        Usage {
            input_tokens: i,
            output_tokens: o,
            total_tokens: t.total.unwrap_or(i + o),
        }
    });
    let status = if !r.passed && r.error.is_some() {
        "failed"
    } else {
        "completed"
    };
    let result = if r.passed { "passed" } else { "failed" };
    let case_id = case_id(r);
    let it = EvalIteration {
        id: id.clone(),
        test_case_id: Some(case_id.clone()),
        title: Some(r.case_title.clone()),
        iteration_number: 0,
        repetition: None,
        status: status.into(),
        result: Some(result.into()),
        model: r.model.clone(),
        provider: r.provider.clone(),
        started_at: None,
        duration_ms: r.duration_ms,
        tokens_used: usage.map(|u| u.total_tokens),
        usage,
        actual_tool_calls: calls(&r.actual_tool_calls),
        expected_tool_calls: calls(&r.expected_tool_calls),
        error: r.error.clone(),
        scores: None,
        widget_snapshots: None,
    };
    let mut body = serde_json::to_value(&it).expect("serializes");
    body["ingest"] = json!({
        "externalIterationId": r.external_iteration_id,
        "externalCaseId": r.external_case_id,
        "query": r.query,
        "metadata": r.metadata,
        "isNegativeTest": r.is_negative_test,
    });
    NewIngestIteration {
        id,
        case_id,
        external_id: r.external_iteration_id.clone(),
        status: status.into(),
        result: Some(result.into()),
        body,
        transcript: r.trace.as_ref().map(|t| json!({ "trace": t })),
    }
}

/// `passed` or `failed` for a finished ingested run (see the module docs).
fn verdict(s: &RunSummary, pc: Option<PassCriteria>) -> &'static str {
    let ok = match pc.and_then(|p| p.minimum_pass_rate) {
        Some(min) => s.total > 0 && s.pass_rate.unwrap_or(0.0) * 100.0 + 1e-9 >= min,
        None => s.total > 0 && s.failed == 0,
    };
    if ok { "passed" } else { "failed" }
}

/// Finalizes an open ingested run inside `tx`; a finalized one is left as is. Returns
/// whether this call finalized it.
pub(crate) fn finalize_tx(tx: &dyn IngestTx, run_id: &str, cancelled: bool) -> Result<bool> {
    let (status, stored) = tx.run_state(run_id)?;
    if status != "running" {
        return Ok(false);
    }
    let mut body: RunBody = serde_json::from_value(stored.clone())
        .map_err(|e| Error::internal(format!("corrupt run snapshot: {e}")))?;
    let its = tx.iterations(run_id)?;
    let (summary, _) = summarize(&body, &its);
    let result = verdict(&summary, body.pass_criteria);
    body.summary = Some(summary);
    let mut v = serde_json::to_value(&body).expect("serializes");
    v["ingest"] = stored["ingest"].clone();
    if cancelled {
        tx.finish(run_id, "cancelled", None, &v)?;
    } else {
        tx.finish(run_id, "completed", Some(result), &v)?;
    }
    Ok(true)
}

fn not_ingested(run: &StoredRun) -> Error {
    Error::conflict(format!(
        "run `{}` was started by evaldeck (source `{}`), not ingested: it accepts no reported results",
        run.id, run.source
    ))
    .with_reason("NOT_INGESTED")
}

impl Service {
    /// The project an ingestion path names (`default`: the organization's oldest project),
    /// after the caller's access check.
    pub fn ingest_project(&self, who: &Principal, project: &str) -> Result<String> {
        let id = if project == DEFAULT_PROJECT {
            self.store()
                .default_project(&who.org_id)?
                .ok_or_else(|| Error::not_found("default project", &who.org_id))?
        } else {
            project.to_string()
        };
        self.store().project_access(who, &id, ProjectRole::Member)?;
        Ok(id)
    }

    /// The run body of a new ingested run.
    fn ingest_body(&self, who: &Principal, project: &str, f: &RunFields) -> Value {
        let servers: Vec<SuiteServerRef> = f
            .server_names
            .iter()
            .flatten()
            .filter_map(|n| self.store().server(project, n).ok())
            .map(|s| SuiteServerRef {
                id: s.id,
                name: Some(s.name),
            })
            .collect();
        let body = RunBody {
            suite_name: f.suite_name.clone(),
            user_id: who.user_id.clone(),
            org_role: who.org_role.clone(),
            servers,
            environment: None,
            roots: None,
            cases: Vec::new(),
            standard_checks: Vec::new(),
            pass_threshold: 1.0,
            pass_criteria: f.pass_criteria,
            model: None,
            models: BTreeMap::new(),
            needs_keys: false,
            approved_case_ids: Vec::new(),
            notes: f.notes.clone(),
            trigger: "ingest".into(),
            declarations: None,
            summary: None,
            timing: Timing::default(),
            regraded_at: None,
        };
        let mut v = serde_json::to_value(&body).expect("serializes");
        v["ingest"] = json!({
            "externalRunId": f.external_run_id,
            "framework": f.framework,
            "ci": f.ci,
            "expectedIterations": f.expected_iterations,
            "tags": f.tags,
            "serverNames": f.server_names,
            "suiteDescription": f.suite_description,
        });
        v
    }

    /// Finds or creates the run of `f` inside `tx` (409 when its external id belongs to a
    /// run of another suite).
    fn ingest_begin(
        &self,
        tx: &dyn IngestTx,
        who: &Principal,
        project: &str,
        f: &RunFields,
        body: &Value,
    ) -> Result<Begun> {
        let b = tx.begin(&NewIngestRun {
            project_id: project,
            org_id: &who.org_id,
            suite_name: &f.suite_name,
            suite_description: f.suite_description.as_deref(),
            suite_settings: SuiteSettings {
                pass_criteria: f.pass_criteria,
                tags: f.tags.clone().unwrap_or_default(),
                ..SuiteSettings::default()
            },
            external_run_id: &f.external_run_id,
            body,
        })?;
        if b.reused && tx.suite_by_name(project, &f.suite_name)?.as_deref() != Some(&b.suite_id) {
            return Err(Error::conflict(format!(
                "externalRunId `{}` already names a run of another suite than `{}`",
                f.external_run_id, f.suite_name
            ))
            .with_details(json!({"reason": "EXTERNAL_RUN_ID_REUSED", "runId": b.run_id})));
        }
        Ok(b)
    }

    /// The ingestion answer for a run.
    fn ingest_answer(&self, project: &str, run_id: &str, reused: bool) -> Result<IngestRun> {
        let run = self.store().run(Some(project), run_id)?;
        Ok(IngestRun {
            ok: true,
            suite_id: run.suite_id.clone(),
            run_id: run.id.clone(),
            external_run_id: RunExtras::of(&run.body).external_run_id.unwrap_or_default(),
            reused,
            status: run.status.clone(),
            result: run.result.clone(),
            summary: IngestSummary::new(run.passed, run.failed),
        })
    }

    /// `report`: create (or reuse) the run, append the results, finalize — one transaction.
    pub fn ingest_report(
        &self,
        who: &Principal,
        project: &str,
        body: &IngestReport,
    ) -> Result<IngestRun> {
        body.check()?;
        let project = self.ingest_project(who, project)?;
        let run_body = self.ingest_body(who, &project, &body.run);
        let mut items: Vec<NewIngestIteration> = body.results.iter().map(iteration).collect();
        self.attach_snapshots(who, &project, &body.results, &mut items)?;
        let b = ingest_write(self.store(), |tx| {
            let b = self.ingest_begin(tx, who, &project, &body.run, &run_body)?;
            if tx.run_state(&b.run_id)?.0 == "running" {
                tx.append(&b.run_id, &items)?;
                finalize_tx(tx, &b.run_id, false)?;
            }
            Ok(b)
        })?;
        self.ingest_answer(&project, &b.run_id, b.reused)
    }

    /// `runs/start`: create the run, or return the one with this `externalRunId`.
    pub fn ingest_start(
        &self,
        who: &Principal,
        project: &str,
        body: &RunFields,
    ) -> Result<IngestRun> {
        body.check()?;
        let project = self.ingest_project(who, project)?;
        let run_body = self.ingest_body(who, &project, body);
        let b = ingest_write(self.store(), |tx| {
            self.ingest_begin(tx, who, &project, body, &run_body)
        })?;
        self.ingest_answer(&project, &b.run_id, b.reused)
    }

    /// An ingested run of the project (404 elsewhere, 409 for a native run).
    fn ingested_run(&self, project: &str, run_id: &str) -> Result<StoredRun> {
        let run = self.store().run(Some(project), run_id)?;
        if run.source != SOURCE {
            return Err(not_ingested(&run));
        }
        Ok(run)
    }

    /// `runs/iterations`: append a batch; replays are skipped.
    pub fn ingest_iterations(
        &self,
        who: &Principal,
        project: &str,
        body: &IngestIterations,
    ) -> Result<IngestBatch> {
        body.check()?;
        let project = self.ingest_project(who, project)?;
        let run = self.ingested_run(&project, &body.run_id)?;
        let mut items: Vec<NewIngestIteration> = body.results.iter().map(iteration).collect();
        self.attach_snapshots(who, &project, &body.results, &mut items)?;
        let (inserted, skipped) = ingest_write(self.store(), |tx| tx.append(&run.id, &items))?;
        let run = self.store().run(Some(&project), &run.id)?;
        Ok(IngestBatch {
            ok: true,
            run_id: run.id,
            inserted,
            skipped,
            total: inserted + skipped,
            run_total: run.total,
        })
    }

    /// `runs/finalize`: idempotent; a finalized run is returned as is (`reused: true`).
    pub fn ingest_finalize(
        &self,
        who: &Principal,
        project: &str,
        body: &IngestFinalize,
    ) -> Result<IngestRun> {
        body.check()?;
        let project = self.ingest_project(who, project)?;
        let run = self.ingested_run(&project, &body.run_id)?;
        if let Some(ext) = &body.external_run_id
            && RunExtras::of(&run.body).external_run_id.as_deref() != Some(ext.as_str())
        {
            return Err(Error::new(
                Code::NotFound,
                format!("run `{}` does not have externalRunId `{ext}`", run.id),
            ));
        }
        let finalized = ingest_write(self.store(), |tx| finalize_tx(tx, &run.id, false))?;
        self.ingest_answer(&project, &run.id, !finalized)
    }

    /// Ends an open ingested run as `cancelled` (the cancel extension on an ingested run).
    pub(super) fn cancel_ingested(&self, run_id: &str) -> Result<()> {
        ingest_write(self.store(), |tx| finalize_tx(tx, run_id, true)).map(|_| ())
    }
}

/// The trace of an ingested iteration: the reporter's trace as sent, with `messages` and
/// `spans` lifted out of it, and the result's other reported fields.
pub(super) fn trace_view(
    run: &StoredRun,
    it: crate::service::store::runs::StoredIteration,
) -> Result<Value> {
    let Some(t) = it.transcript else {
        return Err(Error::new(
            Code::NotFound,
            format!("iteration `{}` was reported without a trace", it.id),
        )
        .with_reason("TRACE_NOT_AVAILABLE"));
    };
    let trace = t["trace"].clone();
    let messages = match &trace {
        Value::Array(_) => trace.clone(),
        Value::Object(o) => o.get("messages").cloned().unwrap_or_else(|| json!([])),
        _ => json!([]),
    };
    let spans = trace.get("spans").cloned().unwrap_or_else(|| json!([]));
    let b = &it.body;
    let x = &b["ingest"];
    let mut view = json!({
        "iterationId": it.id,
        "runId": run.id,
        "testCaseId": it.case_id,
        "title": b["title"],
        "status": it.status,
        "result": it.result,
        "source": run.source,
        "model": b.get("model"),
        "provider": b.get("provider"),
        "messages": messages,
        "spans": spans,
        "text": trace.as_str(),
        "trace": trace,
        "query": x["query"],
        "expectedToolCalls": b.get("expectedToolCalls").cloned().unwrap_or_else(|| json!([])),
        "actualToolCalls": b.get("actualToolCalls").cloned().unwrap_or_else(|| json!([])),
        "error": b.get("error"),
        "durationMs": b.get("durationMs"),
        "usage": b.get("usage"),
        "metadata": x["metadata"],
        "externalIterationId": x["externalIterationId"],
        "externalCaseId": x["externalCaseId"],
        "isNegativeTest": x["isNegativeTest"],
    });
    if let Some(w) = b.get("widgetSnapshots") {
        view["widgetSnapshots"] = w.clone();
    }
    Ok(view)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        let s = |passed: i64, failed: i64| RunSummary {
            total: passed + failed,
            passed,
            failed,
            pass_rate: (passed + failed > 0).then(|| passed as f64 / (passed + failed) as f64),
            ..Default::default()
        };
        let pc = |m: f64| {
            Some(PassCriteria {
                minimum_pass_rate: Some(m),
            })
        };
        assert_eq!(verdict(&s(3, 0), None), "passed");
        assert_eq!(verdict(&s(3, 1), None), "failed");
        assert_eq!(verdict(&s(0, 0), None), "failed");
        assert_eq!(verdict(&s(3, 1), pc(75.0)), "passed");
        assert_eq!(verdict(&s(2, 1), pc(75.0)), "failed");
        assert_eq!(verdict(&s(0, 0), pc(0.0)), "failed");
    }

    #[test]
    fn results_become_iterations() {
        let mut r = IngestResult::new("adds", false, "x-1");
        r.error = Some("boom".into());
        r.tokens = Some(crate::spec::ingest::IngestTokens {
            input: Some(3),
            output: Some(4),
            total: None,
        });
        r.trace = Some(json!("hello"));
        let it = iteration(&r);
        assert_eq!(
            (it.status.as_str(), it.result.as_deref()),
            ("failed", Some("failed"))
        );
        assert_eq!(it.body["usage"]["totalTokens"], 7);
        assert_eq!(it.transcript, Some(json!({"trace": "hello"})));
        assert_eq!(
            it.case_id,
            iteration(&IngestResult::new("adds", true, "x-2")).case_id
        );
        let mut other = IngestResult::new("adds", true, "x-3");
        other.external_case_id = Some("c1".into());
        assert_ne!(it.case_id, iteration(&other).case_id);
    }
}
