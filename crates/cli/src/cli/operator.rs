//! The operator's commands: organizations, members, projects and API keys, managed on the
//! machine that holds the store, never over the API (no key can manage keys or grant access).

use clap::Subcommand;

use super::output::{Out, table};
use super::{Target, exit_code};
use crate::service::store::Storage;
use crate::service::store::projects::ProjectRole;
use crate::service::store::seed::STARTING_CREDITS;
use crate::service::{Config, Service};
use crate::spec::{Error, Result};

#[derive(Debug, Subcommand)]
pub enum KeysCmd {
    /// Mint a key; its secret is printed once.
    Create {
        /// Organization id or name [default: the local organization].
        #[arg(long)]
        org: Option<String>,
        #[arg(long)]
        name: String,
        /// Email of the member the key acts as [default: the organization's owner].
        #[arg(long)]
        user: Option<String>,
    },
    /// List keys (never their secrets).
    List,
    /// Revoke a key by id or prefix, effective immediately.
    Revoke { key: String },
}

#[derive(Debug, Subcommand)]
pub enum OrgsCmd {
    /// Organizations in this store.
    List,
    /// Create an organization with its owner (created if the email is new).
    Create {
        name: String,
        /// Email of the owner [default: the local owner].
        #[arg(long)]
        owner: Option<String>,
        /// Credits it starts with.
        #[arg(long, default_value_t = STARTING_CREDITS)]
        credits: i64,
    },
}

#[derive(Debug, Subcommand)]
pub enum MembersCmd {
    /// Members of an organization and their roles.
    List {
        /// Organization id or name [default: the local organization].
        #[arg(long)]
        org: Option<String>,
    },
    /// Add a member, or change a member's role (the user is created if the email is new).
    Add {
        email: String,
        /// owner, admin (every project) or member (projects granted with `projects grant`).
        #[arg(long, value_parser = ["owner", "admin", "member"])]
        role: String,
        /// Display name for a new user [default: the email].
        #[arg(long)]
        name: Option<String>,
        #[arg(long)]
        org: Option<String>,
    },
    /// Remove a member; their keys for the organization stop working at once.
    Remove {
        email: String,
        #[arg(long)]
        org: Option<String>,
    },
}

/// The operator's project commands (the list itself goes through the backend).
#[derive(Debug, Subcommand)]
pub enum ProjectsAdmin {
    /// Create a project in an organization (local only).
    Create {
        name: String,
        #[arg(long)]
        description: Option<String>,
        /// Organization id or name [default: the local organization].
        #[arg(long)]
        org: Option<String>,
    },
    /// Give a member a role on one project, or take it away with `none` (local only).
    Grant {
        /// Project id or name.
        project: String,
        email: String,
        #[arg(long, value_parser = ["admin", "member", "none"])]
        role: String,
        #[arg(long)]
        org: Option<String>,
    },
}

/// What the operator's commands work on: the local store and its organization.
struct Local {
    service: Service,
    org_id: String,
    user_id: String,
}

impl Local {
    fn open(target: &Target, what: &str) -> Result<Local> {
        if target.base_url.is_some() {
            return Err(Error::forbidden(format!(
                "{what} are managed only on the machine that holds the store: run this there, without --base-url"
            )));
        }
        let service = Service::open(&target.db_path(), Config::default())?;
        let local = service.local_principal()?;
        Ok(Local {
            service,
            org_id: local.org_id,
            user_id: local.user_id,
        })
    }

    fn store(&self) -> &dyn Storage {
        self.service.store()
    }

    fn org(&self, org: Option<&str>) -> Result<String> {
        match org {
            Some(o) => Ok(self.store().find_org(o)?.id),
            None => Ok(self.org_id.clone()),
        }
    }

    fn user(&self, email: &str) -> Result<String> {
        self.store()
            .find_user_by_email(email)?
            .ok_or_else(|| Error::not_found("user", email))
    }
}

