//! YAML-style plans and eval configs (promptfoo's `prompts`/`defaultTest`/`tests`), read
//! by a small block-YAML reader that keeps each node's line span.
//!
//! The subset: block mappings and sequences, plain, single- and double-quoted scalars,
//! `|`/`>` block scalars, flow `[…]`/`{…}` on one line, comments, anchors with their
//! aliases and merge keys (`<<: *base`). Tags and multi-line flow collections are not read
//! (their text is kept as a string). A promptfoo
//! `defaultTest` is merged into every test (its vars as defaults, its asserts appended) and
//! is never a case itself; a single prompt template is rendered with each test's vars.

use serde_json::{Map, Value};
use unicode_normalization::char::is_combining_mark;

use super::json::object_draft;
use super::table::promptfoo_assert_value;
use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::{Draft, value_text};
use crate::service::authoring::fields::{Fields, Role, names_a_case, role_of};
use crate::service::authoring::lexicon;
use crate::service::authoring::lines::LineIndex;
use crate::service::authoring::lines::split_lines;
use crate::service::authoring::yaml_values::scalar;

#[derive(Debug, Clone)]
struct YLine {
    no: usize,
    indent: usize,
    text: String,
}

#[derive(Debug, Clone)]
enum YNode {
    Map(Vec<(String, YNode)>, usize, usize),
    Seq(Vec<YNode>, usize, usize),
    Scalar(Value, usize, usize),
}

impl YNode {
    fn span(&self) -> (usize, usize) {
        match self {
            YNode::Map(_, a, b) | YNode::Seq(_, a, b) | YNode::Scalar(_, a, b) => (*a, *b),
        }
    }

    fn to_value(&self) -> Value {
        match self {
            YNode::Map(m, ..) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), v.to_value())).collect())
            }
            YNode::Seq(s, ..) => Value::Array(s.iter().map(YNode::to_value).collect()),
            YNode::Scalar(v, ..) => v.clone(),
        }
    }

    fn get(&self, key: &str) -> Option<&YNode> {
        match self {
            YNode::Map(m, ..) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }
}

/// Whether a line of the document is a top-level key that holds a list of cases
/// (`tests:`, `cases:`, `scenarios:`…).
pub fn has_case_list_key(t: &str) -> bool {
    split_lines(t).any(|l| {
        // Top-level keys only, and each of these starts with one of four letters.
        if !l.starts_with(['t', 'c', 's', 'e']) {
            return false;
        }
        let k = l.split('#').next().unwrap_or_default().trim_end();
        matches!(
            k,
            "tests:" | "cases:" | "testCases:" | "test_cases:" | "scenarios:" | "evals:"
        )
    })
}

