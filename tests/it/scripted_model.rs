//! A scripted OpenAI-compatible `chat/completions` server on loopback: it answers queued
//! assistant messages in order (plain text, or tool calls), then a fallback text, after an
//! optional delay, and records every request it received.
#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

pub struct Script {
    /// Added before every answer.
    pub delay_ms: AtomicU64,
    /// Queued answers: an extra delay and the assistant message.
    pub replies: Mutex<VecDeque<(Duration, Value)>>,
    /// The text answered once the queue is empty.
    pub fallback: String,
    pub calls: AtomicUsize,
    /// Every request body received, in order.
    pub requests: Mutex<Vec<Value>>,
    /// `prompt_tokens` and `completion_tokens` reported with each answer.
    pub usage: (u64, u64),
}

/// A script that answers `fallback` after `delay_ms`, reporting 1200 + 300 tokens a call.
pub fn script(delay_ms: u64, fallback: &str) -> Arc<Script> {
    Arc::new(Script {
        delay_ms: AtomicU64::new(delay_ms),
        replies: Default::default(),
        fallback: fallback.into(),
        calls: AtomicUsize::new(0),
        requests: Default::default(),
        usage: (1200, 300),
    })
}

impl Script {
    /// Queues a plain text answer.
    pub fn text(&self, content: &str) -> &Self {
        self.push(
            Duration::ZERO,
            json!({"role": "assistant", "content": content}),
        )
    }

    /// Queues an answer that calls tools: `(name, arguments)` each.
    pub fn tools(&self, calls: &[(&str, Value)]) -> &Self {
        self.tools_after(Duration::ZERO, calls)
    }

    /// Queues a tool-calling answer that arrives after an extra `delay`.
    pub fn tools_after(&self, delay: Duration, calls: &[(&str, Value)]) -> &Self {
        let n = self.replies.lock().unwrap().len();
        let calls: Vec<Value> = calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| {
                json!({"id": format!("call_{n}_{i}"), "type": "function",
                       "function": {"name": name, "arguments": args.to_string()}})
            })
            .collect();
        self.push(
            delay,
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
        )
    }

    /// Queues a text answer that arrives after an extra `delay`.
    pub fn text_after(&self, delay: Duration, content: &str) -> &Self {
        self.push(delay, json!({"role": "assistant", "content": content}))
    }

    fn push(&self, delay: Duration, message: Value) -> &Self {
        self.replies.lock().unwrap().push_back((delay, message));
        self
    }

    /// The request bodies received so far.
    pub fn received(&self) -> Vec<Value> {
        self.requests.lock().unwrap().clone()
    }
}

/// Serves `script` on `127.0.0.1:0`; returns the base URL (`http://…/v1`).
pub async fn model_server(script: Arc<Script>) -> String {
    use axum::routing::post;
    let app = axum::Router::new().route(
        "/v1/chat/completions",
        post(move |axum::Json(body): axum::Json<Value>| {
            let script = script.clone();
            async move {
                script.calls.fetch_add(1, Ordering::SeqCst);
                script.requests.lock().unwrap().push(body);
                let (extra, message) =
                    script
                        .replies
                        .lock()
                        .unwrap()
                        .pop_front()
                        .unwrap_or_else(|| {
                            (
                                Duration::ZERO,
                                json!({"role": "assistant", "content": script.fallback}),
                            )
                        });
                let delay = Duration::from_millis(script.delay_ms.load(Ordering::SeqCst)) + extra;
                tokio::time::sleep(delay).await;
                axum::Json(json!({
                    "choices": [{"index": 0, "message": message}],
                    "usage": {"prompt_tokens": script.usage.0, "completion_tokens": script.usage.1}
                }))
            }
        }),
    );
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(l, app).await;
    });
    format!("http://{addr}/v1")
}
