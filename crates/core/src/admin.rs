//! The operator's interface: organizations, members, projects, API keys and credits.
//!
//! These are managed only on the machine that holds the store, never over HTTP (no key can
//! manage keys or grant access). The CLI sees the [`Admin`] trait alone; the binary opens
//! the store's implementation and hands it over, so no front end reaches the store itself.

use std::path::Path;

use crate::service::Config;
use crate::service::store::Store;
use crate::service::store::prelude::*;
use crate::service::store::projects::ProjectRole;
use crate::spec::catalog::Project;
use crate::spec::{Error, Result};

pub use crate::service::store::identity::{ApiKeyInfo, CreatedKey, Member, Organization};
pub use crate::service::store::seed::STARTING_CREDITS;

/// Opens the operator's interface on a store file (the binary passes this to the CLI).
pub type Opener = fn(&Path) -> Result<Box<dyn Admin>>;

/// A member's role after [`Admin::set_member`], with the one it replaced.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberRole {
    pub organization_id: String,
    pub user_id: String,
    pub email: String,
    pub role: String,
    #[serde(skip)]
    pub previous: Option<String>,
}

/// The operator's commands. `org` is an organization id or name; `None` is the local
/// organization (the one the embedded backend acts in).
pub trait Admin {
    /// Mints a key for a member (`None`: the local owner); its secret exists only here.
    fn create_key(
        &self,
        org: Option<&str>,
        name: &str,
        user_email: Option<&str>,
    ) -> Result<(CreatedKey, Organization)>;
    /// Every key in the store, never their secrets.
    fn keys(&self) -> Result<Vec<ApiKeyInfo>>;
    /// Revokes a key by id or prefix, effective immediately.
    fn revoke_key(&self, id_or_prefix: &str) -> Result<ApiKeyInfo>;
    fn orgs(&self) -> Result<Vec<Organization>>;
    /// Creates an organization owned by `owner_email` (created if new; `None`: the local owner).
    fn create_org(
        &self,
        name: &str,
        owner_email: Option<&str>,
        credits: i64,
    ) -> Result<Organization>;
    fn members(&self, org: Option<&str>) -> Result<Vec<Member>>;
    /// Adds a member or changes their role (`owner`, `admin` or `member`); an organization
    /// keeps at least one owner.
    fn set_member(
        &self,
        org: Option<&str>,
        email: &str,
        role: &str,
        display_name: Option<&str>,
    ) -> Result<MemberRole>;
    /// Removes a member; their keys for the organization stop working at once. Returns
    /// `(organization id, user id)`.
    fn remove_member(&self, org: Option<&str>, email: &str) -> Result<(String, String)>;
    fn create_project(
        &self,
        org: Option<&str>,
        name: &str,
        description: Option<&str>,
    ) -> Result<Project>;
    /// Gives a member `admin` or `member` on one project, or takes it away with `none`.
    /// Returns `(project id, user id)`.
    fn grant_project(
        &self,
        org: Option<&str>,
        project: &str,
        email: &str,
        role: &str,
    ) -> Result<(String, String)>;
    /// Adds credits to an organization; returns it and the new balance.
    fn grant_credits(
        &self,
        org: Option<&str>,
        amount: i64,
        note: Option<&str>,
    ) -> Result<(Organization, i64)>;
}

/// [`Admin`] over the SQLite store.
pub struct StoreAdmin {
    store: Store,
    org_id: String,
    user_id: String,
}

impl StoreAdmin {
    /// Opens (and on first use seeds) the store file.
    pub fn open(db: &Path) -> Result<StoreAdmin> {
        let store = Store::open(db)?;
        let local = store.ensure_seeded(&Config::default().demo_command)?;
        Ok(StoreAdmin {
            store,
            org_id: local.org_id,
            user_id: local.user_id,
        })
    }

    /// [`StoreAdmin::open`] as an [`Opener`].
    pub fn opener(db: &Path) -> Result<Box<dyn Admin>> {
        Ok(Box::new(StoreAdmin::open(db)?))
    }

    fn org(&self, org: Option<&str>) -> Result<String> {
        match org {
            Some(o) => Ok(self.store.find_org(o)?.id),
            None => Ok(self.org_id.clone()),
        }
    }

    fn user(&self, email: &str) -> Result<String> {
        self.store
            .find_user_by_email(email)?
            .ok_or_else(|| Error::not_found("user", email))
    }
}

fn name(field: &str, value: &str) -> Result<String> {
    let v = value.trim();
    if v.is_empty() || v.chars().count() > 100 {
        return Err(Error::invalid(
            field,
            "length",
            "give a name of 1 to 100 characters",
        ));
    }
    Ok(v.to_string())
}

fn email(value: &str) -> Result<String> {
    let v = value.trim();
    match v.split_once('@') {
        Some((user, host)) if !user.is_empty() && !host.is_empty() && v.len() <= 254 => {
            Ok(v.to_string())
        }
        _ => Err(Error::invalid(
            "/email",
            "format",
            format!("`{value}` is not an email address"),
        )),
    }
}

