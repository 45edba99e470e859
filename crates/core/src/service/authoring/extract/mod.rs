//! The built-in extractor: deterministic, offline, grounded in the live tools, and honest
//! about what it read.
//!
//! One pipeline for every document, whatever its shape or language:
//!
//! 1. **Segment by structure.** [`sniff`] tells the document's shape from its text alone
//!    (the spec declares no format) and a reader cuts it into candidate units with exact
//!    line spans: JSON arrays and wrapped arrays, JSONL lines, YAML sequences (promptfoo's
//!    `tests:`, where `defaultTest` is applied to each and is not a case), CSV/TSV records
//!    (the header found below title or blank rows; quoted multi-line cells; a record
//!    continued on rows with an empty key), Gherkin scenarios and each `Examples` row of an
//!    outline, and text: heading sections, list and task-list items, table rows,
//!    paragraphs and chat messages ([`text`]).
//! 2. **Ground first.** Tools are discovered before authoring, so the [`Catalog`] is the
//!    dictionary: a tool mention is text that resolves to a live tool; a parameter name is
//!    never a tool; argument values are typed by the tool's input schema.
//! 3. **Read each unit** ([`read_unit`](super::unit::read_unit)): field labels in the
//!    lexicon's languages, the prompt (a prompt field, else a quoted utterance), the
//!    expectation, negatives and forbidden tools ([`reading`](super::reading)). Record keys
//!    and sheet columns in a language the lexicon lacks take the roles their values show
//!    ([`keys`]).
//! 4. **Precision.** Units that are not cases stay out: no prompt, no expectation, a
//!    section about set-up, environment, exit criteria, dropped ideas, action items or
//!    history, a struck-through prompt, a dropped status.
//!
//! | shape | recognised by | one case is |
//! |---|---|---|
//! | JSON | the text parses as JSON | an object of the case array (top-level, or the first array of objects under `tests`, `cases`, `examples`, `data`, `goldens`, `samples`, `items`, …) |
//! | JSONL | every non-blank line parses as a JSON object | a line |
//! | YAML | a `tests:`/`cases:` key, or a top-level `- ` list of `key: value` maps | an item of that list |
//! | CSV / TSV | a header row of delimiter-separated labels, one of them a prompt, steps or tool column | a record |
//! | HTML / XML | the text starts with a tag | a row of a table with a prompt, steps or tool column; else a repeated element (`<case>`) whose fields name one; else the page read as text |
//! | TOML | `[[…]]` headers and the text parses as TOML | an array-of-tables entry whose keys name a prompt, steps or tool |
//! | shell script | a `#!` line naming a shell | read as text, comments as plain lines, each command's `--flag value` pairs as fields |
//! | INI | `[section]` lines over `key = value` lines | a section whose keys name a case (`args.<name>` keys its arguments) |
//! | SQL | an `INSERT INTO` statement | a row of values, named by the statement's column list |
//! | wiki markup | `h1.`…`h6.` headings (Textile, Confluence) | read as Markdown, line for line: `@code@`, `{{code}}`, `-struck-`, `#` numbered items |
//! | Org | `*` headings with `#+` settings or property drawers | read as the Markdown it corresponds to, line for line |
//! | code | most lines are statements and some import, declare or define | a keyed literal whose keys name a case, a positional one named by a `parametrize` signature, else a test function |
//! | PowerShell | Pester blocks (`Describe`, `It`, `… \| Should -Be`) | as code, once rewritten ([`powershell`]): a `-TestCases` hashtable, else an `It` block |
//! | transcript | `WEBVTT`, or SubRip's numbered cues over `-->` timing lines | a speaker's turn (their cues in a row) |
//! | Gherkin | a `Feature:` line (in any of the ten languages) and scenarios | a scenario, or an outline's example row |
//! | RTF | `{\\rtf` | its text, line for line ([`rtf`]) |
//! | Typst | `#set` rules and `= headings` or `#table(…)` | read as Markdown, line for line ([`typst`]) |
//! | fixed-width table | a header over a rule of dash or equals runs | a row (rewritten as the Markdown table it is) |
//! | text | anything else | a section with one prompt field, a table row, a list item or a paragraph with a prompt and an expectation |

