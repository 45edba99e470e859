//! `check`, `diff`, `pin`, `scan` and `report`: conformance, drift, pinning and the
//! security scan of one MCP server, and their reports.
//!
//! `check` runs where the MCP connection is made (the embedded core, for saved servers and
//! unsaved targets); over a remote backend it says so and stops. `diff` and `scan` work on
//! snapshot files and need no server; `pin` and a `server:NAME` side of `diff` use
//! `export`, which works over either backend; a `last:NAME[~N]` side reads what the
//! checks of a saved server kept, which only the embedded backend has.

use std::path::{Path, PathBuf};

use clap::{Args, ValueEnum};
use serde_json::Value;

use super::output::Out;
use super::reports;
use super::sarif;
use super::target_server::{self, AdHoc};
use super::{Failure, Outcome, Target, project_id};
use crate::client::Backend;
use crate::local::checks::catalog;
use crate::spec::conformance::{Baseline, CheckReport, CheckRequest, REPORT_KIND};
use crate::spec::drift::{DRIFT_KIND, DriftReport, PinFile};
use crate::spec::primitives::ExportSnapshot;
use crate::spec::scan::{Finding, Severity};
use crate::spec::{Error, Result};

/// How a report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Table,
    Json,
    Markdown,
    Html,
    Junit,
    Sarif,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// A saved server (name or id); or give an unsaved target (--url URL, -- COMMAND…).
    pub server: Option<String>,
    /// Only these checks: ids, areas (`pagination`) or prefixes (`tools.name-*`);
    /// repeatable or comma-separated.
    #[arg(long, value_delimiter = ',')]
    pub only: Vec<String>,
    /// Expected failures: checks listed in this file do not fail the run.
    #[arg(long, value_name = "FILE")]
    pub baseline: Option<PathBuf>,
    /// Write every failure of this run to FILE as a baseline, and exit 0.
    #[arg(long, value_name = "FILE")]
    pub write_baseline: Option<PathBuf>,
    /// A lock file from `evaldeck pin`: `pins.unchanged` fails when a pinned tool changed.
    #[arg(long, value_name = "FILE")]
    pub pins: Option<PathBuf>,
    /// Snapshots of the other servers a client connects (files from `export`), for the
    /// scan's shadowing rule (repeatable).
    #[arg(long = "with", value_name = "SNAPSHOT")]
    pub others: Vec<PathBuf>,
    /// Make no tool calls (by default the read-only tools are called with arguments made
    /// from their schemas, to check and scan their results).
    #[arg(long)]
    pub no_calls: bool,
    /// How long one request may take, in milliseconds.
    #[arg(long, default_value_t = 10_000)]
    pub timeout_ms: u64,
    /// The report's format [default: table; --json means json]. SARIF results point at the
    /// lock file (a pin failure), the baseline (a baselined failure) or
    /// `.evaldeck/SERVER.json`, relative to %SRCROOT% (see the README).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write the report to FILE (the table still goes to stdout).
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also append the Markdown report to $GITHUB_STEP_SUMMARY, when it is set.
    #[arg(long)]
    pub github: bool,
    /// Print the catalog of checks (id, revisions, title) and exit.
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub adhoc: AdHoc,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The old snapshot: a file from `export` or `check --json`, `server:NAME` (the saved
    /// server now), `last:NAME` (what its last `check` saw) or `last:NAME~N` (what the
    /// check N before that saw: `last:NAME~1` is the previous one; the checks of a saved
    /// server keep its last 10 snapshots; local store only).
    pub old: String,
    /// The new one (the same kinds); omit it with an unsaved target (-- COMMAND, --url),
    /// or after `last:NAME[~N]` for the saved server now.
    pub new: Option<String>,
    /// table, json or markdown.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Also append the Markdown to $GITHUB_STEP_SUMMARY, when it is set.
    #[arg(long)]
    pub github: bool,
    #[command(flatten)]
    pub adhoc: AdHoc,
}

