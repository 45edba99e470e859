//! Wiki page sources whose headings are set between equals signs: MediaWiki (`== Cas ==`,
//! `{| … |}` tables with one cell a line, `''italic''`, `<code>`) and DokuWiki (`====== Title
//! ======` as the top level, `^ head ^` rows, `''code''`, `//italic//`, two-space list
//! items). Read as the Markdown they correspond to, line for line, so spans stay those of
//! the source.

/// The two dialects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    MediaWiki,
    DokuWiki,
}

/// The dialect of a page source, when it is one: two headings set between equals signs,
/// or a table of either kind; DokuWiki by its `^` header rows, five or six equals signs,
/// or its own markup (`{{tag>`, `~~NOTOC~~`, `<WRAP`).
pub fn dialect(head: &str) -> Option<Dialect> {
    let mut headings = 0;
    let mut deep = false;
    let (mut media_table, mut doku_table, mut doku_marks) = (false, false, false);
    for l in head.lines() {
        let t = l.trim();
        if let Some(n) = heading_marks(t) {
            headings += 1;
            deep |= n >= 5;
        }
        media_table |= t.starts_with("{|");
        doku_table |= t.starts_with('^') && t.ends_with('^') && t.matches('^').count() >= 3;
        doku_marks |= t.starts_with("{{tag>") || t.starts_with("~~NOTOC") || t.starts_with("<WRAP");
    }
    if doku_table || (headings >= 2 && (deep || doku_marks)) {
        Some(Dialect::DokuWiki)
    } else if media_table || headings >= 2 {
        Some(Dialect::MediaWiki)
    } else {
        None
    }
}

/// How many equals signs set a heading off on both sides (`== Cas ==` → 2).
fn heading_marks(t: &str) -> Option<usize> {
    let n = t.chars().take_while(|c| *c == '=').count();
    let m = t.chars().rev().take_while(|c| *c == '=').count();
    (n >= 2 && n == m && t.len() > 2 * n && !t[n..t.len() - m].trim().is_empty()).then_some(n)
}

/// The page as Markdown, line for line.
pub fn to_markdown(t: &str, dialect: Dialect) -> String {
    let src: Vec<&str> = t.lines().collect();
    let mut out: Vec<String> = Vec::with_capacity(src.len());
    let mut k = 0;
    while k < src.len() {
        let l = src[k].trim_end();
        let t = l.trim();
        if dialect == Dialect::MediaWiki && t.starts_with("{|") {
            k = media_table(&src, k, &mut out);
            continue;
        }
        out.push(match heading_marks(t) {
            Some(n) => {
                let level = match dialect {
                    Dialect::MediaWiki => n,
                    Dialect::DokuWiki => 7 - n.min(6),
                };
                format!(
                    "{} {}",
                    "#".repeat(level.clamp(1, 6)),
                    inline(t[n..t.len() - n].trim(), dialect)
                )
            }
            None => block_line(l, dialect),
        });
        k += 1;
    }
    super::rejoin(t, &out)
}

/// A line outside a MediaWiki table.
fn block_line(l: &str, dialect: Dialect) -> String {
    let t = l.trim_start();
    match dialect {
        Dialect::DokuWiki => {
            // `^ a ^ b ^` is a header row; `  * item` and `  - item` are list items.
            if t.starts_with('^') {
                return inline(&t.replace('^', "|"), dialect);
            }
            let indent = l.len() - t.len();
            if indent >= 2
                && let Some(rest) = t.strip_prefix("* ").or_else(|| t.strip_prefix("- "))
            {
                let marker = if t.starts_with('*') { "-" } else { "1." };
                return format!(
                    "{}{marker} {}",
                    " ".repeat(indent - 2),
                    inline(rest, dialect)
                );
            }
            if t.starts_with("~~")
                && t.ends_with("~~")
                && t[2..t.len() - 2].chars().all(|c| c.is_ascii_uppercase())
            {
                return String::new();
            }
            inline(l, dialect)
        }
        Dialect::MediaWiki => {
            // `* item`, `# item`, `; term`, `: definition` (a talk page's `::` reply too).
            let marks = t
                .chars()
                .take_while(|c| matches!(c, '*' | '#' | ':' | ';'))
                .count();
            if marks == 0 || t.starts_with("{{") {
                return inline(l, dialect);
            }
            let rest = inline(t[marks..].trim_start(), dialect);
            let depth = "  ".repeat(marks - 1);
            match t.as_bytes()[marks - 1] {
                b'*' => format!("{depth}- {rest}"),
                b'#' => format!("{depth}1. {rest}"),
                b';' => format!("{depth}{rest}:"),
                _ => format!("{depth}  {rest}"),
            }
        }
    }
}

