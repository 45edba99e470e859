//! Scores the built-in author on the hand-written corpus (`tests/corpus/authoring`): every
//! document goes through the pure pipeline (segment → ground against the server's tool
//! catalog → extract → build the case) and its cases are matched to the expected ones by
//! line span, the prompt breaking ties (the columns of a sheet on its side share their
//! lines).
//!
//! Per document: recall (matched / expected), precision (matched / produced), tool-name
//! accuracy (matched cases whose positively asserted tools equal the expected set), negative
//! errors, argument accuracy (expected arguments a subset of the produced ones, after NFC),
//! forbidden tools (`neverTools` → `toolNeverCalled`) and prompt text (`promptIncludes` in a
//! prompt step). One set of thresholds for every document.
//!
//! `cargo test --test it authoring_corpus -- --nocapture` prints the table;
//! `EVALDECK_CORPUS_DETAIL=1` adds every mismatch, `EVALDECK_CORPUS_DETAIL=cases` every
//! case produced as well. `EVALDECK_CORPUS_DIR=DIR` scores another
//! corpus of the same layout instead (held-out documents kept outside the repository).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use evaldeck::service::authoring::author_builtin;
use evaldeck::service::authoring::ground::DiscoveredTool;
use evaldeck::spec::case::{EvalCase, StepKind};
use evaldeck::spec::primitives::ToolItem;
use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

const MIN_RECALL: f64 = 0.9;
const MIN_PRECISION: f64 = 0.95;
const MIN_TOOL_ACCURACY: f64 = 0.9;

fn corpus() -> PathBuf {
    std::env::var_os("EVALDECK_CORPUS_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/authoring"),
        PathBuf::from,
    )
}

struct Expected {
    lines: (usize, usize),
    negative: bool,
    tools: BTreeSet<String>,
    args: Map<String, Value>,
    never: Vec<String>,
    prompt_includes: Option<String>,
}

fn expected_cases(v: &Value) -> Vec<Expected> {
    v["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| Expected {
            lines: (
                c["lines"][0].as_u64().unwrap() as usize,
                c["lines"][1].as_u64().unwrap() as usize,
            ),
            negative: c["negative"].as_bool().unwrap_or(false),
            tools: c["tools"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            args: c["args"].as_object().cloned().unwrap_or_default(),
            never: c["neverTools"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|t| t.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default(),
            prompt_includes: c["promptIncludes"].as_str().map(str::to_string),
        })
        .collect()
}

fn catalog(server: &str) -> Vec<DiscoveredTool> {
    let text = std::fs::read_to_string(corpus().join("servers").join(format!("{server}.json")))
        .expect("catalog");
    let tools: Vec<ToolItem> = serde_json::from_str(&text).expect("catalog JSON");
    tools
        .into_iter()
        .map(|tool| DiscoveredTool {
            server_id: format!("srv_{server}"),
            server_name: server.to_string(),
            tool,
        })
        .collect()
}

fn assertions(c: &EvalCase) -> impl Iterator<Item = &Map<String, Value>> {
    c.steps
        .iter()
        .filter(|s| s.kind == StepKind::Assert)
        .filter_map(|s| s.assertion.as_ref())
}

fn str_of<'a>(a: &'a Map<String, Value>, k: &str) -> Option<&'a str> {
    a.get(k).and_then(Value::as_str)
}

/// Tools the case asserts are called (or calls itself in a `toolCall` step).
fn positive_tools(c: &EvalCase) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in &c.steps {
        if s.kind == StepKind::ToolCall
            && let Some(t) = &s.tool_name
        {
            out.insert(t.clone());
        }
    }
    for a in assertions(c) {
        match str_of(a, "type").unwrap_or_default() {
            "toolCalledAtLeastOnce" | "toolCalledWith" | "firstToolWas" => {
                if let Some(t) = str_of(a, "toolName") {
                    out.insert(t.to_string());
                }
            }
            "toolCalledBefore" => {
                for k in ["toolName", "beforeToolName"] {
                    if let Some(t) = str_of(a, k) {
                        out.insert(t.to_string());
                    }
                }
            }
            _ => {}
        }
    }
    out
}

