//! Who drives what: leases on eval runs, authoring jobs and idempotency claims.
//!
//! Every process that opens the store (serve, the workbench, a CLI command) is a worker
//! with its own id. A run or job it starts or takes over, and an idempotency key claimed by
//! a request it serves, carries that id (`owner`) and a lease (`lease_until`, epoch ms),
//! which the worker renews every [`LeaseOptions::renew`] for as long as the task is alive
//! in it. Every [`LeaseOptions::sweep`] (and once when the store is opened) each worker
//! *sweeps*: active runs and pending jobs whose lease ran out are taken over — a run is
//! resumed from its first unfinished iteration, or marked `failed` with an `error` when it
//! cannot be resumed; a job is resumed or failed likewise — and idempotency claims whose
//! request died are settled (released if nothing was written, else answered with what
//! happened). A graceful shutdown (SIGTERM, SIGINT, closing the workbench) stops its tasks
//! and gives up its leases at once, so the next process takes over on its first sweep.
//!
//! Nothing depends on how long the service was down: after any restart an interrupted run
//! is back in a live worker's hands within `lease + sweep` (at most twice the lease, since
//! the sweep is shorter than the lease), and at once after a graceful stop. A task that
//! dies inside a live worker (a panic) stops being renewed and is taken over the same way.
//! A worker that was frozen past its lease finds, on its next write, that the run is no
//! longer its own and stops driving it; iteration results and job completions are written
//! only by the current owner, and a credit is charged in the transaction that stores what
//! it paid for, so a take-over never charges twice.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::Service;
use super::store::idempotency::ClaimKey;
use super::store::leases::Held;
use super::store::now_ms;

/// Lease timers (all configurable, so tests run them in milliseconds).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LeaseOptions {
    /// How long a lease lasts without renewal.
    pub lease: Duration,
    /// How often a worker renews what it holds (well under `lease`).
    pub renew: Duration,
    /// How often a worker looks for what no live worker holds.
    pub sweep: Duration,
}

impl Default for LeaseOptions {
    /// A 6 s lease renewed and swept every 2 s: an interrupted run is taken over within
    /// 8 s of the crash (twice the lease at most), at once after a graceful stop.
    fn default() -> Self {
        LeaseOptions::from_lease(Duration::from_secs(6))
    }
}

impl LeaseOptions {
    /// A lease of `lease`, renewed and swept every third of it.
    pub fn from_lease(lease: Duration) -> LeaseOptions {
        let third = (lease / 3).max(Duration::from_millis(1));
        LeaseOptions {
            lease,
            renew: third,
            sweep: third,
        }
    }

    /// The end of a lease taken now.
    pub fn until(&self) -> i64 {
        now_ms() + self.lease.as_millis() as i64
    }
}

/// The idempotency claims this worker's requests hold.
#[derive(Default)]
pub struct Claims {
    held: Mutex<Vec<ClaimKey>>,
}

impl Claims {
    pub fn hold(&self, c: &ClaimKey) {
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(c.clone());
    }

    pub fn drop_claim(&self, c: &ClaimKey) {
        let mut h = self.held.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = h.iter().position(|x| x == c) {
            h.swap_remove(i);
        }
    }

    fn list(&self) -> Vec<(String, String, String)> {
        self.held
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|c| (c.org_id.clone(), c.user_id.clone(), c.key.clone()))
            .collect()
    }
}

/// The renew-and-sweep task of one service.
#[derive(Default)]
pub struct Worker {
    token: Mutex<Option<CancellationToken>>,
}

impl Worker {
    fn stop(&self) {
        if let Some(t) = self.token.lock().unwrap_or_else(|p| p.into_inner()).take() {
            t.cancel();
        }
    }
}

impl Service {
    /// This process's id as an owner of runs, jobs and claims.
    pub fn worker_id(&self) -> &str {
        &self.runs().owner
    }

    /// Renews the leases of everything this worker drives.
    pub fn renew_leases(&self) -> crate::spec::Result<()> {
        let held = Held {
            runs: self.runs().ids(),
            jobs: self.jobs().ids(),
            claims: self.inner.claims.list(),
        };
        self.store()
            .renew_leases(self.worker_id(), &held, self.config().leases.until())
    }

    /// Takes over runs and jobs no live worker holds and settles dead idempotency claims.
    pub fn sweep(&self) -> crate::spec::Result<()> {
        let now = now_ms();
        let swept = self.store().sweep_claims(now)?;
        if swept != Default::default() {
            tracing::info!(
                released = swept.released,
                resolved = swept.resolved,
                "settled idempotency keys whose request died"
            );
        }
        if tokio::runtime::Handle::try_current().is_err() {
            return Ok(());
        }
        super::evals::recover(self)?;
        self.recover_jobs()
    }

    /// Starts the renew-and-sweep task (once; needs a tokio runtime). It holds the service
    /// weakly: dropping every handle ends it, and so does [`Service::shutdown`].
    pub(crate) fn start_worker(&self) {
        if tokio::runtime::Handle::try_current().is_err() {
            return;
        }
        let token = {
            let mut slot = self
                .inner
                .worker
                .token
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if slot.is_some() {
                return;
            }
            let t = CancellationToken::new();
            *slot = Some(t.clone());
            t
        };
        let weak = Arc::downgrade(&self.inner);
        let opts = self.config().leases;
        tokio::spawn(async move {
            let mut renew = tokio::time::interval(opts.renew);
            let mut sweep = tokio::time::interval(opts.sweep);
            renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            sweep.tick().await; // the first sweep ran when the store was opened
            loop {
                let renewing = tokio::select! {
                    _ = token.cancelled() => break,
                    _ = renew.tick() => true,
                    _ = sweep.tick() => false,
                };
                let Some(inner) = weak.upgrade() else { break };
                let service = Service { inner };
                let r = if renewing {
                    service.renew_leases()
                } else {
                    service.sweep()
                };
                if let Err(e) = r {
                    tracing::warn!(error = %e.message, "lease upkeep failed");
                }
            }
        });
    }

    /// Stops renewing and gives every lease up (graceful shutdown).
    pub(crate) fn release_leases(&self) {
        self.inner.worker.stop();
        if let Err(e) = self.store().release_leases(self.worker_id()) {
            tracing::warn!(error = %e.message, "cannot release leases");
        }
    }

    /// Stops everything this service drives — lease upkeep, the scheduler, runs, jobs —
    /// without recording or releasing anything, as if its process had been killed: what it
    /// held is left to the leases. For recovery tests inside one process.
    pub fn abandon(&self) {
        self.inner.worker.stop();
        self.inner.scheduler.stop();
        self.jobs().stop_all();
        self.runs().abort_all();
    }

    pub fn claims(&self) -> &Claims {
        &self.inner.claims
    }
}
