//! What applying a suite file changes: the diff against the live suite ([`plan`]), the
//! settings patch ([`settings_patch`]) and the create request for a new suite ([`creation`]).
//!
//! Matching: a file case with `id` is that live case (an unknown id is an error, also when
//! the suite is to be created, so applying the same file twice never adds twice). Otherwise its key is its `declaredId`, or its
//! `title` when it has none, and the n-th file case with a key matches the n-th unmatched
//! live case with the same key. A matched case whose `declaredId` or `source` differs is
//! replaced (deleted and added again: the API does not edit them); other differences are one
//! edit naming only the changed fields. Unmatched live cases are removed.
//!
//! The API appends new cases and cannot reorder them, so added and replaced cases land at
//! the end; [`Plan::order_differs`] says when the suite's order will then differ from the
//! file's.

use serde_json::{Map, Value, json};

use super::{SuiteDoc, case_body, editable_case_keys};
use crate::spec::case::{CaseModel, EvalCase, EvalCaseUpdate, EvalTestStep, decode};
use crate::spec::environment::Patch;
use crate::spec::error::Violation;
use crate::spec::suite::{EvalSuite, MAX_TESTS, SuiteCreate, SuitePatch, SuiteTest};
use crate::spec::validate::join;

/// The live suite, with its servers and environments named.
#[derive(Debug, Clone)]
pub struct Live {
    pub suite: EvalSuite,
    pub servers: Vec<String>,
    pub environments: Vec<String>,
    pub cases: Vec<EvalCase>,
}

/// The ids the document's server and environment names resolve to, in its order.
#[derive(Debug, Clone, Default)]
pub struct Target {
    pub server_ids: Vec<String>,
    pub environment_ids: Vec<String>,
}

/// One change applying the file makes.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    CreateSuite {
        name: String,
    },
    /// A suite field (`name`, `servers`, `settings.model`, …) from one value to another.
    Setting {
        field: String,
        from: Value,
        to: Value,
    },
    /// The file's case at `index` is added.
    AddCase {
        index: usize,
        title: String,
    },
    /// The live case `id` is edited: `fields` change.
    UpdateCase {
        index: usize,
        id: String,
        title: String,
        fields: Vec<String>,
        update: Box<EvalCaseUpdate>,
    },
    /// The live case `id` is deleted and the file's added, since `fields` are not editable.
    ReplaceCase {
        index: usize,
        id: String,
        title: String,
        fields: Vec<String>,
    },
    RemoveCase {
        id: String,
        title: String,
    },
}

/// The diff: what to change, in the order it is applied (settings, removals, edits, then
/// replacements and additions in file order).
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// The live suite's id; `None` when the suite is to be created.
    pub suite_id: Option<String>,
    /// The settings edit for an existing suite, when any setting changes.
    pub patch: Option<SuitePatch>,
    pub changes: Vec<Change>,
    /// After applying, the suite's case order will differ from the file's.
    pub order_differs: bool,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }
}

/// The edit that brings a live suite's fields to the document's, and the changes it makes.
pub fn settings_patch(
    doc: &SuiteDoc,
    target: &Target,
    live: &EvalSuite,
    live_servers: &[String],
    live_environments: &[String],
) -> (Option<SuitePatch>, Vec<Change>) {
    let mut p = SuitePatch::default();
    let mut changes = Vec::new();
    let mut note = |field: &str, from: Value, to: Value| {
        changes.push(Change::Setting {
            field: field.into(),
            from,
            to,
        })
    };
    if doc.name != live.name {
        p.name = Some(doc.name.clone());
        note("name", json!(live.name), json!(doc.name));
    }
    if doc.description != live.description {
        p.description = doc.description.clone().map_or(Patch::Clear, Patch::Set);
        note(
            "description",
            json!(live.description),
            json!(doc.description),
        );
    }
    if target.server_ids != live.server_ids {
        p.server_ids = Some(target.server_ids.clone());
        note("servers", json!(live_servers), json!(doc.servers));
    }
    if target.environment_ids != live.environment_ids {
        p.environment_ids = if target.environment_ids.is_empty() {
            Patch::Clear
        } else {
            Patch::Set(target.environment_ids.clone())
        };
        note(
            "environments",
            json!(live_environments),
            json!(doc.environments),
        );
    }
    let (want, have) = (&doc.settings, &live.settings);
    if want.model != have.model {
        p.model = Some(want.model.clone());
        note("settings.model", json!(have.model), json!(want.model));
    }
    if want.provider != have.provider {
        p.provider = want.provider.clone().map_or(Patch::Clear, Patch::Set);
        note(
            "settings.provider",
            json!(have.provider),
            json!(want.provider),
        );
    }
    if want.repetitions != have.repetitions {
        p.repetitions = Some(want.repetitions);
        note(
            "settings.repetitions",
            json!(have.repetitions),
            json!(want.repetitions),
        );
    }
    if want.pass_threshold != have.pass_threshold {
        p.pass_threshold = Some(want.pass_threshold);
        note(
            "settings.passThreshold",
            json!(have.pass_threshold),
            json!(want.pass_threshold),
        );
    }
    if want.pass_criteria != have.pass_criteria {
        p.pass_criteria = want.pass_criteria.map_or(Patch::Clear, Patch::Set);
        note(
            "settings.passCriteria",
            json!(have.pass_criteria),
            json!(want.pass_criteria),
        );
    }
    if want.tags != have.tags {
        p.tags = Some(want.tags.clone());
        note("settings.tags", json!(have.tags), json!(want.tags));
    }
    let sorted = |v: &[String]| {
        let mut v = v.to_vec();
        crate::spec::case::normalize_check_ids(&mut v);
        v
    };
    if sorted(&want.standard_checks) != sorted(&have.standard_checks) {
        p.standard_checks = Some(want.standard_checks.clone());
        note(
            "settings.standardChecks",
            json!(sorted(&have.standard_checks)),
            json!(sorted(&want.standard_checks)),
        );
    }
    let patch = (p != SuitePatch::default()).then_some(p);
    (patch, changes)
}

