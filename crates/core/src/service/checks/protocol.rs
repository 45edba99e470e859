//! Capabilities declared and used, error codes, ping, cancellation, progress and timeouts.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{Value, json};

use super::{Ctx, Verdict, describe};
use crate::service::mcp::RawAnswer;
use crate::spec::conformance::Evidence;

/// `capabilities.declared-answer`: each declared list answers its first page; a declared
/// `logging` (handshake era) answers `logging/setLevel`.
pub(crate) async fn declared_answer(ctx: &Ctx<'_>) -> Verdict {
    let mut answered = vec![];
    let mut problems = vec![];
    for l in [&ctx.tools, &ctx.prompts, &ctx.resources] {
        if !l.declared {
            continue;
        }
        match (&l.failure, l.pages.is_empty()) {
            (Some(a), true) => problems.push(
                Evidence::new(format!("declared, but {} → {}", l.method, describe(a)))
                    .at(format!("request:{}", l.method))
                    .with(a.to_json()),
            ),
            _ => answered.push(l.method),
        }
    }
    if ctx.declares("logging") && !ctx.probe.modern() {
        let a = ctx
            .request("logging/setLevel", json!({"level": "info"}))
            .await;
        match a {
            RawAnswer::Result(_) => answered.push("logging/setLevel"),
            other => problems.push(
                Evidence::new(format!(
                    "declared, but logging/setLevel → {}",
                    describe(&other)
                ))
                .at("request:logging/setLevel")
                .with(other.to_json()),
            ),
        }
    }
    if answered.is_empty() && problems.is_empty() {
        return Verdict::not_applicable(
            "the server declares none of tools, prompts, resources, logging",
        );
    }
    Verdict::from_problems(
        problems,
        format!("{} answered", answered.join(", ")),
        "declared capability without an answer",
    )
}

/// The capability (and flag) a notification from the server needs.
fn needs(method: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match method {
        "notifications/message" => ("logging", None),
        "notifications/tools/list_changed" => ("tools", Some("listChanged")),
        "notifications/prompts/list_changed" => ("prompts", Some("listChanged")),
        "notifications/resources/list_changed" => ("resources", Some("listChanged")),
        "notifications/resources/updated" => ("resources", Some("subscribe")),
        _ => return None,
    })
}

/// `capabilities.undeclared-unused`: over every notification the server sent the probe.
pub(crate) fn undeclared_unused(ctx: &Ctx<'_>) -> Verdict {
    let caps = &ctx.info.capabilities;
    let mut seen = 0;
    let mut problems = vec![];
    for e in ctx.probe.events() {
        if e.direction != "in" || e.kind != "notification" {
            continue;
        }
        seen += 1;
        let Some(method) = e.method.as_deref() else {
            continue;
        };
        let Some((cap, flag)) = needs(method) else {
            continue;
        };
        let declared = match flag {
            None => caps.get(cap).is_some_and(|v| !v.is_null()),
            Some(f) => caps[cap][f] == Value::Bool(true),
        };
        if !declared {
            let what = match flag {
                None => format!("`{cap}`"),
                Some(f) => format!("`{cap}.{f}`"),
            };
            problems.push(
                Evidence::new(format!("{method} sent without {what} declared"))
                    .at(format!("notification:{method}"))
                    .with(e.message.clone()),
            );
        }
    }
    Verdict::from_problems(
        problems,
        format!("{seen} notification(s) from the server, none of an undeclared capability"),
        "use of an undeclared capability",
    )
}

/// `errors.unknown-method`.
pub(crate) async fn unknown_method(ctx: &Ctx<'_>) -> Verdict {
    let a = ctx.request("evaldeck/no-such-method", json!({})).await;
    Verdict::expect_error(
        &a,
        -32601,
        "Method not found",
        "an unknown method",
        "request:evaldeck/no-such-method",
    )
}

/// `errors.invalid-params`: a request missing its required param.
pub(crate) async fn invalid_params(ctx: &Ctx<'_>) -> Verdict {
    let (method, params, what) = if ctx.tools.declared {
        (
            "tools/call",
            json!({"arguments": {}}),
            "tools/call without a name",
        )
    } else if ctx.prompts.declared {
        ("prompts/get", json!({}), "prompts/get without a name")
    } else if ctx.resources.declared {
        ("resources/read", json!({}), "resources/read without a uri")
    } else {
        return Verdict::not_applicable("the server declares no tools, prompts or resources");
    };
    let a = ctx.request(method, params).await;
    Verdict::expect_error(
        &a,
        -32602,
        "Invalid params",
        what,
        &format!("request:{method}"),
    )
}