/// Runs an operator command and returns the exit code.
pub fn run(target: &Target, f: impl FnOnce(&Out) -> Result<()>) -> i32 {
    let out = Out { json: target.json };
    match f(&out) {
        Ok(()) => 0,
        Err(e) => {
            out.error(&e);
            exit_code(&e.code)
        }
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

pub fn keys(target: &Target, cmd: KeysCmd, out: &Out) -> Result<()> {
    let local = Local::open(target, "API keys")?;
    let store = local.store();
    match cmd {
        KeysCmd::Create { org, name, user } => {
            let org = store.org(&local.org(org.as_deref())?)?;
            let user_id = match user {
                Some(email) => local.user(&email)?,
                None => local.user_id.clone(),
            };
            let created = store.create_key(&org.id, &user_id, &name)?;
            if out.json {
                return out.value(&created);
            }
            println!("{}", created.key);
            eprintln!(
                "key {} for organization {} — shown once; store it now",
                created.info.id, org.name
            );
            Ok(())
        }
        KeysCmd::List => {
            let keys = store.keys()?;
            if out.json {
                return out.value(&keys);
            }
            table(
                &["id", "prefix", "name", "organization", "state"],
                keys.into_iter()
                    .map(|k| {
                        vec![
                            k.id,
                            format!("{}…", k.prefix),
                            k.name,
                            k.organization_id.unwrap_or_else(|| "(orphaned)".into()),
                            if k.revoked_at.is_some() {
                                "revoked"
                            } else {
                                "active"
                            }
                            .into(),
                        ]
                    })
                    .collect(),
            );
            Ok(())
        }
        KeysCmd::Revoke { key } => {
            let k = store.revoke_key(&key)?;
            if out.json {
                return out.value(&k);
            }
            println!("revoked {}", k.id);
            Ok(())
        }
    }
}

pub fn orgs(target: &Target, cmd: OrgsCmd, out: &Out) -> Result<()> {
    let local = Local::open(target, "organizations")?;
    let store = local.store();
    match cmd {
        OrgsCmd::List => {
            let orgs = store.orgs()?;
            if out.json {
                return out.value(&orgs);
            }
            table(
                &["id", "name", "credits"],
                orgs.into_iter()
                    .map(|o| vec![o.id, o.name, o.credits.to_string()])
                    .collect(),
            );
            Ok(())
        }
        OrgsCmd::Create {
            name: org_name,
            owner,
            credits,
        } => {
            let org_name = name("/name", &org_name)?;
            if credits < 0 {
                return Err(Error::invalid(
                    "/credits",
                    "minimum",
                    "credits cannot be negative",
                ));
            }
            let owner = match owner {
                Some(e) => store.ensure_user(&email(&e)?, None)?,
                None => local.user_id.clone(),
            };
            if store.find_org(&org_name).is_ok() {
                return Err(Error::conflict(format!(
                    "an organization named `{org_name}` exists"
                )));
            }
            let org = store.create_org(&org_name, &owner, credits)?;
            if out.json {
                return out.value(&org);
            }
            println!("created organization {} ({})", org.name, org.id);
            Ok(())
        }
    }
}

pub fn members(target: &Target, cmd: MembersCmd, out: &Out) -> Result<()> {
    let local = Local::open(target, "members")?;
    let store = local.store();
    match cmd {
        MembersCmd::List { org } => {
            let members = store.members(&local.org(org.as_deref())?)?;
            if out.json {
                return out.value(&members);
            }
            table(
                &["email", "name", "role", "user"],
                members
                    .into_iter()
                    .map(|m| vec![m.email, m.name, m.role, m.user_id])
                    .collect(),
            );
            Ok(())
        }
        MembersCmd::Add {
            email: address,
            role,
            name: display,
            org,
        } => {
            let org_id = local.org(org.as_deref())?;
            let address = email(&address)?;
            let display = display.map(|n| name("/name", &n)).transpose()?;
            let user_id = store.ensure_user(&address, display.as_deref())?;
            let was = store.org_role(&org_id, &user_id)?;
            if was.as_deref() == Some("owner") && role != "owner" {
                let owners = store
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
            store.set_member(&org_id, &user_id, &role)?;
            if out.json {
                return out.value(&serde_json::json!({
                    "organizationId": org_id, "userId": user_id, "email": address, "role": role,
                }));
            }
            match was {
                Some(old) if old != role => println!("{address}: {old} → {role}"),
                Some(_) => println!("{address} is already {role}"),
                None => println!("{address} added as {role}"),
            }
            Ok(())
        }
        MembersCmd::Remove {
            email: address,
            org,
        } => {
            let org_id = local.org(org.as_deref())?;
            let user_id = local.user(&address)?;
            store.remove_member(&org_id, &user_id)?;
            if out.json {
                return out.value(&serde_json::json!({"organizationId": org_id, "userId": user_id, "removed": true}));
            }
            println!("{address} removed; their keys for this organization no longer work");
            Ok(())
        }
    }
}

pub fn projects(target: &Target, cmd: ProjectsAdmin, out: &Out) -> Result<()> {
    let local = Local::open(target, "projects")?;
    let store = local.store();
    match cmd {
        ProjectsAdmin::Create {
            name: project,
            description,
            org,
        } => {
            let org_id = local.org(org.as_deref())?;
            let project = name("/name", &project)?;
            let created = store.create_project(&org_id, &project, description.as_deref())?;
            if out.json {
                return out.value(&created);
            }
            println!("created project {} ({})", created.name, created.id);
            Ok(())
        }
        ProjectsAdmin::Grant {
            project,
            email: address,
            role,
            org,
        } => {
            let org_id = local.org(org.as_deref())?;
            let project_id = store.find_project(&org_id, &project)?;
            let user_id = local.user(&address)?;
            if store.org_role(&org_id, &user_id)?.is_none() {
                return Err(Error::conflict(format!(
                    "{address} is not a member of the organization: `evaldeck members add {address} --role member` first"
                )));
            }
            match role.as_str() {
                "none" => store.remove_project_member(&project_id, &user_id)?,
                "admin" => store.set_project_member(&project_id, &user_id, ProjectRole::Admin)?,
                _ => store.set_project_member(&project_id, &user_id, ProjectRole::Member)?,
            }
            if out.json {
                return out.value(&serde_json::json!({
                    "projectId": project_id, "userId": user_id, "role": role,
                }));
            }
            println!("{address} on {project}: {role}");
            Ok(())
        }
    }
}
