//! The runner: one tokio task per run, driving its pending iterations (several at once,
//! started in plan order), with a heartbeat so a restart can tell abandoned runs from live ones.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use super::grade::{self, Grade};
use super::transcript::{
    CallRecord, Declarations, DeclaredTool, JudgeRecord, Span, StepRecord, Transcript,
};
use crate::service::models::{Message, Model, ModelChoice, ModelRequest, Role, ToolSpec};
use crate::service::store::now_ms;
use crate::service::store::runs::{RunSignal, StoredIteration, StoredRun};
use crate::service::{Principal, Service};
use crate::spec::case::{EvalCase, StepKind};
use crate::spec::client_features::Root;
use crate::spec::environment::EnvironmentRef;
use crate::spec::primitives::ToolCallRequest;
use crate::spec::run::{CaseCounts, EvalIteration, Latency, RunSummary, ToolCallSummary, Usage};
use crate::spec::suite::{PassCriteria, SuiteServerRef};
use crate::spec::{Error, Result};

/// The reason of the error that stops a runner whose run another process took over.
const LOST: &str = "RUN_TAKEN_OVER";

/// A model the run uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRef {
    pub provider: String,
    pub hosted: bool,
}

/// Where the time went, for the overhead benchmark.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Timing {
    pub iterations: u64,
    pub wall_ms: f64,
    pub model_ms: f64,
    pub tool_ms: f64,
}

impl Timing {
    pub fn add(&mut self, o: &Timing) {
        self.iterations += o.iterations;
        self.wall_ms += o.wall_ms;
        self.model_ms += o.model_ms;
        self.tool_ms += o.tool_ms;
    }
}

/// The run's immutable launch snapshot and its mutable results, stored as `eval_runs.body`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunBody {
    pub suite_name: String,
    pub user_id: String,
    pub org_role: String,
    pub servers: Vec<SuiteServerRef>,
    pub environment: Option<EnvironmentRef>,
    /// The environment's roots, frozen at launch: every server of the run gets them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<Root>>,
    pub cases: Vec<EvalCase>,
    pub standard_checks: Vec<String>,
    pub pass_threshold: f64,
    pub pass_criteria: Option<PassCriteria>,
    pub model: Option<String>,
    pub models: BTreeMap<String, ModelRef>,
    pub needs_keys: bool,
    pub approved_case_ids: Vec<String>,
    pub notes: Option<String>,
    pub trigger: String,
    pub declarations: Option<Declarations>,
    pub summary: Option<RunSummary>,
    pub timing: Timing,
    pub regraded_at: Option<i64>,
}

impl RunBody {
    pub fn case(&self, id: &str) -> Option<&EvalCase> {
        self.cases.iter().find(|c| c.id == id)
    }
}

pub(super) fn body_of(run: &StoredRun) -> Result<RunBody> {
    serde_json::from_value(run.body.clone())
        .map_err(|e| Error::internal(format!("corrupt run snapshot: {e}")))
}

/// What every iteration of a run shares.
pub(super) struct Ctx {
    pub who: Principal,
    pub project_id: String,
    tools: Vec<ToolSpec>,
    /// Model-visible name → (server id, server name, tool name).
    routes: HashMap<String, (String, String, String)>,
    pub declarations: Declarations,
    servers: Vec<SuiteServerRef>,
    /// The environment's roots (see [`RunBody::roots`]).
    pub roots: Option<Vec<Root>>,
}

/// Takes over runs no live process holds (see [`crate::service::leases`]): each is resumed,
/// or marked `failed` with an `error` when it cannot be.
pub fn recover(service: &Service) -> Result<()> {
    if tokio::runtime::Handle::try_current().is_err() {
        return Ok(());
    }
    let opts = &service.config().runs;
    let leases = service.config().leases;
    for id in service
        .store()
        .claim_orphan_runs(service.worker_id(), now_ms(), leases.until())?
    {
        let run = service.store().run(None, &id)?;
        let body = body_of(&run)?;
        if !opts.resume_interrupted {
            service.store().set_run_state(
                &id,
                "failed",
                Some("failed"),
                Some("the run was interrupted by a restart of the service and resuming is off"),
                None,
            )?;
        } else if body.needs_keys {
            service.store().set_run_state(&id, "failed", Some("failed"), Some("the run was interrupted by a restart and cannot resume: its model needed `modelApiKeys`, which are never stored; start it again"), None)?;
        } else {
            tracing::info!(run = %id, "resuming an interrupted eval run");
            service.spawn_run(&id, BTreeMap::new());
        }
    }
    Ok(())
}

