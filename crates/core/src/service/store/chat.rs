//! Chatboxes (read-only over the API) and chat sessions.

use super::prelude::*;
use rusqlite::params;
use serde_json::Value;

use super::{Keyset, Store, from_json, new_id, now_ms, to_json};
use crate::spec::catalog::{
    ChatSession, ChatSessionQuery, Chatbox, ChatboxDetail, ChatboxLink, ChatboxServer,
};
use crate::spec::page::{Page, PageRequest};
use crate::spec::{Error, Result};

/// Settings a chatbox is created with (local seeding and tests; the API only reads).
#[derive(Debug, Clone, Default)]
pub struct NewChatbox {
    pub name: String,
    pub description: Option<String>,
    pub mode: String,
    pub host_id: Option<String>,
    pub model_id: Option<String>,
    pub system_prompt: Option<String>,
    pub temperature: Option<f64>,
    pub require_tool_approval: bool,
    pub server_ids: Vec<String>,
}

type ChatboxRow = (
    String,
    String,
    Option<String>,
    String,
    Option<String>,
    Option<String>,
    String,
    String,
    i64,
);

/// The chat aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait ChatStore {
    fn create_chatbox(&self, project_id: &str, b: &NewChatbox) -> Result<String>;

    fn chatboxes(&self, project_id: &str, page: &PageRequest) -> Result<Page<Chatbox>>;

    fn chatbox(&self, project_id: &str, id: &str) -> Result<ChatboxDetail>;

    fn create_chat_session(
        &self,
        project_id: &str,
        user_id: Option<&str>,
        title: &str,
        at: i64,
    ) -> Result<String>;

    /// The project a chat session belongs to, if it exists.
    fn chat_session_project(&self, id: &str) -> Result<Option<String>>;

    /// Records activity on a chat session now.
    fn touch_chat_session(&self, id: &str, at: i64) -> Result<()>;

    /// Chat sessions in `project_ids`, most recent activity first; `before` bounds
    /// `lastActivityAt` (exclusive), `cursor` continues a previous page.
    fn chat_sessions(
        &self,
        project_ids: &[String],
        q: &ChatSessionQuery,
    ) -> Result<Page<ChatSession>>;

    fn accessible_project_ids(
        &self,
        org_id: &str,
        user_id: &str,
        org_role: &str,
    ) -> Result<Vec<String>>;
}

impl ChatStore for Store {
    fn create_chatbox(&self, project_id: &str, b: &NewChatbox) -> Result<String> {
        let id = new_id("cbx");
        let now = now_ms();
        let settings = serde_json::json!({
            "modelId": b.model_id, "systemPrompt": b.system_prompt,
            "temperature": b.temperature, "requireToolApproval": b.require_tool_approval,
        });
        self.write(|tx| {
            tx.execute(
                "INSERT INTO chatboxes (id, project_id, name, description, mode, host_id, settings, server_ids, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
                params![id, project_id, b.name, b.description, b.mode, b.host_id, to_json(&settings), to_json(&b.server_ids), now],
            )?;
            Ok(())
        })?;
        Ok(id)
    }

    fn chatboxes(&self, project_id: &str, page: &PageRequest) -> Result<Page<Chatbox>> {
        let ks = Keyset::new(page)?;
        let rows = self.chatbox_rows(project_id, None, &ks)?;
        let items = rows
            .iter()
            .map(|r| Ok((self.to_chatbox(project_id, r)?.0, r.8)))
            .collect::<Result<Vec<_>>>()?;
        Ok(ks
            .page(items, |(b, ts)| (*ts, b.id.clone()))
            .map(|(b, _)| b))
    }

    fn chatbox(&self, project_id: &str, id: &str) -> Result<ChatboxDetail> {
        let ks = Keyset::new(&PageRequest::default())?;
        let rows = self.chatbox_rows(project_id, Some(id), &ks)?;
        let row = rows
            .first()
            .ok_or_else(|| Error::not_found("chatbox", id))?;
        let (chatbox, servers) = self.to_chatbox(project_id, row)?;
        let settings: Value = from_json(&row.6)?;
        Ok(ChatboxDetail {
            chatbox,
            model_id: settings["modelId"].as_str().map(str::to_string),
            system_prompt: settings["systemPrompt"].as_str().map(str::to_string),
            temperature: settings["temperature"].as_f64(),
            require_tool_approval: settings["requireToolApproval"].as_bool().unwrap_or(false),
            servers,
        })
    }

    fn create_chat_session(
        &self,
        project_id: &str,
        user_id: Option<&str>,
        title: &str,
        at: i64,
    ) -> Result<String> {
        let id = new_id("chs");
        self.write(|tx| {
            tx.execute(
                "INSERT INTO chat_sessions (id, project_id, user_id, title, last_activity_at, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![id, project_id, user_id, title, at],
            )?;
            Ok(())
        })?;
        Ok(id)
    }

    fn chat_session_project(&self, id: &str) -> Result<Option<String>> {
        use rusqlite::OptionalExtension;
        self.read(|c| {
            Ok(c.query_row(
                "SELECT project_id FROM chat_sessions WHERE id = ?1",
                [id],
                |r| r.get(0),
            )
            .optional()?)
        })
    }

