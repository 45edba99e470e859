//! evaldeck's side of a session: the capabilities it declares (roots, sampling, elicitation)
//! and how it answers what the server asks — as server-to-client requests in the handshake
//! era, or as `input_required` rounds of a request from `2026-07-28` (both end here).
//!
//! An answer comes from the call in progress ([`CallContext`]: a scripted answer, or a
//! person asked through [`Asker`]) or else from the server's saved [`ClientFeatures`];
//! without either, sampling and elicitation are declined. Each request and each decision
//! is a protocol event of the server ([`Traffic`]), so a trace shows that the server asked.

// Sampling and roots are deprecated (SEP-2577) yet still part of every revision evaldeck
// speaks, and servers under test use them.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, Implementation, ListRootsResult, ProtocolVersion,
    SamplingMessage,
};
use rmcp::model::{LoggingLevel, LoggingMessageNotificationParam, ProgressNotificationParam};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::{Value, json};

use super::traffic::Traffic;
use crate::spec::client_features::{
    ClientFeatures, ElicitationAction, ElicitationAnswer, SamplingPolicy,
};
use crate::spec::primitives::ElicitationRequest;

/// Answers sampling requests with a configured model: the model id and the request
/// (`sampling/createMessage` params as MCP JSON) in, the reply's text out.
pub trait Sampler: Send + Sync {
    fn sample(&self, model: &str, request: Value) -> BoxFuture<'static, Result<String, String>>;
}

/// Asks a person to answer an elicitation (the workbench's form).
pub trait Asker: Send + Sync {
    fn elicit(
        &self,
        server: &str,
        request: ElicitationRequest,
    ) -> BoxFuture<'static, ElicitationAnswer>;
}

/// A call's progress as the server reports it: `(progress, total, message)`.
pub type Progress = (f64, Option<f64>, Option<String>);

/// How the call in progress wants the server's requests answered.
#[derive(Clone, Default)]
pub struct CallContext {
    pub elicitation: Option<ElicitationAnswer>,
    pub sampling: Option<SamplingPolicy>,
    pub asker: Option<Arc<dyn Asker>>,
    /// Progress of the call: `(progress, total, message)`.
    pub progress: Option<tokio::sync::mpsc::UnboundedSender<Progress>>,
}

/// Shared by the handler rmcp drives and the pool's request loop.
pub(crate) struct ClientSide {
    pub server_id: Arc<str>,
    pub traffic: Arc<Traffic>,
    pub features: Mutex<ClientFeatures>,
    /// Calls in progress, newest last: a server request is answered for the newest.
    calls: Mutex<Vec<(u64, CallContext)>>,
    /// Progress tokens of calls in progress.
    tokens: Mutex<HashMap<String, u64>>,
    next: std::sync::atomic::AtomicU64,
    sampler: Option<Arc<dyn Sampler>>,
}

/// Removes a call from [`ClientSide`] when it ends.
pub(crate) struct CallGuard<'a> {
    side: &'a ClientSide,
    key: u64,
}

impl Drop for CallGuard<'_> {
    fn drop(&mut self) {
        self.side
            .calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|(k, _)| *k != self.key);
        self.side
            .tokens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, k| *k != self.key);
    }
}

impl CallGuard<'_> {
    /// Routes the progress notifications of `token` to this call.
    pub fn progress_token(&self, token: &rmcp::model::ProgressToken) {
        self.side
            .tokens
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(token_key(token), self.key);
    }
}

fn token_key(token: &rmcp::model::ProgressToken) -> String {
    serde_json::to_string(&token.0).unwrap_or_default()
}

impl ClientSide {
    pub fn new(
        server_id: &str,
        traffic: Arc<Traffic>,
        features: ClientFeatures,
        sampler: Option<Arc<dyn Sampler>>,
    ) -> ClientSide {
        ClientSide {
            server_id: Arc::from(server_id),
            traffic,
            features: Mutex::new(features),
            calls: Mutex::new(Vec::new()),
            tokens: Mutex::new(HashMap::new()),
            next: std::sync::atomic::AtomicU64::new(1),
            sampler,
        }
    }