#[derive(Debug, Args)]
pub struct PinArgs {
    /// A saved server; or give an unsaved target (--url URL, -- COMMAND…).
    pub server: Option<String>,
    /// The lock file to write.
    #[arg(
        long,
        short = 'o',
        value_name = "FILE",
        default_value = "evaldeck.pins.json"
    )]
    pub output: PathBuf,
    #[command(flatten)]
    pub adhoc: AdHoc,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Snapshots to scan: files from `export` or `check --json`, `server:NAME` (now), or
    /// `last:NAME[~N]` (what a check of it kept).
    /// Tools of one named like tools of another are reported as shadowing.
    #[arg(required = true)]
    pub snapshots: Vec<String>,
    /// table, json, markdown or sarif (each finding located at its item's line in the file
    /// scanned; `server:NAME` at `.evaldeck/NAME.json`).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ReportArgs {
    /// An eval run (id), or a report file saved with `check --json` (or `--format json -o
    /// FILE`) or `diff --json`.
    #[arg(value_name = "RUN|FILE")]
    pub source: String,
    /// With a run: compare it with this earlier run (regressed, fixed, added, removed).
    #[arg(long, value_name = "RUN")]
    pub base: Option<String>,
    /// markdown (default), html, junit, sarif (check reports), table or json.
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Append the Markdown report to $GITHUB_STEP_SUMMARY, when it is set.
    #[arg(long)]
    pub github: bool,
}

fn read_json(path: &Path, what: &str) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::invalid(
            "/file",
            "read",
            format!("cannot read the {what} {}: {e}", path.display()),
        )
    })?;
    serde_json::from_str(&text).map_err(|e| {
        Error::invalid(
            "/file",
            "json",
            format!("the {what} {} is not JSON: {e}", path.display()),
        )
    })
}

fn typed<T: serde::de::DeserializeOwned>(v: Value, path: &Path, what: &str) -> Result<T> {
    serde_json::from_value(v).map_err(|e| {
        Error::invalid(
            "/file",
            "format",
            format!("{} is not a {what}: {e}", path.display()),
        )
    })
}

fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| {
        Error::invalid(
            "/output",
            "write",
            format!("cannot write {}: {e}", path.display()),
        )
    })
}

/// Appends `markdown` to `$GITHUB_STEP_SUMMARY` when it is set; says where it went.
fn github_summary(markdown: &str) -> Result<()> {
    let Some(path) = std::env::var_os("GITHUB_STEP_SUMMARY").filter(|p| !p.is_empty()) else {
        eprintln!("evaldeck: --github: GITHUB_STEP_SUMMARY is not set; nothing written");
        return Ok(());
    };
    use std::io::Write as _;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .map_err(|e| {
            Error::invalid(
                "/github",
                "write",
                format!("cannot write GITHUB_STEP_SUMMARY: {e}"),
            )
        })?;
    writeln!(f, "{markdown}").map_err(|e| {
        Error::invalid(
            "/github",
            "write",
            format!("cannot write GITHUB_STEP_SUMMARY: {e}"),
        )
    })
}

/// Prints `text` or writes it to `output` (then the terminal gets `table`).
fn emit(text: &str, output: Option<&Path>, table: Option<&str>) -> Result<()> {
    match output {
        Some(p) => {
            write_file(p, text)?;
            if let Some(t) = table {
                print!("{t}");
            }
            eprintln!("evaldeck: wrote {}", p.display());
        }
        None => print!("{text}"),
    }
    Ok(())
}

fn pretty(v: &impl serde::Serialize) -> String {
    let mut s = serde_json::to_string_pretty(v).expect("reports serialize");
    s.push('\n');
    s
}

/// A check report in `format` (SARIF points into `files`).
pub fn render_check(r: &CheckReport, format: Format, files: &sarif::CheckFiles) -> String {
    match format {
        Format::Table => reports::check_table(r),
        Format::Json => pretty(r),
        Format::Markdown => reports::check_markdown(r),
        Format::Html => reports::check_html(r),
        Format::Junit => reports::check_junit(r),
        Format::Sarif => pretty(&sarif::check_sarif(r, files)),
    }
}

fn list_checks(out: &Out) -> Outcome {
    if out.json {
        let items: Vec<Value> = catalog::CHECKS
            .iter()
            .map(|c| {
                serde_json::json!({"id": c.id, "area": c.area(), "title": c.title,
                "revisions": c.revisions, "reference": c.reference})
            })
            .collect();
        out.value(&items)?;
        return Ok(());
    }
    let rows: Vec<Vec<String>> = catalog::CHECKS
        .iter()
        .map(|c| {
            let revs = if c.revisions.len() == crate::spec::primitives::REVISIONS.len() {
                "all".to_string()
            } else {
                c.revisions.join(",")
            };
            vec![c.id.to_string(), revs, c.title.to_string()]
        })
        .collect();
    print!(
        "{}",
        reports::table(&["check", "revisions", "title"], &rows)
    );
    Ok(())
}

