//! `/api/v1` over HTTP (axum): thin handlers over the [`Service`], the spec's error bodies,
//! per-key auth and rate limits, and an OpenAPI document built from the route table.

pub mod auth;
mod error;
pub mod extract;
pub mod idempotency;
mod openapi;
mod routes;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::routing::{MethodFilter, on};
use schemars::JsonSchema;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

use auth::Limiter;
pub use auth::RateLimit;

use crate::service::Service;

/// Settings of `evaldeck serve`.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// `None` turns rate limiting off (benchmarks, trusted loopback use).
    pub rate_limit: Option<RateLimit>,
    /// The absolute origin links and upload URLs are built from.
    pub public_url: Option<String>,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            rate_limit: Some(RateLimit::SPEC),
            public_url: None,
        }
    }
}

pub struct AppState {
    pub service: Service,
    pub limiter: Option<Limiter>,
    pub config: ApiConfig,
}

pub type State = Arc<AppState>;

/// The route table: each registration adds the route and its OpenAPI entry together.
pub(crate) struct Routes {
    router: Router<State>,
    doc: openapi::Doc,
    extension: bool,
}

impl Routes {
    fn new() -> Self {
        Routes {
            router: Router::new(),
            doc: openapi::Doc::default(),
            extension: false,
        }
    }

    /// Routes registered after this call are marked as extensions to the published spec.
    fn extensions(mut self) -> Self {
        self.extension = true;
        self
    }

    fn add<H, T>(
        mut self,
        method: Method,
        path: &'static str,
        summary: &'static str,
        request: Option<serde_json::Value>,
        response: serde_json::Value,
        status: StatusCode,
        handler: H,
    ) -> Self
    where
        H: Handler<T, State>,
        T: 'static,
    {
        let filter = MethodFilter::try_from(method.clone()).expect("a routable method");
        self.doc.operations.push(openapi::Operation {
            method: match method {
                Method::GET => "get",
                Method::POST => "post",
                Method::PATCH => "patch",
                Method::DELETE => "delete",
                Method::PUT => "put",
                _ => unreachable!("methods the API serves"),
            },
            path,
            summary,
            request,
            response,
            status: status.as_u16(),
            extension: self.extension,
            public: false,
        });
        self.router = self.router.route(path, on(filter, handler));
        self
    }

    pub(crate) fn get<Resp: JsonSchema, H: Handler<T, State>, T: 'static>(
        mut self,
        path: &'static str,
        summary: &'static str,
        h: H,
    ) -> Self {
        let resp = self.doc.schema::<Resp>();
        self.add(Method::GET, path, summary, None, resp, StatusCode::OK, h)
    }

    pub(crate) fn post<Req: JsonSchema, Resp: JsonSchema, H: Handler<T, State>, T: 'static>(
        mut self,
        path: &'static str,
        summary: &'static str,
        status: StatusCode,
        h: H,
    ) -> Self {
        let req = self.doc.schema::<Req>();
        let resp = self.doc.schema::<Resp>();
        self.add(Method::POST, path, summary, Some(req), resp, status, h)
    }

    pub(crate) fn patch<Req: JsonSchema, Resp: JsonSchema, H: Handler<T, State>, T: 'static>(
        mut self,
        path: &'static str,
        summary: &'static str,
        h: H,
    ) -> Self {
        let req = self.doc.schema::<Req>();
        let resp = self.doc.schema::<Resp>();
        self.add(
            Method::PATCH,
            path,
            summary,
            Some(req),
            resp,
            StatusCode::OK,
            h,
        )
    }

    pub(crate) fn delete<Resp: JsonSchema, H: Handler<T, State>, T: 'static>(
        mut self,
        path: &'static str,
        summary: &'static str,
        h: H,
    ) -> Self {
        let resp = self.doc.schema::<Resp>();
        self.add(Method::DELETE, path, summary, None, resp, StatusCode::OK, h)
    }
}

/// The whole application: `/api/v1/…` with auth, limits, logs and error bodies everywhere.
pub fn router(service: Service, config: ApiConfig) -> Router {
    let state = Arc::new(AppState {
        limiter: config.rate_limit.map(Limiter::new),
        service,
        config,
    });
    let routes = routes::table(Routes::new());
    let mut doc = routes.doc;
    // Upload URLs carry their own authorization: served outside the API-key layer.
    let upload_response = doc.schema::<crate::spec::ingest::ArtifactIngested>();
    doc.operations.push(openapi::Operation {
        method: "post",
        path: "/eval-ingest/uploads/{token}",
        summary: "Upload a JUnit XML, Jest JSON or Vitest JSON artifact to a URL minted by artifacts/upload-url (raw file body, no Authorization header; single use)",
        request: None,
        response: upload_response,
        status: 200,
        extension: false,
        public: true,
    });
    let spec = Arc::new(doc.render("/api/v1"));
    let authed = routes
        .router
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        // Layers run outermost-last-added: authenticate, then idempotency.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            idempotency::layer,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ));
    let v1 = Router::new()
        .route(
            "/openapi.json",
            axum::routing::get(move || async move { axum::Json((*spec).clone()) }),
        )
        .route(
            "/eval-ingest/uploads/{token}",
            axum::routing::post(routes::upload_artifact).put(routes::upload_artifact),
        )
        .merge(authed)
        .with_state(state);
    Router::new()
        .nest("/api/v1", v1)
        .fallback(routes::not_found)
        .layer(DefaultBodyLimit::max(extract::MAX_BODY_BYTES))
        .layer(
            TraceLayer::new_for_http()
                .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
                .on_response(DefaultOnResponse::new().level(Level::INFO)),
        )
}

/// Serves until `shutdown` resolves, then finishes in-flight requests.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(
        listener,
        app.into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(shutdown)
    .await
}

/// Resolves on SIGINT or SIGTERM.
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down");
}