fn never_tools(c: &EvalCase) -> BTreeSet<String> {
    assertions(c)
        .filter(|a| str_of(a, "type") == Some("toolNeverCalled"))
        .filter_map(|a| str_of(a, "toolName").map(str::to_string))
        .collect()
}

/// Every argument the case expects or passes, per tool.
fn produced_args(c: &EvalCase) -> Map<String, Value> {
    let mut out: Map<String, Value> = Map::new();
    let mut add = |tool: &str, args: &Map<String, Value>| {
        let e = out
            .entry(tool.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(m) = e {
            for (k, v) in args {
                m.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    };
    for s in &c.steps {
        if s.kind == StepKind::ToolCall
            && let (Some(t), Some(a)) = (&s.tool_name, &s.arguments)
        {
            add(t, a);
        }
    }
    for a in assertions(c) {
        if str_of(a, "type") == Some("toolCalledWith")
            && let (Some(t), Some(Value::Object(args))) = (
                str_of(a, "toolName"),
                a.get("args").and_then(|x| x.get("args")),
            )
        {
            add(t, args);
        }
    }
    out
}

fn nfc(s: &str) -> String {
    s.nfc().collect()
}

fn same_value(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::String(a), Value::String(b)) => nfc(a) == nfc(b),
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64(),
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_value(x, y))
        }
        (Value::Object(a), Value::Object(b)) => a
            .iter()
            .all(|(k, v)| b.get(k).is_some_and(|w| same_value(v, w))),
        (a, b) => a == b,
    }
}

fn args_hold(want: &Map<String, Value>, got: &Map<String, Value>) -> bool {
    want.iter().all(|(tool, args)| {
        let Some(g) = got.get(tool) else {
            return args.as_object().is_none_or(Map::is_empty);
        };
        args.as_object()
            .map(|m| {
                m.iter()
                    .all(|(k, v)| g.get(k).is_some_and(|w| same_value(v, w)))
            })
            .unwrap_or(true)
    })
}

fn prompt_text(c: &EvalCase) -> String {
    c.steps
        .iter()
        .filter(|s| s.kind == StepKind::Prompt)
        .filter_map(|s| s.prompt.as_deref())
        .collect::<Vec<_>>()
        .join("\n")
}

fn span(c: &EvalCase) -> (usize, usize) {
    let s = c.source.as_ref().expect("source");
    (s.start_line as usize, s.end_line as usize)
}

/// The expected span widened over the blank lines around it.
fn widened(lines: &[&str], (s, e): (usize, usize)) -> (usize, usize) {
    let blank = |n: usize| lines.get(n - 1).is_some_and(|l| l.trim().is_empty());
    let mut a = s;
    while a > 1 && blank(a - 1) {
        a -= 1;
    }
    let mut b = e;
    while b < lines.len() && blank(b + 1) {
        b += 1;
    }
    (a, b)
}

#[derive(Default)]
struct Row {
    doc: String,
    shape: String,
    lang: String,
    expected: usize,
    produced: usize,
    matched: usize,
    tools_ok: usize,
    neg_errors: usize,
    args_cases: usize,
    args_ok: usize,
    never_cases: usize,
    never_ok: usize,
    prompt_cases: usize,
    prompt_ok: usize,
    detail: Vec<String>,
}

impl Row {
    fn recall(&self) -> f64 {
        if self.expected == 0 {
            1.0
        } else {
            self.matched as f64 / self.expected as f64
        }
    }
    fn precision(&self) -> f64 {
        if self.produced == 0 {
            if self.expected == 0 { 1.0 } else { 0.0 }
        } else {
            self.matched as f64 / self.produced as f64
        }
    }
    fn tool_accuracy(&self) -> f64 {
        if self.matched == 0 {
            if self.expected == 0 { 1.0 } else { 0.0 }
        } else {
            self.tools_ok as f64 / self.matched as f64
        }
    }
    fn fails(&self) -> Vec<String> {
        let mut f = Vec::new();
        if self.recall() < MIN_RECALL {
            f.push(format!("recall {:.2}", self.recall()));
        }
        if self.precision() < MIN_PRECISION {
            f.push(format!("precision {:.2}", self.precision()));
        }
        if self.tool_accuracy() < MIN_TOOL_ACCURACY {
            f.push(format!("tool accuracy {:.2}", self.tool_accuracy()));
        }
        if self.neg_errors > 0 {
            f.push(format!("{} negative errors", self.neg_errors));
        }
        f
    }
}