pub mod asciidoc;
pub mod asserts;
pub mod callout;
pub mod chatlog;
pub mod code;
pub mod columns;
pub mod defaults;
pub mod diff;
pub mod doctest;
pub mod gherkin;
pub mod ini;
pub mod json;
pub mod json5;
pub mod keys;
pub mod latex;
pub mod markup;
pub mod mime;
pub mod notebook;
pub mod org;
pub mod outline;
pub mod outliner;
pub mod pages;
pub mod powershell;
pub mod retract;
pub mod robot;
pub mod roff;
pub mod rst;
pub mod rtf;
pub mod shell;
pub mod sql;
pub mod stacked;
pub mod table;
pub mod text;
pub mod toml_tables;
pub mod transcript;
pub mod typst;
pub mod wiki;
pub mod wikitext;
pub mod yaml;

#[cfg(test)]
mod tests;

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::catalog::Catalog;
use super::draft::Draft;
use super::ground::DiscoveredTool;
use super::lines::LineIndex;
use super::reading;
use crate::service::authoring::lines::split_lines;

/// The version recorded as each case's `source.extractorVersion`.
pub const EXTRACTOR_VERSION: &str = "evaldeck-extract/2.0";
/// `generationModel` when the built-in extractor authored the cases.
pub const GENERATION_MODEL: &str = "evaldeck-extract/2";

/// The document shapes the extractor tells apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Json,
    /// JSON5, or JSON with comments.
    Json5,
    Jsonl,
    Yaml,
    Csv(u8),
    Gherkin,
    Markup,
    Toml,
    Org,
    Code,
    /// A PowerShell script (Pester tests), read as code once rewritten.
    PowerShell,
    Notebook,
    Latex,
    /// A Typst document, read as Markdown once rewritten.
    Typst,
    /// Rich Text Format, read as its text.
    Rtf,
    Robot,
    Shell,
    Sql,
    Ini,
    Wiki,
    /// MediaWiki or DokuWiki page source.
    Wikitext(wikitext::Dialect),
    Asciidoc,
    /// A recorded call's transcript (WebVTT, SubRip).
    Transcript,
    /// A chat log exported or pasted as text (WhatsApp, Discord, IRC).
    ChatLog,
    /// A manual page's roff source.
    Roff,
    /// A test run's report (TAP): results, no case.
    RunReport,
    Markdown,
}

/// How many lines of a document the line-based sniffers read.
const SNIFF_LINES: usize = 400;

/// The first [`SNIFF_LINES`] lines of `t`.
fn head(t: &str) -> &str {
    match memchr::memchr_iter(b'\n', t.as_bytes()).nth(SNIFF_LINES) {
        Some(i) => &t[..i],
        None => t,
    }
}

/// Whether the document is a TAP report: `TAP version 13`, or a plan line (`1..8`) and
/// `ok` / `not ok` result lines.
fn looks_like_tap(head: &str) -> bool {
    let lines: Vec<&str> = split_lines(head)
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let plan = |l: &str| {
        l.split_once("..").is_some_and(|(a, b)| {
            a == "1" && !b.is_empty() && b.chars().all(|c| c.is_ascii_digit())
        })
    };
    let results = lines
        .iter()
        .filter(|l| l.starts_with("ok ") || l.starts_with("not ok "))
        .count();
    lines.first().is_some_and(|l| l.starts_with("TAP version"))
        || lines.iter().take(5).any(|l| plan(l)) && results >= 2
}

