//! The pool's requests on a pooled session: lists, calls, prompts, resources,
//! subscriptions and export.

use super::*;
use crate::spec::primitives::{
    ExportSnapshot, McpPage, PromptGetRequest, PromptItem, ResourceItem, ResourceTemplateItem,
    TaskRequest, ToolCallRequest, ToolItem, ValidateResult,
};
use crate::spec::{Code, Error, Result};
use client::CallContext;
use connect::Session;
use rmcp::model::{
    CallToolRequestParams, ClientRequest, GetPromptRequestParams, ReadResourceRequestParams,
    Request, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

impl McpPool {
    /// One request on a session, with the request timeout extended by progress (up to the
    /// server's cap), for the call `ctx` describes (its progress, its answers to what the
    /// server asks).
    pub(super) async fn request(
        &self,
        target: &Target,
        s: &Arc<Session>,
        method: &'static str,
        req: ClientRequest,
        ctx: &CallContext,
    ) -> Result<ServerResult> {
        s.calls.fetch_add(1, Ordering::Relaxed);
        let timeout = s.request_timeout;
        let cap = target
            .config
            .client
            .max_total_timeout_ms
            .map(Duration::from_millis)
            .unwrap_or(self.inner.opts.max_total_timeout);
        let mut opts = PeerRequestOptions::with_timeout(timeout)
            .reset_timeout_on_progress()
            .with_max_total_timeout(cap.max(timeout));
        if s.modern()
            && let Some(level) = s.log_level()
        {
            let mut meta = rmcp::model::RequestMetaObject::new();
            meta.set_log_level(level);
            opts = opts.with_meta(meta);
        }
        let call = s.side.enter(ctx.clone());
        let res = match s.peer.send_request_with_option(req, opts).await {
            Ok(h) => {
                call.progress_token(&h.progress_token);
                // A caller that gives up (Ctrl-C, a closed HTTP request, a cancelled run)
                // drops this future: the server is told, so it can stop working.
                let guard = CancelOnDrop(Some((s.peer.clone(), h.id.clone())));
                let r = h.await_response().await;
                guard.disarm();
                r
            }
            Err(e) => Err(e),
        };
        drop(call);
        s.touch();
        match res {
            Ok(r) => Ok(r),
            Err(e) => {
                use rmcp::ServiceError as E;
                let died = matches!(e, E::TransportClosed | E::TransportSend(_));
                let ctx = s.context(method, died).await;
                let err = match s.oversized() {
                    Some(size) => errors::too_large(method, size, self.inner.opts.max_result_bytes),
                    None => errors::from_service(&e, &ctx),
                };
                if died || err.code == Code::OauthRequired {
                    self.discard(&target.server_id, s).await;
                } else if matches!(e, E::Timeout { .. }) {
                    s.mark_suspect();
                }
                Err(err)
            }
        }
    }

    /// A request that may come back `input_required` (`2026-07-28`): each round's input
    /// requests are answered ([`client`]) and the request is sent again with the answers
    /// and the server's `requestState`, up to [`MAX_INPUT_ROUNDS`].
    async fn request_with_input<P, F>(
        &self,
        target: &Target,
        s: &Arc<Session>,
        method: &'static str,
        mut params: P,
        wrap: F,
        ctx: &CallContext,
    ) -> Result<ServerResult>
    where
        P: Clone + WithInput,
        F: Fn(P) -> ClientRequest,
    {
        for _ in 0..MAX_INPUT_ROUNDS {
            match self
                .request(target, s, method, wrap(params.clone()), ctx)
                .await?
            {
                ServerResult::InputRequiredResult(ir) => {
                    let (responses, state) = s.side.answer_input(ir, ctx).await?;
                    params = params.with_input(responses, state);
                }
                other => return Ok(other),
            }
        }
        Err(errors::unreachable(format!(
            "{method}: the server still wanted input after {MAX_INPUT_ROUNDS} rounds"
        ))
        .with_reason(errors::REASON_MCP_ERROR))
    }

    fn require(s: &Session, cap: Cap) -> Result<()> {
        if cap.advertised(s) {
            Ok(())
        } else {
            Err(errors::not_supported(cap.name()))
        }
    }

    async fn list_page(
        &self,
        target: &Target,
        list: List,
        cursor: Option<String>,
    ) -> Result<(Vec<Value>, Option<String>)> {
        let s = self.session(target).await?;
        Self::require(&s, list.cap())?;
        let r = self
            .request(
                target,
                &s,
                list.method(),
                list.request(cursor),
                &CallContext::default(),
            )
            .await?;
        list.page(r).ok_or_else(|| unexpected(list.method()))
    }

    pub(super) async fn list_all_on(
        &self,
        target: &Target,
        s: &Arc<Session>,
        list: List,
    ) -> Result<Vec<Value>> {
        let mut out = Vec::new();
        let mut cursor = None;
        for _ in 0..self.inner.opts.max_pages.max(1) {
            let r = self
                .request(
                    target,
                    s,
                    list.method(),
                    list.request(cursor.take()),
                    &CallContext::default(),
                )
                .await?;
            let (mut page, next) = list.page(r).ok_or_else(|| unexpected(list.method()))?;
            out.append(&mut page);
            match next {
                Some(c) if !c.is_empty() => cursor = Some(c),
                _ => return Ok(out),
            }
        }
        Ok(out)
    }

    /// `validate`: a fresh connection (replacing any pooled one), kept in the pool.
    pub async fn validate(&self, target: &Target) -> Result<ValidateResult> {
        self.evict(&target.server_id).await;
        let s = self.session(target).await?;
        Ok(ValidateResult {
            success: true,
            status: "connected".into(),
            init_info: Some(init_info(&s.info)),
        })
    }

    /// `tools`: one page, with the server's own cursor.
    pub async fn list_tools(
        &self,
        target: &Target,
        cursor: Option<String>,
    ) -> Result<McpPage<ToolItem>> {
        let (v, next) = self.list_page(target, List::Tools, cursor).await?;
        Ok(McpPage {
            items: items(v)?,
            next_cursor: next,
        })
    }

    pub async fn list_prompts(
        &self,
        target: &Target,
        cursor: Option<String>,
    ) -> Result<McpPage<PromptItem>> {
        let (v, next) = self.list_page(target, List::Prompts, cursor).await?;
        Ok(McpPage {
            items: items(v)?,
            next_cursor: next,
        })
    }

    pub async fn list_resources(
        &self,
        target: &Target,
        cursor: Option<String>,
    ) -> Result<McpPage<ResourceItem>> {
        let (v, next) = self.list_page(target, List::Resources, cursor).await?;
        Ok(McpPage {
            items: items(v)?,
            next_cursor: next,
        })
    }

    pub async fn list_resource_templates(
        &self,
        target: &Target,
        cursor: Option<String>,
    ) -> Result<McpPage<ResourceTemplateItem>> {
        let (v, next) = self.list_page(target, List::Templates, cursor).await?;
        Ok(McpPage {
            items: items(v)?,
            next_cursor: next,
        })
    }

    /// One `tools/call`, plain or task-augmented, followed to its result.
    async fn call_once(
        &self,
        target: &Target,
        s: &Arc<Session>,
        req: &ToolCallRequest,
        p: &CallToolRequestParams,
        task: Option<&TaskRequest>,
        ctx: &CallContext,
    ) -> Result<Value> {
        let answer = match task {
            // The handshake era's task-augmented call: `task` beside name and arguments.
            Some(t) => {
                let mut params = json!({
                    "name": req.tool_name,
                    "arguments": req.parameters.clone().unwrap_or_default()
                });
                params["task"] = match t.ttl_ms {
                    Some(ttl) => json!({"ttl": ttl}),
                    None => json!({}),
                };
                self.request(
                    target,
                    s,
                    "tools/call",
                    ClientRequest::CustomRequest(rmcp::model::CustomRequest::new(
                        "tools/call",
                        Some(params),
                    )),
                    ctx,
                )
                .await?
            }
            None => {
                self.request_with_input(
                    target,
                    s,
                    "tools/call",
                    p.clone(),
                    |p| ClientRequest::CallToolRequest(Request::new(p)),
                    ctx,
                )
                .await?
            }
        };
        match answer {
            ServerResult::CallToolResult(r) => convert::<_, Value>(r),
            ServerResult::CreateTaskResult(t) => {
                let t = serde_json::to_value(t).unwrap_or_default();
                self.follow_task(target, s, &req.tool_name, t, ctx).await
            }
            other => {
                let v = serde_json::to_value(other).unwrap_or_default();
                if v.get("task").is_some() {
                    self.follow_task(target, s, &req.tool_name, v, ctx).await
                } else if v.get("content").is_some() {
                    Ok(v)
                } else {
                    Err(unexpected("tools/call"))
                }
            }
        }
    }

    /// `tools/call`: the `CallToolResult` verbatim; `isError: true` is still `Ok`.
    pub async fn call_tool(&self, target: &Target, req: &ToolCallRequest) -> Result<Value> {
        self.call_tool_with(target, req, &CallContext::default())
            .await
    }

    /// `tools/call`, answering what the server asks meanwhile as `ctx` says.
    pub async fn call_tool_with(
        &self,
        target: &Target,
        req: &ToolCallRequest,
        ctx: &CallContext,
    ) -> Result<Value> {
        if req.tool_name.is_empty() {
            return Err(Error::invalid("/toolName", "required", "must not be empty"));
        }
        let s = self.session(target).await?;
        Self::require(&s, Cap::Tools)?;
        let mut p = CallToolRequestParams::new(req.tool_name.clone());
        if let Some(args) = &req.parameters {
            p = p.with_arguments(args.clone());
        }
        let mut ctx = ctx.clone();
        ctx.elicitation = req.elicitation.clone().or(ctx.elicitation);
        ctx.sampling = req.sampling.clone().or(ctx.sampling);
        let legacy_task = req.task.as_ref().filter(|_| !s.modern());
        let follow = async {
            let r = self.call_once(target, &s, req, &p, legacy_task, &ctx).await;
            // A handshake-era tool whose `execution.taskSupport` is `required` refuses a
            // plain call with -32601 (its declaration's `execution` does not survive rmcp's
            // `Tool`, so the refusal is the signal): run it as a task.
            if legacy_task.is_none() && !s.modern() && refused_as_plain_call(&r) {
                return self
                    .call_once(target, &s, req, &p, Some(&TaskRequest::default()), &ctx)
                    .await;
            }
            r
        };
        let v = match &req.call_id {
            None => follow.await?,
            Some(id) => {
                let key = format!("{}/{id}", target.server_id);
                let token = tokio_util::sync::CancellationToken::new();
                self.calls().insert(key.clone(), token.clone());
                let r = tokio::select! {
                    r = follow => r,
                    // Dropping the call tells the server (`notifications/cancelled`, or
                    // `tasks/cancel` for a task).
                    _ = token.cancelled() => Err(Error::new(
                        Code::Conflict,
                        format!("tools/call `{}`: cancelled (call `{id}`)", req.tool_name),
                    )
                    .with_reason(REASON_CALL_CANCELLED)),
                };
                self.calls().remove(&key);
                r?
            }
        };
        // Over HTTP the message is whole before it can be measured; over stdio a longer
        // one already failed while it was read.
        let size = serde_json::to_vec(&v).map(|b| b.len()).unwrap_or(0);
        if size > self.inner.opts.max_result_bytes {
            return Err(errors::too_large(
                "tools/call",
                size,
                self.inner.opts.max_result_bytes,
            ));
        }
        Ok(v)
    }

    fn calls(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, tokio_util::sync::CancellationToken>> {
        self.inner.calls.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Cancels the call `call_id` of a server while it runs; false when no such call runs.
    pub fn cancel_call(&self, server_id: &str, call_id: &str) -> bool {
        match self.calls().remove(&format!("{server_id}/{call_id}")) {
            Some(t) => {
                t.cancel();
                true
            }
            None => false,
        }
    }

    /// `prompts/get`: the `GetPromptResult` verbatim.
    pub async fn get_prompt(&self, target: &Target, req: &PromptGetRequest) -> Result<Value> {
        if req.prompt_name.is_empty() {
            return Err(Error::invalid(
                "/promptName",
                "required",
                "must not be empty",
            ));
        }
        let args = req.arguments.as_ref().map(prompt_arguments).transpose()?;
        let s = self.session(target).await?;
        Self::require(&s, Cap::Prompts)?;
        let mut p = GetPromptRequestParams::new(req.prompt_name.clone());
        if let Some(a) = args {
            p = p.with_arguments(a);
        }
        match self
            .request_with_input(
                target,
                &s,
                "prompts/get",
                p,
                |p| ClientRequest::GetPromptRequest(Request::new(p)),
                &CallContext::default(),
            )
            .await?
        {
            ServerResult::GetPromptResult(r) => convert(r),
            _ => Err(unexpected("prompts/get")),
        }
    }

    /// `resources/read`: the `ReadResourceResult` verbatim.
    pub async fn read_resource(&self, target: &Target, uri: &str) -> Result<Value> {
        if uri.is_empty() {
            return Err(Error::invalid("/uri", "required", "must not be empty"));
        }
        let s = self.session(target).await?;
        Self::require(&s, Cap::Resources)?;
        let p = ReadResourceRequestParams::new(uri);
        match self
            .request_with_input(
                target,
                &s,
                "resources/read",
                p,
                |p| ClientRequest::ReadResourceRequest(Request::new(p)),
                &CallContext::default(),
            )
            .await?
        {
            ServerResult::ReadResourceResult(r) => convert(r),
            _ => Err(unexpected("resources/read")),
        }
    }

    /// Subscribes to updates of one resource for the rest of the session: `resources/subscribe`
    /// in the handshake era, a `subscriptions/listen` stream from `2026-07-28`. Updates
    /// arrive as protocol events (`notifications/resources/updated`).
    #[allow(deprecated)]
    pub async fn subscribe(&self, target: &Target, uri: &str) -> Result<()> {
        if uri.is_empty() {
            return Err(Error::invalid("/uri", "required", "must not be empty"));
        }
        let s = self.session(target).await?;
        Self::require(&s, Cap::Resources)?;
        if s.modern() {
            let filter = rmcp::model::SubscriptionFilter::builder()
                .resource_subscription(uri)
                .build();
            let mut sub = s.peer.listen(filter).await.map_err(|e| {
                errors::from_service(
                    &e,
                    &errors::Context::new("subscriptions/listen", s.sent_token),
                )
            })?;
            let accepted = sub
                .acknowledged()
                .resource_subscriptions
                .as_ref()
                .is_some_and(|u| u.iter().any(|x| x == uri));
            if !accepted {
                return Err(errors::not_supported("resources.subscribe"));
            }
            // The stream's notifications are protocol events already; drain it so it
            // never lags, for as long as the session lives.
            let drain = tokio::spawn(async move { while let Ok(Some(_)) = sub.next().await {} });
            s.listens.lock().await.push(drain);
            Ok(())
        } else {
            if s.info
                .capabilities
                .resources
                .as_ref()
                .is_none_or(|r| r.subscribe != Some(true))
            {
                return Err(errors::not_supported("resources.subscribe"));
            }
            let req = ClientRequest::SubscribeRequest(Request::new(
                rmcp::model::SubscribeRequestParams::new(uri),
            ));
            self.request(
                target,
                &s,
                "resources/subscribe",
                req,
                &CallContext::default(),
            )
            .await
            .map(|_| ())
        }
    }

    /// `export`: everything the server lists, each list complete; a list whose capability
    /// is not advertised is empty.
    pub async fn export(&self, target: &Target) -> Result<ExportSnapshot> {
        let s = self.session(target).await?;
        let mut snap = ExportSnapshot {
            server_id: target.server_id.clone(),
            exported_at: iso_now(),
            tools: vec![],
            resources: vec![],
            prompts: vec![],
            resource_templates: vec![],
            init_info: Some(init_info(&s.info)),
        };
        if Cap::Tools.advertised(&s) {
            snap.tools = items(self.list_all_on(target, &s, List::Tools).await?)?;
        }
        if Cap::Prompts.advertised(&s) {
            snap.prompts = items(self.list_all_on(target, &s, List::Prompts).await?)?;
        }
        if Cap::Resources.advertised(&s) {
            snap.resources = items(self.list_all_on(target, &s, List::Resources).await?)?;
            // Templates are optional even for servers with resources.
            snap.resource_templates = match self.list_all_on(target, &s, List::Templates).await {
                Ok(v) => items(v)?,
                Err(e) if e.code == Code::FeatureNotSupported => vec![],
                Err(e) => return Err(e),
            };
        }
        Ok(snap)
    }
}

/// Whether a server refused a plain `tools/call` with -32601: the method exists, so the
/// tool requires task augmentation (the tasks utility's rule). The TypeScript SDK reports
/// it as a tool error whose text carries the code (`MCP error -32601: Tool x requires task
/// augmentation`), other servers as a JSON-RPC error.
fn refused_as_plain_call(r: &Result<Value>) -> bool {
    match r {
        Err(e) => {
            e.details
                .as_ref()
                .and_then(|d| d.pointer("/mcpError/code"))
                .and_then(Value::as_i64)
                == Some(-32601)
        }
        Ok(v) => {
            v["isError"] == true
                && v["content"].as_array().is_some_and(|c| {
                    c.iter()
                        .filter_map(|b| b["text"].as_str())
                        .any(|t| t.contains("-32601") && t.to_ascii_lowercase().contains("task"))
                })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_plain_call_is_told_from_a_tool_error() {
        let sdk = json!({"isError": true, "content": [{"type": "text",
            "text": "MCP error -32601: Tool simulate-research-query requires task augmentation (taskSupport: 'required')"}]});
        assert!(refused_as_plain_call(&Ok(sdk)));
        let rpc = Error::new(Code::FeatureNotSupported, "tools/call: refused")
            .with_details(json!({"mcpError": {"code": -32601, "message": "task required"}}));
        assert!(refused_as_plain_call(&Err(rpc)));
        let tool_error =
            json!({"isError": true, "content": [{"type": "text", "text": "division by zero"}]});
        assert!(!refused_as_plain_call(&Ok(tool_error)));
        let invalid = Error::new(Code::ValidationError, "bad params")
            .with_details(json!({"mcpError": {"code": -32602}}));
        assert!(!refused_as_plain_call(&Err(invalid)));
        assert!(!refused_as_plain_call(&Ok(
            json!({"content": [{"type": "text", "text": "-32601 task"}]})
        )));
    }
}
