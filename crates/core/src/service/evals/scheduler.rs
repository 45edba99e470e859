//! Scheduled runs: a tokio task owned by the service that fires due suite schedules.
//!
//! - **Who runs it.** `evaldeck serve` and the workbench's embedded core call
//!   [`Service::start_scheduler`]; one-shot CLI commands never do, so a `runs list` does
//!   not launch anything behind the user's back.
//! - **Ticks.** Every `tick` (configurable, see [`ScheduleOptions`]) the task reads the
//!   enabled schedules whose `next_run_at` has passed on the [`Clock`], first thing on start
//!   too.
//! - **Claiming.** Each due schedule is claimed by a compare-and-set on `next_run_at` in
//!   SQLite (with its `pending` firing row, in one transaction): two processes on one file
//!   or a restart never fire the same due time twice. A firing is at most once: a process
//!   that dies between the claim and the launch leaves a firing that the next start marks
//!   `skipped` with reason `INTERRUPTED`.
//! - **Timing.** The next due time is the previous one plus the interval, so firings do
//!   not drift; when that is already past (the process was down), the missed firings
//!   collapse into the one firing now and the next is scheduled from now.
//! - **Launch.** Through the same path as `POST eval-runs`, as the member who last set the
//!   schedule (their current organization role), with the pinned environment: the run is
//!   `source: "api"` and `trigger: "schedule"`. Any launch error (the concurrency cap, an
//!   environment that was detached or changed, the member gone) records the firing as
//!   `skipped` with the error's reason and message, and the schedule moves on.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::service::store::schedules::DueSchedule;
use crate::service::{Principal, Service};
use crate::spec::run::{RunCreate, RunSource};
use crate::spec::schedule::{FiringOutcome, ScheduleFiring};
use crate::spec::{Error, Result};

/// Where schedules read the time: the system clock, or a [`FakeClock`] tests move by hand.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// Epoch milliseconds.
    fn now_ms(&self) -> i64;
}

/// The real time.
#[derive(Debug, Default, Clone, Copy)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now_ms(&self) -> i64 {
        crate::service::store::now_ms()
    }
}

/// A clock that only moves when told to, so tests can step over a due time.
#[derive(Debug)]
pub struct FakeClock {
    ms: AtomicI64,
}

impl FakeClock {
    pub fn new(start_ms: i64) -> Arc<FakeClock> {
        Arc::new(FakeClock {
            ms: AtomicI64::new(start_ms),
        })
    }

    pub fn advance(&self, by: Duration) {
        self.ms.fetch_add(by.as_millis() as i64, Ordering::SeqCst);
    }

    pub fn set(&self, ms: i64) {
        self.ms.store(ms, Ordering::SeqCst);
    }
}

impl Clock for FakeClock {
    fn now_ms(&self) -> i64 {
        self.ms.load(Ordering::SeqCst)
    }
}

/// Scheduler settings.
#[derive(Debug, Clone)]
pub struct ScheduleOptions {
    /// How often the task looks for due schedules (a firing is at most this late).
    pub tick: Duration,
    /// The time schedules are computed and fired against.
    pub clock: Arc<dyn Clock>,
    /// Firings listed in a schedule's `recentFirings`.
    pub recent_firings: usize,
}

impl Default for ScheduleOptions {
    fn default() -> Self {
        ScheduleOptions {
            tick: Duration::from_secs(5),
            clock: Arc::new(SystemClock),
            recent_firings: 10,
        }
    }
}

/// The running scheduler task of one service, if started.
#[derive(Default)]
pub struct Scheduler {
    token: Mutex<Option<CancellationToken>>,
}

impl Scheduler {
    /// Stops the task after its current tick.
    pub fn stop(&self) {
        if let Some(t) = self.token.lock().unwrap_or_else(|p| p.into_inner()).take() {
            t.cancel();
        }
    }
}

/// `details.reason` of a launch error, else its code: what a skipped firing records.
fn skip_reason(e: &Error) -> String {
    e.reason()
        .map(str::to_string)
        .unwrap_or_else(|| e.code.as_str().to_string())
}

