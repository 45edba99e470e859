//! The OpenAPI 3.1 document, built from the operation list that builds the router, with
//! schemas generated from the wire types: it cannot list a route that is not served, nor
//! miss one that is.

use schemars::{JsonSchema, SchemaGenerator, generate::SchemaSettings};

use crate::operations::QueryParams;
use serde_json::{Map, Value, json};

/// One documented answer of an operation.
#[derive(Clone)]
pub struct Answer {
    pub status: u16,
    pub description: &'static str,
    pub schema: Value,
}

impl Answer {
    pub fn success(status: u16, schema: Value) -> Answer {
        Answer {
            status,
            description: "success",
            schema,
        }
    }

    /// A status answered with the spec's error body.
    pub fn error(status: u16, description: &'static str) -> Answer {
        Answer {
            status,
            description,
            schema: json!({"$ref": "#/components/schemas/Error"}),
        }
    }
}

/// One documented operation.
#[derive(Clone)]
pub struct Operation {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    pub request: Option<Value>,
    /// Query parameters, generated from the operation's query types.
    pub query: Vec<Value>,
    /// Documented answers besides the error default, the success (if any) first.
    pub answers: Vec<Answer>,
    pub extension: bool,
    /// Authorized by something other than the API key (an upload URL's token).
    pub public: bool,
    /// Set on a deprecated alias: the current path that replaces it.
    pub successor: Option<&'static str>,
}

/// The lowercase method name OpenAPI keys operations by.
pub fn method_name(method: &axum::http::Method) -> &'static str {
    match method.as_str() {
        "GET" => "get",
        "POST" => "post",
        "PATCH" => "patch",
        "DELETE" => "delete",
        "PUT" => "put",
        _ => unreachable!("methods the API serves"),
    }
}

/// Collects schemas into `components/schemas` as operations are registered.
pub struct Doc {
    generator: SchemaGenerator,
    pub operations: Vec<Operation>,
}

impl Default for Doc {
    fn default() -> Self {
        let settings = SchemaSettings::openapi3().with(|s| {
            s.definitions_path = "/components/schemas".into();
        });
        Doc {
            generator: settings.into_generator(),
            operations: Vec::new(),
        }
    }
}

impl Doc {
    pub fn schema<T: JsonSchema>(&mut self) -> Value {
        self.generator.subschema_for::<T>().to_value()
    }

    /// The documented query parameters of an operation's query.
    pub fn query<Q: QueryParams>(&mut self) -> Vec<Value> {
        Q::document(&mut self.generator)
    }

    pub fn render(&mut self, base: &str) -> Value {
        let mut paths = Map::new();
        for op in &self.operations {
            let entry = paths
                .entry(op.path.to_string())
                .or_insert_with(|| json!({}));
            let mut params: Vec<Value> = op
                .path
                .split('/')
                .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
                .map(|name| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}}))
                .collect();
            params.extend(op.query.iter().cloned());
            let mut responses = Map::new();
            for a in &op.answers {
                responses.insert(
                    a.status.to_string(),
                    json!({"description": a.description, "content": {"application/json": {"schema": a.schema}}}),
                );
            }
            if !op.public {
                // Every keyed request passes the per-key rate limit.
                responses.insert(
                    "429".into(),
                    json!({
                        "description": "RATE_LIMITED: the key's request rate is exhausted",
                        "headers": {"Retry-After": {
                            "description": "Whole seconds to wait before retrying",
                            "required": true,
                            "schema": {"type": "integer", "minimum": 1},
                        }},
                        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
                    }),
                );
            }
            responses.insert(
                "default".into(),
                json!({"description": "error", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}),
            );
            let mut o = json!({
                "summary": op.summary,
                "operationId": format!("{}{}", op.method, op.path.replace(['/', '{', '}', '-'], "_")),
                "parameters": params,
                "security": if op.public { json!([]) } else { json!([{"bearer": []}]) },
                "responses": responses,
            });
            if op.extension {
                o["x-evaldeck-extension"] = json!(true);
            }
            if let Some(current) = op.successor {
                o["deprecated"] = json!(true);
                o["description"] = json!(format!(
                    "Deprecated alias of `{} {current}`, kept for older clients; new integrations use that path. Answers carry `Deprecation: true` and `Link: <{current}>; rel=\"successor-version\"`.",
                    op.method.to_uppercase()
                ));
            }
            if let Some(req) = &op.request {
                o["requestBody"] =
                    json!({"required": true, "content": {"application/json": {"schema": req}}});
            }
            entry[op.method] = o;
        }
        let mut schemas = self.generator.definitions().clone();
        schemas.insert(
            "Error".into(),
            json!({
                "type": "object",
                "required": ["code", "message"],
                "properties": {
                    "code": {"type": "string", "description": "Stable error code, e.g. VALIDATION_ERROR"},
                    "message": {"type": "string"},
                    "details": {"type": "object"},
                },
            }),
        );
        json!({
            "openapi": "3.1.0",
            "info": {
                "title": "evaldeck API",
                "version": env!("CARGO_PKG_VERSION"),
                "description": "Operate saved MCP servers, eval suites and runs. Operations marked x-evaldeck-extension are additive to the published contract.",
            },
            "servers": [{"url": base}],
            "components": {
                "schemas": schemas,
                "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer", "description": "API key, `sk_…`"}},
            },
            "paths": paths,
        })
    }
}
