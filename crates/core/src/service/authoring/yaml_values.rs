//! YAML scalars and one-line flow collections (`{a: 2, b: "x"}`, `[1, 2]`): the YAML
//! reader's values, also read from argument cells and promptfoo values written inline.

use serde_json::{Map, Value};

/// A plain or quoted scalar, or a one-line flow collection.
pub fn scalar(s: &str) -> Value {
    let t = s.trim();
    if t.starts_with('"')
        && let Ok(v) = serde_json::from_str::<String>(t)
    {
        return Value::String(v);
    }
    if t.len() >= 2 && t.starts_with('\'') && t.ends_with('\'') {
        return Value::String(t[1..t.len() - 1].replace("''", "'"));
    }
    if (t.starts_with('[') || t.starts_with('{'))
        && let Some(v) = parse_flow(t)
    {
        return v;
    }
    plain(t)
}

pub fn plain(t: &str) -> Value {
    match t {
        "true" | "True" | "TRUE" | "yes" | "Yes" => Value::Bool(true),
        "false" | "False" | "FALSE" | "no" | "No" => Value::Bool(false),
        "null" | "~" | "" => Value::Null,
        _ => {
            if let Ok(i) = t.parse::<i64>() {
                Value::from(i)
            } else if let Ok(f) = t.parse::<f64>()
                && t.chars().any(|c| c.is_ascii_digit())
                && !t.ends_with('.')
            {
                serde_json::Number::from_f64(f)
                    .map(Value::Number)
                    .unwrap_or(Value::String(t.into()))
            } else {
                Value::String(t.to_string())
            }
        }
    }
}

/// Parses a one-line flow collection (`{a: 2, b: "x"}`, `[a, b]`).
pub fn parse_flow(s: &str) -> Option<Value> {
    let chars: Vec<char> = s.trim().chars().collect();
    let mut i = 0;
    let v = flow(&chars, &mut i)?;
    while i < chars.len() && chars[i].is_whitespace() {
        i += 1;
    }
    (i == chars.len()).then_some(v)
}

fn flow(c: &[char], i: &mut usize) -> Option<Value> {
    let ws = |i: &mut usize| {
        while *i < c.len() && c[*i].is_whitespace() {
            *i += 1;
        }
    };
    ws(i);
    match *c.get(*i)? {
        '{' => {
            *i += 1;
            let mut m = Map::new();
            loop {
                ws(i);
                match *c.get(*i)? {
                    '}' => {
                        *i += 1;
                        return Some(Value::Object(m));
                    }
                    ',' => *i += 1,
                    _ => {
                        let k = flow_scalar(c, i, true)?;
                        ws(i);
                        if *c.get(*i)? != ':' {
                            return None;
                        }
                        *i += 1;
                        let v = flow(c, i)?;
                        m.insert(key_text(&k), v);
                    }
                }
            }
        }
        '[' => {
            *i += 1;
            let mut a = Vec::new();
            loop {
                ws(i);
                match *c.get(*i)? {
                    ']' => {
                        *i += 1;
                        return Some(Value::Array(a));
                    }
                    ',' => *i += 1,
                    _ => a.push(flow(c, i)?),
                }
            }
        }
        _ => flow_scalar(c, i, false),
    }
}

fn flow_scalar(c: &[char], i: &mut usize, key: bool) -> Option<Value> {
    match *c.get(*i)? {
        q @ ('"' | '\'') => {
            let start = *i;
            *i += 1;
            while *i < c.len() {
                if c[*i] == '\\' && q == '"' {
                    *i += 2;
                    continue;
                }
                if c[*i] == q {
                    *i += 1;
                    let s: String = c[start..*i].iter().collect();
                    return Some(scalar(&s));
                }
                *i += 1;
            }
            None
        }
        _ => {
            let start = *i;
            while *i < c.len() && !matches!(c[*i], ',' | ']' | '}') && !(key && c[*i] == ':') {
                *i += 1;
            }
            // A closing bracket where a value belongs (`[}`) is malformed, not empty:
            // reading nothing would leave the caller's loop where it was.
            if *i == start {
                return None;
            }
            let s: String = c[start..*i].iter().collect();
            Some(plain(s.trim()))
        }
    }
}

fn key_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
