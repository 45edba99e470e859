//! `PATCH eval-suites/{s}/schedule` and `GET …/schedule` (extension): a suite's scheduled
//! runs. The firing itself is [`evals::scheduler`](super::evals::scheduler).
//!
//! Decisions where the spec is silent:
//! - Any project member may set a schedule (as for editing the suite); the firings then
//!   run as that member, with their organization role at firing time.
//! - What a firing would certainly hit is refused now: a pinned environment not attached
//!   to the suite (or unknown) is 400 reason `ENVIRONMENT_NOT_ATTACHED`; enabling with no
//!   pin while several environments are attached is 400 reason `ENVIRONMENT_REQUIRED`
//!   (`details.candidates`); enabling on a suite with neither environments nor saved
//!   servers is 400 reason `NO_SAVED_SERVER_SELECTION`. A kept pin is checked only when
//!   the schedule stays enabled, so disabling always works.
//! - `nextRunAt` restarts at now + interval when the schedule is enabled from disabled or
//!   its interval changes; other edits (the pin) keep it.
//! - `GET` of a suite that never had a schedule answers the unset schedule (`enabled:
//!   false`, nulls), while the suite object's `schedule` is `null`.

use serde_json::json;

use super::store::projects::ProjectRole;
use super::store::schedules::ScheduleWrite;
use super::{Principal, Service};
use crate::spec::environment::Patch;
use crate::spec::schedule::{SchedulePatch, SuiteSchedule};
use crate::spec::suite::EvalSuite;
use crate::spec::{Code, Error, Result};

/// A 400 with `details.reason` and the violation at `/environmentId`.
fn environment_error(message: String, reason: &str, extra: serde_json::Value) -> Error {
    let mut details = json!({
        "reason": reason,
        "errors": [{"path": "/environmentId", "rule": reason, "message": message}],
    });
    if let (Some(d), Some(x)) = (details.as_object_mut(), extra.as_object()) {
        for (k, v) in x {
            d.insert(k.clone(), v.clone());
        }
    }
    Error::new(Code::ValidationError, message).with_details(details)
}

impl Service {
    /// The suite's schedule with its recent firings (the unset schedule if never set).
    pub fn schedule(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
    ) -> Result<SuiteSchedule> {
        let s = self.suite(who, project_id, suite)?;
        Ok(s.schedule.unwrap_or_else(|| SuiteSchedule::unset(s.id)))
    }

    /// Reads a stored suite's schedule into it (the suite object's additive field).
    pub(crate) fn attach_schedule(&self, suite: &mut EvalSuite) -> Result<()> {
        suite.schedule = self
            .store()
            .schedule(&suite.id, self.config().schedules.recent_firings)?;
        Ok(())
    }

    /// Enables, edits or disables the suite's schedule (see the module docs).
    pub fn set_schedule(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        body: &SchedulePatch,
    ) -> Result<SuiteSchedule> {
        body.validate()?;
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let s = self.store().suite(project_id, suite)?;
        let current = self
            .store()
            .schedule(&s.id, 0)?
            .unwrap_or_else(|| SuiteSchedule::unset(&s.id));
        let interval = body.interval_minutes.or(current.interval_minutes);
        let pin = body
            .environment_id
            .clone()
            .apply(current.environment_id.clone());
        if body.enabled && interval.is_none() {
            return Err(Error::invalid(
                "/intervalMinutes",
                "required",
                "enabling a schedule needs `intervalMinutes` (5 to 10080): none was saved before",
            ));
        }
        let explicit_pin = matches!(body.environment_id, Patch::Set(_));
        if let Some(e) = &pin
            && (explicit_pin || body.enabled)
            && !s.environment_ids.contains(e)
        {
            return Err(environment_error(
                format!(
                    "the environment `{e}` is not attached to the suite `{}`",
                    s.name
                ),
                "ENVIRONMENT_NOT_ATTACHED",
                json!({"environmentId": e, "attached": s.environment_ids}),
            ));
        }
        if body.enabled && pin.is_none() {
            if s.environment_ids.len() > 1 {
                let candidates: Vec<_> = s
                    .environment_ids
                    .iter()
                    .map(|id| {
                        let name = self
                            .store()
                            .environment(project_id, id)
                            .map(|e| e.name)
                            .unwrap_or_default();
                        json!({"id": id, "name": name})
                    })
                    .collect();
                return Err(environment_error(
                    format!(
                        "the suite has {} attached environments: pin one with `environmentId`, or every firing would be refused",
                        candidates.len()
                    ),
                    "ENVIRONMENT_REQUIRED",
                    json!({"candidates": candidates}),
                ));
            }
            if s.environment_ids.is_empty() && s.server_ids.is_empty() {
                return Err(Error::new(
                    Code::ValidationError,
                    "the suite has no attached environment and no saved server selection: its runs would have nothing to run against",
                )
                .with_reason("NO_SAVED_SERVER_SELECTION"));
            }
        }
        let now = self.config().schedules.clock.now_ms();
        let next_run_at = match (body.enabled, interval) {
            (true, Some(m)) => {
                let unchanged = current.enabled && current.interval_minutes == Some(m);
                match current.next_run_at {
                    Some(t) if unchanged => Some(t),
                    _ => Some(now + m * 60_000),
                }
            }
            _ => None,
        };
        self.store().put_schedule(&ScheduleWrite {
            suite_id: &s.id,
            project_id,
            org_id: &who.org_id,
            user_id: &who.user_id,
            enabled: body.enabled,
            interval_minutes: interval,
            environment_id: pin.as_deref(),
            next_run_at,
            now,
        })?;
        self.schedule(who, project_id, &s.id)
    }
}
