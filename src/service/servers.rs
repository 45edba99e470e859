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

    /// Checks what serve mode allows: stdio at all, and which commands. Runs on save and
    /// before every connection (primitives, doctor, validate, eval runs, authoring).
    ///
    /// The allow-list: an entry with a `/` is a path and admits exactly that command string;
    /// a bare name admits exactly that bare command, which the child's `exec` finds on
    /// `PATH` — so such a server may not set its own `PATH`, or a bare name could run any
    /// file of that name; likewise a relative path (`./srv.sh`) is found from the working
    /// directory, so such a server may not set its own `cwd`.
    ///
    /// While the allow-list is active a server may also not set environment variables that
    /// change how a program loads or starts ([`loader_env`]): with `BASH_ENV`, `LD_PRELOAD`
    /// or `NODE_OPTIONS` an allowed command runs anything.
    pub(crate) fn check_transport_allowed(&self, transport: &Transport) -> Result<()> {
        let Transport::Stdio {
            command, env, cwd, ..
        } = transport
        else {
            return Ok(());
        };
        if !self.config().allow_stdio {
            return Err(Error::forbidden(
                "this service does not run stdio servers; save an HTTP server instead",
            )
            .with_reason("STDIO_DISABLED"));
        }
        if let Some(allowed) = &self.config().allowed_commands {
            let refuse = |why: String| {
                Err(Error::forbidden(why)
                    .with_reason("COMMAND_NOT_ALLOWED")
                    .with_details(serde_json::json!({ "reason": "COMMAND_NOT_ALLOWED", "allowedCommands": allowed })))
            };
            if !allowed.iter().any(|a| a == command) {
                return refuse(format!(
                    "the command `{command}` is not on this service's allow-list (bare names match bare commands only, paths match exactly)"
                ));
            }
            if !command.contains('/') && env.contains_key("PATH") {
                return refuse(format!(
                    "the command `{command}` is allowed by name, so the server may not set its own PATH"
                ));
            }
            if let Some(d) = cwd.as_deref().filter(|_| is_relative_path(command)) {
                return refuse(format!(
                    "the command `{command}` is allowed as a relative path, so the server may not set its own cwd (`{d}`)"
                ));
            }
            if let Some(name) = env.keys().find(|n| loader_env(n)) {
                return Err(Error::forbidden(format!(
                    "the environment variable `{name}` changes how programs load or start, so a server may not set it while this service restricts commands"
                ))
                .with_reason("ENV_NOT_ALLOWED")
                .with_details(serde_json::json!({ "reason": "ENV_NOT_ALLOWED", "variable": name })));
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
        let mut s = self
            .store()
            .update_server(project_id, &cur.id, &name, enabled, &config)?;
        // The live session runs the old config (or the server is now disabled): close it
        // and reap its process now rather than at the next call.
        self.mcp().evict_soon(&s.id);
        self.present(&mut s, ProjectRole::Admin)?;
        Ok(s)
    }

    pub fn delete_server(&self, who: &Principal, project_id: &str, id: &str) -> Result<Deleted> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        let cur = self.store().server(project_id, id)?;
        self.store().delete_server(project_id, &cur.id)?;
        self.mcp().evict_soon(&cur.id);
        Ok(Deleted {
            id: cur.id,
            deleted: true,
        })
    }
}

/// A command given as a relative path (`./srv.sh`, `bin/srv`): found from a working directory.
fn is_relative_path(command: &str) -> bool {
    command.contains('/') && !std::path::Path::new(command).is_absolute()
}

/// Environment variables that change how a program loads or starts — preloaded libraries,
/// shell start-up files and options, interpreter flags and module paths — so that an allowed
/// command can be made to run other code. Names are case-sensitive, as the environment is.
fn loader_env(name: &str) -> bool {
    const EXACT: &[&str] = &[
        "BASH_ENV",
        "ENV",
        "SHELLOPTS",
        "BASHOPTS",
        "PS4",
        "NODE_OPTIONS",
        "NODE_PATH",
        "PYTHONPATH",
        "PYTHONSTARTUP",
        "PYTHONHOME",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "GCONV_PATH",
    ];
    const PREFIX: &[&str] = &["LD_", "DYLD_", "BASH_FUNC_"];
    EXACT.contains(&name) || PREFIX.iter().any(|p| name.starts_with(p))
}
