//! The one axum handler every listed operation is served by: it reads the path, the query
//! and (after the access check the operation's body rule asks for) the body, then calls the
//! operation's [`serve`](crate::operations::Operation::serve), the function `Embedded`
//! calls too.

use axum::Json;
use axum::extract::{Request, State as AxState};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use super::State;
use super::extract::{Path, bytes_after_access};
use crate::operations::{Ctx, Operation, QueryParams};
use crate::spec::Result;
use crate::spec::run::RunSource;

/// Extracts in the order hand-written handlers did: the caller, the path, the query, then
/// the body, so a request with several faults gets the same first error.
pub(super) async fn serve<O: Operation>(
    AxState(s): AxState<State>,
    super::extract::Caller(who): super::extract::Caller,
    Path(path): Path<O::Path>,
    req: Request,
) -> Result<Response> {
    let query = O::Query::parse(req.uri().query().unwrap_or_default())?;
    let body = match O::BODY.role() {
        None => O::parse(&[])?,
        Some(need) => O::parse(&bytes_after_access(req, &s, need).await?)?,
    };
    let cx = Ctx {
        service: &s.service,
        source: RunSource::Api,
    };
    let answer = O::serve(cx, &who, path, query, body).await?;
    let status = StatusCode::from_u16(O::STATUS).expect("a listed status");
    Ok((status, Json(answer)).into_response())
}
