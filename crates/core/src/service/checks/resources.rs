//! Resources, resource templates and prompts.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use super::{Ctx, Verdict, describe};
use crate::service::mcp::RawAnswer;
use crate::spec::conformance::Evidence;

/// At most this many resources are read and prompts rendered.
const MAX_READS: usize = 10;

/// Whether `uri` is absolute: a scheme (RFC 3986: a letter, then letters, digits, `+-.`)
/// and a colon.
fn absolute(uri: &str) -> bool {
    let Some((scheme, _)) = uri.split_once(':') else {
        return false;
    };
    let mut cs = scheme.chars();
    cs.next().is_some_and(|c| c.is_ascii_alphabetic())
        && cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
        && !uri.chars().any(char::is_whitespace)
}

/// `resources.uri`.
pub(crate) fn uri(ctx: &Ctx<'_>) -> Verdict {
    if !ctx.resources.declared {
        return Verdict::not_applicable("the server does not declare resources");
    }
    if ctx.resources.items.is_empty() {
        return Verdict::not_applicable("the server lists no resources");
    }
    let mut problems = vec![];
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for r in &ctx.resources.items {
        let Some(u) = r["uri"].as_str() else {
            problems.push(Evidence::new("a resource without a uri").with(r.clone()));
            continue;
        };
        *count.entry(u).or_default() += 1;
        if !absolute(u) {
            problems.push(
                Evidence::new(format!("`{u}` is not an absolute URI"))
                    .at(format!("resource:{u}"))
                    .with(r.clone()),
            );
        }
        if !r["name"].is_string() {
            problems.push(
                Evidence::new(format!("`{u}` has no name"))
                    .at(format!("resource:{u}"))
                    .with(r.clone()),
            );
        }
    }
    for (u, n) in count.iter().filter(|(_, n)| **n > 1) {
        problems
            .push(Evidence::new(format!("`{u}` is listed {n} times")).at(format!("resource:{u}")));
    }
    Verdict::from_problems(
        problems,
        format!("{} resource(s), absolute and unique URIs", count.len()),
        "resource URI fault",
    )
}

/// Why `t` is not a well-formed RFC 6570 template, if it is not.
fn template_problem(t: &str) -> Option<String> {
    let mut depth = 0;
    let mut expr = String::new();
    for c in t.chars() {
        match c {
            '{' if depth == 0 => {
                depth = 1;
                expr.clear();
            }
            '{' => return Some("a `{` inside an expression".into()),
            '}' if depth == 1 => {
                depth = 0;
                let body = expr.trim_start_matches(['+', '#', '.', '/', ';', '?', '&']);
                if body.is_empty() {
                    return Some("an empty expression `{}`".into());
                }
                for var in body.split(',') {
                    let name = var.trim_end_matches('*');
                    let name = name.split(':').next().unwrap_or_default();
                    if name.is_empty()
                        || !name
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '%'))
                    {
                        return Some(format!("`{{{expr}}}` names no valid variable"));
                    }
                }
            }
            '}' => return Some("a `}` outside an expression".into()),
            c if depth == 1 => expr.push(c),
            _ => {}
        }
    }
    (depth != 0).then(|| "an unclosed `{`".into())
}

/// `resources.templates`.
pub(crate) fn templates(ctx: &Ctx<'_>) -> Verdict {
    if !ctx.templates.declared || !ctx.templates.implemented {
        return Verdict::not_applicable("the server offers no resource templates");
    }
    if ctx.templates.items.is_empty() {
        return Verdict::not_applicable("the server lists no resource templates");
    }
    let mut problems = vec![];
    for t in &ctx.templates.items {
        let Some(u) = t["uriTemplate"].as_str() else {
            problems.push(Evidence::new("a template without a uriTemplate").with(t.clone()));
            continue;
        };
        if let Some(p) = template_problem(u) {
            problems.push(
                Evidence::new(format!("`{u}`: {p}"))
                    .at(format!("template:{u}"))
                    .with(t.clone()),
            );
        } else if !absolute(u.split('{').next().unwrap_or(u)) && !u.starts_with('{') {
            problems.push(
                Evidence::new(format!("`{u}` does not expand to an absolute URI"))
                    .at(format!("template:{u}"))
                    .with(t.clone()),
            );
        }
    }
    Verdict::from_problems(
        problems,
        format!(
            "{} template(s), each well-formed RFC 6570",
            ctx.templates.items.len()
        ),
        "malformed template",
    )
}