/// Decides the shape of a document.
pub fn sniff(text: &str) -> Shape {
    let t = text.trim_start_matches('\u{feff}').trim();
    if rtf::looks_like_rtf(t) {
        return Shape::Rtf;
    }
    if notebook::looks_like_notebook(t) {
        return Shape::Notebook;
    }
    if (t.starts_with('{') || t.starts_with('['))
        && serde_json::from_str::<serde_json::Value>(t).is_ok()
    {
        return Shape::Json;
    }
    if json5::to_json(t).is_some() {
        return Shape::Json5;
    }
    let mut lines = t
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .peekable();
    if lines.peek().is_some_and(|l| l.starts_with('{'))
        && t.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .all(|l| l.starts_with('{') && serde_json::from_str::<serde_json::Value>(l).is_ok())
    {
        return Shape::Jsonl;
    }
    if markup::looks_like_markup(t) {
        return Shape::Markup;
    }
    if toml_tables::looks_like_toml(t) {
        return Shape::Toml;
    }
    // Line-based shapes show in a document's first lines: their sniffers read at most
    // `SNIFF_LINES` of a long one (a YAML file's `tests:` key is looked for everywhere).
    let h = head(t);
    if typst::looks_like_typst(h) {
        return Shape::Typst;
    }
    if transcript::looks_like_transcript(h) {
        return Shape::Transcript;
    }
    if looks_like_tap(h) {
        return Shape::RunReport;
    }
    if chatlog::looks_like_chat_log(h) {
        return Shape::ChatLog;
    }
    if gherkin::looks_like_gherkin(h) {
        return Shape::Gherkin;
    }
    if org::looks_like_org(h) {
        return Shape::Org;
    }
    if latex::looks_like_latex(h) {
        return Shape::Latex;
    }
    if roff::looks_like_roff(h) {
        return Shape::Roff;
    }
    if robot::looks_like_robot(h) {
        return Shape::Robot;
    }
    if shell::looks_like_shell(h) {
        return Shape::Shell;
    }
    if sql::looks_like_sql(h) {
        return Shape::Sql;
    }
    if ini::looks_like_ini(h) {
        return Shape::Ini;
    }
    if powershell::looks_like_powershell(h) {
        return Shape::PowerShell;
    }
    if code::looks_like_code(h) {
        return Shape::Code;
    }
    if yaml::looks_like_yaml(h) || (h.len() < t.len() && yaml::has_case_list_key(t)) {
        return Shape::Yaml;
    }
    if let Some(d) = wikitext::dialect(h) {
        return Shape::Wikitext(d);
    }
    if asciidoc::looks_like_asciidoc(h) {
        return Shape::Asciidoc;
    }
    if let Some(d) = table::sniff_delimiter(t) {
        return Shape::Csv(d);
    }
    if wiki::looks_like_wiki(h) {
        return Shape::Wiki;
    }
    Shape::Markdown
}

/// Extracts every case of a document, read against the discovered tools.
pub fn extract(text: &str, tools: &[DiscoveredTool]) -> Vec<Draft> {
    let text = &*mime::decoded(text);
    let catalog = || {
        let cat = Catalog::new(tools).with_comma_decimals(super::catalog::comma_decimals(text));
        let aliases = super::glossary::aliases(text, &cat);
        cat.with_aliases(aliases)
    };
    // (A long document's shape is sniffed on a thread of its own while the catalog is
    // built: neither needs the other, and each reads all of the text.)
    if text.len() < PARALLEL_SNIFF || cores() < 2 {
        return extract_with(text, &catalog());
    }
    // (Sniffing takes the longer: the lines are indexed meanwhile.)
    let (cat, ix, shape) = std::thread::scope(|s| {
        let shape = s.spawn(|| sniff(text));
        let cat = catalog();
        let ix = LineIndex::new(text);
        let shape = shape
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (cat, ix, shape)
    });
    extract_indexed(&ix, &cat, shape)
}

/// The length from which [`extract`] sniffs beside building the catalog (below it, a
/// thread costs more than it saves).
const PARALLEL_SNIFF: usize = 16 * 1024;

/// [`extract`] with a catalog built once.
pub fn extract_with(text: &str, cat: &Catalog) -> Vec<Draft> {
    extract_shaped(text, cat, sniff(text))
}

/// [`extract_with`] for a document whose shape is known.
fn extract_shaped(text: &str, cat: &Catalog, shape: Shape) -> Vec<Draft> {
    extract_indexed(&LineIndex::new(text), cat, shape)
}

