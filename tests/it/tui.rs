//! The workbench driven headless: keys into the whole app over a real backend (embedded on a
//! temporary database, or remote against `serve` on loopback), assertions on the screen.

use std::path::Path;
use std::sync::Arc;

use evaldeck::api::RateLimit;
use evaldeck::client::{Backend, Embedded};
use evaldeck::service::{Config, Service};
use evaldeck::spec::environment::EnvironmentPatch;
use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
use evaldeck_testkit::workbench::Harness;
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

/// This build's binary under a short path of fixed length in the test's own temporary
/// directory: screens show the demo server's command, and a long checkout path would wrap.
pub(crate) fn demo_command(dir: &Path) -> String {
    let link = dir.join("evaldeck");
    std::os::unix::fs::symlink(BIN, &link).expect("link the binary");
    link.display().to_string()
}

/// An embedded backend on a fresh database whose demo server runs this build's binary.
pub(crate) fn embedded(dir: &Path) -> Arc<Embedded> {
    let config = Config {
        demo_command: demo_command(dir),
        ..Config::default()
    };
    let service = Service::open(&dir.join("db.sqlite3"), config).expect("open the store");
    Arc::new(Embedded::new(service).expect("the local owner"))
}

pub(crate) async fn app(width: u16, height: u16) -> (Harness, Arc<Embedded>, TempDir) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let backend = embedded(dir.path());
    let h = Harness::new(backend.clone() as Arc<dyn Backend>, width, height).await;
    (h, backend, dir)
}

pub(crate) async fn demo_project(b: &Embedded) -> String {
    evaldeck::cli::project_id(b, None)
        .await
        .expect("the demo project")
}

