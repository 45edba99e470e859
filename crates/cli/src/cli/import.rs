//! `evaldeck import` (author cases from a document, poll, commit, report) and
//! `evaldeck credits` (balance and ledger; `grant` is a local operator command).
//!
//! Exit codes beyond the shared ones: 3 when the authoring job failed or was cancelled.

use clap::{Args, Subcommand, ValueEnum};
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::output::{Out, table};
use super::{Failure, Outcome, Target, project_id};
use crate::client::Backend;
use crate::spec::authoring::CommitRequest;
use crate::spec::case::ClaimStatus;
use crate::spec::import::{
    DuplicatePolicy, EvalCaseImportRequest, EvalCaseImported, ImportResponse, JobStatus,
};
use crate::spec::{Error, Result};

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PolicyArg {
    Block,
    Warn,
    /// Also accepted in the spec's own spelling, `create_anyway`.
    #[value(alias = "create_anyway")]
    CreateAnyway,
}

/// `evaldeck import --suite S FILE|-`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// The suite (id or name) the cases go into.
    #[arg(long)]
    pub suite: String,
    /// The document: a path, or `-` for standard input.
    pub file: String,
    /// Servers (ids or names, comma-separated) to discover tools from [default: the suite's].
    #[arg(long, value_delimiter = ',', conflicts_with = "env")]
    pub servers: Vec<String>,
    /// Author against this environment's closed server set.
    #[arg(long)]
    pub env: Option<String>,
    /// What the commit does with duplicates of the suite's cases.
    #[arg(long, value_enum)]
    pub duplicate_policy: Option<PolicyArg>,
    /// Why duplicates may be created (needed by `warn` and `create-anyway`).
    #[arg(long)]
    pub reason: Option<String>,
    /// Idempotency key: re-running with it replays the recorded job instead of re-billing.
    #[arg(long)]
    pub key: Option<String>,
    /// Return as soon as the job is accepted instead of polling it to the end.
    #[arg(long)]
    pub no_wait: bool,
    /// File name recorded on provenance [default: the file's name].
    #[arg(long)]
    pub file_name: Option<String>,
    /// Import even when the suite already has a job for this very document (same SHA-256):
    /// without it, `import` asks first, and refuses under `--json` or without a terminal.
    #[arg(long)]
    pub again: bool,
}

#[derive(Debug, Subcommand)]
pub enum CreditsCmd {
    /// Grant credits to an organization (local only: never over the API).
    Grant {
        amount: i64,
        /// Organization id or name [default: the local organization].
        #[arg(long)]
        org: Option<String>,
        #[arg(long)]
        note: Option<String>,
    },
}

fn read_document(file: &str) -> Result<(String, Option<String>)> {
    if file == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| {
            Error::invalid(
                "/content",
                "read",
                format!("cannot read standard input: {e}"),
            )
        })?;
        return Ok((s, None));
    }
    let path = PathBuf::from(file);
    let bytes = std::fs::read(&path).map_err(|e| {
        Error::invalid(
            "/content",
            "read",
            format!("cannot read {}: {e}", path.display()),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::invalid(
            "/content",
            "utf8",
            format!("{} is not UTF-8 text", path.display()),
        )
    })?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().chars().take(255).collect());
    Ok((text, name))
}

pub async fn run_import(target: &Target, b: &dyn Backend, a: ImportArgs, out: &Out) -> Outcome {
    let project = project_id(b, target.project.as_deref()).await?;
    let (content, name) = read_document(&a.file)?;
    let mut req = EvalCaseImportRequest::new(content);
    req.file_name = a.file_name.or(name);
    req.servers = (!a.servers.is_empty()).then_some(a.servers);
    req.environment_id = a.env;
    req.duplicate_policy = match a.duplicate_policy {
        None | Some(PolicyArg::Block) => DuplicatePolicy::Block,
        Some(PolicyArg::Warn) => DuplicatePolicy::Warn,
        Some(PolicyArg::CreateAnyway) => DuplicatePolicy::CreateAnyway,
    };
    req.override_reason = a.reason;
    req.idempotency_key = a.key;
    // The same document imported into this suite before: warn before spending credits
    // (a replay under an idempotency key costs nothing and needs no warning).
    if !a.again && req.idempotency_key.is_none() {
        let hash = crate::spec::case::sha256_hex(&req.content);
        let earlier = b.earlier_imports(&project, &a.suite, &hash).await?.items;
        if let Some(last) = earlier.first()
            && !confirm_again(&a.suite, &earlier, out)?
        {
            return match &last.review_url {
                Some(u) if !out.json => {
                    println!(
                        "not imported; review the earlier job's drafts instead: evaldeck open '{u}'"
                    );
                    Ok(())
                }
                _ if !out.json => {
                    println!("not imported");
                    Ok(())
                }
                _ => Err(already_imported(&a.suite, &earlier).into()),
            };
        }
    }
    let mut resp = b.import_cases(&project, &a.suite, &req).await?;
    let started = Instant::now();
    let spin = std::io::stderr().is_terminal() && !out.json;
    let frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
    let mut tick = 0usize;
    loop {
        match resp {
            ImportResponse::Imported(done) => {
                if spin {
                    eprint!("\r\x1b[2K");
                }
                return Ok(report(&done, out)?);
            }
            ImportResponse::Job(job) => match job.status {
                JobStatus::Pending if a.no_wait => {
                    if out.json {
                        return Ok(out.value(&job)?);
                    }
                    println!(
                        "authoring job {} is pending; poll it with the API or re-run with --key to replay",
                        job.job_id
                    );
                    return Ok(());
                }
                JobStatus::Pending => {
                    if spin {
                        eprint!(
                            "\r{} authoring {} … {:.0?}",
                            frames[tick % frames.len()],
                            job.job_id,
                            started.elapsed()
                        );
                        let _ = std::io::stderr().flush();
                        tick += 1;
                    }
                    tokio::time::sleep(Duration::from_millis(250)).await;
                    resp = b.authoring_job(&project, &job.job_id).await?;
                }
                JobStatus::Completed => {
                    // Finished after the window: the CLI commits it.
                    resp = ImportResponse::Imported(
                        b.commit_authoring_job(&project, &job.job_id, &CommitRequest::default())
                            .await?,
                    );
                }
                JobStatus::Failed | JobStatus::Cancelled => {
                    if spin {
                        eprint!("\r\x1b[2K");
                    }
                    if out.json {
                        out.value(&job)?;
                    } else {
                        eprintln!(
                            "authoring job {} {}: {}",
                            job.job_id,
                            job.status.as_str(),
                            job.error.as_deref().unwrap_or("no cases were written")
                        );
                    }
                    return Err(Failure::Exit(3));
                }
            },
        }
    }
}

