//! The crash loop: `serve` is killed with SIGKILL or stopped with SIGTERM at random points
//! while imports, eval runs and concurrent keyed writes are in flight, and started again at
//! once, cycle after cycle. Afterwards, within a bounded time: the store passes SQLite's
//! integrity check; no run or job is left non-terminal; no idempotency key is left
//! claimed; every acknowledged write is present; every key means one write and one job;
//! credits were charged exactly once per completed job.
//!
//! `crash_loop_short` (3 cycles) runs in CI; `crash_loop_long` is ignored and run by hand:
//! `cargo test --release --test it crash_loop_long -- --ignored --nocapture`.

use evaldeck::service::store::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use reqwest::Method;
use serde_json::{Value, json};

use crate::process::{Serve, Store, read_log};
use crate::recovery::slow_suite;

const LEASE_MS: u64 = 400;
const PLAN: &str = "# Test plan\n1. Echo hello back. Expect the echo tool.\n2. Add 2 and 3. Expect the get-sum tool.\n3. Say hi — should not call any tool.\n";

/// What the clients were told succeeded, and what they sent without learning the outcome.
#[derive(Default)]
struct Ledger {
    hosts: BTreeSet<String>,
    runs: BTreeSet<String>,
    /// Import key → job id (or the committed cases' job).
    imports: BTreeMap<String, String>,
    /// Case key → case title, for keys whose request was acknowledged.
    cases: BTreeMap<String, String>,
    /// Keys sent whose answer never arrived (retried after the restart).
    unanswered_cases: BTreeMap<String, String>,
    unanswered_imports: BTreeSet<String>,
    acknowledged: usize,
}

#[derive(Default, Debug)]
struct Figures {
    cycles: usize,
    sigkill: usize,
    sigterm: usize,
    acknowledged: usize,
    runs: usize,
    imports: usize,
    retried_keys: usize,
    /// Longest time from a kill (or SIGTERM) until no run, job or key was left without a
    /// live owner, the restart included.
    worst_recovery: Duration,
}

struct Client {
    http: reqwest::Client,
    base: String,
    key: String,
}

impl Client {
    async fn send(
        &self,
        method: Method,
        path: &str,
        idem: Option<&str>,
        body: Value,
    ) -> Option<(u16, Value)> {
        let mut r = self
            .http
            .request(method, format!("{}{path}", self.base))
            .bearer_auth(&self.key)
            .json(&body);
        if let Some(k) = idem {
            r = r.header("Idempotency-Key", k);
        }
        let res = r.send().await.ok()?;
        let status = res.status().as_u16();
        let v = res.json().await.ok()?;
        Some((status, v))
    }
}

fn case_body(title: &str) -> Value {
    json!({"title": title, "steps": [{"id": "p1", "kind": "prompt", "prompt": format!("Say {title}")}]})
}

fn import_job(v: &Value) -> Option<String> {
    v["jobId"]
        .as_str()
        .map(str::to_string)
        .or_else(|| {
            v["created"][0]["source"]["jobId"]
                .as_str()
                .map(str::to_string)
        })
        .or_else(|| v["created"].as_array().map(|_| "committed".to_string()))
}

