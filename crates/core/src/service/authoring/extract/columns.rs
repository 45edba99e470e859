//! Tables laid out in fixed-width columns, with no delimiter between cells: a header line,
//! then a rule of dash or equals runs (`----  -------`, reStructuredText's simple tables,
//! plain-text protocols), then rows until a blank line. The runs of the rule give the
//! columns. Such a table is rewritten as the Markdown table it is, line for line, so every
//! span stays exact; a row whose first cell is empty continues the one above. So is a
//! table pasted from a spreadsheet into prose, its cells parted by tabs.

use crate::service::authoring::lines::{has, split_lines};
use std::borrow::Cow;

/// The column starts of a rule line: at least two runs of `-` or `=` (of two or more),
/// and nothing else.
fn rule_columns(line: &str) -> Option<Vec<usize>> {
    let t = line.trim_end();
    if t.trim().is_empty() || !t.trim().chars().all(|c| matches!(c, '-' | '=' | ' ')) {
        return None;
    }
    let mut starts = Vec::new();
    let mut prev = ' ';
    let mut run = 0;
    for (i, c) in t.char_indices() {
        if c != ' ' && prev == ' ' {
            starts.push(i);
            run = 0;
        }
        if c != ' ' {
            run += 1;
        } else if prev != ' ' && run < 2 {
            return None;
        }
        prev = c;
    }
    (starts.len() >= 2).then_some(starts)
}

/// The cells of `line` at the column starts (a character straddling a start stays whole).
fn cells(line: &str, starts: &[usize]) -> Vec<String> {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let col_of = |byte: usize| starts.iter().rposition(|&s| s <= byte).unwrap_or(0);
    let mut out = vec![String::new(); starts.len()];
    for (i, c) in chars {
        out[col_of(i)].push(c);
    }
    out.into_iter().map(|c| c.trim().to_string()).collect()
}

/// A Markdown table row of `cells` (trimmed, a `|` inside escaped).
pub(super) fn row(cells: &[impl AsRef<str>]) -> String {
    let inner: Vec<String> = cells
        .iter()
        .map(|c| c.as_ref().trim().replace('|', "\\|"))
        .collect();
    format!("| {} |", inner.join(" | "))
}

/// The document with every fixed-width table rewritten as Markdown, or the document itself
/// when it has none.
pub fn as_markdown(text: &str) -> Cow<'_, str> {
    // Most documents have no rule of runs: one cheap pass says so.
    if !split_lines(text).any(|l| {
        let t = l.trim_start();
        (t.starts_with("--") || t.starts_with("==")) && rule_columns(l).is_some()
    }) {
        return Cow::Borrowed(text);
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = Vec::new();
    let mut changed = false;
    let mut k = 0;
    while k < lines.len() {
        let header = (k + 1 < lines.len()
            && !lines[k].trim().is_empty()
            && rule_columns(lines[k]).is_none())
        .then(|| rule_columns(lines[k + 1]))
        .flatten();
        let Some(starts) = header else {
            out.push(lines[k].to_string());
            k += 1;
            continue;
        };
        let head = cells(lines[k], &starts);
        // A header names its columns: every cell of it holds a word.
        if head.iter().any(|c| !c.chars().any(char::is_alphabetic)) {
            out.push(lines[k].to_string());
            k += 1;
            continue;
        }
        changed = true;
        out.push(row(&head));
        out.push(format!("|{}|", vec!["---"; starts.len()].join("|")));
        k += 2;
        while k < lines.len() && !lines[k].trim().is_empty() {
            if rule_columns(lines[k]).is_some() {
                // reStructuredText closes its table with a rule.
                out.push(String::new());
                k += 1;
                break;
            }
            out.push(row(&cells(lines[k], &starts)));
            k += 1;
        }
    }
    if !changed {
        return Cow::Borrowed(text);
    }
    Cow::Owned(super::rejoin(text, &out))
}

/// The document with every block of tab-separated rows under a header that names a
/// prompt (a sheet's range pasted into a page) rewritten as Markdown table rows, line for
/// line, or the document itself when it has none.
pub fn tab_separated(text: &str) -> Cow<'_, str> {
    // (Cells parted by a tab: a tab after something other than indentation, a row's
    // trailing empty cells included.)
    let tabs = |l: &str| l.trim_start().matches('\t').count();
    if !has(text, "\t") || !text.lines().any(|l| tabs(l) > 0) {
        return Cow::Borrowed(text);
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut changed = false;
    let mut k = 0;
    while k < lines.len() {
        let n = tabs(lines[k]);
        // (A row may come with fewer cells than its header: an editor drops the trailing
        // empty ones.)
        let end = (k..lines.len())
            .take_while(|&j| n > 0 && (j == k || (1..=n).contains(&tabs(lines[j]))))
            .last()
            .map_or(k, |j| j + 1);
        let header: Vec<&str> = lines[k].trim().split('\t').map(str::trim).collect();
        let roles: Vec<_> = header
            .iter()
            .filter_map(|c| crate::service::authoring::lexicon::label_role(c))
            .collect();
        if end >= k + 2
            && roles.len() >= 2
            && roles.contains(&crate::service::authoring::lexicon::LabelRole::Prompt)
        {
            for j in k..end {
                let cells: Vec<&str> = lines[j].trim().split('\t').collect();
                out[j] = row(&cells);
            }
            changed = true;
            k = end;
        } else {
            k += 1;
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
    fn a_fixed_width_table_becomes_markdown_line_for_line() {
        let doc = "Intro\n\nStep  User prompt          Tool\n----  -------------------  -------\n4.1   Add 3 and 4.         get-sum\n      and explain.\n\nAfter\n";
        let md = as_markdown(doc);
        assert_eq!(md.lines().count(), doc.lines().count());
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l[2], "| Step | User prompt | Tool |");
        assert_eq!(l[3], "|---|---|---|");
        assert_eq!(l[4], "| 4.1 | Add 3 and 4. | get-sum |");
        assert_eq!(l[5], "|  | and explain. |  |");
        assert_eq!(l[7], "After");
    }

    #[test]
    fn a_tab_separated_table_keeps_rows_whose_trailing_cells_are_empty() {
        // (A word processor's text export drops a row's trailing empty cells, tabs and all,
        // or keeps the tabs.)
        let doc = "3. Set-up\n3.1 Staging.\n\nNo.\tPrompt\tTool\tNotes\nA1\t\"Add 2 and 3\"\tget-sum\t\nA2\t\"Say hi\"\techo\nA3\t\"Crash it\"\tcrash\tdropped\n";
        let md = tab_separated(doc);
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l.len(), doc.lines().count());
        assert!(l[3..].iter().all(|r| r.starts_with('|')), "{md}");
    }

    #[test]
    fn prose_and_markdown_rules_stay_as_they_are() {
        for doc in [
            "a\n---\nb\n",
            "# T\n\n- x\n- y\n",
            "| a | b |\n|---|---|\n| 1 | 2 |\n",
        ] {
            assert!(matches!(as_markdown(doc), Cow::Borrowed(_)), "{doc}");
        }
    }
}
