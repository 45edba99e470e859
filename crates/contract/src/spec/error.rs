//! The error body of `/api/v1` (`{code, message, details?}`) and its stable codes.
//!
//! One type serves the service, the HTTP layer and both backends: the service returns it,
//! `api` renders it with [`Code::status`], and the remote client parses it back, so a caller
//! sees the same error whichever backend it holds.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::fmt;

/// The spec's stable error codes. Unknown codes from a remote server are kept verbatim.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Code {
    Unauthorized,
    OauthRequired,
    Forbidden,
    ValidationError,
    NotFound,
    Conflict,
    FeatureNotSupported,
    RateLimited,
    ServerUnreachable,
    Timeout,
    InternalError,
    Other(String),
}

impl Code {
    pub fn as_str(&self) -> &str {
        match self {
            Code::Unauthorized => "UNAUTHORIZED",
            Code::OauthRequired => "OAUTH_REQUIRED",
            Code::Forbidden => "FORBIDDEN",
            Code::ValidationError => "VALIDATION_ERROR",
            Code::NotFound => "NOT_FOUND",
            Code::Conflict => "CONFLICT",
            Code::FeatureNotSupported => "FEATURE_NOT_SUPPORTED",
            Code::RateLimited => "RATE_LIMITED",
            Code::ServerUnreachable => "SERVER_UNREACHABLE",
            Code::Timeout => "TIMEOUT",
            Code::InternalError => "INTERNAL_ERROR",
            Code::Other(s) => s,
        }
    }

    pub fn parse(s: &str) -> Code {
        match s {
            "UNAUTHORIZED" => Code::Unauthorized,
            "OAUTH_REQUIRED" => Code::OauthRequired,
            "FORBIDDEN" => Code::Forbidden,
            "VALIDATION_ERROR" => Code::ValidationError,
            "NOT_FOUND" => Code::NotFound,
            "CONFLICT" => Code::Conflict,
            "FEATURE_NOT_SUPPORTED" => Code::FeatureNotSupported,
            "RATE_LIMITED" => Code::RateLimited,
            "SERVER_UNREACHABLE" => Code::ServerUnreachable,
            "TIMEOUT" => Code::Timeout,
            "INTERNAL_ERROR" => Code::InternalError,
            other => Code::Other(other.to_string()),
        }
    }

    /// The HTTP status the spec's error table pairs with the code.
    pub fn status(&self) -> u16 {
        match self {
            Code::Unauthorized | Code::OauthRequired => 401,
            Code::Forbidden => 403,
            Code::ValidationError => 400,
            Code::NotFound => 404,
            Code::Conflict => 409,
            Code::FeatureNotSupported => 422,
            Code::RateLimited => 429,
            Code::ServerUnreachable => 502,
            Code::Timeout => 504,
            Code::InternalError | Code::Other(_) => 500,
        }
    }

    /// The code a client guesses when an error status arrives without a `{code}` body.
    pub fn from_status(status: u16) -> Code {
        match status {
            400 | 413 | 415 => Code::ValidationError,
            401 => Code::Unauthorized,
            403 => Code::Forbidden,
            404 => Code::NotFound,
            409 => Code::Conflict,
            422 => Code::FeatureNotSupported,
            429 => Code::RateLimited,
            502 | 503 => Code::ServerUnreachable,
            504 => Code::Timeout,
            _ => Code::InternalError,
        }
    }

    /// Whether repeating the same request later may succeed. Unknown codes are not retried.
    pub fn is_retryable(&self) -> bool {
        matches!(self, Code::RateLimited)
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Code::parse(&String::deserialize(d)?))
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One failed validation rule, addressed by a JSON Pointer into the request body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Violation {
    pub path: String,
    pub rule: String,
    pub message: String,
}

/// The error body. `message` is for people; `code` and `details` are for programs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    pub code: Code,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Value>,
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Error {
            code,
            message: message.into(),
            details: None,
        }
    }

    pub fn with_details(mut self, details: Value) -> Self {
        self.details = Some(details);
        self
    }

    /// Adds `details.reason`, keeping any other details.
    pub fn with_reason(mut self, reason: &str) -> Self {
        let mut d = self.details.take().unwrap_or_else(|| json!({}));
        d["reason"] = json!(reason);
        self.details = Some(d);
        self
    }

    pub fn reason(&self) -> Option<&str> {
        self.details.as_ref()?.get("reason")?.as_str()
    }

    pub fn unauthorized(message: impl Into<String>) -> Self {
        Self::new(Code::Unauthorized, message)
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(Code::Forbidden, message)
    }
    pub fn not_found(what: &str, id: &str) -> Self {
        Self::new(Code::NotFound, format!("{what} `{id}` not found"))
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(Code::Conflict, message)
    }
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(Code::InternalError, message)
    }
    /// A single-rule validation failure.
    pub fn invalid(path: &str, rule: &str, message: impl Into<String>) -> Self {
        Self::validation(vec![Violation {
            path: path.into(),
            rule: rule.into(),
            message: message.into(),
        }])
    }
    /// `VALIDATION_ERROR` with `details.errors`; the message repeats the first violation.
    pub fn validation(errors: Vec<Violation>) -> Self {
        let message = match errors.first() {
            Some(v) if errors.len() == 1 => format!("{}: {}", display_path(&v.path), v.message),
            Some(v) => format!(
                "{}: {} (and {} more)",
                display_path(&v.path),
                v.message,
                errors.len() - 1
            ),
            None => "invalid request".to_string(),
        };
        Self::new(Code::ValidationError, message).with_details(json!({ "errors": errors }))
    }
    pub fn rate_limited(retry_after_secs: u64, reason: Option<&str>) -> Self {
        let mut e = Self::new(
            Code::RateLimited,
            format!("rate limit exceeded; retry after {retry_after_secs} s"),
        )
        .with_details(json!({ "retryAfterSeconds": retry_after_secs }));
        if let Some(r) = reason {
            e = e.with_reason(r);
        }
        e
    }

    /// Seconds a rate-limited caller should wait, when the error says.
    pub fn retry_after(&self) -> Option<u64> {
        self.details.as_ref()?.get("retryAfterSeconds")?.as_u64()
    }

    /// The violations of a `VALIDATION_ERROR`, if any.
    pub fn violations(&self) -> Vec<Violation> {
        self.details
            .as_ref()
            .and_then(|d| d.get("errors"))
            .and_then(|e| serde_json::from_value(e.clone()).ok())
            .unwrap_or_default()
    }
}

fn display_path(p: &str) -> &str {
    if p.is_empty() { "body" } else { p }
}

/// A store failure is an internal error; the detail goes to the log, not to the caller.
/// (Here because `Error` is this crate's: only the core's SQLite store enables `sqlite`.)
#[cfg(feature = "sqlite")]
impl From<rusqlite::Error> for Error {
    fn from(e: rusqlite::Error) -> Self {
        tracing::error!(error = %e, "store error");
        Error::internal("storage failure")
    }
}
