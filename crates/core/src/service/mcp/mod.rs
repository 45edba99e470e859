//! The MCP client: every exchange with an MCP server goes through [`McpPool`].
//!
//! A caller hands in a [`Target`] (the saved server's id, config revision, config and access
//! token) and gets the wire shapes of `spec::primitives` back, or one [`crate::spec::Error`]
//! mapped in [`errors`]. Sessions are kept per server and reused while healthy, so a second
//! `tools/call` neither respawns a process nor re-initializes; a new revision or a new token
//! replaces the session, and a session whose process died or whose stream closed is dropped.
//!
//! Transports: stdio (a child process given only its configured environment plus `PATH` and
//! `HOME`), streamable HTTP (rmcp's client) and legacy HTTP+SSE ([`sse`], our own).

mod calls;
pub mod client;
mod connect;
mod doctor;
pub use doctor::*;
pub mod errors;
pub mod oauth;
pub mod probe;
pub mod process;
pub mod sse;
mod tasks;
pub mod traffic;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, ClientRequest, GetPromptRequestParams, PaginatedRequestParams,
    ReadResourceRequestParams, RequestNoParam, RequestOptionalParam, ServerResult,
};
use rmcp::service::PeerRequestOptions;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

pub use errors::needs_refresh;
pub use oauth::{OAuthTokens, RefreshRequest, discover_token_endpoint, refresh_access_token};
pub use probe::{Probe, ProbeEra, ProbeFailure, RawAnswer};

use crate::spec::primitives::{
    CheckOauthResult, InitInfo, REVISIONS, RevisionSupport, TaskItem, TrafficPage,
};
use crate::spec::server::{ServerConfig, Transport};
use crate::spec::{Error, Result};
use client::Sampler;
pub use client::{Asker, CallContext};
use connect::{ConnectTimings, Era, Session};
use traffic::Traffic;

/// The server to talk to, as the caller knows it now.
#[derive(Clone)]
pub struct Target {
    pub server_id: String,
    /// The config revision: a session opened for another revision is replaced.
    pub revision: i64,
    pub config: ServerConfig,
    /// Bearer token for HTTP transports (never logged).
    pub access_token: Option<String>,
}

impl Target {
    /// The target with other roots (an environment's, for its runs), when given: the pooled
    /// session takes them on and announces the change instead of reconnecting.
    pub fn with_roots(mut self, roots: Option<&[crate::spec::client_features::Root]>) -> Target {
        if let Some(r) = roots {
            self.config.client.roots = r.to_vec();
        }
        self
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("server_id", &self.server_id)
            .field("revision", &self.revision)
            .field("config", &self.config)
            .field(
                "access_token",
                &self.access_token.as_ref().map(|_| "<redacted>"),
            )
            .finish()
    }
}

/// Pool timers and caps; every one configurable so tests run in milliseconds.
#[derive(Debug, Clone)]
pub struct PoolOptions {
    /// A session idle this long is pinged before reuse.
    pub ping_after: Duration,
    /// A session idle this long is closed the next time the pool is used.
    pub idle_close_after: Duration,
    /// Time a closing server gets to exit before it is killed.
    pub close_grace: Duration,
    /// Upper bound on one request however much progress it reports.
    pub max_total_timeout: Duration,
    /// Bytes of a child's stderr forwarded to the log per session; later lines only reach
    /// the in-memory tail that error details carry.
    pub stderr_log_cap: usize,
    /// How long to wait for an exited child's last stderr lines before building the error
    /// that carries them (`details.stderrTail`).
    pub stderr_settle: Duration,
    /// Pages fetched at most when listing everything (doctor, export).
    pub max_pages: usize,
    /// The binary whose `supervise` command keeps stdio servers from outliving evaldeck
    /// (see [`process`]); `None` runs them unsupervised.
    pub supervisor: Option<std::path::PathBuf>,
    /// Write every protocol event to stderr as it happens (the CLI's `--verbose`).
    pub echo_traffic: bool,
    /// Largest message a server may send (a tool result, above all); a larger one is 502
    /// with `details.reason` `RESULT_TOO_LARGE`.
    pub max_result_bytes: usize,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            ping_after: Duration::from_secs(30),
            idle_close_after: Duration::from_secs(600),
            close_grace: Duration::from_secs(2),
            max_total_timeout: Duration::from_secs(600),
            stderr_log_cap: 64 * 1024,
            stderr_settle: Duration::from_millis(500),
            max_pages: 100,
            supervisor: process::supervisor(),
            echo_traffic: false,
            max_result_bytes: 16 * 1024 * 1024,
        }
    }
}

