//! Markup exports (HTML pages from a wiki, XML from a test-management tool): read as an
//! element tree with byte spans, then
//!
//! - each row of a `<table>` whose header names a prompt, steps or tool column is a record
//!   of its cells, labelled by the header;
//! - an element repeated in the document (`<case>`, `<testcase>`, `<item>`) whose leaves
//!   name a prompt, steps or tool is a record of its leaves, each labelled by its tag or,
//!   when the tag says nothing, by the nearest enclosing tag that does (`<steps><step>
//!   <content>` is a step);
//!
//! and each record is read like a JSON case object. A page with neither is read as text,
//! its tags blanked out so the lines (and so the spans) stay where they were.

use std::borrow::Cow;
use std::sync::LazyLock;

use quick_xml::Reader;
use quick_xml::events::Event;
use regex::Regex;
use serde_json::{Map, Value};

use super::json::object_draft;
use super::text;
use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::Draft;
use crate::service::authoring::fields::{Role, names_a_case, role_of};
use crate::service::authoring::lexicon;
use crate::service::authoring::lines::LineIndex;

/// Elements that never hold content in HTML (`<br>`, `<meta …>`), so never wait for a close.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track",
    "wbr",
];

/// Elements whose text is not content.
const SKIPPED: &[&str] = &["script", "style", "head", "title"];

#[derive(Debug, Default)]
struct El {
    name: String,
    start: usize,
    end: usize,
    children: Vec<Node>,
    /// A field an element names in its attributes (`<property name="prompt"
    /// value="…"/>`, `<skipped message="withdrawn…"/>`): its label and value.
    field: Option<(String, String)>,
    /// The columns a table cell spans beyond its own (`colspan="3"` → 2).
    extra_cols: usize,
    /// The rows a table cell spans beyond its own (`rowspan="2"` → 1).
    extra_rows: usize,
    /// The 1-based column a spreadsheet cell names for itself (`ss:Index`), 0 when none.
    column: usize,
    /// Struck through: `<s>`, `<del>`, `<strike>`, or by its style (Google Docs' `<span
    /// style="text-decoration:line-through">`).
    struck: bool,
}

#[derive(Debug)]
enum Node {
    El(El),
    Text(String),
}

impl El {
    fn elements(&self) -> impl Iterator<Item = &El> {
        self.children.iter().filter_map(|c| match c {
            Node::El(e) => Some(e),
            Node::Text(_) => None,
        })
    }

    /// The element's text, whitespace collapsed; block elements and `<br>` break lines.
    fn text(&self) -> String {
        let mut out = String::new();
        self.collect_text(&mut out);
        out.lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn collect_text(&self, out: &mut String) {
        if SKIPPED.contains(&self.name.as_str()) {
            return;
        }
        for c in &self.children {
            match c {
                // (Rich text escaped into an XML field, an RSS `<description>` or a
                // test tool's steps, shows as the Markdown its HTML stands for.)
                Node::Text(t) if t.contains("</") || t.contains("<br") => {
                    out.push('\n');
                    out.push_str(&html_markdown(t));
                    out.push('\n');
                }
                Node::Text(t) => out.push_str(&t.replace('\n', " ")),
                Node::El(e) => {
                    let block = matches!(
                        e.name.as_str(),
                        "br" | "p"
                            | "div"
                            | "li"
                            | "tr"
                            | "ul"
                            | "ol"
                            | "pre"
                            | "h1"
                            | "h2"
                            | "h3"
                            | "h4"
                            | "h5"
                            | "h6"
                    );
                    // (A struck cell, `<s>Slet alt i /</s>`, stays struck.)
                    let struck = e.struck;
                    if block {
                        out.push('\n');
                    }
                    if struck {
                        out.push_str("~~");
                    }
                    e.collect_text(out);
                    if struck {
                        out.push_str("~~");
                    }
                    if block {
                        out.push('\n');
                    }
                }
            }
        }
    }

    fn descendants<'a>(&'a self, out: &mut Vec<&'a El>) {
        for e in self.elements() {
            out.push(e);
            e.descendants(out);
        }
    }
}

