//! `evaldeck demo-server`: a small but realistic MCP server over stdio (default), streamable
//! HTTP (`--http ADDR`) or legacy HTTP+SSE (`--http ADDR --sse`), built on rmcp's server side.
//!
//! In HTTP mode `--require-token` makes every MCP request need a bearer token (401 with a
//! `WWW-Authenticate` challenge otherwise) and serves `POST /token` (refresh grant) plus the
//! OAuth metadata documents, so OAuth-required, token import and refresh are testable for
//! real. Fault flags: `--no-prompts`, `--no-resources`, `--hang` (never answers), `--linger`
//! (ignores the end of its input), and the `crash` tool (exits mid-call).

mod http;
pub mod server;

use std::net::SocketAddr;

use rmcp::ServiceExt;

pub use server::{DemoOptions, DemoServer};

#[derive(Debug, Clone, clap::Args)]
pub struct DemoArgs {
    /// Serve streamable HTTP on this address instead of stdio (port 0 picks a free port;
    /// the bound URL is printed as `listening on http://ADDR/mcp`).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<SocketAddr>,
    /// With --http: speak legacy HTTP+SSE (GET /sse, POST /message) instead.
    #[arg(long, requires = "http")]
    pub sse: bool,
    /// With --http: demand `Authorization: Bearer TOKEN` on every MCP request.
    #[arg(long, value_name = "TOKEN", requires = "http")]
    pub require_token: Option<String>,
    /// The refresh token `POST /token` accepts first (it rotates on every use).
    #[arg(long, value_name = "TOKEN", default_value = "demo-refresh-token")]
    pub refresh_token: String,
    /// Leave out the prompts capability.
    #[arg(long)]
    pub no_prompts: bool,
    /// Leave out the resources capability.
    #[arg(long)]
    pub no_resources: bool,
    /// Page tools/list, prompts/list and resources/list this many items at a time.
    #[arg(long, default_value_t = 0)]
    pub page_size: usize,
    /// Accept connections but never answer anything, `initialize` included.
    #[arg(long)]
    pub hang: bool,
    /// Stay alive after stdin closes, until killed: a server that ignores the end of its
    /// input (a fault for tests of process cleanup).
    #[arg(long)]
    pub linger: bool,
    /// Add the tools that ask things of the client: `ask-llm` (sampling), `ask-user`
    /// (elicitation), `list-roots` (roots) and `log` (logging).
    #[arg(long)]
    pub client_features: bool,
    /// Speak only this protocol revision (repeatable), e.g. `--protocol 2026-07-28` for a
    /// server without the `initialize` handshake.
    #[arg(long = "protocol", value_name = "REVISION")]
    pub protocols: Vec<String>,
}

pub async fn run(args: DemoArgs) -> anyhow::Result<()> {
    let mut protocols = vec![];
    for p in &args.protocols {
        match rmcp::model::ProtocolVersion::KNOWN_VERSIONS
            .iter()
            .find(|v| v.as_str() == p)
        {
            Some(v) => protocols.push(v.clone()),
            None => anyhow::bail!("unknown protocol revision `{p}`"),
        }
    }
    let server = DemoServer::new(DemoOptions {
        prompts: !args.no_prompts,
        resources: !args.no_resources,
        page_size: args.page_size,
        client_features: args.client_features,
        protocols,
    });
    if let Some(addr) = args.http {
        return http::serve(addr, &args, server).await;
    }
    eprintln!("evaldeck demo-server: serving MCP on stdio");
    if args.hang {
        // Read and ignore everything; exit when the client goes away.
        let mut sink = tokio::io::sink();
        let _ = tokio::io::copy(&mut tokio::io::stdin(), &mut sink).await;
        return Ok(());
    }
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    if args.linger {
        std::future::pending::<()>().await;
    }
    Ok(())
}
