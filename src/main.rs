//! `evaldeck`: the workbench by default; `serve`, `demo-server`, key management and the CLI.

use clap::parser::ValueSource;
use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::IsTerminal;
use std::net::SocketAddr;

use evaldeck::api::{self, ApiConfig, RateLimit};
use evaldeck::cli::{self, Target};
use evaldeck::service::{Config, Service};
use evaldeck::tui::Opening;

/// Test MCP servers from a terminal.
#[derive(Parser)]
#[command(name = "evaldeck", version, about, propagate_version = true)]
struct Cli {
    #[command(flatten)]
    target: Target,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the API at /api/v1 for CI jobs, scripts and agents.
    Serve(ServeArgs),
    /// Run the bundled demo MCP server (stdio by default).
    DemoServer(evaldeck::demo::DemoArgs),
    /// Open the workbench on a review link (an import's `reviewUrl`: exactly its drafts), or
    /// on a server it has not saved (`open -- node build/index.js`, `open --url URL`), saved
    /// for the session as `adhoc-HASH` and deleted when the workbench closes.
    Open {
        /// `evaldeck://review/PROJECT/JOB?drafts=…` or `https://…/review/PROJECT/JOB?drafts=…`.
        #[arg(value_name = "REVIEW_URL", required_unless_present_any = ["url", "command"])]
        link: Option<String>,
        #[command(flatten)]
        adhoc: cli::AdHoc,
    },
    /// Manage API keys for `serve` (local only: keys cannot manage keys over the API).
    #[command(subcommand)]
    Keys(cli::operator::KeysCmd),
    /// Organizations in this store (local only).
    #[command(subcommand)]
    Orgs(cli::operator::OrgsCmd),
    /// Members of an organization and their roles (local only).
    #[command(subcommand)]
    Members(cli::operator::MembersCmd),
    #[command(flatten)]
    Cli(cli::Command),
    /// Runs a stdio MCP server in a process group of its own and ends that group when the
    /// server exits, when asked, or when evaldeck is gone (internal: evaldeck starts it).
    #[command(hide = true)]
    Supervise {
        /// How long the server gets to exit on the end of its input once evaldeck is gone.
        #[arg(long, default_value_t = 2000)]
        grace_ms: u64,
        /// The server's command and arguments.
        #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
        command: Vec<std::ffi::OsString>,
    },
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on; port 0 picks a free port (the bound address is printed).
    #[arg(long, default_value = "127.0.0.1:8787")]
    listen: SocketAddr,
    /// Refuse stdio servers (they run commands on this machine).
    #[arg(long)]
    no_stdio: bool,
    /// Allow only this command, with these argument patterns, for stdio servers
    /// (repeatable), e.g. 'node /opt/mcp/*/index.js stdio'. Interpreters and launchers
    /// (node, python, npx, uvx, sh…) need argument patterns.
    #[arg(long = "allow-command")]
    allow_commands: Vec<String>,
    /// With --allow-command: an environment variable stdio servers may set (repeatable; a
    /// name or a glob such as MCP_*). Every other variable is refused.
    #[arg(long = "allow-env")]
    allow_env: Vec<String>,
    /// Requests per minute per key, sustained.
    #[arg(long, default_value_t = 60)]
    rate_per_minute: u32,
    /// Requests per key allowed at once.
    #[arg(long, default_value_t = 10)]
    rate_burst: u32,
    /// Turn rate limiting off (per key, and per address on upload URLs).
    #[arg(long)]
    no_rate_limit: bool,
    /// Requests per minute per client address to upload URLs (which carry no key), sustained.
    #[arg(long, default_value_t = 60)]
    upload_rate_per_minute: u32,
    /// Requests per client address to upload URLs allowed at once.
    #[arg(long, default_value_t = 10)]
    upload_rate_burst: u32,
    /// Absolute origin used in links and upload URLs this service hands out
    /// (e.g. https://evals.example.com) [default for upload URLs: http://LISTEN-ADDRESS].
    #[arg(long)]
    public_url: Option<String>,
    /// Seconds a `cases/import` request waits for its authoring job before answering 202.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(0..=300))]
    import_wait: u64,
    /// Credits one authored draft costs (the built-in extractor).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i64).range(0..))]
    credits_per_draft: i64,
    /// Credits per started 1,000 model tokens (model authoring, hosted runs, agent turns).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(i64).range(0..))]
    credits_per_1k_tokens: i64,
    /// Largest message an MCP server may send (a tool result above all), in bytes; a
    /// larger one is 502 with `details.reason` RESULT_TOO_LARGE.
    #[arg(long, default_value_t = 16 * 1024 * 1024, value_parser = clap::value_parser!(u64).range(1024..))]
    max_result_bytes: u64,
    /// Lease on the runs, authoring jobs and idempotency keys this process works on, in
    /// milliseconds; renewed and swept every third of it. What a dead process held is
    /// taken over within twice the lease.
    #[arg(long, default_value_t = 6000, value_parser = clap::value_parser!(u64).range(30..=600_000))]
    lease_ms: u64,
}

