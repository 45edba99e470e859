//! Form fields from a JSON Schema object (a tool's input schema, an elicitation's requested
//! schema): strings, numbers, integers, booleans, enums (labelled by `enumNames` or
//! `oneOf`/`anyOf` titles), multi-selects (arrays of enums), anything else as JSON; defaults
//! filled in, required ones marked, the schema's own rules checked as the user types.

use serde_json::Value;

use super::form::{Choice, Field};

fn schema_type(prop: &Value) -> Option<&str> {
    match prop.get("type") {
        Some(Value::String(s)) => Some(s),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

/// The options an enum-like schema offers: `enum` (with `enumNames`), or `oneOf`/`anyOf`
/// of `{const, title}`.
fn options(s: &Value) -> Option<Vec<Choice>> {
    if let Some(values) = s.get("enum").and_then(Value::as_array) {
        let names = s.get("enumNames").and_then(Value::as_array);
        return Some(
            values
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    let label = names
                        .and_then(|n| n.get(i))
                        .and_then(Value::as_str)
                        .map(str::to_string)
                        .unwrap_or_else(|| match v {
                            Value::String(s) => s.clone(),
                            other => other.to_string(),
                        });
                    Choice::new(v.clone(), label)
                })
                .collect(),
        );
    }
    let alts = s
        .get("oneOf")
        .or_else(|| s.get("anyOf"))
        .and_then(Value::as_array)?;
    let out: Vec<Choice> = alts
        .iter()
        .filter_map(|a| {
            let c = a.get("const")?;
            let label = a
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| c.to_string());
            Some(Choice::new(c.clone(), label))
        })
        .collect();
    (!out.is_empty()).then_some(out)
}

/// One field per top-level property of `schema`, keyed `{prefix}/{name}`.
pub fn fields(schema: &Value, prefix: &str) -> Vec<Field> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .map(|(name, p)| {
            let key = format!("{prefix}/{name}");
            let label = p
                .get("title")
                .and_then(Value::as_str)
                .unwrap_or(name)
                .to_string();
            let is_required = required.contains(&name.as_str());
            let mut f = if let Some(opts) = options(p) {
                Field::choice(&key, &label, opts)
            } else {
                match schema_type(p) {
                    Some("array") => match p.get("items").and_then(options) {
                        Some(opts) => Field::multi(&key, &label, opts),
                        None => Field::json(&key, &label),
                    },
                    Some("boolean") if is_required || p.get("default").is_some() => {
                        Field::toggle(&key, &label, false)
                    }
                    Some("boolean") => Field::choice(
                        &key,
                        &label,
                        vec![Choice::new(true, "yes"), Choice::new(false, "no")],
                    ),
                    Some("integer") => Field::integer(&key, &label),
                    Some("number") => Field::number(&key, &label),
                    Some("string") | None if p.get("properties").is_none() => {
                        Field::text(&key, &label)
                    }
                    _ => Field::json(&key, &label),
                }
            };
            if let Some(d) = p.get("default") {
                f.set(d);
            }
            let mut help: Vec<String> = Vec::new();
            if let Some(d) = p.get("description").and_then(Value::as_str) {
                help.push(d.lines().next().unwrap_or("").to_string());
            }
            match (p.get("minimum"), p.get("maximum")) {
                (Some(a), Some(b)) => help.push(format!("{a} to {b}")),
                (Some(a), None) => help.push(format!("at least {a}")),
                (None, Some(b)) => help.push(format!("at most {b}")),
                _ => {}
            }
            if let Some(fmt) = p.get("format").and_then(Value::as_str) {
                help.push(fmt.to_string());
            }
            if !help.is_empty() {
                f = f.help(help.join(" · "));
            }
            if is_required {
                f = f.required();
            }
            f
        })
        .collect()
}

/// What `value` breaks of `schema`, as `{prefix}{pointer}: message` lines; `required`
/// violations are left out when `partial` (expected arguments may name only some).
pub fn problems(schema: &Value, value: &Value, prefix: &str, partial: bool) -> Vec<String> {
    let Ok(validator) = jsonschema::validator_for(schema) else {
        return Vec::new();
    };
    validator
        .iter_errors(value)
        .filter(|e| {
            !(partial
                && matches!(
                    e.kind(),
                    jsonschema::error::ValidationErrorKind::Required { .. }
                ))
        })
        .take(10)
        .map(|e| {
            let at = e.instance_path().to_string();
            format!("{prefix}{at}: {e}")
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_requested_schema_becomes_fields_with_defaults_and_rules() {
        let schema = json!({
            "type": "object",
            "required": ["name", "age"],
            "properties": {
                "name": {"type": "string", "title": "Your name", "minLength": 2},
                "age": {"type": "integer", "minimum": 0, "maximum": 150},
                "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"], "default": "g"},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}},
                "ok": {"type": "boolean", "default": true}
            }
        });
        let fs = fields(&schema, "");
        let labels: Vec<&str> = fs.iter().map(|f| f.label.as_str()).collect();
        assert_eq!(labels, ["Your name", "age", "color", "tags", "ok"]);
        assert!(fs[0].required && fs[1].required && !fs[2].required);
        assert_eq!(fs[2].value().unwrap(), Some(json!("g")));
        assert_eq!(fs[4].value().unwrap(), Some(json!(true)));
        let bad = json!({"name": "x", "age": 200});
        let p = problems(&schema, &bad, "", false);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(p.iter().any(|l| l.starts_with("/age:")), "{p:?}");
        assert!(problems(&schema, &json!({"name": "xy"}), "", true).is_empty());
    }
}
