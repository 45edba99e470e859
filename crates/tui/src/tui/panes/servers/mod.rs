//! Servers: the project's saved MCP servers with transport and last status. The detail
//! shows the config, the doctor's report stage by stage, and the server's tools, prompts
//! and resources (with schemas and annotations); Enter on a tool opens the call form, whose
//! result shows here too. `n` adds a server through the server form. `K` runs the
//! conformance checks: results by area, the evidence of the selected one (Enter adds the
//! JSON), the scan's findings, and the drift since the previous check.

use crate::spec::conformance::{CheckReport, CheckResult};
use crate::spec::drift::DriftReport;

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect, Size};
use ratatui::text::{Line, Span};
use serde_json::Value;

use super::call_form::CallForm;
use super::protocol::{self, Traffic};
use super::template_form::TemplateForm;
use super::{
    Command, Cx, DetailView, Effect, Pane, PaneFocus, RenderCx, clip, empty_text, field, pad,
    pane_block, split,
};
use crate::spec::primitives::{
    DoctorReport, PromptItem, ResourceItem, ResourceTemplateItem, ToolItem, TrafficPage,
    ValidateResult,
};
use crate::spec::server::Server;
use crate::tui::keymap::Action;
use crate::tui::message::{Request, Slot, server_key};
use crate::tui::theme::Theme;
use crate::tui::widgets::list::ListView;
use crate::tui::widgets::picture::{self, Picture};

mod lines;
use lines::*;

/// What the detail beside the server list shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum View {
    #[default]
    Config,
    Doctor,
    /// The conformance checks, the scan and the drift since the previous check.
    Checks,
    Tools,
    Prompts,
    Resources,
    /// The last tool result, rendered prompt or resource read.
    Output,
    /// The server's protocol events, live.
    Protocol,
}

/// A tool result, a rendered prompt or resource contents, as the server sent them.
pub struct Output {
    pub title: String,
    pub request: Value,
    pub value: Value,
    pub elapsed_ms: u128,
    /// When the call ran (epoch ms, from and to): the notes evaldeck took for the server
    /// meanwhile (a sampling request answered) show with the result.
    pub window: Option<(i64, i64)>,
    /// The pictures in it, decoded, drawn below the text.
    pub pictures: Vec<Picture>,
    /// The tool's MCP Apps view, once rendered (a tool that names a UI resource).
    pub widget: Option<Widget>,
}

/// A rendered view: what it showed, and its screenshot decoded.
pub struct Widget {
    pub record: crate::spec::widget::ViewRecord,
    pub picture: Option<Picture>,
}

impl Widget {
    pub fn new(record: crate::spec::widget::ViewRecord) -> Widget {
        let picture = record
            .screenshot_png
            .as_deref()
            .and_then(|png| Picture::decode("image/png", png).ok());
        Widget { record, picture }
    }
}

/// What is known about one server from MCP.
#[derive(Default)]
pub struct Mcp {
    pub validated: Option<ValidateResult>,
    pub doctor: Option<DoctorReport>,
    pub tools: Option<Vec<ToolItem>>,
    pub prompts: Option<Vec<PromptItem>>,
    pub resources: Option<Vec<ResourceItem>>,
    pub output: Option<Output>,
    pub checks: Option<CheckReport>,
    /// From the snapshot of the check before the last one to the last one's.
    pub drift: Option<DriftReport>,
    /// Why a list could not be read (shown in its place instead of "no tools").
    pub list_errors: HashMap<View, String>,
    /// What this session last saw of the server (a call that found it gone, a list that
    /// worked), newer than the saved status of the last validate or doctor.
    pub live: Option<Live>,
    /// The tool call running now, if any.
    pub running: Option<Running>,
    /// The resource templates it lists (after its resources, in the same view).
    pub templates: Option<Vec<ResourceTemplateItem>>,
    /// Its protocol events as read so far.
    pub traffic: Traffic,
    /// When the events were last read.
    pub traffic_read: Option<std::time::Instant>,
}

impl Mcp {
    /// Keeps a new check report, and the drift from the previous one's snapshot.
    pub fn set_checks(&mut self, report: CheckReport) {
        if let Some(d) = &report.drift {
            self.drift = Some(d.clone());
        } else if let (Some(old), Some(new)) = (
            self.checks.as_ref().and_then(|c| c.snapshot.as_ref()),
            report.snapshot.as_ref(),
        ) {
            let label = format!(
                "the check of {}",
                self.checks
                    .as_ref()
                    .map(|c| c.generated_at.clone())
                    .unwrap_or_default()
            );
            self.drift = Some(crate::local::checks::drift(old, new, &label, "now"));
        }
        self.checks = Some(report);
    }
}

/// A tool call on its way: what it is, since when, how far the server says it is.
#[derive(Debug, Clone)]
pub struct Running {
    pub tool: String,
    pub call_id: String,
    pub started: std::time::Instant,
    /// The same instant in epoch milliseconds (protocol events carry those).
    pub started_ms: i64,
    /// `(progress, total, message)` as the server last reported it.
    pub progress: Option<(f64, Option<f64>, Option<String>)>,
    /// Over a remote backend no progress comes: the spinner and the time say it runs.
    pub remote: bool,
    pub cancelling: bool,
}

/// The server's state as the workbench last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Live {
    pub ok: bool,
    /// `connected`, `unreachable`, `timed out`, `OAuth required`.
    pub word: String,
}

