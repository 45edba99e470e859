//! MCP Apps widgets in runs: the demo server's `sum-card` view rendered in headless
//! Chromium, driven by `interact` steps, asserted on its live DOM, and left undecided by a
//! regrade. Needs Chromium: under `CI=true` its absence fails these tests; elsewhere they
//! say what to install and skip.

use reqwest::Method;
use serde_json::{Value, json};

use crate::runs::{check, create_suite, iterations, start, tool_call, wait};
use evaldeck_testkit::served::{Harness, demo_config};

/// Whether Chromium is here; in CI its absence is a failure.
pub(crate) fn chromium() -> bool {
    match evaldeck::service::widgets::WidgetRuntime::default().binary() {
        Ok(_) => true,
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("CI runs the widget tests: {why}")
        }
        Err(why) => {
            eprintln!("skipping a widget test: {why}");
            false
        }
    }
}

fn interact(id: &str, tool: &str, action: Value) -> Value {
    json!({"id": id, "kind": "interact", "toolName": tool, "action": action})
}

async fn trace(h: &Harness, run: &str, it: &str) -> Value {
    h.get(
        &format!(
            "/projects/{}/eval-runs/{run}/iterations/{it}/trace",
            h.project
        ),
        &h.owner_key,
    )
    .await
    .ok(200)
    .clone()
}

