//! Cases written as code: test modules in Python, TypeScript/JavaScript, Go, Ruby or Rust
//! whose cases are literals (a list of dicts or object literals, a Go table of struct
//! literals, `pytest.param(...)` tuples named by the `parametrize` signature,
//! `EvalCase(prompt=…)` constructor calls) or, when a file has no such literal, one test
//! function per case (`def test_…`, `it("…", …)`, `func TestX`, `t.Run("…", …)`).
//!
//! A tolerant literal reader turns the source into a forest of values with byte ranges:
//! strings (every quoting style, adjacent pieces joined), numbers, booleans, lists,
//! key–value blocks (`{"k": v}`, `{k: v}`, `k=v` arguments, `"k" => v`), and calls.
//! Everything else is skipped, and comments are never read, so a commented-out case is no
//! case. A keyed literal whose keys name a case is read like a JSON case object; a
//! positional one takes its keys from a signature of the same arity written in the file.

use serde_json::{Map, Number, Value};

use super::json::object_draft;
use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::Draft;
use crate::service::authoring::fields::{Role, names_a_case, normalize_label, role_of};
use crate::service::authoring::lexicon;
use crate::service::authoring::lines::LineIndex;
use crate::service::authoring::lines::split_lines;
use crate::service::authoring::reading::utterance_like;
use crate::service::authoring::unit::{Segment, UnitInfo, read_unit, says_dropped};

/// Whether the document is source code rather than prose or data: most of its lines are
/// statements, and some declare, import or define something. (Source in fenced blocks is
/// a page about code: a notebook saved as Markdown.)
pub fn looks_like_code(t: &str) -> bool {
    if split_lines(t)
        .filter(|l| l.trim_start().starts_with("```"))
        .count()
        >= 2
    {
        return false;
    }
    let mut code = 0usize;
    let mut prose = 0usize;
    let mut keyword = false;
    // (A docstring or heredoc, `"""` … `"""`, is prose inside code: not counted.)
    let mut doc = false;
    for l in split_lines(t).map(str::trim) {
        if l.matches("\"\"\"").count() % 2 == 1 {
            doc = !doc;
            if !doc {
                continue;
            }
        }
        if doc || l.is_empty() || l.starts_with('#') || l.starts_with("//") || l.starts_with('*') {
            continue;
        }
        let first = l.split([' ', '(', '<', '{']).next().unwrap_or("");
        if matches!(
            first,
            "import"
                | "from"
                | "def"
                | "async"
                | "class"
                | "const"
                | "let"
                | "var"
                | "function"
                | "export"
                | "describe"
                | "func"
                | "package"
                | "require"
                | "fn"
                | "use"
                | "mod"
                | "module"
                | "RSpec.describe"
                | "<?php"
                | "namespace"
                | "public"
                | "private"
                | "protected"
                | "final"
                | "abstract"
                | "declare"
                | "defmodule"
                | "setup_all"
        ) || l.starts_with('@') && l[1..].starts_with(|c: char| c.is_ascii_alphabetic())
        {
            keyword = true;
            code += 1;
            continue;
        }
        let last = l.chars().last().unwrap_or(' ');
        if matches!(
            last,
            ',' | '(' | '[' | '{' | ')' | ']' | '}' | ';' | ':' | '|'
        ) || l == "end"
            || l.ends_with(" do")
            || l.starts_with(['}', ')', ']'])
            || l.contains(" = ")
            || l.contains(":=")
        {
            code += 1;
        } else {
            prose += 1;
        }
    }
    keyword && code >= 3 && code >= prose * 3
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Str(String),
    Num(String),
    Ident(String),
    Punct(&'static str),
}

#[derive(Debug, Clone)]
struct Token {
    tok: Tok,
    start: usize,
    end: usize,
}

const PUNCTS: [&str; 26] = [
    "=>", ":=", "==", "!=", "<=", ">=", "::", "->", "(", ")", "[", "]", "{", "}", ",", ";", ":",
    "=", ".", "+", "-", "*", "<", ">", "!", "?",
];

/// The tokens with each name of a constant written at the start of a line (`OWNER =
/// "acme"`, `const OWNER = "acme"`) replaced by its string where it is used
/// (`owner=OWNER`).
fn with_constants(src: &str, mut toks: Vec<Token>) -> Vec<Token> {
    let line_start = |at: usize| src[..at].rfind('\n').map_or(0, |i| i + 1) == at;
    let mut consts: Vec<(String, Token)> = Vec::new();
    for k in 0..toks.len().saturating_sub(2) {
        let (Tok::Ident(name), Tok::Punct("="), Tok::Str(_)) =
            (&toks[k].tok, &toks[k + 1].tok, &toks[k + 2].tok)
        else {
            continue;
        };
        let declared = line_start(toks[k].start)
            || k > 0
                && matches!(&toks[k - 1].tok, Tok::Ident(w) if matches!(w.as_str(), "const" | "let" | "var" | "final" | "val"))
                // (After modifiers only: `private const val OWNER = "acme"`.)
                && {
                    let at = toks[k - 1].start;
                    let from = src[..at].rfind('\n').map_or(0, |i| i + 1);
                    src[from..at].split_whitespace().all(|w| {
                        matches!(w, "private" | "public" | "internal" | "protected" | "static" | "const" | "readonly" | "export")
                    })
                };
        // (Ended where it stands: `OWNER = "acme"` alone, not `x = "a" + y`.)
        let ends = toks.get(k + 3).is_none_or(|t| {
            src[toks[k + 2].end..t.start].contains('\n') || t.tok == Tok::Punct(";")
        });
        if declared && ends && !consts.iter().any(|(n, _)| n == name) {
            consts.push((name.clone(), toks[k + 2].clone()));
        }
    }
    if consts.is_empty() {
        return toks;
    }
    for k in 0..toks.len() {
        let Tok::Ident(name) = &toks[k].tok else {
            continue;
        };
        // (Not the declaration itself, nor a key or an attribute: `OWNER =`, `x.OWNER`.)
        let keyed = toks
            .get(k + 1)
            .is_some_and(|t| t.tok == Tok::Punct(":") || t.tok == Tok::Punct("="));
        let dotted = k > 0 && toks[k - 1].tok == Tok::Punct(".");
        if keyed || dotted {
            continue;
        }
        if let Some((_, value)) = consts.iter().find(|(n, _)| n == name) {
            toks[k].tok = value.tok.clone();
        }
    }
    toks
}

/// Cuts source text into tokens; comments are dropped.
fn tokenize(src: &str) -> Vec<Token> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        let rest = &src[i..];
        // Comments: `#` (but not a Rust attribute or a C directive), `//`, `/* */`, `--`
        // never (it is an operator in most of these languages).
        if (c == b'#' && !rest.starts_with("#[") && !rest.starts_with("#!["))
            || rest.starts_with("//")
        {
            i += rest.find('\n').unwrap_or(rest.len());
            continue;
        }
        if let Some(body) = rest.strip_prefix("/*") {
            i += body.find("*/").map_or(rest.len(), |e| e + 4);
            continue;
        }
        if c == b'#' {
            i += 1;
            continue;
        }
        // C#'s verbatim strings, `@"C:\temp"` (`$@"…"`, `@$"…"`): no escapes but `""`.
        if let Some(len) = ["@\"", "$@\"", "@$\""]
            .iter()
            .find(|p| rest.starts_with(**p))
            .map(|p| p.len())
        {
            let body = &rest[len..];
            let mut end = 0;
            let mut text = String::new();
            let mut closed = false;
            let mut chars = body.char_indices().peekable();
            while let Some((k, ch)) = chars.next() {
                if ch == '"' {
                    if chars.peek().is_some_and(|(_, n)| *n == '"') {
                        chars.next();
                        text.push('"');
                        continue;
                    }
                    end = k + 1;
                    closed = true;
                    break;
                }
                text.push(ch);
            }
            if closed {
                out.push(Token {
                    tok: Tok::Str(text),
                    start: i,
                    end: i + len + end,
                });
                i += len + end;
                continue;
            }
        }
        // String prefixes: r"", b'', f"", rb"", u"" (Python), r#""# (Rust).
        let prefix = rest
            .bytes()
            .take_while(|x| matches!(x, b'r' | b'b' | b'f' | b'u' | b'R' | b'B' | b'F' | b'U'))
            .count();
        if prefix <= 2 && matches!(b.get(i + prefix), Some(b'"' | b'\'' | b'#')) {
            let raw = rest[..prefix].contains(['r', 'R']);
            if let Some((s, len)) = string_at(&rest[prefix..], raw) {
                out.push(Token {
                    tok: Tok::Str(s),
                    start: i,
                    end: i + prefix + len,
                });
                i += prefix + len;
                continue;
            }
        }
        // Ruby's `%q{…}`, `%Q(…)`, `%(…)`; Elixir's `~s(…)`.
        if (c == b'%' || rest.starts_with("~s") || rest.starts_with("~S"))
            && let Some((s, len)) = percent_string(rest)
        {
            out.push(Token {
                tok: Tok::Str(s),
                start: i,
                end: i + len,
            });
            i += len;
            continue;
        }
        if matches!(c, b'"' | b'\'' | b'`') {
            match string_at(rest, c == b'`') {
                Some((s, len)) => {
                    out.push(Token {
                        tok: Tok::Str(s),
                        start: i,
                        end: i + len,
                    });
                    i += len;
                }
                None => i += 1,
            }
            continue;
        }
        if c.is_ascii_digit() {
            let len = rest
                .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'))
                .unwrap_or(rest.len());
            let n = rest[..len].trim_end_matches('.');
            out.push(Token {
                tok: Tok::Num(n.replace('_', "")),
                start: i,
                end: i + n.len(),
            });
            i += n.len();
            continue;
        }
        if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 {
            let len = rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '$'))
                .unwrap_or(rest.len())
                .max(rest.chars().next().map_or(1, char::len_utf8));
            out.push(Token {
                tok: Tok::Ident(rest[..len].to_string()),
                start: i,
                end: i + len,
            });
            i += len;
            continue;
        }
        match PUNCTS.iter().find(|p| rest.starts_with(**p)) {
            Some(p) => {
                out.push(Token {
                    tok: Tok::Punct(p),
                    start: i,
                    end: i + p.len(),
                });
                i += p.len();
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// A string literal at the start of `s` (which starts with its quote, or with `#` for a
/// Rust raw string): its value and its length in bytes.
fn string_at(s: &str, raw: bool) -> Option<(String, usize)> {
    if s.starts_with('#') {
        let hashes = s.bytes().take_while(|&x| x == b'#').count();
        if s.as_bytes().get(hashes) != Some(&b'"') {
            return None;
        }
        let close = format!("\"{}", "#".repeat(hashes));
        let body = &s[hashes + 1..];
        let e = body.find(&close)?;
        return Some((body[..e].to_string(), hashes + 1 + e + close.len()));
    }
    let q = s.chars().next()?;
    for triple in ["\"\"\"", "'''"] {
        if s.starts_with(triple) {
            let e = s[3..].find(triple)?;
            let body = &s[3..3 + e];
            let v = if raw {
                body.to_string()
            } else {
                unescape(body)
            };
            return Some((v, e + 6));
        }
    }
    let mut out = String::new();
    let mut chars = s[1..].char_indices();
    while let Some((k, ch)) = chars.next() {
        match ch {
            '\\' if !raw || q != '`' => {
                let Some((_, e)) = chars.next() else { break };
                if raw {
                    out.push('\\');
                    out.push(e);
                    continue;
                }
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => {}
                    'u' => {
                        let hex: String = chars.clone().take(4).map(|(_, h)| h).collect();
                        match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                            Some(u) if hex.len() == 4 => {
                                out.push(u);
                                for _ in 0..4 {
                                    chars.next();
                                }
                            }
                            _ => out.push('u'),
                        }
                    }
                    '\n' => {}
                    other => out.push(other),
                }
            }
            c if c == q => return Some((out, k + 2)),
            '\n' if q != '`' => return None,
            c => out.push(c),
        }
    }
    None
}

