//! Result ingestion over real HTTP (and both backends where it makes sense): `report`, the
//! chunked `runs/start` → `runs/iterations` → `runs/finalize` flow and its idempotency,
//! the `default` project, upload URLs for each artifact format (posted without an API key),
//! their token rules, validation errors, ingested runs beside native ones, and the CLI.

use std::time::Duration;

use evaldeck::service::Service;
use evaldeck::spec::ingest::{
    IngestFinalize, IngestIterations, IngestReport, IngestResult, RunFields, UploadUrlRequest,
};
use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use evaldeck_testkit::served::{Harness, Resp, demo_config};

const PYTEST: &str = include_str!("../../assets/artifacts/pytest-junit.xml");
const JEST: &str = include_str!("../../assets/artifacts/jest-results.json");
const VITEST: &str = include_str!("../../assets/artifacts/vitest-results.json");

fn result(title: &str, passed: bool, ext: &str) -> Value {
    json!({"caseTitle": title, "passed": passed, "externalIterationId": ext})
}

fn report(suite: &str, run: &str, results: Vec<Value>) -> Value {
    json!({"suiteName": suite, "externalRunId": run, "results": results})
}

fn path(project: &str, op: &str) -> String {
    format!("/projects/{project}/eval-ingest/{op}")
}

async fn post(h: &Harness, project: &str, op: &str, body: Value) -> Resp {
    h.call(
        Method::POST,
        &path(project, op),
        Some(&h.owner_key),
        Some(body),
    )
    .await
}

/// POSTs a raw file to an upload URL, as a reporter does: no Authorization header.
async fn upload(h: &Harness, url: &str, content_type: &str, body: &[u8]) -> Resp {
    let res = h
        .http
        .post(url)
        .header(CONTENT_TYPE, content_type)
        .body(body.to_vec())
        .send()
        .await
        .expect("the server answers");
    Resp::from(res).await
}

async fn mint(h: &Harness, project: &str, body: Value) -> String {
    let r = post(h, project, "artifacts/upload-url", body).await;
    let b = r.ok(200);
    assert_eq!(b["ok"], true);
    assert!(b["expiresAt"].as_i64().unwrap() > 0);
    b["uploadUrl"].as_str().unwrap().to_string()
}

