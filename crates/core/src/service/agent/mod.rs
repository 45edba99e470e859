//! The headless agent turn (`POST /projects/{p}/agent`): one assistant turn over a message
//! history, answered synchronously by a model pinned server-side, with the service's own
//! operations as its tools ([`tools`]).
//!
//! Decisions where the spec is silent (also in the README):
//! - **Model.** [`AgentConfig::model`] (`EVALDECK_AGENT_MODEL`, a `<provider>/<name>` id of
//!   the model catalog that runs on the operator's key), else the first hosted model of a
//!   configured provider (OpenAI, Anthropic, Ollama). With none, or one that cannot run, the
//!   turn is 422 `FEATURE_NOT_SUPPORTED` with `details.reason` `AGENT_MODEL_NOT_CONFIGURED`
//!   and a message saying how to configure one. `builtin/baseline` runs only when named
//!   explicitly (it is a heuristic, not a conversational model).
//! - **Loop.** Model call → the tools it asked for, in order → their results back, until a
//!   reply without tool calls or [`AgentConfig::max_steps`] model calls (then `stopReason`
//!   `stepLimit`; the last step's tool calls are still carried out and reported). A tool's
//!   error is handed back to the model as `{code, message, details?}` and recorded in
//!   `toolCalls` with `ok: false`; it never fails the turn. A model's failure does (502).
//! - **Limits.** Body limits in [`crate::spec::agent`]; at most
//!   [`AgentConfig::max_concurrent_per_org`] turns at once per organization in this process
//!   (429 `RATE_LIMITED`, reason `CONCURRENT_AGENT_LIMIT`, `Retry-After`); the whole turn
//!   within [`AgentConfig::timeout`] (504 `TIMEOUT`).
//! - **Errors after the turn started** (model failure, timeout) carry
//!   `details.createdResources` (possibly empty), `details.toolCalls` and `details.usage`,
//!   so a client sees what was already done before retrying.
//! - **Links.** `createdResources[].url` is the resource's API path
//!   (`/api/v1/projects/{p}/eval-suites/{id}`), prefixed with the service's public origin
//!   when it has one (`serve --public-url`).
//! - **Billing.** `credits_per_1k_tokens` (default 1) per started thousand tokens of the
//!   whole turn, charged to the organization's ledger (kind `agent`, the project in the
//!   note) whether the turn succeeded or not; a balance that cannot pay for one thousand
//!   tokens refuses the turn up front (403 `FORBIDDEN`, reason `INSUFFICIENT_CREDITS`); a
//!   turn costing more than what is left empties the balance.
//! - **Not idempotent:** the idempotency middleware never records or replays this route.

mod tools;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use super::models::{Message, Model, ModelRequest, ProviderKind, Role};
use super::store::now_ms;
use super::store::projects::ProjectRole;
use super::{Principal, Service};
use crate::spec::agent::{
    AgentLimits, AgentRole, AgentToolCall, AgentToolError, AgentTurnRequest, AgentTurnResponse,
    AgentUsage, CreatedResource, StopReason,
};
use crate::spec::{Code, Error, Result};

/// The reason of the 422 when no model can answer.
pub const MODEL_NOT_CONFIGURED: &str = "AGENT_MODEL_NOT_CONFIGURED";
/// The reason of the 429 beyond the per-organization cap.
pub const CONCURRENT_LIMIT: &str = "CONCURRENT_AGENT_LIMIT";

/// Settings of agent turns (in [`super::Config`]); every bound and timer is here.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The pinned model id; `None` takes the first hosted model of a configured provider.
    pub model: Option<String>,
    pub limits: AgentLimits,
    /// Model calls per turn.
    pub max_steps: u32,
    /// Wall time of a whole turn.
    pub timeout: Duration,
    /// Turns running at once per organization.
    pub max_concurrent_per_org: usize,
    /// `Retry-After` on `CONCURRENT_AGENT_LIMIT`.
    pub retry_after_secs: u64,
    /// Credits per started thousand tokens (0 makes turns free).
    pub credits_per_1k_tokens: i64,
    /// Characters of a tool result handed back to the model.
    pub tool_result_chars: usize,
}

