//! The agent's tools: the service's own read operations on servers, suites and runs, and
//! creating an eval suite, called in process as the caller's principal. There is no tool
//! that starts a run. A tool's failure is returned as an error value for the model to read,
//! never raised out of the turn.

use serde_json::{Map, Value, json};

use crate::service::models::ToolSpec;
use crate::service::{Principal, Service};
use crate::spec::page::PageRequest;
use crate::spec::server::{Server, Transport};
use crate::spec::suite::SuiteCreate;
use crate::spec::{Error, Result};

/// Runs listed by `list_suite_runs` unless the model asks for fewer.
const DEFAULT_RUNS: usize = 10;
/// Items of one list handed to the model.
const LIST_LIMIT: usize = 200;
/// Iterations shown with a run.
const ITERATIONS_LIMIT: usize = 50;

/// Something a tool created.
pub(super) struct Created {
    pub kind: &'static str,
    pub id: String,
    pub name: Option<String>,
    /// The API path below `/api/v1`.
    pub path: String,
}

/// A tool's answer: the JSON handed to the model, and what it created.
pub(super) struct Output {
    pub result: Value,
    pub created: Option<Created>,
}

impl Output {
    fn read(result: Value) -> Result<Output> {
        Ok(Output {
            result,
            created: None,
        })
    }
}

fn object(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// The tools offered to the model; `hosted` lists the model ids suites may name.
pub(super) fn specs(hosted: &[String]) -> Vec<ToolSpec> {
    let tool = |name: &str, description: String, schema: Value| ToolSpec {
        name: name.into(),
        description: Some(description),
        input_schema: schema,
    };
    let suite_arg = json!({"suite": {"type": "string", "description": "Suite id or name"}});
    let step = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string", "description": "Unique within the test, e.g. s1"},
            "kind": {"type": "string", "enum": ["prompt", "toolCall", "interact", "assert"]},
            "prompt": {"type": "string", "description": "For prompt: the user message"},
            "toolName": {"type": "string", "description": "For toolCall: the MCP tool"},
            "serverName": {"type": "string", "description": "For toolCall: the server owning the tool"},
            "arguments": {"type": "object", "description": "For toolCall: the tool's arguments"},
            "assertion": {"type": "object", "description": "For assert: an assertion object with a `type`, e.g. {\"type\": \"toolCalled\", \"toolName\": \"echo\"} or {\"type\": \"responseContains\", \"needle\": \"42\"}"}
        },
        "required": ["id", "kind"]
    });
    let models = if hosted.is_empty() {
        "builtin/baseline".to_string()
    } else {
        hosted.join(", ")
    };
    vec![
        tool(
            "list_servers",
            "List the project's saved MCP servers (id, name, transport, enabled, last status)."
                .into(),
            object(json!({}), &[]),
        ),
        tool(
            "get_server",
            "Read one saved MCP server by id or name (its transport without secrets).".into(),
            object(
                json!({"server": {"type": "string", "description": "Server id or name"}}),
                &["server"],
            ),
        ),
        tool(
            "list_eval_suites",
            "List the project's eval suites with their latest run, totals and pass-rate trend."
                .into(),
            object(json!({}), &[]),
        ),
        tool(
            "get_eval_suite",
            "Read one eval suite by id or name, with its settings and all of its cases.".into(),
            object(suite_arg.clone(), &["suite"]),
        ),
        tool(
            "list_suite_runs",
            "List a suite's eval runs, newest first (status, result, summary).".into(),
            object(
                json!({
                    "suite": {"type": "string", "description": "Suite id or name"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 200, "description": "Runs to list (default 10)"}
                }),
                &["suite"],
            ),
        ),
        tool(
            "get_eval_run",
            format!(
                "Read one eval run by id, with its first {ITERATIONS_LIMIT} iterations (results, tool calls, errors)."
            ),
            object(
                json!({"runId": {"type": "string", "description": "The run's id (run_…)"}}),
                &["runId"],
            ),
        ),
        tool(
            "create_eval_suite",
            format!(
                "Create an eval suite with its test cases in this project (the body of POST eval-suites). \
                 It starts nothing and spends nothing; runs cannot be started from here. \
                 `serverIds` are saved server ids or names; `model` is the suite's default model id, one of: {models}."
            ),
            object(
                json!({
                    "name": {"type": "string"},
                    "description": {"type": "string"},
                    "serverIds": {"type": "array", "items": {"type": "string"}, "minItems": 1},
                    "model": {"type": "string"},
                    "provider": {"type": "string"},
                    "passCriteria": {"type": "object", "properties": {"minimumPassRate": {"type": "number", "minimum": 0, "maximum": 100}}},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "tests": {
                        "type": "array", "minItems": 1, "maxItems": 100,
                        "items": {
                            "type": "object",
                            "properties": {
                                "title": {"type": "string"},
                                "steps": {"type": "array", "minItems": 1, "items": step},
                                "runs": {"type": "integer", "minimum": 1, "maximum": 10},
                                "expectedOutput": {"type": "string"},
                                "isNegativeTest": {"type": "boolean"},
                                "scenario": {"type": "string"}
                            },
                            "required": ["title", "steps"]
                        }
                    }
                }),
                &["name", "serverIds", "model", "tests"],
            ),
        ),
    ]
}

