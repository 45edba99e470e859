//! The host side of the MCP Apps bridge, and a rendered view.
//!
//! The host page is ours: an empty document holding the view's frame. Messages the view
//! posts to its parent reach evaldeck through a DevTools binding; evaldeck answers by
//! posting into the frame. Requests are answered concurrently (a slow proxied `tools/call`
//! does not hold up console capture), and every one is recorded.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use chromiumoxide::Page;
use chromiumoxide::cdp::browser_protocol::log::EventEntryAdded;
use chromiumoxide::cdp::browser_protocol::page::{FrameId, Viewport};
use chromiumoxide::cdp::js_protocol::runtime::{
    AddBindingParams, EvaluateParams, EventBindingCalled, EventConsoleApiCalled,
    EventExceptionThrown,
};
use chromiumoxide::page::ScreenshotParams;
use futures::StreamExt;
use serde_json::{Value, json};
use tokio::sync::Notify;

use super::browser::Chrome;
use super::{APPS_PROTOCOL, ConsoleEntry, RENDER_TIMEOUT, ViewHost, ViewRecord, ViewSource, csp};

const BINDING: &str = "__evaldeckHost";

/// The id of our `ui/resource-teardown` request, and how long its answer is waited for.
const TEARDOWN_ID: &str = "evaldeck-teardown";
const TEARDOWN_WAIT: Duration = Duration::from_millis(150);

/// The frame's width; its height follows the view's `size-changed` (within bounds).
const WIDTH: f64 = 760.0;
const HEIGHT: f64 = 420.0;
const MAX_HEIGHT: f64 = 2000.0;

/// The host document: one sandboxed frame (scripts only: an opaque origin, no access to us).
const HOST_PAGE: &str = r#"<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;background:#fff}iframe{border:0;display:block;width:760px;height:420px}</style></head><body><iframe id="view" sandbox="allow-scripts"></iframe><script>
const view = document.getElementById('view');
window.addEventListener('message', e => { if (e.source === view.contentWindow) __evaldeckHost(JSON.stringify(e.data)); });
window.__deliver = m => view.contentWindow.postMessage(m, '*');
window.__load = html => { view.srcdoc = html; };
window.__size = (w, h) => { if (w) view.style.width = w + 'px'; if (h) view.style.height = h + 'px'; };
window.__rect = () => { const r = view.getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; };
</script></body></html>"#;

/// The union of the view's visible elements' boxes, `[left, top, right, bottom]`.
const CONTENT_BOX: &str = r#"(() => {
  let b = null;
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || s.display === 'none') continue;
    b = b ? [Math.min(b[0], r.left), Math.min(b[1], r.top), Math.max(b[2], r.right), Math.max(b[3], r.bottom)]
          : [r.left, r.top, r.right, r.bottom];
  }
  return b;
})()"#;

struct State {
    record: ViewRecord,
    /// Requests from the view being answered now.
    pending: usize,
    last_activity: Instant,
}

/// A view rendered in its own page of the warm browser.
pub struct View {
    page: Page,
    frame: Option<FrameId>,
    state: Arc<Mutex<State>>,
    tasks: Vec<tokio::task::JoinHandle<()>>,
    /// Told when the view answers `ui/resource-teardown`.
    torn_down: Arc<Notify>,
}

fn lock(s: &Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    s.lock().unwrap_or_else(|p| p.into_inner())
}

fn ms_since(t0: Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1000.0
}

/// The view's HTML from a `resources/read` content (`text`, or base64 `blob`).
fn html_of(content: &Value) -> Result<String, String> {
    if let Some(t) = content["text"].as_str() {
        return Ok(t.to_string());
    }
    if let Some(b) = content["blob"].as_str() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(b)
            .map_err(|e| format!("the UI resource's blob is not base64: {e}"))?;
        return String::from_utf8(bytes)
            .map_err(|_| "the UI resource's blob is not UTF-8 HTML".to_string());
    }
    Err("the UI resource has neither `text` nor `blob`".into())
}

