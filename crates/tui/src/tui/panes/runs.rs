//! Runs: every run of the project's suites, newest first, tagged with where it was started;
//! a run opens onto live progress (a gauge), pass rate per case (bars), latency (a
//! sparkline), the suite's run-over-run trend and the iterations; an iteration opens onto
//! its trace: the message timeline, tool calls, each assertion expected-versus-actual, and
//! the categorised tool-call diff.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Gauge, Paragraph};
use serde_json::Value;

use super::suites::sparkline;
use super::{
    Command, Cx, DetailView, Effect, Pane, PaneFocus, RenderCx, clip, empty_text, field, heading,
    pad, pane_block, split, time,
};
use crate::client::compare::{Change, Comparison};
use crate::spec::run::{EvalIteration, EvalRun};
use crate::tui::keymap::Action;
use crate::tui::message::{Request, Slot};
use crate::tui::panes::servers::{Widget, render_widget};
use crate::tui::theme::Theme;
use crate::tui::widgets::list::ListView;

/// How often an open, unfinished run is read again.
pub const LIVE_MS: u64 = 700;

#[derive(Default)]
pub struct RunsPane {
    pub items: Vec<EvalRun>,
    /// Suite names and pass-rate trends by suite id (from the suites list).
    pub suite_names: HashMap<String, String>,
    pub trends: HashMap<String, Vec<f64>>,
    list: ListView,
    detail: DetailView,
    /// The run opened in the detail, with its iterations.
    opened: Option<(EvalRun, Vec<EvalIteration>)>,
    iterations: ListView,
    /// The trace shown, by iteration id.
    trace: Option<(String, Value)>,
    /// The run the user opened (its data may not have arrived yet).
    want: Option<String>,
    /// Per case of the opened run, in order of first appearance: (title, passed, finished).
    by_case: Vec<(String, usize, usize)>,
    /// Iteration latencies of the opened run, in order.
    latencies: Vec<f64>,
    /// The run marked (`m`) as the base of a comparison.
    marked: Option<String>,
    /// The comparison shown in the detail, until Esc or another run is opened.
    comparison: Option<Comparison>,
    /// The open trace's widget screenshots (title, picture), and the one shown.
    shots: Vec<Widget>,
    shot: usize,
}

/// Where a run came from, in a few letters: `ui`, `api`, `sched` (a schedule fired it) or
/// `ingst` (reported by an external runner).
pub fn origin(r: &EvalRun) -> &'static str {
    match (r.trigger.as_deref(), r.source.as_str()) {
        (Some("schedule"), _) => "sched",
        (Some("ingest"), _) | (_, "sdk") => "ingst",
        (_, "ui") => "ui",
        (_, "api") => "api",
        _ => "?",
    }
}

fn mark(result: Option<&str>, status: &str, theme: &Theme) -> Span<'static> {
    match (result, status) {
        (Some("passed"), _) => Span::styled("✓", theme.ok),
        (Some("failed"), _) => Span::styled("✗", theme.error),
        (Some("error"), _) => Span::styled("!", theme.warn),
        (_, "cancelled") => Span::styled("⊘", theme.dim),
        (_, "failed") => Span::styled("✗", theme.error),
        (_, "completed") => Span::styled("✓", theme.ok),
        _ => Span::styled("…", theme.warn),
    }
}

fn pct(r: Option<f64>) -> String {
    r.map(|p| format!("{:.0}%", p * 100.0))
        .unwrap_or_else(|| "–".into())
}

/// `width` cells of bar for `part` of `whole`.
pub fn bar(part: usize, whole: usize, width: usize) -> String {
    let full = (part * width + whole / 2).checked_div(whole).unwrap_or(0);
    format!(
        "{}{}",
        "█".repeat(full),
        "░".repeat(width - full.min(width))
    )
}

impl RunsPane {
    pub fn set_items(&mut self, items: Vec<EvalRun>) {
        let keep = self.selected().map(|r| r.id.clone());
        self.list.set_keys(
            items
                .iter()
                .map(|r| {
                    format!(
                        "{} {} {} {}",
                        self.suite_names
                            .get(&r.suite_id)
                            .cloned()
                            .unwrap_or_default(),
                        r.status,
                        r.source,
                        r.model.clone().unwrap_or_default()
                    )
                })
                .collect(),
        );
        self.items = items;
        if let Some(id) = keep {
            self.select_id(&id);
        }
    }

