//! The route table, and the handlers the operation list marks hand-written: every other
//! listed operation is served by the generic handler (`handler.rs`).

use axum::Json;
use axum::extract::{OriginalUri, State as AxState};
use axum::http::{Method, StatusCode};

use super::extract::{MemberBody, Path, Query};
use super::{Routes, State};
use crate::operations;
use crate::spec::ingest::{ArtifactUploaded, IngestBody, UploadUrl, UploadUrlRequest};
use crate::spec::page::PageRequest;
use crate::spec::{Error, Result};

type St = AxState<State>;
type R<T> = Result<Json<T>>;
type RS<T> = Result<(StatusCode, Json<T>)>;
type SuitePath = Path<(String, String)>;

/// Every listed operation (see [`crate::operations`]), the hand-written handlers of those
/// the list marks so, and the refusals.
#[rustfmt::skip]
pub(super) fn table(mut r: Routes) -> Routes {
    crate::operations::visit(&mut r);
    r.handwritten::<operations::EvalSuites, _, _>(eval_suites)
        .handwritten::<operations::ImportCases, _, _>(import_cases)
        .handwritten::<operations::IngestUploadUrl, _, _>(ingest_upload_url)
        .extensions()
        .refused("/api-keys", "/api-keys", "Key management is not available over the API: every method answers 403 FORBIDDEN (use `evaldeck keys` on the service's machine)", StatusCode::FORBIDDEN, keys_forbidden)
        .refused("/api-keys/{*rest}", "/api-keys/{key_id}", "Key management is not available over the API: every method on every path below /api-keys answers 403 FORBIDDEN", StatusCode::FORBIDDEN, keys_forbidden)
}

/// Older paths kept as deprecated aliases (spec "Versioning" rule 5): the MCP method names
/// earlier clients posted to (`tools/list`, `resources/templates/list`), the verb-first
/// names (`call-tool`, `get-prompt`, `read-resource`) and `evals/suites`.
#[rustfmt::skip]
pub(super) fn aliases(r: Routes) -> Routes {
    r.alias(Method::POST, "/projects/{project_id}/servers/{server_id}/tools/list", "/projects/{project_id}/servers/{server_id}/tools")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/call-tool", "/projects/{project_id}/servers/{server_id}/tools/call")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/prompts/list", "/projects/{project_id}/servers/{server_id}/prompts")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/get-prompt", "/projects/{project_id}/servers/{server_id}/prompts/get")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/resources/list", "/projects/{project_id}/servers/{server_id}/resources")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/read-resource", "/projects/{project_id}/servers/{server_id}/resources/read")
        .alias(Method::POST, "/projects/{project_id}/servers/{server_id}/resources/templates/list", "/projects/{project_id}/servers/{server_id}/resources/templates")
        .alias(Method::GET, "/projects/{project_id}/evals/suites", "/projects/{project_id}/eval-suites")
}

pub(super) async fn not_found(method: Method, OriginalUri(uri): OriginalUri) -> Error {
    Error::new(
        crate::spec::Code::NotFound,
        format!("no route for {method} {}", uri.path()),
    )
}

pub(super) async fn method_not_allowed(method: Method, OriginalUri(uri): OriginalUri) -> Error {
    Error::new(
        crate::spec::Code::NotFound,
        format!("{} does not answer {method}", uri.path()),
    )
}

async fn keys_forbidden() -> Error {
    Error::forbidden(
        "API keys cannot manage API keys; use `evaldeck keys` on the service's machine",
    )
}

async fn eval_suites(
    AxState(s): St,
    super::extract::Caller(who): super::extract::Caller,
    Path(p): Path<String>,
    Query(page): Query<PageRequest>,
) -> Result<axum::response::Response> {
    s.suite_pages.get(&s.service, &who, &p, &page)
}

use crate::spec::import::{EvalCaseImportRequest, ImportResponse, JobStatus};

/// Reads the import body with the request's own rule names (`enum` for a bad
/// `duplicatePolicy`) and the idempotency key headers, first match wins.
async fn import_cases(
    AxState(s): St,
    super::extract::Caller(who): super::extract::Caller,
    Path((p, id)): SuitePath,
    headers: axum::http::HeaderMap,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> RS<ImportResponse> {
    let req: EvalCaseImportRequest = crate::spec::case::decode(b)?;
    req.validate()?;
    let mut keys = Vec::new();
    for name in [
        "x-evaldeck-idempotency-key",
        "x-service-idempotency-key",
        "idempotency-key",
    ] {
        if let Some(v) = headers.get(name) {
            keys.push(Some(v.to_str().map_err(|_| {
                Error::invalid(
                    "/idempotencyKey",
                    "type",
                    format!("the `{name}` header is not text"),
                )
            })?));
        }
    }
    let key = crate::service::authoring::idempotency_key(&keys, None);
    let r = s.service.import_cases(&who, &p, &id, &req, key).await?;
    let status = match &r {
        ImportResponse::Job(j) if j.status == JobStatus::Pending => StatusCode::ACCEPTED,
        _ => StatusCode::OK,
    };
    Ok((status, Json(r)))
}

/// The upload URL's origin: `serve --public-url`, else where this request arrived.
async fn ingest_upload_url(
    AxState(s): St,
    super::extract::Caller(who): super::extract::Caller,
    Path(p): Path<String>,
    headers: axum::http::HeaderMap,
    MemberBody(b): MemberBody<serde_json::Value>,
) -> R<UploadUrl> {
    let b = UploadUrlRequest::decode(b)?;
    let origin = s.config.public_url.clone().or_else(|| {
        headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .map(|h| format!("http://{h}"))
    });
    s.service
        .ingest_upload_url(&who, &p, &b, origin.as_deref())
        .map(Json)
}

/// `POST /eval-ingest/uploads/{token}`: outside the API-key layer; the token authorizes.
/// In this order, before a byte of the body is read: the per-address rate limit (429
/// `RATE_LIMITED` with `Retry-After`), then the token (401 for an unknown, used or expired
/// one; the connection is closed on the unread body). Only then is the body, the raw file
/// (any content type; `text/html` marks a widget snapshot), read up to the configured cap.
pub(super) async fn upload_artifact(
    AxState(s): St,
    Path(token): Path<String>,
    req: axum::extract::Request,
) -> R<ArtifactUploaded> {
    if let Some(limiter) = &s.upload_limiter {
        let addr = req
            .extensions()
            .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
            .map(|c| c.0.ip().to_string())
            .unwrap_or_default();
        if let Err(secs) = limiter.check(&addr) {
            return Err(Error::rate_limited(secs, None));
        }
    }
    s.service.upload_token(&token)?;
    let max = s.service.config().ingest.max_artifact_bytes;
    let content_type = req
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let bytes = axum::body::to_bytes(req.into_body(), max.saturating_add(1))
        .await
        .map_err(|_| {
            Error::invalid(
                "",
                "maxBodySize",
                format!("the artifact is larger than {max} bytes"),
            )
        })?;
    let service = s.service.clone();
    tokio::task::spawn_blocking(move || {
        service.ingest_upload(&token, content_type.as_deref(), &bytes)
    })
    .await
    .map_err(|e| Error::internal(format!("the upload task failed: {e}")))?
    .map(Json)
}