/// Counters for tests and the benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolStats {
    /// Sessions opened (each stdio one spawned a process).
    pub connects: u64,
    /// Stdio processes spawned.
    pub spawns: u64,
    /// Sessions alive now.
    pub live: usize,
}

type Slot = Arc<tokio::sync::Mutex<Option<Arc<Session>>>>;

struct Inner {
    opts: PoolOptions,
    slots: Mutex<HashMap<String, Slot>>,
    /// Each server's protocol events, across its sessions.
    traffic: Mutex<HashMap<String, Arc<Traffic>>>,
    /// The handshake revision each server settled on, for servers that turned out to be
    /// of the handshake era: their next connection skips the `server/discover` probe.
    eras: Mutex<HashMap<String, rmcp::model::ProtocolVersion>>,
    sampler: Mutex<Option<Arc<dyn Sampler>>>,
    /// The last failed connection attempt of each server, and when it failed: callers that
    /// were already waiting for that attempt share its failure instead of each trying again.
    failures: Mutex<HashMap<String, (Instant, Error)>>,
    /// The tasks evaldeck is following, by server.
    followed: Mutex<HashMap<String, Vec<TaskItem>>>,
    /// Calls that named themselves (`callId`), by `server/callId`, to cancel them.
    calls: Mutex<HashMap<String, tokio_util::sync::CancellationToken>>,
    connects: AtomicU64,
    spawns: AtomicU64,
    shut: AtomicBool,
}

/// Live MCP sessions keyed by server; cheap to clone.
#[derive(Clone)]
pub struct McpPool {
    inner: Arc<Inner>,
}

impl Default for McpPool {
    fn default() -> Self {
        Self::new(PoolOptions::default())
    }
}

/// `check-oauth`: answered from the config alone, without connecting. A stdio server never
/// uses OAuth and is named `stdio://SERVER_ID`.
pub fn check_oauth(server_id: &str, config: &ServerConfig) -> CheckOauthResult {
    match &config.transport {
        Transport::Stdio { .. } => CheckOauthResult {
            use_oauth: false,
            server_url: crate::spec::primitives::stdio_server_url(server_id),
        },
        Transport::Http { url, .. } | Transport::Sse { url, .. } => CheckOauthResult {
            use_oauth: config.use_oauth,
            server_url: url.clone(),
        },
    }
}

fn iso_now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// Re-reads an rmcp value as one of our wire types (both are the MCP JSON).
fn convert<T: Serialize, U: DeserializeOwned>(v: T) -> Result<U> {
    serde_json::to_value(v)
        .and_then(serde_json::from_value)
        .map_err(|e| Error::internal(format!("cannot represent the server's answer: {e}")))
}

fn init_info(info: &rmcp::model::ServerPeerInfo) -> InitInfo {
    InitInfo {
        protocol_version: info.protocol_version.to_string(),
        capabilities: serde_json::to_value(&info.capabilities).unwrap_or(json!({})),
        server_info: info
            .server_info
            .as_ref()
            .and_then(|s| serde_json::to_value(s).ok()),
        instructions: info.instructions.clone(),
    }
}

/// The capability a list needs, checked against what `initialize` advertised.
#[derive(Clone, Copy)]
enum Cap {
    Tools,
    Prompts,
    Resources,
}

impl Cap {
    fn name(self) -> &'static str {
        match self {
            Cap::Tools => "tools",
            Cap::Prompts => "prompts",
            Cap::Resources => "resources",
        }
    }
    fn advertised(self, s: &Session) -> bool {
        let c = &s.info.capabilities;
        match self {
            Cap::Tools => c.tools.is_some(),
            Cap::Prompts => c.prompts.is_some(),
            Cap::Resources => c.resources.is_some(),
        }
    }
}

/// The four MCP lists, for code shared between them.
#[derive(Clone, Copy)]
enum List {
    Tools,
    Prompts,
    Resources,
    Templates,
}

