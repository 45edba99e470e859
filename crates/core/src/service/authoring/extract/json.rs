//! JSON and JSONL exports of eval datasets: DeepEval goldens, OpenAI evals samples,
//! Braintrust and LangSmith dataset exports, and this API's own suite JSON.
//!
//! A small span scanner finds each case object's byte range (serde_json gives values, not
//! positions); each object is then parsed and read through the shared label table. Objects
//! whose `steps` already use this API's step kinds are copied one-to-one.

use serde_json::{Map, Value};

use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::{Draft, ExpectedCall};
use crate::service::authoring::fields::{Fields, Role, names_a_case, role_of};
use crate::service::authoring::lexicon;
use crate::service::authoring::lines::LineIndex;
use crate::service::authoring::unit::{Segment, UnitInfo, read_unit, segments_of};

/// A JSON value's byte range, with children for containers.
#[derive(Debug)]
enum Node {
    Obj(Vec<(String, Node)>, usize, usize),
    Arr(Vec<Node>, usize, usize),
    Scalar(usize, usize),
}

impl Node {
    fn range(&self) -> (usize, usize) {
        match self {
            Node::Obj(_, a, b) | Node::Arr(_, a, b) | Node::Scalar(a, b) => (*a, *b),
        }
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    s: &'a str,
    i: usize,
    depth: usize,
}

impl<'a> Scanner<'a> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
            self.i += 1;
        }
    }

    fn string(&mut self) -> Option<(usize, usize)> {
        let start = self.i;
        self.i += 1;
        while self.i < self.b.len() {
            match self.b[self.i] {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    return Some((start, self.i));
                }
                _ => self.i += 1,
            }
        }
        None
    }

    fn value(&mut self) -> Option<Node> {
        self.ws();
        let start = self.i;
        match *self.b.get(self.i)? {
            b'{' => {
                self.depth += 1;
                if self.depth > 64 {
                    return None;
                }
                self.i += 1;
                let mut fields = Vec::new();
                loop {
                    self.ws();
                    match *self.b.get(self.i)? {
                        b'}' => {
                            self.i += 1;
                            break;
                        }
                        b',' => self.i += 1,
                        b'"' => {
                            let (a, b) = self.string()?;
                            let key: String = serde_json::from_str(&self.s[a..b]).ok()?;
                            self.ws();
                            if *self.b.get(self.i)? != b':' {
                                return None;
                            }
                            self.i += 1;
                            fields.push((key, self.value()?));
                        }
                        _ => return None,
                    }
                }
                self.depth -= 1;
                Some(Node::Obj(fields, start, self.i))
            }
            b'[' => {
                self.depth += 1;
                if self.depth > 64 {
                    return None;
                }
                self.i += 1;
                let mut items = Vec::new();
                loop {
                    self.ws();
                    match *self.b.get(self.i)? {
                        b']' => {
                            self.i += 1;
                            break;
                        }
                        b',' => self.i += 1,
                        _ => items.push(self.value()?),
                    }
                }
                self.depth -= 1;
                Some(Node::Arr(items, start, self.i))
            }
            b'"' => {
                let (a, b) = self.string()?;
                Some(Node::Scalar(a, b))
            }
            _ => {
                while self.i < self.b.len()
                    && !matches!(
                        self.b[self.i],
                        b',' | b'}' | b']' | b' ' | b'\n' | b'\r' | b'\t'
                    )
                {
                    self.i += 1;
                }
                Some(Node::Scalar(start, self.i))
            }
        }
    }
}

const WRAPPERS: &[&str] = &[
    "tests",
    "cases",
    "testCases",
    "test_cases",
    "examples",
    "data",
    "goldens",
    "samples",
    "items",
    "records",
    "rows",
    "dataset",
    "evals",
    "conversations",
    "entries",
    "scenarios",
];

fn looks_like_case(o: &[(String, Node)]) -> bool {
    names_a_case(o.iter().map(|(k, _)| k.as_str())) || is_message(|k| o.iter().any(|(n, _)| n == k))
}

fn objects(n: &Node) -> Option<Vec<&Node>> {
    match n {
        Node::Arr(items, _, _)
            if items
                .iter()
                .any(|i| matches!(i, Node::Obj(o, ..) if looks_like_case(o))) =>
        {
            Some(
                items
                    .iter()
                    .filter(|i| matches!(i, Node::Obj(..)))
                    .collect(),
            )
        }
        _ => None,
    }
}

/// The case objects: the root array, a single case object, or the first array of case
/// objects under a wrapper key (one or two levels down).
fn case_nodes(root: &Node) -> Vec<&Node> {
    if let Some(v) = objects(root) {
        return v;
    }
    let Node::Obj(fields, ..) = root else {
        return Vec::new();
    };
    // Cases keyed by their ids (`"sum-decimals": {"say": …}`); a key written with a
    // leading underscore is switched off, as JSON files mark comments and disabled entries.
    let keyed: Vec<&Node> = fields
        .iter()
        .filter(|(_, v)| matches!(v, Node::Obj(o, ..) if looks_like_case(o)))
        .filter(|(k, _)| {
            !k.starts_with('_') && !lexicon::has_any(&lexicon::fold(k), lexicon::TEMPLATE_WORDS)
        })
        .map(|(_, v)| v)
        .collect();
    if keyed.len() >= 2 {
        return keyed;
    }
    // A chat export (Telegram's `result.json`): its messages are read one by one, not as
    // the turns of one conversation.
    if let Some(messages) = fields.iter().find_map(|(_, v)| match v {
        Node::Arr(items, ..)
            if items
                .iter()
                .filter(|i| matches!(i, Node::Obj(o, ..) if is_message(|k| o.iter().any(|(n, _)| n == k))))
                .count()
                >= 2 =>
        {
            Some(items.iter().filter(|i| matches!(i, Node::Obj(..))).collect())
        }
        _ => None,
    }) {
        return messages;
    }
    if looks_like_case(fields)
        && !fields
            .iter()
            .any(|(k, v)| WRAPPERS.contains(&k.as_str()) && objects(v).is_some())
    {
        return vec![root];
    }
    for w in WRAPPERS {
        if let Some((_, v)) = fields.iter().find(|(k, _)| k == w)
            && let Some(o) = objects(v).or_else(|| match v {
                Node::Obj(..) => Some(case_nodes(v)).filter(|n| !n.is_empty()),
                _ => None,
            })
        {
            // (Beside it, another list of cases: DeepEval's `conversational_goldens`.)
            let mut all = o;
            for (k, v) in fields {
                if k != w
                    && let Some(more) = objects(v)
                {
                    all.extend(more);
                }
            }
            all.sort_by_key(|n| n.range().0);
            return all;
        }
    }
    // Every list of cases the object holds.
    let all: Vec<&Node> = fields
        .iter()
        .filter_map(|(_, v)| objects(v))
        .flatten()
        .collect();
    if !all.is_empty() {
        return all;
    }
    for (_, v) in fields {
        if let Node::Obj(inner, ..) = v {
            for (_, w) in inner {
                if let Some(o) = objects(w) {
                    return o;
                }
            }
        }
    }
    Vec::new()
}

