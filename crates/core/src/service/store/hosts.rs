//! Hosts of a project. Names are unique per project (index `hosts_name`).

use rusqlite::{OptionalExtension, params};
use serde_json::Value;

use super::{Keyset, Store, from_json, is_unique_violation, new_id, now_ms, to_json};
use crate::spec::catalog::Object;
use crate::spec::host::{Host, HostSummary};
use crate::spec::page::{Page, PageRequest};
use crate::spec::{Error, Result};

fn summary(
    id: String,
    name: String,
    config: &Object,
    server_count: i64,
    created_at: i64,
    updated_at: i64,
) -> HostSummary {
    let s = |k: &str| {
        config
            .get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    HostSummary {
        id,
        name,
        host_config_id: s("hostConfigId"),
        model_id: s("modelId"),
        server_count,
        created_at,
        updated_at,
    }
}

/// A duplicate host name in the project (the `hosts_name` unique index) is a 409.
fn name_taken(e: rusqlite::Error, name: &str) -> Error {
    if is_unique_violation(&e) {
        Error::conflict(format!(
            "a host named `{name}` already exists in this project"
        ))
        .with_details(serde_json::json!({ "field": "name" }))
    } else {
        e.into()
    }
}

/// Servers a host reaches: those of the live environments that use it.
const SERVER_COUNT: &str = "(SELECT COUNT(DISTINCT m.server_id) FROM environments e
     JOIN server_group_members m ON m.group_id = e.server_attachment_id
     WHERE e.host_id = h.id AND e.archived_at IS NULL)";

/// The hosts aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait HostStore {
    fn create_host(&self, project_id: &str, name: &str, config: &Object) -> Result<Host>;

    fn host(&self, project_id: &str, id: &str) -> Result<Host>;

    fn hosts(&self, project_id: &str, page: &PageRequest) -> Result<Page<HostSummary>>;

    fn update_host(
        &self,
        project_id: &str,
        id: &str,
        name: Option<&str>,
        config: Option<&Object>,
    ) -> Result<Host>;

    /// Deletes a host no environment uses; one still in use is a 409 naming them.
    fn delete_host(&self, project_id: &str, id: &str) -> Result<()>;
}

impl HostStore for Store {
    fn create_host(&self, project_id: &str, name: &str, config: &Object) -> Result<Host> {
        let id = new_id("hst");
        let now = now_ms();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO hosts (id, project_id, name, config, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![id, project_id, name, to_json(config), now],
            )
            .map_err(|e| name_taken(e, name))?;
            Ok(())
        })?;
        Ok(Host {
            id,
            name: name.into(),
            config: config.clone(),
        })
    }

    fn host(&self, project_id: &str, id: &str) -> Result<Host> {
        let row: Option<(String, String, String)> = self.read(|c| {
            Ok(c.prepare_cached(
                "SELECT id, name, config FROM hosts WHERE project_id = ?1 AND id = ?2",
            )?
            .query_row(params![project_id, id], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?))
            })
            .optional()?)
        })?;
        let (id, name, config) = row.ok_or_else(|| Error::not_found("host", id))?;
        Ok(Host {
            id,
            name,
            config: from_json(&config)?,
        })
    }

    fn hosts(&self, project_id: &str, page: &PageRequest) -> Result<Page<HostSummary>> {
        let ks = Keyset::new(page)?;
        let rows: Vec<(String, String, String, i64, i64, i64)> = self.read(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT h.id, h.name, h.config, {SERVER_COUNT}, h.created_at, h.updated_at FROM hosts h
                 WHERE h.project_id = ?1 AND (h.created_at, h.id) > (?2, ?3) ORDER BY h.created_at, h.id LIMIT ?4"
            ))?;
            let rows = st.query_map(params![project_id, ks.after_ts, ks.after_id, ks.fetch()], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?))
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })?;
        let items = rows
            .into_iter()
            .map(|(id, name, cfg, n, c, u)| Ok(summary(id, name, &from_json(&cfg)?, n, c, u)))
            .collect::<Result<Vec<_>>>()?;
        Ok(ks.page(items, |h| (h.created_at, h.id.clone())))
    }

    fn update_host(
        &self,
        project_id: &str,
        id: &str,
        name: Option<&str>,
        config: Option<&Object>,
    ) -> Result<Host> {
        let n = self.write(|tx| {
            tx.execute(
                "UPDATE hosts SET name = COALESCE(?3, name), config = COALESCE(?4, config), updated_at = ?5
                 WHERE project_id = ?1 AND id = ?2",
                params![project_id, id, name, config.map(to_json), now_ms()],
            )
            .map_err(|e| name_taken(e, name.unwrap_or_default()))
        })?;
        if n == 0 {
            return Err(Error::not_found("host", id));
        }
        self.host(project_id, id)
    }

    fn delete_host(&self, project_id: &str, id: &str) -> Result<()> {
        self.write(|tx| {
            let users: Vec<String> = tx
                .prepare(
                    "SELECT name FROM environments WHERE project_id = ?1 AND host_id = ?2 ORDER BY name",
                )?
                .query_map(params![project_id, id], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?;
            if !users.is_empty() {
                return Err(Error::conflict(format!(
                    "the host is used by environments: {}; point them at another host first",
                    users.join(", ")
                ))
                .with_details(serde_json::json!({ "environments": users })));
            }
            let n = tx.execute(
                "DELETE FROM hosts WHERE project_id = ?1 AND id = ?2",
                params![project_id, id],
            )?;
            if n == 0 {
                return Err(Error::not_found("host", id));
            }
            Ok(())
        })
    }
}
