//! Scheduled runs: `PATCH eval-suites/{s}/schedule` over HTTP and both backends, and the
//! scheduler on a fake clock (on time, not before, never twice across restarts or two
//! processes, skipped at the concurrency cap, stopped by disabling), plus the CLI.

use std::sync::Arc;
use std::time::{Duration, Instant};

use evaldeck::client::Backend;
use evaldeck::service::evals::scheduler::FakeClock;
use evaldeck::service::{Config, Service};
use evaldeck::spec::Code;
use evaldeck::spec::environment::Patch;
use evaldeck::spec::schedule::{FiringOutcome, SchedulePatch, SuiteSchedule};
use reqwest::Method;
use serde_json::{Value, json};

use evaldeck_testkit::served::{Harness, Resp, demo_config};

/// An arbitrary fixed start: 2025-01-01T00:00:00Z.
const T0: i64 = 1_735_689_600_000;
const MIN: i64 = 60_000;
const TICK: Duration = Duration::from_millis(15);

fn config(clock: &Arc<FakeClock>) -> Config {
    let mut c = demo_config();
    c.schedules.tick = TICK;
    c.schedules.clock = clock.clone();
    c
}

async fn fake_harness() -> (Harness, Arc<FakeClock>) {
    let clock = FakeClock::new(T0);
    (Harness::with_config(config(&clock)).await, clock)
}

/// A suite of one `toolCall` case against the demo server: runs in milliseconds, no model.
async fn quick_suite(h: &Harness, name: &str) -> String {
    let tests = json!([{"title": "echo", "steps": [
        {"id": "t1", "kind": "toolCall", "toolName": "echo", "arguments": {"message": "hi"}}]}]);
    suite_with(h, name, tests).await
}

async fn suite_with(h: &Harness, name: &str, tests: Value) -> String {
    let r = h
        .call(
            Method::POST,
            &format!("/projects/{}/eval-suites", h.project),
            Some(&h.owner_key),
            Some(json!({"name": name, "serverIds": ["demo"], "model": "builtin/baseline", "tests": tests})),
        )
        .await;
    r.ok(201)["suiteId"].as_str().unwrap().to_string()
}

async fn patch_schedule(h: &Harness, key: &str, project: &str, suite: &str, body: Value) -> Resp {
    h.call(
        Method::PATCH,
        &format!("/projects/{project}/eval-suites/{suite}/schedule"),
        Some(key),
        Some(body),
    )
    .await
}

async fn set(h: &Harness, suite: &str, body: Value) -> Resp {
    patch_schedule(h, &h.owner_key, &h.project, suite, body).await
}

async fn get_schedule(h: &Harness, suite: &str) -> Value {
    h.get(
        &format!("/projects/{}/eval-suites/{suite}/schedule", h.project),
        &h.owner_key,
    )
    .await
    .ok(200)
    .clone()
}

async fn patch_suite(h: &Harness, suite: &str, body: Value) {
    h.call(
        Method::PATCH,
        &format!("/projects/{}/eval-suites/{suite}", h.project),
        Some(&h.owner_key),
        Some(body),
    )
    .await
    .ok(200);
}

/// The seeded `local` environment, and a second one on the same host and servers.
async fn two_environments(h: &Harness) -> (String, String) {
    let p = &h.project;
    let envs = h
        .get(&format!("/projects/{p}/environments"), &h.owner_key)
        .await;
    let env = envs.ok(200)["items"][0].clone();
    let second = h
        .call(
            Method::POST,
            &format!("/projects/{p}/environments"),
            Some(&h.owner_key),
            Some(json!({"name": "second", "hostId": env["hostId"], "serverAttachmentId": env["serverAttachmentId"]})),
        )
        .await;
    let second = second.ok(201)["id"].as_str().unwrap().to_string();
    (env["id"].as_str().unwrap().to_string(), second)
}

