//! The widget runtime: MCP Apps views rendered in headless Chromium, driven over the
//! DevTools protocol (`chromiumoxide`).
//!
//! A tool that names a UI resource (`_meta.ui.resourceUri`, a `ui://` resource of MIME
//! `text/html;profile=mcp-app`) is rendered the way a desktop host renders it: the resource's
//! HTML goes into an `<iframe sandbox="allow-scripts">` (never `allow-same-origin`) under the
//! Content-Security-Policy the resource declares ([`csp`]), and evaldeck plays the host side
//! of the bridge ([`bridge`]): it answers `ui/initialize`, delivers the tool's input and
//! result once the view says `ui/notifications/initialized`, proxies the view's `tools/call`
//! and `resources/read` to the same MCP session (through a [`ViewHost`]), and honours
//! `ui/notifications/size-changed`. It records what a reviewer needs ([`ViewRecord`]): the
//! render latency (HTML delivered → `initialized`), console errors, uncaught exceptions and
//! CSP violations, the view's calls, and a screenshot.
//!
//! One browser is started on first use and kept warm ([`WidgetRuntime`]); each view is a
//! page of it. The browser runs under evaldeck's process supervisor, so it never outlives
//! evaldeck however evaldeck ends. Chromium is found as `EVALDECK_CHROMIUM`, else `chromium`,
//! `chromium-browser`, `google-chrome` or `google-chrome-stable` on `PATH`; running as root
//! it gets `--no-sandbox` (the browser process's sandbox; the widget's frame keeps its
//! `sandbox` attribute).

mod bridge;
mod browser;
pub mod csp;
pub mod dom;
pub mod session;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::Mutex;

pub use crate::spec::widget::{ConsoleEntry, ViewRecord, ViewRequest, resource_uri, visible_to};
pub use bridge::View;
pub use browser::{chromium_path, missing_chromium};

/// The MIME type of an MCP Apps view.
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// The MCP Apps extension's identifier, under which evaldeck declares it renders views.
pub const APPS_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MCP Apps protocol revision evaldeck speaks to views.
pub const APPS_PROTOCOL: &str = "2026-01-26";

/// How long a view gets to say `ui/notifications/initialized`.
pub const RENDER_TIMEOUT: Duration = Duration::from_secs(10);

/// What the host side answers a view's server requests with: the MCP session the tool call
/// came from.
#[async_trait::async_trait]
pub trait ViewHost: Send + Sync {
    /// `tools/call` from the view; `Ok` is the call-tool result verbatim.
    async fn call_tool(&self, name: &str, arguments: Value) -> Result<Value, String>;
    /// `resources/read` from the view.
    async fn read_resource(&self, uri: &str) -> Result<Value, String>;
}

/// Everything a view is rendered from.
#[derive(Debug, Clone)]
pub struct ViewSource {
    /// The tool declaration (`tools/list` entry) whose view this is.
    pub tool: Value,
    /// The `resources/read` content of its UI resource (`text` or `blob`, `_meta.ui`).
    pub resource: Value,
    pub arguments: Value,
    /// The call-tool result, delivered as `ui/notifications/tool-result`; `None` when the
    /// call failed (the view then gets `ui/notifications/tool-cancelled`).
    pub result: Option<Value>,
}

/// The warm browser, started on first use and shared by every view.
#[derive(Default)]
pub struct WidgetRuntime {
    browser: Mutex<Option<Arc<browser::Chrome>>>,
    /// The configured binary; `None` looks for one ([`chromium_path`]).
    binary: Option<PathBuf>,
}

impl WidgetRuntime {
    pub fn new(binary: Option<PathBuf>) -> WidgetRuntime {
        WidgetRuntime {
            browser: Mutex::default(),
            binary,
        }
    }

    /// The browser binary: `Err` says what to install.
    pub fn binary(&self) -> Result<PathBuf, String> {
        match &self.binary {
            Some(p) if p.is_file() => Ok(p.clone()),
            Some(p) => Err(format!(
                "the configured Chromium `{}` is not a file; {}",
                p.display(),
                missing_chromium()
            )),
            None => chromium_path(),
        }
    }

    async fn browser(&self) -> Result<Arc<browser::Chrome>, String> {
        let mut slot = self.browser.lock().await;
        if let Some(b) = slot.as_ref()
            && b.alive()
        {
            return Ok(b.clone());
        }
        if let Some(old) = slot.take() {
            old.shutdown().await;
        }
        let b = Arc::new(browser::Chrome::launch(&self.binary()?).await?);
        *slot = Some(b.clone());
        Ok(b)
    }

    /// Renders `source` and waits (up to [`RENDER_TIMEOUT`]) for the view to initialize; a
    /// view that never does is returned all the same, its record saying so.
    pub async fn open(&self, source: ViewSource, host: Arc<dyn ViewHost>) -> Result<View, String> {
        let browser = self.browser().await?;
        View::open(&browser, source, host).await
    }

    /// Ends the browser (and every page) now.
    pub async fn shutdown(&self) {
        if let Some(b) = self.browser.lock().await.take() {
            b.shutdown().await;
        }
    }
}
