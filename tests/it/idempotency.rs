//! Idempotent writes: a retried POST with the same key is answered from the record.

use reqwest::Method;
use serde_json::{Value, json};

use evaldeck::service::store::projects::ProjectRole;

use evaldeck_testkit::served::Harness;

async fn create_host(h: &Harness, key: &str, name: &str, header: &str) -> (u16, Value, bool) {
    let res = h
        .http
        .request(
            Method::POST,
            h.url(&format!("/projects/{}/hosts", h.project)),
        )
        .bearer_auth(&h.owner_key)
        .header(header, key)
        .json(&json!({"name": name, "template": "cursor"}))
        .send()
        .await
        .unwrap();
    let replayed = res.headers().get("idempotent-replayed").is_some();
    (res.status().as_u16(), res.json().await.unwrap(), replayed)
}

async fn host_count(h: &Harness) -> usize {
    h.get(
        &format!("/projects/{}/hosts?limit=200", h.project),
        &h.owner_key,
    )
    .await
    .ok(200)["items"]
        .as_array()
        .unwrap()
        .len()
}

#[tokio::test]
async fn a_retry_replays_the_first_answer() {
    let h = Harness::start().await;
    let before = host_count(&h).await;
    let (s1, first, r1) = create_host(&h, "k-1", "ci host", "Idempotency-Key").await;
    let (s2, second, r2) = create_host(&h, "k-1", "ci host", "x-service-idempotency-key").await;
    assert_eq!((s1, s2, r1, r2), (201, 201, false, true));
    assert_eq!(first["id"], second["id"]);
    assert_eq!(host_count(&h).await, before + 1);

    let (status, body, _) =
        create_host(&h, "k-1", "another name", "x-evaldeck-idempotency-key").await;
    assert_eq!(
        (
            status,
            body["code"].as_str(),
            body["details"]["reason"].as_str()
        ),
        (409, Some("CONFLICT"), Some("IDEMPOTENCY_KEY_REUSED"))
    );

    let (status, body, _) = create_host(&h, &"k".repeat(257), "x", "Idempotency-Key").await;
    assert_eq!(
        (status, body["code"].as_str()),
        (400, Some("VALIDATION_ERROR"))
    );
}