#[derive(Default)]
pub struct ServersPane {
    pub items: Vec<Server>,
    list: ListView,
    detail: DetailView,
    pub view: View,
    /// By server id, so a reply for a server no longer selected still lands in its place.
    pub mcp: HashMap<String, Mcp>,
    /// Tools, prompts, resources or protocol events of the selected server.
    sub: ListView,
    /// The checks view shows the evidence's JSON too.
    evidence_data: bool,
    /// What the sub-list's keys were last built from (server, view, events' generation),
    /// so a long event list is not rebuilt on every frame.
    sub_built: Option<(String, View, u64)>,
    /// A server to select once the list holds it (the workbench opened on a target).
    pub want: Option<String>,
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
        if let Some(id) = self.want.clone()
            && self.items.iter().any(|s| s.id == id)
        {
            self.select_id(&id);
            self.want = None;
        }
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

    pub fn mcp_mut(&mut self, server: &str) -> &mut Mcp {
        self.mcp.entry(server.to_string()).or_default()
    }

    /// Shows a view of a server; called when its reply arrives.
    pub fn show(&mut self, server: &str, view: View) {
        if self.selected().is_some_and(|s| s.id == server) {
            self.set_view(view);
        }
    }

    fn set_view(&mut self, view: View) {
        self.view = view;
        self.evidence_data = false;
        self.detail.top();
        self.sync_sub();
        self.sub.top();
    }

    /// Keeps the sub-list's keys in step with the selected server's tools/prompts/resources.
    pub fn sync_sub(&mut self) {
        let Some(id) = self.selected().map(|s| s.id.clone()) else {
            self.sub.set_keys(Vec::new());
            return;
        };
        let m = self.mcp.get(&id);
        if self.view == View::Protocol {
            let generation = m.map_or(0, |m| m.traffic.generation);
            let built = (id.clone(), View::Protocol, generation);
            if self.sub_built.as_ref() != Some(&built) {
                let keys = m
                    .map(|m| m.traffic.events.iter().map(protocol::key).collect())
                    .unwrap_or_default();
                self.sub.set_keys(keys);
                self.sub_built = Some(built);
            }
            return;
        }
        self.sub_built = None;
        let keys: Vec<String> = match self.view {
            View::Tools => m
                .and_then(|m| m.tools.as_ref())
                .map(|t| t.iter().map(|t| t.name.clone()).collect())
                .unwrap_or_default(),
            View::Prompts => m
                .and_then(|m| m.prompts.as_ref())
                .map(|t| t.iter().map(|t| t.name.clone()).collect())
                .unwrap_or_default(),
            View::Checks => m
                .and_then(|m| m.checks.as_ref())
                .map(|c| c.results.iter().map(|r| r.id.clone()).collect())
                .unwrap_or_default(),
            View::Resources => {
                m.and_then(|m| m.resources.as_ref())
                    .map(|t| {
                        t.iter()
                            .map(|r| format!("{} {}", r.name.clone().unwrap_or_default(), r.uri))
                            .chain(m.and_then(|m| m.templates.as_ref()).into_iter().flat_map(
                                |ts| {
                                    ts.iter().map(|t| {
                                        format!(
                                            "{} {} template",
                                            t.name.clone().unwrap_or_default(),
                                            t.uri_template
                                        )
                                    })
                                },
                            ))
                            .collect()
                    })
                    .unwrap_or_default()
            }
            _ => Vec::new(),
        };
        self.sub.set_keys(keys);
    }

    /// A call was sent: the last result goes, the call's progress shows in its place.
    pub fn start_call(&mut self, server: &str, tool: &str, call_id: &str, remote: bool) {
        let m = self.mcp_mut(server);
        m.output = None;
        m.running = Some(Running {
            tool: tool.to_string(),
            call_id: call_id.to_string(),
            started: std::time::Instant::now(),
            started_ms: chrono::Utc::now().timestamp_millis(),
            progress: None,
            remote,
            cancelling: false,
        });
    }

    pub fn on_progress(&mut self, server: &str, p: f64, total: Option<f64>, msg: Option<String>) {
        if let Some(r) = self.mcp_mut(server).running.as_mut() {
            r.progress = Some((p, total, msg));
        }
    }

    /// The call ended (answered, failed or cancelled); returns it.
    pub fn end_call(&mut self, server: &str) -> Option<Running> {
        self.mcp_mut(server).running.take()
    }

    /// The server whose protocol events are on screen and should be kept current: the
    /// protocol view's, or that of a call running in the result view (its notes show).
    pub fn watched_traffic(&self) -> Option<&str> {
        let s = self.selected()?;
        let calling = self.mcp.get(&s.id).is_some_and(|m| m.running.is_some());
        (self.view == View::Protocol || (self.view == View::Output && calling))
            .then_some(s.id.as_str())
    }

    /// The request for a server's events newer than those read.
    pub fn traffic_request(&mut self, project: &str, server: &str) -> Request {
        let m = self.mcp_mut(server);
        m.traffic_read = Some(std::time::Instant::now());
        Request::Traffic {
            project: project.to_string(),
            server: server.to_string(),
            after: m.traffic.last_seq,
        }
    }

    /// Events read: the list follows the newest while its cursor is on the last one.
    /// Returns whether more are waiting.
    pub fn on_traffic(&mut self, server: &str, page: TrafficPage) -> bool {
        let on_screen =
            self.view == View::Protocol && self.selected().is_some_and(|s| s.id == server);
        let following = self.sub.selected().is_none_or(|i| i + 1 >= self.sub.len());
        let before = self.sub.selected();
        let added = self.mcp_mut(server).traffic.add(page);
        if on_screen {
            self.sync_sub();
            if following {
                self.sub.bottom();
            } else if let Some(i) = before {
                self.sub.select(i.saturating_sub(added.dropped));
            }
        }
        added.more
    }