/// Whether the document is markup: it starts with a tag and has an element that closes.
pub fn looks_like_markup(t: &str) -> bool {
    let t = t.trim_start_matches('\u{feff}').trim_start();
    // PHP opens with a tag too, but is code.
    t.starts_with('<')
        && !t.starts_with("<?php")
        && (t.starts_with("<?xml")
            || t[..t.len().min(512)]
                .to_ascii_lowercase()
                .contains("<!doctype html")
            || t.starts_with("<html")
            || t.contains("</"))
}

/// The text with the markers of each CDATA section that holds a page blanked (the same
/// length, so every offset and line stays), when it has one.
fn without_cdata_of_markup(t: &str) -> Option<String> {
    let mut out: Option<String> = None;
    let mut from = 0;
    while let Some(open) = t[from..].find("<![CDATA[").map(|i| from + i) {
        let body = open + "<![CDATA[".len();
        let Some(close) = t[body..].find("]]>").map(|i| body + i) else {
            break;
        };
        // (A whole page, not a field's bit of HTML: TestLink keeps each field's HTML in
        // CDATA, and the field is its text.)
        let inner = t[body..close].trim_start();
        let page = ["<?xml", "<!doctype", "<html", "<en-note", "<body"]
            .iter()
            .any(|p| {
                inner
                    .get(..p.len())
                    .is_some_and(|h| h.eq_ignore_ascii_case(p))
            });
        if page && inner.contains("</") {
            let o = out.get_or_insert_with(|| t.to_string());
            o.replace_range(open..body, &" ".repeat(body - open));
            o.replace_range(close..close + 3, "   ");
        }
        from = close + 3;
    }
    out
}

/// Parses leniently: unclosed and stray tags are tolerated, as pages exported from wikis
/// have them.
fn parse(text: &str) -> El {
    let mut reader = Reader::from_str(text);
    let cfg = reader.config_mut();
    cfg.check_end_names = false;
    cfg.allow_unmatched_ends = true;
    cfg.allow_dangling_amp = true;
    let mut stack: Vec<El> = vec![El {
        name: String::new(),
        start: 0,
        end: text.len(),
        ..El::default()
    }];
    loop {
        let before = reader.buffer_position() as usize;
        let Ok(ev) = reader.read_event() else { break };
        let after = reader.buffer_position() as usize;
        match ev {
            Event::Eof => break,
            Event::Start(e) => {
                let name = e.local_name().as_ref().to_ascii_lowercase();
                let el = El {
                    name: name.clone(),
                    start: before,
                    end: after,
                    field: named_field(&e),
                    extra_cols: span(&e, "colspan")
                        + span(&e, "table:number-columns-spanned")
                        + merged(&e, "ss:MergeAcross"),
                    extra_rows: span(&e, "rowspan")
                        + span(&e, "table:number-rows-spanned")
                        + merged(&e, "ss:MergeDown"),
                    column: merged(&e, "ss:Index"),
                    struck: matches!(name.as_str(), "s" | "del" | "strike")
                        || e.try_get_attribute("style")
                            .ok()
                            .flatten()
                            .is_some_and(|a| a.value.to_ascii_lowercase().contains("line-through")),
                    ..El::default()
                };
                if VOID.contains(&name.as_str()) {
                    push(&mut stack, Node::El(el));
                } else {
                    stack.push(el);
                }
            }
            Event::Empty(e) => {
                let name = e.local_name().as_ref().to_ascii_lowercase();
                push(
                    &mut stack,
                    Node::El(El {
                        name,
                        start: before,
                        end: after,
                        field: named_field(&e),
                        ..El::default()
                    }),
                );
            }
            Event::End(e) => {
                let name = e.local_name().as_ref().to_ascii_lowercase();
                // Close up to the matching open element; a stray close is ignored.
                if let Some(k) = stack.iter().rposition(|el| el.name == name)
                    && k > 0
                {
                    while stack.len() > k {
                        let mut el = stack.pop().unwrap_or_default();
                        el.end = after;
                        push(&mut stack, Node::El(el));
                    }
                }
            }
            // (A Confluence macro's settings, `<ac:parameter ac:name="colour">Red`, are
            // no text of the page.)
            Event::Text(_)
                if stack.last().is_some_and(|el| {
                    el.name == "parameter"
                        && el.field.as_ref().is_some_and(|(l, _)| {
                            matches!(l.as_str(), "colour" | "color" | "icon" | "subtle")
                        })
                }) => {}
            Event::Text(t) => push(&mut stack, Node::Text(t.xml10_content().into_owned())),
            Event::CData(t) => {
                // (A test tool's export keeps rich text as HTML inside CDATA: its text.)
                let raw = t.xml10_content().into_owned();
                let html = raw.contains("</") || raw.contains("<br");
                push(
                    &mut stack,
                    Node::Text(if html { parse(&raw).text() } else { raw }),
                );
            }
            Event::GeneralRef(r) => {
                let s = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    _ => {
                        let name = r.xml10_content();
                        entity(&name).map_or_else(|| format!("&{name};"), str::to_string)
                    }
                };
                push(&mut stack, Node::Text(s));
            }
            _ => {}
        }
    }
    while stack.len() > 1 {
        let mut el = stack.pop().unwrap_or_default();
        el.end = text.len();
        push(&mut stack, Node::El(el));
    }
    stack.pop().unwrap_or_default()
}