#[tokio::test]
async fn concurrent_retries_do_the_work_once() {
    let h = Harness::start().await;
    let before = host_count(&h).await;
    let results = futures::future::join_all(
        (0..8).map(|_| create_host(&h, "burst", "burst host", "Idempotency-Key")),
    )
    .await;
    let ids: std::collections::HashSet<String> = results
        .iter()
        .map(|(s, b, _)| {
            assert_eq!(*s, 201, "{b}");
            b["id"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(ids.len(), 1, "one host for eight retries");
    assert_eq!(host_count(&h).await, before + 1);
}

#[tokio::test]
async fn keys_are_scoped_to_the_organization() {
    let h = Harness::start().await;
    let (_, other_key, other_project) = h.other_org();
    create_host(&h, "shared", "mine", "Idempotency-Key").await;
    let res = h
        .http
        .post(h.url(&format!("/projects/{other_project}/hosts")))
        .bearer_auth(&other_key)
        .header("Idempotency-Key", "shared")
        .json(&json!({"name": "theirs", "template": "claude"}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status().as_u16(), 201);
    assert!(res.headers().get("idempotent-replayed").is_none());
}

/// A keyed request with its body, as `who` (a key), answering status, body, replayed.
async fn keyed(
    h: &Harness,
    method: Method,
    path: &str,
    who: &str,
    key: &str,
    body: Value,
) -> (u16, Value, bool) {
    let res = h
        .http
        .request(method, h.url(path))
        .bearer_auth(who)
        .header("Idempotency-Key", key)
        .json(&body)
        .send()
        .await
        .unwrap();
    let replayed = res.headers().get("idempotent-replayed").is_some();
    (res.status().as_u16(), res.json().await.unwrap(), replayed)
}

/// A plain member who sends an admin's key gets no replay of the admin's answer (and none
/// of its secrets): the key is the admin's alone, and the member's own request is refused
/// by the access check. The admin's replay itself holds no secret value.
#[tokio::test]
async fn a_replay_answers_only_the_principal_that_sent_the_key() {
    let h = Harness::start().await;
    let (_, member) = h.member("member", Some((&h.project, ProjectRole::Member)));
    let created = h
        .call(
            Method::POST,
            &format!("/projects/{}/servers", h.project),
            Some(&h.owner_key),
            Some(json!({"name": "remote", "transport": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "Bearer s3cret-value"}}})),
        )
        .await;
    let server = created.ok(201)["id"].as_str().unwrap().to_string();
    let path = format!("/projects/{}/servers/{server}", h.project);
    let patch = json!({"enabled": false});
    let (s, first, r) = keyed(&h, Method::PATCH, &path, &h.owner_key, "K", patch.clone()).await;
    assert_eq!((s, r), (200, false), "{first}");
    assert_eq!(
        first["config"]["transport"]["headers"]["Authorization"],
        "Bearer s3cret-value"
    );

    let (s, body, r) = keyed(&h, Method::PATCH, &path, &member, "K", patch.clone()).await;
    assert_eq!((s, r), (403, false), "{body}");
    assert_eq!(body["code"], "FORBIDDEN");
    assert!(!body.to_string().contains("s3cret"), "{body}");

    // The admin's own retry is a replay, without the secret on record.
    let (s, again, r) = keyed(&h, Method::PATCH, &path, &h.owner_key, "K", patch).await;
    assert_eq!((s, r), (200, true));
    assert_eq!(again["id"], first["id"]);
    assert_eq!(
        again["config"]["transport"]["headers"]["Authorization"],
        "********"
    );
}

/// Authorization runs before a replay: a project admin demoted to member after a write
/// gets 403 on the retry, not the recorded admin answer.
#[tokio::test]
async fn a_replay_needs_the_access_the_first_request_had() {
    let h = Harness::start().await;
    let (who, key) = h.member("member", Some((&h.project, ProjectRole::Admin)));
    let path = format!("/projects/{}/servers", h.project);
    let body = json!({"name": "s1", "transport": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Api-Key": "abc123"}}});
    let (s, _, _) = keyed(&h, Method::POST, &path, &key, "create-1", body.clone()).await;
    assert_eq!(s, 201);
    h.service
        .store()
        .set_project_member(&h.project, &who.user_id, ProjectRole::Member)
        .unwrap();
    let (s, answer, r) = keyed(&h, Method::POST, &path, &key, "create-1", body).await;
    assert_eq!((s, r), (403, false), "{answer}");
    assert_eq!(answer["details"]["reason"], "IDEMPOTENCY_ACCESS_CHANGED");
    assert!(!answer.to_string().contains("abc123"));
}

/// The body's `idempotencyKey` of an import is the member's own: another member sending
/// the same key and document gets a job of their own, not a replay of the first.
#[tokio::test]
async fn an_import_key_in_the_body_is_scoped_to_the_member() {
    let h = Harness::start().await;
    let (_, member) = h.member("member", Some((&h.project, ProjectRole::Member)));
    let path = format!("/projects/{}/eval-suites/Smoke/cases/import", h.project);
    let body = json!({"content": "# Plan\n1. Echo hello back. Expect the echo tool.\n", "idempotencyKey": "same"});
    let a = h
        .call(Method::POST, &path, Some(&h.owner_key), Some(body.clone()))
        .await;
    let b = h
        .call(Method::POST, &path, Some(&member), Some(body.clone()))
        .await;
    let job = |r: &evaldeck_testkit::served::Resp| {
        let v = r.ok(200);
        v["jobId"]
            .as_str()
            .or(v["created"][0]["source"]["jobId"].as_str())
            .map(str::to_string)
            .unwrap_or_else(|| v["created"][0]["id"].to_string())
    };
    assert_ne!(job(&a), job(&b));
    // The first member's retry is a replay of their own job.
    let a2 = h
        .call(Method::POST, &path, Some(&h.owner_key), Some(body))
        .await;
    assert_eq!(job(&a), job(&a2));
}

/// A client that gives up (a timeout) does not leave its key claimed: the request runs to
/// its end and the retry gets its answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_goes_away_leaves_an_answer_for_the_retry() {
    let h = Harness::start().await;
    let path = h.url(&format!("/projects/{}/servers/demo/tools/call", h.project));
    let body = json!({"toolName": "slow", "parameters": {"durationMs": 800, "progress": false}});
    let impatient = reqwest::Client::builder()
        .timeout(std::time::Duration::from_millis(300))
        .build()
        .unwrap();
    let first = impatient
        .post(&path)
        .bearer_auth(&h.owner_key)
        .header("Idempotency-Key", "slow-1")
        .json(&body)
        .send()
        .await;
    assert!(first.is_err(), "the client timed out");
    tokio::time::sleep(std::time::Duration::from_millis(1_200)).await;
    let retry = reqwest::Client::builder()
        .timeout(std::time::Duration::from_secs(5))
        .build()
        .unwrap()
        .post(&path)
        .bearer_auth(&h.owner_key)
        .header("Idempotency-Key", "slow-1")
        .json(&body)
        .send()
        .await
        .expect("the retry is answered at once, not held for 30 s");
    assert_eq!(retry.status().as_u16(), 200);
    assert!(retry.headers().get("idempotent-replayed").is_some());
    let v: Value = retry.json().await.unwrap();
    assert_eq!(v["isError"], false, "{v}");
}
