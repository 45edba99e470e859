//! The protocol events of each server: every JSON-RPC message both ways (through [`Tap`],
//! a transport wrapper), the lines it writes to stderr, and notes of what evaldeck decided
//! for it. Kept per server across its sessions in a bounded ring, and broadcast live, for
//! the workbench's protocol pane, the CLI's `--verbose` and iteration traces.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::RoleClient;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde::Serialize;
use serde_json::{Value, json};

use crate::spec::primitives::ProtocolEvent;

/// Events kept per server.
const KEPT: usize = 2000;
/// Bytes of one message kept in an event.
const MESSAGE_BYTES: usize = 64 * 1024;

/// One server's protocol events.
pub struct Traffic {
    seq: AtomicU64,
    ring: Mutex<VecDeque<ProtocolEvent>>,
    live: tokio::sync::broadcast::Sender<ProtocolEvent>,
    /// Write each event to stderr as it happens (the CLI's `--verbose`).
    echo: bool,
    server: String,
}

impl Traffic {
    pub fn new(server: &str, echo: bool) -> Traffic {
        Traffic {
            seq: AtomicU64::new(0),
            ring: Mutex::new(VecDeque::new()),
            live: tokio::sync::broadcast::channel(256).0,
            echo,
            server: server.to_string(),
        }
    }

    fn push(
        &self,
        direction: &str,
        kind: &str,
        method: Option<String>,
        id: Option<Value>,
        message: Value,
    ) {
        let e = ProtocolEvent {
            seq: self.seq.fetch_add(1, Ordering::Relaxed) + 1,
            at: crate::service::store::now_ms(),
            direction: direction.into(),
            kind: kind.into(),
            method,
            id,
            message,
        };
        if self.echo {
            eprintln!("{}", line(&self.server, &e));
        }
        let _ = self.live.send(e.clone());
        let mut ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        if ring.len() == KEPT {
            ring.pop_front();
        }
        ring.push_back(e);
    }

    /// A JSON-RPC message, classified by its shape.
    pub fn message<M: Serialize>(&self, direction: &str, m: &M) {
        let Ok(v) = serde_json::to_value(m) else {
            return;
        };
        let kind = match (v.get("method"), v.get("id"), v.get("error")) {
            (Some(_), Some(_), _) => "request",
            (Some(_), None, _) => "notification",
            (None, _, Some(_)) => "error",
            _ => "response",
        };
        let method = v.get("method").and_then(Value::as_str).map(str::to_string);
        let id = v.get("id").cloned();
        self.push(direction, kind, method, id, bounded(v));
    }

    /// A line the server wrote to stderr.
    pub fn stderr(&self, line: &str) {
        self.push(
            "stderr",
            "stderr",
            None,
            None,
            Value::String(line.to_string()),
        );
    }

    /// What evaldeck decided on the server's behalf.
    pub fn note(&self, method: Option<&str>, text: impl Into<String>) {
        self.push(
            "note",
            "note",
            method.map(str::to_string),
            None,
            Value::String(text.into()),
        );
    }

    /// The latest sequence number.
    pub fn last_seq(&self) -> u64 {
        self.seq.load(Ordering::Relaxed)
    }

    /// Events after `after`, oldest first, at most `limit`.
    pub fn after(&self, after: u64, limit: usize) -> Vec<ProtocolEvent> {
        let ring = self.ring.lock().unwrap_or_else(|p| p.into_inner());
        ring.iter()
            .filter(|e| e.seq > after)
            .take(limit)
            .cloned()
            .collect()
    }

    /// Live events from now on.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<ProtocolEvent> {
        self.live.subscribe()
    }
}

/// A message as kept: whole up to [`MESSAGE_BYTES`], else its first bytes as text.
fn bounded(v: Value) -> Value {
    let text = v.to_string();
    if text.len() <= MESSAGE_BYTES {
        return v;
    }
    let mut end = MESSAGE_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    json!({"truncated": text.len(), "text": &text[..end]})
}

/// One event as one line: `demo → tools/call #3 {…}`.
pub fn line(server: &str, e: &ProtocolEvent) -> String {
    let arrow = match e.direction.as_str() {
        "out" => "→",
        "in" => "←",
        "stderr" => "⚠",
        _ => "·",
    };
    let what = match (&e.method, &e.id) {
        (Some(m), Some(id)) => format!("{m} #{id}"),
        (Some(m), None) => m.clone(),
        (None, Some(id)) => format!("#{id}"),
        (None, None) => String::new(),
    };
    let body = match &e.message {
        Value::String(s) => s.clone(),
        v => {
            let s = v.to_string();
            if s.chars().count() > 400 {
                format!("{}…", s.chars().take(400).collect::<String>())
            } else {
                s
            }
        }
    };
    format!("{server} {arrow} {} {what} {body}", e.kind)
}

/// A transport that records every message it carries in a [`Traffic`]. Its name is what
/// rmcp puts into transport errors, so they speak of the connection, not of Rust types.
pub(crate) struct Tap<T> {
    pub inner: T,
    pub traffic: std::sync::Arc<Traffic>,
}

impl<T> Transport<RoleClient> for Tap<T>
where
    T: Transport<RoleClient> + 'static,
{
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        "the MCP connection".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.traffic.message("out", &item);
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let traffic = self.traffic.clone();
        let next = self.inner.receive();
        async move {
            let m = next.await;
            if let Some(m) = &m {
                traffic.message("in", m);
            }
            m
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
