//! The suite list as rendered JSON, kept per project and page request while the project's
//! `suites_version` stays the same. Triggers move that version with every change the list
//! shows, made by any connection or process (migration V11), so a kept page is never
//! stale: the busiest read of dashboards and CI costs an access check and one indexed
//! lookup instead of a query and a serialization.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};

use crate::service::{Principal, Service};
use crate::spec::Result;
use crate::spec::page::PageRequest;

/// Pages kept at most; all are dropped when it is reached (a page is ~20 KB).
const CAPACITY: usize = 256;

type Key = (String, Option<String>, Option<usize>);

#[derive(Default)]
pub struct SuitePages {
    kept: Mutex<HashMap<Key, (i64, Bytes)>>,
}

impl SuitePages {
    /// `GET /projects/{p}/eval-suites`: the kept page if its version still holds, else a
    /// fresh one, kept under the version read *before* listing, so a write landing in
    /// between only costs the next request a refresh.
    pub fn get(
        &self,
        service: &Service,
        who: &Principal,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Response> {
        let version = service.eval_suites_version(who, project_id)?;
        let key = (project_id.to_string(), page.cursor.clone(), page.limit);
        let kept = self.lock().get(&key).cloned();
        if let Some((v, body)) = kept
            && v == version
        {
            return Ok(json(body));
        }
        let listed = service.eval_suites(who, project_id, page)?;
        let body = Bytes::from(serde_json::to_vec(&listed).expect("a page serializes"));
        let mut kept = self.lock();
        if kept.len() >= CAPACITY {
            kept.clear();
        }
        kept.insert(key, (version, body.clone()));
        Ok(json(body))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Key, (i64, Bytes)>> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn json(body: Bytes) -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}
