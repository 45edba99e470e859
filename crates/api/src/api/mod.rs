//! `/api/v1` over HTTP (axum): thin handlers over the [`Service`], the spec's error bodies,
//! per-key auth and rate limits, and an OpenAPI document built from the operation list.

pub mod auth;
mod deprecation;
pub mod extract;
mod handler;
pub mod idempotency;
mod openapi;
mod routes;
mod suite_pages;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::handler::Handler;
use axum::http::{Method, StatusCode};
use axum::routing::{MethodFilter, MethodRouter, on};
use std::collections::HashMap;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

use auth::Limiter;
pub use auth::RateLimit;

use crate::operations::{BodyRule, Operation, Visit};
use crate::service::Service;

/// Settings of `evaldeck serve`.
#[derive(Debug, Clone)]
pub struct ApiConfig {
    /// `None` turns rate limiting off (benchmarks, trusted loopback use).
    pub rate_limit: Option<RateLimit>,
    /// The absolute origin links and upload URLs are built from.
    pub public_url: Option<String>,
    /// Requests to upload URLs (which carry no API key) per client address; `None` turns
    /// it off. The spec's figures by default: 60 per minute, bursts of 10.
    pub upload_rate_limit: Option<RateLimit>,
}

impl Default for ApiConfig {
    fn default() -> Self {
        ApiConfig {
            rate_limit: Some(RateLimit::SPEC),
            public_url: None,
            upload_rate_limit: Some(RateLimit::SPEC),
        }
    }
}

pub struct AppState {
    pub service: Service,
    pub limiter: Option<Limiter>,
    /// Upload URLs' limit, keyed by client address.
    pub upload_limiter: Option<Limiter>,
    pub config: ApiConfig,
    pub suite_pages: suite_pages::SuitePages,
}

pub type State = Arc<AppState>;

/// The route table: each registration adds the route and its OpenAPI entry together.
pub(crate) struct Routes {
    router: Router<State>,
    doc: openapi::Doc,
    extension: bool,
    /// Each registered route's handler, so an alias serves exactly the same one.
    handlers: HashMap<(Method, &'static str), MethodRouter<State>>,
    aliases: Vec<deprecation::Alias>,
    /// Listed operations whose hand-written handler is not registered yet.
    handwritten: Vec<&'static str>,
}

impl Routes {
    fn new() -> Self {
        Routes {
            router: Router::new(),
            doc: openapi::Doc::default(),
            extension: false,
            handlers: HashMap::new(),
            aliases: Vec::new(),
            handwritten: Vec::new(),
        }
    }

    /// Serves the older path `old` as a deprecated alias of the route already registered as
    /// `method current`: the same handler behind the same layers, answering with
    /// `Deprecation: true` and a `Link` to the current path, and documented as deprecated.
    /// Panics (at startup, so in every test) on an alias of an unknown route or one whose
    /// path parameters differ from the current path's.
    pub(crate) fn alias(
        mut self,
        method: Method,
        old: &'static str,
        current: &'static str,
    ) -> Self {
        let handler = self
            .handlers
            .get(&(method.clone(), current))
            .unwrap_or_else(|| panic!("alias {old} of an unregistered route {method} {current}"))
            .clone();
        let mut a = deprecation::params(old);
        let mut c = deprecation::params(current);
        a.sort_unstable();
        c.sort_unstable();
        assert_eq!(a, c, "alias {old} must name the parameters of {current}");
        let op = self
            .doc
            .operations
            .iter()
            .find(|o| o.method == openapi::method_name(&method) && o.path == current)
            .expect("a registered route is documented");
        let doc = openapi::Operation {
            path: old,
            successor: Some(current),
            ..op.clone()
        };
        self.doc.operations.push(doc);
        self.router = self.router.route(old, handler);
        self.aliases.push(deprecation::Alias {
            method,
            old,
            current,
        });
        self
    }

    /// Refusals registered after this call are marked as extensions to the published spec
    /// (a listed operation says so itself).
    fn extensions(mut self) -> Self {
        self.extension = true;
        self
    }

    /// Serves `handler` at `method path` and keeps it for aliases.
    fn route(&mut self, method: Method, path: &'static str, handler: MethodRouter<State>) {
        self.handlers.insert((method, path), handler.clone());
        self.router = std::mem::take(&mut self.router).route(path, handler);
    }

