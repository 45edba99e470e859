//! Saved servers: the catalog read, and the extension endpoints that add, edit and remove
//! them. A stdio server runs a command on the machine that serves the API, so only project
//! admins may save one, and `serve` can refuse them or allow only listed commands.

use super::store::projects::ProjectRole;
use super::{Principal, Service};
use crate::spec::catalog::Deleted;
use crate::spec::page::{Page, PageRequest};
use crate::spec::server::{Server, ServerConfig, ServerCreate, ServerPatch, Transport};
use crate::spec::{Error, Result};

impl Service {
    pub fn servers(
        &self,
        who: &Principal,
        project_id: &str,
        page: &PageRequest,
    ) -> Result<Page<Server>> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let mut page = self.store().servers(project_id, page)?;
        for s in &mut page.items {
            s.has_client_secret = self.store().has_client_secret(&s.id)?;
        }
        Ok(page)
    }

    /// A server by id or name.
    pub fn server(&self, who: &Principal, project_id: &str, id_or_name: &str) -> Result<Server> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let mut s = self.store().server(project_id, id_or_name)?;
        s.has_client_secret = self.store().has_client_secret(&s.id)?;
        Ok(s)
    }

    /// Checks what serve mode allows: stdio at all, and which commands.
    fn check_transport_allowed(&self, transport: &Transport) -> Result<()> {
        let Transport::Stdio { command, .. } = transport else {
            return Ok(());
        };
        if !self.config().allow_stdio {
            return Err(Error::forbidden(
                "this service does not run stdio servers; save an HTTP server instead",
            )
            .with_reason("STDIO_DISABLED"));
        }
        if let Some(allowed) = &self.config().allowed_commands {
            let base = std::path::Path::new(command)
                .file_name()
                .and_then(|f| f.to_str())
                .unwrap_or(command);
            if !allowed.iter().any(|a| a == command || a == base) {
                return Err(Error::forbidden(format!("the command `{command}` is not on this service's allow-list"))
                    .with_reason("COMMAND_NOT_ALLOWED")
                    .with_details(serde_json::json!({ "reason": "COMMAND_NOT_ALLOWED", "allowedCommands": allowed })));
            }
        }
        Ok(())
    }

    pub fn create_server(
        &self,
        who: &Principal,
        project_id: &str,
        body: &ServerCreate,
    ) -> Result<Server> {
        body.validate()?;
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        self.check_transport_allowed(&body.transport)?;
        self.store()
            .create_server(project_id, &body.name, body.enabled, &body.config())
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
        self.store()
            .update_server(project_id, &cur.id, &name, enabled, &config)
    }

    pub fn delete_server(&self, who: &Principal, project_id: &str, id: &str) -> Result<Deleted> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        let cur = self.store().server(project_id, id)?;
        self.store().delete_server(project_id, &cur.id)?;
        Ok(Deleted {
            id: cur.id,
            deleted: true,
        })
    }
}
