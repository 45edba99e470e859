//! Documents written as text (Markdown, wiki markup, plain notes, e-mails, chat exports):
//! cut into candidate units by structure, each read by [`read_unit`].
//!
//! Structure: headings (`#`, setext underlines, Confluence `h2.`, a line that is all
//! bold, a lead-in line ending with a colon above a list) make sections. A section with
//! exactly one prompt label (`Prompt:`, `Eingabe:`, `入力：`…) is one unit; otherwise its
//! table rows (under a header with a prompt column), list items (with their continuation
//! and nested lines), and paragraphs (a chat message is one: its name-and-time line and
//! its text) are units. Sections whose heading says they hold no case (set-up,
//! environment, exit criteria, dropped ideas, action items, change history…) are skipped.

use super::super::catalog::Catalog;
use super::super::draft::Draft;
use super::super::lexicon::{self, LabelRole, label_role};
use super::super::lines::LineIndex;
use super::super::unit::{Segment, UnitInfo, leading_label, read_unit, segments_of};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blank,
    /// A heading of this level (1–6; 7 a bold line; 8 a lead-in line).
    Heading(u8),
    /// The underline of a setext heading, or a rule.
    Rule,
    Item,
    Table,
    Code,
    Text,
}

struct Ln<'a> {
    n: usize,
    text: &'a str,
    kind: Kind,
    indent: usize,
}

fn indent_of(s: &str) -> usize {
    s.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The marker of a list item, if the line starts one.
pub fn item_marker(t: &str) -> Option<usize> {
    let b = t.as_bytes();
    if b.is_empty() {
        return None;
    }
    for m in ["- ", "* ", "+ ", "• ", "▪ ", "◦ ", "‣ "] {
        if t.starts_with(m) {
            return Some(m.len());
        }
    }
    // `1.`, `1)`, `(1)`, `CA1.`, `TC-01:`
    let digits_at = t.find(|c: char| c.is_ascii_digit())?;
    let prefix = &t[..digits_at];
    let prefix_ok = prefix.is_empty()
        || prefix == "("
        || (prefix.len() <= 5
            && prefix
                .trim_end_matches('-')
                .chars()
                .all(|c| c.is_ascii_uppercase())
            && !prefix.is_empty());
    if !prefix_ok {
        return None;
    }
    let digits = t[digits_at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 || digits > 4 {
        return None;
    }
    let after = &t[digits_at + digits..];
    for m in [". ", ") ", ".\t", ")\t"] {
        if after.starts_with(m) {
            return Some(digits_at + digits + m.len());
        }
    }
    None
}

fn classify<'a>(ix: &LineIndex<'a>) -> Vec<Ln<'a>> {
    let mut out: Vec<Ln> = Vec::with_capacity(ix.len());
    let mut fence = false;
    for n in 1..=ix.len() {
        let raw = ix.line(n);
        let text = raw.trim_end_matches('\r');
        let t = text.trim();
        let indent = indent_of(text);
        let kind = if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            Kind::Code
        } else if fence {
            Kind::Code
        } else if t.is_empty() {
            Kind::Blank
        } else if let Some(level) = atx_level(t) {
            Kind::Heading(level)
        } else if is_rule(t) {
            Kind::Rule
        } else if t.starts_with('|') {
            Kind::Table
        } else if t.starts_with("<!--") || t.starts_with("{toc") {
            Kind::Code
        } else if item_marker(t).is_some() {
            Kind::Item
        } else if bold_line(t) {
            Kind::Heading(7)
        } else {
            Kind::Text
        };
        out.push(Ln {
            n,
            text,
            kind,
            indent,
        });
    }
    // Setext headings: a text line above `===` or `---`.
    for i in 1..out.len() {
        if out[i].kind == Kind::Rule && out[i - 1].kind == Kind::Text {
            let t = out[i].text.trim();
            if t.starts_with('=') || t.starts_with('-') {
                out[i - 1].kind = Kind::Heading(if t.starts_with('=') { 1 } else { 2 });
            }
        }
    }
    // Lead-in lines: a short line ending with a colon right above a list.
    for i in 0..out.len() {
        if out[i].kind != Kind::Text {
            continue;
        }
        let t = out[i].text.trim();
        if !(t.ends_with(':') || t.ends_with('：')) || t.chars().count() > 120 {
            continue;
        }
        if leading_label(t).is_some() && !t.ends_with("::") {
            // `Expected:` alone on a line is a field, not a heading.
            if let Some((_, rest)) = leading_label(t)
                && rest.is_empty()
            {
                continue;
            }
        }
        let next = out[i + 1..].iter().find(|l| l.kind != Kind::Blank);
        if next.is_some_and(|l| l.kind == Kind::Item)
            && (i == 0
                || matches!(out[i - 1].kind, Kind::Blank | Kind::Heading(_))
                || t.contains("."))
        {
            out[i].kind = Kind::Heading(8);
        }
    }
    out
}

