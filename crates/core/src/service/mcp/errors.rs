//! Every failure of an MCP exchange becomes one [`Error`] here, and nowhere else.
//!
//! | what happened | code |
//! |---|---|
//! | command cannot be spawned, connection refused, DNS failure, process died, stream closed | `SERVER_UNREACHABLE` (502) |
//! | connected, but no answer within the connect or request timeout | `TIMEOUT` (504) |
//! | 401 with a `WWW-Authenticate` challenge, or `useOAuth` without a token | `OAUTH_REQUIRED` (401) |
//! | capability not advertised, or the server answers "method not found" | `FEATURE_NOT_SUPPORTED` (422) |
//! | the server rejects the arguments (JSON-RPC -32602) | `VALIDATION_ERROR` (400) |
//! | the server says the resource does not exist (JSON-RPC -32002; -32602 on `resources/read`, as `2026-07-28` answers it) | `NOT_FOUND` (404) |
//! | any other JSON-RPC error from the server | `SERVER_UNREACHABLE` (502, a bad gateway), `details.reason = "MCP_ERROR"` |
//! | a message larger than the pool's `max_result_bytes` (16 MiB) | `SERVER_UNREACHABLE` (502), `details.reason = "RESULT_TOO_LARGE"`, `size`, `limit` |
//!
//! `details` says what happened (`reason`, the JSON-RPC error, the child's exit status and
//! the tail of its stderr); it never carries a token.

use std::time::Duration;

use rmcp::ServiceError;
use rmcp::model::ErrorCode;
use rmcp::service::ClientInitializeError;
use serde_json::{Value, json};

use crate::spec::{Code, Error};

/// `details.reason` when the server refused the token we sent: refresh it and retry.
pub const REASON_TOKEN_REJECTED: &str = "TOKEN_REJECTED";
/// `details.reason` when the server is configured for OAuth and no token is stored.
pub const REASON_NO_TOKENS: &str = "NO_TOKENS";
/// `details.reason` when the server challenged a request that carried no token.
pub const REASON_AUTH_CHALLENGE: &str = "AUTH_CHALLENGE";
/// `details.reason` when the token endpoint refused the refresh token.
pub const REASON_REFRESH_FAILED: &str = "REFRESH_FAILED";
/// `details.reason` when the server process exited or the stream closed mid-exchange.
pub const REASON_SERVER_EXITED: &str = "SERVER_EXITED";
/// `details.reason` when the client and the server share no protocol revision.
pub const REASON_NO_COMMON_REVISION: &str = "NO_COMMON_REVISION";
/// `details.reason` when a server's message is larger than evaldeck accepts.
pub const REASON_RESULT_TOO_LARGE: &str = "RESULT_TOO_LARGE";
/// `details.reason` for a JSON-RPC error the table above has no better code for.
pub const REASON_MCP_ERROR: &str = "MCP_ERROR";

/// True when the server gave no answer at all: it exited, could not be reached, timed out
/// or wanted authorization. A JSON-RPC error is an answer (the server's), so it is not one.
/// An exchange that failed this way says nothing about the tool, only about the connection.
pub fn is_transport_failure(err: &Error) -> bool {
    matches!(
        err.code,
        Code::ServerUnreachable | Code::Timeout | Code::OauthRequired
    ) && err.reason() != Some(REASON_MCP_ERROR)
}

/// True when the error is a 401 for a token we sent, so a refresh may cure it.
pub fn needs_refresh(err: &Error) -> bool {
    err.code == Code::OauthRequired && err.reason() == Some(REASON_TOKEN_REJECTED)
}

/// What the caller knows about the exchange that failed, to put into `details`.
#[derive(Debug, Default, Clone)]
pub(crate) struct Context {
    /// The MCP method, e.g. `tools/call`.
    pub method: &'static str,
    pub sent_token: bool,
    /// The child's exit status, when it has exited.
    pub exit_status: Option<String>,
    pub stderr_tail: Vec<String>,
}

impl Context {
    pub fn new(method: &'static str, sent_token: bool) -> Self {
        Context {
            method,
            sent_token,
            ..Default::default()
        }
    }

    fn decorate(&self, mut err: Error) -> Error {
        let mut d = err.details.take().unwrap_or_else(|| json!({}));
        if !self.method.is_empty() {
            d["method"] = json!(self.method);
        }
        if let Some(s) = &self.exit_status {
            d["exitStatus"] = json!(s);
        }
        if !self.stderr_tail.is_empty() {
            d["stderrTail"] = json!(self.stderr_tail);
        }
        err.details = Some(d);
        err
    }
}