    /// The protocol revision a server's connection speaks: as its last validate or doctor
    /// found it, else as its messages show.
    pub fn revision(&self, s: &Server) -> Option<String> {
        let m = self.mcp.get(&s.id);
        m.and_then(|m| m.validated.as_ref())
            .and_then(|v| v.init_info.as_ref())
            .map(|i| i.protocol_version.clone())
            .or_else(|| m.and_then(|m| m.traffic.revision()).map(str::to_string))
            .or_else(|| s.protocol_version.clone())
    }

    /// The cancel request for the selected server's running call, marking it cancelling.
    fn cancel_request(&mut self, project: &str) -> Option<Request> {
        let id = self.selected()?.id.clone();
        let r = self.mcp.get_mut(&id)?.running.as_mut()?;
        if r.cancelling {
            return None;
        }
        r.cancelling = true;
        Some(Request::CancelCall {
            project: project.to_string(),
            server: id,
            call_id: r.call_id.clone(),
        })
    }

    /// Whether the selected server has a call running.
    fn calling(&self) -> bool {
        self.selected()
            .and_then(|s| self.mcp.get(&s.id))
            .is_some_and(|m| m.running.is_some())
    }

    /// Whether the current list view has nothing read for this server (and no error).
    fn needs_list(&self, id: &str) -> bool {
        let m = self.mcp.get(id);
        let have = match self.view {
            View::Tools => m.is_some_and(|m| m.tools.is_some()),
            View::Prompts => m.is_some_and(|m| m.prompts.is_some()),
            View::Resources => m.is_some_and(|m| m.resources.is_some()),
            _ => return false,
        };
        !have && !m.is_some_and(|m| m.list_errors.contains_key(&self.view))
    }

    /// Records what a request found of a server: reachable, or not (and why a list failed).
    pub fn saw(
        &mut self,
        server: &str,
        outcome: Result<(), &crate::spec::Error>,
        list: Option<View>,
    ) {
        use crate::spec::Code;
        let m = self.mcp_mut(server);
        match outcome {
            Ok(()) => {
                m.live = Some(Live {
                    ok: true,
                    word: "connected".into(),
                });
                if let Some(v) = list {
                    m.list_errors.remove(&v);
                }
            }
            Err(e) => {
                let word = match e.code {
                    Code::ServerUnreachable => Some("unreachable"),
                    Code::Timeout => Some("timed out"),
                    Code::OauthRequired => Some("OAuth required"),
                    _ => None,
                };
                if let Some(w) = word {
                    m.live = Some(Live {
                        ok: false,
                        word: w.into(),
                    });
                }
                if let Some(v) = list {
                    m.list_errors
                        .insert(v, format!("{}: {}", e.code, e.message));
                }
            }
        }
    }

    fn fetch_for_view(&self, view: View, project: &str, server: &str) -> Option<Request> {
        let (project, server) = (project.to_string(), server.to_string());
        Some(match view {
            View::Doctor => Request::Doctor { project, server },
            View::Checks => Request::Check { project, server },
            View::Tools => Request::Tools { project, server },
            View::Prompts => Request::Prompts { project, server },
            View::Resources => Request::Resources { project, server },
            View::Config | View::Output | View::Protocol => return None,
        })
    }
}

