//! The partial edit body: omitted keeps, `null` clears an optional field.

use super::*;
use crate::spec::error::Error;
use crate::spec::validate::Checker;
use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------------------------
// Partial edit
// ---------------------------------------------------------------------------------------------

/// A present field must not be `null` (for fields where only omission means "keep").
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

/// Omitted → `None` (keep), `null` → `Some(None)` (clear), a value → `Some(Some(v))`.
fn nullable<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// Body of a case edit: every field optional; omitted keeps, `null` clears an optional field.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EvalCaseUpdate {
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "String")]
    pub title: Option<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Vec<EvalTestStep>")]
    pub steps: Option<Vec<EvalTestStep>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub expected_output: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "i64")]
    pub iterations: Option<i64>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub repetitions: Option<Option<i64>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub pass_threshold: Option<Option<f64>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "bool")]
    pub is_negative: Option<bool>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub scenario: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub intent: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub kind: Option<Option<CaseKind>>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Vec<CaseModel>")]
    pub models: Option<Vec<CaseModel>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub match_options: Option<Option<Map<String, Value>>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub checks: Option<Option<Checks>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub judge: Option<Option<Judge>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub import: Option<Option<EvalCaseImportClaim>>,
    /// Omitted preserves; `[]` clears.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Vec<String>")]
    pub suppressed_suite_standard_check_ids: Option<Vec<String>>,
    #[serde(
        default,
        deserialize_with = "nullable",
        skip_serializing_if = "Option::is_none"
    )]
    pub elicitation: Option<Option<crate::spec::client_features::ElicitationAnswer>>,
}

impl EvalCaseUpdate {
    /// Reports every violated rule of the fields present, with paths from the body's root.
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        if let Some(t) = &self.title {
            check_title(&mut c, "/title", t);
        }
        if let Some(s) = &self.steps {
            validate_steps("/steps", s, &mut c);
        }
        if let Some(n) = self.iterations {
            check_iterations(&mut c, "/iterations", n);
        }
        if let Some(Some(r)) = self.repetitions {
            positive(&mut c, "/repetitions", r);
        }
        if let Some(Some(t)) = self.pass_threshold {
            check_pass_threshold(&mut c, "/passThreshold", t);
        }
        if let Some(Some(i)) = &self.intent {
            check_intent(&mut c, "/intent", i);
        }
        if let Some(m) = &self.models {
            check_models(&mut c, "/models", m);
        }
        if let Some(Some(ch)) = &self.checks {
            ch.validate("/checks", &mut c);
        }
        if let Some(Some(claim)) = &self.import {
            claim.validate("/import", &mut c);
        }
        if let Some(ids) = &self.suppressed_suite_standard_check_ids {
            validate_check_ids("/suppressedSuiteStandardCheckIds", ids, &mut c);
        }
        if let Some(Some(e)) = &self.elicitation {
            e.validate("/elicitation", &mut c);
        }
        c.finish()
    }

    /// Writes the present fields into `case` (normalising suppressed check ids). Does not
    /// touch `id` or the timestamps: the service stamps `updatedAt`.
    pub fn apply(self, case: &mut EvalCase) {
        fn set<T>(slot: &mut T, v: Option<T>) {
            if let Some(v) = v {
                *slot = v;
            }
        }
        set(&mut case.title, self.title);
        set(&mut case.steps, self.steps);
        set(&mut case.expected_output, self.expected_output);
        set(&mut case.iterations, self.iterations);
        set(&mut case.repetitions, self.repetitions);
        set(&mut case.pass_threshold, self.pass_threshold);
        set(&mut case.is_negative, self.is_negative);
        set(&mut case.scenario, self.scenario);
        set(&mut case.elicitation, self.elicitation);
        set(&mut case.intent, self.intent);
        set(&mut case.kind, self.kind);
        set(&mut case.models, self.models);
        set(&mut case.match_options, self.match_options);
        set(&mut case.checks, self.checks);
        set(&mut case.judge, self.judge);
        set(&mut case.import, self.import);
        if let Some(mut ids) = self.suppressed_suite_standard_check_ids {
            normalize_check_ids(&mut ids);
            case.suppressed_suite_standard_check_ids = ids;
        }
    }

    /// Whether the edit changes nothing.
    pub fn is_empty(&self) -> bool {
        *self == EvalCaseUpdate::default()
    }
}