/// The case objects of every list of them, at any depth, in document order; lists under
/// a template's key (`x-evals-template`) left out.
/// The lists of cases under a wrapping key (`cases`, `tests`…), however deep in groups.
fn wrapped_case_lists<'a>(n: &'a Node, out: &mut Vec<&'a Node>) {
    match n {
        Node::Obj(fields, ..) => {
            for (k, v) in fields {
                match objects(v) {
                    Some(cases) if WRAPPERS.contains(&k.as_str()) => out.extend(cases),
                    _ if !lexicon::has_any(&lexicon::fold(k), lexicon::TEMPLATE_WORDS) => {
                        wrapped_case_lists(v, out)
                    }
                    _ => {}
                }
            }
        }
        Node::Arr(items, ..) => items.iter().for_each(|i| wrapped_case_lists(i, out)),
        Node::Scalar(..) => {}
    }
}

fn deep_case_lists<'a>(n: &'a Node, out: &mut Vec<&'a Node>) {
    if let Some(items) = objects(n) {
        out.extend(items);
        return;
    }
    match n {
        Node::Obj(fields, ..) => {
            for (k, v) in fields {
                if !lexicon::has_any(&lexicon::fold(k), lexicon::TEMPLATE_WORDS) {
                    deep_case_lists(v, out);
                }
            }
        }
        Node::Arr(items, ..) => {
            for i in items {
                deep_case_lists(i, out);
            }
        }
        Node::Scalar(..) => {}
    }
}

/// The outline a tree of text blocks makes (`{"string": …, "children": [...]}`, as Roam
/// Research and outliners export their pages), one line for each of the document's: a
/// block's text on the line its text stands on, indented by its depth, a page's title a
/// heading; every other line blank. `None` when the document is no such tree.
fn block_tree(root: &Node, ix: &LineIndex) -> Option<String> {
    const TEXT: &[&str] = &["string", "text", "title", "name", "content"];
    let text = ix.text();
    let mut lines: Vec<String> = vec![String::new(); ix.len()];
    let mut blocks = 0usize;
    fn walk(
        n: &Node,
        depth: usize,
        text: &str,
        ix: &LineIndex,
        lines: &mut [String],
        blocks: &mut usize,
    ) {
        match n {
            Node::Arr(items, ..) => {
                for i in items {
                    walk(i, depth, text, ix, lines, blocks);
                }
            }
            Node::Obj(fields, ..) => {
                let said = fields.iter().find_map(|(k, v)| {
                    let Node::Scalar(a, b) = v else { return None };
                    TEXT.contains(&k.as_str())
                        .then(|| serde_json::from_str::<String>(&text[*a..*b]).ok())
                        .flatten()
                        .map(|s| (s, *a))
                });
                let heading = fields.iter().find_map(|(k, v)| match v {
                    Node::Scalar(a, b) if k == "heading" => text[*a..*b].parse::<usize>().ok(),
                    _ => None,
                });
                let children = fields
                    .iter()
                    .find(|(k, v)| k == "children" && matches!(v, Node::Arr(..)));
                if let Some((said, at)) = said {
                    *blocks += 1;
                    let line = ix.line_of(at) - 1;
                    let said = said.split_whitespace().collect::<Vec<_>>().join(" ");
                    lines[line] = match (depth, heading) {
                        (0, _) => format!("# {said}"),
                        (_, Some(h)) => format!(
                            "{}- {} {said}",
                            "\t".repeat(depth - 1),
                            "#".repeat(h.clamp(1, 5) + 1)
                        ),
                        _ => format!("{}- {said}", "\t".repeat(depth - 1)),
                    };
                }
                if let Some((_, c)) = children {
                    walk(c, depth + 1, text, ix, lines, blocks);
                }
            }
            Node::Scalar(..) => {}
        }
    }
    let has_children = |n: &Node| matches!(n, Node::Obj(f, ..) if f.iter().any(|(k, v)| k == "children" && matches!(v, Node::Arr(..))));
    let pages: &[Node] = match root {
        Node::Arr(items, ..) if items.iter().any(has_children) => items,
        Node::Obj(..) if has_children(root) => std::slice::from_ref(root),
        _ => return None,
    };
    for p in pages {
        walk(p, 0, text, ix, &mut lines, &mut blocks);
    }
    (blocks >= 5).then(|| super::rejoin(text, &lines))
}

/// A table written as arrays: `{"columns": [names…], "data": [[row…], …]}` (pandas'
/// `orient="split"`), or a list of rows whose first row names the columns (a sheet's
/// `values`). Each row read as a record of its columns, a case when it reads as one.
fn tabular(root: &Node, ix: &LineIndex, cat: &Catalog) -> Option<Vec<Draft>> {
    let text = ix.text();
    let value = |n: &Node| -> Option<Value> {
        let (a, b) = n.range();
        serde_json::from_str(&text[a..b]).ok()
    };
    fn rows_of(n: &Node) -> Option<&[Node]> {
        match n {
            Node::Arr(items, ..) if items.iter().all(|i| matches!(i, Node::Arr(..))) => Some(items),
            _ => None,
        }
    }
    let names = |v: Value| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|c| c.as_str().map(str::to_string))
            .collect()
    };
    let (columns, rows): (Vec<String>, &[Node]) = match root {
        Node::Obj(fields, ..) => {
            let get = |k: &str| fields.iter().find(|(fk, _)| fk == k).map(|(_, v)| v);
            (names(value(get("columns")?)?)?, rows_of(get("data")?)?)
        }
        Node::Arr(..) => {
            let rows = rows_of(root)?;
            (names(value(rows.first()?)?)?, &rows[1..])
        }
        Node::Scalar(..) => return None,
    };
    // (Columns the lexicon names, or three at least whose values say what they are.)
    if rows.len() < 2
        || columns.len() < 2
        || columns.len() < 3 && !names_a_case(columns.iter().map(String::as_str))
    {
        return None;
    }
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let mut maps: Vec<Map<String, Value>> = Vec::new();
    for row in rows {
        let Some(Value::Array(cells)) = value(row) else {
            return None;
        };
        if cells.len() != columns.len() {
            return None;
        }
        let (a, b) = row.range();
        spans.push(ix.span_of(a, b));
        maps.push(
            columns
                .iter()
                .cloned()
                .zip(cells)
                .filter(|(_, v)| !v.is_null())
                .collect(),
        );
    }
    super::keys::name_unknown(&mut maps, cat);
    if !maps
        .iter()
        .any(|m| names_a_case(m.keys().map(String::as_str)))
    {
        return None;
    }
    Some(
        spans
            .iter()
            .zip(&maps)
            .map(|((start, end), m)| object_draft(m, *start, *end, "JSON table row", cat))
            .filter(Draft::is_case)
            .collect(),
    )
}