/// A table row: HTML's `<tr>`, a spreadsheet's `<Row>` (Excel 2003 XML) or
/// `<table:table-row>` (OpenDocument).
fn is_row(name: &str) -> bool {
    matches!(name, "tr" | "row" | "table-row")
}

/// A table cell, in HTML, Excel 2003 XML or OpenDocument.
fn is_cell(name: &str) -> bool {
    matches!(name, "td" | "th" | "cell" | "table-cell")
}

/// A count an attribute gives as is (Excel's `ss:MergeAcross="6"`: six more columns).
fn merged(e: &quick_xml::events::BytesStart, attr: &str) -> usize {
    e.try_get_attribute(attr)
        .ok()
        .flatten()
        .and_then(|a| a.value.trim().parse::<usize>().ok())
        .map_or(0, |n| n.min(256))
}

/// The columns (or rows) a cell spans beyond its own.
fn span(e: &quick_xml::events::BytesStart, attr: &str) -> usize {
    e.try_get_attribute(attr)
        .ok()
        .flatten()
        .and_then(|a| a.value.trim().parse::<usize>().ok())
        .map_or(0, |n| n.clamp(1, 64) - 1)
}

/// A table's rows as a grid of cell texts: a cell spanning rows stands in each of them
/// (a sheet's merged category cell), a cell spanning columns fills the later ones empty.
fn grid(rows: &[&El]) -> Vec<Vec<String>> {
    // The cells above still spanning down into the row from its column on.
    fn take_pending(row: &mut Vec<String>, pending: &mut [Option<(String, usize)>]) {
        while let Some(Some((text, left))) = pending.get_mut(row.len()) {
            row.push(text.clone());
            *left -= 1;
            if *left == 0 {
                pending[row.len() - 1] = None;
            }
        }
    }
    let mut pending: Vec<Option<(String, usize)>> = Vec::new();
    let mut out = Vec::with_capacity(rows.len());
    for tr in rows {
        let mut row: Vec<String> = Vec::new();
        for c in tr.elements().filter(|c| is_cell(&c.name)) {
            take_pending(&mut row, &mut pending);
            // (A sheet leaves out empty cells and numbers the next: `ss:Index="4"`.)
            if c.column > row.len() + 1 {
                row.resize(c.column - 1, String::new());
            }
            let at = row.len();
            let text = c.text();
            if c.extra_rows > 0 {
                if pending.len() <= at {
                    pending.resize(at + 1, None);
                }
                pending[at] = Some((text.clone(), c.extra_rows));
            }
            row.push(text);
            row.extend(std::iter::repeat_n(String::new(), c.extra_cols));
        }
        take_pending(&mut row, &mut pending);
        out.push(row);
    }
    out
}

/// The field an element's attributes name: `name`/`key` with `value` (the value may be
/// the element's text instead), or a `message` (`<skipped message="…"/>`).
fn named_field(e: &quick_xml::events::BytesStart) -> Option<(String, String)> {
    let mut label = None;
    let mut value = None;
    let mut message = None;
    for a in e.attributes().flatten() {
        let v = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .ok()?
            .into_owned();
        match a.key.local_name().into_inner() {
            "name" | "key" => label = Some(v),
            "value" => value = Some(v),
            "message" => message = Some(v),
            _ => {}
        }
    }
    match (label, value, message) {
        (Some(l), v, _) => Some((l, v.unwrap_or_default())),
        (None, None, Some(m)) => Some((String::new(), m)),
        _ => None,
    }
}

