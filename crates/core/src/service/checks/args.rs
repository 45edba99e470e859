//! Arguments for the tool calls a check makes, made from the tool's input schema: every
//! required property, and an optional one only when it has a `default`. Each value is the
//! least work the schema allows — `const`, the first of `enum` or `examples`, a number's
//! `minimum` (before its `default`), the shortest string, the fewest items — so a check
//! never asks a server for much. `None` when no value fits (a `pattern` the made-up text
//! does not match, a type it cannot make); the arguments are then checked against the
//! schema before they are sent.

use serde_json::{Map, Value, json};

/// How deep nested objects and arrays are filled.
const MAX_DEPTH: usize = 6;

/// The arguments for a tool with `schema`, or `None` when they cannot be made.
pub fn arguments(schema: &Value) -> Option<Value> {
    let args = object(schema, 0)?;
    let ok = match jsonschema::validator_for(schema) {
        Ok(v) => v.is_valid(&args),
        Err(_) => false,
    };
    ok.then_some(args)
}

fn object(schema: &Value, depth: usize) -> Option<Value> {
    let mut out = Map::new();
    let props = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for name in &required {
        let sub = props.and_then(|p| p.get(*name)).unwrap_or(&Value::Null);
        out.insert(name.to_string(), value(sub, depth + 1)?);
    }
    for (name, sub) in props.into_iter().flatten() {
        if out.contains_key(name) || sub.get("default").is_none() {
            continue;
        }
        if let Some(v) = value(sub, depth + 1) {
            out.insert(name.clone(), v);
        }
    }
    Some(Value::Object(out))
}

fn first_type(schema: &Value) -> Option<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

fn number(schema: &Value, integer: bool) -> Value {
    let f = |k: &str| schema.get(k).and_then(Value::as_f64);
    let mut n = match (f("minimum"), f("exclusiveMinimum"), f("default")) {
        (Some(m), _, _) => m,
        (None, Some(m), _) => {
            if integer {
                m.floor() + 1.0
            } else {
                m + 1.0
            }
        }
        (None, None, Some(d)) => d,
        _ => 0.0,
    };
    if let Some(max) = f("maximum")
        && n > max
    {
        n = max;
    }
    if integer || n.fract() == 0.0 {
        json!(n as i64)
    } else {
        json!(n)
    }
}

fn string(schema: &Value) -> Option<Value> {
    let format = schema.get("format").and_then(Value::as_str);
    let base = match format {
        Some("uri") | Some("url") | Some("iri") => "https://example.com/".to_string(),
        Some("email") => "evaldeck@example.com".into(),
        Some("date-time") => "2025-01-01T00:00:00Z".into(),
        Some("date") => "2025-01-01".into(),
        Some("time") => "00:00:00Z".into(),
        Some("uuid") => "00000000-0000-4000-8000-000000000000".into(),
        _ => "evaldeck".into(),
    };
    let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0) as usize;
    let max = schema
        .get("maxLength")
        .and_then(Value::as_u64)
        .map(|m| m as usize);
    let mut s = base;
    while s.chars().count() < min {
        s.push('x');
    }
    if let Some(max) = max {
        s = s.chars().take(max).collect();
    }
    if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
        let matches = regex::Regex::new(p).is_ok_and(|r| r.is_match(&s));
        if !matches {
            return None;
        }
    }
    Some(Value::String(s))
}

fn value(schema: &Value, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    if let Value::Bool(true) = schema {
        return Some(Value::String("evaldeck".into()));
    }
    if let Some(c) = schema.get("const") {
        return Some(c.clone());
    }
    if let Some(first) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return Some(first.clone());
    }
    if let Some(first) = schema
        .get("examples")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return Some(first.clone());
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(branches) = schema.get(key).and_then(Value::as_array) {
            return branches.iter().find_map(|b| value(b, depth + 1));
        }
    }
    match first_type(schema) {
        Some("integer") => Some(number(schema, true)),
        Some("number") => Some(number(schema, false)),
        Some("boolean") => Some(schema.get("default").cloned().unwrap_or(json!(false))),
        Some("string") => string(schema),
        Some("array") => {
            let n = schema.get("minItems").and_then(Value::as_u64).unwrap_or(0) as usize;
            let item = schema.get("items").unwrap_or(&Value::Null);
            let mut out = Vec::with_capacity(n);
            for _ in 0..n {
                out.push(value(item, depth + 1)?);
            }
            Some(Value::Array(out))
        }
        Some("object") => object(schema, depth),
        Some("null") => Some(Value::Null),
        _ => schema.get("default").cloned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_work_arguments() {
        let s = json!({
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "durationMs": {"type": "integer", "minimum": 0, "default": 1000},
                "steps": {"type": "integer", "minimum": 1, "default": 5},
                "progress": {"type": "boolean", "default": true},
                "cursor": {"type": "string"},
                "numbers": {"type": "array", "items": {"type": "number"}, "minItems": 1}
            },
            "required": ["message", "numbers"]
        });
        assert_eq!(
            arguments(&s).unwrap(),
            json!({"message": "evaldeck", "numbers": [0], "durationMs": 0, "steps": 1, "progress": true})
        );
    }

    #[test]
    fn refuses_what_it_cannot_make() {
        let s = json!({
            "type": "object",
            "properties": {"id": {"type": "string", "pattern": "^[0-9]{4}$"}},
            "required": ["id"]
        });
        assert_eq!(arguments(&s), None);
        let e = json!({"type": "object", "properties": {"level": {"enum": ["info", "debug"]}}, "required": ["level"]});
        assert_eq!(arguments(&e).unwrap(), json!({"level": "info"}));
    }
}
