//! A session of its own for the conformance checks (`evaldeck check`): opened like any
//! other (the same transports, the same client features), but not pooled and with protocol
//! events of its own, so the evidence of a check is exactly what that session saw. Requests
//! go out as raw JSON-RPC — any method, any params — and come back as the JSON result or
//! the JSON-RPC error, never reinterpreted.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{
    CancelledNotificationParam, ClientNotification, ClientRequest, CustomNotification,
    CustomRequest, ProtocolVersion,
};
use rmcp::service::PeerRequestOptions;
use serde_json::Value;

use super::connect::{self, ConnectTimings, Era, Session, Stage};
use super::traffic::Traffic;
use super::{McpPool, Target, handshake_fallback, init_info};
use crate::spec::Error;
use crate::spec::primitives::{InitInfo, ProtocolEvent};

/// How a probe settles the protocol revision.
#[derive(Debug, Clone)]
pub enum ProbeEra {
    /// As the pool would: `server/discover` with `2026-07-28`, else the handshake.
    Auto,
    /// `initialize` offering exactly this revision (any text, known or not).
    Handshake(String),
    /// `server/discover` naming exactly this revision.
    Discover(String),
}

/// What became of a probe's connection attempt.
#[derive(Debug)]
pub struct ProbeFailure {
    /// The server was reached and answered (or failed to answer) the handshake: a fault of
    /// the server, not of the way to it.
    pub at_handshake: bool,
    pub error: Error,
}

/// The answer to one raw request.
#[derive(Debug, Clone, PartialEq)]
pub enum RawAnswer {
    Result(Value),
    Error {
        code: i64,
        message: String,
        data: Option<Value>,
    },
    /// No answer within the timeout given.
    TimedOut(Duration),
    /// The connection failed on the way.
    Failed(String),
}

impl RawAnswer {
    /// The answer as JSON, for evidence: the result, `{error: {code, message, data}}`,
    /// `{timedOutMs}` or `{failed}`.
    pub fn to_json(&self) -> Value {
        match self {
            RawAnswer::Result(v) => v.clone(),
            RawAnswer::Error {
                code,
                message,
                data,
            } => {
                let mut e = serde_json::json!({"code": code, "message": message});
                if let Some(d) = data {
                    e["data"] = d.clone();
                }
                serde_json::json!({"error": e})
            }
            RawAnswer::TimedOut(d) => serde_json::json!({"timedOutMs": d.as_millis() as u64}),
            RawAnswer::Failed(m) => serde_json::json!({"failed": m}),
        }
    }

    /// The JSON-RPC error code, if the answer is an error.
    pub fn error_code(&self) -> Option<i64> {
        match self {
            RawAnswer::Error { code, .. } => Some(*code),
            _ => None,
        }
    }
}

/// One request made through a probe: what, how long, and whether it was answered in time.
#[derive(Debug, Clone)]
pub struct RequestLog {
    pub method: String,
    pub elapsed: Duration,
    pub timed_out: bool,
}

/// An unpooled session for checks; close it with [`Probe::close`].
pub struct Probe {
    session: Session,
    traffic: Arc<Traffic>,
    grace: Duration,
    log: std::sync::Mutex<Vec<RequestLog>>,
    /// How long opening the session took.
    pub connected_in: Duration,
}

fn from_service(e: rmcp::ServiceError, timeout: Duration) -> RawAnswer {
    match e {
        rmcp::ServiceError::McpError(e) => RawAnswer::Error {
            code: i64::from(e.code.0),
            message: e.message.to_string(),
            data: e.data,
        },
        rmcp::ServiceError::Timeout { .. } => RawAnswer::TimedOut(timeout),
        other => RawAnswer::Failed(other.to_string()),
    }
}

