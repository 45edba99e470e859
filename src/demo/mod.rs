//! (being written) `evaldeck demo-server`.

#[derive(Debug, Clone, clap::Args)]
pub struct DemoArgs {}

pub async fn run(_args: DemoArgs) -> anyhow::Result<()> {
    anyhow::bail!("not yet")
}