/// Adds a node to the open element; text joins the text before it, so a description
/// escaped as `&lt;p&gt;…` reads as the one run of HTML it is.
fn push(stack: &mut [El], n: Node) {
    if let Some(top) = stack.last_mut() {
        match (top.children.last_mut(), n) {
            (Some(Node::Text(before)), Node::Text(t)) => before.push_str(&t),
            (_, n) => top.children.push(n),
        }
    }
}

/// Extracts the cases of a markup document.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    // A page kept as character data inside the file (Evernote's ENML in `<content>`): read
    // as the markup it is.
    if let Some(opened) = without_cdata_of_markup(ix.text()) {
        return extract(&LineIndex::new(&opened), cat);
    }
    // Word's "Save as Web Page" marks what older browsers show with `<![if !supportLists]>`
    // … `<![endif]>`, which no XML reader takes: blanked, the same length.
    if ix.text().contains("<![if ") || ix.text().contains("<![endif]>") {
        let mut t = ix.text().to_string();
        let mut from = 0;
        while let Some(at) = t[from..].find("<![").map(|i| from + i) {
            if t[at..].starts_with("<![CDATA[") {
                from = at + 9;
                continue;
            }
            // (`]>` closes it; `<![endif]-->` closes a comment, and stays.)
            let Some(close) = t[at..].find("]>").map(|i| at + i + 1) else {
                break;
            };
            let mark = &t[at..close];
            if !(mark == "<![endif]"
                || mark.starts_with("<![if ") && !mark[3..].contains(['<', '>']))
            {
                from = at + 3;
                continue;
            }
            t.replace_range(at..=close, &" ".repeat(close + 1 - at));
            from = close + 1;
        }
        return extract(&LineIndex::new(&t), cat);
    }
    let text = ix.text();
    let root = parse(text);
    let mut all = Vec::new();
    root.descendants(&mut all);
    let mut records: Vec<(usize, usize, Map<String, Value>, &str)> = Vec::new();
    // The tables read as cases or set aside (their lines are left out when the rest of
    // the page is read as text).
    let mut read_tables: Vec<(usize, usize)> = Vec::new();
    // Table rows under a header that names a prompt, steps or tool column.
    let headings: Vec<&&El> = all
        .iter()
        .filter(|e| matches!(e.name.as_str(), "h1" | "h2" | "h3" | "h4" | "h5" | "h6"))
        .collect();
    for table in all.iter().filter(|e| e.name == "table") {
        // Under a heading that says it holds no case (reference, set-up, dropped ideas).
        if headings
            .iter()
            .rfind(|h| h.end <= table.start)
            .is_some_and(|h| lexicon::heading_excludes(&h.text()))
        {
            read_tables.push((table.start, table.end));
            continue;
        }
        let mut rows = Vec::new();
        table.descendants(&mut rows);
        let rows: Vec<&El> = rows.into_iter().filter(|e| is_row(&e.name)).collect();
        let cells = grid(&rows);
        // A table of two columns whose first holds the labels (`Prompt | …`, `Tool | …`):
        // one case, its fields down the rows.
        if let Some(m) = label_column(&cells) {
            records.push((table.start, table.end, m, "labelled table"));
            read_tables.push((table.start, table.end));
            continue;
        }
        // (A spreadsheet's row number is no label; a title cell spanning the row is none.)
        // (Else, a header in a language the lexicon lacks: the columns are named by what
        // their cells hold, below.)
        let unknown_header = || {
            (cells.len() >= 3
                && cells[0].len() >= 3
                && cells[0].iter().all(|c| {
                    !c.is_empty() && c.chars().count() <= 40 && !c.contains(['“', '"', '«', '„'])
                }))
            .then_some(0)
        };
        let Some(h) = cells
            .iter()
            .position(|r| {
                let labels: Vec<&String> = r
                    .iter()
                    .filter(|c| !c.chars().all(|x| x.is_ascii_digit()))
                    .collect();
                labels.len() >= 2 && names_a_case(labels.iter().map(|c| c.as_str()))
            })
            // (A row of values naming a field, `message: hi`, `“Say: hi”`, is no header
            // when the first row can be one.)
            .filter(|&h| {
                h == 0
                    || unknown_header().is_none()
                    || cells[h]
                        .iter()
                        .all(|c| !c.contains(['“', '"', '«', '„']) && !c.contains(": "))
            })
            .or_else(unknown_header)
        else {
            continue;
        };
        // A header of two rows (`기대 결과` over `도구 | 인자`): the lower row names the
        // columns it splits.
        let mut header = cells[h].clone();
        let mut first_row = h + 1;
        if let Some(below) = cells.get(h + 1)
            && below.len() == header.len()
            && {
                // (The cells the lower row has of its own, row numbers aside.)
                let own: Vec<&String> = below
                    .iter()
                    .zip(&header)
                    .filter(|(b, a)| b != a && !b.is_empty())
                    .map(|(b, _)| b)
                    .filter(|b| !b.chars().all(|x| x.is_ascii_digit()))
                    .collect();
                !own.is_empty() && own.iter().all(|b| role_of(b) != Role::Other)
            }
        {
            for (a, b) in header.iter_mut().zip(below) {
                if !b.is_empty() && !b.chars().all(|x| x.is_ascii_digit()) {
                    a.clone_from(b);
                }
            }
            first_row = h + 2;
        }
        super::keys::name_columns(&mut header, &cells[first_row.min(cells.len())..], cat);
        if !names_a_case(header.iter().map(String::as_str)) {
            continue;
        }
        for (tr, row) in rows.iter().zip(&cells).skip(first_row) {
            // A row of one cell across the table is a note or a section's name (`범례) 예:
            // "…" → listEvents`, `Totals`), no case.
            let own: Vec<&String> = row
                .iter()
                .filter(|c| !c.is_empty() && !c.chars().all(|x| x.is_ascii_digit()))
                .collect();
            let across = tr
                .elements()
                .any(|c| c.extra_cols + 1 >= header.len().saturating_sub(1).max(2));
            if own.len() == 1 && across {
                continue;
            }
            let mut m = Map::new();
            for (label, v) in header.iter().zip(row) {
                // A spreadsheet's row numbers (`<th>2</th>`) are no field.
                let numbered = label.chars().all(|c| c.is_ascii_digit());
                if !label.is_empty() && !v.is_empty() && !numbered {
                    // (A column no lexicon names whose cells assign parameters holds the
                    // arguments.)
                    let label = if role_of(label) == Role::Other && cat.assigns_params(v) {
                        "arguments"
                    } else {
                        label
                    };
                    m.insert(label.to_string(), Value::String(v.clone()));
                }
            }
            if !m.is_empty() {
                records.push((tr.start, tr.end, m, "table row"));
            }
        }
        read_tables.push((table.start, table.end));
    }
    // Repeated elements whose leaves name a case: of the tags that qualify, the one with
    // the most such elements (`<case>` over the `<section>`s that hold them).
    if records.is_empty() {
        let mut name_counts: std::collections::HashMap<&str, usize> = Default::default();
        for el in &all {
            *name_counts.entry(el.name.as_str()).or_default() += 1;
        }
        let mut by_tag: Vec<(&str, Vec<&El>)> = Vec::new();
        for el in &all {
            let m = leaves(el);
            // (A tracker's issue, `<item>` of a Jira export, names no case field: its
            // description, rich text of several lines, is a page of its own.)
            let card = || {
                m.iter().any(|(k, v)| {
                    role_of(k) == Role::Title && v.as_str().is_some_and(|t| t.contains('\n'))
                })
            };
            if m.len() >= 2
                && (names_a_case(m.keys().map(String::as_str)) || card())
                && name_counts.get(el.name.as_str()).is_some_and(|n| *n >= 2)
            {
                match by_tag.iter_mut().find(|(t, _)| *t == el.name) {
                    Some((_, v)) => {
                        if !v.iter().any(|o| el.start >= o.start && el.end <= o.end) {
                            v.push(el);
                        }
                    }
                    None => by_tag.push((el.name.as_str(), vec![el])),
                }
            }
        }
        // On a tie (each `<section>` holds one `<case>`), the innermost tag whose elements
        // carry a title or an id of their own: `all` is in document order, so a container
        // comes before what it holds.
        let most = by_tag.iter().map(|(_, v)| v.len()).max().unwrap_or(0);
        let tied: Vec<&(&str, Vec<&El>)> = by_tag.iter().filter(|(_, v)| v.len() == most).collect();
        // (A step's `step_number` orders it within its case: no id of a case.)
        let titled = |els: &[&El]| {
            els[0].elements().any(|c| {
                c.elements().next().is_none()
                    && matches!(role_of(&c.name), Role::Title | Role::Id)
                    && !c.name.contains("step")
            })
        };
        let pick = tied
            .iter()
            .rev()
            .find(|(_, v)| titled(v))
            .or_else(|| tied.first());
        if let Some((_, els)) = pick {
            for el in els {
                records.push((el.start, el.end, leaves(el), "element"));
            }
        }
    }
    if records.is_empty() {
        if let Some(md) = super::outline::as_markdown(text) {
            return super::markdown(&LineIndex::new(&md), cat);
        }
        return text::extract(&LineIndex::new(&blank_tags(text)), cat);
    }
    let tabled = records
        .iter()
        .any(|r| r.3.ends_with("table") || r.3 == "table row");
    let mut drafts: Vec<Draft> = records
        .into_iter()
        .map(|(a, b, m, shape)| {
            let (s, e) = ix.span_of(a, b);
            let d = object_draft(&m, s, e, shape, cat);
            // (A row naming a tool and no prompt, a sheet of run results' `PASS |
            // listEvents`, asks nothing: no case.)
            if shape == "table row" && d.prompts.is_empty() {
                return Draft::default();
            }
            d
        })
        .collect();
    // Cases written around the tables (a `<details>` of cases added later, in prose):
    // the page without the tables, read as text.
    if tabled {
        let spans: Vec<(usize, usize)> =
            read_tables.iter().map(|&(a, b)| ix.span_of(a, b)).collect();
        let page = blank_tags(text);
        let lines: Vec<String> = page
            .lines()
            .enumerate()
            .map(|(k, l)| {
                let n = k + 1;
                if spans.iter().any(|&(s, e)| s <= n && n <= e) {
                    String::new()
                } else {
                    l.to_string()
                }
            })
            .collect();
        drafts.extend(text::extract(
            &LineIndex::new(&super::rejoin(text, &lines)),
            cat,
        ));
        drafts.sort_by_key(|d| d.start_line);
    }
    drafts
}

