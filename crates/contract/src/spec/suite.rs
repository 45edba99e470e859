//! `POST /projects/{p}/eval-suites`: create a suite with its cases (the inline authoring
//! shape from `wire-shapes.md`), and its 201 response.
//!
//! Decisions where the shape is silent:
//! - `name`, `model`, each `serverIds` entry, each tag and each test's `title` must not be
//!   empty; a given `provider` must not be empty.
//! - `runs` defaults to 1 and becomes the case's `iterations`; a test's `model` replaces the
//!   suite's (with the test's own `provider`); a test with only `provider` keeps the suite model.
//! - Unknown keys are ignored, as in the public API this shape comes from.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::case::{CaseModel, EvalCase, EvalTestStep, decode_body, validate_steps};
use super::environment::Patch;
use super::error::Error;
use super::validate::{Checker, join};

/// Most tests in one create request.
pub const MAX_TESTS: usize = 100;
/// `runs` bounds.
pub const MIN_RUNS: i64 = 1;
pub const MAX_RUNS: i64 = 10;

/// Suite pass criteria. `minimumPassRate` is a percent (0–100), unlike a case's fraction.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PassCriteria {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_pass_rate: Option<f64>,
}

impl PassCriteria {
    pub fn validate(&self, path: &str, c: &mut Checker) {
        if let Some(r) = self.minimum_pass_rate {
            c.range_f64(&join(path, "minimumPassRate"), r, 0.0, 100.0);
        }
    }
}

/// One test of the inline authoring shape.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuiteTest {
    pub title: String,
    pub steps: Vec<EvalTestStep>,
    /// Iterations of the case, 1 to 10; absent means 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runs: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_output: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_negative_test: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scenario: Option<String>,
}

impl SuiteTest {
    pub fn validate(&self, path: &str, c: &mut Checker) {
        c.length(&join(path, "title"), &self.title, 1, None);
        validate_steps(&join(path, "steps"), &self.steps, c);
        if let Some(r) = self.runs {
            c.range_i64(&join(path, "runs"), r, MIN_RUNS, MAX_RUNS);
        }
        if let Some(m) = &self.model {
            c.length(&join(path, "model"), m, 1, None);
        }
        if let Some(p) = &self.provider {
            c.length(&join(path, "provider"), p, 1, None);
        }
    }

    /// The model this test runs on, falling back to the suite default.
    pub fn case_model(&self, suite_default: &CaseModel) -> CaseModel {
        match &self.model {
            Some(m) => CaseModel::new(m.clone(), self.provider.clone()),
            None => CaseModel::new(
                suite_default.model.clone(),
                self.provider
                    .clone()
                    .or_else(|| suite_default.provider.clone()),
            ),
        }
    }

    /// The persisted case for this test (no timestamps; the service stamps them).
    pub fn into_case(self, id: impl Into<String>, suite_default: &CaseModel) -> EvalCase {
        let model = self.case_model(suite_default);
        let mut case = EvalCase::new(id, self.title, self.steps);
        case.iterations = self.runs.unwrap_or(1);
        case.models = vec![model];
        case.expected_output = self.expected_output;
        case.is_negative = self.is_negative_test.unwrap_or(false);
        case.scenario = self.scenario;
        case
    }
}

/// Body of `POST /projects/{p}/eval-suites`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuiteCreate {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Saved servers the suite runs against; at least one.
    pub server_ids: Vec<String>,
    /// The suite's default model.
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_criteria: Option<PassCriteria>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
    /// 1 to 100 tests.
    pub tests: Vec<SuiteTest>,
}

impl SuiteCreate {
    /// Parses and validates a raw body: UTF-8, JSON, field types, then every rule.
    pub fn parse(body: &[u8]) -> Result<Self, Error> {
        let s: Self = decode_body(body)?;
        s.validate()?;
        Ok(s)
    }

    /// The suite's default model as a case model.
    pub fn default_model(&self) -> CaseModel {
        CaseModel::new(self.model.clone(), self.provider.clone())
    }

