//! Idempotent writes for every POST, PATCH and DELETE that carries a key
//! (`Idempotency-Key`, `x-evaldeck-idempotency-key` or the spec's
//! `x-service-idempotency-key`): the first answer is recorded and replayed to retries with
//! the same key and the same request (`Idempotent-Replayed: true`); the same key with a
//! different request is 409 `CONFLICT` (`IDEMPOTENCY_KEY_REUSED`); a retry that arrives
//! while the first is still running waits for it (up to 30 s, then 409
//! `IDEMPOTENCY_KEY_IN_PROGRESS`). Keys are kept 24 hours. Failures worth retrying (5xx,
//! 429) are not recorded, unless the request had already written something.
//!
//! - **Whose key.** A key belongs to the principal that sent it (organization and member):
//!   the same key from another member is another key.
//! - **Authorization first.** Before a key is looked up, the caller's access to the path's
//!   project is checked (403/404 as without a key); a recorded answer is replayed only if
//!   the caller's role in the project is still at least the role they had when it was
//!   recorded, else 403 `FORBIDDEN` with reason `IDEMPOTENCY_ACCESS_CHANGED` (send the
//!   request again with a new key).
//! - **An outcome, always.** The request runs on its own task, so a client that
//!   disconnects or times out does not cancel it: its answer is recorded and a retry gets
//!   it. A claim whose request died with the process is settled by the next sweep (or by
//!   the retry itself, once the claim's lease has run out; see `service::leases`): if the
//!   request committed nothing, the key is free and the retry runs afresh; if it committed
//!   a write, the retry gets 409 `CONFLICT` with reason `IDEMPOTENT_REQUEST_COMMITTED`
//!   (the change happened; read the resource).
//! - **No secrets on record.** Header and environment values of servers in a recorded
//!   answer are stored as `********` ([`crate::spec::server::redact_json`]): a replay shows
//!   them redacted.
//!
//! `cases/import` keeps its own job-level replay (it also honours the body's
//! `idempotencyKey`), so it is left to the service, which checks access first and scopes
//! keys to the principal the same way. The agent turn (`POST /projects/{p}/agent`) is not
//! idempotent (the spec says so): a key on it is ignored, never recorded or replayed.

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
use crate::service::store::idempotency::{Begin, ClaimKey, with_claim};
use crate::service::store::projects::ProjectRole;
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
    let service = state.service.clone();
    let store = service.store();
    // Authorization runs before any key is looked up.
    let project = match project_of(store, &who, path) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
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
    let claim = ClaimKey {
        org_id: who.org_id.clone(),
        user_id: who.user_id.clone(),
        key,
    };
    let started = Instant::now();
    loop {
        let lease = service.config().leases.until();
        match store.idempotency_begin(&claim, &fingerprint, service.worker_id(), lease) {
            Err(e) => return e.into_response(),
            Ok(Begin::Mismatch) => {
                return Error::conflict("this idempotency key was used for a different request")
                    .with_reason("IDEMPOTENCY_KEY_REUSED")
                    .into_response();
            }
            Ok(Begin::Replay {
                status, body, role, ..
            }) => {
                let now = project.as_ref().map(|(_, r)| *r);
                let then = role.as_deref().and_then(ProjectRole::parse);
                if let (Some(now), Some(then)) = (now, then)
                    && now < then
                {
                    return Error::forbidden(
                        "your access to the project changed since this idempotency key was first used: send the request again with a new key",
                    )
                    .with_reason("IDEMPOTENCY_ACCESS_CHANGED")
                    .into_response();
                }
                return replay(status, body);
            }
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
    // The request runs on its own task: a client that goes away does not cancel it, and
    // its answer is recorded for the retry.
    service.claims().hold(&claim);
    let req = Request::from_parts(parts, Body::from(bytes));
    let task = tokio::spawn(async move {
        let res = with_claim(claim.clone(), next.run(req)).await;
        let res = record(&service, &claim, project.as_ref(), res).await;
        service.claims().drop_claim(&claim);
        res
    });
    match task.await {
        Ok(res) => res,
        Err(e) => Error::internal(format!("the request failed: {e}")).into_response(),
    }
}

/// The project of a `/projects/{p}/…` path (the organization's default one for
/// `default`) and the caller's role in it; a caller without access gets the same 403/404
/// the handler would give.
fn project_of(
    store: &dyn crate::service::store::Storage,
    who: &Principal,
    path: &str,
) -> Result<Option<(String, ProjectRole)>, Error> {
    let mut segs = path.split('/').skip_while(|s| *s != "projects");
    let Some(p) = segs.nth(1).filter(|p| !p.is_empty()) else {
        return Ok(None);
    };
    let p = if p == "default" {
        match store.default_project(&who.org_id)? {
            Some(id) => id,
            None => return Ok(None),
        }
    } else {
        p.to_string()
    };
    let role = store.project_access(who, &p, ProjectRole::Member)?;
    Ok(Some((p, role)))
}

/// Records the answer (redacted), or releases the key for an answer worth retrying.
async fn record(
    service: &crate::service::Service,
    claim: &ClaimKey,
    project: Option<&(String, ProjectRole)>,
    res: Response,
) -> Response {
    let store = service.store();
    let status = res.status();
    if (status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS)
        && store.idempotency_release(claim).unwrap_or(false)
    {
        return res;
    }
    let (parts, body) = res.into_parts();
    let body = to_bytes(body, usize::MAX).await.unwrap_or_default();
    let kept = match serde_json::from_slice::<serde_json::Value>(&body) {
        Ok(mut v) => {
            crate::spec::server::redact_json(&mut v);
            serde_json::to_vec(&v).unwrap_or_default()
        }
        Err(_) => body.to_vec(),
    };
    if let Err(e) = store.idempotency_finish(
        claim,
        status.as_u16(),
        &kept,
        project.map(|(p, _)| p.as_str()),
        project.map(|(_, r)| r.as_str()),
    ) {
        tracing::error!(error = %e, "cannot record an idempotent response");
    }
    Response::from_parts(parts, Body::from(body))
}