fn results_of<'a>(trace: &'a Value, source: &str) -> Vec<&'a Value> {
    trace["assertions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["source"] == source)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_widget_renders_is_driven_and_asserted_and_regrade_leaves_it_undecided() {
    if !chromium() {
        return;
    }
    let h = Harness::with_config(demo_config()).await;
    let tests = json!([
        {"title": "sum card works", "steps": [
            tool_call("t1", "sum-card", json!({"a": 2, "b": 3})),
            check("a1", json!({"type": "widgetTextContains", "selector": "#total", "needle": "5"})),
            check("a2", json!({"type": "widgetElementVisible", "role": "button", "name": "Add one more"})),
            check("a3", json!({"type": "widgetElementCount", "selector": "button", "count": 1})),
            interact("i1", "sum-card", json!({"click": {"text": "Add one more"}})),
            check("a4", json!({"type": "widgetTextContains", "selector": "#total", "needle": "6"})),
            check("a5", json!({"type": "widgetElementExists", "text": "via get-sum"})),
            check("a6", json!({"type": "widgetRendered", "toolName": "sum-card"})),
            check("a7", json!({"type": "widgetRenderLatencyUnder", "toolName": "sum-card", "ms": 5000})),
            check("a8", json!({"type": "widgetNoConsoleErrors", "toolName": "sum-card"})),
            check("a9", json!({"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 3, "b": 3}}}))
        ]},
        {"title": "sum card caught out", "steps": [
            tool_call("t1", "sum-card", json!({"a": 1, "b": 1, "noisy": true})),
            check("a1", json!({"type": "widgetTextContains", "needle": "999"})),
            check("a2", json!({"type": "widgetElementExists", "selector": "#nope"})),
            check("a3", json!({"type": "widgetElementCount", "selector": "button", "min": 2})),
            check("a4", json!({"type": "widgetElementVisible", "text": "no such words"})),
            check("a5", json!({"type": "widgetNoConsoleErrors"})),
            interact("i1", "sum-card", json!({"click": "#missing", "timeoutMs": 200}))
        ]}
    ]);
    let suite = create_suite(&h, "Widgets", tests).await;
    let run = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let done = wait(&h, &run).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"], "failed", "the second case fails: {done}");
    let its = iterations(&h, &run).await;
    assert_eq!(its.len(), 2);

    // The passing case: rendered, clicked, the view's own call on the same session.
    let good = trace(&h, &run, its[0]["id"].as_str().unwrap()).await;
    assert_eq!(its[0]["result"], "passed", "{good:#}");
    let view = &good["widgets"][0];
    assert_eq!(view["toolName"], "sum-card");
    assert_eq!(view["initialized"], true);
    let latency = view["renderLatencyMs"].as_f64().unwrap();
    assert!(latency > 0.0 && latency < 5000.0, "{latency}");
    assert!(view["screenshotPng"].as_str().unwrap().len() > 100);
    assert!(view["csp"].as_str().unwrap().contains("connect-src 'none'"));
    let widget_calls: Vec<&Value> = good["toolCalls"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["origin"] == "widget")
        .collect();
    assert_eq!(widget_calls.len(), 1, "{good:#}");
    assert_eq!(widget_calls[0]["toolName"], "get-sum");
    assert_eq!(widget_calls[0]["stepId"], "i1", "{:#}", widget_calls[0]);
    assert_eq!(widget_calls[0]["result"]["content"][0]["text"], "6");
    for step in ["a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "i1"] {
        let r = results_of(&good, &format!("step:{step}"));
        assert_eq!(r[0]["status"], "passed", "{step}: {:#}", r[0]);
        assert_eq!(r[0]["regradable"], false, "{step}");
    }
    assert!(results_of(&good, "step:a9")[0].get("regradable").is_none());

    // The failing case: each DOM assertion fails, the console error is caught.
    let bad = trace(&h, &run, its[1]["id"].as_str().unwrap()).await;
    assert_eq!(its[1]["result"], "failed");
    for step in ["a1", "a2", "a3", "a4", "a5", "i1"] {
        let r = results_of(&bad, &format!("step:{step}"));
        assert_eq!(r[0]["status"], "failed", "{step}: {:#}", r[0]);
    }
    let console = bad["widgets"][0]["console"].as_array().unwrap();
    assert!(
        console
            .iter()
            .any(|e| e["level"] == "error" && e["text"].as_str().unwrap().contains("noisy")),
        "{console:#?}"
    );
    assert!(
        results_of(&bad, "step:i1")[0]["message"]
            .as_str()
            .unwrap()
            .contains("#missing")
    );

    // A regrade cannot see the view again: the widget results are undecided, not failed.
    let again = h
        .call(
            Method::POST,
            &format!("/projects/{}/eval-runs/{run}/regrade", h.project),
            Some(&h.owner_key),
            Some(json!({})),
        )
        .await;
    again.ok(200);
    let bad = trace(&h, &run, its[1]["id"].as_str().unwrap()).await;
    for step in ["a1", "a2", "a3", "a4", "a5", "i1"] {
        let r = results_of(&bad, &format!("step:{step}"));
        assert_eq!(r[0]["status"], "undecided", "{step}: {:#}", r[0]);
        assert_eq!(r[0]["gating"], false);
        assert!(r[0]["message"].as_str().unwrap().contains("regrade"));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_that_needs_widgets_fails_up_front_without_chromium() {
    let h = Harness::with_config(evaldeck::service::Config {
        chromium: Some("/nonexistent/chromium".into()),
        ..demo_config()
    })
    .await;
    let suite = create_suite(
        &h,
        "Needs a browser",
        json!([{"title": "w", "steps": [
            tool_call("t1", "sum-card", json!({"a": 1, "b": 2})),
            check("a1", json!({"type": "widgetRendered"}))
        ]}]),
    )
    .await;
    let run = start(&h, json!({"suiteId": suite})).await.ok(202)["runId"]
        .as_str()
        .unwrap()
        .to_string();
    let done = wait(&h, &run).await;
    assert_eq!(done["status"], "failed", "{done}");
    let why = done["error"].as_str().unwrap_or_default();
    assert!(
        why.contains("apt install chromium") && why.contains("/nonexistent/chromium"),
        "{done}"
    );
}

/// A host with no server behind it: the CSP test's view calls nothing.
struct NoServer;

#[async_trait::async_trait]
impl evaldeck::service::widgets::ViewHost for NoServer {
    async fn call_tool(&self, _: &str, _: Value) -> Result<Value, String> {
        Err("no server in this test".into())
    }
    async fn read_resource(&self, _: &str) -> Result<Value, String> {
        Err("no server in this test".into())
    }
}

/// A view that initializes, then fetches `url`.
fn fetching_view(url: &str, csp: Value) -> evaldeck::service::widgets::ViewSource {
    let html = format!(
        r#"<!doctype html><html><head><title>f</title></head><body><p id="s">starting</p><script>
window.addEventListener('message', e => {{
  if (e.data && e.data.id === 1) {{
    window.parent.postMessage({{jsonrpc: '2.0', method: 'ui/notifications/initialized'}}, '*');
    fetch('{url}').then(() => {{ document.getElementById('s').textContent = 'fetched'; }})
      .catch(err => {{ document.getElementById('s').textContent = 'blocked'; }});
  }}
}});
window.parent.postMessage({{jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {{appInfo: {{name: 'f', version: '1'}}, appCapabilities: {{}}, protocolVersion: '2026-01-26'}}}}, '*');
</script></body></html>"#
    );
    evaldeck::service::widgets::ViewSource {
        tool: json!({"name": "fetcher", "inputSchema": {"type": "object"}}),
        resource: json!({"contents": [{"uri": "ui://test/fetcher", "mimeType": "text/html;profile=mcp-app",
            "text": html, "_meta": {"ui": {"csp": csp}}}]}),
        arguments: json!({}),
        result: Some(json!({"content": []})),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_csp_blocks_a_request_the_resource_did_not_declare() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;
    if !chromium() {
        return;
    }
    let hits = Arc::new(AtomicUsize::new(0));
    let counted = hits.clone();
    let app = axum::Router::new().fallback(move || {
        let h = counted.clone();
        async move {
            h.fetch_add(1, Ordering::SeqCst);
            ([("access-control-allow-origin", "*")], "ok")
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    let runtime = evaldeck::service::widgets::WidgetRuntime::new(None);
    let url = format!("{origin}/data");

    // Undeclared: blocked before it leaves the browser, and reported.
    let view = runtime
        .open(fetching_view(&url, json!({})), Arc::new(NoServer))
        .await
        .unwrap();
    view.settle(Duration::from_millis(300), Duration::from_secs(5))
        .await;
    let record = view.close().await;
    assert!(record.initialized, "{record:#?}");
    assert_eq!(hits.load(Ordering::SeqCst), 0, "the request left the view");
    assert!(
        record
            .console
            .iter()
            .any(|e| e.is_error() && e.source == "security" && e.text.contains("connect-src")),
        "{:#?}",
        record.console
    );

    // Declared in `connectDomains`: allowed.
    let view = runtime
        .open(
            fetching_view(&url, json!({"connectDomains": [origin]})),
            Arc::new(NoServer),
        )
        .await
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while hits.load(Ordering::SeqCst) == 0 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let record = view.close().await;
    assert_eq!(hits.load(Ordering::SeqCst), 1, "{:#?}", record.console);
    assert!(
        record.csp.contains(&format!("connect-src {origin}")),
        "{}",
        record.csp
    );
    runtime.shutdown().await;
}

/// A PNG of four coloured quarters crossed by a white diagonal (stands in for a view).
fn quarters_png() -> String {
    use base64::Engine;
    let img = image::RgbaImage::from_fn(32, 16, |x, y| {
        if x / 2 == y {
            return image::Rgba([255, 255, 255, 255]);
        }
        match (x < 16, y < 8) {
            (true, true) => image::Rgba([220, 40, 40, 255]),
            (false, true) => image::Rgba([40, 180, 60, 255]),
            (true, false) => image::Rgba([40, 80, 220, 255]),
            (false, false) => image::Rgba([240, 200, 30, 255]),
        }
    });
    let mut out = std::io::Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    base64::engine::general_purpose::STANDARD.encode(out.into_inner())
}

#[test]
fn the_workbench_draws_a_widget_screenshot_in_half_blocks_beside_its_console() {
    use evaldeck::spec::widget::{ConsoleEntry, ViewRecord, ViewRequest};
    use evaldeck::tui::panes::servers::{Widget, render_widget};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::style::Color;
    let record = ViewRecord {
        tool_name: "sum-card".into(),
        resource_uri: "ui://demo/sum-card".into(),
        initialized: true,
        render_latency_ms: Some(42.0),
        console: vec![ConsoleEntry {
            level: "error".into(),
            source: "console".into(),
            text: "sum-card: noisy mode is on".into(),
            at_ms: 3.0,
        }],
        requests: vec![ViewRequest {
            method: "tools/call".into(),
            params: json!({"name": "get-sum", "arguments": {"a": 3, "b": 3}}),
            result: Some(json!({"content": [{"type": "text", "text": "6"}]})),
            error: None,
            at_ms: 9.0,
            duration_ms: 4.0,
        }],
        screenshot_png: Some(quarters_png()),
        ..Default::default()
    };
    let mut w = Widget::new(record);
    assert!(w.picture.is_some());
    let theme = evaldeck::tui::theme::Theme::new(false);
    let mut term = Terminal::new(TestBackend::new(100, 14)).unwrap();
    term.draw(|f| render_widget(f, f.area(), Some(&mut w), "r re-render", &theme))
        .unwrap();
    let buf = term.backend().buffer().clone();
    let screen: String = (0..buf.area.height)
        .map(|y| {
            (0..buf.area.width)
                .map(|x| buf[(x, y)].symbol().to_string())
                .collect::<String>()
                .trim_end()
                .to_string()
                + "\n"
        })
        .collect();
    crate::tui::snapshot("widget_half_blocks", screen.clone());
    assert!(
        screen.contains("initialized in 42 ms · 1 console error(s)"),
        "{screen}"
    );
    assert!(screen.contains("noisy mode is on"), "{screen}");
    assert!(screen.contains("tools/call get-sum"), "{screen}");
    // The picture is in colour: the top-left quarter red, the bottom-right yellow.
    let colours: Vec<(Color, Color)> = (1..13)
        .flat_map(|y| (1..40).map(move |x| (x, y)))
        .map(|(x, y)| (buf[(x, y)].fg, buf[(x, y)].bg))
        .collect();
    let has = |c: Color| colours.iter().any(|(f, b)| *f == c || *b == c);
    assert!(has(Color::Rgb(220, 40, 40)), "red quarter drawn");
    assert!(has(Color::Rgb(240, 200, 30)), "yellow quarter drawn");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calling_a_tool_with_a_view_in_the_workbench_shows_the_widget() {
    if !chromium() {
        return;
    }
    let (mut h, _b, _dir) = crate::tui::app(160, 48).await;
    // The demo server's tools, then sum-card (the last one), called with a=2, b=3.
    h.keys(&["j", "Enter", "Enter"]);
    h.drain().await;
    h.keys(&["G", "Enter"]);
    h.drain().await;
    h.type_text("2");
    h.press("Tab");
    h.type_text("3");
    h.press("C-s");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !h.shows("Widget · sum-card · initialized in") {
        assert!(std::time::Instant::now() < deadline, "{}", h.screen());
        h.drain().await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(h.shows("0 console error(s)"), "{}", h.screen());
    assert!(h.shows("view → ui/initialize"), "{}", h.screen());
    // r renders it again.
    h.press("r");
    h.drain().await;
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while !h.shows("Widget · sum-card · initialized in") {
        assert!(std::time::Instant::now() < deadline, "{}", h.screen());
        h.drain().await;
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[test]
fn a_trace_lists_its_views_and_an_sdks_widget_snapshots() {
    let t = json!({
        "status": "completed", "result": "passed", "turns": 0, "durationMs": 12.0,
        "messages": [], "toolCalls": [], "assertions": [], "toolCallDiff": {},
        "widgets": [{"toolName": "sum-card", "resourceUri": "ui://demo/sum-card", "initialized": true,
            "renderLatencyMs": 31.0, "callsBefore": 0, "csp": "", "console": [],
            "requests": [{"method": "tools/call", "params": {"name": "get-sum"}, "atMs": 1.0, "durationMs": 3.0}]}],
        "widgetSnapshots": [
            {"storageId": "upl_1", "found": true, "toolName": "cart", "contentType": "text/html", "bytes": 2048},
            {"storageId": "upl_2", "found": false}
        ]
    });
    let text = evaldeck::tui::panes::runs::trace_text(&t);
    assert!(text.contains("Widgets (1)"), "{text}");
    assert!(
        text.contains("sum-card ui://demo/sum-card initialized in 31 ms"),
        "{text}"
    );
    assert!(text.contains("view → tools/call get-sum"), "{text}");
    assert!(text.contains("Widget snapshots (2)"), "{text}");
    assert!(text.contains("cart upl_1 text/html · 2048 bytes"), "{text}");
    assert!(text.contains("upl_2 not stored"), "{text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn typing_selecting_and_waiting_work_on_a_live_view() {
    use evaldeck::service::widgets::dom::Action;
    use std::sync::Arc;
    if !chromium() {
        return;
    }
    let html = r#"<!doctype html><html><head></head><body>
<label for="q">Query</label><input id="q" type="text">
<select id="size"><option value="s">Small</option><option value="l">Large</option></select>
<p id="echo"></p><p id="late"></p>
<script>
const q = document.getElementById('q'), size = document.getElementById('size');
q.addEventListener('input', () => { document.getElementById('echo').textContent = 'typed:' + q.value; });
size.addEventListener('change', () => { document.getElementById('echo').textContent = 'size:' + size.value;
  setTimeout(() => { document.getElementById('late').textContent = 'Ready now'; }, 300); });
window.addEventListener('message', e => { if (e.data && e.data.id === 1)
  window.parent.postMessage({jsonrpc: '2.0', method: 'ui/notifications/initialized'}, '*'); });
window.parent.postMessage({jsonrpc: '2.0', id: 1, method: 'ui/initialize', params: {}}, '*');
</script></body></html>"#;
    let source = evaldeck::service::widgets::ViewSource {
        tool: json!({"name": "form"}),
        resource: json!({"contents": [{"uri": "ui://test/form", "mimeType": "text/html;profile=mcp-app", "text": html}]}),
        arguments: json!({}),
        result: None,
    };
    let runtime = evaldeck::service::widgets::WidgetRuntime::new(None);
    let view = runtime.open(source, Arc::new(NoServer)).await.unwrap();
    let act = |v: Value| Action::parse(&v).unwrap();
    let (a, wait) = act(json!({"type": {"role": "textbox", "name": "Query"}, "text": "héllo"}));
    view.act(&a, wait).await.unwrap().unwrap();
    let seen = view
        .check(&json!({"type": "widgetTextContains", "selector": "#echo", "needle": "typed:héllo"}))
        .await
        .unwrap();
    assert!(seen.passed, "{seen:?}");
    let (a, wait) = act(json!({"select": "#size", "value": "Large"}));
    view.act(&a, wait).await.unwrap().unwrap();
    let seen = view
        .check(&json!({"type": "widgetTextContains", "selector": "#echo", "needle": "size:l"}))
        .await
        .unwrap();
    assert!(seen.passed, "{seen:?}");
    let (a, wait) = act(json!({"waitFor": {"text": "Ready now"}, "timeoutMs": 3000}));
    view.act(&a, wait).await.unwrap().unwrap();
    let (a, wait) = act(json!({"select": "#size", "value": "Huge"}));
    let refused = view.act(&a, wait).await.unwrap().unwrap_err();
    assert!(refused.contains("no option"), "{refused}");
    let record = view.close().await;
    assert!(record.initialized);
    runtime.shutdown().await;
}
