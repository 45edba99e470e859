//! Server primitives: the bodies of `POST /projects/{p}/servers/{s}/<op>` (`wire-shapes.md`,
//! "Server primitives"). Whatever MCP itself defines (a tool's input schema, a call-tool
//! result, a prompt message, resource contents) is carried as JSON exactly as the server sent
//! it, so a client sees what the MCP server said and not our reading of it.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// `validate` → `{success: true, status: "connected", initInfo?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValidateResult {
    pub success: bool,
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_info: Option<InitInfo>,
}

/// What the server answered to `initialize`: the capability snapshot `validate` stores.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InitInfo {
    pub protocol_version: String,
    /// The MCP `ServerCapabilities` object, verbatim.
    pub capabilities: Value,
    /// The MCP `Implementation` object (`{name, version, title?, …}`), when the server sent one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
}

/// `ok`, `error` or `skipped`: one doctor stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    Ok,
    Error,
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Check {
    pub status: CheckStatus,
    pub detail: String,
    /// Additive: how long the stage took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
}

impl Check {
    pub fn ok(detail: impl Into<String>, duration_ms: Option<u64>) -> Self {
        Check {
            status: CheckStatus::Ok,
            detail: detail.into(),
            duration_ms,
        }
    }
    pub fn error(detail: impl Into<String>, duration_ms: Option<u64>) -> Self {
        Check {
            status: CheckStatus::Error,
            detail: detail.into(),
            duration_ms,
        }
    }
    pub fn skipped(detail: impl Into<String>) -> Self {
        Check {
            status: CheckStatus::Skipped,
            detail: detail.into(),
            duration_ms: None,
        }
    }
}

/// The doctor's verdict: `ready` (every stage ok or skipped), `oauth_required`, `partial`
/// (initialized, but a listing failed) or `error` (could not connect or initialize).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DoctorStatus {
    Ready,
    OauthRequired,
    Partial,
    Error,
}

/// `connected`, `error` or `skipped`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionSummary {
    pub status: String,
    pub detail: String,
}

/// Reachability before any MCP traffic: the resolved command, or the TCP endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeReport {
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The command as resolved on `PATH`, or `host:port`.
    pub target: String,
    pub reachable: bool,
    pub duration_ms: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctorChecks {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialization: Option<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_templates: Option<Check>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Check>,
    /// Additive: which protocol revisions the server accepts (see `revisions`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revisions: Option<Check>,
}

/// The protocol revisions evaldeck speaks, newest first; the first two are current.
pub const REVISIONS: [&str; 5] = [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
];

/// How many of [`REVISIONS`] (from the start) count as current.
pub const CURRENT_REVISIONS: usize = 2;

/// Additive: whether the server accepted one protocol revision, tried on a connection of
/// its own (`server/discover` for `2026-07-28`, `initialize` for the others).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevisionSupport {
    pub revision: String,
    pub accepted: bool,
    /// What the server answered: the revision it settled on, or why it failed.
    pub detail: String,
}

/// Additive: wall time of each stage and of the whole run, in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctorTimings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe_ms: Option<u64>,
    /// Spawn or connect plus the `initialize` handshake.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discovery_ms: Option<u64>,
    pub total_ms: u64,
}

/// `doctor`: a fresh connection taken through every stage, never a pooled one, so the report
/// describes what a new client would meet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctorReport {
    /// ISO 8601 date-time.
    pub generated_at: String,
    pub status: DoctorStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeReport>,
    pub connection: ConnectionSummary,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_info: Option<InitInfo>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<ToolItem>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<ResourceItem>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_templates: Option<Vec<ResourceTemplateItem>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<Vec<PromptItem>>,
    /// Additive: the revision matrix, newest first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revisions: Option<Vec<RevisionSupport>>,
    pub checks: DoctorChecks,
    pub timings: DoctorTimings,
    /// `{code, message, details?}` of the stage that failed, or `null`.
    #[serde(default)]
    #[schemars(with = "Option<Value>")]
    pub error: Option<crate::spec::Error>,
}

/// `check-oauth` → `{useOAuth, serverUrl}`, both always present as the spec requires. A
/// stdio server has no HTTP endpoint: it answers `useOAuth: false` and names itself with
/// the URI `stdio://SERVER_ID` (see [`stdio_server_url`]), which URL parsers accept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckOauthResult {
    #[serde(rename = "useOAuth")]
    pub use_oauth: bool,
    pub server_url: String,
}

/// The URI that names a stdio server where an HTTP URL is expected: `stdio://SERVER_ID`.
pub fn stdio_server_url(server_id: &str) -> String {
    format!("stdio://{server_id}")
}

/// Body of `tools`, `prompts` and `resources`: `{cursor?}`. The cursor is the MCP server's
/// own, passed through untouched.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// One page of an MCP list: `{items, nextCursor?}` with the server's cursor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpPage<T> {
    pub items: Vec<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A tool as `tools/list` gave it. Fields beyond the wire shape's (`title`, `annotations`,
/// `_meta`, …) are kept in `extra`, verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolItem {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgumentItem {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptItem {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgumentItem>>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceItem {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Additive: a resource template (`resources/templates/list`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplateItem {
    pub uri_template: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// `tools/call`: `{toolName, parameters?}` (the arguments key is `parameters`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRequest {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameters: Option<Map<String, Value>>,
    /// Extension: how to answer an elicitation the server makes during this call (instead
    /// of the server's saved answer, or declining).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<crate::spec::client_features::ElicitationAnswer>,
    /// Extension: how to answer a sampling request the server makes during this call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<crate::spec::client_features::SamplingPolicy>,
    /// Extension: a name the caller gives this call, so `…/calls/{callId}/cancel` can
    /// cancel it while it runs (1 to 128 characters).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// Extension: run the call as a task (handshake-era servers whose tools need it, such
    /// as `execution.taskSupport: required`); evaldeck follows the task to its end. From
    /// `2026-07-28` the server decides and this is ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskRequest>,
}

