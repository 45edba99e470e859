//! Drawing, and the command lists the footer, the help and the palette are built from.

use super::*;

/// A key and what it does, as the footer shows it.
type Hint = (String, String);

impl App {
    // --- commands, help, palette ---------------------------------------------------------

    pub(super) fn global_commands() -> Vec<Command> {
        vec![
            Command::new(Action::Help, "help"),
            Command::new(Action::Palette, "command palette"),
            Command::new(Action::Filter, "filter the list"),
            Command::new(Action::FocusNext, "next pane"),
            Command::new(Action::FocusPrev, "previous pane"),
            Command::new(Action::Open, "open"),
            Command::new(Action::Back, "back / clear filter"),
            Command::new(Action::Refresh, "reload everything"),
            Command::new(Action::Agent, "talk to the project's agent"),
            Command::new(Action::Credits, "credits and their ledger"),
            Command::new(Action::Quit, "quit"),
        ]
    }

    /// The commands of one part of the screen, in the order the footer shows them: the
    /// pane's own, then how to move and leave. The footer and the help are both built from
    /// this, so they cannot drift apart.
    pub(super) fn part_commands(&self, part: Focus) -> (String, Vec<Command>) {
        let section = self.section();
        let pane = self.pane(section);
        match part {
            Focus::Nav => (
                "Navigation".into(),
                vec![
                    Command::new(Action::Open, "open"),
                    Command::new(Action::Down, "move"),
                ],
            ),
            Focus::List => {
                let mut cmds = pane.commands();
                cmds.push(Command::new(Action::Down, "move"));
                cmds.push(Command::new(Action::Back, "back to the navigation"));
                (format!("{} list", section.label()), cmds)
            }
            Focus::Detail => {
                let mut cmds = pane.detail_commands();
                if !cmds.iter().any(|c| c.action == Action::Down) {
                    cmds.push(Command::new(Action::Down, "scroll"));
                }
                if !cmds.iter().any(|c| c.action == Action::PageDown) {
                    cmds.push(Command::new(Action::PageDown, "page"));
                }
                if !cmds.iter().any(|c| c.action == Action::Back) {
                    cmds.push(Command::new(Action::Back, "back to the list"));
                }
                (format!("{} detail", section.label()), cmds)
            }
        }
    }

    /// How an action's keys read in the footer: `j/k` for moving, else the first key.
    fn footer_key(&self, action: Action) -> String {
        let km = &self.keymap;
        match action {
            Action::Down => format!(
                "{}/{}",
                km.key_for(Action::Down).unwrap_or_default(),
                km.key_for(Action::Up).unwrap_or_default()
            ),
            Action::PageDown => format!(
                "{}/{}",
                km.key_for(Action::PageDown).unwrap_or_default(),
                km.key_for(Action::PageUp).unwrap_or_default()
            ),
            a => km.key_for(a).unwrap_or_default(),
        }
    }

    pub(super) fn help(&self) -> Help {
        let km = &self.keymap;
        let rows = |cmds: Vec<Command>| -> Vec<(String, String)> {
            cmds.into_iter()
                .map(|c| {
                    let keys = match c.action {
                        Action::Down => format!(
                            "{} / {}",
                            km.keys_for(Action::Down),
                            km.keys_for(Action::Up)
                        ),
                        Action::PageDown => format!(
                            "{} / {}",
                            km.keys_for(Action::PageDown),
                            km.keys_for(Action::PageUp)
                        ),
                        a => km.keys_for(a),
                    };
                    (keys, c.label.to_string())
                })
                .collect()
        };
        // The part with the keyboard first, then the pane's other part.
        let parts = match self.focus {
            Focus::Nav => vec![Focus::Nav, Focus::List],
            Focus::List => vec![Focus::List, Focus::Detail],
            Focus::Detail => vec![Focus::Detail, Focus::List],
        };
        let mut sections = Vec::new();
        for (i, part) in parts.into_iter().enumerate() {
            let (title, cmds) = self.part_commands(part);
            sections.push(HelpSection {
                title: if i == 0 {
                    format!("{title} (has the keyboard)")
                } else {
                    title
                },
                rows: rows(cmds),
            });
        }
        sections.push(HelpSection {
            title: "Everywhere".into(),
            rows: rows(App::global_commands()),
        });
        let mut moves = rows(vec![
            Command::new(Action::Up, "up"),
            Command::new(Action::Down, "down"),
            Command::new(Action::Left, "back towards the navigation"),
            Command::new(Action::Right, "open / into the pane"),
            Command::new(Action::Top, "first"),
            Command::new(Action::Bottom, "last"),
            Command::new(Action::PageUp, "page up"),
            Command::new(Action::PageDown, "page down"),
        ]);
        moves.push(("click".into(), "focus and select".into()));
        moves.push(("wheel".into(), "scroll what is under the pointer".into()));
        sections.push(HelpSection {
            title: "Moving".into(),
            rows: moves,
        });
        sections.push(HelpSection {
            title: "Sections".into(),
            rows: Section::ALL
                .iter()
                .map(|&s| (km.keys_for(Action::Goto(s)), s.goto_label().to_string()))
                .collect(),
        });
        sections.push(HelpSection {
            title: "Filter (after /)".into(),
            rows: vec![
                (
                    "type".into(),
                    "narrow the list (words match anywhere)".into(),
                ),
                (
                    "Enter".into(),
                    "keep the filter and go back to the list".into(),
                ),
                ("Esc".into(), "clear the filter".into()),
            ],
        });
        Help {
            sections,
            scroll: 0,
        }
    }