    /// Registers a call in progress until the guard drops.
    pub fn enter(&self, ctx: CallContext) -> CallGuard<'_> {
        let key = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push((key, ctx));
        CallGuard { side: self, key }
    }

    fn current(&self) -> CallContext {
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .last()
            .map(|(_, c)| c.clone())
            .unwrap_or_default()
    }

    fn features(&self) -> ClientFeatures {
        self.features
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The roots offered now.
    pub fn roots(&self) -> ListRootsResult {
        let roots = self
            .features()
            .roots
            .into_iter()
            .map(|r| {
                let root = rmcp::model::Root::new(r.uri);
                match r.name {
                    Some(n) => root.with_name(n),
                    None => root,
                }
            })
            .collect();
        ListRootsResult::new(roots)
    }

    /// Answers `sampling/createMessage` for `ctx` (the call it belongs to).
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
        ctx: &CallContext,
    ) -> Result<CreateMessageResult, ErrorData> {
        let policy = ctx
            .sampling
            .clone()
            .or(self.features().sampling)
            .unwrap_or(SamplingPolicy::Decline);
        let method = Some("sampling/createMessage");
        match policy {
            SamplingPolicy::Decline => {
                self.traffic.note(
                    method,
                    "the server asked for sampling; declined (no sampling answer is configured: `config.client.sampling`)",
                );
                Err(ErrorData::new(
                    rmcp::model::ErrorCode(-1),
                    "the client declined the sampling request",
                    None,
                ))
            }
            SamplingPolicy::Scripted { text } => {
                self.traffic
                    .note(method, format!("the server asked for sampling; answered with the scripted text ({} characters)", text.chars().count()));
                Ok(CreateMessageResult::new(
                    SamplingMessage::assistant_text(text),
                    "evaldeck/scripted".into(),
                )
                .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN))
            }
            SamplingPolicy::Model { model } => {
                let Some(sampler) = &self.sampler else {
                    self.traffic.note(method, "the server asked for sampling; no model runner is available here, declined");
                    return Err(ErrorData::internal_error(
                        "sampling by a model is not available here",
                        None,
                    ));
                };
                let request = serde_json::to_value(&params).unwrap_or(json!({}));
                match sampler.sample(&model, request).await {
                    Ok(text) => {
                        self.traffic.note(
                            method,
                            format!("the server asked for sampling; answered by {model}"),
                        );
                        Ok(
                            CreateMessageResult::new(SamplingMessage::assistant_text(text), model)
                                .with_stop_reason(CreateMessageResult::STOP_REASON_END_TURN),
                        )
                    }
                    Err(e) => {
                        self.traffic.note(
                            method,
                            format!("the server asked for sampling; {model} failed: {e}"),
                        );
                        Err(ErrorData::internal_error(
                            format!("the sampling model failed: {e}"),
                            None,
                        ))
                    }
                }
            }
        }
    }

    /// Answers `elicitation/create` for `ctx`: the call's asker, else its scripted answer,
    /// else the server's saved one, else decline.
    pub async fn elicit(&self, params: ElicitRequestParams, ctx: &CallContext) -> ElicitResult {
        let request = elicitation_request(&params);
        let method = Some("elicitation/create");
        let answer = if let Some(asker) = &ctx.asker {
            let a = asker.elicit(&self.server_id, request).await;
            self.traffic.note(
                method,
                format!(
                    "the server asked for input; the user answered {}",
                    a.action.as_str()
                ),
            );
            a
        } else if let Some(a) = ctx.elicitation.clone().or(self.features().elicitation) {
            self.traffic.note(
                method,
                format!(
                    "the server asked for input; the scripted answer is {}",
                    a.action.as_str()
                ),
            );
            a
        } else {
            self.traffic.note(
                method,
                "the server asked for input; declined (nobody to ask here, and no scripted answer: `config.client.elicitation` or the case's `elicitation`)",
            );
            ElicitationAnswer::decline()
        };
        let action = match answer.action {
            ElicitationAction::Accept => rmcp::model::ElicitationAction::Accept,
            ElicitationAction::Decline => rmcp::model::ElicitationAction::Decline,
            ElicitationAction::Cancel => rmcp::model::ElicitationAction::Cancel,
        };
        let r = ElicitResult::new(action);
        match (answer.action, answer.content, &params) {
            (
                ElicitationAction::Accept,
                Some(c),
                ElicitRequestParams::FormElicitationParams { .. },
            ) => r.with_content(Value::Object(c)),
            _ => r,
        }
    }

    fn progress(&self, p: &ProgressNotificationParam) {
        let key = self
            .tokens
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&token_key(&p.progress_token))
            .copied();
        let Some(key) = key else { return };
        let calls = self.calls.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, ctx)) = calls.iter().find(|(k, _)| *k == key)
            && let Some(tx) = &ctx.progress
        {
            let _ = tx.send((p.progress, p.total, p.message.clone()));
        }
    }
}

