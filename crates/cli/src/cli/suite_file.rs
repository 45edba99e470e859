//! `evaldeck suite export SUITE [-o FILE]` and `evaldeck suite apply FILE [--dry-run] [--yes]`:
//! suites as YAML files kept in git (the format and the diff live in
//! [`crate::spec::suite_file`]).
//!
//! Export names the suite's servers and environments and refuses, writing nothing, when the
//! file would not hold the suite exactly. Apply validates the file offline first, then
//! resolves names, diffs against the live suite and prints the diff; `--dry-run` stops
//! there; otherwise it asks on a terminal and needs `--yes` without one. Just before
//! writing it reads the suite again and stops with `CONFLICT` if anything changed since the
//! diff (the API has no revisions for suites and cases, so this narrows the window rather
//! than closing it). Writes go through the `Backend` one by one: a failure part way leaves
//! the suite partly applied, and applying the file again finishes the job.

use std::io::{BufRead, IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::{Value, json};

use super::output::Out;
use super::{Failure, Outcome, Target, project_id};
use crate::client::{Backend, collect_all};
use crate::spec::case::EvalCase;
use crate::spec::environment::{Environment, EnvironmentQuery};
use crate::spec::suite::EvalSuite;
use crate::spec::suite_file::{
    self, Change, Live, Plan, SuiteDoc, case_body, creation, file_error, settings_patch,
};
use crate::spec::validate::join;
use crate::spec::{Code, Error, Result, Violation};

#[derive(Debug, Args)]
pub struct ExportArgs {
    /// Suite id or name.
    pub suite: String,
    /// Write the file here instead of stdout (nothing is written when export refuses).
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Write each case's `id` too, so `apply` matches cases by id (such a file then applies
    /// only to this suite).
    #[arg(long)]
    pub ids: bool,
}

#[derive(Debug, Args)]
pub struct ApplyArgs {
    /// The suite file (`-` reads stdin).
    pub file: PathBuf,
    /// Apply without asking (required when stdin is not a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Print the diff and change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// The suite to update, by id or name [default: the suite the file names; created when
    /// there is none].
    #[arg(long)]
    pub suite: Option<String>,
}

/// `evaldeck suite export`.
pub async fn export(target: &Target, b: &dyn Backend, a: ExportArgs, out: &Out) -> Result<()> {
    let p = project_id(b, target.project.as_deref()).await?;
    let live = load(b, &p, &a.suite, true).await?;
    let doc = SuiteDoc::from_live(
        &live.suite,
        live.servers,
        live.environments,
        &live.cases,
        a.ids,
    );
    let text = suite_file::export(&doc)?;
    match &a.output {
        None => {
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|_| stdout.flush())
                .map_err(|e| Error::internal(format!("cannot write to stdout: {e}")))?;
        }
        Some(path) => {
            write_file(path, &text)?;
            if out.json {
                out.value(&json!({
                    "file": path.display().to_string(),
                    "suiteId": live.suite.id,
                    "cases": doc.cases.len(),
                }))?;
            } else {
                eprintln!(
                    "wrote {} (suite `{}`, {} cases)",
                    path.display(),
                    doc.name,
                    doc.cases.len()
                );
            }
        }
    }
    Ok(())
}

/// Writes through a temporary file beside `path`, so a failure leaves no partial file.
fn write_file(path: &Path, text: &str) -> Result<()> {
    let fail = |e: std::io::Error| {
        Error::invalid(
            "/output",
            "write",
            format!("cannot write {}: {e}", path.display()),
        )
    };
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().to_string());
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        name.unwrap_or_else(|| "suite.yaml".into()),
        std::process::id()
    ));
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, path).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })
}

/// Every environment of the project, archived ones included.
async fn environments(b: &dyn Backend, p: &str) -> Result<Vec<Environment>> {
    collect_all(|pg| async move {
        b.environments(
            p,
            &EnvironmentQuery {
                include_archived: true,
                cursor: pg.cursor,
                limit: pg.limit,
            },
        )
        .await
    })
    .await
}

/// The environment a file's name means: the live one of that name, else the only archived
/// one of that name.
fn environment_named<'a>(envs: &'a [Environment], name: &str) -> Option<&'a Environment> {
    let named: Vec<&Environment> = envs.iter().filter(|e| e.name == name).collect();
    named
        .iter()
        .find(|e| !e.archived)
        .copied()
        .or(match named[..] {
            [only] => Some(only),
            _ => None,
        })
}

