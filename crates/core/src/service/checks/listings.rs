//! The four lists, read page by page through the probe, and the pagination checks on how
//! the pages went.

use std::collections::HashSet;

use serde_json::{Value, json};

use super::{Ctx, Verdict, describe};
use crate::service::mcp::RawAnswer;
use crate::spec::conformance::Evidence;

/// Pages read at most per list.
const MAX_PAGES: usize = 100;

/// One list as the server gave it.
#[derive(Default)]
pub(crate) struct Listing {
    pub method: &'static str,
    /// The capability the list belongs to is declared.
    pub declared: bool,
    /// The server answers the method at all (templates are optional).
    pub implemented: bool,
    pub items: Vec<Value>,
    /// Items per page.
    pub pages: Vec<usize>,
    /// The answer that ended the listing early.
    pub failure: Option<RawAnswer>,
    pub repeated_cursor: Option<String>,
    pub repeated_items: Vec<String>,
    /// Still a `nextCursor` after [`MAX_PAGES`] pages.
    pub unended: bool,
}

/// Lists everything the server declares.
pub(crate) async fn gather(ctx: &mut Ctx<'_>) {
    ctx.tools = list(ctx, "tools/list", "tools", "name", ctx.declares("tools")).await;
    ctx.prompts = list(
        ctx,
        "prompts/list",
        "prompts",
        "name",
        ctx.declares("prompts"),
    )
    .await;
    let resources = ctx.declares("resources");
    ctx.resources = list(ctx, "resources/list", "resources", "uri", resources).await;
    ctx.templates = list(
        ctx,
        "resources/templates/list",
        "resourceTemplates",
        "uriTemplate",
        resources,
    )
    .await;
}

async fn list(ctx: &Ctx<'_>, method: &'static str, key: &str, id: &str, declared: bool) -> Listing {
    let mut l = Listing {
        method,
        declared,
        implemented: declared,
        ..Default::default()
    };
    if !declared {
        return l;
    }
    let mut cursors = HashSet::new();
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    for _ in 0..MAX_PAGES {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let answer = ctx.request(method, params).await;
        let RawAnswer::Result(page) = &answer else {
            if l.pages.is_empty()
                && answer.error_code() == Some(-32601)
                && method.contains("templates")
            {
                l.implemented = false;
            } else {
                l.failure = Some(answer);
            }
            return l;
        };
        let items = page[key].as_array().cloned().unwrap_or_default();
        l.pages.push(items.len());
        for item in items {
            let name = item[id].as_str().unwrap_or_default().to_string();
            if !seen.insert(name.clone()) {
                l.repeated_items.push(name);
            }
            l.items.push(item);
        }
        match page["nextCursor"].as_str() {
            Some(c) if !c.is_empty() => {
                if !cursors.insert(c.to_string()) {
                    l.repeated_cursor = Some(c.to_string());
                    return l;
                }
                cursor = Some(c.to_string());
            }
            _ => return l,
        }
    }
    l.unended = true;
    l
}

/// `pagination.*` for one list.
pub(crate) fn verdict(l: &Listing) -> Verdict {
    if !l.declared {
        return Verdict::not_applicable(format!(
            "the server does not declare the capability of {}",
            l.method
        ));
    }
    if !l.implemented {
        return Verdict::not_applicable(format!("the server does not implement {}", l.method));
    }
    let at = format!("request:{}", l.method);
    if let Some(a) = &l.failure {
        let e = Evidence::new(format!(
            "page {} of {} → {}",
            l.pages.len() + 1,
            l.method,
            describe(a)
        ))
        .at(&at)
        .with(a.to_json());
        return match a {
            RawAnswer::TimedOut(_) | RawAnswer::Failed(_) => {
                Verdict::could_not_run(format!("{} got no answer", l.method), vec![e])
            }
            _ if l.pages.is_empty() => Verdict::fail(format!("{} failed", l.method), vec![e]),
            _ => Verdict::fail(format!("{} failed part way", l.method), vec![e]),
        };
    }
    let mut problems = vec![];
    if let Some(c) = &l.repeated_cursor {
        problems.push(
            Evidence::new(format!(
                "nextCursor `{c}` came back after {} pages: following the cursors never ends",
                l.pages.len()
            ))
            .at(&at),
        );
    }
    if l.unended {
        problems.push(Evidence::new(format!("still a nextCursor after {MAX_PAGES} pages")).at(&at));
    }
    if !l.repeated_items.is_empty() {
        problems.push(
            Evidence::new(format!(
                "listed more than once: {}",
                l.repeated_items.join(", ")
            ))
            .at(&at),
        );
    }
    let pages = l.pages.len();
    Verdict::from_problems(
        problems,
        format!(
            "{} item(s) in {pages} page(s) ({})",
            l.items.len(),
            l.pages
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" + ")
        ),
        "pagination fault",
    )
}

/// `pagination.invalid-cursor`: a cursor the server never gave.
pub(crate) async fn invalid_cursor(ctx: &Ctx<'_>) -> Verdict {
    let Some(l) = [&ctx.tools, &ctx.prompts, &ctx.resources]
        .into_iter()
        .find(|l| l.declared)
    else {
        return Verdict::not_applicable("the server declares no list (tools, prompts, resources)");
    };
    let answer = ctx
        .request(l.method, json!({"cursor": "evaldeck-never-issued-cursor"}))
        .await;
    Verdict::expect_error(
        &answer,
        -32602,
        "Invalid params",
        &format!("{} with a cursor it never gave", l.method),
        &format!("request:{}", l.method),
    )
}
