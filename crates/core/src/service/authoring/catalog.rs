//! The live tool catalog as the reader's dictionary: tools are discovered before authoring,
//! so a tool mention is text that resolves to a tool the target offers.
//!
//! - [`Catalog::resolve`]: a written name → a live tool, exactly or by spelling (case,
//!   `_`/`-`/space, camelCase, a `server.`/`server/`/`mcp__server__` prefix, or the part of
//!   a dotted name after its namespace). A parameter name of a live tool is never a tool.
//! - [`Catalog::mentions`]: every tool named in a passage, by name or by description ("the
//!   sum tool", "the tool that adds numbers"), with its byte span.
//! - [`Catalog::read_args`]: argument values written next to a mention (`a=17, b=25`, `with
//!   a = 17 and b = 25`, `{"a": 17}`, `key: value`), typed by the tool's input schema:
//!   numbers lose sentence punctuation, enums match case-insensitively, booleans in every
//!   language of the lexicon.

use serde_json::{Map, Number, Value};

use super::ground::DiscoveredTool;
use super::lexicon::{self, fold, is_cjk};

/// How a mention resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Via {
    /// Written exactly as the live name.
    Exact,
    /// A spelling of the live name.
    Spelling,
    /// Described by the words of its name or description.
    Description,
}

/// A tool named in a passage.
#[derive(Debug, Clone, PartialEq)]
pub struct Mention {
    /// Index into the catalog; `None` for a tool-like name the catalog lacks.
    pub tool: Option<usize>,
    pub start: usize,
    pub end: usize,
    pub via: Via,
    pub written: String,
}

struct Entry {
    name: String,
    /// The name folded and squashed (`get-sum`, `GetSum`, `get sum` → `getsum`).
    key: String,
    /// The squashed part after a namespace (`fs.read_file` → `readfile`).
    short: Option<String>,
    /// Words of the name (`get_air_quality` → get, air, quality).
    words: Vec<String>,
    /// The words joined by spaces (`get sum`), as a text may write the name.
    phrase: String,
    desc: Vec<String>,
    params: Vec<(String, Value)>,
    /// A plain dictionary word (`echo`, `fail`): named in prose only with a tool-ish context.
    plain: bool,
}

/// The tools discovered for a job, indexed for reading.
pub struct Catalog {
    entries: Vec<Entry>,
    servers: Vec<String>,
    params: FastSet<String>,
    /// Whether the document writes a decimal comma and dots between thousands (`7,5`,
    /// `1.250`), as most of Europe and South America do.
    comma_decimals: bool,
    /// Nicknames the document defines for tools ([`super::glossary`]), lower-cased.
    aliases: Vec<(String, usize)>,
    /// Every entry's squashed name and short name: most words of a text are none of them,
    /// and a word without a separator is then no tool (found without comparing entries).
    squashed: FastSet<Vec<u8>>,
}

/// A set hashed with a fast, fixed hasher: the catalog is looked up once a word.
type FastSet<T> = std::collections::HashSet<T, foldhash::fast::FixedState>;

fn squash(s: &str) -> String {
    fold(s).chars().filter(|c| c.is_alphanumeric()).collect()
}

/// [`squash`] of an ASCII word into `buf` (`None`: not ASCII, or too long for it).
fn squash_ascii<'b>(s: &str, buf: &'b mut [u8; 128]) -> Option<&'b [u8]> {
    if !s.is_ascii() {
        return None;
    }
    let mut n = 0;
    for b in s.bytes().filter(u8::is_ascii_alphanumeric) {
        *buf.get_mut(n)? = b.to_ascii_lowercase();
        n += 1;
    }
    Some(&buf[..n])
}

/// Words of an identifier: split at `_-./: ` and camelCase.
pub fn name_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if c.is_alphanumeric() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        } else {
            prev_lower = false;
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

const STOP: &[&str] = &[
    "the", "a", "an", "and", "or", "of", "to", "for", "in", "on", "with", "by", "from", "is",
    "are", "be", "it", "its", "that", "this", "which", "get", "set", "list", "return", "returns",
    "tool", "tools", "one", "two", "all", "any", "given", "de", "la", "le", "el", "der", "die",
    "das", "und", "et", "y", "e", "per", "para", "pour", "plain", "server", "call", "calls", "use",
    "uses", "that", "mcp",
];

fn stem_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.chars().collect::<Vec<_>>(), b.chars().collect::<Vec<_>>());
    let n = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let short = a.len().min(b.len());
    let long = a.len().max(b.len());
    // (A short word is a stem of an inflection of it, `sum` of `sums`, not of every
    // longer word it opens: `summary`.)
    short >= 3 && (n == short && (short >= 5 || long - short <= 3) || n >= 4 && short >= 5)
}

/// Words after which a string value without quotes is no value ("title exactly as quoted").
const NOT_VALUES: &[&str] = &[
    "should",
    "must",
    "is",
    "are",
    "exactly",
    "as",
    "like",
    "something",
    "the",
    "a",
    "an",
    "mentions",
    "mention",
    "contains",
    "contain",
    "of",
    "to",
    "for",
    "in",
    "on",
    "it",
    "doesn't",
    "does",
    "matter",
    "matters",
    "depend",
    "depends",
    "given",
    "and",
    "or",
    "with",
    "enthält",
    "ist",
    "nicht",
    "no",
    "not",
    "jangan",
    "tidak",
    "nie",
    "не",
    "set",
    "then",
    "that",
    "which",
    "from",
];

/// Words between a parameter and its value (`durationMinutes set to 30`, `message 是 …`).
const CONNECTORS: &[&str] = &[
    // Longest first: "is set to" before "is".
    "list is exactly",
    "should be set to",
    "is exactly",
    "are exactly",
    "is set to",
    "should be",
    "must be",
    "should equal",
    "set to",
    "equal to",
    "equals",
    "igual a",
    "doit être",
    "debe ser",
    "deve ser",
    "dovrebbe essere",
    "ska vara",
    "skall vara",
    "bör vara",
    "skal være",
    "skal vere",
    "pitää olla",
    "má byť",
    "musí byť",
    "musí být",
    "má být",
    "trebuie să fie",
    "legyen",
    "برابر با",
    "برابر",
    "مساوی",
    "يساوي",
    "تساوي",
    "שווה ל",
    "שווה",
    "eşittir",
    "esittir",
    "bằng",
    "sama dengan",
    "হবে",
    "होगा",
    "ہوگا",
    "sollte",
    "muss",
    "moet",
    "is",
    "ist",
    "är",
    "er",
    "je",
    "jest",
    "est",
    "es",
    "é",
    "è",
    "of",
    "auf",
    "gleich",
    "设为",
    "是：",
    "就是",
    "应为",
    "为",
    "是",
    "を",
    "は",
    "に",
    "=",
];

/// Prepositions that open a phrase describing the noun before them (`l'outil de somme`,
/// `la herramienta para borrar`).
const PREPOSITIONS: &[&str] = &[
    "de", "d", "du", "des", "di", "da", "do", "del", "della", "van", "voor", "fur", "für", "pour",
    "para", "per", "for", "to", "zum", "zur", "om",
];

/// `t` folded as the lexicon writes its words, with the byte offset in `t` of each of its
/// bytes (and of its end).
fn folded_with_offsets(t: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(t.len());
    let mut at = Vec::with_capacity(t.len() + 1);
    let mut buf = [0u8; 4];
    for (i, c) in t.char_indices() {
        let f = fold(c.encode_utf8(&mut buf));
        at.extend(std::iter::repeat_n(i, f.len()));
        out.push_str(&f);
    }
    at.push(t.len());
    (out, at)
}

impl Catalog {
    pub fn new(tools: &[DiscoveredTool]) -> Self {
        let mut entries = Vec::with_capacity(tools.len());
        let mut params = FastSet::default();
        let mut servers: Vec<String> = Vec::new();
        for t in tools {
            if !servers.contains(&t.server_name) {
                servers.push(t.server_name.clone());
            }
            let name = t.tool.name.clone();
            let short = name
                .rsplit_once(['.', '/'])
                .map(|(_, s)| squash(s))
                .filter(|s| !s.is_empty());
            let props: Vec<(String, Value)> = t
                .tool
                .input_schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object)
                .map(|m| m.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default();
            for (k, _) in &props {
                params.insert(k.clone());
            }
            let desc = t
                .tool
                .description
                .as_deref()
                .map(|d| {
                    name_words(&fold(d))
                        .into_iter()
                        .filter(|w| w.chars().count() >= 3 && !STOP.contains(&w.as_str()))
                        .collect()
                })
                .unwrap_or_default();
            let plain = name.chars().all(|c| c.is_ascii_lowercase());
            let words = name_words(&name);
            entries.push(Entry {
                key: squash(&name),
                short,
                phrase: words.join(" "),
                words,
                desc,
                params: props,
                plain,
                name,
            });
        }
        // A short name shared by two tools names neither.
        let shorts: Vec<Option<String>> = entries.iter().map(|e| e.short.clone()).collect();
        for e in &mut entries {
            if let Some(s) = &e.short
                && shorts.iter().filter(|x| x.as_ref() == Some(s)).count() > 1
            {
                e.short = None;
            }
        }
        let squashed = entries
            .iter()
            .flat_map(|e| [Some(&e.key), e.short.as_ref()])
            .flatten()
            .map(|k| k.as_bytes().to_vec())
            .collect();
        Catalog {
            entries,
            servers,
            params,
            comma_decimals: false,
            aliases: Vec::new(),
            squashed,
        }
    }

    /// The catalog for a document that gives tools nicknames of its own (longest first,
    /// so `old parrot` is found before `parrot`).
    pub fn with_aliases(mut self, aliases: Vec<(String, usize)>) -> Self {
        self.aliases = aliases
            .into_iter()
            .map(|(t, i)| (t.to_lowercase(), i))
            .collect();
        self.aliases
            .sort_by_key(|(t, _)| std::cmp::Reverse(t.len()));
        self
    }