    pub fn select_id(&mut self, id: &str) {
        if let Some(i) = self.items.iter().position(|r| r.id == id) {
            self.list.select(i);
        }
    }

    pub fn selected(&self) -> Option<&EvalRun> {
        self.list.selected().and_then(|i| self.items.get(i))
    }

    /// The run the user opened, whose readings are shown and kept live.
    pub fn opened_id(&self) -> Option<&str> {
        self.want.as_deref()
    }

    /// A fresh reading of a run: updates the list row and, when it is the open one, the detail.
    pub fn set_run(&mut self, run: EvalRun, iterations: Vec<EvalIteration>) {
        if let Some(r) = self.items.iter_mut().find(|r| r.id == run.id) {
            *r = run.clone();
        } else {
            self.items.insert(0, run.clone());
            let items = std::mem::take(&mut self.items);
            self.set_items(items);
            self.select_id(&run.id);
        }
        if self.want.as_deref() != Some(run.id.as_str()) {
            return;
        }
        self.iterations.set_keys(
            iterations
                .iter()
                .map(|i| {
                    format!(
                        "{} {} {}",
                        i.title.clone().unwrap_or_default(),
                        i.result.clone().unwrap_or_default(),
                        i.model.clone().unwrap_or_default()
                    )
                })
                .collect(),
        );
        let mut by_case: Vec<(String, usize, usize)> = Vec::new();
        let mut index: HashMap<&str, usize> = HashMap::new();
        for it in &iterations {
            let key = it.title.as_deref().unwrap_or("?");
            let i = *index.entry(key).or_insert_with(|| {
                by_case.push((key.to_string(), 0, 0));
                by_case.len() - 1
            });
            if it.result.is_some() {
                by_case[i].2 += 1;
            }
            if it.result.as_deref() == Some("passed") {
                by_case[i].1 += 1;
            }
        }
        self.by_case = by_case;
        self.latencies = iterations.iter().filter_map(|i| i.duration_ms).collect();
        self.opened = Some((run, iterations));
    }

    /// Opens a run by id (its data follows).
    pub fn open_id(&mut self, id: &str) {
        if self.opened_id() != Some(id) {
            self.opened = None;
            self.trace = None;
        }
        self.want = Some(id.to_string());
        self.select_id(id);
    }

    pub fn set_comparison(&mut self, c: Comparison) {
        self.comparison = Some(c);
        self.detail.top();
    }

    fn run_label(&self, id: &str) -> String {
        match self.items.iter().find(|r| r.id == id) {
            Some(r) => format!("#{}", r.run_number.unwrap_or_default()),
            None => id.to_string(),
        }
    }

    fn comparison_lines(&self, c: &Comparison, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = vec![
            heading(
                &format!(
                    "{} → {}",
                    self.run_label(&c.base_run_id),
                    self.run_label(&c.head_run_id)
                ),
                theme,
            ),
            Line::from(vec![
                Span::styled(
                    format!("{} regressed", c.count(Change::Regressed)),
                    theme.error,
                ),
                Span::raw(" · "),
                Span::styled(format!("{} fixed", c.count(Change::Fixed)), theme.ok),
                Span::styled(
                    format!(
                        " · {} added · {} removed · {} unchanged",
                        c.count(Change::Added),
                        c.count(Change::Removed),
                        c.count(Change::Unchanged)
                    ),
                    theme.dim,
                ),
            ]),
            Line::from(""),
        ];
        let tally = |t: Option<crate::client::compare::Tally>| {
            t.map(|t| t.to_string()).unwrap_or_else(|| "–".into())
        };
        for d in &c.cases {
            let (sign, style) = match d.change {
                Change::Regressed => ("▼", theme.error),
                Change::Fixed => ("▲", theme.ok),
                Change::Added => ("+", theme.accent),
                Change::Removed => ("−", theme.warn),
                Change::Unchanged => ("=", theme.dim),
            };
            let model = d
                .model
                .as_deref()
                .map(|m| format!("  {m}"))
                .unwrap_or_default();
            lines.push(Line::from(vec![
                Span::styled(format!("{sign} {:<10} ", d.change.as_str()), style),
                Span::raw(d.title.clone()),
                Span::styled(
                    format!("  {} → {}{model}", tally(d.base), tally(d.head)),
                    theme.dim,
                ),
            ]));
        }
        lines
    }

