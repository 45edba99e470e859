//! Suites: each suite with its case count, latest run and pass-rate trend.

use std::collections::HashMap;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};

use super::cases::{case_lines, claim_style};
use super::{
    Command, Cx, DetailView, Effect, Pane, PaneFocus, RenderCx, clip, empty_text, field, heading,
    pad, pane_block, split, time,
};
use crate::spec::case::EvalCase;
use crate::spec::catalog::EvalSuiteSummary;
use crate::spec::suite::EvalSuite;
use crate::tui::keymap::Action;
use crate::tui::message::{CaseHistory, Request, Slot, SuiteThen};
use crate::tui::theme::Theme;
use crate::tui::widgets::list::ListView;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum View {
    #[default]
    Summary,
    Cases,
}

#[derive(Default)]
pub struct SuitesPane {
    pub items: Vec<EvalSuiteSummary>,
    /// Cases per suite id, once read.
    cases: HashMap<String, Vec<EvalCase>>,
    view: View,
    list: ListView,
    /// The cases of the selected suite.
    sub: ListView,
    /// The suite whose cases `sub` holds.
    sub_for: Option<String>,
    detail: DetailView,
    /// Suites read in full (settings, schedule), by id.
    details: HashMap<String, EvalSuite>,
    /// A suite to select once a reload brings it (a new one).
    select_next: Option<String>,
    /// How each case did in its suite's last runs, by suite id.
    history: HashMap<String, CaseHistory>,
}

fn name(s: &EvalSuiteSummary) -> &str {
    s.name.as_deref().unwrap_or(&s.id)
}

/// Pass rates (0..1) as block characters, oldest first.
pub fn sparkline(rates: &[f64]) -> String {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    rates
        .iter()
        .map(|r| BARS[((r.clamp(0.0, 1.0) * 7.0).round()) as usize])
        .collect()
}

fn latest(s: &EvalSuiteSummary, theme: &Theme) -> Span<'static> {
    match &s.latest_run {
        None => Span::styled("never run", theme.dim),
        Some(r) => {
            let status = r.status.clone().unwrap_or_else(|| "?".into());
            match r.pass_rate {
                Some(p) => {
                    let style = if p >= 0.999 {
                        theme.ok
                    } else if p >= 0.5 {
                        theme.warn
                    } else {
                        theme.error
                    };
                    Span::styled(format!("{status} {:.0}%", p * 100.0), style)
                }
                None => Span::styled(status, theme.dim),
            }
        }
    }
}

impl SuitesPane {
    pub fn set_items(&mut self, items: Vec<EvalSuiteSummary>) {
        self.list
            .set_keys(items.iter().map(|s| name(s).to_string()).collect());
        self.items = items;
        if let Some(id) = self.select_next.take() {
            match self.items.iter().position(|s| s.id == id) {
                Some(i) => self.list.select(i),
                None => self.select_next = Some(id),
            }
        }
    }

    /// Selects a suite once the list holds it (after creating one).
    pub fn select_next(&mut self, id: &str) {
        self.select_next = Some(id.to_string());
    }

    pub fn selected(&self) -> Option<&EvalSuiteSummary> {
        self.list.selected().and_then(|i| self.items.get(i))
    }

    pub fn select_id(&mut self, id: &str) {
        if let Some(i) = self.items.iter().position(|s| s.id == id) {
            self.list.select(i);
        }
    }

    pub fn name_of(&self, id: &str) -> Option<String> {
        self.items
            .iter()
            .find(|s| s.id == id)
            .map(|s| name(s).to_string())
    }

    /// Drops the cases read so far (after an import wrote new ones); returns the selected
    /// suite's id when its cases are on screen and should be read again.
    pub fn forget_cases(&mut self) -> Option<String> {
        self.cases.clear();
        self.sub_for = None;
        (self.view == View::Cases)
            .then(|| self.selected().map(|s| s.id.clone()))
            .flatten()
    }

