//! The demo server's MCP side: tools, prompts and resources chosen to exercise every
//! diagnostic and assertion — with and without descriptions and annotations, structured
//! output, a deprecated tool, a tool error, progress, a large result, paging, a crash.

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

/// What the server offers; flags remove parts so tests can produce faults.
#[derive(Debug, Clone)]
pub struct DemoOptions {
    pub prompts: bool,
    pub resources: bool,
    /// Items per page of `tools/list`, `prompts/list` and `resources/list`; 0 = one page.
    pub page_size: usize,
}

#[derive(Clone)]
pub struct DemoServer {
    opts: Arc<DemoOptions>,
    started: Instant,
}

/// A 1×1 transparent PNG: the binary resource.
const PNG: &[u8] = &[
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F, 0x15, 0xC4,
    0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0D, 0x0A, 0x2D, 0xB4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE,
    0x42, 0x60, 0x82,
];

const README: &str = "# evaldeck demo server\n\nA small MCP server bundled with evaldeck, for first runs and tests.\n";

fn schema(v: Value) -> Arc<JsonObject> {
    Arc::new(v.as_object().cloned().unwrap_or_default())
}

fn tools() -> Vec<Tool> {
    let read_only = ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true);
    vec![
        Tool::new(
            "echo",
            "Echo a message back unchanged.",
            schema(json!({
                "type": "object",
                "properties": {"message": {"type": "string", "description": "Text to echo"}},
                "required": ["message"]
            })),
        )
        .with_annotations(read_only.clone().open_world(false)),
        Tool::new(
            "get-sum",
            "Add two numbers and return the sum.",
            schema(json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "get-stats",
            "Count, sum, mean, min and max of a list of numbers, as structured content.",
            schema(json!({
                "type": "object",
                "properties": {"numbers": {"type": "array", "items": {"type": "number"}, "minItems": 1}},
                "required": ["numbers"]
            })),
        )
        .with_raw_output_schema(schema(json!({
            "type": "object",
            "properties": {
                "count": {"type": "integer"}, "sum": {"type": "number"}, "mean": {"type": "number"},
                "min": {"type": "number"}, "max": {"type": "number"}
            },
            "required": ["count", "sum", "mean", "min", "max"]
        })))
        .with_annotations(ToolAnnotations::with_title("Statistics").read_only(true)),
        Tool::new(
            "legacy-echo",
            "DEPRECATED: use `echo`. Echoes a message in upper case.",
            schema(json!({"type": "object", "properties": {"message": {"type": "string"}}})),
        )
        .with_meta(rmcp::model::MetaObject::from(
            json!({"deprecated": true, "replacement": "echo"}).as_object().cloned().unwrap_or_default(),
        )),
        Tool::new(
            "fail",
            "Always fails: returns a tool error result (isError: true).",
            schema(json!({"type": "object", "properties": {"reason": {"type": "string"}}})),
        ),
        Tool::new(
            "slow",
            "Waits `durationMs`, reporting progress in `steps` (unless `progress` is false).",
            schema(json!({
                "type": "object",
                "properties": {
                    "durationMs": {"type": "integer", "minimum": 0, "default": 1000},
                    "steps": {"type": "integer", "minimum": 1, "default": 5},
                    "progress": {"type": "boolean", "default": true}
                }
            })),
        )
        .with_annotations(read_only.clone()),
        Tool::new(
            "large-result",
            "Returns `size` bytes of text (default 100000).",
            schema(json!({"type": "object", "properties": {"size": {"type": "integer", "minimum": 0}}})),
        ),
        Tool::new(
            "list-items",
            "Lists the catalogue page by page: pass back `nextCursor` as `cursor`.",
            schema(json!({
                "type": "object",
                "properties": {"cursor": {"type": "string"}, "pageSize": {"type": "integer", "minimum": 1, "default": 5}}
            })),
        )
        .with_raw_output_schema(schema(json!({
            "type": "object",
            "properties": {"items": {"type": "array"}, "nextCursor": {"type": "string"}},
            "required": ["items"]
        })))
        .with_annotations(read_only.clone()),
        Tool::new(
            "delete-item",
            "Deletes an item from the catalogue (pretends to).",
            schema(json!({"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]})),
        )
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(true).idempotent(true)),
        Tool::new(
            "server-info",
            "The server's process id and uptime.",
            schema(json!({"type": "object", "properties": {}})),
        )
        .with_annotations(read_only),
        Tool::new_with_raw("noop", None, schema(json!({"type": "object", "properties": {}}))),
        Tool::new(
            "crash",
            "Exits the server process in the middle of the call (a fault for tests).",
            schema(json!({"type": "object", "properties": {}})),
        )
        .with_annotations(ToolAnnotations::new().destructive(true)),
    ]
}

fn prompts() -> Vec<Prompt> {
    vec![
        Prompt::new(
            "greeting",
            Some("Greet someone by name."),
            Some(vec![
                PromptArgument::new("name")
                    .with_description("Who to greet")
                    .with_required(true),
                PromptArgument::new("style")
                    .with_description("formal or casual")
                    .with_required(false),
            ]),
        ),
        Prompt::new(
            "summarize",
            Some("Ask for a summary of a text."),
            Some(vec![
                PromptArgument::new("text").with_required(true),
                PromptArgument::new("words").with_description("Target length in words"),
            ]),
        ),
        Prompt::new("help", None::<String>, None),
    ]
}

fn resources() -> Vec<Resource> {
    vec![
        Resource::new("demo://readme", "readme")
            .with_description("About this server")
            .with_mime_type("text/markdown"),
        Resource::new("demo://config.json", "config")
            .with_description("A JSON document")
            .with_mime_type("application/json"),
        Resource::new("demo://logo.png", "logo")
            .with_description("A tiny PNG (binary)")
            .with_mime_type("image/png"),
        Resource::new("demo://data.bin", "data").with_mime_type("application/octet-stream"),
    ]
}

fn items_catalogue() -> Vec<Value> {
    (1..=12)
        .map(|i| json!({"id": format!("item-{i}"), "name": format!("Item {i}")}))
        .collect()
}

/// Pages `all` by the numeric offset in `cursor`.
fn page<T: Clone>(
    all: &[T],
    cursor: Option<&str>,
    size: usize,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let start = match cursor {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .map_err(|_| ErrorData::invalid_params("invalid cursor", None))?,
    };
    if start > all.len() {
        return Err(ErrorData::invalid_params("invalid cursor", None));
    }
    if size == 0 {
        return Ok((all[start..].to_vec(), None));
    }
    let end = (start + size).min(all.len());
    let next = (end < all.len()).then(|| end.to_string());
    Ok((all[start..end].to_vec(), next))
}

fn cursor(req: &Option<PaginatedRequestParams>) -> Option<&str> {
    req.as_ref().and_then(|p| p.cursor.as_deref())
}

fn num(args: &JsonObject, key: &str) -> Result<f64, ErrorData> {
    args.get(key)
        .and_then(Value::as_f64)
        .ok_or_else(|| ErrorData::invalid_params(format!("`{key}` must be a number"), None))
}

fn text_arg<'a>(args: &'a JsonObject, key: &str) -> Result<&'a str, ErrorData> {
    args.get(key)
        .and_then(Value::as_str)
        .ok_or_else(|| ErrorData::invalid_params(format!("`{key}` must be a string"), None))
}

