//! Environments, with revision-guarded writes, and the plugins and skills they pin.

use rusqlite::{OptionalExtension, Row, Transaction, params};

use super::{Keyset, Store, from_json, is_unique_violation, new_id, now_ms, to_json};
use crate::spec::environment::{
    Environment, EnvironmentCreate, EnvironmentPatch, EnvironmentQuery, PluginVersionRef,
    SkillSelection,
};
use crate::spec::page::{Page, PageRequest};
use crate::spec::{Error, Result};

const COLUMNS: &str = "id, project_id, name, description, host_id, server_attachment_id, model_id,
    skill_selection, plugin_version_ids, revision, archived_at, created_at, updated_at, roots";

/// An environment row, with its JSON columns (skills, pins, roots) still to parse.
type EnvRow = (Environment, Option<String>, Option<String>, Option<String>);

fn row_to_env(r: &Row) -> rusqlite::Result<EnvRow> {
    let archived_at: Option<i64> = r.get(10)?;
    Ok((
        Environment {
            id: r.get(0)?,
            project_id: r.get(1)?,
            name: r.get(2)?,
            description: r.get(3)?,
            host_id: r.get(4)?,
            server_attachment_id: r.get(5)?,
            model_id: r.get(6)?,
            skill_selection: None,
            plugin_version_ids: None,
            roots: None,
            revision: r.get(9)?,
            archived: archived_at.is_some(),
            archived_at,
            created_at: r.get(11)?,
            updated_at: r.get(12)?,
        },
        r.get(7)?,
        r.get(8)?,
        r.get(13)?,
    ))
}

fn finish((mut e, skills, pins, roots): EnvRow) -> Result<Environment> {
    e.skill_selection = skills.map(|s| from_json(&s)).transpose()?;
    e.plugin_version_ids = pins.map(|s| from_json(&s)).transpose()?;
    e.roots = roots.map(|s| from_json(&s)).transpose()?;
    Ok(e)
}

fn get(tx: &rusqlite::Connection, project_id: &str, id: &str) -> Result<Environment> {
    let row = tx
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM environments WHERE project_id = ?1 AND id = ?2"
        ))?
        .query_row(params![project_id, id], row_to_env)
        .optional()?;
    finish(row.ok_or_else(|| Error::not_found("environment", id))?)
}

fn name_taken(e: rusqlite::Error, name: &str) -> Error {
    if is_unique_violation(&e) {
        Error::conflict(format!(
            "an environment named `{name}` already exists in this project"
        ))
        .with_details(serde_json::json!({ "field": "name" }))
    } else {
        e.into()
    }
}

fn plugin_by_name(tx: &Transaction, project_id: &str, name: &str) -> Result<String> {
    let existing: Option<String> = tx
        .query_row(
            "SELECT id FROM plugins WHERE project_id = ?1 AND name = ?2 ORDER BY created_at LIMIT 1",
            params![project_id, name],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(id) = existing {
        return Ok(id);
    }
    let id = new_id("plg");
    tx.execute(
        "INSERT INTO plugins (id, project_id, name, created_at) VALUES (?1, ?2, ?3, ?4)",
        params![id, project_id, name, now_ms()],
    )?;
    Ok(id)
}

fn insert_plugin_version(
    tx: &Transaction,
    plugin_id: &str,
    version: &str,
    bundle_hash: &str,
) -> Result<String> {
    let id = new_id("plv");
    tx.execute(
        "INSERT INTO plugin_versions (id, plugin_id, version, bundle_hash, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![id, plugin_id, version, bundle_hash, now_ms()],
    )?;
    Ok(id)
}

fn exists(tx: &Transaction, sql: &str, project_id: &str, id: &str) -> Result<bool> {
    Ok(tx
        .query_row(sql, params![project_id, id], |_| Ok(()))
        .optional()?
        .is_some())
}

/// Checks that every id the environment references lives in the same project.
fn check_refs(
    tx: &Transaction,
    project_id: &str,
    host_id: &str,
    group: Option<&str>,
    skills: Option<&SkillSelection>,
    pins: Option<&[String]>,
) -> Result<()> {
    let mut c = crate::spec::validate::Checker::new();
    if !exists(
        tx,
        "SELECT 1 FROM hosts WHERE project_id = ?1 AND id = ?2",
        project_id,
        host_id,
    )? {
        c.fail(
            "/hostId",
            "exists",
            format!("no host `{host_id}` in this project"),
        );
    }
    if let Some(g) = group
        && !exists(
            tx,
            "SELECT 1 FROM server_groups WHERE project_id = ?1 AND id = ?2",
            project_id,
            g,
        )?
    {
        c.fail(
            "/serverAttachmentId",
            "exists",
            format!("no server group `{g}` in this project"),
        );
    }
    for (i, s) in skills
        .map(|s| s.skill_ids.as_slice())
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        if !exists(
            tx,
            "SELECT 1 FROM skills WHERE project_id = ?1 AND id = ?2",
            project_id,
            s,
        )? {
            c.fail(
                format!("/skillSelection/skillIds/{i}"),
                "exists",
                format!("no skill `{s}` in this project"),
            );
        }
    }
    for (i, p) in pins.unwrap_or_default().iter().enumerate() {
        let sql = "SELECT 1 FROM plugin_versions v JOIN plugins p ON p.id = v.plugin_id WHERE p.project_id = ?1 AND v.id = ?2";
        if !exists(tx, sql, project_id, p)? {
            c.fail(
                format!("/pluginVersionIds/{i}"),
                "exists",
                format!("no plugin version `{p}` in this project"),
            );
        }
    }
    c.finish()
}

