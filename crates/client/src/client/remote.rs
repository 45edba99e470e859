//! `/api/v1` over HTTP. Error bodies map back to the same [`Error`]; 429 is retried after
//! `Retry-After` with jitter; nothing else is retried (an unknown code is not retryable).
//! Every exchange has an overall timeout ([`Remote::DEFAULT_TIMEOUT`], configurable).

use async_trait::async_trait;
use rand::Rng;
use reqwest::{Method, StatusCode, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::time::Duration;

use super::{Backend, Target};
use crate::operations::{self, BodyRule, Operation, QueryParams};
use crate::spec::{Code, Error, Result};

/// How a rate-limited request is retried.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Attempts after the first; 0 turns retrying off.
    pub retries: u32,
    /// Upper bound on one wait, whatever `Retry-After` says.
    pub max_wait: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            retries: 3,
            max_wait: Duration::from_secs(60),
        }
    }
}

const DEFAULT_TIMEOUT: Duration = Remote::DEFAULT_TIMEOUT;
const TIMEOUT_ENV: &str = Remote::TIMEOUT_ENV;

pub struct Remote {
    http: reqwest::Client,
    base: Url,
    key: String,
    retry: RetryPolicy,
    timeout: Duration,
}

/// The timeout `EVALDECK_REQUEST_TIMEOUT` asks for, or the default; a value that is not a
/// positive whole number of seconds is refused rather than ignored.
fn timeout_from_env() -> Result<Duration> {
    match std::env::var(TIMEOUT_ENV) {
        Err(_) => Ok(DEFAULT_TIMEOUT),
        Ok(v) => match v.trim().parse::<u64>() {
            Ok(n) if n > 0 => Ok(Duration::from_secs(n)),
            _ => Err(Error::invalid(
                &format!("/{TIMEOUT_ENV}"),
                "range",
                format!("{TIMEOUT_ENV} must be a whole number of seconds above 0 (got `{v}`)"),
            )),
        },
    }
}

