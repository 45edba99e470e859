//! Environments exactly as the spec states them: revision-guarded writes, `null` clears,
//! archive frees the name, restore re-checks it and drops dead plugin pins, and resolve
//! previews what a launch would use. Writes check project admin before the body.

use serde_json::{Value, json};

use super::store::projects::ProjectRole;
use super::{Principal, Service};
use crate::spec::environment::{
    Created, Environment, EnvironmentCreate, EnvironmentPatch, EnvironmentQuery, EnvironmentRef,
    EnvironmentResolution, EnvironmentRestored, PluginVersionCreate, RevisionGuard,
    ServerGroupCreate, ServerRef, SkillCreate,
};
use crate::spec::page::Page;
use crate::spec::validate::Checker;
use crate::spec::{Error, Result};

impl Service {
    pub fn environments(
        &self,
        who: &Principal,
        project_id: &str,
        q: &EnvironmentQuery,
    ) -> Result<Page<Environment>> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().environments(project_id, q)
    }

    pub fn environment(&self, who: &Principal, project_id: &str, id: &str) -> Result<Environment> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().environment(project_id, id)
    }

    pub fn create_environment(
        &self,
        who: &Principal,
        project_id: &str,
        body: &EnvironmentCreate,
    ) -> Result<Environment> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        body.validate()?;
        self.store().create_environment(project_id, body)
    }

    pub fn update_environment(
        &self,
        who: &Principal,
        project_id: &str,
        id: &str,
        body: &EnvironmentPatch,
    ) -> Result<Environment> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        body.validate()?;
        self.store().update_environment(project_id, id, body)
    }

    pub fn archive_environment(
        &self,
        who: &Principal,
        project_id: &str,
        id: &str,
        expected: i64,
    ) -> Result<Environment> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        RevisionGuard {
            expected_revision: expected,
        }
        .validate()?;
        self.store().archive_environment(project_id, id, expected)
    }

    pub fn restore_environment(
        &self,
        who: &Principal,
        project_id: &str,
        id: &str,
        expected: i64,
    ) -> Result<EnvironmentRestored> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        RevisionGuard {
            expected_revision: expected,
        }
        .validate()?;
        let (environment, dropped) = self.store().restore_environment(project_id, id, expected)?;
        Ok(EnvironmentRestored {
            environment,
            dropped_plugin_version_ids: dropped,
        })
    }

    /// What a launch of the environment would use; 409 when it cannot be launched
    /// (archived, a pinned plugin version gone, or no enabled server to connect to).
    pub fn resolve_environment(
        &self,
        who: &Principal,
        project_id: &str,
        id: &str,
    ) -> Result<EnvironmentResolution> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let env = self.store().environment(project_id, id)?;
        if env.archived {
            return Err(Error::conflict(
                "the environment is archived; restore it to launch it",
            ));
        }
        let host = self.store().host(project_id, &env.host_id)?;
        let host_config_id = host
            .config
            .get("hostConfigId")
            .and_then(Value::as_str)
            .unwrap_or("custom")
            .to_string();
        let host_model = host
            .config
            .get("modelId")
            .and_then(Value::as_str)
            .map(str::to_string);
        let members = match &env.server_attachment_id {
            Some(g) => self
                .store()
                .server_group(project_id, g)?
                .map(|(_, m)| m)
                .unwrap_or_default(),
            None => Vec::new(),
        };
        let selected: Vec<String> = members.iter().map(|(id, _)| id.clone()).collect();
        let mut servers = Vec::new();
        for (sid, name) in &members {
            if self.store().server(project_id, sid)?.enabled {
                servers.push(ServerRef {
                    server_id: sid.clone(),
                    name: name.clone(),
                });
            }
        }
        let pins = env.plugin_version_ids.clone().unwrap_or_default();
        let (plugin_versions, missing) = self.store().plugin_versions(project_id, &pins)?;
        if !missing.is_empty() {
            return Err(Error::conflict(
                "pinned plugin versions no longer exist; edit the environment's pins",
            )
            .with_details(json!({ "missingPluginVersionIds": missing })));
        }
        if servers.is_empty() {
            return Err(Error::conflict(
                "the environment has no enabled server to connect to; attach a server group",
            )
            .with_details(json!({ "selectedServerIds": selected })));
        }
        Ok(EnvironmentResolution {
            environment: EnvironmentRef {
                id: env.id.clone(),
                name: env.name.clone(),
                revision: env.revision,
            },
            host_id: host.id,
            host_name: host.name,
            host_config_id,
            model_id: env.model_id.clone(),
            effective_model_id: env.model_id.clone().or(host_model),
            server_attachment_id: env.server_attachment_id.clone(),
            effective_server_ids: servers.iter().map(|s| s.server_id.clone()).collect(),
            selected_server_ids: selected,
            plugin_versions,
            servers,
            host_config: Some(host.config),
            roots: env.roots.clone(),
        })
    }

    pub fn create_server_group(
        &self,
        who: &Principal,
        project_id: &str,
        body: &ServerGroupCreate,
    ) -> Result<Created> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        let mut c = Checker::new();
        c.length("/name", &body.name, 1, Some(200));
        let mut seen = std::collections::HashSet::new();
        for (i, s) in body.server_ids.iter().enumerate() {
            if !seen.insert(s) {
                c.fail(
                    format!("/serverIds/{i}"),
                    "uniqueItems",
                    format!("`{s}` is listed twice"),
                );
            }
        }
        c.finish()?;
        let id = self
            .store()
            .create_server_group(project_id, &body.name, &body.server_ids)?;
        Ok(Created {
            id,
            parent_id: None,
        })
    }

    /// Registers a plugin version, creating the plugin by name if needed, in one
    /// transaction (a failed version insert leaves no orphan plugin behind).
    pub fn create_plugin_version(
        &self,
        who: &Principal,
        project_id: &str,
        body: &PluginVersionCreate,
    ) -> Result<Created> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        let mut c = Checker::new();
        c.length("/name", &body.name, 1, Some(200));
        c.length("/version", &body.version, 1, Some(100));
        c.length("/bundleHash", &body.bundle_hash, 1, Some(200));
        c.finish()?;
        let (plugin, id) = self.store().register_plugin_version(
            project_id,
            &body.name,
            &body.version,
            &body.bundle_hash,
        )?;
        Ok(Created {
            id,
            parent_id: Some(plugin),
        })
    }

    pub fn delete_plugin_version(
        &self,
        who: &Principal,
        project_id: &str,
        id: &str,
    ) -> Result<crate::spec::catalog::Deleted> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        self.store().delete_plugin_version(project_id, id)?;
        Ok(crate::spec::catalog::Deleted {
            id: id.into(),
            deleted: true,
        })
    }

    pub fn create_skill(
        &self,
        who: &Principal,
        project_id: &str,
        body: &SkillCreate,
    ) -> Result<Created> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        let mut c = Checker::new();
        c.length("/name", &body.name, 1, Some(200));
        c.finish()?;
        Ok(Created {
            id: self.store().create_skill(project_id, &body.name)?,
            parent_id: None,
        })
    }
}