/// Aborts a task when dropped: the run's watcher ends with its runner, however that ends.
struct AbortOnDrop(tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Service {
    /// Starts the runner task of `run_id` (this process owns the run's lease).
    pub(super) fn spawn_run(&self, run_id: &str, keys: BTreeMap<String, String>) {
        let token = CancellationToken::new();
        let svc = self.clone();
        let id = run_id.to_string();
        let t = token.clone();
        let lost = CancellationToken::new();
        let handle = tokio::spawn(async move {
            // Watches for a cancel request (from any process) and for the run being taken
            // over by another process, whose lease this one let run out.
            let _watch = {
                let svc = svc.clone();
                let id = id.clone();
                let t = t.clone();
                let lost = lost.clone();
                AbortOnDrop(tokio::spawn(async move {
                    let every = svc.config().leases.renew;
                    loop {
                        tokio::time::sleep(every).await;
                        match svc.store().run_signal(&id, svc.worker_id()) {
                            Ok(RunSignal::Cancel) => t.cancel(),
                            Ok(RunSignal::Lost) => {
                                lost.cancel();
                                break;
                            }
                            Ok(RunSignal::Continue) | Err(_) => {}
                        }
                    }
                }))
            };
            let driven = tokio::select! {
                r = svc.drive(&id, &keys, &t) => Some(r),
                _ = lost.cancelled() => None,
            };
            match driven {
                None => tracing::warn!(run = %id, "another process took the run over"),
                Some(Ok(())) => {}
                Some(Err(e)) if e.reason() == Some(LOST) => {
                    tracing::warn!(run = %id, "another process took the run over")
                }
                Some(Err(e)) => {
                    tracing::warn!(run = %id, error = %e, "eval run failed");
                    let _ = svc.store().set_run_state(
                        &id,
                        "failed",
                        Some("failed"),
                        Some(&e.message),
                        None,
                    );
                }
            }
            svc.runs().remove(&id);
        });
        self.runs().insert(run_id, token, handle.abort_handle());
    }

    async fn capture(
        &self,
        who: &Principal,
        project_id: &str,
        servers: &[SuiteServerRef],
        roots: Option<&[Root]>,
    ) -> Declarations {
        let mut d = Declarations {
            complete: true,
            ..Default::default()
        };
        let max_pages = self.mcp().options().max_pages;
        for s in servers {
            let mut cursor: Option<String> = None;
            let mut pages = 0;
            loop {
                let c = cursor.clone();
                let r = self
                    .with_server(who, project_id, &s.id, |t| {
                        let c = c.clone();
                        let t = t.with_roots(roots);
                        async move { self.mcp().list_tools(&t, c).await }
                    })
                    .await;
                match r {
                    Ok(page) => {
                        for t in page.items {
                            d.tools.push(DeclaredTool {
                                server_id: s.id.clone(),
                                server_name: s.name.clone().unwrap_or_default(),
                                tool: serde_json::to_value(&t).unwrap_or_default(),
                            });
                        }
                        pages += 1;
                        match page.next_cursor {
                            Some(n) if pages < max_pages => cursor = Some(n),
                            Some(_) => {
                                d.complete = false;
                                d.errors.push(format!(
                                    "`{}`: more than {max_pages} pages of tools",
                                    s.name.clone().unwrap_or_default()
                                ));
                                break;
                            }
                            None => break,
                        }
                    }
                    Err(e) => {
                        d.complete = false;
                        d.errors.push(format!(
                            "`{}`: {}",
                            s.name.clone().unwrap_or_default(),
                            e.message
                        ));
                        break;
                    }
                }
            }
        }
        d
    }

    async fn drive(
        &self,
        run_id: &str,
        keys: &BTreeMap<String, String>,
        token: &CancellationToken,
    ) -> Result<()> {
        let run = self.store().run(None, run_id)?;
        if run.is_terminal() {
            return Ok(());
        }
        let mut body = body_of(&run)?;
        let who = Principal {
            user_id: body.user_id.clone(),
            org_id: run.org_id.clone().unwrap_or_default(),
            org_role: body.org_role.clone(),
            key_id: None,
        };
        self.store()
            .set_run_state(run_id, "running", None, None, None)?;
        if body
            .cases
            .iter()
            .any(|c| super::views::needs(c, &body.standard_checks))
            && let Err(why) = self.widgets().binary()
        {
            return Err(Error::new(
                crate::spec::Code::FeatureNotSupported,
                format!(
                    "this run's cases drive MCP Apps widgets (`interact` steps or widget assertions): {why}"
                ),
            ));
        }
        let declarations = match body.declarations.clone() {
            Some(d) => d,
            None => {
                let d = self
                    .capture(&who, &run.project_id, &body.servers, body.roots.as_deref())
                    .await;
                body.declarations = Some(d.clone());
                self.store()
                    .set_run_body(run_id, &serde_json::to_value(&body).expect("serializes"))?;
                d
            }
        };
        if declarations.tools.is_empty() && !declarations.errors.is_empty() {
            return Err(Error::new(
                crate::spec::Code::ServerUnreachable,
                format!(
                    "no server could be reached: {}",
                    declarations.errors.join("; ")
                ),
            ));
        }
        let ctx = Arc::new(context(
            who,
            run.project_id.clone(),
            declarations,
            body.servers.clone(),
            body.roots.clone(),
        ));
        let mut models: HashMap<String, Arc<dyn Model>> = HashMap::new();
        for (id, m) in &body.models {
            let choice = ModelChoice {
                id: id.clone(),
                provider: m.provider.clone(),
                hosted: m.hosted,
            };
            if !m.hosted
                && !keys.contains_key(&m.provider)
                && self
                    .config()
                    .models
                    .providers
                    .iter()
                    .all(|p| p.name != m.provider || !p.open)
            {
                return Err(Error::internal(format!(
                    "the model `{id}` needs `modelApiKeys.{}`, which are never stored; start the run again",
                    m.provider
                )));
            }
            models.insert(
                id.clone(),
                self.config().models.build(self.http(), &choice, keys)?,
            );
        }
        let judge: Option<Arc<dyn Model>> = match &self.config().runs.judge_model {
            Some(j) => {
                let ch = self
                    .config()
                    .models
                    .check("/judgeModel", j, None, &BTreeMap::new())
                    .ok();
                ch.and_then(|c| {
                    self.config()
                        .models
                        .build(self.http(), &c, &BTreeMap::new())
                        .ok()
                })
            }
            None => None,
        };
        let pending: Vec<StoredIteration> = self
            .store()
            .all_iterations(run_id)?
            .into_iter()
            .filter(|i| i.status == "pending" || i.status == "running")
            .collect();
        // Iterations are independent: several run at once (`RunOptions::iteration_concurrency`),
        // started in plan order; each is saved as soon as it is graded.
        let mut timing = body.timing.clone();
        let parallel = self.config().runs.iteration_concurrency.max(1);
        let all = futures::stream::iter(pending)
            .map(|it| self.iteration(run_id, &body, &ctx, &models, &judge, it))
            .buffer_unordered(parallel)
            .collect::<Vec<_>>();
        let outcomes = tokio::select! {
            o = all => o,
            _ = token.cancelled() => return self.finish(run_id, true),
        };
        for t in outcomes {
            timing.add(&t?);
        }
        let mut latest = body_of(&self.store().run(None, run_id)?)?;
        latest.timing = timing;
        self.store()
            .set_run_body(run_id, &serde_json::to_value(&latest).expect("serializes"))?;
        self.finish(run_id, false)
    }

    /// Runs, grades and saves one iteration; returns where its time went.
    async fn iteration(
        &self,
        run_id: &str,
        body: &RunBody,
        ctx: &Arc<Ctx>,
        models: &HashMap<String, Arc<dyn Model>>,
        judge: &Option<Arc<dyn Model>>,
        mut it: StoredIteration,
    ) -> Result<Timing> {
        let Some(case) = body.case(&it.case_id).cloned() else {
            return Ok(Timing::default());
        };
        let mut info: EvalIteration = serde_json::from_value(it.body.clone())
            .map_err(|e| Error::internal(format!("corrupt iteration: {e}")))?;
        let model = info.model.as_ref().and_then(|m| models.get(m)).cloned();
        let started_at = now_ms();
        let t0 = Instant::now();
        let paid = self.paid_model(body, info.model.as_deref());
        let transcript = if paid && self.store().org(&ctx.who.org_id)?.credits <= 0 {
            Transcript {
                error: Some("the organization has no credits left for hosted models; an operator grants credits with `evaldeck credits grant`".into()),
                ..Transcript::default()
            }
        } else {
            self.execute(ctx, &case, &body.standard_checks, model, judge.clone())
                .await
        };
        let debit = if paid {
            let per_1k = self.config().runs.credits_per_1k_tokens;
            let cost = transcript.usage.total_tokens.div_ceil(1000) as i64 * per_1k;
            let note = format!(
                "{} · {}",
                info.model.as_deref().unwrap_or_default(),
                case.title
            );
            Some((cost, note))
        } else {
            None
        };
        let g = grade::grade(
            &case,
            &body.standard_checks,
            &transcript,
            Some(&ctx.declarations),
        );
        apply_grade(&mut info, &transcript, &g);
        info.started_at = Some(started_at);
        let spent = |prefix: &str| {
            transcript
                .spans
                .iter()
                .filter(|s| s.name.starts_with(prefix))
                .map(|s| s.duration_ms)
                .sum::<f64>()
        };
        let mut timing = Timing {
            iterations: 1,
            wall_ms: 0.0,
            model_ms: spent("model"),
            tool_ms: spent("tool"),
        };
        it.status = info.status.clone();
        it.result = info.result.clone();
        it.body = serde_json::to_value(&info).expect("serializes");
        it.transcript = Some(serde_json::to_value(&transcript).expect("serializes"));
        it.grade = Some(serde_json::to_value(&g).expect("serializes"));
        let debit = debit
            .as_ref()
            .map(|(cost, note)| (ctx.who.org_id.as_str(), *cost, note.as_str()));
        if !self
            .store()
            .save_iteration(run_id, &it, Some(self.worker_id()), debit)?
        {
            return Err(Error::conflict("another process took the run over").with_reason(LOST));
        }
        timing.wall_ms = t0.elapsed().as_secs_f64() * 1000.0;
        Ok(timing)
    }

    /// Whether iterations on `model` spend the organization's credits.
    fn paid_model(&self, body: &RunBody, model: Option<&str>) -> bool {
        model
            .and_then(|m| body.models.get(m))
            .is_some_and(|m| self.config().models.bills_credits(&m.provider, m.hosted))
    }

    /// Computes the summary and records the terminal state.
    pub(super) fn finish(&self, run_id: &str, cancelled: bool) -> Result<()> {
        let run = self.store().run(None, run_id)?;
        let mut body = body_of(&run)?;
        let its = self.store().all_iterations(run_id)?;
        let (summary, passed) = summarize(&body, &its);
        body.summary = Some(summary);
        let json = serde_json::to_value(&body).expect("serializes");
        if cancelled {
            self.store()
                .set_run_state(run_id, "cancelled", None, None, Some(&json))
        } else {
            let result = if passed { "passed" } else { "failed" };
            self.store()
                .set_run_state(run_id, "completed", Some(result), None, Some(&json))
        }
    }

    // One call's every input is distinct; a struct would only rename them.
    #[allow(clippy::too_many_arguments)]
    async fn call(
        &self,
        ctx: &Ctx,
        step_id: &str,
        origin: &str,
        id: String,
        server: Option<(String, String)>,
        tool: &str,
        arguments: Value,
        elicitation: Option<&crate::spec::client_features::ElicitationAnswer>,
        spans: &mut Vec<Span>,
        t0: Instant,
    ) -> CallRecord {
        let start = t0.elapsed().as_secs_f64() * 1000.0;
        let began = Instant::now();
        let mut rec = CallRecord {
            id,
            step_id: step_id.into(),
            origin: origin.into(),
            tool_name: tool.into(),
            server_id: server.as_ref().map(|s| s.0.clone()),
            server_name: server.as_ref().map(|s| s.1.clone()),
            arguments: arguments.clone(),
            result: None,
            is_error: false,
            error: None,
            transport_failed: false,
            events: vec![],
            latency_ms: 0.0,
            result_bytes: 0,
        };
        let Some((server_id, _)) = server else {
            rec.error = Some(format!("no server offers a tool named `{tool}`"));
            return rec;
        };
        let mut req = ToolCallRequest::new(tool, arguments.as_object().cloned());
        req.elicitation = elicitation.cloned();
        let req = &req;
        let traffic = self.mcp().traffic_of(&server_id);
        let before = traffic.last_seq();
        let r = self
            .with_server(&ctx.who, &ctx.project_id, &server_id, |t| {
                let t = t.with_roots(ctx.roots.as_deref());
                async move { self.mcp().call_tool(&t, req).await }
            })
            .await;
        // What the server said besides its answer: progress, log messages, its requests
        // and how they were answered, stderr. (Concurrent iterations on the same server
        // may interleave here.)
        rec.events = traffic
            .after(before, 200)
            .into_iter()
            .filter(|e| e.kind != "response" && !(e.direction == "out" && e.kind == "request"))
            .collect();
        rec.latency_ms = began.elapsed().as_secs_f64() * 1000.0;
        spans.push(Span {
            name: format!("tool:{tool}"),
            start_ms: start,
            duration_ms: rec.latency_ms,
        });
        match r {
            Ok(v) => {
                rec.is_error = v["isError"] == true;
                rec.result_bytes = v.to_string().len() as u64;
                rec.result = Some(v);
            }
            Err(e) => {
                rec.transport_failed = crate::service::mcp::errors::is_transport_failure(&e);
                rec.error = Some(describe(&e));
            }
        }
        rec
    }

    /// Runs one trial of a case.
    async fn execute(
        &self,
        ctx: &Ctx,
        case: &EvalCase,
        standard: &[String],
        model: Option<Arc<dyn Model>>,
        judge: Option<Arc<dyn Model>>,
    ) -> Transcript {
        let t0 = Instant::now();
        let opts = &self.config().runs;
        let mut t = Transcript {
            model: model.as_ref().map(|m| m.id().to_string()),
            ..Default::default()
        };
        let mut views = super::views::needs(case, standard).then(super::views::Views::new);
        'steps: for step in &case.steps {
            let mut rec_err = None;
            let mut cap = false;
            if let Some(v) = &views {
                v.enter(&step.id);
            }
            match step.kind {
                StepKind::Prompt => {
                    let Some(model) = &model else {
                        t.error = Some("a prompt step needs a model".into());
                        break 'steps;
                    };
                    let mut m = Message::new(Role::User, step.prompt.clone().unwrap_or_default());
                    m.step_id = Some(step.id.clone());
                    t.messages.push(m);
                    let mut turns = 0;
                    'model: loop {
                        if turns >= opts.turn_cap {
                            cap = true;
                            break;
                        }
                        turns += 1;
                        let start = t0.elapsed().as_secs_f64() * 1000.0;
                        let began = Instant::now();
                        let reply = model
                            .complete(&ModelRequest {
                                system: Some(&opts.system_prompt),
                                messages: &t.messages,
                                tools: &ctx.tools,
                            })
                            .await;
                        t.spans.push(Span {
                            name: format!("model:{}", model.id()),
                            start_ms: start,
                            duration_ms: began.elapsed().as_secs_f64() * 1000.0,
                        });
                        t.turns += 1;
                        let reply = match reply {
                            Ok(r) => r,
                            Err(e) => {
                                t.error = Some(e.message);
                                break 'steps;
                            }
                        };
                        t.usage.add(&reply.usage);
                        let mut a = Message::new(Role::Assistant, reply.text.clone());
                        a.tool_calls = reply.tool_calls.clone();
                        a.step_id = Some(step.id.clone());
                        t.messages.push(a);
                        if reply.tool_calls.is_empty() {
                            break;
                        }
                        for c in reply.tool_calls {
                            let route = ctx.routes.get(&c.name).cloned();
                            let tool = route
                                .as_ref()
                                .map(|r| r.2.clone())
                                .unwrap_or_else(|| c.name.clone());
                            let rec = self
                                .call(
                                    ctx,
                                    &step.id,
                                    "model",
                                    c.id.clone(),
                                    route.map(|r| (r.0, r.1)),
                                    &tool,
                                    c.arguments.clone(),
                                    case.elicitation.as_ref(),
                                    &mut t.spans,
                                    t0,
                                )
                                .await;
                            let mut content = rec.result_text();
                            if content.chars().count() > opts.tool_result_chars {
                                content = content
                                    .chars()
                                    .take(opts.tool_result_chars)
                                    .collect::<String>()
                                    + "…[truncated]";
                            }
                            let mut m = Message::new(Role::Tool, content);
                            m.tool_call_id = Some(c.id);
                            m.name = Some(tool);
                            m.is_error = Some(rec.failed());
                            m.step_id = Some(step.id.clone());
                            t.messages.push(m);
                            let lost = rec.transport_failed.then(|| lost_server(&rec));
                            t.calls.push(rec);
                            super::views::after_last_call(&mut views, self, ctx, &mut t).await;
                            if let Some(why) = lost {
                                rec_err = Some(why.clone());
                                t.error = Some(why);
                                break 'model;
                            }
                        }
                    }
                }
                StepKind::ToolCall => {
                    let tool = step.tool_name.clone().unwrap_or_default();
                    let server = match &step.server_name {
                        Some(n) => ctx
                            .servers
                            .iter()
                            .find(|s| s.name.as_deref() == Some(n) || &s.id == n)
                            .map(|s| (s.id.clone(), s.name.clone().unwrap_or_default())),
                        None => ctx
                            .declarations
                            .tools
                            .iter()
                            .find(|d| d.tool["name"] == tool.as_str())
                            .map(|d| (d.server_id.clone(), d.server_name.clone()))
                            .or_else(|| {
                                ctx.servers
                                    .first()
                                    .map(|s| (s.id.clone(), s.name.clone().unwrap_or_default()))
                            }),
                    };
                    if server.is_none() {
                        rec_err = Some(format!(
                            "no server `{}` in the run",
                            step.server_name.clone().unwrap_or_default()
                        ));
                    }
                    let args = Value::Object(step.arguments.clone().unwrap_or_default());
                    let rec = self
                        .call(
                            ctx,
                            &step.id,
                            "step",
                            format!("step_{}", step.id),
                            server,
                            &tool,
                            args,
                            case.elicitation.as_ref(),
                            &mut t.spans,
                            t0,
                        )
                        .await;
                    if rec.transport_failed {
                        let why = lost_server(&rec);
                        rec_err = Some(why.clone());
                        t.error = Some(why);
                    }
                    t.calls.push(rec);
                    super::views::after_last_call(&mut views, self, ctx, &mut t).await;
                }
                StepKind::Interact => {
                    if let Some(v) = &views {
                        let o = v.interact(step, &mut t).await;
                        rec_err = super::views::keep(&mut t, &step.id, o);
                    }
                }
                StepKind::Assert => {
                    let kind = step
                        .assertion
                        .as_ref()
                        .and_then(|a| a.get("type"))
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    if let Some(v) = &views
                        && crate::service::widgets::dom::DOM_TYPES.contains(&kind)
                    {
                        let o = v.check(step).await;
                        super::views::keep(&mut t, &step.id, o);
                    }
                }
            }
            if let Some(v) = &views {
                v.drain(&mut t);
            }
            t.steps.push(StepRecord {
                step_id: step.id.clone(),
                kind: step.kind.as_str().into(),
                messages_end: t.messages.len(),
                calls_end: t.calls.len(),
                turns_end: t.turns,
                usage_end: t.usage,
                turn_cap_reached: cap,
                error: rec_err,
            });
            if t.error.is_some() {
                break;
            }
        }
        if let Some(v) = views {
            v.finish(&mut t).await;
        }
        t.judge = Some(self.judge(case, &t, judge).await);
        t.duration_ms = t0.elapsed().as_secs_f64() * 1000.0;
        t
    }

    async fn judge(
        &self,
        case: &EvalCase,
        t: &Transcript,
        judge: Option<Arc<dyn Model>>,
    ) -> JudgeRecord {
        let skipped = |reason: &str| JudgeRecord {
            status: "skipped".into(),
            reason: reason.into(),
            model: None,
        };
        if case.judge.is_some_and(|j| !j.enabled) {
            return skipped(
                "goal-completion grading is disabled for this case (`judge.enabled: false`)",
            );
        }
        if !case.steps.iter().any(|s| s.kind == StepKind::Prompt) {
            return skipped("the case has no model turn to judge");
        }
        let Some(j) = judge else {
            return skipped("no judge model is configured (EVALDECK_JUDGE_MODEL)");
        };
        if t.error.is_some() {
            return skipped("the iteration did not complete");
        }
        let goal = case
            .expected_output
            .clone()
            .or(case.scenario.clone())
            .unwrap_or_else(|| "answer the user's request".into());
        let mut log = String::new();
        for m in &t.messages {
            let who = match m.role {
                Role::User => "user",
                Role::Assistant => "assistant",
                Role::Tool => "tool",
                Role::System => "system",
            };
            let calls = m
                .tool_calls
                .iter()
                .map(|c| format!(" [calls {} {}]", c.name, c.arguments))
                .collect::<String>();
            log.push_str(&format!(
                "{who}: {}{calls}\n",
                m.content.chars().take(2000).collect::<String>()
            ));
        }
        let msgs = vec![Message::new(
            Role::User,
            format!(
                "Goal: {goal}\n\nTranscript:\n{log}\nDid the assistant accomplish the goal? Answer PASS or FAIL on the first line, then one sentence why."
            ),
        )];
        let sys = "You grade whether an AI assistant accomplished a user's goal using tools. Be strict and brief.";
        match j
            .complete(&ModelRequest {
                system: Some(sys),
                messages: &msgs,
                tools: &[],
            })
            .await
        {
            Ok(r) => {
                let first = r
                    .text
                    .trim()
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_uppercase();
                let status = if first.contains("PASS") {
                    "passed"
                } else if first.contains("FAIL") {
                    "failed"
                } else {
                    "skipped"
                };
                JudgeRecord {
                    status: status.into(),
                    reason: r.text.trim().chars().take(1000).collect(),
                    model: Some(j.id().into()),
                }
            }
            Err(e) => JudgeRecord {
                status: "skipped".into(),
                reason: format!("the judge model failed: {}", e.message),
                model: Some(j.id().into()),
            },
        }
    }
}