/// The fields of a table whose rows are each a label and its value, when its labels name
/// a case and the first row is no header (its value is no label).
fn label_column(cells: &[Vec<String>]) -> Option<Map<String, Value>> {
    let rows: Vec<&Vec<String>> = cells
        .iter()
        .filter(|r| r.iter().any(|c| !c.is_empty()))
        .collect();
    if rows.len() < 2 || rows.iter().any(|r| r.len() != 2 || r[0].is_empty()) {
        return None;
    }
    let roles: Vec<Role> = rows.iter().map(|r| role_of(&r[0])).collect();
    let labelled = roles.iter().filter(|r| **r != Role::Other).count();
    if labelled * 2 < rows.len()
        || !names_a_case(rows.iter().map(|r| r[0].as_str()))
        || role_of(&rows[0][1]) != Role::Other
    {
        return None;
    }
    Some(
        rows.iter()
            .map(|r| (r[0].clone(), Value::String(r[1].clone())))
            .collect(),
    )
}

/// The record of an element: each leaf's text under its label (the tag, or the nearest
/// enclosing tag with a known role); several leaves under one label join by lines.
fn leaves(el: &El) -> Map<String, Value> {
    fn walk(el: &El, context: Option<&str>, out: &mut Map<String, Value>) {
        for c in el.elements() {
            // `<property name="prompt" value="…"/>`: the attributes name the field.
            if let Some((label, value)) = &c.field
                && c.elements().next().is_none()
            {
                let value = if value.is_empty() {
                    c.text()
                } else {
                    value.clone()
                };
                if !label.is_empty() && role_of(label) != Role::Other {
                    out.insert(label.clone(), Value::String(value));
                    continue;
                }
                // `<skipped message="withdrawn…"/>`: an element named for a dropped status.
                if lexicon::is_dropped_status(&c.name) {
                    out.insert("status".into(), Value::String(c.name.clone()));
                    continue;
                }
            }
            // `role_of` falls back to the lexicon's multilingual labels.
            let own = (role_of(&c.name) != Role::Other).then_some(c.name.as_str());
            let label = own.or(context);
            if c.elements().next().is_none() {
                let t = c.text();
                if t.is_empty() {
                    continue;
                }
                let key = label.unwrap_or(c.name.as_str()).to_string();
                match out.get_mut(&key) {
                    Some(Value::String(s)) => {
                        s.push('\n');
                        s.push_str(&t);
                    }
                    _ => {
                        out.insert(key, Value::String(t));
                    }
                }
            } else {
                walk(c, label, out);
            }
        }
    }
    let mut out = Map::new();
    walk(el, None, &mut out);
    out
}