#[tokio::test]
async fn report_makes_a_finalized_run_beside_native_runs() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let mut traced = result("echo says hello", true, "r1-1");
    traced["trace"] = json!({"messages": [{"role": "user", "content": "say hello"}, {"role": "assistant", "content": "hello"}],
                             "spans": [{"name": "echo", "startMs": 0, "endMs": 4}]});
    traced["actualToolCalls"] = json!([{"toolName": "echo", "arguments": {"message": "hello"}}]);
    traced["tokens"] = json!({"input": 10, "output": 5});
    traced["durationMs"] = json!(120.5);
    traced["model"] = json!("openai/gpt-4o");
    let mut failed = result("sum of negatives", false, "r1-2");
    failed["error"] = json!("expected -10, got 10");
    failed["trace"] = json!("plain text trace");
    let mut body = report(
        "SDK smoke",
        "r1",
        vec![traced, failed, result("lists tools", true, "r1-3")],
    );
    body["framework"] = json!("vitest");
    body["ci"] =
        json!({"provider": "github", "runUrl": "https://ci.example/run/7", "commitSha": "abc123"});
    body["serverReplayConfigs"] = json!([{"serverId": "x"}]);
    let r = post(&h, &p, "report", body).await;
    let b = r.ok(200).clone();
    assert_eq!(b["ok"], true);
    assert_eq!(b["status"], "completed");
    assert_eq!(b["result"], "failed");
    assert_eq!(b["reused"], false);
    assert_eq!(
        b["summary"],
        json!({"total": 3, "passed": 2, "failed": 1, "passRate": 2.0 / 3.0})
    );
    let (run_id, suite_id) = (
        b["runId"].as_str().unwrap().to_string(),
        b["suiteId"].as_str().unwrap().to_string(),
    );

    // The run reads like a native one, tagged as ingested.
    let run = h
        .get(&format!("/projects/{p}/eval-runs/{run_id}"), &h.owner_key)
        .await;
    let run = run.ok(200);
    assert_eq!(run["source"], "sdk");
    assert_eq!(run["trigger"], "ingest");
    assert_eq!(run["externalRunId"], "r1");
    assert_eq!(run["framework"], "vitest");
    assert_eq!(run["ci"]["commitSha"], "abc123");
    assert_eq!(run["summary"]["total"], 3);
    assert_eq!(run["summary"]["tokens"]["totalTokens"], 15);
    let runs = h
        .get(
            &format!("/projects/{p}/eval-suites/{suite_id}/runs"),
            &h.owner_key,
        )
        .await;
    let items = runs.ok(200)["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["id"], run_id.as_str());
    let suites = h
        .get(&format!("/projects/{p}/eval-suites"), &h.owner_key)
        .await;
    let listed = suites.ok(200)["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == suite_id.as_str())
        .cloned()
        .expect("the created suite is listed");
    assert_eq!(listed["latestRun"]["id"], run_id.as_str());

    // Iterations in arrival order, numbered densely.
    let its = h
        .get(
            &format!("/projects/{p}/eval-runs/{run_id}/iterations"),
            &h.owner_key,
        )
        .await;
    let its = its.ok(200)["items"].as_array().unwrap().clone();
    let numbers: Vec<i64> = its
        .iter()
        .map(|i| i["iterationNumber"].as_i64().unwrap())
        .collect();
    assert_eq!(numbers, [1, 2, 3]);
    assert_eq!(its[0]["title"], "echo says hello");
    assert_eq!(its[0]["result"], "passed");
    assert_eq!(its[0]["actualToolCalls"][0]["toolName"], "echo");
    assert_eq!(its[0]["usage"]["totalTokens"], 15);
    assert_eq!(its[1]["status"], "failed");
    assert_eq!(its[1]["error"], "expected -10, got 10");

    // Traces as sent; none sent is TRACE_NOT_AVAILABLE.
    let trace = |i: usize| {
        format!(
            "/projects/{p}/eval-runs/{run_id}/iterations/{}/trace",
            its[i]["id"].as_str().unwrap()
        )
    };
    let t = h.get(&trace(0), &h.owner_key).await;
    let t = t.ok(200);
    assert_eq!(t["messages"][1]["content"], "hello");
    assert_eq!(t["spans"][0]["name"], "echo");
    assert_eq!(t["externalIterationId"], "r1-1");
    let t = h.get(&trace(1), &h.owner_key).await;
    assert_eq!(t.ok(200)["trace"], "plain text trace");
    let none = h.get(&trace(2), &h.owner_key).await;
    none.err(404, "NOT_FOUND");
    assert_eq!(none.reason(), Some("TRACE_NOT_AVAILABLE"));

    // Nothing to regrade; the same suite name files the next run under the same suite.
    let regrade = h
        .call(
            Method::POST,
            &format!("/projects/{p}/eval-runs/{run_id}/regrade"),
            Some(&h.owner_key),
            Some(json!({})),
        )
        .await;
    regrade.err(409, "CONFLICT");
    let second = post(
        &h,
        &p,
        "report",
        report("SDK smoke", "r2", vec![result("a", true, "r2-1")]),
    )
    .await;
    let second = second.ok(200);
    assert_eq!(second["suiteId"], suite_id.as_str());
    assert_eq!(second["result"], "passed");
    let run2 = h
        .get(
            &format!(
                "/projects/{p}/eval-runs/{}",
                second["runId"].as_str().unwrap()
            ),
            &h.owner_key,
        )
        .await;
    assert_eq!(run2.ok(200)["runNumber"], 2);
}

#[tokio::test]
async fn a_retried_report_returns_the_first_run() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let body = report(
        "Retries",
        "same-run",
        vec![result("a", true, "s-1"), result("b", true, "s-2")],
    );
    let first = post(&h, &p, "report", body.clone()).await;
    let first = first.ok(200).clone();
    let again = post(&h, &p, "report", body).await;
    let again = again.ok(200);
    assert_eq!(again["runId"], first["runId"]);
    assert_eq!(again["reused"], true);
    assert_eq!(again["summary"]["total"], 2, "no results were added twice");
    let runs = h
        .get(
            &format!(
                "/projects/{p}/eval-suites/{}/runs",
                first["suiteId"].as_str().unwrap()
            ),
            &h.owner_key,
        )
        .await;
    assert_eq!(runs.ok(200)["items"].as_array().unwrap().len(), 1);

    // The same external id under another suite is a different run: refused.
    let other = post(
        &h,
        &p,
        "report",
        report("Another suite", "same-run", vec![result("a", true, "s-1")]),
    )
    .await;
    other.err(409, "CONFLICT");
    assert_eq!(other.reason(), Some("EXTERNAL_RUN_ID_REUSED"));

    // A pass-rate gate (a percent) decides the verdict.
    let mut gated = report(
        "Retries",
        "gated",
        vec![
            result("a", true, "g-1"),
            result("b", true, "g-2"),
            result("c", true, "g-3"),
            result("d", false, "g-4"),
        ],
    );
    gated["passCriteria"] = json!({"minimumPassRate": 75});
    let gated = post(&h, &p, "report", gated).await;
    let gated = gated.ok(200);
    assert_eq!(gated["result"], "passed");
    assert_eq!(gated["summary"]["passRate"], 0.75);
}

