//! Markdown test plans: heading sections, list items and paragraph groups holding labelled
//! fields (`- **Prompt:** …`), and tables with one case per row.
//!
//! A line-oriented reader rather than a CommonMark parser: what matters here is which lines
//! a case spans, and plans written by hand bend the grammar (lazy continuations, bold
//! labels, `—` for none, escaped pipes). Tables without a prompt or tool column (document
//! info, environment, exit criteria) and sections without a prompt field are not cases.
//!
//! One-line cases (`1. Prompt: "…" Expected: …`) have their inline labels split out
//! ([`split_inline_fields`]); sibling lines that each carry a `Prompt:` are one case each,
//! unless the document says they are turns of one conversation; a field line under a field
//! (`**Expected tool:**` below `- **Prompt:** …`) is the next field, not more of the value.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::service::authoring::draft::{
    Draft, Fields, Role, is_metadata_label, normalize_label, role_of, split_inline_fields,
    split_quoted_prompt, unread_note,
};
use crate::service::authoring::lines::LineIndex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blank,
    Heading(u8),
    Item,
    Text,
    TableRow,
    TableSep,
    Fence,
    Code,
    /// A thematic break (`---`, `***`, `___`): it ends the section above it.
    Rule,
}

#[derive(Debug, Clone, Copy)]
struct Ln<'a> {
    no: usize,
    kind: Kind,
    indent: usize,
    /// Content after the heading or list marker (the raw line for code).
    text: &'a str,
}

static HEADING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[ ]{0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$").unwrap());
static TABLE_SEP: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$").unwrap());

fn indent_of(s: &str) -> usize {
    s.chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

fn classify<'a>(ix: &LineIndex<'a>) -> Vec<Ln<'a>> {
    let mut out = Vec::with_capacity(ix.len());
    let mut fence: Option<(char, usize)> = None;
    for no in 1..=ix.len() {
        let raw = ix.line(no);
        let trimmed = raw.trim_start();
        let indent = indent_of(raw);
        if let Some((ch, n)) = fence {
            let closes = trimmed.starts_with(&ch.to_string().repeat(n))
                && trimmed.trim_start_matches(ch).trim().is_empty();
            if closes {
                fence = None;
                out.push(Ln {
                    no,
                    kind: Kind::Fence,
                    indent,
                    text: raw,
                });
            } else {
                out.push(Ln {
                    no,
                    kind: Kind::Code,
                    indent,
                    text: raw,
                });
            }
            continue;
        }
        for ch in ['`', '~'] {
            let n = trimmed.chars().take_while(|c| *c == ch).count();
            if n >= 3 {
                fence = Some((ch, n));
            }
        }
        if fence.is_some() {
            out.push(Ln {
                no,
                kind: Kind::Fence,
                indent,
                text: raw,
            });
            continue;
        }
        let prev_text = out.last().is_some_and(|l: &Ln| l.kind == Kind::Text);
        let ln = if trimmed.trim().is_empty() {
            Ln {
                no,
                kind: Kind::Blank,
                indent: 0,
                text: "",
            }
        } else if indent < 4 && !prev_text && is_rule(trimmed) {
            Ln {
                no,
                kind: Kind::Rule,
                indent,
                text: raw.trim(),
            }
        } else if trimmed.starts_with('#')
            && let Some(c) = HEADING.captures(raw)
        {
            let level = c[1].len() as u8;
            Ln {
                no,
                kind: Kind::Heading(level),
                indent: 0,
                text: c.get(2).unwrap().as_str(),
            }
        } else if raw.contains('|') && raw.contains('-') && TABLE_SEP.is_match(raw) {
            Ln {
                no,
                kind: Kind::TableSep,
                indent,
                text: raw.trim(),
            }
        } else if trimmed.starts_with('|') {
            Ln {
                no,
                kind: Kind::TableRow,
                indent,
                text: raw.trim(),
            }
        } else if let Some(text) = item_text(trimmed) {
            Ln {
                no,
                kind: Kind::Item,
                indent,
                text,
            }
        } else {
            Ln {
                no,
                kind: Kind::Text,
                indent,
                text: raw.trim(),
            }
        };
        out.push(ln);
    }
    // A row without a separator after the header is text, unless it continues a table.
    let mut in_table = false;
    for i in 0..out.len() {
        match out[i].kind {
            Kind::TableRow => {
                let header = out.get(i + 1).is_some_and(|n| n.kind == Kind::TableSep);
                if !(in_table || header) {
                    out[i].kind = Kind::Text;
                }
                in_table = true;
            }
            Kind::TableSep => in_table = true,
            _ => in_table = false,
        }
    }
    out
}

/// A thematic break: three or more of one of `-`, `*`, `_`, spaces between allowed. (After
/// a paragraph line, `---` underlines a heading instead, and is left alone.)
fn is_rule(trimmed: &str) -> bool {
    let t = trimmed.trim_end();
    let Some(ch) = t.chars().next().filter(|c| matches!(c, '-' | '*' | '_')) else {
        return false;
    };
    t.chars().filter(|c| *c == ch).count() >= 3
        && t.chars().all(|c| c == ch || c == ' ' || c == '\t')
}

