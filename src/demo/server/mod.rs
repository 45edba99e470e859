//! The demo server's MCP side: tools, prompts and resources chosen to exercise every
//! diagnostic and assertion — with and without descriptions and annotations, structured
//! output, a deprecated tool, a tool error, progress, a large result, paging, a crash;
//! with `--client-features`, tools that ask things of the client.

// Logging, sampling and roots are deprecated (SEP-2577) yet part of every revision, and
// the demo server exists to exercise them.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, Implementation, JsonObject, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, Prompt, PromptArgument, PromptMessage, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ResourceTemplate, Role,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Value, json};

mod catalogue;
use catalogue::*;

/// What the server offers; flags remove parts so tests can produce faults.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    pub prompts: bool,
    pub resources: bool,
    /// Items per page of `tools/list`, `prompts/list` and `resources/list`; 0 = one page.
    pub page_size: usize,
    /// Add the tools that ask things of the client: `ask-llm` (sampling), `ask-user`
    /// (elicitation), `list-roots` (roots) and `log` (logging).
    pub client_features: bool,
    /// Speak only these protocol revisions (empty: every revision rmcp speaks).
    pub protocols: Vec<rmcp::model::ProtocolVersion>,
    /// Rules the server breaks on purpose, so `evaldeck check`, `diff` and the scan can be
    /// seen to catch them.
    pub faults: Vec<Fault>,
}

/// A rule the demo server breaks on purpose (`demo-server --fault NAME`, repeatable).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Fault {
    /// Writes a line that is not JSON-RPC on stdout (stdio).
    StdoutNoise,
    /// Lists tool names with a space and a slash, one of 130 characters, and `echo` twice.
    ToolNames,
    /// A tool whose inputSchema is not an object schema and whose outputSchema is invalid.
    BadSchemas,
    /// `get-stats` answers with structuredContent its outputSchema refuses.
    BadStructured,
    /// A tool both read-only and destructive.
    BadAnnotations,
    /// Every list hands out the same nextCursor for ever.
    CursorLoop,
    /// Exits on `notifications/cancelled`.
    CancelExits,
    /// Wrong error codes: an unknown method and a cursor it never gave are accepted, an
    /// unknown tool is a tool result, a missing resource is -32603, a missing required
    /// prompt argument is not refused.
    ErrorCodes,
    /// A relative resource URI (unreadable) and a malformed URI template.
    BadUris,
    /// A prompt with the same argument twice, and one that cannot be rendered.
    BadPrompts,
    /// Sends log messages without declaring `logging`.
    UndeclaredLog,
    /// `slow` reports progress that goes backwards and past its total.
    BadProgress,
    /// `echo` takes 1.5 s.
    SlowEcho,
    /// serverInfo without a version.
    BadServerInfo,
    /// Tools for the security scan: hidden instructions, invisible characters, a
    /// destructive tool without the hint, a free-form path, a secret in a result.
    Poisoned,
    /// Declares prompts, but prompts/list fails.
    ListFails,
    /// Over streamable HTTP: answers JSON-only requests with a stream, ignores a bad
    /// MCP-Protocol-Version, answers GET with text, and an unknown session with 400.
    HttpLax,
    /// A later version of the server: `echo` says something else and needs `times`,
    /// `get-sum` is gone (for `diff` and `check --pins`).
    RugPull,
}

#[derive(Clone)]
pub struct DemoServer {
    opts: Arc<DemoOptions>,
    started: Instant,
    /// `notifications/roots/list_changed` received so far.
    roots_changed: Arc<std::sync::atomic::AtomicU64>,
    /// The level `logging/setLevel` asked for (handshake era).
    log_level: Arc<std::sync::Mutex<Option<rmcp::model::LoggingLevel>>>,
    /// Tasks of `long-job` (the `2026-07-28` tasks extension), by id.
    jobs: Arc<std::sync::Mutex<std::collections::HashMap<String, Job>>>,
    /// Resources `resources/subscribe` asked for (handshake era).
    subscribed: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    /// Resources `touch-item` changed, for the `subscriptions/listen` streams.
    touched: tokio::sync::broadcast::Sender<String>,
    /// `subscriptions/listen` streams acknowledged so far (each starts listening just
    /// after its acknowledgment).
    listens: Arc<std::sync::atomic::AtomicUsize>,
}