fn guard(env: &Environment, expected: i64) -> Result<()> {
    if env.revision != expected {
        return Err(Error::conflict(format!(
            "the environment changed since revision {expected}; it is now at revision {}",
            env.revision
        ))
        .with_details(
            serde_json::json!({ "expectedRevision": expected, "currentRevision": env.revision }),
        ));
    }
    Ok(())
}

/// The environments aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait EnvironmentStore {
    fn create_environment(&self, project_id: &str, body: &EnvironmentCreate)
    -> Result<Environment>;

    fn environment(&self, project_id: &str, id: &str) -> Result<Environment>;

    fn environments(&self, project_id: &str, q: &EnvironmentQuery) -> Result<Page<Environment>>;

    fn update_environment(
        &self,
        project_id: &str,
        id: &str,
        p: &EnvironmentPatch,
    ) -> Result<Environment>;

    fn archive_environment(&self, project_id: &str, id: &str, expected: i64)
    -> Result<Environment>;

    /// Restores an archived environment: 409 if a live one has taken its name meanwhile;
    /// pins of plugin versions that no longer exist are dropped (the rest keep their order).
    fn restore_environment(
        &self,
        project_id: &str,
        id: &str,
        expected: i64,
    ) -> Result<(Environment, Vec<String>)>;

    /// Pinned plugin versions that still exist, in pin order, and the ids that do not.
    fn plugin_versions(
        &self,
        project_id: &str,
        ids: &[String],
    ) -> Result<(Vec<PluginVersionRef>, Vec<String>)>;

    /// The project's plugin of this name, created if it does not exist yet.
    fn create_plugin(&self, project_id: &str, name: &str) -> Result<String>;

    fn create_plugin_version(
        &self,
        plugin_id: &str,
        version: &str,
        bundle_hash: &str,
    ) -> Result<String>;

    /// The plugin named `name` (created if needed) and a new version of it, in one
    /// transaction: `(plugin id, version id)`.
    fn register_plugin_version(
        &self,
        project_id: &str,
        name: &str,
        version: &str,
        bundle_hash: &str,
    ) -> Result<(String, String)>;

    fn delete_plugin_version(&self, project_id: &str, id: &str) -> Result<()>;

    fn create_skill(&self, project_id: &str, name: &str) -> Result<String>;
}