/// An MCP error as one line of a call record: code, message, and what the server left
/// behind (its exit status and last stderr line), so a trace says why the server was lost.
fn describe(e: &Error) -> String {
    let mut s = format!("{}: {}", e.code, e.message);
    if let Some(d) = &e.details {
        if let Some(status) = d["exitStatus"].as_str()
            && !s.contains(status)
        {
            s.push_str(&format!(" ({status})"));
        }
        if let Some(last) = d["stderrTail"]
            .as_array()
            .and_then(|t| t.last())
            .and_then(Value::as_str)
        {
            s.push_str(&format!("; last stderr line: {last}"));
        }
    }
    s
}

/// Why an iteration ended as an error when its server stopped answering.
fn lost_server(rec: &CallRecord) -> String {
    format!(
        "the server stopped answering during `{}`, so this iteration has no verdict: {}",
        rec.tool_name,
        rec.error.as_deref().unwrap_or("no answer")
    )
}

fn context(
    who: Principal,
    project_id: String,
    declarations: Declarations,
    servers: Vec<SuiteServerRef>,
    roots: Option<Vec<Root>>,
) -> Ctx {
    let mut count: HashMap<String, usize> = HashMap::new();
    for d in &declarations.tools {
        *count
            .entry(d.tool["name"].as_str().unwrap_or_default().to_string())
            .or_default() += 1;
    }
    let mut tools = Vec::new();
    let mut routes = HashMap::new();
    for d in &declarations.tools {
        // MCP Apps: a tool only views may call is not offered to the model.
        if !crate::service::widgets::visible_to(&d.tool, "model") {
            continue;
        }
        let name = d.tool["name"].as_str().unwrap_or_default().to_string();
        let visible = if count[&name] > 1 {
            format!("{}__{name}", d.server_name)
        } else {
            name.clone()
        };
        if routes.contains_key(&visible) {
            continue;
        }
        routes.insert(
            visible.clone(),
            (d.server_id.clone(), d.server_name.clone(), name),
        );
        tools.push(ToolSpec {
            name: visible,
            description: d.tool["description"].as_str().map(str::to_string),
            input_schema: d
                .tool
                .get("inputSchema")
                .cloned()
                .unwrap_or_else(|| json!({"type": "object"})),
        });
    }
    Ctx {
        who,
        project_id,
        tools,
        routes,
        declarations,
        servers,
        roots,
    }
}

