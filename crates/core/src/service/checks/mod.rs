//! `evaldeck check`: protocol conformance of one MCP server, each rule a check with a
//! stable id ([`catalog`]) and a result of passed, failed, not applicable or could not run,
//! with its evidence.
//!
//! The checks reuse the MCP client: one probe session ([`McpPool::probe`]) sends raw
//! JSON-RPC requests and records every message; version negotiation opens connections of
//! its own with made-up revisions; the revision matrix is the doctor's. Only the
//! transports' own rules (what a stdio server writes on stdout, how a streamable HTTP
//! endpoint answers) are checked on the wire directly, in [`transport`].
//!
//! A run: open the probe, list everything (every page), call the read-only tools with
//! arguments made from their schemas ([`args`]), run each selected check, and finally
//! those that judge the whole session (progress, timeouts, capabilities used). The report
//! carries what the server listed (a snapshot) and the scan of it and of the calls'
//! results ([`crate::service::scan`]).

mod args;
pub mod catalog;
mod lifecycle;
mod listings;
mod protocol;
mod resources;
mod schemas;
mod tools;
mod transport;

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::mcp::{McpPool, Probe, ProbeEra, RawAnswer, Target};
use crate::spec::conformance::{
    CheckReport, CheckRequest, CheckResult, CheckSpec, CheckSummary, Evidence, Outcome,
    REPORT_KIND, ToolCallRecord,
};
use crate::spec::primitives::{ExportSnapshot, InitInfo};
use crate::spec::server::Transport;
use listings::Listing;

/// The reserved name the CLI saves an unsaved target under for one command
/// (`adhoc-` and ten hex digits).
fn is_adhoc_name(name: &str) -> bool {
    name.strip_prefix("adhoc-")
        .is_some_and(|h| h.len() == 10 && h.chars().all(|c| c.is_ascii_hexdigit()))
}

/// How many snapshots of a saved server its checks keep (the newest first).
pub const KEPT_SNAPSHOTS: usize = 10;

/// At most this many tool calls per check run.
const MAX_CALLS: usize = 20;

/// What one check concluded.
pub(crate) struct Verdict {
    pub outcome: Outcome,
    pub summary: String,
    pub evidence: Vec<Evidence>,
}

impl Verdict {
    pub fn pass(summary: impl Into<String>) -> Verdict {
        Verdict {
            outcome: Outcome::Passed,
            summary: summary.into(),
            evidence: vec![],
        }
    }
    pub fn fail(summary: impl Into<String>, evidence: Vec<Evidence>) -> Verdict {
        Verdict {
            outcome: Outcome::Failed,
            summary: summary.into(),
            evidence,
        }
    }
    pub fn not_applicable(summary: impl Into<String>) -> Verdict {
        Verdict {
            outcome: Outcome::NotApplicable,
            summary: summary.into(),
            evidence: vec![],
        }
    }
    pub fn could_not_run(summary: impl Into<String>, evidence: Vec<Evidence>) -> Verdict {
        Verdict {
            outcome: Outcome::CouldNotRun,
            summary: summary.into(),
            evidence,
        }
    }
    pub fn with(mut self, e: Evidence) -> Verdict {
        self.evidence.push(e);
        self
    }

    /// Passed when `problems` is empty, else failed with them as the evidence.
    pub fn from_problems(problems: Vec<Evidence>, passed: String, what: &str) -> Verdict {
        if problems.is_empty() {
            Verdict::pass(passed)
        } else {
            let n = problems.len();
            let what = if n == 1 {
                what.to_string()
            } else {
                plural(what)
            };
            Verdict::fail(format!("{n} {what}"), problems)
        }
    }

    /// Passed when `answer` is the JSON-RPC error `code`; a timeout could not run.
    pub fn expect_error(
        answer: &RawAnswer,
        code: i64,
        name: &str,
        request: &str,
        location: &str,
    ) -> Verdict {
        let e = Evidence::new(format!("{request} → {}", describe(answer)))
            .at(location)
            .with(answer.to_json());
        match answer {
            RawAnswer::Error { code: c, .. } if *c == code => {
                Verdict::pass(format!("{request} is refused with {code} ({name})")).with(e)
            }
            RawAnswer::Error { code: c, .. } => Verdict::fail(
                format!("{request} is refused with {c}, not {code} ({name})"),
                vec![e],
            ),
            RawAnswer::Result(_) => Verdict::fail(
                format!("{request} is answered with a result, not the error {code} ({name})"),
                vec![e],
            ),
            RawAnswer::TimedOut(_) | RawAnswer::Failed(_) => {
                Verdict::could_not_run(format!("{request} got no answer"), vec![e])
            }
        }
    }
}

