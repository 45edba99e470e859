//! The operator's commands: organizations, members, projects and API keys, managed on the
//! machine that holds the store, never over the API (no key can manage keys or grant access).

use clap::Subcommand;

use super::output::{Out, table};
use super::{Target, exit_code};
use crate::local::admin::STARTING_CREDITS;
use crate::spec::Result;

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

pub fn keys(target: &Target, cmd: KeysCmd, out: &Out) -> Result<()> {
    let admin = target.admin("API keys")?;
    match cmd {
        KeysCmd::Create { org, name, user } => {
            let (created, org) = admin.create_key(org.as_deref(), &name, user.as_deref())?;
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
            let keys = admin.keys()?;
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
            let k = admin.revoke_key(&key)?;
            if out.json {
                return out.value(&k);
            }
            println!("revoked {}", k.id);
            Ok(())
        }
    }
}

pub fn orgs(target: &Target, cmd: OrgsCmd, out: &Out) -> Result<()> {
    let admin = target.admin("organizations")?;
    match cmd {
        OrgsCmd::List => {
            let orgs = admin.orgs()?;
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
            let org = admin.create_org(&org_name, owner.as_deref(), credits)?;
            if out.json {
                return out.value(&org);
            }
            println!("created organization {} ({})", org.name, org.id);
            Ok(())
        }
    }
}

pub fn members(target: &Target, cmd: MembersCmd, out: &Out) -> Result<()> {
    let admin = target.admin("members")?;
    match cmd {
        MembersCmd::List { org } => {
            let members = admin.members(org.as_deref())?;
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
            let changed = admin.set_member(org.as_deref(), &address, &role, display.as_deref())?;
            if out.json {
                return out.value(&changed);
            }
            let address = changed.email;
            match changed.previous {
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
            let (org_id, user_id) = admin.remove_member(org.as_deref(), &address)?;
            if out.json {
                return out.value(&serde_json::json!({"organizationId": org_id, "userId": user_id, "removed": true}));
            }
            println!("{address} removed; their keys for this organization no longer work");
            Ok(())
        }
    }
}

pub fn projects(target: &Target, cmd: ProjectsAdmin, out: &Out) -> Result<()> {
    let admin = target.admin("projects")?;
    match cmd {
        ProjectsAdmin::Create {
            name: project,
            description,
            org,
        } => {
            let created = admin.create_project(org.as_deref(), &project, description.as_deref())?;
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
            let (project_id, user_id) =
                admin.grant_project(org.as_deref(), &project, &address, &role)?;
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