fn ratio(ok: usize, n: usize) -> String {
    if n == 0 {
        "-".into()
    } else {
        format!("{ok}/{n}")
    }
}

fn score(doc: &Path, exp_file: &Path) -> Row {
    let meta: Value =
        serde_json::from_str(&std::fs::read_to_string(exp_file).expect("expected")).expect("json");
    let text = std::fs::read_to_string(doc).expect("document");
    let tools = catalog(meta["server"].as_str().expect("server"));
    let name = doc.file_name().unwrap().to_string_lossy().to_string();
    let cases = author_builtin(&text, &name, &tools, &[]);
    let expected = expected_cases(&meta);
    let lines: Vec<&str> = text.lines().collect();
    let mut row = Row {
        doc: name.chars().take(2).collect(),
        shape: meta["shape"].as_str().unwrap_or_default().to_string(),
        lang: meta["language"].as_str().unwrap_or_default().to_string(),
        expected: expected.len(),
        produced: cases.len(),
        ..Row::default()
    };
    let mut used = vec![false; cases.len()];
    for e in &expected {
        let (ws, we) = widened(&lines, e.lines);
        let best = cases
            .iter()
            .enumerate()
            .filter(|(i, _)| !used[*i])
            .filter(|(_, c)| {
                let (s, t) = span(c);
                s <= e.lines.1 && t >= e.lines.0 && s >= ws && t <= we
            })
            .max_by_key(|(_, c)| {
                let (s, t) = span(c);
                let prompted = e
                    .prompt_includes
                    .as_ref()
                    .is_some_and(|p| nfc(&prompt_text(c)).contains(&nfc(p)));
                (t.min(e.lines.1) + 1 - s.max(e.lines.0), prompted)
            })
            .map(|(i, _)| i);
        let Some(i) = best else {
            row.detail.push(format!(
                "  missed {:?}{} {:?}",
                e.lines,
                if e.negative { " (negative)" } else { "" },
                e.prompt_includes.as_deref().unwrap_or_default()
            ));
            continue;
        };
        used[i] = true;
        row.matched += 1;
        let c = &cases[i];
        let got = positive_tools(c);
        if got == e.tools {
            row.tools_ok += 1;
        } else {
            row.detail.push(format!(
                "  tools {:?}: expected {:?}, got {:?} ({:?})",
                e.lines,
                e.tools,
                got,
                c.import.as_ref().and_then(|i| i.note.clone())
            ));
        }
        let negative_wrong = c.is_negative != e.negative || (e.negative && !got.is_empty());
        if negative_wrong {
            row.neg_errors += 1;
            row.detail.push(format!(
                "  negative {:?}: expected {}, got isNegative {} with tools {:?}",
                e.lines, e.negative, c.is_negative, got
            ));
        }
        let want_args: Map<String, Value> = e
            .args
            .iter()
            .filter(|(_, v)| v.as_object().is_some_and(|m| !m.is_empty()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        if !want_args.is_empty() {
            row.args_cases += 1;
            let have = produced_args(c);
            if args_hold(&want_args, &have) {
                row.args_ok += 1;
            } else {
                row.detail.push(format!(
                    "  args {:?}: expected {}, got {}",
                    e.lines,
                    Value::Object(want_args.clone()),
                    Value::Object(have)
                ));
            }
        }
        if !e.never.is_empty() {
            row.never_cases += 1;
            let have = never_tools(c);
            if e.never.iter().all(|t| have.contains(t)) {
                row.never_ok += 1;
            } else {
                row.detail.push(format!(
                    "  neverTools {:?}: expected {:?}, got {:?}",
                    e.lines, e.never, have
                ));
            }
        }
        if let Some(p) = &e.prompt_includes {
            row.prompt_cases += 1;
            if nfc(&prompt_text(c)).contains(&nfc(p)) {
                row.prompt_ok += 1;
            } else {
                row.detail.push(format!(
                    "  prompt {:?}: expected to include {p:?}, got {:?}",
                    e.lines,
                    prompt_text(c)
                ));
            }
        }
    }
    if std::env::var_os("EVALDECK_CORPUS_DETAIL").is_some_and(|v| v == "cases") {
        for c in &cases {
            row.detail.push(format!(
                "  case {:?}{} tools {:?} never {:?} args {} prompt {:?}",
                span(c),
                if c.is_negative { " negative" } else { "" },
                positive_tools(c),
                never_tools(c),
                Value::Object(produced_args(c)),
                prompt_text(c).chars().take(80).collect::<String>()
            ));
        }
    }
    for (i, c) in cases.iter().enumerate() {
        if !used[i] {
            row.detail.push(format!(
                "  extra {:?} {:?}",
                span(c),
                prompt_text(c).chars().take(80).collect::<String>()
            ));
        }
    }
    row
}

#[test]
fn every_corpus_document_scores_above_the_thresholds() {
    let dir = corpus();
    let mut docs: Vec<(PathBuf, PathBuf)> = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("corpus") {
        let p = entry.expect("entry").path();
        let n = p.file_name().unwrap().to_string_lossy().to_string();
        if let Some(stem) = n.strip_suffix(".expected.json") {
            let doc = std::fs::read_dir(&dir)
                .expect("corpus")
                .filter_map(|e| e.ok().map(|e| e.path()))
                .find(|d| {
                    let dn = d.file_name().unwrap().to_string_lossy().to_string();
                    // (`plan.postman_collection.json` is the document of `plan.expected.json`.)
                    dn != n
                        && dn.strip_prefix(stem).is_some_and(|ext| {
                            ext.starts_with('.') && !ext.ends_with(".expected.json")
                        })
                })
                .unwrap_or_else(|| panic!("no document for {n}"));
            docs.push((doc, p));
        }
    }
    docs.sort();
    if std::env::var_os("EVALDECK_CORPUS_DIR").is_none() {
        assert!(docs.len() >= 40, "the corpus has {} documents", docs.len());
    }
    let detail = std::env::var_os("EVALDECK_CORPUS_DETAIL").is_some();
    let rows: Vec<Row> = docs.iter().map(|(d, e)| score(d, e)).collect();
    println!(
        "| doc | shape | lang | expected | produced | matched | recall | precision | tool acc | neg errors | arg acc | never | prompt |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    let mut failures = Vec::new();
    let mut total = Row::default();
    for r in &rows {
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {} | {} | {} | {} |",
            r.doc,
            r.shape,
            r.lang,
            r.expected,
            r.produced,
            r.matched,
            r.recall(),
            r.precision(),
            r.tool_accuracy(),
            r.neg_errors,
            ratio(r.args_ok, r.args_cases),
            ratio(r.never_ok, r.never_cases),
            ratio(r.prompt_ok, r.prompt_cases),
        );
        if detail {
            for d in &r.detail {
                println!("{d}");
            }
        }
        let f = r.fails();
        if !f.is_empty() {
            failures.push(format!("{} ({}): {}", r.doc, r.shape, f.join(", ")));
        }
        total.expected += r.expected;
        total.produced += r.produced;
        total.matched += r.matched;
        total.tools_ok += r.tools_ok;
        total.neg_errors += r.neg_errors;
        total.args_cases += r.args_cases;
        total.args_ok += r.args_ok;
        total.never_cases += r.never_cases;
        total.never_ok += r.never_ok;
        total.prompt_cases += r.prompt_cases;
        total.prompt_ok += r.prompt_ok;
    }
    println!(
        "| all | | | {} | {} | {} | {:.3} | {:.3} | {:.3} | {} | {} | {} | {} |",
        total.expected,
        total.produced,
        total.matched,
        total.recall(),
        total.precision(),
        total.tool_accuracy(),
        total.neg_errors,
        ratio(total.args_ok, total.args_cases),
        ratio(total.never_ok, total.never_cases),
        ratio(total.prompt_ok, total.prompt_cases),
    );
    assert!(
        failures.is_empty(),
        "{} of {} documents below the thresholds (recall ≥ {MIN_RECALL}, precision ≥ {MIN_PRECISION}, tool accuracy ≥ {MIN_TOOL_ACCURACY}, no negative wrong):\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}