impl List {
    fn method(self) -> &'static str {
        match self {
            List::Tools => "tools/list",
            List::Prompts => "prompts/list",
            List::Resources => "resources/list",
            List::Templates => "resources/templates/list",
        }
    }
    fn cap(self) -> Cap {
        match self {
            List::Tools => Cap::Tools,
            List::Prompts => Cap::Prompts,
            List::Resources | List::Templates => Cap::Resources,
        }
    }
    fn request(self, cursor: Option<String>) -> ClientRequest {
        let params = cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        fn opt<M: Default>(
            params: Option<PaginatedRequestParams>,
        ) -> RequestOptionalParam<M, PaginatedRequestParams> {
            RequestOptionalParam {
                method: M::default(),
                params,
                extensions: Default::default(),
            }
        }
        match self {
            List::Tools => ClientRequest::ListToolsRequest(opt(params)),
            List::Prompts => ClientRequest::ListPromptsRequest(opt(params)),
            List::Resources => ClientRequest::ListResourcesRequest(opt(params)),
            List::Templates => ClientRequest::ListResourceTemplatesRequest(opt(params)),
        }
    }
    /// The items (as MCP JSON) and the next cursor of one page.
    fn page(self, r: ServerResult) -> Option<(Vec<Value>, Option<String>)> {
        fn vals<T: Serialize>(v: Vec<T>) -> Vec<Value> {
            v.into_iter()
                .filter_map(|x| serde_json::to_value(x).ok())
                .collect()
        }
        match (self, r) {
            (List::Tools, ServerResult::ListToolsResult(r)) => Some((vals(r.tools), r.next_cursor)),
            (List::Prompts, ServerResult::ListPromptsResult(r)) => {
                Some((vals(r.prompts), r.next_cursor))
            }
            (List::Resources, ServerResult::ListResourcesResult(r)) => {
                Some((vals(r.resources), r.next_cursor))
            }
            (List::Templates, ServerResult::ListResourceTemplatesResult(r)) => {
                Some((vals(r.resource_templates), r.next_cursor))
            }
            _ => None,
        }
    }
}

/// The newest handshake revision a server named when no revision was in common.
fn handshake_fallback(e: &Error) -> Option<rmcp::model::ProtocolVersion> {
    if e.reason() != Some(errors::REASON_NO_COMMON_REVISION) {
        return None;
    }
    let named = e.details.as_ref()?["serverSupported"].as_array()?.clone();
    rmcp::model::ProtocolVersion::KNOWN_VERSIONS
        .iter()
        .filter(|v| v.has_initialize() && named.iter().any(|n| n == v.as_str()))
        .max_by(|a, b| a.as_str().cmp(b.as_str()))
        .cloned()
}

/// `details.reason` of a call cancelled through its `callId`.
pub const REASON_CALL_CANCELLED: &str = "CALL_CANCELLED";

/// Most `input_required` rounds one request may take.
const MAX_INPUT_ROUNDS: usize = 10;

/// Request params that can carry the answers of an `input_required` round.
trait WithInput {
    fn with_input(self, responses: rmcp::model::InputResponses, state: Option<String>) -> Self;
}

macro_rules! with_input {
    ($($t:ty),*) => {$(
        impl WithInput for $t {
            fn with_input(self, responses: rmcp::model::InputResponses, state: Option<String>) -> Self {
                let mut p = self;
                p.input_responses = (!responses.is_empty()).then_some(responses);
                p.request_state = state;
                p
            }
        }
    )*};
}
with_input!(
    CallToolRequestParams,
    GetPromptRequestParams,
    ReadResourceRequestParams
);

/// Sends `notifications/cancelled` for a request whose caller went away before its answer.
struct CancelOnDrop(Option<(rmcp::Peer<rmcp::RoleClient>, rmcp::model::RequestId)>);

impl CancelOnDrop {
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some((peer, id)) = self.0.take() else {
            return;
        };
        let Ok(rt) = tokio::runtime::Handle::try_current() else {
            return;
        };
        rt.spawn(async move {
            let note = rmcp::model::CancelledNotificationParam::new(
                Some(id),
                Some("cancelled by the client".into()),
            );
            let _ = peer.notify_cancelled(note).await;
        });
    }
}

fn unexpected(method: &str) -> Error {
    errors::unreachable(format!(
        "{method}: the server answered with a result of the wrong kind"
    ))
    .with_reason(errors::REASON_MCP_ERROR)
}

fn items<U: DeserializeOwned>(vals: Vec<Value>) -> Result<Vec<U>> {
    vals.into_iter().map(convert).collect()
}