    /// The catalog for a document that writes numbers with a decimal comma.
    pub fn with_comma_decimals(mut self, yes: bool) -> Self {
        self.comma_decimals = yes;
        self
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn name(&self, i: usize) -> &str {
        &self.entries[i].name
    }

    /// Whether `word` is a parameter name of some live tool.
    pub fn is_param(&self, word: &str) -> bool {
        self.params.contains(word)
    }

    /// The one live tool whose parameters `text` assigns, with those arguments: no other
    /// tool takes as many of them. Read are lines that are nothing but assignments
    /// (`numbers = [5.6, 7.2]`) and, in prose, a parameter in a code span given its value
    /// (`… cu `size` = 250000.`).
    pub fn tool_by_args(&self, text: &str) -> Option<(usize, Map<String, Value>)> {
        let lines: Vec<&str> = text
            .lines()
            .filter_map(|l| {
                if self.assigns_params(l) {
                    return Some(l);
                }
                l.match_indices('`').step_by(2).find_map(|(at, _)| {
                    let (name, after) = l[at + 1..].split_once('`')?;
                    (self.is_param(name) && after.trim_start().starts_with(['=', ':']))
                        .then(|| &l[at..])
                })
            })
            .collect();
        if lines.is_empty() {
            return None;
        }
        let assigned = lines.join("\n");
        let found: Vec<(usize, Map<String, Value>)> = (0..self.len())
            .map(|t| (t, self.read_args(t, &assigned)))
            .filter(|(_, a)| !a.is_empty())
            .collect();
        let most = found.iter().map(|(_, a)| a.len()).max()?;
        let mut top = found.into_iter().filter(|(_, a)| a.len() == most);
        let one = top.next()?;
        top.next().is_none().then_some(one)
    }

    /// Whether a cell is nothing but assignments of the live tools' parameters (`a = 1,
    /// b = 2`, `numbers: [1, 2]`, `{"a": 1}`): an argument column whatever its heading.
    pub fn assigns_params(&self, v: &str) -> bool {
        let v = v.trim().trim_matches('`').trim();
        // (A TOML inline table, `{ query = "…", limit = 2 }`, as its assignments.)
        let v = match v.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(inner) if inner.contains('=') && !inner.contains(':') => inner.trim(),
            _ => v,
        };
        if let Ok(serde_json::Value::Object(m)) = serde_json::from_str::<serde_json::Value>(v) {
            return !m.is_empty() && m.keys().all(|k| self.is_param(k));
        }
        let mut names = 0;
        for part in v.split([',', ';']) {
            let part = part.trim();
            if part.is_empty() {
                continue;
            }
            match part.split_once(['=', ':']) {
                Some((k, _)) if self.is_param(k.trim().trim_matches('`')) => names += 1,
                // A list value's later items (`numbers = [12, 15, 18]`).
                None if names > 0 && !part.chars().any(char::is_alphabetic) => {}
                _ => return false,
            }
        }
        names > 0
    }

    pub fn has_param(&self, tool: usize, p: &str) -> bool {
        self.entries[tool].params.iter().any(|(k, _)| k == p)
    }

