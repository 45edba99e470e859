//! Widget snapshots on the service side: a widget uploaded to an upload URL is stored as
//! sent (no run), results name snapshots by storage id and keep them resolved on their
//! iteration, and any uploaded artifact reads back by id. A snapshot sent inline (the
//! SDK's fallback when its upload failed) is kept as if it had been uploaded, so no result
//! loses its widget. The shapes are in [`crate::spec::widget_snapshot`] and
//! [`crate::spec::artifacts::widget`].

use std::collections::HashMap;

use sha2::Digest;

use crate::service::store::artifacts::{ArtifactMeta, InlineWidget};
use crate::service::store::ingest::{
    NewIngestIteration, StoredUpload, UploadedArtifact, ingest_write,
};
use crate::service::{Principal, Service};
use crate::spec::artifacts::widget;
use crate::spec::ingest::{ArtifactKind, IngestResult, StoredArtifact, WidgetStored};
use crate::spec::widget_snapshot::{WidgetSnapshot, WidgetSnapshotRef};
use crate::spec::{Error, Result};

pub(super) fn sha256(content: &[u8]) -> String {
    sha2::Sha256::digest(content)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// How an artifact of `kind` is served back.
fn content_type(kind: ArtifactKind) -> &'static str {
    match kind {
        ArtifactKind::Junit => "application/xml",
        ArtifactKind::Jest | ArtifactKind::Vitest => "application/json",
        ArtifactKind::Widget => widget::CONTENT_TYPE,
    }
}

/// A reference as the iteration shows it: found only when the id names a widget.
fn resolve(r: &WidgetSnapshotRef, found: &HashMap<String, ArtifactMeta>) -> WidgetSnapshot {
    let mut s = WidgetSnapshot::described(r);
    let meta = r.storage_id.as_ref().and_then(|id| found.get(id));
    if let Some(m) = meta.filter(|m| m.kind == ArtifactKind::Widget.as_str()) {
        s.found = true;
        s.kind = Some(ArtifactKind::Widget);
        s.content_type = Some(widget::CONTENT_TYPE.into());
        s.bytes = Some(m.size);
        s.sha256 = Some(m.sha256.clone());
    }
    s
}

impl Service {
    /// Stores the upload's body as a widget snapshot and uses the URL up.
    pub(super) fn store_widget(&self, up: &StoredUpload, content: &[u8]) -> Result<WidgetStored> {
        widget::check(content)?;
        let sha = sha256(content);
        let stored = UploadedArtifact {
            kind: ArtifactKind::Widget.as_str(),
            sha256: &sha,
            content,
            run_id: None,
        };
        if !ingest_write(self.store(), |tx| tx.consume_upload(&up.id, &stored))? {
            return Err(
                Error::unauthorized("this upload URL was already used; mint a new one")
                    .with_reason("UPLOAD_URL_USED"),
            );
        }
        tracing::info!(storage = %up.id, bytes = content.len(), "widget snapshot stored");
        Ok(WidgetStored {
            ok: true,
            storage_id: up.id.clone(),
            kind: ArtifactKind::Widget,
            content_type: widget::CONTENT_TYPE.into(),
            bytes: content.len() as i64,
            sha256: sha,
        })
    }

    /// The results' snapshot references, with inline HTML kept and named by its new id.
    /// HTML that is not a valid widget (empty, over 4 MiB) stays unnamed: shown not found.
    fn keep_inline(
        &self,
        who: &Principal,
        project: &str,
        results: &[IngestResult],
    ) -> Result<Vec<Vec<WidgetSnapshotRef>>> {
        let mut out = Vec::with_capacity(results.len());
        for r in results {
            let mut refs = r.widget_snapshots.clone().unwrap_or_default();
            for w in refs.iter_mut() {
                let Some(html) = w.widget_html.take() else {
                    continue;
                };
                if w.storage_id.is_some() || widget::check(html.as_bytes()).is_err() {
                    continue;
                }
                let id = self.store().keep_inline_widget(&InlineWidget {
                    who,
                    project_id: project,
                    sha256: &sha256(html.as_bytes()),
                    content: html.as_bytes(),
                })?;
                w.storage_id = Some(id);
            }
            out.push(refs);
        }
        Ok(out)
    }

    /// Puts each result's resolved `widgetSnapshots` on its iteration (`items` are the
    /// results' rows, in order). An empty list adds nothing.
    pub(super) fn attach_snapshots(
        &self,
        who: &Principal,
        project: &str,
        results: &[IngestResult],
        items: &mut [NewIngestIteration],
    ) -> Result<()> {
        let refs = self.keep_inline(who, project, results)?;
        let ids: Vec<&str> = refs
            .iter()
            .flatten()
            .filter_map(|w| w.storage_id.as_deref())
            .collect();
        let found = self.store().artifact_metas(project, &ids)?;
        for (list, it) in refs.iter().zip(items.iter_mut()) {
            if list.is_empty() {
                continue;
            }
            let shots: Vec<WidgetSnapshot> = list.iter().map(|w| resolve(w, &found)).collect();
            it.body["widgetSnapshots"] = serde_json::to_value(shots).expect("serializes");
        }
        Ok(())
    }

    /// `GET eval-ingest/artifacts/{storageId}`: an uploaded artifact of the project (404 for
    /// an unknown id, an unused URL's, or another project's).
    pub fn ingest_artifact(
        &self,
        who: &Principal,
        project: &str,
        storage_id: &str,
    ) -> Result<StoredArtifact> {
        let project = self.ingest_project(who, project)?;
        let row = self
            .store()
            .artifact(&project, storage_id)?
            .ok_or_else(|| Error::not_found("artifact", storage_id))?;
        let kind = ArtifactKind::parse(&row.meta.kind).ok_or_else(|| {
            Error::internal(format!("artifact `{storage_id}` has an unknown kind"))
        })?;
        Ok(StoredArtifact {
            ok: true,
            storage_id: row.id,
            kind,
            content_type: content_type(kind).into(),
            bytes: row.meta.size,
            sha256: row.meta.sha256,
            uploaded_at: row.uploaded_at,
            run_id: row.run_id,
            content: String::from_utf8_lossy(&row.content).into_owned(),
        })
    }
}