    fn touch_chat_session(&self, id: &str, at: i64) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "UPDATE chat_sessions SET last_activity_at = MAX(last_activity_at, ?2) WHERE id = ?1",
                params![id, at],
            )?;
            Ok(())
        })
    }

    fn chat_sessions(
        &self,
        project_ids: &[String],
        q: &ChatSessionQuery,
    ) -> Result<Page<ChatSession>> {
        let page = PageRequest {
            cursor: q.cursor.clone(),
            limit: q.limit,
        };
        let limit = page.limit()?;
        let pos = page.position()?;
        // A cursor from another list decodes but its key is not a timestamp: refuse it like
        // every other list does, rather than silently starting over from the top.
        let (after_ts, after_id) = match pos {
            Some(p) => (
                p.key.parse::<i64>().map_err(|_| {
                    Error::invalid("/cursor", "cursor", "not a cursor this service issued")
                })?,
                p.id,
            ),
            None => (i64::MAX, String::new()),
        };
        let before = q.before.unwrap_or(i64::MAX);
        let projects = to_json(&project_ids);
        let rows = self.read(|c| {
            let mut st = c.prepare_cached(
                "SELECT id, title, status, project_id, last_activity_at, created_at, is_pinned, is_unread
                 FROM chat_sessions
                 WHERE project_id IN (SELECT value FROM json_each(?1)) AND (?2 IS NULL OR status = ?2)
                   AND last_activity_at < ?3
                   AND (last_activity_at < ?4 OR (last_activity_at = ?4 AND (?5 = '' OR id < ?5)))
                 ORDER BY last_activity_at DESC, id DESC LIMIT ?6",
            )?;
            let rows = st.query_map(
                params![projects, q.status, before, after_ts, after_id, limit as i64 + 1],
                |r| {
                    Ok(ChatSession {
                        id: r.get(0)?,
                        title: r.get(1)?,
                        status: r.get(2)?,
                        project_id: r.get(3)?,
                        last_activity_at: r.get(4)?,
                        created_at: r.get(5)?,
                        is_pinned: r.get(6)?,
                        is_unread: r.get(7)?,
                    })
                },
            )?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        Ok(Page::from_rows(rows, limit, |s| {
            crate::spec::page::Position {
                key: s.last_activity_at.unwrap_or_default().to_string(),
                id: s.id.clone(),
            }
        }))
    }

    fn accessible_project_ids(
        &self,
        org_id: &str,
        user_id: &str,
        org_role: &str,
    ) -> Result<Vec<String>> {
        self.read(|c| {
            let mut st = c.prepare_cached(
                "SELECT p.id FROM projects p LEFT JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = ?2
                 WHERE p.org_id = ?1 AND (?3 IN ('owner', 'admin') OR pm.role IS NOT NULL)",
            )?;
            let rows = st.query_map(params![org_id, user_id, org_role], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}

impl Store {
    fn chatbox_rows(
        &self,
        project_id: &str,
        only: Option<&str>,
        ks: &Keyset,
    ) -> Result<Vec<ChatboxRow>> {
        self.read(|c| {
            let mut st = c.prepare_cached(
                "SELECT b.id, b.name, b.description, b.mode, b.host_id, h.name, b.settings, b.server_ids, b.created_at
                 FROM chatboxes b LEFT JOIN hosts h ON h.id = b.host_id
                 WHERE b.project_id = ?1 AND (?2 IS NULL OR b.id = ?2) AND (b.created_at, b.id) > (?3, ?4)
                 ORDER BY b.created_at, b.id LIMIT ?5",
            )?;
            let rows = st.query_map(params![project_id, only, ks.after_ts, ks.after_id, ks.fetch()], |r| {
                Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?))
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    fn chatbox_servers(&self, project_id: &str, ids: &[String]) -> Result<Vec<ChatboxServer>> {
        let mut out = Vec::new();
        for id in ids {
            if let Ok(s) = self.server(project_id, id) {
                out.push(ChatboxServer {
                    id: s.id,
                    name: s.name,
                    url: s.url,
                    use_oauth: s.use_oauth,
                });
            }
        }
        Ok(out)
    }

    fn to_chatbox(
        &self,
        project_id: &str,
        row: &ChatboxRow,
    ) -> Result<(Chatbox, Vec<ChatboxServer>)> {
        let (id, name, description, mode, host_id, host_name, _, server_ids, _) = row;
        let servers = self.chatbox_servers(project_id, &from_json::<Vec<String>>(server_ids)?)?;
        let path = format!("/projects/{project_id}/chatboxes/{id}");
        Ok((
            Chatbox {
                id: id.clone(),
                name: name.clone(),
                description: description.clone(),
                mode: Some(mode.clone()),
                host_id: host_id.clone(),
                host_name: host_name.clone(),
                server_count: servers.len() as i64,
                server_names: servers.iter().map(|s| s.name.clone()).collect(),
                link: (mode == "anyone_with_link").then(|| ChatboxLink {
                    url: format!("evaldeck://chatbox/{id}"),
                    path,
                }),
            },
            servers,
        ))
    }
}
