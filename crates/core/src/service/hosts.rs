//! Hosts: list, read, create from a template or a full config, edit, delete.
//!
//! Writes check access before the body, so a caller who may not write learns nothing from
//! a 400. Host names are unique per project (409 `CONFLICT`), as environment names are.

use super::store::projects::ProjectRole;
use super::{Principal, Service};
use crate::spec::Result;
use crate::spec::catalog::Deleted;
use crate::spec::host::{Host, HostCreate, HostPatch, HostSummary, Template};
use crate::spec::page::{Page, PageRequest};

impl Service {
    pub fn hosts(
        &self,
        who: &Principal,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<HostSummary>> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().hosts(project_id, page)
    }

    pub fn host(&self, who: &Principal, project_id: &str, id: &str) -> Result<Host> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().host(project_id, id)
    }

    /// A template's config gets `hostConfigId` = the template id; a full config without
    /// `hostConfigId` is recorded as `custom`.
    pub fn create_host(
        &self,
        who: &Principal,
        project_id: &str,
        body: &HostCreate,
    ) -> Result<Host> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        body.validate()?;
        let config = match (&body.template, &body.config) {
            (Some(t), _) => Template::find(t).expect("validated").config(),
            (None, Some(c)) => {
                let mut c = c.clone();
                c.entry("hostConfigId").or_insert_with(|| "custom".into());
                c
            }
            (None, None) => unreachable!("validated"),
        };
        self.store().create_host(project_id, &body.name, &config)
    }

    pub fn update_host(
        &self,
        who: &Principal,
        project_id: &str,
        id: &str,
        body: &HostPatch,
    ) -> Result<Host> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        body.validate()?;
        let config = body.config.clone().map(|mut c| {
            c.entry("hostConfigId").or_insert_with(|| "custom".into());
            c
        });
        self.store()
            .update_host(project_id, id, body.name.as_deref(), config.as_ref())
    }

    pub fn delete_host(&self, who: &Principal, project_id: &str, id: &str) -> Result<Deleted> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        self.store().delete_host(project_id, id)?;
        Ok(Deleted {
            id: id.into(),
            deleted: true,
        })
    }
}
