//! Deprecated aliases (spec "Versioning" rule 5): each older path answers exactly like its
//! current path, through the same auth, rate-limit and idempotency layers, with
//! `Deprecation: true` and a `Link` to the successor; the OpenAPI document marks it.

use evaldeck::api::RateLimit;
use reqwest::Method;
use serde_json::{Value, json};
use std::time::Duration;

use evaldeck_testkit::served::{Harness, Resp};

/// `(method, older path under the server or project, current path, body)`.
fn pairs() -> Vec<(Method, &'static str, &'static str, Option<Value>)> {
    vec![
        (Method::POST, "tools/list", "tools", Some(json!({}))),
        (
            Method::POST,
            "call-tool",
            "tools/call",
            Some(json!({"toolName": "get-sum", "parameters": {"a": 17, "b": 25}})),
        ),
        (Method::POST, "prompts/list", "prompts", Some(json!({}))),
        (
            Method::POST,
            "get-prompt",
            "prompts/get",
            Some(json!({"promptName": "greeting", "arguments": {"name": "Ada"}})),
        ),
        (Method::POST, "resources/list", "resources", Some(json!({}))),
        (
            Method::POST,
            "read-resource",
            "resources/read",
            Some(json!({"uri": "demo://readme"})),
        ),
        (
            Method::POST,
            "resources/templates/list",
            "resources/templates",
            Some(json!({})),
        ),
    ]
}

fn server_path(h: &Harness, op: &str) -> String {
    format!("/projects/{}/servers/demo/{op}", h.project)
}

#[track_caller]
fn assert_deprecated(r: &Resp, successor: &str) {
    assert_eq!(
        r.headers.get("deprecation").and_then(|v| v.to_str().ok()),
        Some("true"),
        "an alias answers with Deprecation: true ({})",
        r.text
    );
    assert_eq!(
        r.headers.get("link").and_then(|v| v.to_str().ok()),
        Some(format!("</api/v1{successor}>; rel=\"successor-version\"").as_str()),
        "the Link names the concrete current path"
    );
}

#[track_caller]
fn assert_current(r: &Resp) {
    assert!(
        r.headers.get("deprecation").is_none() && r.headers.get("link").is_none(),
        "a current path carries no deprecation headers: {:?}",
        r.headers
    );
}

#[tokio::test]
async fn every_alias_answers_like_its_current_path_and_says_it_is_deprecated() {
    let h = Harness::start().await;
    let key = h.owner_key.clone();
    for (method, old, current, body) in pairs() {
        let now = h
            .call(
                method.clone(),
                &server_path(&h, current),
                Some(&key),
                body.clone(),
            )
            .await;
        let then = h
            .call(method.clone(), &server_path(&h, old), Some(&key), body)
            .await;
        assert_eq!(now.status, 200, "{current}: {}", now.text);
        assert_eq!(then.status, now.status, "{old}: {}", then.text);
        assert_eq!(then.body, now.body, "{old} answers what {current} answers");
        assert_current(&now);
        assert_deprecated(&then, &server_path(&h, current));
    }
    // The answers are the real ones, not merely equal.
    let sum = h
        .call(
            Method::POST,
            &server_path(&h, "call-tool"),
            Some(&key),
            Some(json!({"toolName": "get-sum", "parameters": {"a": 1, "b": 2}})),
        )
        .await;
    assert_eq!(sum.ok(200)["content"][0]["text"], "3");

    // The list route of suites, with its query string passed through.
    let suites_now = h
        .get(
            &format!("/projects/{}/eval-suites?limit=1", h.project),
            &key,
        )
        .await;
    let suites_then = h
        .get(
            &format!("/projects/{}/evals/suites?limit=1", h.project),
            &key,
        )
        .await;
    assert_eq!(suites_then.ok(200), suites_now.ok(200));
    assert_eq!(suites_then.body["items"][0]["name"], "Smoke");
    assert_current(&suites_now);
    assert_deprecated(
        &suites_then,
        &format!("/projects/{}/eval-suites", h.project),
    );
}

