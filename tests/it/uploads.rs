//! Upload URLs carry no API key: the token is checked before the body is read, and the
//! route is rate limited per client address.

use std::time::Duration;

use evaldeck::api::RateLimit;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use evaldeck_testkit::served::Harness;

/// Sends the head of a 4 MiB upload to `path` and only 64 KiB of its body, then reads:
/// the answer must come while most of the body is still unsent.
async fn answer_before_the_body(h: &Harness, path: &str) -> String {
    let mut tcp = TcpStream::connect(h.addr).await.unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/xml\r\nContent-Length: {}\r\n\r\n",
        h.addr,
        4 * 1024 * 1024
    );
    tcp.write_all(head.as_bytes()).await.unwrap();
    tcp.write_all(&vec![b'x'; 64 * 1024]).await.unwrap();
    let mut buf = vec![0u8; 4096];
    let n = tokio::time::timeout(Duration::from_secs(3), tcp.read(&mut buf))
        .await
        .expect("an answer before the body was sent")
        .unwrap();
    String::from_utf8_lossy(&buf[..n]).to_string()
}

#[tokio::test]
async fn an_unknown_token_is_refused_before_the_body_is_read() {
    let h = Harness::start().await;
    let answer = answer_before_the_body(
        &h,
        "/api/v1/eval-ingest/uploads/upl_0000000000000000000000000000000000000000000000000000000000000000",
    )
    .await;
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(answer.contains("UPLOAD_URL_INVALID"), "{answer}");
}

#[tokio::test]
async fn upload_urls_are_rate_limited_per_client_address() {
    let h = Harness::with_api(evaldeck::api::ApiConfig {
        rate_limit: None,
        upload_rate_limit: Some(RateLimit::per_minute(60, 3)),
        ..Default::default()
    })
    .await;
    let url = h.url("/eval-ingest/uploads/upl_unknown");
    let mut statuses = Vec::new();
    for _ in 0..5 {
        let r = h.http.post(&url).body("<x/>").send().await.unwrap();
        statuses.push(r.status().as_u16());
        if r.status().as_u16() == 429 {
            let after: u64 = r.headers()["retry-after"]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(after >= 1);
            let v: serde_json::Value = r.json().await.unwrap();
            assert_eq!(v["code"], "RATE_LIMITED");
        }
    }
    assert_eq!(statuses, [401, 401, 401, 429, 429]);
}