impl Service {
    /// Starts the scheduler task (once per service; `false` if it already runs or there is
    /// no tokio runtime). Firings a dead process left `pending` are marked interrupted first.
    pub fn start_scheduler(&self) -> bool {
        if tokio::runtime::Handle::try_current().is_err() {
            return false;
        }
        let token = {
            let mut slot = self
                .inner
                .scheduler
                .token
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if slot.is_some() {
                return false;
            }
            let t = CancellationToken::new();
            *slot = Some(t.clone());
            t
        };
        match self.store().interrupt_pending_firings() {
            Ok(0) => {}
            Ok(n) => tracing::warn!(firings = n, "marked interrupted schedule firings skipped"),
            Err(e) => tracing::warn!(error = %e.message, "cannot recover schedule firings"),
        }
        // The task holds the service weakly: dropping every handle ends it too.
        let weak = Arc::downgrade(&self.inner);
        let tick = self.config().schedules.tick;
        tokio::spawn(async move {
            loop {
                let Some(inner) = weak.upgrade() else { break };
                let service = Service { inner };
                if let Err(e) = service.fire_due_schedules().await {
                    tracing::warn!(error = %e.message, "schedule tick failed");
                }
                drop(service);
                tokio::select! {
                    _ = token.cancelled() => break,
                    _ = tokio::time::sleep(tick) => {}
                }
            }
        });
        true
    }

    /// Fires every schedule due now (on the configured clock) that this call manages to
    /// claim, and returns those firings.
    pub async fn fire_due_schedules(&self) -> Result<Vec<ScheduleFiring>> {
        let now = self.config().schedules.clock.now_ms();
        let mut out = Vec::new();
        for due in self.store().due_schedules(now)? {
            let interval = due.interval_minutes.max(1) * 60_000;
            let mut next = due.next_run_at + interval;
            if next <= now {
                next = now + interval;
            }
            let Some(id) = self.store().claim_firing(&due, next, now)? else {
                continue;
            };
            let (outcome, reason, message, run_id) = match self.launch_firing(&due).await {
                Ok(run) => {
                    tracing::info!(suite = %due.suite_id, run = %run, "scheduled run launched");
                    (FiringOutcome::Launched, None, None, Some(run))
                }
                Err(e) => {
                    tracing::warn!(suite = %due.suite_id, error = %e.message, "scheduled run skipped");
                    (
                        FiringOutcome::Skipped,
                        Some(skip_reason(&e)),
                        Some(e.message),
                        None,
                    )
                }
            };
            self.store().finish_firing(
                &due.suite_id,
                &id,
                outcome,
                reason.as_deref(),
                message.as_deref(),
                run_id.as_deref(),
            )?;
            out.push(ScheduleFiring {
                id,
                due_at: due.next_run_at,
                fired_at: now,
                outcome,
                reason,
                message,
                run_id,
            });
        }
        Ok(out)
    }

    /// Launches one firing's run as the member who set the schedule.
    async fn launch_firing(&self, due: &DueSchedule) -> Result<String> {
        let role = self
            .store()
            .org_role(&due.org_id, &due.user_id)?
            .ok_or_else(|| {
                Error::forbidden(
                    "the member who set the schedule is no longer in the organization; set it again",
                )
            })?;
        let who = Principal {
            user_id: due.user_id.clone(),
            org_id: due.org_id.clone(),
            org_role: role,
            key_id: None,
        };
        let body = RunCreate {
            suite_id: Some(due.suite_id.clone()),
            environment_id: due.environment_id.clone(),
            ..RunCreate::default()
        };
        let created = self
            .launch_run(&who, &due.project_id, &body, RunSource::Api, "schedule")
            .await?;
        Ok(created.run_id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fake_clock_moves_only_when_told() {
        let c = FakeClock::new(1_000);
        assert_eq!(c.now_ms(), 1_000);
        c.advance(Duration::from_secs(2));
        assert_eq!(c.now_ms(), 3_000);
        c.set(10);
        assert_eq!(c.now_ms(), 10);
        assert!(SystemClock.now_ms() > 1_600_000_000_000);
    }

    #[test]
    fn skips_record_the_reason_else_the_code() {
        let e = Error::rate_limited(5, Some("CONCURRENT_RUN_LIMIT"));
        assert_eq!(skip_reason(&e), "CONCURRENT_RUN_LIMIT");
        assert_eq!(skip_reason(&Error::conflict("changed")), "CONFLICT");
    }
}
