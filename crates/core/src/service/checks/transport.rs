//! The transports' own rules, checked on the wire: what a stdio server writes on stdout,
//! and how a streamable HTTP endpoint answers requests a client library would never send
//! (the wrong `Accept`, no session, an unknown session, a bad protocol header).

use std::time::Duration;

use serde_json::{Value, json};

use super::{Ctx, Verdict};
use crate::service::mcp::probe::stdio_transcript;
use crate::spec::conformance::Evidence;
use crate::spec::server::Transport;

/// `transport.stdio-stdout`.
pub(crate) async fn stdio_stdout(ctx: &Ctx<'_>) -> Verdict {
    if !matches!(ctx.target.config.transport, Transport::Stdio { .. }) {
        return Verdict::not_applicable("not a stdio server");
    }
    let input = if ctx.probe.modern() {
        vec![
            request(ctx, 1, "server/discover", json!({})),
            request(ctx, 2, "tools/list", json!({})),
        ]
    } else {
        vec![
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": ctx.revision,
                "capabilities": {},
                "clientInfo": {"name": "evaldeck-check", "version": env!("CARGO_PKG_VERSION")}
            }}),
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}),
        ]
    };
    // A second start of the same command: give it the request timeout, at least the time
    // the first one took.
    let wait = ctx.timeout.max(ctx.probe.connected_in * 2);
    let lines = match stdio_transcript(ctx.target, &input, 2, wait).await {
        Ok(l) => l,
        Err(e) => return Verdict::could_not_run(e, vec![]),
    };
    let mut problems = vec![];
    for (i, line) in lines.iter().enumerate() {
        let what = match serde_json::from_str::<Value>(line) {
            Ok(v) if v["jsonrpc"] == "2.0" && v.is_object() => continue,
            Ok(Value::Array(_)) => "a JSON array (batches are not part of MCP over stdio)",
            Ok(_) => "JSON, but not a JSON-RPC 2.0 message",
            Err(_) if line.trim().is_empty() => "an empty line",
            Err(_) => "not JSON",
        };
        let shown: String = line.chars().take(200).collect();
        problems.push(
            Evidence::new(format!("stdout line {}: {what}: {shown}", i + 1)).at("stdio:stdout"),
        );
    }
    if lines.is_empty() {
        return Verdict::could_not_run(
            format!(
                "the server wrote nothing on stdout within {} ms",
                wait.as_millis()
            ),
            vec![],
        );
    }
    Verdict::from_problems(
        problems,
        format!("{} line(s) on stdout, each a JSON-RPC message", lines.len()),
        "line on stdout that is not JSON-RPC",
    )
}

/// A request as the session's era writes it: from `2026-07-28` every request carries the
/// revision and the client's capabilities in `_meta`.
fn request(ctx: &Ctx<'_>, id: u64, method: &str, mut params: Value) -> Value {
    if ctx.probe.modern() {
        params["_meta"] = json!({
            "io.modelcontextprotocol/protocolVersion": ctx.revision,
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "evaldeck-check", "version": env!("CARGO_PKG_VERSION")},
        });
    }
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// An HTTP answer, read up to its first event for a stream.
struct Answer {
    status: u16,
    content_type: String,
    session: Option<String>,
    body: String,
}

impl Answer {
    fn evidence(&self, what: &str) -> Evidence {
        let body: String = self.body.trim().chars().take(300).collect();
        Evidence::new(format!(
            "{what} → {} {}{}",
            self.status,
            if self.content_type.is_empty() {
                "(no content type)"
            } else {
                &self.content_type
            },
            if body.is_empty() {
                String::new()
            } else {
                format!(": {body}")
            }
        ))
        .at("http")
    }
    fn event_stream(&self) -> bool {
        self.content_type.starts_with("text/event-stream")
    }
    /// The `id:` of the first event that has one.
    fn first_event_id(&self) -> Option<String> {
        self.body
            .lines()
            .find_map(|l| l.strip_prefix("id:").map(|s| s.trim().to_string()))
            .filter(|s| !s.is_empty())
    }
}