/// Whether a document reads as a YAML plan rather than Markdown or notes.
pub fn looks_like_yaml(t: &str) -> bool {
    if has_case_list_key(t) {
        return true;
    }
    // Markdown that happens to hold `key: value` lines: task-list items or section
    // headings (`## get-sum`) are no YAML.
    let markdown = split_lines(t).any(|l| {
        let l = l.trim_start();
        l.starts_with("- [ ]") || l.starts_with("- [x]") || l.starts_with("- [X]")
    }) || split_lines(t)
        .filter(|l| l.starts_with("## ") && l.len() > 3)
        .count()
        >= 2;
    if markdown {
        return false;
    }
    let lines: Vec<&str> = split_lines(t)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#') && l.trim() != "---")
        .collect();
    // A top-level key holding a list of mappings (`casi:` then `  - id: …`), in a
    // document made of YAML lines.
    // (The lines of a block scalar, `run: |` over a script, are the key's value.)
    let mut block: Option<usize> = None;
    let yamlish = lines
        .iter()
        .filter(|l| {
            let indent = l.len() - l.trim_start().len();
            if block.is_some_and(|b| indent > b) {
                return true;
            }
            block = None;
            let t = l.trim_start();
            let value = t.split_once(": ").map_or("", |(_, v)| v.trim());
            if matches!(value, "|" | ">" | "|-" | ">-" | "|+" | ">+") {
                block = Some(indent);
            }
            is_key_line(t.trim_start_matches("- ")) || t.starts_with("- ")
        })
        .count();
    // A stream of documents of YAML lines (`---` between them, a harness's case a document).
    let separators = split_lines(t)
        .filter(|l| *l == "---" || l.starts_with("--- "))
        .count();
    if separators >= 2 && yamlish * 10 >= lines.len() * 9 && lines.iter().any(|l| is_key_line(l)) {
        return true;
    }
    if yamlish * 10 >= lines.len() * 9
        && lines.windows(2).any(|w| {
            !w[0].starts_with(' ')
                && w[0].trim_end().ends_with(':')
                && is_key_line(w[0])
                && w[1].trim_start().starts_with("- ")
                && is_key_line(&w[1].trim_start()[2..])
        })
    {
        return true;
    }
    // A list of case maps nested deeper (a CI matrix's `include:`), in a document made of
    // YAML lines: lists of maps, and case fields (`prompt:`) among their keys.
    // (Nested: under a top-level key, not a Markdown list of `- User: …` lines.)
    if yamlish * 10 >= lines.len() * 9
        && lines
            .iter()
            .any(|l| !l.starts_with([' ', '-']) && is_key_line(l))
        && lines
            .iter()
            .filter(|l| l.starts_with(' ') && l.trim_start().starts_with("- "))
            .any(|l| is_key_line(&l.trim_start()[2..]))
        && lines
            .iter()
            .filter(|l| {
                let t = l.trim_start();
                let item = t.strip_prefix("- ").unwrap_or(t);
                is_key_line(item)
                    && item.split(':').next().is_some_and(|k| {
                        crate::service::authoring::fields::names_a_case([k.trim()])
                    })
            })
            .count()
            >= 2
    {
        return true;
    }
    // A top-level list of multi-key maps: `- key: v` followed by `  key2: v2`.
    lines.windows(2).any(|w| {
        let a = w[0];
        let b = w[1];
        a.starts_with("- ")
            && is_key_line(&a[2..])
            && b.starts_with("  ")
            && !b[2..].starts_with(' ')
            && is_key_line(&b[2..])
            && !a.contains("**")
    })
}

fn is_key_line(s: &str) -> bool {
    match s.find(':') {
        Some(i) => {
            let k = &s[..i];
            // (`<<: *defaults`: a merge key.)
            (k == "<<"
                || !k.is_empty()
                    && k.chars().all(|c| {
                        c.is_alphanumeric()
                            || is_combining_mark(c)
                            || matches!(c, '_' | '-' | ' ' | '"' | '\'')
                    }))
                && (s.len() == i + 1 || s[i + 1..].starts_with(' '))
        }
        None => false,
    }
}

/// Strips a trailing ` # comment` outside quotes.
fn strip_comment(s: &str) -> &str {
    let mut q: Option<char> = None;
    let b = s.as_bytes();
    for (i, c) in s.char_indices() {
        match (q, c) {
            (None, '"' | '\'') => q = Some(c),
            (Some(o), c) if c == o => q = None,
            (None, '#') if i == 0 || b[i - 1] == b' ' || b[i - 1] == b'\t' => {
                return s[..i].trim_end();
            }
            _ => {}
        }
    }
    s.trim_end()
}

fn ylines(ix: &LineIndex) -> Vec<YLine> {
    (1..=ix.len())
        .filter_map(|no| {
            let raw = ix.line(no);
            let t = raw.trim();
            if t.is_empty() || t.starts_with('#') || t == "---" || t == "..." {
                return None;
            }
            let indent = raw.len() - raw.trim_start_matches([' ', '\t']).len();
            Some(YLine {
                no,
                indent,
                text: without_anchor(strip_comment(raw.trim())),
            })
        })
        .collect()
}

/// A line without its node anchor (`base: &base` → `base:`): a document that reuses a
/// mapping names it, and the name is no value.
fn without_anchor(s: &str) -> String {
    let (head, value) = match s.find(": &") {
        Some(i) => (&s[..i + 1], &s[i + 2..]),
        None if s.starts_with("- &") => ("-", &s[2..]),
        None => return s.to_string(),
    };
    let name_end = value.find(' ').unwrap_or(value.len());
    let rest = value[name_end..].trim();
    if rest.is_empty() {
        head.to_string()
    } else {
        format!("{head} {rest}")
    }
}