impl ServersPane {
    /// Draws the checks view: the results above, the selected one's evidence, the scan and
    /// the drift below.
    fn render_checks(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx, server: &Server) {
        let theme = rcx.theme;
        let focused = rcx.focus == PaneFocus::Detail;
        let m = self.mcp.get(&server.id);
        let report = m.and_then(|m| m.checks.as_ref());
        let n = report.map(|r| r.results.len());
        let list_h = (n.unwrap_or(1) as u16 + 2).clamp(3, area.height / 2);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(list_h), Constraint::Fill(1)]).areas(area);
        let busy = (rcx.busy)(Slot::ServerCheck);
        let title = match report {
            Some(r) => format!(
                "{} › Checks: {} passed, {} failed, {} n/a, {} could not run{}",
                server.name,
                r.summary.passed,
                r.summary.failed,
                r.summary.not_applicable,
                r.summary.could_not_run,
                if busy { " (running again…)" } else { "" }
            ),
            None => format!("{} › Checks", server.name),
        };
        let empty = if busy {
            format!(
                "{} checking {} (a session of its own)…",
                rcx.spinner, server.name
            )
        } else {
            "no checks yet — press K to run them".into()
        };
        let results: Vec<CheckResult> = report.map(|r| r.results.clone()).unwrap_or_default();
        let width = top.width.saturating_sub(4) as usize;
        self.sub.render(
            f,
            top,
            pane_block(title, focused, theme),
            theme,
            focused,
            &empty,
            |i| {
                let r = &results[i];
                Line::from(vec![
                    outcome_mark(r, theme),
                    Span::raw(" "),
                    Span::raw(pad(&r.id, 31.min(width / 2))),
                    Span::styled(
                        format!(" {}", clip(&r.summary, width.saturating_sub(34))),
                        theme.dim,
                    ),
                ])
            },
        );
        let mut lines = match (self.sub.selected().and_then(|i| results.get(i)), m) {
            (Some(r), _) => check_detail(r, self.evidence_data, theme),
            _ => vec![],
        };
        if let Some(m) = m.filter(|m| m.checks.is_some()) {
            lines.extend(report_tail(m, theme));
        }
        self.detail
            .render(f, bottom, Line::from(""), lines, false, theme);
    }

    /// The request that renders the view of the last tool call shown for `server`, when
    /// its tool names a UI resource.
    pub fn widget_request(&self, project: &str, server: &str) -> Option<Request> {
        let m = self.mcp.get(server)?;
        let out = m.output.as_ref()?;
        let name = out.request["toolName"].as_str()?;
        let tool = m.tools.as_ref()?.iter().find(|t| t.name == name)?;
        let meta = serde_json::json!({"_meta": tool.extra.get("_meta")?});
        crate::spec::widget::resource_uri(&meta)?;
        Some(Request::RenderWidget {
            project: project.to_string(),
            server: server.to_string(),
            body: crate::spec::widget::WidgetRenderRequest {
                tool_name: name.to_string(),
                arguments: out.request["parameters"].as_object().cloned(),
                result: out.value.is_object().then(|| out.value.clone()),
            },
        })
    }

    fn selected_tool(&self, id: &str) -> Option<&ToolItem> {
        let i = self.sub.selected()?;
        self.mcp.get(id)?.tools.as_ref()?.get(i)
    }
    fn selected_prompt(&self, id: &str) -> Option<&PromptItem> {
        let i = self.sub.selected()?;
        self.mcp.get(id)?.prompts.as_ref()?.get(i)
    }
    fn selected_resource(&self, id: &str) -> Option<&ResourceItem> {
        let i = self.sub.selected()?;
        self.mcp.get(id)?.resources.as_ref()?.get(i)
    }
    /// The template under the cursor: templates follow the resources in the list.
    fn selected_template(&self, id: &str) -> Option<&ResourceTemplateItem> {
        let i = self.sub.selected()?;
        let m = self.mcp.get(id)?;
        let n = m.resources.as_ref().map_or(0, Vec::len);
        m.templates.as_ref()?.get(i.checked_sub(n)?)
    }
    fn selected_event(&self, id: &str) -> Option<&crate::spec::primitives::ProtocolEvent> {
        let i = self.sub.selected()?;
        self.mcp.get(id)?.traffic.events.get(i)
    }

    fn protocol_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        match action {
            Action::Up => self.sub.up(),
            Action::Down => self.sub.down(),
            Action::Top => self.sub.top(),
            Action::Bottom | Action::Open => self.sub.bottom(),
            Action::Copy => {
                let id = self.selected().map(|s| s.id.clone()).unwrap_or_default();
                match self.selected_event(&id) {
                    Some(e) => cx.effects.push(Effect::Copy(protocol::copy_text(e))),
                    None => cx.notify("no message to copy"),
                }
                return true;
            }
            _ => return false,
        }
        self.detail.top();
        true
    }

    /// Draws the protocol view: the events above (newest last), the selected one below.
    fn render_protocol(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx, server: &Server) {
        let theme = rcx.theme;
        let focused = rcx.focus == PaneFocus::Detail;
        let m = self.mcp.get(&server.id);
        let n = m.map_or(0, |m| m.traffic.events.len());
        let list_h = (n as u16 + 2).clamp(3, (area.height * 3 / 5).max(3));
        let [top, bottom] =
            Layout::vertical([Constraint::Length(list_h), Constraint::Fill(1)]).areas(area);
        let mut title = format!("{} › Protocol ({n})", server.name);
        if let Some(r) = self.revision(server) {
            title.push_str(&format!(" · MCP {r}"));
        }
        let empty = if (rcx.busy)(Slot::ServerTraffic) && n == 0 {
            format!("{} reading…", rcx.spinner)
        } else {
            "no messages yet: they show here as they happen".to_string()
        };
        let events = m.map(|m| &m.traffic.events);
        let width = top.width.saturating_sub(2) as usize;
        self.sub.render(
            f,
            top,
            pane_block(title, focused, theme),
            theme,
            focused,
            &empty,
            |i| protocol::row(&events.expect("read")[i], width, theme),
        );
        let lines = self
            .selected_event(&server.id)
            .map(|e| protocol::detail(e, theme))
            .unwrap_or_default();
        self.detail
            .render(f, bottom, Line::from(""), lines, false, theme);
    }

    /// Draws the Tools/Prompts/Resources view: the sub-list above, the selected item below.
    fn render_sub(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx, server: &Server) {
        let theme = rcx.theme;
        let focused = rcx.focus == PaneFocus::Detail;
        let key = server_key(&server.id);
        let (what, slot) = match self.view {
            View::Tools => ("Tools", Slot::ServerTools(key)),
            View::Prompts => ("Prompts", Slot::ServerPrompts(key)),
            _ => ("Resources", Slot::ServerResources(key)),
        };
        let m = self.mcp.get(&server.id);
        let n_templates = m.and_then(|m| m.templates.as_ref()).map_or(0, Vec::len);
        let n = match self.view {
            View::Tools => m.and_then(|m| m.tools.as_ref()).map(Vec::len),
            View::Prompts => m.and_then(|m| m.prompts.as_ref()).map(Vec::len),
            _ => m
                .and_then(|m| m.resources.as_ref())
                .map(|r| r.len() + n_templates),
        };
        let list_h = (n.unwrap_or(1) as u16 + 2).clamp(3, area.height / 2);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(list_h), Constraint::Fill(1)]).areas(area);
        let busy = (rcx.busy)(slot);
        // The revision says which saved config the list came from.
        let title = match n {
            Some(n) => format!("{} · rev {} › {what} ({n})", server.name, server.revision),
            None => format!("{} · rev {} › {what}", server.name, server.revision),
        };
        let failed = m.and_then(|m| m.list_errors.get(&self.view));
        let empty = match (busy, n, failed) {
            (true, _, _) => format!("{} asking {}…", rcx.spinner, server.name),
            (false, Some(_), _) => format!("no {}", what.to_lowercase()),
            (false, None, Some(e)) => format!("✗ could not list them: {e}"),
            // Never listed (another server was being looked at): not the same as none.
            (false, None, None) => format!("not listed yet — {} lists them", what_key(self.view)),
        };
        let (tools, prompts, resources, templates) = (
            m.and_then(|m| m.tools.as_ref()),
            m.and_then(|m| m.prompts.as_ref()),
            m.and_then(|m| m.resources.as_ref()),
            m.and_then(|m| m.templates.as_ref()),
        );
        let view = self.view;
        let width = top.width.saturating_sub(4) as usize;
        self.sub.render(
            f,
            top,
            pane_block(title, focused, theme),
            theme,
            focused,
            &empty,
            |i| match view {
                View::Tools => {
                    let t = &tools.expect("listed")[i];
                    let desc = t
                        .description
                        .as_deref()
                        .unwrap_or("")
                        .lines()
                        .next()
                        .unwrap_or("");
                    let name_w = 24.min(width / 2);
                    Line::from(vec![
                        Span::styled(annotation_marks(t), theme.warn),
                        Span::raw(" "),
                        Span::raw(pad(&t.name, name_w)),
                        Span::styled(
                            format!(" {}", clip(desc, width.saturating_sub(name_w + 3))),
                            theme.dim,
                        ),
                    ])
                }
                View::Prompts => {
                    let p = &prompts.expect("listed")[i];
                    Line::from(vec![
                        Span::raw(pad(&p.name, 24.min(width / 2))),
                        Span::styled(
                            format!(" {}", p.description.as_deref().unwrap_or("")),
                            theme.dim,
                        ),
                    ])
                }
                _ => {
                    let listed = resources.expect("listed");
                    match listed.get(i) {
                        Some(r) => Line::from(vec![
                            Span::raw(pad(r.name.as_deref().unwrap_or(""), 20.min(width / 3))),
                            Span::styled(format!(" {}", r.uri), theme.dim),
                        ]),
                        // The templates follow the resources.
                        None => {
                            let t = &templates.expect("listed")[i - listed.len()];
                            Line::from(vec![
                                Span::raw(pad(t.name.as_deref().unwrap_or(""), 20.min(width / 3))),
                                Span::styled(format!(" {}", t.uri_template), theme.accent),
                                Span::styled("  template", theme.dim),
                            ])
                        }
                    }
                }
            },
        );
        let id = server.id.clone();
        let lines = match self.view {
            View::Tools => self.selected_tool(&id).map(|t| tool_lines(t, theme)),
            View::Prompts => self.selected_prompt(&id).map(|p| prompt_lines(p, theme)),
            _ => self
                .selected_resource(&id)
                .map(|r| resource_lines(r, theme))
                .or_else(|| {
                    self.selected_template(&id)
                        .map(|t| template_lines(t, theme))
                }),
        }
        .unwrap_or_default();
        self.detail
            .render(f, bottom, Line::from(""), lines, false, theme);
    }
}