fn atx_level(t: &str) -> Option<u8> {
    let hashes = t.chars().take_while(|c| *c == '#').count();
    if (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
        return Some(hashes as u8);
    }
    // Confluence `h2. Title`.
    let b = t.as_bytes();
    if b.len() > 3 && b[0] == b'h' && (b'1'..=b'6').contains(&b[1]) && b[2] == b'.' && b[3] == b' '
    {
        return Some(b[1] - b'0');
    }
    None
}

fn is_rule(t: &str) -> bool {
    t.len() >= 3
        && (t.chars().all(|c| c == '-' || c == ' ')
            || t.chars().all(|c| c == '=' || c == ' ')
            || t.chars().all(|c| c == '*' || c == ' ')
            || t.chars().all(|c| c == '_' || c == ' '))
        && t.chars().filter(|c| !c.is_whitespace()).count() >= 3
}

fn bold_line(t: &str) -> bool {
    let inner = t
        .strip_prefix("**")
        .and_then(|x| x.strip_suffix("**"))
        .or_else(|| t.strip_prefix("__").and_then(|x| x.strip_suffix("__")));
    inner.is_some_and(|x| !x.is_empty() && !x.contains("**") && x.chars().count() <= 120)
}

fn heading_text(t: &str) -> String {
    let t = t.trim();
    let t = t.trim_start_matches('#').trim();
    let t = if atx_level(t).is_none()
        && t.len() > 3
        && t.as_bytes()[0] == b'h'
        && t.as_bytes()[2] == b'.'
    {
        &t[3..]
    } else {
        t
    };
    t.trim_matches(['*', '_', ' '])
        .trim_end_matches([':', '：'])
        .trim()
        .to_string()
}

/// Whether a line is a prompt label.
fn prompt_label(t: &str) -> bool {
    leading_label(t).is_some_and(|(l, _)| label_role(&l) == Some(LabelRole::Prompt))
}

/// Extracts every case of a text document.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let lines = classify(ix);
    let mut out = Vec::new();
    let first_heading = lines
        .iter()
        .find(|l| l.kind != Kind::Blank)
        .filter(|l| matches!(l.kind, Kind::Heading(_)))
        .map(|l| l.n);
    walk(
        &lines,
        0,
        lines.len(),
        &mut Vec::new(),
        first_heading,
        cat,
        &mut out,
    );
    out
}

/// Reads lines `[a, b)` of one section (its heading excluded).
fn walk(
    lines: &[Ln],
    a: usize,
    b: usize,
    chain: &mut Vec<String>,
    title_line: Option<usize>,
    cat: &Catalog,
    out: &mut Vec<Draft>,
) {
    // The body before the first sub-heading, then each sub-section.
    let mut i = a;
    let first_sub = (a..b).find(|&k| matches!(lines[k].kind, Kind::Heading(_)));
    let body_end = first_sub.unwrap_or(b);
    blocks(lines, i, body_end, chain, cat, out);
    i = body_end;
    while i < b {
        let Kind::Heading(level) = lines[i].kind else {
            i += 1;
            continue;
        };
        let end = (i + 1..b)
            .find(|&k| matches!(lines[k].kind, Kind::Heading(l) if l <= level))
            .unwrap_or(b);
        let title = heading_text(lines[i].text);
        let excluded = Some(lines[i].n) != title_line && lexicon::heading_excludes(&title);
        if !excluded {
            // Fields at the top of the section (a numbered step under `Steps:` is not one).
            let top = (i + 1..end)
                .filter(|&k| !matches!(lines[k].kind, Kind::Blank | Kind::Code))
                .map(|k| lines[k].indent)
                .min()
                .unwrap_or(0);
            let prompts = (i + 1..end)
                .filter(|&k| {
                    !matches!(lines[k].kind, Kind::Heading(_) | Kind::Table | Kind::Code)
                        && lines[k].indent <= top
                        && prompt_label(lines[k].text)
                })
                .count();
            let sub_headings =
                (i + 1..end).any(|k| matches!(lines[k].kind, Kind::Heading(l) if l < 8));
            let steps = (i + 1..end)
                .filter(|&k| {
                    !matches!(lines[k].kind, Kind::Heading(_) | Kind::Table | Kind::Code)
                        && lines[k].indent <= top
                        && leading_label(lines[k].text)
                            .is_some_and(|(l, _)| label_role(&l) == Some(LabelRole::Steps))
                })
                .count();
            // One conversation: a list of fields whose prompts all come before its
            // expectations.
            let conversation = prompts >= 2 && !sub_headings && {
                let body: Vec<usize> = (i + 1..end)
                    .filter(|&k| lines[k].kind != Kind::Blank)
                    .collect();
                body.first()
                    .and_then(|&f| field_list(lines, f, end))
                    .is_some_and(|items| {
                        items.len() == body.len() && {
                            let roles: Vec<bool> =
                                items.iter().map(|&k| prompt_label(lines[k].text)).collect();
                            let first_other = roles.iter().position(|p| !p).unwrap_or(roles.len());
                            roles[first_other..].iter().all(|p| !p)
                        }
                    })
            };
            if (prompts == 1 || (prompts == 0 && steps == 1) || conversation) && !sub_headings {
                section_unit(lines, i, end, &title, cat, out);
            } else {
                chain.push(title);
                walk(lines, i + 1, end, chain, title_line, cat, out);
                chain.pop();
            }
        }
        i = end;
    }
}

