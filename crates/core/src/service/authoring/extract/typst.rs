//! Typst documents: `= Heading`s, `#table(…)` of `[cell]`s, `+`/`-` lists, `#strike[…]`.
//! Read as the Markdown they correspond to, line for line: a table's header row (its
//! `table.header(…)`, else its first row) takes the line above it so that the rule under
//! it keeps the header's own line.

/// Whether the document is Typst: set rules or imports, and Typst's headings or calls.
pub fn looks_like_typst(head: &str) -> bool {
    let mut set = 0;
    let mut marks = 0;
    for l in head.lines().map(str::trim_start) {
        if l.starts_with("#set ") || l.starts_with("#import ") || l.starts_with("#show ") {
            set += 1;
        }
        if l.starts_with("#table(") || l.starts_with("#let ") || l.starts_with("= ") {
            marks += 1;
        }
    }
    set >= 1 && marks >= 1
}

/// The document as Markdown, one line for each of its lines.
pub fn to_markdown(t: &str) -> String {
    let lines: Vec<&str> = t.lines().collect();
    let mut out: Vec<String> = vec![String::new(); lines.len()];
    // Inside a `#table(…)`: whether its header row was written yet.
    let mut table: Option<bool> = None;
    let mut comment = false;
    for (k, raw) in lines.iter().enumerate() {
        let l = raw.trim();
        if comment {
            comment = !l.contains("*/");
            continue;
        }
        if l.starts_with("/*") {
            comment = !l.contains("*/");
            continue;
        }
        if l.starts_with("//") {
            continue;
        }
        if let Some(header) = table {
            if l == ")" || l.starts_with(")") {
                table = None;
                continue;
            }
            let cells = cells(l);
            if cells.len() < 2 {
                continue;
            }
            let row = format!("| {} |", cells.join(" | "));
            if !header {
                // The header takes the line above it, the rule its own line.
                if k > 0 {
                    out[k - 1] = row;
                }
                out[k] = format!("|{}", "---|".repeat(cells.len()));
                table = Some(true);
            } else {
                out[k] = row;
            }
            continue;
        }
        if l.starts_with("#table(") {
            table = Some(false);
            continue;
        }
        if l.starts_with('#') && !l.starts_with("#strike") {
            // Set rules, calls and their arguments: no words of the plan.
            if let Some(body) = l.find('[').map(|i| &l[i..]) {
                out[k] = inline(body.trim_start_matches('[').trim_end_matches(']'));
            }
            continue;
        }
        let level = l.chars().take_while(|&c| c == '=').count();
        out[k] = if level > 0 && l[level..].starts_with(' ') {
            format!("{} {}", "#".repeat(level.min(6)), inline(l[level..].trim()))
        } else if let Some(item) = l.strip_prefix("+ ") {
            format!("{}1. {}", indent(raw), inline(item))
        } else {
            format!("{}{}", indent(raw), inline(l))
        };
    }
    out.join("\n")
}

fn indent(raw: &str) -> &str {
    &raw[..raw.len() - raw.trim_start().len()]
}

/// A table line's cells: its `[…]` groups at the top level, as inline Markdown.
fn cells(l: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in l.char_indices() {
        match c {
            '[' => {
                if depth == 0 {
                    start = i + 1;
                }
                depth += 1;
            }
            ']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    // (`#strike[…]` as a cell's whole content: the cell is struck.)
                    out.push(inline(&l[start..i]));
                }
            }
            _ => {}
        }
    }
    out
}

/// Typst's inline markup as Markdown's: `*strong*`, `#strike[…]`, `#footnote[…]`.
fn inline(s: &str) -> String {
    let mut t = s.trim().to_string();
    while let Some(i) = t.find("#strike[") {
        let body = i + "#strike[".len();
        let Some(end) = matching(&t, body) else { break };
        t = format!("{}~~{}~~{}", &t[..i], &t[body..end], &t[end + 1..]);
    }
    while let Some(i) = t.find("#footnote[") {
        let body = i + "#footnote[".len();
        let Some(end) = matching(&t, body) else { break };
        t = format!("{} ({}){}", &t[..i], &t[body..end], &t[end + 1..]);
    }
    // (A whole cell in bold, `[*№*]`, is a header label.)
    if t.len() > 2 && t.starts_with('*') && t.ends_with('*') && !t[1..t.len() - 1].contains('*') {
        t = t[1..t.len() - 1].to_string();
    }
    t.replace(" \\", "")
}

/// The index of the `]` closing a bracket opened just before `from`.
fn matching(t: &str, from: usize) -> Option<usize> {
    let mut depth = 1;
    for (i, c) in t[from..].char_indices() {
        match c {
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(from + i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_tables_and_lists_become_markdown_line_for_line() {
        let t = "#set text(lang: \"cy\")\n= Achosion\n#table(\n  columns: 3,\n  table.header([*Rhif*], [*Ysgogiad*], [*Offeryn*]),\n  [1], [«Adia 2 a 3»], [`get-sum`],\n  [#strike[2]], [#strike[«Chwalu»]], [#strike[`crash`]],\n)\n+ Defnyddiwr: «Dangos eitemau» → `list-items`\n";
        let md = to_markdown(t);
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l.len(), t.lines().count());
        assert_eq!(l[1], "# Achosion");
        assert_eq!(l[3], "| Rhif | Ysgogiad | Offeryn |");
        assert_eq!(l[4], "|---|---|---|");
        assert_eq!(l[5], "| 1 | «Adia 2 a 3» | `get-sum` |");
        assert_eq!(l[6], "| ~~2~~ | ~~«Chwalu»~~ | ~~`crash`~~ |");
        assert_eq!(l[8], "1. Defnyddiwr: «Dangos eitemau» → `list-items`");
        assert!(looks_like_typst(t));
        assert!(!looks_like_typst("# Plan\n\n= not typst\n"));
    }
}