pub(super) async fn check(target: &Target, b: &dyn Backend, a: CheckArgs, out: &Out) -> Outcome {
    if a.list {
        return list_checks(out);
    }
    if let Some(url) = &target.base_url {
        return Err(Error::invalid(
            "/backend",
            "embedded",
            format!(
                "`check` runs only where the MCP connection is made, and the backend is the remote {url} (`/api/v1` has no conformance suites): run it without --base-url, against a saved server of the local store or an unsaved target (-- COMMAND, --url URL)"
            ),
        )
        .into());
    }
    for p in &a.only {
        let known = catalog::CHECKS
            .iter()
            .any(|c| catalog::selected(c.id, std::slice::from_ref(p)));
        if !known {
            return Err(Error::invalid(
                "/only",
                "enum",
                format!("`{p}` selects no check (see `evaldeck check --list`)"),
            )
            .into());
        }
    }
    let baseline: Option<Baseline> = match &a.baseline {
        Some(p) => Some(typed(read_json(p, "baseline")?, p, "baseline file")?),
        None => None,
    };
    let pins: Option<PinFile> = match &a.pins {
        Some(p) => Some(typed(read_json(p, "pin file")?, p, "pin file")?),
        None => None,
    };
    let mut others = vec![];
    for p in &a.others {
        others.push(snapshot_of(read_json(p, "snapshot")?, p)?);
    }
    let req = CheckRequest {
        only: a.only.clone(),
        calls: !a.no_calls,
        request_timeout_ms: a.timeout_ms,
        pins,
        others,
    };
    let p = project_id(b, target.project.as_deref()).await?;
    let resolved = target_server::resolve(b, &p, a.server.as_deref(), &a.adhoc).await?;
    let report = b.check(&p, &resolved.server, &req).await;
    resolved.finish(b, &p).await;
    let mut report = report?;
    report.apply_baseline(baseline.as_ref());
    if let Some(path) = &a.write_baseline {
        let mut base = Baseline::of(&report);
        // A baseline keeps the reasons of the one it replaces.
        if let Some(old) = &baseline {
            for e in &mut base.expected_failures {
                if let Some(o) = old.expected_failures.iter().find(|o| o.id == e.id) {
                    e.reason = o.reason.clone().or(e.reason.take());
                }
            }
        }
        write_file(path, &pretty(&base))?;
        if out.json {
            out.value(&base)?;
        }
        eprintln!(
            "evaldeck: wrote {} ({} expected failure(s))",
            path.display(),
            base.expected_failures.len()
        );
        return Ok(());
    }
    let format = if target.json {
        Format::Json
    } else {
        a.format.unwrap_or(Format::Table)
    };
    // With -o the terminal still gets the table (or the JSON, under --json).
    let table = a.output.is_some().then(|| {
        if target.json {
            pretty(&report)
        } else {
            reports::check_table(&report)
        }
    });
    let files = sarif::CheckFiles {
        report: None,
        pins: a
            .pins
            .as_ref()
            .map(|p| sarif::Artifact::read(p.display().to_string())),
        baseline: a
            .baseline
            .as_ref()
            .map(|p| sarif::Artifact::read(p.display().to_string())),
    };
    emit(
        &render_check(&report, format, &files),
        a.output.as_deref(),
        table.as_deref(),
    )?;
    if a.github {
        github_summary(&reports::check_markdown(&report))?;
    }
    match report.exit_code() {
        0 => Ok(()),
        code => Err(Failure::Exit(code)),
    }
}

/// A snapshot from JSON: an `export` snapshot, or the one a check report carries.
fn snapshot_of(v: Value, path: &Path) -> Result<ExportSnapshot> {
    if v["kind"] == REPORT_KIND {
        let r: CheckReport = typed(v, path, "check report")?;
        return r.snapshot.ok_or_else(|| {
            Error::invalid(
                "/file",
                "format",
                format!("the check report {} holds no snapshot", path.display()),
            )
        });
    }
    typed(v, path, "snapshot (a file from `evaldeck export`)")
}