    pub(super) fn palette_entries(&self) -> Vec<Entry> {
        let current = self.section();
        let mut entries: Vec<Entry> = Vec::new();
        let km = &self.keymap;
        let mut push = |action: Action, section: Option<Section>, label: String| {
            if !entries
                .iter()
                .any(|e| e.action == action && e.section == section)
            {
                entries.push(Entry {
                    action,
                    section,
                    label,
                    key: km.key_for(action),
                });
            }
        };
        // The current pane's commands first, then every other pane's, then the rest.
        let mut order = vec![current];
        order.extend(Section::ALL.iter().copied().filter(|&s| s != current));
        for s in order {
            if s != Section::Projects && self.nav.active.is_none() {
                continue;
            }
            for c in self.pane(s).commands() {
                if c.action != Action::Refresh {
                    push(c.action, Some(s), format!("{}: {}", s.label(), c.label));
                }
            }
        }
        for s in Section::ALL {
            push(Action::Goto(s), None, s.goto_label().to_string());
        }
        for c in App::global_commands() {
            if c.action != Action::Palette {
                push(c.action, None, c.label.to_string());
            }
        }
        entries
    }

    /// The footer's key hints for what has focus, and the ones that always show (help, quit).
    pub(super) fn hints(&self) -> (Vec<Hint>, Vec<Hint>) {
        let km = &self.keymap;
        let k = |a: Action| km.key_for(a).unwrap_or_default();
        let (_, cmds) = self.part_commands(self.focus);
        let mut out: Vec<(String, String)> = cmds
            .into_iter()
            .filter(|c| c.action != Action::Refresh)
            .map(|c| (self.footer_key(c.action), c.label.to_string()))
            .collect();
        out.push((k(Action::Filter), "filter".into()));
        out.push((k(Action::FocusNext), "pane".into()));
        out.push((k(Action::Palette), "command".into()));
        let pinned = vec![
            (k(Action::Help), "help".into()),
            (k(Action::Quit), "quit".into()),
        ];
        (out, pinned)
    }

    // --- drawing ------------------------------------------------------------------------

