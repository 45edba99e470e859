//! `evaldeck check`: the conformance report of one MCP server, the catalog entry each check
//! is declared with, and the expected-failures baseline a team adopts it with.
//!
//! Not part of `/api/v1` (the spec lists conformance suites among what the API does not
//! offer): a check runs where the MCP connection is made — the embedded core, for saved
//! servers and unsaved targets — and its report is written by the CLI as a table, JSON,
//! JUnit, SARIF, Markdown or HTML.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spec::primitives::ExportSnapshot;
use crate::spec::scan::Finding;

/// The result of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Passed,
    Failed,
    /// The check does not apply: another revision, another transport, a capability the
    /// server does not declare, nothing of the kind to look at.
    NotApplicable,
    /// The check could not be made (the connection failed, a request it needs timed out).
    CouldNotRun,
}

impl Outcome {
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::NotApplicable => "not applicable",
            Outcome::CouldNotRun => "could not run",
        }
    }
}

/// A check as the catalog declares it: a stable id, never reused for another rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckSpec {
    /// `area.rule`, e.g. `pagination.tools`.
    pub id: &'static str,
    pub title: &'static str,
    /// The protocol revisions the rule belongs to.
    pub revisions: &'static [&'static str],
    /// Where the rule is written down (a section of the MCP specification).
    pub reference: &'static str,
}

impl CheckSpec {
    /// The part of the id before the first dot.
    pub fn area(&self) -> &'static str {
        self.id.split('.').next().unwrap_or(self.id)
    }
}

/// One piece of evidence: what was sent or seen, and where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    pub message: String,
    /// What it concerns: `tool:echo`, `prompt:greeting`, `resource:demo://readme`,
    /// `request:tools/list`, `http:POST`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// The JSON that shows it (an answer, an error, a schema).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Evidence {
    pub fn new(message: impl Into<String>) -> Evidence {
        Evidence {
            message: message.into(),
            location: None,
            data: None,
        }
    }
    pub fn at(mut self, location: impl Into<String>) -> Evidence {
        self.location = Some(location.into());
        self
    }
    pub fn with(mut self, data: Value) -> Evidence {
        self.data = Some(data);
        self
    }
}

/// The result of one check.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckResult {
    pub id: String,
    pub area: String,
    pub title: String,
    pub revisions: Vec<String>,
    pub outcome: Outcome,
    /// One line: why it passed, failed, does not apply or could not run.
    pub summary: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Evidence>,
    /// A failure (or a check that could not run) the baseline expects.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub baselined: bool,
    pub duration_ms: u64,
}

/// Counts of a report's results.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckSummary {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub not_applicable: usize,
    pub could_not_run: usize,
    /// Failures and checks that could not run which the baseline expects.
    pub baselined: usize,
    /// Baseline entries whose check now passes: remove them from the baseline.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale_baseline: Vec<String>,
}

/// One tool call the check made, kept for the report and for the scan of its result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCallRecord {
    pub tool: String,
    pub arguments: Value,
    /// The `CallToolResult` as the server sent it, or `{error}` when the call failed.
    pub result: Value,
    pub duration_ms: u64,
}

/// `evaldeck check`'s report. Its JSON is what `--json` prints, what `evaldeck report`
/// reads back, and what `diff` and `scan` accept as a snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReport {
    /// `evaldeck/check-report`.
    pub kind: String,
    /// The server as named on the command line (a saved name, or `adhoc-…`).
    pub server: String,
    /// `stdio`, `http` or `sse`.
    pub transport: String,
    /// The command line or URL.
    pub target: String,
    /// The revision the session negotiated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
    /// ISO 8601 date-time.
    pub generated_at: String,
    pub duration_ms: u64,
    pub summary: CheckSummary,
    pub results: Vec<CheckResult>,
    /// The security scan of what the server lists and of the results of the calls below.
    #[serde(default)]
    pub findings: Vec<Finding>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<ToolCallRecord>,
    /// What the server listed during the check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<ExportSnapshot>,
    /// What changed since the last check of this saved server (its snapshot is kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drift: Option<crate::spec::drift::DriftReport>,
}

