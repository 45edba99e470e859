//! Tables pasted one cell a line, as a browser copies a wiki or web table into plain text:
//! a header of column labels, one a line (`ID`, `User prompt`, `Expected tool`, …), then
//! each row's cells, one a line, in the same order, with no blank line between rows. The
//! header's labels give the width; such a table is rewritten as the Markdown table it is,
//! line for line (a row on its first cell's line, its other lines as empty rows that
//! continue it), so every span stays exact.

use std::borrow::Cow;

use super::columns::row;
use crate::service::authoring::lexicon::{self, LabelRole};
use crate::service::authoring::lines::split_lines;

/// The most columns such a header is taken to have.
const MAX_COLUMNS: usize = 12;

/// A line short enough to be one cell of a header: no list, heading or table markup, no
/// field (`Prompt: …`) and no quote.
fn could_be_label(l: &str) -> bool {
    let t = l.trim();
    // (Markup first: most lines of a page are headings, items or table rows.)
    !t.is_empty()
        && !t.starts_with(['#', '-', '*', '|', '>', '+', '`'])
        && t.len() <= 160
        && t.chars().count() <= 40
        && !t.contains([':', '：', '"', '“', '「', '«', '„'])
        && !t.ends_with(['?', '!'])
        // (`No.`, `ಕ್ರ.ಸಂ.`: an abbreviation, one word of a few letters.)
        && (!t.ends_with('.') || t.chars().count() <= 4 || !t.contains(' ') && t.chars().count() <= 10)
}

/// How a header's rows follow it.
#[derive(Clone, Copy, PartialEq)]
enum Rows {
    /// Every row one line a cell.
    Even,
    /// Each row opened by its key (`TC-01`), its last cell wrapped over as many lines as
    /// it takes (a PDF's table pasted as text), a page break in it left blank.
    Keyed,
    /// So many rows of a line a cell, each opened by its key, and no blank line after.
    EvenKeyed(usize),
}

/// A row's key standing alone on its line (`TC-01`, `#3`, `7`): its shape, the digits
/// written as `9`, which every key of the table shares.
fn key_shape(l: &str) -> Option<String> {
    let t = l.trim();
    (!t.is_empty()
        && t.chars().count() <= 16
        && t.split_whitespace().count() <= 2
        && t.chars().any(|c| c.is_ascii_digit())
        && !t.ends_with([':', '.', '?', '!']))
    .then(|| {
        t.chars()
            .map(|c| if c.is_ascii_digit() { '9' } else { c })
            .collect()
    })
}

/// The width of the header starting at line `k`: the run of label lines there, when it
/// names a prompt and what to expect (a tool, an outcome) and is followed by its rows.
fn header_at(lines: &[&str], k: usize) -> Option<(usize, Rows)> {
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
    // The header is the labels that open the run: the cells below them are values. (Its
    // first may be a label the lexicon lacks, a serial number's `ಕ್ರ.ಸಂ.`, over keys.)
    // (Not a title over an id column's label: `Cases` over `No.`.)
    let skip = usize::from(
        roles.first() == Some(&None)
            && roles
                .get(1)
                .is_some_and(|r| r.is_some() && *r != Some(LabelRole::Id)),
    );
    let width = skip + roles[skip..].iter().take_while(|r| r.is_some()).count();
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
    // Under an id column, the lines holding a row's key (`TC-01`).
    let shape = lines.get(k + width).and_then(|l| key_shape(l));
    // (A first label the lexicon lacks, over keys, is an id column too.)
    let id = roles[0] == Some(LabelRole::Id) || skip == 1;
    let keys: Vec<usize> = match (id, &shape) {
        (true, Some(shape)) => (k + width..lines.len())
            .filter(|&j| key_shape(lines[j]).as_ref() == Some(shape))
            .map(|j| j - k - width)
            .collect(),
        _ => Vec::new(),
    };
    if body >= width
        && body % width == 0
        && keys.iter().filter(|&&j| j < body).all(|j| j % width == 0)
    {
        return Some((width, Rows::Even));
    }
    // (Or keyed rows of a line a cell, up to what follows the table without a blank line
    // between: a note, a page's comments.)
    let whole = keys
        .iter()
        .enumerate()
        .take_while(|&(n, &j)| j == n * width)
        .count();
    if whole >= 2 {
        return Some((width, Rows::EvenKeyed(whole)));
    }
    // (Rows of uneven length, each opened by its key.)
    (keys.len() >= 2).then_some((width, Rows::Keyed))
}

