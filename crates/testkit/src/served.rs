//! The contract-test harness: a real `serve` on `127.0.0.1:0` over a fresh database per
//! test, keys for the local owner and for other members, raw HTTP helpers, and both
//! backends (`Embedded` and `Remote`) acting as the same principal.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use evaldeck_api::api::{self, ApiConfig, RateLimit};
use evaldeck_client::client::{Backend, Embedded, Remote, RetryPolicy};
use evaldeck_core::service::store::projects::ProjectRole;
use evaldeck_core::service::{Config, Principal, Service};
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap};
use reqwest::{Method, StatusCode};
use serde_json::Value;
use tempfile::TempDir;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A served API over its own database; stops serving when dropped.
pub struct Harness {
    pub service: Service,
    pub addr: SocketAddr,
    /// `http://127.0.0.1:PORT/api/v1`.
    pub base: String,
    pub http: reqwest::Client,
    /// The local owner of the first-run organization, and a key minted for it.
    pub owner: Principal,
    pub owner_key: String,
    /// The seeded "Demo" project of the local organization.
    pub project: String,
    shutdown: Option<oneshot::Sender<()>>,
    // Last, so the database outlives everything that uses it.
    _dir: TempDir,
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

static SEQ: AtomicUsize = AtomicUsize::new(0);

fn seq() -> usize {
    SEQ.fetch_add(1, Ordering::Relaxed)
}

impl Harness {
    /// Serves with rate limiting off.
    pub async fn start() -> Harness {
        Harness::with_rate_limit(None).await
    }

    pub async fn with_rate_limit(rate_limit: Option<RateLimit>) -> Harness {
        Harness::with_api(ApiConfig {
            rate_limit,
            ..ApiConfig::default()
        })
        .await
    }

    /// Serves with these HTTP settings.
    pub async fn with_api(api_config: ApiConfig) -> Harness {
        Harness::serve(demo_config(), api_config).await
    }

    /// Serves a service of this config (rate limiting off).
    pub async fn with_config(config: Config) -> Harness {
        Harness::serve(
            config,
            ApiConfig {
                rate_limit: None,
                ..ApiConfig::default()
            },
        )
        .await
    }

    async fn serve(config: Config, api_config: ApiConfig) -> Harness {
        let dir = tempfile::tempdir().expect("a temp dir");
        let service = Service::open(&dir.path().join("db.sqlite3"), config).expect("open");
        let app = api::router(service.clone(), api_config);
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("an address");
        let (tx, rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            api::serve(listener, app, async {
                let _ = rx.await;
            })
            .await
            .expect("serve");
        });
        let owner = service.local_principal().expect("the local owner");
        let owner_key = service
            .store()
            .create_key(&owner.org_id, &owner.user_id, "tests")
            .expect("a key")
            .key;
        // The principal exactly as the key authenticates (with its key id).
        let owner = service.authenticate(&owner_key).expect("the key works");
        let project = service
            .store()
            .default_project(&owner.org_id)
            .expect("read")
            .expect("the seeded Demo project");
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .expect("a client");
        Harness {
            service,
            addr,
            base: format!("http://{addr}/api/v1"),
            http,
            owner,
            owner_key,
            project,
            shutdown: Some(tx),
            _dir: dir,
        }
    }

    /// A fresh key for a member of `org`, and the principal it authenticates as.
    pub fn key_for(&self, org_id: &str, user_id: &str) -> (Principal, String) {
        let key = self
            .service
            .store()
            .create_key(org_id, user_id, &format!("key {}", seq()))
            .expect("a key")
            .key;
        let who = self.service.authenticate(&key).expect("a fresh key works");
        (who, key)
    }

    /// A new user of the local organization with `org_role` (`owner`, `admin`, `member`),
    /// optionally a member of `project` with `project_role`; with a key.
    pub fn member(
        &self,
        org_role: &str,
        project: Option<(&str, ProjectRole)>,
    ) -> (Principal, String) {
        let n = seq();
        let store = self.service.store();
        let user = store
            .create_user(&format!("user{n}@test.localhost"), &format!("User {n}"))
            .expect("a user");
        store
            .set_member(&self.owner.org_id, &user.id, org_role)
            .expect("membership");
        if let Some((p, role)) = project {
            store
                .set_project_member(p, &user.id, role)
                .expect("project membership");
        }
        self.key_for(&self.owner.org_id, &user.id)
    }

    /// Another organization with its own owner, one project and a key for that owner:
    /// `(principal, key, project id)`.
    pub fn other_org(&self) -> (Principal, String, String) {
        let n = seq();
        let store = self.service.store();
        let user = store
            .create_user(&format!("other{n}@test.localhost"), &format!("Other {n}"))
            .expect("a user");
        let org = store
            .create_org(&format!("Other org {n}"), &user.id, 50)
            .expect("an org");
        let project = store
            .create_project(&org.id, "Elsewhere", None)
            .expect("a project");
        let (who, key) = self.key_for(&org.id, &user.id);
        (who, key, project.id)
    }

    /// A project of the local organization (each backend gets its own in shared tests).
    pub fn new_project(&self, name: &str) -> String {
        self.service
            .store()
            .create_project(&self.owner.org_id, name, None)
            .expect("a project")
            .id
    }

    pub fn remote(&self, key: &str) -> Remote {
        Remote::new(&self.base, key)
            .expect("a base URL")
            .with_retry(RetryPolicy {
                retries: 0,
                ..RetryPolicy::default()
            })
    }

    pub fn embedded(&self, who: &Principal) -> Embedded {
        Embedded::as_principal(self.service.clone(), who.clone())
    }