/// An MCP elicitation as the form that shows it takes it.
fn elicitation_request(p: &ElicitRequestParams) -> ElicitationRequest {
    match p {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => ElicitationRequest {
            message: message.clone(),
            mode: "form".into(),
            requested_schema: serde_json::to_value(requested_schema).ok(),
            url: None,
        },
        ElicitRequestParams::UrlElicitationParams { message, url, .. } => ElicitationRequest {
            message: message.clone(),
            mode: "url".into(),
            requested_schema: None,
            url: Some(url.clone()),
        },
        other => ElicitationRequest {
            message: serde_json::to_value(other)
                .ok()
                .and_then(|v| v["message"].as_str().map(str::to_string))
                .unwrap_or_default(),
            mode: "form".into(),
            requested_schema: None,
            url: None,
        },
    }
}

/// The handler rmcp drives for a session.
#[derive(Clone)]
pub(crate) struct EvalClient {
    pub side: Arc<ClientSide>,
    /// The revision offered in an `initialize` handshake.
    pub offer: ProtocolVersion,
}

/// The capabilities evaldeck declares: roots (with change notifications), sampling,
/// elicitation in both modes, tasks, and MCP Apps views (servers built on the Apps SDK
/// register their UI tools only for hosts that declare it). Fixed, so what a server lists
/// does not depend on who asks.
pub(crate) fn capabilities() -> ClientCapabilities {
    let mut caps = ClientCapabilities::builder()
        .enable_roots()
        .enable_roots_list_changed()
        .enable_sampling()
        .enable_elicitation_with(
            rmcp::model::ElicitationCapability::new()
                .with_form(rmcp::model::FormElicitationCapability::new())
                .with_url(rmcp::model::UrlElicitationCapability::new()),
        )
        .enable_tasks()
        .build();
    let ui = serde_json::json!({"mimeTypes": [crate::service::widgets::APP_MIME]});
    caps.extensions.get_or_insert_default().insert(
        crate::service::widgets::APPS_EXTENSION.into(),
        ui.as_object().cloned().unwrap_or_default(),
    );
    caps
}

impl ClientHandler for EvalClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            capabilities(),
            Implementation::new("evaldeck", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(self.offer.clone())
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.side.sample(params, &self.side.current()).await
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(self.side.roots())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(self.side.elicit(request, &self.side.current()).await)
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.side.progress(&params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let server = &*self.side.server_id;
        let data = params.data.to_string();
        match params.level {
            LoggingLevel::Debug => {
                tracing::debug!(target: "evaldeck::mcp::server_log", server, "{data}")
            }
            LoggingLevel::Info | LoggingLevel::Notice => {
                tracing::info!(target: "evaldeck::mcp::server_log", server, "{data}")
            }
            LoggingLevel::Warning => {
                tracing::warn!(target: "evaldeck::mcp::server_log", server, "{data}")
            }
            _ => tracing::error!(target: "evaldeck::mcp::server_log", server, "{data}"),
        }
    }
}

impl ClientSide {
    /// Answers one `input_required` round: each input request as a server-to-client
    /// request of the same kind would be answered. A sampling request that is declined
    /// ends the request: from `2026-07-28` there is no way to tell the server "no" but to
    /// stop asking again.
    pub async fn answer_input(
        &self,
        ir: rmcp::model::InputRequiredResult,
        ctx: &CallContext,
    ) -> Result<(rmcp::model::InputResponses, Option<String>), crate::spec::Error> {
        use rmcp::model::InputRequest;
        let mut out = rmcp::model::InputResponses::new();
        for (key, request) in ir.input_requests.unwrap_or_default() {
            let answer = match request {
                InputRequest::CreateMessage(r) => match self.sample(r.params, ctx).await {
                    Ok(v) => serde_json::to_value(v).ok(),
                    Err(e) => {
                        return Err(crate::spec::Error::new(
                            crate::spec::Code::FeatureNotSupported,
                            format!(
                                "the server needs a sampling answer to go on, and evaldeck declined: {} (set `config.client.sampling`, or `sampling` on the call)",
                                e.message
                            ),
                        )
                        .with_reason("SAMPLING_DECLINED"));
                    }
                },
                InputRequest::Elicitation(r) => {
                    serde_json::to_value(self.elicit(r.params, ctx).await).ok()
                }
                InputRequest::ListRoots(_) => serde_json::to_value(self.roots()).ok(),
                _ => None,
            };
            if let Some(a) = answer {
                out.insert(key, a);
            }
        }
        Ok((out, ir.request_state))
    }
}