/// How a case is matched when the file gives no id.
#[derive(PartialEq)]
enum Key<'a> {
    Declared(&'a str),
    Title(&'a str),
}

fn key(c: &EvalCase) -> Key<'_> {
    match &c.declared_id {
        Some(d) => Key::Declared(d),
        None => Key::Title(&c.title),
    }
}

/// The top-level fields in which two cases differ (ids and times aside).
fn differing_fields(want: &EvalCase, have: &EvalCase) -> Vec<String> {
    let (a, b) = (case_body(want, None), case_body(have, None));
    let mut fields: Vec<String> = a
        .iter()
        .filter(|(k, v)| b.get(*k) != Some(*v))
        .map(|(k, _)| k.clone())
        .collect();
    fields.extend(b.keys().filter(|k| !a.contains_key(*k)).cloned());
    fields
}

/// The edit setting `fields` to `want`'s values (absent ones cleared), if an edit can.
fn edit_for(want: &EvalCase, fields: &[String], editable: &[String]) -> Option<EvalCaseUpdate> {
    if !fields.iter().all(|f| editable.contains(f)) {
        return None;
    }
    let body = case_body(want, None);
    let mut m = Map::new();
    for f in fields {
        let v = body.get(f).cloned().unwrap_or(match f.as_str() {
            "suppressedSuiteStandardCheckIds" => json!([]),
            _ => Value::Null,
        });
        m.insert(f.clone(), v);
    }
    decode::<EvalCaseUpdate>(Value::Object(m)).ok()
}

