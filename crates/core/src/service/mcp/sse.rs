//! Legacy HTTP+SSE client transport (MCP 2024-11-05), which rmcp 3.x no longer ships.
//!
//! The exchange: `GET url` opens an event stream whose first `endpoint` event names the URL
//! to POST JSON-RPC messages to; every answer arrives as a `message` event on the stream.
//! [`SseClientTransport`] implements rmcp's [`Transport`], so the rest of the client treats
//! an SSE server exactly like a stdio or streamable-HTTP one. Also [`SseParser`], shared with
//! the demo server's tests.

use std::sync::Arc;

use reqwest::header::{
    ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, WWW_AUTHENTICATE,
};
use rmcp::RoleClient;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_client::AuthRequiredError;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::{CancellationToken, DropGuard};

/// Why the SSE transport failed.
#[derive(Debug, thiserror::Error)]
pub enum SseError {
    #[error("HTTP request failed: {0}")]
    Http(#[source] reqwest::Error),
    #[error("authorization required")]
    AuthRequired(#[source] AuthRequiredError),
    #[error("unexpected HTTP status {0}")]
    Status(u16),
    #[error("the event stream is not `text/event-stream` (got {0:?})")]
    ContentType(Option<String>),
    #[error("the event stream ended before the `endpoint` event")]
    NoEndpoint,
    #[error("invalid endpoint `{0}`")]
    BadEndpoint(String),
    #[error("could not encode the message: {0}")]
    Encode(#[source] serde_json::Error),
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
    pub id: Option<String>,
}

/// Incremental `text/event-stream` parser: feed bytes, take whole events.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    current: SseEvent,
    has_data: bool,
}

impl SseParser {
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(pos) = self.buf.iter().position(|b| *b == b'\n') {
            let mut line: Vec<u8> = self.buf.drain(..=pos).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if line.is_empty() {
                if self.has_data || self.current.event.is_some() {
                    out.push(std::mem::take(&mut self.current));
                }
                self.has_data = false;
                continue;
            }
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
                None => (line.as_ref(), ""),
            };
            match field {
                "event" => self.current.event = Some(value.to_string()),
                "data" => {
                    if self.has_data {
                        self.current.data.push('\n');
                    }
                    self.current.data.push_str(value);
                    self.has_data = true;
                }
                "id" => self.current.id = Some(value.to_string()),
                _ => {}
            }
        }
        out
    }
}

/// A client transport over a legacy SSE server. Dropping it stops the reader task.
pub struct SseClientTransport {
    rx: mpsc::Receiver<ServerJsonRpcMessage>,
    endpoint: reqwest::Url,
    http: reqwest::Client,
    headers: Arc<HeaderMap>,
    _stop: DropGuard,
}

