//! Tool calls that become tasks, followed to their end so the caller gets the tool's result
//! as if the call had answered at once.
//!
//! - `2026-07-28` (the `io.modelcontextprotocol/tasks` extension, which evaldeck declares):
//!   the server decides; a `tools/call` answered with `resultType: "task"` is polled with
//!   `tasks/get` at the server's interval, its `input_required` rounds are answered with
//!   `tasks/update`, and a caller that gives up sends `tasks/cancel`.
//! - `2025-11-25`: the caller asks (`task` on the call, as server-everything's
//!   task-only tools need); the `{task}` answer is polled with `tasks/get` and the result
//!   fetched with `tasks/result`, which also carries the server's elicitations.
//!
//! Each poll's status message reaches the caller as progress.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ClientRequest, CustomRequest, Request};
use serde_json::{Value, json};

use super::client::CallContext;
use super::connect::Session;
use super::{McpPool, Target, errors};
use crate::spec::primitives::{TaskCancelled, TaskItem};
use crate::spec::{Code, Error, Result};

/// Bounds of the poll interval, whatever the server asks.
const MIN_POLL: Duration = Duration::from_millis(50);
const MAX_POLL: Duration = Duration::from_secs(5);

fn poll_interval(task: &Value) -> Duration {
    task.get("pollIntervalMs")
        .or_else(|| task.get("pollInterval"))
        .and_then(Value::as_u64)
        .map(Duration::from_millis)
        .unwrap_or(Duration::from_millis(500))
        .clamp(MIN_POLL, MAX_POLL)
}

/// `tasks/cancel` as the era has it: the extension's typed request, or the handshake era's.
fn cancel_request(modern: bool, id: &str) -> ClientRequest {
    if modern {
        ClientRequest::CancelTaskRequest(Request::new(rmcp::model::CancelTaskParams::new(id)))
    } else {
        ClientRequest::CustomRequest(CustomRequest::new(
            "tasks/cancel",
            Some(json!({"taskId": id})),
        ))
    }
}

/// Tells the server a task is no longer wanted when its follower goes away early.
struct CancelTask {
    session: Option<(Arc<Session>, String, bool)>,
}

impl Drop for CancelTask {
    fn drop(&mut self) {
        let Some((s, id, modern)) = self.session.take() else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        rt.spawn(async move {
            let _ = s.peer.send_request(cancel_request(modern, &id)).await;
        });
    }
}

impl McpPool {
    /// Follows the task `created` (the server's answer to a `tools/call`) until it ends;
    /// returns the call's result as MCP JSON.
    pub(crate) async fn follow_task(
        &self,
        target: &Target,
        s: &Arc<Session>,
        tool: &str,
        created: Value,
        ctx: &CallContext,
    ) -> Result<Value> {
        let id = created
            .get("task")
            .unwrap_or(&created)
            .get("taskId")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string();
        let r = self.follow(target, s, tool, created, ctx).await;
        self.note_task(&target.server_id, &id, tool, None);
        r
    }

    /// Records (or, with `task: None`, forgets) a task being followed.
    fn note_task(&self, server: &str, id: &str, tool: &str, task: Option<&Value>) {
        let mut all = self
            .inner
            .followed
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let list = all.entry(server.to_string()).or_default();
        list.retain(|t| t.task_id != id);
        if let Some(t) = task {
            list.push(TaskItem {
                task_id: id.to_string(),
                status: t["status"].as_str().unwrap_or("working").to_string(),
                status_message: t["statusMessage"].as_str().map(str::to_string),
                tool_name: Some(tool.to_string()),
                source: "followed".into(),
            });
        }
    }