#[tokio::test]
async fn the_chunked_flow_is_idempotent_on_both_backends() {
    let h = Harness::start().await;
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let project = h.new_project(&format!("chunked {name}"));
        let p = project.as_str();
        let fields = RunFields {
            suite_name: "chunked".into(),
            external_run_id: format!("ext-{name}"),
            expected_iterations: Some(201),
            ..RunFields::default()
        };
        let started = b.ingest_start(p, &fields).await.unwrap();
        assert_eq!(
            (
                started.status.as_str(),
                started.result.as_deref(),
                started.reused
            ),
            ("running", None, false),
            "{name}"
        );
        let again = b.ingest_start(p, &fields).await.unwrap();
        assert_eq!(again.run_id, started.run_id, "{name}");
        assert!(again.reused);

        let results: Vec<IngestResult> = (1..=201)
            .map(|i| IngestResult::new(format!("case-{i}"), i % 50 != 0, format!("it-{i}")))
            .collect();
        let batch = |rs: &[IngestResult]| IngestIterations {
            run_id: started.run_id.clone(),
            results: rs.to_vec(),
        };
        let first = b
            .ingest_iterations(p, &batch(&results[..200]))
            .await
            .unwrap();
        assert_eq!(
            (first.inserted, first.skipped, first.total, first.run_total),
            (200, 0, 200, 200)
        );
        let replay = b
            .ingest_iterations(p, &batch(&results[..200]))
            .await
            .unwrap();
        assert_eq!((replay.inserted, replay.skipped), (0, 200), "{name}");
        // A batch that repeats an id within itself and overlaps the last one.
        let mut tail = vec![
            results[200].clone(),
            results[200].clone(),
            results[0].clone(),
        ];
        tail[1].case_title = "a replay with another title".into();
        let last = b.ingest_iterations(p, &batch(&tail)).await.unwrap();
        assert_eq!(
            (last.inserted, last.skipped, last.total, last.run_total),
            (1, 2, 3, 201)
        );
        let live = b.run(p, &started.run_id).await.unwrap();
        assert_eq!(live.status, "running");
        assert_eq!(live.source, "sdk");

        let fin = IngestFinalize {
            run_id: started.run_id.clone(),
            external_run_id: Some(fields.external_run_id.clone()),
        };
        let done = b.ingest_finalize(p, &fin).await.unwrap();
        assert_eq!(done.status, "completed");
        assert_eq!(done.result.as_deref(), Some("failed"));
        assert_eq!((done.summary.total, done.summary.failed), (201, 4));
        assert!(!done.reused);
        let twice = b.ingest_finalize(p, &fin).await.unwrap();
        assert_eq!(twice.run_id, done.run_id);
        assert!(twice.reused, "{name}");
        assert_eq!(twice.summary, done.summary);

        let late = b
            .ingest_iterations(p, &batch(&results[..1]))
            .await
            .unwrap_err();
        assert_eq!(late.code, evaldeck::spec::Code::Conflict, "{name}");
        assert_eq!(late.reason(), Some("RUN_FINALIZED"));
        let restart = b.ingest_start(p, &fields).await.unwrap();
        assert_eq!(
            (restart.status.as_str(), restart.reused),
            ("completed", true)
        );

        let its = evaldeck::client::collect_all(|pg| {
            let b = &b;
            let run = started.run_id.clone();
            async move { b.iterations(p, &run, &pg).await }
        })
        .await
        .unwrap();
        assert_eq!(its.len(), 201);
        assert_eq!(its[200].iteration_number, 201);
        assert_eq!(its[200].title.as_deref(), Some("case-201"));
        assert!(its.iter().all(|i| i.test_case_id.is_some()));

        let wrong = b
            .ingest_finalize(
                p,
                &IngestFinalize {
                    run_id: started.run_id.clone(),
                    external_run_id: Some("not-this-one".into()),
                },
            )
            .await
            .unwrap_err();
        assert_eq!(wrong.code, evaldeck::spec::Code::NotFound);

        // Upload URLs are served by `serve`: the embedded core has none to hand out.
        let url = b.ingest_upload_url(p, &UploadUrlRequest::default()).await;
        match name {
            "embedded" => {
                let e = url.unwrap_err();
                assert_eq!(e.code, evaldeck::spec::Code::FeatureNotSupported);
                assert_eq!(e.reason(), Some("NO_UPLOAD_SERVER"));
            }
            _ => assert!(
                url.unwrap()
                    .upload_url
                    .contains("/api/v1/eval-ingest/uploads/upl_")
            ),
        }
    }
}