/// `last:NAME` or `last:NAME~N`: a snapshot the checks of a saved server kept — the
/// newest, or the one N checks before it. A name that itself ends in `~DIGITS` is written
/// with `~0` after it.
fn kept_ref(spec: &str) -> Result<Option<(&str, usize)>> {
    let Some(rest) = spec.strip_prefix("last:") else {
        return Ok(None);
    };
    let bad = |why: &str| {
        Error::invalid(
            "/snapshot",
            "format",
            format!(
                "`{spec}`: {why} (write `last:NAME` for the newest snapshot a check of NAME kept, `last:NAME~1` for the one before it, `last:NAME~N` for N checks back)"
            ),
        )
    };
    let (name, back) = match rest.rsplit_once('~') {
        Some((name, "")) => {
            return Err(bad(&format!("`~` after `{name}` needs a number")));
        }
        Some((name, n)) if n.bytes().all(|c| c.is_ascii_digit()) => {
            let back = n
                .parse::<usize>()
                .map_err(|_| bad(&format!("`{n}` is not a number of checks")))?;
            (name, back)
        }
        _ => (rest, 0),
    };
    if name.is_empty() {
        return Err(bad("it names no server"));
    }
    Ok(Some((name, back)))
}

/// One side of a diff or scan: a file, `server:NAME` exported now, or a snapshot a check
/// kept (`last:NAME[~N]`). Its label says which.
async fn side(
    b: &dyn Backend,
    project: &str,
    spec: &str,
) -> Result<(
    ExportSnapshot,
    Vec<crate::spec::conformance::ToolCallRecord>,
    String,
)> {
    if let Some(name) = spec.strip_prefix("server:") {
        return Ok((b.export(project, name).await?, vec![], spec.to_string()));
    }
    if let Some((name, back)) = kept_ref(spec)? {
        let kept = b.kept_snapshots(project, name).await?;
        if kept.is_empty() {
            return Err(Error::invalid(
                "/snapshot",
                "exists",
                format!(
                    "no check of `{name}` has kept a snapshot yet: run `evaldeck check {name}` (each check of a saved server keeps what it listed)"
                ),
            ));
        }
        let count = kept.len();
        let listed: Vec<String> = kept
            .iter()
            .enumerate()
            .map(|(i, s)| match i {
                0 => format!("last:{name} ({})", s.exported_at),
                i => format!("last:{name}~{i} ({})", s.exported_at),
            })
            .collect();
        return match kept.into_iter().nth(back) {
            Some(s) => {
                let label = format!("{spec} (the check of {})", s.exported_at);
                Ok((s, vec![], label))
            }
            None => Err(Error::invalid(
                "/snapshot",
                "range",
                format!(
                    "`{spec}` is {back} check(s) before the newest, and the checks of `{name}` kept {count} snapshot(s): {}",
                    listed.join(", ")
                ),
            )),
        };
    }
    let path = Path::new(spec);
    if !path.exists() {
        return Err(Error::invalid(
            "/snapshot",
            "exists",
            format!(
                "no such file `{spec}` (write `server:NAME` for a saved server as it is now, `last:NAME` for what its last check saw, `last:NAME~N` for N checks before that)"
            ),
        ));
    }
    let v = read_json(path, "snapshot")?;
    let calls = if v["kind"] == REPORT_KIND {
        typed::<CheckReport>(v.clone(), path, "check report")?.calls
    } else {
        vec![]
    };
    Ok((snapshot_of(v, path)?, calls, spec.to_string()))
}

