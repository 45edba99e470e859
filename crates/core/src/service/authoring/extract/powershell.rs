//! PowerShell test scripts (Pester's `Describe` / `It` blocks, `-TestCases` hashtables):
//! rewritten line for line into the code the literal reader knows — `@{ k = v; … }` a
//! keyed block, `@( … )` a list, strings in double quotes with backslashes kept (Windows
//! paths), `$true`/`$false`/`$null` their values, `#` and `<# … #>` comments those of C.

/// Whether the document is a PowerShell script: Pester's blocks and assertions, or
/// PowerShell's own statements, on several lines.
pub fn looks_like_powershell(t: &str) -> bool {
    let mut pester = 0;
    let mut shell = 0;
    for l in t.lines().map(str::trim) {
        let first = l.split([' ', '(', '{']).next().unwrap_or_default();
        if matches!(
            first,
            "Describe" | "Context" | "It" | "BeforeAll" | "AfterAll" | "BeforeEach"
        ) || l.contains("| Should -")
        {
            pester += 1;
        }
        if l.starts_with("#Requires")
            || l.starts_with("param(")
            || l.starts_with('$') && l.contains(" = ")
            || l.starts_with("Import-Module ")
            || l.contains("@{")
            || l.contains(" -eq ")
        {
            shell += 1;
        }
    }
    pester >= 3 && shell >= 1 || shell >= 5 && pester >= 1
}

/// The script as code of the literal reader's kind, one line for each of its lines.
pub fn to_code(t: &str) -> String {
    let mut out = String::with_capacity(t.len() + t.len() / 8);
    // What each open bracket closes with (`]` for an array opened by `@(`), and whether
    // it opened a literal (`@{` or `@(`), whose entries a line break separates.
    let mut closers: Vec<(char, bool)> = Vec::new();
    // Whether the innermost open brace is a hashtable (`;` separates its entries).
    let mut tables: Vec<bool> = Vec::new();
    let mut block_comment = false;
    let b = t.as_bytes();
    let mut i = 0;
    while i < t.len() {
        let rest = &t[i..];
        let c = rest.chars().next().unwrap_or(' ');
        if block_comment {
            if rest.starts_with("#>") {
                out.push_str("*/");
                block_comment = false;
                i += 2;
            } else {
                out.push(c);
                i += c.len_utf8();
            }
            continue;
        }
        if rest.starts_with("<#") {
            out.push_str("/*");
            block_comment = true;
            i += 2;
            continue;
        }
        match c {
            // (A line break between a literal's entries is the comma the reader needs.)
            '\n' if closers.last().is_some_and(|&(_, literal)| literal) => {
                let before = out.trim_end_matches([' ', '\t', '\r']);
                let next = rest[1..].trim_start();
                if !before.ends_with(['{', '[', '(', ',', ';'])
                    && !next.starts_with(['}', ']', ')', '#'])
                    && !next.is_empty()
                {
                    out.push(',');
                }
                out.push('\n');
                i += 1;
            }
            '#' => {
                let end = rest.find('\n').unwrap_or(rest.len());
                out.push_str("//");
                out.push_str(&rest[1..end]);
                i += end;
            }
            '\'' | '"' => {
                let (text, len) = string(rest, c);
                out.push('"');
                for ch in text.chars() {
                    match ch {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        '\n' => out.push_str("\\n\n"),
                        ch => out.push(ch),
                    }
                }
                out.push('"');
                i += len;
            }
            '@' if matches!(b.get(i + 1), Some(b'{' | b'(')) => {
                if b[i + 1] == b'{' {
                    out.push('{');
                    closers.push(('}', true));
                    tables.push(true);
                } else {
                    out.push('[');
                    closers.push((']', true));
                }
                i += 2;
            }
            '{' | '(' | '[' => {
                out.push(c);
                closers.push((
                    match c {
                        '{' => '}',
                        '(' => ')',
                        _ => ']',
                    },
                    false,
                ));
                if c == '{' {
                    tables.push(false);
                }
                i += 1;
            }
            '}' | ')' | ']' => {
                let close = closers.pop().map_or(c, |(close, _)| close);
                if close == '}' {
                    tables.pop();
                }
                out.push(close);
                i += 1;
            }
            ';' if tables.last() == Some(&true) => {
                out.push(',');
                i += 1;
            }
            '$' => {
                let name_len = rest[1..]
                    .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == ':'))
                    .unwrap_or(rest.len() - 1);
                let name = &rest[1..1 + name_len];
                out.push_str(match name.to_ascii_lowercase().as_str() {
                    "true" => "true",
                    "false" => "false",
                    "null" => "null",
                    _ => name,
                });
                i += 1 + name_len;
            }
            c => {
                out.push(c);
                i += c.len_utf8();
            }
        }
    }
    out
}

/// A PowerShell string at the start of `s`: its text and its length. Single quotes take
/// nothing literally but `''`; double quotes escape with a backtick or `""`.
fn string(s: &str, q: char) -> (String, usize) {
    let mut text = String::new();
    let mut chars = s.char_indices().skip(1).peekable();
    while let Some((k, ch)) = chars.next() {
        if ch == q {
            if chars.peek().is_some_and(|&(_, n)| n == q) {
                chars.next();
                text.push(q);
                continue;
            }
            return (text, k + 1);
        }
        if ch == '`' && q == '"' {
            match chars.next() {
                Some((_, 'n')) => text.push('\n'),
                Some((_, 't')) => text.push('\t'),
                Some((_, e)) => text.push(e),
                None => {}
            }
            continue;
        }
        text.push(ch);
    }
    (text, s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashtables_strings_and_comments_become_code_line_for_line() {
        let t = "<# conventions\n#>\nIt 'reads <Prompt>' -TestCases @(\n    @{ Prompt = 'What''s in C:\\Ops?'; Tool = 'fs.list'; Deep = $true }\n) {\n    # a remark\n}\n";
        let code = to_code(t);
        assert_eq!(code.lines().count(), t.lines().count());
        let l: Vec<&str> = code.lines().collect();
        assert_eq!(l[0], "/* conventions");
        assert_eq!(l[1], "*/");
        assert_eq!(l[2], "It \"reads <Prompt>\" -TestCases [");
        assert_eq!(
            l[3],
            "    { Prompt = \"What's in C:\\\\Ops?\", Tool = \"fs.list\", Deep = true }"
        );
        assert_eq!(l[4], "] {");
        assert_eq!(l[5], "    // a remark");
    }

    #[test]
    fn a_pester_file_is_powershell_and_prose_is_not() {
        assert!(looks_like_powershell(
            "BeforeAll {\n  Import-Module X\n}\nDescribe 'a' {\n  It 'b' {\n    $r = Get-It\n    $r | Should -Be 1\n  }\n}\n"
        ));
        assert!(!looks_like_powershell(
            "# Plan\n\nIt is raining. Describe the weather.\n"
        ));
    }
}
