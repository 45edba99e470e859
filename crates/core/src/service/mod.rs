//! The service core: one method per operation, typed in and out; no HTTP, no terminal.
//!
//! Every operation takes the calling [`Principal`] and checks its access first, so the
//! HTTP layer and the embedded backend share one authorization path.

pub mod agent;
pub mod authoring;
pub mod catalog;
pub mod checks;
pub mod drift;
pub mod environments;
pub mod evals;
pub mod hosts;
pub mod leases;
pub mod mcp;
pub mod models;
pub mod pins;
pub mod primitives;
pub mod scan;
pub mod schedules;
pub mod servers;
pub mod store;
pub mod suites;
pub mod widgets;

use std::path::PathBuf;
use std::sync::Arc;

use store::Store;
pub use store::identity::Principal;
use store::prelude::*;

use crate::spec::Result;

/// Settings of the service; every timer is here so tests can run them in milliseconds.
#[derive(Debug, Clone)]
pub struct Config {
    /// The program that runs `demo-server` (this binary), for the first-run demo project.
    pub demo_command: String,
    /// Refuse stdio servers entirely (serve mode on shared machines).
    pub allow_stdio: bool,
    /// When set, only the stdio servers this allow-list admits may be saved or started
    /// (`serve --allow-command`, `--allow-env`; see [`crate::spec::allow`]).
    pub allowed_commands: Option<crate::spec::allow::AllowList>,
    /// MCP session pool timers.
    pub pool: mcp::PoolOptions,
    /// Eval runner settings (concurrency cap, turn cap, recovery, judge).
    pub runs: evals::RunOptions,
    /// Leases on runs, authoring jobs and idempotency claims: length, renewal, sweep.
    pub leases: leases::LeaseOptions,
    /// The model catalog (providers, hosted ids, keys).
    pub models: models::ModelCatalog,
    /// `cases/import`: wait window, author, credit rates, links, restart recovery.
    pub authoring: authoring::AuthoringConfig,
    /// Result ingestion: the upload URLs' origin, lifetime and size cap.
    pub ingest: evals::ingest::IngestConfig,
    /// Scheduled runs: the tick and the clock.
    pub schedules: evals::scheduler::ScheduleOptions,
    /// Headless agent turns: the pinned model, limits, timeout, concurrency, credit rate.
    pub agent: agent::AgentConfig,
    /// The Chromium binary widgets render in; `None` finds one (`EVALDECK_CHROMIUM`, then
    /// `PATH`).
    pub chromium: Option<PathBuf>,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            demo_command: std::env::current_exe()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|_| "evaldeck".into()),
            allow_stdio: true,
            allowed_commands: None,
            pool: mcp::PoolOptions::default(),
            runs: evals::RunOptions::default(),
            leases: leases::LeaseOptions::default(),
            models: models::ModelCatalog::from_env(),
            authoring: authoring::AuthoringConfig::default(),
            ingest: evals::ingest::IngestConfig::default(),
            schedules: evals::scheduler::ScheduleOptions::default(),
            agent: agent::AgentConfig::default(),
            chromium: None,
        }
    }
}

/// The core. Cheap to clone: everything inside is shared.
#[derive(Clone)]
pub struct Service {
    inner: Arc<Inner>,
}

struct Inner {
    store: Box<dyn Storage>,
    config: Config,
    mcp: mcp::McpPool,
    http: reqwest::Client,
    runs: evals::Registry,
    jobs: authoring::Jobs,
    scheduler: evals::scheduler::Scheduler,
    agents: agent::Turns,
    worker: leases::Worker,
    claims: leases::Claims,
    widgets: widgets::WidgetRuntime,
}

