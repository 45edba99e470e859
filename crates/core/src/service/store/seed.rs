//! First run: a local owner, an organization, and a "Demo" project with the demo MCP server
//! saved, a host, a server group, an environment and an empty suite. All in one
//! transaction, and idempotent: a second run finds the local owner and changes nothing.

use rusqlite::{OptionalExtension, params};

use super::{Store, new_id, now_ms, to_json};
use crate::spec::Result;
use crate::spec::host::Template;
use crate::spec::server::{ServerConfig, Transport};

/// The email of the local owner the embedded backend acts as.
pub const LOCAL_EMAIL: &str = "local@evaldeck.localhost";
/// Credits a fresh local organization starts with.
pub const STARTING_CREDITS: i64 = 1000;

/// The embedded backend's identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Local {
    pub user_id: String,
    pub org_id: String,
}

/// The seed aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait SeedStore {
    /// Returns the local owner, creating it and the demo project on first run.
    /// `demo_command` is the program that runs the demo server (this binary).
    fn ensure_seeded(&self, demo_command: &str) -> Result<Local>;
}

impl SeedStore for Store {
    fn ensure_seeded(&self, demo_command: &str) -> Result<Local> {
        self.write(|tx| {
            let existing: Option<(String, String)> = tx
                .query_row(
                    "SELECT u.id, m.org_id FROM users u JOIN members m ON m.user_id = u.id AND m.role = 'owner'
                     WHERE u.email = ?1 ORDER BY m.org_id LIMIT 1",
                    [LOCAL_EMAIL],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            if let Some((user_id, org_id)) = existing {
                repoint_demo_servers(tx, &org_id, demo_command)?;
                return Ok(Local { user_id, org_id });
            }
            let now = now_ms();
            let user_id = new_id("usr");
            let org_id = new_id("org");
            let project_id = new_id("prj");
            let server_id = new_id("srv");
            let host_id = new_id("hst");
            let group_id = new_id("grp");
            let env_id = new_id("env");
            let suite_id = new_id("sut");
            let user = whoami();
            tx.execute(
                "INSERT INTO users (id, email, name, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
                params![user_id, LOCAL_EMAIL, user, now],
            )?;
            tx.execute(
                "INSERT INTO organizations (id, name, credits, created_at, updated_at) VALUES (?1, 'Local', ?2, ?3, ?3)",
                params![org_id, STARTING_CREDITS, now],
            )?;
            tx.execute("INSERT INTO members (org_id, user_id, role) VALUES (?1, ?2, 'owner')", params![org_id, user_id])?;
            tx.execute(
                "INSERT INTO projects (id, org_id, name, description, created_at, updated_at)
                 VALUES (?1, ?2, 'Demo', 'The bundled demo MCP server, ready to explore.', ?3, ?3)",
                params![project_id, org_id, now],
            )?;
            let config = ServerConfig::new(Transport::Stdio {
                command: demo_command.to_string(),
                args: vec!["demo-server".into()],
                env: Default::default(),
                cwd: None,
            });
            tx.execute(
                "INSERT INTO servers (id, project_id, name, enabled, config, created_at, updated_at)
                 VALUES (?1, ?2, 'demo', 1, ?3, ?4, ?4)",
                params![server_id, project_id, to_json(&config), now],
            )?;
            let template = Template::find("claude-code").expect("built-in template");
            tx.execute(
                "INSERT INTO hosts (id, project_id, name, config, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![host_id, project_id, template.display_name, to_json(&template.config()), now],
            )?;
            tx.execute(
                "INSERT INTO server_groups (id, project_id, name, created_at, updated_at) VALUES (?1, ?2, 'demo servers', ?3, ?3)",
                params![group_id, project_id, now],
            )?;
            tx.execute(
                "INSERT INTO server_group_members (group_id, server_id, position) VALUES (?1, ?2, 0)",
                params![group_id, server_id],
            )?;
            tx.execute(
                "INSERT INTO environments (id, project_id, name, description, host_id, server_attachment_id, revision, created_at, updated_at)
                 VALUES (?1, ?2, 'local', 'The demo server under Claude Code''s profile.', ?3, ?4, 1, ?5, ?5)",
                params![env_id, project_id, host_id, group_id, now],
            )?;
            let settings = crate::spec::suite::SuiteSettings::default();
            tx.execute(
                "INSERT INTO eval_suites (id, project_id, name, description, settings, server_ids, created_at, updated_at)
                 VALUES (?1, ?2, 'Smoke', 'Paste a test plan to fill this suite.', ?3, ?4, ?5, ?5)",
                params![suite_id, project_id, to_json(&settings), to_json(&[&server_id]), now],
            )?;
            Ok(Local { user_id, org_id })
        })
    }
}

/// The seeded demo server runs this binary by its absolute path. When that file is gone (a
/// rebuild elsewhere, `cargo install`, a moved checkout), the saved server would no longer
/// start: point it at the binary running now. A path that still exists is left alone, so
/// two builds sharing one database do not take turns rewriting it.
fn repoint_demo_servers(
    tx: &rusqlite::Transaction,
    org_id: &str,
    demo_command: &str,
) -> Result<()> {
    let mut stmt = tx.prepare(
        "SELECT s.id, s.config FROM servers s JOIN projects p ON p.id = s.project_id WHERE p.org_id = ?1",
    )?;
    let stale: Vec<(String, ServerConfig)> = stmt
        .query_map([org_id], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })?
        .filter_map(|row| row.ok())
        .filter_map(|(id, json)| Some((id, serde_json::from_str::<ServerConfig>(&json).ok()?)))
        .filter(|(_, config)| match &config.transport {
            Transport::Stdio { command, args, .. } => {
                args.as_slice() == ["demo-server"]
                    && command != demo_command
                    && std::path::Path::new(command).is_absolute()
                    && !std::path::Path::new(command).exists()
            }
            _ => false,
        })
        .collect();
    for (id, mut config) in stale {
        if let Transport::Stdio { command, .. } = &mut config.transport {
            tracing::info!(server = %id, from = %command, to = %demo_command, "the demo server's binary is gone; pointing it at this one");
            *command = demo_command.to_string();
        }
        tx.execute(
            "UPDATE servers SET config = ?2, revision = revision + 1, updated_at = ?3 WHERE id = ?1",
            params![id, to_json(&config), now_ms()],
        )?;
    }
    Ok(())
}