/// Splits a table row into cells; `\|` is a literal pipe.
pub fn cells(row: &str) -> Vec<String> {
    let t = row.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = if t.ends_with('|') && !t.ends_with("\\|") {
        &t[..t.len() - 1]
    } else {
        t
    };
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = t.chars().peekable();
    let mut in_code = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '`' => {
                in_code = !in_code;
                cur.push(c);
            }
            '|' if !in_code => out.push(std::mem::take(&mut cur).trim().to_string()),
            _ => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    out.into_iter()
        .map(|c| c.replace("<br>", "\n").replace("<br/>", "\n"))
        .collect()
}

/// Removes emphasis markers around a whole title.
fn clean_title(s: &str) -> String {
    let mut t = s.trim().to_string();
    for m in ["**", "__", "*", "_"] {
        if t.starts_with(m) && t.ends_with(m) && t.len() > 2 * m.len() {
            t = t[m.len()..t.len() - m.len()].trim().to_string();
        }
    }
    t = t.replace("**", "");
    t.trim_end_matches([':', '：']).trim().to_string()
}

/// `(key, title)` out of a heading or item text such as `TC-004: Refuse to delete`.
fn key_and_title(text: &str) -> (Option<String>, String) {
    let t = clean_title(text);
    let body = t.trim_start_matches('[');
    let tok_len = body
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '#')))
        .unwrap_or(body.len());
    let mut tok = &body[..tok_len];
    let mut rest = &body[tok_len..];
    // `Case 3 — …`, `Test #4: …`: a word and a number make the key.
    if tok.chars().all(char::is_alphabetic) && tok.len() <= 12 {
        let r = rest.trim_start_matches(' ').trim_start_matches('#');
        let n = r.bytes().take_while(u8::is_ascii_digit).count();
        if n > 0 && r.len() < rest.len() {
            let end = tok_len + (rest.len() - r.len()) + n;
            tok = &body[..end];
            rest = &body[end..];
        }
    }
    let keyed = tok.starts_with(|c: char| c.is_ascii_uppercase())
        && tok.chars().any(|c| c.is_ascii_digit())
        && tok.chars().count() <= 24;
    if keyed {
        let r = rest
            .trim_start_matches(']')
            .trim_start()
            .trim_start_matches([':', '.', ')', '-', '–', '—', '|'])
            .trim();
        if !r.is_empty() {
            return (Some(tok.to_string()), clean_title(r));
        }
    }
    // `3. Add two numbers`, `1.2) …`: a numbered title without a key.
    let n = t
        .bytes()
        .take_while(|b| b.is_ascii_digit() || *b == b'.')
        .count();
    if n > 0 && t[..n].starts_with(|c: char| c.is_ascii_digit()) {
        let r = t[n..].trim_start_matches(')');
        if r.starts_with(' ') && !r.trim().is_empty() {
            return (None, clean_title(r.trim()));
        }
    }
    (None, t)
}

/// The text of a list item (`-`, `*`, `+`, `•` or `1.`/`1)` and whitespace), else `None`.
/// Hand-written rather than a regex: it runs on every line of the document.
pub(super) fn item_text(trimmed: &str) -> Option<&str> {
    let rest = match trimmed.strip_prefix(['-', '*', '+', '•']) {
        Some(r) => r,
        None => {
            let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 3 {
                return None;
            }
            trimmed[digits..].strip_prefix(['.', ')'])?
        }
    };
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some(rest.trim())
}

/// A field line `Label: value` (the label optionally bold or italic, at most six words
/// starting with a letter; whitespace or the end after the colon, so URLs and times are
/// not fields): `(label, role, inline value)`.
fn field_of(text: &str) -> Option<(String, Role, String)> {
    let t = text.trim_start_matches(['*', '_']);
    let colon = t.find([':', '：'])?;
    let label = t[..colon]
        .trim_end()
        .trim_end_matches(['*', '_'])
        .trim_end();
    let ok = label.starts_with(|c: char| c.is_ascii_alphabetic())
        && label.len() <= 41
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || " _/()#'.-".contains(c))
        && label.split_whitespace().count() <= 6;
    if !ok {
        return None;
    }
    let after = &t[colon + t[colon..].chars().next().map_or(1, char::len_utf8)..];
    let r1 = after.trim_start();
    let r2 = r1.trim_start_matches(['*', '_']);
    let spaced = r2.is_empty()
        || r2.starts_with(char::is_whitespace)
        || (r1.len() < after.len() && r2.len() == r1.len());
    if !spaced {
        return None;
    }
    let value = r2.trim().trim_end_matches("**").trim().to_string();
    Some((label.to_string(), role_of(label), value))
}

struct Section<'a> {
    heading: Option<Ln<'a>>,
    lines: Vec<Ln<'a>>,
}

