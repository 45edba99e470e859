//! Upload URLs (`artifacts/upload-url`) and what a POST to one does.
//!
//! The URL is `{origin}/api/v1/eval-ingest/uploads/{token}`: the token (256 random bits) is
//! the authorization, so the client sends no API key; only its SHA-256 is stored. It expires
//! after `ingest.upload_ttl` (15 minutes by default) and works once: a file that is refused
//! (too large, not a report) does not use it up, an accepted one does, in the same
//! transaction that stores the results. Unknown, expired and used tokens are 401
//! `UNAUTHORIZED` with `details.reason` `UPLOAD_URL_INVALID`, `UPLOAD_URL_EXPIRED` and
//! `UPLOAD_URL_USED`. The upload acts with the minting member's access, checked again.
//!
//! The file becomes iterations of the request's `runId` (an open ingested run; it stays
//! open), else of the run with the request's `externalRunId` (created if new), else of a new
//! run with external id `upload:{storageId}`; those last two are finalized. The suite is the
//! request's `suiteName`, else the report's own name, else `JUnit uploads` (`Jest uploads`,
//! `Vitest uploads`). The artifact itself is kept with the upload row (`storageId`).
//!
//! A widget snapshot (`kind: "widget"` at minting, else a `text/html` body or one that reads
//! as an HTML document: [`crate::spec::artifacts::widget`]) is stored the same way but
//! makes no run, and the answer is `200 {ok: true, storageId, kind: "widget", contentType,
//! bytes, sha256}` (the SDK reads `storageId`). One over 4 MiB is refused like any oversize
//! artifact (400 `VALIDATION_ERROR`, rule `maxBodySize`) and leaves the URL unused.

use rand::RngCore;

use super::widgets::sha256;
use super::{IngestRun, finalize_tx, iteration};
use crate::service::store::ingest::{self as db, NewUpload, UploadedArtifact, ingest_write};
use crate::service::store::now_ms;
use crate::service::store::projects::ProjectRole;
use crate::service::{Principal, Service};
use crate::spec::artifacts;
use crate::spec::case::sha256_hex;
use crate::spec::ingest::{
    ArtifactIngested, ArtifactKind, ArtifactUploaded, IngestBody, RunFields, UploadUrl,
    UploadUrlRequest,
};
use crate::spec::{Code, Error, Result};

/// The path an upload URL points at, under the origin (`{token}` appended).
pub const UPLOAD_PATH: &str = "/api/v1/eval-ingest/uploads/";

fn unauthorized(message: &str, reason: &str) -> Error {
    Error::unauthorized(message).with_reason(reason)
}

fn default_suite(kind: ArtifactKind) -> &'static str {
    match kind {
        ArtifactKind::Junit => "JUnit uploads",
        ArtifactKind::Jest => "Jest uploads",
        ArtifactKind::Vitest => "Vitest uploads",
        ArtifactKind::Widget => "Widget uploads",
    }
}

impl Service {
    /// `artifacts/upload-url`: mints a single-use URL. `origin` is where the HTTP layer was
    /// reached (used when no public URL is configured); the embedded backend passes none and
    /// gets 422 `FEATURE_NOT_SUPPORTED` (reason `NO_UPLOAD_SERVER`): nothing would serve it.
    pub fn ingest_upload_url(
        &self,
        who: &Principal,
        project: &str,
        body: &UploadUrlRequest,
        origin: Option<&str>,
    ) -> Result<UploadUrl> {
        body.check()?;
        let project = self.ingest_project(who, project)?;
        if let Some(run_id) = &body.run_id {
            let run = self.ingested_run(&project, run_id)?;
            if run.status != "running" {
                return Err(Error::conflict(format!(
                    "the run is already `{}`: it accepts no more results",
                    run.status
                ))
                .with_reason("RUN_FINALIZED"));
            }
        }
        let cfg = &self.config().ingest;
        let origin = cfg.public_url.as_deref().or(origin).ok_or_else(|| {
            Error::new(
                Code::FeatureNotSupported,
                "upload URLs are served by `evaldeck serve`; with the embedded store, ingest the file directly (`evaldeck ingest junit FILE --suite S`)",
            )
            .with_reason("NO_UPLOAD_SERVER")
        })?;
        let mut bytes = [0u8; 32];
        rand::rng().fill_bytes(&mut bytes);
        let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let token = format!("upl_{token}");
        let expires_at = now_ms() + cfg.upload_ttl.as_millis() as i64;
        let request = serde_json::to_value(body).expect("serializes");
        self.store().create_upload(&NewUpload {
            token_hash: &sha256_hex(&token),
            org_id: &who.org_id,
            project_id: &project,
            user_id: &who.user_id,
            org_role: &who.org_role,
            request: &request,
            expires_at,
        })?;
        Ok(UploadUrl {
            ok: true,
            upload_url: format!("{}{UPLOAD_PATH}{token}", origin.trim_end_matches('/')),
            expires_at,
        })
    }