/// The steps of a manual test kept as markup in one field (Azure DevOps' `<steps>`, whose
/// `<step>` holds the action and then the expected result as two like elements): each
/// step's action and expected result, or `None` when the text holds no such steps.
pub fn step_pairs(text: &str) -> Option<Vec<(String, String)>> {
    if !text.trim_start().starts_with('<') {
        return None;
    }
    let root = parse(text);
    let mut all = Vec::new();
    root.descendants(&mut all);
    let pairs: Vec<(String, String)> = all
        .iter()
        .filter(|e| e.name == "step" || e.name.ends_with(":step"))
        .map(|step| {
            let mut parts = step
                .elements()
                .filter(|c| c.elements().next().is_none())
                .map(El::text)
                .filter(|t| !t.is_empty());
            let action = parts.next().unwrap_or_default();
            (action, parts.next().unwrap_or_default())
        })
        .filter(|(a, e)| !a.is_empty() || !e.is_empty())
        .collect();
    (!pairs.is_empty()).then_some(pairs)
}

/// The text of a named entity (`rarr` → `→`); character references are resolved apart.
fn entity(name: &str) -> Option<&'static str> {
    Some(match name {
        "amp" => "&",
        "lt" => "<",
        "gt" => ">",
        "quot" => "\"",
        "apos" => "'",
        "nbsp" => " ",
        "ndash" => "–",
        "mdash" => "—",
        "rarr" => "→",
        "hellip" => "…",
        "ldquo" => "“",
        "rdquo" => "”",
        // (Every other HTML name: `&egrave;`, `&uuml;`.)
        _ => return quick_xml::escape::resolve_html5_entity(name),
    })
}

