//! A small JSON Schema checker for `toolResultMatchesSchema`, `argumentsMatchToolSchema` and
//! `toolInputSchemasWellFormed`. It covers the keywords tool schemas use: `type` (one or a
//! list), `properties`, `required`, `additionalProperties: false` or a schema, `items`,
//! `enum`, `const`, `minimum`/`maximum` (and the exclusive forms), `minLength`/`maxLength`,
//! `minItems`/`maxItems`, `allOf`/`anyOf`/`oneOf`/`not`. Other keywords (`$ref`, `format`,
//! `pattern`, …) are accepted without checking: a false alarm costs more than a miss here.

use serde_json::Value;

fn type_ok(t: &str, v: &Value) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|f| f.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn num_eq(a: &Value, b: &Value) -> bool {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) if a.is_number() && b.is_number() => x == y,
        _ => a == b,
    }
}

/// The first violations of `schema` by `v`, with JSON Pointer paths (empty = valid).
pub fn validate(schema: &Value, v: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, v, "", &mut out);
    out
}

fn check(schema: &Value, v: &Value, path: &str, out: &mut Vec<String>) {
    if out.len() >= 10 {
        return;
    }
    let Some(s) = schema.as_object() else {
        if schema == &Value::Bool(false) {
            out.push(format!("{path}: no value is allowed"));
        }
        return;
    };
    let at = if path.is_empty() { "/" } else { path };
    match s.get("type") {
        Some(Value::String(t)) if !type_ok(t, v) => {
            out.push(format!("{at}: expected {t}"));
            return;
        }
        Some(Value::Array(ts)) if !ts.iter().filter_map(Value::as_str).any(|t| type_ok(t, v)) => {
            out.push(format!(
                "{at}: expected one of {}",
                Value::Array(ts.clone())
            ));
            return;
        }
        _ => {}
    }
    if let Some(e) = s.get("enum").and_then(Value::as_array)
        && !e.iter().any(|x| num_eq(x, v))
    {
        out.push(format!("{at}: not one of the allowed values"));
    }
    if let Some(c) = s.get("const")
        && !num_eq(c, v)
    {
        out.push(format!("{at}: must equal {c}"));
    }
    if let Some(x) = v.as_f64().filter(|_| v.is_number()) {
        let bound = |k: &str| s.get(k).and_then(Value::as_f64);
        if bound("minimum").is_some_and(|m| x < m)
            || bound("maximum").is_some_and(|m| x > m)
            || bound("exclusiveMinimum").is_some_and(|m| x <= m)
            || bound("exclusiveMaximum").is_some_and(|m| x >= m)
        {
            out.push(format!("{at}: {x} is out of range"));
        }
    }
    if let Some(st) = v.as_str() {
        let n = st.chars().count() as u64;
        if s.get("minLength")
            .and_then(Value::as_u64)
            .is_some_and(|m| n < m)
            || s.get("maxLength")
                .and_then(Value::as_u64)
                .is_some_and(|m| n > m)
        {
            out.push(format!("{at}: length {n} is out of range"));
        }
    }
    if let Some(obj) = v.as_object() {
        let props = s.get("properties").and_then(Value::as_object);
        for r in s
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(k) = r.as_str()
                && !obj.contains_key(k)
            {
                out.push(format!("{path}/{k}: is required"));
            }
        }
        for (k, val) in obj {
            let p = format!("{path}/{k}");
            match props.and_then(|p| p.get(k)) {
                Some(ps) => check(ps, val, &p, out),
                None => match s.get("additionalProperties") {
                    Some(Value::Bool(false)) => out.push(format!("{p}: is not allowed")),
                    Some(extra @ Value::Object(_)) => check(extra, val, &p, out),
                    _ => {}
                },
            }
        }
    }
    if let Some(arr) = v.as_array() {
        let n = arr.len() as u64;
        if s.get("minItems")
            .and_then(Value::as_u64)
            .is_some_and(|m| n < m)
            || s.get("maxItems")
                .and_then(Value::as_u64)
                .is_some_and(|m| n > m)
        {
            out.push(format!("{at}: {n} items is out of range"));
        }
        if let Some(items) = s.get("items").filter(|i| i.is_object()) {
            for (i, x) in arr.iter().enumerate() {
                check(items, x, &format!("{path}/{i}"), out);
            }
        }
    }
    if let Some(all) = s.get("allOf").and_then(Value::as_array) {
        for sub in all {
            check(sub, v, path, out);
        }
    }
    if let Some(any) = s.get("anyOf").and_then(Value::as_array)
        && !any.iter().any(|sub| validate_at(sub, v, path).is_empty())
    {
        out.push(format!("{at}: matches none of anyOf"));
    }
    if let Some(one) = s.get("oneOf").and_then(Value::as_array)
        && one
            .iter()
            .filter(|sub| validate_at(sub, v, path).is_empty())
            .count()
            != 1
    {
        out.push(format!("{at}: must match exactly one of oneOf"));
    }
    if let Some(not) = s.get("not")
        && validate_at(not, v, path).is_empty()
    {
        out.push(format!("{at}: must not match `not`"));
    }
}