fn init_logs(to_stderr: bool) {
    use tracing_subscriber::EnvFilter;
    // CLI commands answer with a JSON body (errors included); rmcp's own transport errors
    // would only repeat that on stderr ahead of it. Serve keeps them in its log.
    let filter = EnvFilter::try_from_env("EVALDECK_LOG").unwrap_or_else(|_| {
        EnvFilter::new(if to_stderr {
            "info,rmcp=warn"
        } else {
            // The server's own log messages show with `--verbose`, as protocol events.
            "warn,rmcp=off,evaldeck::mcp::server_log=off"
        })
    });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .init();
}

/// Where a backend value came from: the command line or its environment variable.
fn source(m: &ArgMatches, id: &str) -> Option<cli::Source> {
    match m.value_source(id) {
        Some(ValueSource::CommandLine) => Some(cli::Source::Flag),
        Some(ValueSource::EnvVariable) => Some(cli::Source::Env),
        _ => None,
    }
}

/// The target of the workbench and the CLI, its backend settled: flags, then environment
/// variables, then the settings file's `backend`, then the embedded default. (`serve` and
/// `keys` act on the local store only.)
fn settled(target: Target, sources: cli::Sources) -> evaldeck::spec::Result<Target> {
    use evaldeck::tui::settings::Settings;
    target.settle(
        sources,
        || {
            Ok(Settings::default_backend()?.map(|b| cli::DefaultBackend {
                url: b.url,
                api_key_env: b.api_key_env,
            }))
        },
        |var| std::env::var(var).ok(),
    )
}

/// `evaldeck runs list | head` should stop quietly when the reader goes away, as Unix tools
/// do. SIGPIPE stays ignored (Rust's default): a stdio MCP server that exits early must give
/// the CLI an error on the child's stdin, not kill it. A write to a closed stdout makes
/// `println!` panic instead; that panic ends the process quietly with the shell's status for
/// SIGPIPE (141).
fn exit_quietly_on_closed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(141);
        }
        report(info)
    }));
}