/// A fragment of HTML (a chat message's body, a rich-text cell) as the Markdown it shows:
/// paragraphs and breaks as lines, items as `- `, emphasis, bold, code and strikes as
/// their marks, other tags dropped, entities decoded.
pub fn html_markdown(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut rest = html;
    while let Some(at) = rest.find('<') {
        out.push_str(&rest[..at]);
        let Some(close) = rest[at..].find('>') else {
            out.push_str(&rest[at..]);
            rest = "";
            break;
        };
        let tag = rest[at + 1..at + close].trim().to_ascii_lowercase();
        let end = tag.starts_with('/');
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        out.push_str(match (name.as_str(), end) {
            ("br", _) | ("p" | "div" | "ul" | "ol" | "tr", true) => "\n",
            ("p" | "div" | "tr", false) => "\n",
            ("li", false) => "\n- ",
            ("i" | "em", _) => "*",
            ("b" | "strong", _) => "**",
            ("code", _) => "`",
            ("s" | "del" | "strike", _) => "~~",
            ("td" | "th", true) => " | ",
            _ => "",
        });
        rest = &rest[at + close + 1..];
    }
    out.push_str(rest);
    let decoded = blank_tags(&out);
    let lines: Vec<&str> = decoded
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty())
        .collect();
    lines.join("\n")
}

