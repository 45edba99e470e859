//! LaTeX documents as Markdown, line for line, for the text reader: `\section` headings,
//! `\item`s as list items, and `tabular`/`longtable` rows as table rows. A row written over
//! several lines (`& …` continuing it) becomes a row per line with each cell in its
//! column, the later ones with an empty first cell, which the table reader joins back
//! into one record spanning them all. The document's own commands (`\newcommand`) are
//! expanded, other inline commands are reduced to their text; struck text (`\sout`)
//! stays struck (`~~…~~`).

use std::collections::HashMap;

/// The document's own commands: name → (argument count, body with `#1`…).
type Macros = HashMap<String, (usize, String)>;

/// Whether the document is LaTeX: a document class or a table environment.
pub fn looks_like_latex(t: &str) -> bool {
    t.contains("\\documentclass")
        || t.contains("\\begin{tabular")
        || t.contains("\\begin{longtable")
}

/// The document as Markdown, line for line.
pub fn to_markdown(t: &str) -> String {
    let macros = macros(t);
    let mut out = Vec::new();
    // In a table: its column count, whether the header row was written, and the column
    // the current row has reached.
    let mut table: Option<Table> = None;
    // Inside `\iffalse … \fi` or a `comment` environment: text kept out of the document.
    let mut hidden = false;
    for l in t.lines() {
        let s = strip_comment(l).trim();
        if s.starts_with("\\iffalse") || s.starts_with("\\begin{comment}") {
            hidden = true;
        }
        if hidden {
            hidden = !(s.starts_with("\\fi") || s.starts_with("\\end{comment}"));
            out.push(String::new());
            continue;
        }
        if s.starts_with("\\begin{tabular") || s.starts_with("\\begin{longtable") {
            table = Some(Table {
                cols: columns(s),
                header: None,
                col: None,
            });
            out.push(String::new());
            continue;
        }
        if s.starts_with("\\end{tabular") || s.starts_with("\\end{longtable") {
            table = None;
            out.push(String::new());
            continue;
        }
        match table.as_mut() {
            Some(tb) => out.push(tb.line(s, &macros)),
            None => out.push(prose(s, &macros)),
        }
    }
    super::rejoin(t, &out)
}

struct Table {
    cols: usize,
    /// The header row once written: a `longtable` repeats it for later pages.
    header: Option<String>,
    /// The column the unfinished row has reached, `None` between rows.
    col: Option<usize>,
}

impl Table {
    fn line(&mut self, s: &str, m: &Macros) -> String {
        let rule = s.is_empty()
            || s.starts_with("\\toprule")
            || s.starts_with("\\midrule")
            || s.starts_with("\\bottomrule")
            || s.starts_with("\\hline")
            || s.starts_with("\\cline")
            || s.starts_with("\\cmidrule")
            || s.starts_with("\\endhead")
            || s.starts_with("\\endfirsthead")
            || s.starts_with("\\endfoot")
            || s.starts_with("\\endlastfoot")
            || s.starts_with("\\caption");
        if rule {
            // A rule after the header row is a Markdown separator, which keeps the rows
            // one table (a blank line would end it).
            if self.header.is_some() && self.col.is_none() {
                return format!("|{}", "---|".repeat(self.cols));
            }
            return String::new();
        }
        let ends = s.trim_end().ends_with("\\\\");
        let body = s.trim_end().trim_end_matches("\\\\").trim_end();
        let parts = split_cells(body);
        let mut cells = vec![String::new(); self.cols.max(parts.len())];
        // A line that starts a row fills from its first column; one that continues it,
        // from the column the row had reached.
        let mut c = self.col.unwrap_or(0);
        for (k, p) in parts.iter().enumerate() {
            if k > 0 {
                c += 1;
            }
            if let Some(cell) = cells.get_mut(c) {
                *cell = inline(p, m);
            }
        }
        let starts = self.col.is_none();
        self.col = (!ends).then_some(c);
        let row = row_of(&cells);
        match &self.header {
            // Kept as a rule, which keeps the rows one table.
            Some(h) if starts && ends && *h == row => format!("|{}", "---|".repeat(self.cols)),
            Some(_) => row,
            None => {
                if ends {
                    self.header = Some(row.clone());
                }
                row
            }
        }
    }
}

fn row_of(cells: &[String]) -> String {
    format!(
        "| {} |",
        cells
            .iter()
            .map(|c| c.replace('|', "\\|"))
            .collect::<Vec<_>>()
            .join(" | ")
    )
}

/// The columns a `tabular`/`longtable` declares (`{l p{2cm} |c}` → 3).
fn columns(s: &str) -> usize {
    let Some(spec) = s.split_once('}').map(|(_, rest)| rest) else {
        return 1;
    };
    let mut depth = 0;
    let mut n = 0;
    for ch in spec.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth -= 1,
            'l' | 'c' | 'r' | 'p' | 'm' | 'b' | 'X' if depth == 1 => n += 1,
            _ => {}
        }
    }
    n.max(1)
}