/// Screens with the volatile parts (ids, times, paths, latencies) replaced. The filters
/// are applied here because insta's `filters` feature is not enabled.
pub(crate) fn snapshot(name: &str, screen: String) {
    let filters = [
        (
            r"\b(prj|srv|hst|env|sut|grp|org|usr|case|run|job|cfg)_[0-9a-f…]+",
            "[$1 id]",
        ),
        // What is left of an id half hidden under an overlay.
        (r"[0-9a-f]{8,}", "[hex]"),
        (r"(?m)│[0-9a-f]{1,7}( +│)$", "│[hex]$1"),
        (r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", "[time]"),
        (r"embedded: \S+", "embedded: [db]"),
        (r"\(pid \d+\)", "(pid [n])"),
        // Latencies and their padding (numbers are right-aligned in columns).
        (r"(latency +)[▁▂▃▄▅▆▇█]+ *", "$1[spark] "),
        (r" *\b\d+ ms\b *", " [n] ms "),
        (r" *\b\d+\.\d s\b *", " [t] s "),
        // The binary's path, which differs between checkouts.
        (&regex::escape(BIN), "[evaldeck]"),
        (r"/\S*?/\.tmp\w+/evaldeck\b", "[evaldeck]"),
        // …and the padding up to the box's edge after all these, which moves with them.
        (
            r"(?m)^(.*?\[(?:n\] ms|t\] s|spark\]|evaldeck\]).*?) +│",
            "$1 │",
        ),
    ];
    let mut screen = screen;
    for (pattern, with) in filters {
        let re = regex::Regex::new(pattern).expect("a filter");
        screen = re.replace_all(&screen, with).into_owned();
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!(name, screen));
}

#[tokio::test]
async fn opens_on_the_demo_project_with_account_and_counts() {
    let (mut h, _b, _dir) = app(120, 30).await;
    let lines = h.lines();
    let status = &lines[0];
    assert!(status.contains("embedded: "), "{status}");
    assert!(status.contains("org Local"), "{status}");
    assert!(status.contains("1000 credits"), "{status}");
    let screen = lines.join("\n");
    for want in [
        "▾ Demo",
        "Servers",
        "Envs",
        "Hosts",
        "Suites",
        "Projects (1)",
    ] {
        assert!(screen.contains(want), "missing {want:?} in\n{screen}");
    }
    assert!(
        lines.last().unwrap().contains("? help"),
        "footer: {:?}",
        lines.last()
    );
    snapshot("tui_home", screen);
}

#[tokio::test]
async fn vim_keys_move_through_sections_and_open_details() {
    let (mut h, _b, _dir) = app(120, 30).await;
    // j moves from the project to its Servers row; the main area follows the cursor.
    h.press("j");
    assert!(h.shows("Servers (1)"), "{}", h.screen());
    assert!(h.shows("demo"));
    assert!(h.shows("stdio"));
    // Enter goes into the list, Enter again opens the server: its tools, listed live.
    h.keys(&["Enter", "Enter"]);
    h.drain().await;
    assert!(h.shows("demo · rev 1 › Tools (13)"), "{}", h.screen());
    // c shows the saved config.
    h.press("c");
    let screen = h.screen();
    assert!(screen.contains("Server › demo"), "{screen}");
    assert!(
        screen.contains("demo-server"),
        "the args in the config:\n{screen}"
    );
    assert!(screen.contains("connect 10000 ms"), "{screen}");
    snapshot("tui_server_detail", screen);
    // Esc back to the list, Esc again to the navigation; G to the last section (Runs).
    h.keys(&["Esc", "Esc", "G"]);
    assert!(h.shows("Runs (0)"), "{}", h.screen());
    h.press("k");
    assert!(h.shows("Suites (1)"), "{}", h.screen());
    assert!(h.shows("Smoke"));
    assert!(h.shows("never run"));
    // g back to the top: the project row shows the Projects pane.
    h.press("g");
    assert!(h.shows("Projects (1)"));
    // Number keys jump to a section and focus its list; Tab moves on to the detail.
    h.press("4");
    assert!(h.shows("Hosts (1)"), "{}", h.screen());
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Host › Claude Code"), "{screen}");
    assert!(
        screen.contains("\"modelId\""),
        "the host config as JSON:\n{screen}"
    );
    // Tab cycles navigation → list → detail → navigation.
    h.press("Tab");
    assert_eq!(h.app.focus(), evaldeck::tui::app::Focus::Nav);
    h.press("Tab");
    assert_eq!(h.app.focus(), evaldeck::tui::app::Focus::List);
}

#[tokio::test]
async fn slash_filters_a_list_and_esc_clears_it() {
    let dir = tempfile::tempdir().unwrap();
    let b = embedded(dir.path());
    let project = demo_project(&b).await;
    for (name, url) in [
        ("weather", "https://weather.example/mcp"),
        ("wiki", "https://wiki.example/mcp"),
    ] {
        let body = ServerCreate::new(
            name,
            ServerConfig::new(Transport::Http {
                url: url.into(),
                headers: Default::default(),
            }),
        );
        b.create_server(&project, &body).await.expect("saved");
    }
    let mut h = Harness::new(b.clone(), 120, 30).await;
    h.press("2");
    assert!(h.shows("Servers (3)"), "{}", h.screen());
    h.press("/");
    h.type_text("wea");
    let screen = h.screen();
    assert!(screen.contains("weather"), "{screen}");
    assert!(!screen.contains("wiki"), "{screen}");
    assert!(screen.contains("/ wea"), "the filter line:\n{screen}");
    assert!(screen.contains("1/3"), "{screen}");
    // Enter keeps the filter and returns to the list; j/k no longer type.
    h.keys(&["Enter", "j"]);
    assert!(h.shows("/ wea"));
    // Esc clears it.
    h.press("Esc");
    let screen = h.screen();
    assert!(
        screen.contains("wiki") && screen.contains("weather"),
        "{screen}"
    );
    assert!(!screen.contains("/ wea"), "{screen}");
}

#[tokio::test]
async fn help_lists_the_focused_panes_own_commands() {
    let (mut h, _b, _dir) = app(120, 40).await;
    h.press("3");
    h.press("?");
    let screen = h.screen();
    for want in [
        "Envs list",
        "show archived",
        "archive",
        "restore",
        "Everywhere",
        "quit",
    ] {
        assert!(screen.contains(want), "missing {want:?}:\n{screen}");
    }
    snapshot("tui_help_environments", screen);
    h.press("Esc");
    assert!(!h.shows("Everywhere"));
    // The footer is built from the same commands.
    let footer = h.lines().pop().unwrap();
    assert!(footer.contains("a show archived"), "{footer}");
}

#[tokio::test]
async fn palette_runs_a_command_by_fuzzy_name() {
    let (mut h, _b, _dir) = app(120, 30).await;
    h.press(":");
    h.type_text("go hosts");
    assert!(h.shows("go to hosts"), "{}", h.screen());
    h.press("Enter");
    assert!(h.shows("Hosts (1)"), "{}", h.screen());
    assert_eq!(h.app.focus(), evaldeck::tui::app::Focus::List);
    // Another pane's command: the palette goes there and runs it.
    h.press(":");
    h.type_text("show archived");
    assert!(h.shows("Envs: show archived"), "{}", h.screen());
    h.press("Enter");
    h.drain().await;
    assert!(h.shows("with archived"), "{}", h.screen());
}

#[tokio::test]
async fn environments_archive_restore_and_a_revision_conflict_is_explained() {
    let (mut h, b, _dir) = app(120, 30).await;
    let project = demo_project(&b).await;
    h.press("3");
    assert!(h.shows("local"), "{}", h.screen());
    // Enter resolves what a launch would use.
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Resolved for a launch"), "{screen}");
    assert!(screen.contains("demo"), "the resolved servers:\n{screen}");
    h.press("Esc");

    // Someone else edits the environment after the list was read: archiving with the old
    // revision is a conflict, explained, and the list reloads.
    let env = b
        .environments(&project, &Default::default())
        .await
        .unwrap()
        .items
        .remove(0);
    b.update_environment(
        &project,
        &env.id,
        &EnvironmentPatch {
            expected_revision: env.revision,
            description: evaldeck::spec::environment::Patch::Set("edited elsewhere".into()),
            ..Default::default()
        },
    )
    .await
    .expect("edited");
    h.press("x");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("CONFLICT"), "{screen}");
    assert!(
        screen.contains(&format!("revision {}", env.revision)),
        "{screen}"
    );
    assert!(screen.contains("reloaded"), "{screen}");
    snapshot("tui_conflict", screen);
    h.press("Enter");
    assert!(!h.shows("CONFLICT"));
    assert!(h.shows(&format!("r{}", env.revision + 1)), "{}", h.screen());

    // With the fresh revision, archive works; the archived toggle shows it again; restore.
    h.press("x");
    h.drain().await;
    assert!(h.shows("archived local"), "{}", h.screen());
    assert!(h.shows("no environments"), "{}", h.screen());
    h.press("a");
    h.drain().await;
    assert!(h.shows("with archived"), "{}", h.screen());
    assert!(h.shows("archived"));
    h.press("u");
    h.drain().await;
    assert!(h.shows("restored local"), "{}", h.screen());
}

#[tokio::test]
async fn adding_a_server_validates_inline_then_saves() {
    let (mut h, _b, _dir) = app(120, 30).await;
    h.press("2");
    h.press("n");
    assert!(h.shows("Add a server"), "{}", h.screen());
    // Saving an empty form shows the spec's rules beside the fields.
    h.press("C-s");
    let screen = h.screen();
    assert!(screen.contains("✗"), "{screen}");
    // name, then transport (→ http: the URL field replaces the command's), then the URL.
    h.type_text("docs");
    h.press("Tab");
    h.press("Right");
    h.press("Tab");
    h.type_text("https://docs.example/mcp");
    h.press("C-s");
    h.drain().await;
    let screen = h.screen();
    assert!(!screen.contains("Add a server"), "{screen}");
    assert!(screen.contains("Servers (2)"), "{screen}");
    assert!(screen.contains("added server docs"), "{screen}");
    assert!(
        screen.contains("https://docs.example/mcp"),
        "selected and shown:\n{screen}"
    );
    // A duplicate name comes back from the backend and shows in the form.
    h.press("n");
    h.type_text("docs");
    h.keys(&["Tab", "Tab"]);
    h.type_text("npx");
    h.press("C-s");
    h.drain().await;
    let screen = h.screen();
    assert!(
        screen.contains("Add a server"),
        "the form stays open:\n{screen}"
    );
    assert!(screen.contains("✗"), "{screen}");
}