/// The values the document names with anchors (`x-sandbox: &sandbox` over its mapping).
fn anchors(ix: &LineIndex, p: &mut Parser) -> Map<String, Value> {
    let mut out = Map::new();
    for j in 0..p.ls.len() {
        let raw = strip_comment(ix.line(p.ls[j].no).trim());
        let Some(at) = raw.find(": &").map(|i| i + 3) else {
            continue;
        };
        let name: String = raw[at..]
            .chars()
            .take_while(|c| !c.is_whitespace())
            .collect();
        let Some((key, _)) = split_key(&p.ls[j].text) else {
            continue;
        };
        let mut k = j;
        let indent = p.ls[j].indent;
        if let Some(v) = p
            .node(&mut k, indent)
            .and_then(|n| n.get(&key).map(YNode::to_value))
        {
            out.insert(name, v);
        }
    }
    out
}

/// The tree with its aliases resolved: `*name` is the anchored value, and `<<: *name` (a
/// merge key) adds the anchored mapping's entries the mapping does not set itself.
fn with_aliases(n: YNode, anchors: &Map<String, Value>) -> YNode {
    match n {
        YNode::Map(m, a, b) => {
            let mut out: Vec<(String, YNode)> = Vec::new();
            let mut merged: Vec<(String, YNode)> = Vec::new();
            for (k, v) in m {
                match (&k[..], &v) {
                    ("<<", YNode::Scalar(Value::String(alias), sa, sb)) => {
                        if let Some(Value::Object(base)) =
                            alias.strip_prefix('*').and_then(|x| anchors.get(x))
                        {
                            merged.extend(
                                base.iter()
                                    .map(|(k, v)| (k.clone(), YNode::Scalar(v.clone(), *sa, *sb))),
                            );
                        }
                    }
                    _ => out.push((k, with_aliases(v, anchors))),
                }
            }
            for (k, v) in merged {
                if !out.iter().any(|(o, _)| *o == k) {
                    out.push((k, v));
                }
            }
            YNode::Map(out, a, b)
        }
        YNode::Seq(items, a, b) => YNode::Seq(
            items
                .into_iter()
                .map(|i| with_aliases(i, anchors))
                .collect(),
            a,
            b,
        ),
        YNode::Scalar(v, a, b) => YNode::Scalar(value_with_aliases(v, anchors), a, b),
    }
}

/// [`with_aliases`] inside a value written in flow style (`{<<: *sandbox, path: x}`).
fn value_with_aliases(v: Value, anchors: &Map<String, Value>) -> Value {
    match v {
        Value::String(s) => match s.strip_prefix('*').and_then(|x| anchors.get(x)) {
            Some(a) => a.clone(),
            None => Value::String(s),
        },
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|i| value_with_aliases(i, anchors))
                .collect(),
        ),
        Value::Object(m) => {
            let mut out = Map::new();
            let mut merged = Map::new();
            for (k, v) in m {
                match (&k[..], v) {
                    ("<<", Value::String(alias)) => {
                        if let Some(Value::Object(base)) =
                            alias.strip_prefix('*').and_then(|x| anchors.get(x))
                        {
                            merged.extend(base.clone());
                        }
                    }
                    (_, v) => {
                        out.insert(k, value_with_aliases(v, anchors));
                    }
                }
            }
            for (k, v) in merged {
                out.entry(k).or_insert(v);
            }
            Value::Object(out)
        }
        other => other,
    }
}

fn split_key(s: &str) -> Option<(String, String)> {
    let (k, rest) = if let Some(stripped) = s.strip_prefix('"') {
        let end = stripped.find('"')?;
        (
            stripped[..end].to_string(),
            stripped[end + 1..].trim_start(),
        )
    } else if let Some(stripped) = s.strip_prefix('\'') {
        let end = stripped.find('\'')?;
        (
            stripped[..end].to_string(),
            stripped[end + 1..].trim_start(),
        )
    } else {
        let i = s
            .find(": ")
            .or_else(|| s.strip_suffix(':').map(|x| x.len()))?;
        if s[..i].contains(['{', '[', '"']) {
            return None;
        }
        (s[..i].trim().to_string(), &s[i..])
    };
    let rest = rest.strip_prefix(':')?;
    Some((k, rest.trim().to_string()))
}