impl Default for AgentConfig {
    fn default() -> Self {
        AgentConfig {
            model: std::env::var("EVALDECK_AGENT_MODEL")
                .ok()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty()),
            limits: AgentLimits::default(),
            max_steps: 8,
            timeout: Duration::from_secs(90),
            max_concurrent_per_org: 4,
            retry_after_secs: 5,
            credits_per_1k_tokens: 1,
            tool_result_chars: 16_000,
        }
    }
}

/// Turns running in this process, per organization.
#[derive(Default)]
pub struct Turns {
    active: Mutex<HashMap<String, usize>>,
}

/// One organization's running turn; frees its place when dropped (also when the request
/// is abandoned mid-turn).
struct Slot<'a> {
    turns: &'a Turns,
    org: String,
}

impl Turns {
    fn try_acquire(&self, org: &str, cap: usize) -> Option<Slot<'_>> {
        let mut m = self.active.lock().unwrap_or_else(|p| p.into_inner());
        let n = m.entry(org.to_string()).or_insert(0);
        if *n >= cap {
            return None;
        }
        *n += 1;
        Some(Slot {
            turns: self,
            org: org.to_string(),
        })
    }

    /// Turns of `org` running now.
    pub fn active(&self, org: &str) -> usize {
        let m = self.active.lock().unwrap_or_else(|p| p.into_inner());
        m.get(org).copied().unwrap_or(0)
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut m = self.turns.active.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(n) = m.get_mut(&self.org) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                m.remove(&self.org);
            }
        }
    }
}

/// What a turn has done so far; read again after a timeout cut it short.
#[derive(Default)]
struct Progress {
    tool_calls: Vec<AgentToolCall>,
    created: Vec<CreatedResource>,
    usage: AgentUsage,
    steps: u32,
}

impl Progress {
    /// Adds what was done to an error's details, so the caller can check before retrying.
    fn annotate(&self, mut e: Error) -> Error {
        let mut d = e.details.take().unwrap_or_else(|| json!({}));
        if !d.is_object() {
            d = json!({ "cause": d });
        }
        d["createdResources"] = json!(self.created);
        d["toolCalls"] = json!(self.tool_calls);
        d["usage"] = json!(self.usage);
        e.details = Some(d);
        e
    }
}

fn system_prompt(project_id: &str) -> String {
    format!(
        "You are evaldeck's assistant for the project {project_id}. \
         evaldeck tests MCP servers: projects hold saved servers, eval suites of test cases, and eval runs with per-iteration results. \
         Use the tools to read servers, suites and runs, and to create eval suites when the user asks for one. \
         You cannot start eval runs: there is no tool for it. When a run is wanted, say so and tell the user to start it \
         (`evaldeck run --suite NAME`, or POST /projects/{{projectId}}/eval-runs). \
         Never invent ids: read them with the tools. When a tool returns an error, fix the arguments or explain the problem. \
         Answer concisely."
    )
}

fn truncate(s: String, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}… [truncated at {max} characters]", &s[..i]),
        None => s,
    }
}

impl Service {
    /// The turns running in this process.
    pub fn agent_turns(&self) -> &Turns {
        &self.inner.agents
    }

    /// The model that answers agent turns, or the 422 saying how to configure one.
    fn agent_model(&self) -> Result<Arc<dyn Model>> {
        let catalog = &self.config().models;
        let how = "set EVALDECK_AGENT_MODEL to a `<provider>/<name>` model whose provider has a key (e.g. EVALDECK_OPENAI_KEY, EVALDECK_ANTHROPIC_KEY) or is an open local server (EVALDECK_OLLAMA_BASE_URL)";
        let id = match &self.config().agent.model {
            Some(m) => m.clone(),
            None => catalog
                .providers
                .iter()
                .filter(|p| p.kind != ProviderKind::Builtin)
                .flat_map(|p| {
                    p.hosted
                        .iter()
                        .filter(|_| p.api_key.is_some() || p.open)
                        .map(move |n| format!("{}/{n}", p.name))
                })
                .next()
                .ok_or_else(|| {
                    Error::new(
                        Code::FeatureNotSupported,
                        format!("no model is configured for the agent: {how}"),
                    )
                    .with_reason(MODEL_NOT_CONFIGURED)
                })?,
        };
        let keys = BTreeMap::new();
        let choice = catalog
            .check("/model", &id, None, &keys)
            .and_then(|c| {
                if c.hosted {
                    Ok(c)
                } else {
                    Err(Error::invalid(
                        "/model",
                        "model",
                        format!("`{id}` is not a hosted model"),
                    ))
                }
            })
            .map_err(|e| {
                Error::new(
                    Code::FeatureNotSupported,
                    format!(
                        "the agent's model `{id}` cannot run here ({}): {how}",
                        e.violations()
                            .first()
                            .map(|v| v.message.clone())
                            .unwrap_or(e.message)
                    ),
                )
                .with_details(json!({
                    "reason": MODEL_NOT_CONFIGURED,
                    "model": id,
                    "hostedModels": catalog.hosted_ids(None),
                }))
            })?;
        catalog.build(self.http(), &choice, &keys)
    }