/// The diff of `doc` against `live` (or the creation of the suite when there is none).
/// Violations name file ids that are not cases of the live suite.
pub fn plan(doc: &SuiteDoc, target: &Target, live: Option<&Live>) -> Result<Plan, Vec<Violation>> {
    let Some(live) = live else {
        let errors: Vec<Violation> = doc
            .cases
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let id = c.id.as_ref()?;
                Some(Violation {
                    path: join(&join("/cases", i), "id"),
                    rule: "exists".into(),
                    message: format!(
                        "the suite `{}` does not exist yet, so it has no case `{id}`; \
                         a file with case ids applies only to the suite it came from \
                         (remove the ids to create a suite from it)",
                        doc.name
                    ),
                })
            })
            .collect();
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut changes = vec![Change::CreateSuite {
            name: doc.name.clone(),
        }];
        changes.extend(
            doc.cases
                .iter()
                .enumerate()
                .map(|(index, c)| Change::AddCase {
                    index,
                    title: c.case.title.clone(),
                }),
        );
        return Ok(Plan {
            suite_id: None,
            patch: None,
            changes,
            order_differs: false,
        });
    };
    let (patch, mut changes) =
        settings_patch(doc, target, &live.suite, &live.servers, &live.environments);

    // Match file cases to live ones: ids first, then keys in order.
    let mut used = vec![false; live.cases.len()];
    let mut matched: Vec<Option<usize>> = vec![None; doc.cases.len()];
    let mut errors = Vec::new();
    for (i, dc) in doc.cases.iter().enumerate() {
        if let Some(id) = &dc.id {
            match live.cases.iter().position(|c| &c.id == id) {
                Some(j) => {
                    used[j] = true;
                    matched[i] = Some(j);
                }
                None => errors.push(Violation {
                    path: join(&join("/cases", i), "id"),
                    rule: "exists".into(),
                    message: format!(
                        "suite `{}` has no case `{id}`; remove `id` to add this case",
                        live.suite.name
                    ),
                }),
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for (i, dc) in doc.cases.iter().enumerate() {
        if dc.id.is_some() {
            continue;
        }
        let k = key(&dc.case);
        if let Some(j) = (0..live.cases.len()).find(|&j| !used[j] && key(&live.cases[j]) == k) {
            used[j] = true;
            matched[i] = Some(j);
        }
    }

    for (j, c) in live.cases.iter().enumerate() {
        if !used[j] {
            changes.push(Change::RemoveCase {
                id: c.id.clone(),
                title: c.title.clone(),
            });
        }
    }
    let editable = editable_case_keys();
    let mut edits = Vec::new();
    let mut appended = Vec::new();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    for (i, dc) in doc.cases.iter().enumerate() {
        let title = dc.case.title.clone();
        let Some(j) = matched[i] else {
            appended.push(Change::AddCase { index: i, title });
            continue;
        };
        let have = &live.cases[j];
        let mut want = dc.case.clone();
        want.id = have.id.clone();
        let fields = differing_fields(&want, have);
        if fields.is_empty() {
            kept.push((j, i));
            continue;
        }
        match edit_for(&want, &fields, &editable) {
            Some(update) => {
                kept.push((j, i));
                edits.push(Change::UpdateCase {
                    index: i,
                    id: have.id.clone(),
                    title,
                    fields,
                    update: Box::new(update),
                });
            }
            None => appended.push(Change::ReplaceCase {
                index: i,
                id: have.id.clone(),
                title,
                fields,
            }),
        }
    }
    kept.sort_by_key(|(j, _)| *j);
    let order: Vec<usize> = kept
        .iter()
        .map(|(_, i)| *i)
        .chain(appended.iter().map(|c| match c {
            Change::AddCase { index, .. } | Change::ReplaceCase { index, .. } => *index,
            _ => 0,
        }))
        .collect();
    let order_differs = order.windows(2).any(|w| w[0] > w[1]);
    changes.extend(edits);
    changes.extend(appended);
    Ok(Plan {
        suite_id: Some(live.suite.id.clone()),
        patch,
        changes,
        order_differs,
    })
}

/// The case a [`SuiteTest`] of the create request makes, when it makes exactly `case`.
fn as_test(case: &EvalCase, default: &CaseModel) -> Option<SuiteTest> {
    let [m] = case.models.as_slice() else {
        return None;
    };
    let t = SuiteTest {
        title: case.title.clone(),
        steps: case.steps.clone(),
        runs: Some(case.iterations),
        model: Some(m.model.clone()),
        provider: m.provider.clone(),
        expected_output: case.expected_output.clone(),
        is_negative_test: Some(case.is_negative),
        scenario: case.scenario.clone(),
    };
    let mut made = t.clone().into_case(case.id.clone(), default);
    made.normalize();
    (made == *case).then_some(t)
}

/// Title of the stand-in test a create request needs when no case of the file can be
/// written through it; deleted right after the suite is created.
pub const PLACEHOLDER_TITLE: &str = "evaldeck suite apply: placeholder";

/// The create request for a new suite: the file's leading cases that the request can write
/// exactly (the rest are added one by one after), or one placeholder test when none can.
/// Returns the request, how many of the file's cases it writes, and whether it holds the
/// placeholder.
pub fn creation(doc: &SuiteDoc, target: &Target) -> (SuiteCreate, usize, bool) {
    let s = &doc.settings;
    let default = CaseModel::new(s.model.clone(), s.provider.clone());
    let mut tests: Vec<SuiteTest> = doc
        .cases
        .iter()
        .take(MAX_TESTS)
        .map_while(|c| as_test(&c.case, &default))
        .collect();
    let written = tests.len();
    let placeholder = written == 0;
    if placeholder {
        tests.push(SuiteTest {
            title: PLACEHOLDER_TITLE.into(),
            steps: vec![EvalTestStep::new_prompt("placeholder", "placeholder")],
            runs: None,
            model: None,
            provider: None,
            expected_output: None,
            is_negative_test: None,
            scenario: None,
        });
    }
    let body = SuiteCreate {
        name: doc.name.clone(),
        description: doc.description.clone(),
        server_ids: target.server_ids.clone(),
        model: s.model.clone(),
        provider: s.provider.clone(),
        pass_criteria: s.pass_criteria,
        tags: (!s.tags.is_empty()).then(|| s.tags.clone()),
        tests,
    };
    (body, written, placeholder)
}