struct Parser<'a, 'b> {
    ls: Vec<YLine>,
    ix: &'b LineIndex<'a>,
}

impl Parser<'_, '_> {
    fn node(&mut self, i: &mut usize, indent: usize) -> Option<YNode> {
        let l = self.ls.get(*i)?.clone();
        if l.indent < indent {
            return None;
        }
        if l.text == "-" || l.text.starts_with("- ") {
            return Some(self.seq(i, l.indent));
        }
        if split_key(&l.text).is_some() {
            return Some(self.map(i, l.indent));
        }
        *i += 1;
        Some(YNode::Scalar(scalar(&l.text), l.no, l.no))
    }

    fn seq(&mut self, i: &mut usize, indent: usize) -> YNode {
        let first = self.ls[*i].no;
        let mut items = Vec::new();
        let mut last = first;
        while let Some(l) = self.ls.get(*i).cloned() {
            if l.indent != indent || !(l.text == "-" || l.text.starts_with("- ")) {
                break;
            }
            let content = l.text[1..].trim_start().to_string();
            let item = if content.is_empty() {
                *i += 1;
                match self.ls.get(*i) {
                    Some(n) if n.indent > indent => {
                        let ind = n.indent;
                        self.node(i, ind)
                            .unwrap_or(YNode::Scalar(Value::Null, l.no, l.no))
                    }
                    _ => YNode::Scalar(Value::Null, l.no, l.no),
                }
            } else {
                // `- key: v` opens a mapping at the content's column.
                let col = indent + (l.text.len() - content.len());
                self.ls[*i] = YLine {
                    no: l.no,
                    indent: col,
                    text: content,
                };
                self.node(i, col)
                    .unwrap_or(YNode::Scalar(Value::Null, l.no, l.no))
            };
            let (a, b) = item.span();
            last = last.max(b);
            items.push(match item {
                YNode::Map(m, _, b) => YNode::Map(m, a.min(l.no), b),
                other => other,
            });
        }
        YNode::Seq(items, first, last)
    }

    fn map(&mut self, i: &mut usize, indent: usize) -> YNode {
        let first = self.ls[*i].no;
        let mut entries = Vec::new();
        let mut last = first;
        while let Some(l) = self.ls.get(*i).cloned() {
            if l.indent != indent {
                break;
            }
            let Some((k, v)) = split_key(&l.text) else {
                break;
            };
            *i += 1;
            let node = if v.is_empty() {
                match self.ls.get(*i) {
                    Some(n)
                        if n.indent > indent
                            || (n.indent == indent
                                && (n.text == "-" || n.text.starts_with("- "))) =>
                    {
                        let ind = n.indent;
                        self.node(i, ind)
                            .unwrap_or(YNode::Scalar(Value::Null, l.no, l.no))
                    }
                    _ => YNode::Scalar(Value::Null, l.no, l.no),
                }
            } else if v.starts_with('|') || v.starts_with('>') {
                let folded = v.starts_with('>');
                let mut end = l.no;
                while let Some(n) = self.ls.get(*i) {
                    if n.indent <= indent {
                        break;
                    }
                    end = n.no;
                    *i += 1;
                }
                let text = if end > l.no {
                    self.block(l.no + 1, end, folded)
                } else {
                    String::new()
                };
                let text = if v.contains('-') {
                    text
                } else {
                    format!("{text}\n")
                };
                YNode::Scalar(Value::String(text), l.no, end)
            } else {
                YNode::Scalar(scalar(&v), l.no, l.no)
            };
            last = last.max(node.span().1);
            entries.push((k, node));
        }
        YNode::Map(entries, first, last)
    }

    fn block(&self, a: usize, b: usize, folded: bool) -> String {
        let raw: Vec<&str> = (a..=b).map(|n| self.ix.line(n)).collect();
        let base = raw
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let lines: Vec<&str> = raw
            .iter()
            .map(|l| if l.len() >= base { &l[base..] } else { "" })
            .collect();
        if folded {
            lines.join(" ")
        } else {
            lines.join("\n")
        }
    }
}