pub(crate) fn unreachable(message: impl Into<String>) -> Error {
    Error::new(Code::ServerUnreachable, message)
}

/// A message of `size` bytes over the `limit`.
pub(crate) fn too_large(method: &str, size: usize, limit: usize) -> Error {
    Error::new(
        Code::ServerUnreachable,
        format!("{method}: the server's answer is {size} bytes, more than the {limit} bytes evaldeck accepts"),
    )
    .with_details(json!({"reason": REASON_RESULT_TOO_LARGE, "size": size, "limit": limit, "method": method}))
}

pub(crate) fn timeout(what: &str, after: Duration) -> Error {
    Error::new(
        Code::Timeout,
        format!("{what}: no answer within {} ms", after.as_millis()),
    )
    .with_details(json!({ "timeoutMs": after.as_millis() as u64 }))
}

pub(crate) fn oauth_required(
    message: impl Into<String>,
    reason: &str,
    challenge: Option<&str>,
) -> Error {
    let mut e = Error::new(Code::OauthRequired, message).with_reason(reason);
    if let Some(c) = challenge {
        e.details.as_mut().expect("reason set")["wwwAuthenticate"] = json!(c);
    }
    e
}

pub(crate) fn not_supported(capability: &str) -> Error {
    Error::new(
        Code::FeatureNotSupported,
        format!("the server does not advertise the `{capability}` capability"),
    )
    .with_details(json!({ "capability": capability }))
}

/// A 401 challenge: `TOKEN_REJECTED` when we sent a token, `AUTH_CHALLENGE` otherwise.
pub(crate) fn challenged(challenge: &str, sent_token: bool) -> Error {
    if sent_token {
        oauth_required(
            "the server rejected the access token; refresh it or import new tokens",
            REASON_TOKEN_REJECTED,
            Some(challenge),
        )
    } else {
        oauth_required(
            "the server requires authorization; import OAuth tokens for it",
            REASON_AUTH_CHALLENGE,
            Some(challenge),
        )
    }
}

/// The `WWW-Authenticate` challenge somewhere in an error's source chain.
fn find_challenge(err: &(dyn std::error::Error + 'static)) -> Option<String> {
    use rmcp::transport::streamable_http_client::{AuthRequiredError, InsufficientScopeError};
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(a) = e.downcast_ref::<AuthRequiredError>() {
            return Some(a.www_authenticate_header.clone());
        }
        if let Some(a) = e.downcast_ref::<InsufficientScopeError>() {
            return Some(a.www_authenticate_header.clone());
        }
        cur = e.source();
    }
    None
}

/// The whole source chain as one line, for `message`, in words about the server: rmcp's
/// wrapper around transport errors is dropped, and so is any Rust type path.
fn chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = err.to_string();
    let mut cur = err.source();
    while let Some(e) = cur {
        let s = e.to_string();
        if !out.contains(&s) {
            out.push_str(": ");
            out.push_str(&s);
        }
        cur = e.source();
    }
    plain(&out)
}

/// `text` without Rust type paths (`rmcp::transport::worker::WorkerTransport<…>`) and
/// without rmcp's `Transport [NAME] error:` wrapper.
pub(crate) fn plain(text: &str) -> String {
    static PATH: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)+(?:<[^>\s]*>*)?")
            .expect("a valid pattern")
    });
    static WRAPPER: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"Transport \[[^\]]*\] error: ").expect("a valid pattern")
    });
    let t = WRAPPER.replace_all(text, "");
    let t = PATH.replace_all(&t, "the connection");
    t.into_owned()
}

fn jsonrpc(err: &rmcp::ErrorData, method: &str) -> Error {
    let mcp = json!({ "code": err.code.0, "message": err.message, "data": err.data });
    let (code, reason) = match err.code {
        ErrorCode::METHOD_NOT_FOUND => (Code::FeatureNotSupported, None),
        // From `2026-07-28` a resource that does not exist is -32602, not -32002.
        ErrorCode::INVALID_PARAMS if method == "resources/read" => (Code::NotFound, None),
        ErrorCode::INVALID_PARAMS => (Code::ValidationError, None),
        ErrorCode::RESOURCE_NOT_FOUND => (Code::NotFound, None),
        _ => (Code::ServerUnreachable, Some(REASON_MCP_ERROR)),
    };
    let mut e = Error::new(
        code,
        format!(
            "{method}: the server answered with an error: {}",
            err.message
        ),
    )
    .with_details(json!({ "mcpError": mcp }));
    if let Some(r) = reason {
        e = e.with_reason(r);
    }
    e
}

