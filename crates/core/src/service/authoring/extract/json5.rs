//! JSON5 and JSON with comments (eval-runner configs, `tsconfig`-style files), rewritten
//! line for line as JSON so the JSON reader reads them with their own line numbers.

/// `t` as JSON, line for line: comments blanked, unquoted keys and single-quoted strings
/// double-quoted, trailing commas dropped. `None` when the result is no JSON document.
pub fn to_json(t: &str) -> Option<String> {
    let first = t.lines().map(str::trim).find(|l| {
        !l.is_empty() && !l.starts_with("//") && !l.starts_with("/*") && !l.starts_with('*')
    })?;
    if !first.starts_with(['{', '[']) {
        return None;
    }
    let c: Vec<char> = t.chars().collect();
    let mut out = String::with_capacity(t.len() + t.len() / 8);
    let mut i = 0;
    while i < c.len() {
        if let Some(end) = comment_end(&c, i) {
            // (A block comment's line breaks are kept: the lines stay the document's.)
            out.extend(c[i..end].iter().filter(|&&x| x == '\n'));
            i = end;
            continue;
        }
        match c[i] {
            q @ ('"' | '\'') => {
                out.push('"');
                i += 1;
                while i < c.len() && c[i] != q {
                    match c[i] {
                        '\\' if i + 1 < c.len() => {
                            // `\'` needs no escape in JSON; a line continuation joins.
                            match c[i + 1] {
                                '\'' => out.push('\''),
                                '\n' => {}
                                x => {
                                    out.push('\\');
                                    out.push(x);
                                }
                            }
                            i += 2;
                            continue;
                        }
                        '"' => out.push_str("\\\""),
                        x => out.push(x),
                    }
                    i += 1;
                }
                out.push('"');
                i += 1;
            }
            ',' if next_significant(&c, i + 1).is_none_or(|n| matches!(n, '}' | ']')) => {
                i += 1;
            }
            x if (x.is_alphabetic() || x == '_' || x == '$') && key_position(&out) => {
                let start = i;
                while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_' || c[i] == '$') {
                    i += 1;
                }
                let word: String = c[start..i].iter().collect();
                if next_significant(&c, i) == Some(':') {
                    out.push('"');
                    out.push_str(&word);
                    out.push('"');
                } else {
                    out.push_str(&word);
                }
            }
            x => {
                out.push(x);
                i += 1;
            }
        }
    }
    serde_json::from_str::<serde_json::Value>(&out)
        .is_ok()
        .then_some(out)
}

/// The next character after `i` that is neither blank nor in a comment.
fn next_significant(c: &[char], mut i: usize) -> Option<char> {
    while i < c.len() {
        if let Some(end) = comment_end(c, i) {
            i = end;
        } else if c[i].is_whitespace() {
            i += 1;
        } else {
            return Some(c[i]);
        }
    }
    None
}

/// Where a comment opening at `i` ends (a line comment before its line break), when one
/// opens there.
fn comment_end(c: &[char], i: usize) -> Option<usize> {
    if c.get(i) != Some(&'/') {
        return None;
    }
    match c.get(i + 1) {
        Some('/') => Some((i..c.len()).find(|&k| c[k] == '\n').unwrap_or(c.len())),
        Some('*') => Some(
            (i + 2..c.len())
                .find(|&k| c[k] == '*' && c.get(k + 1) == Some(&'/'))
                .map_or(c.len(), |k| k + 2),
        ),
        _ => None,
    }
}

/// Whether what was written so far leaves a key next: after `{` or `,`.
fn key_position(out: &str) -> bool {
    out.trim_end().ends_with(['{', ','])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_unquoted_keys_single_quotes_and_trailing_commas_become_json() {
        let t = "// cases\n{\n  cases: [\n    { id: 'a', prompt: 'it\\'s \"x\"', n: -1, }, // one\n    /* two\n */\n  ],\n}\n";
        let j = to_json(t).unwrap();
        assert_eq!(j.lines().count(), t.lines().count());
        let v: serde_json::Value = serde_json::from_str(&j).unwrap();
        assert_eq!(v["cases"][0]["prompt"], "it's \"x\"");
        assert_eq!(v["cases"][0]["n"], -1);
        assert_eq!(
            j.lines().nth(3).unwrap().trim_start().chars().next(),
            Some('{')
        );
    }

    #[test]
    fn prose_and_csv_are_no_json5() {
        assert!(to_json("Plan\n{ not json }\n").is_none());
        assert!(to_json("{ a: 1 b: 2 }").is_none());
        assert!(to_json("a,b\n1,2\n").is_none());
    }
}
