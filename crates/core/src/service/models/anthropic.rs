//! Anthropic messages with tool use. Consecutive tool results are sent as one user message
//! of `tool_result` blocks, as the API requires.

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::{Model, ModelReply, ModelRequest, ModelToolCall, Role, provider_error};
use crate::spec::Result;
use crate::spec::run::Usage;

pub(super) struct Anthropic {
    pub id: String,
    pub name: String,
    pub base_url: String,
    pub key: Option<String>,
    pub http: reqwest::Client,
    pub timeout: Duration,
}

fn messages(req: &ModelRequest<'_>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for m in req.messages {
        match m.role {
            Role::System => {}
            Role::User => out.push(json!({"role": "user", "content": m.content})),
            Role::Assistant => {
                let mut blocks = Vec::new();
                if !m.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": m.content}));
                }
                for c in &m.tool_calls {
                    blocks.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}));
                }
                out.push(json!({"role": "assistant", "content": blocks}));
            }
            Role::Tool => {
                let block = json!({
                    "type": "tool_result",
                    "tool_use_id": m.tool_call_id.clone().unwrap_or_default(),
                    "content": m.content,
                    "is_error": m.is_error.unwrap_or(false),
                });
                match out.last_mut() {
                    Some(last) if last["role"] == "user" && last["content"].is_array() => {
                        if let Some(a) = last["content"].as_array_mut() {
                            a.push(block);
                        }
                    }
                    _ => out.push(json!({"role": "user", "content": [block]})),
                }
            }
        }
    }
    out
}

#[async_trait]
impl Model for Anthropic {
    fn id(&self) -> &str {
        &self.id
    }

    async fn complete(&self, req: &ModelRequest<'_>) -> Result<ModelReply> {
        let mut body = json!({"model": self.name, "max_tokens": 1024, "messages": messages(req)});
        let system: Vec<&str> = req
            .system
            .into_iter()
            .chain(
                req.messages
                    .iter()
                    .filter(|m| m.role == Role::System)
                    .map(|m| m.content.as_str()),
            )
            .collect();
        if !system.is_empty() {
            body["system"] = json!(system.join("\n\n"));
        }
        if !req.tools.is_empty() {
            body["tools"] = json!(
                req.tools
                    .iter()
                    .map(|t| json!({"name": t.name, "description": t.description.clone().unwrap_or_default(), "input_schema": t.input_schema}))
                    .collect::<Vec<_>>()
            );
        }
        let mut rb = self
            .http
            .post(format!("{}/v1/messages", self.base_url))
            .timeout(self.timeout)
            .header("anthropic-version", "2023-06-01")
            .json(&body);
        if let Some(k) = &self.key {
            rb = rb.header("x-api-key", k);
        }
        let res = rb.send().await.map_err(|e| provider_error(&self.id, e))?;
        let status = res.status();
        let text = res.text().await.map_err(|e| provider_error(&self.id, e))?;
        if !status.is_success() {
            let short: String = text.chars().take(300).collect();
            return Err(provider_error(&self.id, format!("{status}: {short}")));
        }
        let v: Value = serde_json::from_str(&text)
            .map_err(|e| provider_error(&self.id, format!("not JSON: {e}")))?;
        let mut reply = ModelReply::default();
        for b in v["content"].as_array().into_iter().flatten() {
            match b["type"].as_str() {
                Some("text") => reply.text.push_str(b["text"].as_str().unwrap_or_default()),
                Some("tool_use") => reply.tool_calls.push(ModelToolCall {
                    id: b["id"].as_str().unwrap_or_default().into(),
                    name: b["name"].as_str().unwrap_or_default().into(),
                    arguments: b["input"].clone(),
                }),
                _ => {}
            }
        }
        let input = v["usage"]["input_tokens"].as_u64().unwrap_or(0);
        let output = v["usage"]["output_tokens"].as_u64().unwrap_or(0);
        reply.usage = Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input + output,
        };
        Ok(reply)
    }
}