pub(super) async fn diff(target: &Target, b: &dyn Backend, a: DiffArgs, out: &Out) -> Outcome {
    let named = |s: &str| s.starts_with("server:") || s.starts_with("last:");
    let needs_backend = named(&a.old) || a.new.as_deref().is_none_or(named);
    let p = if needs_backend {
        project_id(b, target.project.as_deref()).await?
    } else {
        String::new()
    };
    let (old, _, old_label) = side(b, &p, &a.old).await?;
    // `diff last:NAME[~N]`: the saved server now against a check of it.
    let implied = match (&a.new, a.adhoc.given(), kept_ref(&a.old)?) {
        (None, false, Some((name, _))) => Some(format!("server:{name}")),
        _ => None,
    };
    let (new, new_label) = match (a.new.as_ref().or(implied.as_ref()), a.adhoc.given()) {
        (Some(_), true) => {
            return Err(Error::invalid(
                "/new",
                "oneOf",
                "give NEW or an unsaved target (-- COMMAND, --url), not both",
            )
            .into());
        }
        (Some(n), false) => {
            let (s, _, label) = side(b, &p, n).await?;
            (s, label)
        }
        (None, true) => {
            let r = target_server::resolve(b, &p, None, &a.adhoc).await?;
            let s = b.export(&p, &r.server).await;
            r.finish(b, &p).await;
            let label = match (&a.adhoc.url, a.adhoc.command.first()) {
                (Some(u), _) => u.clone(),
                (None, _) => a.adhoc.command.join(" "),
            };
            (s?, label)
        }
        (None, false) => {
            return Err(Error::invalid(
                "/new",
                "required",
                "give NEW (a file or server:NAME) or an unsaved target (-- COMMAND, --url URL)",
            )
            .into());
        }
    };
    let report = crate::local::checks::drift(&old, &new, &old_label, &new_label);
    let format = if out.json {
        Format::Json
    } else {
        a.format.unwrap_or(Format::Table)
    };
    let text = match format {
        Format::Json => pretty(&report),
        Format::Markdown => reports::drift_markdown(&report),
        Format::Table => reports::drift_table(&report),
        other => {
            return Err(Error::invalid(
                "/format",
                "enum",
                format!("diff writes table, json or markdown, not {other:?}"),
            )
            .into());
        }
    };
    let table = (a.output.is_some() && !out.json).then(|| reports::drift_table(&report));
    emit(&text, a.output.as_deref(), table.as_deref())?;
    if a.github {
        github_summary(&reports::drift_markdown(&report))?;
    }
    if report.summary.breaking > 0 {
        return Err(Failure::Exit(1));
    }
    Ok(())
}

pub(super) async fn pin(target: &Target, b: &dyn Backend, a: PinArgs, out: &Out) -> Outcome {
    let p = project_id(b, target.project.as_deref()).await?;
    let r = target_server::resolve(b, &p, a.server.as_deref(), &a.adhoc).await?;
    let snapshot = b.export(&p, &r.server).await;
    let name = match (&a.server, b.server(&p, &r.server).await) {
        (Some(n), _) => n.clone(),
        (None, Ok(s)) => s.name,
        (None, Err(_)) => r.server.clone(),
    };
    r.finish(b, &p).await;
    let pins = crate::local::checks::pin_file(&name, &snapshot?);
    write_file(&a.output, &pretty(&pins))?;
    if out.json {
        out.value(&pins)?;
    } else {
        println!(
            "pinned {} tool(s) of {name} in {} (check with `evaldeck check {name} --pins {}`)",
            pins.tools.len(),
            a.output.display(),
            a.output.display()
        );
    }
    Ok(())
}

pub(super) async fn scan(target: &Target, b: &dyn Backend, a: ScanArgs, out: &Out) -> Outcome {
    let p = if a
        .snapshots
        .iter()
        .any(|s| s.starts_with("server:") || s.starts_with("last:"))
    {
        project_id(b, target.project.as_deref()).await?
    } else {
        String::new()
    };
    let mut sides = vec![];
    for s in &a.snapshots {
        sides.push(side(b, &p, s).await?);
    }
    let all: Vec<ExportSnapshot> = sides.iter().map(|(s, _, _)| s.clone()).collect();
    // Each finding with the snapshot it was found in, for SARIF's locations.
    let mut located: Vec<(usize, Finding)> = vec![];
    for (i, (s, calls, _)) in sides.iter().enumerate() {
        let others: Vec<ExportSnapshot> = all
            .iter()
            .enumerate()
            .filter(|(j, _)| *j != i)
            .map(|(_, o)| o.clone())
            .collect();
        located.extend(
            crate::local::checks::scan(s, calls, &others)
                .into_iter()
                .map(|f| (i, f)),
        );
    }
    let findings: Vec<Finding> = located
        .iter()
        .map(|(i, f)| {
            let mut f = f.clone();
            if sides.len() > 1 {
                f.location = format!("{}/{}", sides[*i].0.server_id, f.location);
            }
            f
        })
        .collect();
    let sources: Vec<sarif::ScanSource> = a
        .snapshots
        .iter()
        .zip(&sides)
        .map(|(spec, (s, _, _))| {
            let named = spec
                .strip_prefix("server:")
                .map(str::to_string)
                .or_else(|| kept_ref(spec).ok().flatten().map(|(n, _)| n.to_string()));
            match named {
                Some(name) => sarif::ScanSource {
                    artifact: sarif::Artifact::for_server(&name),
                    server: name,
                },
                None => sarif::ScanSource {
                    server: s.server_id.clone(),
                    artifact: sarif::Artifact::read(spec.clone()),
                },
            }
        })
        .collect();
    let format = if out.json {
        Format::Json
    } else {
        a.format.unwrap_or(Format::Table)
    };
    let label = a.snapshots.join(" ");
    let text = match format {
        Format::Json => pretty(&findings),
        Format::Sarif => pretty(&sarif::findings_sarif(&label, &located, &sources)),
        Format::Markdown => reports::findings_markdown(&findings),
        Format::Table if findings.is_empty() => "no findings\n".to_string(),
        Format::Table => reports::findings_table(&findings),
        other => {
            return Err(Error::invalid(
                "/format",
                "enum",
                format!("scan writes table, json, markdown or sarif, not {other:?}"),
            )
            .into());
        }
    };
    emit(&text, a.output.as_deref(), None)?;
    if findings.iter().any(|f| f.severity == Severity::Error) {
        return Err(Failure::Exit(1));
    }
    Ok(())
}