    /// Resolves a written name to a live tool.
    pub fn resolve(&self, written: &str) -> Option<(usize, Via)> {
        let w = written.trim();
        // (A word that opens and closes with a letter or digit has no quotes to trim, as
        // the words of a text each looked up here have not.)
        let bare = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_alphanumeric());
        let w = if bare(w.bytes().next()) && bare(w.bytes().next_back()) {
            w
        } else {
            w.trim_matches(['`', '"', '\'', '“', '”', '„', '«', '»', '「', '」', '*'])
        };
        if w.is_empty() {
            return None;
        }
        let mut buf = [0u8; 128];
        // (Most words are none of the names: said by one lookup, before the separators.)
        if self.aliases.is_empty()
            && let Some(k) = squash_ascii(w, &mut buf)
            && !self.squashed.contains(k)
            && !w.bytes().any(|b| matches!(b, b'.' | b'/' | b':'))
            && !w.contains("__")
        {
            return None;
        }
        if let Some(i) = self.entries.iter().position(|e| e.name == w) {
            return Some((i, Via::Exact));
        }
        // The word itself, its last `__` part (`mcp__server__tool`), and what follows a
        // server prefix (`server.tool`, `server/tool`, `mcp:tool`).
        let mut candidates = [w, "", "", "", ""];
        let mut n = 1;
        if let Some((_, last)) = w.rsplit_once("__") {
            candidates[n] = last;
            n += 1;
        }
        for sep in ['.', '/', ':'] {
            if let Some((head, rest)) = w.split_once(sep)
                && (self.servers.iter().any(|s| squash(s) == squash(head))
                    || fold(head) == "mcp"
                    || rest.contains(sep))
            {
                candidates[n] = rest;
                n += 1;
            }
        }
        for c in &candidates[..n] {
            // Most words are ASCII: squashed in place, without allocating.
            let owned;
            let k: &[u8] = match squash_ascii(c, &mut buf) {
                Some(k) => k,
                None => {
                    owned = squash(c);
                    owned.as_bytes()
                }
            };
            if k.is_empty() {
                continue;
            }
            if let Some(i) = self.entries.iter().position(|e| e.key.as_bytes() == k) {
                if self.entries[i].name != *c && self.is_param(c) {
                    continue;
                }
                return Some((i, Via::Spelling));
            }
            if let Some(i) = self
                .entries
                .iter()
                .position(|e| e.short.as_deref().map(str::as_bytes) == Some(k))
            {
                if self.is_param(c) {
                    continue;
                }
                return Some((i, Via::Spelling));
            }
        }
        let lower = w.to_lowercase();
        self.aliases
            .iter()
            .find(|(a, _)| *a == lower)
            .map(|&(_, i)| (i, Via::Spelling))
    }

    /// The nicknames the document defined, where `text` writes them: at the start of a
    /// word (and, in a script with spaces, at its end, but for a Korean particle).
    fn alias_mentions(&self, text: &str, out: &mut Vec<Mention>) {
        let lower = text.to_lowercase();
        if lower.len() != text.len() {
            return;
        }
        for (alias, tool) in &self.aliases {
            for (at, _) in lower.match_indices(alias.as_str()) {
                let end = at + alias.len();
                let first = alias.chars().next().unwrap_or(' ');
                let unspaced = lexicon::is_cjk(first) && !is_hangul(first);
                let before = text[..at].chars().next_back();
                let after = text[end..].chars().next();
                let starts = unspaced || before.is_none_or(|c| !c.is_alphanumeric());
                let ends =
                    unspaced || is_hangul(first) || after.is_none_or(|c| !c.is_alphanumeric());
                if !starts || !ends || out.iter().any(|m| m.start < end && at < m.end) {
                    continue;
                }
                out.push(Mention {
                    tool: Some(*tool),
                    start: at,
                    end,
                    via: Via::Spelling,
                    written: text[at..end].to_string(),
                });
            }
        }
    }

    /// Every tool named in `text`, in order.
    pub fn mentions(&self, text: &str) -> Vec<Mention> {
        let mut out: Vec<Mention> = Vec::new();
        let bytes = text.as_bytes();
        // (A name is ASCII: it is read byte by byte, and no byte of another character is
        // one of its.)
        let ident =
            |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b'/' | b':');
        let mut i = 0;
        while i < text.len() {
            if !bytes[i].is_ascii_alphabetic() {
                i += 1;
                continue;
            }
            // The start of a word only.
            if i > 0 {
                let in_word = match bytes[i - 1] {
                    b if b.is_ascii() => b.is_ascii_alphanumeric() || b == b'_',
                    _ => text[..i]
                        .chars()
                        .next_back()
                        .is_some_and(char::is_alphanumeric),
                };
                if in_word {
                    i += 1;
                    continue;
                }
            }
            let mut j = i;
            while j < text.len() && ident(bytes[j]) {
                j += 1;
            }
            let mut end = j;
            while end > i && matches!(bytes[end - 1], b'.' | b':' | b'/' | b'-') {
                end -= 1;
            }
            let token = &text[i..end];
            let start = i;
            i = j.max(i + 1);
            if token.is_empty() {
                continue;
            }
            // `a=17`, `message: …`, `path "…"`: a parameter, not a tool.
            let i0 = start;
            let after = text[end..].trim_start_matches([' ', '`', '*']);
            let resolved = self.resolve(token);
            if resolved.is_none() && self.is_param(token)
                || self.is_param(token) && after.starts_with(['=', ':'])
            {
                continue;
            }
            // `createEvent-Aufruf`, `get-sum-Tool`: a name joined to a noun after it; or
            // to a case ending, as Hungarian and Finnish write (`deleteEvent-et`).
            let (token, end, resolved) = match resolved {
                Some(r) => (token, end, Some(r)),
                None => token
                    .match_indices('-')
                    .rev()
                    .find_map(|(k, _)| {
                        let rest = &token[k + 1..];
                        let ending = (1..=3).contains(&rest.len())
                            && rest.bytes().all(|b| b.is_ascii_lowercase());
                        (rest.starts_with(|c: char| c.is_uppercase()) || ending)
                            .then(|| self.resolve(&token[..k]))
                            .flatten()
                            .map(|r| (&token[..k], start + k, Some(r)))
                    })
                    .unwrap_or((token, end, None)),
            };
            match resolved {
                Some((t, via)) => {
                    if self.entries[t].plain
                        && !self.formatted(text, i0, end)
                        && !self.toolish_context(text, i0, end)
                    {
                        continue;
                    }
                    out.push(Mention {
                        tool: Some(t),
                        start: i0,
                        end,
                        via,
                        written: token.to_string(),
                    });
                }
                None => {
                    if self.unresolved_candidate(text, token, i0, end) {
                        out.push(Mention {
                            tool: None,
                            start: i0,
                            end,
                            via: Via::Exact,
                            written: token.to_string(),
                        });
                    }
                }
            }
        }
        let lower = text.to_lowercase();
        self.spaced_mentions(text, &lower, &mut out);
        if !self.aliases.is_empty() {
            self.alias_mentions(text, &mut out);
        }
        // (The description readers work on the lower-cased text, the same length as the
        // original so its positions hold; one that changes length describes nothing.)
        if lower.len() == text.len() {
            self.described_mentions(text, &lower, &mut out);
            // (One scan for the tool nouns, standing alone and closing compounds.)
            let (nouns, compounds) =
                lexicon::WordSet::of(lexicon::TOOL_NOUNS).find_and_compound_ends(&lower);
            self.described_in_other_words(text, &lower, &nouns, &mut out);
            self.described_in_compounds(text, &lower, &compounds, &mut out);
        }
        out.sort_by_key(|m| m.start);
        out.dedup_by(|b, a| a.start <= b.start && b.start < a.end);
        // "Das veraltete Echo-Tool, das … (`legacy-echo`)": a description named right after
        // in parentheses describes that name.
        let named_after = |k: usize| {
            let m = &out[k];
            out.get(k + 1).is_some_and(|n| {
                m.via == Via::Description
                    && n.via == Via::Exact
                    && n.start >= m.end
                    && n.start - m.end <= 80
                    && text[m.end..n.start]
                        .trim_end_matches(['`', ' '])
                        .ends_with('(')
                    && !text[m.end..n.start].contains(['.', ';', '\n'])
            })
        };
        let keep: Vec<bool> = (0..out.len()).map(|k| !named_after(k)).collect();
        let mut k = 0;
        out.retain(|_| {
            k += 1;
            keep[k - 1]
        });
        out
    }

    /// Whether the token is set off as code or a quote (`x`, "x", {{x}}, „x“).
    fn formatted(&self, text: &str, s: usize, e: usize) -> bool {
        let before = text[..s].chars().next_back();
        let after = text[e..].chars().next();
        matches!(
            (before, after),
            (Some('`'), Some('`'))
                | (Some('"'), Some('"'))
                | (Some('“'), Some('”'))
                | (Some('„'), Some('“'))
                | (Some('„'), Some('”'))
                | (Some('«'), _)
                | (Some('{'), Some('}'))
                | (Some('\''), Some('\''))
                | (Some('「'), Some('」'))
        )
    }

    /// A call verb, a tool noun or an arrow next to the word, or a call-like form after it.
    fn toolish_context(&self, text: &str, s: usize, e: usize) -> bool {
        let after = &text[e..];
        let a = after.trim_start_matches([' ', '*', '`']);
        if a.starts_with(['(', ',', ':', '→', '，', ']']) || a.is_empty() {
            return true;
        }
        let before = fold(&text[..s]);
        let before = before.trim_end_matches([' ', '*', '`', '"']);
        if before.is_empty()
            || before.ends_with(['→', '>', '➜', ':', '：', '、', ',', '['])
            || before.ends_with("->")
        {
            return true;
        }
        let prev_words: Vec<&str> = before
            .rsplit(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .take(2)
            .collect();
        let next = fold(&after.chars().take(40).collect::<String>());
        let next_words: Vec<&str> = next
            .split(|c: char| !c.is_alphanumeric() && c != '\'')
            .filter(|w| !w.is_empty())
            .take(3)
            .collect();
        // (A run of CJK is one "word": `不能调用` ends with the verb.)
        let is_verb = |w: &str| {
            lexicon::CALL_VERBS
                .iter()
                .any(|v| match v.strip_suffix('*') {
                    Some(p) => w.starts_with(p),
                    None => *v == w || v.chars().any(is_cjk) && w.ends_with(v),
                })
        };
        let is_noun = |w: &str| {
            lexicon::TOOL_NOUNS
                .iter()
                .any(|v| match v.strip_suffix('*') {
                    Some(p) => w.starts_with(p),
                    None => *v == w,
                })
        };
        // The last of a list of names: `list-items nem crash`, `get-sum or echo`.
        let listed_after_name = prev_words
            .first()
            .is_some_and(|w| lexicon::listed(lexicon::CONJUNCTIONS, w))
            && {
                let head = before
                    .trim_end_matches(|c: char| c.is_alphanumeric())
                    .trim_end_matches([' ', ',', '、', '`']);
                head.rsplit(|c: char| c.is_whitespace() || c == '`')
                    .next()
                    .is_some_and(|w| self.resolve(w).is_some())
            };
        // (`it should search contacts first, then find free slots`: a spoken expectation
        // puts the tool right after a modal or a sequence word.)
        const LEADS: &[&str] = &[
            "should", "must", "shall", "will", "then", "first", "soll", "sollte", "muss", "dann",
            "doit", "puis", "debe", "deberia", "luego", "deve", "poi", "moet", "dan",
        ];
        listed_after_name
            || prev_words.iter().any(|w| is_verb(w) || is_noun(w))
            || prev_words.first().is_some_and(|w| LEADS.contains(w))
            || next_words.first().is_some_and(|w| is_noun(w) || is_verb(w))
            || next_words
                .get(1)
                .is_some_and(|w| is_verb(w) && next_words[0].len() <= 6)
            || next.trim_start().chars().next().is_some_and(is_cjk)
    }

    /// A tool-like name the catalog lacks, written as code or right after a call verb.
    fn unresolved_candidate(&self, text: &str, token: &str, s: usize, e: usize) -> bool {
        let in_code = text[..s].ends_with('`') && text[e..].starts_with('`');
        // (The word before is looked at last: most tokens are ruled out by their shape.)
        let verb = || {
            let before = fold(&text[..s]);
            let prev = before
                .trim_end_matches([' ', '`'])
                .rsplit(|c: char| !c.is_alphanumeric())
                .find(|w| !w.is_empty())
                .unwrap_or_default();
            [
                "call", "calls", "called", "invoke", "invokes", "uses", "use", "tool",
            ]
            .contains(&prev)
        };
        // `calls `sum``: a name written as code right after a call verb.
        if in_code
            && token.len() >= 3
            && token
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-.".contains(c))
            && !self.is_param(token)
            && verb()
        {
            return true;
        }
        if self.entries.is_empty() && !token.contains(['_', '-']) {
            return false;
        }
        let shaped = (token.contains(['_', '-'])
            || token.chars().skip(1).any(|c| c.is_ascii_uppercase()))
            && token.chars().any(|c| c.is_ascii_lowercase())
            && !token.contains(['/', ':'])
            && !token.contains("..")
            && token
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
            && token.len() >= 4
            && !self.is_param(token)
            && token.rsplit_once('.').is_none_or(|(_, ext)| ext.len() > 4);
        shaped && (in_code || token.contains('_')) && verb()
    }

    /// `get sum`, `list items tool`: a multi-word name written with spaces.
    fn spaced_mentions(&self, text: &str, lower: &str, out: &mut Vec<Mention>) {
        // (ASCII text folds to its lower-case form, already made.)
        if text.is_ascii() {
            return self.spaced_phrases(lower, text, false, out);
        }
        let f = fold(text);
        if f.len() != text.len() {
            // Offsets differ: only ASCII-compatible text is searched this way.
            if !text.is_ascii() {
                return self.spaced_in_ascii_runs(text, out);
            }
        }
        self.spaced_phrases(&f, text, false, out);
    }

    fn spaced_in_ascii_runs(&self, text: &str, out: &mut Vec<Mention>) {
        self.spaced_phrases(&text.to_ascii_lowercase(), text, true, out);
    }

    /// Multi-word tool names (`get sum`) found in `haystack`, a folded copy of `text` with
    /// the same offsets; `ascii_only` keeps to names of ASCII words.
    fn spaced_phrases(&self, haystack: &str, text: &str, ascii_only: bool, out: &mut Vec<Mention>) {
        for (t, e) in self.entries.iter().enumerate() {
            if e.words.len() < 2 || (ascii_only && !e.words.iter().all(|w| w.is_ascii())) {
                continue;
            }
            let phrase = &e.phrase;
            for at in lexicon::find_word(haystack, phrase) {
                let end = at + phrase.len();
                if out.iter().any(|m| m.start <= at && at < m.end)
                    || !text.is_char_boundary(at)
                    || !text.is_char_boundary(end.min(text.len()))
                    || end > text.len()
                {
                    continue;
                }
                if self.formatted(text, at, end) || self.toolish_context(text, at, end) {
                    out.push(Mention {
                        tool: Some(t),
                        start: at,
                        end,
                        via: Via::Spelling,
                        written: text[at..end].to_string(),
                    });
                }
            }
        }
    }

    /// "the sum tool", "the tool that adds numbers", "the statistics tool": a tool noun
    /// with words of one tool's name or description around it.
    fn described_mentions(&self, text: &str, lower: &str, out: &mut Vec<Mention>) {
        // (`l'outil d'écho`: an elided article or preposition is a word of its own.)
        let lower: std::borrow::Cow<str> = if lower.contains('\'') {
            lower.replace('\'', " ").into()
        } else {
            lower.into()
        };
        // The noun for a tool in the languages of the lexicon: "the sum tool", "das
        // Echo-Werkzeug", "l'outil d'écho", "la herramienta de suma".
        const NOUNS: &[&str] = &[
            "tool",
            "one",
            "werkzeug",
            "outil",
            "herramienta",
            "strumento",
            "ferramenta",
            "gereedschap",
        ];
        let mut nouns: Vec<(usize, usize)> = lexicon::WordSet::of(NOUNS)
            .find(&lower)
            .into_iter()
            .map(|(at, len, _)| (at, at + len))
            .collect();
        nouns.sort_unstable();
        for (s, e) in nouns {
            if out.iter().any(|m| m.start <= s && s < m.end + 2) {
                continue;
            }
            let preceding = words_before(&lower[..s]);
            let before: Vec<(usize, &str)> = preceding
                .iter()
                .copied()
                .rev()
                .take_while(|(_, w)| {
                    (!STOP.contains(w) || *w == "the") && !lexicon::listed(lexicon::NEGATION, w)
                })
                .filter(|(_, w)| *w != "the")
                .take(3)
                .collect();
            // ("the adding one" names a tool; "adding one in here" adds a case: `one` is a
            // noun after a determiner only.)
            if &lower[s..e] == "one" {
                let determined = preceding
                    .iter()
                    .rev()
                    .nth(before.len())
                    .is_some_and(|(_, w)| ["the", "a", "an", "that", "this"].contains(w));
                if !determined {
                    continue;
                }
            }
            let mut after: Vec<(usize, &str)> = Vec::new();
            // (A comma may set the relative clause off: `das Tool, das … liefert`.)
            let comma = lower[e..]
                .strip_prefix(", ")
                .map_or(0, |r| lower.len() - e - r.len());
            let rest_at = e + comma;
            let rest = &lower[rest_at..];
            let mut rest_words = words_after(rest);
            // `l'outil d'écho`: the elided preposition is a word of its own.
            if let Some((i, w)) = rest_words.first().copied()
                && let Some(tail) = w.strip_prefix("d'").or_else(|| w.strip_prefix("d’"))
            {
                let cut = w.len() - tail.len();
                rest_words[0] = (i, "d");
                rest_words.insert(1, (i + cut, tail));
            }
            // (`the tool that …`, `yung tool na nagbibigay …`: a relative in the words of
            // the lexicon too.)
            // (Or a verb right after the noun, its relative left out: "whatever tool gives
            // the current time".)
            let relative = rest_words.first().is_some_and(|(_, w)| {
                ["that", "which", "for", "to"].contains(w) || lexicon::listed(lexicon::RELATIVES, w)
            }) || rest_words.first().is_some_and(|(_, w)| {
                w.len() >= 5
                    && w.ends_with('s')
                    && !w.ends_with("ss")
                    && !STOP.contains(w)
                    && !self.is_param(w)
                    && self.resolve(w).is_none()
            });
            if relative
                || rest_words
                    .first()
                    .is_some_and(|(_, w)| ["dello"].contains(w) || lexicon::listed(PREPOSITIONS, w))
            {
                after = rest_words
                    .into_iter()
                    .skip(1)
                    .take_while(|(_, w)| {
                        // ("the tool that adds numbers" describes; "la herramienta de suma
                        // con a=1" names, then gives arguments.)
                        relative
                            || !STOP.contains(w)
                                && !self.is_param(w)
                                && !["con", "avec", "mit", "com", "met", "with"].contains(w)
                    })
                    // (Of a relative clause, its words that say something: "the tool
                    // that returns the current time".)
                    .filter(|(_, w)| !relative || !STOP.contains(w) && w.chars().count() > 2)
                    .take(if relative { 4 } else { 3 })
                    .map(|(i, w)| (i + rest_at, w))
                    .collect();
            }
            let folded: Vec<String> = before.iter().chain(&after).map(|(_, w)| fold(w)).collect();
            let mut words: Vec<&str> = folded.iter().map(String::as_str).collect();
            if words.is_empty() {
                continue;
            }
            // (And what they say in other words: "looks for a gap in everyone's diaries" is
            // "find … slot … people … calendar".)
            if relative {
                let said = fold(&lower[s..after.last().map_or(e, |(i, w)| i + w.len())]);
                for w in lexicon::concepts::english_words(&said) {
                    if !words.contains(&w) {
                        words.push(w);
                    }
                }
            }
            if let Some((t, _)) = self.best_described(&words) {
                let start = before.last().map(|(i, _)| *i).unwrap_or(s);
                let end = after.last().map(|(i, w)| i + w.len()).unwrap_or(e);
                if end > text.len() || !text.is_char_boundary(start) || !text.is_char_boundary(end)
                {
                    continue;
                }
                out.push(Mention {
                    tool: Some(t),
                    start,
                    end,
                    via: Via::Description,
                    written: text[start..end].to_string(),
                });
            }
        }
    }

    /// The one tool whose name or description the words say best (a name word, or two
    /// words of its description), with how many of the words it matched; `None` when none
    /// does or two do equally well.
    fn best_described(&self, words: &[&str]) -> Option<(usize, usize)> {
        let mut best: Option<((usize, usize, bool), usize, usize)> = None;
        let mut tie = false;
        for (t, en) in self.entries.iter().enumerate() {
            let name_hits = words
                .iter()
                .filter(|w| {
                    en.words
                        .iter()
                        .any(|n| !STOP.contains(&n.as_str()) && stem_eq(w, n))
                })
                .count();
            let desc_hits = words
                .iter()
                .filter(|w| en.desc.iter().any(|d| stem_eq(w, d)))
                .count();
            // (One word of a description names a tool when no other tool's says it:
            // "the uptime tool", "the wait tool".)
            let distinctive = || {
                words.iter().any(|w| {
                    en.desc.iter().any(|d| stem_eq(w, d))
                        && self
                            .entries
                            .iter()
                            .filter(|o| o.desc.iter().any(|d| stem_eq(w, d)))
                            .count()
                            == 1
                })
            };
            if name_hits == 0 && desc_hits < 2 && !(desc_hits == 1 && distinctive()) {
                continue;
            }
            let coverage = en
                .words
                .iter()
                .filter(|n| !STOP.contains(&n.as_str()))
                .filter(|n| words.iter().any(|w| stem_eq(w, n)))
                .count()
                * 10
                / en.words.len().max(1);
            // (On a tie, the tool whose verb is said: "lists pull requests" is
            // `list_pull_requests`, not `merge_pull_request`.)
            let verb = en
                .words
                .first()
                .is_some_and(|v| words.iter().any(|w| stem_eq(w, v)));
            let score = (
                (name_hits * 2 + desc_hits, coverage, verb),
                t,
                name_hits.max(desc_hits),
            );
            match best {
                Some((s0, _, _)) if score.0 == s0 => tie = true,
                Some((s0, _, _)) if score.0 < s0 => {}
                _ => {
                    best = Some(score);
                    tie = false;
                }
            }
        }
        best.filter(|_| !tie).map(|(_, t, hits)| (t, hits))
    }

    /// The tool a short phrase describes in any language (`el eco viejo` → `legacy-echo`,
    /// `la que borra` → `delete-item`), by the English words it says.
    pub fn described_by(&self, phrase: &str) -> Option<usize> {
        self.described_with_hits(phrase).map(|(t, _)| t)
    }

    /// [`Self::described_by`], with how many of the phrase's words the tool matched.
    pub fn described_with_hits(&self, phrase: &str) -> Option<(usize, usize)> {
        let f = fold(phrase);
        let mut words: Vec<&str> = lexicon::concepts::english_words(&f);
        let raw = name_words(&f);
        words.extend(
            raw.iter()
                .filter(|w| w.len() >= 3 && !STOP.contains(&w.as_str()))
                .map(String::as_str),
        );
        if words.is_empty() {
            return None;
        }
        self.best_described(&words)
    }

    /// A tool described in the words of another language (`두 수를 더해 합을 돌려주는
    /// 도구`, `l'outil qui supprime un article`, `エラーを返すツール`): the clause before
    /// a tool noun and the one after it, read as English description words.
    fn described_in_other_words(
        &self,
        text: &str,
        lower: &str,
        nouns: &[(usize, usize, usize)],
        out: &mut Vec<Mention>,
    ) {
        const BOUNDS: &[char] = &[
            '\n', '.', ';', ':', '：', '(', '（', ')', '）', ',', '，', '、', '。', '"', '“', '”',
            '「', '」', '`', '→', '|',
        ];
        // (The lexicon writes nouns folded, `tooriist*` for `tööriist`: looked for in the
        // folded text, their places mapped back.)
        let nouns: Vec<(usize, usize)> = if lower.is_ascii() {
            nouns.iter().map(|&(s, len, _)| (s, s + len)).collect()
        } else {
            let (folded, at) = folded_with_offsets(lower);
            lexicon::WordSet::of(lexicon::TOOL_NOUNS)
                .find(&folded)
                .into_iter()
                .map(|(s, len, _)| (at[s], at[s + len]))
                .collect()
        };
        for (s, found_end) in nouns {
            // (To the word's end: `verktyg*` matches `verktyget`; a mark inside a word, a
            // Yoruba tone or an Indic vowel sign, does not end it.)
            let e = lower[found_end..]
                .find(|c: char| !lexicon::is_letter(c))
                .map_or(lower.len(), |i| found_end + i);
            // (English descriptions are read by their own words, above; an English noun
            // before words of another script, `tool สภาพอากาศปัจจุบัน`, is read here.)
            let foreign_after = lower[e..]
                .trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_alphabetic() && !c.is_ascii());
            let english = lower[s..e].starts_with("tool") || lower[s..e].starts_with("function");
            if english && !foreign_after {
                continue;
            }
            // (Other nouns take their modifier after them in many languages: `alat cuaca`.)
            let modifier_after = foreign_after
                || lower[e..]
                    .trim_start()
                    .chars()
                    .next()
                    .is_some_and(char::is_alphabetic);
            // Before the noun, the words of its clause that can describe it: a Korean
            // relative clause runs to eight words, a Latin-script modifier to three, a
            // script without spaces to twenty characters.
            let clause_start = lower[..s].rfind(BOUNDS).map_or(0, |i| {
                i + lower[i..].chars().next().map_or(1, char::len_utf8)
            });
            let before = &lower[clause_start..s];
            let hangul = before
                .chars()
                .any(|c| ('\u{ac00}'..='\u{d7a3}').contains(&c));
            let limit = if hangul { 8 } else { 3 };
            let from = if before.trim().contains(' ') || !before.chars().any(lexicon::is_cjk) {
                let starts: Vec<usize> = before
                    .char_indices()
                    .filter(|&(i, c)| {
                        !c.is_whitespace() && (i == 0 || before[..i].ends_with(char::is_whitespace))
                    })
                    .map(|(i, _)| i)
                    .collect();
                clause_start + starts.len().checked_sub(limit).map_or(0, |k| starts[k])
            } else {
                let n = before.chars().count();
                clause_start
                    + before
                        .char_indices()
                        .nth(n.saturating_sub(20))
                        .map_or(0, |(i, _)| i)
            };
            // After it, a relative clause or a prepositional one (`l'outil qui supprime`,
            // `das Werkzeug, das …`, `the tool for sums`), to its end.
            let after = lower[e..].trim_start();
            let after = after.strip_prefix(',').map_or(after, str::trim_start);
            let opens = after
                .split(|c: char| !c.is_alphanumeric())
                .next()
                .is_some_and(|w| {
                    let w = fold(w);
                    lexicon::listed(lexicon::RELATIVES, &w) || lexicon::listed(PREPOSITIONS, &w)
                });
            let to = if opens {
                // (To the clause's end: a list of what it does may run on past commas,
                // `kas atgriež faila izmēru, laika zīmogus un atļaujas`.)
                let off = lower.len() - after.len();
                off + after
                    .find(|c: char| c != ',' && c != '，' && c != '、' && BOUNDS.contains(&c))
                    .unwrap_or(after.len())
            } else if modifier_after {
                // A modifier after its noun (`công cụ thời tiết`, `alat cuaca`, `tool
                // สภาพอากาศ`): its next three words, up to a bound or an argument.
                let off = lower.len() - after.len();
                let stop = after.find(BOUNDS).unwrap_or(after.len());
                let stop = after[..stop].find('=').unwrap_or(stop);
                let mut end = off;
                for (k, w) in after[..stop].split_whitespace().take(3).enumerate() {
                    // (`tööriista ei kutsuta`: a negation ends it, and what follows is the
                    // verb.)
                    if k > 0 && (foreign_after && w.is_ascii() || self.is_param(w))
                        || lexicon::listed(lexicon::NEGATION, &fold(w))
                    {
                        break;
                    }
                    let at = w.as_ptr() as usize - after.as_ptr() as usize;
                    end = off + at + w.len();
                }
                end
            } else {
                e
            };
            if out.iter().any(|m| m.start < to && from < m.end) {
                continue;
            }
            let clause = fold(&lower[from..to]);
            let mut words: Vec<&str> = lexicon::concepts::english_words(&clause);
            if words.is_empty() {
                continue;
            }
            // (English words set in the clause count too: `(DEPRECATED) 대문자 에코 도구`,
            // `eina que llista les pull requests`.)
            let min = if clause.chars().any(lexicon::is_cjk) {
                3
            } else {
                4
            };
            let raw: Vec<String> = name_words(&clause)
                .into_iter()
                .filter(|w| w.len() >= min && w.is_ascii() && !STOP.contains(&w.as_str()))
                .collect();
            words.extend(raw.iter().map(String::as_str));
            // (One word alone describes only right beside the noun: `에코 도구`, not `liste
            // les outils que …`.)
            let span_words = lower[from..to].split_whitespace().count();
            // (Or in a short phrase right after it: `la herramienta de la hora`.)
            let phrase_after = |t: usize| {
                let next: Vec<&str> = lower[e..to].split_whitespace().take(3).collect();
                (opens || modifier_after)
                    && self
                        .best_described(&lexicon::concepts::english_words(&fold(&next.join(" "))))
                        .is_some_and(|(n, _)| n == t)
            };
            if let Some((t, hits)) = self.best_described(&words)
                && (hits >= 2 || span_words <= 2 || phrase_after(t))
                && text.is_char_boundary(from)
                && text.is_char_boundary(to)
            {
                let written = text[from..to].trim();
                let start = from + (text[from..to].len() - text[from..to].trim_start().len());
                out.push(Mention {
                    tool: Some(t),
                    start,
                    end: start + written.len(),
                    via: Via::Description,
                    written: written.to_string(),
                });
            }
        }
    }

    /// A compound whose last part is a tool noun (`väderverktyget`, `Suchwerkzeug`): the
    /// tool its first part says, in the words of the lexicon's concepts.
    fn described_in_compounds(
        &self,
        text: &str,
        lower: &str,
        compounds: &[(usize, usize, usize)],
        out: &mut Vec<Mention>,
    ) {
        for &(word, part, _) in compounds {
            let modifier = &lower[word..part];
            let end = lower[part..]
                .find(|c: char| !c.is_alphanumeric())
                .map_or(lower.len(), |i| part + i);
            if modifier.chars().count() < 3
                || out.iter().any(|m| m.start < end && word < m.end)
                || !text.is_char_boundary(word)
                || !text.is_char_boundary(end)
            {
                continue;
            }
            let words = lexicon::concepts::english_words(&fold(modifier));
            if let Some((t, _)) = self.best_described(&words) {
                out.push(Mention {
                    tool: Some(t),
                    start: word,
                    end,
                    via: Via::Description,
                    written: text[word..end].to_string(),
                });
            }
        }
    }

    /// Arguments for `tool` written in `text` (the passage after its mention), typed by
    /// the tool's input schema.
    pub fn read_args(&self, tool: usize, text: &str) -> Map<String, Value> {
        let e = &self.entries[tool];
        let mut out = Map::new();
        if e.params.is_empty() {
            return out;
        }
        // A JSON or flow-style object next to the mention.
        if let Some(open) = text.find('{') {
            let close = matching_close(text, open, '{', '}');
            if let Some(close) = close {
                let raw = &text[open..=close];
                let v = serde_json::from_str::<Value>(raw)
                    .ok()
                    .or_else(|| super::yaml_values::parse_flow(raw));
                if let Some(Value::Object(mut m)) = v {
                    // (An object further on may be the reply's, `{"result": 42}`.)
                    let lead = &text[..open];
                    let next_to =
                        lead.split_whitespace().count() <= 3 && !lead.contains(['.', '\n']);
                    self.own_names(tool, &mut m, next_to);
                    for (k, v) in m {
                        if let Some(t) = self.type_value(tool, &k, &v) {
                            out.insert(k, t);
                        }
                    }
                }
            }
        }
        let mut params: Vec<&(String, Value)> = e.params.iter().collect();
        params.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        let lower = text.to_lowercase();
        let same_len = lower.len() == text.len();
        for (p, schema) in params {
            if out.contains_key(p) {
                continue;
            }
            let pl = p.to_lowercase();
            let hay = if same_len { &lower } else { text };
            let needle = if same_len { pl.as_str() } else { p.as_str() };
            // (`event ID evt_889`, `send updates false`: a name in words, as it is said.)
            let words = name_words(p);
            let spaced = (same_len && words.len() >= 2).then(|| words.join(" "));
            for needle in std::iter::once(needle).chain(spaced.as_deref()) {
                let mut from = 0;
                while let Some(i) = hay[from..].find(needle) {
                    let at = from + i;
                    from = at + needle.len();
                    if from > text.len()
                        || !text.is_char_boundary(at)
                        || !text.is_char_boundary(from)
                    {
                        break;
                    }
                    let before_ok = text[..at]
                        .chars()
                        .next_back()
                        .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'));
                    let mut rest = text[from..].chars();
                    let after_ok = match rest.next() {
                        // (`start'ı`: a suffix of the word, as Turkish writes it.)
                        Some('\'' | '’') => !rest.next().is_some_and(char::is_alphabetic),
                        c => c.is_none_or(|c| !(c.is_alphanumeric() || c == '_')),
                    };
                    if !before_ok || !after_ok {
                        continue;
                    }
                    if let Some(v) = self.value_after(&text[from..], schema) {
                        out.insert(p.clone(), self.list_up_to_next_param(tool, v));
                        break;
                    }
                }
                if out.contains_key(p) {
                    break;
                }
            }
        }
        self.read_abbreviated(tool, &lower, text, &mut out);
        self.read_duration(tool, text, &mut out);
        self.read_number_list(tool, text, &mut out);
        self.read_sole_string(tool, text, &mut out);
        out
    }

    /// A list read up to where the next parameter is named (`attendees a@x, b@x,
    /// durationMinutes 45`): that name and what follows are not its items.
    fn list_up_to_next_param(&self, tool: usize, v: Value) -> Value {
        let Value::Array(items) = v else {
            return v;
        };
        let params = &self.entries[tool].params;
        let names_param = |item: &Value| {
            item.as_str().is_some_and(|s| {
                let first = s.split([' ', '=', ':']).next().unwrap_or_default();
                params.iter().any(|(q, _)| q.eq_ignore_ascii_case(first))
            })
        };
        Value::Array(items.into_iter().take_while(|i| !names_param(i)).collect())
    }

    /// A parameter assigned under a short form of its name (`lat=37.0 lon=35.32` for
    /// `latitude` and `longitude`): its first three or four letters, when they start no
    /// other parameter of the tool, followed by `=` or `:`.
    fn read_abbreviated(&self, tool: usize, lower: &str, text: &str, out: &mut Map<String, Value>) {
        if lower.len() != text.len() {
            return;
        }
        let params = &self.entries[tool].params;
        for (p, schema) in params {
            if out.contains_key(p) || p.len() < 6 || !p.is_ascii() {
                continue;
            }
            let pl = p.to_ascii_lowercase();
            for n in [3, 4] {
                let short = &pl[..n];
                let shared = params
                    .iter()
                    .any(|(q, _)| q != p && q.to_ascii_lowercase().starts_with(short));
                if shared {
                    continue;
                }
                let found = lower.match_indices(short).find_map(|(at, _)| {
                    let end = at + n;
                    let whole = lower[..at]
                        .chars()
                        .next_back()
                        .is_none_or(|c| !(c.is_alphanumeric() || c == '_'))
                        && lower[end..]
                            .chars()
                            .next()
                            .is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
                    let assigned = text[end..].trim_start().starts_with(['=', ':']);
                    (whole && assigned)
                        .then(|| self.value_after(&text[end..], schema))
                        .flatten()
                });
                if let Some(v) = found {
                    out.insert(p.clone(), v);
                    break;
                }
            }
        }
    }

    /// A quote right after the mention (`echo` con messaggio "…", `echo` with "…") for the
    /// tool's one free-text parameter, when no name of it was written.
    fn read_sole_string(&self, tool: usize, text: &str, out: &mut Map<String, Value>) {
        let strings: Vec<&String> = self.entries[tool]
            .params
            .iter()
            .filter(|(_, s)| schema_type(s) == "string" && s.get("enum").is_none())
            .map(|(p, _)| p)
            .collect();
        let [param] = strings[..] else {
            return;
        };
        if !out.is_empty() {
            return;
        }
        // (The passage starts after the name, at its closing backtick or quote if any.)
        let text = text.trim_start_matches(['`', '"', '\'', '”', '»', '」', '“']);
        let Some(&(a, b)) = super::reading::quotes(text).first() else {
            return;
        };
        // At most three words before it, and no sentence end.
        let lead = &text[..a];
        let lead = lead.trim_end_matches(|c: char| !c.is_alphanumeric());
        if lead.split_whitespace().count() > 3 || lead.contains(['.', ';', '。', '→', ':']) {
            return;
        }
        let v = text[a..b].trim();
        if !v.is_empty() {
            out.insert(param.clone(), Value::String(v.to_string()));
        }
    }

    /// The numbers the prompt lists, for a tool whose expectation points back at them
    /// ("get-stats with those four numbers").
    pub fn numbers_from_prompt(&self, tool: &str, prompt: &str) -> Option<Map<String, Value>> {
        let (i, _) = self.resolve(tool)?;
        let mut out = Map::new();
        self.read_number_list(i, prompt, &mut out);
        (!out.is_empty()).then_some(out)
    }

    /// A list of numbers written in prose (`mit den Zahlen 8, 12, 7 und 10`) for the tool's
    /// one parameter that takes a list of numbers, when no name of it was written.
    fn read_number_list(&self, tool: usize, text: &str, out: &mut Map<String, Value>) {
        let lists: Vec<&(String, Value)> = self.entries[tool]
            .params
            .iter()
            .filter(|(_, s)| {
                schema_type(s) == "array"
                    && s.get("items")
                        .is_some_and(|i| matches!(schema_type(i), "number" | "integer"))
            })
            .collect();
        let [(param, schema)] = lists[..] else {
            return;
        };
        if out.contains_key(param) {
            return;
        }
        if let Some((_, run)) = number_run(text)
            && let Some(v) = self.typed(schema, &run.join(","), false)
        {
            out.insert(param.clone(), v);
        }
    }

    /// A duration written with its unit (`4 seconds`, `1.5 s`, `750 ms`, `4 detik`, `3秒`)
    /// for the tool's one duration parameter, converted to the unit its name says
    /// (`durationMs`, `timeout_seconds`).
    fn read_duration(&self, tool: usize, text: &str, out: &mut Map<String, Value>) {
        let unit_of = |name: &str| {
            let n = name.to_ascii_lowercase();
            if n.ends_with("ms") || n.ends_with("millis") || n.ends_with("milliseconds") {
                Some(0.001)
            } else if n.ends_with("seconds") || n.ends_with("secs") || n.ends_with("sec") {
                Some(1.0)
            } else {
                None
            }
        };
        let durations: Vec<(&String, f64)> = self.entries[tool]
            .params
            .iter()
            .filter(|(_, s)| matches!(schema_type(s), "integer" | "number"))
            .filter_map(|(p, _)| unit_of(p).map(|u| (p, u)))
            .collect();
        let [(param, unit)] = durations[..] else {
            return;
        };
        if out.contains_key(param) {
            return;
        }
        let f = fold(text);
        let mut found: Option<f64> = None;
        for (i, _) in f.char_indices() {
            if !f[i..].starts_with(|c: char| c.is_ascii_digit())
                || f[..i].ends_with(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
            {
                continue;
            }
            let Some(n) = number_at(&f[i..]) else {
                continue;
            };
            let rest =
                f[i..].trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',');
            let rest = rest.trim_start();
            // A CJK unit is its first one or two characters (`3秒で`, `3秒钟`).
            let word: String = match rest.chars().next() {
                // Thai and its neighbours spell the unit out with no space after it.
                Some(c) if lexicon::is_spelled_no_space(c) => {
                    [MILLISECOND_WORDS, SECOND_WORDS, MINUTE_WORDS]
                        .concat()
                        .into_iter()
                        .filter(|w| rest.starts_with(w))
                        .max_by_key(|w| w.len())
                        .unwrap_or_default()
                        .to_string()
                }
                Some(c) if is_cjk(c) => {
                    let two: String = rest.chars().take(2).collect();
                    if SECOND_WORDS.contains(&two.as_str()) || MINUTE_WORDS.contains(&two.as_str())
                    {
                        two
                    } else {
                        c.to_string()
                    }
                }
                _ => rest.chars().take_while(|c| c.is_alphabetic()).collect(),
            };
            let seconds = if lexicon::listed(MILLISECOND_WORDS, &word) {
                n / 1000.0
            } else if lexicon::listed(SECOND_WORDS, &word)
                || SECOND_WORDS
                    .iter()
                    .any(|w| w.ends_with('*') && word.starts_with(w.trim_end_matches('*')))
            {
                n
            } else if lexicon::listed(MINUTE_WORDS, &word) {
                n * 60.0
            } else {
                continue;
            };
            if found.is_some_and(|x| x != seconds) {
                return;
            }
            found = Some(seconds);
        }
        if let Some(sec) = found {
            let v = sec / unit;
            let v = if (v - v.round()).abs() < 1e-9 {
                v.round()
            } else {
                v
            };
            if let Some(t) = self.type_value(tool, param, &number_value(v)) {
                out.insert(param.clone(), t);
            }
        }
    }

    /// The value written after a parameter name.
    fn value_after(&self, rest: &str, schema: &Value) -> Option<Value> {
        let mut r = rest.trim_start_matches(['`', '*', '"', '\'', '}']);
        let mut explicit = false;
        r = r.trim_start();
        if let Some(x) = r.strip_prefix(['=', ':']) {
            explicit = true;
            r = x.trim_start();
            r = r.strip_prefix(['=', ':']).unwrap_or(r).trim_start();
        } else {
            let f = r.to_lowercase();
            for c in CONNECTORS {
                if f.starts_with(c)
                    && r.is_char_boundary(c.len().min(r.len()))
                    && c.len() <= r.len()
                    && f[c.len()..]
                        .chars()
                        .next()
                        .is_some_and(|ch| !ch.is_alphanumeric() || is_cjk(ch))
                {
                    explicit = true;
                    r = r[c.len()..].trim_start();
                    r = r.strip_prefix([':', '=']).unwrap_or(r).trim_start();
                    break;
                }
            }
        }
        if r.is_empty() {
            return None;
        }
        // ``true``: a code span of two backticks (reStructuredText's) holds the value.
        if let Some(inner) = r.strip_prefix("``") {
            r = inner.find("``").map_or(inner, |close| &inner[..close]);
        }
        // `reason (billing-sync-timeout)`: a value set in parentheses.
        if let Some(inner) = r.strip_prefix('(')
            && let Some(close) = inner.find(')')
            && !inner[..close].contains(['(', ' '])
        {
            r = &inner[..close];
        }
        // `numbers: 1, 1, 2, 3 and 5`: an unbracketed list runs past the commas.
        if schema_type(schema) == "array"
            && let Some((0, run)) = number_run(r)
        {
            return self.typed(schema, &run.join(","), false);
        }
        // `attendees: ana@x.es, luis@x.es`: an unbracketed list of single words.
        if schema_type(schema) == "array"
            && let Some(words) = word_run(r)
        {
            return self.typed(schema, &serde_json::to_string(&words).ok()?, false);
        }
        let mut raw = take_value(r, schema_type(schema) == "array", explicit)?;
        if raw.quoted {
            return self.typed(schema, &raw.text, true);
        }
        // `owner=acme repo=widgets`: pairs parted by spaces, each value up to the next key.
        if let Some(cut) = next_pair(&raw.text) {
            raw.text.truncate(cut);
        }
        if !explicit {
            let first = raw.text.split_whitespace().next().unwrap_or_default();
            let f = fold(first);
            if NOT_VALUES.contains(&f.as_str()) {
                return None;
            }
            let kind = schema_type(schema);
            if kind == "string" && schema.get("enum").is_none() && raw.text.contains(' ') {
                // Without a separator a free string is one word: `owner acme`.
                return self.typed(schema, first, false);
            }
        }
        self.typed(schema, &raw.text, raw.quoted)
    }

    fn typed(&self, schema: &Value, raw: &str, quoted: bool) -> Option<Value> {
        let t = raw.trim();
        if t.is_empty() {
            return None;
        }
        let kind = schema_type(schema);
        match kind {
            "integer" | "number" => {
                // `1 024`, `2 500 000`: digit groups parted by a space are one number.
                let grouped: String;
                let t = match t.split_once([' ', '\u{a0}', '\u{202f}']) {
                    Some((head, rest))
                        if (1..=3).contains(&head.len())
                            && head.bytes().all(|b| b.is_ascii_digit())
                            && rest.split_whitespace().next().is_some_and(|g| {
                                g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit())
                            }) =>
                    {
                        grouped = t.split([' ', '\u{a0}', '\u{202f}']).collect();
                        grouped.as_str()
                    }
                    _ => t,
                };
                let european: String;
                let t = if self.comma_decimals {
                    european = dot_grouped(t);
                    european.as_str()
                } else if comma_grouped(t) {
                    // `1,024`, `2,500,000`: commas between thousands.
                    european = t.replace(',', "");
                    european.as_str()
                } else {
                    t
                };
                // `64 * 1024`, as code writes a size.
                let n = match product(t) {
                    Some(n) => n,
                    None => number_at(t).or_else(|| lexicon::numbers::spelled(t))?,
                };
                if kind == "integer" && n.fract() != 0.0 {
                    return None;
                }
                Some(number_value(n))
            }
            "boolean" => lexicon::truthy(t.split_whitespace().next().unwrap_or(t)).map(Value::Bool),
            "array" => {
                let items = schema.get("items").cloned().unwrap_or(Value::Null);
                let inner = t.trim();
                let inner = inner
                    .strip_prefix('[')
                    .and_then(|x| x.strip_suffix(']'))
                    .unwrap_or(inner);
                if let Ok(Value::Array(a)) = serde_json::from_str::<Value>(&format!("[{inner}]")) {
                    let v: Option<Vec<Value>> = a
                        .iter()
                        .map(|x| self.typed(&items, &value_string(x), x.is_string()))
                        .collect();
                    return v.map(Value::Array);
                }
                // (`[1,5; 2,25; 4]`: where semicolons part the items, commas are decimal.)
                let seps: &[char] = if inner.contains([';', '；']) {
                    &[';', '；']
                } else {
                    &[',', '、', ';']
                };
                let parts: Vec<&str> = inner
                    .split(seps)
                    .map(|x| x.trim().trim_matches(['"', '\'', '`', '“', '”']))
                    .filter(|x| !x.is_empty())
                    .collect();
                if parts.is_empty() {
                    return None;
                }
                let v: Option<Vec<Value>> =
                    parts.iter().map(|x| self.typed(&items, x, true)).collect();
                v.map(Value::Array)
            }
            "object" => serde_json::from_str::<Value>(t)
                .ok()
                .filter(Value::is_object),
            _ => {
                let s = if quoted {
                    t.to_string()
                } else {
                    t.trim_end_matches(['.', ',', ';', '。', '、'])
                        .trim()
                        .to_string()
                };
                if s.is_empty() {
                    return None;
                }
                if let Some(en) = schema.get("enum").and_then(Value::as_array) {
                    let f = fold(&s);
                    let first = f.split_whitespace().next().unwrap_or_default().to_string();
                    return en
                        .iter()
                        .find(|v| v.as_str().is_some_and(|x| fold(x) == f || fold(x) == first))
                        .cloned();
                }
                if kind.is_empty() {
                    if let Some(n) = number_at(&s).filter(|_| s.parse::<f64>().is_ok()) {
                        return Some(number_value(n));
                    }
                    if let Some(b) = lexicon::truthy(&s).filter(|_| !quoted) {
                        return Some(Value::Bool(b));
                    }
                }
                Some(Value::String(s))
            }
        }
    }

    /// A value given as JSON, coerced to the parameter's type ("25." → 25); `None` for a
    /// parameter the tool lacks (kept as written then: grounding reports it).
    pub fn type_value(&self, tool: usize, param: &str, v: &Value) -> Option<Value> {
        let schema = self.entries[tool]
            .params
            .iter()
            .find(|(k, _)| k == param)
            .map(|(_, s)| s)?;
        if fits_type(schema, v) && schema.get("enum").is_none() {
            return Some(v.clone());
        }
        self.typed(schema, &value_string(v), v.is_string())
            .or_else(|| Some(v.clone()))
    }

    /// Renames arguments written under names the tool does not have to its parameters: a
    /// spelling of a name (`start_date` for `startDate`), or the writer's word for what the
    /// name says (`شهر` for `city`); else, when each remaining name is a
    /// parameter of no live tool (`číslo1`, `όριο`: the writer's own words), each in turn to
    /// the next unset parameter, in the schema's order, whose type takes its value — all of
    /// them or none, and only `by_type`. Returns the renames, as `(written, parameter)`.
    pub fn own_names(
        &self,
        tool: usize,
        args: &mut Map<String, Value>,
        by_type: bool,
    ) -> Vec<(String, String)> {
        let params = &self.entries[tool].params;
        let known = |k: &str| params.iter().any(|(p, _)| p == k);
        if args.keys().all(|k| known(k)) {
            return Vec::new();
        }
        let mut renames = Vec::new();
        for k in args.keys().filter(|k| !known(k)) {
            let spelled = params
                .iter()
                .find(|(p, _)| squash(p) == squash(k) && !args.contains_key(p));
            if let Some((p, _)) = spelled {
                renames.push((k.clone(), p.clone()));
            }
        }
        // A name in the writer's words for what a parameter's name says (`شهر`, city).
        if by_type {
            for k in args.keys().filter(|k| !known(k) && !self.is_param(k)) {
                if renames.iter().any(|(w, _)| w == k) {
                    continue;
                }
                let said = lexicon::concepts::english_words(&fold(&k.replace(['_', '-'], " ")));
                let fits: Vec<&String> = params
                    .iter()
                    .filter(|(p, s)| {
                        !args.contains_key(p)
                            && !renames.iter().any(|(_, q)| q == p)
                            && takes(s, &args[k.as_str()])
                            && name_words(p)
                                .iter()
                                .any(|w| said.iter().any(|e| stem_eq(w, e)))
                    })
                    .map(|(p, _)| p)
                    .collect();
                if let [p] = fits[..] {
                    renames.push((k.clone(), p.clone()));
                }
            }
        }
        let foreign: Vec<&String> = args
            .keys()
            .filter(|k| !known(k) && !renames.iter().any(|(w, _)| w == *k))
            .collect();
        if by_type && !foreign.is_empty() && foreign.iter().all(|k| !self.is_param(k)) {
            let mut taken: Vec<&str> = renames.iter().map(|(_, p)| p.as_str()).collect();
            taken.extend(args.keys().filter(|k| known(k)).map(String::as_str));
            let mut by_type = Vec::new();
            for k in &foreign {
                let slot = params.iter().find(|(p, s)| {
                    !taken.contains(&p.as_str())
                        && !by_type.iter().any(|(_, q): &(String, String)| q == p)
                        && takes(s, &args[k.as_str()])
                });
                match slot {
                    Some((p, _)) => by_type.push(((*k).clone(), p.clone())),
                    None => {
                        by_type.clear();
                        break;
                    }
                }
            }
            renames.extend(by_type);
        }
        for (w, p) in &renames {
            if let Some(v) = args.shift_remove(w) {
                args.insert(p.clone(), v);
            }
        }
        renames
    }

    /// Coerces every argument of a set the tool knows to its schema type.
    pub fn type_args(&self, tool: usize, args: &Map<String, Value>) -> Map<String, Value> {
        args.iter()
            .map(|(k, v)| {
                (
                    k.clone(),
                    self.type_value(tool, k, v).unwrap_or_else(|| v.clone()),
                )
            })
            .collect()
    }
}

