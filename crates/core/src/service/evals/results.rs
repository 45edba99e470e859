//! Reading runs, iterations and traces; cancel and regrade.

use serde_json::{Value, json};

use super::grade::{self, Grade};
use super::runner::{apply_grade, body_of, summarize};
use super::transcript::Transcript;
use crate::service::store::now_ms;
use crate::service::store::projects::ProjectRole;
use crate::service::store::runs::StoredRun;
use crate::service::{Principal, Service};
use crate::spec::page::{Page, PageRequest};
use crate::spec::run::{EvalIteration, EvalRun, RunSummary};
use crate::spec::{Code, Error, Result};

impl StoredRun {
    pub fn is_terminal(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }
}

fn wire(run: StoredRun) -> EvalRun {
    let body = body_of(&run).ok();
    let extras = super::ingest::RunExtras::of(&run.body);
    let live = || {
        let finished = run.passed + run.failed;
        RunSummary {
            total: run.total,
            passed: run.passed,
            failed: run.failed,
            pass_rate: (finished > 0).then(|| run.passed as f64 / finished as f64),
            pending: run.total - finished,
            ..Default::default()
        }
    };
    let summary = match body.as_ref().and_then(|b| b.summary.clone()) {
        Some(s) if run.is_terminal() => s,
        _ => live(),
    };
    EvalRun {
        id: run.id.clone(),
        suite_id: run.suite_id.clone(),
        project_id: Some(run.project_id.clone()),
        run_number: Some(run.run_number),
        status: run.status.clone(),
        result: run.result.clone(),
        summary: Some(summary),
        source: run.source.clone(),
        notes: body.as_ref().and_then(|b| b.notes.clone()),
        created_at: run.created_at,
        completed_at: run.completed_at,
        environment: run
            .environment
            .clone()
            .and_then(|e| serde_json::from_value(e).ok()),
        error: run.error.clone(),
        servers: body.as_ref().map(|b| b.servers.clone()).unwrap_or_default(),
        model: body.as_ref().and_then(|b| b.model.clone()),
        approved_case_ids: body
            .as_ref()
            .map(|b| b.approved_case_ids.clone())
            .unwrap_or_default(),
        trigger: body.as_ref().map(|b| b.trigger.clone()),
        regraded_at: body.as_ref().and_then(|b| b.regraded_at),
        external_run_id: extras.external_run_id,
        framework: extras.framework,
        ci: extras.ci,
    }
}

