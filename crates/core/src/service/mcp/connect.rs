//! Opening one MCP session: probe, connect (spawn, or open the HTTP/SSE channel), initialize.
//! Each stage fails with its own [`Stage`] so the doctor can say where it broke.

use std::collections::{HashMap, VecDeque};
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::{ClientJsonRpcMessage, ProtocolVersion, ServerPeerInfo};
use rmcp::service::{ClientInitializeError, RunningService};
use rmcp::transport::IntoTransport;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::BoxedSseResponse;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
    StreamableHttpPostResponse,
};
use rmcp::{ClientLifecycleMode, ClientServiceExt, Peer, RoleClient};
use tokio::io::AsyncBufReadExt;

use super::client::{ClientSide, EvalClient, Sampler};
use super::errors::{self, Context, REASON_NO_TOKENS};
use super::process;
use super::sse::{SseClientTransport, SseError, header_map};
use super::traffic::{Tap, Traffic};
use super::{PoolOptions, Target};
use crate::spec::Error;
use crate::spec::server::Transport;

/// Two quick reconnects of a dropped SSE response stream, then give up.
#[derive(Debug)]
struct QuickRetry;

impl rmcp::transport::common::client_side_sse::SseRetryPolicy for QuickRetry {
    fn retry(&self, current_times: usize) -> Option<Duration> {
        (current_times < 2).then(|| Duration::from_millis(100 * (current_times as u64 + 1)))
    }
}

/// reqwest's streamable HTTP client with the server's SSE `retry:` hint dropped from every
/// stream. rmcp waits at least that long between reconnects of a dropped response stream
/// whatever the retry policy says (3 s from rmcp servers), so a server that died mid-call
/// would surface as a request timeout, not as unreachable; here [`QuickRetry`] alone decides.
#[derive(Clone)]
struct OwnRetryClient(reqwest::Client);

fn without_retry_hint(stream: BoxedSseResponse) -> BoxedSseResponse {
    stream
        .map(|event| {
            event.map(|mut e| {
                e.retry = None;
                e
            })
        })
        .boxed()
}

fn post_without_retry_hint(r: StreamableHttpPostResponse) -> StreamableHttpPostResponse {
    match r {
        StreamableHttpPostResponse::Sse(stream, session) => {
            StreamableHttpPostResponse::Sse(without_retry_hint(stream), session)
        }
        other => other,
    }
}

type HttpResult<T> = Result<T, StreamableHttpError<reqwest::Error>>;