/// Writes a grade into the iteration's wire object.
pub(super) fn apply_grade(info: &mut EvalIteration, t: &Transcript, g: &Grade) {
    info.status = if t.error.is_some() {
        "failed"
    } else {
        "completed"
    }
    .into();
    // An iteration that could not be carried out (its server stopped answering, the model
    // failed, no credits) has no verdict, whatever its assertions say.
    info.result = Some(
        if t.error.is_some() {
            "error"
        } else if g.passed {
            "passed"
        } else {
            "failed"
        }
        .into(),
    );
    info.error = t.error.clone();
    info.duration_ms = Some(t.duration_ms);
    info.tokens_used = Some(t.usage.total_tokens);
    info.usage = Some(t.usage);
    info.actual_tool_calls = t
        .calls
        .iter()
        .map(|c| ToolCallSummary {
            tool_name: c.tool_name.clone(),
            arguments: Some(c.arguments.clone()),
            server_name: c.server_name.clone(),
            is_error: Some(c.failed()),
            latency_ms: Some(c.latency_ms),
        })
        .collect();
    info.expected_tool_calls = g
        .expected_tool_calls
        .iter()
        .map(|e| ToolCallSummary {
            tool_name: e["toolName"].as_str().unwrap_or_default().into(),
            arguments: e.get("arguments").cloned(),
            server_name: None,
            is_error: None,
            latency_ms: None,
        })
        .collect();
    info.scores = Some(json!({
        "assertions": g.counts,
        "requiredFailed": g.required_failed,
        "judge": t.judge.as_ref().map(|j| j.status.clone()),
    }));
}