#[tokio::test]
async fn unknown_foreign_and_unauthorized_runs() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let started = post(
        &h,
        &p,
        "runs/start",
        json!({"suiteName": "s", "externalRunId": "e"}),
    )
    .await;
    let run_id = started.ok(200)["runId"].as_str().unwrap().to_string();
    let batch = json!({"runId": "run_nope", "results": [result("a", true, "1")]});
    post(&h, &p, "runs/iterations", batch)
        .await
        .err(404, "NOT_FOUND");
    // A run of another project of the same organization is not found under this one.
    let elsewhere = h.new_project("elsewhere");
    let batch = json!({"runId": run_id, "results": [result("a", true, "1")]});
    post(&h, &elsewhere, "runs/iterations", batch.clone())
        .await
        .err(404, "NOT_FOUND");
    post(&h, &elsewhere, "runs/finalize", json!({"runId": run_id}))
        .await
        .err(404, "NOT_FOUND");
    // Another organization's key cannot reach the project; no key is 401.
    let (_, other_key, _) = h.other_org();
    let r = h
        .call(
            Method::POST,
            &path(&p, "runs/iterations"),
            Some(&other_key),
            Some(batch.clone()),
        )
        .await;
    r.err(403, "FORBIDDEN");
    let r = h
        .call(Method::POST, &path(&p, "report"), None, Some(batch.clone()))
        .await;
    r.err(401, "UNAUTHORIZED");
    // A project that does not exist.
    post(
        &h,
        "prj_missing",
        "report",
        report("s", "x", vec![result("a", true, "1")]),
    )
    .await
    .err(404, "NOT_FOUND");
    // Cancelling an open ingested run finalizes it as cancelled.
    let c = h
        .call(
            Method::POST,
            &format!("/projects/{p}/eval-runs/{run_id}/cancel"),
            Some(&h.owner_key),
            Some(json!({})),
        )
        .await;
    let c = c.ok(200);
    assert_eq!(c["status"], "cancelled");
    post(&h, &p, "runs/iterations", batch)
        .await
        .err(409, "CONFLICT");
}

#[tokio::test]
async fn bad_bodies_are_400_with_paths() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let too_many: Vec<Value> = (0..201)
        .map(|i| result("a", true, &i.to_string()))
        .collect();
    let cases = [
        (
            "report",
            json!({"externalRunId": "e", "results": [result("a", true, "1")]}),
            "/suiteName",
            "required",
        ),
        ("report", report("s", "e", vec![]), "/results", "minItems"),
        (
            "report",
            report("s", "e", too_many.clone()),
            "/results",
            "maxItems",
        ),
        (
            "report",
            report(
                "s",
                "e",
                vec![json!({"caseTitle": "a", "passed": "yes", "externalIterationId": "1"})],
            ),
            "/results/0/passed",
            "type",
        ),
        (
            "report",
            report("s", "e", vec![json!({"caseTitle": "a", "passed": true})]),
            "/results/0/externalIterationId",
            "required",
        ),
        (
            "runs/start",
            json!({"suiteName": "s", "externalRunId": "", "passCriteria": {"minimumPassRate": 150}}),
            "/externalRunId",
            "minLength",
        ),
        (
            "runs/iterations",
            json!({"runId": "r", "results": too_many}),
            "/results",
            "maxItems",
        ),
        ("runs/finalize", json!({}), "/runId", "required"),
        (
            "artifacts/upload-url",
            json!({"kind": "trx"}),
            "/kind",
            "enum",
        ),
    ];
    for (op, body, path_, rule) in cases {
        let r = post(&h, &p, op, body).await;
        r.invalid(path_, rule);
    }
    let r = h
        .raw(
            Method::POST,
            &path(&p, "report"),
            Some(&h.owner_key),
            Some("application/json"),
            b"{\"suiteName\":".to_vec(),
        )
        .await;
    r.invalid_rule("json");
    let r = h
        .raw(
            Method::POST,
            &path(&p, "runs/start"),
            Some(&h.owner_key),
            Some("text/plain"),
            b"{}".to_vec(),
        )
        .await;
    r.invalid_rule("contentType");
}

#[tokio::test]
async fn default_names_the_organizations_oldest_project() {
    let h = Harness::start().await;
    h.new_project("a newer project");
    let r = post(
        &h,
        "default",
        "report",
        report("Default", "d1", vec![result("a", true, "1")]),
    )
    .await;
    let run_id = r.ok(200)["runId"].as_str().unwrap().to_string();
    let run = h
        .get(
            &format!("/projects/{}/eval-runs/{run_id}", h.project),
            &h.owner_key,
        )
        .await;
    assert_eq!(run.ok(200)["projectId"], h.project.as_str());
    let me = h.get("/me", &h.owner_key).await;
    assert_eq!(
        me.ok(200)["organization"]["defaultProjectId"],
        h.project.as_str()
    );
    let url = mint(&h, "default", json!({})).await;
    let up = upload(&h, &url, "application/xml", PYTEST.as_bytes()).await;
    let up = up.ok(200);
    let run = h
        .get(
            &format!(
                "/projects/{}/eval-runs/{}",
                h.project,
                up["runId"].as_str().unwrap()
            ),
            &h.owner_key,
        )
        .await;
    run.ok(200);
}