/// MCP prompt arguments are strings; numbers and booleans are sent as their text.
fn prompt_arguments(args: &Map<String, Value>) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    for (k, v) in args {
        let s = match v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => continue,
            _ => {
                return Err(Error::invalid(
                    &format!("/arguments/{k}"),
                    "type",
                    "must be a string, number or boolean",
                ));
            }
        };
        out.insert(k.clone(), Value::String(s));
    }
    Ok(out)
}

impl McpPool {
    pub fn new(opts: PoolOptions) -> Self {
        McpPool {
            inner: Arc::new(Inner {
                opts,
                slots: Mutex::new(HashMap::new()),
                traffic: Mutex::new(HashMap::new()),
                eras: Mutex::new(HashMap::new()),
                sampler: Mutex::new(None),
                calls: Mutex::new(HashMap::new()),
                failures: Mutex::new(HashMap::new()),
                followed: Mutex::new(HashMap::new()),
                connects: AtomicU64::new(0),
                spawns: AtomicU64::new(0),
                shut: AtomicBool::new(false),
            }),
        }
    }

    pub fn options(&self) -> &PoolOptions {
        &self.inner.opts
    }

    pub fn stats(&self) -> PoolStats {
        let live = self
            .inner
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .filter(|s| s.try_lock().map(|g| g.is_some()).unwrap_or(true))
            .count();
        PoolStats {
            connects: self.inner.connects.load(Ordering::Relaxed),
            spawns: self.inner.spawns.load(Ordering::Relaxed),
            live,
        }
    }

    fn slot(&self, server_id: &str) -> Slot {
        self.inner
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(server_id.to_string())
            .or_default()
            .clone()
    }

    /// Lets sessions answer sampling requests with a configured model.
    pub fn set_sampler(&self, sampler: Arc<dyn Sampler>) {
        *self.inner.sampler.lock().unwrap_or_else(|p| p.into_inner()) = Some(sampler);
    }

    fn sampler(&self) -> Option<Arc<dyn Sampler>> {
        self.inner
            .sampler
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The protocol events of a server (kept across its sessions).
    pub fn traffic_of(&self, server_id: &str) -> Arc<Traffic> {
        self.inner
            .traffic
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(server_id.to_string())
            .or_insert_with(|| Arc::new(Traffic::new(server_id, self.inner.opts.echo_traffic)))
            .clone()
    }

    /// A server's protocol events after `after`, oldest first.
    pub fn traffic(&self, server_id: &str, after: u64, limit: usize) -> TrafficPage {
        let t = self.traffic_of(server_id);
        TrafficPage {
            items: t.after(after, limit),
            last_seq: t.last_seq(),
        }
    }

    /// How to settle the protocol revision with `target`.
    fn era(&self, target: &Target) -> Era {
        if matches!(target.config.transport, Transport::Sse { .. }) {
            return Era::Handshake(rmcp::model::ProtocolVersion::LATEST_WITH_INITIALIZE);
        }
        match self
            .inner
            .eras
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&target.server_id)
        {
            Some(v) => Era::Handshake(v.clone()),
            None => Era::Auto,
        }
    }

    /// Opens a session, remembering a handshake-era server as such.
    async fn open(
        &self,
        target: &Target,
        timings: &mut ConnectTimings,
        era: Era,
    ) -> std::result::Result<Session, connect::ConnectFailure> {
        self.count_connect(target);
        let attempt = connect::connect(
            target,
            &self.inner.opts,
            timings,
            self.traffic_of(&target.server_id),
            self.sampler(),
            era.clone(),
        )
        .await;
        // A server that answers `server/discover` but speaks only handshake revisions (it
        // names them) is asked again with the handshake, on a fresh connection.
        let s = match attempt {
            Err(f) if matches!(era, Era::Auto) => match handshake_fallback(&f.error) {
                Some(v) => {
                    self.count_connect(target);
                    *timings = ConnectTimings::default();
                    connect::connect(
                        target,
                        &self.inner.opts,
                        timings,
                        self.traffic_of(&target.server_id),
                        self.sampler(),
                        Era::Handshake(v),
                    )
                    .await?
                }
                None => return Err(f),
            },
            other => other?,
        };
        let v = &s.info.protocol_version;
        if v.has_initialize() {
            self.inner
                .eras
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(target.server_id.clone(), v.clone());
            s.apply_log_level().await;
        }
        Ok(s)
    }