impl View {
    pub(super) async fn open(
        chrome: &Chrome,
        source: ViewSource,
        host: Arc<dyn ViewHost>,
    ) -> Result<View, String> {
        let cdp = |e: chromiumoxide::error::CdpError| format!("the browser failed: {e}");
        let content = source.resource["contents"]
            .as_array()
            .and_then(|c| c.first())
            .cloned()
            .unwrap_or(Value::Null);
        let uri = content["uri"].as_str().unwrap_or_default().to_string();
        let policy = csp::policy(&content["_meta"]["ui"]["csp"]);
        let mut record = ViewRecord {
            tool_name: source.tool["name"].as_str().unwrap_or_default().to_string(),
            resource_uri: uri,
            csp: policy.clone(),
            ..Default::default()
        };
        let html = match html_of(&content) {
            Ok(h) => h,
            Err(e) => {
                record.error = Some(e.clone());
                return Err(e);
            }
        };
        let page = chrome.browser.new_page("about:blank").await.map_err(cdp)?;
        page.enable_runtime().await.map_err(cdp)?;
        page.enable_log().await.map_err(cdp)?;
        page.execute(AddBindingParams::new(BINDING))
            .await
            .map_err(cdp)?;
        let mut calls = page
            .event_listener::<EventBindingCalled>()
            .await
            .map_err(cdp)?;
        let mut console = page
            .event_listener::<EventConsoleApiCalled>()
            .await
            .map_err(cdp)?;
        let mut thrown = page
            .event_listener::<EventExceptionThrown>()
            .await
            .map_err(cdp)?;
        let mut logs = page
            .event_listener::<EventEntryAdded>()
            .await
            .map_err(cdp)?;
        page.set_content(HOST_PAGE).await.map_err(cdp)?;

        let state = Arc::new(Mutex::new(State {
            record,
            pending: 0,
            last_activity: Instant::now(),
        }));
        let initialized = Arc::new(Notify::new());
        let t0 = Instant::now();

        // Console, exceptions and log entries.
        let st = state.clone();
        let observe = tokio::spawn(async move {
            loop {
                let entry = tokio::select! {
                    Some(c) = console.next() => ConsoleEntry {
                        level: match enum_str(&c.r#type).as_str() {
                            "error" | "assert" => "error".into(),
                            "warning" => "warning".into(),
                            "debug" => "debug".into(),
                            "info" => "info".into(),
                            _ => "log".into(),
                        },
                        source: "console".into(),
                        text: c.args.iter().map(|a| match &a.value {
                            Some(Value::String(s)) => s.clone(),
                            Some(v) => v.to_string(),
                            None => a.description.clone().unwrap_or_default(),
                        }).collect::<Vec<_>>().join(" "),
                        at_ms: ms_since(t0),
                    },
                    Some(x) = thrown.next() => ConsoleEntry {
                        level: "error".into(),
                        source: "exception".into(),
                        text: x.exception_details.exception.as_ref()
                            .and_then(|e| e.description.clone())
                            .unwrap_or_else(|| x.exception_details.text.clone()),
                        at_ms: ms_since(t0),
                    },
                    Some(l) = logs.next() => ConsoleEntry {
                        level: enum_str(&l.entry.level),
                        source: match enum_str(&l.entry.source).as_str() {
                            "javascript" => "console".into(),
                            s => s.to_string(),
                        },
                        text: l.entry.text.clone(),
                        at_ms: ms_since(t0),
                    },
                    else => break,
                };
                let mut s = lock(&st);
                s.last_activity = Instant::now();
                s.record.console.push(entry);
            }
        });

        // Messages from the view.
        let st = state.clone();
        let pg = page.clone();
        let init = initialized.clone();
        let torn = Arc::new(Notify::new());
        let torn_down = torn.clone();
        let source = Arc::new(source);
        let bridge = tokio::spawn(async move {
            while let Some(ev) = calls.next().await {
                let Ok(msg) = serde_json::from_str::<Value>(&ev.payload) else {
                    continue;
                };
                let Some(method) = msg["method"].as_str().map(str::to_string) else {
                    // An answer to a request of ours: the teardown.
                    if msg["id"] == TEARDOWN_ID {
                        torn.notify_one();
                    }
                    continue;
                };
                lock(&st).last_activity = Instant::now();
                match msg.get("id").cloned() {
                    None => notification(&pg, &st, &init, &source, &method, &msg, t0).await,
                    Some(id) => {
                        lock(&st).pending += 1;
                        let (pg, st, host, source) =
                            (pg.clone(), st.clone(), host.clone(), source.clone());
                        tokio::spawn(async move {
                            let began = Instant::now();
                            let params = msg.get("params").cloned().unwrap_or(Value::Null);
                            let answer = request(&*host, &source, &method, &params).await;
                            let reply = match &answer {
                                Ok(r) => json!({"jsonrpc": "2.0", "id": id, "result": r}),
                                Err((code, m)) => json!({"jsonrpc": "2.0", "id": id,
                                    "error": {"code": code, "message": m}}),
                            };
                            let _ = deliver(&pg, &reply).await;
                            let mut s = lock(&st);
                            s.pending -= 1;
                            s.last_activity = Instant::now();
                            s.record.requests.push(super::ViewRequest {
                                method,
                                params,
                                result: answer.as_ref().ok().cloned(),
                                error: answer.err().map(|e| e.1),
                                at_ms: began.duration_since(t0).as_secs_f64() * 1000.0,
                                duration_ms: ms_since(began),
                            });
                        });
                    }
                }
            }
        });

        let html = csp::apply(&html, &policy);
        let load = format!(
            "__load({})",
            serde_json::to_string(&html).expect("a string")
        );
        page.evaluate(load).await.map_err(cdp)?;
        let waited = tokio::time::timeout(RENDER_TIMEOUT, initialized.notified()).await;
        let mut view = View {
            page,
            frame: None,
            state,
            tasks: vec![observe, bridge],
            torn_down,
        };
        if waited.is_err() {
            lock(&view.state).record.error = Some(format!(
                "the view did not send `ui/notifications/initialized` within {} s",
                RENDER_TIMEOUT.as_secs()
            ));
        }
        let main = view.page.mainframe().await.ok().flatten();
        view.frame = view
            .page
            .frames()
            .await
            .unwrap_or_default()
            .into_iter()
            .find(|f| Some(f) != main.as_ref());
        Ok(view)
    }

