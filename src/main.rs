use clap::{Parser, Subcommand};

/// Test MCP servers from a terminal.
#[derive(Parser)]
#[command(name = "evaldeck", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the bundled demo MCP server (stdio by default).
    DemoServer(evaldeck::demo::DemoArgs),
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    match cli.command {
        Some(Command::DemoServer(args)) => evaldeck::demo::run(args).await,
        None => anyhow::bail!("the workbench is not built yet"),
    }
}
