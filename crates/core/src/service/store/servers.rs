//! Saved MCP servers, their last diagnostic status, and OAuth tokens imported for them.

use rusqlite::{OptionalExtension, Row, params};

use super::secrets::Sealer;
use super::{Keyset, Store, from_json, new_id, now_ms, to_json};
use crate::spec::page::{Page, PageRequest};
use crate::spec::server::{Server, ServerConfig};
use crate::spec::{Error, Result};

const COLUMNS: &str = "id, project_id, name, enabled, config, revision, last_status, created_at, updated_at, snapshot";

/// A stored row: the server, its config JSON and its capability snapshot JSON.
type ServerRow = (Server, String, Option<String>);

fn row_to_server(r: &Row) -> rusqlite::Result<ServerRow> {
    Ok((
        Server {
            id: r.get(0)?,
            project_id: Some(r.get(1)?),
            name: r.get(2)?,
            enabled: r.get(3)?,
            transport_type: String::new(),
            url: None,
            use_oauth: false,
            has_client_secret: false,
            revision: r.get(5)?,
            config: None,
            last_status: r.get(6)?,
            capabilities: None,
            protocol_version: None,
            server_info: None,
            last_validated_at: None,
            created_at: Some(r.get(7)?),
            updated_at: Some(r.get(8)?),
        },
        r.get(4)?,
        r.get(9)?,
    ))
}

/// Fills the fields derived from the stored config (its secrets opened) and capability
/// snapshot.
fn finish(sealer: &Sealer, (mut s, config, snapshot): ServerRow) -> Result<Server> {
    let config: ServerConfig = sealer.open_config(&from_json(&config)?)?;
    s.transport_type = config.transport.kind().to_string();
    s.url = config.transport.url().map(str::to_string);
    s.use_oauth = config.use_oauth;
    s.config = Some(config);
    if let Some(snap) = snapshot.and_then(|t| serde_json::from_str::<Snapshot>(&t).ok()) {
        s.capabilities = Some(snap.capabilities);
        s.protocol_version = snap.protocol_version;
        s.server_info = snap.server_info;
        s.last_validated_at = Some(snap.validated_at);
    }
    Ok(s)
}

/// What `initialize` told us the last time a validate or doctor got that far.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub capabilities: serde_json::Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<serde_json::Value>,
    /// Epoch milliseconds.
    pub validated_at: i64,
}

/// Tokens imported for a server; never leave the service in a response or a log line.
#[derive(Clone, PartialEq)]
pub struct StoredTokens {
    pub server_url: String,
    pub resource_url: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
    pub access_token: String,
    pub refresh_token: Option<String>,
    pub token_type: Option<String>,
    pub scope: Option<String>,
    pub expires_at: Option<i64>,
}

impl std::fmt::Debug for StoredTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredTokens")
            .field("server_url", &self.server_url)
            .field("expires_at", &self.expires_at)
            .finish_non_exhaustive()
    }
}

/// The servers aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait ServerStore {
    fn create_server(
        &self,
        project_id: &str,
        name: &str,
        enabled: bool,
        config: &ServerConfig,
    ) -> Result<Server>;

    /// A server of the project, by id or by name.
    fn server(&self, project_id: &str, id_or_name: &str) -> Result<Server>;

    fn servers(&self, project_id: &str, page: &PageRequest) -> Result<Page<Server>>;

    /// Every saved stdio server, of every project.
    fn stdio_servers(&self) -> Result<Vec<Server>>;

    /// Replaces name, enabled flag and config; bumps the revision so live sessions of the
    /// old config are not reused, and drops the capability snapshot, which described the
    /// old config.
    fn update_server(
        &self,
        project_id: &str,
        id: &str,
        name: &str,
        enabled: bool,
        config: &ServerConfig,
    ) -> Result<Server>;

    fn delete_server(&self, project_id: &str, id: &str) -> Result<()>;

    /// Records the outcome of a validate or doctor, and the capability snapshot if any
    /// (a failure keeps the previous snapshot: it still says what the server last offered).
    fn set_server_status(&self, id: &str, status: &str, snapshot: Option<&Snapshot>) -> Result<()>;

    fn save_tokens(&self, server_id: &str, t: &StoredTokens) -> Result<()>;

    fn tokens(&self, server_id: &str) -> Result<Option<StoredTokens>>;

    fn has_client_secret(&self, server_id: &str) -> Result<bool>;

    fn create_server_group(
        &self,
        project_id: &str,
        name: &str,
        server_ids: &[String],
    ) -> Result<String>;

    /// A server group's members in order, or `None` if the group does not exist.
    fn server_group(
        &self,
        project_id: &str,
        group_id: &str,
    ) -> Result<Option<(String, Vec<ServerName>)>>;
}