fn validate_at(schema: &Value, v: &Value, path: &str) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, v, path, &mut out);
    out
}

/// Why an input schema is not a well-formed MCP tool input schema (empty = fine): an
/// object schema of `type: "object"` whose `properties` is an object of object schemas and
/// whose `required` lists declared property names.
pub fn input_schema_problems(schema: Option<&Value>) -> Vec<String> {
    let Some(s) = schema.and_then(Value::as_object) else {
        return vec!["no input schema object".into()];
    };
    let mut out = Vec::new();
    if s.get("type") != Some(&Value::String("object".into())) {
        out.push("`type` is not \"object\"".into());
    }
    let props = s.get("properties");
    match props {
        None => {}
        Some(Value::Object(m)) => {
            for (k, v) in m {
                if !v.is_object() && !v.is_boolean() {
                    out.push(format!("property `{k}` is not a schema"));
                }
            }
        }
        Some(_) => out.push("`properties` is not an object".into()),
    }
    match s.get("required") {
        None => {}
        Some(Value::Array(r)) => {
            for k in r {
                match k.as_str() {
                    Some(k) if props.and_then(|p| p.get(k)).is_some() => {}
                    Some(k) => out.push(format!("required `{k}` is not a declared property")),
                    None => out.push("`required` holds a non-string".into()),
                }
            }
        }
        Some(_) => out.push("`required` is not an array".into()),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn checks_the_common_keywords() {
        let s = json!({"type": "object", "properties": {"a": {"type": "integer", "minimum": 1},
            "b": {"type": "array", "items": {"type": "string"}, "maxItems": 2}},
            "required": ["a"], "additionalProperties": false});
        assert!(validate(&s, &json!({"a": 2, "b": ["x"]})).is_empty());
        assert!(validate(&s, &json!({"a": 2.0})).is_empty());
        assert_eq!(validate(&s, &json!({})).len(), 1);
        assert_eq!(validate(&s, &json!({"a": 0})).len(), 1);
        assert_eq!(validate(&s, &json!({"a": 1, "c": 1})).len(), 1);
        assert_eq!(validate(&s, &json!({"a": 1, "b": [1]})).len(), 1);
        assert!(
            !validate(
                &json!({"anyOf": [{"type": "string"}, {"type": "null"}]}),
                &json!(1)
            )
            .is_empty()
        );
        assert!(
            input_schema_problems(Some(&json!({"type": "object", "properties": {}}))).is_empty()
        );
        assert_eq!(
            input_schema_problems(Some(&json!({"type": "object", "required": ["x"]}))).len(),
            1
        );
        assert_eq!(input_schema_problems(None).len(), 1);
    }
}