/// Whether a parameter of this schema takes the value as written (a number for a number,
/// a listed value for an enum, …).
fn takes(schema: &Value, v: &Value) -> bool {
    if let Some(Value::Array(allowed)) = schema.get("enum") {
        let s = value_string(v);
        return allowed
            .iter()
            .any(|a| value_string(a).eq_ignore_ascii_case(&s));
    }
    !schema_type(schema).is_empty() && fits_type(schema, v)
}

/// Whether the value is of the schema's type as it stands (an integer a whole JSON
/// number, not `2.0`); a schema without a type takes anything.
fn fits_type(schema: &Value, v: &Value) -> bool {
    match (schema_type(schema), v) {
        ("string", Value::String(_))
        | ("number", Value::Number(_))
        | ("boolean", Value::Bool(_))
        | ("array", Value::Array(_))
        | ("object", Value::Object(_))
        | ("", _) => true,
        ("integer", Value::Number(n)) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

fn value_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn schema_type(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(s)) => s.as_str(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or(""),
        _ => "",
    }
}

fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9.0e15 {
        Value::Number(Number::from(n as i64))
    } else {
        Number::from_f64(n)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

/// A product of whole numbers written as code writes it (`64 * 1024`, `2*1024*1024`).
fn product(t: &str) -> Option<f64> {
    let parts: Vec<&str> = t.split('*').map(str::trim).collect();
    if parts.len() < 2
        || !parts
            .iter()
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    parts
        .iter()
        .try_fold(1f64, |acc, p| p.parse::<f64>().ok().map(|n| acc * n))
}

/// The first run of two or more numbers in `t` joined by commas or a word for "and"
/// (`8, 12, 7 und 10`, `3、6、9`): where it starts and the numbers as written; where semicolons part them (`1,5; 2,5`) a
/// comma is a decimal point.
pub fn number_run(t: &str) -> Option<(usize, Vec<String>)> {
    use regex::Regex;
    use std::sync::LazyLock;
    const AND: &str = r"(?:and|und|et|y|e|en|och|og|i|ve|и|dan|và|or|oder|ou|o)";
    static COMMAS: LazyLock<Regex> = LazyLock::new(|| {
        let num = r"-?\d+(?:\.\d+)?";
        let sep = format!(r"(?:\s*[,、，]\s*(?:{AND}\s+)?|\s+{AND}\s+|\s*[和及与與및]\s*)");
        Regex::new(&format!(r"(?:^|[^\w.\-]){num}(?:{sep}{num})+")).unwrap()
    });
    static SEMICOLONS: LazyLock<Regex> = LazyLock::new(|| {
        let num = r"-?\d+(?:[.,]\d+)?";
        let sep = format!(r"(?:\s*[;；、]\s*(?:{AND}\s+)?|\s+{AND}\s+)");
        Regex::new(&format!(r"(?:^|[^\w.\-]){num}(?:{sep}{num})+")).unwrap()
    });
    static NUM: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"-?\d+(?:[.,]\d+)?").unwrap());
    let semi = t.contains([';', '；']);
    let m = if semi { &SEMICOLONS } else { &COMMAS }.find(t)?;
    let nums: Vec<String> = if semi {
        NUM.find_iter(m.as_str())
            .map(|n| n.as_str().replace(',', "."))
            .collect()
    } else {
        m.as_str()
            .split(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
            .filter(|n| n.bytes().any(|b| b.is_ascii_digit()))
            .map(str::to_string)
            .collect()
    };
    let at = m.start() + m.as_str().find(|c: char| c.is_ascii_digit() || c == '-')?;
    (nums.len() >= 2).then_some((at, nums))
}

/// A number as a decimal-comma writer writes it, as Rust reads it: `1.250` → `1250`,
/// `7,5` → `7.5`, `1.250,75` → `1250.75`.
fn dot_grouped(t: &str) -> String {
    let b = t.as_bytes();
    let mut out = String::with_capacity(t.len());
    for (i, ch) in t.char_indices() {
        let digit_before = i > 0 && b[i - 1].is_ascii_digit();
        match ch {
            '.' if digit_before
                && b.len() >= i + 4
                && b[i + 1..i + 4].iter().all(u8::is_ascii_digit)
                && b.get(i + 4).is_none_or(|x| !x.is_ascii_digit()) => {}
            ',' if digit_before && b.get(i + 1).is_some_and(u8::is_ascii_digit) => out.push('.'),
            _ => out.push(ch),
        }
    }
    out
}

/// Whether a number is written with commas between groups of three digits (`1,024`).
fn comma_grouped(t: &str) -> bool {
    let mut groups = t.split(',');
    let head = groups.next().unwrap_or_default();
    t.contains(',')
        && (1..=3).contains(&head.len())
        && head.bytes().all(|b| b.is_ascii_digit())
        && groups.all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a document writes decimal commas (`7,5`, `2,25`) and dots between thousands
/// (`1.250`) more often than decimal points (`2.5`) and commas between thousands
/// (`1,024`).
pub fn comma_decimals(text: &str) -> bool {
    let b = text.as_bytes();
    let (mut comma, mut dot) = (0usize, 0usize);
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        // A run of digits with its separators: `1.250`, `7,5`, `1,2,3`, `2024.9.2`.
        let start = i;
        while i < b.len()
            && (b[i].is_ascii_digit()
                || matches!(b[i], b'.' | b',') && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        {
            i += 1;
        }
        let run = &text[start..i];
        let after_letter =
            start > 0 && (b[start - 1].is_ascii_alphabetic() || b[start - 1] == b'.');
        let seps = run.bytes().filter(|c| matches!(c, b'.' | b',')).count();
        if seps != 1 || after_letter {
            continue;
        }
        let (head, tail) = run.split_at(run.find(['.', ',']).unwrap_or(0));
        let (sep, tail) = (tail.as_bytes()[0], &tail[1..]);
        match (sep, tail.len()) {
            (b',', 1 | 2) => comma += 1,
            (b'.', 3) if head.len() <= 3 => comma += 1,
            (b'.', 1 | 2) => dot += 1,
            (b',', 3) if head.len() <= 3 => dot += 1,
            _ => {}
        }
    }
    comma > dot
}

/// Words for a millisecond, a second and a minute after a number (folded; a CJK unit is
/// one character).
const MILLISECOND_WORDS: &[&str] = &[
    "ms",
    "msec",
    "millisecond",
    "milliseconds",
    "millisekunden",
    "millisecondes",
    "milisegundos",
    "millisecondi",
    "milisekund",
    "milisaniye",
    "milidetik",
    "ミリ秒",
    "毫秒",
    "밀리초",
    "มิลลิวินาที",
    "מילישניות",
];
const SECOND_WORDS: &[&str] = &[
    "s",
    "sec",
    "secs",
    "second",
    "seconds",
    "sekunde",
    "sekunden",
    "seconde",
    "secondes",
    "segundo",
    "segundos",
    "secondo",
    "secondi",
    "seconden",
    "sekund*",
    "секунд*",
    "saniye",
    "detik",
    "giay",
    "सेकंड",
    "δευτερολεπτ*",
    "秒",
    "초",
    "秒钟",
    "秒間",
    "วินาที",
    "ثانية",
    "ثوان",
    "ثواني",
    "שניות",
    "שנייה",
];
const MINUTE_WORDS: &[&str] = &[
    "min",
    "mins",
    "minute",
    "minutes",
    "minuten",
    "minuto",
    "minutos",
    "minuti",
    "minut",
    "минут",
    "минуты",
    "dakika",
    "menit",
    "phut",
    "分",
    "分钟",
    "분",
    "นาที",
    "دقيقة",
    "دقائق",
    "דקות",
];

/// The number a value starts with: `25.` → 25, `3,5` → 3.5, `-104.99;` → -104.99.
pub fn number_at(s: &str) -> Option<f64> {
    let t = s.trim_start_matches(['"', '\'', '`', '“', '„', '«', '(']);
    let mut end = 0;
    let b = t.as_bytes();
    if end < b.len() && (b[end] == b'-' || b[end] == b'+') {
        end += 1;
    }
    let digits_start = end;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    if end == digits_start {
        return None;
    }
    let mut num = t[..end].to_string();
    if end + 1 < b.len() && (b[end] == b'.' || b[end] == b',') && b[end + 1].is_ascii_digit() {
        let mut k = end + 1;
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
        // `1,2,3` is a list, `3,5` a decimal comma.
        let list = b[end] == b',' && k < b.len() && b[k] == b',';
        if !list {
            num.push('.');
            num.push_str(&t[end + 1..k]);
        }
    }
    num.parse::<f64>().ok()
}

struct Raw {
    text: String,
    quoted: bool,
}

fn matching_close(text: &str, open: usize, o: char, c: char) -> Option<usize> {
    let mut depth = 0;
    let mut in_str = false;
    for (i, ch) in text[open..].char_indices() {
        match ch {
            '"' => in_str = !in_str,
            x if x == o && !in_str => depth += 1,
            x if x == c && !in_str => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The raw value at the start of `r`: a quoted or code string, a bracketed list, `{{x}}`,
/// or text up to the next delimiter.
fn take_value(r: &str, array: bool, explicit: bool) -> Option<Raw> {
    const PAIRS: &[(char, char)] = &[
        ('"', '"'),
        ('“', '”'),
        ('„', '“'),
        ('«', '»'),
        ('「', '」'),
        ('『', '』'),
        ('`', '`'),
        ('\'', '\''),
        ('‘', '’'),
    ];
    if let Some(x) = r.strip_prefix("{{") {
        let end = x.find("}}")?;
        return Some(Raw {
            text: x[..end].to_string(),
            quoted: true,
        });
    }
    if r.starts_with('[') {
        let close = matching_close(r, 0, '[', ']')?;
        return Some(Raw {
            text: r[..=close].to_string(),
            quoted: false,
        });
    }
    let first = r.chars().next()?;
    for (o, c) in PAIRS {
        if first == *o {
            let inner = &r[o.len_utf8()..];
            // `„x“` or `„x”`; a closing quote followed by a letter is an apostrophe.
            let mut search = 0;
            while let Some(i) = inner[search..].find([*c, if *o == '„' { '”' } else { *c }]) {
                let at = search + i;
                let close_len = inner[at..].chars().next().unwrap().len_utf8();
                let next = inner[at + close_len..].chars().next();
                if (*c == '\'' || *c == '’') && next.is_some_and(|n| n.is_alphanumeric()) {
                    search = at + close_len;
                    continue;
                }
                let mut text = inner[..at].to_string();
                // `"ping 123"` in code: the string literal's text.
                if *o == '`'
                    && text.len() >= 2
                    && text.starts_with('"')
                    && text.ends_with('"')
                    && let Ok(Value::String(s)) = serde_json::from_str::<Value>(&text)
                {
                    text = s;
                }
                if text.starts_with('[') && array {
                    return Some(Raw {
                        text,
                        quoted: false,
                    });
                }
                return Some(Raw { text, quoted: true });
            }
            return None;
        }
    }
    let mut end = r.len();
    let delims: &[&str] = &[
        ",", ";", "·", "、", "，", "；", ")", "）", "\n", " and ", " und ", " y ", " e ", " et ",
        " en ", " und ", "和", " with ", " mit ", " con ", " avec ", " com ", " met ", " — ",
        " – ", " - ", "|", "}", ". ", "。", " (", "（", " but ", " aber ", " pero ", " then ",
        " dann ", " danach ", "،", "؛", " و ", "`",
    ];
    for d in delims {
        // (A comma between digits, `1.250,5` or `1,024`, is part of the number.)
        let digit = |i: usize| r.as_bytes().get(i).is_some_and(u8::is_ascii_digit);
        if let Some(i) = r
            .match_indices(d)
            .map(|(i, _)| i)
            .find(|&i| !(*d == "," && i > 0 && digit(i - 1) && digit(i + 1)))
            && i < end
        {
            end = i;
        }
    }
    let mut text = r[..end].trim().to_string();
    if !explicit {
        // Without a separator the value is at most a few words.
        text = text
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
    }
    let text = text
        .trim_end_matches(['.', '!', '?', '。', ':', '۔', '؟', '।'])
        .trim()
        .to_string();
    (!text.is_empty()).then_some(Raw {
        text,
        quoted: false,
    })
}

/// The single-word items of a list written without brackets (`ana@x.es, luis@x.es / …`),
/// when there are at least two.
fn word_run(r: &str) -> Option<Vec<&str>> {
    if r.starts_with(['[', '{', '"', '\'', '`']) {
        return None;
    }
    let mut out = Vec::new();
    for part in r.split(',') {
        let part = part.trim_start();
        let word = part.split_whitespace().next().unwrap_or_default();
        if word.is_empty() || word.contains(['=', ':']) || word.len() < 2 {
            break;
        }
        out.push(word.trim_end_matches(['.', ';']));
        if word.len() < part.trim_end().len() {
            break;
        }
    }
    (out.len() >= 2).then_some(out)
}

/// Words of lowercase text with their byte offsets, each phrase ended by punctuation
/// marked with an empty word.
fn word_spans(s: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        let w = c.is_alphanumeric() || c == '-' || c == '_';
        match (w, start) {
            (true, None) => start = Some(i),
            (false, Some(st)) => {
                out.push((st, &s[st..i]));
                start = None;
            }
            _ => {}
        }
        if !w
            && matches!(
                c,
                '.' | ';' | ',' | '(' | ')' | ':' | '—' | '–' | '→' | '!' | '?' | '`' | '/'
            )
        {
            out.push((i, ""));
        }
    }
    if let Some(st) = start {
        out.push((st, &s[st..]));
    }
    out
}

/// The words of the phrase that ends `s`.
fn words_before(s: &str) -> Vec<(usize, &str)> {
    let all = word_spans(s);
    let from = all
        .iter()
        .rposition(|(_, w)| w.is_empty())
        .map_or(0, |i| i + 1);
    all[from..].to_vec()
}

/// The words of the phrase that starts `s`.
fn words_after(s: &str) -> Vec<(usize, &str)> {
    word_spans(s)
        .into_iter()
        .take_while(|(_, w)| !w.is_empty())
        .collect()
}

/// The demo server's tools (as the authoring corpus has them), for unit tests.
#[cfg(test)]
pub fn demo_tools() -> Vec<DiscoveredTool> {
    let tools: Vec<crate::spec::primitives::ToolItem> = serde_json::from_str(include_str!(
        "../../../../../tests/corpus/authoring/servers/demo.json"
    ))
    .expect("demo catalog");
    tools
        .into_iter()
        .map(|tool| DiscoveredTool {
            server_id: "srv_demo".into(),
            server_name: "demo".into(),
            tool,
        })
        .collect()
}

fn is_hangul(c: char) -> bool {
    ('\u{ac00}'..='\u{d7a3}').contains(&c)
}

/// Where `text` goes on to the next `key=value` pair (`acme repo=widgets` → 4), or to the
/// next `key: value` after a slash or bar (`Revisión Q4 / start: …` → 11).
fn next_pair(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    (1..b.len())
        .find(|&i| {
            b[i - 1] == b' ' && {
                let key = text[i..].split(['=', ':']).next().unwrap_or_default();
                let colon = text.as_bytes().get(i + key.len()) == Some(&b':');
                let parted = text[..i].trim_end().ends_with(['/', '|', ';']);
                key.len() < text.len() - i
                    && !key.is_empty()
                    && key.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
                    && key.as_bytes()[0].is_ascii_alphabetic()
                    && (!colon || parted)
            }
        })
        .map(|i| {
            text[..i]
                .trim_end()
                .trim_end_matches(['/', '|', ';'])
                .trim_end()
                .len()
        })
}