impl Pane for ServersPane {
    fn title(&self) -> String {
        format!("Servers ({})", self.items.len())
    }

    fn commands(&self) -> Vec<Command> {
        vec![
            Command::new(Action::Open, "details"),
            Command::new(Action::Validate, "validate"),
            Command::new(Action::Config, "config"),
            Command::new(Action::Doctor, "doctor"),
            Command::new(Action::Checks, "checks"),
            Command::new(Action::Tools, "tools"),
            Command::new(Action::Prompts, "prompts"),
            Command::new(Action::Resources, "resources"),
            Command::new(Action::Protocol, "protocol"),
            Command::new(Action::New, "add server"),
            Command::new(Action::Edit, "edit"),
            Command::new(Action::Import, "import an mcp.json"),
            Command::new(Action::Delete, "delete"),
            Command::new(Action::Refresh, "refresh"),
        ]
    }

    fn detail_commands(&self) -> Vec<Command> {
        if self.view == View::Output && self.calling() {
            return vec![Command::new(Action::Back, "cancel the call")];
        }
        let open = match self.view {
            View::Tools => Some("call tool"),
            View::Prompts => Some("render prompt"),
            View::Resources => Some("read resource"),
            View::Checks => Some("evidence JSON"),
            View::Protocol => Some("follow the newest"),
            _ => None,
        };
        let mut out: Vec<Command> = open
            .map(|l| Command::new(Action::Open, l))
            .into_iter()
            .collect();
        if open.is_some() {
            out.push(Command::new(Action::Down, "move"));
            out.push(Command::new(Action::PageDown, "scroll the item"));
            out.push(Command::new(Action::Filter, "filter"));
        }
        if self.view == View::Protocol {
            out.push(Command::new(Action::Copy, "copy the message"));
        }
        if self.view == View::Output
            && self
                .selected()
                .and_then(|s| self.mcp.get(&s.id))
                .and_then(|m| m.output.as_ref())
                .is_some_and(|o| o.widget.is_some())
        {
            out.push(Command::new(Action::Refresh, "re-render the widget"));
        }
        out.extend([
            Command::new(Action::Config, "config"),
            Command::new(Action::Doctor, "doctor"),
            Command::new(Action::Checks, "checks"),
            Command::new(Action::Tools, "tools"),
            Command::new(Action::Prompts, "prompts"),
            Command::new(Action::Resources, "resources"),
            Command::new(Action::Protocol, "protocol"),
        ]);
        out
    }

    fn list(&mut self) -> &mut ListView {
        &mut self.list
    }

