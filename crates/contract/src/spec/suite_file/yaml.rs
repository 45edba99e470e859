//! The YAML layer of suite files: reading a document into a JSON value with the position of
//! every node (keyed by JSON Pointer), and writing a JSON value as block YAML.
//!
//! Reading uses `saphyr-parser` (YAML 1.2) events and resolves plain scalars with the YAML
//! 1.2 core schema (`null`, booleans, integers, floats); quoted and block scalars are strings.
//! Anchors are allowed, aliases and tags other than `!!str` are not (a file says everything
//! it holds in place). Duplicate keys and non-scalar keys are errors.
//!
//! Writing is deterministic: keys in the value's order, two-space indentation, block
//! mappings and sequences, `|` literal blocks for multi-line strings that a literal block
//! holds exactly, plain scalars only where they read back as the same string (also for YAML
//! 1.1 readers: `yes`, `on`, `~` are quoted), double quotes with escapes otherwise.

use std::collections::HashMap;

use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Span};
use serde_json::{Map, Number, Value};

use crate::spec::validate::join;

/// A 1-based line and column in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl Pos {
    fn of(m: &Marker) -> Pos {
        Pos {
            line: m.line(),
            column: m.col() + 1,
        }
    }
}

/// Where each node of a read document starts: its value and, for mapping members, its key.
#[derive(Debug, Clone, Default)]
pub struct Positions {
    values: HashMap<String, Pos>,
    keys: HashMap<String, Pos>,
}

impl Positions {
    /// The position of the node at `pointer` (its key when `key` and it has one), else of its
    /// nearest ancestor that the file holds (a missing field is reported where its parent is).
    pub fn locate(&self, pointer: &str, key: bool) -> Pos {
        let mut p = pointer;
        loop {
            if key
                && p == pointer
                && let Some(pos) = self.keys.get(p)
            {
                return *pos;
            }
            if let Some(pos) = self.values.get(p) {
                return *pos;
            }
            match p.rfind('/') {
                Some(i) => p = &p[..i],
                None => return Pos { line: 1, column: 1 },
            }
        }
    }
}

/// A fault of the YAML itself, at a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub pos: Pos,
    pub message: String,
}

enum Frame {
    Seq(Vec<Value>, String),
    /// Members so far, the pending key (with its position) and the mapping's pointer.
    Map(Map<String, Value>, Option<(String, Pos)>, String),
}

