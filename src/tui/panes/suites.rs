//! Suites: each suite with its case count, latest run and pass-rate trend.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use super::{
    Command, Cx, DetailView, Pane, PaneFocus, RenderCx, empty_text, field, heading, pad,
    pane_block, split, time,
};
use crate::spec::catalog::EvalSuiteSummary;
use crate::tui::keymap::Action;
use crate::tui::theme::Theme;
use crate::tui::widgets::list::ListView;

#[derive(Default)]
pub struct SuitesPane {
    pub items: Vec<EvalSuiteSummary>,
    list: ListView,
    detail: DetailView,
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
    }

    fn selected(&self) -> Option<&EvalSuiteSummary> {
        self.list.selected().and_then(|i| self.items.get(i))
    }
}

impl Pane for SuitesPane {
    fn title(&self) -> String {
        format!("Suites ({})", self.items.len())
    }

    fn commands(&self) -> Vec<Command> {
        vec![
            Command::new(Action::Open, "details"),
            Command::new(Action::Refresh, "refresh"),
        ]
    }

    fn list(&mut self) -> &mut ListView {
        &mut self.list
    }

    fn detail(&mut self) -> &mut DetailView {
        &mut self.detail
    }

    fn open(&mut self, _cx: &mut Cx) -> bool {
        self.selected().is_some()
    }

    fn on_action(&mut self, _action: Action, _cx: &mut Cx) -> bool {
        false
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
        lines.push(field("id", s.id.clone(), theme));
        if let Some(t) = s.updated_at {
            lines.push(field("updated", time(t), theme));
        }
        let title = Line::from(format!("Suite › {}", name(s)));
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

#[cfg(test)]
mod tests {
    #[test]
    fn sparkline_spans_the_bars() {
        assert_eq!(super::sparkline(&[0.0, 0.5, 1.0]), "▁▅█");
    }
}