/// Extracts every case of a Markdown document.
pub fn extract(ix: &LineIndex) -> Vec<Draft> {
    let lines = classify(ix);
    // Split into sections; a sub-heading that is itself a field label ("#### Expected
    // result") stays inside its parent section as a field.
    let mut sections: Vec<Section> = vec![Section {
        heading: None,
        lines: Vec::new(),
    }];
    for ln in lines {
        if ln.kind == Kind::Rule {
            // What follows a rule is not part of the section above it.
            sections.push(Section {
                heading: None,
                lines: Vec::new(),
            });
            continue;
        }
        if let Kind::Heading(level) = ln.kind {
            let label_like = role_of(&clean_title(ln.text)) != Role::Other;
            let parent_level = sections
                .last()
                .and_then(|s| s.heading)
                .map(|h| match h.kind {
                    Kind::Heading(l) => l,
                    _ => 0,
                })
                .unwrap_or(0);
            if label_like && parent_level > 0 && level > parent_level {
                // Kept as a field line "Label:" whose value follows.
                sections.last_mut().unwrap().lines.push(Ln {
                    kind: Kind::Text,
                    indent: 0,
                    ..ln
                });
                continue;
            }
            sections.push(Section {
                heading: Some(ln),
                lines: Vec::new(),
            });
        } else {
            sections.last_mut().unwrap().lines.push(ln);
        }
    }
    let mut out = Vec::new();
    for s in &sections {
        section_cases(ix, s, &mut out);
    }
    out.sort_by_key(|d| d.start_line);
    out
}

/// A field with the lines it covers and its paragraph group.
struct FieldAt {
    label: String,
    /// The label's role, computed once.
    role: Role,
    value: Value,
    group: usize,
    /// The line the field's label is on, and its last line.
    first: usize,
    last: usize,
}

/// Whether a line is a field line of a known role (`**Expected tool:** …`).
fn is_field_line(text: &str) -> bool {
    field_of(text).is_some_and(|(_, r, _)| r != Role::Other)
}

/// Pushes a field, and the fields written inline in its value (`Prompt: "…" Expected: …`).
fn push_field(
    ix: &LineIndex,
    fields: &mut Vec<FieldAt>,
    (label, role, inline): (String, Role, String),
    children: &[Ln],
    group: usize,
    (first, last): (usize, usize),
) {
    let (mut head, mut inline_fields) = split_inline_fields(&inline);
    if role == Role::Prompt
        && inline_fields.is_empty()
        && let Some((quoted, rest)) = split_quoted_prompt(&head)
    {
        head = quoted;
        inline_fields.push(("Expected".to_string(), rest));
    }
    let value = field_value(ix, &head, children);
    fields.push(FieldAt {
        role,
        label,
        value,
        group,
        first,
        last,
    });
    for (label, v) in inline_fields {
        fields.push(FieldAt {
            role: role_of(&label),
            label,
            value: Value::String(v),
            group,
            first,
            last,
        });
    }
}

/// A heading about the plan rather than a case: its section holds no cases.
static NOT_CASES_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:environments?|set[- ]?up|test data|prerequisites?|pre-?conditions?|document (?:info(?:rmation)?|control|history|details)|revision history|change ?log|exit criteria|entry criteria|scope|glossary|references?|approvals?|sign[- ]?off|assumptions?|risks?|schedule|resources|configuration|installation|contacts?|tear[- ]?down|clean[- ]?up|definitions?)\b").unwrap()
});
/// A heading that speaks of tests or cases (notes read the same headings).
pub(super) static CASE_HEADING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:tests?|test cases?|cases?|scenarios?|checks?|evals?|smoke|regressions?|qa)\b",
    )
    .unwrap()
});

/// Prompt labels that mean other things in a plan (`User: qa-bot@…` is an account,
/// `Input: numbers between 1 and 100` is test data): a prompt only where the section
/// otherwise looks like a test case.
fn weak_prompt_label(label: &str) -> bool {
    matches!(
        normalize_label(label).as_str(),
        "user" | "input" | "inputs" | "request"
    )
}

/// Whether a field states what the case expects.
fn is_expectation(r: Role) -> bool {
    matches!(
        r,
        Role::Tool
            | Role::Expected
            | Role::Contains
            | Role::Pattern
            | Role::Negative
            | Role::ShouldCallTools
            | Role::Forbidden
    )
}

/// Whether fields describe a case beyond a prompt: an id, steps, or an expectation.
fn has_case_fields(roles: impl IntoIterator<Item = Role>) -> bool {
    roles.into_iter().any(|r| {
        matches!(r, Role::Id | Role::Steps | Role::Prompts | Role::Turn(_)) || is_expectation(r)
    })
}

/// Names the unread fields inside a draft's span; the claim is then no longer exact.
fn note_unread(d: &mut Draft, unread: &[(String, usize)]) {
    for (label, no) in unread {
        if (d.start_line..=d.end_line).contains(no) {
            d.notes.push(unread_note(label));
            d.exact_rule = None;
        }
    }
}

/// Whether a table has no prompt column other than a weak one (`Input`, `User`): in a
/// section about the plan, its rows are data, not cases.
fn weak_table(rows: &[Ln]) -> bool {
    let Some(sep) = rows.iter().position(|l| l.kind == Kind::TableSep) else {
        return true;
    };
    let Some(header) = sep.checked_sub(1).map(|h| cells(rows[h].text)) else {
        return true;
    };
    !header.iter().any(|h| {
        matches!(role_of(h), Role::Prompt | Role::Prompts | Role::Turn(_)) && !weak_prompt_label(h)
    })
}