    fn detail(&mut self) -> &mut DetailView {
        &mut self.detail
    }

    fn detail_list(&mut self) -> Option<&mut ListView> {
        matches!(
            self.view,
            View::Tools | View::Prompts | View::Resources | View::Protocol
        )
        .then_some(&mut self.sub)
    }

    fn open(&mut self, cx: &mut Cx) -> bool {
        let (Some(project), Some(s)) = (cx.project, self.selected()) else {
            return false;
        };
        let id = s.id.clone();
        cx.fetch(Request::Server {
            project: project.to_string(),
            id: id.clone(),
        });
        // Opening a server with nothing known about it shows its tools straight away.
        if self.view == View::Config && self.mcp.get(&id).is_none_or(|m| m.tools.is_none()) {
            cx.fetch(Request::Tools {
                project: project.to_string(),
                server: id,
            });
            self.set_view(View::Tools);
        } else {
            self.detail.top();
        }
        true
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let view = match action {
            Action::New => {
                cx.effects.push(Effect::OpenServerForm);
                return true;
            }
            Action::Import => {
                cx.effects.push(Effect::OpenMcpImport);
                return true;
            }
            Action::Edit => {
                if let Some(srv) = self.selected() {
                    cx.effects.push(Effect::EditServer(Box::new(srv.clone())));
                }
                return true;
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
                return true;
            }
            Action::Cancel => {
                match cx.project.and_then(|p| self.cancel_request(p)) {
                    Some(req) => {
                        cx.fetch(req);
                        cx.notify("cancelling the call…");
                    }
                    None => cx.notify("no call is running on this server"),
                }
                return true;
            }
            Action::Validate => {
                if let (Some(project), Some(s)) = (cx.project, self.selected()) {
                    cx.fetch(Request::Validate {
                        project: project.to_string(),
                        server: s.id.clone(),
                    });
                    cx.notify(format!("validating {}…", s.name));
                }
                self.set_view(View::Config);
                return true;
            }
            Action::Config => View::Config,
            Action::Doctor => View::Doctor,
            Action::Checks => View::Checks,
            Action::Tools => View::Tools,
            Action::Prompts => View::Prompts,
            Action::Resources => View::Resources,
            Action::Protocol => View::Protocol,
            _ => return false,
        };
        let (Some(project), Some(s)) = (cx.project, self.selected()) else {
            return true;
        };
        let id = s.id.clone();
        if let Some(req) = self.fetch_for_view(view, project, &id) {
            cx.fetch(req);
        }
        if view == View::Protocol && !(cx.busy)(Slot::ServerTraffic) {
            let req = self.traffic_request(project, &id);
            cx.fetch(req);
        }
        self.set_view(view);
        if view == View::Protocol {
            self.sub.bottom();
        }
        true
    }

    fn on_select(&mut self, cx: &mut Cx) {
        self.detail.top();
        self.sync_sub();
        self.sub.top();
        // A list view stays on as the cursor moves: a server never listed is read now,
        // rather than shown as having nothing.
        if let (Some(project), Some(s)) = (cx.project, self.selected())
            && self.needs_list(&s.id)
            && let Some(req) = self.fetch_for_view(self.view, project, &s.id)
            && !(cx.busy)(req.slot())
        {
            cx.fetch(req);
        }
        if self.view == View::Protocol
            && let (Some(project), Some(id)) = (cx.project, self.selected().map(|s| s.id.clone()))
        {
            let req = self.traffic_request(project, &id);
            cx.fetch(req);
            self.sub.bottom();
        }
    }