    pub fn render(&mut self, f: &mut Frame) {
        let area = f.area();
        let [status, body, footer] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Fill(1),
            Constraint::Length(1),
        ])
        .areas(area);
        self.render_status(f, status);
        let nav_w = if area.width >= 110 { 26 } else { 22 };
        let [nav_area, main_area] =
            Layout::horizontal([Constraint::Length(nav_w), Constraint::Fill(1)]).areas(body);
        self.nav_area = nav_area;
        let counts: HashMap<Section, Option<usize>> = Section::CHILDREN
            .iter()
            .map(|&s| (s, self.count(s)))
            .collect();
        let theme = self.theme.clone();
        let projects_loading = self.pending.contains_key(&Slot::Projects);
        self.nav.render(
            f,
            nav_area,
            &theme,
            self.focus == Focus::Nav,
            projects_loading,
            |s| counts.get(&s).copied().flatten(),
        );
        self.projects.counts = Section::CHILDREN
            .iter()
            .filter_map(|&s| counts.get(&s).copied().flatten().map(|n| (s.label(), n)))
            .collect();
        let section = self.section();
        let pending = self.pending.clone();
        let busy = move |slot: Slot| pending.contains_key(&slot);
        let rcx = RenderCx {
            theme: &theme,
            busy: &busy,
            spinner: SPINNER[self.frame % SPINNER.len()],
            focus: match self.focus {
                Focus::Nav => PaneFocus::None,
                Focus::List => PaneFocus::List,
                Focus::Detail => PaneFocus::Detail,
            },
            loading: self.pending.contains_key(&App::slot_of(section)),
        };
        self.main_area = main_area;
        if !matches!(self.overlay, Some(Overlay::Import(_))) {
            self.pane_mut(section).render(f, main_area, &rcx);
        }
        let filtering = self.focused_list().is_filtering();
        self.render_footer(f, footer, filtering);
        match self.overlay.as_mut() {
            Some(Overlay::Help(h)) => h.render(f, area, &theme),
            Some(Overlay::Palette(p)) => p.render(f, area, &theme),
            // Over the main area, as wide as it: the navigation stays in view.
            Some(Overlay::Form { form, .. }) => form.render(f, main_area, &theme),
            Some(Overlay::CallForm(form)) => form.render(f, area, &theme),
            Some(Overlay::Confirm(c)) => c.render(f, area, &theme),
            Some(Overlay::Import(s)) => {
                s.render(f, main_area, &theme, SPINNER[self.frame % SPINNER.len()])
            }
            Some(Overlay::RunPicker(p)) => p.render(f, area, &theme),
            Some(Overlay::Ask(a)) => a.render(f, main_area, &theme),
            Some(Overlay::Template(t)) => t.render(f, main_area, &theme),
            Some(Overlay::Path { input, error }) => {
                render_path_prompt(f, area, &theme, input, error.as_deref())
            }
            Some(Overlay::Credits(v)) => v.render(f, area, &theme),
            Some(Overlay::Agent) => {
                self.agent
                    .render(f, area, &theme, SPINNER[self.frame % SPINNER.len()])
            }
            None => {}
        }
        if let Some(m) = self.errors.front() {
            m.render(f, area, &theme, Instant::now());
        }
    }

    pub(super) fn render_status(&self, f: &mut Frame, area: Rect) {
        let t = &self.theme;
        let mut right = Vec::new();
        if self.in_flight > 0 {
            right.push(Span::styled(
                format!("{} loading ", SPINNER[self.frame % SPINNER.len()]),
                t.status_bar,
            ));
        }
        if self.errors.len() > 1 {
            right.push(Span::styled(
                format!("{} errors ", self.errors.len()),
                t.status_bar,
            ));
        }
        let right_w: usize = right.iter().map(|s| s.width()).sum();
        let (org, credits) = match self.me.as_ref().and_then(|m| m.organization.as_ref()) {
            Some(o) => (format!("org {}", o.name), format!("{} credits", o.credits)),
            None if self.me.is_some() => ("no organization".into(), String::new()),
            None => ("…".into(), String::new()),
        };
        let sep = " │ ";
        let fixed =
            " evaldeck".len() + sep.len() * 3 + org.chars().count() + credits.chars().count();
        let room = (area.width as usize).saturating_sub(fixed + right_w + 1);
        let describe = clip_middle(&self.describe, room);
        let mut spans = vec![
            Span::styled(
                " evaldeck",
                t.status_bar.add_modifier(ratatui::style::Modifier::BOLD),
            ),
            Span::styled(sep, t.status_bar),
            Span::styled(describe, t.status_bar),
            Span::styled(sep, t.status_bar),
            Span::styled(org, t.status_bar),
        ];
        if !credits.is_empty() {
            spans.push(Span::styled(sep, t.status_bar));
            spans.push(Span::styled(credits, t.status_bar));
        }
        f.buffer_mut().set_style(area, t.status_bar);
        f.render_widget(Paragraph::new(Line::from(spans)), area);
        let rw = right_w as u16;
        if rw > 0 && rw < area.width {
            let r = Rect {
                x: area.x + area.width - rw,
                width: rw,
                ..area
            };
            f.render_widget(Paragraph::new(Line::from(right)), r);
        }
    }

    pub(super) fn render_footer(&self, f: &mut Frame, area: Rect, filtering: bool) {
        let t = &self.theme;
        let h = |k: &str, l: &str| (k.to_string(), l.to_string());
        let (hints, pinned) = if let Some(Overlay::Import(s)) = &self.overlay {
            (s.hints(), Vec::new())
        } else if let Some(o) = &self.overlay {
            // A dialog has the keyboard: the pane's keys would not reach the pane.
            let own = match o {
                Overlay::Help(_) | Overlay::Credits(_) => {
                    vec![h("j/k", "scroll"), h("Esc", "close")]
                }
                Overlay::Palette(_) | Overlay::RunPicker(_) => {
                    vec![h("type", "to filter"), h("Enter", "run"), h("Esc", "close")]
                }
                Overlay::Confirm(_) => vec![h("y", "yes"), h("n/Esc", "no")],
                Overlay::Path { .. } => vec![h("Enter", "import"), h("Esc", "cancel")],
                Overlay::Agent => vec![h("Enter", "send"), h("Esc", "close")],
                Overlay::Ask(_) => vec![h("Esc", "cancel (the dialog lists its other keys)")],
                _ => vec![
                    h("Ctrl-s", "submit"),
                    h("Tab", "next field"),
                    h("Ctrl-t", "JSON"),
                    h("Esc", "cancel"),
                ],
            };
            (own, Vec::new())
        } else if filtering {
            (
                vec![
                    ("type".to_string(), "to filter".to_string()),
                    ("Enter".into(), "keep".into()),
                    ("Esc".into(), "clear".into()),
                ],
                Vec::new(),
            )
        } else {
            self.hints()
        };
        let width = |h: &[(String, String)]| -> usize {
            h.iter()
                .map(|(k, l)| k.chars().count() + l.chars().count() + 3)
                .sum()
        };
        let total = area.width as usize;
        let pinned_w = width(&pinned);
        // The notice (or the last latency) on the right, never over what always shows.
        let right_room = total.saturating_sub(pinned_w + 12).min(total / 2);
        let right = match (&self.notice, self.last_latency) {
            (Some((msg, _)), _) => Span::styled(
                format!("{} ", clip(msg, right_room.saturating_sub(1))),
                t.accent,
            ),
            // Fixed width, so the hints beside it do not come and go with the digits.
            (None, Some(d)) if right_room >= 16 => {
                Span::styled(format!("last: {:>5} ms ", d.as_millis()), t.dim)
            }
            _ => Span::raw(""),
        };
        let room = total.saturating_sub(right.width() + 1 + pinned_w);
        let mut spans = vec![Span::raw(" ")];
        let mut used = 1;
        let mut cut = false;
        for (i, (key, label)) in hints.iter().enumerate() {
            let w = key.chars().count() + label.chars().count() + 3;
            // Leave room for the "…" that says there is more (in the help).
            let more = if i + 1 < hints.len() { 2 } else { 0 };
            if used + w + more > room {
                cut = true;
                break;
            }
            spans.push(Span::styled(key.clone(), t.key));
            spans.push(Span::styled(format!(" {label}  "), t.dim));
            used += w;
        }
        if cut {
            spans.push(Span::styled("… ", t.dim));
        }
        for (key, label) in &pinned {
            spans.push(Span::styled(key.clone(), t.key));
            spans.push(Span::styled(format!(" {label}  "), t.dim));
        }
        f.render_widget(Paragraph::new(Line::from(spans)), area);
        let rw = right.width() as u16;
        if rw > 0 && rw < area.width {
            let r = Rect {
                x: area.x + area.width - rw,
                width: rw,
                ..area
            };
            f.render_widget(Paragraph::new(right), r);
        }
    }
}