/// [`extract_shaped`] with the document's lines indexed.
fn extract_indexed(ix: &LineIndex, cat: &Catalog, shape: Shape) -> Vec<Draft> {
    let text = ix.text();
    let mut drafts = match shape {
        Shape::Json => json::extract(ix, cat),
        Shape::Json5 => match json5::to_json(text) {
            Some(j) => json::extract(&LineIndex::new(&j), cat),
            None => Vec::new(),
        },
        Shape::Jsonl => json::extract_lines(ix, cat),
        Shape::Yaml => {
            let found = yaml::extract(ix, cat);
            if found.iter().any(Draft::is_case) {
                found
            } else {
                // (A file that only carries plans in its block scalars: a ConfigMap's.)
                yaml::embedded_documents(ix)
                    .iter()
                    .flat_map(|doc| extract_with(doc, cat))
                    .collect()
            }
        }
        Shape::Csv(d) => table::extract(ix, d, cat),
        Shape::Gherkin => gherkin::extract(ix, cat),
        Shape::Markup => markup::extract(ix, cat),
        Shape::Toml => toml_tables::extract(ix, cat),
        Shape::Code => code::extract(ix, cat),
        Shape::PowerShell => code::extract(&LineIndex::new(&powershell::to_code(text)), cat),
        Shape::Robot => text::extract(&LineIndex::new(&robot::to_markdown(text)), cat),
        Shape::Shell => shell::extract(ix, cat),
        Shape::Sql => code::extract(&LineIndex::new(&sql::to_code(text)), cat),
        Shape::Ini => ini::extract(ix, cat),
        Shape::Wiki => text::extract(&LineIndex::new(&wiki::to_markdown(text)), cat),
        Shape::Wikitext(d) => text::extract(&LineIndex::new(&wikitext::to_markdown(text, d)), cat),
        Shape::Asciidoc => text::extract(&LineIndex::new(&asciidoc::to_markdown(text)), cat),
        Shape::Latex => text::extract(&LineIndex::new(&latex::to_markdown(text)), cat),
        Shape::Typst => markdown(&LineIndex::new(&typst::to_markdown(text)), cat),
        Shape::Rtf => markdown(&LineIndex::new(&rtf::to_markdown(text)), cat),
        Shape::Roff => markdown(&LineIndex::new(&roff::to_markdown(text)), cat),
        Shape::Notebook => code::extract(&LineIndex::new(&notebook::to_source(text)), cat),
        Shape::Org => {
            let md = org::to_markdown(text);
            text::extract(&LineIndex::new(&md), cat)
        }
        Shape::Transcript => transcript::extract(ix, cat),
        Shape::ChatLog => chatlog::extract(ix, cat),
        Shape::RunReport => Vec::new(),
        Shape::Markdown => markdown(ix, cat),
    };
    drafts.retain(Draft::is_case);
    drop_quoted_repeats(ix, &mut drafts);
    retract::drop_retracted(ix, &mut drafts, !text::crosses_are_failures(text));
    retract::corrected(ix, &mut drafts, cat);
    retract::replace_amended(ix, &mut drafts);
    retract::apply_changes(ix, &mut drafts, cat);
    retract::replace_named(ix, &mut drafts);
    defaults::apply(ix, &mut drafts, cat);
    drop_repeated(&mut drafts);
    let ascii = text.is_ascii();
    // (Each draft is grounded on its own: a long document's in parallel.)
    par_each(&mut drafts, 64, |d| {
        ground_names(d, cat);
        if !ascii {
            verbatim_strings(d, ix.excerpt(d.start_line, d.end_line));
        }
        d.ensure_title();
    });
    drafts
}

