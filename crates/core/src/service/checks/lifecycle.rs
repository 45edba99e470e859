//! Lifecycle and version negotiation.

use serde_json::json;

use super::{Ctx, Verdict};
use crate::service::mcp::ProbeEra;
use crate::service::mcp::errors::REASON_NO_COMMON_REVISION;
use crate::spec::conformance::Evidence;
use crate::spec::primitives::{CURRENT_REVISIONS, REVISIONS};

/// A revision no server supports, to see how it negotiates.
const UNKNOWN_REVISION: &str = "1999-01-01";

/// `lifecycle.connect`: the probe opened, so the handshake was answered; its answer must
/// hold a revision and a capabilities object.
pub(crate) fn connect(ctx: &Ctx<'_>) -> Verdict {
    let how = if ctx.probe.modern() {
        "server/discover"
    } else {
        "initialize"
    };
    let e = Evidence::new(format!("{how} answered"))
        .at(format!("request:{how}"))
        .with(json!(ctx.info));
    if !ctx.info.capabilities.is_object() {
        return Verdict::fail(
            format!("{how} was answered without a capabilities object"),
            vec![e],
        );
    }
    if !REVISIONS.contains(&ctx.revision.as_str()) {
        return Verdict::fail(
            format!(
                "{how} settled on `{}`, which is no published revision",
                ctx.revision
            ),
            vec![e],
        );
    }
    Verdict::pass(format!(
        "{how} answered: protocol {}, in {} ms",
        ctx.revision,
        ctx.probe.connected_in.as_millis()
    ))
    .with(e)
}

/// `lifecycle.server-info`.
pub(crate) fn server_info(ctx: &Ctx<'_>) -> Verdict {
    let Some(info) = &ctx.info.server_info else {
        return Verdict::fail("no serverInfo", vec![]);
    };
    let text = |k: &str| info[k].as_str().filter(|s| !s.trim().is_empty());
    match (text("name"), text("version")) {
        (Some(n), Some(v)) => Verdict::pass(format!("{n} {v}")),
        _ => Verdict::fail(
            "serverInfo lacks a name or a version",
            vec![Evidence::new("serverInfo").with(info.clone())],
        ),
    }
}

/// `lifecycle.version-negotiation`: a connection of its own offering a made-up revision.
pub(crate) async fn version_negotiation(ctx: &Ctx<'_>) -> Verdict {
    if ctx.probe.modern() {
        let attempt = ctx
            .pool
            .probe(ctx.target, ProbeEra::Discover(UNKNOWN_REVISION.into()))
            .await;
        return match attempt {
            Ok(p) => {
                let got = p.revision();
                p.close().await;
                Verdict::fail(
                    format!(
                        "server/discover naming {UNKNOWN_REVISION} was accepted (settled on {got})"
                    ),
                    vec![],
                )
            }
            Err(f) if f.error.reason() == Some(REASON_NO_COMMON_REVISION) => {
                let named = f
                    .error
                    .details
                    .as_ref()
                    .map(|d| d["serverSupported"].clone())
                    .unwrap_or_default();
                let ok = named
                    .as_array()
                    .is_some_and(|a| !a.is_empty() && a.iter().all(|v| v.is_string()));
                let e = Evidence::new("server/discover naming an unknown revision")
                    .at("request:server/discover")
                    .with(json!(f.error));
                if ok {
                    Verdict::pass(format!(
                        "{UNKNOWN_REVISION} is refused, naming the supported revisions {named}"
                    ))
                    .with(e)
                } else {
                    Verdict::fail("refused without naming the supported revisions", vec![e])
                }
            }
            Err(f) => Verdict::fail(
                format!(
                    "server/discover naming {UNKNOWN_REVISION} failed: {}",
                    f.error.message
                ),
                vec![Evidence::new("the attempt").with(json!(f.error))],
            ),
        };
    }
    match ctx
        .pool
        .probe(ctx.target, ProbeEra::Handshake(UNKNOWN_REVISION.into()))
        .await
    {
        Ok(p) => {
            let got = p.revision();
            p.close().await;
            let e = Evidence::new(format!(
                "initialize offering {UNKNOWN_REVISION} was answered with {got}"
            ))
            .at("request:initialize");
            if got == UNKNOWN_REVISION {
                Verdict::fail(
                    format!("the server echoed {UNKNOWN_REVISION}, a revision it cannot support"),
                    vec![e],
                )
            } else if REVISIONS.contains(&got.as_str()) {
                Verdict::pass(format!(
                    "offered {UNKNOWN_REVISION}, the server answered with {got}"
                ))
                .with(e)
            } else {
                Verdict::fail(
                    format!("the server answered with {got}, which is no published revision"),
                    vec![e],
                )
            }
        }
        Err(f) if f.at_handshake => Verdict::fail(
            format!(
                "initialize offering {UNKNOWN_REVISION} was refused instead of answered with a supported revision: {}",
                f.error.message
            ),
            vec![Evidence::new("the attempt").with(json!(f.error))],
        ),
        Err(f) => Verdict::could_not_run(format!("no connection: {}", f.error.message), vec![]),
    }
}

/// `lifecycle.current-revision`: the doctor's revision matrix.
pub(crate) async fn current_revision(ctx: &Ctx<'_>) -> Verdict {
    let matrix = ctx.pool.revision_matrix(ctx.target).await;
    let accepted: Vec<&str> = matrix
        .iter()
        .filter(|r| r.accepted)
        .map(|r| r.revision.as_str())
        .collect();
    let e = Evidence::new("the revision matrix").with(json!(matrix));
    // The probe's own revision works; a matrix that cannot confirm it could not connect
    // (a slow start under load, say), which says nothing about the server's revisions.
    let confirms = matrix
        .iter()
        .any(|r| r.revision == ctx.revision && r.accepted);
    if !confirms && REVISIONS.contains(&ctx.revision.as_str()) {
        let why = matrix
            .iter()
            .find(|r| r.revision == ctx.revision)
            .map(|r| r.detail.clone())
            .unwrap_or_default();
        return Verdict::could_not_run(
            format!(
                "the revision matrix could not confirm {}, which this session speaks: {why}",
                ctx.revision
            ),
            vec![e],
        );
    }
    if matrix.iter().take(CURRENT_REVISIONS).any(|r| r.accepted) {
        Verdict::pass(format!("accepts {}", accepted.join(", "))).with(e)
    } else {
        Verdict::fail(
            format!(
                "accepts none of {} (accepts {})",
                REVISIONS[..CURRENT_REVISIONS].join(", "),
                if accepted.is_empty() {
                    "none".to_string()
                } else {
                    accepted.join(", ")
                }
            ),
            vec![e],
        )
    }
}