/// Extracts the cases of a JSON document.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let text = ix.text();
    let mut sc = Scanner {
        b: text.as_bytes(),
        s: text,
        i: 0,
        depth: 0,
    };
    if text.starts_with('\u{feff}') {
        sc.i = 3;
    }
    let Some(root) = sc.value() else {
        return Vec::new();
    };
    // An API collection (Postman's `info` and `item`): its requests, whatever their keys.
    let collection = matches!(&root, Node::Obj(f, ..)
        if f.iter().any(|(k, v)| k == "item" && matches!(v, Node::Arr(..)))
            && f.iter().any(|(k, v)| k == "info" && matches!(v, Node::Obj(..))));
    if collection {
        return requests(&root, ix, cat);
    }
    // A table kept as arrays (pandas' `orient="split"`, a sheet's `values`): its rows
    // under its column names.
    if let Some(drafts) = tabular(&root, ix, cat) {
        return drafts;
    }
    // A tree of blocks (a Roam Research or outliner export: `string` and `children`): its
    // outline, read as the page it is.
    if let Some(page) = block_tree(&root, ix) {
        return super::markdown(&LineIndex::new(&page), cat);
    }
    let mut nodes = case_nodes(&root);
    // One case found near the top, more kept deep in a document about something else
    // (an OpenAPI file's `paths./x.post.x-evals`): every such list, a template's aside.
    if let [one] = nodes[..]
        && !std::ptr::eq(one, &root)
    {
        let mut deep = Vec::new();
        deep_case_lists(&root, &mut deep);
        if deep.len() >= 2 {
            nodes = deep;
        }
    }
    // (Or lists of cases kept deeper, in groups the lexicon has no word for: `suites`.)
    if nodes.is_empty() {
        wrapped_case_lists(&root, &mut nodes);
        nodes.sort_by_key(|n| n.range().0);
    }
    if nodes.is_empty() {
        let named = unknown_keyed(&root, ix, cat);
        if !named.is_empty() {
            return named;
        }
        return requests(&root, ix, cat);
    }
    // The whole document read as one case (a board export whose `actions` look like
    // steps): the items inside it, when they read as cases, are the cases.
    if let [only] = nodes[..]
        && std::ptr::eq(only, &root)
    {
        let inner = requests(&root, ix, cat);
        if inner.len() >= 2 {
            return inner;
        }
    }
    let read: Vec<(Draft, Option<String>)> = nodes
        .into_iter()
        .filter_map(|n| {
            let (a, b) = n.range();
            let v: Value = serde_json::from_str(&text[a..b]).ok()?;
            let (s, e) = ix.span_of(a, b);
            let mut d = object_draft(v.as_object()?, s, e, "JSON object", cat);
            // Lines shared with other objects (a minified array): the object's own text.
            let own = &text[a..b];
            if ix.excerpt(s, e).trim().trim_end_matches(',').trim_end() != own {
                d.excerpt_range = Some((a, b));
            }
            Some((d, chat_message(v.as_object()?)))
        })
        .collect();
    // In a chat, the message right after a proposal may put it off or turn it down
    // ("not needed for now, next sprint"): what the chat agreed is what counts.
    let replies: Vec<Option<String>> = (0..read.len())
        .map(|k| {
            read[k].1.as_ref()?;
            read.get(k + 1)?.1.clone()
        })
        .collect();
    super::retract::without_declined(read.into_iter().map(|(d, _)| d).collect(), &replies)
}

/// Cases keyed in a language the lexicon lacks (`{"ceist": …, "uirlis": "get-sum"}`): the
/// first array of objects, at the top or under one key of it, read once its keys have the
/// roles their values show ([`keys::name_unknown`](super::keys::name_unknown)).
fn unknown_keyed(root: &Node, ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    fn array(n: &Node) -> Option<Vec<&Node>> {
        let Node::Arr(items, ..) = n else {
            return None;
        };
        let objects: Vec<&Node> = items
            .iter()
            .filter(|i| matches!(i, Node::Obj(..)))
            .collect();
        (objects.len() >= 2).then_some(objects)
    }
    let items = match root {
        Node::Obj(fields, ..) => fields.iter().find_map(|(_, v)| array(v)),
        _ => array(root),
    };
    let Some(items) = items else {
        return Vec::new();
    };
    let text = ix.text();
    let mut records: Vec<Map<String, Value>> = items
        .iter()
        .filter_map(|n| {
            let (a, b) = n.range();
            serde_json::from_str::<Map<String, Value>>(&text[a..b]).ok()
        })
        .collect();
    if records.len() != items.len() {
        return Vec::new();
    }
    super::keys::name_unknown(&mut records, cat);
    records
        .iter()
        .zip(items)
        .filter(|(m, _)| names_a_case(m.keys().map(String::as_str)))
        .map(|(m, n)| {
            let (a, b) = n.range();
            let (s, e) = ix.span_of(a, b);
            object_draft(m, s, e, "JSON object", cat)
        })
        .collect()
}

