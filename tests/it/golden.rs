//! The API byte for byte: the OpenAPI document the server serves, and a recorded exchange
//! for every operation (status, headers, body) over real HTTP against a fresh store with
//! the demo project, compared with files under `tests/golden/`. Volatile values (ids, keys,
//! times, durations, cursors, the loopback port) are normalised before comparing.
//!
//! `EVALDECK_GOLDEN=update cargo test --test it golden` rewrites the files; a diff in them
//! is a change of the API.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use evaldeck::operations::{Operation, Visit};
use evaldeck::service::store::projects::ProjectRole;
use regex::Regex;
use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Map, Value, json};

use evaldeck_testkit::served::Harness;

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Compares `text` with the golden file, or rewrites it when asked to.
#[track_caller]
fn check_golden(name: &str, text: &str) {
    let path = golden_path(name);
    if std::env::var("EVALDECK_GOLDEN").as_deref() == Ok("update") {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (EVALDECK_GOLDEN=update writes it)", path.display()));
    if want != text {
        let now = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
        let _ = std::fs::write(&now, text);
        let first = want
            .lines()
            .zip(text.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(want.lines().count().min(text.lines().count()));
        let show = |t: &str| {
            t.lines()
                .skip(first.saturating_sub(3))
                .take(8)
                .collect::<Vec<_>>()
                .join("\n")
        };
        panic!(
            "{name} differs from the recording at line {} (now: {}):\n--- recorded\n{}\n--- now\n{}",
            first + 1,
            now.display(),
            show(&want),
            show(text)
        );
    }
}

#[tokio::test]
async fn the_served_openapi_document_is_unchanged() {
    let h = Harness::start().await;
    let r = h.call(Method::GET, "/openapi.json", None, None).await;
    assert_eq!(r.status.as_u16(), 200);
    // With keys kept in order, the pretty text equals the served bytes re-indented.
    assert_eq!(
        serde_json::to_string(&r.body).unwrap(),
        r.text,
        "the document is served compact"
    );
    let mut text = serde_json::to_string_pretty(&r.body).unwrap();
    text.push('\n');
    check_golden("openapi.json", &text);
}

/// Consistent placeholders for what differs from one run to the next.
struct Normaliser {
    ids: Regex,
    keys: Regex,
    times: Regex,
    addr: Regex,
    seen: HashMap<String, String>,
    counts: HashMap<String, usize>,
    literal: Vec<(String, String)>,
    /// The local owner is named after the account running the tests.
    user: Option<String>,
}

impl Normaliser {
    fn new(h: &Harness) -> Normaliser {
        let literal = vec![
            (
                env!("CARGO_BIN_EXE_evaldeck").to_string(),
                "<evaldeck>".into(),
            ),
            (h.addr.to_string(), "<addr>".into()),
        ];
        Normaliser {
            ids: Regex::new(r"\b([a-z]{2,6})_([0-9a-f]{32}|[0-9a-f]{64})\b").unwrap(),
            keys: Regex::new(r"\bsk_[A-Za-z0-9_-]{20,}").unwrap(),
            times: Regex::new(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})")
                .unwrap(),
            addr: Regex::new(r"127\.0\.0\.1:\d+").unwrap(),
            seen: HashMap::new(),
            counts: HashMap::new(),
            literal,
            user: std::env::var("USER").ok().filter(|u| !u.is_empty()),
        }
    }

    fn text(&mut self, s: &str) -> String {
        let mut s = s.to_string();
        for (from, to) in &self.literal {
            s = s.replace(from.as_str(), to);
        }
        let mut out = String::new();
        let mut last = 0;
        let found: Vec<(usize, usize, String, String)> = self
            .ids
            .captures_iter(&s)
            .map(|c| {
                let m = c.get(0).unwrap();
                (m.start(), m.end(), m.as_str().to_string(), c[1].to_string())
            })
            .collect();
        for (start, end, whole, prefix) in found {
            out.push_str(&s[last..start]);
            let name = self.seen.entry(whole).or_insert_with(|| {
                let n = self.counts.entry(prefix.clone()).or_insert(0);
                *n += 1;
                format!("<{prefix}#{n}>")
            });
            out.push_str(name);
            last = end;
        }
        out.push_str(&s[last..]);
        let out = self.keys.replace_all(&out, "<key>").to_string();
        let out = self.times.replace_all(&out, "<time>").to_string();
        self.addr.replace_all(&out, "<addr>").to_string()
    }

    fn value(&mut self, key: &str, v: &Value) -> Value {
        match v {
            Value::String(s) if self.user.as_ref() == Some(s) => json!("<user>"),
            Value::String(s) if is_cursor(key) => json!(if s.is_empty() { "" } else { "<cursor>" }),
            Value::String(s) => Value::String(self.text(s)),
            Value::Number(_) if is_time(key) => json!("<time>"),
            Value::Number(_) if is_duration(key) => json!("<ms>"),
            // How many protocol events a session has seen depends on the server's timing.
            Value::Number(_) if key == "lastSeq" => json!("<seq>"),
            Value::Array(a) => Value::Array(a.iter().map(|x| self.value(key, x)).collect()),
            Value::Object(o) => {
                let mut m = Map::new();
                for (k, x) in o {
                    // Inside a duration (`latencyMs: {total, mean}`) every number is one.
                    let inner = if is_duration(key) { key } else { k };
                    m.insert(k.clone(), self.value(inner, x));
                }
                Value::Object(m)
            }
            other => other.clone(),
        }
    }
}

fn is_cursor(key: &str) -> bool {
    matches!(key, "nextCursor" | "cursor" | "prevCursor")
}

fn is_time(key: &str) -> bool {
    key.ends_with("At") || key == "at" || key == "time" || key == "ts" || key == "timestamp"
}

fn is_duration(key: &str) -> bool {
    key.ends_with("Ms") || key == "ms" || key.ends_with("Millis") || key == "elapsed"
}

/// Drives requests and records each exchange.
struct Recorder<'a> {
    h: &'a Harness,
    norm: Normaliser,
    out: Vec<Value>,
}

