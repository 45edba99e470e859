//! Servers: the project's saved MCP servers with transport and last status; the detail
//! shows the whole config. `n` adds one through the server form.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{
    Command, Cx, DetailView, Effect, Pane, PaneFocus, RenderCx, empty_text, field, heading, pad,
    pane_block, split, time,
};
use crate::spec::server::{Server, Transport};
use crate::tui::keymap::Action;
use crate::tui::message::Request;
use crate::tui::theme::Theme;
use crate::tui::widgets::list::ListView;

#[derive(Default)]
pub struct ServersPane {
    pub items: Vec<Server>,
    list: ListView,
    detail: DetailView,
}

impl ServersPane {
    pub fn set_items(&mut self, items: Vec<Server>) {
        self.list.set_keys(
            items
                .iter()
                .map(|s| format!("{} {}", s.name, s.transport_type))
                .collect(),
        );
        self.items = items;
    }

    /// Replaces one server in place (a fresh read or an update).
    pub fn upsert(&mut self, server: Server) {
        let mut items = std::mem::take(&mut self.items);
        match items.iter_mut().find(|s| s.id == server.id) {
            Some(s) => *s = server,
            None => items.push(server),
        }
        self.set_items(items);
    }

    pub fn select_id(&mut self, id: &str) {
        if let Some(i) = self.items.iter().position(|s| s.id == id) {
            self.list.select(i);
        }
    }

    pub fn selected(&self) -> Option<&Server> {
        self.list.selected().and_then(|i| self.items.get(i))
    }

    pub fn count(&self) -> usize {
        self.items.len()
    }
}

/// The status dot and word of a server: its last validate/doctor outcome.
pub fn status(s: &Server, theme: &Theme) -> (Span<'static>, Span<'static>) {
    if !s.enabled {
        return (
            Span::styled("○", theme.dim),
            Span::styled("disabled", theme.dim),
        );
    }
    match s.last_status.as_deref() {
        Some("connected") => (
            Span::styled("●", theme.ok),
            Span::styled("connected", theme.ok),
        ),
        Some("error") => (
            Span::styled("✗", theme.error),
            Span::styled("error", theme.error),
        ),
        Some(other) => (
            Span::styled("●", theme.warn),
            Span::styled(other.to_string(), theme.warn),
        ),
        None => (
            Span::styled("○", theme.dim),
            Span::styled("not checked", theme.dim),
        ),
    }
}

fn detail_lines(s: &Server, theme: &Theme) -> Vec<Line<'static>> {
    let (dot, word) = status(s, theme);
    let mut lines = vec![
        heading(&s.name, theme),
        Line::from(vec![
            Span::styled(format!("{:<14}", "status"), theme.dim),
            dot,
            Span::raw(" "),
            word,
        ]),
        field("transport", s.transport_type.clone(), theme),
    ];
    match s.config.as_ref().map(|c| &c.transport) {
        Some(Transport::Stdio {
            command,
            args,
            env,
            cwd,
        }) => {
            lines.push(field("command", command.clone(), theme));
            if !args.is_empty() {
                lines.push(field("args", args.join(" "), theme));
            }
            if let Some(cwd) = cwd {
                lines.push(field("cwd", cwd.clone(), theme));
            }
            for k in env.keys() {
                lines.push(field("env", format!("{k}=•••"), theme));
            }
        }
        Some(Transport::Http { url, headers } | Transport::Sse { url, headers }) => {
            lines.push(field("url", url.clone(), theme));
            for k in headers.keys() {
                lines.push(field("header", format!("{k}: •••"), theme));
            }
        }
        None => {
            if let Some(url) = &s.url {
                lines.push(field("url", url.clone(), theme));
            }
        }
    }
    if let Some(c) = &s.config {
        lines.push(field(
            "timeouts",
            format!(
                "connect {} ms · request {} ms",
                c.connect_timeout_ms, c.request_timeout_ms
            ),
            theme,
        ));
    }
    lines.push(field(
        "oauth",
        if s.use_oauth { "yes" } else { "no" },
        theme,
    ));
    lines.push(field(
        "enabled",
        if s.enabled { "yes" } else { "no" },
        theme,
    ));
    lines.push(field("revision", s.revision.to_string(), theme));
    lines.push(field("id", s.id.clone(), theme));
    if let Some(t) = s.created_at {
        lines.push(field("created", time(t), theme));
    }
    if let Some(t) = s.updated_at {
        lines.push(field("updated", time(t), theme));
    }
    lines
}

impl Pane for ServersPane {
    fn title(&self) -> String {
        format!("Servers ({})", self.items.len())
    }

    fn commands(&self) -> Vec<Command> {
        vec![
            Command::new(Action::Open, "details"),
            Command::new(Action::New, "add server"),
            Command::new(Action::Delete, "delete"),
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
        let (Some(project), Some(s)) = (cx.project, self.selected()) else {
            return false;
        };
        let req = Request::Server {
            project: project.to_string(),
            id: s.id.clone(),
        };
        cx.fetch(req);
        self.detail.top();
        true
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        match action {
            Action::New => {
                cx.effects.push(Effect::OpenServerForm);
                true
            }
            Action::Delete => {
                if let (Some(project), Some(s)) = (cx.project, self.selected()) {
                    cx.effects.push(Effect::Confirm {
                        prompt: format!("Delete server “{}”? Its saved config is removed.", s.name),
                        request: Request::DeleteServer {
                            project: project.to_string(),
                            id: s.id.clone(),
                        },
                    });
                }
                true
            }
            _ => false,
        }
    }

    fn render(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx) {
        let theme = rcx.theme;
        let (list_area, detail_area) = split(area);
        let name_w = (list_area.width as usize).saturating_sub(26).clamp(8, 40);
        let items = &self.items;
        self.list.render(
            f,
            list_area,
            pane_block(self.title(), rcx.focus == PaneFocus::List, theme),
            theme,
            rcx.focus == PaneFocus::List,
            &empty_text(rcx.loading, "servers — press n to add one"),
            |i| {
                let s = &items[i];
                let (dot, word) = status(s, theme);
                Line::from(vec![
                    dot,
                    Span::raw(" "),
                    Span::raw(pad(&s.name, name_w)),
                    Span::styled(format!(" {:<6} ", s.transport_type), theme.dim),
                    word,
                ])
            },
        );
        let (title, lines) = match self.selected() {
            Some(s) => (
                Line::from(format!("Server › {}", s.name)),
                detail_lines(s, theme),
            ),
            None => (Line::from("Server"), vec![]),
        };
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
