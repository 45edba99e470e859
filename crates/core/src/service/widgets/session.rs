//! Views backed by a saved server's MCP session: the host that proxies a view's calls, and
//! rendering the view of one tool call on its own (the workbench's widget pane, the API's
//! `widgets/render`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{ViewHost, ViewRecord, ViewSource, resource_uri, visible_to};
use crate::service::{Principal, Service};
use crate::spec::primitives::ToolCallRequest;
use crate::spec::widget::WidgetRenderRequest;
use crate::spec::{Code, Error, Result};

/// A call a view made, as its session answered it.
pub struct ProxiedCall {
    pub name: String,
    pub arguments: Value,
    pub answer: std::result::Result<Value, Error>,
    pub latency_ms: f64,
}

/// What a host does with each call a view makes (the runner files it in the transcript).
pub type OnCall = Arc<dyn Fn(ProxiedCall) + Send + Sync>;

/// Proxies a view's `tools/call` and `resources/read` to one saved server's session.
pub struct SessionHost {
    pub svc: Service,
    pub who: Principal,
    pub project_id: String,
    pub server_id: String,
    /// A run's environment roots, which replace the server's own (see `Target::with_roots`).
    pub roots: Option<Vec<crate::spec::client_features::Root>>,
    /// The server's tool declarations: a view may call only its own server's tools whose
    /// visibility includes `app`.
    pub tools: Vec<Value>,
    pub on_call: Option<OnCall>,
}

#[async_trait::async_trait]
impl ViewHost for SessionHost {
    async fn call_tool(&self, name: &str, arguments: Value) -> std::result::Result<Value, String> {
        let Some(decl) = self.tools.iter().find(|t| t["name"] == name) else {
            return Err(format!("the server offers no tool `{name}`"));
        };
        if !visible_to(decl, "app") {
            return Err(format!(
                "`{name}` is not callable from views: its `_meta.ui.visibility` leaves out \"app\""
            ));
        }
        let began = Instant::now();
        let req = ToolCallRequest::new(name, arguments.as_object().cloned());
        let svc = &self.svc;
        let answer = svc
            .with_server(&self.who, &self.project_id, &self.server_id, |target| {
                let req = &req;
                let target = target.with_roots(self.roots.as_deref());
                async move { svc.mcp().call_tool(&target, req).await }
            })
            .await;
        let message = answer.as_ref().map_err(|e| e.message.clone()).cloned();
        if let Some(f) = &self.on_call {
            f(ProxiedCall {
                name: name.to_string(),
                arguments,
                answer,
                latency_ms: began.elapsed().as_secs_f64() * 1000.0,
            });
        }
        message
    }

    async fn read_resource(&self, uri: &str) -> std::result::Result<Value, String> {
        let svc = &self.svc;
        svc.with_server(&self.who, &self.project_id, &self.server_id, |target| {
            let target = target.with_roots(self.roots.as_deref());
            async move { svc.mcp().read_resource(&target, uri).await }
        })
        .await
        .map_err(|e| e.message)
    }
}

impl Service {
    /// Every tool a saved server declares (all pages).
    pub(crate) async fn declared_tools(
        &self,
        who: &Principal,
        project_id: &str,
        server_id: &str,
    ) -> Result<Vec<Value>> {
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..self.mcp().options().max_pages {
            let c = cursor.clone();
            let page = self
                .with_server(who, project_id, server_id, |t| {
                    let c = c.clone();
                    async move { self.mcp().list_tools(&t, c).await }
                })
                .await?;
            tools.extend(
                page.items
                    .iter()
                    .map(|t| serde_json::to_value(t).unwrap_or_default()),
            );
            match page.next_cursor {
                Some(n) => cursor = Some(n),
                None => break,
            }
        }
        Ok(tools)
    }

    /// Renders the view of one tool call (its arguments and result, given: nothing is
    /// called but what the view itself calls) and returns what it showed, screenshot
    /// included.
    pub async fn render_widget(
        &self,
        who: &Principal,
        project_id: &str,
        server: &str,
        req: &WidgetRenderRequest,
    ) -> Result<ViewRecord> {
        req.check()?;
        let s = self.saved_server(who, project_id, server)?;
        let tools = self.declared_tools(who, project_id, &s.id).await?;
        let tool = tools
            .iter()
            .find(|t| t["name"] == req.tool_name.as_str())
            .cloned()
            .ok_or_else(|| {
                Error::invalid(
                    "/toolName",
                    "exists",
                    format!("the server declares no tool `{}`", req.tool_name),
                )
            })?;
        let uri = resource_uri(&tool).map(str::to_string).ok_or_else(|| {
            Error::invalid(
                "/toolName",
                "hasUi",
                format!(
                    "`{}` declares no UI resource (`_meta.ui.resourceUri`)",
                    req.tool_name
                ),
            )
        })?;
        if let Err(why) = self.widgets().binary() {
            return Err(Error::new(Code::FeatureNotSupported, why).with_reason("NO_WIDGET_RUNTIME"));
        }
        let resource = self
            .with_server(who, project_id, &s.id, |t| {
                let uri = uri.clone();
                async move { self.mcp().read_resource(&t, &uri).await }
            })
            .await?;
        let host = Arc::new(SessionHost {
            svc: self.clone(),
            who: who.clone(),
            project_id: project_id.to_string(),
            server_id: s.id.clone(),
            roots: None,
            tools,
            on_call: None,
        });
        let source = ViewSource {
            tool,
            resource,
            arguments: Value::Object(req.arguments.clone().unwrap_or_default()),
            result: req.result.clone(),
        };
        let view = self
            .widgets()
            .open(source, host)
            .await
            .map_err(|e| Error::new(Code::InternalError, e))?;
        view.settle(Duration::from_millis(80), Duration::from_secs(10))
            .await;
        let _ = view.screenshot().await;
        Ok(view.close().await)
    }
}
