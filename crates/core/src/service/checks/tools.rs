//! Tools: names, annotations, results and structured content, and the pins.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Ctx, Verdict};
use crate::service::mcp::RawAnswer;
use crate::service::pins::{self, PinChange};
use crate::spec::conformance::Evidence;

fn name(t: &Value) -> &str {
    t["name"].as_str().unwrap_or("")
}

/// The characters a tool name may use (2025-11-25, "Tool names").
fn name_char_ok(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// `tools.name-length`.
pub(crate) fn name_length(ctx: &Ctx<'_>) -> Verdict {
    if ctx.tools.items.is_empty() {
        return Verdict::not_applicable("the server lists no tools");
    }
    let problems = ctx
        .tools
        .items
        .iter()
        .filter(|t| {
            let n = name(t).chars().count();
            !(1..=128).contains(&n)
        })
        .map(|t| {
            Evidence::new(format!(
                "`{}` is {} characters long",
                name(t),
                name(t).chars().count()
            ))
            .at(format!("tool:{}", name(t)))
        })
        .collect();
    Verdict::from_problems(
        problems,
        format!(
            "{} tool name(s) of 1 to 128 characters",
            ctx.tools.items.len()
        ),
        "tool name of the wrong length",
    )
}

/// `tools.name-charset`.
pub(crate) fn name_charset(ctx: &Ctx<'_>) -> Verdict {
    if ctx.tools.items.is_empty() {
        return Verdict::not_applicable("the server lists no tools");
    }
    let problems = ctx
        .tools
        .items
        .iter()
        .filter_map(|t| {
            let bad: String = name(t).chars().filter(|c| !name_char_ok(*c)).collect();
            (!bad.is_empty()).then(|| {
                let shown: Vec<String> = bad
                    .chars()
                    .map(|c| {
                        if c.is_ascii_graphic() {
                            format!("`{c}`")
                        } else {
                            format!("U+{:04X}", c as u32)
                        }
                    })
                    .collect();
                Evidence::new(format!("`{}` uses {}", name(t), shown.join(", ")))
                    .at(format!("tool:{}", name(t)))
            })
        })
        .collect();
    Verdict::from_problems(
        problems,
        format!(
            "{} tool name(s) of A-Z, a-z, 0-9, `_`, `-` and `.` only",
            ctx.tools.items.len()
        ),
        "tool name with a character outside the allowed set",
    )
}

/// `tools.name-unique`.
pub(crate) fn name_unique(ctx: &Ctx<'_>) -> Verdict {
    if ctx.tools.items.is_empty() {
        return Verdict::not_applicable("the server lists no tools");
    }
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for t in &ctx.tools.items {
        *count.entry(name(t)).or_default() += 1;
    }
    let problems = count
        .iter()
        .filter(|(_, n)| **n > 1)
        .map(|(k, n)| Evidence::new(format!("`{k}` is listed {n} times")).at(format!("tool:{k}")))
        .collect();
    Verdict::from_problems(
        problems,
        format!("{} distinct tool name(s)", count.len()),
        "duplicate tool name",
    )
}

/// `tools.annotations`: types of the known keys, and hints that contradict each other.
pub(crate) fn annotations(ctx: &Ctx<'_>) -> Verdict {
    let with: Vec<&Value> = ctx
        .tools
        .items
        .iter()
        .filter(|t| t.get("annotations").is_some_and(|a| !a.is_null()))
        .collect();
    if with.is_empty() {
        return Verdict::not_applicable("no tool carries annotations");
    }
    let mut problems = vec![];
    for t in &with {
        let a = &t["annotations"];
        let at = format!("tool:{}", name(t));
        let Some(obj) = a.as_object() else {
            problems.push(
                Evidence::new(format!("annotations of `{}` are not an object", name(t)))
                    .at(&at)
                    .with(a.clone()),
            );
            continue;
        };
        if let Some(v) = obj.get("title")
            && !v.is_string()
        {
            problems.push(
                Evidence::new(format!("`{}`: annotations.title is not a string", name(t)))
                    .at(&at)
                    .with(a.clone()),
            );
        }
        for hint in [
            "readOnlyHint",
            "destructiveHint",
            "idempotentHint",
            "openWorldHint",
        ] {
            if let Some(v) = obj.get(hint)
                && !v.is_boolean()
            {
                problems.push(
                    Evidence::new(format!(
                        "`{}`: annotations.{hint} is {v}, not a boolean",
                        name(t)
                    ))
                    .at(&at)
                    .with(a.clone()),
                );
            }
        }
        if obj.get("readOnlyHint") == Some(&Value::Bool(true))
            && obj.get("destructiveHint") == Some(&Value::Bool(true))
        {
            problems.push(
                Evidence::new(format!(
                    "`{}` is both read-only and destructive (destructiveHint only means something when readOnlyHint is false)",
                    name(t)
                ))
                .at(&at)
                .with(a.clone()),
            );
        }
    }
    Verdict::from_problems(
        problems,
        format!(
            "{} tool(s) with well-typed, consistent annotations",
            with.len()
        ),
        "annotation fault",
    )
}

/// Why a content block is malformed, if it is.
fn content_problem(c: &Value) -> Option<String> {
    let kind = c["type"].as_str()?;
    let need = |k: &str| c[k].is_string().then_some(()).ok_or(k.to_string());
    let r = match kind {
        "text" => need("text"),
        "image" | "audio" => need("data").and_then(|_| need("mimeType")),
        "resource_link" => need("uri").and_then(|_| need("name")),
        "resource" => {
            let r = &c["resource"];
            if r["uri"].is_string() && (r["text"].is_string() || r["blob"].is_string()) {
                Ok(())
            } else {
                Err("resource.uri and resource.text or resource.blob".into())
            }
        }
        other => return Some(format!("unknown content type `{other}`")),
    };
    r.err().map(|k| format!("a `{kind}` block without `{k}`"))
}

/// Content blocks that are not well-formed, as problems.
pub(crate) fn content_problems(content: &Value, what: &str, at: &str) -> Vec<Evidence> {
    let Some(items) = content.as_array() else {
        return vec![Evidence::new(format!("{what}: `content` is not an array")).at(at)];
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let p = if c["type"].is_string() {
                content_problem(c)
            } else {
                Some("a block without a `type`".into())
            }?;
            Some(
                Evidence::new(format!("{what}: content[{i}] is {p}"))
                    .at(at)
                    .with(c.clone()),
            )
        })
        .collect()
}