/// The list of mappings, however deep, whose keys name a case (`jobs.route.strategy.matrix
/// .include`): of several (a CI file's `steps` before its matrix), the one whose items
/// most often hold a prompt.
fn nested_cases(n: &YNode) -> Option<Vec<&YNode>> {
    fn lists<'a>(n: &'a YNode, out: &mut Vec<&'a [YNode]>) {
        match n {
            YNode::Seq(items, ..)
                if !items.is_empty()
                    && items.iter().all(|i| matches!(i, YNode::Map(..)))
                    && items.iter().any(|i| match i {
                        YNode::Map(m, ..) => names_a_case(m.iter().map(|(k, _)| k.as_str())),
                        _ => false,
                    }) =>
            {
                out.push(items);
            }
            YNode::Seq(items, ..) => items.iter().for_each(|i| lists(i, out)),
            YNode::Map(m, ..) => m.iter().for_each(|(_, v)| lists(v, out)),
            YNode::Scalar(..) => {}
        }
    }
    let prompted = |items: &[YNode]| {
        items
            .iter()
            .filter(|i| match i {
                YNode::Map(m, ..) => m.iter().any(|(k, _)| {
                    matches!(role_of(k), Role::Prompt | Role::Prompts | Role::Turn(_))
                }),
                _ => false,
            })
            .count()
    };
    let mut found = Vec::new();
    lists(n, &mut found);
    // (The first of the most prompted.)
    let best = found.iter().map(|l| prompted(l)).max()?;
    found
        .into_iter()
        .find(|l| prompted(l) == best)
        .map(|l| l.iter().collect())
}

/// The document's root: the first document's, or of a stream of several documents (`---`
/// between them, as harnesses write one case a document), the list of their mappings.
fn stream(ix: &LineIndex, p: &mut Parser) -> Option<YNode> {
    let seps: Vec<usize> = (1..=ix.len())
        .filter(|&no| {
            let l = ix.line(no);
            l == "---" || l.starts_with("--- ")
        })
        .collect();
    if seps.len() < 2 {
        return p.node(&mut 0, 0);
    }
    let mut docs: Vec<Vec<YLine>> = Vec::new();
    let mut doc = usize::MAX;
    for l in &p.ls {
        let d = seps.iter().take_while(|&&s| s < l.no).count();
        if d != doc {
            docs.push(Vec::new());
            doc = d;
        }
        docs.last_mut()?.push(l.clone());
    }
    let roots: Vec<YNode> = docs
        .into_iter()
        .filter_map(|ls| Parser { ls, ix }.node(&mut 0, 0))
        .collect();
    if roots.iter().filter(|n| matches!(n, YNode::Map(..))).count() < 2 {
        return p.node(&mut 0, 0);
    }
    let (a, b) = (roots[0].span().0, roots[roots.len() - 1].span().1);
    Some(YNode::Seq(roots, a, b))
}

/// Documents a YAML file carries in its literal block scalars (a ConfigMap's `cases.yaml:
/// |` or `cases.json: |`), each as the whole text with every other line blank, so that
/// what is read from it keeps the file's line numbers.
pub fn embedded_documents(ix: &LineIndex) -> Vec<String> {
    let mut out = Vec::new();
    let mut no = 1;
    while no <= ix.len() {
        let line = strip_comment(ix.line(no));
        let indent = line.len() - line.trim_start().len();
        let literal = split_key(line.trim_start().trim_start_matches("- "))
            .is_some_and(|(_, v)| matches!(v.as_str(), "|" | "|-" | "|+"));
        no += 1;
        if !literal {
            continue;
        }
        let first = no;
        let mut last = no - 1;
        while no <= ix.len() {
            let l = ix.line(no);
            if !l.trim().is_empty() {
                if l.len() - l.trim_start().len() <= indent {
                    break;
                }
                last = no;
            }
            no += 1;
        }
        if last < first + 2 {
            continue;
        }
        let body: Vec<&str> = (first..=last).map(|n| ix.line(n)).collect();
        let base = body
            .iter()
            .filter(|l| !l.trim().is_empty())
            .map(|l| l.len() - l.trim_start().len())
            .min()
            .unwrap_or(0);
        let mut doc = "\n".repeat(first - 1);
        for l in body {
            doc.push_str(l.get(base..).unwrap_or(""));
            doc.push('\n');
        }
        out.push(doc);
    }
    out
}