    /// One agent turn: see the module docs for the rules.
    pub async fn agent_turn(
        &self,
        who: &Principal,
        project_id: &str,
        req: &AgentTurnRequest,
    ) -> Result<AgentTurnResponse> {
        let cfg = &self.config().agent;
        req.validate(&cfg.limits)?;
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let model = self.agent_model()?;
        self.require_credits(&who.org_id, cfg.credits_per_1k_tokens, "an agent turn")?;
        let _slot = self
            .agent_turns()
            .try_acquire(&who.org_id, cfg.max_concurrent_per_org)
            .ok_or_else(|| {
                let mut e = Error::rate_limited(cfg.retry_after_secs, Some(CONCURRENT_LIMIT));
                e.message = format!(
                    "the organization already has {} agent turns running, the most allowed at once; retry when one finishes",
                    cfg.max_concurrent_per_org
                );
                e
            })?;
        let session = self.agent_session(who, project_id, req)?;
        let mut progress = Progress::default();
        let outcome = tokio::time::timeout(
            cfg.timeout,
            self.agent_loop(who, project_id, req, model.as_ref(), &mut progress),
        )
        .await;
        let charged = self.bill_agent_turn(who, project_id, &progress);
        if let Err(e) = self.store().touch_chat_session(&session, now_ms()) {
            tracing::warn!(%session, error = %e.message, "could not record the chat session's activity");
        }
        match outcome {
            Ok(Ok((reply, stop))) => Ok(AgentTurnResponse {
                reply,
                tool_calls: progress.tool_calls,
                created_resources: progress.created,
                usage: progress.usage,
                model: Some(model.id().to_string()),
                steps: progress.steps,
                stop_reason: Some(stop),
                credits_charged: charged,
                session_id: Some(session),
            }),
            Ok(Err(e)) => Err(progress.annotate(e)),
            Err(_) => Err(progress.annotate(Error::new(
                Code::Timeout,
                format!(
                    "the agent turn did not finish within {} ms; check details.createdResources before retrying",
                    cfg.timeout.as_millis()
                ),
            ))),
        }
    }

    /// The chat session the turn belongs to: the one named (it must be in this project),
    /// else a new one titled after the conversation's first message.
    fn agent_session(
        &self,
        who: &Principal,
        project_id: &str,
        req: &AgentTurnRequest,
    ) -> Result<String> {
        if let Some(id) = &req.session_id {
            return match self.store().chat_session_project(id)? {
                Some(p) if p == project_id => Ok(id.clone()),
                _ => Err(Error::not_found("chat session", id)),
            };
        }
        let first = req
            .messages
            .first()
            .map(|m| m.content.as_str())
            .unwrap_or("");
        let title: String = first.split_whitespace().collect::<Vec<_>>().join(" ");
        let title = match title.char_indices().nth(80) {
            Some((i, _)) => format!("{}…", &title[..i]),
            None => title,
        };
        self.store()
            .create_chat_session(project_id, Some(&who.user_id), &title, now_ms())
    }

