//! `POST /projects/{p}/agent`: one headless assistant turn over a message history.
//!
//! Decisions where the spec is silent:
//! - Sizes are UTF-8 bytes of `content` (KB = 1024 bytes): at most 50 messages, 8192 bytes
//!   each, 98304 bytes in all ([`AgentLimits`]; the service's config can lower them).
//! - The last message must be from the user (rule `lastRole`): a turn answers a user.
//! - `content` must not be empty (after trimming white space).
//! - Unknown keys are ignored (in the body and in each message), as in the public API.
//! - The response adds `model` (the pinned model that answered), `steps` (model calls),
//!   `stopReason` (`completed`, or `stepLimit` when the step cap ended the turn) and
//!   `creditsCharged` to the spec's `reply`, `toolCalls`, `createdResources` and `usage`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::Error;
use super::validate::{Checker, join};

/// The spec's limits on a turn's messages.
pub const MAX_MESSAGES: usize = 50;
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024;
pub const MAX_TOTAL_BYTES: usize = 96 * 1024;

/// Bounds on a turn's history (the spec's by default; tests make them tiny).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AgentLimits {
    pub max_messages: usize,
    pub max_message_bytes: usize,
    pub max_total_bytes: usize,
}

impl Default for AgentLimits {
    fn default() -> Self {
        AgentLimits {
            max_messages: MAX_MESSAGES,
            max_message_bytes: MAX_MESSAGE_BYTES,
            max_total_bytes: MAX_TOTAL_BYTES,
        }
    }
}

/// Who wrote a message of the history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum AgentRole {
    User,
    Assistant,
}

/// One message of the history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentMessage {
    pub role: AgentRole,
    pub content: String,
}

impl AgentMessage {
    pub fn user(content: impl Into<String>) -> Self {
        AgentMessage {
            role: AgentRole::User,
            content: content.into(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        AgentMessage {
            role: AgentRole::Assistant,
            content: content.into(),
        }
    }
}

/// Body of `POST /projects/{p}/agent`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentTurnRequest {
    /// 1 to 50 messages, oldest first, ending with the user's.
    pub messages: Vec<AgentMessage>,
    /// Additive: the chat session this turn continues (the `sessionId` of an earlier
    /// answer); absent starts a new session titled after the first message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

impl AgentTurnRequest {
    /// Parses a decoded JSON body (field types and roles), naming the offending path.
    pub fn decode(v: Value) -> Result<Self, Error> {
        super::validate::from_value(v)
    }

    /// Reports every violated rule at once.
    pub fn validate(&self, limits: &AgentLimits) -> Result<(), Error> {
        let mut c = Checker::new();
        let n = self.messages.len();
        if n == 0 {
            c.fail("/messages", "minItems", "must hold at least 1 message");
        }
        if n > limits.max_messages {
            c.fail(
                "/messages",
                "maxItems",
                format!(
                    "must hold at most {} messages (got {n})",
                    limits.max_messages
                ),
            );
        }
        let mut total = 0usize;
        for (i, m) in self.messages.iter().enumerate() {
            let path = join(&join("/messages", i), "content");
            let bytes = m.content.len();
            total += bytes;
            if m.content.trim().is_empty() {
                c.fail(&path, "minLength", "must not be empty");
            }
            if bytes > limits.max_message_bytes {
                c.fail(
                    &path,
                    "maxBytes",
                    format!(
                        "must be at most {} bytes of UTF-8 (got {bytes})",
                        limits.max_message_bytes
                    ),
                );
            }
        }
        if total > limits.max_total_bytes {
            c.fail(
                "/messages",
                "maxTotalBytes",
                format!(
                    "the messages' contents must total at most {} bytes of UTF-8 (got {total})",
                    limits.max_total_bytes
                ),
            );
        }
        if let Some(last) = self.messages.last()
            && last.role != AgentRole::User
        {
            c.fail(
                join(&join("/messages", n - 1), "role"),
                "lastRole",
                "the last message must be the user's: a turn answers the user",
            );
        }
        c.finish()
    }
}

/// One operation the agent performed, with its arguments and outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentToolCall {
    /// The tool (a service operation), e.g. `list_servers`, `create_eval_suite`.
    pub operation: String,
    /// The arguments the model gave.
    pub arguments: Value,
    pub ok: bool,
    /// The error fed back to the model when `ok` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<AgentToolError>,
}

/// A tool's failure: the spec's error code and message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentToolError {
    pub code: String,
    pub message: String,
}