/// `resources.read`.
pub(crate) async fn read(ctx: &Ctx<'_>) -> Verdict {
    if !ctx.resources.declared || ctx.resources.items.is_empty() {
        return Verdict::not_applicable("the server lists no resources");
    }
    let mut problems = vec![];
    let mut read = 0;
    for r in ctx.resources.items.iter().take(MAX_READS) {
        let Some(u) = r["uri"].as_str() else {
            continue;
        };
        let at = format!("resource:{u}");
        let a = ctx.request("resources/read", json!({"uri": u})).await;
        let RawAnswer::Result(v) = &a else {
            if matches!(a, RawAnswer::TimedOut(_) | RawAnswer::Failed(_)) {
                return Verdict::could_not_run(
                    format!("resources/read of `{u}` got no answer"),
                    vec![Evidence::new(describe(&a)).at(at)],
                );
            }
            problems.push(
                Evidence::new(format!("reading a listed resource → {}", describe(&a)))
                    .at(at)
                    .with(a.to_json()),
            );
            continue;
        };
        read += 1;
        let Some(contents) = v["contents"].as_array() else {
            problems.push(
                Evidence::new("the answer has no `contents` array")
                    .at(at)
                    .with(v.clone()),
            );
            continue;
        };
        for c in contents {
            if !c["uri"].is_string() || !(c["text"].is_string() || c["blob"].is_string()) {
                problems.push(
                    Evidence::new("a content without a uri, or with neither text nor blob")
                        .at(&at)
                        .with(c.clone()),
                );
            }
        }
    }
    Verdict::from_problems(
        problems,
        format!("{read} resource(s) read, each content well-formed"),
        "unreadable resource",
    )
}

/// `resources.not-found`.
pub(crate) async fn not_found(ctx: &Ctx<'_>) -> Verdict {
    if !ctx.resources.declared {
        return Verdict::not_applicable("the server does not declare resources");
    }
    let uri = "evaldeck-check://no/such/resource";
    let a = ctx.request("resources/read", json!({"uri": uri})).await;
    // From 2026-07-28 a missing resource is -32602 (clients still accept -32002).
    if ctx.probe.modern() && a.error_code() == Some(-32002) {
        return Verdict::pass(
            "resources/read of an unknown URI is refused with -32002 (accepted from 2026-07-28 for compatibility)",
        );
    }
    let (code, name) = if ctx.probe.modern() {
        (-32602, "Invalid params")
    } else {
        (-32002, "Resource not found")
    };
    Verdict::expect_error(
        &a,
        code,
        name,
        "resources/read of an unknown URI",
        &format!("resource:{uri}"),
    )
}

/// `prompts.arguments`.
pub(crate) fn prompt_arguments(ctx: &Ctx<'_>) -> Verdict {
    if ctx.prompts.items.is_empty() {
        return Verdict::not_applicable("the server lists no prompts");
    }
    let mut problems = vec![];
    let mut n = 0;
    for p in &ctx.prompts.items {
        let pname = p["name"].as_str().unwrap_or("?");
        let at = format!("prompt:{pname}");
        let Some(args) = p.get("arguments").filter(|a| !a.is_null()) else {
            continue;
        };
        let Some(args) = args.as_array() else {
            problems.push(
                Evidence::new(format!("`{pname}`: arguments is not an array"))
                    .at(&at)
                    .with(args.clone()),
            );
            continue;
        };
        let mut seen = std::collections::HashSet::new();
        for a in args {
            n += 1;
            match a["name"].as_str() {
                Some(s) if !s.trim().is_empty() => {
                    if !seen.insert(s) {
                        problems.push(
                            Evidence::new(format!("`{pname}`: argument `{s}` twice")).at(&at),
                        );
                    }
                }
                _ => problems.push(
                    Evidence::new(format!("`{pname}`: an argument without a name"))
                        .at(&at)
                        .with(a.clone()),
                ),
            }
            if let Some(r) = a.get("required")
                && !r.is_boolean()
            {
                problems.push(
                    Evidence::new(format!("`{pname}`: `required` is {r}, not a boolean"))
                        .at(&at)
                        .with(a.clone()),
                );
            }
        }
    }
    Verdict::from_problems(
        problems,
        format!(
            "{} prompt(s), {n} argument(s), each named once",
            ctx.prompts.items.len()
        ),
        "prompt argument fault",
    )
}

