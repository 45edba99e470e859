//! `evaldeck run`, `evaldeck runs list|show`, `evaldeck trace RUN ITERATION`,
//! `evaldeck regrade RUN`.
//!
//! `run` waits by default, drawing progress on stderr (a bar on a terminal, a line per
//! change otherwise), and exits 0 only when the run completed and passed; a failed verdict
//! exits 1, a run that failed or was cancelled exits 9. `--junit FILE` writes one
//! `<testcase>` per iteration (JUnit XML for CI). `--no-wait` prints the 202 body and
//! exits 0.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Subcommand};

use super::output::{Out, when};
use super::{Failure, Outcome, Target, project_id, table};
use crate::client::compare::{Change, Tally, compare};
use crate::client::{Backend, collect_all};
use crate::spec::run::{EvalIteration, EvalRun, RunCreate};
use crate::spec::{Error, Result};

#[derive(Debug, Subcommand)]
pub enum EvalCmd {
    /// Run an eval suite and wait for its verdict (exit 0 only when it passed).
    Run(RunArgs),
    /// Eval runs of a suite.
    #[command(subcommand)]
    Runs(RunsCmd),
    /// The trace of one iteration: messages, tool calls, assertions, tool-call diff, as the
    /// workbench shows it (`--json`: the trace object). ITERATION is the iteration's id
    /// (`itr_…`) or its number in the run (1, 2, …).
    Trace { run: String, iteration: String },
    /// Grade a finished run's stored transcripts again (calls nothing).
    Regrade { run: String },
}