    /// Whether this is a view of `tool` (without copying its record).
    pub fn is_of(&self, tool: &str) -> bool {
        lock(&self.state).record.tool_name == tool
    }

    /// Ties the view to the transcript call it renders.
    pub fn label(&self, call_id: &str, calls_before: usize) {
        let mut s = lock(&self.state);
        s.record.call_id = Some(call_id.to_string());
        s.record.calls_before = calls_before;
    }

    pub(super) fn page(&self) -> &Page {
        &self.page
    }

    /// Counts as activity now (an action was just taken: what it sets off comes after).
    pub(super) fn touch(&self) {
        lock(&self.state).last_activity = Instant::now();
    }

    /// Waits until the view has had nothing in flight for `quiet` (at most `limit`).
    pub async fn settle(&self, quiet: Duration, limit: Duration) {
        let end = Instant::now() + limit;
        loop {
            let (pending, last) = {
                let s = lock(&self.state);
                (s.pending, s.last_activity)
            };
            if pending == 0 && last.elapsed() >= quiet || Instant::now() >= end {
                return;
            }
            tokio::time::sleep(Duration::from_millis(15)).await;
        }
    }

    /// A PNG of what the view shows (its content, a small margin around it, within its
    /// frame), also kept on the record. Cropping to the content keeps a terminal's few
    /// cells for what matters.
    pub async fn screenshot(&self) -> Result<Vec<u8>, String> {
        let [fx, fy, fw, fh] = self.frame_rect().await?;
        let content = self.eval_in_view(CONTENT_BOX.to_string()).await.ok();
        let (x, y, w, h) = match content.as_ref().and_then(Value::as_array) {
            Some(b) if b.len() == 4 => {
                let n = |i: usize| b[i].as_f64().unwrap_or(0.0);
                let (x0, y0) = ((n(0) - 8.0).max(0.0), (n(1) - 8.0).max(0.0));
                let (x1, y1) = ((n(2) + 8.0).min(fw), (n(3) + 8.0).min(fh));
                if x1 - x0 >= 16.0 && y1 - y0 >= 16.0 {
                    (fx + x0, fy + y0, x1 - x0, y1 - y0)
                } else {
                    (fx, fy, fw, fh)
                }
            }
            _ => (fx, fy, fw, fh),
        };
        let png = self
            .page
            .screenshot(
                ScreenshotParams::builder()
                    .clip(Viewport {
                        x,
                        y,
                        width: w.max(1.0),
                        height: h.max(1.0),
                        scale: 1.0,
                    })
                    .build(),
            )
            .await
            .map_err(|e| format!("the screenshot failed: {e}"))?;
        lock(&self.state).record.screenshot_png =
            Some(base64::engine::general_purpose::STANDARD.encode(&png));
        Ok(png)
    }