/// Ruby's percent literal at the start of `s`: its value and its length in bytes.
fn percent_string(s: &str) -> Option<(String, usize)> {
    // (Elixir's map, `%{"a" => 1}`, `%{}`, is no string.)
    if let Some(r) = s.strip_prefix("%{")
        && r.trim_start().starts_with(['"', '}', ':'])
    {
        return None;
    }
    // Elixir's sigils, `~s(…)`, `~S[…]`: a string.
    let body = s
        .strip_prefix("%q")
        .or_else(|| s.strip_prefix("%Q"))
        .or_else(|| s.strip_prefix("~s"))
        .or_else(|| s.strip_prefix("~S"))
        .or_else(|| s.strip_prefix('%'))?;
    let open = body.chars().next()?;
    let close = match open {
        '{' => '}',
        '(' => ')',
        '[' => ']',
        '<' => '>',
        '|' | '!' | '/' => open,
        _ => return None,
    };
    let mut depth = 0usize;
    for (k, ch) in body.char_indices().skip(1) {
        if ch == open && open != close {
            depth += 1;
        } else if ch == close {
            if depth == 0 {
                let len = s.len() - body.len() + k + 1;
                return Some((body[1..k].to_string(), len));
            }
            depth -= 1;
        }
    }
    None
}

fn unescape(s: &str) -> String {
    // (A triple-quoted string's lines stay lines.)
    let quoted = format!("\"{}\"", s.replace('"', "\\\"").replace('\n', "\\n"));
    string_at(&quoted, false).map_or_else(|| s.to_string(), |(v, _)| v)
}

/// A literal value read from the source, with its byte range.
#[derive(Debug, Clone)]
struct Node {
    lit: Lit,
    start: usize,
    end: usize,
    /// Containers met inside a stretch that was not a literal (a lambda's body, a
    /// function's block), kept so that records nested in them are still found.
    loose: Vec<Node>,
}

#[derive(Debug, Clone)]
enum Lit {
    Str(String),
    Num(String),
    Bool(bool),
    Null,
    /// An identifier that is not a literal (`pytest.mark.skip`, a variable).
    Name(String),
    /// A list, tuple, array or set.
    Seq(Vec<Node>),
    /// A block of `key: value` pairs (a dict, object or struct literal).
    Map(Vec<(String, Node)>),
    /// `name(positional…, key=value…)`, or parentheses holding `key=value`.
    Call {
        args: Vec<Node>,
        kwargs: Vec<(String, Node)>,
    },
}

struct Parser<'a> {
    t: &'a [Token],
    i: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self, k: usize) -> Option<&Tok> {
        self.t.get(self.i + k).map(|t| &t.tok)
    }

    fn is(&self, k: usize, p: &str) -> bool {
        matches!(self.peek(k), Some(Tok::Punct(q)) if *q == p)
    }

    fn end_of_prev(&self) -> usize {
        self.t[self.i.saturating_sub(1)].end
    }

    /// Every top-level literal of the token stream.
    fn forest(&mut self) -> Vec<Node> {
        let mut out = Vec::new();
        while self.i < self.t.len() {
            match self.value() {
                Some(n) => out.push(n),
                None => self.i += 1,
            }
        }
        out
    }

    /// One value at the cursor, or `None` (cursor unchanged) when none starts here.
    fn value(&mut self) -> Option<Node> {
        let tok = self.t.get(self.i)?.clone();
        let start = tok.start;
        let mut node = match tok.tok {
            Tok::Str(s) => {
                self.i += 1;
                let mut s = s;
                // Adjacent pieces and `+` joins are one string.
                loop {
                    match (self.peek(0), self.peek(1)) {
                        (Some(Tok::Str(n)), _) => {
                            s.push_str(&n.clone());
                            self.i += 1;
                        }
                        (Some(Tok::Punct("+")), Some(Tok::Str(n))) => {
                            s.push_str(&n.clone());
                            self.i += 2;
                        }
                        _ => break,
                    }
                }
                self.node(Lit::Str(s), start)
            }
            Tok::Num(n) => {
                self.i += 1;
                // `64 * 1024`: a size as code writes it, multiplied out.
                let mut product: Option<u64> = n.parse().ok();
                while self.is(0, "*")
                    && let Some(Tok::Num(m)) = self.peek(1)
                    && let Ok(m) = m.parse::<u64>()
                {
                    product = product.and_then(|p| p.checked_mul(m));
                    self.i += 2;
                }
                match product {
                    Some(p) if p.to_string() != n => self.node(Lit::Num(p.to_string()), start),
                    _ => self.node(Lit::Num(n), start),
                }
            }
            Tok::Punct("-") if matches!(self.peek(1), Some(Tok::Num(_))) => {
                let Some(Tok::Num(n)) = self.peek(1).cloned() else {
                    return None;
                };
                self.i += 2;
                self.node(Lit::Num(format!("-{n}")), start)
            }
            // Swift's and Kotlin's implicit member, `.user("…")`: the member's value.
            Tok::Punct(".") if matches!(self.peek(1), Some(Tok::Ident(_))) => {
                self.i += 1;
                let inner = self.value()?;
                return Some(Node { start, ..inner });
            }
            Tok::Punct("[") => self.container("]", start)?,
            Tok::Punct("(") => self.container(")", start)?,
            Tok::Punct("{") => self.container("}", start)?,
            Tok::Ident(id) => {
                self.i += 1;
                let mut name = id;
                while self.is(0, ".") || self.is(0, "::") {
                    match self.peek(1) {
                        Some(Tok::Ident(n)) => {
                            name = format!("{name}.{n}");
                            self.i += 2;
                        }
                        _ => break,
                    }
                }
                // A Rust macro (`json!({…})`, `vec![…]`) is its argument's value.
                if self.is(0, "!") && (self.is(1, "(") || self.is(1, "[")) {
                    self.i += 1;
                    if self.is(0, "[") {
                        let inner = self.container("]", self.t[self.i].start)?;
                        return Some(Node { start, ..inner });
                    }
                }
                match name.as_str() {
                    "true" | "True" | "TRUE" => self.node(Lit::Bool(true), start),
                    "false" | "False" | "FALSE" => self.node(Lit::Bool(false), start),
                    "None" | "null" | "nil" | "undefined" | "nullptr" | "NULL" => {
                        self.node(Lit::Null, start)
                    }
                    _ if self.is(0, "(") => {
                        let inner = self.container(")", self.t[self.i].start)?;
                        let (args, kwargs) = match inner.lit {
                            Lit::Seq(a) => (a, Vec::new()),
                            Lit::Map(kw) => (Vec::new(), kw),
                            Lit::Call { args, kwargs, .. } => (args, kwargs),
                            _ => (Vec::new(), Vec::new()),
                        };
                        // `User("…")`, `evalkit.Assistant("…")`: a chat turn by its speaker.
                        let speaker = normalize_label(name.rsplit('.').next().unwrap_or(&name));
                        let said_by = |list: &[&str]| speaker.split(' ').any(|w| list.contains(&w));
                        let role = if said_by(lexicon::USER_SPEAKERS) {
                            Some("user")
                        } else if said_by(lexicon::ASSISTANT_SPEAKERS) {
                            Some("assistant")
                        } else {
                            None
                        };
                        // `converse(user: "…", assistant: "…", user: "…")`: a keyword
                        // list of turns.
                        let speakers = !kwargs.is_empty()
                            && args.is_empty()
                            && kwargs.iter().all(|(k, v)| {
                                let k = lexicon::fold(k);
                                matches!(v.lit, Lit::Str(_))
                                    && (lexicon::USER_SPEAKERS.contains(&k.as_str())
                                        || lexicon::ASSISTANT_SPEAKERS.contains(&k.as_str()))
                            })
                            && kwargs.iter().any(|(k, _)| {
                                lexicon::USER_SPEAKERS.contains(&lexicon::fold(k).as_str())
                            });
                        if speakers {
                            let turns = kwargs
                                .into_iter()
                                .map(|(k, v)| {
                                    let user = lexicon::USER_SPEAKERS
                                        .contains(&lexicon::fold(&k).as_str());
                                    let role = if user { "user" } else { "assistant" };
                                    let at = v.start;
                                    Node {
                                        lit: Lit::Map(vec![
                                            ("role".into(), self.node(Lit::Str(role.into()), at)),
                                            ("content".into(), v),
                                        ]),
                                        start: at,
                                        end: at,
                                        loose: Vec::new(),
                                    }
                                })
                                .collect();
                            return Some(Node {
                                lit: Lit::Call {
                                    args: vec![Node {
                                        lit: Lit::Seq(turns),
                                        start,
                                        end: inner.end,
                                        loose: Vec::new(),
                                    }],
                                    kwargs: Vec::new(),
                                },
                                start,
                                end: inner.end,
                                loose: inner.loose,
                            });
                        }
                        let lit = match (role, args.as_slice()) {
                            (Some(r), [one])
                                if kwargs.is_empty() && matches!(one.lit, Lit::Str(_)) =>
                            {
                                Lit::Map(vec![
                                    ("role".into(), self.node(Lit::Str(r.into()), start)),
                                    ("content".into(), args.into_iter().next().unwrap()),
                                ])
                            }
                            _ => Lit::Call { args, kwargs },
                        };
                        Node {
                            lit,
                            start,
                            end: inner.end,
                            loose: inner.loose,
                        }
                    }
                    _ => self.node(Lit::Name(name), start),
                }
            }
            _ => return None,
        };
        // A composite literal after its type (`map[string]any{…}`, `[]string{…}`,
        // `Case{…}`) is the block; the type is dropped.
        loop {
            // (A block that holds statements, `{ yield …; }`, is no type.)
            let typeish = node.loose.is_empty()
                && match &node.lit {
                    Lit::Name(_) => true,
                    Lit::Seq(items) => {
                        items.is_empty()
                            || items.len() == 1
                                && matches!(items[0].lit, Lit::Name(_) | Lit::Num(_))
                    }
                    _ => false,
                };
            if !typeish {
                break;
            }
            if self.is(0, "{") {
                let block = self.container("}", self.t[self.i].start)?;
                node = Node { start, ..block };
            } else if self.is(0, "[") || matches!(self.peek(0), Some(Tok::Ident(_))) {
                // `map[string]…`, `[]string…`, `[]*Case…`: more of the type, then the
                // block (read by the nested value).
                let Some(next) = self.value() else { break };
                node = Node { start, ..next };
            } else {
                break;
            }
        }
        Some(node)
    }

    fn node(&self, lit: Lit, start: usize) -> Node {
        Node {
            lit,
            start,
            end: self.end_of_prev(),
            loose: Vec::new(),
        }
    }

    /// A bracketed container whose opener is at the cursor: a sequence, a key–value block,
    /// or both (call arguments).
    fn container(&mut self, close: &'static str, start: usize) -> Option<Node> {
        self.depth += 1;
        if self.depth > 96 {
            self.depth -= 1;
            return None;
        }
        self.i += 1;
        let mut items = Vec::new();
        let mut pairs = Vec::new();
        let mut loose = Vec::new();
        while self.i < self.t.len() && !self.is(0, close) {
            if self.is(0, ",") || self.is(0, ";") {
                self.i += 1;
                continue;
            }
            // A closer of another kind: the source is unbalanced here; stop.
            if self.is(0, ")") || self.is(0, "]") || self.is(0, "}") {
                break;
            }
            let key = match (self.peek(0).cloned(), self.peek(1).cloned()) {
                (Some(Tok::Str(k) | Tok::Ident(k)), Some(Tok::Punct(":" | "=" | "=>"))) => Some(k),
                // Kotlin's `"key" to value` in `mapOf(…)`.
                (Some(Tok::Str(k)), Some(Tok::Ident(to))) if to == "to" => Some(k),
                // Ruby's `:name => value`.
                (Some(Tok::Punct(":")), Some(Tok::Ident(k))) if self.is(2, "=>") => {
                    self.i += 1;
                    Some(k)
                }
                _ => None,
            };
            if key.is_some() {
                self.i += 2;
            }
            match self.value() {
                Some(v) => {
                    if self.i >= self.t.len()
                        || self.is(0, ",")
                        || self.is(0, ";")
                        || self.is(0, close)
                    {
                        match key {
                            Some(k) => pairs.push((k, v)),
                            None => items.push(v),
                        }
                    } else {
                        loose.push(v);
                        self.skip_expression(close, &mut loose);
                    }
                }
                None => self.skip_expression(close, &mut loose),
            }
        }
        if self.is(0, close) {
            self.i += 1;
        }
        self.depth -= 1;
        let lit = match (close, items.is_empty(), pairs.is_empty()) {
            (")", _, false) => Lit::Call {
                args: items,
                kwargs: pairs,
            },
            (_, true, false) => Lit::Map(pairs),
            (_, _, false) => {
                loose.extend(items);
                Lit::Map(pairs)
            }
            _ => Lit::Seq(items),
        };
        Some(Node {
            lit,
            start,
            end: self.end_of_prev(),
            loose,
        })
    }

    /// Skips the rest of an expression that is not a literal, keeping the literals met
    /// inside it.
    fn skip_expression(&mut self, close: &str, loose: &mut Vec<Node>) {
        while self.i < self.t.len() && !self.is(0, ",") && !self.is(0, ";") && !self.is(0, close) {
            if self.is(0, ")") || self.is(0, "]") || self.is(0, "}") {
                return;
            }
            match self.value() {
                Some(v) => loose.push(v),
                None => self.i += 1,
            }
        }
    }
}