/// Something the turn created, with a link to it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedResource {
    /// `eval_suite`.
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The resource's API path, absolute when the service knows its public origin.
    pub url: String,
}

/// Tokens the turn used (all model calls together).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentUsage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Why the turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StopReason {
    /// The model answered without asking for more tools.
    Completed,
    /// The step cap was reached while the model still asked for tools.
    StepLimit,
}

/// The 200 answer of `POST /projects/{p}/agent`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AgentTurnResponse {
    pub reply: String,
    pub tool_calls: Vec<AgentToolCall>,
    pub created_resources: Vec<CreatedResource>,
    pub usage: AgentUsage,
    /// The pinned model that answered (additive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Model calls made (additive).
    #[serde(default)]
    pub steps: u32,
    /// Additive; absent means `completed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Credits debited from the organization for this turn (additive).
    #[serde(default)]
    pub credits_charged: i64,
    /// Additive: the chat session the turn was recorded in (listed by `GET /chat-sessions`);
    /// send it back to continue the conversation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(body: Value, limits: &AgentLimits) -> Vec<(String, String)> {
        let r = AgentTurnRequest::decode(body).and_then(|r| r.validate(limits));
        r.err()
            .map(|e| {
                e.violations()
                    .into_iter()
                    .map(|v| (v.path, v.rule))
                    .collect()
            })
            .unwrap_or_default()
    }

    #[test]
    fn the_spec_limits() {
        let l = AgentLimits::default();
        assert!(pairs(json!({"messages": [{"role": "user", "content": "hi"}]}), &l).is_empty());
        let many: Vec<Value> = (0..51)
            .map(|_| json!({"role": "user", "content": "x"}))
            .collect();
        assert_eq!(
            pairs(json!({ "messages": many }), &l),
            [("/messages".to_string(), "maxItems".to_string())]
        );
        let big = "é".repeat(4097); // 8194 bytes, 4097 characters
        assert_eq!(
            pairs(json!({"messages": [{"role": "user", "content": big}]}), &l),
            [("/messages/0/content".to_string(), "maxBytes".to_string())]
        );
        let eight = "a".repeat(8 * 1024);
        let thirteen: Vec<Value> = (0..13)
            .map(|_| json!({"role": "user", "content": eight}))
            .collect();
        assert_eq!(
            pairs(json!({ "messages": thirteen }), &l),
            [("/messages".to_string(), "maxTotalBytes".to_string())]
        );
    }

    #[test]
    fn roles_and_shape() {
        let l = AgentLimits::default();
        assert_eq!(
            pairs(
                json!({"messages": [{"role": "system", "content": "x"}]}),
                &l
            ),
            [("/messages/0/role".to_string(), "enum".to_string())]
        );
        assert_eq!(
            pairs(
                json!({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}]}),
                &l
            ),
            [("/messages/1/role".to_string(), "lastRole".to_string())]
        );
        assert_eq!(
            pairs(json!({"messages": []}), &l),
            [("/messages".to_string(), "minItems".to_string())]
        );
        assert_eq!(
            pairs(json!({}), &l),
            [("/messages".to_string(), "required".to_string())]
        );
        assert_eq!(
            pairs(json!({"messages": [{"role": "user", "content": " "}]}), &l),
            [("/messages/0/content".to_string(), "minLength".to_string())]
        );
        assert_eq!(
            pairs(json!({"messages": [{"role": "user", "content": 3}]}), &l),
            [("/messages/0/content".to_string(), "type".to_string())]
        );
    }
}