#[tokio::test]
async fn each_artifact_format_uploads_without_a_key() {
    let h = Harness::start().await;
    let p = h.project.clone();
    // (request, file, content type, kind, inserted, notRun, failed, suite)
    let cases = [
        (
            json!({"kind": "junit"}),
            PYTEST,
            "application/xml",
            "junit",
            7,
            1,
            3,
            "mcp-server contract tests",
        ),
        (
            json!({}),
            JEST,
            "application/json",
            "jest",
            5,
            2,
            1,
            "Jest uploads",
        ),
        (
            json!({"suiteName": "GitHub MCP", "externalRunId": "vitest-1"}),
            VITEST,
            "application/octet-stream",
            "vitest",
            5,
            1,
            1,
            "GitHub MCP",
        ),
    ];
    for (req, file, ct, kind, inserted, not_run, failed, suite) in cases {
        let url = mint(&h, &p, req).await;
        assert!(
            url.starts_with(&format!("http://{}/api/v1/eval-ingest/uploads/", h.addr)),
            "{url}"
        );
        let r = upload(&h, &url, ct, file.as_bytes()).await;
        let b = r.ok(200).clone();
        assert_eq!(b["ok"], true);
        assert_eq!(b["kind"], kind);
        assert!(b["storageId"].as_str().unwrap().starts_with("art_"));
        assert_eq!(b["inserted"], inserted, "{kind}");
        assert_eq!(b["notRun"], not_run, "{kind}");
        assert_eq!(b["skipped"], 0);
        assert_eq!(b["status"], "completed");
        assert_eq!(b["result"], "failed");
        assert_eq!(b["summary"]["failed"], failed, "{kind}");
        let run = h
            .get(
                &format!("/projects/{p}/eval-runs/{}", b["runId"].as_str().unwrap()),
                &h.owner_key,
            )
            .await;
        let run = run.ok(200);
        assert_eq!(run["source"], "sdk");
        assert_eq!(run["framework"], kind);
        let suite_ = h
            .get(
                &format!(
                    "/projects/{p}/eval-suites/{}",
                    b["suiteId"].as_str().unwrap()
                ),
                &h.owner_key,
            )
            .await;
        assert_eq!(suite_.ok(200)["name"], suite);
    }
    // A JUnit case's captured output is its trace.
    let url = mint(&h, &p, json!({"externalRunId": "junit-trace"})).await;
    let b = upload(&h, &url, "application/xml", PYTEST.as_bytes()).await;
    let run_id = b.ok(200)["runId"].as_str().unwrap().to_string();
    let its = h
        .get(
            &format!("/projects/{p}/eval-runs/{run_id}/iterations"),
            &h.owner_key,
        )
        .await;
    let its = its.ok(200)["items"].as_array().unwrap().clone();
    let t = h
        .get(
            &format!(
                "/projects/{p}/eval-runs/{run_id}/iterations/{}/trace",
                its[2]["id"].as_str().unwrap()
            ),
            &h.owner_key,
        )
        .await;
    let t = t.ok(200);
    assert!(t["text"].as_str().unwrap().contains("[stderr]"), "{t}");
    assert_eq!(t["metadata"]["outcome"], "failure");
}

#[tokio::test]
async fn uploads_append_to_a_started_run_once() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let started = post(
        &h,
        &p,
        "runs/start",
        json!({"suiteName": "CI", "externalRunId": "pipeline-9"}),
    )
    .await;
    let run_id = started.ok(200)["runId"].as_str().unwrap().to_string();
    let url = mint(&h, &p, json!({"runId": run_id, "kind": "junit"})).await;
    let b = upload(&h, &url, "application/xml", PYTEST.as_bytes()).await;
    let b = b.ok(200).clone();
    assert_eq!(
        (b["inserted"].as_i64(), b["status"].as_str()),
        (Some(7), Some("running"))
    );
    // The same file through a fresh URL adds nothing: its cases are replays.
    let url2 = mint(&h, &p, json!({"runId": run_id})).await;
    let b = upload(&h, &url2, "text/xml", PYTEST.as_bytes()).await;
    let b = b.ok(200);
    assert_eq!(
        (b["inserted"].as_i64(), b["skipped"].as_i64()),
        (Some(0), Some(7))
    );
    let fin = post(
        &h,
        &p,
        "runs/finalize",
        json!({"runId": run_id, "externalRunId": "pipeline-9"}),
    )
    .await;
    let fin = fin.ok(200);
    assert_eq!(fin["summary"]["total"], 7);
    // A finalized run takes no upload URL.
    let r = post(&h, &p, "artifacts/upload-url", json!({"runId": run_id})).await;
    r.err(409, "CONFLICT");
    assert_eq!(r.reason(), Some("RUN_FINALIZED"));
}

