//! Saved MCP servers: how to reach one (its transport) and the catalog object clients see.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::error::Error;
use super::validate::{Checker, join};

/// How the service reaches an MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Transport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// The child's whole environment: nothing else of the service's is passed on
        /// except `PATH` and `HOME` when they are not set here.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// Streamable HTTP (MCP 2025-03-26 and later).
    Http {
        url: String,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
    },
    /// Legacy HTTP+SSE (MCP 2024-11-05): GET an event stream, POST to the endpoint it names.
    Sse {
        url: String,
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        headers: BTreeMap<String, String>,
    },
}

impl Transport {
    /// `stdio`, `http` or `sse`: the wire's `transportType`.
    pub fn kind(&self) -> &'static str {
        match self {
            Transport::Stdio { .. } => "stdio",
            Transport::Http { .. } => "http",
            Transport::Sse { .. } => "sse",
        }
    }

    pub fn url(&self) -> Option<&str> {
        match self {
            Transport::Stdio { .. } => None,
            Transport::Http { url, .. } | Transport::Sse { url, .. } => Some(url),
        }
    }
}

/// Default time to connect and initialize.
pub const DEFAULT_CONNECT_TIMEOUT_MS: u64 = 10_000;
/// Default time for one request; progress notifications restart it.
pub const DEFAULT_REQUEST_TIMEOUT_MS: u64 = 30_000;

/// Everything needed to open a session with a saved server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerConfig {
    pub transport: Transport,
    #[serde(default = "default_connect")]
    pub connect_timeout_ms: u64,
    #[serde(default = "default_request")]
    pub request_timeout_ms: u64,
    #[serde(default)]
    #[serde(rename = "useOAuth")]
    pub use_oauth: bool,
}

fn default_connect() -> u64 {
    DEFAULT_CONNECT_TIMEOUT_MS
}
fn default_request() -> u64 {
    DEFAULT_REQUEST_TIMEOUT_MS
}

impl ServerConfig {
    pub fn new(transport: Transport) -> Self {
        ServerConfig {
            transport,
            connect_timeout_ms: DEFAULT_CONNECT_TIMEOUT_MS,
            request_timeout_ms: DEFAULT_REQUEST_TIMEOUT_MS,
            use_oauth: false,
        }
    }
}

/// A saved server as catalog reads return it (`wire-shapes.md`), plus its transport
/// (an additive field the workbench shows and edits).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Server {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project_id: Option<String>,
    pub name: String,
    pub enabled: bool,
    pub transport_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(rename = "useOAuth")]
    pub use_oauth: bool,
    pub has_client_secret: bool,
    /// Increases on every config change; live sessions are keyed by it.
    #[serde(default)]
    pub revision: i64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<ServerConfig>,
    /// Outcome of the last validate or doctor: `connected`, `error`, or absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_status: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<i64>,
}

/// Body of the extension `POST /projects/{p}/servers` (save a server).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerCreate {
    pub name: String,
    pub transport: Transport,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_ms: Option<u64>,
    #[serde(default)]
    #[serde(rename = "useOAuth")]
    pub use_oauth: bool,
    #[serde(default = "yes")]
    pub enabled: bool,
}

impl ServerCreate {
    pub fn new(name: &str, config: ServerConfig) -> Self {
        ServerCreate {
            name: name.into(),
            transport: config.transport,
            connect_timeout_ms: Some(config.connect_timeout_ms),
            request_timeout_ms: Some(config.request_timeout_ms),
            use_oauth: config.use_oauth,
            enabled: true,
        }
    }

    pub fn config(&self) -> ServerConfig {
        ServerConfig {
            transport: self.transport.clone(),
            connect_timeout_ms: self
                .connect_timeout_ms
                .unwrap_or(DEFAULT_CONNECT_TIMEOUT_MS),
            request_timeout_ms: self
                .request_timeout_ms
                .unwrap_or(DEFAULT_REQUEST_TIMEOUT_MS),
            use_oauth: self.use_oauth,
        }
    }
}

fn yes() -> bool {
    true
}

/// Body of the extension `PATCH /projects/{p}/servers/{s}`: any subset of fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerPatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(rename = "useOAuth")]
    pub use_oauth: Option<bool>,
}

/// Longest timeout a server may configure: one hour.
pub const MAX_TIMEOUT_MS: u64 = 3_600_000;

impl Transport {
    pub fn validate(&self, path: &str, c: &mut Checker) {
        match self {
            Transport::Stdio { command, env, .. } => {
                c.length(&join(path, "command"), command, 1, Some(4096));
                for k in env.keys() {
                    if k.is_empty() || k.contains('=') {
                        c.fail(
                            join(&join(path, "env"), k),
                            "envName",
                            "not a valid environment variable name",
                        );
                    }
                }
            }
            Transport::Http { url, headers } | Transport::Sse { url, headers } => {
                match reqwest::Url::parse(url) {
                    Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
                    _ => c.fail(
                        join(path, "url"),
                        "url",
                        "must be an absolute http:// or https:// URL",
                    ),
                }
                for k in headers.keys() {
                    if reqwest::header::HeaderName::from_bytes(k.as_bytes()).is_err() {
                        c.fail(
                            join(&join(path, "headers"), k),
                            "headerName",
                            "not a valid HTTP header name",
                        );
                    }
                }
            }
        }
    }
}