/// A whole section as one unit.
fn section_unit(
    lines: &[Ln],
    h: usize,
    end: usize,
    title: &str,
    cat: &Catalog,
    out: &mut Vec<Draft>,
) {
    // A rule (`---`) ends the case: what follows it is not part of it.
    let end = (h + 1..end)
        .find(|&k| lines[k].kind == Kind::Rule && lines[k - 1].kind == Kind::Blank)
        .unwrap_or(end);
    let body: Vec<&Ln> = lines[h + 1..end]
        .iter()
        .filter(|l| !matches!(l.kind, Kind::Code | Kind::Rule))
        .collect();
    let Some(last) = body.iter().rev().find(|l| l.kind != Kind::Blank) else {
        return;
    };
    let text = body
        .iter()
        .filter(|l| l.n <= last.n)
        .map(|l| l.text)
        .collect::<Vec<_>>()
        .join("\n");
    let segs = segments_of(&text);
    let (key, title) = key_and_title(title);
    let info = UnitInfo {
        shape: "markdown section",
        start: lines[h].n,
        end: last.n,
        title: Some(title),
        key,
        structured: false,
    };
    if let Some(d) = read_unit(&segs, &info, cat) {
        out.push(d);
    }
}

/// `TC-01 Simple addition` → (`TC-01`, `Simple addition`).
fn key_and_title(t: &str) -> (Option<String>, String) {
    let t = t.trim();
    let first = t.split_whitespace().next().unwrap_or_default();
    let looks_key = first.chars().any(|c| c.is_ascii_digit())
        && first.chars().any(|c| c.is_ascii_alphabetic())
        && first.len() <= 16
        && !first.contains(['.', '/']);
    if looks_key {
        let rest = t[first.len()..]
            .trim_start_matches([' ', '–', '—', '-', ':', '：'])
            .trim();
        let key = first.trim_end_matches([':', '：', '.']).to_string();
        (
            Some(key),
            if rest.is_empty() {
                t.to_string()
            } else {
                rest.to_string()
            },
        )
    } else {
        (None, t.to_string())
    }
}