    fn count_connect(&self, target: &Target) {
        self.inner.connects.fetch_add(1, Ordering::Relaxed);
        if matches!(target.config.transport, Transport::Stdio { .. }) {
            self.inner.spawns.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// A healthy session for `target`: the pooled one when it still fits, else a new one.
    async fn session(&self, target: &Target) -> Result<Arc<Session>> {
        if self.inner.shut.load(Ordering::Relaxed) {
            return Err(errors::unreachable("the MCP pool is shut down"));
        }
        self.close_idle(&target.server_id).await;
        let slot = self.slot(&target.server_id);
        let arrived = Instant::now();
        let mut guard = slot.lock().await;
        // One connection attempt at a time per server: whoever waited for an attempt that
        // failed fails with it, at its timeout, rather than starting another.
        if let Some((at, e)) = self
            .inner
            .failures
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&target.server_id)
            && *at > arrived
        {
            return Err(e.clone());
        }
        if let Some(s) = guard.clone() {
            let same_revision = s.revision.load(Ordering::Relaxed) == target.revision;
            let fits = (same_revision || s.connection == target.config.connection_part())
                && s.token_hash
                    == connect::token_hash(
                        target.access_token.as_deref().filter(|t| !t.is_empty()),
                    );
            if fits && !s.is_closed().await {
                let check =
                    s.suspect.load(Ordering::Relaxed) || s.idle_for() >= self.inner.opts.ping_after;
                if !check
                    || self
                        .ping(
                            &s,
                            Duration::from_millis(target.config.connect_timeout_ms.max(1)),
                        )
                        .await
                {
                    s.suspect.store(false, Ordering::Relaxed);
                    // Only the client side changed (a new revision, or a run's environment
                    // roots): take it on, announce new roots. A no-op when nothing did.
                    s.revision.store(target.revision, Ordering::Relaxed);
                    s.update_features(&target.config.client).await;
                    return Ok(s);
                }
                tracing::info!(server = %target.server_id, "mcp: pooled session failed its health check; reconnecting");
            }
            *guard = None;
            s.close(self.inner.opts.close_grace).await;
        }
        let mut timings = ConnectTimings::default();
        let s = match self.open(target, &mut timings, self.era(target)).await {
            Ok(s) => s,
            Err(f) => {
                self.inner
                    .failures
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(target.server_id.clone(), (Instant::now(), f.error.clone()));
                return Err(f.error);
            }
        };
        tracing::debug!(server = %target.server_id, revision = target.revision, ?timings, "mcp: session opened");
        let s = Arc::new(s);
        *guard = Some(s.clone());
        Ok(s)
    }

    /// Which of [`REVISIONS`] the server accepts, each tried at once on a connection of its
    /// own (that is not pooled and leaves no protocol events).
    pub async fn revision_matrix(&self, target: &Target) -> Vec<RevisionSupport> {
        let probes = REVISIONS.iter().map(|name| async move {
            let Some(v) = rmcp::model::ProtocolVersion::KNOWN_VERSIONS
                .iter()
                .find(|v| v.as_str() == *name)
                .cloned()
            else {
                return RevisionSupport {
                    revision: name.to_string(),
                    accepted: false,
                    detail: "not known to this build".into(),
                };
            };
            let era = if v.has_initialize() {
                Era::Handshake(v.clone())
            } else {
                Era::Only(v.clone())
            };
            let mut timings = ConnectTimings::default();
            let quiet = Arc::new(Traffic::new(&target.server_id, false));
            match connect::connect(target, &self.inner.opts, &mut timings, quiet, None, era).await {
                Ok(s) => {
                    let got = s.info.protocol_version.as_str().to_string();
                    s.close(self.inner.opts.close_grace).await;
                    RevisionSupport {
                        revision: name.to_string(),
                        accepted: got == *name,
                        detail: if got == *name {
                            "accepted".into()
                        } else {
                            format!("answered with {got}")
                        },
                    }
                }
                Err(f) => RevisionSupport {
                    revision: name.to_string(),
                    accepted: false,
                    detail: f.error.message,
                },
            }
        });
        futures::future::join_all(probes).await
    }

    /// A health check: `ping` in the handshake era; from `2026-07-28`, which removed it,
    /// the session is trusted while its transport is open.
    async fn ping(&self, s: &Session, timeout: Duration) -> bool {
        if s.modern() {
            return !s.is_closed().await;
        }
        let req = ClientRequest::PingRequest(RequestNoParam {
            method: Default::default(),
            extensions: Default::default(),
        });
        match s
            .peer
            .send_request_with_option(req, PeerRequestOptions::with_timeout(timeout))
            .await
        {
            Ok(h) => h.await_response().await.is_ok(),
            Err(_) => false,
        }
    }

    /// Closes sessions of other servers that have been idle too long.
    async fn close_idle(&self, except: &str) {
        let slots: Vec<(String, Slot)> = self
            .inner
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (id, slot) in slots {
            if id == except {
                continue;
            }
            let Ok(mut g) = slot.try_lock() else { continue };
            if g.as_ref()
                .is_some_and(|s| s.idle_for() >= self.inner.opts.idle_close_after)
                && let Some(s) = g.take()
            {
                tracing::debug!(server = %id, "mcp: closing idle session");
                s.close(self.inner.opts.close_grace).await;
            }
        }
    }

    /// Drops `session` from the pool (if it is still the pooled one) and closes it.
    async fn discard(&self, server_id: &str, session: &Arc<Session>) {
        let slot = self.slot(server_id);
        let mut g = slot.lock().await;
        if g.as_ref().is_some_and(|s| Arc::ptr_eq(s, session)) {
            *g = None;
        }
        drop(g);
        session.close(self.inner.opts.close_grace).await;
    }

    /// Removes a server's slot from the pool, so no later call can reach its session.
    fn take_slot(&self, server_id: &str) -> Option<Slot> {
        self.inner
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(server_id)
    }

    /// Closes the session of one server, e.g. after its config was deleted.
    pub async fn evict(&self, server_id: &str) {
        if let Some(slot) = self.take_slot(server_id)
            && let Some(s) = slot.lock().await.take()
        {
            s.close(self.inner.opts.close_grace).await;
        }
    }

    /// Takes a server's session out of the pool at once (no later call can use it) and
    /// closes it and reaps its process in the background, for callers that cannot wait
    /// (editing or deleting a saved server). Without a runtime the session is dropped,
    /// which kills the child.
    pub fn evict_soon(&self, server_id: &str) {
        let Some(slot) = self.take_slot(server_id) else {
            return;
        };
        let grace = self.inner.opts.close_grace;
        let id = server_id.to_string();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                if let Some(s) = slot.lock().await.take() {
                    tracing::debug!(server = %id, "mcp: closing the session of an edited or deleted server");
                    s.close(grace).await;
                }
            });
        }
    }

    /// Lets the live session of a server serve `revision` of its config, whose connection
    /// is unchanged and whose client features are now `features` (new roots are announced
    /// to the server). Done in the background, for callers that cannot wait.
    pub fn adopt_soon(
        &self,
        server_id: &str,
        revision: i64,
        features: &crate::spec::client_features::ClientFeatures,
    ) {
        let slot = self.slot(server_id);
        let features = features.clone();
        if let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(async move {
                let s = slot.lock().await.clone();
                if let Some(s) = s {
                    s.revision.store(revision, Ordering::Relaxed);
                    s.update_features(&features).await;
                }
            });
        }
    }

    /// Closes every session and ends every server; later calls fail. Supervised servers
    /// are let go without waiting (their supervisors give them the grace period and end
    /// their process groups), so a CLI command exits as soon as it has answered;
    /// unsupervised ones are waited for.
    pub async fn shutdown(&self) {
        self.inner.shut.store(true, Ordering::Relaxed);
        let slots: Vec<Slot> = self
            .inner
            .slots
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .drain()
            .map(|(_, v)| v)
            .collect();
        let closing = slots.into_iter().map(|slot| {
            let grace = self.inner.opts.close_grace;
            async move {
                if let Some(s) = slot.lock().await.take() {
                    if s.releasable() {
                        s.release().await;
                    } else {
                        s.close(grace).await;
                    }
                }
            }
        });
        futures::future::join_all(closing).await;
    }

    /// The pid of the pooled stdio process for a server, if one is running.
    pub async fn pid(&self, server_id: &str) -> Option<u32> {
        let slot = self.slot(server_id);
        let g = slot.lock().await;
        g.as_ref()?.child.as_ref()?.pid
    }
}