impl ServerConfig {
    pub fn validate(&self, c: &mut Checker) {
        self.transport.validate("/transport", c);
        c.range_i64(
            "/connectTimeoutMs",
            self.connect_timeout_ms as i64,
            1,
            MAX_TIMEOUT_MS as i64,
        );
        c.range_i64(
            "/requestTimeoutMs",
            self.request_timeout_ms as i64,
            1,
            MAX_TIMEOUT_MS as i64,
        );
    }
}

pub fn check_server_name(c: &mut Checker, name: &str) {
    c.length("/name", name, 1, Some(200));
    if name.trim() != name {
        c.fail("/name", "trimmed", "must not start or end with whitespace");
    }
}

impl ServerCreate {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        check_server_name(&mut c, &self.name);
        self.config().validate(&mut c);
        c.finish()
    }
}

impl ServerPatch {
    /// Applies the patch to a current config, then validates the result.
    pub fn apply(
        &self,
        name: &mut String,
        enabled: &mut bool,
        config: &mut ServerConfig,
    ) -> Result<(), Error> {
        let mut c = Checker::new();
        if self == &ServerPatch::default() {
            c.fail("", "minProperties", "give at least one field to change");
        }
        if let Some(n) = &self.name {
            check_server_name(&mut c, n);
            *name = n.clone();
        }
        if let Some(e) = self.enabled {
            *enabled = e;
        }
        if let Some(t) = &self.transport {
            config.transport = t.clone();
        }
        if let Some(t) = self.connect_timeout_ms {
            config.connect_timeout_ms = t;
        }
        if let Some(t) = self.request_timeout_ms {
            config.request_timeout_ms = t;
        }
        if let Some(o) = self.use_oauth {
            config.use_oauth = o;
        }
        config.validate(&mut c);
        c.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::validate::parse_body;

    fn first(body: &str) -> Option<(String, String)> {
        let b: ServerCreate = match parse_body(body.as_bytes()) {
            Ok(b) => b,
            Err(e) => return e.violations().into_iter().next().map(|v| (v.path, v.rule)),
        };
        b.validate().err().map(|e| {
            let v = e.violations().remove(0);
            (v.path, v.rule)
        })
    }

    #[test]
    fn server_create_rules() {
        let cases: &[(&str, Option<(&str, &str)>)] = &[
            (
                r#"{"name":"a","transport":{"type":"stdio","command":"npx","args":["x"]}}"#,
                None,
            ),
            (
                r#"{"name":"a","transport":{"type":"http","url":"https://h.example/mcp","headers":{"X-Key":"v"}}}"#,
                None,
            ),
            (
                r#"{"name":"a","transport":{"type":"sse","url":"http://127.0.0.1:1/sse"}}"#,
                None,
            ),
            (
                r#"{"name":"","transport":{"type":"stdio","command":"x"}}"#,
                Some(("/name", "minLength")),
            ),
            (
                r#"{"name":"a ","transport":{"type":"stdio","command":"x"}}"#,
                Some(("/name", "trimmed")),
            ),
            (
                r#"{"name":"a","transport":{"type":"stdio","command":""}}"#,
                Some(("/transport/command", "minLength")),
            ),
            (
                r#"{"name":"a","transport":{"type":"http","url":"ftp://x"}}"#,
                Some(("/transport/url", "url")),
            ),
            (
                r#"{"name":"a","transport":{"type":"http","url":"https://x","headers":{"bad header":"v"}}}"#,
                Some(("/transport/headers/bad header", "headerName")),
            ),
            (
                r#"{"name":"a","transport":{"type":"stdio","command":"x"},"requestTimeoutMs":0}"#,
                Some(("/requestTimeoutMs", "range")),
            ),
            (
                r#"{"name":"a","transport":{"type":"carrier-pigeon"}}"#,
                Some(("/transport/type", "enum")),
            ),
            (r#"{"name":"a"}"#, Some(("/transport", "required"))),
        ];
        for (body, want) in cases {
            let got = first(body);
            assert_eq!(
                got.as_ref().map(|(p, r)| (p.as_str(), r.as_str())),
                *want,
                "{body}"
            );
        }
    }

    #[test]
    fn patch_applies_and_validates() {
        let mut name = "a".to_string();
        let mut enabled = true;
        let mut cfg = ServerConfig::new(Transport::Http {
            url: "http://x".into(),
            headers: Default::default(),
        });
        let p = ServerPatch {
            enabled: Some(false),
            request_timeout_ms: Some(5),
            ..Default::default()
        };
        p.apply(&mut name, &mut enabled, &mut cfg).unwrap();
        assert!(!enabled);
        assert_eq!(cfg.request_timeout_ms, 5);
        assert!(
            ServerPatch::default()
                .apply(&mut name, &mut enabled, &mut cfg)
                .is_err()
        );
    }
}
