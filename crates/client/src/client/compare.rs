//! Comparing two runs case by case: what regressed and what was fixed between a base run
//! and a later one. Pure over the iterations both backends return, so the CLI
//! (`evaldeck run compare`) and the workbench's Runs pane show the same verdicts.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::spec::run::EvalIteration;

/// Finished iterations of one case (and model) in one run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    pub passed: u32,
    pub finished: u32,
}

impl Tally {
    /// Passed over finished, 0 to 1; `None` when nothing finished.
    pub fn rate(&self) -> Option<f64> {
        (self.finished > 0).then(|| f64::from(self.passed) / f64::from(self.finished))
    }
}

impl std::fmt::Display for Tally {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.passed, self.finished)
    }
}

/// How a case moved between the two runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Change {
    /// Its pass rate dropped.
    Regressed,
    /// Its pass rate rose.
    Fixed,
    /// Only the later run has it.
    Added,
    /// Only the base run has it.
    Removed,
    Unchanged,
}

impl Change {
    pub fn as_str(self) -> &'static str {
        match self {
            Change::Regressed => "regressed",
            Change::Fixed => "fixed",
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Unchanged => "unchanged",
        }
    }
}

/// One case (and model) across both runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CaseDelta {
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub case_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub change: Change,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base: Option<Tally>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub head: Option<Tally>,
}

/// The comparison, regressions first.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub base_run_id: String,
    pub head_run_id: String,
    pub cases: Vec<CaseDelta>,
}

impl Comparison {
    pub fn count(&self, change: Change) -> usize {
        self.cases.iter().filter(|c| c.change == change).count()
    }
}

/// Cases are matched by case id, or by title for runs whose iterations carry none (ingested
/// runs), and by model, so a case run on two models compares model by model.
type Key = (String, Option<String>);

fn tallies(its: &[EvalIteration]) -> BTreeMap<Key, (String, Option<String>, Tally)> {
    let mut out: BTreeMap<Key, (String, Option<String>, Tally)> = BTreeMap::new();
    for it in its {
        let title = it.title.clone().unwrap_or_else(|| "(untitled)".into());
        let key = (
            it.test_case_id.clone().unwrap_or_else(|| title.clone()),
            it.model.clone(),
        );
        let e = out
            .entry(key)
            .or_insert_with(|| (title, it.test_case_id.clone(), Tally::default()));
        match it.result.as_deref() {
            Some("passed") => {
                e.2.passed += 1;
                e.2.finished += 1;
            }
            Some(_) => e.2.finished += 1,
            None => {}
        }
    }
    out
}

/// Compares `head` (the later run) against `base`.
pub fn compare(
    base_run_id: &str,
    base: &[EvalIteration],
    head_run_id: &str,
    head: &[EvalIteration],
) -> Comparison {
    let before = tallies(base);
    let mut after = tallies(head);
    let mut cases = Vec::new();
    for (key, (title, case_id, b)) in before {
        let model = key.1.clone();
        let (title, case_id, change, head) = match after.remove(&key) {
            Some((title, case_id, h)) => {
                let change = match (b.rate(), h.rate()) {
                    (Some(x), Some(y)) if y + 1e-9 < x => Change::Regressed,
                    (Some(x), Some(y)) if y > x + 1e-9 => Change::Fixed,
                    _ => Change::Unchanged,
                };
                (title, case_id, change, Some(h))
            }
            None => (title, case_id, Change::Removed, None),
        };
        cases.push(CaseDelta {
            title,
            case_id,
            model,
            change,
            base: Some(b),
            head,
        });
    }
    for ((_, model), (title, case_id, h)) in after {
        cases.push(CaseDelta {
            title,
            case_id,
            model,
            change: Change::Added,
            base: None,
            head: Some(h),
        });
    }
    cases.sort_by(|a, b| a.change.cmp(&b.change).then(a.title.cmp(&b.title)));
    Comparison {
        base_run_id: base_run_id.into(),
        head_run_id: head_run_id.into(),
        cases,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn it(case: &str, result: Option<&str>) -> EvalIteration {
        serde_json::from_value(serde_json::json!({
            "id": format!("it_{case}"), "testCaseId": case, "title": format!("T {case}"),
            "iterationNumber": 1, "status": "completed", "result": result,
        }))
        .unwrap()
    }

    #[test]
    fn classifies_each_case_by_its_pass_rate() {
        let base = [
            it("a", Some("passed")),
            it("a", Some("passed")),
            it("b", Some("failed")),
            it("c", Some("passed")),
            it("gone", Some("passed")),
        ];
        let head = [
            it("a", Some("passed")),
            it("a", Some("failed")),
            it("b", Some("passed")),
            it("c", Some("passed")),
            it("c", None),
            it("new", Some("failed")),
        ];
        let c = compare("run_1", &base, "run_2", &head);
        let got: Vec<(&str, Change)> = c
            .cases
            .iter()
            .map(|d| (d.title.as_str(), d.change))
            .collect();
        assert_eq!(
            got,
            [
                ("T a", Change::Regressed),
                ("T b", Change::Fixed),
                ("T new", Change::Added),
                ("T gone", Change::Removed),
                ("T c", Change::Unchanged),
            ]
        );
        assert_eq!(c.cases[0].base.unwrap().to_string(), "2/2");
        assert_eq!(c.cases[0].head.unwrap().to_string(), "1/2");
        assert_eq!(c.count(Change::Regressed), 1);
    }

    #[test]
    fn ingested_iterations_without_case_ids_match_by_title() {
        let mut a = it("x", Some("passed"));
        a.test_case_id = None;
        let mut b = it("x", Some("failed"));
        b.test_case_id = None;
        let c = compare("r1", &[a], "r2", &[b]);
        assert_eq!(c.cases.len(), 1);
        assert_eq!(c.cases[0].change, Change::Regressed);
    }
}
