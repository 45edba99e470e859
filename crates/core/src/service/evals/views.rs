//! The runner's side of MCP Apps widgets: a view opened for each call of a tool that names a
//! UI resource, `interact` steps and DOM widget assertions taken on it, the view's own tool
//! calls recorded beside the iteration's, and the records kept in the transcript.
//!
//! Views are opened only for cases that use them (an `interact` step or a widget assertion),
//! so suites without widgets never start a browser.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::assertions::{Outcome, Status};
use super::grade;
use super::transcript::{CallRecord, Declarations, LiveCheck, Transcript};
use crate::service::widgets::dom::{self, Action};
use crate::service::widgets::session::{OnCall, ProxiedCall, SessionHost};
use crate::service::widgets::{self, View, ViewRecord, ViewSource};
use crate::service::{Principal, Service};
use crate::spec::case::{EvalCase, EvalTestStep, StepKind};
use crate::spec::client_features::Root;

/// How long after an action the view gets to finish what it started (its tool calls):
/// quiet for this long, with nothing in flight.
const SETTLE_QUIET: Duration = Duration::from_millis(60);
/// Before the final screenshot, when nothing was asked of the view since it rendered.
const FINAL_QUIET: Duration = Duration::from_millis(25);
const SETTLE_LIMIT: Duration = Duration::from_secs(10);

/// Whether `case` needs a widget runtime.
pub fn needs(case: &EvalCase, standard: &[String]) -> bool {
    case.steps.iter().any(|s| s.kind == StepKind::Interact)
        || grade::resolve(case, standard)
            .iter()
            .any(|r| dom::is_widget_type(r.assertion.kind().unwrap_or_default()))
}

fn outcome(status: Status, actual: Value, message: impl Into<String>) -> Outcome {
    Outcome {
        status,
        expected: Value::Null,
        actual,
        message: message.into(),
    }
}

/// The views of one iteration.
pub(super) struct Views {
    open: Vec<View>,
    /// Calls the views made, waiting to join the transcript.
    calls: Arc<Mutex<Vec<CallRecord>>>,
    /// The step running now (the views' calls are filed under it).
    step: Arc<Mutex<String>>,
}

impl Views {
    pub fn new() -> Views {
        Views {
            open: Vec::new(),
            calls: Arc::default(),
            step: Arc::default(),
        }
    }

    pub fn enter(&self, step_id: &str) {
        *self.step.lock().unwrap_or_else(|p| p.into_inner()) = step_id.to_string();
    }

    /// Opens the view of the transcript's call `index`, when its tool names a UI resource.
    pub async fn after_call(
        &mut self,
        svc: &Service,
        who: &Principal,
        project_id: &str,
        declarations: &Declarations,
        roots: Option<&[Root]>,
        t: &mut Transcript,
        index: usize,
    ) {
        let rec = &t.calls[index];
        let Some(server_id) = rec.server_id.clone() else {
            return;
        };
        let Some(tool) = declarations
            .tools
            .iter()
            .find(|d| d.server_id == server_id && d.tool["name"] == rec.tool_name.as_str())
            .map(|d| d.tool.clone())
        else {
            return;
        };
        let Some(uri) = widgets::resource_uri(&tool).map(str::to_string) else {
            return;
        };
        let mut failed = ViewRecord {
            tool_name: rec.tool_name.clone(),
            resource_uri: uri.clone(),
            call_id: Some(rec.id.clone()),
            calls_before: index,
            ..Default::default()
        };
        if rec.transport_failed {
            return;
        }
        let resource = svc
            .with_server(who, project_id, &server_id, |target| {
                let uri = uri.clone();
                let target = target.with_roots(roots);
                async move { svc.mcp().read_resource(&target, &uri).await }
            })
            .await;
        let resource = match resource {
            Ok(r) => r,
            Err(e) => {
                failed.error = Some(format!(
                    "cannot read the UI resource `{uri}`: {}",
                    e.message
                ));
                t.widgets.push(failed);
                return;
            }
        };
        let sink = self.calls.clone();
        let step = self.step.clone();
        let server_name = declarations
            .tools
            .iter()
            .find(|d| d.server_id == server_id)
            .map(|d| d.server_name.clone())
            .unwrap_or_default();
        let sid = server_id.clone();
        // Each call a view makes joins the transcript under the step it was made in.
        let on_call: OnCall = Arc::new(move |c: ProxiedCall| {
            let step_id = step.lock().unwrap_or_else(|p| p.into_inner()).clone();
            let mut calls = sink.lock().unwrap_or_else(|p| p.into_inner());
            let id = format!("view_{}", calls.len() + 1);
            calls.push(CallRecord {
                id,
                step_id,
                origin: "widget".into(),
                tool_name: c.name,
                server_id: Some(sid.clone()),
                server_name: Some(server_name.clone()),
                arguments: c.arguments,
                is_error: c.answer.as_ref().is_ok_and(|v| v["isError"] == true),
                result_bytes: c.answer.as_ref().map_or(0, |v| v.to_string().len() as u64),
                transport_failed: c
                    .answer
                    .as_ref()
                    .is_err_and(crate::service::mcp::errors::is_transport_failure),
                error: c.answer.as_ref().err().map(|e| e.message.clone()),
                result: c.answer.ok(),
                events: vec![],
                latency_ms: c.latency_ms,
            });
        });
        let host = Arc::new(SessionHost {
            svc: svc.clone(),
            who: who.clone(),
            project_id: project_id.to_string(),
            server_id: server_id.clone(),
            roots: roots.map(<[Root]>::to_vec),
            tools: declarations
                .tools
                .iter()
                .filter(|d| d.server_id == server_id)
                .map(|d| d.tool.clone())
                .collect(),
            on_call: Some(on_call),
        });
        let source = ViewSource {
            tool,
            resource,
            arguments: rec.arguments.clone(),
            result: (rec.error.is_none()).then(|| rec.result.clone()).flatten(),
        };
        let began = Instant::now();
        match svc.widgets().open(source, host).await {
            Ok(view) => {
                view.label(&rec.id, index);
                t.spans.push(super::transcript::Span {
                    name: format!("widget:{}", rec.tool_name),
                    start_ms: 0.0,
                    duration_ms: began.elapsed().as_secs_f64() * 1000.0,
                });
                self.open.push(view);
            }
            Err(e) => {
                failed.error = Some(e);
                t.widgets.push(failed);
            }
        }
    }

