//! Manual pages in roff (`man` macros) as Markdown, line for line, for the text reader:
//! `.SH`/`.SS` are headings, the tag under `.TP` (or `.IP "tag"`) heads its entry, `.B`
//! and `.I` are emphasis, a no-fill block (`.nf` … `.fi`, `.EX` … `.EE`) is fenced as
//! the example it shows, and the other requests and comments leave blank lines.

/// Whether the document is roff: its first request lines are comments or a title
/// (`.\"`, `.TH`), and requests make up a good share of its lines.
pub fn looks_like_roff(head: &str) -> bool {
    let lines: Vec<&str> = head.lines().filter(|l| !l.trim().is_empty()).collect();
    let requests = lines.iter().filter(|l| is_request(l)).count();
    lines
        .iter()
        .take(12)
        .any(|l| l.starts_with(".TH ") || l.starts_with(".Dt ") || l.starts_with(".\\\""))
        && requests * 5 >= lines.len()
        && lines
            .iter()
            .any(|l| l.starts_with(".SH") || l.starts_with(".Sh"))
}

/// A request line: a dot, then a macro's name or a comment.
fn is_request(l: &str) -> bool {
    l.strip_prefix('.')
        .and_then(|r| r.chars().next())
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '\\')
}

/// The document as Markdown, line for line.
pub fn to_markdown(t: &str) -> String {
    let mut out = Vec::new();
    // Inside a no-fill block; the next line is a `.TP` entry's tag.
    let mut fill = true;
    let mut tag_next = false;
    for l in t.lines() {
        let (name, args) = match l.strip_prefix('.') {
            Some(r) => {
                let r = r.trim_start();
                let name: String = r.chars().take_while(|c| !c.is_whitespace()).collect();
                (
                    Some(name),
                    r[r.find(char::is_whitespace).unwrap_or(r.len())..].trim(),
                )
            }
            None => (None, l),
        };
        let line = match name.as_deref() {
            Some(n) if n.starts_with("\\\"") => String::new(),
            Some("nf" | "EX") => {
                fill = false;
                "```".to_string()
            }
            Some("fi" | "EE") => {
                fill = true;
                "```".to_string()
            }
            _ if !fill => inline(l),
            Some("SH" | "Sh") => format!("## {}", inline(&unquote(args))),
            Some("SS" | "Ss") => format!("### {}", inline(&unquote(args))),
            Some("TP") => {
                tag_next = true;
                out.push(String::new());
                continue;
            }
            Some("IP") if !args.is_empty() => {
                let tag = unquote(args.split(" ").next().unwrap_or(args));
                format!("#### {}", inline(&tag))
            }
            Some("B" | "SB") => format!("**{}**", inline(&unquote(args))),
            Some("I") => format!("*{}*", inline(&unquote(args))),
            Some("BR" | "BI" | "IR" | "RB" | "IB" | "RI") => alternating(args),
            Some(_) => String::new(),
            None => inline(l),
        };
        if std::mem::take(&mut tag_next) {
            let t = line.trim_matches('*').trim();
            out.push(format!("#### {t}"));
        } else {
            out.push(line);
        }
    }
    super::rejoin(t, &out)
}

/// An argument without its quotes (`"Vir kliënt"`).
fn unquote(s: &str) -> String {
    s.trim().trim_matches('"').to_string()
}

/// `.BR fs.read_file ,`: the words (set in alternating fonts) joined without spaces.
fn alternating(args: &str) -> String {
    let mut out = String::new();
    let mut rest = args.trim();
    while !rest.is_empty() {
        let (word, after) = if let Some(r) = rest.strip_prefix('"') {
            let end = r.find('"').unwrap_or(r.len());
            (&r[..end], r.get(end + 1..).unwrap_or_default())
        } else {
            let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
            (&rest[..end], &rest[end..])
        };
        out.push_str(&inline(word));
        rest = after.trim_start();
    }
    out
}

/// Text with roff's escapes written out: `\-` is a hyphen, `\(em` a dash, font changes
/// (`\fB`, `\fR`) dropped.
fn inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('-') => out.push('-'),
            Some('e') | Some('\\') => out.push('\\'),
            Some('&') | Some('c') => {}
            Some(' ') | Some('~') => out.push(' '),
            Some('f') => {
                // `\fB`, `\fI`, `\fR`, `\fP`, or `\f(CW`: a font change, dropped.
                let font = chars.next();
                if font == Some('(') {
                    chars.nth(1);
                }
            }
            Some('(') => {
                let code: String = [chars.next(), chars.next()].into_iter().flatten().collect();
                out.push_str(match code.as_str() {
                    "em" => "—",
                    "en" => "–",
                    "lq" | "Lq" => "“",
                    "rq" | "Rq" => "”",
                    "aq" => "'",
                    "dq" => "\"",
                    "bu" => "•",
                    "->" => "→",
                    "<-" => "←",
                    "co" => "©",
                    _ => "",
                });
            }
            Some('"') => break,
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manual_page_becomes_markdown_line_for_line() {
        let doc = ".\\\" cases for the demo server\n.TH EVALS 7\n.SH CASES\n.TP\n.B C\\-1 \\(em sum\nUser: \"What is 2 + 3?\"\n.br\nExpected:\n.BR get-sum ,\na=2, b=3\n.SH FORMAT\n.nf\nprompt: \"example\"\n.fi\n";
        assert!(looks_like_roff(doc));
        let md = to_markdown(doc);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), doc.lines().count());
        assert_eq!(lines[2], "## CASES");
        assert_eq!(lines[4], "#### C-1 — sum");
        assert_eq!(lines[5], "User: \"What is 2 + 3?\"");
        assert_eq!(lines[8], "get-sum,");
        assert_eq!(lines[11], "```");
        assert_eq!(lines[13], "```");
    }
}
