//! Environments: the list (archived ones on `a`), a resolve preview on Enter (what a launch
//! would use), archive and restore guarded by the revision the list was read at.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{
    Command, Cx, DetailView, Effect, Pane, PaneFocus, RenderCx, empty_text, field, heading, pad,
    pane_block, split, time,
};
use crate::spec::environment::{Environment, EnvironmentResolution};
use crate::tui::keymap::Action;
use crate::tui::message::Request;
use crate::tui::widgets::highlight;
use crate::tui::widgets::list::ListView;

#[derive(Default)]
pub struct EnvironmentsPane {
    pub items: Vec<Environment>,
    pub include_archived: bool,
    /// Host id → name, from the hosts list, to show names instead of ids.
    pub host_names: HashMap<String, String>,
    resolution: Option<EnvironmentResolution>,
    list: ListView,
    detail: DetailView,
    /// An item to select once a reload brings it (after a save).
    select_next: Option<String>,
}

impl EnvironmentsPane {
    pub fn set_items(&mut self, items: Vec<Environment>) {
        self.list.set_keys(
            items
                .iter()
                .map(|e| {
                    let archived = if e.archived { " archived" } else { "" };
                    format!("{}{archived}", e.name)
                })
                .collect(),
        );
        self.items = items;
        if let Some(id) = self.select_next.take() {
            self.select_id(&id);
        }
    }

    pub fn set_resolution(&mut self, r: EnvironmentResolution) {
        self.resolution = Some(r);
    }

    pub fn clear(&mut self) {
        self.set_items(Vec::new());
        self.resolution = None;
    }

    /// Active (not archived) environments: the count the navigation shows.
    pub fn active_count(&self) -> usize {
        self.items.iter().filter(|e| !e.archived).count()
    }

    /// Selects an environment; one not listed yet is selected when a reload brings it.
    pub fn select_id(&mut self, id: &str) {
        match self.items.iter().position(|e| e.id == id) {
            Some(i) => self.list.select(i),
            None => self.select_next = Some(id.to_string()),
        }
    }

    fn selected(&self) -> Option<&Environment> {
        self.list.selected().and_then(|i| self.items.get(i))
    }

    /// The list request for the current archived toggle.
    pub fn list_request(&self, project: &str) -> Request {
        Request::Environments {
            project: project.to_string(),
            include_archived: self.include_archived,
        }
    }
}

impl Pane for EnvironmentsPane {
    fn title(&self) -> String {
        if self.include_archived {
            format!("Environments ({}, with archived)", self.items.len())
        } else {
            format!("Environments ({})", self.items.len())
        }
    }