    /// The tasks of a server: those evaldeck follows, and the server's own list where it
    /// has one (`tasks/list`, handshake era).
    pub async fn list_tasks(&self, target: &Target) -> Result<Vec<TaskItem>> {
        let mut out = self
            .inner
            .followed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&target.server_id)
            .cloned()
            .unwrap_or_default();
        let s = self.session(target).await?;
        if !s.modern() {
            let listed = self
                .request(
                    target,
                    &s,
                    "tasks/list",
                    ClientRequest::CustomRequest(CustomRequest::new("tasks/list", Some(json!({})))),
                    &CallContext::default(),
                )
                .await;
            if let Ok(r) = listed {
                let v = serde_json::to_value(r).unwrap_or_default();
                for t in v["tasks"].as_array().into_iter().flatten() {
                    let id = t["taskId"].as_str().unwrap_or_default().to_string();
                    if out.iter().any(|o| o.task_id == id) {
                        continue;
                    }
                    out.push(TaskItem {
                        task_id: id,
                        status: t["status"].as_str().unwrap_or_default().to_string(),
                        status_message: t["statusMessage"].as_str().map(str::to_string),
                        tool_name: None,
                        source: "listed".into(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// Asks the server to cancel a task (`tasks/cancel`; cooperative).
    pub async fn cancel_task(&self, target: &Target, id: &str) -> Result<TaskCancelled> {
        let s = self.session(target).await?;
        let req = cancel_request(s.modern(), id);
        self.request(target, &s, "tasks/cancel", req, &CallContext::default())
            .await?;
        Ok(TaskCancelled {
            task_id: id.to_string(),
            acknowledged: true,
        })
    }

    async fn follow(
        &self,
        target: &Target,
        s: &Arc<Session>,
        tool: &str,
        created: Value,
        ctx: &CallContext,
    ) -> Result<Value> {
        let modern = s.modern();
        // Legacy answers `{task: {...}}`; the extension answers the task flat.
        let mut task = created.get("task").cloned().unwrap_or(created);
        let id = task["taskId"]
            .as_str()
            .ok_or_else(|| {
                errors::unreachable("tools/call: the server answered with a task without an id")
                    .with_reason(errors::REASON_MCP_ERROR)
            })?
            .to_string();
        s.side.traffic.note(
            Some("tools/call"),
            format!("the call became task {id}; following it"),
        );
        let mut guard = CancelTask {
            session: Some((s.clone(), id.clone(), modern)),
        };
        let mut answered = BTreeSet::new();
        loop {
            self.note_task(&target.server_id, &id, tool, Some(&task));
            if let (Some(tx), Some(msg)) = (&ctx.progress, task["statusMessage"].as_str()) {
                let _ = tx.send((0.0, None, Some(msg.to_string())));
            }
            match task["status"].as_str().unwrap_or("working") {
                "completed" if modern => {
                    guard.session = None;
                    return Ok(task["result"].clone());
                }
                "completed" | "input_required" if !modern => {
                    // `tasks/result` blocks until the end, carrying the server's
                    // requests meanwhile; it answers the original call's result.
                    let r = self
                        .request(
                            target,
                            s,
                            "tasks/result",
                            ClientRequest::CustomRequest(CustomRequest::new(
                                "tasks/result",
                                Some(json!({"taskId": id})),
                            )),
                            ctx,
                        )
                        .await?;
                    guard.session = None;
                    return serde_json::to_value(r).map_err(|e| Error::internal(e.to_string()));
                }
                "failed" => {
                    guard.session = None;
                    let e = &task["error"];
                    return Err(errors::unreachable(format!(
                        "tools/call: task {id} failed: {}",
                        e["message"]
                            .as_str()
                            .or(task["statusMessage"].as_str())
                            .unwrap_or("no reason given")
                    ))
                    .with_reason(errors::REASON_MCP_ERROR));
                }
                "cancelled" => {
                    guard.session = None;
                    return Err(Error::new(
                        Code::Conflict,
                        format!("tools/call: task {id} was cancelled"),
                    )
                    .with_reason(super::REASON_CALL_CANCELLED));
                }
                "input_required" => {
                    let fresh: rmcp::model::InputRequests = task
                        .get("inputRequests")
                        .cloned()
                        .and_then(|v| serde_json::from_value(v).ok())
                        .unwrap_or_default();
                    let fresh: rmcp::model::InputRequests = fresh
                        .into_iter()
                        .filter(|(k, _)| !answered.contains(k))
                        .collect();
                    if !fresh.is_empty() {
                        answered.extend(fresh.keys().cloned());
                        let (responses, _) = s
                            .side
                            .answer_input(
                                rmcp::model::InputRequiredResult::from_input_requests(fresh),
                                ctx,
                            )
                            .await?;
                        let params = rmcp::model::UpdateTaskParams::new(id.clone(), responses);
                        self.request(
                            target,
                            s,
                            "tasks/update",
                            ClientRequest::UpdateTaskRequest(Request::new(params)),
                            ctx,
                        )
                        .await?;
                    }
                }
                _ => {}
            }
            tokio::time::sleep(poll_interval(&task)).await;
            let req = if modern {
                ClientRequest::GetTaskRequest(Request::new(rmcp::model::GetTaskParams::new(
                    id.clone(),
                )))
            } else {
                ClientRequest::CustomRequest(CustomRequest::new(
                    "tasks/get",
                    Some(json!({"taskId": id})),
                ))
            };
            let r = self.request(target, s, "tasks/get", req, ctx).await?;
            task = serde_json::to_value(r).map_err(|e| Error::internal(e.to_string()))?;
        }
    }
}