fn whoami() -> String {
    std::env::var("USER")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "Local user".into())
}

#[cfg(test)]
mod tests {
    use super::super::prelude::*;
    use super::*;
    use crate::spec::page::PageRequest;

    #[test]
    fn seeding_is_idempotent_and_complete() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        let a = store.ensure_seeded("/bin/evaldeck").unwrap();
        let b = store.ensure_seeded("/bin/evaldeck").unwrap();
        assert_eq!(a, b);
        let project = store.default_project(&a.org_id).unwrap().unwrap();
        let servers = store.servers(&project, &PageRequest::default()).unwrap();
        assert_eq!(servers.items.len(), 1);
        assert_eq!(servers.items[0].transport_type, "stdio");
        assert_eq!(
            store
                .hosts(&project, &PageRequest::default())
                .unwrap()
                .items
                .len(),
            1
        );
        assert_eq!(
            store
                .suite_summaries(&project, &PageRequest::default())
                .unwrap()
                .items
                .len(),
            1
        );
        let envs = store.environments(&project, &Default::default()).unwrap();
        assert_eq!(envs.items[0].revision, 1);
        assert_eq!(store.orgs().unwrap().len(), 1);
    }

    fn demo_command(store: &Store, local: &Local) -> String {
        let project = store.default_project(&local.org_id).unwrap().unwrap();
        let server = store
            .servers(&project, &PageRequest::default())
            .unwrap()
            .items
            .remove(0);
        match server.config.expect("a stored config").transport {
            Transport::Stdio { command, .. } => command,
            other => panic!("the demo server is stdio, not {other:?}"),
        }
    }

    #[test]
    fn a_demo_server_whose_binary_is_gone_follows_this_one() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("db.sqlite3")).unwrap();
        let gone = dir.path().join("moved-away/evaldeck");
        let local = store.ensure_seeded(gone.to_str().unwrap()).unwrap();
        let here = std::env::current_exe().unwrap();
        let here = here.to_str().unwrap();

        store.ensure_seeded(here).unwrap();
        assert_eq!(
            demo_command(&store, &local),
            here,
            "a missing binary is replaced"
        );

        store.ensure_seeded("/elsewhere/evaldeck").unwrap();
        assert_eq!(
            demo_command(&store, &local),
            here,
            "a binary that still exists is left alone"
        );
    }
}
