//! MCP Apps views on the wire: what a rendered view showed ([`ViewRecord`], kept in run
//! traces and answered by `widgets/render`), and the `widgets/render` request.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Error;
use super::validate::Checker;

/// One console message, uncaught exception or CSP violation of a view.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConsoleEntry {
    /// `error`, `warning`, `info`, `log`, `debug`.
    pub level: String,
    /// `console`, `exception`, `security` (CSP), `network`, `log` (`notifications/message`).
    pub source: String,
    pub text: String,
    /// Milliseconds since the HTML was delivered.
    pub at_ms: f64,
}

impl ConsoleEntry {
    pub fn is_error(&self) -> bool {
        self.level == "error"
    }
}

/// A request the view sent the host, and how it was answered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewRequest {
    pub method: String,
    pub params: Value,
    /// The answer's `result`, or its `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub at_ms: f64,
    pub duration_ms: f64,
}

/// What one rendered view showed: kept in the iteration's transcript.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ViewRecord {
    pub tool_name: String,
    pub resource_uri: String,
    /// The tool call (transcript call id) the view renders.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    /// The number of transcript calls when the view opened (scopes step assertions).
    pub calls_before: usize,
    /// The CSP the view ran under.
    pub csp: String,
    /// The view said `ui/notifications/initialized`.
    pub initialized: bool,
    /// HTML delivered → `ui/notifications/initialized`, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub render_latency_ms: Option<f64>,
    /// The last `ui/notifications/size-changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<(f64, f64)>,
    pub console: Vec<ConsoleEntry>,
    /// The view's requests to the host (`ui/initialize`, `tools/call`, …), answered.
    pub requests: Vec<ViewRequest>,
    /// The last screenshot, a base64 PNG of the view's frame.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub screenshot_png: Option<String>,
    /// Why the view could not be rendered or driven.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ViewRecord {
    pub fn console_errors(&self) -> impl Iterator<Item = &ConsoleEntry> {
        self.console.iter().filter(|e| e.is_error())
    }
}

/// The UI resource a tool declaration names, if any (`_meta.ui.resourceUri`, or the
/// deprecated flat `_meta["ui/resourceUri"]`).
pub fn resource_uri(tool: &Value) -> Option<&str> {
    tool["_meta"]["ui"]["resourceUri"]
        .as_str()
        .or_else(|| tool["_meta"]["ui/resourceUri"].as_str())
        .filter(|u| !u.is_empty())
}

/// Whether `audience` (`model` or `app`) may see and call `tool`: its
/// `_meta.ui.visibility` names it, or says nothing (both, by default).
pub fn visible_to(tool: &Value, audience: &str) -> bool {
    match tool["_meta"]["ui"]["visibility"].as_array() {
        Some(v) => v.iter().any(|x| x == audience),
        None => true,
    }
}

/// Body of `POST …/servers/{serverId}/widgets/render` (extension): the view of one call of
/// `toolName`, rendered from the given arguments and result (nothing else is called).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetRenderRequest {
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// The call-tool result to deliver; absent, the view is told the call was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

impl WidgetRenderRequest {
    pub fn check(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        c.length("/toolName", &self.tool_name, 1, Some(256));
        if let Some(r) = &self.result
            && !r.is_object()
        {
            c.fail("/result", "type", "a call-tool result is an object");
        }
        c.finish()
    }
}