/// `tools.result-shape`: every call's result.
pub(crate) fn result_shape(ctx: &Ctx<'_>) -> Verdict {
    if ctx.calls.is_empty() {
        return Verdict::not_applicable(
            ctx.no_calls
                .clone()
                .unwrap_or_else(|| "no tool was called".into()),
        );
    }
    let mut problems = vec![];
    let mut answered = 0;
    for c in &ctx.calls {
        let at = format!("tool:{}", c.tool);
        let RawAnswer::Result(r) = &c.answer else {
            continue;
        };
        answered += 1;
        let what = format!("the result of `{}`", c.tool);
        problems.extend(content_problems(&r["content"], &what, &at));
        if let Some(e) = r.get("isError")
            && !e.is_boolean()
        {
            problems.push(
                Evidence::new(format!("{what}: isError is {e}, not a boolean"))
                    .at(&at)
                    .with(r.clone()),
            );
        }
    }
    if answered == 0 {
        return Verdict::not_applicable("no tool call was answered with a result");
    }
    Verdict::from_problems(
        problems,
        format!("{answered} tool result(s), each well-formed"),
        "tool result fault",
    )
}

/// `tools.structured-content`: a call of a tool with an outputSchema.
pub(crate) fn structured_content(ctx: &Ctx<'_>) -> Verdict {
    let calls: Vec<_> = ctx
        .calls
        .iter()
        .filter(|c| c.output_schema.as_ref().is_some_and(|s| s.is_object()))
        .collect();
    if calls.is_empty() {
        return Verdict::not_applicable(match &ctx.no_calls {
            Some(why) => why.clone(),
            None => "no tool with an outputSchema was called".into(),
        });
    }
    let mut problems = vec![];
    let mut n = 0;
    for c in calls {
        let at = format!("tool:{}", c.tool);
        let RawAnswer::Result(r) = &c.answer else {
            continue;
        };
        if r["isError"] == Value::Bool(true) {
            continue;
        }
        n += 1;
        let Some(sc) = r.get("structuredContent").filter(|v| !v.is_null()) else {
            problems.push(
                Evidence::new(format!(
                    "`{}` declares an outputSchema but answered without structuredContent",
                    c.tool
                ))
                .at(&at)
                .with(r.clone()),
            );
            continue;
        };
        let schema = c.output_schema.as_ref().expect("filtered");
        let violations = crate::service::evals::schema::validate(schema, sc);
        if !violations.is_empty() {
            problems.push(
                Evidence::new(format!(
                    "the structuredContent of `{}` does not fit its outputSchema: {}",
                    c.tool,
                    violations.join("; ")
                ))
                .at(&at)
                .with(sc.clone()),
            );
        }
    }
    if n == 0 {
        return Verdict::not_applicable("no call of a tool with an outputSchema succeeded");
    }
    Verdict::from_problems(
        problems,
        format!("{n} structured result(s), each accepted by its outputSchema"),
        "structured content fault",
    )
}

/// `pins.unchanged`.
pub(crate) fn pins(ctx: &Ctx<'_>) -> Verdict {
    let Some(pins) = &ctx.req.pins else {
        return Verdict::not_applicable(
            "no pin file given (--pins FILE; `evaldeck pin` writes one)",
        );
    };
    let (changes, added) = pins::compare(pins, &ctx.tools.items);
    let mut problems: Vec<Evidence> = changes
        .iter()
        .map(|(n, c)| match c {
            PinChange::Changed(old, new) => {
                Evidence::new(format!("`{n}` changed since it was pinned ({old} → {new})"))
                    .at(format!("tool:{n}"))
                    .with(
                        ctx.tools
                            .items
                            .iter()
                            .find(|t| name(t) == n)
                            .cloned()
                            .unwrap_or(Value::Null),
                    )
            }
            PinChange::Removed => {
                Evidence::new(format!("`{n}` was pinned and is gone")).at(format!("tool:{n}"))
            }
        })
        .collect();
    let unchanged = pins.tools.len() - changes.len();
    if problems.is_empty() {
        let mut v = Verdict::pass(format!(
            "{unchanged} pinned tool(s) unchanged{}",
            if added.is_empty() {
                String::new()
            } else {
                format!("; not pinned: {}", added.join(", "))
            }
        ));
        if !added.is_empty() {
            v = v.with(Evidence::new(format!(
                "new since the pins: {}",
                added.join(", ")
            )));
        }
        return v;
    }
    if !added.is_empty() {
        problems.push(Evidence::new(format!(
            "new since the pins (not a failure): {}",
            added.join(", ")
        )));
    }
    Verdict::fail(
        format!(
            "{} pinned tool(s) changed or removed since {}",
            changes.len(),
            pins.pinned_at
        ),
        problems,
    )
}
