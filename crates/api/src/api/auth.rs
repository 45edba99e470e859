//! Authentication (`Authorization: Bearer sk_…`) and the per-key rate limit.

use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use governor::clock::{Clock, DefaultClock};
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use super::AppState;
use crate::spec::Error;

/// Per-key request rate: `per_minute` sustained, `burst` at once.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Time for one request's worth of allowance to come back.
    pub replenish: Duration,
    pub burst: u32,
}

impl RateLimit {
    /// The spec's limit: 60 per minute sustained, bursts up to 10.
    pub const SPEC: RateLimit = RateLimit {
        replenish: Duration::from_secs(1),
        burst: 10,
    };

    pub fn per_minute(n: u32, burst: u32) -> RateLimit {
        RateLimit {
            replenish: Duration::from_secs(60) / n.max(1),
            burst,
        }
    }
}

pub struct Limiter {
    inner: RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock>,
}

impl Limiter {
    pub fn new(limit: RateLimit) -> Limiter {
        let quota = Quota::with_period(limit.replenish)
            .expect("a non-zero period")
            .allow_burst(NonZeroU32::new(limit.burst.max(1)).expect("non-zero"));
        Limiter {
            inner: RateLimiter::keyed(quota),
        }
    }

    /// `Ok` if the key may go on, else the whole seconds to wait (at least 1).
    pub fn check(&self, key: &str) -> Result<(), u64> {
        self.inner.check_key(&key.to_string()).map_err(|not_until| {
            let wait = not_until.wait_time_from(DefaultClock::default().now());
            (wait.as_millis().div_ceil(1000) as u64).max(1)
        })
    }
}

fn bearer(req: &Request) -> Result<&str, Error> {
    let value = req
        .headers()
        .get(AUTHORIZATION)
        .ok_or_else(|| Error::unauthorized("missing API key: send `Authorization: Bearer sk_…`"))?;
    let value = value
        .to_str()
        .map_err(|_| Error::unauthorized("malformed Authorization header"))?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(Error::unauthorized(
            "the Authorization header must be `Bearer sk_…`",
        ));
    }
    Ok(token.trim())
}

/// Resolves the caller, applies its rate limit, and hands the principal to the handler.
pub async fn authenticate(
    State(state): State<Arc<AppState>>,
    mut req: Request,
    next: Next,
) -> Response {
    let principal = match bearer(&req).and_then(|key| state.service.authenticate(key)) {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    if let Some(limiter) = &state.limiter {
        let key = principal.key_id.clone().unwrap_or_default();
        if let Err(secs) = limiter.check(&key) {
            return Error::rate_limited(secs, None).into_response();
        }
    }
    req.extensions_mut().insert(principal);
    next.run(req).await
}