/// The live suite with its servers and environments named. `strict` (export) refuses a
/// reference a file cannot name so that it means the same thing again.
async fn load(b: &dyn Backend, p: &str, suite: &str, strict: bool) -> Result<Live> {
    let suite = b.suite(p, suite).await?;
    let cases = b.cases(p, &suite.id).await?.items;
    let lossy = |path: String, message: String| {
        Err(Error::invalid(&path, "nameable", message).with_reason("LOSSY_EXPORT"))
    };
    let mut servers = Vec::new();
    for (i, id) in suite.server_ids.iter().enumerate() {
        match b.server(p, id).await {
            Ok(s) => servers.push(s.name),
            Err(e) if e.code == Code::NotFound && strict => {
                return lossy(
                    join("/servers", i),
                    format!(
                        "refusing to export: the suite names server `{id}`, which no longer exists, \
                         so a file cannot name it; set the suite's servers first"
                    ),
                );
            }
            Err(e) if e.code == Code::NotFound => servers.push(id.clone()),
            Err(e) => return Err(e),
        }
    }
    let mut names = Vec::new();
    if !suite.environment_ids.is_empty() {
        let envs = environments(b, p).await?;
        for (i, id) in suite.environment_ids.iter().enumerate() {
            let Some(env) = envs.iter().find(|e| &e.id == id) else {
                if strict {
                    return lossy(
                        join("/environments", i),
                        format!(
                            "refusing to export: the suite names environment `{id}`, which no longer exists"
                        ),
                    );
                }
                names.push(id.clone());
                continue;
            };
            if strict && environment_named(&envs, &env.name).map(|e| &e.id) != Some(id) {
                return lossy(
                    join("/environments", i),
                    format!(
                        "refusing to export: the suite uses the archived environment `{}` ({id}), \
                         and that name now means another environment, so a file cannot name it",
                        env.name
                    ),
                );
            }
            names.push(env.name.clone());
        }
    }
    Ok(Live {
        suite,
        servers,
        environments: names,
        cases,
    })
}

/// Reads the file (or stdin for `-`).
fn read_text(path: &Path) -> Result<String> {
    let fail = |e: std::io::Error| {
        Error::invalid(
            "/file",
            "read",
            format!("cannot read {}: {e}", path.display()),
        )
    };
    if path.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(fail)?;
        Ok(s)
    } else {
        std::fs::read_to_string(path).map_err(fail)
    }
}

/// Resolves the file's server and environment names in the project.
async fn resolve(
    b: &dyn Backend,
    p: &str,
    doc: &SuiteDoc,
) -> Result<(suite_file::Target, Vec<Violation>)> {
    let mut t = suite_file::Target::default();
    let mut errs = Vec::new();
    for (i, name) in doc.servers.iter().enumerate() {
        match b.server(p, name).await {
            Ok(s) => t.server_ids.push(s.id),
            Err(e) if e.code == Code::NotFound => errs.push(Violation {
                path: join("/servers", i),
                rule: "exists".into(),
                message: format!("no saved server `{name}` in this project"),
            }),
            Err(e) => return Err(e),
        }
    }
    if !doc.environments.is_empty() {
        let envs = environments(b, p).await?;
        for (i, name) in doc.environments.iter().enumerate() {
            match environment_named(&envs, name) {
                Some(e) => t.environment_ids.push(e.id.clone()),
                None => errs.push(Violation {
                    path: join("/environments", i),
                    rule: "exists".into(),
                    message: format!("no environment `{name}` in this project"),
                }),
            }
        }
    }
    Ok((t, errs))
}

/// What the optimistic check compares: the suite's and each case's last change.
fn fingerprint(suite: &EvalSuite, cases: &[EvalCase]) -> (i64, Vec<(String, Option<i64>)>) {
    (
        suite.updated_at,
        cases.iter().map(|c| (c.id.clone(), c.updated_at)).collect(),
    )
}

