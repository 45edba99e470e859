//! No stdio server outlives evaldeck: every way the CLI or `serve` can end — an answer,
//! Ctrl-C, SIGTERM, SIGHUP, `kill -9` — ends the server's whole process group, including a
//! wrapper script's child that ignores both the end of its input and SIGTERM. Processes
//! are counted by a marker in their environment before and after each exit.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

/// A store with the server `wrapped`: a shell script that ignores SIGTERM and runs the demo
/// server (which ignores the end of its input) as its child, every process marked.
struct Fixture {
    _dir: tempfile::TempDir,
    db: PathBuf,
    mark: String,
}

impl Fixture {
    fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("db.sqlite3");
        let script = dir.path().join("wrapper.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\ntrap '' TERM\n\"$EVALDECK_BIN\" demo-server --linger\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mark = format!("m{}", uuid_like());
        let f = Fixture {
            _dir: dir,
            db,
            mark,
        };
        let add = f.cli(&[
            "servers",
            "add",
            "wrapped",
            "--command",
            script.to_str().unwrap(),
            "--env",
            &format!("EVALDECK_TEST_MARK={}", f.mark),
            "--env",
            &format!("EVALDECK_BIN={BIN}"),
        ]);
        assert!(
            add.status.success(),
            "{}",
            String::from_utf8_lossy(&add.stderr)
        );
        f
    }