fn main() {
    let matches = Cli::command().get_matches();
    let args = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    // The supervisor stays small: no runtime, no logging, no store.
    if let Some(Command::Supervise { grace_ms, command }) = &args.command {
        let (program, rest) = command.split_first().expect("clap requires a command");
        let code = evaldeck::service::mcp::process::supervise(
            std::time::Duration::from_millis(*grace_ms),
            program,
            rest,
        );
        std::process::exit(code);
    }
    // Stdio servers run under this binary's `supervise`, so none outlives it.
    if let Ok(me) = std::env::current_exe() {
        evaldeck::service::mcp::process::register_supervisor(me);
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    let code = runtime.block_on(run(args, &matches));
    std::process::exit(code);
}

async fn run(mut args: Cli, matches: &ArgMatches) -> i32 {
    // The operator's commands reach the store only through this interface.
    args.target.admin = Some(evaldeck::admin::StoreAdmin::opener);
    let sources = cli::Sources {
        db: source(matches, "db"),
        base_url: source(matches, "base_url"),
        api_key: source(matches, "api_key"),
    };
    match args.command {
        Some(Command::DemoServer(a)) => match evaldeck::demo::run(a).await {
            Ok(()) => 0,
            Err(e) => {
                eprintln!("demo-server: {e:#}");
                1
            }
        },
        Some(Command::Serve(a)) => {
            init_logs(true);
            serve(&args.target, a).await
        }
        Some(Command::Keys(k)) => {
            init_logs(false);
            cli::operator::run(&args.target, |out| {
                cli::operator::keys(&args.target, k, out)
            })
        }
        Some(Command::Orgs(c)) => {
            init_logs(false);
            cli::operator::run(&args.target, |out| {
                cli::operator::orgs(&args.target, c, out)
            })
        }
        Some(Command::Members(c)) => {
            init_logs(false);
            cli::operator::run(&args.target, |out| {
                cli::operator::members(&args.target, c, out)
            })
        }
        Some(Command::Cli(c)) => {
            init_logs(false);
            exit_quietly_on_closed_stdout();
            let json = args.target.json;
            match settled(args.target, sources) {
                Ok(target) => cli::run(&target, c).await,
                Err(e) => cli::fail(json, &e),
            }
        }
        Some(Command::Open { link, adhoc }) => {
            workbench(args.target, sources, link.as_deref(), &adhoc).await
        }
        None => workbench(args.target, sources, None, &cli::AdHoc::default()).await,
        Some(Command::Supervise { .. }) => unreachable!("handled before the runtime starts"),
    }
}

/// The workbench, optionally opened on a review link or on an unsaved target.
async fn workbench(
    target: Target,
    sources: cli::Sources,
    link: Option<&str>,
    adhoc: &cli::AdHoc,
) -> i32 {
    if !std::io::stdin().is_terminal() || !std::io::stdout().is_terminal() {
        eprintln!(
            "evaldeck: the workbench needs a terminal; run `evaldeck --help` for the commands"
        );
        return 2;
    }
    let fail = |e: evaldeck::spec::Error| {
        eprintln!("evaldeck: {} ({})", e.message, e.code);
        cli::exit_code(&e.code)
    };
    let (project, backend) =
        match settled(target, sources).and_then(|t| Ok((t.project.clone(), t.backend()?))) {
            Ok(t) => t,
            Err(e) => return fail(e),
        };
    // An unsaved target is saved for the session, like a CLI command's, and deleted after.
    let (opening, transient) = match (link, adhoc.given()) {
        (Some(l), false) => (Opening::Review(l.to_string()), None),
        (None, false) => (Opening::Home, None),
        (Some(_), true) => {
            eprintln!(
                "evaldeck open: give a review link or a server (--url, -- COMMAND), not both"
            );
            return 2;
        }
        (None, true) => {
            let b = backend.as_ref();
            let opened = async {
                let project = cli::project_id(b, project.as_deref()).await?;
                let resolved = cli::resolve_target(b, &project, None, adhoc).await?;
                Ok::<_, evaldeck::spec::Error>((project, resolved))
            };
            match opened.await {
                Ok((project, resolved)) => (
                    Opening::Server {
                        project: project.clone(),
                        id: resolved.server.clone(),
                    },
                    Some((project, resolved)),
                ),
                Err(e) => return fail(e),
            }
        }
    };
    // The embedded core fires scheduled runs while the workbench is open.
    backend.start_scheduler();
    let ended = evaldeck::tui::run_opening(backend.clone(), opening).await;
    // Cleanup first: after a hang-up the terminal is gone and nothing can be printed.
    if let Some((project, resolved)) = transient {
        resolved.finish(backend.as_ref(), &project).await;
    }
    match ended {
        Ok(()) => 0,
        Err(e) => {
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "evaldeck: {e:#}");
            1
        }
    }
}