impl Admin for StoreAdmin {
    fn create_key(
        &self,
        org: Option<&str>,
        key_name: &str,
        user_email: Option<&str>,
    ) -> Result<(CreatedKey, Organization)> {
        let org = self.store.org(&self.org(org)?)?;
        let user_id = match user_email {
            Some(email) => self.user(email)?,
            None => self.user_id.clone(),
        };
        let created = self.store.create_key(&org.id, &user_id, key_name)?;
        Ok((created, org))
    }

    fn keys(&self) -> Result<Vec<ApiKeyInfo>> {
        self.store.keys()
    }

    fn revoke_key(&self, id_or_prefix: &str) -> Result<ApiKeyInfo> {
        self.store.revoke_key(id_or_prefix)
    }

    fn orgs(&self) -> Result<Vec<Organization>> {
        self.store.orgs()
    }

    fn create_org(
        &self,
        org_name: &str,
        owner_email: Option<&str>,
        credits: i64,
    ) -> Result<Organization> {
        let org_name = name("/name", org_name)?;
        if credits < 0 {
            return Err(Error::invalid(
                "/credits",
                "minimum",
                "credits cannot be negative",
            ));
        }
        let owner = match owner_email {
            Some(e) => self.store.ensure_user(&email(e)?, None)?,
            None => self.user_id.clone(),
        };
        if self.store.find_org(&org_name).is_ok() {
            return Err(Error::conflict(format!(
                "an organization named `{org_name}` exists"
            )));
        }
        self.store.create_org(&org_name, &owner, credits)
    }

    fn members(&self, org: Option<&str>) -> Result<Vec<Member>> {
        self.store.members(&self.org(org)?)
    }

    fn set_member(
        &self,
        org: Option<&str>,
        address: &str,
        role: &str,
        display_name: Option<&str>,
    ) -> Result<MemberRole> {
        if !matches!(role, "owner" | "admin" | "member") {
            return Err(Error::invalid(
                "/role",
                "enum",
                "a member is owner, admin or member",
            ));
        }
        let org_id = self.org(org)?;
        let address = email(address)?;
        let display = display_name.map(|n| name("/name", n)).transpose()?;
        let user_id = self.store.ensure_user(&address, display.as_deref())?;
        let previous = self.store.org_role(&org_id, &user_id)?;
        if previous.as_deref() == Some("owner") && role != "owner" {
            let owners = self
                .store
                .members(&org_id)?
                .iter()
                .filter(|m| m.role == "owner")
                .count();
            if owners == 1 {
                return Err(Error::conflict(
                    "an organization keeps at least one owner: make another member owner first",
                ));
            }
        }
        self.store.set_member(&org_id, &user_id, role)?;
        Ok(MemberRole {
            organization_id: org_id,
            user_id,
            email: address,
            role: role.to_string(),
            previous,
        })
    }

    fn remove_member(&self, org: Option<&str>, address: &str) -> Result<(String, String)> {
        let org_id = self.org(org)?;
        let user_id = self.user(address)?;
        self.store.remove_member(&org_id, &user_id)?;
        Ok((org_id, user_id))
    }

    fn create_project(
        &self,
        org: Option<&str>,
        project: &str,
        description: Option<&str>,
    ) -> Result<Project> {
        let org_id = self.org(org)?;
        let project = name("/name", project)?;
        self.store.create_project(&org_id, &project, description)
    }

    fn grant_project(
        &self,
        org: Option<&str>,
        project: &str,
        address: &str,
        role: &str,
    ) -> Result<(String, String)> {
        let org_id = self.org(org)?;
        let project_id = self.store.find_project(&org_id, project)?;
        let user_id = self.user(address)?;
        if self.store.org_role(&org_id, &user_id)?.is_none() {
            return Err(Error::conflict(format!(
                "{address} is not a member of the organization: `evaldeck members add {address} --role member` first"
            )));
        }
        match role {
            "none" => self.store.remove_project_member(&project_id, &user_id)?,
            "admin" => self
                .store
                .set_project_member(&project_id, &user_id, ProjectRole::Admin)?,
            "member" => {
                self.store
                    .set_project_member(&project_id, &user_id, ProjectRole::Member)?
            }
            _ => {
                return Err(Error::invalid(
                    "/role",
                    "enum",
                    "a project role is admin, member or none",
                ));
            }
        }
        Ok((project_id, user_id))
    }

    fn grant_credits(
        &self,
        org: Option<&str>,
        amount: i64,
        note: Option<&str>,
    ) -> Result<(Organization, i64)> {
        if amount <= 0 {
            return Err(Error::invalid(
                "/amount",
                "minimum",
                "grant a positive number of credits",
            ));
        }
        let org = self.store.org(&self.org(org)?)?;
        let balance = self.store.grant_credits(&org.id, amount, note)?;
        Ok((org, balance))
    }
}