    fn commands(&self) -> Vec<Command> {
        vec![
            Command::new(Action::Open, "resolve"),
            Command::new(Action::New, "new environment"),
            Command::new(Action::Edit, "edit"),
            Command::new(
                Action::ToggleArchived,
                if self.include_archived {
                    "hide archived"
                } else {
                    "show archived"
                },
            ),
            Command::new(Action::Archive, "archive"),
            Command::new(Action::Restore, "restore"),
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
        let (Some(project), Some(e)) = (cx.project, self.selected()) else {
            return false;
        };
        cx.fetch(Request::ResolveEnvironment {
            project: project.to_string(),
            id: e.id.clone(),
        });
        self.detail.top();
        true
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let Some(project) = cx.project.map(str::to_string) else {
            return false;
        };
        match action {
            Action::New => {
                cx.effects.push(Effect::EditEnvironment(None));
                true
            }
            Action::Edit => {
                if let Some(e) = self.selected() {
                    cx.effects
                        .push(Effect::EditEnvironment(Some(Box::new(e.clone()))));
                }
                true
            }
            Action::ToggleArchived => {
                self.include_archived = !self.include_archived;
                cx.fetch(self.list_request(&project));
                true
            }
            Action::Archive => {
                match self.selected() {
                    Some(e) if e.archived => cx.notify(format!("{} is already archived", e.name)),
                    Some(e) => cx.fetch(Request::ArchiveEnvironment {
                        project,
                        id: e.id.clone(),
                        expected_revision: e.revision,
                    }),
                    None => {}
                }
                true
            }
            Action::Restore => {
                match self.selected() {
                    Some(e) if !e.archived => cx.notify(format!(
                        "{} is not archived{}",
                        e.name,
                        if self.include_archived {
                            ""
                        } else {
                            " (press a to show archived environments)"
                        }
                    )),
                    Some(e) => cx.fetch(Request::RestoreEnvironment {
                        project,
                        id: e.id.clone(),
                        expected_revision: e.revision,
                    }),
                    None => {}
                }
                true
            }
            _ => false,
        }
    }

    fn render(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx) {
        let theme = rcx.theme;
        let (list_area, detail_area) = split(area, rcx.focus);
        let name_w = (list_area.width as usize).saturating_sub(24).clamp(8, 40);
        let (items, hosts) = (&self.items, &self.host_names);
        self.list.render(
            f,
            list_area,
            pane_block(self.title(), rcx.focus == PaneFocus::List, theme),
            theme,
            rcx.focus == PaneFocus::List,
            &empty_text(rcx.loading, "environments"),
            |i| {
                let e = &items[i];
                let host = hosts.get(&e.host_id).map(String::as_str).unwrap_or("?");
                let mut spans = vec![
                    Span::raw(pad(&e.name, name_w)),
                    Span::styled(format!(" {} ", pad(host, 12)), theme.dim),
                    Span::styled(format!("r{}", e.revision), theme.dim),
                ];
                if e.archived {
                    spans.push(Span::styled(" archived", theme.warn));
                }
                Line::from(spans)
            },
        );
        let Some(e) = self.selected() else {
            self.detail.render(
                f,
                detail_area,
                Line::from("Environment"),
                vec![],
                false,
                theme,
            );
            return;
        };
        let host = hosts
            .get(&e.host_id)
            .cloned()
            .unwrap_or_else(|| e.host_id.clone());
        let mut lines = vec![heading(&e.name, theme)];
        if let Some(d) = &e.description {
            lines.push(Line::styled(d.clone(), theme.dim));
        }
        lines.push(field("host", host, theme));
        lines.push(field(
            "model",
            e.model_id.clone().unwrap_or_else(|| "(host's)".into()),
            theme,
        ));
        lines.push(field(
            "roots",
            match &e.roots {
                Some(r) if !r.is_empty() => r
                    .iter()
                    .map(|r| r.uri.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(_) => "none (servers get no roots in its runs)".into(),
                None => "each server's own".into(),
            },
            theme,
        ));
        lines.push(field("revision", e.revision.to_string(), theme));
        if e.archived {
            let when = e.archived_at.map(time).unwrap_or_default();
            lines.push(Line::from(vec![
                Span::styled(format!("{:<14}", "archived"), theme.dim),
                Span::styled(when, theme.warn),
            ]));
        }
        lines.push(field("id", e.id.clone(), theme));
        lines.push(field("updated", time(e.updated_at), theme));
        lines.push(Line::raw(""));
        match self
            .resolution
            .as_ref()
            .filter(|r| r.environment.id == e.id)
        {
            Some(r) => {
                lines.push(heading("Resolved for a launch", theme));
                lines.push(field("host", r.host_name.clone(), theme));
                lines.push(field(
                    "model",
                    r.effective_model_id.clone().unwrap_or_else(|| "—".into()),
                    theme,
                ));
                let servers = if r.servers.is_empty() {
                    "none".to_string()
                } else {
                    r.servers
                        .iter()
                        .map(|s| s.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                lines.push(field("servers", servers, theme));
                for p in &r.plugin_versions {
                    lines.push(field(
                        "plugin",
                        format!("{} ({})", p.name, p.bundle_hash),
                        theme,
                    ));
                }
                if let Some(cfg) = &r.host_config {
                    lines.push(Line::raw(""));
                    lines.push(heading("Host config", theme));
                    lines.extend(highlight::json(cfg, theme));
                }
            }
            None => lines.push(Line::styled(
                "Enter: resolve (what a launch would use)",
                theme.dim,
            )),
        }
        let title = Line::from(format!("Environment › {}", e.name));
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

// --- create and edit ------------------------------------------------------------------------

/// The create body a new environment starts from.
pub fn create_template(host_id: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "name": "",
        "description": "",
        "hostId": host_id.unwrap_or(""),
    })
}

/// The edit body for an environment: its revision (the write is refused if someone saved a
/// newer one) and its editable fields as they are now.
pub fn edit_value(e: &Environment) -> serde_json::Value {
    let full = serde_json::to_value(e).unwrap_or_default();
    let mut out = serde_json::Map::new();
    out.insert("expectedRevision".into(), e.revision.into());
    for k in [
        "name",
        "description",
        "hostId",
        "serverAttachmentId",
        "modelId",
        "skillSelection",
        "pluginVersionIds",
        "roots",
    ] {
        if let Some(v) = full.get(k).filter(|v| !v.is_null()) {
            out.insert(k.into(), v.clone());
        }
    }
    serde_json::Value::Object(out)
}

fn lines_of(e: &crate::spec::Error) -> Vec<String> {
    crate::tui::widgets::json_edit::error_lines(e)
}

pub fn validate_create(v: &serde_json::Value) -> Vec<String> {
    match crate::spec::case::decode::<crate::spec::environment::EnvironmentCreate>(v.clone()) {
        Ok(b) => b.validate().err().map(|e| lines_of(&e)).unwrap_or_default(),
        Err(e) => lines_of(&e),
    }
}

pub fn validate_patch(v: &serde_json::Value) -> Vec<String> {
    match crate::spec::case::decode::<crate::spec::environment::EnvironmentPatch>(v.clone()) {
        Ok(b) => b.validate().err().map(|e| lines_of(&e)).unwrap_or_default(),
        Err(e) => lines_of(&e),
    }
}
