//! Non-interactive commands: the same operations as the workbench, for scripts and CI.
//! Human-readable output by default, `--json` for programs, and exit codes by error kind.

mod output;

pub use output::table;

use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::sync::Arc;

use crate::client::{Backend, Embedded, Remote, collect_all};
use crate::service::{Config, Service, default_db_path};
use crate::spec::catalog::ProjectQuery;
use crate::spec::environment::EnvironmentQuery;
use crate::spec::server::{ServerConfig, ServerCreate, Transport};
use crate::spec::{Code, Error, Result};
use output::Out;

/// Where operations go: the embedded store (default) or a remote `/api/v1`.
#[derive(Debug, Clone, Args)]
pub struct Target {
    /// The SQLite file of the embedded backend [default: the user's data directory].
    #[arg(long, global = true, env = "EVALDECK_DB")]
    pub db: Option<PathBuf>,
    /// Talk to a remote `evaldeck serve` (or any `/api/v1`) instead of the embedded core.
    #[arg(long, global = true, env = "EVALDECK_BASE_URL")]
    pub base_url: Option<String>,
    /// API key for `--base-url`.
    #[arg(long, global = true, env = "EVALDECK_API_KEY", hide_env_values = true)]
    pub api_key: Option<String>,
    /// Project id or name [default: the organization's first project].
    #[arg(long, short = 'p', global = true, env = "EVALDECK_PROJECT")]
    pub project: Option<String>,
    /// Print JSON instead of tables.
    #[arg(long, global = true)]
    pub json: bool,
}

impl Target {
    pub fn db_path(&self) -> PathBuf {
        self.db.clone().unwrap_or_else(default_db_path)
    }

    /// Opens the backend this target names.
    pub fn backend(&self) -> Result<Arc<dyn Backend>> {
        match &self.base_url {
            Some(url) => {
                let key = self.api_key.clone().ok_or_else(|| {
                    Error::unauthorized(
                        "--base-url needs an API key: pass --api-key or set EVALDECK_API_KEY",
                    )
                })?;
                Ok(Arc::new(Remote::new(url, &key)?))
            }
            None => Ok(Arc::new(Embedded::new(Service::open(
                &self.db_path(),
                Config::default(),
            )?)?)),
        }
    }
}

