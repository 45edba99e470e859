//! Saved MCP servers: how to reach one (its transport) and the catalog object clients see.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
#[serde(rename_all = "camelCase")]
pub struct ServerCreate {
    pub name: String,
    #[serde(flatten)]
    pub config: ServerConfig,
    #[serde(default = "yes")]
    pub enabled: bool,
}

fn yes() -> bool {
    true
}