/// `task` of a `tools/call` (extension).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskRequest {
    /// How long the server should keep the task's result, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl_ms: Option<u64>,
}

impl ToolCallRequest {
    pub fn new(tool_name: impl Into<String>, parameters: Option<Map<String, Value>>) -> Self {
        ToolCallRequest {
            tool_name: tool_name.into(),
            parameters,
            elicitation: None,
            sampling: None,
            call_id: None,
            task: None,
        }
    }
}

/// The MCP `CallToolResult` verbatim: `{content, structuredContent?, isError?, _meta?}`.
/// A tool-level error is a success of the primitive with `isError: true`.
pub type ToolCallResult = Value;

/// `prompts/get`: `{promptName, arguments?: {name: string|number|boolean}}`. Numbers and
/// booleans are sent to the server as strings, as MCP prompt arguments are strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptGetRequest {
    pub prompt_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
}

/// The MCP `GetPromptResult` verbatim: `{description?, messages: [{role, content}]}`.
pub type PromptGetResult = Value;

/// `resources/read`: `{uri}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceReadRequest {
    pub uri: String,
}

/// The MCP `ReadResourceResult` verbatim: `{contents: [{uri, mimeType?, text?, blob?}]}`.
pub type ResourceReadResult = Value;

/// `export`: one snapshot of everything the server lists.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportSnapshot {
    pub server_id: String,
    /// ISO 8601 date-time.
    pub exported_at: String,
    pub tools: Vec<ToolItem>,
    pub resources: Vec<ResourceItem>,
    pub prompts: Vec<PromptItem>,
    /// Additive.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resource_templates: Vec<ResourceTemplateItem>,
    /// Additive: what the server answered to `initialize`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_info: Option<InitInfo>,
}

/// `oauth/import-tokens`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportTokensRequest {
    pub server_url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth_resource_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_information: Option<ClientInformation>,
    pub tokens: ImportedTokens,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientInformation {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
}

/// Tokens as an OAuth token endpoint returns them (snake_case, RFC 6749).
#[derive(Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ImportedTokens {
    pub access_token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_in: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
}

/// Tokens never reach a log through `Debug`.
impl std::fmt::Debug for ImportedTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImportedTokens")
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_in", &self.expires_in)
            .field("token_type", &self.token_type)
            .field("scope", &self.scope)
            .finish()
    }
}

/// `oauth/import-tokens` → `{imported: true, expiresAt?}` (epoch ms).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportTokensResult {
    pub imported: bool,
    #[serde(default)]
    pub expires_at: Option<i64>,
}

/// One thing that passed between evaldeck and an MCP server, as the protocol pane, the
/// CLI's `--verbose` and iteration traces show it (extension).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProtocolEvent {
    /// Increases by one per event of the server, across its sessions.
    pub seq: u64,
    /// Epoch milliseconds.
    pub at: i64,
    /// `out` (evaldeck to the server), `in` (the server to evaldeck), `stderr` (a line the
    /// server wrote there) or `note` (what evaldeck decided, e.g. a declined sampling request).
    pub direction: String,
    /// `request`, `response`, `error`, `notification`, `stderr` or `note`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The JSON-RPC message (past 64 KiB: `{"truncated": BYTES, "text": the first 64 KiB}`),
    /// or the line or note as a string.
    pub message: Value,
}

/// `GET …/servers/{s}/traffic?after=SEQ` (extension): the server's recent protocol events
/// after `after`, oldest first, and the sequence number to ask after next.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficPage {
    pub items: Vec<ProtocolEvent>,
    pub last_seq: u64,
}

/// What a server asks of the user through `elicitation/create`, for a form to show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationRequest {
    pub message: String,
    /// `form` (fill in `requestedSchema`) or `url` (open `url`, then confirm).
    pub mode: String,
    /// A flat JSON Schema object of primitive properties (form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested_schema: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
}

/// `POST …/servers/{s}/calls/{callId}/cancel` (extension): whether a running call was found
/// and cancelled (the server is sent `notifications/cancelled`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallCancelled {
    pub cancelled: bool,
}

/// Query of `GET …/servers/{s}/traffic` (extension): events after this sequence number.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrafficQuery {
    #[serde(default)]
    pub after: u64,
}

/// A task of a server (extension): one evaldeck is following, or one the server lists
/// (`tasks/list`, handshake era).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskItem {
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status_message: Option<String>,
    /// The tool whose call became the task, when evaldeck made it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// `followed` (a call of evaldeck's in progress) or `listed` (the server's tasks/list).
    pub source: String,
}

/// `POST …/servers/{s}/tasks/{taskId}/cancel` (extension).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskCancelled {
    pub task_id: String,
    /// The server acknowledged the cancellation (it is cooperative: the task may still end
    /// otherwise).
    pub acknowledged: bool,
}

/// `GET …/servers/{s}/tasks` (extension).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TaskList {
    pub items: Vec<TaskItem>,
}

/// `POST …/servers/{s}/resources/subscribe` (extension): `{uri}` in, this out. Updates
/// arrive as the server's protocol events (`notifications/resources/updated`) for as long
/// as its session lives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Subscribed {
    pub uri: String,
    pub subscribed: bool,
}