#[tokio::test]
async fn upload_tokens_are_single_use_and_checked() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let url = mint(&h, &p, json!({})).await;
    // Not a report: a clear 400 naming the accepted formats; the URL stays usable.
    let bad = upload(&h, &url, "text/csv", b"name,passed\nadds,true\n").await;
    bad.err(400, "VALIDATION_ERROR");
    let msg = bad.body["message"].as_str().unwrap();
    assert!(msg.contains("JUnit XML") && msg.contains("Vitest"), "{msg}");
    assert_eq!(bad.violations()[0].1, "artifact");
    let broken = upload(
        &h,
        &url,
        "application/xml",
        b"<testsuites>\n<testsuite name=\"a\">\n<testcase name=\"x\"></testsuite>",
    )
    .await;
    broken.err(400, "VALIDATION_ERROR");
    assert!(broken.body["message"].as_str().unwrap().contains("line 3"));
    let kind_mismatch = mint(&h, &p, json!({"kind": "jest"})).await;
    upload(&h, &kind_mismatch, "application/xml", PYTEST.as_bytes())
        .await
        .err(400, "VALIDATION_ERROR");
    upload(&h, &url, "application/json", VITEST.as_bytes())
        .await
        .ok(200);
    let used = upload(&h, &url, "application/json", VITEST.as_bytes()).await;
    used.err(401, "UNAUTHORIZED");
    assert_eq!(used.reason(), Some("UPLOAD_URL_USED"));
    let forged = url.replace("upl_", "upl_0");
    let r = upload(&h, &forged, "application/json", VITEST.as_bytes()).await;
    r.err(401, "UNAUTHORIZED");
    assert_eq!(r.reason(), Some("UPLOAD_URL_INVALID"));
    // The API's own routes still need a key; the upload route needs none.
    let r = h
        .call(
            Method::GET,
            &format!("/projects/{p}/eval-suites"),
            None,
            None,
        )
        .await;
    r.err(401, "UNAUTHORIZED");
    let doc = h.call(Method::GET, "/openapi.json", None, None).await;
    let doc = doc.ok(200);
    assert_eq!(
        doc["paths"]["/eval-ingest/uploads/{token}"]["post"]["security"],
        json!([])
    );
    assert!(doc["paths"]["/projects/{project_id}/eval-ingest/runs/iterations"]["post"].is_object());
}

#[tokio::test]
async fn expiry_size_cap_and_public_url_are_configurable() {
    let mut config = demo_config();
    config.ingest.upload_ttl = Duration::from_millis(50);
    config.ingest.max_artifact_bytes = 2048;
    config.ingest.public_url = Some("https://evals.example.test/".into());
    let h = Harness::with_config(config).await;
    let p = h.project.clone();
    let url = mint(&h, &p, json!({})).await;
    assert!(
        url.starts_with("https://evals.example.test/api/v1/eval-ingest/uploads/upl_"),
        "{url}"
    );
    // Post to this server with the token the public URL carries.
    let token = url.rsplit('/').next().unwrap().to_string();
    let local = format!("http://{}/api/v1/eval-ingest/uploads/{token}", h.addr);
    let big = upload(&h, &local, "application/xml", PYTEST.as_bytes()).await;
    big.err(400, "VALIDATION_ERROR");
    assert!(
        big.body["message"].as_str().unwrap().contains("2048"),
        "{}",
        big.text
    );
    tokio::time::sleep(Duration::from_millis(120)).await;
    let small = br#"<testsuite name="tiny"><testcase name="a"/></testsuite>"#;
    let late = upload(&h, &local, "application/xml", small).await;
    late.err(401, "UNAUTHORIZED");
    assert_eq!(late.reason(), Some("UPLOAD_URL_EXPIRED"));
}

