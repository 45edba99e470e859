//! Extension wire types around `cases/import` (the spec leaves the job paths "not shown"):
//! the drafts of an authoring job, the commit body, and the organization's credits.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::case::{EvalCase, EvalCaseUpdate};
use super::error::Error;
use super::import::DuplicatePolicy;
use super::validate::Checker;

/// Where a draft stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum DraftState {
    /// Authored, not committed yet.
    Draft,
    /// Written by the commit.
    Created,
    /// The commit could not write it; it waits to be finished.
    Skipped,
    /// Written later, from the review of a skipped draft.
    Finished,
    /// Its job was cancelled before the commit.
    Discarded,
}

impl DraftState {
    pub fn as_str(self) -> &'static str {
        match self {
            DraftState::Draft => "draft",
            DraftState::Created => "created",
            DraftState::Skipped => "skipped",
            DraftState::Finished => "finished",
            DraftState::Discarded => "discarded",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "draft" => DraftState::Draft,
            "created" => DraftState::Created,
            "skipped" => DraftState::Skipped,
            "finished" => DraftState::Finished,
            "discarded" => DraftState::Discarded,
            _ => return None,
        })
    }
}

/// One authored draft of a job, as the review screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthoringDraft {
    pub id: String,
    pub job_id: String,
    pub position: i64,
    pub title: String,
    pub state: DraftState,
    /// The proposed case (its `id` is the draft's until it is written).
    pub case: EvalCase,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<String>,
    /// The case written from it (states `created` and `finished`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub case_id: Option<String>,
}

/// Query of the drafts list: `?state=skipped` narrows it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DraftQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<DraftState>,
}

/// Body of the commit path: optionally a different duplicate policy than the request's
/// (the policy is applied at commit, so it may be chosen then).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommitRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_policy: Option<DuplicatePolicy>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub override_reason: Option<String>,
}

impl CommitRequest {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        match (&self.duplicate_policy, &self.override_reason) {
            (_, Some(r)) => c.length("/overrideReason", r, 1, None),
            (Some(p), None) if *p != DuplicatePolicy::Block => c.fail(
                "/overrideReason",
                "required",
                format!("duplicatePolicy `{}` needs an overrideReason", p.as_str()),
            ),
            _ => {}
        }
        c.finish()
    }
}

/// Body of finishing a draft: an optional edit of the proposed case (the partial case edit
/// body; omitted fields keep the draft's values).
pub type FinishDraft = EvalCaseUpdate;

/// One movement of an organization's credits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LedgerEntry {
    pub id: String,
    /// Positive for a grant, negative for spending.
    pub delta: i64,
    /// The balance right after.
    pub balance: i64,
    /// `grant`, `authoring`, `run` (iterations on paid hosted models) or `agent`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub created_at: i64,
}

/// `GET /credits`: the caller's organization's balance and its ledger, newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Credits {
    pub organization_id: String,
    pub balance: i64,
    pub ledger: Vec<LedgerEntry>,
}

/// Query of the earlier-imports lookup: the SHA-256 of the document (lowercase hex).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EarlierImportQuery {
    pub file_hash: String,
}

impl EarlierImportQuery {
    pub fn validate(&self) -> crate::spec::Result<()> {
        let h = &self.file_hash;
        if h.len() != 64
            || !h
                .chars()
                .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))
        {
            return Err(crate::spec::Error::invalid(
                "/fileHash",
                "pattern",
                "fileHash is the SHA-256 of the document: 64 lowercase hex characters",
            ));
        }
        Ok(())
    }
}

/// Extension: an earlier authoring job of a suite for the same document (the same SHA-256
/// of its content), so a client can warn before spending credits on it again and offer
/// that job's review instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EarlierImport {
    pub job_id: String,
    pub status: crate::spec::import::JobStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
    pub file_hash: String,
    pub created_at: i64,
    /// Whether the job's drafts were written into the suite.
    pub committed: bool,
    /// Cases written by its commit, and drafts skipped then.
    pub created: usize,
    pub skipped: usize,
    pub credits_charged: i64,
    /// The job's review: its skipped drafts (committed), or all its drafts (completed,
    /// not committed). Absent when there is nothing to review.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_url: Option<String>,
}