impl DemoServer {
    pub fn new(opts: DemoOptions) -> Self {
        DemoServer {
            opts: Arc::new(opts),
            started: Instant::now(),
        }
    }

    async fn run_tool(
        &self,
        name: &str,
        args: JsonObject,
        ctx: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        Ok(match name {
            "echo" => {
                CallToolResult::success(vec![ContentBlock::text(text_arg(&args, "message")?)])
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
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool `{other}`"),
                    None,
                ));
            }
        })
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
            .build();
        if !self.opts.prompts {
            caps.prompts = None;
        }
        if !self.opts.resources {
            caps.resources = None;
        }
        ServerConfig::new(caps)
            .with_server_info(
                Implementation::new("evaldeck-demo", env!("CARGO_PKG_VERSION"))
                    .with_title("evaldeck demo server"),
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
        let (items, next) = page(&tools(), cursor(&request), self.opts.page_size)?;
        let mut r = ListToolsResult::with_all_items(items);
        r.next_cursor = next;
        Ok(r)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.clone().unwrap_or_default();
        self.run_tool(&request.name, args, &context)
            .await
            .map(CallToolResponse::Complete)
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
        let (items, next) = page(&prompts(), cursor(&request), self.opts.page_size)?;
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
        let result = match request.name.as_str() {
            "greeting" => {
                let name = arg("name")
                    .ok_or_else(|| ErrorData::invalid_params("`name` is required", None))?;
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
        let (items, next) = page(&resources(), cursor(&request), self.opts.page_size)?;
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
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("demo://items/{id}", "item")
                .with_description("One catalogue item as JSON")
                .with_mime_type("application/json"),
        ]))
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
            "demo://logo.png" => ResourceContents::blob(b64(PNG), uri).with_mime_type("image/png"),
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