/// Drops weak prompt fields (`User:`, `Input:`, `Request:`) when nothing else says the
/// fields are a test case.
fn drop_weak_prompts(fields: &mut Vec<FieldAt>, titled_case: bool) {
    let strong_prompt = fields
        .iter()
        .any(|f| f.role == Role::Prompt && !weak_prompt_label(&f.label));
    if titled_case || strong_prompt || has_case_fields(fields.iter().map(|f| f.role)) {
        return;
    }
    fields.retain(|f| !(f.role == Role::Prompt && weak_prompt_label(&f.label)));
}

fn section_cases(ix: &LineIndex, s: &Section, out: &mut Vec<Draft>) {
    let heading_key = s.heading.and_then(|h| key_and_title(h.text).0);
    // A section about the plan (`## Environment`, `## Test data`) holds no case, unless a
    // case is written out in it in full: a real prompt label and an expectation.
    let plan_heading = heading_key.is_none()
        && s.heading
            .is_some_and(|h| NOT_CASES_HEADING.is_match(h.text));
    let titled_case = !plan_heading
        && (heading_key.is_some() || s.heading.is_some_and(|h| CASE_HEADING.is_match(h.text)));
    let lines = &s.lines;
    let mut unread: Vec<(String, usize)> = Vec::new();
    let mut fields: Vec<FieldAt> = Vec::new();
    let mut group_titles: Vec<(usize, String, usize)> = Vec::new();
    let mut group = 0usize;
    let mut group_first: Vec<usize> = Vec::new();
    let mut i = 0;
    let mut pending_blank = false;
    while i < lines.len() {
        let ln = lines[i];
        match ln.kind {
            Kind::Blank => {
                pending_blank = true;
                i += 1;
                continue;
            }
            Kind::TableRow => {
                let start = i;
                while i < lines.len() && matches!(lines[i].kind, Kind::TableRow | Kind::TableSep) {
                    i += 1;
                }
                let rows = &lines[start..i];
                if !(plan_heading && weak_table(rows)) {
                    table(rows, &mut fields, group, out);
                }
                continue;
            }
            _ => {}
        }
        if pending_blank && ln.indent == 0 {
            group += 1;
        }
        pending_blank = false;
        if group_first.len() <= group {
            group_first.resize(group + 1, ln.no);
            group_first[group] = ln.no;
        }
        // A labelled bullet (or bold label) the extractor has no use for, and that is not
        // metadata: a case spanning it says so.
        if (ln.kind == Kind::Item || ln.text.starts_with("**") || ln.text.starts_with("__"))
            && let Some((label, Role::Other, v)) = field_of(ln.text)
            && !v.is_empty()
            && !is_metadata_label(&label)
        {
            unread.push((label, ln.no));
        }
        let field = matches!(ln.kind, Kind::Item | Kind::Text)
            .then(|| field_of(ln.text))
            .flatten()
            .filter(|(_, r, _)| *r != Role::Other);
        // The lines that belong to this one: deeper items, continuation text, code.
        let mut j = i + 1;
        while j < lines.len() {
            let n = lines[j];
            let belongs = match n.kind {
                Kind::Blank => lines[j + 1..]
                    .iter()
                    .find(|l| l.kind != Kind::Blank)
                    .is_some_and(|l| l.indent > ln.indent && l.kind != Kind::Heading(0)),
                Kind::Code | Kind::Fence => true,
                Kind::Item => n.indent > ln.indent,
                Kind::Text => {
                    // A field line under a field with its value inline is the next field,
                    // not more of this value.
                    let next_field = field.as_ref().is_some_and(|(_, _, v)| !v.is_empty())
                        && is_field_line(n.text);
                    !next_field
                        && (n.indent > ln.indent
                            || (ln.kind == Kind::Item
                                && field_of(n.text).is_none()
                                && lines[j - 1].kind != Kind::Blank))
                }
                _ => false,
            };
            // A field line written at the top level takes the list directly under it.
            let takes_list = field.as_ref().is_some_and(|(_, _, v)| v.is_empty())
                && ln.kind == Kind::Text
                && n.kind == Kind::Item
                && n.indent == ln.indent;
            if !(belongs || takes_list) {
                break;
            }
            if n.kind == Kind::Fence && j > i + 1 && lines[j - 1].kind == Kind::Code {
                // The closing fence ends the block.
                j += 1;
                break;
            }
            j += 1;
        }
        while j > i + 1 && lines[j - 1].kind == Kind::Blank {
            j -= 1;
        }
        let children = &lines[i + 1..j];
        match field {
            Some((label, role, inline)) => {
                let last = lines[j - 1].no;
                push_field(
                    ix,
                    &mut fields,
                    (label, role, inline),
                    children,
                    group,
                    (ln.no, last),
                );
            }
            None if ln.kind == Kind::Item && !children.is_empty() => {
                // A list item whose nested lines hold the fields: one case.
                let mut f = Fields::new("markdown list item");
                let mut sub: Vec<FieldAt> = Vec::new();
                let mut nested_cases = Vec::new();
                nested_fields(ix, children, &mut sub, &mut nested_cases);
                drop_weak_prompts(&mut sub, titled_case || key_and_title(ln.text).0.is_some());
                for fa in sub {
                    f.push(fa.label, fa.value);
                }
                if f.is_case() {
                    let (key, title) = key_and_title(ln.text);
                    let mut d = f.into_draft(ln.no, lines[j - 1].no);
                    if d.title.is_empty() {
                        d.title = title;
                    }
                    if d.key.is_none() {
                        d.key = key;
                    }
                    out.push(d);
                } else {
                    out.extend(nested_cases);
                }
            }
            None => {
                if ln.kind == Kind::Text || ln.kind == Kind::Item {
                    group_titles.push((group, ln.text.to_string(), ln.no));
                }
            }
        }
        i = j;
    }
    drop_weak_prompts(&mut fields, titled_case);
    if plan_heading {
        let strong = fields.iter().any(|f| {
            matches!(f.role, Role::Prompts | Role::Steps | Role::Turn(_))
                || (f.role == Role::Prompt && !weak_prompt_label(&f.label))
        });
        let expects = fields.iter().any(|f| is_expectation(f.role));
        if !(strong && expects) {
            return;
        }
    }
    let heading_key_title = s.heading.map(|h| key_and_title(h.text));
    let shape = if s.heading.is_some() {
        "markdown section"
    } else {
        "markdown fields"
    };
    let segments = segments(s, &fields, &group_titles);
    let cases: Vec<&Segment> = segments.iter().filter(|g| g.has_prompt).collect();
    if cases.len() >= 2 {
        // Several cases in one section: blank-line-separated groups each with its own
        // prompt, or sibling items each with its own `Prompt:`.
        for seg in cases {
            let mut f = Fields::new(if seg.split {
                "markdown list item"
            } else {
                "markdown paragraph group"
            });
            let mut last = 0;
            let mut first = usize::MAX;
            for fa in &seg.fields {
                f.push(fa.label.clone(), fa.value.clone());
                last = last.max(fa.last);
                first = first.min(fa.first);
            }
            let start = if seg.split {
                first
            } else {
                group_first.get(seg.group).copied().unwrap_or(first)
            };
            let mut d = f.into_draft(start, last.max(start));
            note_unread(&mut d, &unread);
            let title_line = group_titles.iter().find(|(gg, _, _)| *gg == seg.group);
            if let Some((_, t, _)) = title_line
                && d.title.is_empty()
                && !seg.split
            {
                let (key, title) = key_and_title(t);
                d.title = title;
                d.key = d.key.or(key);
            }
            out.push(d);
        }
        return;
    }
    let mut f = Fields::new(shape);
    for fa in &fields {
        f.push(fa.label.clone(), fa.value.clone());
    }
    if !f.is_case() {
        return;
    }
    let start = s
        .heading
        .map(|h| h.no)
        .or_else(|| group_first.first().copied())
        .unwrap_or(1);
    let end = fields.iter().map(|f| f.last).max().unwrap_or(start);
    // The section runs to its last non-blank line (trailing notes included).
    let end = s
        .lines
        .iter()
        .rev()
        .find(|l| l.kind != Kind::Blank)
        .map(|l| l.no)
        .unwrap_or(end)
        .max(end);
    let mut d = f.into_draft(start, end);
    note_unread(&mut d, &unread);
    if let Some((key, title)) = heading_key_title {
        if d.title.is_empty() {
            d.title = title;
        }
        if d.key.is_none() {
            d.key = key;
        }
    }
    out.push(d);
}

