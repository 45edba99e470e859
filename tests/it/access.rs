//! Access is checked before the body is validated: a caller who may not act in a project
//! learns nothing about what their body got wrong.

use evaldeck::spec::Code;
use evaldeck::spec::run::{RunCreate, RunSource};
use reqwest::Method;
use serde_json::json;

use evaldeck_testkit::served::Harness;

#[tokio::test]
async fn another_organizations_project_is_403_whatever_the_body() {
    let h = Harness::start().await;
    let (other, other_key, _) = h.other_org();
    let runs = format!("/projects/{}/eval-runs", h.project);
    for body in [
        json!({}),
        json!({"suiteId": 7, "iterationOverride": 99}),
        json!({"suiteName": "x"}),
    ] {
        h.call(Method::POST, &runs, Some(&other_key), Some(body))
            .await
            .err(403, "FORBIDDEN");
    }
    let bad_json = h
        .raw(
            Method::POST,
            &runs,
            Some(&other_key),
            Some("application/json"),
            b"{not json".to_vec(),
        )
        .await;
    bad_json.err(403, "FORBIDDEN");
    // Every project-scoped write with a body: an import and a case edit too.
    for path in [
        format!("/projects/{}/eval-suites/Smoke/cases/import", h.project),
        format!("/projects/{}/eval-suites", h.project),
        format!("/projects/{}/servers/demo/tools/call", h.project),
    ] {
        h.call(
            Method::POST,
            &path,
            Some(&other_key),
            Some(json!({"bogus": true})),
        )
        .await
        .err(403, "FORBIDDEN");
    }
    // Over the embedded backend (the service itself) the order is the same.
    let invalid = RunCreate::default();
    let e = h
        .service
        .create_run(&other, &h.project, &invalid, RunSource::Api)
        .await
        .unwrap_err();
    assert_eq!(e.code, Code::Forbidden);
    // The caller's own project still gets the validation error.
    h.call(Method::POST, &runs, Some(&h.owner_key), Some(json!({})))
        .await
        .err(400, "VALIDATION_ERROR");
    // A project that does not exist is 404, before the body too.
    h.call(
        Method::POST,
        "/projects/prj_missing/eval-runs",
        Some(&h.owner_key),
        Some(json!({})),
    )
    .await
    .err(404, "NOT_FOUND");
}