/// Cells split at unescaped `&`.
fn split_cells(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let b = s.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'&' && (i == 0 || b[i - 1] != b'\\') {
            out.push(&s[start..i]);
            start = i + 1;
        }
    }
    out.push(&s[start..]);
    out
}

/// The line without its `%` comment.
fn strip_comment(l: &str) -> &str {
    let b = l.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        if c == b'%' && (i == 0 || b[i - 1] != b'\\') {
            return &l[..i];
        }
    }
    l
}

/// A line outside tables: headings, items, and text with its commands reduced.
fn prose(s: &str, m: &Macros) -> String {
    for (cmd, hashes) in [
        ("\\section", "##"),
        ("\\subsection", "###"),
        ("\\subsubsection", "####"),
        ("\\paragraph", "#####"),
    ] {
        if let Some(rest) = s.strip_prefix(cmd) {
            let rest = rest.trim_start_matches('*');
            if rest.starts_with('{') {
                return format!("{hashes} {}", inline(rest, m));
            }
        }
    }
    if let Some(rest) = s.strip_prefix("\\item") {
        return format!("- {}", inline(rest.trim(), m));
    }
    if s.starts_with("\\begin{")
        || s.starts_with("\\end{")
        || s.starts_with("\\usepackage")
        || s.starts_with("\\documentclass")
        || s.starts_with("\\maketitle")
        || s.starts_with("\\title")
        || s.starts_with("\\author")
        || s.starts_with("\\date")
        || s.starts_with("\\newcommand")
        || s.starts_with("\\renewcommand")
        || s.starts_with("\\providecommand")
        || s.starts_with("\\def\\")
    {
        return String::new();
    }
    inline(s, m)
}

/// The commands the document defines on a line of their own: `\newcommand{\none}{no
/// tool}`, `\newcommand{\tool}[1]{\texttt{#1}}`, `\def\none{…}`.
fn macros(t: &str) -> Macros {
    let mut out = Macros::new();
    for l in t.lines() {
        let s = strip_comment(l).trim();
        // What follows the defined command's backslash: `tool}[1]{…}`, `none{…}`.
        let defined = match ["\\newcommand", "\\renewcommand", "\\providecommand"]
            .iter()
            .find_map(|c| s.strip_prefix(c))
        {
            Some(r) => {
                let r = r.trim_start_matches('*').trim_start();
                r.strip_prefix('{').unwrap_or(r).strip_prefix('\\')
            }
            None => s.strip_prefix("\\def\\"),
        };
        let Some(r) = defined else { continue };
        let n = r
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(r.len());
        let (name, rest) = (&r[..n], r[n..].strip_prefix('}').unwrap_or(&r[n..]));
        let (nargs, rest) = match rest.trim_start().strip_prefix('[') {
            Some(r) => match r.split_once(']') {
                Some((n, r)) => (n.trim().parse().unwrap_or(0), r),
                None => continue,
            },
            None => (0, rest),
        };
        if let (false, Some((body, _))) = (name.is_empty(), group(rest.trim_start())) {
            out.insert(name.to_string(), (nargs, body.to_string()));
        }
    }
    out
}

/// A `{…}` group at the start of `s`: its inside, and what follows it.
fn group(s: &str) -> Option<(&str, &str)> {
    let t = s.strip_prefix('{')?;
    let mut depth = 1;
    t.char_indices().find_map(|(k, c)| {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            _ => {}
        }
        (depth == 0).then(|| (&t[..k], &t[k + 1..]))
    })
}