/// One client loop of `kind` until `stop`.
async fn workload(
    kind: usize,
    n: usize,
    c: Arc<Client>,
    project: String,
    suites: (String, String),
    ledger: Arc<Mutex<Ledger>>,
    stop: Arc<AtomicBool>,
) {
    let (runs_suite, suite) = suites;
    let mut i = 0;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        let tag = format!("{n}-{kind}-{i}-{:x}", rand::random::<u32>());
        match kind {
            0 => {
                let body = json!({"name": format!("host {tag}"), "template": "cursor"});
                match c
                    .send(
                        Method::POST,
                        &format!("/projects/{project}/hosts"),
                        None,
                        body,
                    )
                    .await
                {
                    Some((201, v)) => {
                        let mut l = ledger.lock().unwrap();
                        l.hosts.insert(v["id"].as_str().unwrap().to_string());
                        l.acknowledged += 1;
                    }
                    Some(_) => {}
                    None => return,
                }
            }
            1 => {
                let key = format!("case-{tag}");
                let title = format!("case {tag}");
                ledger
                    .lock()
                    .unwrap()
                    .unanswered_cases
                    .insert(key.clone(), title.clone());
                let path = format!("/projects/{project}/eval-suites/{suite}/cases");
                match c
                    .send(Method::POST, &path, Some(&key), case_body(&title))
                    .await
                {
                    Some((201, _)) => {
                        let mut l = ledger.lock().unwrap();
                        l.unanswered_cases.remove(&key);
                        l.cases.insert(key, title);
                        l.acknowledged += 1;
                    }
                    Some((s, v)) => {
                        ledger.lock().unwrap().unanswered_cases.remove(&key);
                        assert!(s >= 400, "{s} {v}");
                    }
                    None => return,
                }
            }
            2 => {
                let key = format!("import-{tag}");
                ledger
                    .lock()
                    .unwrap()
                    .unanswered_imports
                    .insert(key.clone());
                let path = format!("/projects/{project}/eval-suites/{suite}/cases/import");
                match c
                    .send(
                        Method::POST,
                        &path,
                        Some(&key),
                        json!({"content": PLAN, "duplicatePolicy": "create_anyway", "overrideReason": "crash loop"}),
                    )
                    .await
                {
                    Some((200 | 202, v)) => {
                        let mut l = ledger.lock().unwrap();
                        l.unanswered_imports.remove(&key);
                        if let Some(j) = import_job(&v) {
                            l.imports.insert(key, j);
                        }
                        l.acknowledged += 1;
                    }
                    Some(_) => {
                        ledger.lock().unwrap().unanswered_imports.remove(&key);
                    }
                    None => return,
                }
            }
            _ => {
                let path = format!("/projects/{project}/eval-runs");
                match c
                    .send(Method::POST, &path, None, json!({"suiteId": runs_suite}))
                    .await
                {
                    Some((202, v)) => {
                        let mut l = ledger.lock().unwrap();
                        l.runs.insert(v["runId"].as_str().unwrap().to_string());
                        l.acknowledged += 1;
                    }
                    Some(_) => tokio::time::sleep(Duration::from_millis(50)).await,
                    None => return,
                }
            }
        }
    }
}

