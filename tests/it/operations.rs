//! The operation list is the single source: every listed operation is documented, served
//! and reachable through both backends, and both answer it alike. These tests iterate over
//! the list, so a new operation is covered without a new test.

use futures::future::BoxFuture;
use regex::Regex;
use reqwest::Method;
use serde_json::{Value, json};

use evaldeck::client::Backend;
use evaldeck::operations::{self, Operation, PathParams, Visit};
use evaldeck::spec::{Code, Error};

use evaldeck_testkit::served::Harness;

type Outcome = Result<Value, Error>;

/// One listed operation, as the tests see it.
struct Op {
    name: &'static str,
    method: Method,
    path: &'static str,
    status: u16,
    summary: &'static str,
    extension: bool,
    /// Whether `bytes` reads as the operation's body.
    parses: fn(&[u8]) -> bool,
    /// Calls it through a backend with these path values, the default query and a body.
    call: for<'a> fn(&'a dyn Backend, Vec<String>, Value) -> BoxFuture<'a, Outcome>,
}

fn call<'a, O: Operation>(
    b: &'a dyn Backend,
    path: Vec<String>,
    body: Value,
) -> BoxFuture<'a, Outcome> {
    Box::pin(async move {
        let path = O::Path::from_values(path).expect("a value per parameter");
        let body = O::parse(&serde_json::to_vec(&body).unwrap())
            .unwrap_or_else(|e| panic!("{}: the probe body does not read: {e:?}", O::NAME));
        let answer = b
            .target()
            .call::<O>(path, O::Query::default(), body)
            .await?;
        Ok(serde_json::to_value(answer).unwrap())
    })
}

fn parses<O: Operation>(bytes: &[u8]) -> bool {
    O::parse(bytes).is_ok()
}

fn list() -> Vec<Op> {
    struct Collect(Vec<Op>);
    impl Visit for Collect {
        fn visit<O: Operation>(&mut self) {
            self.0.push(Op {
                name: O::NAME,
                method: O::METHOD,
                path: O::PATH,
                status: O::STATUS,
                summary: O::SUMMARY,
                extension: O::EXTENSION,
                parses: parses::<O>,
                call: call::<O>,
            });
        }
    }
    let mut c = Collect(Vec::new());
    operations::visit(&mut c);
    c.0
}

/// Does `request` (`METHOD /path?query`, as recorded) address `op`?
fn addresses(op: &Op, request: &str) -> bool {
    let param = Regex::new(r"\\\{[a-z_]+\\\}").unwrap();
    let template = param
        .replace_all(&regex::escape(op.path), "[^/?]+")
        .into_owned();
    Regex::new(&format!("^{} {template}(\\?.*)?$", op.method))
        .unwrap()
        .is_match(request)
}

/// A body the operation reads: `{}` when that will do, else the first recorded request
/// body (`tests/golden/exchanges.json`) it reads.
fn probe_body(op: &Op) -> Value {
    if (op.parses)(b"{}") {
        return json!({});
    }
    let recorded: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/golden/exchanges.json"
        ))
        .unwrap(),
    )
    .unwrap();
    recorded
        .iter()
        .find(|e| {
            addresses(op, e["request"].as_str().unwrap_or_default())
                && e.get("requestBody")
                    .is_some_and(|b| (op.parses)(b.to_string().as_bytes()))
        })
        .map(|e| e["requestBody"].clone())
        .unwrap_or_else(|| panic!("{}: no recorded request body it reads", op.name))
}

/// Path values: `project`, then placeholders.
fn placeholders(op: &Op, project: &str) -> Vec<String> {
    op.path
        .split('/')
        .filter(|s| s.starts_with('{'))
        .map(|s| {
            if s == "{project_id}" {
                project.to_string()
            } else {
                "zz_placeholder".to_string()
            }
        })
        .collect()
}

/// An answer from a missing route rather than from the operation.
fn unrouted(o: &Outcome) -> bool {
    o.as_ref().err().is_some_and(|e| {
        e.message.starts_with("no route for") || e.message.contains("does not answer")
    })
}

fn kind(o: &Outcome) -> String {
    match o {
        Ok(v) => format!(
            "ok {}",
            v.as_object().map_or(String::new(), |m| {
                m.keys().cloned().collect::<Vec<_>>().join(",")
            })
        ),
        Err(e) => format!("{:?}", e.code),
    }
}