fn already_imported(suite: &str, earlier: &[crate::spec::authoring::EarlierImport]) -> Error {
    let last = &earlier[0];
    Error::conflict(format!(
        "suite {suite} already has {} authoring job(s) for this document (latest {}, {}); importing it again authors and bills every case again: pass --again to do so{}",
        earlier.len(),
        last.job_id,
        last.status.as_str(),
        last.review_url
            .as_ref()
            .map(|u| format!(", or review that job's drafts with `evaldeck open '{u}'`"))
            .unwrap_or_default()
    ))
    .with_details(serde_json::json!({
        "reason": "DOCUMENT_ALREADY_IMPORTED",
        "jobs": earlier,
    }))
}

/// Asks whether to import a document again; without a terminal (or under `--json`) the
/// answer is no.
fn confirm_again(
    suite: &str,
    earlier: &[crate::spec::authoring::EarlierImport],
    out: &Out,
) -> Result<bool> {
    let interactive = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if out.json {
        return Ok(false);
    }
    if !interactive {
        return Err(already_imported(suite, earlier));
    }
    let last = &earlier[0];
    let when = chrono::DateTime::from_timestamp_millis(last.created_at)
        .map(|t| t.format("%Y-%m-%d %H:%M").to_string())
        .unwrap_or_default();
    eprintln!(
        "This document was imported into {suite} before: job {} ({}, {when}), {} case(s) created, {} skipped, {} credit(s).",
        last.job_id,
        last.status.as_str(),
        last.created,
        last.skipped,
        last.credits_charged
    );
    if let Some(u) = &last.review_url {
        eprintln!("Its drafts can be reviewed at no cost: evaldeck open '{u}'");
    }
    eprint!("Import it again and spend credits? [y/N] ");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .map_err(|e| Error::invalid("/again", "read", format!("cannot read the answer: {e}")))?;
    Ok(matches!(answer.trim().to_lowercase().as_str(), "y" | "yes"))
}

fn report(done: &EvalCaseImported, out: &Out) -> Result<()> {
    if out.json {
        return out.value(done);
    }
    println!(
        "created {} case(s) ({} normal, {} negative) with {}; skipped {}",
        done.created.len(),
        done.counts.normal,
        done.counts.negative,
        done.generation_model,
        done.skipped.len()
    );
    if !done.created.is_empty() {
        table(
            &["case", "title", "claim", "lines"],
            done.created
                .iter()
                .map(|c| {
                    vec![
                        c.id.clone(),
                        c.title.clone(),
                        c.import
                            .as_ref()
                            .map(|i| i.status)
                            .unwrap_or(ClaimStatus::Approximated)
                            .as_str()
                            .to_string(),
                        c.source
                            .as_ref()
                            .map(|s| format!("{}-{}", s.start_line, s.end_line))
                            .unwrap_or_default(),
                    ]
                })
                .collect(),
        );
    }
    for s in &done.skipped {
        println!(
            "skipped {} “{}” [{}]: {}",
            s.draft_id, s.title, s.code, s.reason
        );
    }
    for w in &done.warnings {
        println!("warning {}: {}", w.case_id, w.message);
    }
    if let Some(u) = &done.review_url {
        println!("review: {u}");
    }
    Ok(())
}

pub async fn credits(
    target: &Target,
    b: &dyn Backend,
    cmd: Option<CreditsCmd>,
    out: &Out,
) -> Result<()> {
    match cmd {
        None => {
            let c = b.credits().await?;
            if out.json {
                return out.value(&c);
            }
            println!(
                "organization {}: {} credit(s)",
                c.organization_id, c.balance
            );
            table(
                &["when", "change", "balance", "kind", "job", "note"],
                c.ledger
                    .iter()
                    .map(|e| {
                        vec![
                            chrono::DateTime::from_timestamp_millis(e.created_at)
                                .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
                                .unwrap_or_default(),
                            format!("{:+}", e.delta),
                            e.balance.to_string(),
                            e.kind.clone(),
                            e.job_id.clone().unwrap_or_default(),
                            e.note.clone().unwrap_or_default(),
                        ]
                    })
                    .collect(),
            );
            Ok(())
        }
        Some(CreditsCmd::Grant { amount, org, note }) => {
            if target.base_url.is_some() {
                return Err(Error::forbidden(
                    "credits are granted only on the service's machine: run `evaldeck credits grant` there, without --base-url",
                ));
            }
            let (org, balance) =
                target
                    .admin("credits")?
                    .grant_credits(org.as_deref(), amount, note.as_deref())?;
            if out.json {
                return out.value(&serde_json::json!({"organizationId": org.id, "granted": amount, "balance": balance}));
            }
            println!(
                "granted {amount} credit(s) to {} ({}); balance {balance}",
                org.name, org.id
            );
            Ok(())
        }
    }
}