impl Service {
    /// Opens the store at `db` (migrating it) and seeds the first-run demo project.
    pub fn open(db: &std::path::Path, config: Config) -> Result<Service> {
        let store = Store::open(db)?;
        store.ensure_seeded(&config.demo_command)?;
        let store: Box<dyn Storage> = Box::new(store);
        let mcp = mcp::McpPool::new(config.pool.clone());
        let widgets = widgets::WidgetRuntime::new(config.chromium.clone());
        let http = reqwest::Client::builder()
            .user_agent(concat!("evaldeck/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(std::time::Duration::from_secs(10))
            .timeout(std::time::Duration::from_secs(30))
            .build()
            .map_err(|e| {
                crate::spec::Error::internal(format!("cannot build the HTTP client: {e}"))
            })?;
        let service = Service {
            inner: Arc::new(Inner {
                store,
                config,
                mcp,
                http,
                runs: evals::Registry::default(),
                jobs: authoring::Jobs::default(),
                scheduler: evals::scheduler::Scheduler::default(),
                agents: agent::Turns::default(),
                worker: leases::Worker::default(),
                claims: leases::Claims::default(),
                widgets,
            }),
        };
        // Take over what no live process holds (see `leases`), then keep doing so.
        service.sweep()?;
        service.start_worker();
        Ok(service)
    }

    /// Refuses work the organization cannot pay for before any of it starts: 403
    /// `FORBIDDEN` with reason `INSUFFICIENT_CREDITS`, the balance and what `what` needs.
    pub(crate) fn require_credits(&self, org_id: &str, required: i64, what: &str) -> Result<()> {
        if required <= 0 {
            return Ok(());
        }
        let balance = self.store().org(org_id)?.credits;
        if balance >= required {
            return Ok(());
        }
        Err(crate::spec::Error::forbidden(format!(
            "the organization has {balance} credit(s); {what} needs at least {required}. An operator grants credits with `evaldeck credits grant`"
        ))
        .with_details(serde_json::json!({"reason": "INSUFFICIENT_CREDITS", "balance": balance, "required": required})))
    }

    pub fn store(&self) -> &dyn Storage {
        &*self.inner.store
    }

    pub fn config(&self) -> &Config {
        &self.inner.config
    }

    /// The eval runs this process drives.
    pub fn runs(&self) -> &evals::Registry {
        &self.inner.runs
    }

    /// The authoring jobs this process runs.
    pub(crate) fn jobs(&self) -> &authoring::Jobs {
        &self.inner.jobs
    }

    /// The live MCP sessions.
    /// The widget runtime (a browser started on first use).
    pub fn widgets(&self) -> &widgets::WidgetRuntime {
        &self.inner.widgets
    }

    pub fn mcp(&self) -> &mcp::McpPool {
        &self.inner.mcp
    }

    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.inner.http
    }

    /// Stops the scheduler, the runs and jobs this process drives (giving their leases
    /// up at once, so the next process resumes them without waiting), closes every MCP
    /// session and reaps child processes.
    pub async fn shutdown(&self) {
        self.inner.scheduler.stop();
        self.inner.jobs.stop_all();
        self.inner.runs.abort_all();
        self.release_leases();
        self.inner.mcp.shutdown().await;
        self.inner.widgets.shutdown().await;
    }

    /// The principal the embedded backend acts as: the local owner of the first-run org.
    pub fn local_principal(&self) -> Result<Principal> {
        let local = self.store().ensure_seeded(&self.config().demo_command)?;
        Ok(Principal {
            user_id: local.user_id,
            org_id: local.org_id,
            org_role: "owner".into(),
            key_id: None,
        })
    }

    pub fn authenticate(&self, key: &str) -> Result<Principal> {
        self.store().authenticate(key)
    }
}

/// The default database file: `evaldeck.sqlite3` in the user's data directory.
pub fn default_db_path() -> PathBuf {
    directories::ProjectDirs::from("dev", "evaldeck", "evaldeck")
        .map(|d| d.data_dir().join("evaldeck.sqlite3"))
        .unwrap_or_else(|| PathBuf::from("evaldeck.sqlite3"))
}