impl Lit {
    /// The JSON value of a literal, as a case reader sees it.
    fn json(&self) -> Value {
        match self {
            Lit::Str(s) => Value::String(s.clone()),
            Lit::Num(n) => n
                .parse::<i64>()
                .ok()
                .map(Number::from)
                .or_else(|| n.parse::<f64>().ok().and_then(Number::from_f64))
                .map_or_else(|| Value::String(n.clone()), Value::Number),
            Lit::Bool(b) => Value::Bool(*b),
            Lit::Null => Value::Null,
            Lit::Name(n) => Value::String(n.clone()),
            Lit::Seq(items) => Value::Array(items.iter().map(|n| n.lit.json()).collect()),
            Lit::Map(pairs) => Value::Object(pairs_json(pairs)),
            Lit::Call { args, kwargs, .. } => match (args.as_slice(), kwargs.is_empty()) {
                ([one], true) => one.lit.json(),
                (_, true) => Value::Array(args.iter().map(|n| n.lit.json()).collect()),
                // `ToolCall("list_issues", owner="acme")`: a name, then its arguments.
                (
                    [
                        Node {
                            lit: Lit::Str(name),
                            ..
                        },
                    ],
                    false,
                ) if !name.is_empty()
                    && name
                        .chars()
                        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')) =>
                {
                    let mut call = Map::new();
                    call.insert("tool".into(), Value::String(name.clone()));
                    call.insert("arguments".into(), Value::Object(pairs_json(kwargs)));
                    Value::Object(call)
                }
                _ => Value::Object(pairs_json(kwargs)),
            },
        }
    }

    /// Whether the value is written out in the source, not computed.
    fn is_literal(&self) -> bool {
        match self {
            Lit::Name(_) => false,
            Lit::Seq(items) => items.iter().all(|n| n.lit.is_literal()),
            Lit::Map(pairs) => pairs.iter().all(|(_, n)| n.lit.is_literal()),
            Lit::Call { args, kwargs } => {
                args.iter().all(|n| n.lit.is_literal())
                    && kwargs.iter().all(|(_, n)| n.lit.is_literal())
            }
            _ => true,
        }
    }

    fn pairs(&self) -> Option<&[(String, Node)]> {
        match self {
            Lit::Map(p) => Some(p),
            Lit::Call { kwargs, .. } if !kwargs.is_empty() => Some(kwargs),
            _ => None,
        }
    }

    fn positional(&self) -> Option<&[Node]> {
        match self {
            Lit::Seq(items) => Some(items),
            Lit::Call { args, .. } => Some(args),
            _ => None,
        }
    }
}

fn pairs_json(pairs: &[(String, Node)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.clone(), v.lit.json()))
        .collect()
}

impl Node {
    fn children(&self) -> Vec<&Node> {
        let mut out: Vec<&Node> = self.loose.iter().collect();
        match &self.lit {
            Lit::Seq(items) => out.extend(items),
            Lit::Map(pairs) => out.extend(pairs.iter().map(|(_, v)| v)),
            Lit::Call { args, kwargs, .. } => {
                out.extend(args);
                out.extend(kwargs.iter().map(|(_, v)| v));
            }
            _ => {}
        }
        out
    }
}

/// Extracts the cases of a test module.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let toks = with_constants(ix.text(), tokenize(ix.text()));
    let forest = Parser {
        t: &toks,
        i: 0,
        depth: 0,
    }
    .forest();
    let mut sigs = Vec::new();
    for n in &forest {
        signatures(n, &mut sigs);
    }
    // Fields named in the writer's language (`ombi, zinazotarajiwa, zilizokatazwa`) take
    // the roles their rows' values show.
    for sig in &mut sigs {
        let mut rows: Vec<Map<String, Value>> = Vec::new();
        // (Not what a row holds: `ToolCall("get-sum", {…})` inside one is no row.)
        let mut taken: Vec<(usize, usize)> = Vec::new();
        visit(&forest, &mut |n| {
            let items = match &n.lit {
                Lit::Call { args, .. } | Lit::Seq(args) => args,
                _ => return,
            };
            if items.len() == sig.len()
                && items.iter().all(|a| !matches!(a.lit, Lit::Name(_)))
                && !taken.iter().any(|&(a, b)| a <= n.start && n.end <= b)
            {
                taken.push((n.start, n.end));
                rows.push(
                    sig.iter()
                        .cloned()
                        .zip(items.iter().map(|a| a.lit.json()))
                        .collect(),
                );
            }
        });
        super::keys::name_unknown(&mut rows, cat);
        if let Some(first) = rows.first()
            && first.len() == sig.len()
        {
            *sig = first.keys().cloned().collect();
        }
    }
    let mut found = Vec::new();
    for n in &forest {
        records(n, false, &sigs, ix, cat, &mut found);
    }
    visit(&forest, &mut |n| {
        if let Lit::Str(s) = &n.lit {
            text_table(s, n, ix, cat, &mut found);
        }
    });
    where_tables(ix, cat, &mut found);
    // Beside a table of cases, a lone literal is an example or a default, not a case.
    if found.iter().any(|f| f.in_table) {
        // (`[Trait("Category", "Evals")]` is a pair of words, no row of cases.)
        found.retain(|f| {
            f.in_table
                && (expects_something(&f.draft)
                    || f.draft.prompts.iter().all(|p| utterance_like(p)))
        });
        // A row that leaves out the tool its table's other rows name expects none (rows
        // of a table named by another signature are another table's).
        let expecting: Vec<bool> = found
            .iter()
            .map(|f| {
                let rows = found.iter().filter(|o| o.fields == f.fields);
                let n = rows.clone().count();
                rows.filter(|o| expects_something(&o.draft)).count() * 2 > n
            })
            .collect();
        for (f, expecting) in found.iter_mut().zip(expecting) {
            if expecting && !expects_something(&f.draft) && !f.draft.prompts.is_empty() {
                f.draft.negative = true;
                f.draft.exact_rule = None;
                f.draft.notes.push(
                    "no expected tool in a table whose other rows name one: no tool at all".into(),
                );
            }
        }
    }
    // Prompts listed as needing no tool, each a case of its own (the list read whole, as
    // one record, is none); kept out of the table rules above, which are other tables'.
    let lists = no_tool_lists(ix, &toks, &forest, cat, &mut found);
    found.retain(|f| {
        !lists
            .iter()
            .any(|&(a, b)| f.draft.start_line == a && f.draft.end_line == b)
    });
    if found.is_empty() {
        return test_functions(ix, &toks, &forest, cat);
    }
    // Rows that name no tool, of a test that asserts its tools in its body (`assert
    // "echo" in names`, `assert "legacy-echo" not in names`): the body's expectations
    // are each row's.
    for f in found
        .iter_mut()
        .filter(|f| !f.draft.negative && f.draft.expected_calls.is_empty())
    {
        let body = parametrized_function(ix, f.draft.end_line)
            .map(|k| (k, function_end(ix, k)))
            .or_else(|| cases_block_body(ix, f.draft.start_line));
        if let Some((k, end)) = body {
            let (calls, never) = asserted_tools(ix, &toks, k, end, cat);
            let d = &mut f.draft;
            if calls.is_empty() && (k..=end).any(|n| checks_no_calls(ix.line(n))) {
                d.negative = true;
                d.exact_rule = None;
                d.notes.push("the test's body asserts no tool call".into());
                continue;
            }
            for tool in calls {
                if !d.expected_calls.iter().any(|c| c.tool == tool) {
                    d.expected_calls
                        .push(super::super::draft::ExpectedCall { tool, args: None });
                }
            }
            d.forbid(never);
            if !d.expected_calls.is_empty() || !d.never_called.is_empty() {
                d.exact_rule = None;
                d.notes.push("the tools asserted in the test's body".into());
            }
        }
    }
    let mut out: Vec<Draft> = found
        .into_iter()
        .map(|f| f.draft)
        .filter(Draft::is_case)
        .collect();
    if out.is_empty() {
        return test_functions(ix, &toks, &forest, cat);
    }
    // Beside the table, a test written out on its own (a conversation the table's rows
    // cannot hold) is a case too.
    let own = test_functions(ix, &toks, &forest, cat)
        .into_iter()
        .filter(|d| {
            !d.prompts.is_empty()
                && !out
                    .iter()
                    .any(|t| t.start_line <= d.end_line && d.start_line <= t.end_line)
        })
        .collect::<Vec<_>>();
    out.extend(own);
    out.sort_by_key(|d| d.start_line);
    out
}