/// Extracts the cases of a YAML plan.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let mut p = Parser { ls: ylines(ix), ix };
    let Some(root) = stream(ix, &mut p) else {
        return Vec::new();
    };
    let anchors = anchors(ix, &mut p);
    let root = if anchors.is_empty() {
        root
    } else {
        with_aliases(root, &anchors)
    };
    if let Some(YNode::Seq(tests, ..)) = root.get("tests")
        && (root.get("prompts").is_some()
            || root.get("defaultTest").is_some()
            || root.get("providers").is_some()
            || tests
                .iter()
                .any(|t| t.get("vars").is_some() || t.get("assert").is_some()))
    {
        return promptfoo(&root, tests, cat);
    }
    // Cases grouped under the tool they expect (`get-sum:` over its list of cases, and a
    // `no_tool:` list over the cases that call none).
    if let YNode::Map(m, ..) = &root {
        let groups: Vec<(Option<usize>, &YNode)> = m
            .iter()
            .filter(|(_, v)| matches!(v, YNode::Seq(..)))
            .filter_map(|(k, v)| match cat.resolve(k) {
                Some((t, _)) => Some((Some(t), v)),
                None if lexicon::is_none_word(&k.replace(['_', '-'], " ")) => Some((None, v)),
                None => None,
            })
            .collect();
        if groups.iter().filter(|(t, _)| t.is_some()).count() >= 2 {
            let mut drafts = Vec::new();
            for (tool, list) in groups {
                let YNode::Seq(items, ..) = list else {
                    continue;
                };
                for n in items {
                    let (a, b) = n.span();
                    let Some(mut map) = n.to_value().as_object().cloned() else {
                        continue;
                    };
                    let name = tool.map_or(Value::Null, |t| Value::String(cat.name(t).into()));
                    map.entry("expected_tool").or_insert(name);
                    drafts.push(object_draft(&map, a, b, "YAML item", cat));
                }
            }
            return drafts;
        }
    }
    let items: Vec<&YNode> = match &root {
        YNode::Seq(items, ..) => items.iter().collect(),
        // The list of cases under a wrapping key (`tests`, `cases`, `casi`, `examples`…):
        // the named ones first, else the first list of mappings.
        YNode::Map(m, ..) => {
            fn maps(v: &YNode) -> Option<Vec<&YNode>> {
                match v {
                    YNode::Seq(items, ..)
                        if !items.is_empty()
                            && items.iter().all(|i| matches!(i, YNode::Map(..))) =>
                    {
                        Some(items.iter().collect::<Vec<_>>())
                    }
                    _ => None,
                }
            }
            m.iter()
                .find(|(k, _)| {
                    [
                        "tests",
                        "cases",
                        "testCases",
                        "test_cases",
                        "scenarios",
                        "evals",
                        "examples",
                    ]
                    .contains(&k.as_str())
                })
                .and_then(|(_, v)| maps(v))
                .or_else(|| m.iter().find_map(|(_, v)| maps(v)))
                .or_else(|| nested_cases(&root))
                .unwrap_or_default()
        }
        _ => Vec::new(),
    };
    let mut maps: Vec<(usize, usize, Map<String, Value>)> = items
        .into_iter()
        .filter_map(|n| {
            let (a, b) = n.span();
            Some((a, b, n.to_value().as_object()?.clone()))
        })
        .collect();
    // (Keys in a language the lexicon lacks take the roles their values show.)
    let mut records: Vec<Map<String, Value>> =
        maps.iter_mut().map(|(_, _, m)| std::mem::take(m)).collect();
    super::keys::name_unknown(&mut records, cat);
    for ((_, _, m), r) in maps.iter_mut().zip(records) {
        *m = r;
    }
    let mut drafts: Vec<Draft> = maps
        .iter()
        .map(|(a, b, m)| object_draft(m, *a, *b, "YAML item", cat))
        .collect();
    none_by_column(
        &maps.iter().map(|(_, _, m)| m).collect::<Vec<_>>(),
        &mut drafts,
        cat,
    );
    // Steps that run an eval command with the case in its flags (`run: mcp-eval --prompt
    // "…" --expect-tool slow`), beside the list or instead of it.
    let mut steps = Vec::new();
    command_steps(&root, &mut steps);
    for (a, b, m) in steps {
        if !drafts.iter().any(|d| d.start_line <= b && a <= d.end_line) {
            let d = object_draft(&m, a, b, "YAML item", cat);
            if d.is_case() {
                drafts.push(d);
            }
        }
    }
    drafts.sort_by_key(|d| d.start_line);
    drafts
}