impl EnvironmentStore for Store {
    fn create_environment(
        &self,
        project_id: &str,
        body: &EnvironmentCreate,
    ) -> Result<Environment> {
        let id = new_id("env");
        let now = now_ms();
        self.write(|tx| {
            check_refs(
                tx,
                project_id,
                &body.host_id,
                body.server_attachment_id.as_deref(),
                body.skill_selection.as_ref(),
                body.plugin_version_ids.as_deref(),
            )?;
            tx.execute(
                "INSERT INTO environments (id, project_id, name, description, host_id, server_attachment_id, model_id,
                   skill_selection, plugin_version_ids, revision, created_at, updated_at, roots)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, ?10, ?10, ?11)",
                params![
                    id, project_id, body.name, body.description, body.host_id, body.server_attachment_id, body.model_id,
                    body.skill_selection.as_ref().map(to_json), body.plugin_version_ids.as_ref().map(to_json), now,
                    body.roots.as_ref().map(to_json)
                ],
            )
            .map_err(|e| name_taken(e, &body.name))?;
            get(tx, project_id, &id)
        })
    }

    fn environment(&self, project_id: &str, id: &str) -> Result<Environment> {
        self.read(|c| get(c, project_id, id))
    }

    fn environments(&self, project_id: &str, q: &EnvironmentQuery) -> Result<Page<Environment>> {
        let ks = Keyset::new(&PageRequest {
            cursor: q.cursor.clone(),
            limit: q.limit,
        })?;
        let rows = self.read(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM environments WHERE project_id = ?1 AND (?2 OR archived_at IS NULL)
                 AND (created_at, id) > (?3, ?4) ORDER BY created_at, id LIMIT ?5"
            ))?;
            let rows = st.query_map(
                params![project_id, q.include_archived, ks.after_ts, ks.after_id, ks.fetch()],
                row_to_env,
            )?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        let items = rows.into_iter().map(finish).collect::<Result<Vec<_>>>()?;
        Ok(ks.page(items, |e| (e.created_at, e.id.clone())))
    }

    fn update_environment(
        &self,
        project_id: &str,
        id: &str,
        p: &EnvironmentPatch,
    ) -> Result<Environment> {
        self.write(|tx| {
            let cur = get(tx, project_id, id)?;
            guard(&cur, p.expected_revision)?;
            if cur.archived {
                return Err(Error::conflict("the environment is archived; restore it before editing"));
            }
            let name = p.name.clone().unwrap_or(cur.name.clone());
            let host_id = p.host_id.clone().unwrap_or(cur.host_id.clone());
            let description = p.description.clone().apply(cur.description.clone());
            let group = p.server_attachment_id.clone().apply(cur.server_attachment_id.clone());
            let model = p.model_id.clone().apply(cur.model_id.clone());
            let skills = p.skill_selection.clone().apply(cur.skill_selection.clone());
            let pins = p.plugin_version_ids.clone().apply(cur.plugin_version_ids.clone());
            let roots = p.roots.clone().apply(cur.roots.clone());
            check_refs(
                tx,
                project_id,
                &host_id,
                p.server_attachment_id.as_set().map(String::as_str),
                p.skill_selection.as_set(),
                p.plugin_version_ids.as_set().map(Vec::as_slice),
            )?;
            tx.execute(
                "UPDATE environments SET name = ?3, description = ?4, host_id = ?5, server_attachment_id = ?6,
                   model_id = ?7, skill_selection = ?8, plugin_version_ids = ?9, revision = revision + 1, updated_at = ?10,
                   roots = ?11
                 WHERE project_id = ?1 AND id = ?2",
                params![
                    project_id, id, name, description, host_id, group, model,
                    skills.as_ref().map(to_json), pins.as_ref().map(to_json), now_ms(),
                    roots.as_ref().map(to_json)
                ],
            )
            .map_err(|e| name_taken(e, &name))?;
            get(tx, project_id, id)
        })
    }

    fn archive_environment(
        &self,
        project_id: &str,
        id: &str,
        expected: i64,
    ) -> Result<Environment> {
        self.write(|tx| {
            let cur = get(tx, project_id, id)?;
            guard(&cur, expected)?;
            if cur.archived {
                return Err(Error::conflict("the environment is already archived"));
            }
            let now = now_ms();
            tx.execute(
                "UPDATE environments SET archived_at = ?3, revision = revision + 1, updated_at = ?3
                 WHERE project_id = ?1 AND id = ?2",
                params![project_id, id, now],
            )?;
            get(tx, project_id, id)
        })
    }

    fn restore_environment(
        &self,
        project_id: &str,
        id: &str,
        expected: i64,
    ) -> Result<(Environment, Vec<String>)> {
        self.write(|tx| {
            let cur = get(tx, project_id, id)?;
            guard(&cur, expected)?;
            if !cur.archived {
                return Err(Error::conflict("the environment is not archived"));
            }
            let mut kept = Vec::new();
            let mut dropped = Vec::new();
            for pin in cur.plugin_version_ids.clone().unwrap_or_default() {
                if exists(tx, "SELECT 1 FROM plugin_versions v JOIN plugins p ON p.id = v.plugin_id WHERE p.project_id = ?1 AND v.id = ?2", project_id, &pin)? {
                    kept.push(pin);
                } else {
                    dropped.push(pin);
                }
            }
            let pins = cur.plugin_version_ids.as_ref().map(|_| kept);
            tx.execute(
                "UPDATE environments SET archived_at = NULL, plugin_version_ids = ?3, revision = revision + 1, updated_at = ?4
                 WHERE project_id = ?1 AND id = ?2",
                params![project_id, id, pins.as_ref().map(to_json), now_ms()],
            )
            .map_err(|e| {
                if is_unique_violation(&e) {
                    Error::conflict(format!(
                        "another environment is now named `{}`; rename it or archive it before restoring this one",
                        cur.name
                    ))
                    .with_details(serde_json::json!({ "field": "name" }))
                } else {
                    e.into()
                }
            })?;
            Ok((get(tx, project_id, id)?, dropped))
        })
    }

    fn plugin_versions(
        &self,
        project_id: &str,
        ids: &[String],
    ) -> Result<(Vec<PluginVersionRef>, Vec<String>)> {
        self.read(|c| {
            let mut found = Vec::new();
            let mut missing = Vec::new();
            let mut st = c.prepare_cached(
                "SELECT p.id, v.id, p.name, v.bundle_hash FROM plugin_versions v JOIN plugins p ON p.id = v.plugin_id
                 WHERE p.project_id = ?1 AND v.id = ?2",
            )?;
            for id in ids {
                let r = st
                    .query_row(params![project_id, id], |r| {
                        Ok(PluginVersionRef { plugin_id: r.get(0)?, plugin_version_id: r.get(1)?, name: r.get(2)?, bundle_hash: r.get(3)? })
                    })
                    .optional()?;
                match r {
                    Some(v) => found.push(v),
                    None => missing.push(id.clone()),
                }
            }
            Ok((found, missing))
        })
    }

    fn create_plugin(&self, project_id: &str, name: &str) -> Result<String> {
        self.write(|tx| plugin_by_name(tx, project_id, name))
    }

    fn create_plugin_version(
        &self,
        plugin_id: &str,
        version: &str,
        bundle_hash: &str,
    ) -> Result<String> {
        self.write(|tx| insert_plugin_version(tx, plugin_id, version, bundle_hash))
    }

    fn register_plugin_version(
        &self,
        project_id: &str,
        name: &str,
        version: &str,
        bundle_hash: &str,
    ) -> Result<(String, String)> {
        self.write(|tx| {
            let plugin = plugin_by_name(tx, project_id, name)?;
            let id = insert_plugin_version(tx, &plugin, version, bundle_hash)?;
            Ok((plugin, id))
        })
    }

    fn delete_plugin_version(&self, project_id: &str, id: &str) -> Result<()> {
        let n = self.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM plugin_versions WHERE id = ?2 AND plugin_id IN (SELECT id FROM plugins WHERE project_id = ?1)",
                params![project_id, id],
            )?)
        })?;
        if n == 0 {
            return Err(Error::not_found("plugin version", id));
        }
        Ok(())
    }

    fn create_skill(&self, project_id: &str, name: &str) -> Result<String> {
        let id = new_id("skl");
        self.write(|tx| {
            tx.execute(
                "INSERT INTO skills (id, project_id, name, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![id, project_id, name, now_ms()],
            )?;
            Ok(())
        })?;
        Ok(id)
    }
}

#[cfg(test)]
mod tests {
    use super::super::prelude::*;
    use super::*;

    #[test]
    fn versions_of_one_plugin_name_share_the_plugin() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        let local = store.ensure_seeded("evaldeck").unwrap();
        let project = store.default_project(&local.org_id).unwrap().unwrap();
        let a = store.create_plugin(&project, "linter").unwrap();
        let b = store.create_plugin(&project, "linter").unwrap();
        let c = store.create_plugin(&project, "formatter").unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let v1 = store
            .create_plugin_version(&a, "1.0.0", "sha256:1")
            .unwrap();
        let v2 = store
            .create_plugin_version(&b, "1.1.0", "sha256:2")
            .unwrap();
        let (found, missing) = store
            .plugin_versions(&project, &[v1, v2, "plv_gone".into()])
            .unwrap();
        assert!(found.iter().all(|v| v.plugin_id == a));
        assert_eq!(missing, ["plv_gone"]);
    }
}