    /// The upload a token names, if it may still be used: 401 `UPLOAD_URL_INVALID`,
    /// `UPLOAD_URL_USED` or `UPLOAD_URL_EXPIRED` otherwise. The HTTP layer asks this before
    /// it reads a byte of the body, so an unknown token costs one indexed read.
    pub fn upload_token(&self, token: &str) -> Result<db::StoredUpload> {
        let up = self
            .store()
            .upload_by_hash(&sha256_hex(token))?
            .ok_or_else(|| {
                unauthorized(
                    "this upload URL is not valid: mint one with artifacts/upload-url",
                    "UPLOAD_URL_INVALID",
                )
            })?;
        if up.used_at.is_some() {
            return Err(unauthorized(
                "this upload URL was already used; mint a new one",
                "UPLOAD_URL_USED",
            ));
        }
        if now_ms() > up.expires_at {
            return Err(unauthorized(
                "this upload URL has expired; mint a new one",
                "UPLOAD_URL_EXPIRED",
            ));
        }
        Ok(up)
    }

    /// A POST to an upload URL: checks the token, reads the file, stores its results (or,
    /// for a widget snapshot, the file alone). `content_type` is the request's header.
    pub fn ingest_upload(
        &self,
        token: &str,
        content_type: Option<&str>,
        content: &[u8],
    ) -> Result<ArtifactUploaded> {
        let up = self.upload_token(token)?;
        let max = self.config().ingest.max_artifact_bytes;
        if content.len() > max {
            return Err(Error::invalid(
                "",
                "maxBodySize",
                format!(
                    "the artifact is {} bytes; at most {max} bytes are accepted",
                    content.len()
                ),
            ));
        }
        let who = Principal {
            user_id: up.user_id.clone(),
            org_id: up.org_id.clone(),
            org_role: up.org_role.clone(),
            key_id: None,
        };
        self.store()
            .project_access(&who, &up.project_id, ProjectRole::Member)?;
        let req: UploadUrlRequest = serde_json::from_value(up.request.clone())
            .map_err(|e| Error::internal(format!("corrupt upload request: {e}")))?;
        if artifacts::widget::is_widget(req.kind, content_type, content) {
            return self
                .store_widget(&up, content)
                .map(ArtifactUploaded::Widget);
        }
        let parsed = artifacts::parse(req.kind, content)?;
        let items: Vec<_> = parsed.results.iter().map(iteration).collect();
        let sha = sha256(content);
        let project = up.project_id.clone();
        let fields = RunFields {
            suite_name: req
                .suite_name
                .clone()
                .or_else(|| parsed.suite_name.clone())
                .map(|s| artifacts::clip(&s, crate::spec::ingest::MAX_SUITE_NAME))
                .unwrap_or_else(|| default_suite(parsed.kind).into()),
            external_run_id: req
                .external_run_id
                .clone()
                .unwrap_or_else(|| format!("upload:{}", up.id)),
            framework: Some(parsed.kind.as_str().into()),
            ..RunFields::default()
        };
        let run_body = self.ingest_body(&who, &project, &fields);
        let (run_id, inserted, skipped) = ingest_write(self.store(), |tx| {
            let (run_id, finalize) = match &req.run_id {
                Some(id) => (id.clone(), false),
                None => (
                    self.ingest_begin(tx, &who, &project, &fields, &run_body)?
                        .run_id,
                    true,
                ),
            };
            let (inserted, skipped) = tx.append(&run_id, &items)?;
            if finalize {
                finalize_tx(tx, &run_id, false)?;
            }
            let stored = UploadedArtifact {
                kind: parsed.kind.as_str(),
                sha256: &sha,
                content,
                run_id: Some(&run_id),
            };
            if !tx.consume_upload(&up.id, &stored)? {
                return Err(unauthorized(
                    "this upload URL was already used; mint a new one",
                    "UPLOAD_URL_USED",
                ));
            }
            Ok((run_id, inserted, skipped))
        })?;
        let IngestRun {
            suite_id,
            status,
            result,
            summary,
            ..
        } = self.ingest_answer(&project, &run_id, false)?;
        tracing::info!(storage = %up.id, run = %run_id, kind = parsed.kind.as_str(), inserted, skipped, "artifact ingested");
        Ok(ArtifactUploaded::Report(ArtifactIngested {
            ok: true,
            storage_id: up.id,
            kind: parsed.kind,
            suite_id,
            run_id,
            inserted,
            skipped,
            not_run: parsed.not_run as i64,
            status,
            result,
            summary,
        }))
    }
}