/// A list of prompts named as needing no tool (`NO_TOOL_PROMPTS = ["…", "…"]`,
/// `negative_cases = [...]`): each prompt a negative case.
/// Returns the lines each such list spans.
fn no_tool_lists(
    ix: &LineIndex,
    toks: &[Token],
    forest: &[Node],
    cat: &Catalog,
    out: &mut Vec<Found>,
) -> Vec<(usize, usize)> {
    let mut lists = Vec::new();
    visit(forest, &mut |n| {
        let Lit::Seq(items) = &n.lit else { return };
        let said = |i: &Node| matches!(&i.lit, Lit::Str(s) if utterance_like(s));
        if items.is_empty() || !items.iter().all(said) {
            return;
        }
        // (The tokens are in order: the list's opening one is found by halving.)
        let at = toks.partition_point(|t| t.start < n.start);
        if toks.get(at).is_none_or(|t| t.start != n.start) {
            return;
        }
        let name = match (
            at.checked_sub(2).map(|k| &toks[k].tok),
            at.checked_sub(1).map(|k| &toks[k].tok),
        ) {
            (Some(Tok::Ident(name) | Tok::Str(name)), Some(Tok::Punct("=" | ":" | ":="))) => name,
            _ => return,
        };
        // (`NO_TOOL_PROMPTS`, `negative_cases`, `ohne_werkzeug`: as a label or a clause
        // would say it, in any language of the lexicon.)
        let words = normalize_label(name);
        let negative = |w: &str| lexicon::label_role(w) == Some(lexicon::LabelRole::Negative);
        let no_tool = negative(&words)
            || words.split(' ').any(negative)
            || super::super::reading::negative_clause(&lexicon::fold(&words)).is_some();
        if !no_tool {
            return;
        }
        lists.push(ix.span_of(n.start, n.end));
        for item in items {
            let Lit::Str(prompt) = &item.lit else {
                continue;
            };
            let (start, end) = ix.span_of(item.start, item.end);
            let mut m = Map::new();
            m.insert("prompt".into(), Value::String(prompt.clone()));
            m.insert("tool".into(), Value::Null);
            out.push(Found {
                draft: object_draft(&m, start, end, "code literal", cat),
                in_table: true,
                fields: vec![name.clone()],
            });
        }
    });
    lists
}

fn expects_something(d: &Draft) -> bool {
    d.negative
        || !d.expected_calls.is_empty()
        || !d.never_called.is_empty()
        || !d.contains.is_empty()
        || !d.assertions.is_empty()
}

/// Names that a positional record's fields take: a `parametrize` string
/// (`"prompt,expected_tools"`), a list of such names, or a lambda's parameters.
fn signatures(n: &Node, out: &mut Vec<Vec<String>>) {
    let names: Option<Vec<String>> = match &n.lit {
        Lit::Str(s) if s.contains(',') => s
            .split(',')
            .map(|p| {
                let p = p.trim();
                is_ident(p).then(|| p.to_string())
            })
            .collect(),
        // A list of names, or a function's parameters (`async (prompt, tool) => …`,
        // `def test(prompt, tool)`).
        Lit::Seq(items) | Lit::Call { args: items, .. } if items.len() >= 2 => items
            .iter()
            .map(|i| match &i.lit {
                Lit::Str(s) | Lit::Name(s) if is_ident(s) => Some(s.clone()),
                _ => None,
            })
            .collect(),
        _ => None,
    };
    // (`use x::{Expect, Harness, Turn}` lists types, not fields.)
    if let Some(names) = names
        && names.len() >= 2
        && !names.iter().all(|n| n.starts_with(char::is_uppercase))
        && names_a_case(names.iter().map(String::as_str))
        && !out.contains(&names)
    {
        out.push(names);
    }
    for c in n.children() {
        signatures(c, out);
    }
}

fn is_ident(s: &str) -> bool {
    !s.is_empty()
        && s.chars().all(|c| c.is_alphanumeric() || c == '_')
        && !s.starts_with(|c: char| c.is_ascii_digit())
}

/// The fields of a keyed literal that is a case. A call passing variables
/// (`run_model(prompt, tools=session.tools)`) is none: some field that names a case holds
/// a literal. Nor is a tool's arguments (`{"message": "hi"}`): a case has more than one
/// field, and not only parameters.
fn case_pairs<'a>(n: &'a Node, cat: &Catalog) -> Option<&'a [(String, Node)]> {
    // (A map of the prompt alone is a case too, `@{ Prompt = '…' }` in a test's cases
    // whose body says what is expected.)
    let prompt_alone = |pairs: &[(String, Node)]| {
        matches!(n.lit, Lit::Map(_))
            && matches!(pairs, [(k, v)] if role_of(k) == Role::Prompt
                && matches!(&v.lit, Lit::Str(s) if utterance_like(s)))
    };
    n.lit.pairs().filter(|pairs| {
        (pairs.len() >= 2 || prompt_alone(pairs))
            && !pairs.iter().all(|(k, _)| cat.is_param(k))
            && pairs
                .iter()
                .any(|(k, v)| v.lit.is_literal() && names_a_case([k.as_str()]))
    })
}

/// A case read from a literal, and whether it is one row of a table of cases.
struct Found {
    draft: Draft,
    in_table: bool,
    /// The fields the row's table names (its signature), when a signature named them:
    /// the rows one rule of the table holds for.
    fields: Vec<String>,
}