/// A streamable HTTP endpoint, spoken to directly.
struct Http<'a> {
    ctx: &'a Ctx<'a>,
    client: reqwest::Client,
    url: String,
    headers: Vec<(String, String)>,
}

const BOTH: &str = "application/json, text/event-stream";

impl<'a> Http<'a> {
    fn of(ctx: &'a Ctx<'a>) -> Option<Http<'a>> {
        let Transport::Http { url, headers } = &ctx.target.config.transport else {
            return None;
        };
        let mut hs: Vec<(String, String)> = headers
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if let Some(t) = &ctx.target.access_token {
            hs.push(("Authorization".into(), format!("Bearer {t}")));
        }
        Some(Http {
            ctx,
            client: reqwest::Client::builder()
                .timeout(ctx.timeout)
                .build()
                .unwrap_or_default(),
            url: url.clone(),
            headers: hs,
        })
    }

    async fn send(
        &self,
        method: reqwest::Method,
        body: Option<&Value>,
        accept: &str,
        extra: &[(&str, &str)],
    ) -> Result<Answer, String> {
        let mut rb = self
            .client
            .request(method, &self.url)
            .header("Accept", accept);
        for (k, v) in &self.headers {
            rb = rb.header(k, v);
        }
        for (k, v) in extra {
            rb = rb.header(*k, *v);
        }
        if let Some(b) = body {
            rb = rb
                .header("Content-Type", "application/json")
                .body(b.to_string());
        }
        let mut resp = rb.send().await.map_err(|e| e.to_string())?;
        let status = resp.status().as_u16();
        let header = |k: &str| {
            resp.headers()
                .get(k)
                .and_then(|v| v.to_str().ok())
                .map(str::to_string)
        };
        let content_type = header("content-type").unwrap_or_default();
        let session = header("mcp-session-id");
        let stream = content_type.starts_with("text/event-stream");
        let mut bytes = vec![];
        // A stream is read until its first event (a GET stream may stay open for good).
        let limit = tokio::time::Instant::now() + self.ctx.timeout.min(Duration::from_secs(3));
        while let Ok(Ok(Some(c))) = tokio::time::timeout_at(limit, resp.chunk()).await {
            bytes.extend_from_slice(&c);
            if stream && String::from_utf8_lossy(&bytes).contains("\n\n") {
                break;
            }
        }
        Ok(Answer {
            status,
            content_type,
            session,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        })
    }

    async fn post(
        &self,
        body: &Value,
        accept: &str,
        session: Option<&str>,
        extra: &[(&str, &str)],
    ) -> Result<Answer, String> {
        let mut hs: Vec<(&str, &str)> = extra.to_vec();
        if let Some(s) = session {
            hs.push(("Mcp-Session-Id", s));
        }
        let v = self.ctx.revision.as_str();
        if !extra
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("MCP-Protocol-Version"))
            && v >= "2025-06-18"
        {
            hs.push(("MCP-Protocol-Version", v));
        }
        if let Some(m) = body["method"].as_str()
            && self.ctx.probe.modern()
        {
            hs.push(("Mcp-Method", m));
        }
        self.send(reqwest::Method::POST, Some(body), accept, &hs)
            .await
    }

    /// A session of its own: `initialize` and `notifications/initialized` in the
    /// handshake era (the session id, if the server assigns one); nothing from
    /// `2026-07-28`.
    async fn open(&self) -> Result<Option<String>, String> {
        if self.ctx.probe.modern() {
            return Ok(None);
        }
        let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": self.ctx.revision,
            "capabilities": {},
            "clientInfo": {"name": "evaldeck-check", "version": env!("CARGO_PKG_VERSION")}
        }});
        let a = self.post(&init, BOTH, None, &[]).await?;
        if a.status != 200 {
            return Err(format!("initialize → HTTP {}: {}", a.status, a.body));
        }
        let session = a.session.clone();
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        self.post(&note, BOTH, session.as_deref(), &[]).await?;
        Ok(session)
    }

    fn request(&self, id: u64, method: &str) -> Value {
        request(self.ctx, id, method, json!({}))
    }

    /// A request every server answers: a list it declares, else `ping`.
    fn cheap(&self) -> &'static str {
        if self.ctx.tools.declared {
            "tools/list"
        } else if self.ctx.prompts.declared {
            "prompts/list"
        } else if self.ctx.resources.declared {
            "resources/list"
        } else {
            "ping"
        }
    }
}

