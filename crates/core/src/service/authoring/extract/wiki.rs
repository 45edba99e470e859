//! Wiki markup (Textile, as Redmine writes it, and Confluence's and Jira's): `h2.` headings,
//! `@code@` and `{{code}}`, `-struck-` text, `#` numbered lists and `{quote}` and
//! `{noformat}` blocks. Read as the Markdown it corresponds to, line for line, so a `#`
//! list item is no heading, struck text is struck and a quoted block is a fenced one (what
//! a `{code}` block holds, a case's JSON, is read as the text it is).

/// Whether the document is wiki markup: headings written `h1.`…`h6.`.
pub fn looks_like_wiki(head: &str) -> bool {
    head.lines()
        .filter(|l| {
            let b = l.as_bytes();
            b.len() > 3
                && b[0] == b'h'
                && (b'1'..=b'6').contains(&b[1])
                && b[2] == b'.'
                && b[3] == b' '
        })
        .count()
        >= 2
}

/// The document as Markdown, line for line.
pub fn to_markdown(t: &str) -> String {
    let lines: Vec<String> = t.lines().map(line).collect();
    super::rejoin(t, &lines)
}

fn line(l: &str) -> String {
    let body = l.trim_start();
    let indent = &l[..l.len() - body.len()];
    // A block's marker alone on its line (`{quote}`, `{noformat:borderStyle=solid}`): a
    // fence.
    if let Some(inner) = body
        .trim_end()
        .strip_prefix('{')
        .and_then(|b| b.strip_suffix('}'))
        && matches!(inner.split(':').next(), Some("quote" | "noformat"))
    {
        return format!("{indent}```");
    }
    // `# item`, `## nested item`: a numbered list.
    let hashes = body.chars().take_while(|c| *c == '#').count();
    let body: String = if hashes > 0 && body[hashes..].starts_with(' ') {
        format!(
            "{}1. {}",
            "   ".repeat(hashes - 1),
            body[hashes..].trim_start()
        )
    } else {
        body.to_string()
    };
    // A whole line struck through: `-text-`.
    let body = match body.strip_prefix('-').and_then(|b| b.strip_suffix('-')) {
        Some(inner)
            if !inner.is_empty() && !inner.starts_with(['-', ' ']) && !inner.ends_with(' ') =>
        {
            format!("~~{inner}~~")
        }
        _ => body,
    };
    format!("{indent}{}", inline_code(&body))
}

/// `@code@` and `{{code}}` as Markdown code spans.
fn inline_code(s: &str) -> String {
    let s = s.replace("{{", "`").replace("}}", "`");
    let parts: Vec<&str> = s.split('@').collect();
    let mut out = String::with_capacity(s.len());
    let mut open = false;
    for (i, p) in parts.iter().enumerate() {
        if i > 0 {
            // The `@` before `p`: it closes an open span, or opens one around a word that
            // another `@` closes; an address's `@` stays.
            let opens = !p.is_empty()
                && !p.starts_with(' ')
                && i + 1 < parts.len()
                && (out.is_empty() || out.ends_with([' ', '(', ',', ':', '"']));
            if open || opens {
                out.push('`');
                open = !open;
            } else {
                out.push('@');
            }
        }
        out.push_str(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jira_quote_and_noformat_blocks_become_fences_line_for_line() {
        let md = to_markdown(
            "h3. T1\n{quote}\nAdd 2 and 3\n{quote}\n{noformat:borderStyle=solid}\nx\n{noformat}\n{code:json}\n{}\n{code}\n",
        );
        let l: Vec<&str> = md.lines().collect();
        assert_eq!([l[1], l[3], l[4], l[6]], ["```"; 4]);
        assert_eq!(l[7], "{code:json}");
        assert_eq!(l.len(), 10);
    }

    #[test]
    fn wiki_lines_become_markdown() {
        let t = "h2. Cases\n\nh3. C-1\n\n# User: «hi»\n* Expected: @echo@, message = «hi»\n-Prompt: «crash» -- Expected: @crash@-\nmail me at ana@example.com\n* Never: @crash@, @noop@\n";
        assert!(looks_like_wiki(t));
        let md = to_markdown(t);
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l.len(), t.lines().count());
        assert_eq!(l[4], "1. User: «hi»");
        assert_eq!(l[5], "* Expected: `echo`, message = «hi»");
        assert!(l[6].starts_with("~~Prompt"));
        assert_eq!(l[7], "mail me at ana@example.com");
        assert_eq!(l[8], "* Never: `crash`, `noop`");
    }
}
