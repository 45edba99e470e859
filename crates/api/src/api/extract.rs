//! Extractors that turn every request fault into the spec's 400 `VALIDATION_ERROR` with a
//! JSON Pointer, instead of the framework's default 413/415/422 plain-text answers.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, RawPathParams, Request};
use axum::http::header::CONTENT_TYPE;
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::State;
use crate::operations::parse_query;
use crate::service::Principal;
use crate::service::store::projects::ProjectRole;
use crate::spec::Error;
use crate::spec::validate::parse_body;

/// The largest request body: the biggest valid import (102400 characters, each up to 12
/// bytes once JSON-escaped as a surrogate pair) with room for the other fields.
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// A JSON body. An empty body reads as `{}` (server primitives accept it); a content type,
/// if given, must be JSON.
pub struct Body<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequest<S> for Body<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &S) -> Result<Self, Error> {
        Ok(Body(parse_body(&json_bytes(req, state).await?)?))
    }
}

/// The raw bytes of a body whose content type, if given, is JSON.
async fn json_bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, Error> {
    if let Some(ct) = req.headers().get(CONTENT_TYPE) {
        let ct = ct.to_str().unwrap_or_default().to_ascii_lowercase();
        let essence = ct.split(';').next().unwrap_or_default().trim();
        if essence != "application/json" && !essence.ends_with("+json") {
            return Err(Error::invalid(
                "",
                "contentType",
                format!("send the body as application/json (got `{essence}`)"),
            ));
        }
    }
    Bytes::from_request(req, state).await.map_err(|e| {
        if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            Error::invalid(
                "",
                "maxBodySize",
                format!("the body is larger than {MAX_BODY_BYTES} bytes"),
            )
        } else {
            Error::invalid("", "body", format!("cannot read the body: {e}"))
        }
    })
}

/// Checks, before a body is read, that the caller has `need` in the project of the path's
/// `{project_id}` (`default`: the organization's default project, as result ingestion
/// reads it): a caller who may not act there gets 403 (404 for no such project), never a
/// 400 that tells what the body got wrong. The service checks access again (one indexed
/// read); this only fixes the order over HTTP, where the body is parsed before the handler
/// runs. Returns the body's bytes, for the operation to read.
pub(crate) async fn bytes_after_access(
    req: Request,
    state: &State,
    need: ProjectRole,
) -> Result<Bytes, Error> {
    let (mut parts, body) = req.into_parts();
    let Caller(who) = Caller::from_request_parts(&mut parts, state).await?;
    let params = RawPathParams::from_request_parts(&mut parts, state)
        .await
        .map_err(|e| Error::invalid("", "path", e.body_text()))?;
    let project = params
        .iter()
        .find(|(name, _)| *name == "project_id")
        .map(|(_, v)| v.to_string())
        .ok_or_else(|| Error::internal("a project body on a route without a project"))?;
    let store = state.service.store();
    let project = if project == crate::spec::ingest::DEFAULT_PROJECT {
        store
            .default_project(&who.org_id)?
            .ok_or_else(|| Error::not_found("default project", &who.org_id))?
    } else {
        project
    };
    store.project_access(&who, &project, need)?;
    json_bytes(Request::from_parts(parts, body), state).await
}

async fn body_after_access<T: DeserializeOwned>(
    req: Request,
    state: &State,
    need: ProjectRole,
) -> Result<T, Error> {
    parse_body(&bytes_after_access(req, state, need).await?)
}

/// A JSON body read only once the caller is known to administer the path's project.
pub struct AdminBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<State> for AdminBody<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &State) -> Result<Self, Error> {
        body_after_access(req, state, ProjectRole::Admin)
            .await
            .map(AdminBody)
    }
}

/// A JSON body read only once the caller is known to have access to the path's project
/// (any project role): access is checked before the body is validated.
pub struct MemberBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<State> for MemberBody<T> {
    type Rejection = Error;

    async fn from_request(req: Request, state: &State) -> Result<Self, Error> {
        body_after_access(req, state, ProjectRole::Member)
            .await
            .map(MemberBody)
    }
}

/// Query parameters, with the offending parameter named on failure.
pub struct Query<T>(pub T);

impl<T: DeserializeOwned, S: Send + Sync> FromRequestParts<S> for Query<T> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Error> {
        parse_query(parts.uri.query().unwrap_or_default()).map(Query)
    }
}

/// Path parameters.
pub struct Path<T>(pub T);

impl<T: DeserializeOwned + Send, S: Send + Sync> FromRequestParts<S> for Path<T> {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Error> {
        axum::extract::Path::<T>::from_request_parts(parts, state)
            .await
            .map(|p| Path(p.0))
            .map_err(|e| Error::invalid("", "path", e.body_text()))
    }
}

/// The caller, put in the request's extensions by the auth layer.
pub struct Caller(pub Principal);

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = Error;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, Error> {
        parts
            .extensions
            .get::<Principal>()
            .cloned()
            .map(Caller)
            .ok_or_else(|| Error::unauthorized("missing API key"))
    }
}