    /// Titles of a suite's cases by id, as far as they are read.
    pub fn case_titles(&self, suite: &str) -> HashMap<String, String> {
        self.cases
            .get(suite)
            .map(|cs| cs.iter().map(|c| (c.id.clone(), c.title.clone())).collect())
            .unwrap_or_default()
    }

    pub fn view(&self) -> View {
        self.view
    }

    pub fn set_cases(&mut self, suite: String, items: Vec<EvalCase>) {
        self.cases.insert(suite, items);
        self.sync_sub();
    }

    /// How the suite's cases did in its last runs.
    pub fn set_history(&mut self, suite: String, history: CaseHistory) {
        self.history.insert(suite, history);
    }

    /// A suite read in full: its settings and schedule show in the detail.
    pub fn set_detail(&mut self, suite: EvalSuite) {
        self.details.insert(suite.id.clone(), suite);
    }

    /// Models the suites read in full run on.
    pub fn models(&self) -> Vec<String> {
        self.details
            .values()
            .map(|s| s.settings.model.clone())
            .collect()
    }

    pub fn detail_of(&self, id: &str) -> Option<&EvalSuite> {
        self.details.get(id)
    }

    pub fn set_schedule(&mut self, schedule: crate::spec::schedule::SuiteSchedule) {
        if let Some(s) = self.details.get_mut(&schedule.suite_id) {
            s.schedule = Some(schedule);
        }
    }

    pub fn remove_case(&mut self, suite: &str, case: &str) {
        if let Some(list) = self.cases.get_mut(suite) {
            list.retain(|c| c.id != case);
        }
        self.sync_sub();
    }

    pub fn upsert_case(&mut self, case: EvalCase) {
        for cases in self.cases.values_mut() {
            if let Some(c) = cases.iter_mut().find(|c| c.id == case.id) {
                *c = case.clone();
            }
        }
        self.sync_sub();
    }

    fn selected_cases(&self) -> Option<&Vec<EvalCase>> {
        self.cases.get(&self.selected()?.id)
    }

    pub fn selected_case(&self) -> Option<&EvalCase> {
        self.selected_cases()?.get(self.sub.selected()?)
    }

    /// Re-keys the cases list (after new cases, or another suite selected).
    fn sync_sub(&mut self) {
        let keys = self
            .selected_cases()
            .map(|cs| cs.iter().map(|c| c.title.clone()).collect())
            .unwrap_or_default();
        self.sub_for = self.selected().map(|s| s.id.clone());
        self.sub.set_keys(keys);
    }

