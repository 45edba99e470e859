//! Eval runs: launch (`POST eval-runs` and its numbered rules), the runner (tokio tasks
//! owned by the service, state in SQLite), grading ([`grade`], over persisted transcripts),
//! results (run, iterations, trace, a suite's runs), cancel and regrade.
//!
//! Decisions where the spec is silent (see also [`grade`] for checks and roles and
//! [`assertions`] for each type's semantics):
//! - **Trials.** A case runs once per model it names (`models`; the run's `model` replaces
//!   them all; a case with no `prompt` step needs no model and runs once). Per model it runs
//!   `iterations × repetitions` trials, where `iterations` is the run's `iterationOverride`
//!   or else the case's `iterations` (an inline test's `runs` becomes the case's
//!   `iterations` when the suite is authored), and `repetitions` is the case's or else the
//!   suite default (1). Each trial is one iteration row. A case (per model) passes when
//!   passed trials / trials ≥ its `passThreshold` (or the suite default, 1.0) and no
//!   `required` assertion failed. The run's `result` is `passed` when every case passes and,
//!   with `passCriteria.minimumPassRate` (a percent; the run's replaces the suite's), the
//!   iteration pass rate reaches it.
//! - **Rules and reasons.** 400 `NO_SAVED_SERVER_SELECTION`, `ENVIRONMENT_NOT_ATTACHED`
//!   (checked first, before any case is authored or server connected),
//!   `ENVIRONMENT_REQUIRED` (`details.candidates`), `ENVIRONMENT_SERVERS_NOT_OVERRIDABLE`;
//!   409 `CONFLICT` when the environment revision changed between resolution and launch
//!   (or differs from `expectedEnvironmentRevision`); 429 `RATE_LIMITED` reason
//!   `CONCURRENT_RUN_LIMIT` with `Retry-After` beyond the per-organization cap of active
//!   (`pending`/`running`) runs. Import claims: a selected `unsupported` or `unresolved`
//!   case is 400 reason `CASE_NOT_RUNNABLE`; an `approximated` case not listed in the
//!   request's `approvedCaseIds` is 400 reason `APPROXIMATION_NOT_APPROVED` (both with
//!   `details.caseIds`); approvals are stored on the run only. A suite with no cases to run
//!   is 400 reason `NO_CASES`.
//! - **Runner.** Iterations run in plan order (several at once); each finished iteration
//!   is written with its transcript (and the credits it spent) in one transaction. A run
//!   belongs to the process driving it through a lease ([`crate::service::leases`]): an
//!   active run whose lease ran out — its process died, or stopped and gave it up — is
//!   taken over by the next sweep of any process on the store: resumed from its first
//!   unfinished iteration (the transcript of a half-done iteration is discarded), or marked
//!   `failed` with an `error` when resuming is off or its model needed `modelApiKeys`
//!   (keys are never stored).
//! - **Agent loop.** Per `prompt` step: the user message, then model turn → tool calls
//!   executed over MCP → results back, until a turn without tool calls or `turn_cap` turns
//!   for the step. Conversations continue across a case's prompt steps. Tools of several
//!   servers are offered under their names, or `server__tool` when names collide. A
//!   `toolCall` step calls its tool directly (the server is `serverName`, else the server
//!   declaring the tool). A tool-level error or a failed call is recorded and handed back to
//!   the model, not fatal; a model failure ends the iteration as `failed` with `error`.
//! - **Judge.** Goal completion is graded by the configured judge model
//!   (`EVALDECK_JUDGE_MODEL`, none by default) with a PASS/FAIL prompt. `judge.enabled:
//!   false`, no judge model, or no prompt step → `skipped`, never failed. The verdict is
//!   stored in the transcript so regrade reuses it.
//! - **Cancel** (extension `POST eval-runs/{id}/cancel`): stops the run at the next step
//!   boundary; finished iterations keep their verdicts, the rest are `cancelled`, the run
//!   is `cancelled` with `result: null`. Cancelling a terminal run is 409.
//! - **Regrade** (extension `POST eval-runs/{id}/regrade`): grades every stored transcript
//!   again against the run's case snapshot and declarations; terminal runs only (409).

pub mod assertions;
pub mod grade;
pub mod ingest;
mod launch;
mod results;
mod runner;
pub mod scheduler;
pub mod schema;
pub mod transcript;
mod views;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Mutex;

use tokio_util::sync::CancellationToken;

pub use runner::recover;

/// Runner settings; every timer configurable so tests run in milliseconds.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Active runs per organization.
    pub max_concurrent_runs: usize,
    /// `Retry-After` on `CONCURRENT_RUN_LIMIT`.
    pub retry_after_secs: u64,
    /// Model turns per `prompt` step.
    pub turn_cap: u32,
    /// Iterations of one run in flight at once. Iterations share the run's MCP sessions, so
    /// a server whose tools keep state between calls may want 1.
    pub iteration_concurrency: usize,
    /// Credits per started thousand tokens of an iteration on a paid hosted model.
    pub credits_per_1k_tokens: i64,
    /// Resume interrupted runs (else mark them failed). When a run counts as interrupted
    /// is the lease's business ([`crate::service::leases`]).
    pub resume_interrupted: bool,
    /// The judge model id; `None` skips goal-completion grading.
    pub judge_model: Option<String>,
    /// Characters of a tool result handed back to the model.
    pub tool_result_chars: usize,
    /// The system prompt of the agent loop.
    pub system_prompt: String,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            max_concurrent_runs: 2,
            retry_after_secs: 5,
            turn_cap: 8,
            iteration_concurrency: std::env::var("EVALDECK_RUN_CONCURRENCY")
                .ok()
                .and_then(|v| v.parse().ok())
                .filter(|n: &usize| *n >= 1)
                .unwrap_or(4),
            credits_per_1k_tokens: 1,
            resume_interrupted: true,
            judge_model: std::env::var("EVALDECK_JUDGE_MODEL")
                .ok()
                .filter(|s| !s.is_empty()),
            tool_result_chars: 16_000,
            system_prompt: "You are an assistant with access to tools from MCP servers. Use them when they help answer the user, then answer concisely.".into(),
        }
    }
}

/// The runs this process drives: their cancel tokens and tasks.
pub struct Registry {
    /// This process's identity in `eval_runs.owner`.
    pub owner: String,
    tasks: Mutex<HashMap<String, (CancellationToken, tokio::task::AbortHandle)>>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry {
            owner: crate::service::store::new_id("proc"),
            tasks: Mutex::new(HashMap::new()),
        }
    }
}

impl Registry {
    fn insert(&self, run: &str, token: CancellationToken, h: tokio::task::AbortHandle) {
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(run.into(), (token, h));
    }

    fn remove(&self, run: &str) {
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .remove(run);
    }

    fn token(&self, run: &str) -> Option<CancellationToken> {
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(run)
            .map(|(t, _)| t.clone())
    }

    /// Whether this process is driving `run`.
    pub fn is_running(&self, run: &str) -> bool {
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains_key(run)
    }

    /// The runs this process drives now.
    pub fn ids(&self) -> Vec<String> {
        self.tasks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect()
    }

    /// Stops every runner task without recording anything, as a crash would.
    pub fn abort_all(&self) {
        let mut t = self.tasks.lock().unwrap_or_else(|p| p.into_inner());
        for (_, (_, h)) in t.drain() {
            h.abort();
        }
    }
}