#[derive(Debug, Args)]
pub struct RunArgs {
    /// Suite id or name.
    #[arg(long)]
    pub suite: String,
    /// Environment id or name (one of the suite's attached environments).
    #[arg(long)]
    pub env: Option<String>,
    /// Model for every case, `<provider>/<name>` (e.g. `builtin/baseline`).
    #[arg(long)]
    pub model: Option<String>,
    /// Iterations per case (1 to 10), overriding the cases'.
    #[arg(long)]
    pub iterations: Option<i64>,
    /// Run only this case, by id or exact title (repeatable; default: every case).
    #[arg(long = "case")]
    pub cases: Vec<String>,
    /// Approve an `approximated` case for this run, by id or exact title (repeatable).
    #[arg(long = "approve")]
    pub approve: Vec<String>,
    /// `provider=key` for provider-native model ids (repeatable).
    #[arg(long = "model-key")]
    pub model_keys: Vec<String>,
    /// Print the accepted run and return at once.
    #[arg(long)]
    pub no_wait: bool,
    /// Write JUnit XML here when the run finishes.
    #[arg(long)]
    pub junit: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum RunsCmd {
    /// Runs newest first: the project's, or one suite's with `--suite`.
    List {
        #[arg(long)]
        suite: Option<String>,
    },
    /// One run with its iterations.
    Show { run: String },
    /// What regressed and what was fixed, case by case, from BASE to HEAD (exit 1 when
    /// anything regressed).
    Compare {
        base: String,
        head: String,
        /// Print Markdown (a job summary, a PR comment) instead of a table.
        #[arg(long)]
        markdown: bool,
    },
}

fn pct(r: Option<f64>) -> String {
    r.map(|r| format!("{:.0}%", r * 100.0))
        .unwrap_or_else(|| "-".into())
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// JUnit XML: one suite, one test case per iteration.
pub fn junit(run: &EvalRun, suite: &str, its: &[EvalIteration]) -> String {
    let failures = its
        .iter()
        .filter(|i| i.result.as_deref() == Some("failed"))
        .count();
    let errors = its
        .iter()
        .filter(|i| i.result.as_deref() == Some("error"))
        .count();
    let skipped = its.iter().filter(|i| i.result.is_none()).count();
    let time: f64 = its.iter().filter_map(|i| i.duration_ms).sum::<f64>() / 1000.0;
    let mut out = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\" id=\"{}\">\n",
        xml(suite),
        its.len(),
        xml(&run.id)
    );
    for i in its {
        let name = format!(
            "{} #{}{}",
            i.title.clone().unwrap_or_default(),
            i.iteration_number,
            i.repetition
                .filter(|r| *r > 1)
                .map(|r| format!(".{r}"))
                .unwrap_or_default()
        );
        let class = i.model.clone().unwrap_or_else(|| "no-model".into());
        out.push_str(&format!(
            "    <testcase name=\"{}\" classname=\"{}\" time=\"{:.3}\">",
            xml(&name),
            xml(&class),
            i.duration_ms.unwrap_or(0.0) / 1000.0
        ));
        match i.result.as_deref() {
            Some("failed") => {
                let msg = i.error.clone().unwrap_or_else(|| {
                    format!(
                        "{} gating failure(s)",
                        i.scores
                            .as_ref()
                            .map(|s| s["assertions"]["gatingFailures"].to_string())
                            .unwrap_or_default()
                    )
                });
                out.push_str(&format!("<failure message=\"{}\"/>", xml(&msg)));
            }
            // An iteration without a verdict (its server stopped answering) is a JUnit error.
            Some("error") => {
                let msg = i
                    .error
                    .clone()
                    .unwrap_or_else(|| "the iteration did not complete".into());
                out.push_str(&format!("<error message=\"{}\"/>", xml(&msg)));
            }
            None => out.push_str("<skipped/>"),
            _ => {}
        }
        out.push_str("</testcase>\n");
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

async fn all_iterations(b: &dyn Backend, p: &str, run: &str) -> Result<Vec<EvalIteration>> {
    collect_all(|pg| async move { b.iterations(p, run, &pg).await }).await
}

fn progress(run: &EvalRun, tty: bool, last: &mut String) {
    let s = run.summary.clone().unwrap_or_default();
    let done = s.passed + s.failed;
    let line = if tty {
        let width = 30usize;
        let filled = if s.total > 0 {
            (done as usize * width) / s.total as usize
        } else {
            0
        };
        format!(
            "\r[{}{}] {done}/{} passed {} failed {} ({})",
            "#".repeat(filled),
            "-".repeat(width - filled),
            s.total,
            s.passed,
            s.failed,
            run.status
        )
    } else {
        format!(
            "{done}/{} iterations ({} passed, {} failed), {}\n",
            s.total, s.passed, s.failed, run.status
        )
    };
    if &line != last {
        eprint!("{line}");
        let _ = std::io::stderr().flush();
        *last = line;
    }
}

/// The case ids `--case`/`--approve` name, each given as an id or an exact title; `None`
/// when none was given. An unknown name is an error here rather than an unexplained refusal
/// from the run.
async fn case_ids(
    b: &dyn Backend,
    p: &str,
    suite: &str,
    names: &[String],
) -> Result<Option<Vec<String>>> {
    if names.is_empty() {
        return Ok(None);
    }
    let cases = b.cases(p, suite).await?.items;
    names
        .iter()
        .map(|n| {
            let mut hits = cases.iter().filter(|c| &c.id == n || &c.title == n);
            match (hits.next(), hits.next()) {
                (Some(c), None) => Ok(c.id.clone()),
                (Some(_), Some(_)) => Err(Error::invalid(
                    "/caseIds",
                    "unique",
                    format!("several cases are titled `{n}`: name it by id"),
                )),
                (None, _) => Err(Error::not_found("case", n)),
            }
        })
        .collect::<Result<Vec<_>>>()
        .map(Some)
}

pub(super) async fn execute(target: &Target, b: &dyn Backend, cmd: EvalCmd, out: &Out) -> Outcome {
    let project = project_id(b, target.project.as_deref()).await?;
    let p = project.as_str();
    match cmd {
        EvalCmd::Run(a) => {
            let suite = b.suite(p, &a.suite).await?;
            let env = match &a.env {
                Some(e) => {
                    let envs = collect_all(|pg| async move {
                        b.environments(
                            p,
                            &crate::spec::environment::EnvironmentQuery {
                                include_archived: false,
                                cursor: pg.cursor,
                                limit: pg.limit,
                            },
                        )
                        .await
                    })
                    .await?;
                    Some(
                        envs.into_iter()
                            .find(|x| &x.id == e || &x.name == e)
                            .map(|x| x.id)
                            .unwrap_or_else(|| e.clone()),
                    )
                }
                None => None,
            };
            let mut keys = std::collections::BTreeMap::new();
            for k in &a.model_keys {
                let (prov, key) = k.split_once('=').ok_or_else(|| {
                    Error::invalid(
                        "/modelApiKeys",
                        "format",
                        format!("`{k}` is not `provider=key`"),
                    )
                })?;
                keys.insert(prov.to_string(), key.to_string());
            }
            let body = RunCreate {
                suite_id: Some(suite.id.clone()),
                environment_id: env,
                model: a.model.clone(),
                iteration_override: a.iterations,
                case_ids: case_ids(b, p, &suite.id, &a.cases).await?,
                approved_case_ids: case_ids(b, p, &suite.id, &a.approve).await?,
                model_api_keys: (!keys.is_empty()).then_some(keys),
                ..Default::default()
            };
            let created = b.create_run(p, &body).await?;
            if a.no_wait {
                return Ok(out.value(&created)?);
            }
            let tty = std::io::stderr().is_terminal() && !out.json;
            let mut last = String::new();
            let run = loop {
                let run = b.run(p, &created.run_id).await?;
                if !out.json {
                    progress(&run, tty, &mut last);
                }
                if run.is_terminal() {
                    break run;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            };
            if tty {
                eprintln!();
            }
            let its = all_iterations(b, p, &run.id).await?;
            if let Some(path) = &a.junit {
                std::fs::write(path, junit(&run, &suite.name, &its)).map_err(|e| {
                    Error::invalid(
                        "/junit",
                        "write",
                        format!("cannot write {}: {e}", path.display()),
                    )
                })?;
            }
            show(out, &run, &its)?;
            let errored = run.summary.as_ref().is_some_and(|s| s.errored > 0);
            match (run.status.as_str(), run.result.as_deref()) {
                ("completed", Some("passed")) => Ok(()),
                // Iterations that ended as errors leave the run without a trustworthy verdict.
                ("completed", _) if errored => Err(Failure::Exit(9)),
                ("completed", _) => Err(Failure::Exit(1)),
                _ => Err(Failure::Exit(9)),
            }
        }
        EvalCmd::Runs(RunsCmd::List { suite }) => {
            let runs = match suite {
                Some(suite) => {
                    let s = b.suite(p, &suite).await?;
                    let sid = s.id.as_str();
                    collect_all(|pg| async move { b.suite_runs(p, sid, &pg).await }).await?
                }
                None => collect_all(|pg| async move { b.project_runs(p, &pg).await }).await?,
            };
            if out.json {
                return Ok(out.value(&runs)?);
            }
            table(
                &[
                    "run",
                    "#",
                    "status",
                    "result",
                    "pass rate",
                    "source",
                    "created (UTC)",
                ],
                runs.iter()
                    .map(|r| {
                        vec![
                            r.id.clone(),
                            r.run_number.map(|n| n.to_string()).unwrap_or_default(),
                            r.status.clone(),
                            r.result.clone().unwrap_or_else(|| "-".into()),
                            pct(r.summary.as_ref().and_then(|s| s.pass_rate)),
                            r.source_label(),
                            when(r.created_at),
                        ]
                    })
                    .collect(),
            );
            Ok(())
        }
        EvalCmd::Runs(RunsCmd::Show { run }) => {
            let r = b.run(p, &run).await?;
            let its = all_iterations(b, p, &r.id).await?;
            Ok(show(out, &r, &its)?)
        }
        EvalCmd::Runs(RunsCmd::Compare {
            base,
            head,
            markdown,
        }) => {
            let (base, head) = (b.run(p, &base).await?, b.run(p, &head).await?);
            let c = compare(
                &base.id,
                &all_iterations(b, p, &base.id).await?,
                &head.id,
                &all_iterations(b, p, &head.id).await?,
            );
            if out.json {
                out.value(&c)?;
            } else if markdown {
                print!("{}", super::reports::comparison_markdown(&c).trim_start());
            } else {
                println!(
                    "{} → {}: {} regressed, {} fixed, {} added, {} removed",
                    c.base_run_id,
                    c.head_run_id,
                    c.count(Change::Regressed),
                    c.count(Change::Fixed),
                    c.count(Change::Added),
                    c.count(Change::Removed)
                );
                let tally = |t: Option<Tally>| t.map(|t| t.to_string()).unwrap_or("-".into());
                table(
                    &["change", "case", "model", "base", "head"],
                    c.cases
                        .iter()
                        .filter(|d| d.change != Change::Unchanged)
                        .map(|d| {
                            vec![
                                d.change.as_str().into(),
                                d.title.clone(),
                                d.model.clone().unwrap_or_else(|| "-".into()),
                                tally(d.base),
                                tally(d.head),
                            ]
                        })
                        .collect(),
                );
            }
            if c.count(Change::Regressed) > 0 {
                return Err(Failure::Exit(1));
            }
            Ok(())
        }
        EvalCmd::Trace { run, iteration } => {
            let (run, it) = resolve_iteration(b, p, &run, &iteration).await?;
            let trace = b.trace(p, &run.id, &it.id).await?;
            if out.json {
                return Ok(out.value(&trace)?);
            }
            println!(
                "run #{} · iteration #{} {} · {}",
                run.run_number.unwrap_or_default(),
                it.iteration_number,
                it.title.clone().unwrap_or_default(),
                it.id
            );
            println!("{}", crate::tui::panes::runs::trace_text(&trace));
            Ok(())
        }
        EvalCmd::Regrade { run } => {
            let r = b.regrade_run(p, &run).await?;
            let its = all_iterations(b, p, &r.id).await?;
            Ok(show(out, &r, &its)?)
        }
    }
}

/// A run and one of its iterations, named by id or by its 1-based number in the run.
async fn resolve_iteration(
    b: &dyn Backend,
    p: &str,
    run: &str,
    iteration: &str,
) -> Result<(EvalRun, EvalIteration)> {
    let r = b.run(p, run).await?;
    let its = all_iterations(b, p, &r.id).await?;
    let found = match iteration.parse::<i64>() {
        Ok(n) => its.iter().find(|i| i.iteration_number == n),
        Err(_) => its.iter().find(|i| i.id == iteration),
    };
    match found {
        Some(i) => Ok((r, i.clone())),
        None => {
            let numbers = match (its.first(), its.last()) {
                (Some(a), Some(z)) => format!(
                    "its iterations are numbered {}–{}",
                    a.iteration_number, z.iteration_number
                ),
                _ => "it has no iterations yet".into(),
            };
            Err(Error::new(
                crate::spec::Code::NotFound,
                format!("run {} has no iteration {iteration}: {numbers}", r.id),
            ))
        }
    }
}

fn show(out: &Out, run: &EvalRun, its: &[EvalIteration]) -> Result<()> {
    if out.json {
        return out.value(&serde_json::json!({"run": run, "iterations": its}));
    }
    let s = run.summary.clone().unwrap_or_default();
    println!(
        "run {} (#{}) {} result {} — {}/{} iterations passed ({}), cases {}/{} passed, {} tokens",
        run.id,
        run.run_number.unwrap_or_default(),
        run.status,
        run.result.clone().unwrap_or_else(|| "-".into()),
        s.passed,
        s.total,
        pct(s.pass_rate),
        s.cases.passed,
        s.cases.total,
        s.tokens.total_tokens
    );
    if let Some(e) = &run.error {
        println!("error: {e}");
    }
    if s.errored > 0 {
        println!(
            "{} iteration(s) ended as errors (the server stopped answering, the model failed, or no credits): they have no verdict",
            s.errored
        );
    }
    table(
        &["iteration", "case", "#", "model", "result", "ms", "tools"],
        its.iter()
            .map(|i| {
                vec![
                    i.id.clone(),
                    i.title.clone().unwrap_or_default(),
                    i.iteration_number.to_string(),
                    i.model.clone().unwrap_or_else(|| "-".into()),
                    i.result.clone().unwrap_or_else(|| i.status.clone()),
                    i.duration_ms.map(|d| format!("{d:.0}")).unwrap_or_default(),
                    i.actual_tool_calls
                        .iter()
                        .map(|c| c.tool_name.as_str())
                        .collect::<Vec<_>>()
                        .join(","),
                ]
            })
            .collect(),
    );
    Ok(())
}
