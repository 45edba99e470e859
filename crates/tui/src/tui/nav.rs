//! The left navigation: projects, and under the active one its sections with counts.
//! Moving the cursor here chooses what the main area shows.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::panes::pane_block;
pub use super::section::Section;
use super::theme::Theme;
use super::widgets::list::ListView;
use crate::spec::catalog::Project;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NavRow {
    /// Index into the projects.
    Project(usize),
    Section(Section),
}

#[derive(Default)]
pub struct Nav {
    pub projects: Vec<Project>,
    pub active: Option<String>,
    rows: Vec<NavRow>,
    pub list: ListView,
}

impl Nav {
    pub fn set_projects(&mut self, projects: Vec<Project>) {
        let current = self.current_project_id();
        self.projects = projects;
        if self
            .active
            .as_ref()
            .is_some_and(|a| !self.projects.iter().any(|p| &p.id == a))
        {
            self.active = None;
        }
        self.rebuild(current.map(RowId::Project));
    }

    pub fn set_active(&mut self, id: Option<String>) {
        let keep = self.current_id();
        self.active = id;
        self.rebuild(keep);
    }

    pub fn active_project(&self) -> Option<&Project> {
        let a = self.active.as_ref()?;
        self.projects.iter().find(|p| &p.id == a)
    }

    pub fn current(&self) -> Option<NavRow> {
        self.list.selected().and_then(|i| self.rows.get(i).copied())
    }

    fn current_project_id(&self) -> Option<String> {
        match self.current()? {
            NavRow::Project(i) => self.projects.get(i).map(|p| p.id.clone()),
            NavRow::Section(_) => None,
        }
    }

    fn current_id(&self) -> Option<RowId> {
        match self.current()? {
            NavRow::Project(i) => self.projects.get(i).map(|p| RowId::Project(p.id.clone())),
            NavRow::Section(s) => Some(RowId::Section(s)),
        }
    }

    /// The section the main area shows for the row under the cursor.
    pub fn section(&self) -> Section {
        match self.current() {
            Some(NavRow::Section(s)) => s,
            _ => Section::Projects,
        }
    }

    /// The project under the cursor, if the cursor is on a project row.
    pub fn project_under_cursor(&self) -> Option<&Project> {
        match self.current()? {
            NavRow::Project(i) => self.projects.get(i),
            NavRow::Section(_) => None,
        }
    }

    pub fn select_section(&mut self, s: Section) {
        let target = match s {
            Section::Projects => {
                let Some(a) = self.active.clone() else { return };
                RowId::Project(a)
            }
            s => RowId::Section(s),
        };
        self.select_row(&target);
    }

    pub fn select_project(&mut self, id: &str) {
        self.select_row(&RowId::Project(id.to_string()));
    }

    fn row_id(&self, row: NavRow) -> RowId {
        match row {
            NavRow::Project(i) => RowId::Project(self.projects[i].id.clone()),
            NavRow::Section(s) => RowId::Section(s),
        }
    }

    fn select_row(&mut self, target: &RowId) {
        if let Some(i) = (0..self.rows.len()).find(|&i| &self.row_id(self.rows[i]) == target) {
            if self.list.is_filtering() || !self.list.filter_text().is_empty() {
                self.list.clear_filter();
            }
            self.list.select(i);
        }
    }

    fn rebuild(&mut self, keep: Option<RowId>) {
        let mut rows = Vec::new();
        let mut keys = Vec::new();
        for (i, p) in self.projects.iter().enumerate() {
            rows.push(NavRow::Project(i));
            keys.push(p.name.clone());
            if self.active.as_deref() == Some(p.id.as_str()) {
                for s in Section::CHILDREN {
                    rows.push(NavRow::Section(s));
                    keys.push(format!("{} {}", p.name, s.label()));
                }
            }
        }
        self.rows = rows;
        self.list.set_keys(keys);
        if let Some(k) = keep
            && let Some(i) = (0..self.rows.len()).find(|&i| self.row_id(self.rows[i]) == k)
        {
            self.list.select(i);
        }
    }

    pub fn render(
        &mut self,
        f: &mut Frame,
        area: Rect,
        theme: &Theme,
        focused: bool,
        loading: bool,
        count: impl Fn(Section) -> Option<usize>,
    ) {
        let (rows, projects, active) = (&self.rows, &self.projects, &self.active);
        let width = area.width.saturating_sub(2) as usize;
        let empty = if loading { "loading…" } else { "no projects" };
        self.list.render(
            f,
            area,
            pane_block("Projects", focused, theme),
            theme,
            focused,
            empty,
            |i| match rows[i] {
                NavRow::Project(p) => {
                    let p = &projects[p];
                    let is_active = active.as_deref() == Some(p.id.as_str());
                    Line::from(vec![
                        Span::styled(
                            if is_active { "▾ " } else { "▸ " },
                            if is_active { theme.accent } else { theme.dim },
                        ),
                        Span::styled(
                            super::panes::clip(&p.name, width.saturating_sub(2)),
                            if is_active { theme.title } else { theme.base },
                        ),
                    ])
                }
                NavRow::Section(s) => {
                    let n = count(s)
                        .map(|n| n.to_string())
                        .unwrap_or_else(|| "…".into());
                    let label_w = width.saturating_sub(4 + n.len()).max(1);
                    Line::from(vec![
                        Span::raw("  "),
                        Span::raw(format!("{:<label_w$}", s.label())),
                        Span::styled(format!("{n:>w$}", w = n.len() + 1), theme.dim),
                    ])
                }
            },
        );
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum RowId {
    Project(String),
    Section(Section),
}
