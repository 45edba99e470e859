//! Idempotent writes: a retried POST with the same key is answered from the record.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::Harness;

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