macro_rules! http_or_na {
    ($ctx:expr) => {
        match Http::of($ctx) {
            Some(h) => h,
            None => return Verdict::not_applicable("not a streamable HTTP server"),
        }
    };
}

macro_rules! tried {
    ($e:expr) => {
        match $e {
            Ok(v) => v,
            Err(e) => return Verdict::could_not_run(e, vec![]),
        }
    };
}

/// `transport.http-accept`.
pub(crate) async fn http_accept(ctx: &Ctx<'_>) -> Verdict {
    let h = http_or_na!(ctx);
    let session = tried!(h.open().await);
    let method = h.cheap();
    let a = tried!(
        h.post(
            &h.request(7, method),
            "application/json",
            session.as_deref(),
            &[]
        )
        .await
    );
    let e = a.evidence(&format!("POST {method} with Accept: application/json"));
    if a.event_stream() {
        Verdict::fail(
            "a POST accepting only application/json was answered with an event stream",
            vec![e],
        )
    } else if a.status == 406 || (a.status == 200 && a.content_type.starts_with("application/json"))
    {
        Verdict::pass(format!(
            "answered {} {}",
            a.status,
            if a.status == 406 {
                "Not Acceptable"
            } else {
                "with JSON"
            }
        ))
        .with(e)
    } else {
        Verdict::fail(
            format!(
                "answered {} ({}), neither JSON nor 406",
                a.status, a.content_type
            ),
            vec![e],
        )
    }
}

/// `transport.http-status-codes`.
pub(crate) async fn http_status_codes(ctx: &Ctx<'_>) -> Verdict {
    let h = http_or_na!(ctx);
    let session = tried!(h.open().await);
    let note = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": "evaldeck-never-sent", "reason": "evaldeck check"}});
    let a = tried!(h.post(&note, BOTH, session.as_deref(), &[]).await);
    let mut problems = vec![];
    let mut seen = vec![a.evidence("POST a notification")];
    if a.status != 202 || !a.body.trim().is_empty() {
        problems.push(a.evidence("POST a notification (202 Accepted with no body expected)"));
    }
    // The GET stream belongs to the handshake era; from 2026-07-28 notifications come
    // through `subscriptions/listen`.
    let mut get = "not asked (2026-07-28)";
    if !ctx.probe.modern() {
        let mut extra: Vec<(&str, &str)> = vec![];
        if let Some(s) = &session {
            extra.push(("Mcp-Session-Id", s));
        }
        let g = tried!(
            h.send(reqwest::Method::GET, None, "text/event-stream", &extra)
                .await
        );
        seen.push(g.evidence("GET"));
        get = if g.status == 405 {
            "405"
        } else {
            "an event stream"
        };
        if !((g.status == 200 && g.event_stream()) || g.status == 405) {
            problems.push(g.evidence("GET (an event stream or 405 Method Not Allowed expected)"));
        }
    }
    if problems.is_empty() {
        let mut v = Verdict::pass(format!("a notification is answered 202; GET is {get}"));
        v.evidence = seen;
        v
    } else {
        Verdict::fail(
            format!("{} answer(s) with the wrong status", problems.len()),
            problems,
        )
    }
}