/// A failed request on an established session.
pub(crate) fn from_service(err: &ServiceError, ctx: &Context) -> Error {
    let e = match err {
        ServiceError::McpError(data) => jsonrpc(data, ctx.method),
        ServiceError::Timeout { timeout: t } => timeout(ctx.method, *t),
        ServiceError::TransportClosed => unreachable(format!(
            "{}: the server closed the connection{}",
            ctx.method,
            ctx.exit_status
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default()
        ))
        .with_reason(REASON_SERVER_EXITED),
        ServiceError::TransportSend(t) => match find_challenge(t) {
            Some(c) => challenged(&c, ctx.sent_token),
            None => unreachable(format!("{}: {}", ctx.method, chain(t)))
                .with_reason(REASON_SERVER_EXITED),
        },
        ServiceError::Cancelled { reason } => unreachable(format!(
            "{}: cancelled ({})",
            ctx.method,
            reason.as_deref().unwrap_or("no reason given")
        )),
        other => unreachable(format!("{}: {}", ctx.method, plain(&other.to_string()))),
    };
    ctx.decorate(e)
}

/// A failed `initialize` handshake (the connection itself was made).
pub(crate) fn from_init(err: &ClientInitializeError, ctx: &Context) -> Error {
    if let Some(c) = err.auth_challenge() {
        return ctx.decorate(challenged(c, ctx.sent_token));
    }
    let e = match err {
        ClientInitializeError::JsonRpcError(data) => jsonrpc(data, "initialize"),
        ClientInitializeError::NoCompatibleProtocolVersion {
            client_supported,
            server_supported,
        } => {
            let names = |v: &Vec<rmcp::model::ProtocolVersion>| {
                v.iter().map(|p| p.as_str().to_string()).collect::<Vec<_>>()
            };
            unreachable(format!(
                "no protocol revision in common: evaldeck offered {}, the server speaks {}",
                names(client_supported).join(", "),
                names(server_supported).join(", ")
            ))
            .with_details(json!({
                "reason": REASON_NO_COMMON_REVISION,
                "offered": names(client_supported),
                "serverSupported": names(server_supported),
            }))
        }
        ClientInitializeError::TransportError { error, .. } => match find_challenge(error) {
            Some(c) => challenged(&c, ctx.sent_token),
            None => unreachable(format!("initialize: {}", chain(error))),
        },
        ClientInitializeError::ConnectionClosed(_) => unreachable(format!(
            "the server closed the connection during initialize{}",
            ctx.exit_status
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default()
        ))
        .with_reason(REASON_SERVER_EXITED),
        other => unreachable(format!("initialize failed: {}", chain(other))),
    };
    ctx.decorate(e)
}

/// A connection that could not be made at all (spawn, TCP, the SSE stream).
pub(crate) fn from_io(what: &str, err: &std::io::Error) -> Error {
    let hint = match err.kind() {
        std::io::ErrorKind::NotFound => " (not found)",
        std::io::ErrorKind::PermissionDenied => " (permission denied)",
        std::io::ErrorKind::ConnectionRefused => " (connection refused)",
        _ => "",
    };
    unreachable(format!("{what}: {err}{hint}"))
        .with_details(json!({ "ioError": format!("{:?}", err.kind()) }))
}

/// Keeps details JSON-friendly when a caller wants to add its own.
pub(crate) fn add_detail(mut err: Error, key: &str, value: Value) -> Error {
    let mut d = err.details.take().unwrap_or_else(|| json!({}));
    d[key] = value;
    err.details = Some(d);
    err
}

#[cfg(test)]
mod tests {
    #[test]
    fn messages_speak_of_the_server_not_of_rust_types() {
        let raw = "initialize: Transport [rmcp::transport::worker::WorkerTransport<rmcp::transport::streamable_http_client::StreamableHttpClientWorker<reqwest::Client>>] error: HTTP 501";
        assert_eq!(super::plain(raw), "initialize: HTTP 501");
        let raw = "tools/call: unexpected error in rmcp::service::ServiceError<x>";
        let p = super::plain(raw);
        assert!(!p.contains("::"), "{p}");
    }
}