async fn serve(target: &Target, a: ServeArgs) -> i32 {
    if a.allow_commands.is_empty() && !a.allow_env.is_empty() {
        eprintln!(
            "evaldeck serve: --allow-env applies to the servers --allow-command admits; give --allow-command too"
        );
        return 2;
    }
    let allowed = if a.allow_commands.is_empty() {
        None
    } else {
        match evaldeck::spec::allow::AllowList::parse(&a.allow_commands, &a.allow_env) {
            Ok(l) => Some(l),
            Err(e) => {
                eprintln!("evaldeck serve: {e}");
                return 2;
            }
        }
    };
    let mut config = Config {
        allow_stdio: !a.no_stdio,
        allowed_commands: allowed,
        ..Config::default()
    };
    // Links the service hands out (an import's `reviewUrl`) use the public origin.
    config.authoring.public_url = a.public_url.clone();
    config.authoring.wait = std::time::Duration::from_secs(a.import_wait);
    config.authoring.credits_per_draft = a.credits_per_draft;
    config.authoring.credits_per_1k_tokens = a.credits_per_1k_tokens;
    config.runs.credits_per_1k_tokens = a.credits_per_1k_tokens;
    config.agent.credits_per_1k_tokens = a.credits_per_1k_tokens;
    config.pool.max_result_bytes = a.max_result_bytes as usize;
    config.leases = evaldeck::service::leases::LeaseOptions::from_lease(
        std::time::Duration::from_millis(a.lease_ms),
    );
    // Bound first, so upload URLs can default to the address actually listened on.
    let listener = match tokio::net::TcpListener::bind(a.listen).await {
        Ok(l) => l,
        Err(e) => {
            eprintln!("evaldeck serve: cannot listen on {}: {e}", a.listen);
            return 1;
        }
    };
    let addr = listener
        .local_addr()
        .map(|a| a.to_string())
        .unwrap_or_default();
    // Upload URLs (result ingestion) use the public origin, else `http://` + the listen address.
    config.ingest.public_url = Some(
        a.public_url
            .clone()
            .unwrap_or_else(|| format!("http://{addr}")),
    );
    let db = target.db_path();
    let service = match Service::open(&db, config) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("evaldeck serve: {}", e.message);
            return 1;
        }
    };
    // Saved servers this policy will refuse to start are reported now, not at first use.
    match service.refused_servers() {
        Ok(refused) => {
            for (project, name, why) in refused {
                eprintln!(
                    "evaldeck serve: the saved server `{name}` (project {project}) will not run: {why}"
                );
                tracing::warn!(%project, server = %name, reason = %why, "saved server refused by the stdio policy");
            }
        }
        Err(e) => eprintln!("evaldeck serve: cannot check saved servers: {}", e.message),
    }
    let api_config = ApiConfig {
        rate_limit: (!a.no_rate_limit)
            .then(|| RateLimit::per_minute(a.rate_per_minute, a.rate_burst)),
        public_url: a.public_url,
        upload_rate_limit: (!a.no_rate_limit)
            .then(|| RateLimit::per_minute(a.upload_rate_per_minute, a.upload_rate_burst)),
    };
    println!(
        "evaldeck serving http://{addr}/api/v1 (database {})",
        db.display()
    );
    tracing::info!(%addr, "listening");
    let app = api::router(service.clone(), api_config);
    service.start_scheduler();
    let served = api::serve(listener, app, api::shutdown_signal()).await;
    // Close MCP sessions and reap their child processes before exiting.
    service.shutdown().await;
    match served {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("evaldeck serve: {e}");
            1
        }
    }
}