    pub fn set_trace(&mut self, iteration: String, value: Value) {
        // Decoded once here, not on every frame.
        self.shots = value["widgets"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|w| w["screenshotPng"].is_string())
            .filter_map(|w| serde_json::from_value(w.clone()).ok())
            .map(Widget::new)
            .collect();
        self.shot = 0;
        self.trace = Some((iteration, value));
        self.detail.top();
    }

    fn selected_iteration(&self) -> Option<&EvalIteration> {
        let (_, its) = self.opened.as_ref()?;
        its.get(self.iterations.selected()?)
    }

    fn render_run(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx) {
        let theme = rcx.theme;
        let focused = rcx.focus == PaneFocus::Detail;
        let Some((run, its)) = self.opened.as_ref() else {
            return;
        };
        // An open trace takes the whole detail: it is long, and the run's summary is one Esc
        // away.
        if let Some((it_id, value)) = &self.trace {
            let title = its
                .iter()
                .find(|i| &i.id == it_id)
                .map(|i| {
                    format!(
                        "Run #{} › Trace #{} {}",
                        run.run_number.unwrap_or_default(),
                        i.iteration_number,
                        i.title.clone().unwrap_or_default()
                    )
                })
                .unwrap_or_else(|| "Trace".into());
            let lines = trace_lines(value, theme);
            // Widget screenshots sit beside the trace when there is room for both.
            let (text_area, shot_area) = if !self.shots.is_empty() && area.width >= 90 {
                let [a, b] =
                    Layout::horizontal([Constraint::Fill(3), Constraint::Fill(2)]).areas(area);
                (a, Some(b))
            } else {
                (area, None)
            };
            self.detail
                .render(f, text_area, Line::from(title), lines, focused, theme);
            if let Some(b) = shot_area {
                let n = self.shots.len();
                let hint = if n > 1 {
                    format!("{}/{n} ←/→", self.shot + 1)
                } else {
                    String::new()
                };
                render_widget(f, b, self.shots.get_mut(self.shot), &hint, theme);
            }
            return;
        }
        let suite = self
            .suite_names
            .get(&run.suite_id)
            .cloned()
            .unwrap_or_else(|| run.suite_id.clone());
        let s = run.summary.clone().unwrap_or_default();
        let done = (s.passed + s.failed + s.cancelled) as usize;
        let total = (s.total as usize).max(its.len());
        let cases = &self.by_case;
        let block_h = (cases.len() as u16 + 2).clamp(4, (area.height / 3).max(4));
        let [head, gauge_area, mid, bottom] = Layout::vertical([
            Constraint::Length(2),
            Constraint::Length(1),
            Constraint::Length(block_h),
            Constraint::Fill(1),
        ])
        .areas(area);
        let head_lines = vec![
            Line::from(vec![
                mark(run.result.as_deref(), &run.status, theme),
                Span::styled(
                    format!(" Run #{} · {suite} · ", run.run_number.unwrap_or_default()),
                    theme.title,
                ),
                Span::raw(run.model.clone().unwrap_or_else(|| "default model".into())),
                Span::styled(format!(" · {} · ", run.status), theme.dim),
                Span::raw(format!(
                    "{}/{} passed ({})",
                    s.passed,
                    s.total,
                    pct(s.pass_rate)
                )),
            ]),
            Line::styled(
                format!(
                    "source {} · started {} · {} tokens{}",
                    run.source_label(),
                    time(run.created_at),
                    s.tokens.total_tokens,
                    run.error
                        .as_ref()
                        .map(|e| format!(" · error: {e}"))
                        .unwrap_or_default()
                ),
                theme.dim,
            ),
        ];
        f.render_widget(Paragraph::new(head_lines), head);
        let ratio = if total == 0 {
            0.0
        } else {
            (done as f64 / total as f64).clamp(0.0, 1.0)
        };
        f.render_widget(
            Gauge::default()
                .ratio(ratio)
                .label(format!("{done}/{total} iterations"))
                .gauge_style(theme.ok)
                .use_unicode(true),
            gauge_area,
        );
        let [bars_area, spark_area] =
            Layout::horizontal([Constraint::Percentage(55), Constraint::Fill(1)]).areas(mid);
        let bw = bars_area.width.saturating_sub(2) as usize;
        let name_w = (bw / 2).clamp(6, 28);
        let bar_w = bw.saturating_sub(name_w + 8).clamp(3, 20);
        let bar_lines: Vec<Line> = cases
            .iter()
            .map(|(name, p, t)| {
                Line::from(vec![
                    Span::raw(pad(name, name_w)),
                    Span::raw(" "),
                    Span::styled(
                        bar(*p, *t, bar_w),
                        if p == t { theme.ok } else { theme.warn },
                    ),
                    Span::styled(format!(" {p}/{t}"), theme.dim),
                ])
            })
            .collect();
        f.render_widget(
            Paragraph::new(bar_lines).block(pane_block("pass rate by case", false, theme)),
            bars_area,
        );
        let sw = spark_area.width.saturating_sub(14) as usize;
        let lat = &self.latencies[self.latencies.len().saturating_sub(sw)..];
        let max = lat.iter().cloned().fold(0.0_f64, f64::max).max(1.0);
        let norm: Vec<f64> = lat.iter().map(|d| d / max).collect();
        let trend = self.trends.get(&run.suite_id).cloned().unwrap_or_default();
        let trend = &trend[trend.len().saturating_sub(sw)..];
        let mut spark = vec![Line::from(vec![
            Span::styled(format!("{:<12}", "latency"), theme.dim),
            Span::styled(sparkline(&norm), theme.accent),
        ])];
        if let Some(m) = s.latency_ms.mean {
            spark.push(field("mean", format!("{m:.0} ms"), theme));
        }
        spark.push(Line::from(vec![
            Span::styled(format!("{:<12}", "suite trend"), theme.dim),
            Span::styled(sparkline(trend), theme.accent),
        ]));
        f.render_widget(
            Paragraph::new(spark).block(pane_block("latency · trend", false, theme)),
            spark_area,
        );
        let w = bottom.width.saturating_sub(4) as usize;
        let empty = if run.is_terminal() {
            "no iterations".to_string()
        } else {
            format!("{} waiting for the first iteration…", rcx.spinner)
        };
        self.iterations.render(
            f,
            bottom,
            pane_block(format!("Iterations ({})", its.len()), focused, theme),
            theme,
            focused,
            &empty,
            |i| {
                let it = &its[i];
                let title_w = w.saturating_sub(34).max(8);
                Line::from(vec![
                    mark(it.result.as_deref(), &it.status, theme),
                    Span::styled(format!(" {:>4} ", it.iteration_number), theme.dim),
                    Span::raw(pad(it.title.as_deref().unwrap_or("?"), title_w)),
                    Span::styled(
                        format!(
                            " {:>7} ",
                            it.duration_ms
                                .map(|d| format!("{d:.0} ms"))
                                .unwrap_or_default()
                        ),
                        theme.dim,
                    ),
                    Span::styled(
                        clip(
                            &it.actual_tool_calls
                                .iter()
                                .map(|c| c.tool_name.as_str())
                                .collect::<Vec<_>>()
                                .join(","),
                            16,
                        ),
                        theme.dim,
                    ),
                ])
            },
        );
    }
}