/// `evaldeck suite apply`.
pub async fn apply(target: &Target, b: &dyn Backend, a: ApplyArgs, out: &Out) -> Outcome {
    let label = match a.file.as_os_str() == "-" {
        true => "<stdin>".to_string(),
        false => a.file.display().to_string(),
    };
    let text = read_text(&a.file)?;
    let parsed = suite_file::parse(&text).map_err(|errs| file_error(&label, &errs))?;
    let doc = &parsed.doc;
    let p = project_id(b, target.project.as_deref()).await?;
    let (ids, mut errs) = resolve(b, &p, doc).await?;
    let wanted = a.suite.clone().unwrap_or_else(|| doc.name.clone());
    let live = match load(b, &p, &wanted, false).await {
        Ok(live) => Some(live),
        Err(e) if e.code == Code::NotFound && a.suite.is_none() => None,
        Err(e) => return Err(e.into()),
    };
    if live.is_none() && doc.servers.is_empty() {
        errs.push(Violation {
            path: "/servers".into(),
            rule: "minItems".into(),
            message: "a new suite needs at least 1 server".into(),
        });
    }
    if !errs.is_empty() {
        return Err(file_error(&label, &parsed.locate(errs)).into());
    }
    let plan = suite_file::plan(doc, &ids, live.as_ref())
        .map_err(|vs| file_error(&label, &parsed.locate(vs)))?;
    let report = |applied: bool, suite_id: Option<&str>| {
        json!({
            "suite": doc.name,
            "suiteId": suite_id,
            "changes": plan.changes.iter().map(change_json).collect::<Vec<_>>(),
            "orderDiffers": plan.order_differs,
            "applied": applied,
        })
    };
    if !out.json {
        print_plan(doc, &plan, live.as_ref());
    }
    if plan.is_empty() || a.dry_run {
        if out.json {
            out.value(&report(false, plan.suite_id.as_deref()))?;
        } else if !plan.is_empty() {
            println!("dry run: nothing applied");
        }
        return Ok(());
    }
    if !a.yes {
        confirm(plan.changes.len(), &doc.name)?;
    }
    let suite_id = match &live {
        Some(live) => {
            let suite = b.suite(&p, &live.suite.id).await?;
            let cases = b.cases(&p, &suite.id).await?.items;
            if fingerprint(&suite, &cases) != fingerprint(&live.suite, &live.cases) {
                return Err(Error::conflict(format!(
                    "suite `{}` changed while the diff was shown; nothing was applied — run apply again",
                    suite.name
                ))
                .into());
            }
            update(b, &p, doc, &plan, &suite.id).await?;
            suite.id
        }
        None => create(b, &p, doc, &ids).await?,
    };
    if out.json {
        out.value(&report(true, Some(&suite_id)))?;
    } else {
        println!(
            "applied {} change{} to suite `{}` ({suite_id})",
            plan.changes.len(),
            if plan.changes.len() == 1 { "" } else { "s" },
            doc.name
        );
    }
    Ok(())
}

/// Asks on the terminal; without one, `--yes` is required.
fn confirm(n: usize, suite: &str) -> Outcome {
    if !std::io::stdin().is_terminal() {
        return Err(Error::new(
            Code::ValidationError,
            "stdin is not a terminal: pass --yes to apply, or --dry-run to only see the diff",
        )
        .into());
    }
    eprint!(
        "Apply {n} change{} to suite `{suite}`? [y/N] ",
        if n == 1 { "" } else { "s" }
    );
    let _ = std::io::stderr().flush();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).ok();
    if matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes") {
        Ok(())
    } else {
        eprintln!("nothing applied");
        Err(Failure::Exit(1))
    }
}

fn case_json(doc: &SuiteDoc, index: usize) -> Value {
    Value::Object(case_body(&doc.cases[index].case, None))
}

/// Applies the diff to an existing suite, in the plan's order.
async fn update(b: &dyn Backend, p: &str, doc: &SuiteDoc, plan: &Plan, sid: &str) -> Result<()> {
    if let Some(patch) = &plan.patch {
        b.update_suite(p, sid, patch).await?;
    }
    for c in &plan.changes {
        match c {
            Change::RemoveCase { id, .. } => {
                b.delete_case(p, sid, id).await?;
            }
            Change::UpdateCase { id, update, .. } => {
                b.update_case(p, sid, id, update).await?;
            }
            Change::ReplaceCase { id, index, .. } => {
                b.delete_case(p, sid, id).await?;
                b.create_case(p, sid, &case_json(doc, *index)).await?;
            }
            Change::AddCase { index, .. } => {
                b.create_case(p, sid, &case_json(doc, *index)).await?;
            }
            Change::CreateSuite { .. } | Change::Setting { .. } => {}
        }
    }
    Ok(())
}

