//! Saved MCP servers: how to reach one (its transport) and the catalog object clients see.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use super::client_features::ClientFeatures;
use super::error::Error;
use super::validate::{Checker, join};

/// Stands in for the value of every HTTP header and environment variable of a saved server
/// when the reader is not a project admin. Sent back in a PATCH, it keeps the stored value.
pub const REDACTED: &str = "********";

/// Replaces, anywhere in a JSON answer, the secret values of every server transport
/// (`{"type": "stdio", "env": {…}}`, `{"type": "http"|"sse", "headers": {…}}`) and every
/// OAuth secret field (`accessToken`, `refreshToken`, `clientSecret`, or in snake case) by
/// [`REDACTED`]: what
/// an answer kept on record (an idempotent replay) may hold.
pub fn redact_json(v: &mut serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::Object(m) => {
            let secrets = match m.get("type").and_then(Value::as_str) {
                Some("stdio") => Some("env"),
                Some("http" | "sse") => Some("headers"),
                _ => None,
            };
            if let Some(Value::Object(vals)) = secrets.and_then(|k| m.get_mut(k)) {
                for val in vals.values_mut() {
                    *val = Value::String(REDACTED.into());
                }
            }
            for (k, val) in m.iter_mut() {
                if matches!(
                    k.as_str(),
                    "accessToken"
                        | "refreshToken"
                        | "clientSecret"
                        | "access_token"
                        | "refresh_token"
                        | "client_secret"
                ) && val.is_string()
                {
                    *val = Value::String(REDACTED.into());
                } else {
                    redact_json(val);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact_json),
        _ => {}
    }
}

/// How the service reaches an MCP server. `Debug` prints header and environment names
/// only, so a config never leaks its secrets into a log line.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Transport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        args: Vec<String>,
        /// The child's whole environment: nothing else of the service's is passed on
        /// except `PATH` and `HOME` when they are not set here. Values are secrets: only
        /// project admins read them.
        #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
        env: BTreeMap<String, String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
    },
    /// Streamable HTTP (MCP 2025-03-26 and later).
    Http {
        url: String,
        /// Sent on every request. Values are secrets: only project admins read them.
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

    /// The secret-bearing map: stdio `env`, or HTTP/SSE `headers`.
    fn secrets(&self) -> &BTreeMap<String, String> {
        match self {
            Transport::Stdio { env, .. } => env,
            Transport::Http { headers, .. } | Transport::Sse { headers, .. } => headers,
        }
    }

    fn secrets_mut(&mut self) -> &mut BTreeMap<String, String> {
        match self {
            Transport::Stdio { env, .. } => env,
            Transport::Http { headers, .. } | Transport::Sse { headers, .. } => headers,
        }
    }

    /// The same transport with every header and environment value replaced by [`REDACTED`].
    pub fn redacted(&self) -> Transport {
        let mut t = self.clone();
        for v in t.secrets_mut().values_mut() {
            *v = REDACTED.to_string();
        }
        t
    }

    /// Replaces each [`REDACTED`] value by the value `stored` has for the same name (header
    /// names compare case-insensitively), so a client that round-trips a redacted config
    /// loses nothing. A marker with nothing to stand for is a violation: saving the marker
    /// itself would break the server silently.
    fn restore_redacted(&mut self, stored: Option<&Transport>, path: &str, c: &mut Checker) {
        let (field, headers) = match self {
            Transport::Stdio { .. } => ("env", false),
            _ => ("headers", true),
        };
        // Stdio env and HTTP headers never stand in for each other.
        let stored = stored.filter(|s| matches!(s, Transport::Stdio { .. }) != headers);
        for (k, v) in self.secrets_mut().iter_mut() {
            if v != REDACTED {
                continue;
            }
            let found = stored.and_then(|s| {
                let m = s.secrets();
                m.get(k).or_else(|| {
                    headers
                        .then(|| m.iter().find(|(n, _)| n.eq_ignore_ascii_case(k)))
                        .flatten()
                        .map(|(_, v)| v)
                })
            });
            match found {
                Some(old) => *v = old.clone(),
                None => c.fail(
                    join(&join(path, field), k),
                    "redacted",
                    format!("`{REDACTED}` stands for a stored value, and none is stored under this name; give the real value"),
                ),
            }
        }
    }
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<Vec<_>>();
        match self {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env_names", &names(env))
                .field("cwd", cwd)
                .finish(),
            Transport::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("header_names", &names(headers))
                .finish(),
            Transport::Sse { url, headers } => f
                .debug_struct("Sse")
                .field("url", url)
                .field("header_names", &names(headers))
                .finish(),
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
    /// Extension: what evaldeck offers the server as its client (roots, sampling and
    /// elicitation answers, log level, request time cap); omitted when all defaults.
    #[serde(default, skip_serializing_if = "ClientFeatures::is_default")]
    pub client: ClientFeatures,
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
            client: ClientFeatures::default(),
        }
    }

    /// The config as far as a connection depends on it: the client features are applied to
    /// a live session without reconnecting.
    pub fn connection_part(&self) -> ServerConfig {
        ServerConfig {
            client: ClientFeatures::default(),
            ..self.clone()
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
    /// Extension: what the server advertised at its last successful `initialize` (validate
    /// or doctor) under the current config; absent before the first one and after an edit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<serde_json::Value>,
    /// Extension: the protocol version that `initialize` settled on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// Extension: the server's own `serverInfo` (`name`, `version`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<serde_json::Value>,
    /// Extension: when that snapshot was taken, epoch milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_validated_at: Option<i64>,
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
    /// Extension: the client side of the connection ([`ClientFeatures`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientFeatures>,
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
            client: (!config.client.is_default()).then_some(config.client),
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
            client: self.client.clone().unwrap_or_default(),
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
    /// Extension: replaces the client side of the connection ([`ClientFeatures`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientFeatures>,
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
                match url::Url::parse(url) {
                    Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
                    _ => c.fail(
                        join(path, "url"),
                        "url",
                        "must be an absolute http:// or https:// URL",
                    ),
                }
                for k in headers.keys() {
                    if http::HeaderName::from_bytes(k.as_bytes()).is_err() {
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
        self.client.validate("/client", c);
    }
}

pub fn check_server_name(c: &mut Checker, name: &str) {
    c.length("/name", name, 1, Some(200));
    if name.trim() != name {
        c.fail("/name", "trimmed", "must not start or end with whitespace");
    }
}

impl Server {
    /// Hides header and environment values (for readers who are not project admins).
    pub fn redact_secrets(&mut self) {
        if let Some(c) = &mut self.config {
            c.transport = c.transport.redacted();
        }
    }
}

impl ServerCreate {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        check_server_name(&mut c, &self.name);
        // A new server has nothing stored for the marker to stand for.
        self.transport
            .clone()
            .restore_redacted(None, "/transport", &mut c);
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
            let mut t = t.clone();
            t.restore_redacted(Some(&config.transport), "/transport", &mut c);
            config.transport = t;
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
        if let Some(cf) = &self.client {
            config.client = cf.clone();
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

    #[test]
    fn redaction_hides_values_and_a_patch_that_sends_the_marker_keeps_them() {
        let stored = Transport::Http {
            url: "https://h.example/mcp".into(),
            headers: [("Authorization".to_string(), "Bearer s3cret".to_string())].into(),
        };
        let shown = stored.redacted();
        let text = serde_json::to_string(&shown).unwrap();
        assert!(
            text.contains(REDACTED) && !text.contains("s3cret"),
            "{text}"
        );
        assert!(
            !format!("{stored:?}").contains("s3cret"),
            "Debug hides values"
        );

        let mut cfg = ServerConfig::new(stored.clone());
        let (mut name, mut enabled) = ("a".to_string(), true);
        // Round-trip of the redacted transport, plus a new header with a real value.
        let mut sent = shown.clone();
        if let Transport::Http { headers, .. } = &mut sent {
            headers.insert("X-New".into(), "v".into());
        }
        let p = ServerPatch {
            transport: Some(sent),
            ..Default::default()
        };
        p.apply(&mut name, &mut enabled, &mut cfg).unwrap();
        let Transport::Http { headers, .. } = &cfg.transport else {
            panic!()
        };
        assert_eq!(headers["Authorization"], "Bearer s3cret");
        assert_eq!(headers["X-New"], "v");

        // The marker for a name nothing is stored under is refused, as is switching kinds.
        for t in [
            Transport::Http {
                url: "https://h.example/mcp".into(),
                headers: [("X-Other".to_string(), REDACTED.to_string())].into(),
            },
            Transport::Stdio {
                command: "x".into(),
                args: vec![],
                env: [("Authorization".to_string(), REDACTED.to_string())].into(),
                cwd: None,
            },
        ] {
            let p = ServerPatch {
                transport: Some(t),
                ..Default::default()
            };
            let e = p.apply(&mut name, &mut enabled, &mut cfg).unwrap_err();
            assert_eq!(e.violations()[0].rule, "redacted");
        }
        assert_eq!(
            first(&format!(
                r#"{{"name":"a","transport":{{"type":"stdio","command":"x","env":{{"K":"{REDACTED}"}}}}}}"#
            )),
            Some(("/transport/env/K".to_string(), "redacted".to_string()))
        );
    }
}
