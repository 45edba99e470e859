//! Keys, pastes and the mouse: overlays first, then the focused part, then the keymap.

use super::*;

impl App {
    /// The request that saves an editor's or a form's document.
    pub(super) fn save_request(
        &self,
        target: &EditTarget,
        v: serde_json::Value,
    ) -> Option<Request> {
        use crate::spec::case::decode;
        let project = self.nav.active.clone()?;
        Some(match target {
            EditTarget::Case { suite, case } => Request::UpdateCase {
                project,
                suite: suite.clone(),
                case: case.clone(),
                body: parse_update(v),
            },
            EditTarget::Suite { id } => Request::UpdateSuite {
                project,
                suite: id.clone(),
                body: decode(v).ok()?,
            },
            EditTarget::NewSuite => {
                let body = crate::tui::forms::new_suite_body(&v);
                let placeholder = body.get("tests").is_none();
                let mut full = body;
                if placeholder {
                    full["tests"] = serde_json::json!([{"title": "placeholder", "steps": [
                        {"id": "p1", "kind": "prompt", "prompt": "placeholder"}]}]);
                }
                Request::CreateSuite {
                    project,
                    body: decode(full).ok()?,
                    placeholder,
                }
            }
            EditTarget::Schedule { suite } => Request::SetSchedule {
                project,
                suite: suite.clone(),
                body: decode(v).ok()?,
            },
            EditTarget::NewEnvironment => Request::CreateEnvironment {
                project,
                body: decode(v).ok()?,
            },
            EditTarget::Environment { id } => Request::UpdateEnvironment {
                project,
                id: id.clone(),
                body: decode(v).ok()?,
            },
            EditTarget::NewServer => Request::CreateServer {
                project,
                body: decode(v).ok()?,
            },
            EditTarget::Server { id } => Request::UpdateServer {
                project,
                id: id.clone(),
                body: decode(v).ok()?,
            },
            EditTarget::NewHost => Request::CreateHost {
                project,
                body: decode(v).ok()?,
            },
            EditTarget::Host { id } => Request::UpdateHost {
                project,
                id: id.clone(),
                body: decode(v).ok()?,
            },
        })
    }

    // --- input --------------------------------------------------------------------------

    pub fn handle_event(&mut self, ev: Event) {
        match ev {
            Event::Key(k) => self.handle_key(k),
            Event::Mouse(m) => self.handle_mouse(m),
            Event::Paste(text) => self.handle_paste(&text),
            _ => {}
        }
    }