    /// Asks the view to wind down (`ui/resource-teardown`, a moment to answer), then closes
    /// its page; returns what it showed.
    pub async fn close(self) -> ViewRecord {
        let teardown = json!({"jsonrpc": "2.0", "id": TEARDOWN_ID,
            "method": "ui/resource-teardown", "params": {"reason": "the test is over"}});
        if lock(&self.state).record.initialized && deliver(&self.page, &teardown).await.is_ok() {
            // The view's answer, or a moment: a view that never answers is closed anyway.
            let _ = tokio::time::timeout(TEARDOWN_WAIT, self.torn_down.notified()).await;
        }
        for t in &self.tasks {
            t.abort();
        }
        // Closing the page is the browser's business; nobody waits for it.
        let page = self.page.clone();
        tokio::spawn(async move {
            let _ = page.close().await;
        });
        let mut r = lock(&self.state).record.clone();
        r.console.sort_by(|a, b| a.at_ms.total_cmp(&b.at_ms));
        r
    }

    /// Evaluates `expression` in the view's frame, returning its JSON value.
    pub(super) async fn eval_in_view(&self, expression: String) -> Result<Value, String> {
        let frame = self
            .frame
            .clone()
            .ok_or_else(|| "the view has no frame (it never loaded)".to_string())?;
        let ctx = self
            .page
            .frame_execution_context(frame)
            .await
            .map_err(|e| format!("the browser failed: {e}"))?
            .ok_or_else(|| "the view's frame has no script context yet".to_string())?;
        let params = EvaluateParams::builder()
            .expression(expression)
            .context_id(ctx)
            .return_by_value(true)
            .await_promise(true)
            .build()
            .map_err(|e| format!("bad evaluation: {e}"))?;
        let r = self
            .page
            .execute(params)
            .await
            .map_err(|e| format!("the browser failed: {e}"))?;
        if let Some(x) = &r.result.exception_details {
            return Err(x
                .exception
                .as_ref()
                .and_then(|e| e.description.clone())
                .unwrap_or_else(|| x.text.clone()));
        }
        Ok(r.result.result.value.clone().unwrap_or(Value::Null))
    }

    /// The view's frame in the page: `[x, y, width, height]`.
    async fn frame_rect(&self) -> Result<[f64; 4], String> {
        let r = self
            .page
            .evaluate("__rect()")
            .await
            .map_err(|e| format!("the browser failed: {e}"))?
            .into_value::<Vec<f64>>()
            .map_err(|e| format!("the browser failed: {e}"))?;
        r.try_into()
            .map_err(|_| "the view's frame is gone".to_string())
    }

    /// The frame's top-left corner in the page (to turn view coordinates into page ones).
    pub(super) async fn origin(&self) -> Result<(f64, f64), String> {
        let [x, y, _, _] = self.frame_rect().await?;
        Ok((x, y))
    }
}

fn enum_str<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_value(v)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

async fn deliver(page: &Page, message: &Value) -> Result<(), String> {
    page.evaluate(format!("__deliver({message})"))
        .await
        .map(|_| ())
        .map_err(|e| format!("the browser failed: {e}"))
}