/// The requests of an API collection (Postman, Insomnia, Bruno exports): the smallest
/// objects that hold a user message (in a JSON body, even one written as a string) and
/// something expected of it (test-script lines naming a tool, or no tool). Folders whose
/// name or description says they hold no cases (a parking lot of rejected ideas) are
/// skipped.
fn requests(root: &Node, ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    fn walk(n: &Node, ix: &LineIndex, cat: &Catalog, out: &mut Vec<Draft>) -> bool {
        let Node::Obj(fields, a, b) = n else {
            if let Node::Arr(items, ..) = n {
                let mut any = false;
                for i in items {
                    any |= walk(i, ix, cat, out);
                }
                return any;
            }
            return false;
        };
        let Ok(Value::Object(o)) = serde_json::from_str::<Value>(&ix.text()[*a..*b]) else {
            return false;
        };
        let name = o.get("name").and_then(Value::as_str).unwrap_or_default();
        let about = o
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let first = about.split(['.', '\n']).next().unwrap_or_default();
        // (Only a folder is set apart by its name: a card's `"state": {"name": "Todo"}`
        // holds nothing.)
        let folder = fields
            .iter()
            .any(|(_, c)| matches!(c, Node::Obj(..) | Node::Arr(..)));
        // (`zz_archiv (NESPOUŠTĚT)`: a folder's name may join its words with `_`.)
        if folder && crate::service::authoring::lexicon::heading_excludes(&name.replace('_', " "))
            || crate::service::authoring::lexicon::heading_excludes(first)
            || crate::service::authoring::unit::says_dropped(about)
        {
            return true;
        }
        let mut any = false;
        for (_, c) in fields {
            any |= walk(c, ix, cat, out);
        }
        if any {
            return true;
        }
        let mut turns = Vec::new();
        let mut lines = Vec::new();
        gather(&Value::Object(o.clone()), &mut turns, &mut lines);
        let (s, e) = ix.span_of(*a, *b);
        if turns.is_empty() {
            // A card of a board or a tracker (Trello, Linear, Jira): its description is a
            // page of its own, read as one; a card its state calls dropped is none.
            if is_dropped_card(&o) {
                return true;
            }
            let found = card_drafts(&o, s, e, cat);
            if !found.is_empty() {
                out.extend(found);
                return true;
            }
        }
        // (What the request's description says it expects counts with its script; Postman
        // keeps it in the request, as text or as `{content}`.)
        let described = [Some(&o), o.get("request").and_then(Value::as_object)]
            .into_iter()
            .flatten()
            .find_map(|m| match m.get("description")? {
                Value::String(t) => Some(t.as_str()),
                Value::Object(d) => d.get("content").and_then(Value::as_str),
                _ => None,
            })
            .filter(|t| !t.trim().is_empty());
        if turns.is_empty() || lines.is_empty() && described.is_none() {
            return false;
        }
        let mut segs: Vec<Segment> = turns
            .into_iter()
            .map(|t| Segment::labelled("prompt", t))
            .collect();
        segs.extend(segments_of(&lines.join("\n")));
        if let Some(t) = described {
            segs.push(Segment::labelled("expected", t.to_string()));
        }
        let info = UnitInfo {
            shape: "API request",
            start: s,
            end: e,
            title: (!name.is_empty()).then(|| name.to_string()),
            key: None,
            structured: false,
            title_said: false,
        };
        match read_unit(&segs, &info, cat) {
            Some(d) if d.negative || !d.expected_calls.is_empty() || !d.never_called.is_empty() => {
                out.push(d);
                true
            }
            _ => false,
        }
    }
    let mut out = Vec::new();
    walk(root, ix, cat, &mut out);
    // A card filed under a list that says its cards were dropped (`idList` naming the
    // `Afgewezen` list) is none.
    let Ok(all) = serde_json::from_str::<Value>(ix.text()) else {
        return out;
    };
    let mut dropped_ids = Vec::new();
    collect_dropped(&all, &mut dropped_ids);
    if !dropped_ids.is_empty() {
        out.retain(|d| {
            let own = ix.excerpt(d.start_line, d.end_line);
            !dropped_ids
                .iter()
                .any(|id| own.contains(&format!("\"{id}\"")))
        });
    }
    out
}

/// The cases of a card's description (its first multi-line text that holds any), read
/// as a Markdown page under the card's title and spanning the card's lines.
fn card_drafts(o: &Map<String, Value>, start: usize, end: usize, cat: &Catalog) -> Vec<Draft> {
    let title = card_title(o).trim();
    o.values()
        .filter_map(Value::as_str)
        .filter(|t| t.contains('\n'))
        .map(|description| {
            let page = format!("# {title}\n\n{description}\n");
            let mut found = super::markdown(&LineIndex::new(&page), cat);
            found.retain(|d| d.is_case() && (d.negative || !d.expected_calls.is_empty()));
            for d in &mut found {
                (d.start_line, d.end_line) = (start, end);
            }
            found
        })
        .find(|f| !f.is_empty())
        .unwrap_or_default()
}

/// A card's title, where trackers keep it.
fn card_title(o: &Map<String, Value>) -> &str {
    ["title", "name", "summary"]
        .iter()
        .find_map(|k| o.get(*k).and_then(Value::as_str))
        .unwrap_or_default()
}

/// Whether a card was set aside: its own state says it was dropped (`"state": {"name":
/// "Canceled"}`, `"status": "Won't do"`), or its type or one tag does.
fn is_dropped_card(o: &Map<String, Value>) -> bool {
    // A bug report (its steps quote the prompt that failed), or a card whose one tag says
    // it was rejected (`"tags": [{"name": "rejected"}]`).
    let typed = o.iter().any(|(k, v)| {
        let tags: Vec<&str> = match v {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items
                .iter()
                .filter_map(|t| t.as_str().or_else(|| t.get("name").and_then(Value::as_str)))
                .collect(),
            _ => Vec::new(),
        };
        role_of(k) == Role::Type
            && match tags[..] {
                [one] => lexicon::is_bug_type(one) || lexicon::is_dropped_status(one),
                _ => tags.iter().any(|t| lexicon::is_bug_type(t)),
            }
    });
    // (GitHub closes an issue with `"state_reason": "not_planned"`, Jira with a
    // `resolution`.)
    typed
        || ["state", "status", "state_reason", "resolution"]
            .iter()
            .any(|k| {
                let v = o.get(*k);
                let name = v
                    .and_then(Value::as_str)
                    .or_else(|| v.and_then(|v| v.get("name")).and_then(Value::as_str));
                name.is_some_and(|n| {
                    crate::service::authoring::lexicon::is_dropped_status(
                        &n.replace(['_', '-'], " "),
                    )
                })
            })
}

/// The ids of objects named for a dropped status or a section of no cases (a board's
/// `Rejected` list).
fn collect_dropped(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            if let (Some(Value::String(id)), Some(Value::String(name))) =
                (o.get("id"), o.get("name"))
                && (crate::service::authoring::lexicon::is_dropped_status(name)
                    || crate::service::authoring::lexicon::heading_excludes(name))
                && id.len() >= 6
            {
                out.push(id.clone());
            }
            o.values().for_each(|x| collect_dropped(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_dropped(x, out)),
        _ => {}
    }
}