#[tokio::test]
async fn deleting_asks_first() {
    let (mut h, _b, _dir) = app(120, 30).await;
    h.press("2");
    h.press("D");
    assert!(h.shows("Delete server “demo”?"), "{}", h.screen());
    h.press("n");
    assert!(h.shows("Servers (1)"));
    h.press("D");
    h.press("y");
    h.drain().await;
    assert!(h.shows("Servers (0)"), "{}", h.screen());
}

#[tokio::test]
async fn mouse_clicks_focus_and_select() {
    let (mut h, _b, _dir) = app(120, 30).await;
    // The Servers row is the second row inside the navigation box (row 1 is the border).
    let lines = h.lines();
    let row = lines.iter().position(|l| l.contains("Servers")).unwrap() as u16;
    h.click(3, row);
    assert!(h.shows("Servers (1)"), "{}", h.screen());
    let lines = h.lines();
    let row = lines
        .iter()
        .position(|l| l.contains("demo") && l.contains("stdio"))
        .unwrap() as u16;
    h.click(40, row);
    assert_eq!(h.app.focus(), evaldeck::tui::app::Focus::List);
    h.scroll(40, row, true);
    assert_eq!(h.app.focus(), evaldeck::tui::app::Focus::List);
}

#[tokio::test]
async fn quits_on_q_and_ctrl_c() {
    let (mut h, _b, _dir) = app(80, 24).await;
    assert!(!h.app.should_quit());
    h.press("q");
    assert!(h.app.should_quit());
    let (mut h, _b, _dir) = app(80, 24).await;
    h.press("C-c");
    assert!(h.app.should_quit());
}

#[tokio::test]
async fn fits_in_80_by_24() {
    let (mut h, _b, _dir) = app(80, 24).await;
    h.press("2");
    let lines = h.lines();
    assert_eq!(lines.len(), 24);
    assert!(lines.iter().all(|l| l.chars().count() <= 80));
    snapshot("tui_servers_80x24", lines.join("\n"));
}

/// The same screens over HTTP: `serve` on loopback with a key, and a rate limit that the
/// refresh exceeds, so the 429 shows with its countdown.
#[tokio::test]
async fn remote_backend_shows_the_same_screens_and_rate_limits() {
    let server =
        evaldeck_testkit::served::Harness::with_rate_limit(Some(RateLimit::per_minute(1, 8))).await;
    let remote = Arc::new(server.remote(&server.owner_key));
    let mut h = Harness::new(remote, 120, 30).await;
    let lines = h.lines();
    assert!(
        lines[0].contains("remote: http://127.0.0.1"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("org Local"), "{}", lines[0]);
    h.press("2");
    assert!(h.shows("Servers (1)"), "{}", h.screen());
    // Eight requests were allowed (runs are read per suite); a refresh sends eight more.
    h.press("r");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Rate limited"), "{screen}");
    assert!(screen.contains("RATE_LIMITED"), "{screen}");
    assert!(screen.contains("retrying in"), "{screen}");
    h.press("Esc");
}

#[tokio::test]
async fn servers_pane_runs_the_doctor_lists_tools_and_calls_one() {
    let (mut h, _b, _dir) = app(140, 40).await;
    h.press("2");
    h.press("d");
    assert!(h.shows("running the doctor"), "{}", h.screen());
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("demo › Doctor"), "{screen}");
    assert!(screen.contains("Doctor  ready"), "{screen}");
    assert!(screen.contains("✓ connection"), "{screen}");
    assert!(screen.contains("✓ tools"), "{screen}");
    assert!(
        screen.contains("● demo"),
        "the status dot after the doctor:\n{screen}"
    );

    // Tools, with descriptions and schemas; Tab moves into them.
    h.press("t");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("demo · rev 1 › Tools"), "{screen}");
    for tool in ["echo", "get-sum", "delete-item"] {
        assert!(screen.contains(tool), "missing {tool}:\n{screen}");
    }
    h.keys(&["Tab", "j"]);
    let screen = h.screen();
    assert!(screen.contains("a: number required"), "{screen}");
    snapshot("tui_tools", screen);

    // Enter opens the call form generated from the input schema.
    h.press("Enter");
    assert!(h.shows("Call tool get-sum"), "{}", h.screen());
    h.type_text("17");
    h.press("Tab");
    h.type_text("25");
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(!screen.contains("Call tool"), "{screen}");
    assert!(screen.contains("demo · rev 1 › Result"), "{screen}");
    assert!(screen.contains("tool get-sum"), "{screen}");
    assert!(screen.contains("42"), "{screen}");
    snapshot("tui_tool_result", screen);
}

#[tokio::test]
async fn a_tool_called_with_raw_json_and_a_tool_error_shows_as_such() {
    let (mut h, _b, _dir) = app(140, 40).await;
    h.keys(&["2", "t"]);
    h.drain().await;
    // echo is first; the raw-JSON toggle edits the arguments as one object.
    h.keys(&["Tab", "Enter"]);
    assert!(h.shows("Call tool echo"), "{}", h.screen());
    h.press("C-t");
    assert!(h.shows("arguments (JSON)"), "{}", h.screen());
    h.press("Right");
    h.type_text(r#""message": "hello raw""#);
    h.press("C-s");
    h.drain().await;
    assert!(h.shows("hello raw"), "{}", h.screen());

    // `fail` reports a tool-level error (isError), which is a result, not a modal.
    h.press("t");
    h.drain().await;
    select_tool(&mut h, "fail");
    h.press("Enter");
    assert!(h.shows("Call tool fail"), "{}", h.screen());
    h.type_text("on purpose");
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("tool error (isError)"), "{screen}");
    assert!(
        !screen.contains("Error ─"),
        "no modal for a tool-level error:\n{screen}"
    );
}

/// With the tools view focused on its first tool, moves down to `name`.
pub(crate) fn select_tool(h: &mut Harness, name: &str) {
    let lines = h.lines();
    let row = |n: &str| {
        lines
            .iter()
            .position(|l| l.contains(&format!(" {n} ")))
            .unwrap_or_else(|| panic!("no tool {n}:\n{}", lines.join("\n")))
    };
    let (first, target) = (row("echo"), row(name));
    if h.app.focus() != evaldeck::tui::app::Focus::Detail {
        h.press("Tab");
    }
    h.press("g");
    for _ in first..target {
        h.press("j");
    }
}

