//! Replies from the backend: applied to the panes, or shown as errors.

use super::*;

impl App {
    /// Closes the editor or form that just saved.
    pub(super) fn close_editor(&mut self) {
        if matches!(self.overlay, Some(Overlay::Form { .. })) {
            self.overlay = None;
        }
    }

    pub(super) fn apply(&mut self, reply: Reply, elapsed: Duration) {
        match reply {
            Reply::Me(me) => {
                self.me = Some(me);
                self.ensure_active_project();
            }
            Reply::Projects(ps) => {
                self.nav.set_projects(ps.clone());
                self.projects.set_items(ps);
                self.ensure_active_project();
            }
            Reply::Servers(v) => self.servers.set_items(v),
            Reply::Server(s) => self.servers.upsert(s),
            Reply::ServerCreated(s) => {
                self.close_editor();
                self.notify(format!("added server {}", s.name));
                let id = s.id.clone();
                self.servers.upsert(s);
                self.servers.select_id(&id);
                self.nav.select_section(Section::Servers);
                self.focus = Focus::List;
                self.reload(Section::Servers);
            }
            Reply::ServerDeleted(d) => {
                self.notify(format!("deleted server {}", d.id));
                self.reload(Section::Servers);
            }
            Reply::Hosts(v) => {
                self.environments.host_names =
                    v.iter().map(|h| (h.id.clone(), h.name.clone())).collect();
                self.hosts.set_items(v);
            }
            Reply::Host { host, edit } => {
                if edit {
                    let form = crate::tui::forms::host(Some(&host));
                    self.open_form(
                        EditTarget::Host {
                            id: host.id.clone(),
                        },
                        form,
                    );
                }
                self.hosts.set_opened(host);
            }
            Reply::HostSaved(h) => {
                self.close_editor();
                self.notify(format!("saved host {}", h.name));
                self.hosts.set_opened(h);
                self.reload(Section::Hosts);
            }
            Reply::SuiteCreated { id, name } => {
                self.close_editor();
                self.notify(format!("created suite {name}"));
                self.suites.select_next(&id);
                self.reload(Section::Suites);
            }
            Reply::Environments(v) => self.environments.set_items(v),
            Reply::Resolution(r) => self.environments.set_resolution(r),
            Reply::EnvironmentArchived(e) => {
                self.notify(format!("archived {} (revision {})", e.name, e.revision));
                self.reload(Section::Environments);
            }
            Reply::EnvironmentRestored(r) => {
                let dropped = if r.dropped_plugin_version_ids.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; dropped {} missing plugin pin(s)",
                        r.dropped_plugin_version_ids.len()
                    )
                };
                self.notify(format!("restored {}{dropped}", r.environment.name));
                let id = r.environment.id.clone();
                self.environments.select_id(&id);
                self.reload(Section::Environments);
            }
            Reply::Suites(v) => {
                self.runs.suite_names = v
                    .iter()
                    .map(|s| (s.id.clone(), s.name.clone().unwrap_or_else(|| s.id.clone())))
                    .collect();
                self.runs.trends = v
                    .iter()
                    .map(|s| (s.id.clone(), s.pass_rate_trend.clone()))
                    .collect();
                self.suites.set_items(v);
            }
            Reply::Cases { suite, items } => {
                if let Some(Overlay::RunPicker(p)) = self.overlay.as_mut()
                    && p.suite == suite
                {
                    p.set_cases(&items);
                }
                if let Some(Overlay::Import(s)) = self.overlay.as_mut()
                    && s.suite_id() == Some(suite.as_str())
                {
                    s.case_titles = items
                        .iter()
                        .map(|c| (c.id.clone(), c.title.clone()))
                        .collect();
                }
                self.suites.set_cases(suite, items);
            }
            Reply::CaseHistory { suite, history } => self.suites.set_history(suite, history),
            Reply::EnvironmentSaved(e) => {
                self.close_editor();
                self.notify(format!(
                    "saved environment {} (revision {})",
                    e.name, e.revision
                ));
                let id = e.id.clone();
                self.environments.select_id(&id);
                self.reload(Section::Environments);
            }
            Reply::ServerSaved(srv) => {
                self.close_editor();
                self.notify(format!(
                    "saved server {} (revision {})",
                    srv.name, srv.revision
                ));
                self.servers.upsert(srv);
            }
            Reply::ServersImported {
                created,
                failed,
                notes,
            } => {
                let mut msg = format!("imported {} server(s)", created.len());
                if !failed.is_empty() {
                    let names: Vec<String> = failed
                        .iter()
                        .map(|(n, why)| format!("{n} ({why})"))
                        .collect();
                    msg.push_str(&format!("; refused: {}", names.join(", ")));
                }
                for n in notes {
                    msg.push_str(&format!("; {n}"));
                }
                self.notify(msg);
                self.reload(Section::Servers);
            }
            Reply::CaseUpdated(c) => {
                self.close_editor();
                self.notify(format!("saved case {}", c.title));
                self.suites.upsert_case(c);
            }
            Reply::CaseDeleted { suite, case } => {
                self.notify("deleted the case".into());
                self.suites.remove_case(&suite, &case);
                self.cases_changed();
            }
            Reply::Suite { suite, then } => {
                let p = self.pickers();
                match then {
                    SuiteThen::Show => {}
                    SuiteThen::EditSettings => {
                        let form = crate::tui::forms::suite_settings(&suite, &p);
                        self.open_form(
                            EditTarget::Suite {
                                id: suite.id.clone(),
                            },
                            form,
                        );
                    }
                    SuiteThen::EditSchedule => {
                        let form = crate::tui::forms::schedule(&suite, suite.schedule.as_ref(), &p);
                        self.open_form(
                            EditTarget::Schedule {
                                suite: suite.id.clone(),
                            },
                            form,
                        );
                    }
                }
                self.suites.set_detail(suite);
            }
            Reply::SuiteSaved(s) => {
                self.close_editor();
                self.notify(format!("saved suite {}", s.name));
                self.suites.set_detail(s);
                self.reload(Section::Suites);
            }
            Reply::ScheduleSaved(s) => {
                self.close_editor();
                self.notify(format!(
                    "schedule saved: {}",
                    crate::tui::panes::suite_edit::schedule_summary(&s)
                ));
                self.suites.set_schedule(s);
            }
            Reply::Import(r) => {
                let next = self.import_screen().and_then(|s| s.on_response(r));
                if let Some(req) = next {
                    self.dispatch(req);
                } else {
                    self.cases_changed();
                    self.dispatch(Request::Me);
                }
            }
            Reply::Committed(done) => {
                if let Some(s) = self.import_screen() {
                    s.on_imported(done);
                }
                self.cases_changed();
                // Authoring spent credits: the status bar shows the new balance.
                self.dispatch(Request::Me);
            }
            Reply::Drafts { items, .. } => {
                if let Some(s) = self.import_screen() {
                    s.set_drafts(items);
                }
            }
            Reply::DraftFinished { draft, case } => {
                if let Some(s) = self.import_screen() {
                    s.on_finished(&draft, &case);
                }
                self.notify(format!(
                    "created case “{}” from the draft (free)",
                    case.title
                ));
                self.cases_changed();
            }
            Reply::Runs(v) => self.runs.set_items(v),
            Reply::Run { run, iterations } => {
                let live = !run.is_terminal() && self.runs.opened_id() == Some(run.id.as_str());
                let finished_now = run.is_terminal()
                    && self
                        .runs
                        .items
                        .iter()
                        .any(|r| r.id == run.id && !r.is_terminal());
                let (id, project) = (run.id.clone(), self.nav.active.clone());
                self.runs.set_run(run, iterations);
                if live && let Some(project) = project {
                    self.dispatch(Request::Run {
                        project,
                        run: id,
                        delay_ms: LIVE_MS,
                    });
                } else if finished_now {
                    self.reload(Section::Suites);
                }
            }
            Reply::Trace { iteration, value } => self.runs.set_trace(iteration, value),
            Reply::RunCreated(r) => {
                self.notify(format!("started run {}", r.run_id));
                self.nav.select_section(Section::Runs);
                self.focus = Focus::Detail;
                self.runs.open_id(&r.run_id);
                if let Some(project) = self.nav.active.clone() {
                    self.dispatch(Request::Run {
                        project,
                        run: r.run_id.clone(),
                        delay_ms: 0,
                    });
                }
                self.reload(Section::Runs);
            }
            Reply::RunCancelled(r) => {
                self.notify(format!("cancelled run {}", r.id));
                self.reload(Section::Runs);
            }
            Reply::RunRegraded(r) => {
                let s = r.summary.clone().unwrap_or_default();
                self.notify(format!(
                    "regraded run #{}: {}/{} iterations passed",
                    r.run_number.unwrap_or_default(),
                    s.passed,
                    s.total
                ));
                if let Some(project) = self.nav.active.clone() {
                    self.dispatch(Request::Run {
                        project,
                        run: r.id.clone(),
                        delay_ms: 0,
                    });
                }
                self.reload(Section::Runs);
            }
            Reply::Credits(c) => {
                if let Some(Overlay::Credits(v)) = self.overlay.as_mut() {
                    v.credits = Some(c);
                }
            }
            Reply::AgentReplied(r) => {
                if r.created_resources.iter().any(|c| c.kind == "eval_suite") {
                    self.reload(Section::Suites);
                }
                if !matches!(self.overlay, Some(Overlay::Agent)) {
                    self.notify("the agent replied: A shows it".into());
                }
                self.agent.on_reply(r);
            }
            Reply::Compared(c) => {
                self.runs.set_comparison(c);
                self.focus = Focus::Detail;
            }
            Reply::Traffic { server, page } => {
                if self.servers.on_traffic(&server, page) {
                    self.read_traffic(&server);
                }
            }
            Reply::Widget { server, record } => {
                if let Some(o) = self.servers.mcp_mut(&server).output.as_mut() {
                    o.widget = Some(crate::tui::panes::servers::Widget::new(record));
                }
            }
            Reply::CallCancelled { server, cancelled } => {
                if !cancelled {
                    // It had already ended: its answer is on its way.
                    self.notify("the call had already ended".into());
                    if let Some(r) = self.servers.mcp_mut(&server).running.as_mut() {
                        r.cancelling = false;
                    }
                }
            }
            Reply::Validated { server, result } => {
                self.notify(format!("validated: {}", result.status));
                let m = self.servers.mcp_mut(&server);
                m.validated = Some(result);
                // The saved status, read again now, is the newest word.
                m.live = None;
                self.reload_server(&server);
            }
            Reply::Doctor { server, report } => {
                let m = self.servers.mcp_mut(&server);
                m.doctor = Some(report);
                m.live = None;
                self.servers.show(&server, ServerView::Doctor);
                self.reload_server(&server);
            }
            Reply::Checked { server, report } => {
                self.notify(crate::spec::conformance::check_counts(&report));
                self.servers.mcp_mut(&server).set_checks(*report);
                self.servers.show(&server, ServerView::Checks);
            }
            Reply::Tools { server, items } => {
                self.servers.mcp_mut(&server).tools = Some(items);
                self.servers.saw(&server, Ok(()), Some(ServerView::Tools));
                self.servers.sync_sub();
                // An open case form picks its expected tool from them.
                let tools = self.all_tools();
                match self.overlay.as_mut() {
                    Some(Overlay::Form {
                        target: EditTarget::Case { .. },
                        form,
                    }) => crate::tui::case_form::give_tools(form, tools),
                    Some(Overlay::Import(s)) => s.give_tools(tools),
                    _ => {}
                }
            }
            Reply::Prompts { server, items } => {
                self.servers.mcp_mut(&server).prompts = Some(items);
                self.servers.saw(&server, Ok(()), Some(ServerView::Prompts));
                self.servers.sync_sub();
            }
            Reply::Resources {
                server,
                items,
                templates,
            } => {
                let m = self.servers.mcp_mut(&server);
                m.resources = Some(items);
                m.templates = Some(templates);
                self.servers
                    .saw(&server, Ok(()), Some(ServerView::Resources));
                self.servers.sync_sub();
            }
            Reply::Output {
                server,
                title,
                request,
                value,
            } => {
                self.servers.saw(&server, Ok(()), None);
                let window = self
                    .servers
                    .end_call(&server)
                    .map(|r| (r.started_ms, chrono::Utc::now().timestamp_millis()));
                let pictures = crate::tui::widgets::picture::from_result(&value);
                self.servers.mcp_mut(&server).output = Some(Output {
                    title,
                    request,
                    value,
                    elapsed_ms: elapsed.as_millis(),
                    window,
                    pictures,
                    widget: None,
                });
                // A tool with an MCP Apps view: render it beside the result.
                if let Some(project) = self.nav.active.clone()
                    && let Some(req) = self.servers.widget_request(&project, &server)
                {
                    self.dispatch(req);
                }
                // What evaldeck decided for the server during the call shows with it.
                if window.is_some() {
                    self.read_traffic(&server);
                }
                self.servers.show(&server, ServerView::Output);
                if self.section() == Section::Servers {
                    self.focus = Focus::Detail;
                }
            }
        }
    }

    pub(super) fn fail(&mut self, request: Request, e: Error) {
        tracing::warn!(code = %e.code, message = %e.message, what = %request.describe(), "request failed");
        // A view that could not be rendered says why in its place (no browser, say).
        if let Request::RenderWidget { server, body, .. } = &request {
            if let Some(o) = self.servers.mcp_mut(server).output.as_mut() {
                o.widget = Some(crate::tui::panes::servers::Widget::new(
                    crate::spec::widget::ViewRecord {
                        tool_name: body.tool_name.clone(),
                        error: Some(e.message.clone()),
                        ..Default::default()
                    },
                ));
            }
            return;
        }
        // A call the person cancelled ends quietly, said in its place.
        if let Request::CallTool { server, body, .. } = &request {
            let server = server.clone();
            if let Some(r) = self.servers.end_call(&server)
                && r.cancelling
            {
                self.notify(format!("cancelled the call to {}", body.tool_name));
                self.servers.mcp_mut(&server).output = Some(Output {
                    title: format!("tool {} (cancelled)", body.tool_name),
                    request: serde_json::to_value(body).unwrap_or_default(),
                    value: serde_json::json!({"cancelled": true, "message": e.message}),
                    elapsed_ms: r.started.elapsed().as_millis(),
                    window: Some((r.started_ms, chrono::Utc::now().timestamp_millis())),
                    pictures: Vec::new(),
                    widget: None,
                });
                self.read_traffic(&server);
                return;
            }
        }
        // What the server's list and status say follows what this request found.
        if let Some(server) = request.server() {
            let list = match &request {
                Request::Tools { .. } => Some(ServerView::Tools),
                Request::Prompts { .. } => Some(ServerView::Prompts),
                Request::Resources { .. } => Some(ServerView::Resources),
                _ => None,
            };
            let server = server.to_string();
            self.servers.saw(&server, Err(&e), list);
            if matches!(request, Request::Validate { .. } | Request::Doctor { .. }) {
                self.reload_server(&server);
            }
        }
        if let (Request::FinishDraft { .. }, Some(Overlay::Import(s))) =
            (&request, self.overlay.as_mut())
            && s.on_finish_failed(&e)
        {
            return;
        }
        if let Request::AgentTurn { .. } = &request
            && e.code != Code::RateLimited
        {
            self.agent.on_failed(e);
            return;
        }
        match (&request, self.overlay.as_mut()) {
            (
                Request::ImportCases { .. } | Request::PollJob { .. } | Request::CommitJob { .. },
                Some(Overlay::Import(s)),
            ) => s.on_failed(&e),
            (
                Request::UpdateCase { .. }
                | Request::UpdateSuite { .. }
                | Request::CreateSuite { .. }
                | Request::SetSchedule { .. }
                | Request::CreateServer { .. }
                | Request::UpdateServer { .. }
                | Request::CreateHost { .. }
                | Request::UpdateHost { .. }
                | Request::CreateEnvironment { .. }
                | Request::UpdateEnvironment { .. },
                Some(Overlay::Form { form, .. }),
            ) if e.code != Code::RateLimited => {
                let e = match &request {
                    Request::UpdateEnvironment { body, .. } if e.code == Code::Conflict => {
                        self.reload_later = Some(Section::Environments);
                        Error::new(
                            Code::Conflict,
                            format!(
                                "someone saved this environment after you opened it (you edited \
                                 revision {}); Esc, then e again to edit the newest revision",
                                body.expected_revision
                            ),
                        )
                    }
                    _ => e,
                };
                form.set_error(&e);
                if let Some(s) = self.reload_later.take() {
                    self.reload(s);
                }
                return;
            }
            _ => {}
        }
        let mut modal = ErrorModal::new(e, request.describe());
        if modal.error.code == Code::RateLimited {
            let wait = Duration::from_secs(modal.error.retry_after().unwrap_or(1).max(1));
            modal.retry = Some((request, Instant::now() + wait));
        } else if modal.error.code == Code::Conflict
            && let Request::ArchiveEnvironment {
                expected_revision, ..
            }
            | Request::RestoreEnvironment {
                expected_revision, ..
            } = &request
        {
            modal.hint = Some(format!(
                "The environment changed after this list was read: you acted on revision \
                 {expected_revision}, and someone (another window, the CLI or the API) has \
                 written a newer one. The list has been reloaded — check the environment \
                 and try again."
            ));
            self.reload(Section::Environments);
        }
        self.errors.push_back(modal);
    }

    /// Reads a server's protocol events newer than those on screen.
    pub(super) fn read_traffic(&mut self, server: &str) {
        if let Some(project) = self.nav.active.clone() {
            let req = self.servers.traffic_request(&project, server);
            self.dispatch(req);
        }
    }

    /// Advances the spinner, fires due retries and expires the notice.
    pub fn on_tick(&mut self) {
        self.frame = self.frame.wrapping_add(1);
        let now = Instant::now();
        if self.notice.as_ref().is_some_and(|(_, at)| now >= *at) {
            self.notice = None;
        }
        let mut due = Vec::new();
        self.errors.retain_mut(|m| match &m.retry {
            Some((req, at)) if now >= *at => {
                due.push(req.clone());
                false
            }
            _ => true,
        });
        for req in due {
            self.dispatch(req);
        }
        if self.section() == Section::Runs
            && !self.pending.contains_key(&Slot::Runs)
            && self
                .runs_read
                .is_none_or(|t| now.duration_since(t) >= RUNS_EVERY)
        {
            self.runs_read = Some(now);
            self.reload(Section::Runs);
        }
        // The protocol view (and a running call's notes) stay live.
        if self.section() == Section::Servers
            && !self.pending.contains_key(&Slot::ServerTraffic)
            && let Some(id) = self.servers.watched_traffic().map(str::to_string)
            && self
                .servers
                .mcp
                .get(&id)
                .and_then(|m| m.traffic_read)
                .is_none_or(|t| t.elapsed() >= TRAFFIC_EVERY)
        {
            self.read_traffic(&id);
        }
    }
}