fn short(v: &Value, width: usize) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        other => other.to_string(),
    };
    clip(&s.replace('\n', " ⏎ "), width)
}

/// The trace as plain text, line by line as the workbench draws it (for `evaldeck trace`).
pub fn trace_text(t: &Value) -> String {
    let theme = Theme::new(false);
    trace_lines(t, &theme)
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| s.content.as_ref())
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The trace, top to bottom.
pub fn trace_lines(t: &Value, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let result = t["result"].as_str().unwrap_or("?");
    lines.push(Line::from(vec![
        mark(Some(result), t["status"].as_str().unwrap_or(""), theme),
        Span::styled(format!(" {result}"), theme.title),
        Span::styled(
            format!(
                " · {} · {} turn(s) · {:.0} ms",
                t["model"].as_str().unwrap_or("?"),
                t["turns"].as_u64().unwrap_or(0),
                t["durationMs"].as_f64().unwrap_or(0.0)
            ),
            theme.dim,
        ),
    ]));
    if let Some(e) = t["error"].as_str() {
        lines.push(Line::styled(format!("error: {e}"), theme.error));
    }
    lines.push(Line::raw(""));
    lines.push(heading("Timeline", theme));
    for m in t["messages"].as_array().into_iter().flatten() {
        let role = m["role"].as_str().unwrap_or("?");
        let content = m["content"].as_str().unwrap_or("");
        match role {
            "tool" => {
                let err = m["isError"].as_bool() == Some(true);
                lines.push(Line::from(vec![
                    Span::styled(" tool ←    ", if err { theme.error } else { theme.key }),
                    Span::styled(
                        format!("{} ", m["name"].as_str().unwrap_or("")),
                        theme.accent,
                    ),
                    Span::styled(
                        short(&Value::String(content.into()), 160),
                        if err { theme.error } else { theme.base },
                    ),
                ]));
            }
            _ => {
                if !content.is_empty() {
                    lines.push(Line::from(vec![
                        Span::styled(format!(" {role:<10}"), theme.key),
                        Span::raw(short(&Value::String(content.into()), 200)),
                    ]));
                }
                for c in m["toolCalls"].as_array().into_iter().flatten() {
                    let name = c["name"]
                        .as_str()
                        .or(c["toolName"].as_str())
                        .unwrap_or("?")
                        .to_string();
                    let args = c.get("arguments").cloned().unwrap_or(Value::Null);
                    lines.push(Line::from(vec![
                        Span::styled(" tool →    ", theme.key),
                        Span::styled(format!("{name} "), theme.accent),
                        Span::raw(short(&args, 160)),
                    ]));
                }
            }
        }
    }
    let calls = t["toolCalls"].as_array().cloned().unwrap_or_default();
    if !calls.is_empty() {
        lines.push(Line::raw(""));
        lines.push(heading(&format!("Tool calls ({})", calls.len()), theme));
        for c in &calls {
            let err = c["isError"].as_bool() == Some(true);
            lines.push(Line::from(vec![
                Span::styled(
                    if err { " ✗ " } else { " ✓ " },
                    if err { theme.error } else { theme.ok },
                ),
                Span::styled(
                    format!("{} ", c["toolName"].as_str().unwrap_or("?")),
                    theme.accent,
                ),
                Span::raw(short(&c["arguments"], 80)),
                Span::styled(
                    format!(
                        "  {:.0} ms · {} · {}",
                        c["latencyMs"].as_f64().unwrap_or(0.0),
                        c["origin"].as_str().unwrap_or(""),
                        c["serverName"].as_str().unwrap_or("")
                    ),
                    theme.dim,
                ),
            ]));
            if let Some(e) = c["error"].as_str() {
                lines.push(Line::styled(format!("     {e}"), theme.error));
            }
        }
    }
    // Widget snapshots a reporter uploaded with an ingested result.
    let snapshots = t["widgetSnapshots"].as_array().cloned().unwrap_or_default();
    if !snapshots.is_empty() {
        lines.push(Line::raw(""));
        lines.push(heading(
            &format!("Widget snapshots ({})", snapshots.len()),
            theme,
        ));
        for w in &snapshots {
            let found = w["found"] == true;
            let what = w["toolName"]
                .as_str()
                .or(w["name"].as_str())
                .unwrap_or("widget");
            lines.push(Line::from(vec![
                Span::styled(
                    if found { " ✓ " } else { " ✗ " },
                    if found { theme.ok } else { theme.error },
                ),
                Span::styled(format!("{what} "), theme.accent),
                Span::styled(
                    format!("{} ", w["storageId"].as_str().unwrap_or("(inline)")),
                    theme.dim,
                ),
                Span::raw(if found {
                    format!(
                        "{} · {} bytes",
                        w["contentType"].as_str().unwrap_or("text/html"),
                        w["bytes"].as_i64().unwrap_or(0)
                    )
                } else {
                    "not stored: the upload was never made or belongs elsewhere".to_string()
                }),
            ]));
        }
    }
    let views = t["widgets"].as_array().cloned().unwrap_or_default();
    if !views.is_empty() {
        lines.push(Line::raw(""));
        lines.push(heading(&format!("Widgets ({})", views.len()), theme));
        for v in &views {
            let ok = v["initialized"] == true;
            let errors = v["console"]
                .as_array()
                .map(|c| c.iter().filter(|e| e["level"] == "error").count())
                .unwrap_or(0);
            lines.push(Line::from(vec![
                Span::styled(
                    if ok { " ✓ " } else { " ✗ " },
                    if ok { theme.ok } else { theme.error },
                ),
                Span::styled(
                    format!("{} ", v["toolName"].as_str().unwrap_or("?")),
                    theme.accent,
                ),
                Span::styled(
                    format!("{} ", v["resourceUri"].as_str().unwrap_or("")),
                    theme.dim,
                ),
                Span::raw(match v["renderLatencyMs"].as_f64() {
                    Some(ms) => format!("initialized in {ms:.0} ms"),
                    None => "never initialized".into(),
                }),
                Span::styled(
                    format!(" · {errors} console error(s)"),
                    if errors > 0 { theme.error } else { theme.dim },
                ),
            ]));
            if let Some(e) = v["error"].as_str() {
                lines.push(Line::styled(format!("     {e}"), theme.error));
            }
            for r in v["requests"].as_array().into_iter().flatten() {
                let method = r["method"].as_str().unwrap_or("?");
                let what = match method {
                    "tools/call" => {
                        format!("{method} {}", r["params"]["name"].as_str().unwrap_or("?"))
                    }
                    _ => method.to_string(),
                };
                lines.push(Line::from(vec![
                    Span::styled("     view → ", theme.key),
                    Span::raw(what),
                    match r["error"].as_str() {
                        Some(e) => Span::styled(format!("  ✗ {e}"), theme.error),
                        None => Span::styled(
                            format!("  {:.0} ms", r["durationMs"].as_f64().unwrap_or(0.0)),
                            theme.dim,
                        ),
                    },
                ]));
            }
        }
    }
    // The case's own assertions first, then the standard checks; failures first in each.
    let mut asserts = t["assertions"].as_array().cloned().unwrap_or_default();
    asserts.sort_by_key(|a| {
        (
            a["source"].as_str().unwrap_or("").starts_with("standard:"),
            a["status"].as_str() == Some("passed"),
        )
    });
    lines.push(Line::raw(""));
    lines.push(heading(&format!("Assertions ({})", asserts.len()), theme));
    for a in &asserts {
        let status = a["status"].as_str().unwrap_or("?");
        let (sym, style) = match status {
            "passed" => ("✓", theme.ok),
            "warned" => ("⚠", theme.warn),
            "failed" | "error" => ("✗", theme.error),
            "undecided" => ("?", theme.warn),
            _ => ("○", theme.dim),
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {sym} "), style),
            Span::styled(
                format!("{} ", a["type"].as_str().unwrap_or("?")),
                theme.title,
            ),
            Span::styled(
                format!(
                    "{} · {}{} ",
                    a["source"].as_str().unwrap_or(""),
                    a["role"].as_str().unwrap_or(""),
                    if a["gating"].as_bool() == Some(true) && a["role"] != "gating" {
                        " · gating"
                    } else {
                        ""
                    }
                ),
                theme.dim,
            ),
            Span::raw(a["message"].as_str().unwrap_or("").to_string()),
        ]));
        let failed = matches!(status, "failed" | "error");
        lines.push(Line::from(vec![
            Span::styled("     expected ", theme.dim),
            Span::styled(short(&a["expected"], 160), theme.ok),
        ]));
        lines.push(Line::from(vec![
            Span::styled("     actual   ", theme.dim),
            Span::styled(
                short(&a["actual"], 160),
                if failed { theme.error } else { theme.ok },
            ),
        ]));
    }
    let diff = &t["toolCallDiff"];
    let cats = [
        ("missing", "missing"),
        ("extra", "extra"),
        ("outOfOrder", "out of order"),
        ("argumentMismatch", "argument mismatch"),
    ];
    let n: usize = cats
        .iter()
        .map(|(k, _)| diff[*k].as_array().map(Vec::len).unwrap_or(0))
        .sum();
    lines.push(Line::raw(""));
    lines.push(heading(&format!("Tool-call diff ({n})"), theme));
    if n == 0 {
        lines.push(Line::styled(" expected and actual calls agree", theme.ok));
    }
    for (k, label) in cats {
        for d in diff[k].as_array().into_iter().flatten() {
            lines.push(Line::from(vec![
                Span::styled(format!(" {label:<18}"), theme.warn),
                Span::raw(short(d, 160)),
            ]));
        }
    }
    if let Some(j) = t.get("judge").filter(|j| !j.is_null()) {
        lines.push(Line::raw(""));
        lines.push(field("judge", short(j, 200), theme));
    }
    lines
}