#[tokio::test]
async fn every_listed_operation_is_documented_and_reachable_through_both_backends() {
    let h = Harness::start().await;
    let doc = h.call(Method::GET, "/openapi.json", None, None).await.body;
    let ops = list();
    let mut faults = Vec::new();

    for op in &ops {
        let entry = &doc["paths"][op.path][op.method.as_str().to_ascii_lowercase()];
        if !entry.is_object() {
            faults.push(format!(
                "{}: {} {} is not documented",
                op.name, op.method, op.path
            ));
            continue;
        }
        if entry["summary"] != op.summary
            || !entry["responses"][op.status.to_string()].is_object()
            || entry["x-evaldeck-extension"].as_bool().unwrap_or(false) != op.extension
        {
            faults.push(format!(
                "{}: documented otherwise than listed: {entry}",
                op.name
            ));
        }
    }
    // Nothing is documented that is not listed, but the non-operations the list names.
    for (path, methods) in doc["paths"].as_object().unwrap() {
        for (method, entry) in methods.as_object().unwrap() {
            let listed = ops
                .iter()
                .any(|o| o.path == path && o.method.as_str().eq_ignore_ascii_case(method));
            let known = path.starts_with("/api-keys")
                || path == "/eval-ingest/uploads/{token}"
                || entry["deprecated"] == true;
            if !listed && !known {
                faults.push(format!("{method} {path} is documented but not listed"));
            }
        }
    }

    let embedded = h.embedded(&h.owner);
    let remote = h.remote(&h.owner_key);
    for op in &ops {
        let body = probe_body(op);
        let path = placeholders(op, "zz_no_such_project");
        for (name, b) in [("embedded", &embedded as &dyn Backend), ("remote", &remote)] {
            let o = (op.call)(b, path.clone(), body.clone()).await;
            if unrouted(&o) {
                faults.push(format!("{}: not reachable through {name}: {o:?}", op.name));
            }
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}

/// Operations whose answers differ by backend on purpose, with the reason.
const DIFFER: &[(&str, &str)] = &[(
    "IngestUploadUrl",
    "the embedded core has no HTTP server whose URL it could mint (422 NO_UPLOAD_SERVER)",
)];

#[tokio::test]
async fn both_backends_answer_every_operation_alike() {
    let h = Harness::start().await;
    let ops = list();
    let embedded = h.embedded(&h.owner);
    let remote = h.remote(&h.owner_key);
    // Each backend in a fresh project of its own, so writes do not see each other.
    let projects = [h.new_project("embedded"), h.new_project("remote")];
    let mut faults = Vec::new();
    for op in &ops {
        let body = probe_body(op);
        let e = (op.call)(&embedded, placeholders(op, &projects[0]), body.clone()).await;
        let r = (op.call)(&remote, placeholders(op, &projects[1]), body).await;
        let differs = kind(&e) != kind(&r);
        let expected = DIFFER.iter().any(|(n, _)| *n == op.name);
        if differs != expected {
            faults.push(format!(
                "{}: embedded {} but remote {}",
                op.name,
                kind(&e),
                kind(&r)
            ));
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
    // An outsider is refused by both: over HTTP with 403 or 404 before the body is read
    // (unless both name the same fault of the query first); in-process the service may
    // name a fault of the already typed body first.
    let (outsider, key) = h.member("member", None);
    let embedded = h.embedded(&outsider);
    let remote = h.remote(&key);
    for op in ops
        .iter()
        .filter(|o| o.path.starts_with("/projects/{project_id}"))
    {
        let body = probe_body(op);
        let path = placeholders(op, &projects[0]);
        let e = (op.call)(&embedded, path.clone(), body.clone()).await;
        let r = (op.call)(&remote, path, body).await;
        let refused = |o: &Outcome| matches!(o, Err(err) if err.code == Code::Forbidden || err.code == Code::NotFound);
        if e.is_ok() || r.is_ok() || (!refused(&r) && kind(&e) != kind(&r)) {
            faults.push(format!(
                "{}: an outsider gets embedded {} and remote {}",
                op.name,
                kind(&e),
                kind(&r)
            ));
        }
    }
    assert!(faults.is_empty(), "{faults:#?}");
}
