//! The JSON Schemas tools declare: input and output schemas, and the dialect they name.

use serde_json::Value;

use super::{Ctx, Verdict};
use crate::service::evals::schema::input_schema_problems;
use crate::spec::conformance::Evidence;

fn name(t: &Value) -> &str {
    t["name"].as_str().unwrap_or("?")
}

/// `schema.input-valid`.
pub(crate) fn input_valid(ctx: &Ctx<'_>) -> Verdict {
    if ctx.tools.items.is_empty() {
        return Verdict::not_applicable("the server lists no tools");
    }
    let mut problems = vec![];
    for t in &ctx.tools.items {
        for p in input_schema_problems(t.get("inputSchema")) {
            problems.push(
                Evidence::new(format!("inputSchema of `{}`: {p}", name(t)))
                    .at(format!("tool:{}", name(t)))
                    .with(t.get("inputSchema").cloned().unwrap_or(Value::Null)),
            );
        }
    }
    Verdict::from_problems(
        problems,
        format!(
            "{} input schema(s), each well-formed",
            ctx.tools.items.len()
        ),
        "input schema fault",
    )
}

/// `schema.output-valid`.
pub(crate) fn output_valid(ctx: &Ctx<'_>) -> Verdict {
    let with: Vec<&Value> = ctx
        .tools
        .items
        .iter()
        .filter(|t| t.get("outputSchema").is_some_and(|s| !s.is_null()))
        .collect();
    if with.is_empty() {
        return Verdict::not_applicable("no tool declares an outputSchema");
    }
    let mut problems = vec![];
    for t in &with {
        let s = &t["outputSchema"];
        let at = format!("tool:{}", name(t));
        if !s.is_object() {
            problems.push(
                Evidence::new(format!("outputSchema of `{}` is not an object", name(t)))
                    .at(&at)
                    .with(s.clone()),
            );
            continue;
        }
        if s["type"] != Value::String("object".into()) {
            problems.push(
                Evidence::new(format!(
                    "outputSchema of `{}`: `type` is not \"object\"",
                    name(t)
                ))
                .at(&at)
                .with(s.clone()),
            );
        }
        if let Err(e) = jsonschema::validator_for(s) {
            problems.push(
                Evidence::new(format!(
                    "outputSchema of `{}` is not a valid JSON Schema: {e}",
                    name(t)
                ))
                .at(&at)
                .with(s.clone()),
            );
        }
    }
    Verdict::from_problems(
        problems,
        format!("{} output schema(s), each well-formed", with.len()),
        "output schema fault",
    )
}

/// The dialects JSON Schema publishes, by their `$schema` URI (with or without `#`).
fn known_dialect(uri: &str) -> Option<&'static str> {
    let u = uri.trim_end_matches('#');
    Some(match u {
        "http://json-schema.org/draft-04/schema" => "draft-04",
        "http://json-schema.org/draft-06/schema" => "draft-06",
        "http://json-schema.org/draft-07/schema" => "draft-07",
        "https://json-schema.org/draft/2019-09/schema" => "2019-09",
        "https://json-schema.org/draft/2020-12/schema" => "2020-12",
        _ => return None,
    })
}

/// `schema.dialect`: each schema against the meta-schema of the dialect it names.
pub(crate) fn dialect(ctx: &Ctx<'_>) -> Verdict {
    if ctx.tools.items.is_empty() {
        return Verdict::not_applicable("the server lists no tools");
    }
    let mut problems = vec![];
    let mut n = 0;
    let mut dialects = std::collections::BTreeSet::new();
    for t in &ctx.tools.items {
        for key in ["inputSchema", "outputSchema"] {
            let Some(s) = t.get(key).filter(|s| s.is_object()) else {
                continue;
            };
            n += 1;
            let at = format!("tool:{}", name(t));
            let declared = s.get("$schema").and_then(Value::as_str);
            let checked = match declared {
                None => {
                    dialects.insert("2020-12 (default)");
                    jsonschema::draft202012::meta::validate(s).map_err(|e| e.to_string())
                }
                Some(uri) => match known_dialect(uri) {
                    Some(d) => {
                        dialects.insert(d);
                        jsonschema::meta::validate(s).map_err(|e| e.to_string())
                    }
                    None => Err(format!(
                        "`$schema` names `{uri}`, which is not a JSON Schema dialect (draft-04, -06, -07, 2019-09, 2020-12)"
                    )),
                },
            };
            if let Err(e) = checked {
                problems.push(
                    Evidence::new(format!("{key} of `{}`: {e}", name(t)))
                        .at(&at)
                        .with(s.clone()),
                );
            }
        }
    }
    Verdict::from_problems(
        problems,
        format!(
            "{n} schema(s) valid against their dialect ({})",
            dialects.into_iter().collect::<Vec<_>>().join(", ")
        ),
        "schema invalid against its dialect",
    )
}