fn db(store: &Store) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(store.db(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
}

fn count(c: &rusqlite::Connection, sql: &str) -> i64 {
    c.query_row(sql, [], |r| r.get(0)).unwrap()
}

/// Waits until nothing is left without a live owner: no active run, no pending job, no
/// claimed key whose lease ran out.
async fn settled(store: &Store, within: Duration) {
    let started = Instant::now();
    loop {
        let c = db(store);
        let now = chrono_now();
        let orphans = count(
            &c,
            &format!(
                "SELECT (SELECT COUNT(*) FROM eval_runs WHERE status IN ('pending', 'running') AND source != 'sdk' AND COALESCE(lease_until, 0) < {now})
                      + (SELECT COUNT(*) FROM authoring_jobs WHERE status = 'pending' AND COALESCE(lease_until, 0) < {now})
                      + (SELECT COUNT(*) FROM idempotency_keys WHERE status IS NULL AND lease_until < {now})"
            ),
        );
        if orphans == 0 {
            return;
        }
        assert!(
            started.elapsed() < within,
            "{orphans} run(s), job(s) or key(s) without a live owner after {:?}: {}",
            started.elapsed(),
            read_log(store)
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn chrono_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

async fn crash_loop(cycles: usize, seed: u64) -> Figures {
    let mut rng = StdRng::seed_from_u64(seed);
    let store = Store::new();
    let granted = 1_000_000;
    {
        let s = evaldeck::service::store::Store::open(&store.db()).unwrap();
        s.grant_credits(&store.org_id, granted, Some("crash loop"))
            .unwrap();
    }
    let start_balance: i64 = count(
        &db(&store),
        "SELECT credits FROM organizations WHERE id = (SELECT org_id FROM projects LIMIT 1)",
    );
    let lease = LEASE_MS.to_string();
    let flags = ["--lease-ms", lease.as_str(), "--import-wait", "1"];
    let ledger = Arc::new(Mutex::new(Ledger::default()));
    let mut figures = Figures {
        cycles,
        ..Figures::default()
    };
    let mut serve = Serve::start(&store, &flags);
    let p = store.project.clone();
    // Runs use one suite; case writes and imports (which add cases) another.
    let runs_suite = slow_suite(&serve, &p, 4, 60).await;
    let suite = slow_suite(&serve, &p, 1, 1).await;
    let bound = Duration::from_millis(2 * LEASE_MS) + Duration::from_secs(10);
    for n in 0..cycles {
        let stop = Arc::new(AtomicBool::new(false));
        let client = Arc::new(Client {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap(),
            base: serve.base.clone(),
            key: store.key.clone(),
        });
        let tasks: Vec<_> = (0..8)
            .map(|k| {
                tokio::spawn(workload(
                    k % 4,
                    n,
                    client.clone(),
                    p.clone(),
                    (runs_suite.clone(), suite.clone()),
                    ledger.clone(),
                    stop.clone(),
                ))
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(rng.random_range(150..900))).await;
        let stopped = Instant::now();
        if rng.random_bool(0.5) {
            serve.kill9();
            figures.sigkill += 1;
        } else {
            serve.terminate();
            figures.sigterm += 1;
        }
        stop.store(true, Ordering::Relaxed);
        for t in tasks {
            t.await.unwrap();
        }
        // Start again at once.
        serve = Serve::start(&store, &flags);
        settled(&store, bound).await;
        figures.worst_recovery = figures.worst_recovery.max(stopped.elapsed());
        // Retry every keyed write whose answer never came: one key, one outcome.
        let client = Client {
            http: reqwest::Client::new(),
            base: serve.base.clone(),
            key: store.key.clone(),
        };
        let (cases, imports) = {
            let mut l = ledger.lock().unwrap();
            (
                std::mem::take(&mut l.unanswered_cases),
                std::mem::take(&mut l.unanswered_imports),
            )
        };
        for (key, title) in cases {
            figures.retried_keys += 1;
            let path = format!("/projects/{p}/eval-suites/{suite}/cases");
            let (s, v) = client
                .send(Method::POST, &path, Some(&key), case_body(&title))
                .await
                .expect("an answer");
            match s {
                201 => {
                    ledger.lock().unwrap().cases.insert(key, title);
                }
                409 => assert_eq!(
                    v["details"]["reason"], "IDEMPOTENT_REQUEST_COMMITTED",
                    "{v}"
                ),
                _ => panic!("a retry of {key}: {s} {v}"),
            }
        }
        for key in imports {
            figures.retried_keys += 1;
            let path = format!("/projects/{p}/eval-suites/{suite}/cases/import");
            let (s, v) = client
                .send(
                    Method::POST,
                    &path,
                    Some(&key),
                    json!({"content": PLAN, "duplicatePolicy": "create_anyway", "overrideReason": "crash loop"}),
                )
                .await
                .expect("an answer");
            assert!(matches!(s, 200 | 202), "a retry of {key}: {s} {v}");
            if let Some(j) = import_job(&v) {
                ledger.lock().unwrap().imports.insert(key, j);
            }
        }
    }
    // The last process finishes what is left, then the checks.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let c = db(&store);
        let open = count(
            &c,
            "SELECT (SELECT COUNT(*) FROM eval_runs WHERE status IN ('pending', 'running') AND source != 'sdk')
                  + (SELECT COUNT(*) FROM authoring_jobs WHERE status = 'pending')",
        );
        if open == 0 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "{open} run(s) or job(s) never finished: {}",
            read_log(&store)
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    serve.terminate();
    let c = db(&store);
    let integrity: String = c
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    assert_eq!(
        count(&c, "SELECT COUNT(*) FROM pragma_foreign_key_check"),
        0
    );
    assert_eq!(
        count(
            &c,
            "SELECT COUNT(*) FROM idempotency_keys WHERE status IS NULL"
        ),
        0,
        "no key left claimed"
    );
    let l = ledger.lock().unwrap();
    for h in &l.hosts {
        assert_eq!(
            count(&c, &format!("SELECT COUNT(*) FROM hosts WHERE id = '{h}'")),
            1,
            "host {h}"
        );
    }
    for r in &l.runs {
        let status: String = c
            .query_row("SELECT status FROM eval_runs WHERE id = ?1", [r], |x| {
                x.get(0)
            })
            .unwrap_or_else(|_| panic!("run {r} lost"));
        assert!(
            matches!(status.as_str(), "completed" | "failed" | "cancelled"),
            "{r}: {status}"
        );
    }
    for (key, title) in &l.cases {
        let n = count(
            &c,
            &format!(
                "SELECT COUNT(*) FROM eval_cases WHERE json_extract(body, '$.title') = '{title}'"
            ),
        );
        assert_eq!(n, 1, "case key {key}: {n} cases");
    }
    for (key, job) in &l.imports {
        if job != "committed" {
            assert_eq!(
                count(
                    &c,
                    &format!("SELECT COUNT(*) FROM authoring_jobs WHERE id = '{job}'")
                ),
                1,
                "{key}"
            );
        }
        assert_eq!(
            count(
                &c,
                &format!("SELECT COUNT(*) FROM authoring_jobs WHERE idempotency_key = '{key}'")
            ),
            1,
            "one key, one job: {key}"
        );
    }
    // Credits: one ledger entry per completed job, matching what the job records, and the
    // balance is the grant less every entry.
    assert_eq!(
        count(
            &c,
            "SELECT COUNT(*) FROM (SELECT job_id FROM credit_ledger WHERE kind = 'authoring' GROUP BY job_id HAVING COUNT(*) > 1)"
        ),
        0,
        "a job charged twice"
    );
    assert_eq!(
        count(
            &c,
            "SELECT COUNT(*) FROM authoring_jobs j WHERE credits_charged != COALESCE((SELECT -SUM(delta) FROM credit_ledger l WHERE l.job_id = j.id AND l.kind = 'authoring'), 0)"
        ),
        0,
        "a job's charge differs from its ledger entry"
    );
    let spent = count(
        &c,
        "SELECT COALESCE(-SUM(delta), 0) FROM credit_ledger WHERE delta < 0",
    );
    let balance = count(
        &c,
        "SELECT credits FROM organizations WHERE id = (SELECT org_id FROM projects LIMIT 1)",
    );
    assert_eq!(balance, start_balance - spent);
    figures.acknowledged = l.acknowledged;
    figures.runs = l.runs.len();
    figures.imports = l.imports.len();
    figures
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crash_loop_short() {
    let seed = rand::random::<u64>();
    eprintln!("crash loop seed {seed}");
    let f = crash_loop(3, seed).await;
    eprintln!("{f:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "long: run by hand, see the README"]
async fn crash_loop_long() {
    let seed = std::env::var("CRASH_LOOP_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(rand::random::<u64>);
    let cycles = std::env::var("CRASH_LOOP_CYCLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(40);
    let started = Instant::now();
    let f = crash_loop(cycles, seed).await;
    println!("crash loop: seed {seed}, {:?} in all", started.elapsed());
    println!(
        "| cycles | SIGKILL | SIGTERM | acknowledged writes | runs | imports | keys retried after a restart | worst time from the stop to no orphan |"
    );
    println!(
        "| {} | {} | {} | {} | {} | {} | {} | {} ms |",
        f.cycles,
        f.sigkill,
        f.sigterm,
        f.acknowledged,
        f.runs,
        f.imports,
        f.retried_keys,
        f.worst_recovery.as_millis()
    );
}