/// A notification from the view.
async fn notification(
    page: &Page,
    state: &Mutex<State>,
    initialized: &Notify,
    source: &ViewSource,
    method: &str,
    msg: &Value,
    t0: Instant,
) {
    match method {
        "ui/notifications/initialized" => {
            {
                let mut s = lock(state);
                if s.record.initialized {
                    return;
                }
                s.record.initialized = true;
                s.record.render_latency_ms = Some(ms_since(t0));
            }
            let input = json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-input",
                "params": {"arguments": source.arguments}});
            let _ = deliver(page, &input).await;
            let last = match &source.result {
                Some(r) => {
                    json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-result", "params": r})
                }
                None => json!({"jsonrpc": "2.0", "method": "ui/notifications/tool-cancelled",
                    "params": {"reason": "the tool call failed"}}),
            };
            let _ = deliver(page, &last).await;
            // Ready for a test once it has its data.
            initialized.notify_one();
        }
        "ui/notifications/size-changed" => {
            let w = msg["params"]["width"].as_f64();
            let h = msg["params"]["height"].as_f64();
            let (w2, h2) = (
                w.map(|w| w.clamp(1.0, 1600.0)),
                h.map(|h| h.clamp(1.0, MAX_HEIGHT)),
            );
            let js = format!(
                "__size({}, {})",
                w2.map_or("0".into(), |v| v.to_string()),
                h2.map_or("0".into(), |v| v.to_string())
            );
            let _ = page.evaluate(js).await;
            lock(state).record.size = Some((w.unwrap_or(WIDTH), h.unwrap_or(HEIGHT)));
        }
        "notifications/message" => {
            let p = &msg["params"];
            let level = match p["level"].as_str().unwrap_or("info") {
                "error" | "critical" | "alert" | "emergency" => "error",
                "warning" => "warning",
                "debug" => "debug",
                _ => "info",
            };
            let text = match &p["data"] {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            };
            lock(state).record.console.push(ConsoleEntry {
                level: level.into(),
                source: "log".into(),
                text,
                at_ms: ms_since(t0),
            });
        }
        _ => {}
    }
}

/// Answers a request from the view: `Ok(result)` or `Err((code, message))`.
async fn request(
    host: &dyn ViewHost,
    source: &ViewSource,
    method: &str,
    params: &Value,
) -> Result<Value, (i64, String)> {
    match method {
        "ui/initialize" => Ok(json!({
            "protocolVersion": APPS_PROTOCOL,
            "hostInfo": {"name": "evaldeck", "version": env!("CARGO_PKG_VERSION")},
            "hostCapabilities": {
                "serverTools": {}, "serverResources": {}, "logging": {}, "openLinks": {},
            },
            "hostContext": {
                "toolInfo": {"tool": source.tool},
                "theme": "light",
                "displayMode": "inline",
                "availableDisplayModes": ["inline"],
                "containerDimensions": {"width": WIDTH, "maxHeight": MAX_HEIGHT},
                "locale": "en-US",
                "timeZone": "UTC",
                "platform": "desktop",
                "userAgent": concat!("evaldeck/", env!("CARGO_PKG_VERSION")),
                "deviceCapabilities": {"touch": false, "hover": true},
            },
        })),
        "ping" => Ok(json!({})),
        "tools/call" => {
            let name = params["name"].as_str().unwrap_or_default();
            let args = params.get("arguments").cloned().unwrap_or(json!({}));
            host.call_tool(name, args).await.map_err(|m| (-32000, m))
        }
        "resources/read" => {
            let uri = params["uri"].as_str().unwrap_or_default();
            host.read_resource(uri).await.map_err(|m| (-32000, m))
        }
        // Recorded; nothing to open, no conversation to add to during a test.
        "ui/open-link" | "ui/message" | "ui/update-model-context" => Ok(json!({})),
        "ui/request-display-mode" => Ok(json!({"mode": "inline"})),
        other => Err((
            -32601,
            format!("evaldeck does not offer `{other}` to views"),
        )),
    }
}
