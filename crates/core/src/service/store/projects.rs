//! Projects and project membership, and the access rule every project operation starts with.

use rusqlite::{OptionalExtension, params};

use super::identity::Principal;
use super::{Keyset, Store, new_id, now_ms};
use crate::spec::catalog::Project;
use crate::spec::page::{Page, PageRequest};
use crate::spec::{Error, Result};

/// What the caller may do in a project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum ProjectRole {
    Member,
    Admin,
}

impl ProjectRole {
    pub fn as_str(self) -> &'static str {
        match self {
            ProjectRole::Member => "member",
            ProjectRole::Admin => "admin",
        }
    }

    /// The role [`ProjectRole::as_str`] wrote.
    pub fn parse(s: &str) -> Option<ProjectRole> {
        match s {
            "member" => Some(ProjectRole::Member),
            "admin" => Some(ProjectRole::Admin),
            _ => None,
        }
    }
}

/// Organization owners and admins administer every project of the organization; a plain
/// member has exactly the role their project membership grants, or no access.
fn role_of(org_role: &str, project_role: Option<&str>) -> Option<ProjectRole> {
    match (org_role, project_role) {
        ("owner" | "admin", _) => Some(ProjectRole::Admin),
        (_, Some("admin")) => Some(ProjectRole::Admin),
        (_, Some(_)) => Some(ProjectRole::Member),
        _ => None,
    }
}

/// The projects aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait ProjectStore {
    fn create_project(
        &self,
        org_id: &str,
        name: &str,
        description: Option<&str>,
    ) -> Result<Project>;

    fn set_project_member(&self, project_id: &str, user_id: &str, role: ProjectRole) -> Result<()>;

    /// Takes away a user's own role on a project (the organization role still applies).
    fn remove_project_member(&self, project_id: &str, user_id: &str) -> Result<()>;

    /// Finds a project of the organization by id or exact name.
    fn find_project(&self, org_id: &str, id_or_name: &str) -> Result<String>;

    /// Checks the caller's access to a project: 404 if it does not exist, 403 if it is
    /// outside the key's organization or the member has no access, 403 if `need` is admin
    /// and the caller is only a member.
    fn project_access(
        &self,
        who: &Principal,
        project_id: &str,
        need: ProjectRole,
    ) -> Result<ProjectRole>;

    /// The organization's default project: the oldest one (`eval-ingest/default/…`).
    fn default_project(&self, org_id: &str) -> Result<Option<String>>;

    /// Projects the caller can access, oldest first.
    fn projects(&self, who: &Principal, page: &PageRequest) -> Result<Page<Project>>;
}

impl ProjectStore for Store {
    fn create_project(
        &self,
        org_id: &str,
        name: &str,
        description: Option<&str>,
    ) -> Result<Project> {
        let now = now_ms();
        let id = new_id("prj");
        self.write(|tx| {
            let taken: bool = tx.query_row(
                "SELECT EXISTS (SELECT 1 FROM projects WHERE org_id = ?1 AND name = ?2)",
                params![org_id, name],
                |r| r.get(0),
            )?;
            if taken {
                return Err(Error::conflict(format!(
                    "the organization already has a project named `{name}`"
                )));
            }
            tx.execute(
                "INSERT INTO projects (id, org_id, name, description, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
                params![id, org_id, name, description, now],
            )?;
            Ok(())
        })?;
        Ok(Project {
            id,
            name: name.into(),
            description: description.map(str::to_string),
            organization_id: Some(org_id.into()),
            role: None,
            created_at: Some(now),
            updated_at: Some(now),
        })
    }

    fn set_project_member(&self, project_id: &str, user_id: &str, role: ProjectRole) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO project_members (project_id, user_id, role) VALUES (?1, ?2, ?3)
                 ON CONFLICT (project_id, user_id) DO UPDATE SET role = excluded.role",
                params![project_id, user_id, role.as_str()],
            )?;
            Ok(())
        })
    }

    fn remove_project_member(&self, project_id: &str, user_id: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "DELETE FROM project_members WHERE project_id = ?1 AND user_id = ?2",
                params![project_id, user_id],
            )?;
            Ok(())
        })
    }

    fn find_project(&self, org_id: &str, id_or_name: &str) -> Result<String> {
        self.read(|c| {
            c.query_row(
                "SELECT id FROM projects WHERE org_id = ?1 AND (id = ?2 OR name = ?2)
                 ORDER BY id = ?2 DESC, created_at LIMIT 1",
                params![org_id, id_or_name],
                |r| r.get(0),
            )
            .optional()?
            .ok_or_else(|| Error::not_found("project", id_or_name))
        })
    }

    fn project_access(
        &self,
        who: &Principal,
        project_id: &str,
        need: ProjectRole,
    ) -> Result<ProjectRole> {
        let row: Option<(String, Option<String>)> = self.read(|c| {
            Ok(c.prepare_cached(
                "SELECT p.org_id, pm.role FROM projects p
                 LEFT JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = ?2
                 WHERE p.id = ?1",
            )?
            .query_row(params![project_id, who.user_id], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?)
        })?;
        let (org_id, project_role) = row.ok_or_else(|| Error::not_found("project", project_id))?;
        if org_id != who.org_id {
            return Err(Error::forbidden("this key has no access to the project"));
        }
        let role = role_of(&who.org_role, project_role.as_deref())
            .ok_or_else(|| Error::forbidden("this key has no access to the project"))?;
        if role < need {
            return Err(Error::forbidden(
                "this operation needs the project admin role",
            ));
        }
        Ok(role)
    }

    fn default_project(&self, org_id: &str) -> Result<Option<String>> {
        self.read(|c| {
            Ok(c.prepare_cached(
                "SELECT id FROM projects WHERE org_id = ?1 ORDER BY created_at, id LIMIT 1",
            )?
            .query_row([org_id], |r| r.get(0))
            .optional()?)
        })
    }

    fn projects(&self, who: &Principal, page: &PageRequest) -> Result<Page<Project>> {
        let ks = Keyset::new(page)?;
        let rows = self.read(|c| {
            let mut st = c.prepare_cached(
                "SELECT p.id, p.name, p.description, p.org_id, pm.role, p.created_at, p.updated_at
                 FROM projects p
                 LEFT JOIN project_members pm ON pm.project_id = p.id AND pm.user_id = ?2
                 WHERE p.org_id = ?1 AND (?3 IN ('owner', 'admin') OR pm.role IS NOT NULL)
                   AND (p.created_at, p.id) > (?4, ?5)
                 ORDER BY p.created_at, p.id LIMIT ?6",
            )?;
            let rows = st.query_map(
                params![
                    who.org_id,
                    who.user_id,
                    who.org_role,
                    ks.after_ts,
                    ks.after_id,
                    ks.fetch()
                ],
                |r| {
                    let pm: Option<String> = r.get(4)?;
                    Ok(Project {
                        id: r.get(0)?,
                        name: r.get(1)?,
                        description: r.get(2)?,
                        organization_id: r.get(3)?,
                        role: role_of(&who.org_role, pm.as_deref()).map(|r| r.as_str().to_string()),
                        created_at: r.get(5)?,
                        updated_at: r.get(6)?,
                    })
                },
            )?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })?;
        Ok(ks.page(rows, |p| (p.created_at.unwrap_or_default(), p.id.clone())))
    }
}