/// `errors.unknown-tool`.
pub(crate) async fn unknown_tool(ctx: &Ctx<'_>) -> Verdict {
    if !ctx.tools.declared {
        return Verdict::not_applicable("the server declares no tools");
    }
    let a = ctx
        .request(
            "tools/call",
            json!({"name": "evaldeck-no-such-tool", "arguments": {}}),
        )
        .await;
    if let RawAnswer::Result(r) = &a
        && r["isError"] == Value::Bool(true)
    {
        return Verdict::fail(
            "an unknown tool is answered with a tool result (isError: true), not the error -32602",
            vec![
                Evidence::new("tools/call of `evaldeck-no-such-tool`")
                    .at("request:tools/call")
                    .with(a.to_json()),
            ],
        );
    }
    Verdict::expect_error(
        &a,
        -32602,
        "Invalid params",
        "tools/call of an unknown tool",
        "request:tools/call",
    )
}

/// `ping.answers`.
pub(crate) async fn ping(ctx: &Ctx<'_>) -> Verdict {
    let a = ctx.probe.request_raw("ping", None, ctx.timeout).await;
    let e = Evidence::new(format!("ping → {}", describe(&a)))
        .at("request:ping")
        .with(a.to_json());
    match &a {
        RawAnswer::Result(v)
            if v.as_object()
                .is_some_and(|o| o.keys().all(|k| k == "_meta" || k == "resultType")) =>
        {
            Verdict::pass("ping is answered with an empty result").with(e)
        }
        RawAnswer::Result(_) => Verdict::fail("ping is answered with a non-empty result", vec![e]),
        RawAnswer::Error { .. } => Verdict::fail("ping is refused", vec![e]),
        _ => Verdict::fail("ping is not answered", vec![e]),
    }
}

