//! Idempotent writes for every POST, PATCH and DELETE that carries a key
//! (`Idempotency-Key`, `x-evaldeck-idempotency-key` or the spec's
//! `x-service-idempotency-key`): the first answer is recorded and replayed to retries with
//! the same key and the same request (`Idempotent-Replayed: true`); the same key with a
//! different request is 409 `CONFLICT` (`IDEMPOTENCY_KEY_REUSED`); a retry that arrives
//! while the first is still running waits for it. Keys are scoped to the organization and
//! kept 24 hours. Failures worth retrying (5xx, 429) are not recorded.
//!
//! `cases/import` keeps its own job-level replay (it also honours the body's
//! `idempotencyKey`), so it is left to the service. The agent turn
//! (`POST /projects/{p}/agent`) is not idempotent (the spec says so): a key on it is
//! ignored, never recorded or replayed.

use axum::body::{Body, Bytes, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};

use super::AppState;
use super::extract::MAX_BODY_BYTES;
use crate::service::Principal;
use crate::service::store::idempotency::Begin;
use crate::spec::Error;

/// The headers a key may arrive in, strongest first.
pub const HEADERS: [&str; 3] = [
    "x-evaldeck-idempotency-key",
    "x-service-idempotency-key",
    "idempotency-key",
];

/// How long a retry waits for the first request with its key to finish.
const WAIT_FOR_FIRST: Duration = Duration::from_secs(30);

/// The key a request carries, if any (a header wins over the body's `idempotencyKey`).
pub fn header_key(headers: &HeaderMap) -> Option<String> {
    HEADERS
        .iter()
        .find_map(|h| headers.get(*h))
        .and_then(|v| v.to_str().ok())
        .map(|s| s.trim().to_string())
}

/// `…/projects/{p}/agent`: the one route whose every request runs anew.
fn is_agent_turn(path: &str) -> bool {
    let mut segs = path.trim_end_matches('/').rsplit('/');
    segs.next() == Some("agent") && segs.next().is_some() && segs.next() == Some("projects")
}

fn replay(status: u16, body: Vec<u8>) -> Response {
    let mut res = Response::new(Body::from(body));
    *res.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::OK);
    res.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    res.headers_mut()
        .insert("idempotent-replayed", HeaderValue::from_static("true"));
    res
}

pub async fn layer(
    State(state): State<std::sync::Arc<AppState>>,
    req: Request,
    next: Next,
) -> Response {
    let writes = matches!(*req.method(), Method::POST | Method::PATCH | Method::DELETE);
    let Some(key) = header_key(req.headers()).filter(|_| writes) else {
        return next.run(req).await;
    };
    let path = req.uri().path();
    if path.ends_with("/cases/import") || is_agent_turn(path) {
        return next.run(req).await;
    }
    if key.is_empty() || key.chars().count() > 256 {
        return Error::invalid(
            "/headers/idempotency-key",
            "length",
            "an idempotency key has 1 to 256 characters",
        )
        .into_response();
    }
    let Some(who) = req.extensions().get::<Principal>().cloned() else {
        return next.run(req).await;
    };
    let (parts, body) = req.into_parts();
    let bytes: Bytes = match to_bytes(body, MAX_BODY_BYTES).await {
        Ok(b) => b,
        Err(_) => {
            return Error::invalid(
                "",
                "maxBodySize",
                format!("the body is larger than {MAX_BODY_BYTES} bytes"),
            )
            .into_response();
        }
    };
    let mut h = Sha256::new();
    h.update(parts.method.as_str().as_bytes());
    h.update(b" ");
    h.update(parts.uri.path().as_bytes());
    h.update(b"\n");
    h.update(&bytes);
    let fingerprint: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let store = state.service.store();
    let started = Instant::now();
    loop {
        match store.idempotency_begin(&who.org_id, &key, &fingerprint) {
            Err(e) => return e.into_response(),
            Ok(Begin::Mismatch) => {
                return Error::conflict("this idempotency key was used for a different request")
                    .with_reason("IDEMPOTENCY_KEY_REUSED")
                    .into_response();
            }
            Ok(Begin::Replay { status, body }) => return replay(status, body),
            Ok(Begin::InProgress) if started.elapsed() < WAIT_FOR_FIRST => {
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            Ok(Begin::InProgress) => {
                return Error::conflict(
                    "a request with this idempotency key is still running; retry later",
                )
                .with_reason("IDEMPOTENCY_KEY_IN_PROGRESS")
                .into_response();
            }
            Ok(Begin::New) => break,
        }
    }
    let res = next
        .run(Request::from_parts(parts, Body::from(bytes)))
        .await;
    let status = res.status();
    if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
        let _ = store.idempotency_release(&who.org_id, &key);
        return res;
    }
    let (parts, body) = res.into_parts();
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    if let Err(e) = store.idempotency_finish(&who.org_id, &key, status.as_u16(), &body) {
        tracing::error!(error = %e, "cannot record an idempotent response");
    }
    Response::from_parts(parts, Body::from(body))
}