/// Polls the stored schedule until `done` holds (the scheduler works on its own task).
async fn wait_for(
    service: &Service,
    suite: &str,
    done: impl Fn(&SuiteSchedule) -> bool,
) -> SuiteSchedule {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let s = service
            .store()
            .schedule(suite, 50)
            .unwrap()
            .expect("a schedule");
        if done(&s) {
            return s;
        }
        assert!(Instant::now() < deadline, "timed out: {s:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Several scheduler ticks.
async fn some_ticks() {
    tokio::time::sleep(TICK * 8).await;
}

fn firings(service: &Service, suite: &str) -> usize {
    service
        .store()
        .schedule(suite, 1000)
        .unwrap()
        .map(|s| s.recent_firings.len())
        .unwrap_or(0)
}

/// Waits until every run of the suite finished, so a service can shut down cleanly.
async fn settle(service: &Service, h: &Harness, suite: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let runs = service
            .suite_runs(&h.owner, &h.project, suite, &Default::default())
            .unwrap();
        if runs.items.iter().all(|r| r.is_terminal()) {
            return;
        }
        assert!(Instant::now() < deadline, "runs did not finish");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn wait_run(h: &Harness, run: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let v = h
            .get(
                &format!("/projects/{}/eval-runs/{run}", h.project),
                &h.owner_key,
            )
            .await
            .ok(200)
            .clone();
        if matches!(
            v["status"].as_str(),
            Some("completed" | "failed" | "cancelled")
        ) {
            return v;
        }
        assert!(Instant::now() < deadline, "the run did not finish: {v}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn patch_validates_bounds_environments_and_access() {
    let (h, _clock) = fake_harness().await;
    let suite = quick_suite(&h, "Nightly").await;

    // Never set: the suite says null, GET answers the unset schedule.
    let s = h
        .get(
            &format!("/projects/{}/eval-suites/{suite}", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(s.ok(200)["schedule"], Value::Null);
    let g = get_schedule(&h, &suite).await;
    assert_eq!(g["enabled"], false);
    assert_eq!(g["intervalMinutes"], Value::Null);
    assert_eq!(g["recentFirings"], json!([]));

    // Bodies.
    set(&h, &suite, json!({"enabled": true}))
        .await
        .invalid("/intervalMinutes", "required");
    for bad in [4, 10081, 0, -5] {
        set(&h, &suite, json!({"enabled": true, "intervalMinutes": bad}))
            .await
            .invalid("/intervalMinutes", "range");
    }
    set(&h, &suite, json!({"enabled": true, "intervalMinutes": 7.5}))
        .await
        .invalid("/intervalMinutes", "type");
    set(&h, &suite, json!({"intervalMinutes": 5}))
        .await
        .invalid("/enabled", "required");
    set(
        &h,
        &suite,
        json!({"enabled": true, "intervalMinutes": 5, "cron": "* * * * *"}),
    )
    .await
    .invalid("/cron", "additionalProperties");
    h.raw(
        Method::PATCH,
        &format!("/projects/{}/eval-suites/{suite}/schedule", h.project),
        Some(&h.owner_key),
        Some("application/json"),
        b"{\"enabled\": tru".to_vec(),
    )
    .await
    .invalid_rule("json");

    // The bounds themselves are accepted; nextRunAt is on the service's clock.
    let r = set(
        &h,
        &suite,
        json!({"enabled": true, "intervalMinutes": 10080}),
    )
    .await;
    assert_eq!(r.ok(200)["nextRunAt"], T0 + 10080 * MIN);
    let r = set(&h, &suite, json!({"enabled": true, "intervalMinutes": 5})).await;
    let body = r.ok(200).clone();
    assert_eq!(body["suiteId"], suite.as_str());
    assert_eq!(body["enabled"], true);
    assert_eq!(body["intervalMinutes"], 5);
    assert_eq!(body["environmentId"], Value::Null);
    assert_eq!(body["nextRunAt"], T0 + 5 * MIN);
    assert_eq!(body["updatedAt"], T0);
    assert_eq!(body["updatedBy"], h.owner.user_id.as_str());
    assert_eq!(body["lastRunId"], Value::Null);
    // The suite object carries it; so does GET …/schedule.
    let s = h
        .get(
            &format!("/projects/{}/eval-suites/{suite}", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(s.ok(200)["schedule"], body);
    assert_eq!(get_schedule(&h, &suite).await, body);

    // Disabling keeps the interval; enabling again reuses it.
    let off = set(&h, &suite, json!({"enabled": false})).await;
    let off = off.ok(200);
    assert_eq!(off["enabled"], false);
    assert_eq!(off["nextRunAt"], Value::Null);
    assert_eq!(off["intervalMinutes"], 5);
    let on = set(&h, &suite, json!({"enabled": true})).await;
    assert_eq!(on.ok(200)["nextRunAt"], T0 + 5 * MIN);

    // Environments: unknown and unattached pins, then several attached without a pin.
    let (local, second) = two_environments(&h).await;
    for env in ["env_nope", local.as_str()] {
        let r = set(
            &h,
            &suite,
            json!({"enabled": true, "intervalMinutes": 5, "environmentId": env}),
        )
        .await;
        r.invalid("/environmentId", "ENVIRONMENT_NOT_ATTACHED");
        assert_eq!(r.reason(), Some("ENVIRONMENT_NOT_ATTACHED"));
    }
    set(&h, &suite, json!({"enabled": true, "environmentId": ""}))
        .await
        .invalid("/environmentId", "minLength");
    patch_suite(&h, &suite, json!({"environmentIds": [local]})).await;
    let r = set(&h, &suite, json!({"enabled": true, "environmentId": local})).await;
    assert_eq!(r.ok(200)["environmentId"], local.as_str());
    patch_suite(&h, &suite, json!({"environmentIds": [local, second]})).await;
    let r = set(&h, &suite, json!({"enabled": true, "environmentId": null})).await;
    r.err(400, "VALIDATION_ERROR");
    assert_eq!(r.reason(), Some("ENVIRONMENT_REQUIRED"));
    assert_eq!(r.body["details"]["candidates"].as_array().unwrap().len(), 2);
    // With a pin among several it is fine; the pin survives the refused request.
    assert_eq!(
        get_schedule(&h, &suite).await["environmentId"],
        local.as_str()
    );
    let r = set(
        &h,
        &suite,
        json!({"enabled": true, "environmentId": second}),
    )
    .await;
    assert_eq!(r.ok(200)["environmentId"], second.as_str());
    // A pin detached later does not block disabling.
    patch_suite(&h, &suite, json!({"environmentIds": [local]})).await;
    set(&h, &suite, json!({"enabled": true}))
        .await
        .invalid("/environmentId", "ENVIRONMENT_NOT_ATTACHED");
    let r = set(&h, &suite, json!({"enabled": false})).await;
    assert_eq!(r.ok(200)["enabled"], false);

    // Unknown suite, another organization's key, a project of another organization.
    set(&h, "sut_nope", json!({"enabled": false}))
        .await
        .err(404, "NOT_FOUND");
    let (_, other_key, other_project) = h.other_org();
    patch_schedule(
        &h,
        &other_key,
        &h.project,
        &suite,
        json!({"enabled": false}),
    )
    .await
    .err(403, "FORBIDDEN");
    h.get(
        &format!("/projects/{}/eval-suites/{suite}/schedule", h.project),
        &other_key,
    )
    .await
    .err(403, "FORBIDDEN");
    patch_schedule(
        &h,
        &h.owner_key,
        &other_project,
        &suite,
        json!({"enabled": false}),
    )
    .await
    .err(403, "FORBIDDEN");

    // Both routes are in the OpenAPI document, GET marked as an extension.
    let doc = h.get("/openapi.json", &h.owner_key).await;
    let path = &doc.ok(200)["paths"]["/projects/{project_id}/eval-suites/{suite_id}/schedule"];
    assert!(path["patch"].is_object(), "{path}");
    assert_eq!(path["get"]["x-evaldeck-extension"], true, "{path}");

    // Deleting the suite removes its schedule.
    h.call(
        Method::DELETE,
        &format!("/projects/{}/eval-suites/{suite}", h.project),
        Some(&h.owner_key),
        None,
    )
    .await
    .ok(200);
    assert!(h.service.store().schedule(&suite, 10).unwrap().is_none());
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn both_backends_set_show_and_refuse_alike() {
    let (h, _clock) = fake_harness().await;
    let (_, other_key, _) = h.other_org();
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let suite = quick_suite(&h, &format!("Via {name}")).await;
        let p = h.project.as_str();
        let unset = b.schedule(p, &suite).await.unwrap();
        assert_eq!(unset, SuiteSchedule::unset(&suite), "{name}");
        assert!(b.suite(p, &suite).await.unwrap().schedule.is_none());

        let body = SchedulePatch {
            enabled: true,
            interval_minutes: Some(30),
            environment_id: Patch::Keep,
        };
        let s = b.set_schedule(p, &suite, &body).await.unwrap();
        assert!(s.enabled, "{name}");
        assert_eq!(s.interval_minutes, Some(30));
        assert_eq!(s.next_run_at, Some(T0 + 30 * MIN));
        // By name too, and on the suite object.
        assert_eq!(b.schedule(p, &format!("Via {name}")).await.unwrap(), s);
        assert_eq!(b.suite(p, &suite).await.unwrap().schedule, Some(s));

        let bad = SchedulePatch {
            interval_minutes: Some(4),
            ..body.clone()
        };
        let e = b.set_schedule(p, &suite, &bad).await.unwrap_err();
        assert_eq!(e.code, Code::ValidationError, "{name}");
        assert_eq!(e.violations()[0].path, "/intervalMinutes");
        let pinned = SchedulePatch {
            environment_id: Patch::Set("env_nope".into()),
            ..body.clone()
        };
        let e = b.set_schedule(p, &suite, &pinned).await.unwrap_err();
        assert_eq!(e.reason(), Some("ENVIRONMENT_NOT_ATTACHED"), "{name}");
        let e = b.schedule(p, "sut_nope").await.unwrap_err();
        assert_eq!(e.code, Code::NotFound, "{name}");

        let off = SchedulePatch {
            enabled: false,
            interval_minutes: None,
            environment_id: Patch::Keep,
        };
        let s = b.set_schedule(p, &suite, &off).await.unwrap();
        assert!(!s.enabled);
        assert_eq!(s.next_run_at, None);
        assert_eq!(s.interval_minutes, Some(30));
    }
    let other = h.remote(&other_key);
    let suite = quick_suite(&h, "Theirs").await;
    let e = other.schedule(&h.project, &suite).await.unwrap_err();
    assert_eq!(e.code, Code::Forbidden);
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fires_on_time_not_before_and_stops_when_disabled() {
    let (h, clock) = fake_harness().await;
    let suite = quick_suite(&h, "Every five").await;
    assert!(h.service.start_scheduler());
    assert!(!h.service.start_scheduler(), "one scheduler per service");
    set(&h, &suite, json!({"enabled": true, "intervalMinutes": 5}))
        .await
        .ok(200);

    // One second short of the due time: nothing, however many ticks pass.
    clock.advance(Duration::from_millis((5 * MIN - 1000) as u64));
    some_ticks().await;
    assert_eq!(firings(&h.service, &suite), 0);
    let runs = h
        .get(
            &format!("/projects/{}/eval-suites/{suite}/runs", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(runs.ok(200)["items"], json!([]));

    // Due: one firing, one run.
    clock.advance(Duration::from_secs(1));
    let s = wait_for(&h.service, &suite, |s| {
        s.recent_firings
            .first()
            .is_some_and(|f| f.outcome != FiringOutcome::Pending)
    })
    .await;
    let f = &s.recent_firings[0];
    assert_eq!(f.outcome, FiringOutcome::Launched, "{f:?}");
    assert_eq!(f.due_at, T0 + 5 * MIN);
    assert_eq!(f.fired_at, T0 + 5 * MIN);
    let run_id = f.run_id.clone().unwrap();
    assert_eq!(s.last_run_id.as_deref(), Some(run_id.as_str()));
    assert_eq!(s.last_fired_at, Some(T0 + 5 * MIN));
    assert_eq!(
        s.next_run_at,
        Some(T0 + 10 * MIN),
        "the next due time follows the previous one"
    );

    // The run is listed with the suite's runs, tagged as the scheduler's.
    let runs = h
        .get(
            &format!("/projects/{}/eval-suites/{suite}/runs", h.project),
            &h.owner_key,
        )
        .await;
    let items = runs.ok(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], run_id.as_str());
    assert_eq!(items[0]["trigger"], "schedule");
    assert_eq!(items[0]["source"], "api");
    let run = wait_run(&h, &run_id).await;
    assert_eq!(run["result"], "passed", "{run}");
    assert_eq!(run["trigger"], "schedule");

    // More ticks at the same time fire nothing more.
    some_ticks().await;
    assert_eq!(firings(&h.service, &suite), 1);
    let g = get_schedule(&h, &suite).await;
    assert_eq!(g["recentFirings"][0]["outcome"], "launched");
    assert_eq!(g["recentFirings"][0]["runId"], run_id.as_str());

    // Disabled: time passes, nothing fires.
    set(&h, &suite, json!({"enabled": false})).await.ok(200);
    clock.advance(Duration::from_secs(3600));
    some_ticks().await;
    assert_eq!(firings(&h.service, &suite), 1);
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn restarts_and_two_processes_never_fire_twice() {
    let clock = FakeClock::new(T0);
    let mut cfg = config(&clock);
    cfg.runs.max_concurrent_runs = 50;
    let h = Harness::with_config(cfg.clone()).await;
    let suite = quick_suite(&h, "Restarts").await;
    set(&h, &suite, json!({"enabled": true, "intervalMinutes": 5}))
        .await
        .ok(200);
    let db = h.db_path();

    // Process one fires the due time.
    clock.advance(Duration::from_millis((5 * MIN) as u64));
    let one = Service::open(&db, cfg.clone()).unwrap();
    one.start_scheduler();
    wait_for(&one, &suite, |s| {
        s.recent_firings
            .first()
            .and_then(|f| f.run_id.as_ref())
            .is_some()
    })
    .await;
    settle(&one, &h, &suite).await;
    one.shutdown().await;

    // A restart at the same time: the due time was claimed, nothing fires again.
    let two = Service::open(&db, cfg.clone()).unwrap();
    two.start_scheduler();
    some_ticks().await;
    assert_eq!(firings(&two, &suite), 1);
    two.shutdown().await;

    // Down for an hour (twelve intervals): one firing on start, the next from now.
    clock.advance(Duration::from_secs(3600));
    let now = T0 + 65 * MIN;
    let three = Service::open(&db, cfg.clone()).unwrap();
    three.start_scheduler();
    let s = wait_for(&three, &suite, |s| {
        s.recent_firings.len() == 2 && s.recent_firings[0].run_id.is_some()
    })
    .await;
    assert_eq!(
        s.recent_firings[0].due_at,
        T0 + 10 * MIN,
        "the first missed one"
    );
    assert_eq!(s.recent_firings[0].fired_at, now);
    assert_eq!(s.next_run_at, Some(now + 5 * MIN));
    some_ticks().await;
    assert_eq!(
        firings(&three, &suite),
        2,
        "missed intervals are not replayed"
    );

    // Two live processes over one file: each due time fires once.
    let four = Service::open(&db, cfg.clone()).unwrap();
    four.start_scheduler();
    for n in 1..=3 {
        clock.advance(Duration::from_millis((5 * MIN) as u64));
        wait_for(&three, &suite, |s| {
            s.recent_firings.len() == 2 + n && s.recent_firings[0].run_id.is_some()
        })
        .await;
        some_ticks().await;
        assert_eq!(firings(&three, &suite), 2 + n);
    }
    let s = three.store().schedule(&suite, 100).unwrap().unwrap();
    let mut due: Vec<i64> = s.recent_firings.iter().map(|f| f.due_at).collect();
    due.dedup();
    assert_eq!(due.len(), 5, "every due time once: {due:?}");
    assert!(
        s.recent_firings
            .iter()
            .all(|f| f.outcome == FiringOutcome::Launched)
    );
    settle(&three, &h, &suite).await;
    for service in [&three, &four] {
        service.shutdown().await;
    }
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_firing_at_the_concurrency_cap_is_skipped_and_the_schedule_moves_on() {
    let clock = FakeClock::new(T0);
    let mut cfg = config(&clock);
    cfg.runs.max_concurrent_runs = 1;
    let h = Harness::with_config(cfg).await;
    // Long enough that the firing meets it running even on a loaded machine (at 2 s the
    // run could end first when the whole suite ran on two cores).
    let slow = suite_with(
        &h,
        "Slow",
        json!([{"title": "slow", "steps": [{"id": "t1", "kind": "toolCall", "toolName": "slow",
            "arguments": {"durationMs": 6000, "progress": false}}]}]),
    )
    .await;
    let suite = quick_suite(&h, "Capped").await;
    let busy = h
        .call(
            Method::POST,
            &format!("/projects/{}/eval-runs", h.project),
            Some(&h.owner_key),
            Some(json!({"suiteId": slow})),
        )
        .await;
    let busy = busy.ok(202)["runId"].as_str().unwrap().to_string();
    set(&h, &suite, json!({"enabled": true, "intervalMinutes": 5}))
        .await
        .ok(200);
    h.service.start_scheduler();

    clock.advance(Duration::from_millis((5 * MIN) as u64));
    let s = wait_for(&h.service, &suite, |s| {
        s.recent_firings
            .first()
            .is_some_and(|f| f.outcome != FiringOutcome::Pending)
    })
    .await;
    let f = &s.recent_firings[0];
    assert_eq!(f.outcome, FiringOutcome::Skipped, "{f:?}");
    assert_eq!(f.reason.as_deref(), Some("CONCURRENT_RUN_LIMIT"));
    assert!(f.message.as_deref().is_some_and(|m| !m.is_empty()));
    assert_eq!(f.run_id, None);
    assert_eq!(s.last_run_id, None);
    assert_eq!(s.next_run_at, Some(T0 + 10 * MIN), "the schedule moved on");
    let g = get_schedule(&h, &suite).await;
    assert_eq!(g["recentFirings"][0]["outcome"], "skipped");
    assert_eq!(g["recentFirings"][0]["reason"], "CONCURRENT_RUN_LIMIT");

    // Once the slot is free the next firing launches.
    wait_run(&h, &busy).await;
    clock.advance(Duration::from_millis((5 * MIN) as u64));
    let s = wait_for(&h.service, &suite, |s| {
        s.recent_firings.len() == 2 && s.recent_firings[0].outcome != FiringOutcome::Pending
    })
    .await;
    assert_eq!(s.recent_firings[0].outcome, FiringOutcome::Launched);
    assert!(s.last_run_id.is_some());
    settle(&h.service, &h, &suite).await;
    h.service.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_shows_sets_and_disables_a_schedule() {
    let dir = tempfile::tempdir().unwrap();
    let db = evaldeck_testkit::served::cli_db(
        dir.path(),
        &[json!({
            "name": "Cron", "serverIds": ["demo"], "model": "builtin/baseline", "tests": [
                {"title": "echo", "steps": [{"id": "t1", "kind": "toolCall", "toolName": "echo", "arguments": {"message": "x"}}]}]})],
    );
    let cli = |args: &[&str]| {
        let mut all = vec!["--db", db.to_str().unwrap(), "suite", "schedule", "Cron"];
        all.extend_from_slice(args);
        let all: Vec<String> = all.into_iter().map(String::from).collect();
        async move {
            let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_evaldeck"))
                .args(&all)
                .output()
                .await
                .unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).to_string(),
                String::from_utf8_lossy(&out.stderr).to_string(),
            )
        }
    };
    let (code, stdout, _) = cli(&[]).await;
    assert_eq!(code, Some(0));
    assert!(stdout.contains("no schedule"), "{stdout}");

    let (code, stdout, stderr) = cli(&["--every", "15", "--env", "local", "--json"]).await;
    assert_eq!(
        code,
        Some(2),
        "the environment is not attached: {stdout}{stderr}"
    );
    assert!(stderr.contains("ENVIRONMENT_NOT_ATTACHED"), "{stderr}");

    let (code, stdout, stderr) = cli(&["--every", "15", "--json"]).await;
    assert_eq!(code, Some(0), "{stderr}");
    let v: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(v["enabled"], true);
    assert_eq!(v["intervalMinutes"], 15);

    let (code, stdout, _) = cli(&["--every", "4"]).await;
    assert_eq!(code, Some(2), "{stdout}");

    let (code, stdout, _) = cli(&[]).await;
    assert_eq!(code, Some(0));
    assert!(stdout.contains("scheduled every 15 min"), "{stdout}");
    assert!(stdout.contains("next run:"), "{stdout}");

    let (code, stdout, _) = cli(&["--off"]).await;
    assert_eq!(code, Some(0));
    assert!(stdout.contains("schedule off (every 15 min)"), "{stdout}");

    // Stored: off, with the interval kept and nothing fired (CLI commands never fire).
    let service = Service::open(&db, demo_config()).unwrap();
    let (who, project) = evaldeck_testkit::served::local_project(&service);
    let suite = service.suite(&who, &project, "Cron").unwrap();
    let s = suite.schedule.unwrap();
    assert!(!s.enabled);
    assert!(s.recent_firings.is_empty());
}