#[tokio::test]
async fn a_slow_tool_does_not_block_navigation() {
    let (mut h, _b, _dir) = app(120, 30).await;
    h.keys(&["2", "t"]);
    h.drain().await;
    select_tool(&mut h, "slow");
    h.press("Enter");
    assert!(h.shows("Call tool slow"), "{}", h.screen());
    // durationMs: 5000, then call.
    h.press("C-u");
    h.type_text("5000");
    h.press("C-s");
    assert!(h.app.in_flight() > 0);
    // While the server works, the app keeps answering keys and drawing.
    let started = std::time::Instant::now();
    h.keys(&["Esc", "Esc", "4"]);
    assert!(h.shows("Hosts (1)"), "{}", h.screen());
    h.press("3");
    assert!(h.shows("Environments (1)"), "{}", h.screen());
    assert!(started.elapsed() < std::time::Duration::from_secs(2));
    assert!(h.app.in_flight() > 0, "the call is still running");
}

// --- suites, import and review, runs and traces ---------------------------------------------

pub(crate) fn plan(name: &str) -> String {
    std::fs::read_to_string(format!(
        "{}/assets/plans/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .expect("the plan exists")
}

/// A service config with the built-in author and no wait window, so every import hands
/// back a pending job that the workbench polls, watches and commits.
pub(crate) fn authoring_config() -> Config {
    Config {
        demo_command: BIN.into(),
        authoring: evaldeck::service::authoring::AuthoringConfig {
            author: evaldeck::service::authoring::AuthorConfig::Builtin,
            wait: std::time::Duration::ZERO,
            ..Default::default()
        },
        ..Config::default()
    }
}

pub(crate) fn embedded_with(dir: &Path, config: Config) -> Arc<Embedded> {
    let service = Service::open(&dir.join("db.sqlite3"), config).expect("open the store");
    Arc::new(Embedded::new(service).expect("the local owner"))
}

/// Imports `qa-plan.md` into Smoke through the backend (and waits for the job to commit).
pub(crate) async fn seed_plan(b: &dyn Backend, project: &str) {
    use evaldeck::spec::import::{EvalCaseImportRequest, ImportResponse, JobStatus};
    let mut req = EvalCaseImportRequest::new(plan("qa-plan.md"));
    req.file_name = Some("qa-plan.md".into());
    let mut r = b
        .import_cases(project, "Smoke", &req)
        .await
        .expect("imported");
    for _ in 0..200 {
        match r {
            ImportResponse::Imported(_) => return,
            ImportResponse::Job(j) if j.status == JobStatus::Completed => {
                b.commit_authoring_job(project, &j.job_id, &Default::default())
                    .await
                    .expect("committed");
                return;
            }
            ImportResponse::Job(j) => {
                assert_eq!(j.status, JobStatus::Pending, "{j:?}");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                r = b.authoring_job(project, &j.job_id).await.expect("polled");
            }
        }
    }
    panic!("the seed import did not finish");
}

/// Moves the suites list to `name` (from the top).
pub(crate) fn select_suite(h: &mut Harness, name: &str) {
    h.press("5");
    h.press("g");
    for _ in 0..20 {
        let lines = h.lines();
        if lines.iter().any(|l| {
            l.contains(&format!("Suite › {name}")) || l.contains(&format!("{name} › Cases"))
        }) {
            return;
        }
        h.press("j");
    }
    panic!("no suite {name}:\n{}", h.screen());
}

#[tokio::test]
async fn suites_show_cases_with_provenance_and_a_case_is_edited_with_inline_validation() {
    let dir = tempfile::tempdir().unwrap();
    let b = embedded_with(dir.path(), authoring_config());
    let project = demo_project(&b).await;
    seed_plan(&*b, &project).await;
    let mut h = Harness::new(b.clone(), 140, 44).await;
    select_suite(&mut h, "Smoke");
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Smoke › Cases (9)"), "{screen}");
    assert!(screen.contains("Steps ("), "{screen}");
    assert!(screen.contains("Source qa-plan.md lines"), "{screen}");
    assert!(screen.contains("claim"), "{screen}");
    snapshot("tui_suite_cases", screen);

    // e edits the case in its form; its JSON view reports broken JSON as you type.
    h.press("e");
    assert!(h.shows("Case “"), "{}", h.screen());
    assert!(h.shows("✓ valid"), "{}", h.screen());
    h.press("C-t");
    h.type_text("x");
    assert!(h.shows("✗ not JSON"), "{}", h.screen());
    h.press("Backspace");
    assert!(h.shows("✓ valid"));
    h.press("C-t");
    // The title is the first field.
    h.type_text(" (edited)");
    h.press("C-s");
    h.drain().await;
    let screen = h.screen();
    assert!(!screen.contains("Case “"), "{screen}");
    assert!(screen.contains("(edited)"), "{screen}");
    assert!(screen.contains("saved case"), "{screen}");
}

/// Paste a plan → the job is watched to the end → review a skipped draft → edit and commit
/// it (free) → a review link opens onto the same drafts. Returns the screens to snapshot.
async fn import_review_flow(b: Arc<dyn Backend>, project: &str) -> Vec<(&'static str, String)> {
    let mut shots = Vec::new();
    seed_plan(&*b, project).await;
    let before = b.credits().await.expect("credits").balance;
    let mut h = Harness::new(b.clone(), 140, 44).await;
    select_suite(&mut h, "Smoke");
    h.press("i");
    assert!(h.shows("Import into suite “Smoke”"), "{}", h.screen());
    // One bracketed paste: the whole plan at once, with line numbers and the options.
    h.app
        .handle_event(crossterm::event::Event::Paste(plan("qa-plan.md")));
    let screen = h.screen();
    assert!(screen.contains("# "), "{screen}");
    assert!(screen.contains("policy"), "{screen}");
    assert!(screen.contains("‹ block ›"), "{screen}");
    shots.push(("tui_import_compose", screen));
    // Esc closes the screen but keeps the plan: i brings it back.
    h.press("Esc");
    assert!(h.shows("the plan is kept"), "{}", h.screen());
    h.press("i");
    assert!(h.shows("(75 lines)"), "{}", h.screen());
    // A non-block policy needs a reason, shown before submitting.
    h.keys(&["Tab", "Down", "Right"]);
    assert!(h.shows("✗ warn needs a reason"), "{}", h.screen());
    h.press("Left");
    h.press("Tab");
    // Submit: the job is pending (no wait window), polled, then committed by the app.
    h.press("C-s");
    assert!(h.shows("submitted"), "{}", h.screen());
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("✓ committed"), "{screen}");
    assert!(screen.contains("0 created"), "{screen}");
    assert!(screen.contains("9 skipped"), "{screen}");
    assert!(screen.contains("Job job_"), "{screen}");
    shots.push(("tui_import_watched", screen));

    // Enter reviews the skipped drafts: reason, and the source lines in the document.
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Review skipped drafts (9)"), "{screen}");
    assert!(screen.contains("DUPLICATE"), "{screen}");
    assert!(screen.contains("highlighted"), "{screen}");
    assert!(
        screen.contains("▌"),
        "the source lines are marked:\n{screen}"
    );
    shots.push(("tui_review", screen));

    // e: the draft in the case form, validated as you type; Ctrl-S commits it with the edit.
    h.press("e");
    assert!(h.shows("Draft “"), "{}", h.screen());
    h.type_text(" again");
    h.press("C-s");
    h.drain().await;
    let screen = h.screen();
    assert!(!screen.contains("Draft “"), "{screen}");
    assert!(screen.contains("Review skipped drafts (8)"), "{screen}");
    assert!(screen.contains("again” as case_"), "{screen}");
    assert!(screen.contains("(free)"), "{screen}");
    assert_eq!(
        b.credits().await.expect("credits").balance,
        before - 9,
        "authoring the nine drafts cost nine credits; committing one cost nothing"
    );
    h.keys(&["Esc", "Esc"]);
    assert!(!h.shows("Review skipped"), "{}", h.screen());
    h.drain().await;
    assert!(h.shows("Smoke"), "{}", h.screen());
    shots
}

#[tokio::test]
async fn paste_a_plan_watch_the_job_review_and_commit_a_skipped_draft() {
    let dir = tempfile::tempdir().unwrap();
    let b = embedded_with(dir.path(), authoring_config());
    let project = demo_project(&b).await;
    for (name, screen) in import_review_flow(b.clone(), &project).await {
        snapshot(name, screen);
    }
}

#[tokio::test]
async fn a_review_link_opens_onto_exactly_its_drafts() {
    use evaldeck::spec::import::{EvalCaseImportRequest, ImportResponse};
    let dir = tempfile::tempdir().unwrap();
    let config = Config {
        authoring: evaldeck::service::authoring::AuthoringConfig {
            wait: std::time::Duration::from_secs(30),
            ..authoring_config().authoring
        },
        ..authoring_config()
    };
    let b = embedded_with(dir.path(), config);
    let project = demo_project(&b).await;
    seed_plan(&*b, &project).await;
    let mut req = EvalCaseImportRequest::new(plan("qa-plan.md"));
    req.file_name = Some("qa-plan.md".into());
    let ImportResponse::Imported(done) = b.import_cases(&project, "Smoke", &req).await.unwrap()
    else {
        panic!("the import finished inside its window")
    };
    let url = done.review_url.expect("a review link");
    assert!(url.starts_with("evaldeck://review/"), "{url}");
    // A link naming two of the nine drafts.
    let ids: Vec<&str> = done
        .skipped
        .iter()
        .take(2)
        .map(|s| s.draft_id.as_str())
        .collect();
    let (base, _) = url.split_once('?').unwrap();
    let link = format!("{base}?drafts={}", ids.join(","));
    let mut h = Harness::new(b.clone(), 140, 44).await;
    assert!(h.app.open_url(&link));
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Review skipped drafts (2)"), "{screen}");
    assert!(screen.contains(&done.skipped[0].title), "{screen}");
    assert!(!screen.contains(&done.skipped[2].title), "{screen}");
    // Without the document, the source is the draft's own excerpt with its line numbers.
    assert!(screen.contains("highlighted"), "{screen}");
    // c commits the selected draft as it is.
    h.press("c");
    h.drain().await;
    assert!(h.shows("Review skipped drafts (1)"), "{}", h.screen());
    // Esc closes the review opened from a link.
    h.press("Esc");
    assert!(!h.shows("Review skipped"));
    assert!(!h.app.open_url("https://example.com/not-a-review"));
}

/// A suite with four cases on the demo server, run by the built-in baseline agent.
pub(crate) async fn seed_eval_suite(b: &dyn Backend, project: &str) {
    let body: evaldeck::spec::suite::SuiteCreate = serde_json::from_value(serde_json::json!({
        "name": "Evals", "serverIds": ["demo"], "model": "builtin/baseline",
        "tests": [
            {"title": "echo", "steps": [
                {"id": "p1", "kind": "prompt", "prompt": "Use echo to say 'hello evals'"},
                {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledWith", "toolName": "echo", "args": {"args": {"message": "hello evals"}}}},
                {"id": "a2", "kind": "assert", "assertion": {"type": "responseContains", "needle": "hello evals"}}
            ]},
            {"title": "sum", "runs": 2, "steps": [
                {"id": "p1", "kind": "prompt", "prompt": "Use get-sum to add 2 and 3"},
                {"id": "a1", "kind": "assert", "assertion": {"type": "responseContains", "needle": "5"}},
                {"id": "a2", "kind": "assert", "assertion": {"type": "responseContains", "needle": "not in the answer"}}
            ]}
        ]
    }))
    .expect("a suite body");
    b.create_suite(project, &body).await.expect("created");
}

/// Start a run with the model picker → live progress until it ends → open an iteration's
/// trace. Returns the screens to snapshot.
async fn run_trace_flow(
    b: Arc<dyn Backend>,
    project: &str,
    source: &str,
) -> Vec<(&'static str, String)> {
    let mut shots = Vec::new();
    seed_eval_suite(&*b, project).await;
    let mut h = Harness::new(b.clone(), 140, 44).await;
    select_suite(&mut h, "Evals");
    h.press("s");
    assert!(h.shows("Start a run of “Evals”"), "{}", h.screen());
    h.press("Down");
    h.press("Enter");
    // The run is opened live; the app reads it until it ends.
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Runs (1)"), "{screen}");
    assert!(
        screen.contains("Run #1 · Evals · builtin/baseline"),
        "{screen}"
    );
    assert!(screen.contains("3/3 iterations"), "{screen}");
    assert!(screen.contains("pass rate by case"), "{screen}");
    assert!(screen.contains("Iterations (3)"), "{screen}");
    assert!(
        screen.contains(&format!(" {source} ")),
        "tagged with its source:\n{screen}"
    );
    shots.push(("tui_run", screen));
    // Enter on the first iteration: its trace.
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("› Trace #"), "{screen}");
    assert!(screen.contains("Timeline"), "{screen}");
    assert!(screen.contains("tool →    echo"), "{screen}");
    assert!(screen.contains("Assertions ("), "{screen}");
    assert!(screen.contains("expected"), "{screen}");
    shots.push(("tui_trace", screen));
    // G scrolls the trace to its end: the categorised tool-call diff.
    h.press("G");
    assert!(h.shows("Tool-call diff"), "{}", h.screen());
    // A failing iteration shows what was expected and what came instead.
    h.press("Esc");
    assert!(h.shows("Iterations (3)"), "{}", h.screen());
    h.keys(&["G", "Enter"]);
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("✗ responseContains"), "{screen}");
    assert!(screen.contains("not in the answer"), "{screen}");
    shots
}

