//! Widget snapshots from the public eval SDK, over real HTTP: the SDK mints an upload URL,
//! POSTs the widget's HTML to it (`Content-Type: text/html`, no Authorization header) and
//! reads `{storageId}`; its results then name the snapshot in `widgetSnapshots`, which the
//! iteration and its trace show and both backends read back.

use evaldeck::spec::Code;
use evaldeck::spec::case::sha256_hex;
use evaldeck::spec::ingest::{IngestReport, IngestResult, RunFields};
use evaldeck::spec::widget_snapshot::WidgetSnapshotRef;
use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use evaldeck_testkit::served::{Harness, Resp};

const PYTEST: &str = include_str!("../../assets/artifacts/pytest-junit.xml");

const WIDGET: &str = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Chart</title></head>\n<body><div id=\"chart\">3 open issues</div><script>window.parent.postMessage({jsonrpc: \"2.0\", method: \"ui/notifications/initialized\"}, \"*\")</script></body></html>\n";

async fn post(h: &Harness, project: &str, op: &str, body: Value) -> Resp {
    h.call(
        Method::POST,
        &format!("/projects/{project}/eval-ingest/{op}"),
        Some(&h.owner_key),
        Some(body),
    )
    .await
}

async fn mint(h: &Harness, project: &str, body: Value) -> String {
    let r = post(h, project, "artifacts/upload-url", body).await;
    r.ok(200)["uploadUrl"].as_str().unwrap().to_string()
}

/// What the SDK's uploader does: a bare POST of the HTML, no Authorization header.
async fn upload(h: &Harness, url: &str, content_type: &str, body: impl Into<Vec<u8>>) -> Resp {
    let res = h
        .http
        .post(url)
        .header(CONTENT_TYPE, content_type)
        .body(body.into())
        .send()
        .await
        .expect("the server answers");
    Resp::from(res).await
}

async fn run_count(h: &Harness, p: &str) -> usize {
    let r = h
        .get(&format!("/projects/{p}/eval-runs?limit=100"), &h.owner_key)
        .await;
    r.ok(200)["items"].as_array().unwrap().len()
}