/// The mappings whose command (a multi-word scalar) passes a prompt as a flag, with a
/// prompt of its own (not a template's `${{ matrix.case.prompt }}`).
fn command_steps(n: &YNode, out: &mut Vec<(usize, usize, Map<String, Value>)>) {
    match n {
        YNode::Map(m, a, b) => {
            let runs = m.iter().any(|(_, v)| match v {
                YNode::Scalar(Value::String(t), ..) => {
                    t.contains("--")
                        && !t.contains("{{")
                        && t.split_whitespace().any(|w| {
                            w.strip_prefix("--").is_some_and(|f| {
                                lexicon::label_role(f.split('=').next().unwrap_or(f))
                                    == Some(lexicon::LabelRole::Prompt)
                            })
                        })
                }
                _ => false,
            });
            if runs && let Some(o) = n.to_value().as_object() {
                out.push((*a, *b, o.clone()));
                return;
            }
            m.iter().for_each(|(_, v)| command_steps(v, out));
        }
        YNode::Seq(items, ..) => items.iter().for_each(|i| command_steps(i, out)),
        YNode::Scalar(..) => {}
    }
}

/// `expect: none` in a list whose other items name a tool under the same key: that item
/// calls no tool at all.
pub fn none_by_column(maps: &[&Map<String, Value>], drafts: &mut [Draft], cat: &Catalog) {
    for key in maps
        .iter()
        .flat_map(|m| m.keys())
        .collect::<std::collections::BTreeSet<_>>()
    {
        if !matches!(role_of(key), Role::Expected | Role::Tool) {
            continue;
        }
        fn value<'a>(m: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
            m.get(key).and_then(Value::as_str).map(str::trim)
        }
        let tools = maps
            .iter()
            .filter(|m| value(m, key).is_some_and(|v| cat.resolve(v).is_some()))
            .count();
        if tools * 2 < maps.len() {
            continue;
        }
        for (m, d) in maps.iter().zip(drafts.iter_mut()) {
            if value(m, key).is_some_and(crate::service::authoring::lexicon::is_none_word)
                && d.expected_calls.is_empty()
                && !d.negative
            {
                d.negative = true;
                d.exact_rule = None;
                d.notes.push(format!(
                    "`{key}` names no tool where the other items name one: no tool at all"
                ));
            }
        }
    }
}