    /// The latest view of `tool` (of any tool when `None`).
    fn find(&self, tool: Option<&str>) -> Option<&View> {
        self.open
            .iter()
            .rev()
            .find(|v| tool.is_none_or(|t| v.is_of(t)))
    }

    fn missing(tool: Option<&str>) -> Outcome {
        outcome(
            Status::Failed,
            json!({"views": 0}),
            match tool {
                Some(t) => format!(
                    "no view of `{t}` is open: call the tool (a `toolCall` step, or a prompt that makes the model call it) before this step, and check that it declares `_meta.ui.resourceUri`"
                ),
                None => "no widget view is open: call a tool with a UI before this step".into(),
            },
        )
    }

    /// Performs an `interact` step and lets the view finish what it started.
    pub async fn interact(&self, step: &EvalTestStep, t: &mut Transcript) -> Outcome {
        let tool = step.tool_name.as_deref().filter(|s| !s.is_empty());
        let o = match self.find(tool) {
            None => Self::missing(tool),
            Some(view) => {
                match Action::parse(&step.action.clone().map(Value::Object).unwrap_or_default()) {
                    Err(e) => outcome(
                        Status::Error,
                        Value::Null,
                        format!("the action of step `{}`: {e}", step.id),
                    ),
                    Ok((action, wait)) => match view.act(&action, wait).await {
                        Err(e) => outcome(Status::Error, Value::Null, e),
                        Ok(Err(e)) => outcome(Status::Failed, Value::Null, e),
                        Ok(Ok(done)) => {
                            view.settle(SETTLE_QUIET, SETTLE_LIMIT).await;
                            outcome(Status::Passed, json!({"done": done}), done)
                        }
                    },
                }
            }
        };
        self.drain(t);
        o
    }

    /// Takes a DOM widget assertion on the live view.
    pub async fn check(&self, step: &EvalTestStep) -> Outcome {
        let a = step
            .assertion
            .clone()
            .map(Value::Object)
            .unwrap_or_default();
        let tool = a["toolName"].as_str().filter(|s| !s.is_empty());
        let Some(view) = self.find(tool) else {
            return Self::missing(tool);
        };
        match view.check(&a).await {
            Ok(seen) => outcome(
                if seen.passed {
                    Status::Passed
                } else {
                    Status::Failed
                },
                seen.actual,
                seen.message,
            ),
            Err(e) => outcome(Status::Error, Value::Null, e),
        }
    }

    /// Moves the views' calls into the transcript.
    pub fn drain(&self, t: &mut Transcript) {
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        t.calls.append(&mut calls);
    }

    /// Screenshots and closes every view, keeping their records.
    pub async fn finish(self, t: &mut Transcript) {
        for view in self.open {
            view.settle(FINAL_QUIET, SETTLE_LIMIT).await;
            let _ = view.screenshot().await;
            t.widgets.push(view.close().await);
        }
        let mut calls = self.calls.lock().unwrap_or_else(|p| p.into_inner());
        t.calls.append(&mut calls);
        t.widgets.sort_by_key(|v| v.calls_before);
    }
}

/// Opens the view of the transcript's last call, when the case uses views.
pub(super) async fn after_last_call(
    views: &mut Option<Views>,
    svc: &Service,
    ctx: &super::runner::Ctx,
    t: &mut Transcript,
) {
    if let Some(v) = views.as_mut()
        && let Some(i) = t.calls.len().checked_sub(1)
    {
        v.after_call(
            svc,
            &ctx.who,
            &ctx.project_id,
            &ctx.declarations,
            ctx.roots.as_deref(),
            t,
            i,
        )
        .await;
    }
}

/// Records a verdict taken on the live view.
pub(super) fn keep(t: &mut Transcript, step_id: &str, outcome: Outcome) -> Option<String> {
    let err = (outcome.status != Status::Passed).then(|| outcome.message.clone());
    t.live.push(LiveCheck {
        step_id: step_id.to_string(),
        outcome,
    });
    err
}