    /// A second handle on the same processes, for another thread.
    fn watch(mark: String, db: PathBuf) -> Fixture {
        Fixture {
            _dir: tempfile::tempdir().unwrap(),
            db,
            mark,
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.arg("--db")
            .arg(&self.db)
            .args(args)
            .env_remove("EVALDECK_BASE_URL")
            .env_remove("EVALDECK_PROJECT")
            .stdin(Stdio::null());
        c
    }

    fn cli(&self, args: &[&str]) -> std::process::Output {
        self.command(args).output().unwrap()
    }

    /// Pids of the processes that carry this fixture's marker.
    fn marked(&self) -> Vec<u32> {
        let needle = format!("EVALDECK_TEST_MARK={}", self.mark);
        let mut out = vec![];
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(env) = std::fs::read(e.path().join("environ")) else {
                continue;
            };
            // A zombie has an empty environment: it is gone in all but its exit status.
            if env.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
                out.push(pid);
            }
        }
        out
    }

    /// Waits until the server's tree is up: supervisor, wrapper and server.
    fn wait_running(&self) {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.marked().len() < 3 {
            assert!(Instant::now() < deadline, "the server never started");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits (at most `within`) until no marked process is left.
    fn assert_all_gone(&self, what: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let left = self.marked();
            if left.is_empty() {
                return;
            }
            if Instant::now() > deadline {
                let tree = Command::new("ps")
                    .args(["-o", "pid,ppid,pgid,stat,args", "-p"])
                    .arg(
                        left.iter()
                            .map(|p| p.to_string())
                            .collect::<Vec<_>>()
                            .join(","),
                    )
                    .output()
                    .map(|o| String::from_utf8_lossy(&o.stdout).to_string())
                    .unwrap_or_default();
                panic!(
                    "{what}: {} process(es) outlived evaldeck:\n{tree}",
                    left.len()
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn uuid_like() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    format!(
        "{}x{}x{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos()
    )
}

fn signal(child: &Child, sig: &str) {
    let ok = Command::new("kill")
        .args([sig, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(ok.success());
}

fn wait_exit(child: &mut Child, within: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + within;
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        assert!(Instant::now() < deadline, "evaldeck did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The grace period (2 s) plus the time the group gets between SIGTERM and SIGKILL.
const CLEANUP: Duration = Duration::from_secs(5);

#[test]
fn a_cli_answer_leaves_no_process_and_does_not_wait_for_the_server() {
    let f = Fixture::new();
    assert!(f.marked().is_empty());
    let t0 = Instant::now();
    let out = f.cli(&["tools", "list", "wrapped"]);
    let took = t0.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("get-sum"));
    // The server ignores the end of its input: waiting for it would take the whole grace
    // period. The CLI exits as soon as it has answered.
    assert!(
        took < Duration::from_millis(1900),
        "the CLI waited for the server to shut down: {took:?}"
    );
    f.assert_all_gone("after `tools list`", CLEANUP);
}

#[test]
fn every_signal_that_ends_the_cli_mid_call_ends_the_server_too() {
    for (sig, code) in [
        ("-INT", Some(130)),
        ("-TERM", Some(143)),
        ("-HUP", Some(129)),
        ("-KILL", None),
    ] {
        let f = Fixture::new();
        let mut cli = f
            .command(&[
                "tools",
                "call",
                "wrapped",
                "slow",
                "--arg",
                "durationMs=60000",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        f.wait_running();
        std::thread::sleep(Duration::from_millis(300));
        signal(&cli, sig);
        let status = wait_exit(&mut cli, Duration::from_secs(5));
        assert_eq!(status.code(), code, "{sig}: exit status {status:?}");
        if code.is_some() {
            let mut err = String::new();
            use std::io::Read;
            cli.stderr.take().unwrap().read_to_string(&mut err).unwrap();
            assert!(err.contains("cancelled"), "{sig}: {err}");
        }
        f.assert_all_gone(sig, CLEANUP);
    }
}

/// `kill -9` of `serve` in the middle of a call: nothing of the server is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_killed_with_sigkill_leaves_no_server_behind() {
    let f = Fixture::new();
    let (mut serve, base, key, project) = serve_with_key(&f).await;
    let http = reqwest::Client::new();
    let call = tokio::spawn(
        http.post(format!(
            "{base}/projects/{project}/servers/wrapped/tools/call"
        ))
        .bearer_auth(&key)
        .json(&serde_json::json!({"toolName": "slow", "parameters": {"durationMs": 60000}}))
        .send(),
    );
    tokio::task::spawn_blocking({
        let mark = f.mark.clone();
        let db = f.db.clone();
        move || Fixture::watch(mark, db).wait_running()
    })
    .await
    .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    signal(&serve, "-KILL");
    wait_exit(&mut serve, Duration::from_secs(5));
    let _ = call.await;
    f.assert_all_gone("serve killed with -9", CLEANUP);
}

/// `serve` on a free port with a fresh key: the child, its base URL, the key and the
/// first project's id.
async fn serve_with_key(f: &Fixture) -> (Child, String, String, String) {
    let key = f.cli(&["--json", "keys", "create", "--name", "ci"]);
    assert!(
        key.status.success(),
        "{}",
        String::from_utf8_lossy(&key.stderr)
    );
    let key: serde_json::Value = serde_json::from_slice(&key.stdout).unwrap();
    let key = key["key"].as_str().unwrap().to_string();
    let mut serve = f
        .command(&["serve", "--listen", "127.0.0.1:0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let base = listening_on(&mut serve);
    let projects: serde_json::Value = reqwest::Client::new()
        .get(format!("{base}/projects"))
        .bearer_auth(&key)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let project = projects["items"][0]["id"].as_str().unwrap().to_string();
    (serve, base, key, project)
}

/// The base URL `serve` prints on its first line.
fn listening_on(serve: &mut Child) -> String {
    use std::io::BufRead;
    let mut line = String::new();
    std::io::BufReader::new(serve.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    line.split_whitespace()
        .find(|w| w.starts_with("http://"))
        .expect("serve prints its URL")
        .to_string()
}

/// A panic ends the CLI too: writing its answer to a closed stdout panics (the process
/// then exits with the shell's SIGPIPE status); the server goes with it.
#[test]
fn a_panicking_cli_leaves_no_server_behind() {
    let f = Fixture::new();
    let mut cli = f
        .command(&[
            "tools",
            "call",
            "wrapped",
            "large-result",
            "--arg",
            "size=200000",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Nobody reads the answer.
    drop(cli.stdout.take());
    let status = wait_exit(&mut cli, Duration::from_secs(20));
    assert_eq!(status.code(), Some(141), "{status:?}");
    f.assert_all_gone("a panic", CLEANUP);
}

/// Quitting the workbench (or its terminal going away, or a signal) while a tool call is in
/// flight ends the server's whole process group, the wrapper's child that ignores the end
/// of its input included.
#[test]
fn leaving_the_workbench_mid_call_leaves_no_server_behind() {
    for how in ["q", "Ctrl-C", "hang up", "SIGTERM"] {
        let f = Fixture::new();
        let home = tempfile::tempdir().unwrap();
        let mut cmd = f.command(&[]);
        cmd.env("HOME", home.path())
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env_remove("EVALDECK_CONFIG_DIR");
        let mut t = crate::pty::Terminal::open(cmd, 36, 120);
        t.wait_for("Projects (1)");
        // Servers, the last one (`wrapped`), its tools; then `slow` with a minute to go.
        t.keys(b"2");
        t.wait_for("wrapped");
        t.keys(b"G");
        t.keys(b"t");
        t.wait_for("slow");
        f.wait_running();
        t.keys(b"\t");
        t.keys(b"gjjjjj");
        t.keys(b"\r");
        t.wait_for("Call tool slow");
        t.keys(b"\x1560000");
        t.keys(b"\x13");
        t.wait_for("calling slow");
        assert!(f.marked().len() >= 3, "{how}: the server is running");
        match how {
            "q" => t.keys(b"q"),
            "Ctrl-C" => t.keys(b"\x03"),
            // Its terminal going away sends the workbench SIGHUP.
            "hang up" => signal(&t.child, "-HUP"),
            _ => signal(&t.child, "-TERM"),
        }
        wait_exit(&mut t.child, Duration::from_secs(10));
        f.assert_all_gone(&format!("workbench, {how} mid-call"), CLEANUP);
    }
}

/// The browser's processes (their command lines name the profile `serve` made).
fn browser_of(serve_pid: u32) -> Vec<u32> {
    let profile = format!("evaldeck-chromium-{serve_pid}-");
    let mut out = vec![];
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if std::fs::read(e.path().join("cmdline"))
            .is_ok_and(|c| String::from_utf8_lossy(&c).contains(&profile))
        {
            out.push(pid);
        }
    }
    out
}

/// `kill -9` of `serve` after it rendered a widget: no browser process is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_killed_with_sigkill_leaves_no_browser_behind() {
    if !crate::widgets::chromium() {
        return;
    }
    let f = Fixture::new();
    let (mut serve, base, key, project) = serve_with_key(&f).await;
    let http = reqwest::Client::new();
    let rendered: serde_json::Value = http
        .post(format!(
            "{base}/projects/{project}/servers/demo/widgets/render"
        ))
        .bearer_auth(&key)
        .json(
            &serde_json::json!({"toolName": "sum-card", "arguments": {"a": 1, "b": 2},
            "result": {"content": [], "structuredContent": {"a": 1, "b": 2, "sum": 3}}}),
        )
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(rendered["initialized"], true, "{rendered}");
    assert!(!browser_of(serve.id()).is_empty(), "the browser runs warm");
    signal(&serve, "-KILL");
    wait_exit(&mut serve, Duration::from_secs(5));
    let deadline = Instant::now() + CLEANUP;
    while !browser_of(serve.id()).is_empty() {
        assert!(
            Instant::now() < deadline,
            "browser processes outlived serve: {:?}",
            browser_of(serve.id())
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `evaldeck open -- COMMAND` opens the workbench on a server it has not saved, selected in
/// the servers pane; quitting, or the terminal hanging up, deletes it again.
#[test]
fn the_workbench_opens_an_unsaved_target_and_forgets_it_on_leaving() {
    for how in ["q", "hang up"] {
        let home = tempfile::tempdir().unwrap();
        let db = home.path().join("store.sqlite3");
        let mut cmd = Command::new(BIN);
        cmd.arg("--db")
            .arg(&db)
            .args(["open", "--", BIN, "demo-server"])
            .env("HOME", home.path())
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env_remove("EVALDECK_CONFIG_DIR")
            .env_remove("EVALDECK_BASE_URL");
        let mut t = crate::pty::Terminal::open(cmd, 36, 120);
        t.wait_for("Server › adhoc-");
        t.keys(b"t");
        t.wait_for("get-sum");
        let saved = |db: &std::path::Path| {
            let out = Command::new(BIN)
                .arg("--db")
                .arg(db)
                .args(["servers", "list"])
                .env_remove("EVALDECK_BASE_URL")
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).contains("adhoc-")
        };
        assert!(saved(&db), "{how}: saved while the workbench is open");
        match how {
            "q" => t.keys(b"q"),
            // The window closed: the terminal is gone, so anything printed to it fails.
            _ => t.hang_up(),
        }
        wait_exit(&mut t.child, Duration::from_secs(15));
        assert!(
            !saved(&db),
            "{how}: the unsaved target is deleted on leaving"
        );
    }
}
