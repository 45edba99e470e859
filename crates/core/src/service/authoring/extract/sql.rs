//! SQL seed files whose rows are cases (`INSERT INTO cases (id, prompt, expect_tool, …)
//! VALUES (…), (…)`). Read as code, line for line: the column list names each row's
//! values, as a `parametrize` signature does. `--` comments become `//` comments and a
//! doubled quote inside a string (`'What''s'`) an escaped one.

use crate::service::authoring::lines::split_lines;

/// Whether the document is SQL: statements that create or fill tables.
pub fn looks_like_sql(head: &str) -> bool {
    let mut statements = 0;
    for l in split_lines(head) {
        let u = l.trim_start().to_ascii_uppercase();
        if u.starts_with("INSERT INTO") || u.starts_with("CREATE TABLE") || u.starts_with("COPY ") {
            statements += 1;
        }
    }
    statements >= 1
        && split_lines(head).any(|l| {
            l.trim_start()
                .to_ascii_uppercase()
                .starts_with("INSERT INTO")
        })
}

/// The script in the code reader's terms, line for line.
pub fn to_code(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(c) = rest.chars().next() {
        if let Some(comment) = rest.strip_prefix("--") {
            let end = comment.find('\n').unwrap_or(comment.len());
            out.push_str("//");
            out.push_str(&comment[..end]);
            rest = &comment[end..];
        } else if c == '\'' {
            let (lit, len) = string(rest);
            out.push_str(&lit);
            rest = &rest[len..];
        } else {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    out
}

/// The string literal at the start of `s` rewritten (`''` as `\'`; a Postgres array
/// `'{a,b}'` as the list `['a','b']`), and its length in `s`.
fn string(s: &str) -> (String, usize) {
    let mut body = String::new();
    let mut i = 1;
    let b = s.as_bytes();
    while i < b.len() {
        if b[i] == b'\'' {
            if b.get(i + 1) == Some(&b'\'') {
                body.push('\'');
                i += 2;
                continue;
            }
            i += 1;
            break;
        }
        let c = s[i..].chars().next().unwrap_or_default();
        body.push(c);
        i += c.len_utf8();
    }
    let array = body
        .strip_prefix('{')
        .and_then(|x| x.strip_suffix('}'))
        .filter(|x| !x.contains([':', '"', '{', '\n']));
    let lit = match array {
        Some(items) if !items.trim().is_empty() => format!(
            "[{}]",
            items
                .split(',')
                .map(|x| format!("'{}'", x.trim()))
                .collect::<Vec<_>>()
                .join(",")
        ),
        Some(_) => "[]".to_string(),
        None => format!("'{}'", body.replace('\\', "\\\\").replace('\'', "\\'")),
    };
    (lit, i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_doubled_quotes_are_rewritten_line_for_line() {
        let t = "-- the tool's seed\nINSERT INTO t (id, prompt, never) VALUES\n  ('a', 'What''s 1 + 1? -- no comment', '{crash,noop}');\n";
        assert!(looks_like_sql(t));
        let c = to_code(t);
        assert_eq!(c.lines().count(), 3);
        assert!(c.starts_with("// the tool's seed"));
        assert!(c.contains(r"'What\'s 1 + 1? -- no comment'"));
        assert!(c.contains("['crash','noop']"));
    }
}
