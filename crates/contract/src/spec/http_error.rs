//! Rendering the service's error as the spec's body, with the status its code stands for.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::spec::{Code, Error};

impl IntoResponse for Error {
    fn into_response(self) -> Response {
        let status =
            StatusCode::from_u16(self.code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let retry_after = self.retry_after();
        let body = if self.code == Code::InternalError {
            // Log the whole story; tell the caller only what is safe.
            tracing::error!(message = %self.message, details = ?self.details, "internal error");
            Error::internal(self.message)
        } else {
            self
        };
        let mut res = (status, axum::Json(body)).into_response();
        if let Some(secs) = retry_after
            && let Ok(v) = HeaderValue::from_str(&secs.to_string())
        {
            res.headers_mut().insert(header::RETRY_AFTER, v);
        }
        res
    }
}