#[tokio::test]
async fn the_sdks_widget_upload_is_stored_and_shown_on_the_iteration() {
    let h = Harness::start().await;
    let p = h.project.clone();
    let runs_before = run_count(&h, &p).await;

    // Exactly the SDK's request: mint with `{}`, POST the HTML as text/html.
    let url = mint(&h, &p, json!({})).await;
    let up = upload(&h, &url, "text/html; charset=utf-8", WIDGET).await;
    let up = up.ok(200).clone();
    assert_eq!(up["ok"], true);
    assert_eq!(up["kind"], "widget");
    let sdk_id = up["storageId"].as_str().unwrap().to_string();
    assert!(sdk_id.starts_with("art_"), "{up}");
    assert_eq!(up["bytes"], WIDGET.len());
    assert_eq!(up["sha256"], sha256_hex(WIDGET));
    assert_eq!(up["contentType"], "text/html; charset=utf-8");
    assert!(up.get("runId").is_none(), "a widget makes no run: {up}");

    // Minted as a widget: a fragment is kept too, whatever it starts with.
    let url = mint(&h, &p, json!({"kind": "widget"})).await;
    let fragment = "<div class=\"card\">fragment</div>";
    let up = upload(&h, &url, "text/html", fragment).await;
    let fragment_id = up.ok(200)["storageId"].as_str().unwrap().to_string();

    // No kind and no HTML content type: the document is sniffed; JUnit still reads as JUnit.
    let url = mint(&h, &p, json!({})).await;
    let sniffed = upload(
        &h,
        &url,
        "application/octet-stream",
        "\u{feff} <!doctype html><p>x",
    )
    .await;
    assert_eq!(sniffed.ok(200)["kind"], "widget");
    let url = mint(&h, &p, json!({"externalRunId": "junit-beside-widgets"})).await;
    let junit = upload(&h, &url, "application/xml", PYTEST).await;
    let junit = junit.ok(200).clone();
    assert_eq!(junit["kind"], "junit");
    let junit_id = junit["storageId"].as_str().unwrap().to_string();
    assert_eq!(
        run_count(&h, &p).await,
        runs_before + 1,
        "only the JUnit file made a run"
    );

    // The SDK's report names the snapshot as `widgetHtmlBlobId` in its own object shape.
    let result = json!({
        "caseTitle": "shows the chart", "passed": true, "externalIterationId": "w-1",
        "trace": {"messages": [{"role": "user", "content": "chart please"}]},
        "widgetSnapshots": [
            {"toolCallId": "call_1", "toolName": "show_chart", "protocol": "mcp-apps",
             "serverId": "charts", "resourceUri": "ui://charts/chart.html", "toolMetadata": {},
             "widgetCsp": null, "widgetPermissions": null, "widgetPermissive": false,
             "prefersBorder": true, "widgetHtmlBlobId": sdk_id},
            fragment_id,
            "art_unknown",
            junit_id,
        ]
    });
    let r = post(
        &h,
        &p,
        "report",
        json!({"suiteName": "SDK widgets", "externalRunId": "sdk-w", "results": [result]}),
    )
    .await;
    let run_id = r.ok(200)["runId"].as_str().unwrap().to_string();
    let its = h
        .get(
            &format!("/projects/{p}/eval-runs/{run_id}/iterations"),
            &h.owner_key,
        )
        .await;
    let it = its.ok(200)["items"][0].clone();
    let shots = it["widgetSnapshots"]
        .as_array()
        .expect("shown on the iteration");
    assert_eq!(shots.len(), 4, "{it}");
    assert_eq!(
        shots[0],
        json!({
            "storageId": sdk_id, "found": true, "kind": "widget",
            "contentType": "text/html; charset=utf-8", "bytes": WIDGET.len(),
            "sha256": sha256_hex(WIDGET), "toolName": "show_chart", "toolCallId": "call_1",
            "resourceUri": "ui://charts/chart.html", "serverId": "charts", "protocol": "mcp-apps",
        })
    );
    assert_eq!(shots[1]["found"], true);
    assert_eq!(shots[1]["bytes"], fragment.len());
    // An unknown id, and an artifact that is not a widget, are kept but not found.
    assert_eq!(
        shots[2],
        json!({"storageId": "art_unknown", "found": false})
    );
    assert_eq!(shots[3], json!({"storageId": junit_id, "found": false}));
    let trace = h
        .get(
            &format!(
                "/projects/{p}/eval-runs/{run_id}/iterations/{}/trace",
                it["id"].as_str().unwrap()
            ),
            &h.owner_key,
        )
        .await;
    assert_eq!(trace.ok(200)["widgetSnapshots"], it["widgetSnapshots"]);

    // The HTML reads back, over HTTP and through both backends.
    let back = h
        .get(
            &format!("/projects/{p}/eval-ingest/artifacts/{sdk_id}"),
            &h.owner_key,
        )
        .await;
    let back = back.ok(200);
    assert_eq!(back["content"], WIDGET);
    assert_eq!(back["kind"], "widget");
    assert_eq!(back["contentType"], "text/html; charset=utf-8");
    assert!(back.get("runId").is_none());
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let a = b.ingest_artifact(&p, &sdk_id).await.unwrap();
        assert_eq!(a.content, WIDGET, "{name}");
        assert_eq!(a.sha256, sha256_hex(WIDGET));
        let j = b.ingest_artifact(&p, &junit_id).await.unwrap();
        assert_eq!(
            (j.content_type.as_str(), j.run_id.as_deref()),
            ("application/xml", junit["runId"].as_str()),
            "{name}"
        );
        let e = b.ingest_artifact(&p, "art_unknown").await.unwrap_err();
        assert_eq!(e.code, Code::NotFound, "{name}");
        // Another project does not see this one's uploads, nor resolve them.
        let other = h.new_project(&format!("widgets elsewhere {name}"));
        let e = b.ingest_artifact(&other, &sdk_id).await.unwrap_err();
        assert_eq!(e.code, Code::NotFound, "{name}");

        // A typed report through the backend names the snapshot by id.
        let mut res = IngestResult::new("typed", true, "typed-1");
        res.widget_snapshots = Some(vec![WidgetSnapshotRef {
            tool_name: Some("show_chart".into()),
            ..WidgetSnapshotRef::id(sdk_id.clone())
        }]);
        for (project, found) in [(&p, true), (&other, false)] {
            let body = IngestReport {
                run: RunFields {
                    suite_name: "typed widgets".into(),
                    external_run_id: format!("typed-{name}"),
                    ..RunFields::default()
                },
                results: vec![res.clone()],
            };
            let run = b.ingest_report(project, &body).await.unwrap();
            let its = b
                .iterations(project, &run.run_id, &Default::default())
                .await
                .unwrap();
            let shots = its.items[0].widget_snapshots.clone().unwrap();
            assert_eq!(shots[0].found, found, "{name}");
            assert_eq!(shots[0].tool_name.as_deref(), Some("show_chart"));
        }
    }
}

