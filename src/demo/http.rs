//! The demo server over HTTP: rmcp's streamable HTTP service at `/mcp`, or our legacy
//! HTTP+SSE endpoints (`GET /sse`, `POST /message?sessionId=…`), behind an optional bearer
//! check, with a token endpoint for the refresh grant.

use std::collections::{HashMap, HashSet};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use axum::extract::{Query, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get, post};
use axum::{Form, Json, Router};
use futures::{Stream, StreamExt};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServiceExt};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::mpsc;

use super::{DemoArgs, DemoServer};

/// Valid access and refresh tokens; refresh tokens rotate on use.
#[derive(Default)]
struct Tokens {
    required: bool,
    access: HashSet<String>,
    refresh: HashSet<String>,
}

#[derive(Clone)]
struct AppState {
    base: String,
    tokens: Arc<Mutex<Tokens>>,
    server: DemoServer,
    sse_sessions: Arc<Mutex<HashMap<String, mpsc::Sender<ClientJsonRpcMessage>>>>,
}

pub(super) async fn serve(
    addr: SocketAddr,
    args: &DemoArgs,
    server: DemoServer,
) -> anyhow::Result<()> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let base = format!("http://{bound}");
    let mut tokens = Tokens::default();
    if let Some(t) = &args.require_token {
        tokens.required = true;
        tokens.access.insert(t.clone());
        tokens.refresh.insert(args.refresh_token.clone());
    }
    let state = AppState {
        base: base.clone(),
        tokens: Arc::new(Mutex::new(tokens)),
        server: server.clone(),
        sse_sessions: Arc::default(),
    };

    let mcp: Router<AppState> = if args.hang {
        Router::new()
            .route("/mcp", any(futures::future::pending::<()>))
            .route("/sse", any(futures::future::pending::<()>))
    } else if args.sse {
        Router::new()
            .route("/sse", get(sse_open))
            .route("/message", post(sse_message))
    } else {
        let mut hosts = vec!["localhost".to_string(), "127.0.0.1".into(), "::1".into()];
        hosts.push(bound.ip().to_string());
        let service = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default().with_allowed_hosts(hosts),
        );
        let r = Router::new().route_service("/mcp", service);
        if args.faults.contains(&super::server::Fault::HttpLax) {
            r.layer(middleware::from_fn(lax))
        } else {
            r
        }
    };
    let app = mcp
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            require_bearer,
        ))
        .route("/token", post(token))
        .route(
            "/.well-known/oauth-protected-resource",
            get(resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(server_metadata),
        )
        .with_state(state);

    let path = if args.sse { "sse" } else { "mcp" };
    println!("listening on {base}/{path}");
    eprintln!("evaldeck demo-server: listening on {base}/{path}");
    use std::io::Write;
    std::io::stdout().flush()?;
    axum::serve(listener, app).await?;
    Ok(())
}

/// `--fault http-lax`: breaks the streamable HTTP transport's own rules around a correct
/// server.
async fn lax(mut req: Request, next: Next) -> Response {
    if req.method() == axum::http::Method::GET {
        return (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "text/plain")],
            "no stream here",
        )
            .into_response();
    }
    let h = req.headers_mut();
    let json_only = h
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| !a.contains("text/event-stream"));
    if json_only {
        h.insert(
            header::ACCEPT,
            HeaderValue::from_static("application/json, text/event-stream"),
        );
    }
    if h.get("mcp-protocol-version")
        .is_some_and(|v| v.as_bytes() == b"1999-01-01")
    {
        h.remove("mcp-protocol-version");
    }
    let mut resp = next.run(req).await;
    if resp.status() == StatusCode::NOT_FOUND {
        *resp.status_mut() = StatusCode::BAD_REQUEST;
    }
    resp
}

async fn require_bearer(State(st): State<AppState>, req: Request, next: Next) -> Response {
    let presented = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::to_string);
    let ok = {
        let t = st.tokens.lock().unwrap_or_else(|p| p.into_inner());
        !t.required || presented.as_ref().is_some_and(|p| t.access.contains(p))
    };
    if ok {
        return next.run(req).await;
    }
    let mut challenge = format!(
        "Bearer realm=\"evaldeck-demo\", resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
        st.base
    );
    if presented.is_some() {
        challenge.push_str(", error=\"invalid_token\"");
    }
    let mut resp = (
        StatusCode::UNAUTHORIZED,
        Json(json!({"error": "unauthorized"})),
    )
        .into_response();
    if let Ok(v) = HeaderValue::from_str(&challenge) {
        resp.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    resp
}