impl Pane for RunsPane {
    fn title(&self) -> String {
        format!("Runs ({})", self.items.len())
    }

    fn commands(&self) -> Vec<Command> {
        vec![
            Command::new(Action::Open, "open the run"),
            Command::new(Action::Mark, "mark as compare base"),
            Command::new(Action::Compare, "compare with the marked run"),
            Command::new(Action::Regrade, "regrade the run"),
            Command::new(Action::Cancel, "cancel the run"),
            Command::new(Action::Refresh, "refresh"),
        ]
    }

    fn detail_commands(&self) -> Vec<Command> {
        if self.trace.is_some() {
            let mut c = vec![
                Command::new(Action::Down, "scroll"),
                Command::new(Action::Bottom, "end (the tool-call diff)"),
                Command::new(Action::Back, "back to the run"),
            ];
            if self.shots.len() > 1 {
                c.push(Command::new(Action::Right, "next widget"));
            }
            c
        } else if self.comparison.is_some() {
            vec![Command::new(Action::Back, "close the comparison")]
        } else {
            vec![
                Command::new(Action::Open, "trace"),
                Command::new(Action::Down, "move"),
                Command::new(Action::Cancel, "cancel the run"),
            ]
        }
    }

    fn list(&mut self) -> &mut ListView {
        &mut self.list
    }