    /// Both backends acting as one principal: in-process and over HTTP with its key.
    pub fn backends(&self, who: &Principal, key: &str) -> Vec<(&'static str, Box<dyn Backend>)> {
        vec![
            ("embedded", Box::new(self.embedded(who))),
            ("remote", Box::new(self.remote(key))),
        ]
    }

    /// An absolute URL for a path under `/api/v1` (`/me`, `/projects?…`).
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A JSON request (or none) with an optional key.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<Value>,
    ) -> Resp {
        let mut rb = self.http.request(method, self.url(path));
        if let Some(k) = key {
            rb = rb.bearer_auth(k);
        }
        if let Some(b) = body {
            rb = rb.json(&b);
        }
        Resp::from(rb.send().await.expect("the server answers")).await
    }

    pub async fn get(&self, path: &str, key: &str) -> Resp {
        self.call(Method::GET, path, Some(key), None).await
    }

    /// A request with raw body bytes, an optional content type and optional key.
    pub async fn raw(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        content_type: Option<&str>,
        body: Vec<u8>,
    ) -> Resp {
        let mut rb = self.http.request(method, self.url(path)).body(body);
        if let Some(k) = key {
            rb = rb.header(AUTHORIZATION, format!("Bearer {k}"));
        }
        if let Some(ct) = content_type {
            rb = rb.header(CONTENT_TYPE, ct);
        }
        Resp::from(rb.send().await.expect("the server answers")).await
    }
}

/// A response as a user sees it: status, headers, the body parsed as JSON.
#[derive(Debug)]
pub struct Resp {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub text: String,
    pub body: Value,
}

impl Resp {
    pub async fn from(res: reqwest::Response) -> Resp {
        let status = res.status();
        let headers = res.headers().clone();
        let text = res.text().await.expect("a body");
        let body = serde_json::from_str(&text).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            text,
            body,
        }
    }

    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or_default()
    }

    pub fn reason(&self) -> Option<&str> {
        self.body["details"]["reason"].as_str()
    }

    /// `(path, rule)` of each violation in `details.errors`.
    pub fn violations(&self) -> Vec<(String, String)> {
        self.body["details"]["errors"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|v| {
                        (
                            v["path"].as_str().unwrap_or_default().to_string(),
                            v["rule"].as_str().unwrap_or_default().to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Asserts a success status and returns the body.
    #[track_caller]
    pub fn ok(&self, status: u16) -> &Value {
        assert_eq!(self.status.as_u16(), status, "{}", self.text);
        &self.body
    }

    /// Asserts the spec's error body: the status, `code`, a non-empty `message`, JSON.
    #[track_caller]
    pub fn err(&self, status: u16, code: &str) -> &Self {
        assert_eq!(self.status.as_u16(), status, "{}", self.text);
        assert_eq!(self.code(), code, "{}", self.text);
        assert!(
            self.body["message"].as_str().is_some_and(|m| !m.is_empty()),
            "an error has a message: {}",
            self.text
        );
        let ct = self
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(ct.starts_with("application/json"), "content type {ct}");
        self
    }

    /// Asserts a 400 `VALIDATION_ERROR` with a violation of `rule` (at any path).
    #[track_caller]
    pub fn invalid_rule(&self, rule: &str) -> &Self {
        self.err(400, "VALIDATION_ERROR");
        let v = self.violations();
        assert!(
            v.iter().any(|(_, r)| r == rule),
            "expected {rule:?} in {v:?}"
        );
        self
    }

    /// Asserts a 400 `VALIDATION_ERROR` naming `(path, rule)` among its violations.
    #[track_caller]
    pub fn invalid(&self, path: &str, rule: &str) -> &Self {
        self.err(400, "VALIDATION_ERROR");
        let v = self.violations();
        assert!(
            v.iter().any(|(p, r)| p == path && r == rule),
            "expected ({path:?}, {rule:?}) in {v:?}"
        );
        self
    }
}

impl Harness {
    /// The database file of this harness.
    pub fn db_path(&self) -> std::path::PathBuf {
        self._dir.path().join("db.sqlite3")
    }
}

/// A config whose seeded demo server is the `evaldeck` binary cargo built.
pub fn demo_config() -> Config {
    Config {
        demo_command: crate::evaldeck_bin(),
        ..Config::default()
    }
}

impl Harness {
    /// A POST with extra headers.
    pub async fn post_with(
        &self,
        path: &str,
        key: &str,
        headers: &[(&str, &str)],
        body: Value,
    ) -> Resp {
        let mut rb = self.http.post(self.url(path)).bearer_auth(key).json(&body);
        for (k, v) in headers {
            rb = rb.header(*k, *v);
        }
        Resp::from(rb.send().await.expect("the server answers")).await
    }
}

/// The first-run owner and the organization's default project of a service.
pub fn local_project(service: &Service) -> (Principal, String) {
    let who = service.local_principal().unwrap();
    let project = service
        .store()
        .default_project(&who.org_id)
        .unwrap()
        .unwrap();
    (who, project)
}

/// A database for tests that run the CLI binary: the first-run seed plus `suites` (bodies of
/// `POST eval-suites`) in the default project. The service is closed before it returns.
pub fn cli_db(dir: &std::path::Path, suites: &[Value]) -> std::path::PathBuf {
    let db = dir.join("cli.sqlite3");
    let service = Service::open(&db, demo_config()).unwrap();
    let (who, project) = local_project(&service);
    for body in suites {
        let body: evaldeck_contract::spec::suite::SuiteCreate =
            serde_json::from_value(body.clone()).expect("a suite body");
        service.create_suite(&who, &project, &body).unwrap();
    }
    db
}
