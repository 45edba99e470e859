//! Finding and starting Chromium, and ending it.

use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use chromiumoxide::Browser;
use futures::StreamExt;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::task::JoinHandle;

use crate::service::mcp::process;

/// The environment variable naming the Chromium binary.
pub const CHROMIUM_ENV: &str = "EVALDECK_CHROMIUM";

const NAMES: &[&str] = &[
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
];

/// How long Chromium gets to print its DevTools address.
const LAUNCH_TIMEOUT: Duration = Duration::from_secs(20);

/// What to do when no Chromium is found.
pub fn missing_chromium() -> String {
    format!(
        "widgets need Chromium: install it (Debian/Ubuntu: `apt install chromium`) or set {CHROMIUM_ENV} to the browser's path"
    )
}

/// The Chromium binary: `EVALDECK_CHROMIUM`, else the first of the usual names on `PATH`.
pub fn chromium_path() -> Result<PathBuf, String> {
    if let Some(p) = std::env::var_os(CHROMIUM_ENV).filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        return if p.is_file() {
            Ok(p)
        } else {
            Err(format!(
                "{CHROMIUM_ENV} is set to `{}`, which is not a file",
                p.display()
            ))
        };
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .flat_map(|dir| NAMES.iter().map(move |n| dir.join(n)))
        .find(|p| p.is_file())
        .ok_or_else(missing_chromium)
}

/// A running headless Chromium and the DevTools connection to it.
pub struct Chrome {
    pub browser: Browser,
    handler: JoinHandle<()>,
    /// The supervisor (or Chromium itself) and the group it leads.
    child: std::sync::Mutex<Option<tokio::process::Child>>,
    group: Option<u32>,
    /// Closing it tells the supervisor to end the browser's process group.
    lifeline: std::sync::Mutex<Option<OwnedFd>>,
    profile: PathBuf,
    dead: std::sync::Arc<AtomicBool>,
}

impl Chrome {
    /// Starts Chromium headless with a fresh profile and connects to it.
    pub async fn launch(binary: &Path) -> Result<Chrome, String> {
        static N: AtomicU64 = AtomicU64::new(0);
        sweep_profiles();
        let profile = std::env::temp_dir().join(format!(
            "evaldeck-chromium-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let mut args: Vec<String> = [
            "--headless",
            "--remote-debugging-port=0",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--disable-dev-shm-usage",
            "--hide-scrollbars",
            "--mute-audio",
            // Sandboxed frames stay in the page's process, so one DevTools session sees
            // the view's console, DOM and input.
            "--disable-features=IsolateSandboxedIframes,Translate,MediaRouter",
            "--disable-site-isolation-trials",
            "--window-size=1024,768",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        if unsafe { libc::geteuid() } == 0 {
            // SAFETY above: geteuid cannot fail. The browser process's own sandbox cannot start as root; the widget's frame
            // keeps its `sandbox` attribute regardless.
            args.push("--no-sandbox".into());
        }
        args.push("about:blank".into());
        let supervisor = process::supervisor();
        let (mut cmd, lifeline) = process::command(
            binary,
            &args,
            supervisor.as_deref(),
            Duration::from_millis(200),
        )
        .map_err(|e| format!("cannot start `{}`: {e}", binary.display()))?;
        cmd.stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .kill_on_drop(true);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", binary.display()))?;
        let lifeline = lifeline.map(|l| l.spawned());
        let group = child.id();
        let stderr = child.stderr.take().expect("piped");
        let mut lines = BufReader::new(stderr).lines();
        let mut said = Vec::new();
        let ws = tokio::time::timeout(LAUNCH_TIMEOUT, async {
            while let Ok(Some(l)) = lines.next_line().await {
                if let Some(i) = l.find("ws://") {
                    return Some(l[i..].trim().to_string());
                }
                said.push(l);
            }
            None
        })
        .await;
        let ws = match ws {
            Ok(Some(ws)) => ws,
            other => {
                if let Some(g) = group {
                    process::end_group(g).await;
                }
                let _ = child.kill().await;
                let _ = std::fs::remove_dir_all(&profile);
                let why = if other.is_err() {
                    "did not start within 20 s".to_string()
                } else {
                    "exited".to_string()
                };
                return Err(format!(
                    "Chromium (`{}`) {why}: {}",
                    binary.display(),
                    said.iter()
                        .rev()
                        .take(3)
                        .rev()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(" | ")
                ));
            }
        };
        // Keep draining stderr so the browser never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        let (browser, mut handler) = Browser::connect(ws)
            .await
            .map_err(|e| format!("cannot reach Chromium's DevTools endpoint: {e}"))?;
        let dead = std::sync::Arc::new(AtomicBool::new(false));
        let flag = dead.clone();
        let handler = tokio::spawn(async move {
            while let Some(ev) = handler.next().await {
                if ev.is_err() && handler_closed(&ev) {
                    break;
                }
            }
            flag.store(true, Ordering::Relaxed);
        });
        Ok(Chrome {
            browser,
            handler,
            child: std::sync::Mutex::new(Some(child)),
            group,
            lifeline: std::sync::Mutex::new(lifeline),
            profile,
            dead,
        })
    }

    /// The DevTools connection is still up.
    pub fn alive(&self) -> bool {
        !self.dead.load(Ordering::Relaxed)
    }

    /// Ends the browser and its process group, and removes its profile.
    pub async fn shutdown(&self) {
        self.handler.abort();
        drop(
            self.lifeline
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take(),
        );
        let child = self.child.lock().unwrap_or_else(|p| p.into_inner()).take();
        if let Some(mut child) = child {
            match (process::supervisor().is_some(), self.group) {
                (true, Some(pid)) => process::stop_supervisor(pid),
                (false, Some(g)) => process::end_group(g).await,
                _ => {}
            }
            let _ = tokio::time::timeout(Duration::from_secs(2), child.wait()).await;
            let _ = child.kill().await;
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

impl Drop for Chrome {
    fn drop(&mut self) {
        self.handler.abort();
        // Closing the lifeline makes the supervisor end the group; without one, the
        // child's kill-on-drop ends the browser.
        drop(
            self.lifeline
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .take(),
        );
        if let (None, Some(g)) = (process::supervisor(), self.group) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(g as i32),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Removes the profiles of evaldeck processes that are gone (killed before they could
/// remove their own): `evaldeck-chromium-{pid}-{n}` in the temporary directory.
fn sweep_profiles() {
    let Ok(dir) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in dir.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let Some(pid) = name
            .strip_prefix("evaldeck-chromium-")
            .and_then(|rest| rest.split('-').next())
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let alive = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None).is_ok();
        if !alive {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether a handler error means the connection is gone (rather than one bad message).
fn handler_closed<T>(ev: &Result<T, chromiumoxide::error::CdpError>) -> bool {
    matches!(
        ev,
        Err(chromiumoxide::error::CdpError::Ws(_)) | Err(chromiumoxide::error::CdpError::Io(_))
    )
}