struct Req<'a> {
    method: Method,
    path: String,
    key: Option<&'a str>,
    headers: Vec<(&'a str, String)>,
    body: Option<Vec<u8>>,
    content_type: Option<&'a str>,
}

impl<'a> Recorder<'a> {
    fn req(&self, method: Method, path: impl Into<String>) -> Req<'a> {
        Req {
            method,
            path: path.into(),
            key: Some(&self.h.owner_key),
            headers: Vec::new(),
            body: None,
            content_type: None,
        }
    }

    /// A JSON request as the owner; returns the (raw) response body.
    async fn json(
        &mut self,
        method: Method,
        path: impl Into<String>,
        body: Option<Value>,
    ) -> Value {
        let mut r = self.req(method, path);
        if let Some(b) = body {
            r.body = Some(serde_json::to_vec(&b).unwrap());
            r.content_type = Some("application/json");
        }
        self.send(r).await
    }

    async fn get(&mut self, path: impl Into<String>) -> Value {
        self.json(Method::GET, path, None).await
    }

    async fn send(&mut self, r: Req<'_>) -> Value {
        let url = if r.path.starts_with("http") {
            r.path.clone()
        } else {
            self.h.url(&r.path)
        };
        let mut rb = self.h.http.request(r.method.clone(), &url);
        if let Some(k) = r.key {
            rb = rb.bearer_auth(k);
        }
        if let Some(ct) = r.content_type {
            rb = rb.header(CONTENT_TYPE, ct);
        }
        for (k, v) in &r.headers {
            rb = rb.header(*k, v.as_str());
        }
        if let Some(b) = &r.body {
            rb = rb.body(b.clone());
        }
        let res = rb.send().await.expect("the server answers");
        let status = res.status().as_u16();
        let mut headers: Vec<(String, String)> = res
            .headers()
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "date" | "content-length"))
            .map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("<binary>").to_string()))
            .collect();
        headers.sort();
        let text = res.text().await.expect("a body");
        let body: Value = serde_json::from_str(&text).unwrap_or(Value::String(text));
        let request_body = r.body.as_ref().map(|b| {
            serde_json::from_slice::<Value>(b)
                .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(b).into_owned()))
        });
        let path = url
            .strip_prefix(&self.h.base)
            .map(str::to_string)
            .unwrap_or(url.clone());
        let mut rec = json!({
            "request": format!("{} {}", r.method, self.norm.text(&path)),
        });
        if r.key.is_none() {
            rec["key"] = json!("none");
        } else if r.key != Some(self.h.owner_key.as_str()) {
            rec["key"] = json!("other");
        }
        if let Some(ct) = r.content_type {
            rec["contentType"] = json!(ct);
        }
        if !r.headers.is_empty() {
            rec["requestHeaders"] = json!(
                r.headers
                    .iter()
                    .map(|(k, v)| format!("{k}: {v}"))
                    .collect::<Vec<_>>()
            );
        }
        if let Some(b) = &request_body {
            rec["requestBody"] = self.norm.value("", b);
        }
        rec["status"] = json!(status);
        rec["headers"] = json!(
            headers
                .iter()
                .map(|(k, v)| format!("{k}: {}", self.norm.text(v)))
                .collect::<Vec<_>>()
        );
        rec["body"] = self.norm.value("", &body);
        self.out.push(rec);
        body
    }
}