/// The fields of one candidate case inside a section.
struct Segment<'f> {
    group: usize,
    fields: Vec<&'f FieldAt>,
    /// Cut out of a group at a sibling `Prompt:` (its span is its own lines).
    split: bool,
    has_prompt: bool,
}

/// Whether a heading or title says its prompts are turns of one conversation.
fn says_turns(text: &str) -> bool {
    let l = text.to_lowercase();
    [
        "turn",
        "conversation",
        "follow-up",
        "follow up",
        "followup",
        "steps",
        "dialog",
        "multi-step",
        "session",
    ]
    .iter()
    .any(|w| l.contains(w))
}

/// Groups a section's fields into candidate cases: one per paragraph group, except that a
/// group whose sibling lines carry several `Prompt:` fields (a numbered list of one-line
/// cases) is one case per prompt, unless the document says they are turns (a `Turn 2` or
/// `Follow-up` field, a `Steps`/`Prompts` list, or a heading or title speaking of turns).
fn segments<'f>(
    s: &Section,
    fields: &'f [FieldAt],
    group_titles: &[(usize, String, usize)],
) -> Vec<Segment<'f>> {
    let prompt_like = |f: &FieldAt| {
        matches!(
            f.role,
            Role::Prompt | Role::Prompts | Role::Turn(_) | Role::Steps
        )
    };
    let section_turns = s.heading.is_some_and(|h| says_turns(h.text));
    let mut groups: Vec<usize> = fields.iter().map(|f| f.group).collect();
    groups.dedup();
    groups.sort_unstable();
    groups.dedup();
    let mut out = Vec::new();
    for g in groups {
        let fs: Vec<&FieldAt> = fields.iter().filter(|f| f.group == g).collect();
        let prompts = fs
            .iter()
            .filter(|f| f.role == Role::Prompt)
            .map(|f| f.first)
            .collect::<std::collections::BTreeSet<_>>()
            .len();
        let turns = fs
            .iter()
            .any(|f| matches!(f.role, Role::Turn(_) | Role::Prompts | Role::Steps))
            || section_turns
            || group_titles
                .iter()
                .any(|(gg, t, _)| *gg == g && says_turns(t));
        if prompts < 2 || turns {
            let has_prompt = fs.iter().any(|f| prompt_like(f));
            out.push(Segment {
                group: g,
                fields: fs,
                split: false,
                has_prompt,
            });
            continue;
        }
        let mut cur: Vec<&FieldAt> = Vec::new();
        for f in fs {
            let starts_case = f.role == Role::Prompt
                && cur
                    .iter()
                    .any(|c| c.role == Role::Prompt && c.first != f.first);
            if starts_case {
                out.push(Segment {
                    group: g,
                    fields: std::mem::take(&mut cur),
                    split: true,
                    has_prompt: true,
                });
            }
            cur.push(f);
        }
        let has_prompt = cur.iter().any(|f| prompt_like(f));
        out.push(Segment {
            group: g,
            fields: cur,
            split: true,
            has_prompt,
        });
    }
    out
}

