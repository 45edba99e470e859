//! How a case reads on screen (steps, checks, claim, provenance with its source excerpt),
//! and the case edit body with its validation, shared by the suites pane and the review of
//! skipped drafts.

use ratatui::text::{Line, Span};
use serde_json::{Map, Value};

use super::{field, heading};
use crate::spec::case::{ClaimStatus, EvalCase, EvalCaseUpdate, StepKind, decode};
use crate::tui::theme::Theme;
use crate::tui::widgets::highlight::highlight;

/// The keys of a case that an edit may change, in the order the editor shows them.
const EDITABLE: &[&str] = &[
    "title",
    "steps",
    "expectedOutput",
    "iterations",
    "repetitions",
    "passThreshold",
    "isNegative",
    "scenario",
    "intent",
    "kind",
    "models",
    "matchOptions",
    "checks",
    "judge",
    "import",
    "suppressedSuiteStandardCheckIds",
];

/// The edit body for a case: its editable fields as they are now.
pub fn edit_value(case: &EvalCase) -> Value {
    let full = serde_json::to_value(case).unwrap_or_default();
    let mut out = Map::new();
    for k in EDITABLE {
        if let Some(v) = full.get(*k)
            && !v.is_null()
        {
            out.insert((*k).to_string(), v.clone());
        }
    }
    Value::Object(out)
}

/// The edit body parsed and checked by the spec's rules, as `path: message` lines.
pub fn validate_update(v: &Value) -> Vec<String> {
    match decode::<EvalCaseUpdate>(v.clone()).and_then(|u| u.validate().map(|_| u)) {
        Ok(_) => Vec::new(),
        Err(e) => crate::tui::widgets::json_edit::error_lines(&e),
    }
}

/// The parsed edit body (after [`validate_update`] passed).
pub fn parse_update(v: Value) -> EvalCaseUpdate {
    decode::<EvalCaseUpdate>(v).unwrap_or_default()
}

pub fn claim_style(status: ClaimStatus, theme: &Theme) -> ratatui::style::Style {
    match status {
        ClaimStatus::Exact => theme.ok,
        ClaimStatus::Approximated => theme.warn,
        ClaimStatus::Unsupported | ClaimStatus::Unresolved => theme.error,
    }
}

/// A compact one-line JSON, clipped.
fn compact(v: &impl serde::Serialize, width: usize) -> String {
    super::clip(&serde_json::to_string(v).unwrap_or_default(), width)
}

/// Everything about a case, top to bottom.
pub fn case_lines(c: &EvalCase, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![heading(&c.title, theme)];
    let mut tags = vec![format!("{} iteration(s)", c.iterations)];
    if c.is_negative {
        tags.push("negative".into());
    }
    if let Some(k) = c.kind {
        tags.push(format!("{k:?}").to_lowercase());
    }
    if let Some(t) = c.pass_threshold {
        tags.push(format!("pass ≥ {:.0}%", t * 100.0));
    }
    lines.push(Line::styled(tags.join(" · "), theme.dim));
    if let Some(s) = &c.scenario {
        lines.push(field("scenario", s.clone(), theme));
    }
    if let Some(s) = &c.expected_output {
        lines.push(field("expected", s.clone(), theme));
    }
    if !c.models.is_empty() {
        let m: Vec<String> = c
            .models
            .iter()
            .map(|m| match &m.provider {
                Some(p) => format!("{p}/{}", m.model),
                None => m.model.clone(),
            })
            .collect();
        lines.push(field("models", m.join(", "), theme));
    }
    lines.push(Line::raw(""));
    lines.push(heading(&format!("Steps ({})", c.steps.len()), theme));
    for (i, s) in c.steps.iter().enumerate() {
        let (mark, text) = match s.kind {
            StepKind::Prompt => ("user  ", s.prompt.clone().unwrap_or_default()),
            StepKind::ToolCall => (
                "call  ",
                format!(
                    "{} {}",
                    s.tool_name.as_deref().unwrap_or("?"),
                    compact(&s.arguments, 200)
                ),
            ),
            StepKind::Interact => ("act   ", compact(&s.action, 200)),
            StepKind::Assert => ("check ", compact(&s.assertion, 200)),
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:>2}. ", i + 1), theme.dim),
            Span::styled(
                mark,
                if s.kind == StepKind::Assert {
                    theme.accent
                } else {
                    theme.key
                },
            ),
            Span::raw(text),
        ]));
    }
    if let Some(ch) = &c.checks {
        lines.push(Line::raw(""));
        lines.push(heading(
            &format!("Checks ({:?}, {})", ch.mode, ch.list.len()).replace("Inherit", "inherit"),
            theme,
        ));
        for a in &ch.list {
            lines.push(Line::from(vec![
                Span::styled("  ✓ ", theme.accent),
                Span::raw(compact(&a.0, 200)),
            ]));
        }
    }
    if !c.suppressed_suite_standard_check_ids.is_empty() {
        lines.push(field(
            "suppressed",
            c.suppressed_suite_standard_check_ids.join(", "),
            theme,
        ));
    }
    if let Some(claim) = &c.import {
        lines.push(Line::raw(""));
        lines.push(Line::from(vec![
            Span::styled(format!("{:<14}", "claim"), theme.dim),
            Span::styled(
                claim.status.as_str().to_string(),
                claim_style(claim.status, theme),
            ),
        ]));
        if let Some(k) = &claim.source_case_key {
            lines.push(field("source key", k.clone(), theme));
        }
        if let Some(n) = &claim.note {
            lines.push(field("note", n.clone(), theme));
        }
    }
    if let Some(src) = &c.source {
        lines.push(Line::raw(""));
        lines.push(heading(
            &format!(
                "Source {} lines {}–{}",
                src.file_name, src.start_line, src.end_line
            ),
            theme,
        ));
        let gutter = src.end_line.to_string().len();
        for (i, l) in highlight(&src.excerpt, "md", theme).into_iter().enumerate() {
            let mut spans = vec![Span::styled(
                format!("{:>gutter$} │ ", src.start_line as usize + i),
                theme.dim,
            )];
            spans.extend(l.spans);
            lines.push(Line::from(spans));
        }
        lines.push(Line::styled(
            format!("{} · {}", src.extractor_version, &src.file_hash),
            theme.dim,
        ));
    }
    lines.push(Line::raw(""));
    lines.push(field("id", c.id.clone(), theme));
    if let Some(t) = c.updated_at {
        lines.push(field("updated", super::time(t), theme));
    }
    lines
}