#[tokio::test]
async fn start_a_run_watch_it_and_browse_a_trace() {
    let (h, b, _dir) = app(80, 24).await;
    drop(h);
    let project = demo_project(&b).await;
    for (name, screen) in run_trace_flow(b.clone(), &project, "ui").await {
        snapshot(name, screen);
    }
}

#[tokio::test]
async fn remote_backend_import_review_and_trace_flows() {
    let server = evaldeck_testkit::served::Harness::with_config(authoring_config()).await;
    let remote: Arc<dyn Backend> = Arc::new(server.remote(&server.owner_key));
    let shots = import_review_flow(remote.clone(), &server.project).await;
    assert_eq!(shots.len(), 3);
    let shots = run_trace_flow(remote, &server.project, "api").await;
    assert_eq!(shots.len(), 2);
}

#[tokio::test]
async fn environments_are_created_and_edited_with_revision_conflicts_explained() {
    let (mut h, b, _dir) = app(140, 40).await;
    let project = demo_project(&b).await;
    h.press("3");
    // n: a new environment from a template; an empty name is refused inline.
    h.press("n");
    assert!(h.shows("New environment"), "{}", h.screen());
    assert!(h.shows("✗ required"), "{}", h.screen());
    h.type_text("staging");
    assert!(h.shows("✓ valid"), "{}", h.screen());
    h.press("C-s");
    h.drain().await;
    assert!(
        h.shows("saved environment staging (revision 1)"),
        "{}",
        h.screen()
    );
    assert!(h.shows("Environments (2)"), "{}", h.screen());
    // e: edit with the revision read; someone else saves first → the conflict is explained.
    h.press("e");
    assert!(
        h.shows("Edit environment “staging” (revision 1)"),
        "{}",
        h.screen()
    );
    let env = b
        .environments(&project, &Default::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|e| e.name == "staging")
        .unwrap();
    b.update_environment(
        &project,
        &env.id,
        &EnvironmentPatch {
            expected_revision: env.revision,
            description: evaldeck::spec::environment::Patch::Set("edited elsewhere".into()),
            ..Default::default()
        },
    )
    .await
    .expect("edited");
    h.press("C-s");
    h.drain().await;
    let screen = h.screen();
    assert!(
        screen.contains("someone saved this environment"),
        "{screen}"
    );
    assert!(screen.contains("revision 1"), "{screen}");
    snapshot("tui_env_conflict", screen);
    h.press("Esc");
    h.press("e");
    assert!(h.shows("(revision 2)"), "{}", h.screen());
    h.press("C-s");
    h.drain().await;
    assert!(
        h.shows("saved environment staging (revision 3)"),
        "{}",
        h.screen()
    );
}