/// Fields of a list item's nested lines (and cases nested deeper still).
fn nested_fields(ix: &LineIndex, lines: &[Ln], fields: &mut Vec<FieldAt>, cases: &mut Vec<Draft>) {
    let base = lines
        .iter()
        .filter(|l| l.kind != Kind::Blank)
        .map(|l| l.indent)
        .min()
        .unwrap_or(0);
    let mut i = 0;
    while i < lines.len() {
        let ln = lines[i];
        // A deeper line reaching here was cut from the field above it: a field line of
        // its own (`**Expected tool:**` under `- **Prompt:** …`).
        let orphan_field = ln.kind == Kind::Text && is_field_line(ln.text);
        if ln.kind == Kind::Blank
            || (ln.indent > base && ln.kind != Kind::TableRow && !orphan_field)
        {
            i += 1;
            continue;
        }
        if ln.kind == Kind::TableRow {
            let start = i;
            while i < lines.len() && matches!(lines[i].kind, Kind::TableRow | Kind::TableSep) {
                i += 1;
            }
            table(&lines[start..i], fields, 0, cases);
            continue;
        }
        let field = field_of(ln.text).filter(|(_, r, _)| *r != Role::Other);
        let inline_value = field.as_ref().is_some_and(|(_, _, v)| !v.is_empty());
        let mut j = i + 1;
        while j < lines.len()
            && (lines[j].kind == Kind::Blank
                || lines[j].indent > ln.indent.max(base)
                || matches!(lines[j].kind, Kind::Code | Kind::Fence))
        {
            if inline_value && lines[j].kind == Kind::Text && is_field_line(lines[j].text) {
                break;
            }
            j += 1;
        }
        while j > i + 1 && lines[j - 1].kind == Kind::Blank {
            j -= 1;
        }
        if let Some((label, role, inline)) = field {
            push_field(
                ix,
                fields,
                (label, role, inline),
                &lines[i + 1..j],
                0,
                (ln.no, lines[j - 1].no),
            );
        }
        i = j;
    }
}

/// A field's value: the inline text, with nested list items as a list (for prompts and
/// steps) or a fenced block's exact content.
fn field_value(ix: &LineIndex, inline: &str, children: &[Ln]) -> Value {
    let code: Vec<&Ln> = children.iter().filter(|l| l.kind == Kind::Code).collect();
    if inline.is_empty() && !code.is_empty() {
        let (a, b) = (code[0].no, code[code.len() - 1].no);
        let base = code.iter().map(|l| l.indent).min().unwrap_or(0);
        let text: Vec<&str> = ix
            .excerpt(a, b)
            .lines()
            .map(|l| {
                let cut = l
                    .char_indices()
                    .nth(base)
                    .map(|(i, _)| i)
                    .unwrap_or(l.len());
                if l[..cut].trim().is_empty() {
                    &l[cut..]
                } else {
                    l.trim_start()
                }
            })
            .collect();
        return Value::String(text.join("\n").trim_end_matches('\r').to_string());
    }
    let base = children
        .iter()
        .filter(|l| l.kind == Kind::Item)
        .map(|l| l.indent)
        .min();
    let items: Vec<String> = match base {
        Some(b) => {
            let mut items: Vec<String> = Vec::new();
            for l in children {
                match l.kind {
                    Kind::Item if l.indent == b => items.push(l.text.trim().to_string()),
                    Kind::Item | Kind::Text => {
                        if let Some(last) = items.last_mut() {
                            last.push('\n');
                            last.push_str(l.text.trim());
                        }
                    }
                    _ => {}
                }
            }
            items
        }
        None => Vec::new(),
    };
    let text_cont: Vec<&str> = children
        .iter()
        .filter(|l| l.kind == Kind::Text)
        .map(|l| l.text.trim())
        .collect();
    if inline.is_empty() {
        if !items.is_empty() {
            return Value::Array(items.into_iter().map(Value::String).collect());
        }
        return Value::String(text_cont.join("\n"));
    }
    let mut s = inline.to_string();
    if base.is_none() {
        for t in text_cont {
            s.push('\n');
            s.push_str(t);
        }
    } else {
        for it in items {
            s.push('\n');
            s.push_str(&it);
        }
    }
    Value::String(s)
}