/// The box that asks for an `mcp.json` path.
fn render_path_prompt(
    f: &mut Frame,
    area: Rect,
    theme: &Theme,
    input: &crate::tui::widgets::input::LineInput,
    error: Option<&str>,
) {
    let r = crate::tui::widgets::modal::centered(area, 76, 8);
    let inner = crate::tui::widgets::modal::frame_box(
        f,
        r,
        Line::styled(" Import servers from an mcp.json ", theme.title),
        theme.border_focused,
    );
    let mut path = vec![Span::styled("path  ", theme.dim)];
    path.extend(input.line(theme.base, theme.selected, true).spans);
    let mut lines = vec![
        Line::styled(
            "Claude Desktop / Claude Code / Cursor (mcpServers) or VS Code (servers) files.",
            theme.dim,
        ),
        Line::from(path),
    ];
    if let Some(e) = error {
        lines.push(Line::styled(format!("✗ {e}"), theme.error));
    }
    lines.push(Line::from(vec![
        Span::styled("Enter", theme.key),
        Span::styled(" import  ", theme.dim),
        Span::styled("Esc", theme.key),
        Span::styled(" cancel", theme.dim),
    ]));
    f.render_widget(
        Paragraph::new(lines).wrap(ratatui::widgets::Wrap { trim: false }),
        inner,
    );
}

/// Shortens text in the middle (`/home/me/…/evaldeck.sqlite3`), keeping both ends readable.
fn clip_middle(s: &str, width: usize) -> String {
    let n = s.chars().count();
    if n <= width {
        return s.to_string();
    }
    if width < 5 {
        return s.chars().take(width).collect();
    }
    let head = (width - 1) / 2;
    let tail = width - 1 - head;
    let mut out: String = s.chars().take(head).collect();
    out.push('…');
    out.extend(s.chars().skip(n - tail));
    out
}