/// The keyed rows from line `k` on, as Markdown line for line (a row on its key's line,
/// the lines it wraps over as empty rows that continue it), and the line after them.
fn keyed_rows(lines: &[&str], mut k: usize, width: usize, out: &mut Vec<String>) -> usize {
    let shape = key_shape(lines[k]);
    let empty = format!("|{}", " |".repeat(width));
    while k < lines.len() && key_shape(lines[k]) == shape {
        // The row's lines: up to the next key; a blank line ends it (and the table) once
        // it has a line for each cell, and is a page break inside it before.
        let mut end = k + 1;
        let mut filled = 0;
        while end < lines.len() && key_shape(lines[end]) != shape {
            if lines[end].trim().is_empty() {
                let more = lines[end..].iter().position(|l| !l.trim().is_empty());
                if filled + 1 >= width || more.is_none() {
                    break;
                }
            } else {
                filled += 1;
            }
            end += 1;
        }
        let said: Vec<&str> = lines[k + 1..end]
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty())
            .collect();
        let mut cells: Vec<String> = vec![lines[k].trim().to_string()];
        let own = said.len().min(width.saturating_sub(2));
        cells.extend(said[..own].iter().map(|c| c.to_string()));
        // (The last cell runs over the rest: a word broken at a line's end is joined,
        // `sendUp-` `dates` as `sendUpdates`, `create-` `Event` as `create-Event`.)
        let mut last = String::new();
        for l in &said[own..] {
            if last.ends_with('-') && l.starts_with(char::is_lowercase) {
                last.pop();
            } else if !last.is_empty() && !last.ends_with('-') {
                last.push(' ');
            }
            last.push_str(l);
        }
        cells.push(last);
        cells.resize(width, String::new());
        out.push(row(&cells));
        out.extend((k + 1..end).map(|_| empty.clone()));
        k = end;
    }
    k
}

/// The document with every table pasted one cell a line rewritten as Markdown, or the
/// document itself when it has none.
pub fn as_markdown(text: &str) -> Cow<'_, str> {
    let lines: Vec<&str> = split_lines(text).collect();
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
        let Some((width, rows)) = header_at(&lines, k) else {
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
        if rows == Rows::Keyed {
            k = keyed_rows(&lines, k, width, &mut out);
            continue;
        }
        let mut left = match rows {
            Rows::EvenKeyed(n) => n,
            _ => usize::MAX,
        };
        while k + width <= lines.len() && !lines[k].trim().is_empty() && left > 0 {
            out.push(row(&lines[k..k + width]));
            out.extend((1..width).map(|_| empty.clone()));
            k += width;
            left -= 1;
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
    fn rows_opened_by_their_keys_may_wrap_and_cross_a_page_break() {
        let doc = "ID\nPrompt\nExpected\nTC-1\nAdd 2 and 3\ncalls get-\nsum with a = 2\nTC-2\nSay hi\n\n\nno tool at all\nTC-3\nDelete item 4\ndelete-item\n\nAfter.\n";
        let md = as_markdown(doc);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), doc.lines().count());
        assert_eq!(lines[3], "| TC-1 | Add 2 and 3 | calls getsum with a = 2 |");
        assert_eq!(lines[6], "| | | |");
        assert_eq!(lines[7], "| TC-2 | Say hi | no tool at all |");
        assert_eq!(lines[10], "| | | |");
        assert_eq!(lines[12], "| TC-3 | Delete item 4 | delete-item |");
        assert_eq!(lines[16], "After.");
    }

    #[test]
    fn keyed_rows_run_up_to_what_follows_without_a_blank_line() {
        // A serial number's label the lexicon lacks over keys; the page's comments follow.
        let doc = "Sr.\nPrompt\nExpected tool\n1\nAdd 2 and 3\nget-sum\n2\nHi there\necho\nLike\n3 Comments\nAnn\nlooks good\n";
        let md = as_markdown(doc);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), doc.lines().count());
        assert_eq!(lines[0], "| Sr. | Prompt | Expected tool |");
        assert_eq!(lines[3], "| 1 | Add 2 and 3 | get-sum |");
        assert_eq!(lines[6], "| 2 | Hi there | echo |");
        assert_eq!(lines[9], "Like");
        assert_eq!(lines[10], "3 Comments");
    }

    #[test]
    fn labels_without_whole_rows_below_are_left_alone() {
        let doc = "Prompt\nExpected tool\nNotes\nonly one value\n";
        assert!(matches!(as_markdown(doc), Cow::Borrowed(_)));
    }
}