    fn detail_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.view == View::Checks {
            match action {
                Action::Up => self.sub.up(),
                Action::Down => self.sub.down(),
                Action::Top => self.sub.top(),
                Action::Bottom => self.sub.bottom(),
                Action::Open | Action::Right => self.evidence_data = !self.evidence_data,
                _ => return false,
            }
            self.detail.top();
            return true;
        }
        // While a call runs, Esc (or X) cancels it; no confirmation for a call.
        if self.view == View::Output
            && self.calling()
            && matches!(action, Action::Back | Action::Cancel)
        {
            if let Some(project) = cx.project
                && let Some(req) = self.cancel_request(project)
            {
                cx.fetch(req);
                cx.notify("cancelling the call…");
            }
            return true;
        }
        if self.view == View::Output
            && action == Action::Refresh
            && let (Some(project), Some(s)) = (cx.project, self.selected())
            && let Some(req) = self.widget_request(project, &s.id.clone())
        {
            if let Some(o) = self.mcp_mut(&s.id.clone()).output.as_mut() {
                o.widget = None;
            }
            cx.fetch(req);
            return true;
        }
        if self.view == View::Protocol {
            return self.protocol_action(action, cx);
        }
        if !matches!(self.view, View::Tools | View::Prompts | View::Resources) {
            return false;
        }
        match action {
            Action::Up => self.sub.up(),
            Action::Down => self.sub.down(),
            Action::Top => self.sub.top(),
            Action::Bottom => self.sub.bottom(),
            Action::Open | Action::Right => {
                let (Some(project), Some(s)) = (cx.project, self.selected()) else {
                    return true;
                };
                let (project, id) = (project.to_string(), s.id.clone());
                match self.view {
                    View::Tools => {
                        if let Some(t) = self.selected_tool(&id) {
                            let form = CallForm::for_tool(&id, t);
                            cx.effects.push(Effect::OpenCallForm(Box::new(form)));
                        }
                    }
                    View::Prompts => {
                        if let Some(p) = self.selected_prompt(&id) {
                            let form = CallForm::for_prompt(&id, p);
                            cx.effects.push(Effect::OpenCallForm(Box::new(form)));
                        }
                    }
                    _ => {
                        if let Some(r) = self.selected_resource(&id) {
                            cx.fetch(Request::ReadResource {
                                project,
                                server: id,
                                uri: r.uri.clone(),
                            });
                        } else if let Some(t) = self.selected_template(&id) {
                            let form = TemplateForm::new(&id, t);
                            cx.effects.push(Effect::OpenTemplateForm(Box::new(form)));
                        }
                    }
                }
            }
            _ => return false,
        }
        if matches!(
            action,
            Action::Up | Action::Down | Action::Top | Action::Bottom
        ) {
            self.detail.top();
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx) {
        let theme = rcx.theme;
        let (list_area, detail_area) = split(area, rcx.focus);
        let name_w = (list_area.width as usize).saturating_sub(26).clamp(8, 40);
        let (items, mcp) = (&self.items, &self.mcp);
        self.list.render(
            f,
            list_area,
            pane_block(self.title(), rcx.focus == PaneFocus::List, theme),
            theme,
            rcx.focus == PaneFocus::List,
            &empty_text(rcx.loading, "servers — press n to add one"),
            |i| {
                let s = &items[i];
                let live = mcp.get(&s.id).and_then(|m| m.live.as_ref());
                let (dot, word) = status(s, live, theme);
                Line::from(vec![
                    dot,
                    Span::raw(" "),
                    Span::raw(pad(&s.name, name_w)),
                    Span::styled(format!(" {:<6} ", s.transport_type), theme.dim),
                    word,
                ])
            },
        );
        let Some(s) = self.selected().cloned() else {
            self.detail
                .render(f, detail_area, Line::from("Server"), vec![], false, theme);
            return;
        };
        self.sync_sub();
        let focused = rcx.focus == PaneFocus::Detail;
        let busy = |slot| (rcx.busy)(slot);
        let working = |what: &str| Line::styled(format!("{} {what}…", rcx.spinner), theme.warn);
        let m = self.mcp.get(&s.id);
        let (title, lines) = match self.view {
            View::Tools | View::Prompts | View::Resources => {
                self.render_sub(f, detail_area, rcx, &s);
                return;
            }
            View::Checks => {
                self.render_checks(f, detail_area, rcx, &s);
                return;
            }
            View::Protocol => {
                self.render_protocol(f, detail_area, rcx, &s);
                return;
            }
            View::Config => {
                let validated = m
                    .and_then(|m| m.validated.as_ref())
                    .and_then(|v| v.init_info.as_ref());
                let mut lines = detail_lines(
                    &s,
                    m.and_then(|m| m.live.as_ref()),
                    validated.map(|i| i.protocol_version.as_str()),
                    theme,
                );
                if busy(Slot::ServerCheck) {
                    lines.insert(1, working("validating"));
                }
                if let Some(si) = validated
                    .and_then(|i| i.server_info.as_ref())
                    .or(s.server_info.as_ref())
                {
                    lines.push(field("server info", si.to_string(), theme));
                }
                (format!("Server › {}", s.name), lines)
            }
            View::Doctor => {
                let mut lines = match m.and_then(|m| m.doctor.as_ref()) {
                    Some(r) => doctor_lines(r, theme),
                    None => Vec::new(),
                };
                if busy(Slot::ServerCheck) {
                    lines.insert(0, working("running the doctor (a fresh connection)"));
                }
                (format!("{} › Doctor", s.name), lines)
            }
            View::Output => {
                let notes = |from: i64, to: i64| {
                    m.map(|m| m.traffic.notes_between(from, to))
                        .unwrap_or_default()
                };
                let mut lines = match m.and_then(|m| m.output.as_ref()) {
                    Some(o) => {
                        let tool = o.request.get("toolName").and_then(Value::as_str);
                        let schema = m
                            .and_then(|m| m.tools.as_ref())
                            .and_then(|ts| ts.iter().find(|t| Some(t.name.as_str()) == tool))
                            .and_then(|t| t.output_schema.as_ref());
                        let w = detail_area.width.saturating_sub(2) as usize;
                        let mut lines = output_lines(o, schema, w, theme);
                        if let Some((from, to)) = o.window {
                            lines.extend(notes_lines(&notes(from, to), theme));
                        }
                        lines
                    }
                    None => Vec::new(),
                };
                match m.and_then(|m| m.running.as_ref()) {
                    Some(r) => {
                        let w = detail_area.width.saturating_sub(2) as usize;
                        lines = running_lines(r, rcx.spinner, w, theme);
                        lines.extend(notes_lines(&notes(r.started_ms, i64::MAX), theme));
                    }
                    None if busy(Slot::ServerCall) => {
                        lines.insert(0, working("waiting for the server"))
                    }
                    None => {}
                }
                (format!("{} · rev {} › Result", s.name, s.revision), lines)
            }
        };
        // A tool's MCP Apps view takes the lower part: its screenshot and its console.
        let widget_shown = (self.view == View::Output)
            .then_some(m)
            .flatten()
            .and_then(|m| m.output.as_ref())
            .is_some_and(|o| o.widget.is_some() || busy(Slot::ServerWidget));
        if widget_shown && detail_area.height >= 12 {
            let [a, b] =
                Layout::vertical([Constraint::Fill(1), Constraint::Fill(1)]).areas(detail_area);
            self.detail
                .render(f, a, Line::from(title), lines, focused, theme);
            let w = self
                .mcp
                .get_mut(&s.id)
                .and_then(|m| m.output.as_mut())
                .and_then(|o| o.widget.as_mut());
            render_widget(f, b, w, "r re-render", theme);
            return;
        }
        // A result's first picture is drawn below its text.
        let picture = (self.view == View::Output)
            .then_some(m)
            .flatten()
            .filter(|m| m.running.is_none())
            .and_then(|m| m.output.as_ref())
            .and_then(|o| o.pictures.first().map(|p| (p, o.pictures.len())));
        let (text_area, picture_area) = match picture {
            Some((p, _)) if detail_area.height >= 12 => {
                let room = Size::new(
                    detail_area.width.saturating_sub(2),
                    (detail_area.height / 2).saturating_sub(2).max(1),
                );
                let h = p.cells(room).height + 2;
                let [a, b] = Layout::vertical([Constraint::Fill(1), Constraint::Length(h)])
                    .areas(detail_area);
                (a, Some(b))
            }
            _ => (detail_area, None),
        };
        let count = picture.map_or(0, |(_, n)| n);
        self.detail
            .render(f, text_area, Line::from(title), lines, focused, theme);
        if let Some(area) = picture_area
            && let Some(p) = self
                .mcp
                .get_mut(&s.id)
                .and_then(|m| m.output.as_mut())
                .and_then(|o| o.pictures.first_mut())
        {
            let more = if count > 1 {
                format!(" · 1 of {count}")
            } else {
                String::new()
            };
            let block = pane_block(
                format!("{} · {}{more}", p.describe(), picture::drawn_with()),
                false,
                theme,
            );
            let inner = block.inner(area);
            f.render_widget(block, area);
            p.render(f, inner);
        }
    }
}