/// Reads one YAML document into a JSON value and the positions of its nodes.
pub fn read(text: &str) -> Result<(Value, Positions), YamlError> {
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Frame> = Vec::new();
    let mut positions = Positions::default();
    let mut root: Option<Value> = None;
    let mut documents = 0;
    while let Some(event) = parser.next_event() {
        let (event, span) = event.map_err(|e| YamlError {
            pos: Pos::of(e.marker()),
            message: e.info().to_string(),
        })?;
        let pos = Pos::of(&span.start);
        let fail = |message: &str| YamlError {
            pos,
            message: message.to_string(),
        };
        match event {
            Event::DocumentStart(_) => {
                documents += 1;
                if documents > 1 {
                    return Err(fail(
                        "a suite file holds one YAML document; remove the second `---`",
                    ));
                }
            }
            Event::Alias(_) => {
                return Err(fail(
                    "aliases (`*name`) are not supported: write the value out in full",
                ));
            }
            Event::Scalar(text, style, _, tag) => {
                let value = match tag {
                    None => scalar(&text, style, span)?,
                    Some(t) if t.is_yaml_core_schema() && t.suffix == "str" => {
                        Value::String(text.to_string())
                    }
                    Some(t) => {
                        return Err(fail(&format!(
                            "tags (`{t}`) are not supported: write the plain value"
                        )));
                    }
                };
                // A scalar in key position becomes the pending key.
                if let Some(Frame::Map(map, pending @ None, ptr)) = stack.last_mut() {
                    let key = text.to_string();
                    if map.contains_key(&key) {
                        return Err(fail(&format!("the key `{key}` appears twice")));
                    }
                    positions.keys.insert(join(ptr, &key), pos);
                    *pending = Some((key, pos));
                    continue;
                }
                let ptr = child_pointer(&stack);
                positions.values.insert(ptr, pos);
                push(&mut stack, &mut root, value);
            }
            Event::SequenceStart(_, ref tag) | Event::MappingStart(_, ref tag) => {
                if tag.is_some() {
                    return Err(fail("tags are not supported: write the plain value"));
                }
                if let Some(Frame::Map(_, None, _)) = stack.last() {
                    return Err(fail("a key must be a string, not a mapping or sequence"));
                }
                let ptr = child_pointer(&stack);
                positions.values.insert(ptr.clone(), pos);
                stack.push(match event {
                    Event::SequenceStart(..) => Frame::Seq(Vec::new(), ptr),
                    _ => Frame::Map(Map::new(), None, ptr),
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let value = match stack.pop() {
                    Some(Frame::Seq(items, _)) => Value::Array(items),
                    Some(Frame::Map(map, _, _)) => Value::Object(map),
                    None => return Err(fail("unbalanced collection")),
                };
                push(&mut stack, &mut root, value);
            }
            Event::StreamStart | Event::StreamEnd | Event::DocumentEnd | Event::Nothing => {}
        }
    }
    match root {
        Some(v) => Ok((v, positions)),
        None => Err(YamlError {
            pos: Pos { line: 1, column: 1 },
            message: "the file holds no YAML document".into(),
        }),
    }
}

/// The pointer of the node about to be added to the innermost open collection.
fn child_pointer(stack: &[Frame]) -> String {
    match stack.last() {
        None => String::new(),
        Some(Frame::Seq(items, ptr)) => join(ptr, items.len()),
        Some(Frame::Map(_, Some((key, _)), ptr)) => join(ptr, key),
        Some(Frame::Map(_, None, ptr)) => ptr.clone(),
    }
}

fn push(stack: &mut [Frame], root: &mut Option<Value>, value: Value) {
    match stack.last_mut() {
        None => *root = Some(value),
        Some(Frame::Seq(items, _)) => items.push(value),
        Some(Frame::Map(map, pending, _)) => {
            if let Some((key, _)) = pending.take() {
                map.insert(key, value);
            }
        }
    }
}

/// A scalar under the YAML 1.2 core schema: quoted and block scalars are strings.
fn scalar(text: &str, style: ScalarStyle, span: Span) -> Result<Value, YamlError> {
    if style != ScalarStyle::Plain {
        return Ok(Value::String(text.to_string()));
    }
    match resolve_plain(text) {
        Resolved::Value(v) => Ok(v),
        Resolved::NotJson => Err(YamlError {
            pos: Pos::of(&span.start),
            message: format!("`{text}` is not a number JSON can hold; quote it to mean a string"),
        }),
    }
}

enum Resolved {
    Value(Value),
    /// `.inf`, `.nan` and integers too large for any JSON number this crate keeps.
    NotJson,
}

fn resolve_plain(t: &str) -> Resolved {
    let v = match t {
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" | "-.inf" | "-.Inf" | "-.INF"
        | ".nan" | ".NaN" | ".NAN" => return Resolved::NotJson,
        _ => {
            if is_int(t) {
                let digits = t.strip_prefix('+').unwrap_or(t);
                return match (digits.parse::<i64>(), digits.parse::<u64>()) {
                    (Ok(i), _) => Resolved::Value(Value::from(i)),
                    (_, Ok(u)) => Resolved::Value(Value::from(u)),
                    _ => Resolved::NotJson,
                };
            }
            if let Some(radix) = radix_int(t) {
                return match radix {
                    Some(u) => Resolved::Value(Value::from(u)),
                    None => Resolved::NotJson,
                };
            }
            if is_float(t) {
                return match t.parse::<f64>().ok().and_then(Number::from_f64) {
                    Some(n) => Resolved::Value(Value::Number(n)),
                    None => Resolved::NotJson,
                };
            }
            Value::String(t.to_string())
        }
    };
    Resolved::Value(v)
}

/// `[-+]?[0-9]+`
fn is_int(t: &str) -> bool {
    let d = t.strip_prefix(['-', '+']).unwrap_or(t);
    !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit())
}

/// `0o[0-7]+` or `0x[0-9a-fA-F]+`: `Some(Some(n))`, `Some(None)` when too large, else `None`.
fn radix_int(t: &str) -> Option<Option<u64>> {
    let (digits, radix) = if let Some(d) = t.strip_prefix("0o") {
        (d, 8)
    } else if let Some(d) = t.strip_prefix("0x") {
        (d, 16)
    } else {
        return None;
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    Some(u64::from_str_radix(digits, radix).ok())
}

/// `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn is_float(t: &str) -> bool {
    let s = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match mantissa.split_once('.') {
        Some((int, frac)) => digits(int) && digits(frac) && !(int.is_empty() && frac.is_empty()),
        None => !mantissa.is_empty() && digits(mantissa),
    };
    let exponent_ok = match exponent {
        None => true,
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && digits(e)
        }
    };
    mantissa_ok && exponent_ok
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// Writes `value` as a block YAML document (no header), ending in a newline.
pub fn write(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0, false),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0, false),
        other => {
            out.push_str(&flow_scalar(other));
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    out.extend(std::iter::repeat_n(' ', n));
}