/// Tables, list items and paragraphs of lines `[a, b)`.
fn blocks(lines: &[Ln], a: usize, b: usize, chain: &[String], cat: &Catalog, out: &mut Vec<Draft>) {
    let cases_section = chain.last().is_some_and(|h| {
        lexicon::has_any(&lexicon::fold(h), lexicon::CASES_HEADING)
            || lexicon::has_any(
                &lexicon::fold(h),
                &[
                    "test*",
                    "eval*",
                    "check*",
                    "szenari*",
                    "prueba*",
                    "teste*",
                    "prova",
                    "テスト",
                    "测试",
                    "테스트",
                ],
            )
    });
    let mut i = a;
    while i < b {
        match lines[i].kind {
            Kind::Blank | Kind::Rule | Kind::Code | Kind::Heading(_) => i += 1,
            Kind::Table => {
                let end = (i..b).find(|&k| lines[k].kind != Kind::Table).unwrap_or(b);
                table(lines, i, end, cat, out);
                i = end;
            }
            Kind::Item if field_list(lines, i, b).is_some() => {
                let items = field_list(lines, i, b).unwrap();
                let title = chain.last().cloned();
                let mut group: Vec<usize> = Vec::new();
                let mut has_expect = false;
                let flush = |group: &mut Vec<usize>, out: &mut Vec<Draft>| {
                    if group.is_empty() {
                        return;
                    }
                    let segs: Vec<Segment> = group
                        .iter()
                        .filter_map(|&k| leading_label(lines[k].text))
                        .map(|(l, r)| Segment::labelled(&l, r))
                        .collect();
                    let info = UnitInfo {
                        shape: "field list",
                        start: lines[group[0]].n,
                        end: lines[*group.last().unwrap()].n,
                        title: title.clone(),
                        key: None,
                        structured: false,
                    };
                    if let Some(d) = read_unit(&segs, &info, cat) {
                        out.push(d);
                    }
                    group.clear();
                };
                for &k in &items {
                    let role = leading_label(lines[k].text).and_then(|(l, _)| label_role(&l));
                    if role == Some(LabelRole::Prompt) && has_expect {
                        flush(&mut group, out);
                        has_expect = false;
                    }
                    if role != Some(LabelRole::Prompt) {
                        has_expect = true;
                    }
                    group.push(k);
                }
                flush(&mut group, out);
                i = items.last().unwrap() + 1;
            }
            Kind::Item => {
                let base = lines[i].indent;
                let mut end = i + 1;
                let mut last = i;
                while end < b {
                    let l = &lines[end];
                    match l.kind {
                        Kind::Item if l.indent <= base => break,
                        Kind::Heading(_) | Kind::Table if l.indent <= base => break,
                        Kind::Blank => {
                            // A blank line ends the item unless the next line is deeper.
                            let next = (end + 1..b).find(|&k| lines[k].kind != Kind::Blank);
                            match next {
                                Some(k)
                                    if lines[k].indent > base
                                        && lines[k].kind != Kind::Heading(8) =>
                                {
                                    end += 1;
                                }
                                _ => break,
                            }
                        }
                        Kind::Text if l.indent <= base && lines[end - 1].kind == Kind::Blank => {
                            break;
                        }
                        _ => {
                            last = end;
                            end += 1;
                        }
                    }
                }
                let text = lines[i..=last]
                    .iter()
                    .map(|l| l.text)
                    .collect::<Vec<_>>()
                    .join("\n");
                free_unit(
                    &text,
                    lines[i].n,
                    lines[last].n,
                    "list item",
                    cases_section,
                    cat,
                    out,
                );
                i = last + 1;
            }
            Kind::Text => {
                let mut end = i;
                while end + 1 < b && lines[end + 1].kind == Kind::Text {
                    end += 1;
                }
                // A paragraph with several prompt labels holds several units.
                let starts: Vec<usize> =
                    (i..=end).filter(|&k| prompt_label(lines[k].text)).collect();
                if starts.len() > 1 {
                    for (k, &s) in starts.iter().enumerate() {
                        let e = starts.get(k + 1).map(|x| x - 1).unwrap_or(end);
                        let text = lines[s..=e]
                            .iter()
                            .map(|l| l.text)
                            .collect::<Vec<_>>()
                            .join("\n");
                        free_unit(&text, lines[s].n, lines[e].n, "paragraph", false, cat, out);
                    }
                } else {
                    let text = lines[i..=end]
                        .iter()
                        .map(|l| l.text)
                        .collect::<Vec<_>>()
                        .join("\n");
                    free_unit(
                        &text,
                        lines[i].n,
                        lines[end].n,
                        "paragraph",
                        false,
                        cat,
                        out,
                    );
                }
                i = end + 1;
            }
        }
    }
}

/// A list whose items are one-line fields (`- Prompt: "…"`, `- Expected: …`) with at
/// least two prompts: the indices of its items.
fn field_list(lines: &[Ln], a: usize, b: usize) -> Option<Vec<usize>> {
    let base = lines[a].indent;
    let mut items = Vec::new();
    let mut k = a;
    while k < b && lines[k].kind == Kind::Item && lines[k].indent == base {
        leading_label(lines[k].text)?;
        items.push(k);
        k += 1;
    }
    let prompts = items
        .iter()
        .filter(|&&k| prompt_label(lines[k].text))
        .count();
    (items.len() >= 2 && prompts >= 2 && prompts < items.len()).then_some(items)
}

