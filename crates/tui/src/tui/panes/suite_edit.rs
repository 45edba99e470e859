//! The JSON documents behind editing a suite's settings (`c`) and its schedule (`S`), each
//! checked as the user types by the same rules the API applies.

use serde_json::{Value, json};

use crate::spec::case::decode;
use crate::spec::schedule::{SchedulePatch, SuiteSchedule};
use crate::spec::suite::{EvalSuite, SuitePatch};
use crate::tui::widgets::json_edit::error_lines;

/// The settings a user edits, as they are now. `environmentIds: null` detaches every
/// environment (the API rejects `[]`).
pub fn settings_value(s: &EvalSuite) -> Value {
    let st = &s.settings;
    json!({
        "name": s.name,
        "description": s.description,
        "serverIds": s.server_ids,
        "environmentIds": (!s.environment_ids.is_empty()).then_some(&s.environment_ids),
        "model": st.model,
        "provider": st.provider,
        "repetitions": st.repetitions,
        "passThreshold": st.pass_threshold,
        "passCriteria": st.pass_criteria,
        "standardChecks": st.standard_checks,
        "tags": st.tags,
    })
}

/// The settings document parsed and checked, as `path: message` lines.
pub fn validate_settings(v: &Value) -> Vec<String> {
    match decode::<SuitePatch>(v.clone()).and_then(|p| p.validate().map(|_| p)) {
        Ok(_) => Vec::new(),
        Err(e) => error_lines(&e),
    }
}

/// The schedule document: the saved one, or a disabled hourly one to start from.
pub fn schedule_value(s: Option<&SuiteSchedule>) -> Value {
    match s {
        Some(s) if s.interval_minutes.is_some() => json!({
            "enabled": s.enabled,
            "intervalMinutes": s.interval_minutes,
            "environmentId": s.environment_id,
        }),
        _ => json!({"enabled": false, "intervalMinutes": 60, "environmentId": null}),
    }
}

/// The schedule document parsed and checked, as `path: message` lines.
pub fn validate_schedule(v: &Value) -> Vec<String> {
    match decode::<SchedulePatch>(v.clone()).and_then(|p| p.validate().map(|_| p)) {
        Ok(_) => Vec::new(),
        Err(e) => error_lines(&e),
    }
}

/// One line saying when a suite runs by itself, for the suite's detail.
pub fn schedule_summary(s: &SuiteSchedule) -> String {
    if !s.enabled {
        return "off".into();
    }
    let mut out = match s.interval_minutes {
        Some(m) if m % 1440 == 0 => format!("every {} day(s)", m / 1440),
        Some(m) if m % 60 == 0 => format!("every {} h", m / 60),
        Some(m) => format!("every {m} min"),
        None => "on".into(),
    };
    if let Some(next) = s.next_run_at {
        out.push_str(&format!(" · next {}", super::time(next)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documents_round_trip_through_their_validators() {
        assert!(validate_schedule(&schedule_value(None)).is_empty());
        let bad = json!({"enabled": true, "intervalMinutes": 4});
        assert_eq!(
            validate_schedule(&bad).len(),
            1,
            "{:?}",
            validate_schedule(&bad)
        );
        let extra = json!({"enabled": true, "every": 5});
        assert!(!validate_schedule(&extra).is_empty());
        assert!(!validate_settings(&json!({"environmentIds": []})).is_empty());
        assert!(validate_settings(&json!({"name": "Smoke", "environmentIds": null})).is_empty());
    }
}