/// `report RUN`: an eval run as Markdown, HTML, JUnit or JSON.
async fn run_report(target: &Target, b: &dyn Backend, a: &ReportArgs, out: &Out) -> Outcome {
    use crate::client::collect_all;
    let p = project_id(b, target.project.as_deref()).await?;
    let p = p.as_str();
    let run = b.run(p, &a.source).await?;
    let suite = b.suite(p, &run.suite_id).await?.name;
    let iterations = |id: String| async move {
        collect_all(|pg| {
            let id = id.clone();
            async move { b.iterations(p, &id, &pg).await }
        })
        .await
    };
    let its = iterations(run.id.clone()).await?;
    let cmp = match &a.base {
        Some(base) => {
            let base = b.run(p, base).await?;
            let base_its = iterations(base.id.clone()).await?;
            Some(crate::client::compare::compare(
                &base.id, &base_its, &run.id, &its,
            ))
        }
        None => None,
    };
    let format = if out.json {
        Format::Json
    } else {
        a.format.unwrap_or(Format::Markdown)
    };
    let markdown = reports::run_markdown(&run, &suite, &its, cmp.as_ref());
    let text = match format {
        Format::Markdown => markdown.clone(),
        Format::Html => reports::run_html(&run, &suite, &its, cmp.as_ref()),
        Format::Junit => super::run::junit(&run, &suite, &its),
        Format::Json => {
            pretty(&serde_json::json!({"run": run, "iterations": its, "comparison": cmp}))
        }
        other => {
            return Err(Error::invalid(
                "/format",
                "enum",
                format!("a run is reported as markdown, html, junit or json, not {other:?}"),
            )
            .into());
        }
    };
    emit(&text, a.output.as_deref(), None)?;
    if a.github {
        github_summary(&markdown)?;
    }
    Ok(())
}

pub(super) async fn report(target: &Target, b: &dyn Backend, a: ReportArgs, out: &Out) -> Outcome {
    let file = PathBuf::from(&a.source);
    if !file.exists() {
        return run_report(target, b, &a, out).await;
    }
    let v = read_json(&file, "report")?;
    let format = if out.json {
        Format::Json
    } else {
        a.format.unwrap_or(Format::Markdown)
    };
    let (text, markdown) = if v["kind"] == REPORT_KIND {
        let r: CheckReport = typed(v, &file, "check report")?;
        let files = sarif::CheckFiles {
            report: Some(sarif::Artifact::read(a.source.clone())),
            ..Default::default()
        };
        (
            render_check(&r, format, &files),
            reports::check_markdown(&r),
        )
    } else if v["kind"] == DRIFT_KIND {
        let r: DriftReport = typed(v, &file, "diff report")?;
        let text = match format {
            Format::Json => pretty(&r),
            Format::Table => reports::drift_table(&r),
            Format::Markdown => reports::drift_markdown(&r),
            other => {
                return Err(Error::invalid(
                    "/format",
                    "enum",
                    format!("a diff report is written as table, json or markdown, not {other:?}"),
                )
                .into());
            }
        };
        (text, reports::drift_markdown(&r))
    } else {
        return Err(Error::invalid(
            "/file",
            "kind",
            format!(
                "{} is neither a check report (`check --json`) nor a diff report (`diff --json`)",
                file.display()
            ),
        )
        .into());
    };
    emit(&text, a.output.as_deref(), None)?;
    if a.github {
        github_summary(&markdown)?;
    }
    Ok(())
}
