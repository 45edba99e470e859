//! Server diagnostics and primitives: each resolves the saved server (and its imported
//! OAuth tokens) into an MCP [`Target`] and hands it to the pool. Expired tokens are
//! refreshed before use, and a token the server rejects is refreshed once and retried.

use std::future::Future;

use serde_json::Value;

use super::mcp::{
    CallContext, OAuthTokens, RefreshRequest, Target, check_oauth, discover_token_endpoint,
    doctor_refresh_failed, needs_refresh, refresh_access_token,
};
use super::store::now_ms;
use super::store::projects::ProjectRole;
use super::store::servers::{Snapshot, StoredTokens};
use super::{Principal, Service};
use crate::spec::primitives::{
    CallCancelled, CheckOauthResult, DoctorReport, DoctorStatus, ExportSnapshot,
    ImportTokensRequest, ImportTokensResult, InitInfo, ListRequest, McpPage, PromptGetRequest,
    PromptItem, ResourceItem, ResourceReadRequest, ResourceTemplateItem, ToolCallRequest, ToolItem,
    TrafficPage, ValidateResult,
};
use crate::spec::primitives::{Subscribed, TaskCancelled, TaskList};
use crate::spec::server::Server;
use crate::spec::validate::Checker;
use crate::spec::{Error, Result};

/// Refresh a token this long before it expires rather than wait for a 401.
const REFRESH_SKEW_MS: i64 = 30_000;

/// The imported tokens when they carry a refresh token and expire within
/// [`REFRESH_SKEW_MS`]: refreshed before use rather than sent to be rejected.
fn expiring(tokens: Option<&StoredTokens>) -> Option<&StoredTokens> {
    let t = tokens.filter(|t| t.refresh_token.is_some())?;
    let current = OAuthTokens {
        access_token: String::new(),
        refresh_token: None,
        expires_at: t.expires_at,
    };
    current.is_expired(now_ms(), REFRESH_SKEW_MS).then_some(t)
}

/// The capability snapshot stored from a successful `initialize`.
fn snapshot(info: &InitInfo) -> Snapshot {
    Snapshot {
        capabilities: info.capabilities.clone(),
        protocol_version: Some(info.protocol_version.clone()),
        server_info: info.server_info.clone(),
        validated_at: now_ms(),
    }
}