fn write_map(out: &mut String, m: &Map<String, Value>, at: usize, first_inline: bool) {
    for (i, (k, v)) in m.iter().enumerate() {
        if i > 0 || !first_inline {
            indent(out, at);
        }
        out.push_str(&string_scalar(k));
        out.push(':');
        match v {
            Value::Object(m) if !m.is_empty() => {
                out.push('\n');
                write_map(out, m, at + 2, false);
            }
            Value::Array(a) if !a.is_empty() => {
                out.push('\n');
                write_seq(out, a, at + 2, false);
            }
            Value::String(s) if literal_ok(s) => {
                out.push(' ');
                write_literal(out, s, at + 2);
            }
            other => {
                out.push(' ');
                out.push_str(&flow_scalar(other));
                out.push('\n');
            }
        }
    }
}

fn write_seq(out: &mut String, items: &[Value], at: usize, first_inline: bool) {
    for (i, v) in items.iter().enumerate() {
        if i > 0 || !first_inline {
            indent(out, at);
        }
        out.push_str("- ");
        match v {
            Value::Object(m) if !m.is_empty() => write_map(out, m, at + 2, true),
            Value::Array(a) if !a.is_empty() => write_seq(out, a, at + 2, true),
            Value::String(s) if literal_ok(s) => write_literal(out, s, at + 2),
            other => {
                out.push_str(&flow_scalar(other));
                out.push('\n');
            }
        }
    }
}

/// A `|` block: `|-` without a final newline, `|` with one, `|+` with more.
fn write_literal(out: &mut String, s: &str, at: usize) {
    let body = s.trim_end_matches('\n');
    let trailing = s.len() - body.len();
    out.push('|');
    out.push_str(match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    });
    out.push('\n');
    for line in body.split('\n') {
        if !line.is_empty() {
            indent(out, at);
            out.push_str(line);
        }
        out.push('\n');
    }
    for _ in 1..trailing {
        out.push('\n');
    }
}

/// Whether a literal block holds `s` exactly and reads well: several lines, every character
/// printable without escapes (tabs allowed), no carriage return, no trailing blanks on a
/// line, and a first content line that does not start with a blank (which would need an
/// indentation indicator).
fn literal_ok(s: &str) -> bool {
    let body = s.trim_end_matches('\n');
    if !s.contains('\n') || body.is_empty() {
        return false;
    }
    if s.chars().any(|c| c != '\n' && c != '\t' && !printable(c)) {
        return false;
    }
    let mut first_content = None;
    for line in body.split('\n') {
        if line.ends_with([' ', '\t']) {
            return false;
        }
        if first_content.is_none() && !line.is_empty() {
            first_content = Some(line);
        }
    }
    first_content.is_some_and(|l| !l.starts_with([' ', '\t']))
}

/// Characters written as themselves in any scalar: YAML's printable set minus the ones a
/// reader may treat as a break or a byte-order mark.
fn printable(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{FEFF}')
}

