//! `evaldeck suite schedule SUITE`: show the schedule (no flags), enable or edit it
//! (`--every MINUTES`, `--env ENV`, `--no-env`) or disable it (`--off`).
//!
//! Firings happen in `evaldeck serve` or while the workbench is open on the same database,
//! never in a one-shot CLI command.

use clap::Args;

use super::output::Out;
use super::{Target, environment_named, project_id, table};
use crate::client::Backend;
use crate::spec::Result;
use crate::spec::environment::Patch;
use crate::spec::schedule::{SchedulePatch, SuiteSchedule};

#[derive(Debug, Args)]
pub struct ScheduleArgs {
    /// Suite id or name.
    pub suite: String,
    /// Launch a run every MINUTES minutes (5 to 10080); enables the schedule.
    #[arg(long, value_name = "MINUTES", conflicts_with = "off")]
    pub every: Option<i64>,
    /// Pin the environment (id or name, attached to the suite) the runs launch in.
    #[arg(long, value_name = "ENV", conflicts_with_all = ["off", "no_env"])]
    pub env: Option<String>,
    /// Clear the pinned environment.
    #[arg(long)]
    pub no_env: bool,
    /// Disable the schedule (its interval and pin are kept for the next `--every`).
    #[arg(long)]
    pub off: bool,
}

impl ScheduleArgs {
    fn changes(&self) -> bool {
        self.every.is_some() || self.env.is_some() || self.no_env || self.off
    }
}

/// An environment name becomes its id; anything unknown is passed on for the service to
/// refuse with its reason.
async fn environment_id(b: &dyn Backend, project: &str, wanted: &str) -> Result<String> {
    Ok(environment_named(b, project, wanted, false)
        .await?
        .map_or_else(|| wanted.to_string(), |e| e.id))
}

pub async fn run(target: &Target, b: &dyn Backend, a: ScheduleArgs, out: &Out) -> Result<()> {
    let project = project_id(b, target.project.as_deref()).await?;
    let p = project.as_str();
    let schedule = if a.changes() {
        let environment_id = match (&a.env, a.no_env) {
            (Some(e), _) => Patch::Set(environment_id(b, p, e).await?),
            (None, true) => Patch::Clear,
            (None, false) => Patch::Keep,
        };
        let body = SchedulePatch {
            enabled: !a.off,
            interval_minutes: a.every,
            environment_id,
        };
        b.set_schedule(p, &a.suite, &body).await?
    } else {
        b.schedule(p, &a.suite).await?
    };
    if out.json {
        return out.value(&schedule);
    }
    print_schedule(&a.suite, &schedule);
    Ok(())
}

fn when(ms: Option<i64>) -> String {
    ms.and_then(chrono::DateTime::from_timestamp_millis)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
        .unwrap_or_else(|| "—".into())
}

fn print_schedule(suite: &str, s: &SuiteSchedule) {
    let every = s
        .interval_minutes
        .map(|m| format!("every {m} min"))
        .unwrap_or_else(|| "no interval".into());
    let env = s
        .environment_id
        .as_deref()
        .map(|e| format!(", environment {e}"))
        .unwrap_or_default();
    match (s.enabled, s.updated_at) {
        (_, None) => println!("suite {suite}: no schedule"),
        (true, _) => println!("suite {suite}: scheduled {every}{env}"),
        (false, _) => println!("suite {suite}: schedule off ({every}{env})"),
    }
    if s.enabled {
        println!("next run:  {}", when(s.next_run_at));
    }
    if let Some(run) = &s.last_run_id {
        println!("last run:  {run}");
    }
    if s.recent_firings.is_empty() {
        return;
    }
    println!();
    table(
        &["fired", "due", "outcome", "run or reason"],
        s.recent_firings
            .iter()
            .map(|f| {
                vec![
                    when(Some(f.fired_at)),
                    when(Some(f.due_at)),
                    f.outcome.as_str().to_string(),
                    match (&f.run_id, &f.reason) {
                        (Some(r), _) => r.clone(),
                        (None, Some(reason)) => {
                            format!("{reason}: {}", f.message.as_deref().unwrap_or_default())
                        }
                        (None, None) => String::new(),
                    },
                ]
            })
            .collect(),
    );
}