    fn detail(&mut self) -> &mut DetailView {
        &mut self.detail
    }

    fn open(&mut self, cx: &mut Cx) -> bool {
        let (Some(project), Some(r)) = (cx.project, self.selected()) else {
            return false;
        };
        let id = r.id.clone();
        cx.fetch(Request::Run {
            project: project.to_string(),
            run: id.clone(),
            delay_ms: 0,
        });
        self.open_id(&id);
        self.trace = None;
        self.comparison = None;
        true
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        match action {
            Action::Cancel => {
                let (Some(project), Some(r)) = (cx.project, self.selected()) else {
                    return true;
                };
                if r.is_terminal() {
                    cx.notify(format!("the run is already {}", r.status));
                } else {
                    let s = r.summary.clone().unwrap_or_default();
                    cx.effects.push(Effect::Confirm {
                        prompt: format!(
                            "Cancel run #{} of “{}”? {} of {} iterations have finished; the rest \
                             will not run.",
                            r.run_number.unwrap_or_default(),
                            self.suite_names
                                .get(&r.suite_id)
                                .map(String::as_str)
                                .unwrap_or("?"),
                            s.passed + s.failed + s.cancelled,
                            s.total
                        ),
                        request: Request::CancelRun {
                            project: project.to_string(),
                            run: r.id.clone(),
                        },
                    });
                }
                true
            }
            Action::Mark => {
                let Some(r) = self.selected() else {
                    return true;
                };
                let (id, label) = (r.id.clone(), self.run_label(&r.id));
                if self.marked.as_deref() == Some(id.as_str()) {
                    self.marked = None;
                    cx.notify(format!("unmarked run {label}"));
                } else {
                    self.marked = Some(id);
                    cx.notify(format!(
                        "marked run {label}: select another and press C to compare"
                    ));
                }
                true
            }
            Action::Compare => {
                let (Some(project), Some(r)) = (cx.project, self.selected()) else {
                    return true;
                };
                match self.marked.clone() {
                    None => cx.notify("mark a base run first (m), then compare another with it"),
                    Some(base) if base == r.id => {
                        cx.notify("select a different run to compare with the marked one")
                    }
                    Some(base) => {
                        // The older run is the base, whichever was marked.
                        let marked_first = self
                            .items
                            .iter()
                            .find(|x| x.id == base)
                            .is_none_or(|b| b.created_at <= r.created_at);
                        let (base, head) = if marked_first {
                            (base, r.id.clone())
                        } else {
                            (r.id.clone(), base)
                        };
                        cx.fetch(Request::CompareRuns {
                            project: project.to_string(),
                            base,
                            head,
                        });
                    }
                }
                true
            }
            Action::Regrade => {
                let (Some(project), Some(r)) = (cx.project, self.selected()) else {
                    return true;
                };
                if r.is_terminal() && r.source != "sdk" {
                    cx.fetch(Request::RegradeRun {
                        project: project.to_string(),
                        run: r.id.clone(),
                    });
                } else if r.source == "sdk" {
                    cx.notify("an ingested run has no transcripts of ours to grade again");
                } else {
                    cx.notify(format!(
                        "the run is {}; regrade it once it finishes",
                        r.status
                    ));
                }
                true
            }
            _ => false,
        }
    }