#[tokio::test]
async fn servers_are_imported_from_an_mcp_json() {
    let (mut h, _b, dir) = app(140, 40).await;
    let path = dir.path().join("mcp.json");
    std::fs::write(
        &path,
        r#"{"mcpServers": {
            "docs": {"url": "https://docs.example/mcp"},
            "files": {"command": "npx", "args": ["-y", "some-files-server"]},
            "weird": {"foo": 1}
        }}"#,
    )
    .unwrap();
    h.press("2");
    h.press("i");
    assert!(h.shows("Import servers from an mcp.json"), "{}", h.screen());
    h.type_text("/nope/mcp.json");
    h.press("Enter");
    assert!(h.shows("✗ cannot read /nope/mcp.json"), "{}", h.screen());
    for _ in 0.."/nope/mcp.json".len() {
        h.press("Backspace");
    }
    h.type_text(&path.display().to_string());
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("imported 2 server(s)"), "{screen}");
    assert!(screen.contains("skipped weird"), "{screen}");
    assert!(screen.contains("Servers (3)"), "{screen}");
    assert!(
        screen.contains("docs") && screen.contains("files"),
        "{screen}"
    );
}

#[tokio::test]
async fn a_server_is_edited_with_its_config_validated() {
    let (mut h, _b, _dir) = app(140, 40).await;
    h.press("2");
    h.press("e");
    assert!(h.shows("Edit server “demo”"), "{}", h.screen());
    // The JSON view, one key from the form.
    h.press("C-t");
    let screen = h.screen();
    assert!(screen.contains("(JSON)"), "{screen}");
    assert!(screen.contains("\"transport\""), "{screen}");
    assert!(screen.contains("✓ valid"), "{screen}");
    // An unknown key is refused by the spec's rules before anything is sent.
    h.keys(&["Down", "Home"]);
    h.type_text("\"nmae\": 1, ");
    assert!(h.shows("✗ /nmae"), "{}", h.screen());
    for _ in 0.."\"nmae\": 1, ".len() {
        h.press("Backspace");
    }
    assert!(h.shows("✓ valid"), "{}", h.screen());
    h.keys(&["End", "Left", "Left"]);
    h.type_text("-renamed");
    h.press("C-s");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("saved server demo-renamed"), "{screen}");
    assert!(screen.contains("demo-renamed"), "{screen}");
}