impl StreamableHttpClient for OwnRetryClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.0
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await
            .map(post_without_retry_hint)
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> HttpResult<StreamableHttpPostResponse> {
        self.0
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
            .map(post_without_retry_hint)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<()> {
        self.0
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> HttpResult<BoxedSseResponse> {
        self.0
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await
            .map(without_retry_hint)
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> HttpResult<BoxedSseResponse> {
        self.0
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await
            .map(without_retry_hint)
    }
}

/// Where a connection attempt failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stage {
    Probe,
    Connection,
    Initialization,
}

#[derive(Debug)]
pub(crate) struct ConnectFailure {
    pub stage: Stage,
    pub error: Error,
}

fn fail(stage: Stage, error: Error) -> ConnectFailure {
    ConnectFailure { stage, error }
}

/// Stage timings of one connection.
#[derive(Debug, Default, Clone)]
pub(crate) struct ConnectTimings {
    pub probe: Option<Duration>,
    pub connect: Option<Duration>,
    pub initialize: Option<Duration>,
    /// What the probe found: the resolved command, or `host:port`.
    pub probe_target: Option<String>,
    /// How the connection stage went, for the doctor's detail.
    pub connection_detail: Option<String>,
}

/// The last lines a child wrote to stderr, kept for error details.
#[derive(Default)]
pub(crate) struct StderrTail {
    lines: Mutex<VecDeque<String>>,
    /// Set when the pipe reached end of file: every line is in.
    done: AtomicBool,
    drained: tokio::sync::Notify,
}

const TAIL_LINES: usize = 20;
const TAIL_LINE_CHARS: usize = 400;

impl StderrTail {
    fn push(&self, line: &str) {
        let mut l = self.lines.lock().unwrap_or_else(|p| p.into_inner());
        if l.len() == TAIL_LINES {
            l.pop_front();
        }
        l.push_back(line.chars().take(TAIL_LINE_CHARS).collect());
    }
    fn finish(&self) {
        self.done.store(true, Ordering::Release);
        self.drained.notify_waiters();
    }

    /// Waits (at most `max`) until the drain task has read the pipe to its end, so a child
    /// that wrote its complaint and exited at once has it in the tail. Bounded because a
    /// grandchild may hold the pipe open after the child is gone.
    pub async fn settle(&self, max: Duration) {
        let wait = async {
            loop {
                let notified = self.drained.notified();
                if self.done.load(Ordering::Acquire) {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(max, wait).await;
    }

    pub fn snapshot(&self) -> Vec<String> {
        self.lines
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .cloned()
            .collect()
    }
}

/// A spawned stdio server: its supervisor (see [`process`]) or, unsupervised, the server
/// itself as the leader of its own process group.
pub(crate) struct ChildProc {
    child: tokio::sync::Mutex<tokio::process::Child>,
    /// The supervisor's pid, or the server's (and its group's) when unsupervised.
    pub pid: Option<u32>,
    /// evaldeck's end of the supervisor's lifeline; closing it lets the server go.
    lifeline: Mutex<Option<std::os::fd::OwnedFd>>,
    pub stderr: Arc<StderrTail>,
    /// How long an exited child's stderr may take to reach the tail ([`PoolOptions`]).
    stderr_settle: Duration,
}

impl ChildProc {
    /// The exit status once the process has exited, waiting up to `grace` for it.
    pub async fn exit_status(&self, grace: Duration) -> Option<String> {
        let deadline = Instant::now() + grace;
        loop {
            if let Ok(Some(s)) = self.child.lock().await.try_wait() {
                return Some(s.to_string());
            }
            if Instant::now() >= deadline {
                return None;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }

    fn supervised(&self) -> bool {
        self.lifeline
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// Lets the server go without waiting: its supervisor gives it `grace` to exit on the
    /// end of its input, then ends its process group. Unsupervised, the group is ended in
    /// the background.
    pub fn release(&self) {
        let was = self
            .lifeline
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if was.is_none()
            && let Some(pid) = self.pid
            && let Ok(rt) = tokio::runtime::Handle::try_current()
        {
            rt.spawn(process::end_group(pid));
        }
    }

    /// Ends the server after its stdin closed: it gets `grace` to exit, then its whole
    /// process group is ended (children of a wrapper script included), and reaped.
    pub async fn reap(&self, grace: Duration) {
        let supervised = self.supervised();
        // The supervisor starts its grace period when the lifeline closes.
        drop(
            self.lifeline
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take(),
        );
        let mut c = self.child.lock().await;
        let slack = if supervised {
            Duration::from_millis(800)
        } else {
            Duration::ZERO
        };
        let exited = tokio::time::timeout(grace + slack, c.wait()).await.is_ok();
        let Some(pid) = self.pid else { return };
        if supervised {
            if !exited {
                tracing::debug!(pid, "mcp: supervisor still running; asking it to stop");
                process::stop_supervisor(pid);
                if tokio::time::timeout(Duration::from_secs(2), c.wait())
                    .await
                    .is_err()
                {
                    let _ = c.kill().await;
                }
            }
        } else {
            if !exited {
                tracing::debug!(
                    pid,
                    "mcp: server did not exit after stdin closed; ending its group"
                );
            }
            // Leftovers of the group go too, even when the server itself exited.
            process::end_group(pid).await;
            let _ = tokio::time::timeout(Duration::from_secs(1), c.wait()).await;
        }
    }
}

/// One live, initialized MCP session.
pub(crate) struct Session {
    pub peer: Peer<RoleClient>,
    running: tokio::sync::Mutex<Option<RunningService<RoleClient, EvalClient>>>,
    pub child: Option<Arc<ChildProc>>,
    pub info: Arc<ServerPeerInfo>,
    pub request_timeout: Duration,
    pub sent_token: bool,
    /// The config revision the session serves.
    pub revision: std::sync::atomic::AtomicI64,
    /// The config as far as the connection depends on it: a new revision that leaves it
    /// unchanged is adopted by the live session rather than replacing it.
    pub connection: crate::spec::server::ServerConfig,
    pub token_hash: u64,
    /// evaldeck's side of the session: roots, answers to the server's requests, traffic.
    pub side: Arc<ClientSide>,
    /// Size of a message the server sent that was over the limit ([`LineLimit`]); 0 if none.
    oversized: Arc<AtomicU64>,
    /// Open `subscriptions/listen` streams (`2026-07-28`), kept for the session's life.
    pub listens: tokio::sync::Mutex<Vec<tokio::task::JoinHandle<()>>>,
    last_used: Mutex<Instant>,
    /// Set after a timeout: the next use pings before trusting the session.
    pub suspect: AtomicBool,
    pub calls: AtomicU64,
}

impl Session {
    pub fn touch(&self) {
        *self.last_used.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    pub fn idle_for(&self) -> Duration {
        self.last_used
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
    }

    /// Dead as far as we can tell without a round trip.
    pub async fn is_closed(&self) -> bool {
        if self.peer.is_transport_closed() {
            return true;
        }
        if let Some(c) = &self.child
            && let Ok(Some(_)) = c.child.lock().await.try_wait()
        {
            return true;
        }
        match &*self.running.lock().await {
            Some(r) => r.is_closed(),
            None => true,
        }
    }

    /// What to add to an error's details: exit status and stderr tail of a stdio server.
    pub async fn context(&self, method: &'static str, died: bool) -> Context {
        let mut ctx = Context::new(method, self.sent_token);
        if let Some(c) = &self.child {
            if died {
                ctx.exit_status = c.exit_status(Duration::from_millis(300)).await;
                if ctx.exit_status.is_some() {
                    c.stderr.settle(c.stderr_settle).await;
                }
            }
            ctx.stderr_tail = c.stderr.snapshot();
        }
        ctx
    }

    /// Lets the session go at once: the transport is dropped (a stdio server sees the end
    /// of its input) and the process is left to its supervisor.
    pub async fn release(&self) {
        drop(self.running.lock().await.take());
        if let Some(c) = &self.child {
            c.release();
        }
    }

    /// True when letting go needs no waiting: no process, or a supervised one.
    pub fn releasable(&self) -> bool {
        self.child.as_ref().is_none_or(|c| c.supervised())
    }

    /// Closes the session and reaps its process, if any.
    pub async fn close(&self, grace: Duration) {
        for l in self.listens.lock().await.drain(..) {
            l.abort();
        }
        if let Some(mut r) = self.running.lock().await.take() {
            let _ = r.close_with_timeout(grace).await;
        }
        if let Some(c) = &self.child {
            c.reap(grace).await;
        }
    }
}

/// A server's stdout that refuses a message (one line) longer than `limit` bytes: the
/// rest of that line is read and counted, its size noted in `seen`, and reading fails, so
/// the call fails fast with the size instead of buffering it (or timing out parsing it).
pub(crate) struct LineLimit<R> {
    inner: R,
    limit: usize,
    line: usize,
    over: bool,
    seen: Arc<AtomicU64>,
}

impl<R> LineLimit<R> {
    /// Notes the over-long line's size and ends the stream with it.
    fn refuse(&self) -> std::io::Error {
        self.seen.store(self.line as u64, Ordering::Release);
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("a message of {} bytes, more than {}", self.line, self.limit),
        )
    }
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for LineLimit<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        use std::task::Poll;
        loop {
            let this = &mut *self;
            let start = buf.filled().len();
            if this.over {
                // Discard the rest of the oversized line, counting it.
                let mut scratch = [0u8; 64 * 1024];
                let mut tmp = tokio::io::ReadBuf::new(&mut scratch);
                match std::pin::Pin::new(&mut this.inner).poll_read(cx, &mut tmp) {
                    Poll::Pending => return Poll::Pending,
                    Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
                    Poll::Ready(Ok(())) => {
                        let got = tmp.filled();
                        let end = got.iter().position(|b| *b == b'\n');
                        this.line += end.unwrap_or(got.len());
                        if end.is_some() || got.is_empty() {
                            return Poll::Ready(Err(this.refuse()));
                        }
                        continue;
                    }
                }
            }
            match std::pin::Pin::new(&mut this.inner).poll_read(cx, buf) {
                Poll::Ready(Ok(())) => {
                    let new = &buf.filled()[start..];
                    if new.is_empty() {
                        return Poll::Ready(Ok(()));
                    }
                    for b in new {
                        if *b == b'\n' {
                            if this.line > this.limit {
                                // A whole over-long line in one read.
                                return Poll::Ready(Err(this.refuse()));
                            }
                            this.line = 0;
                        } else {
                            this.line += 1;
                        }
                    }
                    if this.line > this.limit {
                        // Refused once it ends; meanwhile it is read and counted, not kept.
                        this.over = true;
                        continue;
                    }
                    return Poll::Ready(Ok(()));
                }
                other => return other,
            }
        }
    }
}

/// A hash of the access token, so a new token opens a new session without keeping a copy.
pub(crate) fn token_hash(token: Option<&str>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    token.hash(&mut h);
    h.finish()
}

/// The program to spawn for `command`: a relative path (`./srv.sh`, `bin/srv`) is taken
/// from the server's `cwd` when it sets one — where the child runs — made absolute so that
/// the probe and the spawn cannot disagree; anything else is passed on as written.
pub(crate) fn program(command: &str, cwd: Option<&str>) -> std::path::PathBuf {
    let p = std::path::Path::new(command);
    match cwd {
        Some(dir) if !p.is_absolute() && p.components().count() > 1 => {
            let joined = std::path::Path::new(dir).join(p);
            std::path::absolute(&joined).unwrap_or(joined)
        }
        _ => p.to_path_buf(),
    }
}

/// Finds `command` (as [`program`] gives it) the way the child's `exec` will: as a path, or
/// on the child's `PATH`.
pub(crate) fn resolve_command(
    command: &std::path::Path,
    path_var: Option<&str>,
) -> Option<std::path::PathBuf> {
    let p = command;
    if p.components().count() > 1 || p.is_absolute() {
        return p.is_file().then(|| p.to_path_buf());
    }
    for dir in std::env::split_paths(path_var?) {
        let cand = dir.join(command);
        if is_executable(&cand) {
            return Some(cand);
        }
    }
    None
}

fn is_executable(p: &std::path::Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    }
    #[cfg(not(unix))]
    {
        p.is_file()
    }
}

/// `host:port` of an HTTP(S) URL.
fn authority(url: &str) -> Result<(String, u16), Error> {
    let u = reqwest::Url::parse(url).map_err(|_| {
        Error::invalid(
            "/config/transport/url",
            "url",
            format!("`{url}` is not an absolute URL"),
        )
    })?;
    let host = u
        .host_str()
        .ok_or_else(|| Error::invalid("/config/transport/url", "url", "the URL has no host"))?
        .trim_matches(|c| c == '[' || c == ']')
        .to_string();
    let port = u
        .port_or_known_default()
        .ok_or_else(|| Error::invalid("/config/transport/url", "url", "the URL has no port"))?;
    Ok((host, port))
}

/// TCP reachability of an HTTP server: DNS and connect, nothing else.
pub(crate) async fn tcp_probe(url: &str, timeout: Duration) -> Result<String, Error> {
    let (host, port) = authority(url)?;
    let target = format!("{host}:{port}");
    match tokio::time::timeout(
        timeout,
        tokio::net::TcpStream::connect((host.as_str(), port)),
    )
    .await
    {
        Ok(Ok(_)) => Ok(target),
        Ok(Err(e)) => Err(errors::from_io(&format!("cannot reach {target}"), &e)),
        Err(_) => Err(errors::unreachable(format!(
            "cannot reach {target}: no TCP connection within {} ms",
            timeout.as_millis()
        ))),
    }
}

fn http_client(connect_timeout: Duration) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(connect_timeout)
        // Idle pooled connections stall on delayed ACKs (as rmcp notes); redirects could
        // carry our headers elsewhere.
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap_or_default()
}

/// How a connection settles its protocol revision: probe with `server/discover` and fall
/// back to the `initialize` handshake (rmcp's `Auto`), or go straight to the handshake for
/// a server known to be of that era and for the legacy SSE transport.
#[derive(Debug, Clone)]
pub(crate) enum Era {
    /// Try `2026-07-28`, then `initialize` offering the newest handshake revision.
    Auto,
    /// `server/discover` with exactly this revision; no fallback (the doctor's matrix).
    Only(ProtocolVersion),
    /// `initialize` offering this revision.
    Handshake(ProtocolVersion),
}

impl Era {
    fn lifecycle(&self) -> ClientLifecycleMode {
        match self {
            Era::Auto => ClientLifecycleMode::Auto {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
            },
            Era::Only(v) => ClientLifecycleMode::Discover {
                preferred_versions: vec![v.clone()],
            },
            Era::Handshake(_) => ClientLifecycleMode::Initialize,
        }
    }
}

/// Starts the MCP client on `transport`, every message recorded in the side's traffic.
async fn start<T, E, A>(
    side: &Arc<ClientSide>,
    era: &Era,
    transport: T,
) -> Result<RunningService<RoleClient, EvalClient>, ClientInitializeError>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let tap = Tap {
        inner: transport.into_transport(),
        traffic: side.traffic.clone(),
    };
    let offer = match era {
        Era::Handshake(v) => v.clone(),
        _ => ProtocolVersion::LATEST_WITH_INITIALIZE,
    };
    let client = EvalClient {
        side: side.clone(),
        offer,
    };
    client.serve_with_lifecycle(tap, era.lifecycle()).await
}

/// Opens and initializes a session for `target` within its connect timeout.
pub(crate) async fn connect(
    target: &Target,
    opts: &PoolOptions,
    timings: &mut ConnectTimings,
    traffic: Arc<Traffic>,
    sampler: Option<Arc<dyn Sampler>>,
    era: Era,
) -> Result<Session, ConnectFailure> {
    let cfg = &target.config;
    let budget = Duration::from_millis(cfg.connect_timeout_ms.max(1));
    let deadline = tokio::time::Instant::now() + budget;
    let token = target.access_token.as_deref().filter(|t| !t.is_empty());
    let oversized = Arc::new(AtomicU64::new(0));
    let side = Arc::new(ClientSide::new(
        &target.server_id,
        traffic.clone(),
        cfg.client.clone(),
        sampler,
    ));

    if cfg.use_oauth && token.is_none() && !matches!(cfg.transport, Transport::Stdio { .. }) {
        return Err(fail(
            Stage::Connection,
            errors::oauth_required(
                "the server is configured for OAuth and has no tokens; import them first",
                REASON_NO_TOKENS,
                None,
            ),
        ));
    }

    // Probe.
    let t0 = Instant::now();
    let probed = match &cfg.transport {
        Transport::Stdio {
            command, env, cwd, ..
        } => {
            let path = env
                .get("PATH")
                .cloned()
                .or_else(|| std::env::var("PATH").ok());
            let prog = program(command, cwd.as_deref());
            match resolve_command(&prog, path.as_deref()) {
                Some(p) => Ok(p.display().to_string()),
                None if command.contains('/') => Err(errors::unreachable(format!(
                    "cannot spawn `{command}`: no such file (looked for `{}`)",
                    prog.display()
                ))
                .with_reason("COMMAND_NOT_FOUND")),
                None => Err(errors::unreachable(format!(
                    "cannot spawn `{command}`: no such executable (looked on the server's PATH)"
                ))
                .with_reason("COMMAND_NOT_FOUND")),
            }
        }
        Transport::Http { url, .. } | Transport::Sse { url, .. } => tcp_probe(url, budget).await,
    };
    timings.probe = Some(t0.elapsed());
    let probe_target = probed.map_err(|e| fail(Stage::Probe, e))?;
    timings.probe_target = Some(probe_target);

    // Connect and initialize.
    let t1 = Instant::now();
    let sent_token = token.is_some();
    let timeout_err = |what: &str| errors::timeout(what, budget);
    let (running, child) = match &cfg.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let (mut cmd, lifeline) = process::command(
                &program(command, cwd.as_deref()),
                args,
                opts.supervisor.as_deref(),
                opts.close_grace,
            )
            .map_err(|e| {
                fail(
                    Stage::Connection,
                    errors::from_io(&format!("cannot spawn `{command}`"), &e),
                )
            })?;
            cmd.env_clear().envs(env);
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
            cmd.stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            let mut child = cmd.spawn().map_err(|e| {
                fail(
                    Stage::Connection,
                    errors::from_io(&format!("cannot spawn `{command}`"), &e),
                )
            })?;
            drop(cmd);
            let lifeline = lifeline.map(process::Lifeline::spawned);
            let pid = child.id();
            let stdout = LineLimit {
                inner: child.stdout.take().expect("piped"),
                limit: opts.max_result_bytes,
                line: 0,
                over: false,
                seen: oversized.clone(),
            };
            let stdin = child.stdin.take().expect("piped");
            let stderr = child.stderr.take().expect("piped");
            let tail = Arc::new(StderrTail::default());
            tokio::spawn(drain_stderr(
                stderr,
                tail.clone(),
                target.server_id.clone(),
                opts.stderr_log_cap,
                traffic.clone(),
            ));
            let proc = Arc::new(ChildProc {
                child: tokio::sync::Mutex::new(child),
                pid,
                lifeline: Mutex::new(lifeline),
                stderr: tail,
                stderr_settle: opts.stderr_settle,
            });
            timings.connection_detail =
                Some(format!("spawned `{command}` (pid {})", pid.unwrap_or(0)));
            timings.connect = Some(t1.elapsed());
            let t2 = Instant::now();
            let r = match tokio::time::timeout_at(deadline, start(&side, &era, (stdout, stdin)))
                .await
            {
                Ok(Ok(r)) => r,
                Ok(Err(e)) => {
                    let mut ctx = Context::new("initialize", false);
                    ctx.exit_status = proc.exit_status(Duration::from_millis(300)).await;
                    if ctx.exit_status.is_some() {
                        proc.stderr.settle(proc.stderr_settle).await;
                    }
                    ctx.stderr_tail = proc.stderr.snapshot();
                    proc.reap(Duration::from_millis(200)).await;
                    return Err(fail(Stage::Initialization, errors::from_init(&e, &ctx)));
                }
                Err(_) => {
                    let mut ctx = Context::new("initialize", false);
                    ctx.stderr_tail = proc.stderr.snapshot();
                    proc.reap(Duration::from_millis(200)).await;
                    let e = timeout_err("initialize");
                    let e = if ctx.stderr_tail.is_empty() {
                        e
                    } else {
                        errors::add_detail(e, "stderrTail", serde_json::json!(ctx.stderr_tail))
                    };
                    return Err(fail(Stage::Initialization, e));
                }
            };
            timings.initialize = Some(t2.elapsed());
            (r, Some(proc))
        }
        Transport::Http { url, headers } => {
            let mut map = HashMap::new();
            for (k, v) in header_map(headers, None)
                .map_err(|e| fail(Stage::Connection, e))?
                .iter()
            {
                if k == reqwest::header::AUTHORIZATION && token.is_some() {
                    continue;
                }
                map.insert(k.clone(), v.clone());
            }
            let mut conf = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                .custom_headers(map)
                .reinit_on_expired_session(true);
            // A broken response stream is retried briefly, not for seconds: a server that died
            // mid-call must surface as unreachable long before the request timeout. The
            // server's own `retry:` hint would stretch it, so [`OwnRetryClient`] drops it.
            conf.retry_config = Arc::new(QuickRetry);
            if let Some(t) = token {
                conf = conf.auth_header(t);
            }
            let transport = StreamableHttpClientTransport::with_client(
                OwnRetryClient(http_client(budget)),
                conf,
            );
            timings.connect = Some(t1.elapsed());
            let t2 = Instant::now();
            let r = match tokio::time::timeout_at(deadline, start(&side, &era, transport)).await {
                Ok(Ok(r)) => r,
                Ok(Err(e)) => {
                    let ctx = Context::new("initialize", sent_token);
                    let stage = match e {
                        rmcp::service::ClientInitializeError::JsonRpcError(_) => {
                            timings.connection_detail = Some(format!("POST {url} answered"));
                            Stage::Initialization
                        }
                        _ => Stage::Connection,
                    };
                    return Err(fail(stage, errors::from_init(&e, &ctx)));
                }
                // Over streamable HTTP the initialize POST is the connection: without an
                // answer nothing says an MCP endpoint is there, only that TCP connected.
                Err(_) => {
                    return Err(fail(
                        Stage::Connection,
                        timeout_err(&format!("POST {url} (initialize)")),
                    ));
                }
            };
            timings.connection_detail = Some(format!("POST {url} answered"));
            timings.initialize = Some(t2.elapsed());
            (r, None)
        }
        Transport::Sse { url, headers } => {
            let map = header_map(headers, token).map_err(|e| fail(Stage::Connection, e))?;
            let transport = match tokio::time::timeout_at(
                deadline,
                SseClientTransport::connect(http_client(budget), url, map),
            )
            .await
            {
                Ok(Ok(t)) => t,
                Ok(Err(SseError::AuthRequired(a))) => {
                    return Err(fail(
                        Stage::Connection,
                        errors::challenged(&a.www_authenticate_header, sent_token),
                    ));
                }
                Ok(Err(e)) => {
                    return Err(fail(
                        Stage::Connection,
                        errors::unreachable(format!("SSE stream {url}: {e}")),
                    ));
                }
                Err(_) => {
                    return Err(fail(
                        Stage::Connection,
                        timeout_err("opening the SSE stream"),
                    ));
                }
            };
            timings.connection_detail = Some(format!("GET {url} opened the event stream"));
            timings.connect = Some(t1.elapsed());
            let t2 = Instant::now();
            // HTTP+SSE is the handshake era's transport.
            let legacy = match era {
                Era::Auto => Era::Handshake(ProtocolVersion::LATEST_WITH_INITIALIZE),
                e => e.clone(),
            };
            let r = match tokio::time::timeout_at(deadline, start(&side, &legacy, transport)).await
            {
                Ok(Ok(r)) => r,
                Ok(Err(e)) => {
                    let ctx = Context::new("initialize", sent_token);
                    return Err(fail(Stage::Initialization, errors::from_init(&e, &ctx)));
                }
                Err(_) => return Err(fail(Stage::Initialization, timeout_err("initialize"))),
            };
            timings.initialize = Some(t2.elapsed());
            (r, None)
        }
    };

    let Some(info) = running.peer().peer_info() else {
        let mut r = running;
        let _ = r.close_with_timeout(Duration::from_millis(200)).await;
        return Err(fail(
            Stage::Initialization,
            errors::unreachable("the server sent no initialize result"),
        ));
    };
    Ok(Session {
        peer: running.peer().clone(),
        running: tokio::sync::Mutex::new(Some(running)),
        child,
        info,
        request_timeout: Duration::from_millis(cfg.request_timeout_ms.max(1)),
        sent_token,
        revision: std::sync::atomic::AtomicI64::new(target.revision),
        connection: cfg.connection_part(),
        listens: tokio::sync::Mutex::new(Vec::new()),
        oversized,
        token_hash: token_hash(token),
        side,
        last_used: Mutex::new(Instant::now()),
        suspect: AtomicBool::new(false),
        calls: AtomicU64::new(0),
    })
}

impl Session {
    pub fn mark_suspect(&self) {
        self.suspect.store(true, Ordering::Relaxed);
    }

    /// The size of an over-long message that ended the session, if one did.
    pub fn oversized(&self) -> Option<usize> {
        match self.oversized.load(Ordering::Acquire) {
            0 => None,
            n => Some(n as usize),
        }
    }

    /// Settled on `2026-07-28` or later: no handshake, no `ping`, no `logging/setLevel`.
    pub fn modern(&self) -> bool {
        !self.info.protocol_version.has_initialize()
    }

    /// The log level asked of the server, as rmcp names it.
    #[allow(deprecated)]
    pub fn log_level(&self) -> Option<rmcp::model::LoggingLevel> {
        let level = self
            .side
            .features
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .log_level?;
        serde_json::from_value(serde_json::json!(level.as_str())).ok()
    }

    /// Asks a handshake-era server for the configured log level (`logging/setLevel`);
    /// later revisions carry the level on each request instead.
    #[allow(deprecated)]
    pub async fn apply_log_level(&self) {
        if self.modern() || self.info.capabilities.logging.is_none() {
            return;
        }
        if let Some(level) = self.log_level() {
            let _ = self
                .peer
                .set_level(rmcp::model::SetLevelRequestParams::new(level))
                .await;
        }
    }

    /// Applies an edit of the client features to the live session: changed roots are
    /// announced (`notifications/roots/list_changed` in the handshake era; a later
    /// revision's server asks for them with each request anyway), a new log level is set.
    #[allow(deprecated)]
    pub async fn update_features(&self, f: &crate::spec::client_features::ClientFeatures) {
        let old = {
            let mut g = self.side.features.lock().unwrap_or_else(|p| p.into_inner());
            if &*g == f {
                return;
            }
            std::mem::replace(&mut *g, f.clone())
        };
        if old.roots != f.roots && !self.modern() {
            self.side.traffic.note(
                Some("notifications/roots/list_changed"),
                "the roots changed",
            );
            let _ = self.peer.notify_roots_list_changed().await;
        }
        if old.log_level != f.log_level {
            self.apply_log_level().await;
        }
    }
}

/// Forwards a child's stderr to tracing, line by line, up to `cap` bytes per session (then
/// only the tail is kept), and always drains the pipe so the child never blocks on it.
async fn drain_stderr(
    stderr: tokio::process::ChildStderr,
    tail: Arc<StderrTail>,
    server: String,
    cap: usize,
    traffic: Arc<Traffic>,
) {
    let mut reader = tokio::io::BufReader::new(stderr);
    let mut buf = Vec::new();
    let mut logged = 0usize;
    let mut capped = false;
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf).await {
            Ok(0) | Err(_) => {
                tail.finish();
                return;
            }
            Ok(_) => {
                let text = String::from_utf8_lossy(&buf);
                let line = text.trim_end_matches(['\n', '\r']);
                tail.push(line);
                traffic.stderr(line);
                if logged < cap {
                    logged += line.len() + 1;
                    tracing::info!(target: "evaldeck::mcp::stderr", server = %server, "{line}");
                } else if !capped {
                    capped = true;
                    tracing::warn!(target: "evaldeck::mcp::stderr", server = %server, "stderr log cap of {cap} bytes reached; further lines are not logged");
                }
            }
        }
    }
}
