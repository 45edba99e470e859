//! Saved servers: the catalog read, and the extension endpoints that add, edit and remove
//! them. A stdio server runs a command on the machine that serves the API, so only project
//! admins may save one, and `serve` can refuse them or allow only listed commands — checked
//! on save and again on every connection, so a server saved before the policy changed does
//! not slip through.
//!
//! Header and environment values are secrets (API keys, bearer tokens): project admins, who
//! may edit the server anyway, read them; every other member reads [`REDACTED`] in their
//! place. A PATCH that sends the marker back keeps the stored value.

use super::store::projects::ProjectRole;
use super::{Principal, Service};
use crate::spec::catalog::Deleted;
use crate::spec::page::{Page, PageRequest};
#[cfg(doc)]
use crate::spec::server::REDACTED;
use crate::spec::server::{Server, ServerConfig, ServerCreate, ServerPatch, Transport};
use crate::spec::{Error, Result};

impl Service {
    pub fn servers(
        &self,
        who: &Principal,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<Server>> {
        let role = self
            .store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let mut page = self.store().servers(project_id, page)?;
        for s in &mut page.items {
            self.present(s, role)?;
        }
        Ok(page)
    }

    /// A server by id or name.
    pub fn server(&self, who: &Principal, project_id: &str, id_or_name: &str) -> Result<Server> {
        let role = self
            .store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let mut s = self.store().server(project_id, id_or_name)?;
        self.present(&mut s, role)?;
        Ok(s)
    }

    /// Fills what the stored row lacks and hides secrets from readers who are not admins.
    fn present(&self, s: &mut Server, role: ProjectRole) -> Result<()> {
        s.has_client_secret = self.store().has_client_secret(&s.id)?;
        if role < ProjectRole::Admin {
            s.redact_secrets();
        }
        Ok(())
    }

    /// Checks what serve mode allows: stdio at all, and which commands with which
    /// arguments and environment ([`crate::spec::allow`]). Runs on save and before every
    /// connection (primitives, doctor, validate, eval runs, authoring).
    pub(crate) fn check_transport_allowed(&self, transport: &Transport) -> Result<()> {
        if !matches!(transport, Transport::Stdio { .. }) {
            return Ok(());
        }
        if !self.config().allow_stdio {
            return Err(Error::forbidden(
                "this service does not run stdio servers; save an HTTP server instead",
            )
            .with_reason("STDIO_DISABLED"));
        }
        match &self.config().allowed_commands {
            Some(list) => list.check(transport),
            None => Ok(()),
        }
    }

    /// Saved stdio servers (every project) that serve mode's policy refuses, each as
    /// `(project id, server name, why)`: `serve` reports them when it starts, since they
    /// will not run.
    pub fn refused_servers(&self) -> Result<Vec<(String, String, String)>> {
        let mut out = Vec::new();
        for s in self.store().stdio_servers()? {
            let Some(config) = &s.config else { continue };
            if let Err(e) = self.check_transport_allowed(&config.transport) {
                out.push((
                    s.project_id.clone().unwrap_or_default(),
                    s.name.clone(),
                    e.message,
                ));
            }
        }
        Ok(out)
    }

    pub fn create_server(
        &self,
        who: &Principal,
        project_id: &str,
        body: &ServerCreate,
    ) -> Result<Server> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        body.validate()?;
        self.check_transport_allowed(&body.transport)?;
        let mut s =
            self.store()
                .create_server(project_id, &body.name, body.enabled, &body.config())?;
        self.present(&mut s, ProjectRole::Admin)?;
        Ok(s)
    }

    pub fn update_server(
        &self,
        who: &Principal,
        project_id: &str,
        id: &str,
        body: &ServerPatch,
    ) -> Result<Server> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        let cur = self.store().server(project_id, id)?;
        let (mut name, mut enabled) = (cur.name.clone(), cur.enabled);
        let mut config: ServerConfig = cur
            .config
            .clone()
            .expect("stored servers carry their config");
        body.apply(&mut name, &mut enabled, &mut config)?;
        self.check_transport_allowed(&config.transport)?;
        let old = cur
            .config
            .as_ref()
            .expect("stored servers carry their config");
        let mut s = self
            .store()
            .update_server(project_id, &cur.id, &name, enabled, &config)?;
        if enabled && cur.enabled && old.connection_part() == config.connection_part() {
            // Only what evaldeck offers as the client changed (roots, answers, log level):
            // the live session takes it on, and hears of changed roots.
            self.mcp().adopt_soon(&s.id, s.revision, &config.client);
        } else {
            // The live session runs the old config (or the server is now disabled): close
            // it and reap its process now rather than at the next call.
            self.mcp().evict_soon(&s.id);
        }
        self.present(&mut s, ProjectRole::Admin)?;
        Ok(s)
    }

    pub fn delete_server(&self, who: &Principal, project_id: &str, id: &str) -> Result<Deleted> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        let cur = self.store().server(project_id, id)?;
        self.store().delete_server(project_id, &cur.id)?;
        self.mcp().evict_soon(&cur.id);
        self.forget_snapshots(&cur.id);
        Ok(Deleted {
            id: cur.id,
            deleted: true,
        })
    }
}