/// The run summary and whether the run passed (see the module docs on trials).
pub(super) fn summarize(body: &RunBody, its: &[StoredIteration]) -> (RunSummary, bool) {
    let mut s = RunSummary {
        total: its.len() as i64,
        ..Default::default()
    };
    let mut tokens = Usage::default();
    // Per case and model: trials with a verdict, trials passed, a required assertion
    // failed, trials that ended as an error.
    let mut groups: BTreeMap<(String, String), (i64, i64, bool, i64)> = BTreeMap::new();
    let mut durations = Vec::new();
    for it in its {
        match it.result.as_deref() {
            Some("passed") => s.passed += 1,
            Some("failed") => s.failed += 1,
            Some("error") => s.errored += 1,
            _ if it.status == "cancelled" => s.cancelled += 1,
            _ => s.pending += 1,
        }
        if let Ok(info) = serde_json::from_value::<EvalIteration>(it.body.clone()) {
            if let Some(u) = info.usage {
                tokens.add(&u);
            }
            if let Some(d) = info.duration_ms {
                durations.push(d);
            }
            if it.result.is_some() {
                let required = it
                    .grade
                    .as_ref()
                    .is_some_and(|g| g["requiredFailed"] == true);
                let e = groups
                    .entry((it.case_id.clone(), info.model.unwrap_or_default()))
                    .or_insert((0, 0, false, 0));
                match it.result.as_deref() {
                    Some("error") => e.3 += 1,
                    Some("passed") => {
                        e.0 += 1;
                        e.1 += 1;
                    }
                    _ => e.0 += 1,
                }
                e.2 |= required;
            }
        }
    }
    let finished = s.passed + s.failed;
    s.pass_rate = (finished > 0).then(|| s.passed as f64 / finished as f64);
    s.tokens = tokens;
    let total: f64 = durations.iter().sum();
    s.latency_ms = Latency {
        total,
        mean: (!durations.is_empty()).then(|| total / durations.len() as f64),
    };
    let mut cases = CaseCounts::default();
    for ((case_id, _), (n, p, required, errored)) in &groups {
        let threshold = body
            .case(case_id)
            .and_then(|c| c.pass_threshold)
            .unwrap_or(body.pass_threshold);
        let ok = !required && *n > 0 && (*p as f64 / *n as f64) + 1e-9 >= threshold;
        cases.total += 1;
        if *errored > 0 {
            // A trial without a verdict leaves the case without one.
            cases.errored += 1;
        } else if ok {
            cases.passed += 1;
        } else {
            cases.failed += 1;
        }
    }
    s.cases = cases;
    let rate_ok = match body.pass_criteria.and_then(|p| p.minimum_pass_rate) {
        Some(min) => s.pass_rate.unwrap_or(0.0) * 100.0 + 1e-9 >= min,
        None => true,
    };
    let passed = cases.total > 0 && cases.failed == 0 && cases.errored == 0 && rate_ok;
    (s, passed)
}