    fn render_cases(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx, suite: &str) {
        let theme = rcx.theme;
        let focused = rcx.focus == PaneFocus::Detail;
        let n = self.selected_cases().map(Vec::len);
        let list_h = (n.unwrap_or(1) as u16 + 2).clamp(3, area.height / 2);
        let [top, bottom] =
            Layout::vertical([Constraint::Length(list_h), Constraint::Fill(1)]).areas(area);
        let title = match n {
            Some(n) => format!("{suite} › Cases ({n})"),
            None => format!("{suite} › Cases"),
        };
        let empty = if (rcx.busy)(Slot::Cases) {
            format!("{} loading cases…", rcx.spinner)
        } else {
            "no cases — press i to import a test plan".into()
        };
        // Borrow the cases in place (fields apart from `sub`): no copy per frame.
        let empty_cases = Vec::new();
        let cases = self
            .list
            .selected()
            .and_then(|i| self.items.get(i))
            .and_then(|s| self.cases.get(&s.id))
            .unwrap_or(&empty_cases);
        let width = top.width.saturating_sub(4) as usize;
        self.sub.render(
            f,
            top,
            pane_block(title, focused, theme),
            theme,
            focused,
            &empty,
            |i| {
                let c = &cases[i];
                let (claim, style) = match &c.import {
                    Some(cl) => (cl.status.as_str(), claim_style(cl.status, theme)),
                    None => ("manual", theme.dim),
                };
                let lines = c
                    .source
                    .as_ref()
                    .map(|s| format!(" L{}–{}", s.start_line, s.end_line))
                    .unwrap_or_default();
                let title_w = width.saturating_sub(16 + lines.len());
                Line::from(vec![
                    Span::styled(if c.is_negative { "¬ " } else { "  " }, theme.warn),
                    Span::raw(pad(&c.title, title_w)),
                    Span::styled(format!(" {:<13}", clip(claim, 13)), style),
                    Span::styled(lines, theme.dim),
                ])
            },
        );
        let case = self.selected_case();
        let mut lines = case.map(|c| case_lines(c, theme)).unwrap_or_default();
        // This case in the suite's last runs: a mark per run, and a chart once it ran twice.
        let history = case.and_then(|c| {
            let h = self.history.get(self.sub_for.as_deref()?)?;
            Some((h.runs.len(), h.cases.get(&c.id)?))
        });
        let mut rates = Vec::new();
        if let Some((runs, marks)) = history {
            lines.push(Line::from(""));
            lines.push(field(
                "history",
                format!(
                    "{}  (last {runs} run(s), oldest first)",
                    marks.iter().map(|m| history_mark(*m)).collect::<String>()
                ),
                theme,
            ));
            rates = marks
                .iter()
                .flatten()
                .map(|(p, n)| f64::from(*p) / f64::from((*n).max(1)))
                .collect();
        }
        let (text_area, chart_area) = chart_below(bottom, rates.len(), 9);
        self.detail
            .render(f, text_area, Line::from(""), lines, false, theme);
        if let Some(area) = chart_area {
            render_trend(f, area, &rates, "this case's pass rate", theme);
        }
    }
}

impl Pane for SuitesPane {
    fn title(&self) -> String {
        format!("Suites ({})", self.items.len())
    }

    fn commands(&self) -> Vec<Command> {
        vec![
            Command::new(Action::Open, "cases"),
            Command::new(Action::New, "new suite"),
            Command::new(Action::Import, "import a plan"),
            Command::new(Action::StartRun, "start a run"),
            Command::new(Action::Config, "edit settings"),
            Command::new(Action::Schedule, "schedule runs"),
            Command::new(Action::Edit, "edit the case"),
            Command::new(Action::Refresh, "refresh"),
        ]
    }

    fn detail_commands(&self) -> Vec<Command> {
        if self.view == View::Cases {
            vec![
                Command::new(Action::Edit, "edit case"),
                Command::new(Action::Delete, "delete case"),
                Command::new(Action::Down, "move"),
                Command::new(Action::PageDown, "scroll the case"),
                Command::new(Action::Import, "import"),
                Command::new(Action::StartRun, "run"),
            ]
        } else {
            Vec::new()
        }
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
        cx.fetch(Request::Cases {
            project: project.to_string(),
            suite: s.id.clone(),
        });
        cx.fetch(Request::CaseHistory {
            project: project.to_string(),
            suite: s.id.clone(),
        });
        cx.fetch(Request::Suite {
            project: project.to_string(),
            suite: s.id.clone(),
            then: SuiteThen::Show,
        });
        self.view = View::Cases;
        self.sync_sub();
        self.sub.top();
        true
    }

