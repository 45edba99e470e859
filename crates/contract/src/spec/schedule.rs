//! `PATCH /projects/{p}/eval-suites/{s}/schedule` (request from `wire-shapes.md`) and the
//! schedule object it answers, which `GET …/schedule` (extension) and the suite's additive
//! `schedule` field also carry.
//!
//! Decisions where the shapes are silent:
//! - `enabled` is required; `intervalMinutes` (5 to 10080) may be left out to keep the saved
//!   interval, but enabling a schedule that never had one is a `VALIDATION_ERROR`
//!   (`/intervalMinutes`, rule `required`).
//! - `environmentId`: left out keeps the saved pin, `null` clears it.
//! - Unknown fields are rejected (`additionalProperties`), as for the other PATCH bodies.
//! - Times are epoch milliseconds; `nextRunAt` is `null` while the schedule is disabled.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::environment::Patch;
use super::error::Error;
use super::validate::{Checker, parse_body};

/// Bounds of `intervalMinutes`: five minutes to one week.
pub const MIN_INTERVAL_MINUTES: i64 = 5;
pub const MAX_INTERVAL_MINUTES: i64 = 10_080;

/// Body of `PATCH eval-suites/{s}/schedule`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SchedulePatch {
    pub enabled: bool,
    /// Minutes between firings, 5 to 10080; absent keeps the saved interval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_minutes: Option<i64>,
    /// The attached environment the firings launch in; absent keeps, `null` clears.
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub environment_id: Patch<String>,
}

impl SchedulePatch {
    /// Parses and validates a raw body.
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        let p: Self = parse_body(body)?;
        p.validate()?;
        Ok(p)
    }

    /// The rules that need no store: the interval's bounds and a non-empty environment id.
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        if let Some(m) = self.interval_minutes {
            c.range_i64(
                "/intervalMinutes",
                m,
                MIN_INTERVAL_MINUTES,
                MAX_INTERVAL_MINUTES,
            );
        }
        if let Patch::Set(e) = &self.environment_id {
            c.length("/environmentId", e, 1, None);
        }
        c.finish()
    }
}

/// What became of one firing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum FiringOutcome {
    /// Claimed and being launched (seen only for the instant the launch takes).
    Pending,
    /// A run was created: see `runId`.
    Launched,
    /// No run: see `reason` and `message`.
    Skipped,
}

impl FiringOutcome {
    pub fn as_str(self) -> &'static str {
        match self {
            FiringOutcome::Pending => "pending",
            FiringOutcome::Launched => "launched",
            FiringOutcome::Skipped => "skipped",
        }
    }

    pub fn parse(s: &str) -> FiringOutcome {
        match s {
            "launched" => FiringOutcome::Launched,
            "skipped" => FiringOutcome::Skipped,
            _ => FiringOutcome::Pending,
        }
    }
}

/// One entry of the firing log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleFiring {
    pub id: String,
    /// When the firing was due.
    pub due_at: i64,
    /// When the scheduler claimed it (later than `dueAt` after downtime).
    pub fired_at: i64,
    pub outcome: FiringOutcome,
    /// Why it was skipped: the launch error's `details.reason` (`CONCURRENT_RUN_LIMIT`,
    /// `ENVIRONMENT_NOT_ATTACHED`, …), else its code (`CONFLICT`, `NOT_FOUND`, …).
    pub reason: Option<String>,
    pub message: Option<String>,
    pub run_id: Option<String>,
}

/// A suite's schedule. Never set: `enabled: false` and every other field `null`/empty.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuiteSchedule {
    pub suite_id: String,
    pub enabled: bool,
    /// The saved interval (kept while disabled).
    pub interval_minutes: Option<i64>,
    /// The pinned environment, or `null` for the suite's default resolution.
    pub environment_id: Option<String>,
    /// The next due time; `null` while disabled.
    pub next_run_at: Option<i64>,
    pub last_fired_at: Option<i64>,
    /// The last run a firing launched.
    pub last_run_id: Option<String>,
    pub updated_at: Option<i64>,
    /// The member who last set the schedule: firings run as them.
    pub updated_by: Option<String>,
    /// The latest firings, newest first.
    #[serde(default)]
    pub recent_firings: Vec<ScheduleFiring>,
}

impl SuiteSchedule {
    /// The answer for a suite whose schedule was never set.
    pub fn unset(suite_id: impl Into<String>) -> SuiteSchedule {
        SuiteSchedule {
            suite_id: suite_id.into(),
            enabled: false,
            interval_minutes: None,
            environment_id: None,
            next_run_at: None,
            last_fired_at: None,
            last_run_id: None,
            updated_at: None,
            updated_by: None,
            recent_firings: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn rules(v: Value) -> Vec<(String, String)> {
        match SchedulePatch::parse(v.to_string().as_bytes()) {
            Ok(_) => vec![],
            Err(e) => e
                .violations()
                .into_iter()
                .map(|v| (v.path, v.rule))
                .collect(),
        }
    }

    fn one(path: &str, rule: &str) -> Vec<(String, String)> {
        vec![(path.into(), rule.into())]
    }

    #[test]
    fn bounds_and_shape() {
        for good in [
            json!({"enabled": false}),
            json!({"enabled": true, "intervalMinutes": 5}),
            json!({"enabled": true, "intervalMinutes": 10080}),
            json!({"enabled": true, "intervalMinutes": 60, "environmentId": "env_1"}),
            json!({"enabled": true, "environmentId": null}),
        ] {
            assert_eq!(rules(good.clone()), vec![], "{good}");
        }
        let i = "/intervalMinutes";
        assert_eq!(
            rules(json!({"enabled": true, "intervalMinutes": 4})),
            one(i, "range")
        );
        assert_eq!(
            rules(json!({"enabled": true, "intervalMinutes": 10081})),
            one(i, "range")
        );
        assert_eq!(
            rules(json!({"enabled": true, "intervalMinutes": 7.5})),
            one(i, "type")
        );
        assert_eq!(rules(json!({})), one("/enabled", "required"));
        assert_eq!(rules(json!({"enabled": "yes"})), one("/enabled", "type"));
        assert_eq!(
            rules(json!({"enabled": true, "every": 5})),
            one("/every", "additionalProperties")
        );
        assert_eq!(
            rules(json!({"enabled": true, "environmentId": ""})),
            one("/environmentId", "minLength")
        );
    }

    #[test]
    fn absent_null_and_set_environment() {
        let p = SchedulePatch::parse(br#"{"enabled": true}"#).unwrap();
        assert!(p.environment_id.is_keep());
        let p = SchedulePatch::parse(br#"{"enabled": true, "environmentId": null}"#).unwrap();
        assert_eq!(p.environment_id, Patch::Clear);
        assert_eq!(
            serde_json::to_value(SuiteSchedule::unset("sut_1")).unwrap(),
            json!({"suiteId": "sut_1", "enabled": false, "intervalMinutes": null,
                   "environmentId": null, "nextRunAt": null, "lastFiredAt": null,
                   "lastRunId": null, "updatedAt": null, "updatedBy": null, "recentFirings": []})
        );
    }
}