/// The value of [`CheckReport::kind`].
pub const REPORT_KIND: &str = "evaldeck/check-report";

impl CheckReport {
    /// Counts the results, marking those the baseline expects.
    pub fn apply_baseline(&mut self, baseline: Option<&Baseline>) {
        let mut s = CheckSummary {
            total: self.results.len(),
            ..Default::default()
        };
        for r in &mut self.results {
            r.baselined = matches!(r.outcome, Outcome::Failed | Outcome::CouldNotRun)
                && baseline.is_some_and(|b| b.expects(&r.id));
            if r.baselined {
                s.baselined += 1;
            }
            match r.outcome {
                Outcome::Passed => s.passed += 1,
                Outcome::Failed => s.failed += 1,
                Outcome::NotApplicable => s.not_applicable += 1,
                Outcome::CouldNotRun => s.could_not_run += 1,
            }
        }
        if let Some(b) = baseline {
            s.stale_baseline = b
                .expected_failures
                .iter()
                .filter(|e| {
                    self.results
                        .iter()
                        .any(|r| r.id == e.id && r.outcome == Outcome::Passed)
                })
                .map(|e| e.id.clone())
                .collect();
        }
        self.summary = s;
    }

    /// The process exit code: 0 when nothing failed or every failure is baselined, 1 for
    /// a failure, 2 when a check could not run (and nothing failed).
    pub fn exit_code(&self) -> i32 {
        let open = |o: Outcome| self.results.iter().any(|r| r.outcome == o && !r.baselined);
        if open(Outcome::Failed) {
            1
        } else if open(Outcome::CouldNotRun) {
            2
        } else {
            0
        }
    }
}

/// The expected-failures baseline: checks a team knows fail and has not fixed yet. A
/// failure it lists does not fail the run; an entry whose check passes is reported stale.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Baseline {
    /// Format version: 1.
    #[serde(rename = "evaldeck/baseline")]
    pub version: u32,
    pub expected_failures: Vec<ExpectedFailure>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExpectedFailure {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl Baseline {
    pub fn expects(&self, id: &str) -> bool {
        self.expected_failures.iter().any(|e| e.id == id)
    }

    /// A baseline of every failure (and check that could not run) in `report`.
    pub fn of(report: &CheckReport) -> Baseline {
        Baseline {
            version: 1,
            expected_failures: report
                .results
                .iter()
                .filter(|r| matches!(r.outcome, Outcome::Failed | Outcome::CouldNotRun))
                .map(|r| ExpectedFailure {
                    id: r.id.clone(),
                    reason: Some(r.summary.clone()),
                })
                .collect(),
        }
    }
}

/// What `evaldeck check` asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckRequest {
    /// Only these checks: ids, areas (`pagination`) or globs (`tools.name-*`); all when
    /// empty.
    #[serde(default)]
    pub only: Vec<String>,
    /// Call the server's read-only tools (`readOnlyHint: true`) with arguments made from
    /// their schemas, to check their results and scan them.
    pub calls: bool,
    /// How long one request may take, in milliseconds.
    pub request_timeout_ms: u64,
    /// The lock file `pins.unchanged` holds the tools to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pins: Option<crate::spec::drift::PinFile>,
    /// Snapshots of other servers, for the scan's shadowing rule.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub others: Vec<ExportSnapshot>,
}

impl Default for CheckRequest {
    fn default() -> Self {
        CheckRequest {
            only: vec![],
            calls: true,
            request_timeout_ms: 10_000,
            pins: None,
            others: vec![],
        }
    }
}

/// The one-line count of a check report.
pub fn check_counts(r: &CheckReport) -> String {
    let s = &r.summary;
    let mut line = format!(
        "{} checks: {} passed, {} failed, {} not applicable, {} could not run",
        s.total, s.passed, s.failed, s.not_applicable, s.could_not_run
    );
    if s.baselined > 0 {
        let _ = std::fmt::Write::write_fmt(&mut line, format_args!(" ({} baselined)", s.baselined));
    }
    line
}