#[tokio::test]
async fn the_new_screens_fit_in_80_by_24() {
    let dir = tempfile::tempdir().unwrap();
    let b = embedded_with(dir.path(), authoring_config());
    let project = demo_project(&b).await;
    seed_plan(&*b, &project).await;
    seed_eval_suite(&*b, &project).await;
    let mut h = Harness::new(b.clone(), 80, 24).await;
    let fits = |h: &mut Harness| {
        let lines = h.lines();
        assert_eq!(lines.len(), 24);
        for l in &lines {
            assert!(l.chars().count() <= 80, "{l}");
        }
    };
    select_suite(&mut h, "Smoke");
    h.press("Enter");
    h.drain().await;
    fits(&mut h);
    h.press("e");
    fits(&mut h);
    h.press("Esc");
    h.press("i");
    h.app
        .handle_event(crossterm::event::Event::Paste(plan("qa-plan.md")));
    fits(&mut h);
    h.press("C-s");
    h.drain().await;
    fits(&mut h);
    h.press("Enter");
    h.drain().await;
    assert!(h.shows("Review skipped"), "{}", h.screen());
    fits(&mut h);
    h.press("e");
    fits(&mut h);
    h.keys(&["Esc", "Esc", "Esc"]);
    select_suite(&mut h, "Evals");
    h.press("s");
    fits(&mut h);
    h.keys(&["Down", "Enter"]);
    h.drain().await;
    fits(&mut h);
    h.press("Enter");
    h.drain().await;
    assert!(h.shows("Trace"), "{}", h.screen());
    fits(&mut h);
    snapshot("tui_trace_80x24", h.screen());
}