/// A scalar or an empty collection on one line.
fn flow_scalar(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string_scalar(s),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// Words YAML 1.1 readers take for booleans or null; quoted so any reader sees a string.
const YAML11_WORDS: &[&str] = &[
    "y", "yes", "n", "no", "on", "off", "true", "false", "null", "~",
];

/// A string plain when that reads back as the same string, else double-quoted.
fn string_scalar(s: &str) -> String {
    if plain_ok(s) {
        s.to_string()
    } else {
        double_quoted(s)
    }
}

fn plain_ok(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if !s
        .chars()
        .all(|c| printable(c) && !matches!(c, ',' | '[' | ']' | '{' | '}'))
    {
        return false;
    }
    if "-?:#&*!|>'\"%@`".contains(first) || first == ' ' || s.ends_with([' ', ':']) {
        return false;
    }
    if s.contains(": ") || s.contains(" #") || s.starts_with("...") {
        return false;
    }
    if YAML11_WORDS.contains(&s.to_ascii_lowercase().as_str()) {
        return false;
    }
    matches!(resolve_plain(s), Resolved::Value(Value::String(ref r)) if r == s)
}

/// A double-quoted scalar: JSON's escapes (YAML's double-quoted style is a superset), and
/// `\uXXXX` for every character not printable as itself.
fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if printable(c) => out.push(c),
            c if (c as u32) <= 0xFFFF => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push_str(&format!("\\U{:08X}", c as u32)),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn round(v: &Value) -> Value {
        let text = write(v);
        read(&text).unwrap_or_else(|e| panic!("{e:?} in\n{text}")).0
    }

    #[test]
    fn core_schema_scalars() {
        let (v, _) = read(
            "a: ~\nb: true\nc: 12\nd: -3\ne: 1.5\nf: 1e3\ng: 0x1F\nh: '12'\ni: \"true\"\nj: x y\nk:\nl: .5\n",
        )
        .unwrap();
        assert_eq!(
            v,
            json!({"a": null, "b": true, "c": 12, "d": -3, "e": 1.5, "f": 1000.0, "g": 31,
                   "h": "12", "i": "true", "j": "x y", "k": null, "l": 0.5})
        );
        assert!(is_float("1.") && is_float(".5") && !is_float(".") && !is_float("1e"));
        assert!(read("a: .inf\n").is_err());
        assert_eq!(
            read("a: 18446744073709551615\n").unwrap().0,
            json!({"a": u64::MAX})
        );
        assert!(read("a: 18446744073709551616\n").is_err());
    }

    #[test]
    fn values_survive_writing_and_reading() {
        let tricky = [
            "",
            " ",
            "yes",
            "No",
            "on",
            "~",
            "null",
            "12",
            "1.5",
            "0x10",
            "-",
            "- a",
            "a: b",
            "a #b",
            "#c",
            "[x]",
            "{",
            "x,y",
            "key:",
            "...",
            "---",
            "'q'",
            "\"d\"",
            "tab\there",
            "cr\r\nlf",
            "bell\u{7}",
            "nel\u{85}",
            "bom\u{FEFF}",
            "ls\u{2028}",
            "emoji 🎉",
            "é",
            "@at",
            "`tick`",
            "%pct",
            "!bang",
            "&amp",
            "*star",
            "|pipe",
            ">gt",
            "?q",
            ":c",
            "ends ",
            " starts",
            "multi\nline",
            "multi\nline\n",
            "multi\nline\n\n\n",
            "\nleading newline",
            "  indented\nsecond",
            "trailing \nspace",
            "a\n\nb",
            "\n",
            "\n\n",
            "x\n  y\n",
            "line\twith tab\nnext",
        ];
        for s in tricky {
            let v = json!({ "k": s, "l": [s, {s: s}] });
            assert_eq!(round(&v), v, "{s:?} as\n{}", write(&v));
        }
        let numbers = json!([0, -1, 1.0, -0.0, 1e300, 2.5e-8, u64::MAX, i64::MIN, 0.1]);
        assert_eq!(round(&numbers), numbers);
        let nested = json!({"a": [[1, [2, []]], {}, {"b": {"c": [null, true, false]}}], "e": {}});
        assert_eq!(round(&nested), nested);
    }

    #[test]
    fn writing_is_readable_block_yaml() {
        let v = json!({"name": "Shop", "tags": ["a", "b"], "count": 1, "n": "n", "prompt": "one\ntwo\n",
                       "steps": [{"id": "s1", "kind": "prompt"}], "empty": [], "yes": "yes"});
        assert_eq!(
            write(&v),
            "name: Shop\ntags:\n  - a\n  - b\ncount: 1\n\"n\": \"n\"\nprompt: |\n  one\n  two\nsteps:\n  - id: s1\n    kind: prompt\nempty: []\n\"yes\": \"yes\"\n"
        );
    }

    #[test]
    fn positions_point_at_nodes_and_keys() {
        let text =
            "name: x\ncases:\n  - title: a\n    steps:\n      - id: s1\n        kind: prompt\n";
        let (_, pos) = read(text).unwrap();
        assert_eq!(
            pos.locate("/cases/0/steps/0/kind", false),
            Pos {
                line: 6,
                column: 15
            }
        );
        assert_eq!(
            pos.locate("/cases/0/steps/0/kind", true),
            Pos { line: 6, column: 9 }
        );
        // A missing field is reported at its parent.
        assert_eq!(
            pos.locate("/cases/0/steps/0/prompt", false),
            Pos { line: 5, column: 9 }
        );
        assert_eq!(pos.locate("/name", false), Pos { line: 1, column: 7 });
    }

    #[test]
    fn faults_carry_positions() {
        let e = read("a: 1\nb: [1, 2\nc: 3\n").unwrap_err();
        assert!(e.pos.line >= 2, "{e:?}");
        let e = read("a: 1\na: 2\n").unwrap_err();
        assert_eq!((e.pos.line, e.message.contains("twice")), (2, true));
        let e = read("a: &x 1\nb: *x\n").unwrap_err();
        assert_eq!(e.pos.line, 2);
        let e = read("a: !custom 1\n").unwrap_err();
        assert_eq!(e.pos.line, 1);
        assert_eq!(read("a: !!str 12\n").unwrap().0, json!({"a": "12"}));
        let e = read("a: 1\n---\nb: 2\n").unwrap_err();
        assert_eq!(e.pos.line, 2);
        assert!(read("").is_err());
        let e = read("? [a]\n: 1\n").unwrap_err();
        assert_eq!(e.pos.line, 1);
    }
}
