//! What panes ask for: overlays, fetches, notices.

use super::*;

impl App {
    pub(super) fn apply_effect(&mut self, e: Effect) {
        match e {
            Effect::Fetch(r) => self.dispatch(r),
            Effect::Confirm { prompt, request } => {
                self.overlay = Some(Overlay::Confirm(Confirm { prompt, request }));
            }
            Effect::OpenServerForm => {
                if self.nav.active.is_some() {
                    self.overlay = Some(Overlay::ServerForm(ServerForm::default()));
                } else {
                    self.notify("no project is active".into());
                }
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
            Effect::OpenCallForm(form) => self.overlay = Some(Overlay::CallForm(form)),
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
                let editor = JsonEditor::new(
                    format!("Edit case “{}”", case.title),
                    &edit_value(&case),
                    validate_update,
                );
                self.overlay = Some(Overlay::Editor {
                    target: EditTarget::Case {
                        suite,
                        case: case.id.clone(),
                    },
                    editor: Box::new(editor),
                });
            }
            Effect::EditEnvironment(env) => {
                use crate::tui::panes::environments as envs;
                let (target, editor) = match env {
                    None => (
                        EditTarget::NewEnvironment,
                        JsonEditor::new(
                            "New environment",
                            &envs::create_template(self.hosts.items.first().map(|h| h.id.as_str())),
                            envs::validate_create,
                        ),
                    ),
                    Some(e) => (
                        EditTarget::Environment { id: e.id.clone() },
                        JsonEditor::new(
                            format!("Edit environment “{}” (revision {})", e.name, e.revision),
                            &envs::edit_value(&e),
                            envs::validate_patch,
                        ),
                    ),
                };
                self.overlay = Some(Overlay::Editor {
                    target,
                    editor: Box::new(editor),
                });
            }
            Effect::EditServer(srv) => {
                use crate::tui::panes::servers as srvs;
                self.overlay = Some(Overlay::Editor {
                    target: EditTarget::Server { id: srv.id.clone() },
                    editor: Box::new(JsonEditor::new(
                        format!("Edit server “{}”", srv.name),
                        &srvs::edit_value(&srv),
                        srvs::validate_patch,
                    )),
                });
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
