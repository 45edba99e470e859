//! Eval suites and their persisted steps-first cases: create (with inline tests), read,
//! edit settings and attached environments, and read, add, edit and delete cases.

use serde_json::Value;

use super::store::new_id;
use super::store::projects::ProjectRole;
use super::store::suites::NewSuite;
use super::{Principal, Service};
use crate::spec::case::{EvalCase, EvalCaseUpdate, decode};
use crate::spec::catalog::Deleted;
use crate::spec::environment::Patch;
use crate::spec::page::{Page, PageRequest};
use crate::spec::suite::{
    CaseUpsert, CommittedCase, EvalSuite, SuiteCreate, SuiteCreated, SuitePatch, SuiteServerRef,
    SuiteSettings,
};
use crate::spec::validate::{Checker, join};
use crate::spec::{Error, Result};

impl Service {
    /// Resolves server ids or names to saved servers of the project; unknown ones are
    /// violations at `path/i`.
    pub(crate) fn resolve_servers(
        &self,
        project_id: &str,
        path: &str,
        ids: &[String],
    ) -> Result<Vec<SuiteServerRef>> {
        let mut c = Checker::new();
        let mut out = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            match self.store().server(project_id, id) {
                Ok(s) => out.push(SuiteServerRef {
                    id: s.id,
                    name: Some(s.name),
                }),
                Err(e) if e.code == crate::spec::Code::NotFound => c.fail(
                    join(path, i),
                    "exists",
                    format!("no saved server `{id}` in this project"),
                ),
                Err(e) => return Err(e),
            }
        }
        c.finish()?;
        Ok(out)
    }

    /// Creates a suite with its cases; starts nothing and spends nothing.
    pub fn create_suite(
        &self,
        who: &Principal,
        project_id: &str,
        body: &SuiteCreate,
    ) -> Result<SuiteCreated> {
        body.validate()?;
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let servers = self.resolve_servers(project_id, "/serverIds", &body.server_ids)?;
        let default_model = body.default_model();
        let cases: Vec<EvalCase> = body
            .tests
            .iter()
            .cloned()
            .map(|t| t.into_case(new_id("case"), &default_model))
            .collect();
        let mut c = Checker::new();
        for (i, case) in cases.iter().enumerate() {
            case.validate(&join("/tests", i), &mut c);
        }
        c.finish()?;
        let settings = SuiteSettings {
            model: body.model.clone(),
            provider: body.provider.clone(),
            pass_criteria: body.pass_criteria,
            tags: body.tags.clone().unwrap_or_default(),
            ..SuiteSettings::default()
        };
        let new = NewSuite {
            name: body.name.clone(),
            description: body.description.clone(),
            settings,
            server_ids: servers.iter().map(|s| s.id.clone()).collect(),
            environment_ids: Vec::new(),
        };
        let suite_id = self.store().create_suite(project_id, &new, &cases)?;
        Ok(SuiteCreated {
            suite_id,
            name: body.name.clone(),
            servers: Some(servers),
            case_upsert: CaseUpsert {
                committed: cases
                    .iter()
                    .map(|c| CommittedCase {
                        id: Some(c.id.clone()),
                        name: Some(c.title.clone()),
                    })
                    .collect(),
                failed: Vec::new(),
            },
        })
    }

    /// A suite by id or name, with its schedule.
    pub fn suite(&self, who: &Principal, project_id: &str, suite: &str) -> Result<EvalSuite> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let mut s = self.store().suite(project_id, suite)?;
        self.attach_schedule(&mut s)?;
        Ok(s)
    }

    pub fn update_suite(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        body: &SuitePatch,
    ) -> Result<EvalSuite> {
        body.validate()?;
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let mut s = self.store().suite(project_id, suite)?;
        if let Some(n) = &body.name {
            s.name = n.clone();
        }
        s.description = body.description.clone().apply(s.description.take());
        if let Some(ids) = &body.server_ids {
            s.server_ids = self
                .resolve_servers(project_id, "/serverIds", ids)?
                .into_iter()
                .map(|r| r.id)
                .collect();
        }
        match &body.environment_ids {
            Patch::Keep => {}
            Patch::Clear => s.environment_ids.clear(),
            Patch::Set(ids) => {
                let mut c = Checker::new();
                let mut resolved = Vec::new();
                for (i, id) in ids.iter().enumerate() {
                    match self.store().environment(project_id, id) {
                        Ok(e) if e.archived => c.fail(
                            join("/environmentIds", i),
                            "archived",
                            format!("the environment `{}` is archived", e.name),
                        ),
                        Ok(e) if !resolved.contains(&e.id) => resolved.push(e.id),
                        Ok(_) => c.fail(
                            join("/environmentIds", i),
                            "uniqueItems",
                            format!("`{id}` is listed twice"),
                        ),
                        Err(_) => c.fail(
                            join("/environmentIds", i),
                            "exists",
                            format!("no environment `{id}` in this project"),
                        ),
                    }
                }
                c.finish()?;
                s.environment_ids = resolved;
            }
        }
        body.apply(&mut s.settings);
        self.store().update_suite(&s)?;
        self.suite(who, project_id, &s.id)
    }

    pub fn delete_suite(&self, who: &Principal, project_id: &str, suite: &str) -> Result<Deleted> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let s = self.store().suite(project_id, suite)?;
        self.store().delete_suite(project_id, &s.id)?;
        Ok(Deleted {
            id: s.id,
            deleted: true,
        })
    }

    /// A suite's cases in order: all of them when the request names neither `limit` nor
    /// `cursor` (suites hold at most a few thousand, and every caller wants the whole
    /// suite), else a page like any other list.
    pub fn cases(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        page: &PageRequest,
    ) -> Result<Page<EvalCase>> {
        let s = self.suite(who, project_id, suite)?;
        if page.limit.is_none() && page.cursor.is_none() {
            return Ok(Page {
                items: self.store().cases(&s.id)?,
                next_cursor: None,
            });
        }
        self.store().cases_page(&s.id, page)
    }

    pub fn case(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        case_id: &str,
    ) -> Result<EvalCase> {
        let s = self.suite(who, project_id, suite)?;
        self.store().case(&s.id, case_id)
    }

    /// Adds one case written in the persisted shape; `id` and times are assigned here.
    pub fn create_case(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        mut body: Value,
    ) -> Result<EvalCase> {
        let s = self.suite(who, project_id, suite)?;
        let obj = body
            .as_object_mut()
            .ok_or_else(|| Error::invalid("", "type", "a case is a JSON object"))?;
        obj.insert("id".into(), Value::String(new_id("case")));
        obj.remove("createdAt");
        obj.remove("updatedAt");
        if !obj.contains_key("models") {
            obj.insert(
                "models".into(),
                serde_json::json!([{"model": s.settings.model}]),
            );
        }
        obj.entry("iterations").or_insert(Value::from(1));
        obj.entry("isNegative").or_insert(Value::Bool(false));
        let mut case: EvalCase = decode(body)?;
        // Bounds count the ids as sent, before duplicates fold away.
        case.check()?;
        case.normalize();
        self.store().add_cases(&s.id, std::slice::from_ref(&case))?;
        self.store().case(&s.id, &case.id)
    }

    /// Edits a case: omitted fields are kept, `null` clears optional ones,
    /// `suppressedSuiteStandardCheckIds: []` clears the suppression.
    pub fn update_case(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        case_id: &str,
        body: &EvalCaseUpdate,
    ) -> Result<EvalCase> {
        body.validate()?;
        let s = self.suite(who, project_id, suite)?;
        let mut case = self.store().case(&s.id, case_id)?;
        body.clone().apply(&mut case);
        case.normalize();
        case.check()?;
        self.store().update_case(&s.id, &case)
    }

    pub fn delete_case(
        &self,
        who: &Principal,
        project_id: &str,
        suite: &str,
        case_id: &str,
    ) -> Result<Deleted> {
        let s = self.suite(who, project_id, suite)?;
        self.store().delete_case(&s.id, case_id)?;
        Ok(Deleted {
            id: case_id.into(),
            deleted: true,
        })
    }
}