/// A tool's rendered view: the screenshot, with the console beside it (below it when
/// narrow); `None` while it renders.
pub fn render_widget(f: &mut Frame, area: Rect, w: Option<&mut Widget>, hint: &str, theme: &Theme) {
    let Some(w) = w else {
        let block = pane_block("Widget · rendering in headless Chromium…", false, theme);
        f.render_widget(block, area);
        return;
    };
    let r = &w.record;
    let errors = r.console_errors().count();
    let state = match (&r.error, r.render_latency_ms) {
        (Some(_), _) if !r.initialized => "not rendered".to_string(),
        (_, Some(ms)) => format!("initialized in {ms:.0} ms"),
        _ => "never initialized".to_string(),
    };
    let block = pane_block(
        format!(
            "Widget · {} · {state} · {errors} console error(s) · {}{}{hint}",
            r.tool_name,
            picture::drawn_with(),
            if hint.is_empty() { "" } else { " · " },
        ),
        false,
        theme,
    );
    let inner = block.inner(area);
    f.render_widget(block, area);
    let mut log: Vec<Line<'static>> = Vec::new();
    if let Some(e) = &r.error {
        log.push(Line::styled(e.clone(), theme.error));
    }
    log.push(Line::styled(
        format!("console ({})", r.console.len()),
        theme.dim,
    ));
    for e in &r.console {
        log.push(Line::from(vec![
            Span::styled(
                format!("{:<7} ", e.level),
                if e.is_error() { theme.error } else { theme.dim },
            ),
            Span::raw(e.text.clone()),
        ]));
    }
    for q in &r.requests {
        let what = match q.method.as_str() {
            "tools/call" => format!("{} {}", q.method, q.params["name"].as_str().unwrap_or("?")),
            m => m.to_string(),
        };
        log.push(Line::from(vec![
            Span::styled("view → ", theme.key),
            Span::raw(what),
            match &q.error {
                Some(e) => Span::styled(format!("  ✗ {e}"), theme.error),
                None => Span::styled(format!("  {:.0} ms", q.duration_ms), theme.dim),
            },
        ]));
    }
    let [shot, side] = if inner.width >= 70 {
        Layout::horizontal([Constraint::Fill(3), Constraint::Fill(2)]).areas(inner)
    } else {
        Layout::vertical([Constraint::Fill(2), Constraint::Fill(1)]).areas(inner)
    };
    if let Some(p) = w.picture.as_mut() {
        p.render(f, shot);
    }
    f.render_widget(
        ratatui::widgets::Paragraph::new(log).wrap(ratatui::widgets::Wrap { trim: false }),
        side,
    );
}

/// The edit body for a server: its name, whether it is enabled, and its saved config.
pub fn edit_value(s: &Server) -> serde_json::Value {
    let mut v = serde_json::json!({"name": s.name, "enabled": s.enabled});
    if let Some(c) = &s.config
        && let (Some(obj), Ok(serde_json::Value::Object(cfg))) =
            (v.as_object_mut(), serde_json::to_value(c))
    {
        for (k, x) in cfg {
            obj.insert(k, x);
        }
    }
    v
}

/// The edit body parsed and checked: the patch applied to its own config must be valid.
pub fn validate_patch(v: &serde_json::Value) -> Vec<String> {
    use crate::spec::server::{ServerConfig, ServerPatch, Transport};
    let lines = crate::tui::widgets::json_edit::error_lines;
    let patch: ServerPatch = match crate::spec::case::decode(v.clone()) {
        Ok(p) => p,
        Err(e) => return lines(&e),
    };
    let transport = patch.transport.clone().unwrap_or(Transport::Http {
        url: "https://unchanged.invalid/mcp".into(),
        headers: Default::default(),
    });
    let mut config = ServerConfig::new(transport);
    let (mut name, mut enabled) = (String::from("unchanged"), true);
    match patch.apply(&mut name, &mut enabled, &mut config) {
        Ok(()) => Vec::new(),
        Err(e) => lines(&e),
    }
}
