//! The workbench driven headless: keys into the whole app over a real backend (embedded on a
//! temporary database, or remote against `serve` on loopback), assertions on the screen.

use std::path::Path;
use std::sync::Arc;

use evaldeck::api::RateLimit;
use evaldeck::client::{Backend, Embedded};
use evaldeck::service::{Config, Service};
use evaldeck::spec::environment::EnvironmentPatch;
use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
use evaldeck::tui::testing::Harness;
use tempfile::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

/// An embedded backend on a fresh database whose demo server runs this build's binary.
fn embedded(dir: &Path) -> Arc<Embedded> {
    let config = Config {
        demo_command: BIN.into(),
        ..Config::default()
    };
    let service = Service::open(&dir.join("db.sqlite3"), config).expect("open the store");
    Arc::new(Embedded::new(service).expect("the local owner"))
}

async fn app(width: u16, height: u16) -> (Harness, Arc<Embedded>, TempDir) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let backend = embedded(dir.path());
    let h = Harness::new(backend.clone() as Arc<dyn Backend>, width, height).await;
    (h, backend, dir)
}

async fn demo_project(b: &Embedded) -> String {
    evaldeck::cli::project_id(b, None)
        .await
        .expect("the demo project")
}

/// Screens with the volatile parts (ids, times, paths, latencies) replaced. The filters
/// are applied here because insta's `filters` feature is not enabled.
fn snapshot(name: &str, screen: String) {
    let filters = [
        (
            r"\b(prj|srv|hst|env|sut|grp|org|usr|case|run|job|cfg)_[0-9a-f…]+",
            "[$1 id]",
        ),
        // What is left of an id half hidden under an overlay.
        (r"[0-9a-f]{8,}", "[hex]"),
        (r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}", "[time]"),
        (r"embedded: \S+", "embedded: [db]"),
        (r"\b\d+ ms\b", "[n] ms"),
        (&regex::escape(BIN), "[evaldeck]"),
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
    assert!(h.shows("demo › Tools (12)"), "{}", h.screen());
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
    // Esc back to the list, Esc again to the navigation; G to the last section (Suites).
    h.keys(&["Esc", "Esc", "G"]);
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
        "Envs pane",
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
    // name, then transport (→ http), then the URL.
    h.type_text("docs");
    h.press("Tab");
    h.press("Right");
    h.press("Tab");
    h.type_text("https://docs.example/mcp");
    h.press("Enter");
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
    let server = crate::common::Harness::with_rate_limit(Some(RateLimit::per_minute(1, 6))).await;
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
    // Six requests were allowed; a refresh sends six more.
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
    assert!(screen.contains("demo › Tools"), "{screen}");
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
    assert!(screen.contains("demo › Result"), "{screen}");
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
fn select_tool(h: &mut Harness, name: &str) {
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
