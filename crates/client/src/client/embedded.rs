//! The core in-process, acting as the local owner of the first-run organization.

use std::path::Path;

use async_trait::async_trait;

use super::{Backend, Target};
use crate::operations::{Ctx, Operation};
use crate::service::{Config, Principal, Service};
use crate::spec::Result;
use crate::spec::primitives::{ExportSnapshot, ToolCallRequest};
use crate::spec::run::RunSource;
use serde_json::Value;

pub struct Embedded {
    service: Service,
    who: Principal,
}

impl Embedded {
    /// Opens the store file with the default configuration and acts as its local owner;
    /// `echo_traffic` prints every MCP message to stderr (the CLI's `--verbose`).
    pub fn open(db: &Path, echo_traffic: bool) -> Result<Embedded> {
        let mut config = Config::default();
        config.pool.echo_traffic = echo_traffic;
        Embedded::new(Service::open(db, config)?)
    }

    /// Acts as the local owner.
    pub fn new(service: Service) -> Result<Embedded> {
        let who = service.local_principal()?;
        Ok(Embedded { service, who })
    }

    /// Acts as a given principal (tests compare this with a remote key of the same member).
    pub fn as_principal(service: Service, who: Principal) -> Embedded {
        Embedded { service, who }
    }

    pub fn service(&self) -> &Service {
        &self.service
    }

    /// Any listed operation, through the same function the HTTP handler calls; runs it
    /// starts are tagged `ui`.
    pub(super) async fn dispatch<O: Operation>(
        &self,
        path: O::Path,
        query: O::Query,
        body: O::Body,
    ) -> Result<O::Response> {
        let cx = Ctx {
            service: &self.service,
            source: RunSource::Ui,
        };
        O::serve(cx, &self.who, path, query, body).await
    }
}

#[async_trait]
impl Backend for Embedded {
    fn describe(&self) -> String {
        format!("embedded: {}", self.service.store().path().display())
    }

    fn target(&self) -> Target<'_> {
        Target::Embedded(self)
    }

    async fn close(&self) {
        self.service.shutdown().await;
    }

    fn start_scheduler(&self) {
        self.service.start_scheduler();
    }

    async fn call_tool_watched(
        &self,
        project: &str,
        server: &str,
        req: &ToolCallRequest,
        watch: super::CallWatch,
    ) -> Result<Value> {
        let ctx = crate::service::mcp::CallContext {
            progress: watch.progress,
            asker: watch.asker,
            ..Default::default()
        };
        self.service
            .call_tool_with(&self.who, project, server, req, &ctx)
            .await
    }

    async fn kept_snapshots(&self, project: &str, server: &str) -> Result<Vec<ExportSnapshot>> {
        self.service.kept_snapshots(&self.who, project, server)
    }

    async fn check(
        &self,
        project: &str,
        server: &str,
        req: &crate::spec::conformance::CheckRequest,
    ) -> Result<crate::spec::conformance::CheckReport> {
        self.service.check(&self.who, project, server, req).await
    }
}