    /// Reports every violated rule at once.
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        c.length("/name", &self.name, 1, None);
        if self.server_ids.is_empty() {
            c.fail("/serverIds", "minItems", "must name at least 1 server");
        }
        for (i, s) in self.server_ids.iter().enumerate() {
            c.length(&join("/serverIds", i), s, 1, None);
        }
        c.length("/model", &self.model, 1, None);
        if let Some(p) = &self.provider {
            c.length("/provider", p, 1, None);
        }
        if let Some(pc) = &self.pass_criteria {
            pc.validate("/passCriteria", &mut c);
        }
        if let Some(tags) = &self.tags {
            for (i, t) in tags.iter().enumerate() {
                c.length(&join("/tags", i), t, 1, None);
            }
        }
        if self.tests.is_empty() {
            c.fail("/tests", "minItems", "must have at least 1 test");
        }
        if self.tests.len() > MAX_TESTS {
            c.fail(
                "/tests",
                "maxItems",
                format!("must have at most {MAX_TESTS} tests"),
            );
        }
        for (i, t) in self.tests.iter().enumerate() {
            t.validate(&join("/tests", i), &mut c);
        }
        c.finish()
    }
}

/// A server the suite was saved with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuiteServerRef {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A case written by the create.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommittedCase {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// The test's title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A test the create could not write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FailedCase {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What happened to each test. `committed` is always written; `failed` only when non-empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CaseUpsert {
    #[serde(default)]
    pub committed: Vec<CommittedCase>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<FailedCase>,
}

/// The 201 response of suite creation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuiteCreated {
    pub suite_id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub servers: Option<Vec<SuiteServerRef>>,
    pub case_upsert: CaseUpsert,
}

/// Suite defaults every case inherits unless it overrides them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SuiteSettings {
    /// Default model id, `<provider>/<name>`.
    pub model: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    /// Default trials per case under per-case grading.
    #[serde(default = "one")]
    pub repetitions: i64,
    /// Default fraction of trials that must pass.
    #[serde(default = "full")]
    pub pass_threshold: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_criteria: Option<PassCriteria>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Standard check ids the suite applies to every case (see `STANDARD_CHECK_IDS`).
    #[serde(default = "default_standard_checks")]
    pub standard_checks: Vec<String>,
}

fn one() -> i64 {
    1
}
fn full() -> f64 {
    1.0
}

/// By default a suite applies every standard check.
pub fn default_standard_checks() -> Vec<String> {
    crate::spec::case::STANDARD_CHECK_IDS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

impl Default for SuiteSettings {
    fn default() -> Self {
        SuiteSettings {
            model: "builtin/baseline".into(),
            provider: None,
            repetitions: 1,
            pass_threshold: 1.0,
            pass_criteria: None,
            tags: Vec::new(),
            standard_checks: default_standard_checks(),
        }
    }
}

/// Extension `GET /projects/{p}/eval-suites/{s}`: a suite with its settings and cases.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalSuite {
    pub id: String,
    pub project_id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub server_ids: Vec<String>,
    pub environment_ids: Vec<String>,
    pub settings: SuiteSettings,
    /// Additive: the suite's scheduled runs (`PATCH …/schedule`); `null` when never set.
    #[serde(default)]
    pub schedule: Option<super::schedule::SuiteSchedule>,
    pub case_count: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

/// `PATCH /projects/{p}/eval-suites/{s}`: any subset of settings. `environmentIds`: a
/// non-empty array sets or replaces, `null` detaches all, `[]` is rejected.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SuitePatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub description: Patch<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_ids: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub environment_ids: Patch<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub provider: Patch<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repetitions: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pass_threshold: Option<f64>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub pass_criteria: Patch<PassCriteria>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standard_checks: Option<Vec<String>>,
    /// Replaces the suite's tags (`[]` clears them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tags: Option<Vec<String>>,
}

