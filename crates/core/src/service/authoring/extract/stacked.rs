//! Tables pasted one cell a line, as a browser copies a wiki or web table into plain text:
//! a header of column labels, one a line (`ID`, `User prompt`, `Expected tool`, …), then
//! each row's cells, one a line, in the same order, with no blank line between rows. The
//! header's labels give the width; such a table is rewritten as the Markdown table it is,
//! line for line (a row on its first cell's line, its other lines as empty rows that
//! continue it), so every span stays exact.

use std::borrow::Cow;

use super::columns::row;
use crate::service::authoring::lexicon::{self, LabelRole};

/// The most columns such a header is taken to have.
const MAX_COLUMNS: usize = 12;

/// A line short enough to be one cell of a header: no list, heading or table markup, no
/// field (`Prompt: …`) and no quote.
fn could_be_label(l: &str) -> bool {
    let t = l.trim();
    !t.is_empty()
        && t.len() <= 160
        && t.chars().count() <= 40
        && !t.starts_with(['#', '-', '*', '|', '>', '+', '`'])
        && !t.contains([':', '：', '"', '“', '「', '«', '„'])
        && !t.ends_with(['?', '!'])
        && (!t.ends_with('.') || t.chars().count() <= 4)
}

/// The width of the header starting at line `k`: the run of label lines there, when it
/// names a prompt and what to expect (a tool, an outcome) and is followed by whole rows.
fn header_at(lines: &[&str], k: usize) -> Option<usize> {
    let run = lines[k..]
        .iter()
        .take(MAX_COLUMNS)
        .take_while(|l| could_be_label(l))
        .count();
    if run < 3 {
        return None;
    }
    let roles: Vec<Option<LabelRole>> = lines[k..k + run]
        .iter()
        .map(|l| lexicon::label_role(l.trim()))
        .collect();
    // The header is the labels that open the run: the cells below them are values.
    let width = roles.iter().take_while(|r| r.is_some()).count();
    if width < 3 {
        return None;
    }
    let roles = &roles[..width];
    let has = |r: LabelRole| roles.contains(&Some(r));
    if !(has(LabelRole::Prompt) || has(LabelRole::Steps))
        || !(has(LabelRole::Tool) || has(LabelRole::Expected))
    {
        return None;
    }
    // Whole rows follow, up to the blank line that ends the table.
    let body = lines[k + width..]
        .iter()
        .take_while(|l| !l.trim().is_empty())
        .count();
    (body >= width && body % width == 0).then_some(width)
}

/// The document with every table pasted one cell a line rewritten as Markdown, or the
/// document itself when it has none.
pub fn as_markdown(text: &str) -> Cow<'_, str> {
    let lines: Vec<&str> = text.lines().collect();
    // (Most documents have no three label-like lines in a row: one pass says so.)
    let mut run = 0;
    let candidate = lines.iter().any(|l| {
        run = if could_be_label(l) { run + 1 } else { 0 };
        run >= 3
    });
    if !candidate {
        return Cow::Borrowed(text);
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut changed = false;
    let mut k = 0;
    while k < lines.len() {
        let Some(width) = header_at(&lines, k) else {
            out.push(lines[k].to_string());
            k += 1;
            continue;
        };
        changed = true;
        let empty = format!("|{}", " |".repeat(width));
        out.push(row(&lines[k..k + width]));
        out.push(format!("|{}|", vec!["---"; width].join("|")));
        out.extend((2..width).map(|_| empty.clone()));
        k += width;
        while k < lines.len() && !lines[k].trim().is_empty() {
            out.push(row(&lines[k..k + width]));
            out.extend((1..width).map(|_| empty.clone()));
            k += width;
        }
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    Cow::Owned(super::rejoin(text, &out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_copied_one_cell_a_line_becomes_markdown_line_for_line() {
        let doc = "Cases\nNo.\nQuestion\nExpected tool\nForbidden\n1\nAdd 2 and 3\nget-sum\n—\n2\nHi there\nno tool\n—\n\nAfter.\n";
        let md = as_markdown(doc);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), doc.lines().count());
        assert_eq!(lines[1], "| No. | Question | Expected tool | Forbidden |");
        assert_eq!(lines[2], "|---|---|---|---|");
        assert_eq!(lines[5], "| 1 | Add 2 and 3 | get-sum | — |");
        assert_eq!(lines[6], "| | | | |");
        assert_eq!(lines[9], "| 2 | Hi there | no tool | — |");
        assert_eq!(lines[14], "After.");
    }

    #[test]
    fn labels_without_whole_rows_below_are_left_alone() {
        let doc = "Prompt\nExpected tool\nNotes\nonly one value\n";
        assert!(matches!(as_markdown(doc), Cow::Borrowed(_)));
    }
}
