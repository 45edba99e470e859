//! Uploaded artifacts read back: the rows of `ingest_uploads` whose URL was used, by storage
//! id within a project. An unused URL, or one of another project, is not an artifact here.
//! A widget's HTML that came inline in a result is kept as such a row too (no URL behind it).

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::identity::Principal;
use super::{Store, new_id, now_ms};
use crate::spec::Result;

/// What is known of a stored artifact without its content.
#[derive(Debug, Clone, PartialEq)]
pub struct ArtifactMeta {
    pub kind: String,
    pub size: i64,
    pub sha256: String,
}

/// A stored artifact with its content.
#[derive(Debug, Clone)]
pub struct StoredArtifactRow {
    pub id: String,
    pub meta: ArtifactMeta,
    pub uploaded_at: i64,
    pub run_id: Option<String>,
    pub content: Vec<u8>,
}

/// A widget snapshot that came inline, to keep in `project_id` as `who` sent it.
pub struct InlineWidget<'a> {
    pub who: &'a Principal,
    pub project_id: &'a str,
    pub sha256: &'a str,
    pub content: &'a [u8],
}

const USED: &str = "project_id = ?1 AND id = ?2 AND used_at IS NOT NULL AND kind IS NOT NULL";

/// The artifacts aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait ArtifactStore {
    /// The artifacts among `ids` the project holds (ids it does not hold are left out).
    fn artifact_metas(
        &self,
        project_id: &str,
        ids: &[&str],
    ) -> Result<HashMap<String, ArtifactMeta>>;

    /// Keeps an inline widget as a used upload row and returns its storage id; the same HTML
    /// already kept in the project is reused, so a retried report stores nothing new.
    fn keep_inline_widget(&self, w: &InlineWidget<'_>) -> Result<String>;

    /// One stored artifact of the project, with its content.
    fn artifact(&self, project_id: &str, id: &str) -> Result<Option<StoredArtifactRow>>;
}

impl ArtifactStore for Store {
    fn artifact_metas(
        &self,
        project_id: &str,
        ids: &[&str],
    ) -> Result<HashMap<String, ArtifactMeta>> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        self.read(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT kind, size, sha256 FROM ingest_uploads WHERE {USED}"
            ))?;
            let mut out = HashMap::new();
            for id in ids {
                let meta = st
                    .query_row(params![project_id, id], |r| {
                        Ok(ArtifactMeta {
                            kind: r.get(0)?,
                            size: r.get::<_, Option<i64>>(1)?.unwrap_or(0),
                            sha256: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                        })
                    })
                    .optional()?;
                if let Some(m) = meta {
                    out.insert(id.to_string(), m);
                }
            }
            Ok(out)
        })
    }

    fn keep_inline_widget(&self, w: &InlineWidget<'_>) -> Result<String> {
        self.write(|tx| {
            let known: Option<String> = tx
                .query_row(
                    "SELECT id FROM ingest_uploads WHERE project_id = ?1 AND kind = 'widget' AND sha256 = ?2 AND used_at IS NOT NULL
                     ORDER BY created_at, id LIMIT 1",
                    params![w.project_id, w.sha256],
                    |r| r.get(0),
                )
                .optional()?;
            if let Some(id) = known {
                return Ok(id);
            }
            let id = new_id("art");
            let now = now_ms();
            // No token was minted: the hash column holds a value no token hashes to.
            tx.execute(
                "INSERT INTO ingest_uploads (id, token_hash, org_id, project_id, user_id, org_role, request, expires_at, created_at, used_at, kind, size, sha256, content)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, '{\"kind\":\"widget\",\"inline\":true}', ?7, ?7, ?7, 'widget', ?8, ?9, ?10)",
                params![id, format!("inline:{id}"), w.who.org_id, w.project_id, w.who.user_id, w.who.org_role, now, w.content.len() as i64, w.sha256, w.content],
            )?;
            Ok(id)
        })
    }

    fn artifact(&self, project_id: &str, id: &str) -> Result<Option<StoredArtifactRow>> {
        self.read(|c| {
            Ok(c.prepare_cached(&format!(
                "SELECT kind, size, sha256, used_at, run_id, content FROM ingest_uploads WHERE {USED}"
            ))?
            .query_row(params![project_id, id], |r| {
                Ok(StoredArtifactRow {
                    id: id.to_string(),
                    meta: ArtifactMeta {
                        kind: r.get(0)?,
                        size: r.get::<_, Option<i64>>(1)?.unwrap_or(0),
                        sha256: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
                    },
                    uploaded_at: r.get(3)?,
                    run_id: r.get(4)?,
                    content: r.get::<_, Option<Vec<u8>>>(5)?.unwrap_or_default(),
                })
            })
            .optional()?)
        })
    }
}
