//! OpenAI-compatible chat completions with tool calling (OpenAI, Ollama, vLLM, llama.cpp
//! server). Temperature 0; tool arguments arrive as JSON text and are parsed (text that is
//! not JSON is kept as a string so the evaluator can see what the model sent).

use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::{
    Model, ModelReply, ModelRequest, ModelToolCall, Role, estimate_tokens, provider_error,
};
use crate::spec::Result;
use crate::spec::run::Usage;

pub(super) struct OpenAi {
    pub id: String,
    pub name: String,
    pub base_url: String,
    pub key: Option<String>,
    pub http: reqwest::Client,
    pub timeout: Duration,
}

fn messages(req: &ModelRequest<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    if let Some(s) = req.system {
        out.push(json!({"role": "system", "content": s}));
    }
    for m in req.messages {
        out.push(match m.role {
            Role::System => json!({"role": "system", "content": m.content}),
            Role::User => json!({"role": "user", "content": m.content}),
            Role::Assistant if m.tool_calls.is_empty() => {
                json!({"role": "assistant", "content": m.content})
            }
            Role::Assistant => json!({
                "role": "assistant",
                "content": if m.content.is_empty() { Value::Null } else { json!(m.content) },
                "tool_calls": m.tool_calls.iter().map(|c| json!({
                    "id": c.id, "type": "function",
                    "function": {"name": c.name, "arguments": c.arguments.to_string()}
                })).collect::<Vec<_>>(),
            }),
            Role::Tool => json!({
                "role": "tool",
                "tool_call_id": m.tool_call_id.clone().unwrap_or_default(),
                "content": m.content,
            }),
        });
    }
    out
}

#[async_trait]
impl Model for OpenAi {
    fn id(&self) -> &str {
        &self.id
    }

    async fn complete(&self, req: &ModelRequest<'_>) -> Result<ModelReply> {
        let mut body = json!({"model": self.name, "messages": messages(req), "temperature": 0});
        if !req.tools.is_empty() {
            body["tools"] = json!(
                req.tools
                    .iter()
                    .map(|t| json!({"type": "function", "function": {
                        "name": t.name,
                        "description": t.description.clone().unwrap_or_default(),
                        "parameters": t.input_schema,
                    }}))
                    .collect::<Vec<_>>()
            );
            body["tool_choice"] = json!("auto");
        }
        let mut rb = self
            .http
            .post(format!("{}/chat/completions", self.base_url))
            .timeout(self.timeout)
            .json(&body);
        if let Some(k) = &self.key {
            rb = rb.bearer_auth(k);
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
        let msg = &v["choices"][0]["message"];
        let content = msg["content"].as_str().unwrap_or_default().to_string();
        let tool_calls = msg["tool_calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .enumerate()
                    .map(|(i, c)| {
                        let raw = &c["function"]["arguments"];
                        let arguments = match raw {
                            Value::String(s) if s.trim().is_empty() => json!({}),
                            Value::String(s) => {
                                serde_json::from_str(s).unwrap_or_else(|_| json!(s))
                            }
                            Value::Null => json!({}),
                            other => other.clone(),
                        };
                        ModelToolCall {
                            id: c["id"]
                                .as_str()
                                .map(str::to_string)
                                .unwrap_or_else(|| format!("call_{i}")),
                            name: c["function"]["name"].as_str().unwrap_or_default().into(),
                            arguments,
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        let u = &v["usage"];
        let input = u["prompt_tokens"].as_u64().unwrap_or_else(|| {
            estimate_tokens(
                &req.messages
                    .iter()
                    .map(|m| m.content.as_str())
                    .collect::<String>(),
            )
        });
        let output = u["completion_tokens"]
            .as_u64()
            .unwrap_or_else(|| estimate_tokens(&content));
        Ok(ModelReply {
            text: content,
            tool_calls,
            usage: Usage {
                input_tokens: input,
                output_tokens: output,
                total_tokens: u["total_tokens"].as_u64().unwrap_or(input + output),
            },
        })
    }
}