    /// Serves a listed operation whose handler is hand-written (the list names why); its
    /// document entry came from the list.
    pub(crate) fn handwritten<O: Operation, H, T>(mut self, handler: H) -> Self
    where
        H: Handler<T, State>,
        T: 'static,
    {
        let before = self.handwritten.len();
        self.handwritten.retain(|name| *name != O::NAME);
        assert!(
            self.handwritten.len() < before,
            "{} is not listed as hand-written, or is registered twice",
            O::NAME
        );
        let filter = MethodFilter::try_from(O::METHOD).expect("a routable method");
        self.route(O::METHOD, O::PATH, on(filter, handler));
        self
    }

    /// A path that answers every method with `handler`'s error (403 for key management),
    /// documented under `documented` for the usual methods with that error as its only
    /// answer. `route` may end in a `{*rest}` wildcard.
    pub(crate) fn refused<H, T>(
        mut self,
        route: &'static str,
        documented: &'static str,
        summary: &'static str,
        status: StatusCode,
        handler: H,
    ) -> Self
    where
        H: Handler<T, State>,
        T: 'static,
    {
        for method in [
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ] {
            self.doc.operations.push(openapi::Operation {
                method: openapi::method_name(&method),
                path: documented,
                summary,
                request: None,
                query: Vec::new(),
                answers: vec![openapi::Answer::error(status.as_u16(), summary)],
                extension: self.extension,
                public: false,
                successor: None,
            });
        }
        self.router = self.router.route(route, axum::routing::any(handler));
        self
    }
}

/// Documents each listed operation in the list's order and serves it with the generic
/// handler, or waits for its hand-written one.
impl Visit for Routes {
    fn visit<O: Operation>(&mut self) {
        let request = (O::BODY != BodyRule::Absent).then(|| self.doc.schema::<O::RequestDoc>());
        let response = self.doc.schema::<O::Response>();
        let query = self.doc.query::<O::Query>();
        let mut answers = vec![openapi::Answer::success(O::STATUS, response)];
        if let Some((status, description)) = O::ALSO {
            let schema = self.doc.schema::<O::Also>();
            answers.push(openapi::Answer {
                status,
                description,
                schema,
            });
        }
        self.doc.operations.push(openapi::Operation {
            method: openapi::method_name(&O::METHOD),
            path: O::PATH,
            summary: O::SUMMARY,
            request,
            query,
            answers,
            extension: O::EXTENSION,
            public: false,
            successor: None,
        });
        match O::HANDWRITTEN {
            None => {
                let filter = MethodFilter::try_from(O::METHOD).expect("a routable method");
                self.route(O::METHOD, O::PATH, on(filter, handler::serve::<O>));
            }
            Some(_) => self.handwritten.push(O::NAME),
        }
    }
}

/// The whole application: `/api/v1/…` with auth, limits, logs and error bodies everywhere.
pub fn router(service: Service, config: ApiConfig) -> Router {
    let state = Arc::new(AppState {
        limiter: config.rate_limit.map(Limiter::new),
        upload_limiter: config.upload_rate_limit.map(Limiter::new),
        service,
        config,
        suite_pages: Default::default(),
    });
    let routes = routes::aliases(routes::table(Routes::new()));
    assert!(
        routes.handwritten.is_empty(),
        "listed operations without their hand-written handler: {:?}",
        routes.handwritten
    );
    let aliases = Arc::new(deprecation::Aliases::new("/api/v1", routes.aliases));
    let mut doc = routes.doc;
    // Upload URLs carry their own authorization: served outside the API-key layer.
    let upload_response = doc.schema::<crate::spec::ingest::ArtifactUploaded>();
    doc.operations.push(openapi::Operation {
        method: "post",
        path: "/eval-ingest/uploads/{token}",
        summary: "Upload a JUnit XML, Jest JSON or Vitest JSON artifact, or (additive) an HTML widget snapshot, to a URL minted by artifacts/upload-url (raw file body, no Authorization header; single use)",
        request: None,
        query: Vec::new(),
        answers: vec![openapi::Answer::success(200, upload_response)],
        extension: false,
        public: true,
        successor: None,
    });
    let spec = Arc::new(doc.render("/api/v1"));
    let authed = routes
        .router
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        // Layers run outermost-last-added: mark deprecated aliases (on every answer,
        // 401, 429 and replays included), authenticate, then idempotency.
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            idempotency::layer,
        ))
        .layer(axum::middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ))
        .layer(axum::middleware::from_fn_with_state(
            aliases,
            deprecation::mark,
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