/// Reads every case literal under `n`.
fn records(
    n: &Node,
    in_table: bool,
    sigs: &[Vec<String>],
    ix: &LineIndex,
    cat: &Catalog,
    out: &mut Vec<Found>,
) {
    // A chat turn (`{"role": …, "content": …}`, `user("…")`) is part of a case, not one.
    if let Lit::Map(pairs) = &n.lit
        && pairs.len() == 2
        && pairs.iter().all(|(k, _)| k == "role" || k == "content")
    {
        return;
    }
    // One field named over a list of strings (`parametrize("prompt", ["…", "…"])`): each
    // string is a row, as the test runner makes it, not a turn of one conversation.
    if let Lit::Call { args, .. } = &n.lit
        && let [name, rows] = &args[..]
        && let (Lit::Str(name), Lit::Seq(rows)) = (&name.lit, &rows.lit)
        && is_ident(name)
        && role_of(name) == Role::Prompt
        && !rows.is_empty()
        && rows
            .iter()
            .all(|r| matches!(&r.lit, Lit::Str(s) if utterance_like(s)))
    {
        for r in rows {
            let m: Map<String, Value> = [(name.clone(), r.lit.json())].into_iter().collect();
            out.push(Found {
                draft: record(&m, r, ix, cat),
                in_table: true,
                fields: vec![name.clone()],
            });
        }
        return;
    }
    if let Some(pairs) = case_pairs(n, cat) {
        let mut m = pairs_json(pairs);
        if let Lit::Call { args, .. } = &n.lit
            && let Some(sig) = sigs.iter().find(|s| s.len() == args.len())
        {
            for (k, v) in sig.iter().zip(args) {
                m.entry(k.clone()).or_insert_with(|| v.lit.json());
            }
        }
        let mut draft = record(&m, n, ix, cat);
        if draft.expected_calls.is_empty() && !draft.negative {
            described_in_tool_field(pairs, cat, &mut draft);
        }
        out.push(Found {
            draft,
            in_table,
            fields: Vec::new(),
        });
        return;
    }
    // A row named by a signature of its arity: `VALUES ('c1', 'What is…', 'get-sum'), …`.
    if let Some(fields) = n.lit.positional()
        && fields.iter().filter(|f| row_value(n, f)).count() >= 2
        && fields.iter().all(
            |f| !matches!(f.lit, Lit::Seq(ref r) if r.iter().any(|x| x.lit.positional().is_some())),
        )
        && let Some(sig) = sigs.iter().find(|s| s.len() == fields.len())
    {
        let m: Map<String, Value> = sig
            .iter()
            .zip(fields)
            .map(|(k, v)| (k.clone(), v.lit.json()))
            .collect();
        // A row opened by its statement (`VALUES (…`) starts at its values.
        let d = match &n.lit {
            Lit::Call { .. } => {
                let (start, end) = ix.span_of(fields[0].start, n.end);
                object_draft(&m, start, end, "code literal", cat)
            }
            _ => record(&m, n, ix, cat),
        };
        // (`os.environ.get("EVAL_MODEL", "claude-sonnet-4")` fits a signature of two.)
        if !d.prompts.is_empty() && d.prompts.iter().all(|p| utterance_like(p)) {
            out.push(Found {
                draft: d,
                in_table: true,
                fields: sig.clone(),
            });
            return;
        }
    }
    // A Rust attribute's row whose expectation is built in code (rstest's `#[case("…",
    // Expect::tool("echo").args(json!({…})).never("x"))]`): its prompt, and the rest of its
    // source read as prose.
    if let Some(d) = attribute_row(n, ix, cat) {
        out.push(Found {
            draft: d,
            in_table: true,
            fields: Vec::new(),
        });
        return;
    }
    // A row whose values say what they are (no signature names them).
    if let Some(fields) = n.lit.positional()
        && !sigs.iter().any(|s| s.len() == fields.len())
        && let Some(m) = typed_row(fields, cat)
    {
        // (`[InlineData(…, Skip = "Rejected in review")]`: parked, no case.)
        let parked = matches!(&n.lit, Lit::Call { kwargs, .. }
        if kwargs.iter().any(|(k, v)| {
            lexicon::listed(lexicon::OFF_SWITCHES, &lexicon::fold(k))
                && !matches!(v.lit, Lit::Bool(false) | Lit::Null)
        }));
        let d = record(&m, n, ix, cat);
        if !parked && d.prompts.iter().all(|p| utterance_like(p)) {
            out.push(Found {
                draft: d,
                in_table: true,
                fields: Vec::new(),
            });
        }
        return;
    }
    let mut taken = Vec::new();
    if let Some(items) = n.lit.positional() {
        for row in items {
            // A row holds a string (its prompt, a tool); a list of rows does not.
            let Some(fields) = row
                .lit
                .positional()
                // (Two values at least, strings or lists: `Assert.That(result.Calls, Is.Empty,
                // "…")` passes variables, and is no row.)
                .filter(|f| {
                    let literal = f.iter().filter(|x| row_value(row, x)).count();
                    let names = f.iter().filter(|x| matches!(x.lit, Lit::Name(_))).count();
                    f.len() >= 2 && literal >= 1 && names <= literal
                })
            else {
                continue;
            };
            let Some(sig) = sigs.iter().find(|s| s.len() == fields.len()) else {
                continue;
            };
            let mut m: Map<String, Value> = sig
                .iter()
                .zip(fields)
                .map(|(k, v)| (k.clone(), v.lit.json()))
                .collect();
            if let Lit::Call { kwargs, .. } = &row.lit {
                for (k, v) in kwargs {
                    m.entry(k.clone()).or_insert_with(|| v.lit.json());
                }
            }
            out.push(Found {
                draft: record(&m, row, ix, cat),
                in_table: true,
                fields: sig.clone(),
            });
            taken.push(row.start);
        }
    }
    let children = n.children();
    // (`CASES.append({…})`, `cases.push({…})`: a row added to the table further down.)
    let appended = matches!(n.lit, Lit::Call { .. })
        && ix.text()[n.start..]
            .split('(')
            .next()
            .and_then(|callee| callee.rsplit('.').next())
            .is_some_and(|m| {
                matches!(
                    m.trim(),
                    "append" | "push" | "extend" | "insert" | "unshift"
                )
            });
    // (A list holding one case is a table of one: Pester's `-TestCases @( @{…} )`.)
    let listed = children
        .iter()
        .filter(|c| case_pairs(c, cat).is_some())
        .count();
    let table = appended
        || listed >= 2
        || listed == 1
            && (matches!(n.lit, Lit::Seq(_))
                // (Or a data-driven test's one row, `withData(ToolCase(…))`.)
                || matches!(&n.lit, Lit::Call { args, kwargs } if args.len() == 1 && kwargs.is_empty()));
    for c in children {
        if !taken.contains(&c.start) {
            records(c, table, sigs, ix, cat, out);
        }
    }
}

/// Whether a field of a positional row holds a value of it: a string, or a list of strings
/// a call is given (`new TestCaseData(new[] { "…", "…" }, …)`; a list of such lists is
/// rows, not a row).
fn row_value(row: &Node, field: &Node) -> bool {
    match &field.lit {
        Lit::Str(_) => true,
        Lit::Seq(items) => {
            matches!(row.lit, Lit::Call { .. })
                && !items.is_empty()
                && items.iter().all(|i| matches!(i.lit, Lit::Str(_)))
        }
        _ => false,
    }
}

/// A case given as a Rust attribute (`#[case(…)]`, `#[case::name(…)]`, `#[test_case(…)]`)
/// whose first value is what the user says and whose others build the expectation in code:
/// read as prose, the prompt given.
fn attribute_row(n: &Node, ix: &LineIndex, cat: &Catalog) -> Option<Draft> {
    let Lit::Call { args, .. } = &n.lit else {
        return None;
    };
    let own = &ix.text()[n.start..];
    if !ix.text()[..n.start].trim_end().ends_with("#[")
        || !(own.starts_with("case") || own.starts_with("test_case"))
    {
        return None;
    }
    // What the user says: a string, or a conversation's user turns.
    let said: Vec<String> = match args.first().map(|a| &a.lit) {
        Some(Lit::Str(p)) => vec![p.clone()],
        Some(Lit::Seq(turns)) => turns
            .iter()
            .filter_map(|t| match &t.lit {
                Lit::Map(pairs) => {
                    let get = |k: &str| pairs.iter().find(|(pk, _)| pk == k).map(|(_, v)| &v.lit);
                    match (get("role"), get("content")) {
                        (Some(Lit::Str(r)), Some(Lit::Str(c))) if r == "user" => Some(c.clone()),
                        _ => None,
                    }
                }
                _ => None,
            })
            .collect(),
        _ => return None,
    };
    if said.is_empty()
        || !said.iter().all(|p| utterance_like(p))
        || args.len() > 1 && !args[1..].iter().all(|a| !matches!(a.lit, Lit::Str(_)))
    {
        return None;
    }
    let rest = &ix.text()[args[0].end.min(n.end)..n.end];
    let (start, end) = ix.span_of(n.start, n.end);
    let info = UnitInfo {
        shape: "code literal",
        start,
        end,
        title: None,
        key: None,
        structured: false,
        title_said: false,
    };
    // (Set aside by the attribute above it: `#[ignore = "parked: …"]`.)
    let line = ix.line_of(n.start);
    if line > 1 && ix.line(line - 1).trim_start().starts_with("#[ignore") {
        return Some(Draft::default());
    }
    let mut segs: Vec<Segment> = said
        .into_iter()
        .map(|p| Segment::labelled("prompt", p))
        .collect();
    segs.push(Segment::plain(
        rest.replace("::", " ").replace(['_', '.'], " "),
    ));
    let mut d = read_unit(&segs, &info, cat)?;
    // (A tool looked up by what it does, `Expect::tool_described("reports the uptime")`.)
    if d.expected_calls.is_empty() && !d.negative {
        let mut described = None;
        visit(&args[1..], &mut |v| {
            if described.is_none()
                && let Lit::Str(s) = &v.lit
                && cat.resolve(s).is_none()
            {
                described = cat.described_by(s);
            }
        });
        if let Some(t) = described {
            d.expected_calls.push(super::super::draft::ExpectedCall {
                tool: cat.name(t).to_string(),
                args: None,
            });
            d.exact_rule = None;
            d.notes
                .push(format!("`{}` looked up by what it does", cat.name(t)));
        }
    }
    Some(d)
}

/// A positional row (`("What is 2 + 2?", "get-sum", {"a": 2, "b": 2}, ["crash"])`,
/// `#[test_case("…", Expect::Tool("echo"), json!({…}), &[])]`) read by what its values are:
/// an utterance is the prompt; a live tool's name the tool (a none value or a `NoTool`
/// name in its place: no tool); an object of that tool's parameters its arguments; a list
/// of tool names the forbidden tools.
fn typed_row(fields: &[Node], cat: &Catalog) -> Option<Map<String, Value>> {
    let values: Vec<Value> = fields
        .iter()
        .map(|f| match &f.lit {
            // `Expect::NoTool`, `None`: no tool at all.
            Lit::Name(n)
                if lexicon::is_none_word(&normalize_label(n.rsplit('.').next().unwrap_or(n))) =>
            {
                Value::Null
            }
            Lit::Name(_) => Value::Bool(false),
            lit => lit.json(),
        })
        .collect();
    typed_values(&values, cat)
}

/// A cell of a template-literal table (Jest's `it.each` table: `${'What is 2 + 3?'}`,
/// `${{ a: 2 }}`, `${null}`): the value of the code inside; any other cell, its text.
fn template_value(cell: &str) -> Value {
    let Some(inner) = cell.strip_prefix("${").and_then(|c| c.strip_suffix('}')) else {
        return Value::String(cell.to_string());
    };
    let toks = tokenize(inner);
    let mut p = Parser {
        t: &toks,
        i: 0,
        depth: 0,
    };
    match p.value() {
        // (`NO_TOOL`, `None`: a name for no tool at all.)
        Some(Node {
            lit: Lit::Name(name),
            ..
        }) if lexicon::is_none_word(&normalize_label(name.rsplit('.').next().unwrap_or(&name))) => {
            Value::Null
        }
        Some(n) if p.i == toks.len() => n.lit.json(),
        _ => Value::String(cell.to_string()),
    }
}

/// A table written inside a string (JUnit's `@CsvSource(textBlock = \"\"\" … \"\"\")`): lines of
/// cells parted by `|`, `;` or a tab, `#` lines commented out. Each row is read by what its
/// cells are, and spans its own line.
fn text_table(s: &str, n: &Node, ix: &LineIndex, cat: &Catalog, out: &mut Vec<Found>) {
    let rows: Vec<&str> = s
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#') && !l.starts_with("//"))
        .collect();
    if rows.len() < 2 {
        return;
    }
    // (Two columns part by one `|` under a header of names: `prompt | expectedCalls`.)
    let named = |d: char| rows[0].split(d).all(|c| is_ident(c.trim()));
    let Some(d) = ['|', ';', '\t'].into_iter().find(|d| {
        let c = rows[0].matches(*d).count();
        (c >= 2 || c == 1 && *d == '|' && named(*d))
            && rows.iter().all(|r| r.matches(*d).count() == c)
    }) else {
        return;
    };
    let source = &ix.text()[n.start..n.end];
    // (Jest's tagged template, `prompt | expectedCalls` over `${'…'} | ${[]}` rows: the
    // header names the cells.)
    let split = |row: &str| -> Vec<String> {
        row.trim_matches(d)
            .split(d)
            .map(|c| c.trim().to_string())
            .collect()
    };
    let header = Some(split(rows[0])).filter(|h| h.iter().all(|c| is_ident(c)));
    for row in rows.iter().skip(usize::from(header.is_some())) {
        let cells: Vec<Value> = split(row).iter().map(|c| template_value(c)).collect();
        let named = header.as_ref().filter(|h| h.len() == cells.len()).map(|h| {
            h.iter()
                .cloned()
                .zip(cells.iter().cloned())
                .collect::<Map<String, Value>>()
        });
        let (Some(m), Some(at)) = (
            named.or_else(|| typed_values(&cells, cat)),
            source.find(row),
        ) else {
            continue;
        };
        let line = ix.line_of(n.start + at);
        let mut draft = object_draft(&m, line, line, "code literal", cat);
        draft.key = cells
            .first()
            .and_then(Value::as_str)
            .filter(|k| !k.contains(' ') && !k.is_empty())
            .map(str::to_string);
        out.push(Found {
            draft,
            in_table: true,
            fields: Vec::new(),
        });
    }
}