/// Arguments for a prompt: every required one, as a short text.
fn prompt_args(p: &Value) -> Map<String, Value> {
    p["arguments"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|a| a["required"] == Value::Bool(true))
        .filter_map(|a| Some((a["name"].as_str()?.to_string(), json!("evaldeck"))))
        .collect()
}

/// `prompts.get`.
pub(crate) async fn prompt_get(ctx: &Ctx<'_>) -> Verdict {
    if ctx.prompts.items.is_empty() {
        return Verdict::not_applicable("the server lists no prompts");
    }
    let mut problems = vec![];
    let mut n = 0;
    // Prompt arguments have no schema: a value made up for a required one may be refused,
    // which says nothing about the server.
    let mut refused = vec![];
    for p in ctx.prompts.items.iter().take(MAX_READS) {
        let Some(pname) = p["name"].as_str() else {
            continue;
        };
        let made_up = !prompt_args(p).is_empty();
        let at = format!("prompt:{pname}");
        let a = ctx
            .request(
                "prompts/get",
                json!({"name": pname, "arguments": prompt_args(p)}),
            )
            .await;
        let RawAnswer::Result(v) = &a else {
            if matches!(a, RawAnswer::TimedOut(_) | RawAnswer::Failed(_)) {
                return Verdict::could_not_run(
                    format!("prompts/get of `{pname}` got no answer"),
                    vec![Evidence::new(describe(&a)).at(at)],
                );
            }
            let e = Evidence::new(format!(
                "rendering `{pname}`{} → {}",
                if made_up {
                    " with made-up required arguments"
                } else {
                    ""
                },
                describe(&a)
            ))
            .at(at)
            .with(a.to_json());
            if made_up {
                refused.push(e);
            } else {
                problems.push(e);
            }
            continue;
        };
        n += 1;
        let Some(messages) = v["messages"].as_array() else {
            problems.push(
                Evidence::new("the answer has no `messages` array")
                    .at(at)
                    .with(v.clone()),
            );
            continue;
        };
        for (i, m) in messages.iter().enumerate() {
            match m["role"].as_str() {
                Some("user" | "assistant") => {}
                _ => problems.push(
                    Evidence::new(format!("messages[{i}] has the role {}", m["role"]))
                        .at(&at)
                        .with(m.clone()),
                ),
            }
            let content = match &m["content"] {
                Value::Array(_) => m["content"].clone(),
                other => Value::Array(vec![other.clone()]),
            };
            problems.extend(super::tools::content_problems(
                &content,
                &format!("messages[{i}] of `{pname}`"),
                &at,
            ));
        }
    }
    if n == 0 && problems.is_empty() {
        let mut v = Verdict::not_applicable(
            "no prompt rendered with made-up values for its required arguments",
        );
        v.evidence = refused;
        return v;
    }
    let mut v = Verdict::from_problems(
        problems,
        format!(
            "{n} prompt(s) rendered, each message well-formed{}",
            if refused.is_empty() {
                String::new()
            } else {
                format!(
                    "; {} refused made-up arguments (not a fault)",
                    refused.len()
                )
            }
        ),
        "prompt rendering fault",
    );
    if v.outcome == crate::spec::conformance::Outcome::Passed {
        v.evidence.extend(refused);
    }
    v
}

/// `prompts.missing-argument`.
pub(crate) async fn prompt_missing_argument(ctx: &Ctx<'_>) -> Verdict {
    let Some(p) = ctx.prompts.items.iter().find(|p| {
        p["arguments"]
            .as_array()
            .is_some_and(|a| a.iter().any(|a| a["required"] == Value::Bool(true)))
    }) else {
        return Verdict::not_applicable("no prompt has a required argument");
    };
    let pname = p["name"].as_str().unwrap_or_default();
    let a = ctx
        .request("prompts/get", json!({"name": pname, "arguments": {}}))
        .await;
    Verdict::expect_error(
        &a,
        -32602,
        "Invalid params",
        &format!("prompts/get of `{pname}` without its required arguments"),
        &format!("prompt:{pname}"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_rules() {
        assert!(absolute("demo://readme"));
        assert!(absolute("file:///tmp/x"));
        assert!(!absolute("readme.txt"));
        assert!(!absolute("/tmp/x"));
        assert!(!absolute("demo://a b"));
        assert_eq!(template_problem("demo://items/{id}"), None);
        assert_eq!(template_problem("file:///{+path}{?q,r}"), None);
        assert!(template_problem("demo://items/{id").is_some());
        assert!(template_problem("demo://items/{}").is_some());
        assert!(template_problem("demo://items/{a b}").is_some());
    }
}
