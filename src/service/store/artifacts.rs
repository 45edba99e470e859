//! Uploaded artifacts read back: the rows of `ingest_uploads` whose URL was used, by storage
//! id within a project. An unused URL, or one of another project, is not an artifact here.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::Store;
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

const USED: &str = "project_id = ?1 AND id = ?2 AND used_at IS NOT NULL AND kind IS NOT NULL";

impl Store {
    /// The artifacts among `ids` the project holds (ids it does not hold are left out).
    pub fn artifact_metas(
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

    /// One stored artifact of the project, with its content.
    pub fn artifact(&self, project_id: &str, id: &str) -> Result<Option<StoredArtifactRow>> {
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
