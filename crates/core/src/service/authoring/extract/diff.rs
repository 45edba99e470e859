//! Plans pasted as a unified diff (a pull request's "Files changed", a patch in a mail):
//! each hunk (`@@ -0,0 +1,21 @@`) is read as the file it makes, line for line. Added
//! and context lines lose their one-character prefix, removed lines are left blank, a
//! blank line after the hunk becomes an empty top heading (what follows is no part of the
//! file), and a
//! later quote of an added line (a review comment's context, `  +prompt: …`) is left
//! blank: it repeats what the hunk already holds.

use std::borrow::Cow;

use crate::service::authoring::lines::has;

/// Whether a line opens a hunk: `@@ -a[,b] +c[,d] @@`.
fn hunk_header(l: &str) -> bool {
    let Some(rest) = l.strip_prefix("@@ -") else {
        return false;
    };
    rest.split_once(" +")
        .and_then(|(_, r)| r.split_once(" @@"))
        .is_some_and(|(range, _)| {
            range
                .split(',')
                .all(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
}

/// The document with its hunks read as the text they add, or the document itself when
/// it holds none.
pub fn as_added(text: &str) -> Cow<'_, str> {
    if !has(text, "\n@@ -") && !text.starts_with("@@ -") {
        return Cow::Borrowed(text);
    }
    let lines: Vec<&str> = text.lines().collect();
    if !lines.iter().any(|l| hunk_header(l)) {
        return Cow::Borrowed(text);
    }
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    let mut added: Vec<&str> = Vec::new();
    let mut in_hunk = false;
    for l in &lines {
        if hunk_header(l) {
            in_hunk = true;
            out.push(String::new());
            continue;
        }
        if in_hunk {
            if let Some(a) = l.strip_prefix('+') {
                added.push(a.trim());
                out.push(a.to_string());
                continue;
            }
            if l.starts_with('-') && !l.starts_with("---") || l.starts_with('\\') {
                out.push(String::new());
                continue;
            }
            if let Some(c) = l.strip_prefix(' ') {
                out.push(c.to_string());
                continue;
            }
            in_hunk = false;
            // What follows the file is no part of it: a heading of its own on the blank
            // line after it ends the file's last section.
            if l.trim().is_empty() {
                out.push("# …".into());
                continue;
            }
        }
        // A quote of an added line, below the hunk.
        let quoted = l
            .trim_start()
            .strip_prefix('+')
            .is_some_and(|q| !q.trim().is_empty() && added.contains(&q.trim()));
        out.push(if quoted { String::new() } else { l.to_string() });
    }
    Cow::Owned(super::rejoin(text, &out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hunk_reads_as_the_file_it_adds_and_its_quotes_are_left_out() {
        let doc = "PR #7\n@@ -0,0 +1,3 @@\n+## Case 1\n+prompt: \"hi\"\n-old line\n\nreviewer:\n  +prompt: \"hi\"\nlooks good\n";
        let md = as_added(doc);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), doc.lines().count());
        assert_eq!(&lines[1..6], ["", "## Case 1", "prompt: \"hi\"", "", "# …"]);
        assert_eq!(lines[7], "");
        assert_eq!(lines[8], "looks good");
    }

    #[test]
    fn text_without_a_hunk_is_left_alone() {
        assert!(matches!(as_added("- a\n+ b\n@@ note\n"), Cow::Borrowed(_)));
    }
}
