//! Projects: every project the account can see; Enter makes one the active project, whose
//! servers, environments, hosts and suites the other panes show.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{
    Command, Cx, DetailView, Effect, Pane, PaneFocus, RenderCx, empty_text, field, heading, pad,
    pane_block, split, time,
};
use crate::spec::catalog::Project;
use crate::tui::keymap::Action;
use crate::tui::widgets::list::ListView;

#[derive(Default)]
pub struct ProjectsPane {
    pub items: Vec<Project>,
    pub active: Option<String>,
    /// Counts of the active project's sections, `(label, n)`, set by the app before drawing.
    pub counts: Vec<(&'static str, usize)>,
    list: ListView,
    detail: DetailView,
}

impl ProjectsPane {
    pub fn set_items(&mut self, items: Vec<Project>) {
        self.list
            .set_keys(items.iter().map(|p| p.name.clone()).collect());
        self.items = items;
    }

    pub fn select_id(&mut self, id: &str) {
        if let Some(i) = self.items.iter().position(|p| p.id == id) {
            self.list.select(i);
        }
    }

    fn selected(&self) -> Option<&Project> {
        self.list.selected().and_then(|i| self.items.get(i))
    }
}

impl Pane for ProjectsPane {
    fn title(&self) -> String {
        format!("Projects ({})", self.items.len())
    }

    fn commands(&self) -> Vec<Command> {
        vec![
            Command::new(Action::Open, "activate"),
            Command::new(Action::Refresh, "refresh"),
        ]
    }

    fn list(&mut self) -> &mut ListView {
        &mut self.list
    }

    fn detail(&mut self) -> &mut DetailView {
        &mut self.detail
    }

    fn open(&mut self, cx: &mut Cx) -> bool {
        if let Some(p) = self.selected() {
            cx.effects.push(Effect::ActivateProject(p.id.clone()));
        }
        false
    }

    fn on_action(&mut self, _action: Action, _cx: &mut Cx) -> bool {
        false
    }

    fn render(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx) {
        let theme = rcx.theme;
        let (list_area, detail_area) = split(area, rcx.focus);
        let name_w = (list_area.width as usize).saturating_sub(12).clamp(8, 40);
        let (items, active) = (&self.items, &self.active);
        self.list.render(
            f,
            list_area,
            pane_block(self.title(), rcx.focus == PaneFocus::List, theme),
            theme,
            rcx.focus == PaneFocus::List,
            &empty_text(rcx.loading, "projects"),
            |i| {
                let p = &items[i];
                let mark = if active.as_deref() == Some(p.id.as_str()) {
                    Span::styled("● ", theme.accent)
                } else {
                    Span::raw("  ")
                };
                Line::from(vec![
                    mark,
                    Span::raw(pad(&p.name, name_w)),
                    Span::styled(format!(" {}", p.role.as_deref().unwrap_or("")), theme.dim),
                ])
            },
        );
        let Some(p) = self.selected() else {
            self.detail
                .render(f, detail_area, Line::from("Project"), vec![], false, theme);
            return;
        };
        let mut lines = vec![heading(&p.name, theme)];
        if let Some(d) = &p.description {
            lines.push(Line::styled(d.clone(), theme.dim));
        }
        lines.push(Line::raw(""));
        if self.active.as_deref() == Some(p.id.as_str()) {
            for (label, n) in &self.counts {
                lines.push(field(label, n.to_string(), theme));
            }
        } else {
            lines.push(Line::styled(
                "Enter: make this the active project",
                theme.dim,
            ));
        }
        lines.push(Line::raw(""));
        if let Some(r) = &p.role {
            lines.push(field("your role", r.clone(), theme));
        }
        lines.push(field("id", p.id.clone(), theme));
        if let Some(t) = p.created_at {
            lines.push(field("created", time(t), theme));
        }
        let title = Line::from(format!("Project › {}", p.name));
        self.detail.render(
            f,
            detail_area,
            title,
            lines,
            rcx.focus == PaneFocus::Detail,
            theme,
        );
    }
}
