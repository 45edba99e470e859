//! JSON Schema checks for `toolResultMatchesSchema`, `argumentsMatchToolSchema` and
//! `toolInputSchemasWellFormed`, through the `jsonschema` crate (every draft it knows,
//! detected from `$schema`, 2020-12 by default). Remote `$ref`s are not fetched: a schema
//! that needs one is reported as not compilable rather than half checked.

use serde_json::Value;

/// At most this many violations are reported per check; the first ones say enough.
const MAX_VIOLATIONS: usize = 10;

/// The first violations of `schema` by `v`, each `pointer: message` (empty = valid). A
/// schema that cannot be compiled is itself reported as the one violation.
pub fn validate(schema: &Value, v: &Value) -> Vec<String> {
    let validator = match jsonschema::validator_for(schema) {
        Ok(validator) => validator,
        Err(e) => return vec![format!("the schema cannot be used: {e}")],
    };
    validator
        .iter_errors(v)
        .take(MAX_VIOLATIONS)
        .map(|e| {
            let at = e.instance_path().to_string();
            let at = if at.is_empty() { "/".to_string() } else { at };
            format!("{at}: {e}")
        })
        .collect()
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
    if out.is_empty()
        && let Err(e) = jsonschema::validator_for(&Value::Object(s.clone()))
    {
        out.push(format!("not a valid JSON Schema: {e}"));
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
        let bad = json!({"type": "object", "properties": {"a": {"type": "colour"}}});
        assert_eq!(input_schema_problems(Some(&bad)).len(), 1, "{bad}");
    }

    #[test]
    fn reports_paths_and_keywords_the_old_subset_missed() {
        let s = json!({"type": "object", "properties": {
            "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
            "tags": {"type": "array", "uniqueItems": true},
            "n": {"$ref": "#/$defs/positive"}},
            "$defs": {"positive": {"type": "integer", "exclusiveMinimum": 0}}});
        assert!(validate(&s, &json!({"email": "a@b", "tags": [1, 2], "n": 3})).is_empty());
        let v = validate(&s, &json!({"email": "nope", "tags": [1, 1], "n": 0}));
        assert_eq!(v.len(), 3, "{v:?}");
        assert!(v.iter().any(|e| e.starts_with("/email: ")), "{v:?}");
        assert!(v.iter().any(|e| e.starts_with("/n: ")), "{v:?}");
        let whole = validate(&json!({"type": "object"}), &json!(3));
        assert!(whole[0].starts_with("/: "), "{whole:?}");
    }

    #[test]
    fn an_unusable_schema_is_one_clear_violation() {
        let v = validate(&json!({"type": 12}), &json!({}));
        assert_eq!(v.len(), 1);
        assert!(v[0].starts_with("the schema cannot be used"), "{v:?}");
    }
}