/// Inline LaTeX reduced to its text: formatting commands keep their argument (`\texttt`
/// as a code span, `\sout` struck), other commands are dropped, escapes and dashes become
/// their characters.
fn inline(s: &str, m: &Macros) -> String {
    let mut out = String::new();
    let mut rest = s.trim();
    // Bare braces only group: their text stays, they go; `~` is a space that does not break.
    // A bare `$` opens or closes math, whose symbols are read as commands.
    let text_of = |s: &str| s.replace(['{', '}', '$'], "").replace('~', " ");
    while let Some(i) = rest.find('\\') {
        out.push_str(&text_of(&rest[..i]));
        let after = &rest[i + 1..];
        let name_len = after
            .char_indices()
            .find(|(_, c)| !c.is_ascii_alphabetic())
            .map_or(after.len(), |(k, _)| k);
        if name_len == 0 {
            // An escaped character (`\&`, `\%`, `\_`, `\,`, `\\`).
            let mut chars = after.chars();
            match chars.next() {
                Some(c @ ('&' | '%' | '_' | '#' | '$' | '{' | '}')) => out.push(c),
                Some(',' | ' ' | ';') => out.push(' '),
                Some('\\') => out.push(' '),
                Some(c) => out.push(c),
                None => {}
            }
            rest = chars.as_str();
            continue;
        }
        let name = &after[..name_len];
        let mut tail = &after[name_len..];
        // The command's arguments: `\textcolor{red}{x}` keeps its last.
        let mut args = Vec::new();
        while let Some((arg, after)) = group(tail) {
            args.push(arg);
            tail = after;
        }
        if let Some((n, body)) = m.get(name) {
            // The document's own command, its `#k` replaced by its arguments; arguments
            // it does not take stay text after it (`\none{}`).
            let mut body = body.clone();
            for (k, a) in args.iter().take(*n).enumerate() {
                body = body.replace(&format!("#{}", k + 1), a);
            }
            let extra = args
                .iter()
                .skip(*n)
                .map(|a| inline(a, m))
                .collect::<Vec<_>>();
            // Read without its own definition, so that no command expands forever.
            let mut inner = m.clone();
            inner.remove(name);
            let text = inline(&body, &inner);
            out.push_str(&text);
            for e in extra.iter().filter(|e| !e.is_empty()) {
                out.push(' ');
                out.push_str(e);
            }
            rest = tail;
            continue;
        }
        let text = args.last().map(|a| inline(a, m)).unwrap_or_default();
        match name {
            "texttt" | "verb" | "code" => out.push_str(&format!("`{text}`")),
            // Quotation commands (`\uv` in Czech, `\enquote`): what they quote, quoted.
            "uv" | "enquote" | "textquote" | "q" => out.push_str(&format!("\"{text}\"")),
            "sout" | "st" | "xout" => out.push_str(&format!("~~{text}~~")),
            "newline" | "linebreak" | "quad" | "qquad" => out.push(' '),
            "ldots" => out.push('…'),
            "rightarrow" | "Rightarrow" | "longrightarrow" | "Longrightarrow" | "to"
            | "implies" | "mapsto" => out.push_str(" → "),
            // Commands whose arguments are settings, not text.
            "color" | "rowcolor" | "cellcolor" | "label" | "vspace" | "hspace" | "setlength"
            | "includegraphics" | "definecolor" => {}
            // Any other command keeps its last argument's text (`\textbf`, `\textcolor`),
            // which for a bare command (`\fg`, `\noindent`) is nothing.
            _ => out.push_str(&text),
        }
        rest = tail;
    }
    out.push_str(&text_of(rest));
    // (`,,…''` is babel's low opening quote, as Romanian, German and Czech write.)
    let out = out.replace(",,", "„");
    let close = if out.contains('„') { "“" } else { "\"" };
    out.replace("---", "—")
        .replace("--", "–")
        .replace("``", "\"")
        .replace("''", close)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_table_row_over_several_lines_keeps_its_columns() {
        let tex = "\\begin{tabular}{l l l}\n\\toprule\nID & Prompt & Tool \\\\\n\\midrule\nT-1 & Say \\og hi \\fg{}\n  & \\texttt{echo} \\\\\n\\sout{T-2} & \\sout{Crash it} & \\texttt{crash} \\\\\n\\end{tabular}\n";
        let md = super::to_markdown(tex);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines.len(), tex.lines().count());
        assert_eq!(lines[2], "| ID | Prompt | Tool |");
        assert_eq!(lines[3], "|---|---|---|");
        assert_eq!(lines[4], "| T-1 | Say hi |  |");
        assert_eq!(lines[5], "|  |  | `echo` |");
        assert_eq!(lines[6], "| ~~T-2~~ | ~~Crash it~~ | `crash` |");
    }

    #[test]
    fn headings_items_and_commands_become_markdown() {
        let md = super::to_markdown(
            "\\section{Cas de test}\n\\item Banc : runner v2.3\nUn cas \\emph{aucun outil} --- négatif.\n",
        );
        assert_eq!(
            md.lines().collect::<Vec<_>>(),
            [
                "## Cas de test",
                "- Banc : runner v2.3",
                "Un cas aucun outil — négatif."
            ]
        );
    }

    #[test]
    fn the_documents_own_commands_expand_and_a_repeated_head_is_no_row() {
        let tex = "\\newcommand{\\tool}[1]{\\texttt{#1}}\n\\newcommand{\\none}{\\textit{no tool}}\n\\begin{longtable}{ll}\nPrompt & Expected \\\\\n\\endfirsthead\nPrompt & Expected \\\\\n\\endhead\n\\uv{Add 2 and 3} & \\tool{get-sum} \\\\\n\\color{gray}\\sout{Crash} & \\none{} \\\\\n\\end{longtable}\n";
        let md = super::to_markdown(tex);
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[0], "");
        assert_eq!(lines[3], "| Prompt | Expected |");
        assert_eq!(lines[5], "|---|---|");
        assert_eq!(lines[7], "| \"Add 2 and 3\" | `get-sum` |");
        assert_eq!(lines[8], "| ~~Crash~~ | no tool |");
    }
}