/// The text with every tag replaced by a space, line breaks kept and entities decoded, so
/// a page of prose is read as text with its lines where they were: a list item, and a
/// paragraph or a callout opening a line, by `- ` (each a unit); a heading or a toggle's
/// `<summary>` opening a line (or an item) by `#`s; `<q>` by quotes and a strike by `~~`.
pub fn blank_tags(text: &str) -> String {
    let text = unescaped_tags(text);
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_ref();
    // The elements open, and whether each was struck by its style (Google Docs' `<span
    // style="text-decoration:line-through">`), so its close ends the strike.
    let mut open: Vec<(String, bool)> = Vec::new();
    // A toggle just closed: what opens the next line is outside it, a section of its own.
    let mut after_toggle = false;
    while let Some(c) = rest.chars().next() {
        if c == '<'
            && let Some(close) = rest.find('>')
        {
            let tag = &rest[..=close];
            let name = tag[1..].trim_start().to_ascii_lowercase();
            let element: String = name
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            if name.starts_with('/') {
                after_toggle |= element == "details";
                if let Some(k) = open.iter().rposition(|(n, _)| *n == element) {
                    let struck = open[k].1;
                    open.truncate(k);
                    if struck {
                        out.push_str("~~");
                        out.extend(tag.chars().filter(|&c| c == '\n'));
                        rest = &rest[close + 1..];
                        continue;
                    }
                }
            } else if !tag.ends_with("/>") && !VOID.contains(&element.as_str()) {
                let struck = tag.to_ascii_lowercase().contains("line-through");
                open.push((element, struck));
                if struck {
                    out.push_str("~~");
                    out.extend(tag.chars().filter(|&c| c == '\n'));
                    rest = &rest[close + 1..];
                    continue;
                }
            }
            let is = |t: &str| {
                name.starts_with(t) && !name[t.len()..].starts_with(|c: char| c.is_alphanumeric())
            };
            let line_start = out.rsplit('\n').next().is_some_and(|l| l.trim().is_empty());
            // (A toggle, `<li><details><summary>`, or a heading in an item: the item's
            // marker gives way to the heading's.)
            let marker_only = out.rsplit('\n').next().is_some_and(|l| l.trim() == "-");
            let level = name
                .strip_prefix('h')
                .and_then(|r| r.chars().next())
                .and_then(|d| d.to_digit(10))
                .filter(|d| (1..=6).contains(d) && is(&name[..2]));
            // (A Confluence panel's title, `<ac:parameter ac:name="title">`, heads it.)
            let panel_title = is("ac:parameter") && name.contains("name=\"title\"");
            let heads = is("summary") || panel_title || level.is_some();
            let line_start = if marker_only && heads {
                let keep = out.trim_end_matches([' ', '-']).len();
                out.truncate(keep);
                true
            } else {
                line_start
            };
            let block = ["p", "figure", "aside", "div", "blockquote", "pre"]
                .iter()
                .any(|b| is(b));
            let outside = after_toggle && line_start && block;
            if outside || heads {
                after_toggle = false;
            }
            out.push_str(if (is("summary") || panel_title) && line_start || outside {
                "#### "
            } else if is("li") || (is("p") || is("figure") || is("aside")) && line_start {
                // (A paragraph or a callout opening a line is a unit of its own, as an
                // item is.)
                "- "
            } else if let Some(l) = level.filter(|_| line_start) {
                ["# ", "## ", "### ", "#### ", "##### ", "###### "][l as usize - 1]
            } else if is("q") {
                "“"
            } else if is("/q") {
                "”"
            } else if is("del")
                || is("/del")
                || is("s")
                || is("/s")
                || is("strike")
                || is("/strike")
            {
                "~~"
            } else {
                " "
            });
            out.extend(tag.chars().filter(|&c| c == '\n'));
            rest = &rest[close + 1..];
            continue;
        }
        if c == '&'
            && let Some(end) = rest
                .char_indices()
                .take(12)
                .find(|(_, c)| *c == ';')
                .map(|(i, _)| i)
        {
            let name = &rest[1..end];
            let decoded = name
                .strip_prefix('#')
                .and_then(|n| match n.strip_prefix(['x', 'X']) {
                    Some(hex) => u32::from_str_radix(hex, 16).ok(),
                    None => n.parse().ok(),
                })
                .and_then(char::from_u32)
                .map(String::from)
                .or_else(|| entity(name).map(str::to_string));
            if let Some(d) = decoded {
                out.push_str(&d);
                rest = &rest[end + 1..];
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// The text with its escaped tags (`&lt;p&gt;`, an RSS `<description>`'s or a test tool's
/// rich-text field) written as tags, so they are read as the markup they stand for. A
/// tag's escape never holds a line break, so the lines stay where they were.
fn unescaped_tags(text: &str) -> Cow<'_, str> {
    static ESCAPED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"&lt;(/?[A-Za-z][A-Za-z0-9:-]*(?:[ \t/][^\n]*?)?)&gt;")
            .expect("escaped tag pattern compiles")
    });
    if !text.contains("&lt;/") {
        return Cow::Borrowed(text);
    }
    ESCAPED.replace_all(text, "<$1>")
}