impl Service {
    /// The saved server behind `server` (id or name) after an access check: read once per
    /// call and handed to [`Service::on_saved`], so callers that also write its status
    /// (validate, doctor) need no second lookup.
    pub(crate) fn saved_server(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
    ) -> Result<Server> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        self.store().server(project_id, server)
    }

    fn target(&self, s: &Server, tokens: Option<&StoredTokens>) -> Target {
        Target {
            server_id: s.id.clone(),
            revision: s.revision,
            config: s.config.clone().expect("stored servers carry their config"),
            access_token: tokens.map(|t| t.access_token.clone()),
        }
    }

    /// Exchanges the stored refresh token for a new access token and stores it.
    async fn refresh_tokens(&self, s: &Server, t: &StoredTokens) -> Result<StoredTokens> {
        let refresh_token = t.refresh_token.clone().ok_or_else(|| {
            Error::new(
                crate::spec::Code::OauthRequired,
                "the access token expired and no refresh token was imported",
            )
            .with_reason("REFRESH_FAILED")
        })?;
        let endpoint = discover_token_endpoint(self.http(), &t.server_url).await?;
        let req = RefreshRequest {
            token_endpoint: endpoint,
            refresh_token,
            client_id: t.client_id.clone().unwrap_or_default(),
            client_secret: t.client_secret.clone(),
            resource: t.resource_url.clone(),
        };
        let fresh: OAuthTokens = refresh_access_token(self.http(), &req, now_ms()).await?;
        let stored = StoredTokens {
            access_token: fresh.access_token,
            refresh_token: fresh.refresh_token,
            expires_at: fresh.expires_at,
            ..t.clone()
        };
        self.store().save_tokens(&s.id, &stored)?;
        tracing::info!(server = %s.id, "refreshed OAuth access token");
        Ok(stored)
    }

    /// Runs one MCP operation against a saved server with token refresh around it.
    pub(crate) async fn with_server<T, F, Fut>(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        op: F,
    ) -> Result<T>
    where
        F: Fn(Target) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let s = self.saved_server(who, project_id, server)?;
        self.on_saved(&s, op).await
    }

    /// Runs one MCP operation against a server already read by [`Service::saved_server`]:
    /// refuses a disabled one and one serve mode no longer allows (`--no-stdio`,
    /// `--allow-command`: the same 403 as on save), refreshes expiring tokens first and a
    /// rejected token once. Every connection to a saved server passes here, or through
    /// [`Service::doctor_report`], which shares its checks ([`Service::connectable`]).
    pub(crate) async fn on_saved<T, F, Fut>(&self, s: &Server, op: F) -> Result<T>
    where
        F: Fn(Target) -> Fut,
        Fut: Future<Output = Result<T>>,
    {
        let mut tokens = self.connectable(s)?;
        if let Some(t) = expiring(tokens.as_ref()) {
            tokens = Some(self.refresh_tokens(s, t).await?);
        }
        match op(self.target(s, tokens.as_ref())).await {
            Err(e) if needs_refresh(&e) => {
                match tokens.as_ref().filter(|t| t.refresh_token.is_some()) {
                    Some(t) => {
                        let fresh = self.refresh_tokens(s, t).await?;
                        op(self.target(s, Some(&fresh))).await
                    }
                    None => Err(e),
                }
            }
            other => other,
        }
    }

    /// The checks before any connection to a saved server: refuses a disabled one and one
    /// serve mode no longer allows; answers its imported tokens, if any.
    fn connectable(&self, s: &Server) -> Result<Option<StoredTokens>> {
        if !s.enabled {
            return Err(Error::conflict(format!(
                "the server `{}` is disabled; enable it to connect",
                s.name
            )));
        }
        let config = s
            .config
            .as_ref()
            .expect("stored servers carry their config");
        self.check_transport_allowed(&config.transport)?;
        self.store().tokens(&s.id)
    }

    /// The doctor with the token handling of [`Service::on_saved`], except that a failed
    /// refresh is a report (`oauth_required`, the refresh failure inside) and not an error:
    /// the doctor reports on the server, it does not fail for it.
    async fn doctor_report(&self, s: &Server) -> Result<DoctorReport> {
        let started = std::time::Instant::now();
        let mut tokens = self.connectable(s)?;
        if let Some(t) = expiring(tokens.as_ref()) {
            match self.refresh_tokens(s, t).await {
                Ok(fresh) => tokens = Some(fresh),
                Err(e) => return Ok(doctor_refresh_failed(None, e, started)),
            }
        }
        let report = self.mcp().doctor(&self.target(s, tokens.as_ref())).await;
        let rejected = report.status == DoctorStatus::OauthRequired
            && report.error.as_ref().is_some_and(needs_refresh);
        let refreshable = tokens.as_ref().filter(|t| t.refresh_token.is_some());
        Ok(match refreshable {
            Some(t) if rejected => match self.refresh_tokens(s, t).await {
                Ok(fresh) => self.mcp().doctor(&self.target(s, Some(&fresh))).await,
                Err(e) => doctor_refresh_failed(Some(report), e, started),
            },
            _ => report,
        })
    }

    pub async fn validate_server(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
    ) -> Result<ValidateResult> {
        let s = self.saved_server(who, project_id, server)?;
        let r = self
            .on_saved(&s, |t| async move { self.mcp().validate(&t).await })
            .await;
        match &r {
            Ok(v) => self.store().set_server_status(
                &s.id,
                "connected",
                v.init_info.as_ref().map(snapshot).as_ref(),
            )?,
            Err(e)
                if e.code != crate::spec::Code::Forbidden
                    && e.code != crate::spec::Code::NotFound =>
            {
                self.store().set_server_status(&s.id, "error", None)?
            }
            Err(_) => {}
        }
        r
    }

    pub async fn doctor(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
    ) -> Result<DoctorReport> {
        let s = self.saved_server(who, project_id, server)?;
        let report = self.doctor_report(&s).await?;
        let status = match report.status {
            DoctorStatus::Ready => "connected",
            DoctorStatus::OauthRequired => "oauth_required",
            DoctorStatus::Partial => "partial",
            DoctorStatus::Error => "error",
        };
        self.store().set_server_status(
            &s.id,
            status,
            report.init_info.as_ref().map(snapshot).as_ref(),
        )?;
        Ok(report)
    }

    pub fn check_oauth(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
    ) -> Result<CheckOauthResult> {
        self.store()
            .project_access(who, project_id, ProjectRole::Member)?;
        let s = self.store().server(project_id, server)?;
        Ok(check_oauth(
            &s.id,
            s.config
                .as_ref()
                .expect("stored servers carry their config"),
        ))
    }

    pub async fn tools(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ToolItem>> {
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().list_tools(&t, req.cursor.clone()).await
        })
        .await
    }

    pub async fn call_tool(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ToolCallRequest,
    ) -> Result<Value> {
        self.call_tool_with(who, project_id, server, req, &CallContext::default())
            .await
    }

    /// `tools/call` for a caller that answers the server's requests itself (the
    /// workbench asks its user for an elicitation) or follows its progress.
    pub async fn call_tool_with(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ToolCallRequest,
        ctx: &CallContext,
    ) -> Result<Value> {
        let mut c = Checker::new();
        c.length("/toolName", &req.tool_name, 1, None);
        if let Some(id) = &req.call_id {
            c.length("/callId", id, 1, Some(128));
        }
        c.finish()?;
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().call_tool_with(&t, req, ctx).await
        })
        .await
    }

    /// Cancels a running call that named itself with `callId` (extension).
    pub fn cancel_call(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        call_id: &str,
    ) -> Result<CallCancelled> {
        let s = self.saved_server(who, project_id, server)?;
        Ok(CallCancelled {
            cancelled: self.mcp().cancel_call(&s.id, call_id),
        })
    }

    /// Subscribes to updates of a resource (extension).
    pub async fn subscribe_resource(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Subscribed> {
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().subscribe(&t, &req.uri).await
        })
        .await?;
        Ok(Subscribed {
            uri: req.uri.clone(),
            subscribed: true,
        })
    }

    /// A server's tasks (extension): those evaldeck follows and those the server lists.
    pub async fn server_tasks(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
    ) -> Result<TaskList> {
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().list_tasks(&t).await
        })
        .await
        .map(|items| TaskList { items })
    }

    /// Asks the server to cancel one of its tasks (extension).
    pub async fn cancel_task(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        task_id: &str,
    ) -> Result<TaskCancelled> {
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().cancel_task(&t, task_id).await
        })
        .await
    }

    /// A server's recent protocol events (extension): what the protocol pane shows.
    pub fn server_traffic(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        after: u64,
    ) -> Result<TrafficPage> {
        let s = self.saved_server(who, project_id, server)?;
        Ok(self.mcp().traffic(&s.id, after, 500))
    }

    pub async fn prompts(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<PromptItem>> {
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().list_prompts(&t, req.cursor.clone()).await
        })
        .await
    }

    pub async fn get_prompt(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &PromptGetRequest,
    ) -> Result<Value> {
        let mut c = Checker::new();
        c.length("/promptName", &req.prompt_name, 1, None);
        for (k, v) in req.arguments.iter().flatten() {
            if !(v.is_string() || v.is_number() || v.is_boolean()) {
                c.fail(
                    format!("/arguments/{k}"),
                    "type",
                    "prompt arguments are strings, numbers or booleans",
                );
            }
        }
        c.finish()?;
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().get_prompt(&t, req).await
        })
        .await
    }

    pub async fn resources(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceItem>> {
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().list_resources(&t, req.cursor.clone()).await
        })
        .await
    }

    pub async fn resource_templates(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ListRequest,
    ) -> Result<McpPage<ResourceTemplateItem>> {
        self.with_server(who, project_id, server, |t| async move {
            self.mcp()
                .list_resource_templates(&t, req.cursor.clone())
                .await
        })
        .await
    }

    pub async fn read_resource(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ResourceReadRequest,
    ) -> Result<Value> {
        let mut c = Checker::new();
        c.length("/uri", &req.uri, 1, None);
        c.finish()?;
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().read_resource(&t, &req.uri).await
        })
        .await
    }

    pub async fn export(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
    ) -> Result<ExportSnapshot> {
        self.with_server(who, project_id, server, |t| async move {
            self.mcp().export(&t).await
        })
        .await
    }

    /// Stores tokens obtained elsewhere; they are injected into later HTTP connections and
    /// refreshed when they expire. The tokens never appear in a response or a log.
    pub async fn import_tokens(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &ImportTokensRequest,
    ) -> Result<ImportTokensResult> {
        self.store()
            .project_access(who, project_id, ProjectRole::Admin)?;
        let mut c = Checker::new();
        match reqwest::Url::parse(&req.server_url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => c.fail(
                "/serverUrl",
                "url",
                "must be an absolute http:// or https:// URL",
            ),
        }
        c.length("/tokens/access_token", &req.tokens.access_token, 1, None);
        if let Some(ci) = &req.client_information {
            c.length("/clientInformation/clientId", &ci.client_id, 1, None);
        }
        c.finish()?;
        let s = self.store().server(project_id, server)?;
        let imported = OAuthTokens::from_imported(&req.tokens, now_ms());
        let stored = StoredTokens {
            server_url: req.server_url.clone(),
            resource_url: req.oauth_resource_url.clone(),
            client_id: req.client_information.as_ref().map(|c| c.client_id.clone()),
            client_secret: req
                .client_information
                .as_ref()
                .and_then(|c| c.client_secret.clone()),
            access_token: imported.access_token,
            refresh_token: imported.refresh_token,
            token_type: req.tokens.token_type.clone(),
            scope: req.tokens.scope.clone(),
            expires_at: imported.expires_at,
        };
        self.store().save_tokens(&s.id, &stored)?;
        self.mcp().evict(&s.id).await;
        Ok(ImportTokensResult {
            imported: true,
            expires_at: stored.expires_at,
        })
    }
}