fn free_unit(
    text: &str,
    start: usize,
    end: usize,
    shape: &str,
    cases_section: bool,
    cat: &Catalog,
    out: &mut Vec<Draft>,
) {
    let segs = segments_of(text);
    let info = UnitInfo {
        shape,
        start,
        end,
        title: None,
        key: None,
        structured: false,
    };
    if let Some(d) = read_unit(&segs, &info, cat) {
        out.push(d);
        return;
    }
    // Under a heading about cases, an item written as an instruction and its expectation
    // (`1. Echo hello back → echo`, `2. Say hi. Expected: no tool`): the instruction is
    // the prompt, when what follows it names a tool or says no tool.
    if cases_section
        && shape == "list item"
        && let Some(segs) = instruction_segments(text)
        && let Some(mut d) = read_unit(&segs, &info, cat)
    {
        d.notes
            .retain(|n| n != "the prompt was read from a quoted utterance");
        d.notes
            .push("the prompt was read from the instruction before the expectation".into());
        d.exact_rule = None;
        out.push(d);
    }
}

/// An unquoted instruction before its expectation, quoted so the unit reader takes it as
/// the prompt.
fn instruction_segments(text: &str) -> Option<Vec<Segment>> {
    let first = text.lines().next()?.trim();
    let t = first
        .get(item_marker(first).unwrap_or(0)..)
        .unwrap_or(first)
        .trim();
    let t = crate::service::authoring::unit::strip_checkbox(t);
    let segs = segments_of(text);
    let (lead, rest): (String, String) = if segs.len() > 1 && segs[0].label.is_none() {
        let lead = segs[0].text.lines().next().unwrap_or_default().to_string();
        let lead = lead
            .get(item_marker(lead.trim_start()).unwrap_or(0)..)
            .unwrap_or(&lead)
            .to_string();
        (lead, String::new())
    } else {
        let cut = ["→", "->", "➜", " — ", " – "]
            .iter()
            .filter_map(|m| t.find(m))
            .min()?;
        (t[..cut].to_string(), t[cut..].to_string())
    };
    let lead = lead.trim().trim_matches(['*', '_', ' ']).trim().to_string();
    if lead.is_empty() || lead.contains(['"', '“', '«', '「']) {
        return None;
    }
    let mut out = vec![Segment::plain(format!("“{lead}”"))];
    if rest.is_empty() {
        out.extend(segs.into_iter().skip(1));
    } else {
        out.push(Segment::plain(rest));
        out.extend(segments_of(
            &text.lines().skip(1).collect::<Vec<_>>().join("\n"),
        ));
    }
    Some(out)
}

/// Splits a table row into cells: `\|` is a pipe inside a cell; Confluence `||` too.
pub fn cells(row: &str) -> Vec<String> {
    let t = row.trim();
    let t = t
        .strip_prefix("||")
        .or_else(|| t.strip_prefix('|'))
        .unwrap_or(t);
    let t = t
        .strip_suffix("||")
        .or_else(|| t.strip_suffix('|'))
        .unwrap_or(t);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '|' => {
                if chars.peek() == Some(&'|') {
                    chars.next();
                }
                out.push(std::mem::take(&mut cur).trim().to_string());
            }
            _ => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    out
}

fn is_separator(row: &str) -> bool {
    let t = row.trim().trim_matches('|');
    !t.is_empty()
        && t.chars()
            .all(|c| matches!(c, '-' | ':' | '|' | ' ' | '+' | '='))
}

/// One unit per row of a table whose header has a prompt column.
fn table(lines: &[Ln], a: usize, b: usize, cat: &Catalog, out: &mut Vec<Draft>) {
    let header = cells(lines[a].text);
    let roles: Vec<Option<LabelRole>> = header.iter().map(|h| label_role(h)).collect();
    if !roles
        .iter()
        .any(|r| matches!(r, Some(LabelRole::Prompt | LabelRole::Steps)))
    {
        return;
    }
    for l in &lines[a + 1..b] {
        if is_separator(l.text) {
            continue;
        }
        let row = cells(l.text);
        if row.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let mut segs = Vec::new();
        let mut key = None;
        let mut title = None;
        for (h, v) in header.iter().zip(row.iter()) {
            let s = Segment::labelled(h, v.clone());
            match s.role {
                Some(LabelRole::Id) if key.is_none() && !v.trim().is_empty() => {
                    key = Some(v.trim().to_string())
                }
                Some(LabelRole::Title) if title.is_none() && !v.trim().is_empty() => {
                    title = Some(v.trim().to_string())
                }
                _ => {}
            }
            if s.role == Some(LabelRole::Contains) && lexicon::is_none_word(v) {
                continue;
            }
            segs.push(s);
        }
        let info = UnitInfo {
            shape: "markdown table row",
            start: l.n,
            end: l.n,
            title,
            key,
            structured: true,
        };
        if let Some(d) = read_unit(&segs, &info, cat) {
            out.push(d);
        }
    }
}