#[tokio::test]
async fn widget_uploads_and_references_refuse_what_they_cannot_keep() {
    let h = Harness::start().await;
    let p = h.project.clone();

    // 4 MiB + 1: refused like any oversize artifact, and the URL is not used up.
    let big = format!(
        "<!doctype html><p>{}</p>",
        "x".repeat(4 * 1024 * 1024 + 1 - "<!doctype html><p></p>".len())
    );
    assert_eq!(big.len(), 4 * 1024 * 1024 + 1);
    for req in [json!({"kind": "widget"}), json!({})] {
        let url = mint(&h, &p, req.clone()).await;
        let r = upload(&h, &url, "text/html", big.clone()).await;
        r.invalid("", "maxBodySize");
        assert!(
            r.body["message"].as_str().unwrap().contains("4194304"),
            "{req}: {}",
            r.text
        );
        let ok = upload(&h, &url, "text/html", WIDGET).await;
        assert_eq!(ok.ok(200)["kind"], "widget", "{req}");
        // Used once: the same URL is refused.
        let again = upload(&h, &url, "text/html", WIDGET).await;
        again.err(401, "UNAUTHORIZED");
        assert_eq!(again.reason(), Some("UPLOAD_URL_USED"));
    }
    // An empty snapshot is not a widget.
    let url = mint(&h, &p, json!({"kind": "widget"})).await;
    upload(&h, &url, "text/html", "  \n")
        .await
        .invalid("", "artifact");

    // Malformed entries: 400 naming the path, for report and runs/iterations alike.
    let with = |snapshots: Value| {
        json!({"suiteName": "bad widgets", "externalRunId": "bad-w", "results": [
            {"caseTitle": "a", "passed": true, "externalIterationId": "a-1",
             "widgetSnapshots": snapshots}
        ]})
    };
    post(&h, &p, "report", with(json!([42])))
        .await
        .invalid("/results/0/widgetSnapshots/0", "type");
    post(
        &h,
        &p,
        "report",
        with(json!(["art_1", {"toolName": "chart"}])),
    )
    .await
    .invalid("/results/0/widgetSnapshots/1/storageId", "required");
    post(
        &h,
        &p,
        "report",
        with(json!([{"storageId": "art_1", "toolName": 7}])),
    )
    .await
    .invalid("/results/0/widgetSnapshots/0", "type");
    post(&h, &p, "report", with(json!([""])))
        .await
        .invalid("/results/0/widgetSnapshots/0/storageId", "minLength");
    let many: Vec<String> = (0..51).map(|i| format!("art_{i}")).collect();
    post(&h, &p, "report", with(json!(many)))
        .await
        .invalid("/results/0/widgetSnapshots", "maxItems");
    let started = post(
        &h,
        &p,
        "runs/start",
        json!({"suiteName": "chunked widgets", "externalRunId": "chunk-w"}),
    )
    .await;
    let run_id = started.ok(200)["runId"].as_str().unwrap().to_string();
    let batch = |snapshots: Value| {
        json!({"runId": run_id, "results": [
            {"caseTitle": "a", "passed": true, "externalIterationId": "c-1",
             "widgetSnapshots": snapshots}
        ]})
    };
    post(&h, &p, "runs/iterations", batch(json!({"storageId": "x"})))
        .await
        .invalid("/results/0/widgetSnapshots", "type");

    // An unknown id is no error: the result is stored and the snapshot shown as not found.
    // Inline HTML (the SDK's fallback when its upload failed) is kept, once per content;
    // empty inline HTML cannot be.
    let inline = "<p>inline</p>";
    let ok = post(
        &h,
        &p,
        "runs/iterations",
        batch(json!([
            "art_nowhere",
            {"toolName": "chart", "widgetHtml": inline},
            {"toolName": "empty", "widgetHtml": ""}
        ])),
    )
    .await;
    assert_eq!(ok.ok(200)["inserted"], 1);
    let its = h
        .get(
            &format!("/projects/{p}/eval-runs/{run_id}/iterations"),
            &h.owner_key,
        )
        .await;
    let shots = its.ok(200)["items"][0]["widgetSnapshots"].clone();
    assert_eq!(
        shots[0],
        json!({"storageId": "art_nowhere", "found": false})
    );
    assert_eq!(shots[2], json!({"found": false, "toolName": "empty"}));
    let kept = shots[1]["storageId"].as_str().expect("kept").to_string();
    assert_eq!(
        (
            &shots[1]["found"],
            &shots[1]["bytes"],
            &shots[1]["toolName"]
        ),
        (&json!(true), &json!(inline.len()), &json!("chart")),
        "{shots}"
    );
    let back = h
        .get(
            &format!("/projects/{p}/eval-ingest/artifacts/{kept}"),
            &h.owner_key,
        )
        .await;
    assert_eq!(back.ok(200)["content"], inline);
    let replay = json!({"runId": run_id, "results": [
        {"caseTitle": "b", "passed": true, "externalIterationId": "c-2",
         "widgetSnapshots": [{"widgetHtml": inline}]}
    ]});
    post(&h, &p, "runs/iterations", replay).await.ok(200);
    let its = h
        .get(
            &format!("/projects/{p}/eval-runs/{run_id}/iterations"),
            &h.owner_key,
        )
        .await;
    assert_eq!(
        its.ok(200)["items"][1]["widgetSnapshots"][0]["storageId"],
        kept.as_str(),
        "the same HTML is kept once"
    );

    // The OpenAPI document describes both upload answers and the read-back route.
    let doc = h.call(Method::GET, "/openapi.json", None, None).await;
    let doc = doc.ok(200);
    let answer = &doc["paths"]["/eval-ingest/uploads/{token}"]["post"]["responses"]["200"]["content"]
        ["application/json"]["schema"];
    assert_eq!(
        answer["$ref"], "#/components/schemas/ArtifactUploaded",
        "{answer}"
    );
    let schemas = &doc["components"]["schemas"];
    assert_eq!(
        schemas["ArtifactUploaded"]["anyOf"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{}",
        schemas["ArtifactUploaded"]
    );
    for field in ["ok", "storageId", "kind"] {
        assert!(
            schemas["WidgetStored"]["required"]
                .as_array()
                .unwrap()
                .contains(&json!(field)),
            "{field}"
        );
    }
    assert!(
        schemas["ArtifactKind"]["enum"]
            .as_array()
            .unwrap()
            .contains(&json!("widget"))
    );
    let read_back =
        &doc["paths"]["/projects/{project_id}/eval-ingest/artifacts/{storage_id}"]["get"];
    assert_eq!(read_back["x-evaldeck-extension"], true, "{read_back}");
}