/// Spock's data tables (`where:` over `prompt | tool | args || forbidden` rows): each row
/// a case, its cells code literals named by the header.
fn where_tables(ix: &LineIndex, cat: &Catalog, out: &mut Vec<Found>) {
    let split = |l: &str| -> Vec<String> {
        l.split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut k = 1;
    while k <= ix.len() {
        if ix.line(k).trim() != "where:" {
            k += 1;
            continue;
        }
        let rows: Vec<usize> = (k + 1..=ix.len())
            .take_while(|&j| ix.line(j).contains('|'))
            .collect();
        k += 1 + rows.len();
        let Some((&head, body)) = rows.split_first() else {
            continue;
        };
        let header = split(ix.line(head));
        for &r in body {
            let cells = split(ix.line(r));
            if cells.len() != header.len() {
                continue;
            }
            let m: Map<String, Value> = header
                .iter()
                .zip(&cells)
                .map(|(h, c)| (h.clone(), template_value(&format!("${{{c}}}"))))
                .collect();
            let draft = object_draft(&m, r, r, "code literal", cat);
            if draft.is_case() {
                out.push(Found {
                    draft,
                    in_table: true,
                    fields: Vec::new(),
                });
            }
        }
    }
}

/// [`typed_row`] over values: a table's cells as strings read the same way (`get-sum`,
/// `NONE`, `a=17;b=25`, `delete-item,crash`).
/// A row of a conversation, read by what its values are: a list of utterances (its
/// turns), then a list as long of live tools' names (the call each turn expects), and
/// perhaps a list as long of their arguments (objects, or JSON in strings).
fn typed_turns(values: &[Value], cat: &Catalog) -> Option<Map<String, Value>> {
    let strings = |v: &Value| -> Option<Vec<String>> {
        v.as_array()?
            .iter()
            .map(|x| x.as_str().map(str::to_string))
            .collect()
    };
    let (p, turns) = values.iter().enumerate().find_map(|(k, v)| {
        let said = strings(v)?;
        (said.len() >= 2
            && said
                .iter()
                .all(|s| utterance_like(s) && cat.resolve(s).is_none()))
        .then_some((k, said))
    })?;
    let rest = &values[p + 1..];
    let (t, tools) = rest.iter().enumerate().find_map(|(k, v)| {
        let names = strings(v)?;
        (names.len() == turns.len() && names.iter().all(|n| cat.resolve(n).is_some()))
            .then_some((k, names))
    })?;
    let args: Vec<Value> = rest[t + 1..]
        .iter()
        .find_map(|v| {
            let items = v.as_array().filter(|a| a.len() == tools.len())?;
            items
                .iter()
                .map(|x| match x {
                    Value::Object(_) => Some(x.clone()),
                    Value::String(s) => serde_json::from_str::<Value>(s)
                        .ok()
                        .filter(Value::is_object),
                    _ => None,
                })
                .collect::<Option<Vec<Value>>>()
        })
        .unwrap_or_default();
    let calls: Vec<Value> = tools
        .iter()
        .enumerate()
        .map(|(k, name)| match args.get(k) {
            Some(a) => serde_json::json!({"name": name, "arguments": a}),
            None => serde_json::json!({"name": name}),
        })
        .collect();
    let mut m = Map::new();
    m.insert(
        "turns".into(),
        Value::Array(turns.into_iter().map(Value::String).collect()),
    );
    m.insert("tool".into(), Value::Array(calls));
    Some(m)
}

fn typed_values(values: &[Value], cat: &Catalog) -> Option<Map<String, Value>> {
    if values.len() < 2 || cat.is_empty() {
        return None;
    }
    let tools_in = |s: &str| -> Option<Vec<Value>> {
        let names: Vec<&str> = s
            .split([',', ';'])
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .collect();
        (!names.is_empty() && names.iter().all(|n| cat.resolve(n).is_some()))
            .then(|| names.iter().map(|n| Value::String(n.to_string())).collect())
    };
    let is_tool = |v: &Value| v.as_str().and_then(|s| cat.resolve(s)).is_some();
    if let Some(m) = typed_turns(values, cat) {
        return Some(m);
    }
    let p = values.iter().position(
        |v| matches!(v, Value::String(s) if utterance_like(s) && cat.resolve(s).is_none()),
    )?;
    let mut m = Map::new();
    m.insert("prompt".into(), values[p].clone());
    let rest = &values[p + 1..];
    let tool = rest.iter().position(is_tool);
    let none = rest.iter().position(|v| match v {
        Value::Null => true,
        Value::String(s) => lexicon::is_none_word(s) && !s.trim().is_empty(),
        _ => false,
    });
    let tool_at = match (tool, none) {
        (Some(t), _) => {
            m.insert("tool".into(), rest[t].clone());
            t
        }
        (None, Some(n)) => {
            m.insert("tool".into(), Value::String("none".into()));
            n
        }
        (None, None) => return None,
    };
    for v in &rest[tool_at + 1..] {
        // Arguments written as a JSON string (`"{\"a\": 1}"`) or as alternating keys and
        // values (`Map.of("a", 1, "b", 2)`).
        let as_object = match v {
            Value::String(s) if s.trim_start().starts_with('{') => serde_json::from_str(s).ok(),
            Value::Array(kv)
                if kv.len() >= 2
                    && kv.len() % 2 == 0
                    && kv
                        .iter()
                        .step_by(2)
                        .all(|k| k.as_str().is_some_and(|k| cat.is_param(k))) =>
            {
                Some(Value::Object(
                    kv.chunks(2)
                        .map(|p| (p[0].as_str().unwrap_or_default().to_string(), p[1].clone()))
                        .collect(),
                ))
            }
            _ => None,
        };
        let v = as_object.as_ref().unwrap_or(v);
        match v {
            Value::Object(o) if !o.is_empty() && o.keys().all(|k| cat.is_param(k)) => {
                m.entry("args").or_insert(v.clone());
            }
            Value::String(s) if cat.assigns_params(s) && !m.contains_key("args") => {
                m.insert("args".into(), v.clone());
            }
            Value::Array(a)
                if !a.is_empty() && a.iter().all(is_tool) && !m.contains_key("forbidden") =>
            {
                m.insert("forbidden".into(), v.clone());
            }
            Value::String(s) if !m.contains_key("forbidden") => {
                if let Some(names) = tools_in(s) {
                    m.insert("forbidden".into(), Value::Array(names));
                }
            }
            _ => {}
        }
    }
    Some(m)
}

fn record(m: &Map<String, Value>, n: &Node, ix: &LineIndex, cat: &Catalog) -> Draft {
    let (start, end) = ix.span_of(n.start, n.end);
    let mut m = m.clone();
    // `marks=pytest.mark.skip` or `marks=pytest.mark.skip(reason=…)`: kept in the file,
    // switched off (`skipif` only on a condition).
    let src = &ix.text()[n.start..n.end];
    let skipped = src.match_indices("mark.skip").any(|(i, w)| {
        src[i + w.len()..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_')
    });
    if skipped
        || m.get("marks")
            .is_some_and(|v| v.to_string().to_ascii_lowercase().contains("skip"))
    {
        m.insert("skip".into(), Value::Bool(true));
    }
    object_draft(&m, start, end, "code literal", cat)
}

/// A tool field that looks its tool up by what it does (`expected=[tool_like("process id
/// and uptime")]`): the tool described, when one is.
fn described_in_tool_field(pairs: &[(String, Node)], cat: &Catalog, d: &mut Draft) {
    let mut described = None;
    for (_, v) in pairs.iter().filter(|(k, _)| {
        matches!(
            role_of(k),
            Role::Tool | Role::Expected | Role::ShouldCallTools
        )
    }) {
        visit(std::slice::from_ref(v), &mut |n| {
            if described.is_none()
                && let Lit::Str(s) = &n.lit
                && cat.resolve(s).is_none()
            {
                described = cat.described_by(s);
            }
        });
    }
    if let Some(t) = described {
        d.expected_calls.push(super::super::draft::ExpectedCall {
            tool: cat.name(t).to_string(),
            args: None,
        });
        d.exact_rule = None;
        d.notes
            .push(format!("`{}` looked up by what it does", cat.name(t)));
    }
}

/// A test function's first line, and whether it was switched off there.
fn test_start(line: &str) -> Option<bool> {
    let t = line.trim_start();
    let t = t.strip_prefix("async ").unwrap_or(t).trim_start();
    const ON: &[&str] = &[
        "def test",
        // Elixir's ExUnit (`test "adds two integers" do`), Spock's feature methods.
        "test \"",
        "def \"",
        "func Test",
        "it(",
        "it (",
        "it \"",
        "it '",
        "it.only(",
        "test(",
        "test.only(",
        "test.concurrent(",
        "specify(",
        "specify \"",
        "scenario(",
        "scenario \"",
        "example \"",
        "t.Run(",
    ];
    const OFF: &[&str] = &[
        "xit(",
        "xit \"",
        "xtest(",
        "it.skip(",
        "it.todo(",
        "test.skip(",
        "test.todo(",
        "xspecify",
        "pending \"",
    ];
    // Pester's `It "…" {`, set aside with `-Skip`.
    if t.starts_with("It \"") {
        Some(!t.contains(" -Skip"))
    } else if ON.iter().any(|p| t.starts_with(p)) {
        Some(true)
    } else if OFF.iter().any(|p| t.starts_with(p)) {
        Some(false)
    } else {
        None
    }
}

/// A function declared a test by its annotation (`#[test]`, `#[tokio::test]`, `@Test`,
/// `#[Test]`), or named one (`fn test_…`, `public function test…`).
fn annotated_test(ix: &LineIndex, k: usize) -> bool {
    let t = ix.line(k).trim_start();
    let declares = [
        "fn ",
        "fun ",
        "function ",
        "void ",
        "func ",
        "def ",
        "Task ",
        "async ",
    ]
    .iter()
    .any(|d| t.contains(d))
        && t.contains('(');
    if !declares {
        return false;
    }
    let name = t
        .split(['(', '<'])
        .next()
        .unwrap_or_default()
        .rsplit(' ')
        .next()
        .unwrap_or_default();
    name.starts_with("test")
        || (1..k).rev().take(3).any(|j| {
            let a = ix.line(j).trim();
            // (C#'s `[Fact]`, `[Test]`, `[TestMethod]` too.)
            (a.starts_with('@') || a.starts_with("#[") || a.starts_with('['))
                && (a
                    .trim_start_matches(['@', '#', '['])
                    .trim_end_matches(']')
                    .rsplit("::")
                    .next()
                    .is_some_and(|n| {
                        ["test", "fact", "testmethod"]
                            .iter()
                            .any(|w| n.eq_ignore_ascii_case(w))
                    }))
        })
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// One unit per test function, read like prose: its strings, the tools they name, the
/// arguments beside them, its comments and its name.
fn test_functions(ix: &LineIndex, toks: &[Token], forest: &[Node], cat: &Catalog) -> Vec<Draft> {
    let n = ix.len();
    let mut out = Vec::new();
    let mut k = 1;
    while k <= n {
        let line = ix.line(k);
        let Some(on) = test_start(line).or_else(|| annotated_test(ix, k).then_some(true)) else {
            k += 1;
            continue;
        };
        let end = function_end(ix, k);
        let decorated_off = (1..k).rev().take_while(|&j| {
            let t = ix.line(j).trim();
            t.starts_with('@') || t.starts_with("#[")
        });
        let skipped =
            !on || decorated_off.into_iter().any(|j| {
                let a = ix.line(j).to_ascii_lowercase();
                a.contains("skip") || a.contains("@ignore") || a.contains("@disabled")
            }) || (k..=end).any(|j| {
                let t = ix.line(j).trim_start();
                t.starts_with("t.Skip") || t.starts_with("pytest.skip(") || t.starts_with("skip(")
            });
        if !skipped && let Some(d) = read_function(ix, toks, forest, k, end, cat) {
            out.push(d);
        }
        k = end + 1;
    }
    out
}

/// The last line of the function that opens on line `k`: its indented body in Python, up
/// to its closing line elsewhere.
fn function_end(ix: &LineIndex, k: usize) -> usize {
    let line = ix.line(k);
    let ind = indent(line);
    let python = line.trim_start().starts_with("def ") || line.contains("async def ");
    let mut end = k;
    for j in k + 1..=ix.len() {
        let l = ix.line(j);
        let t = l.trim();
        if t.is_empty() {
            continue;
        }
        if python {
            if indent(l) <= ind {
                break;
            }
            end = j;
        } else {
            end = j;
            if indent(l) == ind && (t.starts_with(['}', ')']) || t == "end") {
                break;
            }
        }
    }
    end
}

/// The test function a row ending on line `row_end` is a parameter set of
/// (`@pytest.mark.parametrize(…, [rows], ids=[…])` over `def test_…`): its first line,
/// when only the table's other rows and the decorator's closing lines stand between.
fn parametrized_function(ix: &LineIndex, row_end: usize) -> Option<usize> {
    for k in row_end + 1..=(row_end + 60).min(ix.len()) {
        let t = ix.line(k).trim();
        if test_start(t) == Some(true) {
            return Some(k);
        }
        let closing = t.is_empty()
            || t.starts_with(['@', ')', ']', '#', '(', '[', '{', '"', '\''])
            || t.starts_with("pytest.param")
            || t.starts_with("ids=")
            || t.starts_with("ids =");
        if !closing {
            return None;
        }
    }
    None
}

/// The body of the test whose cases stand between its name and its body (Pester's `It
/// "…" -TestCases @( … ) { … }`), for a row starting on line `row_start`: the lines after
/// the rows, to the test's end.
fn cases_block_body(ix: &LineIndex, row_start: usize) -> Option<(usize, usize)> {
    let k = (row_start.saturating_sub(60).max(1)..row_start)
        .rev()
        .find(|&k| test_start(ix.line(k)) == Some(true))?;
    if !ix.line(k).contains("-TestCases") {
        return None;
    }
    let end = function_end(ix, k);
    let body = (row_start..=end).find(|&n| {
        let t = ix.line(n).trim();
        t.starts_with([']', ')']) && t.ends_with('{')
    })?;
    Some((body + 1, end))
}

/// The tools a function's lines name in strings, as it asserts them: called, or (on a
/// line that says absent) never called.
fn asserted_tools(
    ix: &LineIndex,
    toks: &[Token],
    start: usize,
    end: usize,
    cat: &Catalog,
) -> (Vec<String>, Vec<String>) {
    let (a, b) = ix.bounds(start, end);
    let (mut calls, mut never) = (Vec::new(), Vec::new());
    for t in toks.iter().filter(|t| a <= t.start && t.start < b) {
        let Tok::Str(s) = &t.tok else {
            continue;
        };
        if cat.resolve(s).is_none() {
            continue;
        }
        let line = ix.line(ix.line_of(t.start));
        let list = if negated(line) {
            &mut never
        } else {
            &mut calls
        };
        if !list.contains(s) {
            list.push(s.clone());
        }
    }
    (calls, never)
}

/// Whether a line of code says something is absent (`not in`, `.not.`, `assert not`).
fn negated(code: &str) -> bool {
    let c = code.to_ascii_lowercase();
    [
        " not in ",
        ".not.",
        "assert not",
        "assert_not",
        "assertnotin",
        "assert_not_in",
        "notcontains",
        "not_called",
        "notcalled",
        "never",
        "!contains",
        "refute",
        "to_not",
        "not_to",
        "notinclude",
        "!includes",
        "must not",
        "should not",
        "doesnotcontain",
        "does_not_contain",
        ".none(",
        ".none {",
        "nonematch",
        "assertfalse",
        "assert_false",
        "should -not",
    ]
    .iter()
    .any(|w| c.contains(w))
        || negating_name(code)
        // `!run.called(it)`, `!result.called("crash")`: a call check negated, whatever
        // the variable is named.
        || c.match_indices('!').any(|(i, _)| {
            let rest = &c[i + 1..];
            let name_end = rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '.'))
                .unwrap_or(rest.len());
            rest[..name_end].ends_with("called") && rest[name_end..].starts_with('(')
        })
        // `assert!(!calls.iter().any(…))`: a logical not (a macro's `!` follows its name).
        || c.contains(".any(")
            && c.char_indices().any(|(i, ch)| {
                ch == '!'
                    && !c[..i].ends_with(|p: char| p.is_alphanumeric() || p == '_')
                    && c[i + 1..].starts_with(|n: char| n.is_alphabetic() || n == '(')
            })
}

/// Whether the line calls a helper whose name says "not" in the writer's language before
/// what it checks (`nao_chamou`, `nichtAufgerufen`, `non_chiamato`, `niet_aangeroepen`).
fn negating_name(code: &str) -> bool {
    const NOT: &[&str] = &[
        "not", "nao", "nicht", "non", "niet", "pas", "nie", "sem", "sin", "senza", "ohne", "never",
        "nunca", "jamais", "mai", "nooit", "niemals",
    ];
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|id| id.len() > 4)
        .any(|id| {
            // The name's words: `nao_chamou` → nao, chamou; `nichtAufgerufen` → nicht, …
            let mut words: Vec<String> = Vec::new();
            for part in id.split('_').filter(|p| !p.is_empty()) {
                let mut w = String::new();
                for ch in part.chars() {
                    if ch.is_uppercase() && !w.is_empty() {
                        words.push(std::mem::take(&mut w));
                    }
                    w.extend(ch.to_lowercase());
                }
                words.push(w);
            }
            words.len() >= 2
                && words[..words.len() - 1]
                    .iter()
                    .any(|w| lexicon::listed(NOT, &lexicon::fold(w)))
        })
}

