//! AsciiDoc: `==` headings, `*bold*` labels, `+` line breaks, `....` literal and `----`
//! listing blocks, `.` numbered items. Read as the Markdown it corresponds to, line for
//! line (its `|===` tables the text reader knows as they are).

use crate::service::authoring::lines::split_lines;

/// Whether the document is AsciiDoc: section titles written `== Title`, or a `= Title`
/// document header with `:attribute:` lines.
pub fn looks_like_asciidoc(head: &str) -> bool {
    let sections = split_lines(head)
        .filter(|l| title_level(l).is_some_and(|n| n >= 2))
        .count();
    let header = split_lines(head)
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| title_level(l) == Some(1));
    let attributes = split_lines(head).any(|l| {
        l.starts_with(':')
            && l[1..]
                .find(':')
                .is_some_and(|e| e > 0 && !l[1..e + 1].contains(' '))
    });
    sections >= 2 || (header && (attributes || sections >= 1))
}

/// The level of a section title line (`== Scope` → 2).
fn title_level(l: &str) -> Option<usize> {
    let n = l.chars().take_while(|c| *c == '=').count();
    // (An rST table border, `=====  =====`, has no words.)
    ((1..=6).contains(&n) && l[n..].starts_with(' ') && l[n..].chars().any(char::is_alphanumeric))
        .then_some(n)
}

/// The document as Markdown, line for line.
pub fn to_markdown(t: &str) -> String {
    let mut out = Vec::new();
    // The language a `[source,…]` line gives the block under it.
    let mut source: Option<String> = None;
    let mut open: Option<&str> = None;
    for l in t.lines() {
        let body = l.trim_end();
        if let Some(delim) = open {
            if body == delim {
                open = None;
                out.push("```".to_string());
            } else {
                out.push(l.to_string());
            }
            continue;
        }
        let line = match body {
            "...." | "____" | "----" | "```" => {
                open = Some(body);
                let info = match body {
                    "----" | "```" => source.take().unwrap_or_default(),
                    _ => "text".to_string(),
                };
                format!("```{info}")
            }
            _ if body.starts_with("[source") => {
                source = Some(
                    body.trim_matches(['[', ']'])
                        .split(',')
                        .nth(1)
                        .unwrap_or("code")
                        .trim()
                        .to_string(),
                );
                String::new()
            }
            // Block attributes (`[cols=…]`, `[NOTE]`) and document attributes (`:toc:`).
            _ if body.starts_with('[') && body.ends_with(']') && !body.starts_with("[[") => {
                String::new()
            }
            _ if body.starts_with(':') && body[1..].contains(':') && !body.contains("::") => {
                String::new()
            }
            _ => match title_level(body) {
                Some(n) => format!("{} {}", "#".repeat(n), body[n..].trim()),
                None => inline(&item(body)),
            },
        };
        out.push(line);
    }
    super::rejoin(t, &out)
}

/// `. item` and `.. item` as numbered items, `** item` as a nested bullet.
fn item(l: &str) -> String {
    for (mark, bullet) in [('.', "1."), ('*', "-")] {
        let n = l.chars().take_while(|c| *c == mark).count();
        if n >= 1 && l[n..].starts_with(' ') && !(mark == '*' && n == 1) {
            return format!("{}{bullet} {}", "   ".repeat(n - 1), l[n..].trim_start());
        }
    }
    l.to_string()
}

/// `*Label:*` as bold, a closing ` +` (a hard line break) dropped.
fn inline(l: &str) -> String {
    let l = l.strip_suffix(" +").unwrap_or(l);
    let t = l.trim_start();
    let indent = &l[..l.len() - t.len()];
    if let Some(rest) = t.strip_prefix('*')
        && !rest.starts_with(['*', ' '])
        && let Some(end) = rest.find('*')
    {
        return format!("{indent}**{}**{}", &rest[..end], &rest[end + 1..]);
    }
    l.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_labels_breaks_and_blocks_become_markdown_line_for_line() {
        let t = "= Plan\n:toc:\n\n== Cases\n\n=== TC-1\n\n....\nUser: hi\n....\n\n*Expected:* `echo` +\n*Never:* `crash`\n. first\n";
        let md = to_markdown(t);
        assert!(looks_like_asciidoc(t));
        assert_eq!(md.lines().count(), t.lines().count());
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[0], "# Plan");
        assert_eq!(lines[1], "");
        assert_eq!(lines[5], "### TC-1");
        assert_eq!(lines[7], "```text");
        assert_eq!(lines[9], "```");
        assert_eq!(lines[11], "**Expected:** `echo`");
        assert_eq!(lines[13], "1. first");
    }

    #[test]
    fn markdown_and_setext_underlines_are_no_asciidoc() {
        assert!(!looks_like_asciidoc("# Plan\n\nTitle\n=====\n\n## Cases\n"));
        assert!(!looks_like_asciidoc("Plan\n\n- item\n"));
        let rst = "Spec\n====\n\n:Version: 1\n\n=====  =====\nA      B\n=====  =====\n";
        assert!(!looks_like_asciidoc(rst));
    }
}
