//! What panes ask for: overlays, fetches, notices.

use super::*;

impl App {
    /// Opens a form that saves as `target`.
    pub(super) fn open_form(&mut self, target: EditTarget, form: crate::tui::widgets::form::Form) {
        self.overlay = Some(Overlay::Form {
            target,
            form: Box::new(form),
        });
    }

    /// The live tools of a suite's servers (every server's, when the suite's are not known),
    /// as far as they are listed; the servers not listed yet are asked now.
    pub(super) fn tools_for(
        &mut self,
        suite: Option<&str>,
    ) -> Vec<crate::spec::primitives::ToolItem> {
        let servers: Vec<String> = match suite.and_then(|s| self.suites.detail_of(s)) {
            Some(s) => s.server_ids.clone(),
            None => self.servers.items.iter().map(|s| s.id.clone()).collect(),
        };
        let mut tools = Vec::new();
        let mut missing = Vec::new();
        for id in servers {
            match self.servers.mcp.get(&id).and_then(|m| m.tools.as_ref()) {
                Some(t) => tools.extend(t.iter().cloned()),
                None => missing.push(id),
            }
        }
        if let Some(project) = self.nav.active.clone() {
            for server in missing {
                self.dispatch(Request::Tools {
                    project: project.clone(),
                    server,
                });
            }
        }
        tools
    }

    /// Every tool listed so far, for case forms opened before the lists came back.
    pub(super) fn all_tools(&self) -> Vec<crate::spec::primitives::ToolItem> {
        self.servers
            .mcp
            .values()
            .filter_map(|m| m.tools.as_ref())
            .flatten()
            .cloned()
            .collect()
    }

    /// What the forms' pickers offer: the project's servers, hosts, live environments, and
    /// the models seen in it (the built-in baseline first).
    pub(super) fn pickers(&self) -> crate::tui::forms::Pickers {
        use crate::tui::widgets::form::Choice;
        let mut models: Vec<String> = vec!["builtin/baseline".into()];
        let seen = self
            .suites
            .models()
            .into_iter()
            .chain(self.runs.items.iter().filter_map(|r| r.model.clone()));
        for m in seen {
            if !models.contains(&m) {
                models.push(m);
            }
        }
        crate::tui::forms::Pickers {
            servers: self
                .servers
                .items
                .iter()
                .map(|s| Choice::new(s.id.clone(), s.name.clone()))
                .collect(),
            hosts: self
                .hosts
                .items
                .iter()
                .map(|h| Choice::new(h.id.clone(), h.name.clone()))
                .collect(),
            environments: self
                .environments
                .items
                .iter()
                .filter(|e| !e.archived)
                .map(|e| Choice::new(e.id.clone(), e.name.clone()))
                .collect(),
            models: models
                .iter()
                .map(|m| Choice::new(m.clone(), m.clone()))
                .collect(),
        }
    }

    pub(super) fn apply_effect(&mut self, e: Effect) {
        match e {
            Effect::Fetch(r) => self.dispatch(r),
            Effect::Confirm { prompt, request } => {
                self.overlay = Some(Overlay::Confirm(Confirm { prompt, request }));
            }
            Effect::OpenServerForm => {
                if self.nav.active.is_some() {
                    self.open_form(EditTarget::NewServer, crate::tui::forms::server(None));
                } else {
                    self.notify("no project is active".into());
                }
            }
            Effect::NewHost => {
                self.open_form(EditTarget::NewHost, crate::tui::forms::host(None));
            }
            Effect::EditHost(h) => {
                let form = crate::tui::forms::host(Some(&h));
                self.open_form(EditTarget::Host { id: h.id.clone() }, form);
            }
            Effect::NewSuite => {
                let form = crate::tui::forms::new_suite(&self.pickers());
                self.open_form(EditTarget::NewSuite, form);
            }
            Effect::ActivateProject(id) => {
                self.activate_project(&id);
                self.notify(format!(
                    "project {}",
                    self.nav
                        .active_project()
                        .map(|p| p.name.as_str())
                        .unwrap_or("?")
                ));
            }
            Effect::Notify(m) => self.notify(m),
            Effect::Copy(text) => self.copy(text),
            Effect::OpenCallForm(form) => self.overlay = Some(Overlay::CallForm(form)),
            Effect::OpenTemplateForm(form) => self.overlay = Some(Overlay::Template(form)),
            Effect::OpenImport { suite, suite_name } => {
                let Some(project) = self.nav.active.clone() else {
                    return;
                };
                if self
                    .kept_import
                    .as_ref()
                    .is_some_and(|k| k.suite_id() == Some(suite.as_str()) && k.project == project)
                    && let Some(kept) = self.kept_import.take()
                {
                    self.notify("the kept plan is back: Ctrl-L clears it".into());
                    self.overlay = Some(Overlay::Import(kept));
                    return;
                }
                let mut targets: Vec<Target> = self
                    .servers
                    .items
                    .iter()
                    .map(|s| Target::Server {
                        id: s.id.clone(),
                        name: s.name.clone(),
                    })
                    .collect();
                targets.extend(
                    self.environments
                        .items
                        .iter()
                        .filter(|e| e.archived_at.is_none())
                        .map(|e| Target::Environment {
                            id: e.id.clone(),
                            name: e.name.clone(),
                        }),
                );
                let mut screen =
                    ImportScreen::new(project.clone(), (suite.clone(), suite_name), targets);
                // The suite's cases name what a skipped draft duplicates.
                screen.case_titles = self.suites.case_titles(&suite);
                screen.tools = self.tools_for(Some(&suite));
                self.overlay = Some(Overlay::Import(Box::new(screen)));
                self.dispatch(Request::Cases { project, suite });
            }
            Effect::OpenRunPicker {
                suite,
                suite_name,
                cases,
            } => {
                let mut picker = RunPicker::new(suite.clone(), suite_name);
                match cases {
                    Some(cs) => picker.set_cases(&cs),
                    None => {
                        if let Some(project) = self.nav.active.clone() {
                            self.dispatch(Request::Cases { project, suite });
                        }
                    }
                }
                self.overlay = Some(Overlay::RunPicker(picker));
            }
            Effect::EditCase { suite, case } => {
                let tools = self.tools_for(Some(&suite));
                let form = crate::tui::case_form::case_form(
                    format!("Case “{}”", case.title),
                    &case,
                    tools,
                );
                self.open_form(
                    EditTarget::Case {
                        suite,
                        case: case.id.clone(),
                    },
                    form,
                );
            }
            Effect::EditEnvironment(env) => {
                let form = crate::tui::forms::environment(env.as_deref(), &self.pickers());
                let target = match env {
                    None => EditTarget::NewEnvironment,
                    Some(e) => EditTarget::Environment { id: e.id.clone() },
                };
                self.open_form(target, form);
            }
            Effect::EditServer(srv) => {
                let form = crate::tui::forms::server(Some(&srv));
                self.open_form(EditTarget::Server { id: srv.id.clone() }, form);
            }
            Effect::OpenMcpImport => {
                self.overlay = Some(Overlay::Path {
                    input: Default::default(),
                    error: None,
                });
            }
        }
    }
}
