//! `POST eval-runs`: the numbered rules in order, then one launch transaction, then the
//! runner task.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::runner::{ModelRef, RunBody, Timing};
use crate::service::store::new_id;
use crate::service::store::projects::ProjectRole;
use crate::service::store::runs::NewRun;
use crate::service::{Principal, Service};
use crate::spec::case::{EvalCase, StepKind};
use crate::spec::environment::EnvironmentRef;
use crate::spec::run::{EvalIteration, RunCreate, RunCreated, RunSource};
use crate::spec::suite::{CaseUpsert, EvalSuite, SuiteCreate, SuiteServerRef};
use crate::spec::validate::{Checker, join};
use crate::spec::{Code, Error, Result};

fn reason(message: impl Into<String>, reason: &str) -> Error {
    Error::new(Code::ValidationError, message).with_reason(reason)
}

/// Whether a case needs a model (it has a `prompt` step).
pub(super) fn needs_model(case: &EvalCase) -> bool {
    case.steps.iter().any(|s| s.kind == StepKind::Prompt)
}

impl Service {
    /// Creates a run (202 body); `source` is `api` over HTTP and `ui` from the embedded
    /// backend and the CLI.
    pub async fn create_run(
        &self,
        who: &Principal,
        project_id: &str,
        body: &RunCreate,
        source: RunSource,
    ) -> Result<RunCreated> {
        self.launch_run(who, project_id, body, source, "manual")
            .await
    }