/// One `long-job` task: its progress, what it waits for, its end.
#[derive(Debug, Clone)]
struct Job {
    status: rmcp::model::TaskStatus,
    message: String,
    /// The answer the job waits for (`ask`), once given.
    answer: Option<Value>,
    result: Option<Value>,
    created: String,
}

impl DemoServer {
    pub fn new(opts: DemoOptions) -> Self {
        DemoServer {
            opts: Arc::new(opts),
            started: Instant::now(),
            roots_changed: Arc::default(),
            log_level: Arc::default(),
            jobs: Arc::default(),
            subscribed: Arc::default(),
            touched: tokio::sync::broadcast::channel(64).0,
            listens: Arc::default(),
        }
    }

    /// `long-job`: works `durationMs` in `steps`; with `ask`, stops halfway for a name
    /// (an elicitation). As a task when the client declares the tasks extension (from
    /// `2026-07-28`), else within the call.
    async fn long_job(
        &self,
        args: &JsonObject,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let duration = args
            .get("durationMs")
            .and_then(Value::as_u64)
            .unwrap_or(1000);
        let steps = args
            .get("steps")
            .and_then(Value::as_u64)
            .unwrap_or(4)
            .max(1);
        let ask = args.get("ask").and_then(Value::as_bool).unwrap_or(false);
        let tasks = ctx
            .meta
            .client_capabilities()
            .and_then(|c| c.extensions)
            .is_some_and(|e| e.contains_key(rmcp::model::TASKS_EXTENSION_ID));
        if !tasks {
            tokio::time::sleep(Duration::from_millis(duration)).await;
            return Ok(CallToolResponse::Complete(CallToolResult::success(vec![
                ContentBlock::text(format!("job done in {steps} steps (not as a task)")),
            ])));
        }
        let id = format!("job-{}", uuid::Uuid::now_v7().simple());
        let now = chrono::Utc::now().to_rfc3339();
        self.jobs.lock().unwrap_or_else(|p| p.into_inner()).insert(
            id.clone(),
            Job {
                status: rmcp::model::TaskStatus::Working,
                message: format!("step 0 of {steps}"),
                answer: None,
                result: None,
                created: now.clone(),
            },
        );
        let jobs = self.jobs.clone();
        let job = id.clone();
        tokio::spawn(async move {
            let set = |f: &dyn Fn(&mut Job)| {
                if let Some(j) = jobs.lock().unwrap_or_else(|p| p.into_inner()).get_mut(&job) {
                    f(j)
                }
            };
            let live = || {
                jobs.lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&job)
                    .is_some_and(|j| j.status != rmcp::model::TaskStatus::Cancelled)
            };
            let mut who = String::from("nobody");
            for step in 1..=steps {
                tokio::time::sleep(Duration::from_millis(duration / steps)).await;
                if !live() {
                    return;
                }
                set(&|j| j.message = format!("step {step} of {steps}"));
                if ask && step == steps.div_ceil(2) {
                    set(&|j| j.status = rmcp::model::TaskStatus::InputRequired);
                    loop {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                        if !live() {
                            return;
                        }
                        let a = jobs
                            .lock()
                            .unwrap_or_else(|p| p.into_inner())
                            .get(&job)
                            .and_then(|j| j.answer.clone());
                        if let Some(a) = a {
                            who = a["content"]["name"]
                                .as_str()
                                .unwrap_or("someone")
                                .to_string();
                            set(&|j| j.status = rmcp::model::TaskStatus::Working);
                            break;
                        }
                    }
                }
            }
            let text = format!("job done in {steps} steps for {who}");
            set(&|j| {
                j.status = rmcp::model::TaskStatus::Completed;
                j.result =
                    Some(json!({"content": [{"type": "text", "text": text}], "isError": false}));
            });
        });
        let task = rmcp::model::Task::new(id, rmcp::model::TaskStatus::Working, now.clone(), now)
            .with_status_message(format!("step 0 of {steps}"))
            .with_poll_interval_ms(50)
            .with_ttl_ms(60_000);
        Ok(CallToolResponse::Task(rmcp::model::CreateTaskResult::new(
            task,
        )))
    }

    fn tools(&self) -> Vec<Tool> {
        let mut all = tools();
        if self.opts.client_features {
            all.extend(client_feature_tools());
        }
        all.extend(fault_tools(&self.opts.faults));
        if self.fault(Fault::RugPull) {
            all.retain(|t| t.name != "get-sum");
            if let Some(echo) = all.iter_mut().find(|t| t.name == "echo") {
                *echo = Tool::new(
                    "echo",
                    "Echo a message back, `times` times.",
                    schema(json!({
                        "type": "object",
                        "properties": {"message": {"type": "string", "description": "Text to echo"},
                            "times": {"type": "integer", "minimum": 1}},
                        "required": ["message", "times"]
                    })),
                )
                .with_annotations(ToolAnnotations::new().read_only(true).destructive(false));
            }
        }
        all
    }

    fn fault(&self, f: Fault) -> bool {
        self.opts.faults.contains(&f)
    }

    /// A tool that needs something from the client: asked as a server-to-client request in
    /// the handshake era, as an `input_required` round from `2026-07-28` (the answer comes
    /// back in the retried request's `inputResponses` under `key`).
    async fn ask(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
        key: &str,
        method: &str,
        params: Value,
    ) -> Result<Result<Value, CallToolResponse>, ErrorData> {
        let modern = ctx.protocol_version().is_some_and(|v| !v.has_initialize());
        if modern {
            if let Some(answer) = request.input_responses.as_ref().and_then(|r| r.get(key)) {
                return Ok(Ok(answer.clone()));
            }
            let mut wanted = json!({"method": method});
            if !params.is_null() {
                wanted["params"] = params;
            }
            let input: rmcp::model::InputRequest = serde_json::from_value(wanted)
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
            let requests = [(key.to_string(), input)].into_iter().collect();
            return Ok(Err(CallToolResponse::InputRequired(
                rmcp::model::InputRequiredResult::from_input_requests(requests),
            )));
        }
        let mut raw = json!({"method": method});
        if !params.is_null() {
            raw["params"] = params;
        }
        let req: rmcp::model::ServerRequest = serde_json::from_value(raw)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match ctx.peer.send_request(req).await {
            Ok(r) => Ok(Ok(serde_json::to_value(r).unwrap_or_default())),
            Err(rmcp::ServiceError::McpError(e)) => Ok(Ok(json!({"error": e.message}))),
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }

    /// The tools that ask things of the client; `None` for any other tool.
    async fn client_feature_tool(
        &self,
        request: &CallToolRequestParams,
        ctx: &RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        let args = request.arguments.clone().unwrap_or_default();
        let text = |s: String| {
            CallToolResponse::Complete(CallToolResult::success(vec![ContentBlock::text(s)]))
        };
        let (key, method, params) = match &*request.name {
            "ask-llm" => (
                "answer",
                "sampling/createMessage",
                json!({
                    "messages": [{"role": "user", "content": {"type": "text", "text": args.get("question").and_then(Value::as_str).unwrap_or("Say hello.")}}],
                    "maxTokens": 200
                }),
            ),
            "ask-user" => (
                "details",
                "elicitation/create",
                json!({
                    "mode": "form",
                    "message": args.get("message").and_then(Value::as_str).unwrap_or("Who are you?"),
                    "requestedSchema": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "title": "Name", "minLength": 1},
                            "subscribe": {"type": "boolean", "title": "Subscribe", "default": false}
                        },
                        "required": ["name"]
                    }
                }),
            ),
            "list-roots" => ("roots", "roots/list", Value::Null),
            "long-job" => return Some(self.long_job(&args, ctx).await),
            "touch-item" => {
                let uri = format!(
                    "demo://items/{}",
                    args.get("id").and_then(Value::as_str).unwrap_or("item-1")
                );
                let legacy = self
                    .subscribed
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .contains(&uri);
                if legacy {
                    let _ = ctx
                        .peer
                        .notify_resource_updated(
                            rmcp::model::ResourceUpdatedNotificationParam::new(uri.clone()),
                        )
                        .await;
                }
                // A stream acknowledged a moment ago may not be listening yet.
                let expected = self.listens.load(std::sync::atomic::Ordering::Relaxed);
                for _ in 0..50 {
                    if self.touched.receiver_count() >= expected {
                        break;
                    }
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
                let listeners = self.touched.send(uri.clone()).unwrap_or(0);
                return Some(Ok(text(format!(
                    "touched {uri} ({} subscriber(s))",
                    usize::from(legacy) + listeners
                ))));
            }
            "log" => {
                return Some(self.log(&args, ctx).await.map(text));
            }
            _ => return None,
        };
        let answer = match self.ask(request, ctx, key, method, params).await {
            Ok(Ok(a)) => a,
            Ok(Err(more)) => return Some(Ok(more)),
            Err(e) => return Some(Err(e)),
        };
        let out = match &*request.name {
            "ask-llm" => match answer["content"]["text"].as_str() {
                Some(t) => format!("the model said: {t}"),
                None => format!(
                    "no answer: {}",
                    answer["error"].as_str().unwrap_or("declined")
                ),
            },
            "ask-user" => match answer["action"].as_str() {
                Some("accept") => format!("accepted: {}", answer["content"]),
                Some(other) => format!("the user chose {other}"),
                None => format!(
                    "no answer: {}",
                    answer["error"].as_str().unwrap_or("declined")
                ),
            },
            _ => json!({
                "roots": answer["roots"],
                "listChanged": self.roots_changed.load(std::sync::atomic::Ordering::Relaxed),
            })
            .to_string(),
        };
        Some(Ok(text(out)))
    }

    /// `log`: one log message at `level`, if the client asked for that level or a lower one
    /// (`logging/setLevel` in the handshake era, the request's `_meta` level from
    /// `2026-07-28`, which sends nothing without one).
    async fn log(
        &self,
        args: &JsonObject,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<String, ErrorData> {
        use rmcp::model::LoggingLevel;
        let level: LoggingLevel =
            serde_json::from_value(args.get("level").cloned().unwrap_or(json!("info")))
                .map_err(|_| ErrorData::invalid_params("`level` is a log level", None))?;
        let message = args
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("hello from the demo server");
        let modern = ctx.protocol_version().is_some_and(|v| !v.has_initialize());
        let wanted = if modern {
            ctx.meta.log_level()
        } else {
            *self.log_level.lock().unwrap_or_else(|p| p.into_inner())
        };
        let rank = |l: LoggingLevel| {
            serde_json::to_value(l).ok().and_then(|v| {
                [
                    "debug",
                    "info",
                    "notice",
                    "warning",
                    "error",
                    "critical",
                    "alert",
                    "emergency",
                ]
                .iter()
                .position(|n| v == *n)
            })
        };
        let sent = match wanted {
            Some(w) => rank(level) >= rank(w),
            // The handshake era logs at the server's default (info) until told otherwise.
            None => !modern && rank(level) >= rank(LoggingLevel::Info),
        };
        if sent {
            let _ = ctx
                .peer
                .notify_logging_message(
                    rmcp::model::LoggingMessageNotificationParam::new(level, json!(message))
                        .with_logger("demo"),
                )
                .await;
        }
        Ok(if sent {
            "logged".into()
        } else {
            "below the requested level; not sent".into()
        })
    }

    async fn run_tool(
        &self,
        name: &str,
        args: JsonObject,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        if self.fault(Fault::UndeclaredLog) {
            let _ = ctx
                .peer
                .notify_logging_message(rmcp::model::LoggingMessageNotificationParam::new(
                    rmcp::model::LoggingLevel::Info,
                    json!(format!("calling {name}")),
                ))
                .await;
        }
        Ok(match name {
            "echo" => {
                if self.fault(Fault::SlowEcho) {
                    tokio::time::sleep(Duration::from_millis(1500)).await;
                }
                CallToolResult::success(vec![ContentBlock::text(text_arg(&args, "message")?)])
            }
            "read-file" if self.fault(Fault::Poisoned) => {
                CallToolResult::error(vec![ContentBlock::text("no such file")])
            }
            "show-config" if self.fault(Fault::Poisoned) => {
                CallToolResult::success(vec![ContentBlock::text(
                    "region=eu-west-1\nAWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n",
                )])
            }
            "get-stats" if self.fault(Fault::BadStructured) => {
                CallToolResult::structured(json!({"count": "many"}))
            }
            "slow" if self.fault(Fault::BadProgress) => {
                if let Some(t) = ctx.meta.get_progress_token() {
                    for p in [2.0, 1.0] {
                        let _ = ctx
                            .peer
                            .notify_progress(
                                ProgressNotificationParam::new(t.clone(), p).with_total(1.0),
                            )
                            .await;
                    }
                }
                CallToolResult::success(vec![ContentBlock::text("done")])
            }
            "legacy-echo" => CallToolResult::success(vec![ContentBlock::text(
                args.get("message")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_uppercase(),
            )]),
            "get-sum" => {
                let sum = num(&args, "a")? + num(&args, "b")?;
                CallToolResult::success(vec![ContentBlock::text(format_num(sum))])
            }
            "sum-card" => {
                let (a, b) = (num(&args, "a")?, num(&args, "b")?);
                let sum = a + b;
                let mut r = CallToolResult::structured(json!({"a": a, "b": b, "sum": sum}));
                r.content = vec![ContentBlock::text(format!(
                    "{} + {} = {}",
                    format_num(a),
                    format_num(b),
                    format_num(sum)
                ))];
                r
            }
            "get-stats" => {
                let nums: Vec<f64> = args
                    .get("numbers")
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_f64).collect())
                    .unwrap_or_default();
                if nums.is_empty() {
                    return Ok(CallToolResult::error(vec![ContentBlock::text(
                        "`numbers` must be a non-empty array of numbers",
                    )]));
                }
                let sum: f64 = nums.iter().sum();
                let min = nums.iter().cloned().fold(f64::INFINITY, f64::min);
                let max = nums.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                CallToolResult::structured(json!({
                    "count": nums.len(), "sum": sum, "mean": sum / nums.len() as f64, "min": min, "max": max
                }))
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text(format!(
                "the tool failed: {}",
                args.get("reason")
                    .and_then(Value::as_str)
                    .unwrap_or("as it always does")
            ))]),
            "slow" => {
                let duration = args
                    .get("durationMs")
                    .and_then(Value::as_u64)
                    .unwrap_or(1000);
                let steps = args
                    .get("steps")
                    .and_then(Value::as_u64)
                    .unwrap_or(5)
                    .max(1);
                let report = args
                    .get("progress")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                let token = ctx.meta.get_progress_token();
                for step in 1..=steps {
                    tokio::time::sleep(Duration::from_millis(duration / steps)).await;
                    if report && let Some(t) = &token {
                        let _ = ctx
                            .peer
                            .notify_progress(
                                ProgressNotificationParam::new(t.clone(), step as f64)
                                    .with_total(steps as f64)
                                    .with_message(format!("step {step} of {steps}")),
                            )
                            .await;
                    }
                }
                CallToolResult::success(vec![ContentBlock::text(format!(
                    "done after {duration} ms"
                ))])
            }
            "large-result" => {
                let size = args.get("size").and_then(Value::as_u64).unwrap_or(100_000) as usize;
                let line = "The quick brown fox jumps over the lazy dog. ";
                let text: String = line.chars().cycle().take(size).collect();
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            "list-items" => {
                let size = args
                    .get("pageSize")
                    .and_then(Value::as_u64)
                    .unwrap_or(5)
                    .max(1) as usize;
                let (items, next) = page(
                    &items_catalogue(),
                    args.get("cursor").and_then(Value::as_str),
                    size,
                )?;
                let mut out = json!({"items": items});
                if let Some(n) = next {
                    out["nextCursor"] = json!(n);
                }
                CallToolResult::structured(out)
            }
            "delete-item" => CallToolResult::success(vec![ContentBlock::text(format!(
                "deleted {}",
                text_arg(&args, "id")?
            ))]),
            "server-info" => CallToolResult::structured(json!({
                "pid": std::process::id(),
                "uptimeMs": self.started.elapsed().as_millis() as u64,
            })),
            "noop" => CallToolResult::success(vec![]),
            "crash" => {
                eprintln!("demo-server: crashing on purpose (the `crash` tool)");
                tokio::time::sleep(Duration::from_millis(20)).await;
                std::process::exit(3);
            }
            other if self.fault(Fault::ErrorCodes) => {
                CallToolResult::error(vec![ContentBlock::text(format!("unknown tool `{other}`"))])
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool `{other}`"),
                    None,
                ));
            }
        })
    }
}