/// `what` in the plural: its head noun (the word before `of`, `with`, … or the last word).
fn plural(what: &str) -> String {
    let words: Vec<&str> = what.split(' ').collect();
    let head = words
        .iter()
        .position(|w| {
            matches!(
                *w,
                "of" | "with" | "without" | "outside" | "against" | "not" | "that"
            )
        })
        .map(|i| i.saturating_sub(1))
        .unwrap_or(words.len() - 1);
    words
        .iter()
        .enumerate()
        .map(|(i, w)| match (i == head, w.strip_suffix('y')) {
            (true, Some(stem)) if !stem.ends_with('e') => format!("{stem}ies"),
            (true, _) => format!("{w}s"),
            _ => w.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// An answer in a few words: `result`, `error -32602 "…"`, `no answer within 500 ms`.
pub(crate) fn describe(a: &RawAnswer) -> String {
    match a {
        RawAnswer::Result(_) => "a result".into(),
        RawAnswer::Error { code, message, .. } => format!("error {code} \"{message}\""),
        RawAnswer::TimedOut(d) => format!("no answer within {} ms", d.as_millis()),
        RawAnswer::Failed(m) => format!("the connection failed: {m}"),
    }
}

/// One tool call the check made.
pub(crate) struct Call {
    pub tool: String,
    pub arguments: Value,
    pub answer: RawAnswer,
    pub output_schema: Option<Value>,
    pub elapsed: Duration,
}

/// Everything a check may look at.
pub(crate) struct Ctx<'a> {
    pub pool: &'a McpPool,
    pub target: &'a Target,
    pub req: &'a CheckRequest,
    pub probe: Probe,
    pub info: InitInfo,
    pub revision: String,
    pub timeout: Duration,
    pub tools: Listing,
    pub prompts: Listing,
    pub resources: Listing,
    pub templates: Listing,
    pub calls: Vec<Call>,
    /// Why no calls were made, when none were.
    pub no_calls: Option<String>,
}

impl Ctx<'_> {
    /// Whether the server declared `capability` (`tools`, `logging`, …).
    pub fn declares(&self, capability: &str) -> bool {
        self.info
            .capabilities
            .get(capability)
            .is_some_and(|v| !v.is_null())
    }

    /// A raw request with the check's timeout.
    pub async fn request(&self, method: &str, params: Value) -> RawAnswer {
        self.probe
            .request_raw(method, Some(params), self.timeout)
            .await
    }
}

/// The transport's kind and what it reaches, for the report.
fn describe_target(t: &Target) -> (String, String) {
    match &t.config.transport {
        Transport::Stdio { command, args, .. } => {
            let mut line = vec![command.clone()];
            line.extend(args.iter().cloned());
            ("stdio".into(), line.join(" "))
        }
        Transport::Http { url, .. } => ("http".into(), url.clone()),
        Transport::Sse { url, .. } => ("sse".into(), url.clone()),
    }
}

fn result(spec: &CheckSpec, v: Verdict, took: Duration) -> CheckResult {
    CheckResult {
        id: spec.id.into(),
        area: spec.area().into(),
        title: spec.title.into(),
        revisions: spec.revisions.iter().map(|r| r.to_string()).collect(),
        outcome: v.outcome,
        summary: v.summary,
        evidence: v.evidence,
        baselined: false,
        duration_ms: took.as_millis() as u64,
    }
}

/// Checks that judge the whole session, run after every other.
const OBSERVERS: &[&str] = &[
    "progress.notifications",
    "timeouts.answered-in-time",
    "capabilities.undeclared-unused",
];

/// Runs the selected checks against `target` (saved as `server`).
pub async fn run(pool: &McpPool, target: &Target, server: &str, req: &CheckRequest) -> CheckReport {
    let started = Instant::now();
    let (transport, line) = describe_target(target);
    let specs: Vec<&CheckSpec> = catalog::CHECKS
        .iter()
        .filter(|c| catalog::selected(c.id, &req.only))
        .collect();
    let timeout = Duration::from_millis(req.request_timeout_ms.max(1));
    let mut report = CheckReport {
        kind: REPORT_KIND.into(),
        server: server.into(),
        transport,
        target: line,
        revision: None,
        server_info: None,
        generated_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        duration_ms: 0,
        summary: CheckSummary::default(),
        results: vec![],
        findings: vec![],
        calls: vec![],
        snapshot: None,
        drift: None,
    };
    let probe = match pool.probe(target, ProbeEra::Auto).await {
        Ok(p) => p,
        Err(f) => {
            let e = Evidence::new(&f.error.message).with(json!(f.error));
            report.results = specs
                .iter()
                .map(|s| {
                    let v = match (s.id, f.at_handshake) {
                        ("lifecycle.connect", true) => Verdict::fail(
                            format!(
                                "the server did not complete the handshake: {}",
                                f.error.message
                            ),
                            vec![e.clone()],
                        ),
                        _ => Verdict::could_not_run(
                            format!("no session: {}", f.error.message),
                            vec![e.clone()],
                        ),
                    };
                    result(s, v, Duration::ZERO)
                })
                .collect();
            report.apply_baseline(None);
            report.duration_ms = started.elapsed().as_millis() as u64;
            return report;
        }
    };
    let info = probe.init_info();
    let revision = probe.revision();
    report.revision = Some(revision.clone());
    report.server_info = info.server_info.clone();
    let mut ctx = Ctx {
        pool,
        target,
        req,
        info,
        revision,
        timeout,
        tools: Listing::default(),
        prompts: Listing::default(),
        resources: Listing::default(),
        templates: Listing::default(),
        calls: vec![],
        no_calls: None,
        probe,
    };
    listings::gather(&mut ctx).await;
    make_calls(&mut ctx).await;

    let mut done: Vec<(usize, CheckResult)> = vec![];
    let (observers, first): (Vec<_>, Vec<_>) = specs
        .iter()
        .enumerate()
        .partition(|(_, s)| OBSERVERS.contains(&s.id));
    for (i, spec) in first.into_iter().chain(observers) {
        let t = Instant::now();
        let v = if !spec.revisions.contains(&ctx.revision.as_str()) {
            Verdict::not_applicable(format!(
                "applies to {}; the session speaks {}",
                spec.revisions.join(", "),
                ctx.revision
            ))
        } else {
            check(&ctx, spec.id).await
        };
        done.push((i, result(spec, v, t.elapsed())));
    }
    done.sort_by_key(|(i, _)| *i);
    report.results = done.into_iter().map(|(_, r)| r).collect();

    let snapshot = snapshot(&ctx, server);
    report.calls = ctx
        .calls
        .iter()
        .map(|c| ToolCallRecord {
            tool: c.tool.clone(),
            arguments: c.arguments.clone(),
            result: c.answer.to_json(),
            duration_ms: c.elapsed.as_millis() as u64,
        })
        .collect();
    report.findings = super::scan::scan(&snapshot, &report.calls, &req.others);
    report.snapshot = Some(snapshot);
    ctx.probe.close().await;
    report.apply_baseline(None);
    report.duration_ms = started.elapsed().as_millis() as u64;
    report
}

/// One check, by id.
async fn check(ctx: &Ctx<'_>, id: &str) -> Verdict {
    match id {
        "lifecycle.connect" => lifecycle::connect(ctx),
        "lifecycle.server-info" => lifecycle::server_info(ctx),
        "lifecycle.version-negotiation" => lifecycle::version_negotiation(ctx).await,
        "lifecycle.current-revision" => lifecycle::current_revision(ctx).await,
        "capabilities.declared-answer" => protocol::declared_answer(ctx).await,
        "capabilities.undeclared-unused" => protocol::undeclared_unused(ctx),
        "pagination.tools" => listings::verdict(&ctx.tools),
        "pagination.prompts" => listings::verdict(&ctx.prompts),
        "pagination.resources" => listings::verdict(&ctx.resources),
        "pagination.resource-templates" => listings::verdict(&ctx.templates),
        "pagination.invalid-cursor" => listings::invalid_cursor(ctx).await,
        "errors.unknown-method" => protocol::unknown_method(ctx).await,
        "errors.invalid-params" => protocol::invalid_params(ctx).await,
        "errors.unknown-tool" => protocol::unknown_tool(ctx).await,
        "ping.answers" => protocol::ping(ctx).await,
        "cancellation.in-flight" => protocol::cancel_in_flight(ctx).await,
        "cancellation.unknown-request" => protocol::cancel_unknown(ctx).await,
        "progress.notifications" => protocol::progress(ctx),
        "timeouts.answered-in-time" => protocol::timeouts(ctx),
        "schema.input-valid" => schemas::input_valid(ctx),
        "schema.output-valid" => schemas::output_valid(ctx),
        "schema.dialect" => schemas::dialect(ctx),
        "tools.name-length" => tools::name_length(ctx),
        "tools.name-charset" => tools::name_charset(ctx),
        "tools.name-unique" => tools::name_unique(ctx),
        "tools.annotations" => tools::annotations(ctx),
        "tools.structured-content" => tools::structured_content(ctx),
        "tools.result-shape" => tools::result_shape(ctx),
        "resources.uri" => resources::uri(ctx),
        "resources.templates" => resources::templates(ctx),
        "resources.read" => resources::read(ctx).await,
        "resources.not-found" => resources::not_found(ctx).await,
        "prompts.arguments" => resources::prompt_arguments(ctx),
        "prompts.get" => resources::prompt_get(ctx).await,
        "prompts.missing-argument" => resources::prompt_missing_argument(ctx).await,
        "transport.stdio-stdout" => transport::stdio_stdout(ctx).await,
        "transport.http-accept" => transport::http_accept(ctx).await,
        "transport.http-status-codes" => transport::http_status_codes(ctx).await,
        "transport.http-session" => transport::http_session(ctx).await,
        "transport.http-sse-resumption" => transport::http_sse_resumption(ctx).await,
        "transport.http-protocol-header" => transport::http_protocol_header(ctx).await,
        "pins.unchanged" => tools::pins(ctx),
        other => Verdict::could_not_run(format!("no such check `{other}`"), vec![]),
    }
}

/// Calls the read-only tools, in listing order, with arguments made from their schemas.
async fn make_calls(ctx: &mut Ctx<'_>) {
    if !ctx.req.calls {
        ctx.no_calls = Some("tool calls are off (--no-calls)".into());
        return;
    }
    let candidates: Vec<(String, Value, Option<Value>)> = ctx
        .tools
        .items
        .iter()
        .filter(|t| t["annotations"]["readOnlyHint"] == Value::Bool(true))
        .filter_map(|t| {
            let name = t["name"].as_str()?.to_string();
            let args = args::arguments(t.get("inputSchema")?)?;
            Some((name, args, t.get("outputSchema").cloned()))
        })
        .take(MAX_CALLS)
        .collect();
    if candidates.is_empty() {
        ctx.no_calls = Some(
            "no read-only tool (readOnlyHint: true) whose arguments could be made from its schema"
                .into(),
        );
        return;
    }
    for (tool, arguments, output_schema) in candidates {
        let t = Instant::now();
        let answer = ctx
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        ctx.calls.push(Call {
            tool,
            arguments,
            answer,
            output_schema,
            elapsed: t.elapsed(),
        });
    }
}

/// What the server listed during the check, as an `export` snapshot.
fn snapshot(ctx: &Ctx<'_>, server: &str) -> ExportSnapshot {
    fn items<T: serde::de::DeserializeOwned>(l: &Listing) -> Vec<T> {
        l.items
            .iter()
            .filter_map(|v| serde_json::from_value(v.clone()).ok())
            .collect()
    }
    ExportSnapshot {
        server_id: server.into(),
        exported_at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        tools: items(&ctx.tools),
        resources: items(&ctx.resources),
        prompts: items(&ctx.prompts),
        resource_templates: items(&ctx.templates),
        init_info: Some(ctx.info.clone()),
    }
}

impl crate::service::Service {
    /// `evaldeck check` against a saved server (an unsaved target is saved for the length
    /// of the command first): the same access, stdio policy and token handling as every
    /// other connection to it.
    pub async fn check(
        &self,
        who: &crate::service::Principal,
        project_id: &str,
        server: &str,
        req: &CheckRequest,
    ) -> crate::spec::Result<CheckReport> {
        let s = self.saved_server(who, project_id, server)?;
        let name = s.name.clone();
        // The project's other servers, as their last checks saw them, for the scan's
        // shadowing rule.
        let mut req = req.clone();
        req.others.extend(self.other_snapshots(project_id, &s.id));
        let req = &req;
        let mut report = self
            .on_saved(&s, |t| {
                let name = name.clone();
                async move { Ok(run(self.mcp(), &t, &name, req).await) }
            })
            .await?;
        // A saved server keeps the snapshot of its last check, for the drift of the next
        // one (an unsaved target is gone after the command).
        if let Some(now) = &report.snapshot
            && !is_adhoc_name(&s.name)
        {
            if let Some(last) = self.last_snapshot_of(&s.id) {
                report.drift = Some(crate::service::drift::diff(
                    &last,
                    now,
                    &format!("the check of {}", last.exported_at),
                    "now",
                ));
            }
            if let Err(e) = self.keep_snapshot(&s.id, now) {
                tracing::warn!(server = %s.id, "cannot keep the check's snapshot: {e}");
            }
        }
        Ok(report)
    }

    /// The kept snapshots of the project's servers other than `except`, named after them.
    fn other_snapshots(
        &self,
        project_id: &str,
        except: &str,
    ) -> Vec<crate::spec::primitives::ExportSnapshot> {
        let mut out = vec![];
        let mut page = crate::spec::page::PageRequest {
            cursor: None,
            limit: Some(100),
        };
        for _ in 0..100 {
            let Ok(p) = self.store().servers(project_id, &page) else {
                break;
            };
            for srv in p.items.iter().filter(|srv| srv.id != except) {
                if let Some(mut snap) = self.last_snapshot_of(&srv.id) {
                    snap.server_id = srv.name.clone();
                    out.push(snap);
                }
            }
            match p.next_cursor {
                Some(c) => page.cursor = Some(c),
                None => break,
            }
        }
        out
    }

    /// Where the snapshots the checks of a saved server kept are: beside the store,
    /// `SERVER_ID.json` the newest and `SERVER_ID.N.json` the one N checks before it.
    fn snapshot_path(&self, server_id: &str, back: usize) -> std::path::PathBuf {
        let db = self.store().path();
        let mut dir = db.as_os_str().to_owned();
        dir.push(".snapshots");
        let file = match back {
            0 => format!("{server_id}.json"),
            n => format!("{server_id}.{n}.json"),
        };
        std::path::PathBuf::from(dir).join(file)
    }

    fn last_snapshot_of(&self, server_id: &str) -> Option<crate::spec::primitives::ExportSnapshot> {
        self.snapshot_at(server_id, 0)
    }

    fn snapshot_at(
        &self,
        server_id: &str,
        back: usize,
    ) -> Option<crate::spec::primitives::ExportSnapshot> {
        let text = std::fs::read_to_string(self.snapshot_path(server_id, back)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Keeps `s` as the newest snapshot of the server; the earlier ones move one back and
    /// the oldest beyond [`KEPT_SNAPSHOTS`] is dropped.
    fn keep_snapshot(
        &self,
        server_id: &str,
        s: &crate::spec::primitives::ExportSnapshot,
    ) -> std::io::Result<()> {
        let path = self.snapshot_path(server_id, 0);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        for back in (0..KEPT_SNAPSHOTS - 1).rev() {
            let from = self.snapshot_path(server_id, back);
            if from.exists() {
                std::fs::rename(from, self.snapshot_path(server_id, back + 1))?;
            }
        }
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, serde_json::to_vec_pretty(s).unwrap_or_default())?;
        std::fs::rename(tmp, path)
    }

    /// Removes what the checks of a deleted server kept.
    pub(crate) fn forget_snapshots(&self, server_id: &str) {
        for back in 0..KEPT_SNAPSHOTS {
            let _ = std::fs::remove_file(self.snapshot_path(server_id, back));
        }
    }

    /// The snapshots the checks of a saved server kept, newest first (at most
    /// [`KEPT_SNAPSHOTS`]); empty before its first check.
    pub fn kept_snapshots(
        &self,
        who: &crate::service::Principal,
        project_id: &str,
        server: &str,
    ) -> crate::spec::Result<Vec<crate::spec::primitives::ExportSnapshot>> {
        let s = self.saved_server(who, project_id, server)?;
        Ok((0..KEPT_SNAPSHOTS)
            .map_while(|back| self.snapshot_at(&s.id, back))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_check_in_the_catalog_is_implemented() {
        // `check` answers an unknown id with "no such check"; the catalog has none.
        let src = include_str!("mod.rs");
        for spec in catalog::CHECKS {
            assert!(
                src.contains(&format!("\"{}\" =>", spec.id)),
                "`{}` has no implementation",
                spec.id
            );
        }
    }

    #[test]
    fn plurals() {
        assert_eq!(
            plural("use of an undeclared capability"),
            "uses of an undeclared capability"
        );
        assert_eq!(
            plural("tool name with a character outside the allowed set"),
            "tool names with a character outside the allowed set"
        );
        assert_eq!(plural("pagination fault"), "pagination faults");
        assert_eq!(plural("malformed template"), "malformed templates");
        assert_eq!(
            plural("request not answered in time"),
            "requests not answered in time"
        );
        assert_eq!(
            plural("declared capability without an answer"),
            "declared capabilities without an answer"
        );
    }

    #[test]
    fn ids_are_unique_and_well_formed() {
        let mut seen = std::collections::HashSet::new();
        let shape = regex::Regex::new(r"^[a-z]+\.[a-z0-9-]+$").unwrap();
        for spec in catalog::CHECKS {
            assert!(seen.insert(spec.id), "`{}` twice", spec.id);
            assert!(shape.is_match(spec.id), "`{}`", spec.id);
            assert!(!spec.revisions.is_empty(), "`{}` applies nowhere", spec.id);
        }
    }
}
