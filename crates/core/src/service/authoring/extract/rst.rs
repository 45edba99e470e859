//! reStructuredText directives, as Sphinx specs write them, made the Markdown the text
//! reader knows, line for line: a `.. code-block:: json` block becomes a fenced block (its
//! closing fence on the blank line after it); an admonition (`.. note::`, `.. warning::`)
//! lets its body out, unindented, to be read as the text it is, under its title if it has
//! one (`.. admonition:: Scenario 8`); a `.. todo::`, a
//! table of contents and comments are left out, as no part of a case.

use std::borrow::Cow;

use crate::service::authoring::lines::has;

/// Directives whose body is code.
const CODE: &[&str] = &["code-block", "code", "sourcecode", "literalinclude"];

/// Directives whose body is a remark on the text around it.
const ADMONITIONS: &[&str] = &[
    "note",
    "warning",
    "important",
    "caution",
    "attention",
    "danger",
    "error",
    "hint",
    "tip",
    "admonition",
    "seealso",
];

/// A directive line's name (`.. code-block:: json` → `code-block`); `..` alone or followed
/// by words without `::` is a comment (`None` name, but still a directive line).
fn directive(line: &str) -> Option<Option<&str>> {
    let rest = line.trim_start().strip_prefix("..")?;
    if !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    let rest = rest.trim_start();
    Some(
        rest.split_once("::")
            .map(|(name, _)| name.trim())
            .filter(|n| !n.is_empty() && !n.contains(' ')),
    )
}

fn indent(l: &str) -> usize {
    l.len() - l.trim_start().len()
}

/// The page with its directives made Markdown, or the page itself when it has none.
pub fn as_markdown(t: &str) -> Cow<'_, str> {
    if !has(t, ".. ") || !has(t, "::") {
        return Cow::Borrowed(t);
    }
    let lines: Vec<&str> = t.lines().collect();
    if !lines.iter().any(|l| matches!(directive(l), Some(Some(_)))) {
        return Cow::Borrowed(t);
    }
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut i = 0;
    while i < lines.len() {
        let Some(name) = directive(lines[i]) else {
            i += 1;
            continue;
        };
        let base = indent(lines[i]);
        // The body: the lines indented under the directive, blank lines between them.
        let mut end = i + 1;
        let mut last = i;
        while end < lines.len() {
            let l = lines[end];
            if l.trim().is_empty() {
                end += 1;
                continue;
            }
            if indent(l) <= base {
                break;
            }
            last = end;
            end += 1;
        }
        let body = i + 1..=last;
        let options = |k: usize| lines[k].trim_start().starts_with(':');
        match name {
            Some(n) if CODE.contains(&n) => {
                let lang = lines[i].split_once("::").map_or("", |(_, l)| l.trim());
                // (The fence closes on the blank line after the body, or at the end.)
                let close = last + 1;
                if close < lines.len() && !lines[close].trim().is_empty() {
                    i = last + 1;
                    continue;
                }
                out[i] = format!("{}```{lang}", " ".repeat(base));
                if close < lines.len() {
                    out[close] = format!("{}```", " ".repeat(base));
                }
                for k in body.filter(|&k| options(k)) {
                    out[k] = String::new();
                }
            }
            Some(n) if ADMONITIONS.contains(&n) => {
                // (A generic admonition's title, `.. admonition:: Scenario 8`, heads it.)
                let title = lines[i].split_once("::").map_or("", |(_, t)| t.trim());
                out[i] = if title.is_empty() {
                    String::new()
                } else {
                    format!("#### {title}")
                };
                let cut = (i + 1..=last)
                    .filter(|&k| !lines[k].trim().is_empty())
                    .map(|k| indent(lines[k]))
                    .min()
                    .unwrap_or(0);
                for k in i + 1..=last {
                    out[k] = lines[k].get(cut..).unwrap_or("").to_string();
                }
            }
            Some("list-table") => {
                for (k, row) in list_table(&lines, i + 1, last) {
                    out[k] = row;
                }
                for k in (i..=last).filter(|&k| options(k) || k == i) {
                    out[k] = String::new();
                }
            }
            _ => {
                // A to-do, a table of contents, an image, a comment: no part of a case.
                for o in &mut out[i..=last] {
                    o.clear();
                }
            }
        }
        i = last + 1;
    }
    Cow::Owned(super::rejoin(t, &out))
}

/// A `list-table`'s body (lines `a..=b`) as Markdown table rows, line for line: a row on
/// its `* -` line with every cell it holds (a cell's wrapped lines joined), its other lines
/// empty rows that continue it, and the rule under the first row.
fn list_table(lines: &[&str], a: usize, b: usize) -> Vec<(usize, String)> {
    // Each row: its first line, its last, and its cells.
    let mut rows: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for (k, l) in lines.iter().enumerate().take(b + 1).skip(a) {
        let t = l.trim_start();
        if let Some(cell) = t.strip_prefix("* -") {
            rows.push((k, k, vec![cell.trim().to_string()]));
        } else if let Some(row) = rows.last_mut() {
            row.1 = k;
            if let Some(cell) = t
                .strip_prefix("- ")
                .or(if t == "-" { Some("") } else { None })
            {
                row.2.push(cell.trim().to_string());
            } else if !t.is_empty()
                && let Some(cell) = row.2.last_mut()
            {
                if !cell.is_empty() {
                    cell.push(' ');
                }
                cell.push_str(t);
            }
        }
    }
    let width = rows.iter().map(|r| r.2.len()).max().unwrap_or(0);
    let empty = format!("|{}", " |".repeat(width));
    let mut out = Vec::new();
    for (n, (first, last, mut cells)) in rows.into_iter().enumerate() {
        cells.resize(width, String::new());
        out.push((first, super::columns::row(&cells)));
        for k in first + 1..=last {
            let rule = n == 0 && k == first + 1;
            out.push((
                k,
                if rule {
                    format!("|{}|", vec!["---"; width].join("|"))
                } else {
                    empty.clone()
                },
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_become_markdown_line_for_line() {
        let doc = "Intro\n\n.. contents:: Index\n   :depth: 2\n\n:Args:\n\n   .. code-block:: json\n\n      {\"a\": 1}\n\n.. warning::\n\n   Never call ``crash``.\n\n.. todo::\n\n   Case 9, later.\nEnd\n";
        let md = as_markdown(doc);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), doc.lines().count());
        assert_eq!(lines[2], "");
        assert_eq!(lines[3], "");
        assert_eq!(lines[7], "   ```json");
        assert_eq!(lines[9], "      {\"a\": 1}");
        assert_eq!(lines[10], "   ```");
        assert_eq!(lines[11], "");
        assert_eq!(lines[13], "Never call ``crash``.");
        assert_eq!(lines[17], "");
        assert_eq!(lines[18], "End");
    }

    #[test]
    fn a_page_without_directives_is_left_alone() {
        assert!(matches!(
            as_markdown("Prompt: a .. b :: c\n"),
            Cow::Borrowed(_)
        ));
    }
}