/// A request's user turns (from `{"role": "user", "content": …}` messages, in a body that
/// may be JSON written as a string) and its script lines, identifiers split into words
/// (`expectNever([\"crash\"])` says "never").
fn gather(v: &Value, turns: &mut Vec<String>, lines: &mut Vec<String>) {
    match v {
        Value::String(s) => {
            let t = s.trim();
            if (t.starts_with('{') || t.starts_with('['))
                && let Ok(inner) = serde_json::from_str::<Value>(t)
            {
                gather(&inner, turns, lines);
            }
        }
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
            for i in items {
                let s = i.as_str().unwrap_or_default();
                if s.trim_start().starts_with(['{', '[']) {
                    gather(i, turns, lines);
                } else {
                    lines.push(super::asserts::field(s).unwrap_or_else(|| split_identifiers(s)));
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| gather(i, turns, lines)),
        Value::Object(o) => {
            if let (Some(role), Some(content)) = (
                o.get("role").and_then(Value::as_str),
                o.get("content").and_then(Value::as_str),
            ) {
                if crate::service::authoring::lexicon::USER_SPEAKERS.contains(&role) {
                    turns.push(content.to_string());
                }
                return;
            }
            for (k, x) in o {
                // (A request body's `prompt`, what the user says.)
                if let Value::String(t) = x
                    && role_of(k) == Role::Prompt
                {
                    turns.push(t.clone());
                    continue;
                }
                if !matches!(
                    k.as_str(),
                    "url"
                        | "header"
                        | "auth"
                        | "response"
                        | "variable"
                        | "name"
                        | "description"
                        | "info"
                ) {
                    gather(x, turns, lines);
                }
            }
        }
        _ => {}
    }
}

/// Identifiers outside quotes split into their words, and a call with arguments written
/// as a field (`expectNever(["crash"])` → `expect Never: (["crash"])`), so a script line
/// reads as what it says.
fn split_identifiers(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    let mut called = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '"' || c == '\'' => quote = Some(c),
            // (Only the callee's name: `{pageSize: 7}` keeps its keys.)
            None if !called && c.is_uppercase() && prev.is_lowercase() => out.push(' '),
            None if c == '('
                && !called
                && prev.is_alphanumeric()
                && chars.peek().is_some_and(|n| *n != ')') =>
            {
                out.push(':');
                out.push(' ');
                called = true;
            }
            None => {}
        }
        out.push(c);
        prev = c;
    }
    out
}

/// Extracts one case per JSONL line.
pub fn extract_lines(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    (1..=ix.len())
        .filter_map(|n| {
            let line = ix.line(n).trim();
            let v: Value = serde_json::from_str(line).ok()?;
            let o = v.as_object()?;
            Some(object_draft(o, n, n, "JSONL line", cat))
        })
        .collect()
}

/// A draft from one case object (also used for YAML items).
pub fn object_draft(
    o: &Map<String, Value>,
    start: usize,
    end: usize,
    shape: &str,
    cat: &Catalog,
) -> Draft {
    if let Some(steps) = o.get("steps").and_then(Value::as_array)
        && steps
            .iter()
            .all(|s| s.get("kind").and_then(Value::as_str).is_some())
        && !steps.is_empty()
    {
        return steps_draft(o, steps, start, end, shape);
    }
    if switched_off(o) {
        // Kept in the file but switched off (`enabled = false`, `skip: true`): no case.
        return Draft::default();
    }
    // A tracker's bug report quotes the prompt that failed; a card set aside is none.
    if is_dropped_card(o) {
        return Draft::default();
    }
    let read = |text: &str, shape: &'static str| {
        let info = UnitInfo {
            shape,
            start,
            end,
            title: None,
            key: None,
            structured: false,
            title_said: false,
        };
        read_unit(&segments_of(text), &info, cat).unwrap_or_default()
    };
    // A message of a chat export (Teams, Slack, Discord): what it says, read as a
    // message is; its sender is nobody's prompt.
    if let Some(text) = chat_message(o) {
        if voted_down(o) {
            return Draft::default();
        }
        return read(&text, "chat message");
    }
    let lifted = lift_turns(o);
    let o = &lifted;
    let mut f = Fields::new(shape);
    match assistant_calls(o) {
        Some(Said::Calls(calls)) => f.push_as("tool_calls", Value::Array(calls), Role::Tool),
        Some(Said::Words) => f.push_as("assistant", Value::Bool(true), Role::Negative),
        None => {}
    }
    for (k, v) in o {
        match (k.as_str(), v) {
            // Braintrust / LangSmith wrap the case's fields one level down.
            ("metadata", Value::Object(m)) => {
                for (mk, mv) in m {
                    if !matches!(role_of(mk), Role::Other | Role::Title) {
                        f.push(mk.clone(), mv.clone());
                    }
                }
            }
            ("vars", Value::Object(m)) => {
                for (mk, mv) in m {
                    f.push(mk.clone(), mv.clone());
                }
            }
            // `"expect": {"get-sum": {"a": 2}}`: the expected calls keyed by the tool each
            // names, with its arguments (or none).
            (_, Value::Object(m))
                if (is_expectation_key(k) || role_of(k) == Role::Tool)
                    && !m.is_empty()
                    && m.iter().all(|(mk, mv)| {
                        cat.resolve(mk).is_some() && matches!(mv, Value::Object(_) | Value::Null)
                    }) =>
            {
                let calls: Vec<Value> = m
                    .iter()
                    .map(|(name, args)| serde_json::json!({"name": name, "arguments": args}))
                    .collect();
                f.push_as(k.clone(), Value::Array(calls), Role::Tool);
            }
            // `"expect": {"tool": "get-sum", "arguments": {…}}`: an expectation written as
            // an object of labelled fields (`"tool": null` is no tool).
            (_, Value::Object(m))
                if matches!(role_of(k), Role::Expected | Role::Other)
                    && is_expectation_key(k)
                    && m.keys().any(|mk| !matches!(role_of(mk), Role::Other)) =>
            {
                for (mk, mv) in m {
                    let mv = match (role_of(mk), mv) {
                        (Role::Tool, Value::Null) => Value::String("none".into()),
                        _ => mv.clone(),
                    };
                    f.push(mk.clone(), mv);
                }
            }
            // `expect: [{tool: a, args: {…}}, {not: b}]`: a list of such objects, each
            // read the same way.
            (_, Value::Array(items))
                if matches!(role_of(k), Role::Expected | Role::Other)
                    && is_expectation_key(k)
                    && !items.is_empty()
                    && items.iter().all(|i| {
                        i.as_object()
                            .is_some_and(|m| m.keys().all(|mk| !matches!(role_of(mk), Role::Other)))
                    }) =>
            {
                // (Each object's tool keeps its own arguments: they are read as calls.)
                let mut calls = Vec::new();
                for m in items.iter().filter_map(Value::as_object) {
                    let tool = m
                        .iter()
                        .find(|(mk, mv)| role_of(mk) == Role::Tool && mv.is_string());
                    let args = m
                        .iter()
                        .find(|(mk, mv)| role_of(mk) == Role::Args && mv.is_object());
                    // (A tool given by what it does is the one its words describe.)
                    let named = tool.and_then(|(_, name)| {
                        let name = name.as_str()?;
                        cat.resolve(name)
                            .map(|(t, _)| t)
                            .or_else(|| cat.described_by(name))
                    });
                    if let (Some(t), Some((_, args))) = (named, args) {
                        calls.push(serde_json::json!({"name": cat.name(t), "arguments": args}));
                        for (mk, mv) in m {
                            if !matches!(role_of(mk), Role::Tool | Role::Args) {
                                f.push(mk.clone(), mv.clone());
                            }
                        }
                        continue;
                    }
                    for (mk, mv) in m {
                        let mv = match (role_of(mk), mv) {
                            (Role::Tool, Value::Null) => Value::String("none".into()),
                            _ => mv.clone(),
                        };
                        f.push(mk.clone(), mv);
                    }
                }
                if !calls.is_empty() {
                    f.push_as(k.clone(), Value::Array(calls), Role::Tool);
                }
            }
            _ => f.push(k.clone(), v.clone()),
        }
    }
    if !f.is_case() {
        // A test tool's record that keeps its prompt in the prose of its description.
        if let Some(text) = f.described_case() {
            return read(&text, "record");
        }
        // A card of a board or a tracker that names no case field: its description is a
        // page of its own.
        if o.values()
            .any(|v| v.as_str().is_some_and(|t| t.contains('\n')))
        {
            return card_drafts(o, start, end, cat)
                .into_iter()
                .next()
                .unwrap_or_default();
        }
        // A message object (a chat export): its text, read as the text of a message is.
        if let Some(text) = f.free_text() {
            // Slack writes `>` as `&gt;`.
            let text =
                quick_xml::escape::unescape(text).map_or_else(|_| text.into(), |t| t.into_owned());
            return read(&text, "chat message");
        }
    }
    f.into_draft(start, end, cat)
}