impl SseClientTransport {
    /// Opens the event stream and waits for its `endpoint` event. `headers` go on every
    /// request (the GET and each POST); a bearer token belongs in them as `Authorization`.
    pub async fn connect(
        http: reqwest::Client,
        url: &str,
        headers: HeaderMap,
    ) -> Result<Self, SseError> {
        let base = reqwest::Url::parse(url).map_err(|_| SseError::BadEndpoint(url.to_string()))?;
        let resp = http
            .get(base.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(SseError::Http)?;
        check_status(&resp)?;
        let ct = resp
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        if !ct
            .as_deref()
            .is_some_and(|c| c.starts_with("text/event-stream"))
        {
            return Err(SseError::ContentType(ct));
        }

        let stop = CancellationToken::new();
        let (tx, rx) = mpsc::channel(64);
        let (endpoint_tx, endpoint_rx) = oneshot::channel();
        tokio::spawn(read_stream(resp, tx, endpoint_tx, stop.clone()));
        let endpoint = endpoint_rx.await.map_err(|_| SseError::NoEndpoint)?;
        let endpoint = base
            .join(endpoint.trim())
            .map_err(|_| SseError::BadEndpoint(endpoint))?;
        // The endpoint must stay on the stream's origin: a POST elsewhere would carry our
        // headers (and any token) to another host.
        if endpoint.origin() != base.origin() {
            return Err(SseError::BadEndpoint(endpoint.to_string()));
        }
        Ok(SseClientTransport {
            rx,
            endpoint,
            http,
            headers: Arc::new(headers),
            _stop: stop.drop_guard(),
        })
    }
}

fn check_status(resp: &reqwest::Response) -> Result<(), SseError> {
    let status = resp.status();
    if status.is_success() {
        return Ok(());
    }
    if (status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN)
        && let Some(c) = resp
            .headers()
            .get(WWW_AUTHENTICATE)
            .and_then(|v| v.to_str().ok())
    {
        return Err(SseError::AuthRequired(AuthRequiredError::new(
            c.to_string(),
        )));
    }
    Err(SseError::Status(status.as_u16()))
}

async fn read_stream(
    mut resp: reqwest::Response,
    tx: mpsc::Sender<ServerJsonRpcMessage>,
    endpoint_tx: oneshot::Sender<String>,
    stop: CancellationToken,
) {
    let mut parser = SseParser::default();
    let mut endpoint_tx = Some(endpoint_tx);
    loop {
        let chunk = tokio::select! {
            _ = stop.cancelled() => return,
            c = resp.chunk() => c,
        };
        let chunk = match chunk {
            Ok(Some(c)) => c,
            Ok(None) => {
                tracing::debug!("sse: event stream ended");
                return;
            }
            Err(e) => {
                tracing::debug!("sse: event stream failed: {e}");
                return;
            }
        };
        for ev in parser.feed(&chunk) {
            match ev.event.as_deref() {
                Some("endpoint") => {
                    if let Some(t) = endpoint_tx.take() {
                        let _ = t.send(ev.data);
                    }
                }
                None | Some("message") => {
                    match serde_json::from_str::<ServerJsonRpcMessage>(&ev.data) {
                        Ok(msg) => {
                            if tx.send(msg).await.is_err() {
                                return;
                            }
                        }
                        Err(e) => {
                            tracing::warn!("sse: ignoring an event that is not JSON-RPC: {e}")
                        }
                    }
                }
                Some(other) => tracing::debug!("sse: ignoring `{other}` event"),
            }
        }
    }
}

impl Transport<RoleClient> for SseClientTransport {
    type Error = SseError;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let http = self.http.clone();
        let url = self.endpoint.clone();
        let headers = self.headers.clone();
        async move {
            let body = serde_json::to_vec(&item).map_err(SseError::Encode)?;
            let resp = http
                .post(url)
                .headers((*headers).clone())
                .header(CONTENT_TYPE, "application/json")
                .body(body)
                .send()
                .await
                .map_err(SseError::Http)?;
            check_status(&resp)
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ServerJsonRpcMessage>> + Send {
        self.rx.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.rx.close();
        Ok(())
    }
}

/// Builds the header map for an HTTP transport: the configured headers, then the bearer
/// token (which replaces any configured `Authorization`).
pub(crate) fn header_map(
    configured: &std::collections::BTreeMap<String, String>,
    token: Option<&str>,
) -> Result<HeaderMap, crate::spec::Error> {
    let mut map = HeaderMap::new();
    for (k, v) in configured {
        let name = reqwest::header::HeaderName::from_bytes(k.as_bytes()).map_err(|_| {
            crate::spec::Error::invalid(
                "/config/transport/headers",
                "header",
                format!("`{k}` is not a valid header name"),
            )
        })?;
        let value = HeaderValue::from_str(v).map_err(|_| {
            crate::spec::Error::invalid(
                "/config/transport/headers",
                "header",
                format!("the value of `{k}` is not a valid header value"),
            )
        })?;
        map.insert(name, value);
    }
    if let Some(t) = token {
        let mut v = HeaderValue::from_str(&format!("Bearer {t}")).map_err(|_| {
            crate::spec::Error::invalid(
                "/tokens/access_token",
                "header",
                "the access token has characters a header cannot carry",
            )
        })?;
        v.set_sensitive(true);
        map.insert(AUTHORIZATION, v);
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_split_events() {
        let mut p = SseParser::default();
        assert!(p.feed(b"event: endpoint\r\nda").is_empty());
        let evs =
            p.feed(b"ta: /message?sessionId=1\r\n\r\n: comment\n\ndata: {\"a\":1}\ndata: x\n\n");
        assert_eq!(evs.len(), 2);
        assert_eq!(evs[0].event.as_deref(), Some("endpoint"));
        assert_eq!(evs[0].data, "/message?sessionId=1");
        assert_eq!(evs[1].event, None);
        assert_eq!(evs[1].data, "{\"a\":1}\nx");
    }
}
