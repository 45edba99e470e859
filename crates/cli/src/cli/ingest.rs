//! `evaldeck ingest junit|jest|vitest FILE --suite S`: reads a test report locally (the same
//! parsers the upload URLs use) and reports it as an ingested run through the backend.
//!
//! Up to 200 results go in one `report`; more are sent as `runs/start`, batches of 200 to
//! `runs/iterations` and `runs/finalize`. The run's `externalRunId` is `--external-run-id`,
//! else `file:` + a hash of the suite name and the file's bytes, so reporting the same file
//! twice (a retried CI step) returns the first run instead of adding a second. `ci` is
//! filled from GitHub Actions or GitLab CI variables when present. `--project` picks the
//! project; without it the organization's default project (`default`) is used. Exit code
//! as `evaldeck run`: 0 when the run passed, 1 when it failed.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use serde_json::json;

use super::output::Out;
use super::{Failure, Outcome, Target, project_id};
use crate::client::Backend;
use crate::spec::artifacts::{self, ParsedArtifact, clip};
use crate::spec::case::sha256_hex;
use crate::spec::ingest::{
    ArtifactKind, CiInfo, DEFAULT_PROJECT, IngestBody, IngestFinalize, IngestIterations,
    IngestReport, IngestRun, MAX_CI_FIELD, MAX_RESULTS, MAX_URL, RunFields,
};
use crate::spec::suite::PassCriteria;
use crate::spec::{Error, Result};

#[derive(Debug, Subcommand)]
pub enum IngestCmd {
    /// Report a JUnit XML file (pytest, jest-junit, Surefire, gotestsum …).
    Junit(IngestArgs),
    /// Report Jest's `--json` output.
    Jest(IngestArgs),
    /// Report Vitest's `--reporter=json` output.
    Vitest(IngestArgs),
}

#[derive(Debug, Args)]
pub struct IngestArgs {
    /// The report file.
    pub file: PathBuf,
    /// The suite the run is filed under (created when the project has none of that name).
    #[arg(long)]
    pub suite: String,
    /// The run's id for idempotent retries [default: a hash of the suite and the file].
    #[arg(long)]
    pub external_run_id: Option<String>,
    /// Notes stored on the run.
    #[arg(long)]
    pub notes: Option<String>,
    /// Pass when this percent of results passed (default: every result must pass).
    #[arg(long)]
    pub min_pass_rate: Option<f64>,
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Where the CI job runs, from the variables GitHub Actions and GitLab CI set.
pub fn ci_from_env() -> Option<CiInfo> {
    let f = |v: Option<String>| v.map(|s| clip(&s, MAX_CI_FIELD));
    let ci = if env("GITHUB_ACTIONS").as_deref() == Some("true") {
        CiInfo {
            provider: Some("github".into()),
            pipeline_id: f(env("GITHUB_RUN_ID")),
            job_id: f(env("GITHUB_JOB")),
            run_url: match (
                env("GITHUB_SERVER_URL"),
                env("GITHUB_REPOSITORY"),
                env("GITHUB_RUN_ID"),
            ) {
                (Some(s), Some(r), Some(id)) => {
                    Some(clip(&format!("{s}/{r}/actions/runs/{id}"), MAX_URL))
                }
                _ => None,
            },
            branch: f(env("GITHUB_REF_NAME")),
            commit_sha: f(env("GITHUB_SHA")),
        }
    } else if env("GITLAB_CI").is_some() {
        CiInfo {
            provider: Some("gitlab".into()),
            pipeline_id: f(env("CI_PIPELINE_ID")),
            job_id: f(env("CI_JOB_ID")),
            run_url: env("CI_JOB_URL").map(|u| clip(&u, MAX_URL)),
            branch: f(env("CI_COMMIT_REF_NAME")),
            commit_sha: f(env("CI_COMMIT_SHA")),
        }
    } else {
        return None;
    };
    Some(ci)
}

/// Sends the parsed file: one `report`, or start + batches + finalize beyond 200 results.
async fn send(
    b: &dyn Backend,
    project: &str,
    fields: RunFields,
    parsed: &ParsedArtifact,
) -> Result<IngestRun> {
    if !parsed.results.is_empty() && parsed.results.len() <= MAX_RESULTS {
        let body = IngestReport {
            run: fields,
            results: parsed.results.clone(),
        };
        return b.ingest_report(project, &body).await;
    }
    let external_run_id = fields.external_run_id.clone();
    let started = b.ingest_start(project, &fields).await?;
    if started.status == "running" {
        for chunk in parsed.results.chunks(MAX_RESULTS) {
            b.ingest_iterations(
                project,
                &IngestIterations {
                    run_id: started.run_id.clone(),
                    results: chunk.to_vec(),
                },
            )
            .await?;
        }
    }
    b.ingest_finalize(
        project,
        &IngestFinalize {
            run_id: started.run_id.clone(),
            external_run_id: Some(external_run_id),
        },
    )
    .await
}

pub(super) async fn run(target: &Target, b: &dyn Backend, cmd: IngestCmd, out: &Out) -> Outcome {
    let (kind, a) = match cmd {
        IngestCmd::Junit(a) => (ArtifactKind::Junit, a),
        IngestCmd::Jest(a) => (ArtifactKind::Jest, a),
        IngestCmd::Vitest(a) => (ArtifactKind::Vitest, a),
    };
    let bytes = std::fs::read(&a.file).map_err(|e| {
        Error::invalid(
            "/file",
            "read",
            format!("cannot read {}: {e}", a.file.display()),
        )
    })?;
    let parsed = artifacts::parse(Some(kind), &bytes).map_err(|mut e| {
        e.message = format!("{}: {}", a.file.display(), e.message);
        e
    })?;
    let project = match &target.project {
        Some(p) => project_id(b, Some(p)).await?,
        None => DEFAULT_PROJECT.to_string(),
    };
    let external_run_id = a.external_run_id.clone().unwrap_or_else(|| {
        let key = format!("{}\u{0}{}", a.suite, String::from_utf8_lossy(&bytes));
        format!("file:{}", &sha256_hex(&key)[..32])
    });
    let fields = RunFields {
        suite_name: a.suite.clone(),
        external_run_id,
        framework: Some(kind.as_str().into()),
        ci: ci_from_env(),
        notes: a.notes.clone(),
        pass_criteria: a.min_pass_rate.map(|m| PassCriteria {
            minimum_pass_rate: Some(m),
        }),
        expected_iterations: (!parsed.results.is_empty()).then_some(parsed.results.len() as i64),
        ..RunFields::default()
    };
    fields.check()?;
    let run = send(b, &project, fields, &parsed).await?;
    if out.json {
        let mut v = serde_json::to_value(&run).expect("serializes");
        v["kind"] = json!(kind.as_str());
        v["notRun"] = json!(parsed.not_run);
        out.value(&v)?;
    } else {
        let s = run.summary;
        println!(
            "run {} (suite {}, {}{}): {} {} — {}/{} passed ({:.0}%), {} not run",
            run.run_id,
            a.suite,
            kind.as_str(),
            if run.reused { ", already reported" } else { "" },
            run.status,
            run.result.as_deref().unwrap_or("-"),
            s.passed,
            s.total,
            s.pass_rate * 100.0,
            parsed.not_run
        );
    }
    match run.result.as_deref() {
        Some("passed") => Ok(()),
        _ => Err(Failure::Exit(1)),
    }
}