/// A cheap request the server answers in any era: a list it declares, else `ping`.
fn cheap_request(ctx: &Ctx<'_>) -> Option<&'static str> {
    [&ctx.tools, &ctx.prompts, &ctx.resources]
        .into_iter()
        .find(|l| l.declared)
        .map(|l| l.method)
        .or((!ctx.probe.modern()).then_some("ping"))
}

/// After what the check did, the session still answers.
async fn still_answers(ctx: &Ctx<'_>, method: &str) -> (bool, Evidence) {
    let a = ctx.request(method, json!({})).await;
    let ok = matches!(a, RawAnswer::Result(_)) && ctx.probe.alive().await;
    (
        ok,
        Evidence::new(format!("then {method} → {}", describe(&a)))
            .at(format!("request:{method}"))
            .with(a.to_json()),
    )
}

/// `cancellation.in-flight`.
pub(crate) async fn cancel_in_flight(ctx: &Ctx<'_>) -> Verdict {
    let Some(method) = cheap_request(ctx) else {
        return Verdict::not_applicable("no request to cancel (no list declared)");
    };
    let first = match ctx
        .probe
        .request_then_cancel(method, Some(json!({})), Duration::from_millis(300))
        .await
    {
        // rmcp gives up on its side at once: not an answer from the server.
        Ok(None) | Ok(Some(RawAnswer::Failed(_))) => {
            Evidence::new(format!("{method}, cancelled at once, was not answered"))
        }
        Ok(Some(a)) => Evidence::new(format!(
            "{method}, cancelled at once, was answered anyway (allowed): {}",
            describe(&a)
        )),
        // The transport closing under the request is the server going away on the
        // cancellation (a race the cancellation can win): a failure, not a check that
        // could not run.
        Err(e) if !ctx.probe.alive().await => {
            return Verdict::fail(
                "after a cancellation the session stopped answering",
                vec![
                    Evidence::new(format!(
                        "{method}, cancelled at once: {e}; the server is gone"
                    ))
                    .at("notification:notifications/cancelled"),
                ],
            );
        }
        Err(e) => {
            return Verdict::could_not_run(format!("could not send the request: {e}"), vec![]);
        }
    }
    .at("notification:notifications/cancelled");
    let (ok, then) = still_answers(ctx, method).await;
    if ok {
        Verdict::pass("after a cancellation the session keeps answering")
            .with(first)
            .with(then)
    } else {
        Verdict::fail(
            "after a cancellation the session stopped answering",
            vec![first, then],
        )
    }
}

/// `cancellation.unknown-request`.
pub(crate) async fn cancel_unknown(ctx: &Ctx<'_>) -> Verdict {
    let Some(method) = cheap_request(ctx) else {
        return Verdict::not_applicable("no request to follow up with (no list declared)");
    };
    let sent = ctx
        .probe
        .notify_raw(
            "notifications/cancelled",
            Some(json!({"requestId": "evaldeck-never-sent", "reason": "evaldeck check"})),
        )
        .await;
    if let Err(e) = sent {
        return Verdict::could_not_run(format!("could not send the notification: {e}"), vec![]);
    }
    let first = Evidence::new("notifications/cancelled for request `evaldeck-never-sent`")
        .at("notification:notifications/cancelled");
    let (ok, then) = still_answers(ctx, method).await;
    if ok {
        Verdict::pass("a cancellation of an unknown request is ignored")
            .with(first)
            .with(then)
    } else {
        Verdict::fail(
            "a cancellation of an unknown request stopped the session",
            vec![first, then],
        )
    }
}

/// `progress.notifications`: every progress notification against the requests of the
/// probe, in the order the messages went.
pub(crate) fn progress(ctx: &Ctx<'_>) -> Verdict {
    let events = ctx.probe.events();
    // progress token → (request id, the request's method)
    let mut tokens: HashMap<String, (String, String)> = HashMap::new();
    // request id → answered yet
    let mut answered: HashMap<String, bool> = HashMap::new();
    let mut last: HashMap<String, f64> = HashMap::new();
    let mut seen = 0;
    let mut problems = vec![];
    for e in &events {
        let id = e.id.as_ref().map(|v| v.to_string());
        match (e.direction.as_str(), e.kind.as_str()) {
            ("out", "request") => {
                if let (Some(id), Some(t)) =
                    (&id, e.message["params"]["_meta"].get("progressToken"))
                {
                    tokens.insert(
                        t.to_string(),
                        (id.clone(), e.method.clone().unwrap_or_default()),
                    );
                    answered.insert(id.clone(), false);
                }
            }
            ("in", "response" | "error") => {
                if let Some(id) = &id {
                    answered.insert(id.clone(), true);
                }
            }
            ("in", "notification") if e.method.as_deref() == Some("notifications/progress") => {
                seen += 1;
                let p = &e.message["params"];
                let token = p["progressToken"].to_string();
                let at = Evidence::new(format!("progress {}", p))
                    .at("notification:notifications/progress")
                    .with(e.message.clone());
                let Some((req, method)) = tokens.get(&token) else {
                    problems.push(Evidence {
                        message: format!("progress for token {token}, which no request carried"),
                        ..at
                    });
                    continue;
                };
                if answered.get(req) == Some(&true) {
                    problems.push(Evidence {
                        message: format!("progress for {method} (token {token}) after its answer"),
                        ..at
                    });
                    continue;
                }
                let Some(value) = p["progress"].as_f64() else {
                    problems.push(Evidence {
                        message: "progress without a number".into(),
                        ..at
                    });
                    continue;
                };
                if let Some(prev) = last.get(&token)
                    && value <= *prev
                {
                    problems.push(Evidence {
                        message: format!(
                            "progress of {method} went from {prev} to {value}: it must increase"
                        ),
                        ..at.clone()
                    });
                }
                if let Some(total) = p["total"].as_f64()
                    && value > total
                {
                    problems.push(Evidence {
                        message: format!("progress {value} of {method} is past its total {total}"),
                        ..at
                    });
                }
                last.insert(token, value);
            }
            _ => {}
        }
    }
    if seen == 0 {
        return Verdict::not_applicable(match &ctx.no_calls {
            Some(why) => format!("no progress notification was sent ({why})"),
            None => "no progress notification was sent during the check".into(),
        });
    }
    Verdict::from_problems(
        problems,
        format!("{seen} progress notification(s), each for a request in flight, increasing"),
        "progress fault",
    )
}

/// `timeouts.answered-in-time`.
pub(crate) fn timeouts(ctx: &Ctx<'_>) -> Verdict {
    let log = ctx.probe.requests();
    let late: Vec<Evidence> = log
        .iter()
        .filter(|r| r.timed_out)
        .map(|r| {
            Evidence::new(format!(
                "{} got no answer within {} ms",
                r.method,
                ctx.timeout.as_millis()
            ))
            .at(format!("request:{}", r.method))
        })
        .collect();
    let slowest = log
        .iter()
        .filter(|r| !r.timed_out)
        .max_by_key(|r| r.elapsed);
    Verdict::from_problems(
        late,
        format!(
            "{} request(s) answered within {} ms{}",
            log.len(),
            ctx.timeout.as_millis(),
            slowest
                .map(|r| format!(" (slowest: {} in {} ms)", r.method, r.elapsed.as_millis()))
                .unwrap_or_default()
        ),
        "request not answered in time",
    )
}