/// Resolves `--project` (id or name) or the first accessible project.
pub async fn project_id(backend: &dyn Backend, wanted: Option<&str>) -> Result<String> {
    let projects =
        collect_all(|p| async move { backend.projects(&ProjectQuery::default(), &p).await })
            .await?;
    match wanted {
        Some(w) => projects
            .into_iter()
            .find(|p| p.id == w || p.name == w)
            .map(|p| p.id)
            .ok_or_else(|| Error::not_found("project", w)),
        None => projects
            .into_iter()
            .next()
            .map(|p| p.id)
            .ok_or_else(|| Error::not_found("project", "(any)")),
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The account behind the backend: user, organization, credits.
    Me,
    /// Projects you can reach.
    Projects,
    /// Saved MCP servers.
    #[command(subcommand)]
    Servers(Box<ServersCmd>),
    /// Hosts (the MCP clients an eval emulates).
    Hosts,
    /// Environments.
    #[command(subcommand)]
    Envs(EnvsCmd),
    /// Eval suites with their latest run.
    Suites,
}

#[derive(Debug, Subcommand)]
pub enum ServersCmd {
    /// List saved servers.
    List,
    /// Show one saved server (id or name).
    Show { server: String },
    /// Save a server: `--command` for stdio, `--url` for streamable HTTP (`--sse` for legacy SSE).
    Add(Box<AddServer>),
    /// Delete a saved server.
    Remove { server: String },
}

#[derive(Debug, Args)]
pub struct AddServer {
    pub name: String,
    #[arg(long, conflicts_with = "url")]
    pub command: Option<String>,
    /// Arguments of `--command` (repeat, or give after `--`).
    #[arg(long = "arg", allow_hyphen_values = true)]
    pub args: Vec<String>,
    /// `KEY=VALUE` environment for a stdio server (repeatable).
    #[arg(long = "env")]
    pub env: Vec<String>,
    #[arg(long)]
    pub cwd: Option<String>,
    #[arg(long)]
    pub url: Option<String>,
    /// `Name: value` HTTP header (repeatable).
    #[arg(long = "header")]
    pub headers: Vec<String>,
    /// The URL speaks legacy HTTP+SSE rather than streamable HTTP.
    #[arg(long, requires = "url")]
    pub sse: bool,
    #[arg(long)]
    pub oauth: bool,
    #[arg(long)]
    pub connect_timeout_ms: Option<u64>,
    #[arg(long)]
    pub request_timeout_ms: Option<u64>,
    /// Trailing arguments for the command.
    #[arg(last = true)]
    pub rest: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub enum EnvsCmd {
    /// List environments.
    List {
        #[arg(long)]
        archived: bool,
    },
    /// Preview what an environment resolves to.
    Resolve { environment: String },
}

fn pairs(
    items: &[String],
    sep: char,
    what: &str,
) -> Result<std::collections::BTreeMap<String, String>> {
    items
        .iter()
        .map(|s| {
            s.split_once(sep)
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| {
                    Error::invalid(
                        &format!("/{what}"),
                        "format",
                        format!("`{s}` is not `KEY{sep}VALUE`"),
                    )
                })
        })
        .collect()
}

impl AddServer {
    fn to_body(&self) -> Result<ServerCreate> {
        let transport = match (&self.command, &self.url) {
            (Some(cmd), None) => Transport::Stdio {
                command: cmd.clone(),
                args: self.args.iter().chain(&self.rest).cloned().collect(),
                env: pairs(&self.env, '=', "env")?,
                cwd: self.cwd.clone(),
            },
            (None, Some(url)) if self.sse => Transport::Sse {
                url: url.clone(),
                headers: pairs(&self.headers, ':', "headers")?,
            },
            (None, Some(url)) => Transport::Http {
                url: url.clone(),
                headers: pairs(&self.headers, ':', "headers")?,
            },
            _ => {
                return Err(Error::invalid(
                    "/transport",
                    "oneOf",
                    "give --command (stdio) or --url (HTTP)",
                ));
            }
        };
        let mut config = ServerConfig::new(transport);
        config.use_oauth = self.oauth;
        if let Some(t) = self.connect_timeout_ms {
            config.connect_timeout_ms = t;
        }
        if let Some(t) = self.request_timeout_ms {
            config.request_timeout_ms = t;
        }
        Ok(ServerCreate::new(&self.name, config))
    }
}

/// Runs one command and returns the process exit code.
pub async fn run(target: &Target, cmd: Command) -> i32 {
    let out = Out { json: target.json };
    match execute(target, cmd, &out).await {
        Ok(()) => 0,
        Err(e) => {
            out.error(&e);
            exit_code(&e.code)
        }
    }
}

/// Exit codes, by error kind (documented in the README).
pub fn exit_code(code: &Code) -> i32 {
    match code {
        Code::ValidationError => 2,
        Code::Unauthorized | Code::Forbidden | Code::OauthRequired => 4,
        Code::NotFound => 5,
        Code::Conflict => 6,
        Code::ServerUnreachable | Code::Timeout | Code::FeatureNotSupported => 7,
        Code::RateLimited => 8,
        _ => 1,
    }
}

async fn execute(target: &Target, cmd: Command, out: &Out) -> Result<()> {
    let backend = target.backend()?;
    let b = backend.as_ref();
    match cmd {
        Command::Me => out.me(&b.me().await?, &b.describe()),
        Command::Projects => {
            let items =
                collect_all(|p| async move { b.projects(&ProjectQuery::default(), &p).await })
                    .await?;
            out.projects(&items)
        }
        Command::Servers(sc) => {
            let sc = *sc;
            let project = project_id(b, target.project.as_deref()).await?;
            let p = project.as_str();
            match sc {
                ServersCmd::List => {
                    let items = collect_all(|pg| async move { b.servers(p, &pg).await }).await?;
                    out.servers(&items)
                }
                ServersCmd::Show { server } => out.value(&b.server(p, &server).await?),
                ServersCmd::Add(a) => out.value(&b.create_server(p, &a.to_body()?).await?),
                ServersCmd::Remove { server } => {
                    let s = b.server(p, &server).await?;
                    out.value(&b.delete_server(p, &s.id).await?)
                }
            }
        }
        Command::Hosts => {
            let project = project_id(b, target.project.as_deref()).await?;
            let p = project.as_str();
            let items = collect_all(|pg| async move { b.hosts(p, &pg).await }).await?;
            out.hosts(&items)
        }
        Command::Envs(ec) => {
            let project = project_id(b, target.project.as_deref()).await?;
            let p = project.as_str();
            match ec {
                EnvsCmd::List { archived } => {
                    let items = collect_all(|pg| async move {
                        let q = EnvironmentQuery {
                            include_archived: archived,
                            cursor: pg.cursor,
                            limit: pg.limit,
                        };
                        b.environments(p, &q).await
                    })
                    .await?;
                    out.environments(&items)
                }
                EnvsCmd::Resolve { environment } => {
                    let envs = collect_all(|pg| async move {
                        b.environments(
                            p,
                            &EnvironmentQuery {
                                include_archived: true,
                                cursor: pg.cursor,
                                limit: pg.limit,
                            },
                        )
                        .await
                    })
                    .await?;
                    let env = envs
                        .into_iter()
                        .find(|e| e.id == environment || e.name == environment)
                        .ok_or_else(|| Error::not_found("environment", &environment))?;
                    out.value(&b.resolve_environment(p, &env.id).await?)
                }
            }
        }
        Command::Suites => {
            let project = project_id(b, target.project.as_deref()).await?;
            let p = project.as_str();
            let items = collect_all(|pg| async move { b.eval_suites(p, &pg).await }).await?;
            out.suites(&items)
        }
    }
}