fn id(v: &Value, key: &str) -> String {
    v[key]
        .as_str()
        .unwrap_or_else(|| panic!("{key} in {v}"))
        .to_string()
}

/// Every operation, its deprecated aliases, and the answers around them (no key, no route,
/// a body before access), in one fixed order against one fresh store.
#[tokio::test]
async fn every_operation_answers_as_recorded() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let mut r = Recorder {
        h: &h,
        norm: Normaliser::new(&h),
        out: Vec::new(),
    };
    let pp = format!("/projects/{p}");

    // Catalog.
    r.get("/me").await;
    r.get("/projects").await;
    r.get("/projects?limit=1").await;
    r.get("/projects?limit=nope").await;
    r.get("/chat-sessions").await;
    r.get("/credits").await;
    r.get(format!("{pp}/chatboxes")).await;
    r.get(format!("{pp}/chatboxes/cbx_nope")).await;

    // Servers.
    r.get(format!("{pp}/servers")).await;
    r.get(format!("{pp}/servers/demo")).await;
    let created = r
        .json(
            Method::POST,
            format!("{pp}/servers"),
            Some(json!({"name": "weather", "transport": {"type": "http", "url": "http://127.0.0.1:9/mcp"}})),
        )
        .await;
    let weather = id(&created, "id");
    r.json(
        Method::POST,
        format!("{pp}/servers"),
        Some(json!({"name": 1})),
    )
    .await;
    r.json(
        Method::PATCH,
        format!("{pp}/servers/{weather}"),
        Some(json!({"requestTimeoutMs": 5000})),
    )
    .await;

    // Hosts.
    r.get(format!("{pp}/hosts")).await;
    let host = r
        .json(
            Method::POST,
            format!("{pp}/hosts"),
            Some(json!({"name": "Claude", "template": "claude"})),
        )
        .await;
    let host_id = id(&host, "id");
    r.json(
        Method::POST,
        format!("{pp}/hosts"),
        Some(json!({"name": ""})),
    )
    .await;
    r.get(format!("{pp}/hosts/{host_id}")).await;
    r.json(
        Method::PATCH,
        format!("{pp}/hosts/{host_id}"),
        Some(json!({"name": "Claude 2"})),
    )
    .await;

    // Server groups, plugins, skills, environments.
    let group = r
        .json(
            Method::POST,
            format!("{pp}/server-groups"),
            Some(json!({"name": "weather only", "serverIds": [weather]})),
        )
        .await;
    let group_id = id(&group, "id");
    let skill = r
        .json(
            Method::POST,
            format!("{pp}/skills"),
            Some(json!({"name": "triage"})),
        )
        .await;
    let skill_id = id(&skill, "id");
    let plugin = r
        .json(
            Method::POST,
            format!("{pp}/plugins"),
            Some(json!({"name": "lint", "version": "1", "bundleHash": "sha256:00"})),
        )
        .await;
    let plugin_id = id(&plugin, "id");
    r.get(format!("{pp}/environments")).await;
    let env = r
        .json(
            Method::POST,
            format!("{pp}/environments"),
            Some(json!({
                "name": "full",
                "hostId": host_id,
                "serverAttachmentId": group_id,
                "modelId": "openai/gpt-5",
                "skillSelection": {"mode": "explicit", "skillIds": [skill_id]},
                "pluginVersionIds": [plugin_id],
            })),
        )
        .await;
    let env_id = id(&env, "id");
    r.get(format!("{pp}/environments/{env_id}")).await;
    r.json(
        Method::PATCH,
        format!("{pp}/environments/{env_id}"),
        Some(json!({"expectedRevision": 1, "description": "everything"})),
    )
    .await;
    r.get(format!("{pp}/environments/{env_id}/resolve")).await;
    r.json(
        Method::POST,
        format!("{pp}/environments/{env_id}/archive"),
        Some(json!({"expectedRevision": 1})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{pp}/environments/{env_id}/archive"),
        Some(json!({"expectedRevision": 2})),
    )
    .await;
    r.get(format!("{pp}/environments?includeArchived=true"))
        .await;
    r.json(
        Method::POST,
        format!("{pp}/environments/{env_id}/restore"),
        Some(json!({"expectedRevision": 3})),
    )
    .await;

    // The demo server's primitives.
    let demo = format!("{pp}/servers/demo");
    r.json(Method::POST, format!("{demo}/validate"), Some(json!({})))
        .await;
    r.json(Method::POST, format!("{demo}/check-oauth"), Some(json!({})))
        .await;
    r.json(Method::POST, format!("{demo}/tools"), Some(json!({})))
        .await;
    r.json(
        Method::POST,
        format!("{demo}/tools/call"),
        Some(json!({"toolName": "echo", "parameters": {"message": "hello"}})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/tools/call"),
        Some(json!({"arguments": {}})),
    )
    .await;
    let prompts = r
        .json(Method::POST, format!("{demo}/prompts"), Some(json!({})))
        .await;
    let prompt = prompts["items"][0]["name"]
        .as_str()
        .unwrap_or("nope")
        .to_string();
    r.json(
        Method::POST,
        format!("{demo}/prompts/get"),
        Some(json!({"promptName": prompt, "arguments": {"name": "Ada"}})),
    )
    .await;
    let resources = r
        .json(Method::POST, format!("{demo}/resources"), Some(json!({})))
        .await;
    let uri = resources["items"][0]["uri"]
        .as_str()
        .unwrap_or("nope")
        .to_string();
    r.json(
        Method::POST,
        format!("{demo}/resources/read"),
        Some(json!({"uri": uri})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/resources/templates"),
        Some(json!({})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/resources/subscribe"),
        Some(json!({"uri": uri})),
    )
    .await;
    r.json(Method::POST, format!("{demo}/export"), Some(json!({})))
        .await;
    // A tool without a UI: answered the same with or without a browser here.
    r.json(
        Method::POST,
        format!("{demo}/widgets/render"),
        Some(json!({"toolName": "echo", "arguments": {"message": "hi"}})),
    )
    .await;
    r.get(format!("{demo}/tasks")).await;
    r.json(
        Method::POST,
        format!("{demo}/tasks/tsk_nope/cancel"),
        Some(json!({})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/calls/call-nope/cancel"),
        Some(json!({})),
    )
    .await;
    r.get(format!("{demo}/traffic?after=18446744073709551615"))
        .await;
    r.get(format!("{demo}/traffic?after=x")).await;
    r.json(
        Method::POST,
        format!("{pp}/servers/{weather}/oauth/import-tokens"),
        Some(json!({"serverUrl": "http://127.0.0.1:9/mcp", "tokens": {"access_token": "at", "token_type": "Bearer"}})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{pp}/servers/{weather}/doctor"),
        Some(json!({})),
    )
    .await;

    // Deprecated aliases answer as their current paths, marked.
    r.json(Method::POST, format!("{demo}/tools/list"), Some(json!({})))
        .await;
    r.json(
        Method::POST,
        format!("{demo}/call-tool"),
        Some(json!({"toolName": "echo", "parameters": {"message": "old"}})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/prompts/list"),
        Some(json!({})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/get-prompt"),
        Some(json!({"promptName": prompt, "arguments": {"name": "Ada"}})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/resources/list"),
        Some(json!({})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/read-resource"),
        Some(json!({"uri": uri})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{demo}/resources/templates/list"),
        Some(json!({})),
    )
    .await;
    r.get(format!("{pp}/evals/suites")).await;
    let mut old = r.req(Method::GET, format!("{pp}/evals/suites"));
    old.key = None;
    r.send(old).await;

    // Suites, schedules, cases.
    r.get(format!("{pp}/eval-suites")).await;
    r.get(format!("{pp}/eval-suites?limit=1")).await;
    let suite = r
        .json(
            Method::POST,
            format!("{pp}/eval-suites"),
            Some(json!({"name": "Golden", "serverIds": ["demo"], "model": "builtin/baseline", "tests": [
                {"title": "echo", "steps": [
                    {"id": "p1", "kind": "prompt", "prompt": "Use echo to say 'hello evals'"},
                    {"id": "a1", "kind": "assert", "assertion": {"type": "responseContains", "needle": "hello evals"}}
                ]}
            ]})),
        )
        .await;
    let suite_id = id(&suite, "suiteId");
    let sp = format!("{pp}/eval-suites/{suite_id}");
    r.get(&sp).await;
    r.get(format!("{pp}/eval-suites/Smoke")).await;
    r.json(Method::PATCH, &sp, Some(json!({"description": "recorded"})))
        .await;
    r.get(format!("{sp}/schedule")).await;
    r.json(
        Method::PATCH,
        format!("{sp}/schedule"),
        Some(json!({"enabled": false})),
    )
    .await;
    let cases = r.get(format!("{sp}/cases")).await;
    let case_id = id(&cases["items"][0], "id");
    r.get(format!("{sp}/cases?limit=1")).await;
    r.get(format!("{sp}/cases/{case_id}")).await;
    let added = r
        .json(
            Method::POST,
            format!("{sp}/cases"),
            Some(json!({"title": "sum", "steps": [
                {"id": "p1", "kind": "prompt", "prompt": "Use get-sum to add 2 and 3"},
                {"id": "a1", "kind": "assert", "assertion": {"type": "responseContains", "needle": "5"}}
            ]})),
        )
        .await;
    let added_id = id(&added, "id");
    r.json(
        Method::PATCH,
        format!("{sp}/cases/{added_id}"),
        Some(json!({"title": "sum again"})),
    )
    .await;
    r.json(Method::DELETE, format!("{sp}/cases/{added_id}"), None)
        .await;

    // Runs.
    let run = r
        .json(
            Method::POST,
            format!("{pp}/eval-runs"),
            Some(json!({"suiteId": suite_id})),
        )
        .await;
    let run_id = id(&run, "runId");
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let s = h
            .get(&format!("{pp}/eval-runs/{run_id}"), &h.owner_key)
            .await;
        let status = s.body["status"].as_str().unwrap_or_default().to_string();
        if !matches!(status.as_str(), "pending" | "running" | "queued") {
            break;
        }
        assert!(Instant::now() < deadline, "the run finishes: {}", s.text);
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    r.get(format!("{pp}/eval-runs/{run_id}")).await;
    let its = r.get(format!("{pp}/eval-runs/{run_id}/iterations")).await;
    let it = its["items"][0]["id"]
        .as_str()
        .unwrap_or("itr_nope")
        .to_string();
    r.get(format!("{pp}/eval-runs/{run_id}/iterations/{it}/trace"))
        .await;
    r.get(format!("{pp}/eval-runs")).await;
    r.get(format!("{sp}/runs")).await;
    r.json(
        Method::POST,
        format!("{pp}/eval-runs/{run_id}/cancel"),
        Some(json!({})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{pp}/eval-runs/{run_id}/regrade"),
        Some(json!({})),
    )
    .await;
    r.json(Method::POST, format!("{pp}/eval-runs"), Some(json!({})))
        .await;

    // Authoring.
    let plan = "# QA plan\n\n1. Echo says hello: use echo to say 'hello'. Expect the reply to contain hello.\n";
    let imported = r
        .json(
            Method::POST,
            format!("{pp}/eval-suites/Smoke/cases/import"),
            Some(json!({"content": plan, "fileName": "plan.md"})),
        )
        .await;
    r.json(
        Method::POST,
        format!("{pp}/eval-suites/Smoke/cases/import"),
        Some(json!({"content": 1})),
    )
    .await;
    let job = imported["jobId"].as_str().unwrap_or("job_nope").to_string();
    r.get(format!("{pp}/authoring-jobs/{job}")).await;
    r.get(format!("{pp}/authoring-jobs/{job}/drafts")).await;
    r.get(format!("{pp}/authoring-jobs/{job}/drafts?state=skipped"))
        .await;
    r.json(
        Method::POST,
        format!("{pp}/authoring-jobs/{job}/commit"),
        Some(json!({})),
    )
    .await;
    r.json(
        Method::PATCH,
        format!("{pp}/authoring-jobs/{job}/drafts/drf_nope"),
        Some(json!({"title": "x"})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{pp}/authoring-jobs/{job}/drafts/drf_nope/finish"),
        Some(json!({})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{pp}/authoring-jobs/{job}/cancel"),
        Some(json!({})),
    )
    .await;
    r.get(format!(
        "{pp}/eval-suites/Smoke/authoring-jobs?fileHash={}",
        "0".repeat(64)
    ))
    .await;
    r.get(format!("{pp}/eval-suites/Smoke/authoring-jobs"))
        .await;

    // Result ingestion.
    let ingest = format!("{pp}/eval-ingest");
    r.json(
        Method::POST,
        format!("{ingest}/report"),
        Some(
            json!({"suiteName": "CI", "externalRunId": "ci-1", "results": [
                {"caseTitle": "a", "passed": true, "externalIterationId": "1"},
                {"caseTitle": "b", "passed": false, "externalIterationId": "2", "error": "no"}
            ]}),
        ),
    )
    .await;
    r.json(
        Method::POST,
        format!("{ingest}/report"),
        Some(json!({"results": 1})),
    )
    .await;
    let started = r
        .json(
            Method::POST,
            format!("{ingest}/runs/start"),
            Some(json!({"suiteName": "CI", "externalRunId": "ci-2"})),
        )
        .await;
    let ingested = id(&started, "runId");
    r.json(
        Method::POST,
        format!("{ingest}/runs/iterations"),
        Some(json!({"runId": ingested, "results": [{"caseTitle": "a", "passed": true, "externalIterationId": "1"}]})),
    )
    .await;
    r.json(
        Method::POST,
        format!("{ingest}/runs/finalize"),
        Some(json!({"runId": ingested})),
    )
    .await;
    r.json(
        Method::POST,
        "/projects/default/eval-ingest/runs/start".to_string(),
        Some(json!({"suiteName": "CI", "externalRunId": "ci-2"})),
    )
    .await;
    let minted = r
        .json(
            Method::POST,
            format!("{ingest}/artifacts/upload-url"),
            Some(json!({"suiteName": "CI", "externalRunId": "ci-3", "format": "junit"})),
        )
        .await;
    r.json(
        Method::POST,
        format!("{ingest}/artifacts/upload-url"),
        Some(json!({"format": 1})),
    )
    .await;
    if let Some(url) = minted["uploadUrl"].as_str() {
        let mut up = r.req(Method::POST, url.to_string());
        up.key = None;
        up.content_type = Some("application/xml");
        up.body = Some(include_bytes!("../../assets/artifacts/pytest-junit.xml").to_vec());
        r.send(up).await;
    }
    r.get(format!("{ingest}/artifacts/upl_unknown")).await;
    let mut up = r.req(Method::POST, "/eval-ingest/uploads/upl_unknown");
    up.key = None;
    up.body = Some(b"<testsuite/>".to_vec());
    r.send(up).await;

    // The agent (no model configured here).
    r.json(
        Method::POST,
        format!("{pp}/agent"),
        Some(json!({"messages": [{"role": "user", "content": "hello"}]})),
    )
    .await;
    r.json(Method::POST, format!("{pp}/agent"), Some(json!({})))
        .await;

    // Deletions last.
    r.json(
        Method::DELETE,
        format!("{pp}/plugin-versions/{plugin_id}"),
        None,
    )
    .await;
    r.json(Method::DELETE, format!("{pp}/hosts/{host_id}"), None)
        .await;
    r.json(Method::DELETE, &sp, None).await;
    r.json(Method::DELETE, format!("{pp}/servers/{weather}"), None)
        .await;

    // Around the operations: no key, no route, wrong method, key management, body faults,
    // and a body sent by a caller without access.
    let mut anon = r.req(Method::GET, "/me");
    anon.key = None;
    r.send(anon).await;
    r.get("/nope").await;
    r.json(Method::PUT, "/me".to_string(), None).await;
    r.get("/api-keys").await;
    r.json(Method::DELETE, "/api-keys/key_1".to_string(), None)
        .await;
    let mut bad = r.req(Method::POST, format!("{pp}/hosts"));
    bad.content_type = Some("text/plain");
    bad.body = Some(b"{}".to_vec());
    r.send(bad).await;
    let mut bad = r.req(Method::POST, format!("{pp}/hosts"));
    bad.content_type = Some("application/json");
    bad.body = Some(b"{nope".to_vec());
    r.send(bad).await;
    let (_, member_key) = h.member("member", Some((&p, ProjectRole::Member)));
    let mut m = r.req(Method::POST, format!("{pp}/hosts"));
    m.key = Some(&member_key);
    m.content_type = Some("application/json");
    m.body = Some(b"{nope".to_vec());
    r.send(m).await;
    let (_, outsider_key) = h.member("member", None);
    let mut o = r.req(Method::POST, format!("{demo}/tools"));
    o.key = Some(&outsider_key);
    o.content_type = Some("application/json");
    o.body = Some(b"{\"cursor\": 1}".to_vec());
    r.send(o).await;
    let mut idem = r.req(Method::POST, format!("{pp}/skills"));
    idem.headers = vec![("idempotency-key", "golden-1".into())];
    idem.content_type = Some("application/json");
    idem.body = Some(br#"{"name": "again"}"#.to_vec());
    r.send(idem).await;
    let mut idem = r.req(Method::POST, format!("{pp}/skills"));
    idem.headers = vec![("idempotency-key", "golden-1".into())];
    idem.content_type = Some("application/json");
    idem.body = Some(br#"{"name": "again"}"#.to_vec());
    r.send(idem).await;

    let mut text = serde_json::to_string_pretty(&r.out).unwrap();
    text.push('\n');
    check_golden("exchanges.json", &text);

    // Every listed operation is among the recordings.
    struct Unrecorded<'a>(&'a [Value], Vec<String>);
    impl Visit for Unrecorded<'_> {
        fn visit<O: Operation>(&mut self) {
            let param = Regex::new(r"\\\{[a-z_]+\\\}").unwrap();
            let template = param
                .replace_all(&regex::escape(O::PATH), "[^/?]+")
                .to_string();
            let pattern = Regex::new(&format!("^{} {template}(\\?.*)?$", O::METHOD)).unwrap();
            if !self
                .0
                .iter()
                .any(|e| pattern.is_match(e["request"].as_str().unwrap_or_default()))
            {
                self.1
                    .push(format!("{} {} ({})", O::METHOD, O::PATH, O::NAME));
            }
        }
    }
    let mut missing = Unrecorded(&r.out, Vec::new());
    evaldeck::operations::visit(&mut missing);
    assert!(
        missing.1.is_empty(),
        "listed but not recorded: {:#?}",
        missing.1
    );
}