/// `transport.http-session`.
pub(crate) async fn http_session(ctx: &Ctx<'_>) -> Verdict {
    let h = http_or_na!(ctx);
    let Some(session) = tried!(h.open().await) else {
        return Verdict::not_applicable("the server assigns no Mcp-Session-Id (stateless)");
    };
    let method = h.cheap();
    let without = tried!(h.post(&h.request(8, method), BOTH, None, &[]).await);
    let unknown = tried!(
        h.post(
            &h.request(9, method),
            BOTH,
            Some("evaldeck-unknown-session"),
            &[]
        )
        .await
    );
    let with = tried!(
        h.post(&h.request(10, method), BOTH, Some(&session), &[])
            .await
    );
    let mut problems = vec![];
    if without.status != 400 {
        problems.push(without.evidence(&format!(
            "POST {method} without Mcp-Session-Id (400 expected)"
        )));
    }
    if unknown.status != 404 {
        problems.push(unknown.evidence(&format!(
            "POST {method} with an unknown Mcp-Session-Id (404 expected)"
        )));
    }
    if with.status != 200 {
        problems.push(with.evidence(&format!(
            "POST {method} with the assigned Mcp-Session-Id (200 expected)"
        )));
    }
    if problems.is_empty() {
        Verdict::pass("no session id → 400, an unknown one → 404, the assigned one → 200")
    } else {
        Verdict::fail(
            format!("{} session rule(s) broken", problems.len()),
            problems,
        )
    }
}

/// `transport.http-sse-resumption`.
pub(crate) async fn http_sse_resumption(ctx: &Ctx<'_>) -> Verdict {
    let h = http_or_na!(ctx);
    let session = tried!(h.open().await);
    let method = h.cheap();
    let a = tried!(
        h.post(&h.request(11, method), BOTH, session.as_deref(), &[])
            .await
    );
    if !a.event_stream() {
        return Verdict::not_applicable(format!(
            "{method} was answered with JSON, not an event stream: nothing to resume"
        ));
    }
    let Some(id) = a.first_event_id() else {
        return Verdict::not_applicable(
            "the server's events carry no ids: it offers no resumption",
        );
    };
    let mut extra: Vec<(&str, &str)> = vec![("Last-Event-ID", &id)];
    if let Some(s) = &session {
        extra.push(("Mcp-Session-Id", s));
    }
    let g = tried!(
        h.send(reqwest::Method::GET, None, "text/event-stream", &extra)
            .await
    );
    let e = g.evidence(&format!("GET with Last-Event-ID: {id}"));
    if g.status == 200 && g.event_stream() {
        Verdict::pass(format!("the stream resumes after event `{id}`")).with(e)
    } else if g.status == 405 {
        Verdict::fail(
            "events carry ids, but GET to resume them is refused with 405",
            vec![a.evidence(&format!("POST {method}")), e],
        )
    } else {
        Verdict::fail(
            format!("resuming after event `{id}` answered {}", g.status),
            vec![e],
        )
    }
}

/// `transport.http-protocol-header`.
pub(crate) async fn http_protocol_header(ctx: &Ctx<'_>) -> Verdict {
    let h = http_or_na!(ctx);
    let session = tried!(h.open().await);
    let method = h.cheap();
    let a = tried!(
        h.post(
            &h.request(12, method),
            BOTH,
            session.as_deref(),
            &[("MCP-Protocol-Version", "1999-01-01")]
        )
        .await
    );
    let e = a.evidence(&format!(
        "POST {method} with MCP-Protocol-Version: 1999-01-01"
    ));
    if a.status == 400 {
        Verdict::pass("an unsupported MCP-Protocol-Version is refused with 400").with(e)
    } else {
        Verdict::fail(
            format!(
                "an unsupported MCP-Protocol-Version was answered {}, not 400",
                a.status
            ),
            vec![e],
        )
    }
}