fn client(timeout: Duration) -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .user_agent(concat!("evaldeck/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(10).min(timeout))
        .timeout(timeout)
        .build()
        .map_err(|e| Error::internal(format!("cannot build the HTTP client: {e}")))
}

impl Remote {
    /// The overall limit on one HTTP exchange (connect, send, the server's work, the
    /// answer) unless `EVALDECK_REQUEST_TIMEOUT` (seconds) or [`Remote::with_timeout`] sets
    /// another. Longer than anything the service holds a request open for on purpose — one
    /// MCP request (capped at 600 s however much progress it reports), an agent turn (90 s),
    /// the import's wait window (10 s) — so the server's own `TIMEOUT` answer arrives
    /// first, while a server that stopped answering cannot hang a script forever.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(660);

    /// The environment variable that overrides [`Remote::DEFAULT_TIMEOUT`], in seconds.
    pub const TIMEOUT_ENV: &'static str = "EVALDECK_REQUEST_TIMEOUT";

    /// `base` is the API base ending in `/api/v1` (added if missing).
    pub fn new(base: &str, key: &str) -> Result<Remote> {
        let mut base = Url::parse(base.trim_end_matches('/'))
            .map_err(|e| Error::invalid("/baseUrl", "url", format!("not a URL: {e}")))?;
        if !base.path().ends_with("/api/v1") {
            let p = format!("{}/api/v1", base.path().trim_end_matches('/'));
            base.set_path(&p);
        }
        let timeout = timeout_from_env()?;
        Ok(Remote {
            http: client(timeout)?,
            base,
            key: key.to_string(),
            retry: RetryPolicy::default(),
            timeout,
        })
    }

    pub fn with_retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// Sets the overall limit on one HTTP exchange (each retry gets its own).
    pub fn with_timeout(mut self, timeout: Duration) -> Result<Self> {
        self.http = client(timeout)?;
        self.timeout = timeout;
        Ok(self)
    }

    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    fn url(&self, segments: &[&str]) -> Url {
        let mut u = self.base.clone();
        u.path_segments_mut()
            .expect("an http base")
            .extend(segments);
        u
    }

    /// Any listed operation: the URL from its template, its query, and its body unless it
    /// has none.
    pub(super) async fn send<O: Operation>(
        &self,
        path: &O::Path,
        query: &O::Query,
        body: &O::Body,
    ) -> Result<O::Response> {
        let body = (O::BODY != BodyRule::Absent).then_some(body);
        let query = query.encode()?;
        self.call(O::METHOD, &operations::segments::<O>(path), query, body)
            .await
    }

    /// Sends one request, retrying 429s, and decodes the success body or the error body.
    async fn call<B: Serialize + ?Sized, T: DeserializeOwned>(
        &self,
        method: Method,
        segments: &[&str],
        query: Option<String>,
        body: Option<&B>,
    ) -> Result<T> {
        let mut url = self.url(segments);
        if let Some(qs) = query {
            url.set_query((!qs.is_empty()).then_some(qs.as_str()));
        }
        let mut attempt = 0;
        loop {
            let mut req = self
                .http
                .request(method.clone(), url.clone())
                .bearer_auth(&self.key);
            if let Some(b) = body {
                req = req.json(b);
            }
            let res = req.send().await.map_err(|e| self.transport_error(e))?;
            let status = res.status();
            let retry_after = res
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.trim().parse::<u64>().ok());
            let bytes = res.bytes().await.map_err(|e| {
                if e.is_timeout() {
                    self.transport_error(e)
                } else {
                    Error::new(
                        Code::ServerUnreachable,
                        format!("the response was cut off: {e}"),
                    )
                }
            })?;
            if status.is_success() {
                return serde_json::from_slice(&bytes)
                    .map_err(|e| Error::internal(format!("unexpected response from {url}: {e}")));
            }
            let mut err = serde_json::from_slice::<Error>(&bytes).unwrap_or_else(|_| {
                Error::new(
                    Code::from_status(status.as_u16()),
                    format!(
                        "{status} from {url}: {}",
                        String::from_utf8_lossy(&bytes)
                            .chars()
                            .take(200)
                            .collect::<String>()
                    ),
                )
            });
            if status == StatusCode::TOO_MANY_REQUESTS {
                let secs = retry_after.or(err.retry_after()).unwrap_or(1);
                let mut d = err.details.take().unwrap_or_else(|| serde_json::json!({}));
                d["retryAfterSeconds"] = serde_json::json!(secs);
                err.details = Some(d);
                if attempt < self.retry.retries && err.reason().is_none() {
                    attempt += 1;
                    let jitter = rand::rng().random_range(0..=250u64);
                    let wait = (Duration::from_secs(secs) + Duration::from_millis(jitter))
                        .min(self.retry.max_wait);
                    tracing::info!(?wait, attempt, "rate limited; retrying");
                    tokio::time::sleep(wait).await;
                    continue;
                }
            }
            return Err(err);
        }
    }

    /// A request that got no (whole) answer: `TIMEOUT` when the overall limit ran out
    /// (never retried: the server may have acted on it), else `SERVER_UNREACHABLE`.
    fn transport_error(&self, e: reqwest::Error) -> Error {
        if e.is_timeout() {
            Error::new(
                Code::Timeout,
                format!(
                    "no answer from {} within {} s ({TIMEOUT_ENV} sets the limit)",
                    self.base,
                    self.timeout.as_secs_f64()
                ),
            )
        } else {
            Error::new(
                Code::ServerUnreachable,
                format!("cannot reach {}: {e}", self.base),
            )
        }
    }
}

#[async_trait]
impl Backend for Remote {
    fn describe(&self) -> String {
        format!("remote: {}", self.base)
    }

    fn target(&self) -> Target<'_> {
        Target::Remote(self)
    }
}