#[derive(Deserialize)]
struct TokenForm {
    grant_type: String,
    #[serde(default)]
    refresh_token: Option<String>,
}

/// The refresh grant: a known refresh token buys a new access token and a new refresh token.
async fn token(State(st): State<AppState>, Form(f): Form<TokenForm>) -> Response {
    if f.grant_type != "refresh_token" {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "unsupported_grant_type"})),
        )
            .into_response();
    }
    let mut t = st.tokens.lock().unwrap_or_else(|p| p.into_inner());
    let Some(rt) = f.refresh_token.filter(|r| t.refresh.remove(r)) else {
        return (
            StatusCode::BAD_REQUEST,
            Json(json!({"error": "invalid_grant"})),
        )
            .into_response();
    };
    let _ = rt;
    let access = format!("demo-access-{}", uuid::Uuid::now_v7().simple());
    let refresh = format!("demo-refresh-{}", uuid::Uuid::now_v7().simple());
    t.access.insert(access.clone());
    t.refresh.insert(refresh.clone());
    Json(json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": 3600,
        "refresh_token": refresh,
    }))
    .into_response()
}

async fn resource_metadata(State(st): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({
        "resource": format!("{}/mcp", st.base),
        "authorization_servers": [st.base],
        "bearer_methods_supported": ["header"],
    }))
}

async fn server_metadata(State(st): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({
        "issuer": st.base,
        "token_endpoint": format!("{}/token", st.base),
        "grant_types_supported": ["refresh_token"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post"],
    }))
}

/// rmcp's server over two channels: one to the SSE stream, one from `POST /message`.
struct ChannelTransport {
    tx: mpsc::Sender<ServerJsonRpcMessage>,
    rx: mpsc::Receiver<ClientJsonRpcMessage>,
}

impl Transport<RoleServer> for ChannelTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let tx = self.tx.clone();
        async move {
            tx.send(item)
                .await
                .map_err(|_| std::io::Error::other("the SSE stream is closed"))
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        self.rx.recv()
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        self.rx.close();
        Ok(())
    }
}

/// Removes an SSE session when its stream is dropped (the client went away).
struct SessionGuard {
    id: String,
    sessions: Arc<Mutex<HashMap<String, mpsc::Sender<ClientJsonRpcMessage>>>>,
}

impl Drop for SessionGuard {
    fn drop(&mut self) {
        self.sessions
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&self.id);
    }
}

async fn sse_open(
    State(st): State<AppState>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let id = uuid::Uuid::now_v7().simple().to_string();
    let (to_client, from_server) = mpsc::channel::<ServerJsonRpcMessage>(64);
    let (to_server, from_client) = mpsc::channel::<ClientJsonRpcMessage>(64);
    st.sse_sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .insert(id.clone(), to_server);
    let server = st.server.clone();
    tokio::spawn(async move {
        match server
            .serve(ChannelTransport {
                tx: to_client,
                rx: from_client,
            })
            .await
        {
            Ok(r) => {
                let _ = r.waiting().await;
            }
            Err(e) => eprintln!("evaldeck demo-server: SSE session failed to initialize: {e}"),
        }
    });
    let guard = SessionGuard {
        id: id.clone(),
        sessions: st.sse_sessions.clone(),
    };
    let first = futures::stream::once(async move {
        Ok::<_, Infallible>(
            Event::default()
                .event("endpoint")
                .data(format!("/message?sessionId={id}")),
        )
    });
    let rest = futures::stream::unfold((from_server, guard), |(mut rx, g)| async move {
        let msg = rx.recv().await?;
        let data = serde_json::to_string(&msg).unwrap_or_default();
        Some((Ok(Event::default().event("message").data(data)), (rx, g)))
    });
    Sse::new(first.chain(rest)).keep_alive(KeepAlive::default())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SessionQuery {
    session_id: String,
}

async fn sse_message(
    State(st): State<AppState>,
    Query(q): Query<SessionQuery>,
    body: axum::body::Bytes,
) -> Response {
    let Ok(msg) = serde_json::from_slice::<ClientJsonRpcMessage>(&body) else {
        return (StatusCode::BAD_REQUEST, "not a JSON-RPC message").into_response();
    };
    let tx = st
        .sse_sessions
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(&q.session_id)
        .cloned();
    match tx {
        Some(tx) if tx.send(msg).await.is_ok() => StatusCode::ACCEPTED.into_response(),
        _ => (StatusCode::NOT_FOUND, "unknown session").into_response(),
    }
}