/// A MediaWiki table from line `k` (`{|`): its header row (`! a !! b`) as a Markdown
/// row, and each row (`|-`, then one `| cell` a line, or `| a || b` on one) written on its
/// first cell line, its other cell lines as empty rows that continue it, the `|-` as a
/// rule. Returns the line after `|}`.
fn media_table(src: &[&str], mut k: usize, out: &mut Vec<String>) -> usize {
    out.push(String::new());
    k += 1;
    let mut columns = 0;
    while k < src.len() {
        let t = src[k].trim();
        if t.starts_with("|}") {
            out.push(String::new());
            return k + 1;
        }
        if let Some(h) = t.strip_prefix('!') {
            let cells: Vec<String> = h
                .split("!!")
                .flat_map(|c| c.split("||"))
                .map(|c| inline(cell_text(c), Dialect::MediaWiki))
                .collect();
            columns = cells.len();
            out.push(format!("| {} |", cells.join(" | ")));
            k += 1;
            continue;
        }
        if t.starts_with("|+") {
            // The table's caption: no row.
            out.push(String::new());
            k += 1;
            continue;
        }
        if t.starts_with("|-") {
            // The row's cells, up to the next row or the end of the table.
            let mut cells: Vec<String> = Vec::new();
            let mut j = k + 1;
            while j < src.len() {
                let c = src[j].trim();
                if c.starts_with("|-") || c.starts_with("|}") {
                    break;
                }
                if let Some(rest) = c.strip_prefix('|').or_else(|| c.strip_prefix('!')) {
                    cells.extend(
                        rest.split("||")
                            .map(|x| inline(cell_text(x), Dialect::MediaWiki)),
                    );
                } else if let Some(last) = cells.last_mut() {
                    // A cell's text wrapped onto a line of its own.
                    last.push(' ');
                    last.push_str(&inline(c, Dialect::MediaWiki));
                }
                j += 1;
            }
            columns = columns.max(cells.len());
            // (The `|-` line is the rule between rows: no part of either.)
            out.push(format!("|{}", "---|".repeat(columns.max(1))));
            let empty = format!("|{}", " |".repeat(columns.max(1)));
            for at in k + 1..j {
                if at == k + 1 && !cells.is_empty() {
                    out.push(format!("| {} |", cells.join(" | ")));
                } else {
                    out.push(empty.clone());
                }
            }
            k = j;
            continue;
        }
        out.push(String::new());
        k += 1;
    }
    k
}

/// A cell's text without its attributes (`style="color:#888" | <s>FR-05</s>`).
fn cell_text(c: &str) -> &str {
    match c.split_once('|') {
        Some((attrs, text)) if attrs.contains('=') && !attrs.contains(['[', '{']) => text.trim(),
        _ => c.trim(),
    }
}

/// Inline markup as Markdown: `<code>`/`''code''` spans, `<s>` and `<del>` strikes, bold
/// and italics dropped, `[[target|label]]` links as their label.
fn inline(s: &str, dialect: Dialect) -> String {
    let mut t = s
        .replace("<code>", "`")
        .replace("</code>", "`")
        .replace("<s>", "~~")
        .replace("</s>", "~~")
        .replace("<del>", "~~")
        .replace("</del>", "~~");
    match dialect {
        Dialect::MediaWiki => {
            t = t.replace("'''", "**").replace("''", "*");
        }
        Dialect::DokuWiki => {
            t = t.replace("''", "`");
            // `//italic//`, but not a URL's `//`.
            let mut out = String::with_capacity(t.len());
            let mut rest = t.as_str();
            while let Some(i) = rest.find("//") {
                let url = rest[..i].ends_with(':');
                out.push_str(&rest[..i]);
                out.push_str(if url { "//" } else { "*" });
                rest = &rest[i + 2..];
            }
            out.push_str(rest);
            t = out;
            // A footnote, `((…))`: kept as a parenthesis.
            t = t.replace("((", " (").replace("))", ")");
        }
    }
    links(&t)
}

/// `[[target|label]]` → `label`, `[[target]]` → `target`.
fn links(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("[[") {
        let Some(j) = rest[i..].find("]]") else {
            break;
        };
        out.push_str(&rest[..i]);
        let inner = &rest[i + 2..i + j];
        out.push_str(inner.rsplit_once('|').map_or(inner, |(_, label)| label));
        rest = &rest[i + j + 2..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mediawiki_table_keeps_each_row_on_its_lines() {
        let t = "== Cas ==\n{| class=\"wikitable\"\n! ID !! Message !! Outil\n|-\n| C1\n| « Salut »\n| ''Aucun outil''\n|-\n| style=\"color:#888\" | <s>C2</s>\n| « x »\n| <code>crash</code>\n|}\n";
        assert_eq!(dialect(t), Some(Dialect::MediaWiki));
        let md = to_markdown(t, Dialect::MediaWiki);
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l.len(), t.lines().count());
        assert_eq!(l[0], "## Cas");
        assert_eq!(l[2], "| ID | Message | Outil |");
        assert_eq!(l[3], "|---|---|---|");
        assert_eq!(l[4], "| C1 | « Salut » | *Aucun outil* |");
        assert_eq!(l[5], "| | | |");
        assert_eq!(l[8], "| ~~C2~~ | « x » | `crash` |");
    }

    #[test]
    fn a_dokuwiki_page_reads_as_markdown() {
        let t = "====== Fälle ======\n\n^ Nr. ^ Eingabe ^ Erwartet ^\n| T1 | „Hallo“ | ''echo'' |\n\n  * //Verboten//: siehe [[wiki:x|Liste]]\n";
        assert_eq!(dialect(t), Some(Dialect::DokuWiki));
        let md = to_markdown(t, Dialect::DokuWiki);
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l[0], "# Fälle");
        assert_eq!(l[2], "| Nr. | Eingabe | Erwartet |");
        assert_eq!(l[3], "| T1 | „Hallo“ | `echo` |");
        assert_eq!(l[5], "- *Verboten*: siehe Liste");
    }
}