/// A revision by name, known to rmcp or not (a made-up one tests negotiation).
fn revision(name: &str) -> ProtocolVersion {
    serde_json::from_value(Value::String(name.to_string()))
        .unwrap_or(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

impl McpPool {
    /// Opens a probe on `target`. Its protocol events are its own (and echoed like any
    /// other's under `--verbose`).
    pub async fn probe(
        &self,
        target: &Target,
        era: ProbeEra,
    ) -> std::result::Result<Probe, ProbeFailure> {
        let traffic = Arc::new(Traffic::new(
            &target.server_id,
            self.inner.opts.echo_traffic,
        ));
        let started = Instant::now();
        let era = match era {
            ProbeEra::Auto => Era::Auto,
            ProbeEra::Handshake(v) => Era::Handshake(revision(&v)),
            ProbeEra::Discover(v) => Era::Only(revision(&v)),
        };
        let mut timings = ConnectTimings::default();
        let attempt = connect::connect(
            target,
            &self.inner.opts,
            &mut timings,
            traffic.clone(),
            None,
            era.clone(),
        )
        .await;
        let attempt = match attempt {
            Err(f) if matches!(era, Era::Auto) => match handshake_fallback(&f.error) {
                Some(v) => {
                    connect::connect(
                        target,
                        &self.inner.opts,
                        &mut timings,
                        traffic.clone(),
                        None,
                        Era::Handshake(v),
                    )
                    .await
                }
                None => Err(f),
            },
            other => other,
        };
        match attempt {
            Ok(session) => Ok(Probe {
                session,
                traffic,
                grace: self.inner.opts.close_grace,
                log: Default::default(),
                connected_in: started.elapsed(),
            }),
            Err(f) => Err(ProbeFailure {
                at_handshake: f.stage == Stage::Initialization,
                error: f.error,
            }),
        }
    }
}

impl Probe {
    /// What the server answered to `initialize` or `server/discover`.
    pub fn init_info(&self) -> InitInfo {
        init_info(&self.session.info)
    }

    /// The negotiated revision.
    pub fn revision(&self) -> String {
        self.session.info.protocol_version.to_string()
    }

    /// Settled on `2026-07-28` or later (no handshake, no `ping`, no sessions).
    pub fn modern(&self) -> bool {
        self.session.modern()
    }

    /// Sends `method` with `params` and waits up to `timeout` for its answer.
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Value>,
        timeout: Duration,
    ) -> RawAnswer {
        let started = Instant::now();
        let req = ClientRequest::CustomRequest(CustomRequest::new(method, params));
        let answer = match self
            .session
            .peer
            .send_request_with_option(req, PeerRequestOptions::with_timeout(timeout))
            .await
        {
            Ok(h) => match h.await_response().await {
                Ok(r) => RawAnswer::Result(serde_json::to_value(r).unwrap_or(Value::Null)),
                Err(e) => from_service(e, timeout),
            },
            Err(e) => from_service(e, timeout),
        };
        self.log
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(RequestLog {
                method: method.to_string(),
                elapsed: started.elapsed(),
                timed_out: matches!(answer, RawAnswer::TimedOut(_)),
            });
        answer
    }

    /// Sends `method`, cancels it at once with `notifications/cancelled`, and waits up to
    /// `wait` for an answer anyway (a server may have answered first). `Some` is that
    /// answer.
    pub async fn request_then_cancel(
        &self,
        method: &str,
        params: Option<Value>,
        wait: Duration,
    ) -> std::result::Result<Option<RawAnswer>, String> {
        let req = ClientRequest::CustomRequest(CustomRequest::new(method, params));
        let h = self
            .session
            .peer
            .send_request_with_option(req, PeerRequestOptions::with_timeout(wait))
            .await
            .map_err(|e| e.to_string())?;
        let note = CancelledNotificationParam::new(
            Some(h.id.clone()),
            Some("cancelled by evaldeck check".into()),
        );
        self.session
            .peer
            .notify_cancelled(note)
            .await
            .map_err(|e| e.to_string())?;
        Ok(match h.await_response().await {
            Ok(r) => Some(RawAnswer::Result(
                serde_json::to_value(r).unwrap_or(Value::Null),
            )),
            Err(rmcp::ServiceError::Timeout { .. }) => None,
            Err(e) => Some(from_service(e, wait)),
        })
    }

    /// Sends a notification of any method.
    pub async fn notify_raw(
        &self,
        method: &str,
        params: Option<Value>,
    ) -> std::result::Result<(), String> {
        self.session
            .peer
            .send_notification(ClientNotification::CustomNotification(
                CustomNotification::new(method, params),
            ))
            .await
            .map_err(|e| e.to_string())
    }

    /// Every protocol event of the probe so far, oldest first.
    pub fn events(&self) -> Vec<ProtocolEvent> {
        self.traffic.after(0, usize::MAX)
    }

    /// Every request made through [`Probe::request_raw`], in order.
    pub fn requests(&self) -> Vec<RequestLog> {
        self.log.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Whether the session is still open.
    pub async fn alive(&self) -> bool {
        !self.session.is_closed().await
    }

    pub async fn close(self) {
        self.session.close(self.grace).await;
    }
}

/// Runs a stdio target's command on its own, writes `input` to its stdin (one JSON message
/// per line), and returns every line it wrote on stdout until `answers` responses came or
/// `wait` passed. The transport's own rule — nothing but JSON-RPC on stdout — is checked
/// on these lines, which no client library shows as they were.
pub async fn stdio_transcript(
    target: &Target,
    input: &[Value],
    answers: usize,
    wait: Duration,
) -> std::result::Result<Vec<String>, String> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt};
    let crate::spec::server::Transport::Stdio {
        command,
        args,
        env,
        cwd,
    } = &target.config.transport
    else {
        return Err("not a stdio server".into());
    };
    let mut cmd = tokio::process::Command::new(connect::program(command, cwd.as_deref()));
    cmd.args(args).env_clear().envs(env);
    for keep in ["PATH", "HOME"] {
        if !env.contains_key(keep)
            && let Ok(v) = std::env::var(keep)
        {
            cmd.env(keep, v);
        }
    }
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot spawn `{command}`: {e}"))?;
    let mut stdin = child.stdin.take().expect("piped");
    let stdout = child.stdout.take().expect("piped");
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let mut out = vec![];
    let deadline = tokio::time::Instant::now() + wait;
    for m in input {
        let mut text = m.to_string();
        text.push('\n');
        if stdin.write_all(text.as_bytes()).await.is_err() {
            break;
        }
    }
    let _ = stdin.flush().await;
    let mut answered = 0;
    while answered < answers {
        match tokio::time::timeout_at(deadline, lines.next_line()).await {
            Ok(Ok(Some(line))) => {
                if serde_json::from_str::<Value>(&line)
                    .is_ok_and(|v| v.get("id").is_some() && v.get("method").is_none())
                {
                    answered += 1;
                }
                out.push(line);
            }
            _ => break,
        }
    }
    drop(stdin);
    // What it writes as it goes.
    while let Ok(Ok(Some(line))) =
        tokio::time::timeout(Duration::from_millis(100), lines.next_line()).await
    {
        out.push(line);
    }
    let _ = child.start_kill();
    let _ = child.wait().await;
    Ok(out)
}