fn promptfoo(root: &YNode, tests: &[YNode], cat: &Catalog) -> Vec<Draft> {
    let templates: Vec<String> = match root.get("prompts").map(YNode::to_value) {
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(|p| match p {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o.get("raw").and_then(Value::as_str).map(str::to_string),
                _ => None,
            })
            .collect(),
        Some(Value::String(s)) => vec![s],
        _ => Vec::new(),
    };
    // A template kept in a file (`file://prompts/x.txt`) cannot be rendered here: the
    // test's prompt variable is the prompt.
    let templates: Vec<String> = templates
        .into_iter()
        .filter(|t| !t.trim_start().starts_with("file://"))
        .collect();
    let default = root
        .get("defaultTest")
        .map(YNode::to_value)
        .unwrap_or(Value::Null);
    let default_vars = default
        .get("vars")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let default_asserts = default
        .get("assert")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut out = Vec::new();
    for t in tests {
        let (a, b) = t.span();
        let v = t.to_value();
        let Some(o) = v.as_object() else { continue };
        // (A test switched off, `skip: true`, is no case.)
        if super::json::switched_off(o) {
            continue;
        }
        let mut vars = default_vars.clone();
        if let Some(Value::Object(tv)) = o.get("vars") {
            for (k, v) in tv {
                vars.insert(k.clone(), v.clone());
            }
        }
        let mut f = Fields::new("promptfoo test");
        if let Some(d) = o.get("description") {
            f.push("description", d.clone());
        }
        let mut rules = Vec::new();
        let mut notes = Vec::new();
        let rendered = templates.first().map(|tpl| render(tpl, &vars));
        match &rendered {
            Some((p, missing)) => {
                f.push("prompt", Value::String(p.clone()));
                for (k, v) in &vars {
                    if !matches!(
                        role_of(k),
                        Role::Prompt | Role::Prompts | Role::Turn(_) | Role::Other
                    ) {
                        f.push(k.clone(), v.clone());
                    }
                }
                if !missing.is_empty() {
                    notes.push(format!(
                        "template variables without a value: {}",
                        missing.join(", ")
                    ));
                }
                if templates.len() > 1 {
                    notes.push(format!(
                        "the first of {} prompt templates was used",
                        templates.len()
                    ));
                }
            }
            None => {
                for (k, v) in &vars {
                    f.push(k.clone(), v.clone());
                }
            }
        }
        let mut d = f.into_draft(a, b, cat);
        let exact = d.exact_rule.take();
        d.notes.extend(notes);
        let asserts = o
            .get("assert")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let inherited = default_asserts.len();
        for (k, asrt) in default_asserts.iter().chain(asserts.iter()).enumerate() {
            let kind = asrt.get("type").and_then(Value::as_str).unwrap_or("equals");
            let value = asrt.get("value").cloned().unwrap_or(Value::Null);
            promptfoo_assert_value(
                &mut d,
                "assert",
                kind,
                &value,
                &mut rules,
                cat,
                k < inherited,
            );
        }
        if d.notes.is_empty() && d.unsupported.is_empty() {
            let mut r = exact.unwrap_or_else(|| "promptfoo test".into());
            if rendered.is_some() {
                r.push_str("; the prompt template rendered with the test's vars");
            }
            if !rules.is_empty() {
                r = format!("{r}; {}", rules.join("; "));
            }
            d.exact_rule = Some(r);
        }
        out.push(d);
    }
    out
}

/// Renders `{{ var }}` placeholders; returns the text and the names left without a value.
fn render(tpl: &str, vars: &Map<String, Value>) -> (String, Vec<String>) {
    let mut out = String::with_capacity(tpl.len());
    let mut missing = Vec::new();
    let mut rest = tpl;
    while let Some(s) = rest.find("{{") {
        out.push_str(&rest[..s]);
        let Some(e) = rest[s..].find("}}") else {
            out.push_str(&rest[s..]);
            rest = "";
            break;
        };
        let name = rest[s + 2..s + e].trim();
        match vars.get(name) {
            Some(v) => out.push_str(&value_text(v)),
            None => {
                missing.push(name.to_string());
                out.push_str(&rest[s..s + e + 2]);
            }
        }
        rest = &rest[s + e + 2..];
    }
    out.push_str(rest);
    (out, missing)
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
    fn promptfoo_config() {
        let t = "description: Calculator\nprompts:\n  - \"Answer briefly: {{question}}\"\ndefaultTest:\n  assert:\n    - type: icontains\n      value: \"\"\ntests:\n  # the first case\n  - description: Adds\n    vars:\n      question: What is 2 + 3?\n    assert:\n      - type: contains\n        value: \"5\"\n  - vars:\n      question: Greet me\n    assert:\n      - type: javascript\n        value: output.length > 0\n";
        assert_eq!(sniff(t), Shape::Yaml);
        let d = extract(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[0].prompts, ["Answer briefly: What is 2 + 3?"]);
        assert_eq!(d[0].title, "Adds");
        assert_eq!((d[0].start_line, d[0].end_line), (10, 15));
        assert!(d[0].contains.iter().any(|n| n.text == "5"));
        assert_eq!((d[1].start_line, d[1].end_line), (16, 20));
        assert!(!d[1].unsupported.is_empty());
    }

    #[test]
    fn plain_yaml_plan() {
        let t = "- name: Sum\n  prompt: What is 2 + 3?\n  tool: get-sum\n  args: {a: 2, b: 3}\n- name: Refuse\n  prompt: |\n    Delete everything.\n    Now.\n  negative: true\n";
        assert_eq!(sniff(t), Shape::Yaml);
        let d = extract(t);
        assert_eq!(d.len(), 2, "{d:#?}");
        assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["a"], 2);
        assert_eq!((d[1].start_line, d[1].end_line), (5, 9));
        assert_eq!(d[1].prompts, ["Delete everything.\nNow."]);
        assert!(d[1].negative);
    }
}
