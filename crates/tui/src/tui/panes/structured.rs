//! A tool's `structuredContent` as tables — an object as field and value, a list of objects
//! with a column per key — beside the tool's `outputSchema`, with whether the one matches
//! the other.

use ratatui::text::{Line, Span};
use serde_json::Value;

use super::clip;
use crate::tui::theme::Theme;

/// A cell's text: strings as they are, anything else as compact JSON.
fn cell(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "—".into(),
        Value::Array(a) if a.iter().all(Value::is_object) && !a.is_empty() => {
            format!("[{} rows below]", a.len())
        }
        other => other.to_string(),
    }
}

/// One table as rows of text, columns padded to their widest cell within `width`.
fn table(
    headers: &[String],
    rows: &[Vec<String>],
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let n = headers.len().max(1);
    let gap = 2;
    let budget = width.saturating_sub(gap * (n - 1)).max(n);
    let mut widths: Vec<usize> = (0..n)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .chain(std::iter::once(
                    headers.get(c).map_or(0, |h| h.chars().count()),
                ))
                .max()
                .unwrap_or(1)
        })
        .collect();
    // Narrow the widest columns until the table fits.
    while widths.iter().sum::<usize>() > budget {
        let (i, w) = widths
            .iter()
            .copied()
            .enumerate()
            .max_by_key(|(_, w)| *w)
            .unwrap_or((0, 1));
        if w <= 4 {
            break;
        }
        widths[i] = w - 1;
    }
    let row = |cells: &[String]| -> String {
        (0..n)
            .map(|c| {
                let s = cells.get(c).map(String::as_str).unwrap_or("");
                format!("{:<w$}", clip(s, widths[c]), w = widths[c])
            })
            .collect::<Vec<_>>()
            .join(&" ".repeat(gap))
            .trim_end()
            .to_string()
    };
    let mut lines = vec![Line::styled(row(headers), theme.title)];
    lines.push(Line::styled(
        widths
            .iter()
            .map(|w| "─".repeat(*w))
            .collect::<Vec<_>>()
            .join(&" ".repeat(gap)),
        theme.dim,
    ));
    lines.extend(rows.iter().map(|r| Line::raw(row(r))));
    lines
}

/// The tables for a value: an object as field/value (a list of objects in it as a table of
/// its own below), a list of objects as one table, anything else as one cell.
fn tables(v: &Value, width: usize, theme: &Theme) -> Vec<Line<'static>> {
    match v {
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_object) => {
            let mut headers: Vec<String> = Vec::new();
            for it in items {
                for k in it.as_object().into_iter().flat_map(|o| o.keys()) {
                    if !headers.contains(k) {
                        headers.push(k.clone());
                    }
                }
            }
            let rows: Vec<Vec<String>> = items
                .iter()
                .map(|it| {
                    headers
                        .iter()
                        .map(|h| it.get(h).map(cell).unwrap_or_default())
                        .collect()
                })
                .collect();
            table(&headers, &rows, width, theme)
        }
        Value::Object(o) => {
            let rows: Vec<Vec<String>> = o.iter().map(|(k, v)| vec![k.clone(), cell(v)]).collect();
            let mut lines = table(&["field".into(), "value".into()], &rows, width, theme);
            for (k, v) in o {
                if let Value::Array(a) = v
                    && !a.is_empty()
                    && a.iter().all(Value::is_object)
                {
                    lines.push(Line::raw(""));
                    lines.push(Line::styled(k.clone(), theme.accent));
                    lines.extend(tables(v, width, theme));
                }
            }
            lines
        }
        other => vec![Line::raw(cell(other))],
    }
}

/// Pads (or cuts) a line to `width` columns.
fn fit(line: Line<'static>, width: usize) -> Vec<Span<'static>> {
    let mut out = Vec::new();
    let mut used = 0;
    for s in line.spans {
        let w = s.content.chars().count();
        if used + w <= width {
            used += w;
            out.push(s);
        } else {
            let room = width - used;
            out.push(Span::styled(clip(&s.content, room), s.style));
            used = width;
            break;
        }
    }
    out.push(Span::raw(" ".repeat(width - used)));
    out
}

/// `structuredContent` as tables; the tool's output schema beside them when there is room
/// (below them when not), with whether the content matches it.
pub fn lines(
    sc: &Value,
    schema: Option<&Value>,
    schema_lines: Vec<Line<'static>>,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let mut head = vec![Span::styled("structuredContent", theme.title)];
    if let Some(schema) = schema {
        let problems = crate::tui::widgets::schema_form::problems(schema, sc, "", false);
        head.push(if problems.is_empty() {
            Span::styled("  ✓ matches the output schema", theme.ok)
        } else {
            Span::styled(format!("  ✗ {}", problems.join("; ")), theme.error)
        });
    }
    let mut out = vec![Line::from(head)];
    let mut right = Vec::new();
    if schema.is_some() {
        right.push(Line::styled("outputSchema", theme.title));
        right.extend(schema_lines);
    }
    // Side by side when both fit as they are; the tables may take up to three fifths.
    let widest = |ls: &[Line]| ls.iter().map(Line::width).max().unwrap_or(0);
    let right_w = widest(&right);
    let natural = widest(&tables(sc, width, theme));
    let side = !right.is_empty() && natural.min(width * 3 / 5) + 3 + right_w.min(40) <= width;
    let left_w = if side {
        natural.min(width * 3 / 5)
    } else {
        width
    };
    let left = tables(sc, left_w, theme);
    if side {
        let rows = left.len().max(right.len());
        let mut left = left.into_iter();
        let mut right = right.into_iter();
        for _ in 0..rows {
            let mut spans = fit(left.next().unwrap_or_default(), left_w);
            spans.push(Span::styled(" │ ", theme.dim));
            spans.extend(right.next().unwrap_or_default().spans);
            out.push(Line::from(spans));
        }
    } else {
        out.extend(left);
        if !right.is_empty() {
            out.push(Line::raw(""));
            out.extend(right);
        }
    }
    out
}