/// Whether a line of code checks that no tool was called (`calls == []`,
/// `toHaveLength(0)`, `assert not result.tool_calls`).
fn checks_no_calls(code: &str) -> bool {
    let c = code.to_ascii_lowercase().replace(' ', "");
    // (`chamadas`, `llamadas`, `appels`, `aufrufe`, `chiamate`, `aanroepen`: calls in the
    // writer's language.)
    [
        "tool",
        "call",
        "chamad",
        "llamad",
        "appel",
        "aufruf",
        "chiamat",
        "aanroep",
        "werkzeug",
        "outil",
        "herramient",
        "ferrament",
        "strument",
    ]
    .iter()
    .any(|w| c.contains(w))
        && [
            "==[]",
            "==0",
            "no_tool",
            "notool",
            "no_calls",
            "nocalls",
            "tohavelength(0)",
            "toequal([])",
            "tobeempty",
            "is_empty()",
            "assertnot",
            "empty(t,",
            "len(0)",
            ",0)",
            "eq([])",
            "be_empty",
            "assert_eq!(0,",
            ".len(),0)",
            "tostrictequal([])",
            // (`assertEqual(run.tool_names(), [])`, `assert_eq!(calls, vec![])`.)
            ",[])",
            ",vec![])",
            // (Pester: `$r.ToolCalls | Should -BeNullOrEmpty`; Kotest: `shouldBeEmpty()`.)
            "|should-benullorempty",
            "|should-havecount0",
            ".shouldbeempty()",
            "shouldhavesize0",
        ]
        .iter()
        .any(|w| c.contains(w))
}