    fn on_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if action == Action::New {
            cx.effects.push(Effect::NewSuite);
            return true;
        }
        let Some(s) = self.selected() else {
            return false;
        };
        let (suite, suite_name) = (s.id.clone(), name(s).to_string());
        match action {
            Action::Import => cx.effects.push(Effect::OpenImport { suite, suite_name }),
            Action::StartRun => {
                let cases = self.cases.get(&suite).cloned();
                cx.effects.push(Effect::OpenRunPicker {
                    suite,
                    suite_name,
                    cases,
                })
            }
            Action::Edit => match (self.view, self.selected_case()) {
                (View::Cases, Some(c)) => cx.effects.push(Effect::EditCase {
                    suite,
                    case: Box::new(c.clone()),
                }),
                _ => cx.notify("open the suite's cases (Enter) and pick one to edit"),
            },
            Action::Config | Action::Schedule => {
                if let Some(project) = cx.project {
                    cx.fetch(Request::Suite {
                        project: project.to_string(),
                        suite,
                        then: if action == Action::Config {
                            SuiteThen::EditSettings
                        } else {
                            SuiteThen::EditSchedule
                        },
                    });
                }
            }
            _ => return false,
        }
        true
    }

    fn detail_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.view != View::Cases {
            return false;
        }
        match action {
            Action::Delete => {
                if let (Some(project), Some(s), Some(c)) =
                    (cx.project, self.selected(), self.selected_case())
                {
                    cx.effects.push(Effect::Confirm {
                        prompt: format!(
                            "Delete case “{}” from “{}”? Runs already made keep their copy.",
                            c.title,
                            name(s)
                        ),
                        request: Request::DeleteCase {
                            project: project.to_string(),
                            suite: s.id.clone(),
                            case: c.id.clone(),
                        },
                    });
                }
                return true;
            }
            Action::Up => self.sub.up(),
            Action::Down => self.sub.down(),
            Action::Top => self.sub.top(),
            Action::Bottom => self.sub.bottom(),
            // PgUp/PgDn scroll the case under the list (the detail's fallback).
            _ => return false,
        }
        self.detail.top();
        true
    }

    fn render(&mut self, f: &mut Frame, area: Rect, rcx: &RenderCx) {
        let theme = rcx.theme;
        let (list_area, detail_area) = split(area, rcx.focus);
        let name_w = (list_area.width as usize).saturating_sub(26).clamp(8, 40);
        let items = &self.items;
        self.list.render(
            f,
            list_area,
            pane_block(self.title(), rcx.focus == PaneFocus::List, theme),
            theme,
            rcx.focus == PaneFocus::List,
            &empty_text(rcx.loading, "suites"),
            |i| {
                let s = &items[i];
                Line::from(vec![
                    Span::raw(pad(name(s), name_w)),
                    Span::styled(
                        format!(" {:>3} cases  ", s.case_count.unwrap_or(0)),
                        theme.dim,
                    ),
                    latest(s, theme),
                ])
            },
        );
        let Some(s) = self.selected() else {
            self.detail
                .render(f, detail_area, Line::from("Suite"), vec![], false, theme);
            return;
        };
        // The cases view, once this suite's cases are read (or while they are being read).
        if self.view == View::Cases && (self.cases.contains_key(&s.id) || (rcx.busy)(Slot::Cases)) {
            let n = name(s).to_string();
            if self.sub_for.as_deref() != Some(s.id.as_str()) {
                self.sync_sub();
            }
            self.render_cases(f, detail_area, rcx, &n);
            return;
        }
        let mut lines = vec![
            heading(name(s), theme),
            field("cases", s.case_count.unwrap_or(0).to_string(), theme),
            Line::from(vec![
                Span::styled(format!("{:<14}", "latest run"), theme.dim),
                latest(s, theme),
            ]),
        ];
        if let Some(r) = &s.latest_run {
            if let (Some(p), Some(f)) = (r.passed, r.failed) {
                lines.push(field(
                    "iterations",
                    format!("{p} passed, {f} failed"),
                    theme,
                ));
            }
            if let Some(t) = r.created_at {
                lines.push(field("started", time(t), theme));
            }
            if let Some(id) = &r.id {
                lines.push(field("run id", id.clone(), theme));
            }
        }
        let t = &s.totals;
        lines.push(field(
            "all runs",
            format!(
                "{} runs · {} passed · {} failed",
                t.runs.unwrap_or(0),
                t.passed.unwrap_or(0),
                t.failed.unwrap_or(0)
            ),
            theme,
        ));
        if !s.pass_rate_trend.is_empty() {
            lines.push(Line::from(vec![
                Span::styled(format!("{:<14}", "trend"), theme.dim),
                Span::styled(sparkline(&s.pass_rate_trend), theme.accent),
            ]));
        }
        if let Some(d) = self.details.get(&s.id) {
            lines.push(field("model", d.settings.model.clone(), theme));
            lines.push(field(
                "schedule",
                d.schedule
                    .as_ref()
                    .map(super::suite_edit::schedule_summary)
                    .unwrap_or_else(|| "off".into()),
                theme,
            ));
            if let Some(f) = d.schedule.as_ref().and_then(|s| s.recent_firings.first()) {
                let what = match &f.reason {
                    Some(r) => format!("{} ({r})", f.outcome.as_str()),
                    None => f.outcome.as_str().to_string(),
                };
                lines.push(field(
                    "last firing",
                    format!("{what} · {}", time(f.fired_at)),
                    theme,
                ));
            }
        }
        lines.push(field("id", s.id.clone(), theme));
        if let Some(t) = s.updated_at {
            lines.push(field("updated", time(t), theme));
        }
        let title = Line::from(format!("Suite › {}", name(s)));
        // The pass rate run over run, as a chart under the text once there are two runs.
        let trend = s.pass_rate_trend.clone();
        let (text_area, chart_area) = chart_below(detail_area, trend.len(), 10);
        self.detail.render(
            f,
            text_area,
            title,
            lines,
            rcx.focus == PaneFocus::Detail,
            theme,
        );
        if let Some(area) = chart_area {
            render_trend(f, area, &trend, "pass rate", theme);
        }
    }
}