/// Creates the suite: the request writes the file's leading cases it can write exactly,
/// settings it cannot carry follow as one edit, and the remaining cases are added in order.
async fn create(
    b: &dyn Backend,
    p: &str,
    doc: &SuiteDoc,
    ids: &suite_file::Target,
) -> Result<String> {
    let (body, written, placeholder) = creation(doc, ids);
    let created = b.create_suite(p, &body).await?;
    let sid = created.suite_id;
    if placeholder
        && let Some(id) = created
            .case_upsert
            .committed
            .first()
            .and_then(|c| c.id.clone())
    {
        b.delete_case(p, &sid, &id).await?;
    }
    let suite = b.suite(p, &sid).await?;
    if let (Some(patch), _) = settings_patch(doc, ids, &suite, &[], &[]) {
        b.update_suite(p, &sid, &patch).await?;
    }
    for i in written..doc.cases.len() {
        b.create_case(p, &sid, &case_json(doc, i)).await?;
    }
    Ok(sid)
}

fn change_json(c: &Change) -> Value {
    match c {
        Change::CreateSuite { name } => json!({"op": "createSuite", "name": name}),
        Change::Setting { field, from, to } => {
            json!({"op": "set", "field": field, "from": from, "to": to})
        }
        Change::AddCase { index, title } => {
            json!({"op": "addCase", "index": index, "title": title})
        }
        Change::UpdateCase {
            index,
            id,
            title,
            fields,
            ..
        } => {
            json!({"op": "updateCase", "index": index, "caseId": id, "title": title, "fields": fields})
        }
        Change::ReplaceCase {
            index,
            id,
            title,
            fields,
        } => {
            json!({"op": "replaceCase", "index": index, "caseId": id, "title": title, "fields": fields})
        }
        Change::RemoveCase { id, title } => {
            json!({"op": "removeCase", "caseId": id, "title": title})
        }
    }
}

/// A value on one line, shortened.
fn brief(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(59).collect::<String>())
    } else {
        s
    }
}

fn print_plan(doc: &SuiteDoc, plan: &Plan, live: Option<&Live>) {
    match live {
        Some(l) => println!("suite `{}` ({})", l.suite.name, l.suite.id),
        None => println!("suite `{}` (new)", doc.name),
    }
    if plan.is_empty() {
        println!("no changes");
        if plan.order_differs {
            println!(
                "  note: the suite's case order differs from the file's (apply cannot reorder cases)"
            );
        }
        return;
    }
    let (mut added, mut changed, mut replaced, mut removed, mut settings) = (0, 0, 0, 0, 0);
    for c in &plan.changes {
        match c {
            Change::CreateSuite { name } => println!(
                "  + create suite `{name}` on {} with {} case{}",
                if doc.servers.is_empty() {
                    "no servers".to_string()
                } else {
                    doc.servers.join(", ")
                },
                doc.cases.len(),
                if doc.cases.len() == 1 { "" } else { "s" }
            ),
            Change::Setting { field, from, to } => {
                settings += 1;
                println!("  ~ {field}: {} → {}", brief(from), brief(to));
            }
            Change::AddCase { title, .. } => {
                added += 1;
                println!("  + case `{title}`");
            }
            Change::UpdateCase { title, fields, .. } => {
                changed += 1;
                println!("  ~ case `{title}`: {}", fields.join(", "));
            }
            Change::ReplaceCase { title, fields, .. } => {
                replaced += 1;
                println!(
                    "  ± case `{title}`: replaced ({} cannot be edited)",
                    fields.join(", ")
                );
            }
            Change::RemoveCase { title, id } => {
                removed += 1;
                println!("  - case `{title}` ({id})");
            }
        }
    }
    if plan.order_differs {
        println!(
            "  note: added and replaced cases are appended, so the suite's case order will differ from the file's"
        );
    }
    let mut parts = Vec::new();
    for (n, what) in [
        (settings, if settings == 1 { "setting" } else { "settings" }),
        (added, "added"),
        (changed, "changed"),
        (replaced, "replaced"),
        (removed, "removed"),
    ] {
        if n > 0 {
            parts.push(format!("{n} {what}"));
        }
    }
    if !parts.is_empty() {
        println!("{}", parts.join(", "));
    }
}