    async fn agent_loop(
        &self,
        who: &Principal,
        project_id: &str,
        req: &AgentTurnRequest,
        model: &dyn Model,
        progress: &mut Progress,
    ) -> Result<(String, StopReason)> {
        let cfg = &self.config().agent;
        let system = system_prompt(project_id);
        let hosted = self.config().models.hosted_ids(None);
        let specs = tools::specs(&hosted);
        let mut messages: Vec<Message> = req
            .messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    AgentRole::User => Role::User,
                    AgentRole::Assistant => Role::Assistant,
                };
                Message::new(role, m.content.clone())
            })
            .collect();
        let mut last_text = String::new();
        while progress.steps < cfg.max_steps {
            progress.steps += 1;
            let reply = model
                .complete(&ModelRequest {
                    system: Some(&system),
                    messages: &messages,
                    tools: &specs,
                })
                .await?;
            progress.usage.input_tokens += reply.usage.input_tokens;
            progress.usage.output_tokens += reply.usage.output_tokens;
            if reply.tool_calls.is_empty() {
                return Ok((reply.text, StopReason::Completed));
            }
            if !reply.text.trim().is_empty() {
                last_text = reply.text.clone();
            }
            let mut assistant = Message::new(Role::Assistant, reply.text.clone());
            assistant.tool_calls = reply.tool_calls.clone();
            messages.push(assistant);
            for call in &reply.tool_calls {
                let (content, is_error) =
                    match tools::call(self, who, project_id, &call.name, &call.arguments) {
                        Ok(out) => {
                            if let Some(c) = out.created {
                                progress.created.push(CreatedResource {
                                    kind: c.kind.into(),
                                    id: c.id,
                                    name: c.name,
                                    url: self.agent_link(&c.path),
                                });
                            }
                            progress.tool_calls.push(AgentToolCall {
                                operation: call.name.clone(),
                                arguments: call.arguments.clone(),
                                ok: true,
                                error: None,
                            });
                            (out.result.to_string(), false)
                        }
                        Err(e) => {
                            progress.tool_calls.push(AgentToolCall {
                                operation: call.name.clone(),
                                arguments: call.arguments.clone(),
                                ok: false,
                                error: Some(AgentToolError {
                                    code: e.code.to_string(),
                                    message: e.message.clone(),
                                }),
                            });
                            let mut v = json!({"code": e.code, "message": e.message});
                            if let Some(d) = e.details {
                                v["details"] = d;
                            }
                            (v.to_string(), true)
                        }
                    };
                let mut m = Message::new(Role::Tool, truncate(content, cfg.tool_result_chars));
                m.tool_call_id = Some(call.id.clone());
                m.name = Some(call.name.clone());
                m.is_error = Some(is_error);
                messages.push(m);
            }
        }
        let reply = if last_text.is_empty() {
            format!(
                "I stopped after {} steps, the most one turn may take, before finishing. Ask me to continue.",
                cfg.max_steps
            )
        } else {
            last_text
        };
        Ok((reply, StopReason::StepLimit))
    }

    /// `/api/v1{path}`, absolute when the service knows its public origin.
    fn agent_link(&self, path: &str) -> String {
        let origin = self
            .config()
            .authoring
            .public_url
            .as_deref()
            .map(|u| u.trim_end_matches('/'))
            .unwrap_or("");
        format!("{origin}/api/v1{path}")
    }

    /// Charges the turn's tokens; a storage failure is logged, never turned into an error
    /// after the work was done.
    fn bill_agent_turn(&self, who: &Principal, project_id: &str, p: &Progress) -> i64 {
        let rate = self.config().agent.credits_per_1k_tokens;
        let tokens = (p.usage.input_tokens + p.usage.output_tokens) as i64;
        if rate <= 0 || tokens == 0 {
            return 0;
        }
        let cost = (tokens + 999) / 1000 * rate;
        let note = format!(
            "agent turn in project {project_id}: {tokens} token(s), {} step(s)",
            p.steps
        );
        match self
            .store()
            .debit_usage(&who.org_id, cost, "agent", None, &note)
        {
            Ok(n) => n,
            Err(e) => {
                tracing::error!(error = %e, org = %who.org_id, "cannot bill an agent turn");
                0
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_per_organization_and_freed_on_drop() {
        let t = Turns::default();
        let a = t.try_acquire("org_a", 2).unwrap();
        let _b = t.try_acquire("org_a", 2).unwrap();
        assert!(t.try_acquire("org_a", 2).is_none());
        assert!(t.try_acquire("org_b", 2).is_some());
        drop(a);
        assert_eq!(t.active("org_a"), 1);
        assert!(t.try_acquire("org_a", 2).is_some());
    }

    #[test]
    fn long_tool_results_are_cut() {
        assert_eq!(truncate("abc".into(), 5), "abc");
        assert!(truncate("é".repeat(10), 4).starts_with("éééé…"));
    }
}