/// The text of a chat export's message ([`is_message`]): its `text`, `content`, or
/// Teams' `body: {contentType, content}`, HTML as the Markdown it shows.
fn chat_message(o: &Map<String, Value>) -> Option<String> {
    if !is_message(|k| o.contains_key(k)) {
        return None;
    }
    let body = ["body", "text", "content", "message"]
        .iter()
        .find_map(|k| match o.get(*k)? {
            Value::String(s) => Some(s.clone()),
            Value::Object(b) => ["content", "text"]
                .iter()
                .find_map(|k| b.get(*k).and_then(Value::as_str).map(str::to_string)),
            Value::Array(parts) => Some(rich_text(parts)),
            _ => None,
        })?;
    Some(if body.contains("</") || body.contains("<br") {
        super::markup::html_markdown(&body)
    } else {
        body
    })
}

/// Whether a message's reactions turn it down: thumbs down (or a cross) and no thumbs up,
/// as chat exports record them (Slack's `name: "-1"`, Google Chat's and Discord's emoji,
/// Teams' `reactionType`).
fn voted_down(o: &Map<String, Value>) -> bool {
    const DOWN: &[&str] = &[
        "👎",
        "-1",
        "thumbsdown",
        "thumbs_down",
        "dislike",
        "x",
        "❌",
        "no_entry",
        "⛔",
    ];
    const UP: &[&str] = &[
        "👍",
        "+1",
        "thumbsup",
        "thumbs_up",
        "like",
        "white_check_mark",
        "✅",
        "heavy_check_mark",
        "✔️",
    ];
    let Some(Value::Array(reactions)) = o.get("reactions") else {
        return false;
    };
    let names: Vec<&str> = reactions
        .iter()
        .filter_map(|r| {
            r.get("name")
                .or_else(|| r.get("reactionType"))
                .or_else(|| {
                    r.get("emoji")
                        .and_then(|e| e.get("unicode").or_else(|| e.get("name")))
                })
                .or_else(|| r.get("emoji"))
                .and_then(Value::as_str)
        })
        .map(|n| n.trim_matches(':'))
        .collect();
    // (A skin tone is no part of the vote: `👎🏽`, `thumbsdown::skin-tone-3`.)
    let is = |list: &[&str], n: &str| {
        list.iter().any(|w| {
            n == *w || n.starts_with(w) && !w.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    names.iter().any(|n| is(DOWN, n)) && !names.iter().any(|n| is(UP, n))
}

/// A message's text kept as runs (Telegram's `["plain ", {"type": "code", "text":
/// "get-sum"}]`), as the Markdown it shows.
fn rich_text(parts: &[Value]) -> String {
    parts
        .iter()
        .map(|p| match p {
            Value::String(s) => s.clone(),
            Value::Object(run) => {
                let t = run.get("text").and_then(Value::as_str).unwrap_or_default();
                match run.get("type").and_then(Value::as_str).unwrap_or_default() {
                    "bold" => format!("**{t}**"),
                    "italic" => format!("*{t}*"),
                    "code" => format!("`{t}`"),
                    "pre" => format!("\n```\n{t}\n```\n"),
                    "strikethrough" => format!("~~{t}~~"),
                    _ => t.to_string(),
                }
            }
            _ => String::new(),
        })
        .collect()
}

/// Whether an object with these keys is a chat export's message: a sender, a time or a
/// message type, and a body.
fn is_message(has: impl Fn(&str) -> bool) -> bool {
    // (Google Chat's Takeout writes `creator` and `created_date`, its API `sender` and
    // `createTime`; Messenger `sender_name` and `timestamp_ms`.)
    const SENDER: &[&str] = &[
        "from",
        "author",
        "sender",
        "user",
        "username",
        "user_name",
        "creator",
        "sender_name",
    ];
    const STAMP: &[&str] = &[
        "messageType",
        "createdDateTime",
        "ts",
        "timestamp",
        "sent_at",
        "created_at",
        "date_unixtime",
        "created_date",
        "createTime",
        "timestamp_ms",
    ];
    const BODY: &[&str] = &["body", "text", "content", "message"];
    SENDER.iter().any(|k| has(k)) && STAMP.iter().any(|k| has(k)) && BODY.iter().any(|k| has(k))
}

/// A record's prompt where people nest it, made flat: the fields of an unlabelled wrapper
/// (`when: {user: …}`, `given: {history: […]}`) come up a level, and earlier turns
/// (`history`, `context`) go before the prompt as one list of turns.
fn lift_turns(o: &Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for (k, v) in o {
        match v {
            Value::Object(m)
                if role_of(k) == Role::Other
                    && m.keys().any(|mk| {
                        matches!(role_of(mk), Role::Prompt | Role::Prompts) || is_history_key(mk)
                    }) =>
            {
                for (mk, mv) in m {
                    out.entry(mk.clone()).or_insert_with(|| mv.clone());
                }
            }
            _ => {
                out.insert(k.clone(), v.clone());
            }
        }
    }
    split_turn_objects(&mut out);
    let history = out
        .iter()
        .find(|(k, v)| is_history_key(k) && v.is_array())
        .map(|(k, v)| (k.clone(), v.clone()));
    let prompt = out
        .iter()
        .find(|(k, v)| role_of(k) == Role::Prompt && v.is_string())
        .map(|(k, v)| (k.clone(), v.clone()));
    if let (Some((hk, Value::Array(mut turns))), Some((pk, p))) = (history, prompt) {
        turns.push(serde_json::json!({"role": "user", "content": p}));
        out.remove(&hk);
        out.remove(&pk);
        out.insert("turns".into(), Value::Array(turns));
    }
    out
}

/// Turns written as objects that each say what the user says and what is expected of that
/// turn (`turns: [{prompt: …, expect: {tool: …}}, …]`): the prompts become the case's turns
/// and each other field gathers its turns' values in order, as the case's own.
fn split_turn_objects(out: &mut Map<String, Value>) {
    let prompt_of = |m: &Map<String, Value>| {
        m.iter()
            .find(|(k, v)| matches!(role_of(k), Role::Prompt) && v.is_string())
            .map(|(k, v)| (k.clone(), v.clone()))
    };
    let Some((key, items)) = out.iter().find_map(|(k, v)| match v {
        Value::Array(items)
            if matches!(role_of(k), Role::Prompts | Role::Steps | Role::Other)
                && items.len() >= 2
                && items
                    .iter()
                    .all(|i| i.as_object().is_some_and(|m| prompt_of(m).is_some()))
                && items.iter().any(|i| {
                    i.as_object().is_some_and(|m| {
                        m.keys().any(|mk| {
                            matches!(
                                role_of(mk),
                                Role::Tool | Role::Expected | Role::Args | Role::Forbidden
                            )
                        })
                    })
                }) =>
        {
            Some((k.clone(), items.clone()))
        }
        _ => None,
    }) else {
        return;
    };
    let mut turns = Vec::new();
    let mut gathered: Map<String, Value> = Map::new();
    for m in items.iter().filter_map(Value::as_object) {
        let Some((pk, p)) = prompt_of(m) else {
            continue;
        };
        turns.push(serde_json::json!({"role": "user", "content": p}));
        for (k, v) in m.iter().filter(|(k, _)| **k != pk) {
            let Value::Array(list) = gathered
                .entry(k.clone())
                .or_insert_with(|| Value::Array(Vec::new()))
            else {
                continue;
            };
            match v {
                Value::Array(vs) => list.extend(vs.iter().cloned()),
                v => list.push(v.clone()),
            }
        }
    }
    out.remove(&key);
    out.insert("turns".into(), Value::Array(turns));
    for (k, v) in gathered {
        out.entry(k).or_insert(v);
    }
}

/// What the assistant does in a conversation written in a chat API's messages.
enum Said {
    /// The calls it makes: OpenAI's `tool_calls` (and the older `function_call`),
    /// Anthropic's `tool_use` blocks.
    Calls(Vec<Value>),
    /// It ends the conversation answering in words, having called nothing.
    Words,
}

/// The expectation a record's messages hold, when some message is the assistant's.
fn assistant_calls(o: &Map<String, Value>) -> Option<Said> {
    let messages = o.values().find_map(|v| {
        let a = v.as_array()?;
        a.iter()
            .any(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .then_some(a)
    })?;
    let mut calls = Vec::new();
    for m in messages
        .iter()
        .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
    {
        if let Some(Value::Array(tc)) = m.get("tool_calls") {
            calls.extend(tc.iter().cloned());
        }
        if let Some(fc @ Value::Object(_)) = m.get("function_call") {
            calls.push(fc.clone());
        }
        if let Some(Value::Array(blocks)) = m.get("content") {
            calls.extend(
                blocks
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                    .cloned(),
            );
        }
    }
    if !calls.is_empty() {
        return Some(Said::Calls(calls));
    }
    let last = messages.last()?;
    let words = match last.get("content") {
        Some(Value::String(t)) => !t.trim().is_empty(),
        Some(Value::Array(blocks)) => blocks.iter().any(|b| {
            b.get("text")
                .and_then(Value::as_str)
                .is_some_and(|t| !t.trim().is_empty())
        }),
        _ => false,
    };
    (last.get("role").and_then(Value::as_str) == Some("assistant") && words).then_some(Said::Words)
}

/// Keys holding the turns before the prompt.
fn is_history_key(k: &str) -> bool {
    matches!(
        crate::service::authoring::fields::normalize_label(k).as_str(),
        "history"
            | "chat history"
            | "conversation history"
            | "previous turns"
            | "prior turns"
            | "previous messages"
            | "context messages"
            | "preceding turns"
    )
}

/// Whether a record says it is switched off: `enabled`/`active` false, `skip`/`disabled`/
/// `wip` true, or a state that says it was dropped.
pub(super) fn switched_off(o: &Map<String, Value>) -> bool {
    is_dropped_card(o)
        || o.iter().any(|(k, v)| {
            // (`active` as its languages spell it: `aktiv`, `activo`, `aktibo`, `attivo`.)
            const ON: &[&str] = &[
                "enabled",
                "active",
                "include",
                "run",
                "aktiv",
                "aktive",
                "aktivo",
                "aktibo",
                "activo",
                "activa",
                "actif",
                "attivo",
                "actief",
                "ativo",
                "aktywny",
                "aktivni",
                "aktivny",
                "aktiivinen",
                "aktif",
                "engedelyezve",
                "aktivan",
                "ενεργο",
                "ενεργη",
                "ενεργος",
                "активен",
                "активный",
                "активний",
                "aktyvus",
                "hoat dong",
                "פעיל",
                "فعال",
                "نشط",
                "सक्रिय",
                "ativa",
            ];
            let k = crate::service::authoring::lexicon::fold(k);
            let on = match v {
                Value::Bool(b) => Some(*b),
                Value::String(s) => crate::service::authoring::lexicon::truthy(s),
                _ => None,
            };
            match on {
                Some(false) => ON.contains(&k.as_str()),
                Some(true) => matches!(
                    k.as_str(),
                    "skip" | "skipped" | "disabled" | "ignore" | "ignored" | "wip"
                ),
                None => false,
            }
        })
}

/// Whether a key names what a case expects (`expect`, `expected`, `assert`, `checks`).
fn is_expectation_key(k: &str) -> bool {
    let f = crate::service::authoring::lexicon::fold(k);
    [
        "expect",
        "expected",
        "expectation",
        "expectations",
        "assert",
        "asserts",
        "assertions",
        "checks",
        "then",
        "should",
    ]
    .contains(&f.trim())
        || crate::service::authoring::lexicon::label_role(k)
            == Some(crate::service::authoring::lexicon::LabelRole::Expected)
}

/// This API's own step shape, copied one-to-one.
fn steps_draft(
    o: &Map<String, Value>,
    steps: &[Value],
    start: usize,
    end: usize,
    shape: &str,
) -> Draft {
    let mut d = Draft {
        start_line: start,
        end_line: end,
        ..Draft::default()
    };
    let s = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_string);
    d.title = s("title").or_else(|| s("name")).unwrap_or_default();
    d.key = s("declaredId").or_else(|| s("id"));
    d.expected_output = s("expectedOutput");
    d.scenario = s("scenario");
    // `runs` (1 to 10) is the case's iterations; anything else is not copied as is.
    match o.get("runs").or(o.get("iterations")) {
        None | Some(Value::Null) => {}
        Some(v) => match v.as_i64().filter(|n| (1..=10).contains(n)) {
            Some(n) => d.iterations = Some(n),
            None => d
                .notes
                .push(format!("`runs` = {v} is not 1 to 10; the case runs once")),
        },
    }
    // Keys of a suite test this reader does not carry over make the copy inexact.
    const KNOWN: &[&str] = &[
        "title",
        "name",
        "id",
        "declaredId",
        "steps",
        "runs",
        "iterations",
        "expectedOutput",
        "isNegative",
        "isNegativeTest",
        "scenario",
        "model",
        "provider",
        "models",
    ];
    for k in o.keys().filter(|k| !KNOWN.contains(&k.as_str())) {
        d.notes.push(format!("the key `{k}` was not imported"));
    }
    if o.get("model")
        .or(o.get("provider"))
        .or(o.get("models"))
        .is_some()
    {
        d.notes
            .push("the source's model was not imported; the case runs on the suite's".into());
    }
    d.negative = o
        .get("isNegative")
        .or(o.get("isNegativeTest"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    for st in steps {
        match st.get("kind").and_then(Value::as_str) {
            Some("prompt") => {
                if let Some(p) = st.get("prompt").and_then(Value::as_str) {
                    d.prompts.push(p.to_string());
                }
            }
            Some("toolCall") => {
                let tool = st
                    .get("toolName")
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string();
                let args = st.get("arguments").and_then(Value::as_object).cloned();
                if d.tool_call.is_none() && d.prompts.is_empty() {
                    d.tool_call = Some(ExpectedCall { tool, args });
                } else {
                    d.unsupported
                        .push("several toolCall steps, or one after a prompt".into());
                }
            }
            Some("assert") => {
                if let Some(a) = st.get("assertion") {
                    d.assertions.push(a.clone());
                }
            }
            Some(other) => d
                .unsupported
                .push(format!("`{other}` steps are not imported")),
            None => {}
        }
    }
    if d.unsupported.is_empty() && d.notes.is_empty() {
        d.exact_rule = Some(format!("{shape}: evaldeck steps copied one-to-one"));
    }
    d
}

#[cfg(test)]
mod tests {
    use crate::service::authoring::draft::Draft;
    use crate::service::authoring::extract::{Shape, sniff};

    fn extract(t: &str) -> Vec<Draft> {
        crate::service::authoring::extract::extract(
            t,
            &crate::service::authoring::catalog::demo_tools(),
        )
    }

    #[test]
    fn wrapped_array_with_spans() {
        let t = "{\n  \"name\": \"calc\",\n  \"examples\": [\n    {\n      \"input\": \"What is 2 + 3?\",\n      \"expected_output\": \"5\",\n      \"expected_tools\": [{\"name\": \"get-sum\", \"input_parameters\": {\"a\": 2, \"b\": 3}}]\n    },\n    {\"input\": \"Write a haiku\", \"expected_tools\": []}\n  ]\n}\n";
        assert_eq!(sniff(t), Shape::Json);
        let d = extract(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!((d[0].start_line, d[0].end_line), (4, 8));
        assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], 3);
        assert!(d[0].exact_rule.is_some(), "{:?}", d[0]);
        assert!(d[1].negative);
        assert_eq!((d[1].start_line, d[1].end_line), (9, 9));
    }

    #[test]
    fn jsonl_openai_evals_samples() {
        let t = "{\"input\": [{\"role\": \"system\", \"content\": \"Be brief\"}, {\"role\": \"user\", \"content\": \"Echo ping\"}], \"ideal\": \"ping\"}\n{\"input\": [{\"role\": \"user\", \"content\": \"Hi\"}, {\"role\": \"assistant\", \"content\": \"Hello\"}, {\"role\": \"user\", \"content\": \"Add 1 and 2\"}], \"ideal\": \"3\"}\n";
        assert_eq!(sniff(t), Shape::Jsonl);
        let d = extract(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].prompts, ["Echo ping"]);
        assert_eq!(d[1].prompts, ["Hi", "Add 1 and 2"]);
        assert_eq!((d[1].start_line, d[1].end_line), (2, 2));
    }

    #[test]
    fn own_suite_json_is_exact() {
        let t = r#"{"tests": [{"title": "Sum", "steps": [{"id": "s1", "kind": "prompt", "prompt": "2+2?"}, {"id": "s2", "kind": "assert", "assertion": {"type": "toolCalledAtLeastOnce", "toolName": "get-sum"}}]}]}"#;
        let d = extract(t);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].assertions.len(), 1);
        assert!(d[0].exact_rule.is_some());
    }

    #[test]
    fn minified_objects_have_their_own_excerpt() {
        let t = r#"[{"input":"Echo one","expected":"one"},{"input":"Echo two","expected":"two"}]"#;
        let d = extract(t);
        assert_eq!(d.len(), 2);
        let r = d[1].excerpt_range.unwrap();
        assert_eq!(&t[r.0..r.1], r#"{"input":"Echo two","expected":"two"}"#);
        assert_eq!((d[1].start_line, d[1].end_line), (1, 1));
        let t = "[\n  {\"input\": \"Echo one\"},\n  {\"input\": \"Echo two\"}\n]\n";
        assert!(extract(t).iter().all(|d| d.excerpt_range.is_none()));
    }

    #[test]
    fn own_suite_runs_and_scenario_are_kept() {
        let t = r#"{"tests": [{"title": "Sum", "runs": 3, "scenario": "A returning customer", "steps": [{"id": "s1", "kind": "prompt", "prompt": "2+2?"}]}, {"title": "Other", "runs": 3, "model": "gpt-4o", "steps": [{"id": "s1", "kind": "prompt", "prompt": "Hi"}]}]}"#;
        let d = extract(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].iterations, Some(3));
        assert_eq!(d[0].scenario.as_deref(), Some("A returning customer"));
        assert!(d[0].exact_rule.is_some(), "{:?}", d[0]);
        assert!(d[1].exact_rule.is_none(), "{:?}", d[1]);
    }
}