impl Service {
    fn stored_run(&self, who: &Principal, project_id: &str, run_id: &str) -> Result<StoredRun> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().run(Some(project_id), run_id)
    }

    /// `GET eval-runs/{runId}`.
    pub fn run(&self, who: &Principal, project_id: &str, run_id: &str) -> Result<EvalRun> {
        self.stored_run(who, project_id, run_id).map(wire)
    }

    /// `GET eval-suites/{suiteId}/runs`, newest first.
    pub fn suite_runs(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalRun>> {
        let s = self.suite(who, project_id, suite)?;
        Ok(self.store().suite_runs(&s.id, page)?.map(wire))
    }

    /// Extension `GET eval-runs`: every run of the project (native, ingested, scheduled),
    /// newest first, so a dashboard needs one request instead of one per suite.
    pub fn project_runs(
        &self,
        who: &Principal,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalRun>> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        Ok(self.store().project_runs(project_id, page)?.map(wire))
    }

    /// `GET eval-runs/{runId}/iterations`, in plan order.
    pub fn iterations(
        &self,
        who: &Principal,
        project_id: &str,
        run_id: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalIteration>> {
        let run = self.stored_run(who, project_id, run_id)?;
        let rows = self.store().iterations(&run.id, page)?;
        let mut out = Vec::with_capacity(rows.items.len());
        for mut r in rows.items {
            // The status column is authoritative (cancel marks rows without rewriting bodies).
            r.body["status"] = json!(r.status);
            out.push(
                serde_json::from_value(r.body)
                    .map_err(|e| Error::internal(format!("corrupt iteration: {e}")))?,
            );
        }
        Ok(Page {
            items: out,
            next_cursor: rows.next_cursor,
        })
    }

    /// `GET eval-runs/{runId}/iterations/{iterationId}/trace`: messages, steps, tool calls,
    /// expected-versus-actual per assertion, the categorised tool-call diff, judge, spans.
    pub fn trace(
        &self,
        who: &Principal,
        project_id: &str,
        run_id: &str,
        iteration_id: &str,
    ) -> Result<Value> {
        let run = self.stored_run(who, project_id, run_id)?;
        let it = self.store().iteration(&run.id, iteration_id)?;
        if run.source == super::ingest::SOURCE {
            return super::ingest::trace_view(&run, it);
        }
        let (Some(t), Some(g)) = (it.transcript, it.grade) else {
            return Err(Error::new(
                Code::NotFound,
                format!(
                    "iteration `{iteration_id}` has no stored trace (status `{}`)",
                    it.status
                ),
            )
            .with_reason("TRACE_NOT_AVAILABLE"));
        };
        let t: Transcript = serde_json::from_value(t)
            .map_err(|e| Error::internal(format!("corrupt transcript: {e}")))?;
        let g: Grade = serde_json::from_value(g)
            .map_err(|e| Error::internal(format!("corrupt grade: {e}")))?;
        let prompts: Vec<Value> = t
            .steps
            .iter()
            .enumerate()
            .filter(|(_, s)| s.kind == "prompt")
            .map(|(i, s)| {
                let (m0, c0) = i.checked_sub(1).map(|p| (t.steps[p].messages_end, t.steps[p].calls_end)).unwrap_or((0, 0));
                let msgs = &t.messages[m0.min(s.messages_end)..s.messages_end];
                json!({
                    "stepId": s.step_id,
                    "prompt": msgs.first().map(|m| &m.content),
                    "response": msgs.iter().rev().find(|m| m.role == crate::service::models::Role::Assistant && !m.content.is_empty()).map(|m| &m.content),
                    "actualToolCalls": t.calls[c0.min(s.calls_end)..s.calls_end].iter().map(|c| json!({"toolName": c.tool_name, "arguments": c.arguments, "isError": c.failed()})).collect::<Vec<_>>(),
                    "assertions": g.assertions.iter().filter(|a| t.steps.get(i + 1).is_some_and(|n| a.source == format!("step:{}", n.step_id))).collect::<Vec<_>>(),
                    "turnCapReached": s.turn_cap_reached,
                })
            })
            .collect();
        Ok(json!({
            "iterationId": it.id,
            "runId": run.id,
            "testCaseId": it.case_id,
            "status": it.status,
            "result": it.result,
            "model": t.model,
            "messages": t.messages,
            "steps": t.steps,
            "toolCalls": t.calls,
            "prompts": prompts,
            "assertions": g.assertions,
            "expectedToolCalls": g.expected_tool_calls,
            "toolCallDiff": g.diff,
            "judge": t.judge,
            "usage": t.usage,
            "turns": t.turns,
            "durationMs": t.duration_ms,
            "spans": t.spans,
            "error": t.error,
            "widgets": t.widgets,
            "liveChecks": t.live,
        }))
    }

    /// Extension: cancels an active run; 409 on a terminal one.
    pub async fn cancel_run(
        &self,
        who: &Principal,
        project_id: &str,
        run_id: &str,
    ) -> Result<EvalRun> {
        let run = self.stored_run(who, project_id, run_id)?;
        if run.is_terminal() {
            return Err(Error::conflict(format!(
                "the run is already `{}`",
                run.status
            )));
        }
        if run.source == super::ingest::SOURCE {
            self.cancel_ingested(&run.id)?;
            return self.run(who, project_id, run_id);
        }
        self.store().request_cancel(&run.id)?;
        if let Some(t) = self.runs().token(&run.id) {
            t.cancel();
            for _ in 0..200 {
                if !self.runs().is_running(&run.id) {
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        } else {
            if run.lease_until.unwrap_or(0) < now_ms() {
                // No live runner holds it: finalize here.
                self.finish(&run.id, true)?;
            }
        }
        self.run(who, project_id, run_id)
    }

    /// Extension: grades every stored transcript again, calling nothing; terminal runs only.
    pub fn regrade_run(&self, who: &Principal, project_id: &str, run_id: &str) -> Result<EvalRun> {
        let run = self.stored_run(who, project_id, run_id)?;
        if run.source == super::ingest::SOURCE {
            return Err(Error::conflict(
                "an ingested run carries its reporter's verdicts: there are no transcripts to grade again",
            )
            .with_reason("NOT_REGRADABLE"));
        }
        if !run.is_terminal() {
            return Err(Error::conflict(
                "the run is still in progress; regrade it once it finishes",
            ));
        }
        let mut body = body_of(&run)?;
        let mut its = self.store().all_iterations(&run.id)?;
        for it in its.iter_mut() {
            let (Some(tv), Some(case)) = (it.transcript.clone(), body.case(&it.case_id)) else {
                continue;
            };
            let t: Transcript = serde_json::from_value(tv)
                .map_err(|e| Error::internal(format!("corrupt transcript: {e}")))?;
            let g = grade::regrade(case, &body.standard_checks, &t, body.declarations.as_ref());
            let mut info: EvalIteration = serde_json::from_value(it.body.clone())
                .map_err(|e| Error::internal(format!("corrupt iteration: {e}")))?;
            apply_grade(&mut info, &t, &g);
            it.result = info.result.clone();
            it.status = info.status.clone();
            it.body = serde_json::to_value(&info).expect("serializes");
            it.grade = Some(serde_json::to_value(&g).expect("serializes"));
            self.store().save_iteration(&run.id, it, None, None)?;
        }
        let (summary, passed) = summarize(&body, &its);
        body.summary = Some(summary);
        body.regraded_at = Some(now_ms());
        let json = serde_json::to_value(&body).expect("serializes");
        let result = match run.status.as_str() {
            "completed" => Some(if passed { "passed" } else { "failed" }),
            _ => run.result.as_deref(),
        };
        self.store()
            .set_run_state(&run.id, &run.status, result, None, Some(&json))?;
        self.run(who, project_id, run_id)
    }
}