    pub fn handle_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if !self.errors.is_empty() {
            self.error_key(&key);
            return;
        }
        if let Some(overlay) = self.overlay.take() {
            self.overlay_key(overlay, &key);
            // A question a server asked meanwhile comes up once the overlay is gone.
            self.show_next_ask();
            return;
        }
        if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
            self.quit = true;
            return;
        }
        if self.focused_list().filter_key(&key) == FilterKey::Consumed {
            let s = self.section();
            if self.focus == Focus::Nav {
                self.on_nav_moved();
            } else if self.focus == Focus::Detail && self.pane_mut(s).detail_list().is_some() {
                // The detail's own list: its item is shown from the top.
                self.pane_mut(s).detail().top();
            } else {
                self.with_pane(|p, cx| {
                    p.on_select(cx);
                    true
                });
            }
            return;
        }
        if let Some(action) = self.keymap.action(&key) {
            self.perform(action);
        }
    }

    pub fn handle_paste(&mut self, text: &str) {
        match self.overlay.as_mut() {
            Some(Overlay::Palette(p)) => p.paste(text),
            Some(Overlay::Form { form, .. }) => form.paste(text),
            Some(Overlay::Ask(a)) => a.paste(text),
            Some(Overlay::Template(t)) => t.paste(text),
            Some(Overlay::CallForm(f)) => f.paste(text),
            Some(Overlay::Import(s)) => s.paste(text),
            Some(Overlay::RunPicker(p)) => p.paste(text),
            Some(Overlay::Agent) => self.agent.paste(text),
            Some(Overlay::Path { input, .. }) => {
                input.insert_str(text.lines().next().unwrap_or(""))
            }
            Some(_) => {}
            None => {
                let one_line = text.lines().next().unwrap_or("");
                self.focused_list().paste_into_filter(one_line);
            }
        }
    }

    pub(super) fn error_key(&mut self, key: &KeyEvent) {
        match key.code {
            KeyCode::Enter => {
                if let Some(m) = self.errors.pop_front()
                    && let Some((req, _)) = m.retry
                {
                    self.dispatch(req);
                }
            }
            KeyCode::Esc | KeyCode::Char('q') | KeyCode::Char(' ') => {
                self.errors.pop_front();
            }
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => self.quit = true,
            _ => {}
        }
    }

    pub(super) fn overlay_key(&mut self, overlay: Overlay, key: &KeyEvent) {
        match overlay {
            Overlay::Help(mut h) => match self.keymap.action(key) {
                Some(Action::Back | Action::Help | Action::Quit) => {}
                Some(Action::Down) => {
                    h.scroll_by(1);
                    self.overlay = Some(Overlay::Help(h));
                }
                Some(Action::Up) => {
                    h.scroll_by(-1);
                    self.overlay = Some(Overlay::Help(h));
                }
                Some(Action::PageDown) => {
                    h.scroll_by(10);
                    self.overlay = Some(Overlay::Help(h));
                }
                Some(Action::PageUp) => {
                    h.scroll_by(-10);
                    self.overlay = Some(Overlay::Help(h));
                }
                _ => self.overlay = Some(Overlay::Help(h)),
            },
            Overlay::Palette(mut p) => match p.handle_key(key) {
                PaletteOutcome::Keep => self.overlay = Some(Overlay::Palette(p)),
                PaletteOutcome::Close => {}
                PaletteOutcome::Run(action, section) => {
                    if let Some(section) = section {
                        if section != self.section() {
                            self.nav.select_section(section);
                        }
                        if self.focus == Focus::Nav {
                            self.focus = Focus::List;
                        }
                    }
                    self.perform(action);
                }
            },
            Overlay::Form { target, mut form } => {
                use crate::tui::widgets::form::FormOutcome;
                match form.handle_key(key) {
                    FormOutcome::Keep | FormOutcome::Alt(_) => {
                        self.overlay = Some(Overlay::Form { target, form })
                    }
                    FormOutcome::Cancel => {}
                    FormOutcome::Save(v) => {
                        match self.save_request(&target, v) {
                            Some(req) => self.dispatch(req),
                            None => form.saving = false,
                        }
                        self.overlay = Some(Overlay::Form { target, form });
                    }
                }
            }
            Overlay::Ask(mut a) => match a.handle_key(key) {
                crate::tui::panes::elicit::AskOutcome::Keep => self.overlay = Some(Overlay::Ask(a)),
                crate::tui::panes::elicit::AskOutcome::Done(action) => {
                    self.notify(format!("answered {}: {}", a.server, action.as_str()));
                }
            },
            Overlay::Template(mut form) => {
                use crate::tui::panes::template_form::TemplateOutcome;
                let project = self.nav.active.clone().unwrap_or_default();
                match form.handle_key(key, &project) {
                    TemplateOutcome::Keep => self.overlay = Some(Overlay::Template(form)),
                    TemplateOutcome::Cancel => {}
                    TemplateOutcome::Read(req) => {
                        self.notify(format!("{}…", req.describe()));
                        self.servers.show(&form.server, ServerView::Output);
                        self.dispatch(req);
                    }
                }
            }
            Overlay::CallForm(mut form) => {
                let project = self.nav.active.clone().unwrap_or_default();
                match form.handle_key(key, &project) {
                    CallOutcome::Keep => self.overlay = Some(Overlay::CallForm(form)),
                    CallOutcome::Cancel => {}
                    CallOutcome::Submit(mut req) => {
                        self.notify(format!("{}…", req.describe()));
                        // A tool call is named, so it can be cancelled while it runs.
                        if let Request::CallTool { server, body, .. } = &mut req {
                            let id = format!("wb-{}", uuid::Uuid::now_v7().simple());
                            body.call_id = Some(id.clone());
                            self.servers
                                .start_call(server, &body.tool_name, &id, self.remote());
                        }
                        self.servers.show(&form.server, ServerView::Output);
                        self.dispatch(req);
                    }
                }
            }
            Overlay::Import(mut screen) => match screen.handle_key(key) {
                ImportOutcome::Keep => self.overlay = Some(Overlay::Import(screen)),
                ImportOutcome::Close => {
                    if screen.phase() == crate::tui::panes::import::Phase::Compose
                        && screen.has_text()
                    {
                        self.notify("the plan is kept: i brings it back".into());
                        self.kept_import = Some(screen);
                    }
                }
                ImportOutcome::Send(req) => {
                    self.overlay = Some(Overlay::Import(screen));
                    self.dispatch(req);
                }
            },
            Overlay::Credits(mut v) => {
                if v.handle_key(key) {
                    self.overlay = Some(Overlay::Credits(v));
                }
            }
            Overlay::Agent => {
                let project = self.nav.active.clone().unwrap_or_default();
                match self.agent.handle_key(key, &project) {
                    AgentOutcome::Keep => self.overlay = Some(Overlay::Agent),
                    AgentOutcome::Close => {}
                    AgentOutcome::Send(req) => {
                        self.overlay = Some(Overlay::Agent);
                        self.dispatch(*req);
                    }
                }
            }
            Overlay::RunPicker(mut p) => {
                let project = self.nav.active.clone().unwrap_or_default();
                match p.handle_key(key, &project) {
                    PickOutcome::Keep => self.overlay = Some(Overlay::RunPicker(p)),
                    PickOutcome::Cancel => {}
                    PickOutcome::Start(req) => {
                        self.notify(format!("starting a run of {}…", p.suite_name));
                        self.dispatch(req);
                    }
                }
            }
            Overlay::Path { mut input, .. } => match key.code {
                KeyCode::Esc => {}
                KeyCode::Enter => {
                    let path = crate::spec::mcp_config::expand_home(input.text().trim());
                    let mapped = std::fs::read_to_string(&path)
                        .map_err(|e| format!("cannot read {path}: {e}"))
                        .and_then(|t| crate::spec::mcp_config::map_config(&t));
                    match (mapped, self.nav.active.clone()) {
                        (Ok(m), Some(project)) if !m.servers.is_empty() => {
                            let mut notes: Vec<String> = m
                                .skipped
                                .iter()
                                .map(|u| format!("skipped {}: {}", u.name, u.reason))
                                .collect();
                            notes.extend(m.warnings);
                            for n in &notes {
                                tracing::info!(note = %n, "mcp.json import");
                            }
                            self.dispatch(Request::ImportServers {
                                project,
                                bodies: m.servers,
                                notes,
                            });
                        }
                        (Ok(m), _) => {
                            let why = m
                                .skipped
                                .iter()
                                .map(|u| format!("{}: {}", u.name, u.reason))
                                .collect::<Vec<_>>()
                                .join("; ");
                            self.overlay = Some(Overlay::Path {
                                input,
                                error: Some(format!("no server to import {why}")),
                            });
                        }
                        (Err(e), _) => {
                            self.overlay = Some(Overlay::Path {
                                input,
                                error: Some(e),
                            })
                        }
                    }
                }
                _ => {
                    input.handle_key(key);
                    self.overlay = Some(Overlay::Path { input, error: None });
                }
            },
            Overlay::Confirm(c) => match key.code {
                KeyCode::Char('y') | KeyCode::Char('Y') => self.dispatch(c.request),
                KeyCode::Char('n') | KeyCode::Esc | KeyCode::Char('q') => {}
                _ => self.overlay = Some(Overlay::Confirm(c)),
            },
        }
    }

    pub(super) fn focused_list(&mut self) -> &mut ListView {
        match self.focus {
            Focus::Nav => &mut self.nav.list,
            Focus::List => {
                let s = self.section();
                self.pane_mut(s).list()
            }
            Focus::Detail => {
                let s = self.section();
                if self.pane_mut(s).detail_list().is_some() {
                    return self.pane_mut(s).detail_list().expect("checked");
                }
                self.pane_mut(s).list()
            }
        }
    }

    /// After the navigation cursor moved: a project row activates that project.
    pub(super) fn on_nav_moved(&mut self) {
        if let Some(p) = self.nav.project_under_cursor() {
            let id = p.id.clone();
            self.projects.select_id(&id);
            self.activate_project(&id);
        }
    }

    pub(super) fn open(&mut self) {
        match self.focus {
            Focus::Nav => match self.nav.current() {
                Some(NavRow::Project(_)) => {
                    self.on_nav_moved();
                    self.focus = Focus::List;
                }
                Some(NavRow::Section(_)) => self.focus = Focus::List,
                None => {}
            },
            Focus::List => {
                if self.with_pane(|p, cx| p.open(cx)) {
                    self.focus = Focus::Detail;
                }
            }
            Focus::Detail => {
                self.with_pane(|p, cx| p.detail_action(Action::Open, cx));
            }
        }
    }

    pub(super) fn move_focused(&mut self, action: Action) {
        if self.focus == Focus::Detail && self.with_pane(|p, cx| p.detail_action(action, cx)) {
            return;
        }
        if self.focus == Focus::Detail {
            let s = self.section();
            let d = self.pane_mut(s).detail();
            match action {
                Action::Up => d.scroll_by(-1),
                Action::Down => d.scroll_by(1),
                Action::PageUp => d.page(false),
                Action::PageDown => d.page(true),
                Action::Top => d.top(),
                Action::Bottom => d.bottom(),
                _ => {}
            }
            return;
        }
        let list = self.focused_list();
        match action {
            Action::Up => list.up(),
            Action::Down => list.down(),
            Action::PageUp => list.page(false),
            Action::PageDown => list.page(true),
            Action::Top => list.top(),
            Action::Bottom => list.bottom(),
            _ => {}
        }
        if self.focus == Focus::Nav {
            self.on_nav_moved();
        } else {
            self.with_pane(|p, cx| {
                p.on_select(cx);
                true
            });
        }
    }

    /// Carries out one action.
    pub fn perform(&mut self, action: Action) {
        match action {
            Action::Quit => self.quit = true,
            Action::Help => self.overlay = Some(Overlay::Help(self.help())),
            Action::Credits => {
                self.overlay = Some(Overlay::Credits(CreditsView::default()));
                self.dispatch(Request::Credits);
                self.dispatch(Request::Me);
            }
            Action::Agent => {
                if self.nav.active.is_some() {
                    self.overlay = Some(Overlay::Agent);
                } else {
                    self.notify("open a project first: the agent works in one".into());
                }
            }
            Action::Palette => {
                self.overlay = Some(Overlay::Palette(Palette::new(self.palette_entries())))
            }
            Action::Filter => {
                let s = self.section();
                if self.focus == Focus::Detail && self.pane_mut(s).detail_list().is_none() {
                    self.focus = Focus::List;
                }
                self.focused_list().start_filter();
            }
            Action::FocusNext => {
                self.focus = match self.focus {
                    Focus::Nav => Focus::List,
                    Focus::List => Focus::Detail,
                    Focus::Detail => Focus::Nav,
                }
            }
            Action::FocusPrev => {
                self.focus = match self.focus {
                    Focus::Nav => Focus::Detail,
                    Focus::List => Focus::Nav,
                    Focus::Detail => Focus::List,
                }
            }
            Action::Goto(s) => {
                if s != Section::Projects && self.nav.active.is_none() {
                    self.notify("no project is active yet".into());
                    return;
                }
                self.nav.select_section(s);
                self.focus = Focus::List;
            }
            Action::Up
            | Action::Down
            | Action::Top
            | Action::Bottom
            | Action::PageUp
            | Action::PageDown => self.move_focused(action),
            // The detail's own use of ←/→ (a trace's widgets) and r (re-render a widget)
            // comes before moving focus or reloading.
            Action::Left | Action::Right | Action::Refresh
                if self.focus == Focus::Detail
                    && self.with_pane(|p, cx| p.detail_action(action, cx)) => {}
            Action::Left => match self.focus {
                Focus::Nav => {}
                Focus::List => self.focus = Focus::Nav,
                Focus::Detail => self.focus = Focus::List,
            },
            Action::Right | Action::Open => self.open(),
            Action::Back => {
                if self.focus == Focus::Detail
                    && self.with_pane(|p, cx| p.detail_action(Action::Back, cx))
                {
                    return;
                }
                let list = self.focused_list();
                if !list.filter_text().is_empty() {
                    list.clear_filter();
                    return;
                }
                self.focus = match self.focus {
                    Focus::Nav => Focus::Nav,
                    Focus::List => Focus::Nav,
                    Focus::Detail => Focus::List,
                };
            }
            Action::Refresh => self.refresh(),
            other => {
                // The detail's own commands (delete a case) come before the pane's.
                let in_detail = self.focus == Focus::Detail
                    && self.with_pane(|p, cx| p.detail_action(other, cx));
                if !in_detail && !self.with_pane(|p, cx| p.on_action(other, cx)) {
                    let key = self.keymap.key_for(other).unwrap_or_default();
                    self.notify(format!("{key}: nothing to {} here", other.label()));
                }
            }
        }
    }

    pub fn handle_mouse(&mut self, m: MouseEvent) {
        if !self.errors.is_empty() {
            return;
        }
        if let Some(Overlay::Help(h)) = self.overlay.as_mut() {
            match m.kind {
                MouseEventKind::ScrollDown => h.scroll_by(3),
                MouseEventKind::ScrollUp => h.scroll_by(-3),
                _ => {}
            }
            return;
        }
        if self.overlay.is_some() {
            return;
        }
        let pos = Position::new(m.column, m.row);
        let section = self.section();
        match m.kind {
            MouseEventKind::Down(MouseButton::Left) => {
                if self.nav.list.contains(pos) || self.nav_area.contains(pos) {
                    self.focus = Focus::Nav;
                    if self.nav.list.click(pos) {
                        self.on_nav_moved();
                    }
                } else if self.pane_mut(section).list().contains(pos) {
                    self.focus = Focus::List;
                    if self.pane_mut(section).list().click(pos) {
                        self.with_pane(|p, cx| {
                            p.on_select(cx);
                            true
                        });
                    }
                } else if self.pane_mut(section).detail().contains(pos) {
                    self.focus = Focus::Detail;
                }
            }
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp => {
                let down = m.kind == MouseEventKind::ScrollDown;
                if self.nav_area.contains(pos) {
                    self.nav.list.scroll(if down { 1 } else { -1 });
                    self.on_nav_moved();
                } else if self.pane_mut(section).list().contains(pos) {
                    self.pane_mut(section)
                        .list()
                        .scroll(if down { 1 } else { -1 });
                } else if self.pane_mut(section).detail().contains(pos) {
                    self.pane_mut(section)
                        .detail()
                        .scroll_by(if down { 3 } else { -3 });
                }
            }
            _ => {}
        }
    }
}