/// Starts a run of `suite` through the backend and waits for its verdict.
pub(crate) async fn run_to_end(
    b: &dyn Backend,
    project: &str,
    suite: &str,
) -> evaldeck::spec::run::EvalRun {
    let body: evaldeck::spec::run::RunCreate =
        serde_json::from_value(serde_json::json!({"suiteId": suite})).unwrap();
    let id = b.create_run(project, &body).await.expect("started").run_id;
    for _ in 0..400 {
        let r = b.run(project, &id).await.expect("read");
        if r.is_terminal() {
            return r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("run {id} did not finish");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_runs_are_compared_and_a_run_is_regraded() {
    use serde_json::json;
    let (mut h, b, _dir) = app(120, 30).await;
    let project = demo_project(&b).await;
    let tests = json!([
        {"title": "echo says hello", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use echo to say 'hello evals'"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "responseContains", "needle": "hello evals"}}]},
        {"title": "sum of two", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use get-sum to add 2 and 3"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "responseContains", "needle": "5"}}]}
    ]);
    let created = b
        .create_suite(
            &project,
            &serde_json::from_value(json!({"name": "Compare", "serverIds": ["demo"],
                "model": "builtin/baseline", "tests": tests}))
            .unwrap(),
        )
        .await
        .expect("suite");
    let first = run_to_end(b.as_ref(), &project, &created.suite_id).await;
    assert_eq!(first.result.as_deref(), Some("passed"), "{first:?}");
    // The echo case now expects what the server never says: the next run regresses on it.
    let case = b
        .cases(&project, &created.suite_id)
        .await
        .unwrap()
        .items
        .into_iter()
        .find(|c| c.title == "echo says hello")
        .unwrap();
    let edit: evaldeck::spec::case::EvalCaseUpdate = serde_json::from_value(json!({"steps": [
        {"id": "p1", "kind": "prompt", "prompt": "Use echo to say 'hello evals'"},
        {"id": "a1", "kind": "assert", "assertion": {"type": "responseContains", "needle": "goodbye"}}]}))
    .unwrap();
    b.update_case(&project, &created.suite_id, &case.id, &edit)
        .await
        .expect("edited");
    let second = run_to_end(b.as_ref(), &project, &created.suite_id).await;
    assert_eq!(second.result.as_deref(), Some("failed"));

    h.press("6");
    h.press("r");
    h.drain().await;
    assert!(h.shows("Runs (2)"), "{}", h.screen());
    // Newest first: the first run is the second row. Mark it, go up, compare.
    h.press("j");
    h.press("m");
    assert!(h.shows("marked run #1"), "{}", h.screen());
    assert!(h.shows("◆"), "{}", h.screen());
    h.press("k");
    h.press("C");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Compare runs"), "{screen}");
    assert!(screen.contains("#1 → #2"), "{screen}");
    assert!(screen.contains("1 regressed · 0 fixed"), "{screen}");
    assert!(
        screen.contains("▼ regressed  echo says hello  1/1 → 0/1"),
        "{screen}"
    );
    assert!(screen.contains("= unchanged  sum of two"), "{screen}");
    snapshot("tui_runs_compare", screen);
    // Esc leaves the comparison; E grades the newest run again.
    h.press("Esc");
    assert!(!h.shows("Compare runs"), "{}", h.screen());
    h.press("Tab");
    h.press("E");
    h.drain().await;
    assert!(
        h.shows("regraded run #2: 1/2 iterations passed"),
        "{}",
        h.screen()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suite_is_scheduled_edited_and_loses_a_case() {
    use serde_json::json;
    let (mut h, b, _dir) = app(120, 30).await;
    let project = demo_project(&b).await;
    let smoke = b.suite(&project, "Smoke").await.expect("the demo suite");
    b.create_case(
        &project,
        &smoke.id,
        &json!({"title": "echo once", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use echo to say hi"}]}),
    )
    .await
    .expect("a case");
    h.press("5");
    h.press("r");
    h.drain().await;
    // S: the schedule, starting from a disabled hourly one; a bound is checked as you type.
    h.press("S");
    h.drain().await;
    assert!(h.shows("Schedule runs of “Smoke”"), "{}", h.screen());
    // Space turns it on; the interval is 60: 4 is below the bound, said beside the field.
    h.press("Space");
    h.press("Tab");
    h.keys(&["Backspace", "Backspace"]);
    h.type_text("4");
    assert!(h.shows("✗ must be between 5 and 10080"), "{}", h.screen());
    h.press("Backspace");
    h.type_text("90");
    assert!(h.shows("✓ valid"), "{}", h.screen());
    h.press("C-s");
    h.drain().await;
    assert!(
        h.shows("schedule saved: every 90 min · next"),
        "{}",
        h.screen()
    );
    let saved = b.schedule(&project, &smoke.id).await.unwrap();
    assert!(saved.enabled);
    assert_eq!(saved.interval_minutes, Some(90));
    // c: the suite's settings; the new name is saved.
    h.press("c");
    h.drain().await;
    assert!(h.shows("Suite “Smoke”"), "{}", h.screen());
    h.type_text(" nightly");
    h.press("C-s");
    h.drain().await;
    assert!(h.shows("saved suite Smoke nightly"), "{}", h.screen());
    // The suite's detail says when it runs.
    assert!(h.shows("every 90 min"), "{}", h.screen());
    // Enter opens the cases; D deletes one after asking.
    h.press("Enter");
    h.drain().await;
    assert!(h.shows("echo once"), "{}", h.screen());
    h.press("D");
    assert!(h.shows("Delete case “echo once”"), "{}", h.screen());
    h.press("y");
    h.drain().await;
    assert!(h.shows("deleted the case"), "{}", h.screen());
    let left = b.cases(&project, &smoke.id).await.unwrap().items;
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_agent_converses_creates_a_suite_and_explains_a_missing_model() {
    use crate::scripted_model::{model_server, script};
    use evaldeck::service::models::{ModelCatalog, ProviderConfig};
    use serde_json::json;
    let s = script(0, "unused");
    s.tools(&[("list_servers", json!({}))])
        .text("You have one saved server, demo.")
        .tools(&[(
            "create_eval_suite",
            json!({"name": "Agent smoke", "serverIds": ["demo"], "model": "builtin/baseline", "tests": [
                {"title": "echo", "steps": [{"id": "p1", "kind": "prompt", "prompt": "Use echo to say hi"}]}]}),
        )])
        .text("Created “Agent smoke”.");
    let base = model_server(s.clone()).await;
    let mut p = ProviderConfig::openai_compatible("scripted", &base);
    p.hosted = vec!["agent-1".into()];
    p.api_key = Some("sk-test".into());
    let dir = tempfile::tempdir().unwrap();
    let mut config = Config {
        demo_command: demo_command(dir.path()),
        models: ModelCatalog::builtin_only().with_provider(p),
        ..Config::default()
    };
    config.agent.model = Some("scripted/agent-1".into());
    let b = embedded_with(dir.path(), config);
    let mut h = Harness::new(b.clone() as Arc<dyn Backend>, 120, 30).await;
    h.press("A");
    assert!(h.shows("Agent — this project"), "{}", h.screen());
    h.type_text("Which servers do I have?");
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("✓ list_servers"), "{screen}");
    assert!(
        screen.contains("You have one saved server, demo."),
        "{screen}"
    );
    // The second turn carries the first exchange.
    h.type_text("Make a smoke suite");
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(
        screen.contains("+ created eval_suite Agent smoke"),
        "{screen}"
    );
    let sent = s.received();
    let last = sent.last().unwrap()["messages"].as_array().unwrap().clone();
    assert!(
        last.iter()
            .any(|m| m["content"] == "You have one saved server, demo."),
        "{last:?}"
    );
    // Esc keeps the conversation; A brings it back; the new suite is listed.
    h.press("Esc");
    h.press("5");
    h.drain().await;
    assert!(h.shows("Agent smoke"), "{}", h.screen());
    h.press("A");
    assert!(h.shows("Which servers do I have?"), "{}", h.screen());

    // Without a model, the turn's error says how to configure one.
    let (mut h, _b, _dir) = app(120, 30).await;
    h.press("A");
    h.type_text("hello");
    h.press("Enter");
    h.drain().await;
    assert!(h.shows("FEATURE_NOT_SUPPORTED"), "{}", h.screen());
    assert!(h.shows("EVALDECK_AGENT_MODEL"), "{}", h.screen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_credit_ledger_shows_what_authoring_spent() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = authoring_config();
    config.demo_command = demo_command(dir.path());
    let b = embedded_with(dir.path(), config);
    let project = demo_project(&b).await;
    seed_plan(b.as_ref(), &project).await;
    let balance = b.credits().await.unwrap().balance;
    assert!(balance < 1000, "authoring spent credits: {balance}");
    let mut h = Harness::new(b.clone() as Arc<dyn Backend>, 120, 30).await;
    h.press("$");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Credits"), "{screen}");
    assert!(screen.contains(&format!("{balance} credits")), "{screen}");
    assert!(screen.contains("authoring"), "{screen}");
    h.press("Esc");
    assert!(!h.shows("Credits — Esc close"), "{}", h.screen());
}

/// `K` on a server runs the conformance checks: results by area, the evidence of the
/// selected one (Enter adds its JSON), the scan; run again, the drift since the last run.
#[tokio::test]
async fn servers_pane_runs_the_checks_and_shows_evidence_scan_and_drift() {
    let (mut h, _b, _dir) = app(140, 60).await;
    h.press("2");
    h.press("K");
    assert!(h.shows("checking demo"), "{}", h.screen());
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("demo › Checks: "), "{screen}");
    assert!(screen.contains(" 0 failed"), "{screen}");
    assert!(screen.contains("✓ lifecycle.connect"), "{screen}");
    assert!(screen.contains("– ping.answers"), "{screen}");
    assert!(screen.contains("Scan (0 finding(s))"), "{screen}");
    assert!(screen.contains("press K again later"), "{screen}");

    // Into the results: the selected check's evidence, then its JSON on Enter.
    h.keys(&["Tab", "j"]);
    let screen = h.screen();
    assert!(screen.contains("lifecycle.server-info  passed"), "{screen}");
    assert!(screen.contains("evaldeck-demo"), "{screen}");
    h.keys(&["k"]);
    assert!(
        !h.screen().contains("\"capabilities\": {"),
        "{}",
        h.screen()
    );
    h.press("Enter");
    assert!(h.screen().contains("\"capabilities\": {"), "{}", h.screen());

    h.press("Enter");
    assert!(
        !h.screen().contains("\"capabilities\": {"),
        "{}",
        h.screen()
    );

    // Run again: the drift since the previous check.
    h.keys(&["Esc", "K"]);
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Drift since the check of"), "{screen}");
    assert!(screen.contains(": 0 breaking, 0"), "{screen}");
}
