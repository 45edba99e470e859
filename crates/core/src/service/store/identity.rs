//! Organizations, users, memberships and API keys.
//!
//! A key is `sk_` followed by 32 random bytes (256 bits) in base64url. With that much
//! entropy a single SHA-256 is the right way to store it: a slow password hash would add
//! nothing against guessing and would make every request's lookup expensive.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Store, new_id, now_ms};
use crate::spec::{Error, Result};

/// Who is calling: the key's organization and the member it was issued to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Principal {
    pub user_id: String,
    pub org_id: String,
    /// `owner`, `admin` or `member` in the organization.
    pub org_role: String,
    pub key_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApiKeyInfo {
    pub id: String,
    pub name: String,
    pub prefix: String,
    pub organization_id: Option<String>,
    pub user_id: String,
    pub created_at: i64,
    pub revoked_at: Option<i64>,
}

/// A freshly minted key: the only time its secret exists outside the caller's hands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreatedKey {
    pub key: String,
    pub info: ApiKeyInfo,
}

pub fn hash_key(key: &str) -> String {
    Sha256::digest(key.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn mint_key() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("sk_{}", URL_SAFE_NO_PAD.encode(bytes))
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Organization {
    pub id: String,
    pub name: String,
    pub credits: i64,
}

/// A user's membership of an organization.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub user_id: String,
    pub email: String,
    pub name: String,
    pub role: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct User {
    pub id: String,
    pub email: String,
    pub name: String,
    pub created_at: i64,
    pub updated_at: i64,
}

/// The identity aggregate's storage (implemented by the SQLite [`Store`]; the seam a second store implements).
pub trait IdentityStore {
    fn create_user(&self, email: &str, name: &str) -> Result<User>;

    fn user(&self, id: &str) -> Result<User>;

    fn find_user_by_email(&self, email: &str) -> Result<Option<String>>;

    /// Creates an organization whose owner is `owner_id`.
    fn create_org(&self, name: &str, owner_id: &str, credits: i64) -> Result<Organization>;

    fn org(&self, id: &str) -> Result<Organization>;

    fn orgs(&self) -> Result<Vec<Organization>>;

    /// Finds an organization by id or by exact name.
    fn find_org(&self, id_or_name: &str) -> Result<Organization>;

    fn delete_org(&self, id: &str) -> Result<()>;

    fn add_credits(&self, org_id: &str, delta: i64) -> Result<i64>;

    fn set_member(&self, org_id: &str, user_id: &str, role: &str) -> Result<()>;

    /// The user with this email, created (named `name`, or the email) when there is none.
    fn ensure_user(&self, email: &str, name: Option<&str>) -> Result<String>;

    /// The organization's members, owners first.
    fn members(&self, org_id: &str) -> Result<Vec<Member>>;

    /// Removes a member and their project roles in the organization, and revokes their keys
    /// for it, in one transaction: the keys stop working at once and stay dead if the
    /// member is added again. The last owner stays.
    fn remove_member(&self, org_id: &str, user_id: &str) -> Result<()>;

    fn org_role(&self, org_id: &str, user_id: &str) -> Result<Option<String>>;

    /// Mints a key for a member of `org_id`; the secret is returned once and never stored.
    fn create_key(&self, org_id: &str, user_id: &str, name: &str) -> Result<CreatedKey>;

    fn keys(&self) -> Result<Vec<ApiKeyInfo>>;

    /// Revokes a key by id or prefix; effective for the very next request.
    fn revoke_key(&self, id_or_prefix: &str) -> Result<ApiKeyInfo>;

    /// The principal behind a presented key: 401 for unknown or revoked keys, and 401 with
    /// `ORPHANED_KEY` when its organization (or the member it was issued to) is gone.
    fn authenticate(&self, key: &str) -> Result<Principal>;
}

impl IdentityStore for Store {
    fn create_user(&self, email: &str, name: &str) -> Result<User> {
        let now = now_ms();
        let user = User {
            id: new_id("usr"),
            email: email.into(),
            name: name.into(),
            created_at: now,
            updated_at: now,
        };
        self.write(|tx| {
            tx.execute(
                "INSERT INTO users (id, email, name, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
                params![user.id, user.email, user.name, now],
            )
            .map_err(|e| {
                if super::is_unique_violation(&e) {
                    Error::conflict(format!("a user with email `{email}` exists"))
                } else {
                    e.into()
                }
            })?;
            Ok(())
        })?;
        Ok(user)
    }

    fn user(&self, id: &str) -> Result<User> {
        self.read(|c| {
            c.prepare_cached(
                "SELECT id, email, name, created_at, updated_at FROM users WHERE id = ?1",
            )?
            .query_row([id], |r| {
                Ok(User {
                    id: r.get(0)?,
                    email: r.get(1)?,
                    name: r.get(2)?,
                    created_at: r.get(3)?,
                    updated_at: r.get(4)?,
                })
            })
            .optional()?
            .ok_or_else(|| Error::not_found("user", id))
        })
    }

    fn find_user_by_email(&self, email: &str) -> Result<Option<String>> {
        self.read(|c| {
            Ok(
                c.query_row("SELECT id FROM users WHERE email = ?1", [email], |r| {
                    r.get(0)
                })
                .optional()?,
            )
        })
    }

    fn create_org(&self, name: &str, owner_id: &str, credits: i64) -> Result<Organization> {
        let org = Organization {
            id: new_id("org"),
            name: name.into(),
            credits,
        };
        let now = now_ms();
        self.write(|tx| {
            tx.execute(
                "INSERT INTO organizations (id, name, credits, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4)",
                params![org.id, org.name, credits, now],
            )?;
            tx.execute(
                "INSERT INTO members (org_id, user_id, role) VALUES (?1, ?2, 'owner')",
                params![org.id, owner_id],
            )?;
            Ok(())
        })?;
        Ok(org)
    }

    fn org(&self, id: &str) -> Result<Organization> {
        self.read(|c| org_in(c, id))
    }

    fn orgs(&self) -> Result<Vec<Organization>> {
        self.read(|c| {
            let mut st =
                c.prepare("SELECT id, name, credits FROM organizations ORDER BY created_at, id")?;
            let rows = st.query_map([], |r| {
                Ok(Organization {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    credits: r.get(2)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    fn find_org(&self, id_or_name: &str) -> Result<Organization> {
        let id: Option<String> = self.read(|c| {
            Ok(c.query_row(
                "SELECT id FROM organizations WHERE id = ?1 OR name = ?1 ORDER BY created_at LIMIT 1",
                [id_or_name],
                |r| r.get(0),
            )
            .optional()?)
        })?;
        self.org(&id.ok_or_else(|| Error::not_found("organization", id_or_name))?)
    }

    fn delete_org(&self, id: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute("DELETE FROM organizations WHERE id = ?1", [id])?;
            Ok(())
        })
    }

    fn add_credits(&self, org_id: &str, delta: i64) -> Result<i64> {
        self.write(|tx| {
            tx.execute(
                "UPDATE organizations SET credits = credits + ?2, updated_at = ?3 WHERE id = ?1",
                params![org_id, delta, now_ms()],
            )?;
            Ok(tx.query_row(
                "SELECT credits FROM organizations WHERE id = ?1",
                [org_id],
                |r| r.get(0),
            )?)
        })
    }

    fn set_member(&self, org_id: &str, user_id: &str, role: &str) -> Result<()> {
        self.write(|tx| {
            tx.execute(
                "INSERT INTO members (org_id, user_id, role) VALUES (?1, ?2, ?3)
                 ON CONFLICT (org_id, user_id) DO UPDATE SET role = excluded.role",
                params![org_id, user_id, role],
            )?;
            Ok(())
        })
    }

    fn ensure_user(&self, email: &str, name: Option<&str>) -> Result<String> {
        match self.find_user_by_email(email)? {
            Some(id) => Ok(id),
            None => Ok(self.create_user(email, name.unwrap_or(email))?.id),
        }
    }

    fn members(&self, org_id: &str) -> Result<Vec<Member>> {
        self.read(|c| {
            let mut st = c.prepare(
                "SELECT u.id, u.email, u.name, m.role FROM members m JOIN users u ON u.id = m.user_id
                 WHERE m.org_id = ?1
                 ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u.email",
            )?;
            let rows = st.query_map([org_id], |r| {
                Ok(Member {
                    user_id: r.get(0)?,
                    email: r.get(1)?,
                    name: r.get(2)?,
                    role: r.get(3)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    fn remove_member(&self, org_id: &str, user_id: &str) -> Result<()> {
        self.write(|tx| {
            let role: Option<String> = tx
                .query_row(
                    "SELECT role FROM members WHERE org_id = ?1 AND user_id = ?2",
                    params![org_id, user_id],
                    |r| r.get(0),
                )
                .optional()?;
            match role.as_deref() {
                None => return Err(Error::not_found("member", user_id)),
                Some("owner") => {
                    let owners: i64 = tx.query_row(
                        "SELECT COUNT(*) FROM members WHERE org_id = ?1 AND role = 'owner'",
                        [org_id],
                        |r| r.get(0),
                    )?;
                    if owners == 1 {
                        return Err(Error::conflict(
                            "an organization keeps at least one owner: make another member owner first",
                        ));
                    }
                }
                Some(_) => {}
            }
            tx.execute(
                "DELETE FROM project_members WHERE user_id = ?2
                 AND project_id IN (SELECT id FROM projects WHERE org_id = ?1)",
                params![org_id, user_id],
            )?;
            tx.execute(
                "DELETE FROM members WHERE org_id = ?1 AND user_id = ?2",
                params![org_id, user_id],
            )?;
            tx.execute(
                "UPDATE api_keys SET revoked_at = ?3
                 WHERE org_id = ?1 AND user_id = ?2 AND revoked_at IS NULL",
                params![org_id, user_id, now_ms()],
            )?;
            Ok(())
        })
    }

    fn org_role(&self, org_id: &str, user_id: &str) -> Result<Option<String>> {
        self.read(|c| {
            Ok(
                c.prepare_cached("SELECT role FROM members WHERE org_id = ?1 AND user_id = ?2")?
                    .query_row(params![org_id, user_id], |r| r.get(0))
                    .optional()?,
            )
        })
    }

    fn create_key(&self, org_id: &str, user_id: &str, name: &str) -> Result<CreatedKey> {
        if self.org_role(org_id, user_id)?.is_none() {
            return Err(Error::forbidden(
                "a key can only be issued to a member of the organization",
            ));
        }
        let key = mint_key();
        let info = ApiKeyInfo {
            id: new_id("key"),
            name: name.into(),
            prefix: key[..10].to_string(),
            organization_id: Some(org_id.into()),
            user_id: user_id.into(),
            created_at: now_ms(),
            revoked_at: None,
        };
        self.write(|tx| {
            tx.execute(
                "INSERT INTO api_keys (id, hash, prefix, name, org_id, user_id, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    info.id,
                    hash_key(&key),
                    info.prefix,
                    info.name,
                    org_id,
                    user_id,
                    info.created_at
                ],
            )?;
            Ok(())
        })?;
        Ok(CreatedKey { key, info })
    }

    fn keys(&self) -> Result<Vec<ApiKeyInfo>> {
        self.read(|c| {
            let mut st = c.prepare(
                "SELECT id, name, prefix, org_id, user_id, created_at, revoked_at FROM api_keys ORDER BY created_at, id",
            )?;
            let rows = st.query_map([], |r| {
                Ok(ApiKeyInfo {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    prefix: r.get(2)?,
                    organization_id: r.get(3)?,
                    user_id: r.get(4)?,
                    created_at: r.get(5)?,
                    revoked_at: r.get(6)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    fn revoke_key(&self, id_or_prefix: &str) -> Result<ApiKeyInfo> {
        let n = self.write(|tx| {
            Ok(tx.execute(
                "UPDATE api_keys SET revoked_at = ?2 WHERE (id = ?1 OR prefix = ?1) AND revoked_at IS NULL",
                params![id_or_prefix, now_ms()],
            )?)
        })?;
        if n == 0 {
            return Err(Error::not_found("active API key", id_or_prefix));
        }
        self.keys()?
            .into_iter()
            .find(|k| k.id == id_or_prefix || k.prefix == id_or_prefix)
            .ok_or_else(|| Error::not_found("API key", id_or_prefix))
    }

    fn authenticate(&self, key: &str) -> Result<Principal> {
        if !key.starts_with("sk_") {
            return Err(Error::unauthorized("API keys begin with `sk_`"));
        }
        let hash = hash_key(key);
        self.read(|c| {
            let row: Option<KeyRow> = c
                .prepare_cached(
                    "SELECT k.id, k.org_id, k.user_id, k.revoked_at, m.role
                     FROM api_keys k LEFT JOIN members m ON m.org_id = k.org_id AND m.user_id = k.user_id
                     WHERE k.hash = ?1",
                )?
                .query_row([&hash], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)))
                .optional()?;
            match row {
                None => Err(Error::unauthorized("invalid API key")),
                Some((_, _, _, Some(_), _)) => Err(Error::unauthorized("this API key was revoked")),
                Some((key_id, Some(org_id), user_id, None, Some(role))) => Ok(Principal {
                    user_id,
                    org_id,
                    org_role: role,
                    key_id: Some(key_id),
                }),
                Some(_) => Err(Error::unauthorized("this API key is no longer bound to an organization")
                    .with_reason("ORPHANED_KEY")),
            }
        })
    }
}

/// key id, organization, user, revoked at, member role.
type KeyRow = (String, Option<String>, String, Option<i64>, Option<String>);

fn org_in(c: &Connection, id: &str) -> Result<Organization> {
    c.prepare_cached("SELECT id, name, credits FROM organizations WHERE id = ?1")?
        .query_row([id], |r| {
            Ok(Organization {
                id: r.get(0)?,
                name: r.get(1)?,
                credits: r.get(2)?,
            })
        })
        .optional()?
        .ok_or_else(|| Error::not_found("organization", id))
}