#[tokio::test]
async fn an_open_ingested_run_survives_a_restart_and_holds_no_run_slot() {
    let mut config = demo_config();
    config.leases = evaldeck::service::leases::LeaseOptions::from_lease(Duration::from_millis(30));
    config.runs.max_concurrent_runs = 1;
    let h = Harness::with_config(config.clone()).await;
    let p = h.project.clone();
    let started = post(
        &h,
        &p,
        "runs/start",
        json!({"suiteName": "long", "externalRunId": "open-1"}),
    )
    .await;
    let run_id = started.ok(200)["runId"].as_str().unwrap().to_string();
    tokio::time::sleep(Duration::from_millis(20)).await;
    // A second process opening the same database takes over abandoned runs: not this one.
    let second = Service::open(&h.db_path(), config).expect("reopen");
    let run = second.store().run(Some(&p), &run_id).unwrap();
    assert_eq!(run.status, "running");
    assert!(run.owner.is_none());
    let b = post(
        &h,
        &p,
        "runs/iterations",
        json!({"runId": run_id, "results": [result("a", true, "1")]}),
    )
    .await;
    assert_eq!(b.ok(200)["inserted"], 1);
    // Three open ingested runs with a cap of one: ingestion never hits the cap.
    for i in 2..=3 {
        post(
            &h,
            &p,
            "runs/start",
            json!({"suiteName": "long", "externalRunId": format!("open-{i}")}),
        )
        .await
        .ok(200);
    }
    // A native run still passes the cap check (and stops at the empty suite instead).
    let native = h
        .call(
            Method::POST,
            &format!("/projects/{p}/eval-runs"),
            Some(&h.owner_key),
            Some(json!({"suiteId": "Smoke"})),
        )
        .await;
    native.err(400, "VALIDATION_ERROR");
    assert_eq!(native.reason(), Some("NO_CASES"), "{}", native.text);
    second.shutdown().await;
}

#[tokio::test]
async fn cli_ingest_reports_a_junit_file() {
    let h = Harness::start().await;
    let bin = env!("CARGO_BIN_EXE_evaldeck");
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/artifacts/pytest-junit.xml"
    );
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--base-url".to_string(),
            h.base.clone(),
            "--api-key".into(),
            h.owner_key.clone(),
            "--json".into(),
            "ingest".into(),
            "junit".into(),
            file.into(),
            "--suite".into(),
            "CLI pytest".into(),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        tokio::process::Command::new(bin)
            .args(args)
            .env_remove("EVALDECK_PROJECT")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITLAB_CI")
            .output()
    };
    let out = run(&[]).await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failed verdict exits 1: {stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_str(&stdout).expect("JSON output");
    assert_eq!(v["summary"]["total"], 7);
    assert_eq!(v["notRun"], 1);
    assert_eq!(v["reused"], false);
    let run_id = v["runId"].as_str().unwrap().to_string();
    // The same file again (a retried CI step) is the same run.
    let again = run(&[]).await.unwrap();
    let v2: Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(v2["runId"], run_id.as_str());
    assert_eq!(v2["reused"], true);
    // A pass-rate gate the file meets (4 of 7 passed) exits 0.
    let gated = run(&["--external-run-id", "gated", "--min-pass-rate", "50"])
        .await
        .unwrap();
    assert_eq!(
        gated.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&gated.stderr)
    );
    let r = h
        .get(
            &format!("/projects/{}/eval-runs/{run_id}", h.project),
            &h.owner_key,
        )
        .await;
    let r = r.ok(200);
    assert_eq!(
        (r["source"].as_str(), r["framework"].as_str()),
        (Some("sdk"), Some("junit"))
    );
    // A file that is not a report is invalid input (exit 2).
    let bad = tokio::process::Command::new(bin)
        .args([
            "--base-url",
            &h.base,
            "--api-key",
            &h.owner_key,
            "ingest",
            "jest",
            file,
            "--suite",
            "x",
        ])
        .output()
        .await
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("pytest-junit.xml"));
}

#[tokio::test]
async fn report_through_both_backends() {
    let h = Harness::start().await;
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let project = h.new_project(&format!("report {name}"));
        let body = IngestReport {
            run: RunFields {
                suite_name: "typed".into(),
                external_run_id: "t-1".into(),
                ..RunFields::default()
            },
            results: vec![IngestResult::new("a", true, "1")],
        };
        let r = b.ingest_report(&project, &body).await.unwrap();
        assert_eq!(
            (r.status.as_str(), r.result.as_deref(), r.ok),
            ("completed", Some("passed"), true),
            "{name}"
        );
        let run = b.run(&project, &r.run_id).await.unwrap();
        assert_eq!(run.source, "sdk", "{name}");
        assert_eq!(run.trigger.as_deref(), Some("ingest"));
        assert_eq!(run.external_run_id.as_deref(), Some("t-1"));
        let mut bad = body.clone();
        bad.results.clear();
        let e = b.ingest_report(&project, &bad).await.unwrap_err();
        assert_eq!(e.violations()[0].path, "/results", "{name}");
    }
}