    fn detail_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.comparison.is_some() {
            if action == Action::Back {
                self.comparison = None;
                return true;
            }
            return false;
        }
        if self.trace.is_some() {
            let n = self.shots.len();
            match action {
                Action::Back => self.trace = None,
                Action::Right if n > 1 => self.shot = (self.shot + 1) % n,
                Action::Left if n > 1 => self.shot = (self.shot + n - 1) % n,
                _ => return false,
            }
            return true;
        }
        match action {
            Action::Up => self.iterations.up(),
            Action::Down => self.iterations.down(),
            Action::Top => self.iterations.top(),
            Action::Bottom => self.iterations.bottom(),
            Action::PageUp => self.iterations.page(false),
            Action::PageDown => self.iterations.page(true),
            Action::Open | Action::Right => {
                let (Some(project), Some((run, _)), Some(it)) =
                    (cx.project, self.opened.as_ref(), self.selected_iteration())
                else {
                    return true;
                };
                cx.fetch(Request::Trace {
                    project: project.to_string(),
                    run: run.id.clone(),
                    iteration: it.id.clone(),
                });
            }
            _ => return false,
        }
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx) {
        let theme = rcx.theme;
        let (list_area, detail_area) = split(area, rcx.focus);
        let items = &self.items;
        let names = &self.suite_names;
        let marked = self.marked.as_deref();
        let w = list_area.width.saturating_sub(2) as usize;
        self.list.render(
            f,
            list_area,
            pane_block(self.title(), rcx.focus == PaneFocus::List, theme),
            theme,
            rcx.focus == PaneFocus::List,
            &empty_text(rcx.loading, "runs — press s on a suite to start one"),
            |i| {
                let r = &items[i];
                let s = r.summary.clone().unwrap_or_default();
                let suite = names.get(&r.suite_id).map(String::as_str).unwrap_or("?");
                let suite_w = w.saturating_sub(31).clamp(6, 24);
                let base = if marked == Some(r.id.as_str()) {
                    "◆"
                } else {
                    " "
                };
                Line::from(vec![
                    mark(r.result.as_deref(), &r.status, theme),
                    Span::styled(base, theme.accent),
                    Span::styled(
                        format!(" #{:<3} ", r.run_number.unwrap_or_default()),
                        theme.dim,
                    ),
                    Span::raw(pad(suite, suite_w)),
                    Span::styled(format!(" {:<5}", origin(r)), theme.accent),
                    Span::raw(format!(" {:>5}", pct(s.pass_rate))),
                    Span::styled(format!(" {}/{}", s.passed, s.total), theme.dim),
                ])
            },
        );
        if let Some(c) = &self.comparison {
            let lines = self.comparison_lines(c, theme);
            self.detail.render(
                f,
                detail_area,
                Line::from("Compare runs"),
                lines,
                rcx.focus == PaneFocus::Detail,
                theme,
            );
            return;
        }
        let opened_matches = match (self.selected(), self.opened.as_ref()) {
            (Some(s), Some((o, _))) => s.id == o.id,
            _ => false,
        };
        if opened_matches {
            self.render_run(f, detail_area, rcx);
            return;
        }
        let Some(r) = self.selected() else {
            self.detail
                .render(f, detail_area, Line::from("Run"), vec![], false, theme);
            return;
        };
        let s = r.summary.clone().unwrap_or_default();
        let mut lines = vec![
            heading(
                &format!(
                    "Run #{} · {}",
                    r.run_number.unwrap_or_default(),
                    self.suite_names
                        .get(&r.suite_id)
                        .cloned()
                        .unwrap_or_default()
                ),
                theme,
            ),
            field("status", r.status.clone(), theme),
            field(
                "result",
                r.result.clone().unwrap_or_else(|| "–".into()),
                theme,
            ),
            field("source", r.source_label(), theme),
            field(
                "model",
                r.model.clone().unwrap_or_else(|| "–".into()),
                theme,
            ),
            field(
                "iterations",
                format!("{}/{} passed ({})", s.passed, s.total, pct(s.pass_rate)),
                theme,
            ),
            field("started", time(r.created_at), theme),
            field("id", r.id.clone(), theme),
        ];
        if (rcx.busy)(Slot::RunDetail) {
            lines.insert(
                1,
                Line::styled(format!("{} loading…", rcx.spinner), theme.warn),
            );
        }
        self.detail.render(
            f,
            detail_area,
            Line::from("Run"),
            lines,
            rcx.focus == PaneFocus::Detail,
            theme,
        );
    }
}