impl SuitePatch {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        if self == &SuitePatch::default() {
            c.fail("", "minProperties", "give at least one field to change");
        }
        if let Some(n) = &self.name {
            c.length("/name", n, 1, Some(200));
        }
        if let Some(ids) = &self.server_ids {
            for (i, s) in ids.iter().enumerate() {
                c.length(&join("/serverIds", i), s, 1, None);
            }
        }
        if let Patch::Set(ids) = &self.environment_ids {
            if ids.is_empty() {
                c.fail(
                    "/environmentIds",
                    "minItems",
                    "must name at least 1 environment; send null to detach all",
                );
            }
            for (i, s) in ids.iter().enumerate() {
                c.length(&join("/environmentIds", i), s, 1, None);
            }
        }
        if let Some(m) = &self.model {
            c.length("/model", m, 1, None);
        }
        if let Some(r) = self.repetitions {
            c.range_i64(
                "/repetitions",
                r,
                1,
                crate::spec::validate::MAX_SAFE_INTEGER as i64,
            );
        }
        if let Some(t) = self.pass_threshold {
            c.range_f64("/passThreshold", t, 0.0, 1.0);
        }
        if let Patch::Set(pc) = &self.pass_criteria {
            pc.validate("/passCriteria", &mut c);
        }
        if let Some(ids) = &self.standard_checks {
            crate::spec::case::validate_check_ids("/standardChecks", ids, &mut c);
        }
        if let Some(tags) = &self.tags {
            for (i, t) in tags.iter().enumerate() {
                c.length(&join("/tags", i), t, 1, None);
            }
        }
        c.finish()
    }

    /// Applies the settings part of the patch.
    pub fn apply(&self, s: &mut SuiteSettings) {
        if let Some(m) = &self.model {
            s.model = m.clone();
        }
        s.provider = self.provider.clone().apply(s.provider.take());
        if let Some(r) = self.repetitions {
            s.repetitions = r;
        }
        if let Some(t) = self.pass_threshold {
            s.pass_threshold = t;
        }
        s.pass_criteria = self.pass_criteria.clone().apply(s.pass_criteria.take());
        if let Some(ids) = &self.standard_checks {
            let mut ids = ids.clone();
            crate::spec::case::normalize_check_ids(&mut ids);
            s.standard_checks = ids;
        }
        if let Some(tags) = &self.tags {
            s.tags = tags.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn pairs(e: &Error) -> Vec<(String, String)> {
        e.violations()
            .into_iter()
            .map(|v| (v.path, v.rule))
            .collect()
    }

    fn violations(v: &Value) -> Vec<(String, String)> {
        SuiteCreate::parse(&serde_json::to_vec(v).unwrap())
            .err()
            .map(|e| pairs(&e))
            .unwrap_or_default()
    }

    fn test_item() -> Value {
        json!({"title": "Finds shoes", "steps": [{"id": "s1", "kind": "prompt", "prompt": "Find shoes"}]})
    }

    fn base() -> Value {
        json!({"name": "Shop", "serverIds": ["srv_1"], "model": "openai/gpt-4o", "tests": [test_item()]})
    }

    fn with(key: &str, v: Value) -> Value {
        let mut b = base();
        match v {
            Value::Null => {
                b.as_object_mut().unwrap().remove(key);
            }
            v => b[key] = v,
        }
        b
    }

    fn with_test(key: &str, v: Value) -> Value {
        let mut t = test_item();
        t[key] = v;
        with("tests", json!([t]))
    }

    #[test]
    fn good_bodies_are_accepted() {
        let full = json!({
            "name": "Shop", "description": "Checkout flows", "serverIds": ["srv_1", "srv_2"],
            "model": "gpt-4o", "provider": "openai", "passCriteria": {"minimumPassRate": 80},
            "tags": ["smoke"], "tests": [{
                "title": "Refuses deletion", "runs": 3, "model": "claude-sonnet-4",
                "provider": "anthropic", "expectedOutput": "No", "isNegativeTest": true,
                "scenario": "An angry user",
                "steps": [{"id": "p", "kind": "prompt", "prompt": "Delete all"},
                          {"id": "t", "kind": "toolCall", "toolName": "list", "arguments": {}, "x": 1}]
            }]
        });
        let good = [
            base(),
            full,
            with("passCriteria", json!({})),
            with("passCriteria", json!({"minimumPassRate": 0})),
            with("passCriteria", json!({"minimumPassRate": 100})),
            with("tags", json!([])),
            with("tests", json!(vec![test_item(); MAX_TESTS])),
            with_test("runs", json!(1)),
            with_test("runs", json!(10)),
            with("unknownField", json!(1)),
        ];
        for g in &good {
            assert_eq!(violations(g), vec![], "{g}");
        }
    }

    #[test]
    fn bad_bodies_name_path_and_rule() {
        let bad = [
            (with("name", json!("")), "/name", "minLength"),
            (with("name", Value::Null), "/name", "required"),
            (with("serverIds", Value::Null), "/serverIds", "required"),
            (with("serverIds", json!([])), "/serverIds", "minItems"),
            (
                with("serverIds", json!(["srv_1", ""])),
                "/serverIds/1",
                "minLength",
            ),
            (with("model", Value::Null), "/model", "required"),
            (with("model", json!("")), "/model", "minLength"),
            (with("provider", json!("")), "/provider", "minLength"),
            (
                with("passCriteria", json!({"minimumPassRate": 101})),
                "/passCriteria/minimumPassRate",
                "range",
            ),
            (
                with("passCriteria", json!({"minimumPassRate": -1})),
                "/passCriteria/minimumPassRate",
                "range",
            ),
            (with("tags", json!(["ok", ""])), "/tags/1", "minLength"),
            (with("tests", Value::Null), "/tests", "required"),
            (with("tests", json!([])), "/tests", "minItems"),
            (
                with("tests", json!(vec![test_item(); MAX_TESTS + 1])),
                "/tests",
                "maxItems",
            ),
            (with_test("title", json!("")), "/tests/0/title", "minLength"),
            (with_test("steps", json!([])), "/tests/0/steps", "minItems"),
            (
                with_test("steps", json!([{"id": "s", "kind": "chat"}])),
                "/tests/0/steps/0/kind",
                "enum",
            ),
            (
                with_test("steps", json!([{"id": "s", "kind": "toolCall"}])),
                "/tests/0/steps/0/toolName",
                "required",
            ),
            (with_test("runs", json!(0)), "/tests/0/runs", "range"),
            (with_test("runs", json!(11)), "/tests/0/runs", "range"),
            (with_test("model", json!("")), "/tests/0/model", "minLength"),
            (
                with_test("provider", json!("")),
                "/tests/0/provider",
                "minLength",
            ),
            (
                with_test("isNegativeTest", json!("yes")),
                "/tests/0/isNegativeTest",
                "type",
            ),
        ];
        for (v, path, rule) in &bad {
            assert_eq!(
                violations(v),
                vec![(path.to_string(), rule.to_string())],
                "{v}"
            );
        }
    }

    #[test]
    fn tests_become_cases() {
        let s =
            SuiteCreate::parse(&serde_json::to_vec(&with("provider", json!("openai"))).unwrap())
                .unwrap();
        let default = s.default_model();
        let t = s.tests[0].clone();
        let case = t.into_case("case_1", &default);
        assert_eq!(case.iterations, 1);
        assert_eq!(
            case.models,
            [CaseModel::new("openai/gpt-4o", Some("openai".into()))]
        );
        assert!(!case.is_negative);
        assert!(case.check().is_ok());

        let mut t = s.tests[0].clone();
        t.runs = Some(4);
        t.model = Some("claude-sonnet-4".into());
        t.is_negative_test = Some(true);
        let case = t.into_case("case_2", &default);
        assert_eq!(case.iterations, 4);
        assert_eq!(case.models, [CaseModel::new("claude-sonnet-4", None)]);
        assert!(case.is_negative);

        let mut t = s.tests[0].clone();
        t.provider = Some("azure".into());
        assert_eq!(
            t.case_model(&default),
            CaseModel::new("openai/gpt-4o", Some("azure".into()))
        );
    }

    #[test]
    fn response_shape() {
        let mut r = SuiteCreated {
            suite_id: "sui_1".into(),
            name: "Shop".into(),
            servers: None,
            case_upsert: CaseUpsert::default(),
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            json!({"suiteId": "sui_1", "name": "Shop", "caseUpsert": {"committed": []}})
        );
        r.servers = Some(vec![SuiteServerRef {
            id: "srv_1".into(),
            name: Some("shop".into()),
        }]);
        r.case_upsert.committed.push(CommittedCase {
            id: Some("case_1".into()),
            name: Some("T".into()),
        });
        r.case_upsert.failed.push(FailedCase {
            id: None,
            name: Some("U".into()),
            error: Some("e".into()),
        });
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v,
            json!({"suiteId": "sui_1", "name": "Shop", "servers": [{"id": "srv_1", "name": "shop"}],
                   "caseUpsert": {"committed": [{"id": "case_1", "name": "T"}],
                                  "failed": [{"name": "U", "error": "e"}]}})
        );
        assert_eq!(serde_json::from_value::<SuiteCreated>(v).unwrap(), r);
        let body = serde_json::to_value(
            SuiteCreate::parse(&serde_json::to_vec(&base()).unwrap()).unwrap(),
        )
        .unwrap();
        assert_eq!(body, base(), "absent optional fields stay absent");
    }
}