/// The suite list's summary of each suite: run totals, the latest run and the pass-rate
/// trend oldest first, beside a suite that has no runs at all.
#[tokio::test]
async fn the_suite_list_sums_runs_and_trends_pass_rates_oldest_first() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let mut last = String::new();
    for (n, passes) in [(1, 2), (2, 0), (3, 1)] {
        let results = (0..2)
            .map(|i| result(&format!("case {i}"), i < passes, &format!("{n}-{i}")))
            .collect();
        let b = post(&h, &p, "report", report("Trend", &format!("t{n}"), results)).await;
        last = b.ok(200)["runId"].as_str().unwrap().to_string();
    }
    let empty = h
        .call(
            Method::POST,
            &format!("/projects/{p}/eval-suites"),
            Some(&h.owner_key),
            Some(json!({"name": "Never run", "serverIds": ["demo"], "model": "builtin/baseline", "tests": [{"title": "hi", "steps": [{"id": "p1", "kind": "prompt", "prompt": "Say hi"}]}]})),
        )
        .await;
    empty.ok(201);
    let listed = h
        .get(&format!("/projects/{p}/eval-suites"), &h.owner_key)
        .await;
    let items = listed.ok(200)["items"].as_array().unwrap().clone();
    let by_name = |n: &str| items.iter().find(|s| s["name"] == n).cloned().unwrap();
    let trend = by_name("Trend");
    assert_eq!(
        trend["totals"],
        json!({"passed": 3, "failed": 3, "runs": 3})
    );
    assert_eq!(trend["latestRun"]["id"], last.as_str());
    assert_eq!(trend["latestRun"]["passRate"], 0.5);
    assert_eq!(trend["passRateTrend"], json!([1.0, 0.0, 0.5]));
    let never = by_name("Never run");
    assert_eq!(never["totals"]["runs"], 0);
    assert!(never["latestRun"].is_null(), "{never}");
    assert_eq!(never["caseCount"], 1);

    // A run still in progress is the latest run but has no place in the trend yet; a
    // deleted case leaves the count at once.
    let started = post(
        &h,
        &p,
        "runs/start",
        json!({"suiteName": "Trend", "externalRunId": "t4"}),
    )
    .await;
    let running = started.ok(200)["runId"].as_str().unwrap().to_string();
    let never_id = never["id"].as_str().unwrap();
    let cases = h
        .get(
            &format!("/projects/{p}/eval-suites/{never_id}/cases"),
            &h.owner_key,
        )
        .await;
    let case_id = cases.ok(200)["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    h.call(
        Method::DELETE,
        &format!("/projects/{p}/eval-suites/{never_id}/cases/{case_id}"),
        Some(&h.owner_key),
        None,
    )
    .await
    .ok(200);
    let listed = h
        .get(&format!("/projects/{p}/eval-suites"), &h.owner_key)
        .await;
    let items = listed.ok(200)["items"].as_array().unwrap().clone();
    let by_name = |n: &str| items.iter().find(|s| s["name"] == n).cloned().unwrap();
    let trend = by_name("Trend");
    assert_eq!(trend["latestRun"]["id"], running.as_str(), "{trend}");
    assert_eq!(trend["latestRun"]["status"], "running", "{trend}");
    assert_eq!(trend["totals"]["runs"], 4);
    assert_eq!(trend["passRateTrend"], json!([1.0, 0.0, 0.5]));
    assert_eq!(by_name("Never run")["caseCount"], 0);
}

/// The served suite list is reused between writes, and never outlives one: not a run
/// reported through the API, not a rename, and not a suite written by another connection
/// to the same file (a CLI on the serving machine).
#[tokio::test]
async fn the_suite_list_is_fresh_after_every_write_from_any_connection() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let list = || async {
        let r = h
            .get(&format!("/projects/{p}/eval-suites?limit=50"), &h.owner_key)
            .await;
        r.ok(200).clone()
    };
    let names = |v: &Value| -> Vec<String> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    let first = list().await;
    assert_eq!(list().await, first, "nothing changed, the same page");

    let results = vec![result("case 0", true, "f-1")];
    post(&h, &p, "report", report("Fresh", "f1", results))
        .await
        .ok(200);
    let second = list().await;
    let runs_of = |v: &Value, n: &str| {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .map(|s| s["totals"]["runs"].clone())
    };
    assert_eq!(runs_of(&second, "Fresh"), Some(json!(1)), "{second}");

    let fresh_id = second["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "Fresh")
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    h.call(
        Method::PATCH,
        &format!("/projects/{p}/eval-suites/{fresh_id}"),
        Some(&h.owner_key),
        Some(json!({"name": "Renamed"})),
    )
    .await
    .ok(200);
    assert!(names(&list().await).contains(&"Renamed".to_string()));

    // Another connection to the same file, as a CLI on the serving machine would be.
    let other = Service::open(&h.db_path(), demo_config()).expect("a second service");
    let body = serde_json::from_value(json!({
        "name": "Written elsewhere", "serverIds": ["demo"], "model": "builtin/baseline",
        "tests": [{"title": "hi", "steps": [{"id": "p1", "kind": "prompt", "prompt": "Say hi"}]}],
    }))
    .unwrap();
    other.create_suite(&h.owner, &p, &body).expect("a suite");
    let last = list().await;
    assert!(
        names(&last).contains(&"Written elsewhere".to_string()),
        "{last}"
    );
}