impl ServerStore for Store {
    fn create_server(
        &self,
        project_id: &str,
        name: &str,
        enabled: bool,
        config: &ServerConfig,
    ) -> Result<Server> {
        let id = new_id("srv");
        let now = now_ms();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO servers (id, project_id, name, enabled, config, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?6)",
                params![id, project_id, name, enabled, to_json(&self.sealer.seal_config(config)), now],
            )
            .map_err(|e| duplicate(e, name))?;
            Ok(())
        })?;
        self.server(project_id, &id)
    }

    fn server(&self, project_id: &str, id_or_name: &str) -> Result<Server> {
        let row = self.read(|c| {
            Ok(c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM servers WHERE project_id = ?1 AND (id = ?2 OR name = ?2)
                 ORDER BY id = ?2 DESC LIMIT 1"
            ))?
            .query_row(params![project_id, id_or_name], row_to_server)
            .optional()?)
        })?;
        finish(
            &self.sealer,
            row.ok_or_else(|| Error::not_found("server", id_or_name))?,
        )
    }

    fn servers(&self, project_id: &str, page: &PageRequest) -> Result<Page<Server>> {
        let ks = Keyset::new(page)?;
        let rows = self.read(|c| {
            let mut st = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM servers WHERE project_id = ?1 AND (created_at, id) > (?2, ?3)
                 ORDER BY created_at, id LIMIT ?4"
            ))?;
            let rows = st.query_map(
                params![project_id, ks.after_ts, ks.after_id, ks.fetch()],
                row_to_server,
            )?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        let rows = rows
            .into_iter()
            .map(|r| finish(&self.sealer, r))
            .collect::<Result<Vec<_>>>()?;
        Ok(ks.page(rows, |s| (s.created_at.unwrap_or_default(), s.id.clone())))
    }

    fn stdio_servers(&self) -> Result<Vec<Server>> {
        let rows = self.read(|c| {
            let mut st = c.prepare(&format!(
                "SELECT {COLUMNS} FROM servers WHERE json_extract(config, '$.transport.type') = 'stdio' ORDER BY created_at, id"
            ))?;
            let rows = st.query_map([], row_to_server)?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        rows.into_iter().map(|r| finish(&self.sealer, r)).collect()
    }

    fn update_server(
        &self,
        project_id: &str,
        id: &str,
        name: &str,
        enabled: bool,
        config: &ServerConfig,
    ) -> Result<Server> {
        // Sealed values differ on every write, so "is it the same config" is asked of the
        // opened one.
        let same = self
            .server(project_id, id)
            .ok()
            .and_then(|s| s.config)
            .is_some_and(|c| c == *config);
        let sealed = to_json(&self.sealer.seal_config(config));
        let n = self.write(|tx| {
            tx
                .execute(
                    "UPDATE servers SET name = ?3, enabled = ?4, config = ?5, revision = revision + 1, updated_at = ?6,
                       snapshot = CASE WHEN ?7 THEN snapshot END
                     WHERE project_id = ?1 AND id = ?2",
                    params![project_id, id, name, enabled, sealed, now_ms(), same],
                )
                .map_err(|e| duplicate(e, name))
        })?;
        if n == 0 {
            return Err(Error::not_found("server", id));
        }
        self.server(project_id, id)
    }

    fn delete_server(&self, project_id: &str, id: &str) -> Result<()> {
        let n = self.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM servers WHERE project_id = ?1 AND id = ?2",
                params![project_id, id],
            )?)
        })?;
        if n == 0 {
            return Err(Error::not_found("server", id));
        }
        Ok(())
    }

    fn set_server_status(&self, id: &str, status: &str, snapshot: Option<&Snapshot>) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE servers SET last_status = ?2, snapshot = COALESCE(?3, snapshot) WHERE id = ?1",
                params![id, status, snapshot.map(to_json)],
            )?;
            Ok(())
        })
    }

    fn save_tokens(&self, server_id: &str, t: &StoredTokens) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO oauth_tokens (server_id, server_url, resource_url, client_id, client_secret,
                   access_token, refresh_token, token_type, scope, expires_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
                 ON CONFLICT (server_id) DO UPDATE SET server_url = excluded.server_url,
                   resource_url = excluded.resource_url, client_id = excluded.client_id,
                   client_secret = excluded.client_secret, access_token = excluded.access_token,
                   refresh_token = excluded.refresh_token, token_type = excluded.token_type,
                   scope = excluded.scope, expires_at = excluded.expires_at, updated_at = excluded.updated_at",
                params![
                    server_id, t.server_url, t.resource_url, t.client_id,
                    self.sealer.seal_opt(t.client_secret.as_deref()), self.sealer.seal(&t.access_token),
                    self.sealer.seal_opt(t.refresh_token.as_deref()), t.token_type, t.scope, t.expires_at, now_ms()
                ],
            )?;
            Ok(())
        })
    }

    fn tokens(&self, server_id: &str) -> Result<Option<StoredTokens>> {
        let sealed = self.read(|c| {
            Ok(c.prepare_cached(
                "SELECT server_url, resource_url, client_id, client_secret, access_token, refresh_token,
                        token_type, scope, expires_at FROM oauth_tokens WHERE server_id = ?1",
            )?
            .query_row([server_id], |r| {
                Ok(StoredTokens {
                    server_url: r.get(0)?,
                    resource_url: r.get(1)?,
                    client_id: r.get(2)?,
                    client_secret: r.get(3)?,
                    access_token: r.get(4)?,
                    refresh_token: r.get(5)?,
                    token_type: r.get(6)?,
                    scope: r.get(7)?,
                    expires_at: r.get(8)?,
                })
            })
            .optional()?)
        })?;
        sealed
            .map(|mut t| {
                t.client_secret = self.sealer.open_opt(t.client_secret)?;
                t.access_token = self.sealer.open(&t.access_token)?;
                t.refresh_token = self.sealer.open_opt(t.refresh_token)?;
                Ok(t)
            })
            .transpose()
    }

    fn has_client_secret(&self, server_id: &str) -> Result<bool> {
        Ok(self
            .tokens(server_id)?
            .is_some_and(|t| t.client_secret.is_some()))
    }

    fn create_server_group(
        &self,
        project_id: &str,
        name: &str,
        server_ids: &[String],
    ) -> Result<String> {
        let id = new_id("grp");
        let now = now_ms();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO server_groups (id, project_id, name, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
                params![id, project_id, name, now],
            )
            .map_err(|e| duplicate(e, name))?;
            for (i, s) in server_ids.iter().enumerate() {
                let found: Option<String> = tx
                    .query_row("SELECT id FROM servers WHERE project_id = ?1 AND id = ?2", params![project_id, s], |r| r.get(0))
                    .optional()?;
                if found.is_none() {
                    return Err(Error::invalid(&format!("/serverIds/{i}"), "exists", format!("no server `{s}` in this project")));
                }
                tx.execute(
                    "INSERT INTO server_group_members (group_id, server_id, position) VALUES (?1, ?2, ?3)",
                    params![id, s, i as i64],
                )?;
            }
            Ok(())
        })?;
        Ok(id)
    }

    fn server_group(
        &self,
        project_id: &str,
        group_id: &str,
    ) -> Result<Option<(String, Vec<ServerName>)>> {
        self.read(|c| {
            let name: Option<String> = c
                .query_row("SELECT name FROM server_groups WHERE project_id = ?1 AND id = ?2", params![project_id, group_id], |r| r.get(0))
                .optional()?;
            let Some(name) = name else { return Ok(None) };
            let mut st = c.prepare_cached(
                "SELECT s.id, s.name FROM server_group_members m JOIN servers s ON s.id = m.server_id
                 WHERE m.group_id = ?1 ORDER BY m.position",
            )?;
            let members = st.query_map([group_id], |r| Ok((r.get(0)?, r.get(1)?)))?.collect::<rusqlite::Result<_>>()?;
            Ok(Some((name, members)))
        })
    }
}

/// A server's id and name.
pub type ServerName = (String, String);

fn duplicate(e: rusqlite::Error, name: &str) -> Error {
    if super::is_unique_violation(&e) {
        Error::conflict(format!(
            "the name `{name}` is already taken in this project"
        ))
    } else {
        e.into()
    }
}