/// A Markdown page (and text with no other shape): its passes, then the text reader.
pub(super) fn markdown(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let text = ix.text();
    // Cases in YAML front matter are read as YAML; the page under it as Markdown.
    let (mut found, body) = match front_matter(text) {
        Some((front, body)) => {
            let cases = yaml::extract(&LineIndex::new(&front), cat);
            if cases.is_empty() {
                (cases, Cow::Borrowed(text))
            } else {
                (cases, Cow::Owned(body))
            }
        }
        None => (Vec::new(), Cow::Borrowed(text)),
    };
    let outlined = outliner::as_markdown(&body);
    let unreacted = text::without_reactions(&outlined);
    let bulleted = text::pasted_bullets(&unreacted);
    let uncommented = text::without_block_comments(&bulleted);
    let called_out = callout::as_fields(&uncommented);
    let paged = pages::without_furniture(&called_out);
    let directed = rst::as_markdown(&paged);
    let added = diff::as_added(&directed);
    let marked = text::failed_marks(&added);
    let boxed = text::box_drawn(&marked);
    let accepted = text::accepted_changes(&boxed);
    let replied = text::inline_reply(&accepted);
    let asserted = asserts::as_fields(&replied);
    let columns = columns::as_markdown(&asserted);
    let tabbed = columns::tab_separated(&columns);
    let stacked = stacked::as_markdown(&tabbed);
    let labelled = text::label_headings(&stacked);
    let defined = text::definitions(&labelled);
    let unescaped = text::unescaped(&defined);
    let md: Cow<str> = if doctest::has_examples(&unescaped) {
        Cow::Owned(doctest::as_fields(&unescaped))
    } else {
        unescaped
    };
    // (A page that needed no rewriting is read through the index already built.)
    let unchanged = [
        &body,
        &outlined,
        &unreacted,
        &bulleted,
        &uncommented,
        &called_out,
        &paged,
        &directed,
        &added,
        &marked,
        &boxed,
        &accepted,
        &replied,
        &asserted,
        &columns,
        &tabbed,
        &stacked,
        &labelled,
        &defined,
        &md,
    ]
    .iter()
    .all(|c| matches!(c, Cow::Borrowed(_)));
    if unchanged {
        found.extend(text::extract(ix, cat));
    } else {
        found.extend(text::extract(&LineIndex::new(&md), cat));
    }
    // Cases kept as literals in the page's code blocks (a notebook's `CASES = [{…}]` cell):
    // read as code, where the prose round them holds no case.
    if let Some(source) = code_blocks(&md) {
        let coded: Vec<Draft> = code::extract(&LineIndex::new(&source), cat)
            .into_iter()
            .filter(|c| {
                !found.iter().any(|d| {
                    d.is_case() && d.start_line <= c.end_line && c.start_line <= d.end_line
                })
            })
            .collect();
        found.extend(coded);
        found.sort_by_key(|d| d.start_line);
    }
    found
}

/// A page's fenced blocks of program source, line for line (everything else blank), when
/// it has any.
fn code_blocks(t: &str) -> Option<String> {
    const LANGUAGES: &[&str] = &[
        "python",
        "py",
        "ipython",
        "ipython3",
        "js",
        "javascript",
        "ts",
        "typescript",
        "go",
        "ruby",
        "rb",
        "rust",
        "rs",
        "java",
        "kotlin",
        "kt",
        "swift",
        "csharp",
        "cs",
        "c#",
    ];
    if !super::lines::has(t, "```") {
        return None;
    }
    let mut any = false;
    let mut inside: Option<bool> = None;
    let mut block_start = 0;
    let mut lines: Vec<String> = Vec::new();
    for l in t.lines() {
        let s = l.trim_start();
        if let Some(info) = s.strip_prefix("```") {
            inside = match inside {
                Some(_) => None,
                None => {
                    block_start = lines.len() + 1;
                    // (A chunk R Markdown is told not to run, `{r eval=FALSE}`, is no
                    // part of the plan.)
                    let off = info.replace(' ', "").to_ascii_lowercase();
                    Some(
                        LANGUAGES.contains(&fence_language(info).as_str())
                            && !off.contains("eval=false")
                            && !off.contains("eval=f,")
                            && !off.contains("eval=f}"),
                    )
                }
            };
            lines.push(String::new());
            continue;
        }
        // (Nor is one whose options say so, Quarto's `#| eval: false`.)
        if inside == Some(true) && s.replace(' ', "").eq_ignore_ascii_case("#|eval:false") {
            for kept in &mut lines[block_start..] {
                kept.clear();
            }
            inside = Some(false);
        }
        lines.push(match inside {
            Some(true) => {
                any = true;
                l.to_string()
            }
            _ => String::new(),
        });
    }
    any.then(|| rejoin(t, &lines))
}