#[tokio::test]
async fn alias_failures_are_the_current_paths_failures_with_the_headers() {
    let h = Harness::start().await;
    let key = h.owner_key.clone();

    // Validation: the same 400 and violations.
    let bad = json!({"toolName": ""});
    let now = h
        .call(
            Method::POST,
            &server_path(&h, "tools/call"),
            Some(&key),
            Some(bad.clone()),
        )
        .await;
    let then = h
        .call(
            Method::POST,
            &server_path(&h, "call-tool"),
            Some(&key),
            Some(bad),
        )
        .await;
    then.invalid("/toolName", "minLength");
    assert_eq!(then.body, now.body);
    assert_deprecated(&then, &server_path(&h, "tools/call"));

    // Malformed JSON is a 400 with details, never a 500.
    let raw = h
        .raw(
            Method::POST,
            &server_path(&h, "tools/list"),
            Some(&key),
            Some("application/json"),
            b"{not json".to_vec(),
        )
        .await;
    raw.err(400, "VALIDATION_ERROR");
    assert!(!raw.violations().is_empty(), "{}", raw.text);

    // No key: the same 401, and the answer still says the path is deprecated.
    let anon = h
        .call(
            Method::POST,
            &server_path(&h, "tools/list"),
            None,
            Some(json!({})),
        )
        .await;
    anon.err(401, "UNAUTHORIZED");
    assert_deprecated(&anon, &server_path(&h, "tools"));

    // Another organization's key: the same 403 as the current path.
    let (_, other_key, _) = h.other_org();
    let now = h
        .call(
            Method::POST,
            &server_path(&h, "tools"),
            Some(&other_key),
            Some(json!({})),
        )
        .await;
    let then = h
        .call(
            Method::POST,
            &server_path(&h, "tools/list"),
            Some(&other_key),
            Some(json!({})),
        )
        .await;
    then.err(403, "FORBIDDEN");
    assert_eq!(then.body, now.body);

    // An unknown server: the same 404.
    let missing = format!("/projects/{}/servers/nope/call-tool", h.project);
    h.call(
        Method::POST,
        &missing,
        Some(&key),
        Some(json!({"toolName": "x"})),
    )
    .await
    .err(404, "NOT_FOUND");

    // A method the alias does not serve is the usual JSON 404, unmarked.
    let wrong = h.get(&server_path(&h, "tools/list"), &key).await;
    wrong.err(404, "NOT_FOUND");
    assert!(wrong.headers.get("deprecation").is_none());
}

#[tokio::test]
async fn aliases_share_the_keys_rate_limit() {
    let h = Harness::with_rate_limit(Some(RateLimit {
        replenish: Duration::from_secs(3600),
        burst: 2,
    }))
    .await;
    let key = h.owner_key.clone();
    let path = format!("/projects/{}/eval-suites", h.project);
    h.get(&path, &key).await.ok(200);
    h.get(&format!("/projects/{}/evals/suites", h.project), &key)
        .await
        .ok(200);
    let limited = h
        .get(&format!("/projects/{}/evals/suites", h.project), &key)
        .await;
    limited.err(429, "RATE_LIMITED");
    assert!(limited.headers.get("retry-after").is_some());
    assert_deprecated(&limited, &path);
    h.get(&path, &key).await.err(429, "RATE_LIMITED");
}

#[tokio::test]
async fn idempotent_retries_on_an_alias_replay_with_the_headers() {
    let h = Harness::start().await;
    let key = h.owner_key.clone();
    let body = json!({"toolName": "get-sum", "parameters": {"a": 2, "b": 3}});
    let headers = [("Idempotency-Key", "alias-retry-1")];
    let first = h
        .post_with(&server_path(&h, "call-tool"), &key, &headers, body.clone())
        .await;
    assert_eq!(first.ok(200)["content"][0]["text"], "5");
    assert_deprecated(&first, &server_path(&h, "tools/call"));
    let again = h
        .post_with(&server_path(&h, "call-tool"), &key, &headers, body.clone())
        .await;
    assert_eq!(again.ok(200), first.ok(200));
    assert_eq!(
        again
            .headers
            .get("idempotent-replayed")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
    assert_deprecated(&again, &server_path(&h, "tools/call"));
    // A key is bound to the path it was first sent to: the same key on the current path
    // is a different request.
    let current = h
        .post_with(&server_path(&h, "tools/call"), &key, &headers, body)
        .await;
    current.err(409, "CONFLICT");
    assert_eq!(current.reason(), Some("IDEMPOTENCY_KEY_REUSED"));
}

#[tokio::test]
async fn the_openapi_document_marks_each_alias_deprecated() {
    let h = Harness::start().await;
    let doc = h.call(Method::GET, "/openapi.json", None, None).await;
    let doc = doc.ok(200);
    let server = "/projects/{project_id}/servers/{server_id}";
    let mut expected: Vec<(String, String, String)> = pairs()
        .into_iter()
        .map(|(m, old, current, _)| {
            (
                m.as_str().to_lowercase(),
                format!("{server}/{old}"),
                format!("{server}/{current}"),
            )
        })
        .collect();
    expected.push((
        "get".into(),
        "/projects/{project_id}/evals/suites".into(),
        "/projects/{project_id}/eval-suites".into(),
    ));
    let mut ids = std::collections::BTreeSet::new();
    for (method, old, current) in &expected {
        let alias = &doc["paths"][old][method];
        let now = &doc["paths"][current][method];
        assert_eq!(alias["deprecated"], true, "{method} {old} is deprecated");
        let description = alias["description"].as_str().unwrap_or_default();
        assert!(
            description.contains(current.as_str()),
            "{old}'s description names {current}: {description}"
        );
        assert!(now.is_object(), "{current} is documented");
        assert!(
            now.get("deprecated").is_none(),
            "{current} is not deprecated"
        );
        assert_eq!(alias["requestBody"], now["requestBody"]);
        assert_eq!(alias["responses"], now["responses"]);
        assert!(ids.insert(alias["operationId"].as_str().unwrap().to_string()));
    }
    let deprecated = doc["paths"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|ops| ops.as_object().unwrap().values())
        .filter(|op| op["deprecated"] == true)
        .count();
    assert_eq!(
        deprecated,
        expected.len(),
        "only the aliases are deprecated"
    );
}
