//! Pages of block outliners (Logseq, Roam Research): every line a `- ` block, a block's
//! properties written `key:: value`, and task markers (`TODO`, `DONE`, `{{[[TODO]]}}`)
//! opening a block. Read as the Markdown they correspond to, line for line: a property is
//! a field (`key: value`), a done or open task is an item, a cancelled one is tagged
//! `[cancelled]` (set aside).

use std::borrow::Cow;

/// Task markers that say nothing of whether a block is a case.
const OPEN_OR_DONE: &[&str] = &["TODO", "DOING", "NOW", "LATER", "DONE", "WAITING", "WAIT"];
/// Task markers that set a block aside.
const CANCELLED: &[&str] = &["CANCELED", "CANCELLED"];

/// The page with its properties as fields and its markers read, when it is an outliner's
/// (two property lines at least); else the page itself.
pub fn as_markdown(t: &str) -> Cow<'_, str> {
    if !t.contains(":: ") || t.lines().filter(|l| property(l).is_some()).count() < 2 {
        return Cow::Borrowed(t);
    }
    // A heading block (`- ## Cases`) is a heading, and its children are blocks under it: one
    // level of their indentation goes with its bullet.
    let mut under: Option<usize> = None;
    let lines: Vec<String> = t
        .lines()
        .map(|l| {
            let depth = l.len() - l.trim_start_matches('\t').len();
            let body = &l[depth..];
            if let Some(heading) = body.strip_prefix("- #").map(|h| format!("#{h}"))
                && heading.trim_start_matches('#').starts_with(' ')
            {
                under = Some(depth);
                return heading;
            }
            let l = match under {
                Some(h) if depth > h && !body.trim().is_empty() => &l[h + 1..],
                Some(_) if body.trim().is_empty() => l,
                _ => {
                    under = None;
                    l
                }
            };
            if let Some((indent, key, value)) = property(l) {
                return format!("{indent}{key}: {value}");
            }
            marked(l).unwrap_or_else(|| l.to_string())
        })
        .collect();
    Cow::Owned(super::rejoin(t, &lines))
}

/// A property line: its indentation, key and value (`  prompt:: "…"`).
fn property(l: &str) -> Option<(&str, &str, &str)> {
    let body = l.trim_start_matches([' ', '\t']);
    let indent = &l[..l.len() - body.len()];
    let body = body.strip_prefix("- ").unwrap_or(body);
    let (key, value) = body.split_once(":: ")?;
    (!key.is_empty()
        && key.len() <= 40
        && key
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' ')))
    .then_some((indent, key, value))
}

/// A block opened by a task marker, the marker read.
fn marked(l: &str) -> Option<String> {
    let body = l.trim_start_matches([' ', '\t']);
    let indent = &l[..l.len() - body.len()];
    let rest = body.strip_prefix("- ")?;
    let (marker, after) = match rest.strip_prefix("{{[[") {
        // Roam's `{{[[TODO]]}}`.
        Some(r) => {
            let (m, a) = r.split_once("]]}}")?;
            (m, a.trim_start())
        }
        None => {
            let (m, a) = rest.split_once(' ')?;
            (m, a)
        }
    };
    if CANCELLED.contains(&marker) {
        Some(format!("{indent}- [cancelled] {after}"))
    } else if OPEN_OR_DONE.contains(&marker) {
        Some(format!("{indent}- {after}"))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn properties_become_fields_and_markers_are_read() {
        let t = "title:: Evals\n- ## Cases\n\t- DONE Case 1: sum\n\t  prompt:: \"Add 2 and 3\"\n\t  tool:: get-sum\n\t- CANCELED Case 2: crash\n\t  prompt:: \"Crash it\"\n\t- {{[[TODO]]}} Case 3\n- Notes\n";
        let md = as_markdown(t);
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l.len(), t.lines().count());
        assert_eq!(l[0], "title: Evals");
        assert_eq!(l[1], "## Cases");
        assert_eq!(l[2], "- Case 1: sum");
        assert_eq!(l[3], "  prompt: \"Add 2 and 3\"");
        assert_eq!(l[5], "- [cancelled] Case 2: crash");
        assert_eq!(l[7], "- Case 3");
        assert_eq!(l[8], "- Notes");
        assert_eq!(as_markdown("- a note: x\n"), "- a note: x\n");
    }
}
