//! What a run persists per iteration (the transcript) and per run (the raw tool
//! declarations captured at run start), so grading can be repeated without calling
//! anything.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::service::models::Message;
use crate::spec::run::Usage;

/// One tool call as it happened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallRecord {
    pub id: String,
    pub step_id: String,
    /// `model` (the agent asked for it) or `step` (a `toolCall` step).
    pub origin: String,
    pub tool_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    pub arguments: Value,
    /// The MCP call-tool result verbatim; `None` when the call itself failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    /// The tool's own result said `isError: true`.
    pub is_error: bool,
    /// Why there is no result: the server answered with a JSON-RPC error, no server offers
    /// the tool, or (with `transport_failed`) the server never answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The server did not answer at all (it exited, was unreachable or timed out): a
    /// failure of the connection, not of the tool, which ends the iteration as an error.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transport_failed: bool,
    /// What the server said during the call besides its answer: progress, log messages,
    /// its requests (sampling, elicitation, roots) and how they were answered, stderr.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<crate::spec::primitives::ProtocolEvent>,
    pub latency_ms: f64,
    pub result_bytes: u64,
}

impl CallRecord {
    /// The call gave no usable result, for whatever reason (what the model is told).
    pub fn failed(&self) -> bool {
        self.is_error || self.error.is_some()
    }

    /// An error the server or the tool answered with: what assertions about tool errors
    /// judge. A transport failure is not one; the iteration is an error instead.
    pub fn tool_error(&self) -> bool {
        self.failed() && !self.transport_failed
    }

    /// The result's text content joined, or its structured content, or the error.
    pub fn result_text(&self) -> String {
        match &self.result {
            Some(r) => result_text(r),
            None => self.error.clone().unwrap_or_default(),
        }
    }
}

/// Text of a call-tool result: its text blocks joined by newlines; structured content
/// (as JSON) when there is no text.
pub fn result_text(r: &Value) -> String {
    let texts: Vec<&str> = r["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|b| b["text"].as_str())
        .collect();
    if texts.is_empty() {
        match r.get("structuredContent") {
            Some(s) if !s.is_null() => s.to_string(),
            _ => String::new(),
        }
    } else {
        texts.join("\n")
    }
}

/// Where a step's effects end in the transcript, so `assert` steps see only what came
/// before them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
    pub step_id: String,
    pub kind: String,
    pub messages_end: usize,
    pub calls_end: usize,
    pub turns_end: u32,
    pub usage_end: Usage,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub turn_cap_reached: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A timed part of an iteration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    pub name: String,
    pub start_ms: f64,
    pub duration_ms: f64,
}

/// The goal-completion grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JudgeRecord {
    /// `passed`, `failed` or `skipped`.
    pub status: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// Everything an iteration did.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Transcript {
    pub messages: Vec<Message>,
    pub calls: Vec<CallRecord>,
    pub steps: Vec<StepRecord>,
    pub usage: Usage,
    /// Model turns (model requests) taken.
    pub turns: u32,
    pub spans: Vec<Span>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub judge: Option<JudgeRecord>,
    /// Why the iteration could not be carried out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub duration_ms: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The MCP Apps views rendered, in the order they opened.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub widgets: Vec<crate::service::widgets::ViewRecord>,
    /// Verdicts taken on a live view (`interact` steps, DOM widget assertions): a regrade
    /// cannot take them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub live: Vec<LiveCheck>,
}

/// A verdict taken on a live view at a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LiveCheck {
    pub step_id: String,
    #[serde(flatten)]
    pub outcome: super::assertions::Outcome,
}

/// A tool as the server declared it, with the server it came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DeclaredTool {
    pub server_id: String,
    pub server_name: String,
    /// The `tools/list` entry verbatim.
    pub tool: Value,
}

/// The raw tool declarations captured at run start.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Declarations {
    pub tools: Vec<DeclaredTool>,
    /// Every page of every server was read.
    pub complete: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
}

impl Declarations {
    pub fn find(&self, name: &str) -> Option<&Value> {
        self.tools
            .iter()
            .find(|t| t.tool["name"] == name)
            .map(|t| &t.tool)
    }
}