fn read_function(
    ix: &LineIndex,
    toks: &[Token],
    forest: &[Node],
    start: usize,
    end: usize,
    cat: &Catalog,
) -> Option<Draft> {
    let (a, b) = ix.bounds(start, end);
    let mut segs = Vec::new();
    let head = ix.line(start).trim();
    // The title: `it("…")`'s string, or the function's name in words.
    let first_str = toks
        .iter()
        .skip_while(|t| t.start < a)
        .take_while(|t| t.start < a + ix.line(start).len())
        .find(|t| matches!(t.tok, Tok::Str(_)));
    let title = match first_str.map(|t| &t.tok) {
        Some(Tok::Str(s))
            if head.starts_with("def \"")
                || !head.starts_with("def ") && !head.starts_with("func ") =>
        {
            s.clone()
        }
        _ => {
            // The function's name: a `test…` word, else the word before the parameters
            // (`public async Task Uptime_UsesServerInfo()`).
            let name = head
                .split_whitespace()
                .find(|w| w.starts_with("test") || w.starts_with("Test"))
                .unwrap_or_else(|| {
                    head.split('(')
                        .next()
                        .unwrap_or(head)
                        .split_whitespace()
                        .next_back()
                        .unwrap_or(head)
                })
                .split('(')
                .next()
                .unwrap_or_default();
            let words =
                normalize_label(name.trim_start_matches("test_").trim_start_matches("Test"));
            segs.push(Segment::plain(words.clone()));
            words
        }
    };
    let title_tok = first_str.map(|t| t.start);
    // A Python docstring (the first statement after `def`) says what the test is about: a
    // remark, never what the user says.
    let body_from = a + ix.line(start).len();
    let docstring = toks
        .iter()
        .find(|t| t.start >= body_from && t.start < b)
        .filter(|t| {
            let at = &ix.text()[t.start..];
            matches!(t.tok, Tok::Str(_))
                && (at.starts_with("\"\"\"") || at.starts_with("'''"))
                && ix.text()[body_from..t.start].trim().is_empty()
        });
    if let Some(Token {
        tok: Tok::Str(d), ..
    }) = docstring
    {
        segs.push(Segment::plain(d.clone()));
    }
    let docstring = docstring.map(|t| t.start);
    // Chat turns written as `{"role": "user", "content": …}`: the user's are the prompts.
    let mut turns = Vec::new();
    let mut used = Vec::new();
    visit(forest, &mut |n| {
        if n.start < a || n.start >= b {
            return;
        }
        // `user("…")`, `Turn::user("…")`, `HumanMessage("…")`: a turn by its speaker.
        if let Lit::Call { args, .. } = &n.lit
            && let [one] = args.as_slice()
            && let Lit::Str(said) = &one.lit
        {
            let callee = ix.text()[n.start..one.start].trim_end_matches(['(', ' ']);
            let name = callee.rsplit(['.', ':']).next().unwrap_or(callee);
            let words = normalize_label(name);
            let speaker = |list: &[&str]| words.split(' ').any(|w| list.contains(&w));
            if speaker(lexicon::USER_SPEAKERS) {
                used.push(one.start);
                turns.push(said.clone());
            } else if speaker(lexicon::ASSISTANT_SPEAKERS) {
                used.push(one.start);
            }
            return;
        }
        let Lit::Map(pairs) = &n.lit else { return };
        let get = |k: &str| pairs.iter().find(|(pk, _)| pk == k).map(|(_, v)| v);
        if let (Some(role), Some(content)) = (get("role"), get("content"))
            && let (Lit::Str(r), Lit::Str(c)) = (&role.lit, &content.lit)
        {
            used.push(content.start);
            if r == "user" || r == "human" {
                turns.push(c.clone());
            }
        }
    });
    let mut prompted = !turns.is_empty();
    for t in turns {
        segs.push(Segment::labelled("prompt", t));
    }
    // A short phrase that describes a live tool, before a longer utterance the function
    // sends (`Catalog.ByDescription("free time slots")` then `AskAsync("…")`): the tool,
    // looked up by what it does.
    let described: Option<usize> = {
        let said: Vec<(usize, &String)> = toks
            .iter()
            .filter(|t| a <= t.start && t.start < b && Some(t.start) != title_tok)
            .filter_map(|t| match &t.tok {
                Tok::Str(s) if utterance_like(s) && !used.contains(&t.start) => Some((t.start, s)),
                _ => None,
            })
            .collect();
        let words = |s: &str| s.split_whitespace().count();
        said.first()
            .filter(|(_, s)| {
                words(s) <= 5 && cat.resolve(s).is_none() && cat.described_by(s).is_some()
            })
            .filter(|(_, s)| said[1..].iter().any(|(_, o)| words(o) > words(s) + 2))
            .map(|(at, _)| *at)
    };
    let mut sent_in_assertion: Option<String> = None;
    for line_no in start..=end {
        let (la, _) = ix.bounds(line_no, line_no);
        let line = ix.line(line_no);
        let code_end = comment_start(line, la, toks).unwrap_or(line.len());
        let code = &line[..code_end];
        if code_end < line.len() {
            let c = line[code_end..]
                .trim_start_matches(['#', '/'])
                .trim()
                .to_string();
            if says_dropped(&c) {
                return None;
            }
            segs.push(Segment::plain(c));
        }
        let line_toks: Vec<(usize, &Token)> = toks
            .iter()
            .enumerate()
            .filter(|(_, t)| t.start >= la && t.start < la + code_end)
            .collect();
        let strs = || {
            line_toks.iter().filter_map(|(_, t)| match &t.tok {
                Tok::Str(s)
                    if Some(t.start) != title_tok
                        && Some(t.start) != docstring
                        && !used.contains(&t.start) =>
                {
                    Some((t.start, s))
                }
                _ => None,
            })
        };
        // (`assertNotContains('crash', $calls)` names the tool it forbids.)
        if checks_no_calls(code) && !strs().any(|(_, s)| cat.resolve(s).is_some()) {
            segs.push(Segment::labelled("expected", "no tool call"));
        }
        // (A failure's message, `t.Fatal("…")`, `raise AssertionError("…")`, is no prompt.)
        let asserting = {
            let t = code.trim_start().to_ascii_lowercase();
            t.starts_with("assert")
                || t.starts_with("expect")
                || t.contains(".to")
                || t.starts_with("raise ")
                || t.starts_with("throw ")
                || FAILURES.iter().any(|f| {
                    t.match_indices(f).any(|(i, _)| {
                        t[i + f.len()..].starts_with('(')
                            && !t[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    })
                })
        };
        if asserting && sent_in_assertion.is_none() {
            // `expect(await agent.ask("…")).toCall(…)`: sent inside the assertion, as the
            // argument of a call that is not the assertion's own.
            sent_in_assertion = line_toks.iter().enumerate().find_map(|(k, (_, t))| {
                let Tok::Str(s) = &t.tok else { return None };
                let before = |n: usize| k.checked_sub(n).map(|j| &line_toks[j].1.tok);
                let (Some(Tok::Ident(callee)), Some(Tok::Punct("("))) = (before(2), before(1))
                else {
                    return None;
                };
                // `assert…`, `expect…`, `should…`, and matchers (`toBe`, `to_eq`, `eq`).
                let lower = callee.to_ascii_lowercase();
                let matcher = callee
                    .strip_prefix("to")
                    .is_some_and(|r| r.starts_with(|c: char| c.is_uppercase() || c == '_'));
                let own = matcher
                    || lower == "eq"
                    || FAILURES.contains(&lower.as_str())
                    || ["assert", "expect", "should", "must"]
                        .iter()
                        .any(|p| lower.starts_with(p));
                (!own && utterance_like(s) && !used.contains(&t.start)).then(|| s.clone())
            });
        }
        if let Some((_, s)) = strs().find(|(at, _)| Some(*at) == described) {
            segs.push(Segment::labelled("expected tool", s.clone()));
        } else if strs().any(|(_, s)| cat.resolve(s).is_some()) {
            let label = if negated(code) {
                "must not call"
            } else {
                "expected tool"
            };
            segs.push(Segment::labelled(label, code.trim()));
        } else if !prompted {
            // The prompt: the first utterance the function sends (not an assertion's
            // message).
            if !asserting && let Some((_, s)) = strs().find(|(_, s)| utterance_like(s)) {
                segs.push(Segment::labelled("prompt", s.clone()));
                prompted = true;
            }
        }
        // Arguments: `a=17`, `a: 17`, `"a" => 17`, `args["a"] == 17`.
        let mut args = Map::new();
        for (k, (i, t)) in line_toks.iter().enumerate() {
            let (Tok::Ident(name) | Tok::Str(name)) = &t.tok else {
                continue;
            };
            if !cat.is_param(name) {
                continue;
            }
            let at = match line_toks.get(k + 1).map(|(_, t)| &t.tok) {
                Some(Tok::Punct(":" | "=" | "=>" | "==")) => i + 2,
                Some(Tok::Punct("]"))
                    if matches!(toks.get(i + 2).map(|t| &t.tok), Some(Tok::Punct("=="))) =>
                {
                    i + 3
                }
                _ => continue,
            };
            if let Some(v) = toks.get(at).and_then(|t| node_at(forest, t.start))
                && v.lit.is_literal()
            {
                args.insert(name.clone(), v.lit.json());
            }
        }
        if !args.is_empty() {
            segs.push(Segment::labelled(
                "arguments",
                Value::Object(args).to_string(),
            ));
        }
    }
    if !prompted && let Some(s) = sent_in_assertion {
        segs.push(Segment::labelled("prompt", s));
    }
    // (A conversation whose first turn expects no call, `assert first.tool_calls == []`,
    // and a later one a tool: the case expects the tool, and is no negative.)
    if segs
        .iter()
        .any(|s| s.label.as_deref() == Some("expected tool"))
    {
        segs.retain(|s| !(s.label.as_deref() == Some("expected") && s.text == "no tool call"));
    }
    read_unit(
        &segs,
        &UnitInfo {
            shape: "test function",
            start,
            end,
            title: Some(title),
            key: None,
            structured: false,
            title_said: false,
        },
        cat,
    )
}

/// Calls that report a test's failure: what they are given is a message, not a prompt.
const FAILURES: &[&str] = &[
    "fatal", "fatalf", "error", "errorf", "fail", "failf", "failnow", "panic", "panicf",
];

/// Where a line's comment starts (`#` or `//` outside a string), as an offset in the line.
fn comment_start(line: &str, line_start: usize, toks: &[Token]) -> Option<usize> {
    let in_string = |off: usize| {
        toks.iter()
            .any(|t| matches!(t.tok, Tok::Str(_)) && t.start <= off && off < t.end)
    };
    line.char_indices()
        .filter(|&(i, c)| {
            (c == '#' && !line[i..].starts_with("#[")) || (c == '/' && line[i..].starts_with("//"))
        })
        .map(|(i, _)| i)
        .find(|&i| !in_string(line_start + i))
}

/// Calls `f` on every node of the forest, depth first.
fn visit<'a>(nodes: &'a [Node], f: &mut impl FnMut(&'a Node)) {
    fn go<'a>(n: &'a Node, f: &mut impl FnMut(&'a Node)) {
        f(n);
        for c in n.children() {
            go(c, f);
        }
    }
    for n in nodes {
        go(n, f);
    }
}

/// The outermost node starting at byte `off`.
fn node_at(nodes: &[Node], off: usize) -> Option<&Node> {
    let mut found = None;
    visit(nodes, &mut |n| {
        if found.is_none() && n.start == off {
            found = Some(n);
        }
    });
    found
}
