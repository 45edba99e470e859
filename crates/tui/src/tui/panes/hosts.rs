//! Hosts: the MCP clients an eval emulates. Enter loads the full config, shown as
//! highlighted JSON.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{
    Command, Cx, DetailView, Effect, Pane, PaneFocus, RenderCx, empty_text, field, heading, pad,
    pane_block, split, time,
};
use crate::spec::host::{Host, HostSummary};
use crate::tui::keymap::Action;
use crate::tui::message::Request;
use crate::tui::widgets::highlight;
use crate::tui::widgets::list::ListView;

#[derive(Default)]
pub struct HostsPane {
    pub items: Vec<HostSummary>,
    /// The last host opened with Enter (full config).
    opened: Option<Host>,
    list: ListView,
    detail: DetailView,
}

impl HostsPane {
    pub fn set_items(&mut self, items: Vec<HostSummary>) {
        self.list.set_keys(
            items
                .iter()
                .map(|h| format!("{} {}", h.name, h.model_id))
                .collect(),
        );
        self.items = items;
    }

    pub fn set_opened(&mut self, host: Host) {
        self.opened = Some(host);
    }

    pub fn clear(&mut self) {
        self.set_items(Vec::new());
        self.opened = None;
    }

    fn selected(&self) -> Option<&HostSummary> {
        self.list.selected().and_then(|i| self.items.get(i))
    }

    pub fn name_of(&self, id: &str) -> Option<&str> {
        self.items
            .iter()
            .find(|h| h.id == id)
            .map(|h| h.name.as_str())
    }
}

impl Pane for HostsPane {
    fn title(&self) -> String {
        format!("Hosts ({})", self.items.len())
    }

    fn commands(&self) -> Vec<Command> {
        vec![
            Command::new(Action::Open, "config"),
            Command::new(Action::New, "new host"),
            Command::new(Action::Edit, "edit"),
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
        let (Some(project), Some(h)) = (cx.project, self.selected()) else {
            return false;
        };
        cx.fetch(Request::Host {
            project: project.to_string(),
            id: h.id.clone(),
            edit: false,
        });
        self.detail.top();
        true
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        match action {
            Action::New => cx.effects.push(Effect::NewHost),
            Action::Edit => {
                let (Some(project), Some(h)) = (cx.project, self.selected()) else {
                    return true;
                };
                // The form edits the full config: read it first (or use the one read).
                match self.opened.as_ref().filter(|o| o.id == h.id) {
                    Some(host) => cx.effects.push(Effect::EditHost(Box::new(host.clone()))),
                    None => cx.fetch(Request::Host {
                        project: project.to_string(),
                        id: h.id.clone(),
                        edit: true,
                    }),
                }
            }
            _ => return false,
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx) {
        let theme = rcx.theme;
        let (list_area, detail_area) = split(area, rcx.focus);
        let name_w = (list_area.width as usize).saturating_sub(8).clamp(8, 40);
        let items = &self.items;
        self.list.render(
            f,
            list_area,
            pane_block(self.title(), rcx.focus == PaneFocus::List, theme),
            theme,
            rcx.focus == PaneFocus::List,
            &empty_text(rcx.loading, "hosts"),
            |i| {
                let h = &items[i];
                Line::from(vec![
                    Span::raw(pad(&h.name, name_w)),
                    Span::styled(format!(" {:>2} srv", h.server_count), theme.dim),
                ])
            },
        );
        let Some(h) = self.selected() else {
            self.detail
                .render(f, detail_area, Line::from("Host"), vec![], false, theme);
            return;
        };
        let mut lines = vec![
            heading(&h.name, theme),
            field("model", h.model_id.clone(), theme),
            field("servers", h.server_count.to_string(), theme),
            field("config id", h.host_config_id.clone(), theme),
            field("id", h.id.clone(), theme),
            field("updated", time(h.updated_at), theme),
            Line::raw(""),
        ];
        match self.opened.as_ref().filter(|o| o.id == h.id) {
            Some(host) => lines.extend(highlight::json(&host.config, theme)),
            None => lines.push(Line::styled("Enter: show the full config", theme.dim)),
        }
        let title = Line::from(format!("Host › {}", h.name));
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