/// The language a fence's info string names: its first word, in the braces Quarto and R
/// Markdown put round it (`{python}`, `{r setup, echo=FALSE}`) or before attributes
/// (`python title="cases.py"`).
fn fence_language(info: &str) -> String {
    let info = info.trim().trim_start_matches('{').trim_start_matches('.');
    info.split(|c: char| c.is_whitespace() || matches!(c, '}' | ',' | '{'))
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// A reply quoting a case (`> 5. «…» → fail`) to answer it: the quote is no case, whatever
/// the reply says of the one it quotes.
fn drop_quoted_repeats(ix: &LineIndex, drafts: &mut Vec<Draft>) {
    let quoted: Vec<bool> = (0..drafts.len())
        .map(|k| {
            let d = &drafts[k];
            ix.line(d.start_line).trim_start().starts_with('>')
                && drafts[..k].iter().any(|e| e.prompts == d.prompts)
        })
        .collect();
    let mut k = 0;
    drafts.retain(|_| {
        k += 1;
        !quoted[k - 1]
    });
}

/// A case proposed again further down (a comment quoting a list item it asks for, "add
/// one like "…" → …"): the same user turns as an earlier case, so the earlier one stands.
fn drop_repeated(drafts: &mut Vec<Draft>) {
    let mut seen: std::collections::HashSet<&[String]> = Default::default();
    let keep: Vec<bool> = drafts
        .iter()
        .map(|d| d.prompts.is_empty() || seen.insert(d.prompts.as_slice()))
        .collect();
    let mut k = 0;
    drafts.retain(|_| {
        k += 1;
        keep[k - 1]
    });
}

/// String arguments as the source writes them: the readers work on NFKC text, where a
/// full-width `，` or `！` has become ASCII, but `message: 「你好，MCP！」` means those
/// characters.
fn verbatim_strings(d: &mut Draft, source: &str) {
    for c in &mut d.expected_calls {
        for v in c.args.iter_mut().flat_map(|a| a.values_mut()) {
            if let Value::String(s) = v
                && !source.contains(s.as_str())
                && let Some(orig) = reading::verbatim_in(source, s)
            {
                *s = orig;
            }
        }
    }
}

/// A document opened by YAML front matter (`---` … `---`), as two documents of its lines:
/// the front matter alone, and the page without it (the other's lines left blank).
fn front_matter(t: &str) -> Option<(String, String)> {
    let t0 = t.trim_start_matches('\u{feff}');
    // (The first line says it: the rest is split only for a page that opens so.)
    if t0.lines().next().map(|l| l.trim_end()) != Some("---") {
        return None;
    }
    let lines: Vec<&str> = t0.lines().collect();
    let close =
        (1..lines.len().min(5000)).find(|&k| matches!(lines[k].trim_end(), "---" | "..."))?;
    let front: Vec<String> = (0..lines.len())
        .map(|k| {
            if k > 0 && k < close {
                lines[k].to_string()
            } else {
                String::new()
            }
        })
        .collect();
    let body: Vec<String> = (0..lines.len())
        .map(|k| {
            if k > close {
                lines[k].to_string()
            } else {
                String::new()
            }
        })
        .collect();
    Some((rejoin(t, &front), rejoin(t, &body)))
}

/// The lines a converter wrote for `t`'s lines, one for one, as a document that ends as
/// `t` does: a reader's line numbers in it are `t`'s.
fn rejoin(t: &str, lines: &[String]) -> String {
    let mut doc = lines.join("\n");
    if t.ends_with('\n') {
        doc.push('\n');
    }
    doc
}

/// Which lines (indexed from 1) some draft's span covers.
pub(super) fn covered_lines(ix: &LineIndex, drafts: &[Draft]) -> Vec<bool> {
    let mut covered = vec![false; ix.len() + 2];
    for d in drafts {
        for c in covered
            .iter_mut()
            .take(d.end_line.min(ix.len()) + 1)
            .skip(d.start_line)
        {
            *c = true;
        }
    }
    covered
}

/// `f` on every item, on up to as many threads as there are cores: at least `per_thread`
/// items each (below that a thread costs more than it saves). Items are independent, so
/// a long document reads as fast as its share of the cores allows.
pub(super) fn par_each<T: Send>(items: &mut [T], per_thread: usize, f: impl Fn(&mut T) + Sync) {
    let threads = cores().min(items.len() / per_thread).max(1);
    if threads == 1 {
        items.iter_mut().for_each(f);
        return;
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    // (The calling thread reads the first share itself: one thread fewer to start.)
    std::thread::scope(|s| {
        let mut parts = items.chunks_mut(chunk);
        let first = parts.next();
        for part in parts {
            s.spawn(move || part.iter_mut().for_each(f));
        }
        first.into_iter().flatten().for_each(f);
    });
}

/// How many threads the extractor reads with.
fn cores() -> usize {
    // (Asked once: the standard library reads the cgroup's quota files on every call.)
    static CORES: std::sync::LazyLock<usize> =
        std::sync::LazyLock::new(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    *CORES
}

/// Arguments written per tool (`{"create-item": {"name": "x"}}`): this tool's own.
fn own_args(
    a: Map<String, serde_json::Value>,
    written: &str,
    live: &str,
) -> Map<String, serde_json::Value> {
    match a.get(live).or_else(|| a.get(written)) {
        Some(serde_json::Value::Object(own)) if a.values().all(|v| v.is_object()) => own.clone(),
        _ => a,
    }
}

/// A call's arguments under the tool's own parameter names ([`Catalog::own_names`], each
/// rename noted) and typed by its schema.
fn typed_args(
    cat: &Catalog,
    tool: usize,
    mut args: Map<String, serde_json::Value>,
    notes: &mut Vec<String>,
) -> Map<String, serde_json::Value> {
    for (written, param) in cat.own_names(tool, &mut args, true) {
        notes.push(format!(
            "`{written}` read as the parameter `{param}` of `{}`",
            cat.name(tool)
        ));
    }
    cat.type_args(tool, &args)
}

/// Rewrites every tool a draft names to the live tool it resolves to (noting a spelling
/// that differs), types its arguments by the tool's schema, drops a parameter taken for a
/// tool, and makes a case that forbids every tool of the target negative.
pub fn ground_names(d: &mut Draft, cat: &Catalog) {
    if cat.is_empty() {
        return;
    }
    let mut notes = Vec::new();
    let resolve = |name: &str, notes: &mut Vec<String>| -> Option<(String, Option<usize>)> {
        match cat.resolve(name) {
            Some((i, _)) => {
                let live = cat.name(i).to_string();
                if live != name {
                    let n = format!("`{name}` mapped to the live tool `{live}`");
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
                Some((live, Some(i)))
            }
            None if cat.is_param(name) => {
                notes.push(format!(
                    "`{name}` is a parameter, not a tool; it was not asserted"
                ));
                None
            }
            None => Some((name.to_string(), None)),
        }
    };
    let mut calls: Vec<super::draft::ExpectedCall> = Vec::new();
    for c in std::mem::take(&mut d.expected_calls) {
        let Some((name, idx)) = resolve(&c.tool, &mut notes) else {
            continue;
        };
        let args = match (idx, c.args.map(|a| own_args(a, &c.tool, &name))) {
            (Some(i), Some(a)) => Some(typed_args(cat, i, a, &mut notes)),
            (_, a) => a,
        };
        match calls.iter_mut().find(|x| x.tool == name) {
            Some(x) => {
                if let Some(a) = args {
                    let m = x.args.get_or_insert_with(Map::new);
                    for (k, v) in a {
                        m.entry(k).or_insert(v);
                    }
                }
            }
            None => calls.push(super::draft::ExpectedCall { tool: name, args }),
        }
    }
    d.expected_calls = calls;
    if let Some(c) = d.tool_call.take() {
        match resolve(&c.tool, &mut notes) {
            Some((name, idx)) => {
                let args = match (idx, c.args.map(|a| own_args(a, &c.tool, &name))) {
                    (Some(i), Some(a)) => Some(typed_args(cat, i, a, &mut notes)),
                    (_, a) => a,
                };
                d.tool_call = Some(super::draft::ExpectedCall { tool: name, args });
            }
            None => d.tool_call = None,
        }
    }
    let mut never: Vec<String> = Vec::new();
    for n in std::mem::take(&mut d.never_called) {
        if let Some((name, _)) = resolve(&n, &mut notes)
            && !never.contains(&name)
            && !d.expected_calls.iter().any(|c| c.tool == name)
        {
            never.push(name);
        }
    }
    d.never_called = never;
    if !d.negative
        && d.expected_calls.is_empty()
        && d.tool_call.is_none()
        && (0..cat.len()).all(|i| d.never_called.iter().any(|n| n == cat.name(i)))
    {
        d.negative = true;
        d.never_called.clear();
        notes.push("every tool of the target is forbidden: a negative case".into());
    }
    if d.negative {
        d.expected_calls.clear();
    }
    if !notes.is_empty() {
        d.exact_rule = None;
        for n in notes {
            if !d.notes.contains(&n) {
                d.notes.push(n);
            }
        }
    }
}