/// A table: one case per row when it has a prompt (or tool) column; a two-column
/// `Field | Value` table adds its rows as fields of the enclosing case.
fn table(rows: &[Ln], fields: &mut Vec<FieldAt>, group: usize, out: &mut Vec<Draft>) {
    let Some(sep) = rows.iter().position(|l| l.kind == Kind::TableSep) else {
        return;
    };
    if sep == 0 {
        return;
    }
    let header = cells(rows[sep - 1].text);
    let roles: Vec<Role> = header.iter().map(|h| role_of(h)).collect();
    let body = &rows[sep + 1..];
    let has_prompt = roles
        .iter()
        .any(|r| matches!(r, Role::Prompt | Role::Prompts | Role::Turn(_)));
    let has_tool = roles.contains(&Role::Tool);
    let field_table = header.len() == 2
        && matches!(
            normalize_label(&header[0]).as_str(),
            "field" | "key" | "attribute" | "property" | "item" | "name" | "parameter"
        );
    if field_table {
        for r in body.iter().filter(|r| r.kind == Kind::TableRow) {
            let c = cells(r.text);
            if c.len() >= 2 && role_of(&c[0]) != Role::Other {
                fields.push(FieldAt {
                    role: role_of(&c[0]),
                    label: c[0].clone(),
                    value: Value::String(c[1].clone()),
                    group,
                    first: r.no,
                    last: r.no,
                });
            }
        }
        return;
    }
    if !(has_prompt || has_tool) || header.len() < 2 {
        return;
    }
    for r in body.iter().filter(|r| r.kind == Kind::TableRow) {
        let c = cells(r.text);
        let mut f = Fields::new("markdown table row");
        for (h, v) in header.iter().zip(c.iter()) {
            f.push(h.clone(), Value::String(v.clone()));
        }
        let d = f.into_draft(r.no, r.no);
        if d.is_case() {
            out.push(d);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(t: &str) -> Vec<Draft> {
        super::super::extract(t)
    }

    #[test]
    fn heading_sections_with_bullet_fields() {
        let t = "# Plan\n\n| Field | Value |\n|---|---|\n| Version | 1.0 |\n\n## Cases\n\n### TC-001: Add numbers\n- **Priority:** High\n- **Prompt:** \"What is 2 + 3?\"\n- **Expected tool:** `get-sum` with `{\"a\": 2, \"b\": 3}`\n- **Expected result:** The reply contains \"5\".\n\n### TC-002: Refuse\n- **Prompt:** Delete every item now.\n- **Expected result:** The assistant should not call any tool and asks for confirmation.\n";
        let d = run(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[0].key.as_deref(), Some("TC-001"));
        assert_eq!(d[0].title, "Add numbers");
        assert_eq!((d[0].start_line, d[0].end_line), (9, 13));
        assert_eq!(d[0].expected_calls[0].tool, "get-sum");
        assert!(d[1].negative);
        assert_eq!((d[1].start_line, d[1].end_line), (15, 17));
    }

    #[test]
    fn table_rows_with_escaped_pipes_and_dashes() {
        let t = "| ID | Prompt | Expected tool | Arguments |\n|---|---|---|---|\n| T1 | Echo a\\|b | echo | {\"message\": \"a\\|b\"} |\n| T2 | Tell me a joke | — | — |\n";
        let d = run(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].prompts, ["Echo a|b"]);
        assert_eq!(
            d[0].expected_calls[0].args.as_ref().unwrap()["message"],
            "a|b"
        );
        assert!(d[1].negative);
        assert_eq!((d[1].start_line, d[1].end_line), (4, 4));
        assert!(d[0].exact_rule.is_some());
    }

    #[test]
    fn list_items_and_multi_turn() {
        let t = "Intro text.\n\n1. **Running total**\n   - Prompts:\n     1. \"Add 2 and 3\"\n     2. \"Now add 10 to that\"\n   - Expected: calls `get-sum` twice\n2. Not a case, just a bullet\n";
        let d = run(t);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].prompts, ["Add 2 and 3", "Now add 10 to that"]);
        assert_eq!(d[0].title, "Running total");
        assert_eq!((d[0].start_line, d[0].end_line), (3, 7));
    }

    #[test]
    fn one_line_numbered_cases_are_one_case_each() {
        let t = "## Smoke\n\n1. Prompt: \"What is 4 + 4?\" Expected: calls `get-sum` with a=4, b=4\n2. Prompt: \"Echo pineapple\" Expected tool: `echo` with message=pineapple\n3. Prompt: \"Tell me about your weekend\" Expected: no tool\n";
        let d = run(t);
        assert_eq!(d.len(), 3, "{d:#?}");
        assert_eq!(d[0].prompts, ["What is 4 + 4?"]);
        assert_eq!((d[0].start_line, d[0].end_line), (3, 3));
        assert_eq!(d[0].expected_calls[0].tool, "get-sum");
        assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], 4);
        assert_eq!(d[1].prompts, ["Echo pineapple"]);
        assert_eq!(
            d[1].expected_calls[0].args.as_ref().unwrap()["message"],
            "pineapple"
        );
        assert!(d[1].exact_rule.is_some(), "{:?}", d[1]);
        assert!(d[2].negative && d[2].expected_output.is_none());
        assert_eq!((d[2].start_line, d[2].end_line), (5, 5));
        for c in &d {
            assert!(!c.prompts[0].contains("Expected"), "{c:?}");
        }
        // Unlabelled words after a quoted prompt are what is expected of it.
        let t = "1. Prompt: \"Echo hello\" Expected tool: `echo`\n2. Prompt: \"Tell me about the weather.\" Should not call any tool.\n";
        let d = run(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[1].prompts, ["Tell me about the weather."]);
        assert!(d[1].negative, "{:?}", d[1]);
    }

    #[test]
    fn a_field_on_the_next_line_is_not_part_of_the_prompt() {
        let t = "- **Prompt:** Add 19 and 23 for me, please.\n  **Expected tool:** `get-sum`\n- **Prompt:** How do I reset my password?\n  **Expected result:** no tool\n";
        let d = run(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[0].prompts, ["Add 19 and 23 for me, please."]);
        assert_eq!(d[0].expected_calls[0].tool, "get-sum");
        assert_eq!((d[0].start_line, d[0].end_line), (1, 2));
        assert!(d[0].exact_rule.is_some());
        assert!(d[1].negative);
        assert_eq!((d[1].start_line, d[1].end_line), (3, 4));
        // Nested under a titled item, too.
        let t = "1. **Sums**\n   - **Prompt:** Add 1 and 2\n     **Expected tool:** `get-sum`\n";
        let d = run(t);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].prompts, ["Add 1 and 2"]);
        assert_eq!(d[0].expected_calls[0].tool, "get-sum");
    }

    #[test]
    fn sibling_prompts_are_turns_only_when_the_document_says_so() {
        let t = "### Conversation: running total\n- Prompt: \"Add 2 and 3\"\n- Prompt: \"Now add 10 to that\"\n- Expected: calls `get-sum` twice\n";
        let d = run(t);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].prompts, ["Add 2 and 3", "Now add 10 to that"]);
        let t = "### Sums\n- Prompt: \"Add 2 and 3\"\n- Prompt: \"Add 4 and 5\"\n";
        assert_eq!(run(t).len(), 2);
    }

    #[test]
    fn a_prompt_still_holding_a_label_is_never_exact() {
        // Lowercase and unpunctuated: not split, so the claim must not be exact.
        let t = "- Prompt: what is 2 + 2 expected: 4\n";
        let d = run(t);
        assert_eq!(d.len(), 1);
        assert!(d[0].prompts[0].contains("expected:"));
        assert!(d[0].exact_rule.is_none(), "{:?}", d[0]);
    }

    #[test]
    fn plan_sections_and_weak_labels_are_not_cases() {
        let t = "# Plan\n\n## Environment\n\n- **User:** qa-bot@example.com\n- **Input:** numbers between 1 and 100\n\n## Test data\n\n- Request: none, the defaults are used\n\n## Notes\n\n- **User:** ana@example.com\n\n## Cases\n\n### TC-1: Greets\n- **User:** Hello there\n- **Expected result:** A greeting.\n\n### Echo\n- **Input:** Echo hi\n- **Expected tool:** `echo`\n";
        let d = run(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[0].prompts, ["Hello there"]);
        assert_eq!(d[1].prompts, ["Echo hi"]);
        // A case titled with a plan word is still a case when written out in full; a
        // data table in a plan section is not.
        let t = "## Environment variables are echoed\n- **Prompt:** Echo $HOME\n- **Expected tool:** `echo`\n\n## Test data\n\n| Input | Expected |\n|---|---|\n| 3 | 4 |\n";
        let d = run(t);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(d[0].prompts, ["Echo $HOME"]);
    }

    #[test]
    fn an_unread_field_makes_the_claim_approximated() {
        let t = "### TC-1: Greets\n- **Priority:** High\n- **Prompt:** Hello there\n- **Expected result:** A greeting.\n- **Setup:** Log in as an admin first\n\n### TC-2: Plain\n- **Owner:** Ana\n- **Prompt:** Hi\n- **Expected result:** A greeting.\n";
        let d = run(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert!(d[0].exact_rule.is_none(), "{:?}", d[0]);
        assert!(d[0].notes.iter().any(|n| n.contains("`Setup`")));
        assert!(d[1].exact_rule.is_some(), "{:?}", d[1]);
    }

    #[test]
    fn a_rule_ends_the_section() {
        let t = "### TC-1: Greets\n- **Prompt:** Hello there\n- **Expected result:** A greeting.\n\n---\n\nRevision history: drafted by Ana, reviewed by Bo.\n";
        let d = run(t);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!((d[0].start_line, d[0].end_line), (1, 3));
        // After a paragraph line, `---` underlines a heading and is no rule.
        assert!(!is_rule("--") && is_rule("- - -") && is_rule("***") && !is_rule("-- x"));
    }

    #[test]
    fn prose_is_not_a_case() {
        let t = "# Thoughts\n\nWe talked about testing the calculator. The assistant said \"hello\" and it should be fine.\nNobody wrote any test cases yet.\n";
        assert!(run(t).is_empty());
    }
}