/// The arguments as an object (a model may send `null` for "no arguments").
fn args_object(args: &Value) -> Result<Map<String, Value>> {
    match args {
        Value::Object(m) => Ok(m.clone()),
        Value::Null => Ok(Map::new()),
        _ => Err(Error::invalid(
            "",
            "type",
            "the arguments must be a JSON object",
        )),
    }
}

fn string_arg(args: &Map<String, Value>, key: &str) -> Result<String> {
    match args.get(key) {
        Some(Value::String(s)) if !s.trim().is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(Error::invalid(
            &format!("/{key}"),
            "minLength",
            "must not be empty",
        )),
        Some(_) => Err(Error::invalid(
            &format!("/{key}"),
            "type",
            "must be a string",
        )),
        None => Err(Error::invalid(
            &format!("/{key}"),
            "required",
            format!("`{key}` is required"),
        )),
    }
}

/// A server without its secrets (headers, environment): what the model may read.
fn server_view(s: &Server) -> Value {
    let mut v = json!({
        "id": s.id, "name": s.name, "enabled": s.enabled, "transportType": s.transport_type,
        "useOAuth": s.use_oauth,
    });
    if let Some(u) = &s.url {
        v["url"] = json!(u);
    }
    if let Some(st) = &s.last_status {
        v["lastStatus"] = json!(st);
    }
    if let Some(Transport::Stdio { command, args, .. }) = s.config.as_ref().map(|c| &c.transport) {
        v["command"] = json!(command);
        v["args"] = json!(args);
    }
    v
}

fn page(limit: usize) -> PageRequest {
    PageRequest {
        cursor: None,
        limit: Some(limit),
    }
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Runs one tool as `who` in `project`.
pub(super) fn call(
    service: &Service,
    who: &Principal,
    project: &str,
    name: &str,
    args: &Value,
) -> Result<Output> {
    let a = args_object(args)?;
    match name {
        "list_servers" => {
            let p = service.servers(who, project, &page(LIST_LIMIT))?;
            let items: Vec<Value> = p.items.iter().map(server_view).collect();
            Output::read(json!({"items": items, "more": p.next_cursor.is_some()}))
        }
        "get_server" => {
            let s = service.server(who, project, &string_arg(&a, "server")?)?;
            Output::read(server_view(&s))
        }
        "list_eval_suites" => {
            let p = service.eval_suites(who, project, &page(LIST_LIMIT))?;
            Output::read(json!({"items": to_value(&p.items), "more": p.next_cursor.is_some()}))
        }
        "get_eval_suite" => {
            let suite = string_arg(&a, "suite")?;
            let s = service.suite(who, project, &suite)?;
            let cases = service.cases(who, project, &s.id, &Default::default())?;
            let mut v = to_value(&s);
            v["cases"] = to_value(&cases.items);
            Output::read(v)
        }
        "list_suite_runs" => {
            let suite = string_arg(&a, "suite")?;
            let limit = match a.get("limit") {
                None | Some(Value::Null) => DEFAULT_RUNS,
                Some(v) => match v.as_u64() {
                    Some(n @ 1..=200) => n as usize,
                    _ => {
                        return Err(Error::invalid(
                            "/limit",
                            "range",
                            "must be an integer from 1 to 200",
                        ));
                    }
                },
            };
            let p = service.suite_runs(who, project, &suite, &page(limit))?;
            Output::read(json!({"items": to_value(&p.items), "more": p.next_cursor.is_some()}))
        }
        "get_eval_run" => {
            let id = string_arg(&a, "runId")?;
            let run = service.run(who, project, &id)?;
            let its = service.iterations(who, project, &run.id, &page(ITERATIONS_LIMIT))?;
            let mut v = to_value(&run);
            v["iterations"] = to_value(&its.items);
            v["moreIterations"] = json!(its.next_cursor.is_some());
            Output::read(v)
        }
        "create_eval_suite" => {
            let body: SuiteCreate = crate::spec::validate::from_value(Value::Object(a))?;
            let created = service.create_suite(who, project, &body)?;
            let path = format!("/projects/{project}/eval-suites/{}", created.suite_id);
            Ok(Output {
                result: to_value(&created),
                created: Some(Created {
                    kind: "eval_suite",
                    id: created.suite_id.clone(),
                    name: Some(created.name.clone()),
                    path,
                }),
            })
        }
        "start_eval_run" | "create_eval_run" | "run_eval_suite" => Err(Error::forbidden(
            "the agent cannot start eval runs; the user starts them with `evaldeck run` or POST eval-runs",
        )),
        other => Err(Error::invalid(
            "",
            "tool",
            format!("there is no tool `{other}`"),
        )),
    }
}