    /// The launch path itself; `trigger` is the run's additive origin (`manual`, or
    /// `schedule` for the scheduler's firings).
    pub(crate) async fn launch_run(
        &self,
        who: &Principal,
        project_id: &str,
        body: &RunCreate,
        source: RunSource,
        trigger: &str,
    ) -> Result<RunCreated> {
        // Access first: a caller without it learns nothing about their body.
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        body.validate()?;
        let opts = &self.config().runs;
        let keys: BTreeMap<String, String> = body.model_api_keys.clone().unwrap_or_default();
        let catalog = &self.config().models;

        // Rules 4, 6 and 5, then 3: everything that needs no connection.
        let mut environment: Option<EnvironmentRef> = None;
        let mut environment_roots = None;
        let mut servers: Vec<SuiteServerRef> = Vec::new();
        let mut suite: Option<EvalSuite> = None;
        if let Some(sid) = &body.suite_id {
            let s = self.store().suite(project_id, sid)?;
            let env_id = match &body.environment_id {
                Some(e) => {
                    let found = self
                        .store()
                        .environment(project_id, e)
                        .ok()
                        .filter(|env| s.environment_ids.contains(&env.id));
                    match found {
                        Some(env) => Some(env.id),
                        None => {
                            return Err(reason(
                                format!("the environment `{e}` is not attached to the suite `{}`", s.name),
                                "ENVIRONMENT_NOT_ATTACHED",
                            )
                            .with_details(json!({"reason": "ENVIRONMENT_NOT_ATTACHED", "environmentId": e, "attached": s.environment_ids})));
                        }
                    }
                }
                None => None,
            };
            if body.server_ids.is_some() && (env_id.is_some() || !s.environment_ids.is_empty()) {
                return Err(reason(
                    "the suite runs in an environment, whose server set is closed: `serverIds` cannot override it",
                    "ENVIRONMENT_SERVERS_NOT_OVERRIDABLE",
                ));
            }
            let env_id = match env_id {
                Some(e) => Some(e),
                None if s.environment_ids.len() == 1 => Some(s.environment_ids[0].clone()),
                None if s.environment_ids.len() > 1 => {
                    let mut candidates = Vec::new();
                    for id in &s.environment_ids {
                        let name = self
                            .store()
                            .environment(project_id, id)
                            .map(|e| e.name)
                            .unwrap_or_default();
                        candidates.push(json!({"id": id, "name": name}));
                    }
                    return Err(Error::new(
                        Code::ValidationError,
                        format!("the suite has {} attached environments: choose one with `environmentId`", candidates.len()),
                    )
                    .with_details(json!({"reason": "ENVIRONMENT_REQUIRED", "candidates": candidates})));
                }
                None => None,
            };
            if env_id.is_none() {
                let ids = body
                    .server_ids
                    .clone()
                    .unwrap_or_else(|| s.server_ids.clone());
                if ids.is_empty() {
                    return Err(reason(
                        "the suite has no saved server selection: pass `serverIds`",
                        "NO_SAVED_SERVER_SELECTION",
                    ));
                }
                servers = self.resolve_servers(project_id, "/serverIds", &ids)?;
            }
            if let Some(e) = env_id {
                let r = self.resolve_environment(who, project_id, &e)?;
                if let Some(want) = body.expected_environment_revision
                    && want != r.environment.revision
                {
                    return Err(Error::conflict(format!(
                        "the environment is at revision {}, not {want}",
                        r.environment.revision
                    ))
                    .with_details(
                        json!({"environmentId": e, "revision": r.environment.revision}),
                    ));
                }
                servers = r
                    .servers
                    .iter()
                    .map(|s| SuiteServerRef {
                        id: s.server_id.clone(),
                        name: Some(s.name.clone()),
                    })
                    .collect();
                environment = Some(r.environment);
                environment_roots = r.roots;
            }
            suite = Some(s);
        }

        // Models of inline tests are checked before the suite is authored.
        let override_model = match &body.model {
            Some(m) => Some(catalog.check("/model", m, body.provider.as_deref(), &keys)?),
            None => None,
        };
        if override_model.is_none()
            && let Some(tests) = &body.tests
        {
            let mut c = Checker::new();
            let mut details = None;
            for (i, t) in tests.iter().enumerate() {
                // A test without a model falls back to the suite's default.
                let Some(m) = &t.model else { continue };
                if let Err(e) = catalog.check(
                    &join(&join("/tests", i), "model"),
                    m,
                    t.provider.as_deref(),
                    &keys,
                ) {
                    for v in e.violations() {
                        c.fail(v.path, &v.rule, v.message);
                    }
                    details = details.or(e.details);
                }
            }
            if let Err(mut e) = c.finish() {
                if let (Some(d), Some(h)) = (
                    e.details.as_mut(),
                    details.as_ref().and_then(|d| d.get("hostedModels")),
                ) {
                    d["hostedModels"] = h.clone();
                }
                return Err(e);
            }
        }
        self.precheck_capacity(who)?;

        // A new suite from inline tests.
        let mut case_upsert = CaseUpsert::default();
        let suite = match suite {
            Some(s) => s,
            None => {
                let tests = body.tests.clone().unwrap_or_default();
                // The suite's default model: the run's, else the first a test names.
                let first = tests.iter().find(|t| t.model.is_some());
                let create = SuiteCreate {
                    name: body.suite_name.clone().unwrap_or_default(),
                    description: body.suite_description.clone(),
                    server_ids: body.server_ids.clone().unwrap_or_default(),
                    model: body
                        .model
                        .clone()
                        .or_else(|| first.and_then(|t| t.model.clone()))
                        .unwrap_or_else(|| crate::service::models::BASELINE_ID.into()),
                    provider: if body.model.is_some() {
                        body.provider.clone()
                    } else {
                        first.and_then(|t| t.provider.clone())
                    },
                    pass_criteria: body.pass_criteria,
                    tags: None,
                    tests,
                };
                let created = self.create_suite(who, project_id, &create)?;
                servers = created.servers.clone().unwrap_or_default();
                case_upsert = created.case_upsert;
                self.store().suite(project_id, &created.suite_id)?
            }
        };

        // The cases to run, and the import-claim gate.
        let all = self.store().cases(&suite.id)?;
        let cases: Vec<EvalCase> = match &body.case_ids {
            Some(ids) => {
                let mut c = Checker::new();
                let mut out = Vec::new();
                for (i, id) in ids.iter().enumerate() {
                    match all
                        .iter()
                        .find(|k| &k.id == id || k.declared_id.as_ref() == Some(id))
                    {
                        Some(k) if !out.iter().any(|o: &EvalCase| o.id == k.id) => {
                            out.push(k.clone())
                        }
                        Some(_) => {}
                        None => c.fail(
                            join("/caseIds", i),
                            "exists",
                            format!("no case `{id}` in the suite"),
                        ),
                    }
                }
                c.finish()?;
                out
            }
            None => all,
        };
        if cases.is_empty() {
            return Err(reason("the suite has no cases to run", "NO_CASES"));
        }
        let blocked: Vec<&str> = cases
            .iter()
            .filter(|c| !c.is_runnable())
            .map(|c| c.id.as_str())
            .collect();
        if !blocked.is_empty() {
            return Err(Error::new(
                Code::ValidationError,
                format!("{} selected case(s) have an `unsupported` or `unresolved` import claim and cannot run: fix or delete them, or select the others (`caseIds`, `evaldeck run --case`)", blocked.len()),
            )
            .with_details(json!({"reason": "CASE_NOT_RUNNABLE", "caseIds": blocked})));
        }
        let approved: BTreeSet<&String> = body.approved_case_ids.iter().flatten().collect();
        let unapproved: Vec<&str> = cases
            .iter()
            .filter(|c| {
                c.import
                    .as_ref()
                    .is_some_and(|i| i.status == crate::spec::case::ClaimStatus::Approximated)
            })
            .filter(|c| !approved.contains(&c.id))
            .map(|c| c.id.as_str())
            .collect();
        if !unapproved.is_empty() {
            return Err(Error::new(
                Code::ValidationError,
                format!("{} selected case(s) are `approximated` imports: approve each for this run in `approvedCaseIds` (`evaldeck run --approve ID`)", unapproved.len()),
            )
            .with_details(json!({"reason": "APPROXIMATION_NOT_APPROVED", "caseIds": unapproved})));
        }
        let approved_case_ids: Vec<String> = cases
            .iter()
            .filter(|c| approved.contains(&c.id))
            .map(|c| c.id.clone())
            .collect();

        // Rule 2 for saved cases, and the plan.
        let mut models: BTreeMap<String, ModelRef> = BTreeMap::new();
        let mut plan: Vec<(String, String, Value)> = Vec::new();
        {
            let mut c = Checker::new();
            let mut hosted = None;
            for case in &cases {
                let choices = if !needs_model(case) {
                    vec![None]
                } else if let Some(m) = &override_model {
                    vec![Some(m.clone())]
                } else {
                    let list = if case.models.is_empty() {
                        vec![crate::spec::case::CaseModel::new(
                            suite.settings.model.clone(),
                            suite.settings.provider.clone(),
                        )]
                    } else {
                        case.models.clone()
                    };
                    let mut out = Vec::new();
                    for (j, m) in list.iter().enumerate() {
                        let path = format!("/cases/{}/models/{j}/model", case.id);
                        match catalog.check(&path, &m.model, m.provider.as_deref(), &keys) {
                            Ok(ch) => out.push(Some(ch)),
                            Err(e) => {
                                for v in e.violations() {
                                    c.fail(v.path, &v.rule, v.message);
                                }
                                hosted = hosted
                                    .or(e.details.and_then(|d| d.get("hostedModels").cloned()));
                            }
                        }
                    }
                    out
                };
                let iterations = body.iteration_override.unwrap_or(case.iterations).max(1);
                let reps = case
                    .repetitions
                    .unwrap_or(suite.settings.repetitions)
                    .max(1);
                for ch in choices {
                    if let Some(ch) = &ch {
                        models.insert(
                            ch.id.clone(),
                            ModelRef {
                                provider: ch.provider.clone(),
                                hosted: ch.hosted,
                            },
                        );
                    }
                    for n in 1..=iterations {
                        for r in 1..=reps {
                            let id = new_id("itr");
                            let it = EvalIteration {
                                id: id.clone(),
                                test_case_id: Some(case.id.clone()),
                                title: Some(case.title.clone()),
                                iteration_number: n,
                                repetition: Some(r),
                                status: "pending".into(),
                                result: None,
                                model: ch.as_ref().map(|m| m.id.clone()),
                                provider: ch.as_ref().map(|m| m.provider.clone()),
                                started_at: None,
                                duration_ms: None,
                                tokens_used: None,
                                usage: None,
                                actual_tool_calls: Vec::new(),
                                expected_tool_calls: Vec::new(),
                                error: None,
                                scores: None,
                                widget_snapshots: None,
                            };
                            plan.push((
                                id,
                                case.id.clone(),
                                serde_json::to_value(&it).expect("serializes"),
                            ));
                        }
                    }
                }
            }
            if let Err(mut e) = c.finish() {
                if let (Some(d), Some(h)) = (e.details.as_mut(), hosted) {
                    d["hostedModels"] = h;
                }
                return Err(e);
            }
        }

        let needs_keys = models.values().any(|m| !m.hosted);
        if models
            .values()
            .any(|m| self.config().models.bills_credits(&m.provider, m.hosted))
        {
            self.require_credits(&who.org_id, 1, "a run on hosted models")?;
        }
        let run_id = new_id("run");
        let run_body = RunBody {
            suite_name: suite.name.clone(),
            user_id: who.user_id.clone(),
            org_role: who.org_role.clone(),
            servers: servers.clone(),
            environment: environment.clone(),
            roots: environment_roots,
            cases,
            standard_checks: suite.settings.standard_checks.clone(),
            pass_threshold: suite.settings.pass_threshold,
            pass_criteria: body.pass_criteria.or(suite.settings.pass_criteria),
            model: override_model.map(|m| m.id),
            models,
            needs_keys,
            approved_case_ids,
            notes: body.notes.clone(),
            trigger: trigger.into(),
            declarations: None,
            summary: None,
            timing: Timing::default(),
            regraded_at: None,
        };
        let body_json = serde_json::to_value(&run_body).expect("serializes");
        let env_json = environment
            .as_ref()
            .map(|e| serde_json::to_value(e).expect("serializes"));
        self.store().insert_run(
            &NewRun {
                id: &run_id,
                suite_id: &suite.id,
                project_id,
                org_id: &who.org_id,
                source: source.as_str(),
                body: &body_json,
                environment: env_json.as_ref(),
                owner: self.worker_id(),
                lease_until: self.config().leases.until(),
                cap: (opts.max_concurrent_runs, opts.retry_after_secs),
                pin: environment.as_ref().map(|e| (e.id.as_str(), e.revision)),
            },
            &plan,
        )?;
        self.spawn_run(&run_id, keys);
        Ok(RunCreated {
            run_id,
            suite_id: suite.id,
            status: "running".into(),
            servers,
            case_upsert,
            environment,
        })
    }

    /// The cap checked before anything is authored (the launch transaction checks it again).
    fn precheck_capacity(&self, who: &Principal) -> Result<()> {
        let opts = &self.config().runs;
        let active = self.store().active_runs(&who.org_id)?;
        if active as usize >= opts.max_concurrent_runs {
            let mut e = Error::rate_limited(opts.retry_after_secs, Some("CONCURRENT_RUN_LIMIT"));
            e.message = format!(
                "the organization already has {active} eval run(s) in progress (the limit is {}); retry when one finishes",
                opts.max_concurrent_runs
            );
            return Err(e);
        }
        Ok(())
    }
}