/// Counts a `subscriptions/listen` stream as gone when its loop ends.
struct DecrementOnDrop(Arc<std::sync::atomic::AtomicUsize>);

impl Drop for DecrementOnDrop {
    fn drop(&mut self) {
        self.0.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}

fn format_num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}

impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        let mut caps = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .enable_logging()
            .enable_tasks()
            .build();
        if self.opts.client_features
            && let Some(r) = caps.resources.as_mut()
        {
            r.subscribe = Some(true);
        }
        if !self.opts.prompts {
            caps.prompts = None;
        }
        if !self.opts.resources {
            caps.resources = None;
        }
        if self.fault(Fault::UndeclaredLog) {
            caps.logging = None;
        }
        let version = if self.fault(Fault::BadServerInfo) {
            ""
        } else {
            env!("CARGO_PKG_VERSION")
        };
        ServerConfig::new(caps)
            .with_server_info(
                Implementation::new("evaldeck-demo", version).with_title("evaldeck demo server"),
            )
            .with_instructions(
                "A demo server for evaldeck.\nTry `echo`, `get-sum` or `get-stats`;\n`slow` reports progress and `crash` exits mid-call.",
            )
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if self.fault(Fault::CursorLoop) {
            let mut r = ListToolsResult::with_all_items(self.tools());
            r.next_cursor = Some("again".into());
            return Ok(r);
        }
        let at = cursor(&request)
            .filter(|c| !(self.fault(Fault::ErrorCodes) && c.parse::<usize>().is_err()));
        let (items, next) = page(&self.tools(), at, self.opts.page_size)?;
        let mut r = ListToolsResult::with_all_items(items);
        r.next_cursor = next;
        Ok(r)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.opts.client_features
            && let Some(r) = self.client_feature_tool(&request, &context).await
        {
            return r;
        }
        let args = request.arguments.clone().unwrap_or_default();
        self.run_tool(&request.name, args, &context)
            .await
            .map(CallToolResponse::Complete)
    }

    fn supported_protocol_versions(
        &self,
    ) -> std::borrow::Cow<'static, [rmcp::model::ProtocolVersion]> {
        if self.opts.protocols.is_empty() {
            std::borrow::Cow::Borrowed(rmcp::model::ProtocolVersion::KNOWN_VERSIONS)
        } else {
            std::borrow::Cow::Owned(self.opts.protocols.clone())
        }
    }

    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        *self.log_level.lock().unwrap_or_else(|p| p.into_inner()) = Some(request.level);
        Ok(())
    }

    async fn subscribe(
        &self,
        request: rmcp::model::SubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(request.uri);
        Ok(())
    }

    fn accepted_subscription_filter(
        &self,
        requested: &rmcp::model::SubscriptionFilter,
    ) -> Option<rmcp::model::SubscriptionFilter> {
        self.opts.client_features.then(|| {
            self.listens
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            requested.clone()
        })
    }

    async fn listen(&self, context: rmcp::service::SubscriptionContext) -> Result<(), ErrorData> {
        let mut touched = self.touched.subscribe();
        let _done = DecrementOnDrop(self.listens.clone());
        let wanted: Vec<String> = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        loop {
            tokio::select! {
                _ = context.cancelled() => return Ok(()),
                uri = touched.recv() => match uri {
                    Ok(uri) if wanted.contains(&uri) => {
                        let _ = context.sink().notify_resource_updated(uri).await;
                    }
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(_) => return Ok(()),
                },
            }
        }
    }

    async fn get_task(
        &self,
        request: rmcp::model::GetTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        use rmcp::model::{DetailedTask, GetTaskResult, Task, TaskPayload, TaskStatus};
        let job = self
            .jobs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&request.task_id)
            .cloned()
            .ok_or_else(|| ErrorData::invalid_params("no such task", None))?;
        let now = chrono::Utc::now().to_rfc3339();
        let task = Task::new(
            request.task_id.clone(),
            job.status,
            job.created.clone(),
            now,
        )
        .with_status_message(job.message.clone())
        .with_poll_interval_ms(50)
        .with_ttl_ms(60_000);
        let payload = match job.status {
            TaskStatus::InputRequired => {
                let wanted: rmcp::model::InputRequest = serde_json::from_value(json!({
                    "method": "elicitation/create",
                    "params": {
                        "mode": "form",
                        "message": "Who is this job for?",
                        "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
                    }
                }))
                .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
                TaskPayload::InputRequired {
                    input_requests: [("who".to_string(), wanted)].into_iter().collect(),
                }
            }
            TaskStatus::Completed => TaskPayload::Completed {
                result: job
                    .result
                    .and_then(|r| r.as_object().cloned())
                    .unwrap_or_default(),
            },
            TaskStatus::Cancelled => TaskPayload::Cancelled,
            _ => TaskPayload::Working,
        };
        Ok(GetTaskResult::new(DetailedTask::new(task, payload)))
    }

    async fn update_task(
        &self,
        request: rmcp::model::UpdateTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(j) = self
            .jobs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&request.task_id)
            && let Some(a) = request.input_responses.get("who")
        {
            j.answer = Some(a.clone());
        }
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: rmcp::model::CancelTaskParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if let Some(j) = self
            .jobs
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&request.task_id)
            && !j.status.is_terminal()
        {
            j.status = rmcp::model::TaskStatus::Cancelled;
            j.message = "cancelled by the client".into();
        }
        Ok(())
    }

    async fn on_roots_list_changed(
        &self,
        _context: rmcp::service::NotificationContext<RoleServer>,
    ) {
        self.roots_changed
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }

    async fn on_cancelled(
        &self,
        _notification: rmcp::model::CancelledNotificationParam,
        _context: rmcp::service::NotificationContext<RoleServer>,
    ) {
        if self.fault(Fault::CancelExits) {
            eprintln!("demo-server: exiting on a cancellation (--fault cancel-exits)");
            std::process::exit(4);
        }
    }

    /// A request rmcp could not read as the method it names: known methods with bad params
    /// are -32602 (Invalid params), the rest -32601.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        if self.fault(Fault::ErrorCodes) {
            return Ok(rmcp::model::CustomResult::new(json!({})));
        }
        let method = request.method.as_str();
        const KNOWN: &[&str] = &[
            "tools/call",
            "tools/list",
            "prompts/get",
            "prompts/list",
            "resources/read",
            "resources/list",
            "resources/templates/list",
            "resources/subscribe",
            "resources/unsubscribe",
            "logging/setLevel",
            "completion/complete",
        ];
        if KNOWN.contains(&method) {
            return Err(ErrorData::invalid_params(
                format!("the params of {method} do not fit it"),
                None,
            ));
        }
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            method.to_string(),
            None,
        ))
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        if !self.opts.prompts {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "prompts/list",
                None,
            ));
        }
        if self.fault(Fault::ListFails) {
            return Err(ErrorData::internal_error("the prompt store is down", None));
        }
        let mut all = prompts();
        if self.fault(Fault::BadPrompts) {
            all.push(Prompt::new(
                "dup-args",
                Some("Names its argument twice."),
                Some(vec![
                    PromptArgument::new("a").with_required(true),
                    PromptArgument::new("a"),
                ]),
            ));
            // Listed, but it cannot be rendered.
            all.push(Prompt::new("broken", Some("Fails to render."), None));
        }
        if self.fault(Fault::CursorLoop) {
            let mut r = ListPromptsResult::with_all_items(all);
            r.next_cursor = Some("again".into());
            return Ok(r);
        }
        let (items, next) = page(&all, cursor(&request), self.opts.page_size)?;
        let mut r = ListPromptsResult::with_all_items(items);
        r.next_cursor = next;
        Ok(r)
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if !self.opts.prompts {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "prompts/get",
                None,
            ));
        }
        let args = request.arguments.unwrap_or_default();
        let arg = |k: &str| args.get(k).and_then(Value::as_str).map(str::to_string);
        let result = match &*request.name {
            "greeting" => {
                let name = match arg("name") {
                    Some(n) => n,
                    None if self.fault(Fault::ErrorCodes) => "there".into(),
                    None => return Err(ErrorData::invalid_params("`name` is required", None)),
                };
                let line = match arg("style").as_deref() {
                    Some("formal") => format!("Please write a formal greeting for {name}."),
                    _ => format!("Say hi to {name}!"),
                };
                GetPromptResult::new(vec![PromptMessage::new_text(Role::User, line)])
                    .with_description(format!("A greeting for {name}"))
            }
            "summarize" => {
                let text = arg("text")
                    .ok_or_else(|| ErrorData::invalid_params("`text` is required", None))?;
                let words = arg("words").unwrap_or_else(|| "50".into());
                GetPromptResult::new(vec![
                    PromptMessage::new_text(
                        Role::User,
                        format!("Summarize in about {words} words:\n\n{text}"),
                    ),
                    PromptMessage::new_text(Role::Assistant, "Here is a summary:"),
                ])
            }
            "help" => GetPromptResult::new(vec![PromptMessage::new_text(
                Role::User,
                "What can the evaldeck demo server do?",
            )]),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown prompt `{other}`"),
                    None,
                ));
            }
        };
        Ok(GetPromptResponse::Complete(result))
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        if !self.opts.resources {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "resources/list",
                None,
            ));
        }
        let mut all = resources();
        if self.fault(Fault::BadUris) {
            all.push(Resource::new("readme.txt", "relative"));
        }
        if self.fault(Fault::CursorLoop) {
            let mut r = ListResourcesResult::with_all_items(all);
            r.next_cursor = Some("again".into());
            return Ok(r);
        }
        let (items, next) = page(&all, cursor(&request), self.opts.page_size)?;
        let mut r = ListResourcesResult::with_all_items(items);
        r.next_cursor = next;
        Ok(r)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        if !self.opts.resources {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "resources/templates/list",
                None,
            ));
        }
        let mut all = vec![
            ResourceTemplate::new("demo://items/{id}", "item")
                .with_description("One catalogue item as JSON")
                .with_mime_type("application/json"),
        ];
        if self.fault(Fault::BadUris) {
            all.push(ResourceTemplate::new("demo://items/{id", "broken"));
        }
        let mut r = ListResourceTemplatesResult::with_all_items(all);
        if self.fault(Fault::CursorLoop) {
            r.next_cursor = Some("again".into());
        }
        Ok(r)
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if !self.opts.resources {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                "resources/read",
                None,
            ));
        }
        let uri = request.uri.as_str();
        let b64 = |b: &[u8]| base64::engine::general_purpose::STANDARD.encode(b);
        let contents = match uri {
            "demo://readme" => ResourceContents::text(README, uri).with_mime_type("text/markdown"),
            "demo://config.json" => {
                ResourceContents::text(json!({"name": "demo", "items": 12}).to_string(), uri)
                    .with_mime_type("application/json")
            }
            SUM_CARD_URI => ResourceContents::text(SUM_CARD_HTML, uri)
                .with_mime_type(crate::service::widgets::APP_MIME)
                .with_meta(rmcp::model::MetaObject::from(
                    json!({"ui": {"prefersBorder": true}})
                        .as_object()
                        .cloned()
                        .unwrap_or_default(),
                )),
            "demo://logo.png" => {
                ResourceContents::blob(b64(&logo_png()), uri).with_mime_type("image/png")
            }
            "demo://data.bin" => ResourceContents::blob(b64(&(0u8..=255).collect::<Vec<_>>()), uri)
                .with_mime_type("application/octet-stream"),
            _ => match uri.strip_prefix("demo://items/") {
                Some(id) if items_catalogue().iter().any(|i| i["id"] == id) => {
                    let item = items_catalogue()
                        .into_iter()
                        .find(|i| i["id"] == id)
                        .unwrap_or_default();
                    ResourceContents::text(item.to_string(), uri).with_mime_type("application/json")
                }
                _ if self.fault(Fault::ErrorCodes) => {
                    return Err(ErrorData::internal_error(
                        format!("no resource `{uri}`"),
                        None,
                    ));
                }
                _ => {
                    return Err(ErrorData::resource_not_found(
                        format!("no resource `{uri}`"),
                        Some(json!({"uri": uri})),
                    ));
                }
            },
        };
        Ok(ReadResourceResponse::Complete(ReadResourceResult::new(
            vec![contents],
        )))
    }
}