/// Room for a chart of `height` rows under a text: once there are two points to draw and
/// the text keeps at least as many rows.
fn chart_below(area: Rect, points: usize, height: u16) -> (Rect, Option<Rect>) {
    if points < 2 || area.height < height * 2 {
        return (area, None);
    }
    let [text, chart] =
        Layout::vertical([Constraint::Fill(1), Constraint::Length(height)]).areas(area);
    (text, Some(chart))
}

/// A case's iterations in one run: all passed, some, none, or it did not run.
fn history_mark(m: Option<(u32, u32)>) -> char {
    match m {
        None => '·',
        Some((p, n)) if p >= n => '✓',
        Some((0, _)) => '✗',
        Some(_) => '◐',
    }
}

/// Pass rates (0–1, oldest first) as a line chart: the runs along, 0–100 % up.
pub fn render_trend(f: &mut Frame, area: Rect, rates: &[f64], what: &str, theme: &Theme) {
    use ratatui::symbols::Marker;
    use ratatui::widgets::{Axis, Chart, Dataset, GraphType};
    let points: Vec<(f64, f64)> = rates
        .iter()
        .enumerate()
        .map(|(i, r)| ((i + 1) as f64, (r * 100.0).clamp(0.0, 100.0)))
        .collect();
    let n = points.len().max(2) as f64;
    let last = rates.last().map_or(0.0, |r| r * 100.0);
    let data = vec![
        Dataset::default()
            .marker(Marker::Braille)
            .graph_type(GraphType::Line)
            .style(theme.accent)
            .data(&points),
    ];
    let chart = Chart::new(data)
        .block(pane_block(
            format!("{what}, last {} runs · now {last:.0} %", rates.len()),
            false,
            theme,
        ))
        .x_axis(
            Axis::default()
                .style(theme.dim)
                .bounds([1.0, n])
                .labels(vec![Span::raw("1"), Span::raw(format!("{}", rates.len()))]),
        )
        .y_axis(
            Axis::default()
                .style(theme.dim)
                .bounds([0.0, 100.0])
                .labels(vec![Span::raw("0%"), Span::raw("50%"), Span::raw("100%")]),
        );
    f.render_widget(chart, area);
}

#[cfg(test)]
mod tests {
    #[test]
    fn sparkline_spans_the_bars() {
        assert_eq!(super::sparkline(&[0.0, 0.5, 1.0]), "▁▅█");
    }
}
