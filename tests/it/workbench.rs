//! The workbench as a new user meets it: every flow by keyboard and forms, nothing stale,
//! nothing hidden. Each test drives keys into the whole app over a real backend and looks
//! at the screen (snapshots at 120×36 and 80×24 where a screen is new).

use std::sync::Arc;

use evaldeck::client::Backend;
use evaldeck_testkit::workbench::Harness;
use serde_json::json;

use crate::tui::{app, demo_project, run_to_end, snapshot};

/// Creates a suite from a `POST eval-suites` body; its id.
async fn create_suite(b: &dyn Backend, project: &str, body: serde_json::Value) -> String {
    let body: evaldeck::spec::suite::SuiteCreate =
        serde_json::from_value(body).expect("a suite body");
    b.create_suite(project, &body)
        .await
        .expect("created")
        .suite_id
}

/// A suite whose one case expects `get-sum` while its prompt makes the baseline agent call
/// `echo`: the trace has failed assertions and a tool-call diff with a missing call.
async fn seed_missing_call(b: &dyn Backend, project: &str) -> String {
    create_suite(
        b,
        project,
        json!({
        "name": "Diff", "serverIds": ["demo"], "model": "builtin/baseline",
        "tests": [{"title": "adds with the wrong tool", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use echo to say 'hello there, this is a longer prompt that wraps'"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledWith", "toolName": "get-sum", "args": {"args": {"a": 17, "b": 25}}}},
            {"id": "a2", "kind": "assert", "assertion": {"type": "responseContains", "needle": "42, which is the sum of seventeen and twenty-five"}},
            {"id": "a3", "kind": "assert", "assertion": {"type": "toolNeverCalled", "toolName": "echo"}}
        ]}]
    }),
    )
    .await
}

/// The tool-call diff at the end of a long trace is reached with `G`, PgDn and
/// `j` at 120×36 and 80×24 (the scroll bound counted characters, not word-wrapped rows).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_end_of_a_long_trace_is_reachable() {
    for (w, rows) in [(120, 36), (80, 24)] {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        let suite = seed_missing_call(b.as_ref(), &project).await;
        let run = run_to_end(b.as_ref(), &project, &suite).await;
        assert_eq!(run.result.as_deref(), Some("failed"), "{run:?}");
        h.press("6");
        h.press("r");
        h.drain().await;
        h.press("Enter");
        h.drain().await;
        h.press("Enter");
        h.drain().await;
        assert!(h.shows("› Trace #1"), "{}", h.screen());
        h.press("G");
        let screen = h.screen();
        assert!(screen.contains("Tool-call diff"), "{screen}");
        assert!(screen.contains("missing"), "G reaches the diff:\n{screen}");
        assert!(screen.contains("get-sum"), "{screen}");
        snapshot(&format!("workbench_trace_end_{w}x{rows}"), screen);
        // Back to the top, then PgDn and j all the way down reach it too.
        h.press("g");
        assert!(!h.shows("Tool-call diff ("), "{}", h.screen());
        for _ in 0..40 {
            h.press("PgDn");
        }
        assert!(h.shows("Tool-call diff ("), "{}", h.screen());
        h.press("g");
        for _ in 0..400 {
            h.press("j");
        }
        assert!(h.shows("Tool-call diff ("), "{}", h.screen());
    }
}

/// A paste into the import editor before the syntax highlighter has loaded is
/// drawn at once (plain), exactly once; the highlighter never holds a frame back.
#[tokio::test]
async fn a_paste_before_the_highlighter_has_loaded_is_drawn_at_once_and_once() {
    use evaldeck::tui::widgets::highlight;
    let dir = tempfile::tempdir().unwrap();
    let b = crate::tui::embedded(dir.path());
    highlight::hold(true);
    let mut h = Harness::with_color(b.clone() as Arc<dyn Backend>, 120, 36, true).await;
    h.press("5");
    h.press("i");
    assert!(h.shows("Import into suite “Smoke”"), "{}", h.screen());
    let plan = crate::tui::plan("qa-plan.md");
    // The cursor ends at the end of the paste: its last lines are on screen.
    let first = plan
        .lines()
        .rev()
        .find(|l| l.trim().len() > 10)
        .unwrap()
        .chars()
        .take(40)
        .collect::<String>();
    let started = std::time::Instant::now();
    h.app
        .handle_event(crossterm::event::Event::Paste(plan.clone()));
    h.draw();
    let took = started.elapsed();
    assert!(!highlight::is_ready(), "the highlighter is held back");
    let screen = h.screen();
    highlight::hold(false);
    assert!(screen.contains("(75 lines)"), "{screen}");
    assert_eq!(screen.matches(first.as_str()).count(), 1, "{screen}");
    assert!(
        took < std::time::Duration::from_millis(500),
        "the frame after the paste took {took:?}"
    );
    // Once it has loaded, the same document is there, once, now highlighted.
    highlight::warm_up();
    for _ in 0..600 {
        if highlight::is_ready() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(highlight::is_ready());
    let screen = h.screen();
    assert!(screen.contains("(75 lines)"), "{screen}");
    assert_eq!(screen.matches(first.as_str()).count(), 1, "{screen}");
}

/// A second stdio server running the demo, named `name`.
async fn add_demo_copy(b: &dyn Backend, project: &str, dir: &std::path::Path, name: &str) {
    use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
    let body = ServerCreate::new(
        name,
        ServerConfig::new(Transport::Stdio {
            command: dir.join("evaldeck").display().to_string(),
            args: vec!["demo-server".into()],
            env: Default::default(),
            cwd: None,
        }),
    );
    b.create_server(project, &body).await.expect("saved");
}

/// With the tools view on, moving to a server never listed lists it, instead of
/// saying it has no tools; a server that could not be listed says why.
#[tokio::test]
async fn a_server_never_listed_is_listed_when_selected() {
    let (mut h, b, dir) = app(120, 36).await;
    let project = demo_project(&b).await;
    add_demo_copy(b.as_ref(), &project, dir.path(), "second").await;
    h.press("r");
    h.drain().await;
    h.press("2");
    h.press("Enter");
    h.drain().await;
    assert!(h.shows("demo · rev 1 › Tools (13)"), "{}", h.screen());
    // Back to the list, down to the other server: its tools are read, not "no tools".
    h.keys(&["Esc", "j"]);
    assert!(!h.shows("no tools"), "{}", h.screen());
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("second · rev 1 › Tools (13)"), "{screen}");
    snapshot("workbench_tools_of_the_next_server", screen);
}

/// A server that dies during a call shows its exit status and its last
/// stderr lines in the error box, and the list says it is unreachable (not `● connected`);
/// a failed validate says `error` (not `○ not checked`).
#[tokio::test]
async fn a_dead_server_says_how_it_died_and_the_list_says_so() {
    let (mut h, b, dir) = app(120, 36).await;
    let project = demo_project(&b).await;
    // A server whose command exits at once: validate fails, the list says so.
    use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
    let body = ServerCreate::new(
        "broken",
        ServerConfig::new(Transport::Stdio {
            command: "sh".into(),
            args: vec![
                "-c".into(),
                "echo 'broken: missing API_TOKEN' >&2; sleep 0.3; exit 7".into(),
            ],
            env: Default::default(),
            cwd: None,
        }),
    );
    b.create_server(&project, &body).await.expect("saved");
    let _ = dir;
    h.press("2");
    h.press("r");
    h.drain().await;
    h.press("G");
    assert!(h.shows("broken"), "{}", h.screen());
    assert!(h.shows("not checked"), "{}", h.screen());
    h.press("v");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("exit"), "{screen}");
    assert!(
        screen.contains("broken: missing API_TOKEN"),
        "the server's stderr in the error box:\n{screen}"
    );
    snapshot("workbench_connection_error", screen);
    h.press("Esc");
    let screen = h.screen();
    let row = screen
        .lines()
        .find(|l| l.contains("✗ broken"))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(!row.contains("not checked"), "{screen}");

    // The demo: validated (connected), then the `crash` tool kills it mid-call.
    h.press("g");
    h.press("v");
    h.drain().await;
    assert!(h.shows("● demo"), "{}", h.screen());
    h.press("t");
    h.drain().await;
    crate::tui::select_tool(&mut h, "crash");
    h.press("Enter");
    assert!(h.shows("Call tool crash"), "{}", h.screen());
    h.press("C-s");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("SERVER_UNREACHABLE"), "{screen}");
    assert!(screen.contains("crashing on purpose"), "{screen}");
    assert!(screen.contains("exit"), "{screen}");
    h.press("Esc");
    let screen = h.screen();
    assert!(
        screen.contains("✗ demo") && screen.contains("unreachable"),
        "{screen}"
    );
    assert!(!screen.contains("● demo"), "{screen}");
}

/// The doctor shows the server's instructions line by line, and the protocol
/// revision the connection settled on (also in the server's detail).
#[tokio::test]
async fn the_doctor_keeps_the_instructions_line_breaks_and_names_the_revision() {
    let (mut h, _b, _dir) = app(120, 36).await;
    h.press("2");
    h.press("d");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Doctor  ready  MCP 20"), "{screen}");
    // Each line of the instructions on a line of its own.
    let lines: Vec<&str> = screen.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.contains("instructions") && l.contains("A demo server for evaldeck."))
        .unwrap_or_else(|| panic!("{screen}"));
    assert!(lines[at + 1].contains("Try `echo`"), "{screen}");
    assert!(
        lines[at + 2].contains("`slow` reports progress"),
        "{screen}"
    );
    snapshot("workbench_doctor", screen);
    h.press("c");
    assert!(h.shows("· MCP 20"), "{}", h.screen());
}

/// `~` in the `mcp.json` path is the home directory (the README's own example is
/// `~/.cursor/mcp.json`).
#[tokio::test]
async fn an_mcp_json_path_may_start_with_a_tilde() {
    let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) else {
        return;
    };
    let Ok(inside) = tempfile::Builder::new()
        .prefix(".evaldeck-test-")
        .tempdir_in(&home)
    else {
        // A read-only home: nothing to show here.
        return;
    };
    std::fs::write(
        inside.path().join("mcp.json"),
        r#"{"mcpServers": {"docs": {"url": "https://docs.example/mcp"}}}"#,
    )
    .unwrap();
    let name = inside.path().file_name().unwrap().to_string_lossy();
    let (mut h, _b, _dir) = app(120, 36).await;
    h.press("2");
    h.press("i");
    h.type_text(&format!("~/{name}/mcp.json"));
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("imported 1 server(s)"), "{screen}");
    assert!(screen.contains("Servers (2)"), "{screen}");
}

/// A new import starts empty and Ctrl-L empties a kept
/// one; the size shows against the limit while typing; the job's summary follows what the
/// review commits; duplicates are named by title; a document without cases says so.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_import_starts_clean_counts_characters_and_keeps_its_summary_true() {
    use crate::tui::{authoring_config, embedded_with, plan, seed_plan, select_suite};
    let dir = tempfile::tempdir().unwrap();
    let b = embedded_with(dir.path(), authoring_config());
    let project = demo_project(&b).await;
    seed_plan(&*b, &project).await;
    let mut h = Harness::new(b.clone(), 120, 36).await;
    select_suite(&mut h, "Smoke");
    h.press("i");
    let text = plan("qa-plan.md");
    let n = text.chars().count();
    h.app
        .handle_event(crossterm::event::Event::Paste(text.clone()));
    let screen = h.screen();
    assert!(screen.contains("(75 lines)"), "{screen}");
    let size = " / 102,400 characters";
    assert!(screen.contains(size), "{screen}");
    assert!(
        screen.contains(&format!("{},", n / 1000)),
        "{n} characters:\n{screen}"
    );
    snapshot("workbench_import_size", screen);
    // Esc keeps the plan; i brings it back; Ctrl-L empties it, so a paste does not append.
    h.press("Esc");
    h.press("i");
    assert!(h.shows("(75 lines)"), "{}", h.screen());
    h.press("C-l");
    assert!(h.shows("(1 lines)"), "{}", h.screen());
    h.app
        .handle_event(crossterm::event::Event::Paste(text.clone()));
    assert!(h.shows("(75 lines)"), "{}", h.screen());
    // Submit: every case duplicates one of the seeded import, so all nine are skipped.
    h.press("C-s");
    h.drain().await;
    assert!(h.shows("9 skipped"), "{}", h.screen());
    // The review names the case a draft duplicates by its title, not its id.
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("duplicate of “"), "{screen}");
    assert!(!screen.contains("duplicates case `case_"), "{screen}");
    snapshot("workbench_review_duplicates", screen);
    // Commit one draft; back on the job, the summary says 8 skipped and 1 created.
    h.press("c");
    h.drain().await;
    assert!(h.shows("Review skipped drafts (8)"), "{}", h.screen());
    h.press("Esc");
    let screen = h.screen();
    assert!(screen.contains("8 skipped"), "{screen}");
    assert!(screen.contains("1 created"), "{screen}");
    assert!(!screen.contains("9 skipped"), "{screen}");
    // n: a new import starts from an empty document.
    h.press("n");
    assert!(h.shows("(1 lines)"), "{}", h.screen());
    // (The test terminal keeps a cell that a wide character (🦀) once covered; a real
    // terminal does not. Start from a clean screen.)
    h.clear();
    // A document without a case says so instead of reporting zeros.
    h.type_text("Remember to water the plants on Friday.");
    h.press("C-s");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("no case was found in the"), "{screen}");
    assert!(!screen.contains("0 created"), "{screen}");
    snapshot("workbench_import_no_case", screen);
}

/// `X` asks before cancelling a run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_run_asks_first() {
    let (mut h, b, _dir) = app(120, 36).await;
    let project = demo_project(&b).await;
    let suite = create_suite(
        b.as_ref(),
        &project,
        json!({
        "name": "Slow", "serverIds": ["demo"], "model": "builtin/baseline",
        "tests": [{"title": "waits", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use slow with durationMs=20000 and steps=2"}
        ]}]
    }),
    )
    .await;
    let started: evaldeck::spec::run::RunCreate =
        serde_json::from_value(json!({"suiteId": suite})).unwrap();
    let run = b.create_run(&project, &started).await.unwrap().run_id;
    // The snapshot shows the run running: wait until it is (a loaded machine starts it later).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while b.run(&project, &run).await.unwrap().status != "running" {
        assert!(
            std::time::Instant::now() < deadline,
            "the run never started"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    h.press("6");
    h.press("r");
    h.drain().await;
    h.press("X");
    let screen = h.screen();
    assert!(screen.contains("Cancel run #1 of “Slow”?"), "{screen}");
    snapshot("workbench_cancel_run_confirm", screen);
    h.press("n");
    assert!(!h.shows("Cancel run #1"), "{}", h.screen());
    assert!(!b.run(&project, &run).await.unwrap().is_terminal());
    h.press("X");
    h.press("y");
    h.drain().await;
    assert!(h.shows("cancelled run"), "{}", h.screen());
    for _ in 0..100 {
        if b.run(&project, &run).await.unwrap().is_terminal() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert_eq!(b.run(&project, &run).await.unwrap().status, "cancelled");
}

/// Help and footer come from the same command list of the focused part; the
/// detail's own keys are in both, and `? help` is never cut off, at 120 and at 80 columns.
#[tokio::test]
async fn help_and_footer_follow_the_focused_part_and_never_lose_help() {
    for (w, rows) in [(120, 36), (80, 24)] {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        let smoke = b.suite(&project, "Smoke").await.unwrap();
        b.create_case(
            &project,
            &smoke.id,
            &json!({"title": "echo once", "steps": [
                {"id": "p1", "kind": "prompt", "prompt": "Use echo to say hi"}]}),
        )
        .await
        .unwrap();
        // Every footer, wherever the keyboard is, ends with help and quit.
        let footer = |h: &mut Harness| h.lines().pop().unwrap();
        h.press("2");
        assert!(footer(&mut h).contains("? help"), "{}", h.screen());
        h.press("Enter");
        h.drain().await;
        assert_eq!(h.app.focus(), evaldeck::tui::app::Focus::Detail);
        let f = footer(&mut h);
        assert!(f.contains("? help") && f.contains("q quit"), "{f}");
        assert!(f.contains("Enter call tool"), "{f}");
        // ? lists the detail's keys first, then the list's.
        h.press("?");
        let screen = h.screen();
        for want in [
            "Servers detail (has the keyboard)",
            "call tool",
            "Servers list",
        ] {
            assert!(screen.contains(want), "missing {want:?}:\n{screen}");
        }
        snapshot(&format!("workbench_help_server_detail_{w}x{rows}"), screen);
        h.press("Esc");
        // The suite's cases: D deletes a case, and the help says so.
        h.press("5");
        h.press("r");
        h.drain().await;
        h.press("Enter");
        h.drain().await;
        assert_eq!(h.app.focus(), evaldeck::tui::app::Focus::Detail);
        assert!(footer(&mut h).contains("? help"), "{}", h.screen());
        h.press("?");
        let screen = h.screen();
        assert!(screen.contains("delete case"), "{screen}");
        assert!(
            screen.contains("Suites detail (has the keyboard)"),
            "{screen}"
        );
        h.press("Esc");
        // A notice never pushes help out of the footer.
        h.press("z");
        let f = footer(&mut h);
        assert!(f.contains("? help"), "{f}");
    }
}

/// `evaldeck trace RUN N` takes the iteration's number as well as its id, and
/// prints the readable trace the workbench shows (`--json` for machines).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cli_trace_takes_an_iteration_number_and_reads_like_the_workbench() {
    let (h, b, dir) = app(80, 24).await;
    drop(h);
    let project = demo_project(&b).await;
    let suite = seed_missing_call(b.as_ref(), &project).await;
    let run = run_to_end(b.as_ref(), &project, &suite).await;
    let cli = |args: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_evaldeck"))
            .arg("--db")
            .arg(dir.path().join("db.sqlite3"))
            .args(args)
            .env_remove("EVALDECK_BASE_URL")
            .env_remove("EVALDECK_PROJECT")
            .stdin(std::process::Stdio::null())
            .output()
            .expect("run the CLI")
    };
    let out = cli(&["trace", &run.id, "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in [
        "iteration #1 adds with the wrong tool",
        "Timeline",
        "Assertions (",
        "Tool-call diff (2)",
        "missing",
        "get-sum",
    ] {
        assert!(stdout.contains(want), "missing {want:?}:\n{stdout}");
    }
    // --json: the trace object, for machines.
    let out = cli(&["trace", &run.id, "1", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert!(v["toolCallDiff"]["missing"].is_array(), "{v}");
    // A number the run does not have: not found, saying which numbers there are.
    let out = cli(&["trace", &run.id, "7"]);
    assert_eq!(out.status.code(), Some(5));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("numbered 1–1"), "{stderr}");
    b.close().await;
}

// --- forms ---------------------------------------------------------------------------------

/// The sizes every form is drawn at.
const SIZES: [(u16, u16); 2] = [(120, 36), (80, 24)];

/// The server form: a stdio server with arguments, environment and roots; its client
/// features reach the backend; the JSON view keeps the values; the edit form shows them.
#[tokio::test]
async fn the_server_form_saves_transport_and_client_features() {
    for (w, rows) in SIZES {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        h.press("2");
        h.press("n");
        assert!(h.shows("Add a server"), "{}", h.screen());
        h.type_text("files");
        h.keys(&["Tab", "Tab"]);
        h.type_text("npx");
        h.press("Tab");
        // Arguments, one per line.
        h.type_text("-y");
        h.press("Enter");
        h.type_text("@modelcontextprotocol/server-filesystem");
        h.keys(&["Tab", "Tab"]);
        h.type_text("LOG=debug");
        // connect, request, OAuth, enabled, then roots.
        for _ in 0..5 {
            h.press("Tab");
        }
        h.type_text("/srv/data=data");
        // The JSON view shows the same document, and back keeps every value.
        h.press("C-t");
        let json = h.screen();
        assert!(json.contains("(JSON)"), "{json}");
        assert!(json.contains("\"command\": \"npx\""), "{json}");
        h.press("C-t");
        let screen = h.screen();
        assert!(screen.contains("/srv/data=data"), "{screen}");
        snapshot(&format!("workbench_server_form_{w}x{rows}"), screen);
        h.press("C-s");
        h.drain().await;
        assert!(h.shows("added server files"), "{}", h.screen());
        let saved = b.server(&project, "files").await.expect("saved");
        let config = saved.config.expect("a config");
        match &config.transport {
            evaldeck::spec::server::Transport::Stdio {
                command, args, env, ..
            } => {
                assert_eq!(command, "npx");
                assert_eq!(args, &["-y", "@modelcontextprotocol/server-filesystem"]);
                assert_eq!(env.get("LOG").map(String::as_str), Some("debug"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(config.client.roots.len(), 1);
        assert_eq!(config.client.roots[0].uri, "file:///srv/data");
        assert_eq!(config.client.roots[0].name.as_deref(), Some("data"));
        // e: the edit form shows the roots; a log level is picked and saved.
        h.press("e");
        assert!(h.shows("Edit server “files”"), "{}", h.screen());
        assert!(h.shows("/srv/data=data"), "{}", h.screen());
        for _ in 0..13 {
            h.press("Tab");
        }
        h.press("Right");
        h.press("C-s");
        h.drain().await;
        assert!(h.shows("saved server files"), "{}", h.screen());
        let saved = b.server(&project, "files").await.unwrap();
        let client = saved.config.unwrap().client;
        assert_eq!(client.log_level.map(|l| l.as_str()), Some("debug"));
        assert_eq!(client.roots.len(), 1, "the roots are kept");
    }
}

/// The host form: a new host from a built-in profile (picked by typing its name), then
/// renamed.
#[tokio::test]
async fn the_host_form_adds_from_a_profile_and_renames() {
    for (w, rows) in SIZES {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        h.press("4");
        h.press("n");
        assert!(h.shows("New host"), "{}", h.screen());
        h.type_text("My cursor");
        h.press("Tab");
        h.press("Enter");
        h.type_text("cursor");
        let screen = h.screen();
        assert!(screen.contains("Cursor"), "the picker, filtered:\n{screen}");
        snapshot(&format!("workbench_host_form_picker_{w}x{rows}"), screen);
        h.press("Enter");
        snapshot(&format!("workbench_host_form_{w}x{rows}"), h.screen());
        h.press("C-s");
        h.drain().await;
        assert!(h.shows("saved host My cursor"), "{}", h.screen());
        let hosts = b.hosts(&project, &Default::default()).await.unwrap().items;
        assert!(hosts.iter().any(|x| x.name == "My cursor"), "{hosts:?}");
        // e reads the host in full and opens the form; the new name is saved.
        h.press("G");
        h.press("e");
        h.drain().await;
        assert!(h.shows("Edit host"), "{}", h.screen());
        h.type_text(" 2");
        h.press("C-s");
        h.drain().await;
        let hosts = b.hosts(&project, &Default::default()).await.unwrap().items;
        assert!(
            hosts.iter().any(|x| x.name.ends_with(" 2")),
            "{hosts:?}\n{}",
            h.screen()
        );
    }
}

/// The environment form: the host and the model are picked; what is typed reaches the
/// backend.
#[tokio::test]
async fn the_environment_form_picks_a_host_and_a_model() {
    for (w, rows) in SIZES {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        h.press("3");
        h.press("n");
        h.type_text("staging");
        h.press("Tab");
        h.type_text("for the release");
        h.keys(&["Tab", "Tab", "Tab"]);
        h.press("Right");
        h.press("Tab");
        h.type_text("/srv/app=App");
        let screen = h.screen();
        assert!(screen.contains("‹ builtin/baseline ›"), "{screen}");
        snapshot(&format!("workbench_environment_form_{w}x{rows}"), screen);
        h.press("C-s");
        h.drain().await;
        assert!(h.shows("saved environment staging"), "{}", h.screen());
        let envs = b.environments(&project, &Default::default()).await.unwrap();
        let env = envs.items.iter().find(|e| e.name == "staging").unwrap();
        assert_eq!(env.description.as_deref(), Some("for the release"));
        assert_eq!(env.model_id.as_deref(), Some("builtin/baseline"));
        let roots = env.roots.as_deref().expect("roots typed in the form");
        assert_eq!(roots[0].uri, "file:///srv/app");
        assert_eq!(roots[0].name.as_deref(), Some("App"));
        // Left empty, the roots stay each server's own (no value, not an empty list).
        h.press("n");
        h.type_text("plain");
        h.press("C-s");
        h.drain().await;
        let envs = b.environments(&project, &Default::default()).await.unwrap();
        let plain = envs.items.iter().find(|e| e.name == "plain").unwrap();
        assert_eq!(plain.roots, None);
    }
}

/// The new-suite form: a suite pointed at a server by picking it, with a first case, and
/// one without (the API's placeholder case is removed).
#[tokio::test]
async fn a_new_suite_is_made_with_a_form() {
    for (w, rows) in SIZES {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        h.press("5");
        h.press("n");
        assert!(h.shows("New suite"), "{}", h.screen());
        h.type_text("Checkout");
        for _ in 0..5 {
            h.press("Tab");
        }
        h.type_text("Use echo to say hi");
        let screen = h.screen();
        assert!(screen.contains("[demo]"), "the server picked:\n{screen}");
        snapshot(&format!("workbench_new_suite_form_{w}x{rows}"), screen);
        h.press("C-s");
        h.drain().await;
        assert!(h.shows("created suite Checkout"), "{}", h.screen());
        let suite = b.suite(&project, "Checkout").await.expect("created");
        let cases = b.cases(&project, &suite.id).await.unwrap().items;
        assert_eq!(cases.len(), 1);
        assert_eq!(
            cases[0].steps[0].prompt.as_deref(),
            Some("Use echo to say hi")
        );
        let demo = b.server(&project, "demo").await.unwrap();
        assert_eq!(suite.server_ids, vec![demo.id.clone()]);
        // Without a first case: an empty suite.
        h.press("n");
        h.type_text("Empty");
        h.press("C-s");
        h.drain().await;
        let suite = b.suite(&project, "Empty").await.expect("created");
        assert!(b.cases(&project, &suite.id).await.unwrap().items.is_empty());
    }
}

/// The settings and schedule forms at both sizes; what is typed reaches the backend.
#[tokio::test]
async fn the_settings_and_schedule_forms() {
    for (w, rows) in SIZES {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        h.press("5");
        h.press("c");
        h.drain().await;
        assert!(h.shows("Suite “Smoke”"), "{}", h.screen());
        // repetitions is the sixth field.
        for _ in 0..5 {
            h.press("Tab");
        }
        h.press("Backspace");
        h.type_text("3");
        snapshot(&format!("workbench_settings_form_{w}x{rows}"), h.screen());
        h.press("C-s");
        h.drain().await;
        let smoke = b.suite(&project, "Smoke").await.unwrap();
        assert_eq!(smoke.settings.repetitions, 3, "{}", h.screen());
        h.press("S");
        h.drain().await;
        h.press("Space");
        h.press("Tab");
        h.keys(&["Backspace", "Backspace"]);
        h.type_text("30");
        snapshot(&format!("workbench_schedule_form_{w}x{rows}"), h.screen());
        h.press("C-s");
        h.drain().await;
        let s = b.schedule(&project, &smoke.id).await.unwrap();
        assert!(s.enabled);
        assert_eq!(s.interval_minutes, Some(30));
    }
}

/// The case form (shared with the authoring review): the expected tool is
/// picked from the live tools, its arguments are fields from the tool's input schema, and
/// what is typed reaches the backend; the same form edits a skipped draft in the review.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_case_form_picks_the_tool_and_fills_its_arguments() {
    use crate::tui::{authoring_config, embedded_with, plan, seed_plan, select_suite};
    for (w, rows) in SIZES {
        let dir = tempfile::tempdir().unwrap();
        let b = embedded_with(dir.path(), authoring_config());
        let project = demo_project(&b).await;
        seed_plan(&*b, &project).await;
        let mut h = Harness::new(b.clone(), w, rows).await;
        select_suite(&mut h, "Smoke");
        h.press("Enter");
        h.drain().await;
        h.press("e");
        h.drain().await;
        assert!(h.shows("Case “"), "{}", h.screen());
        // title, prompt(s), negative, then the expected tool: pick get-sum by typing.
        h.keys(&["Tab", "Tab", "Tab"]);
        h.press("Enter");
        h.type_text("get-sum");
        h.press("Enter");
        assert!(h.shows("‹ get-sum"), "{}", h.screen());
        // Its arguments, from its input schema: a and b.
        h.press("Tab");
        h.press("C-u");
        h.type_text("17");
        h.press("Tab");
        h.press("C-u");
        h.type_text("25");
        let screen = h.screen();
        assert!(screen.contains("a"), "{screen}");
        snapshot(&format!("workbench_case_form_{w}x{rows}"), screen);
        h.press("C-s");
        h.drain().await;
        assert!(h.shows("saved case"), "{}", h.screen());
        let smoke = b.suite(&project, "Smoke").await.unwrap();
        let cases = b.cases(&project, &smoke.id).await.unwrap().items;
        let found = cases.iter().any(|c| {
            c.steps.iter().any(|s| {
                s.assertion.as_ref().is_some_and(|a| {
                    a.get("toolName") == Some(&json!("get-sum"))
                        && a.get("args").and_then(|x| x.get("args"))
                            == Some(&json!({"a": 17, "b": 25}))
                })
            })
        });
        assert!(found, "{cases:#?}");

        // The review of skipped drafts opens the same form on a draft.
        h.press("i");
        h.app
            .handle_event(crossterm::event::Event::Paste(plan("qa-plan.md")));
        h.press("C-s");
        h.drain().await;
        h.press("Enter");
        h.drain().await;
        h.press("e");
        h.drain().await;
        assert!(h.shows("Draft “"), "{}", h.screen());
        assert!(h.shows("expected tool"), "{}", h.screen());
        snapshot(&format!("workbench_draft_form_{w}x{rows}"), h.screen());
        // The answer text, then commit with the edit.
        let at = h
            .lines()
            .iter()
            .position(|l| l.contains("answer contains"))
            .is_some();
        assert!(at, "{}", h.screen());
        h.press("BackTab");
        h.press("BackTab");
        h.press("C-u");
        h.type_text("five");
        h.press("C-s");
        h.drain().await;
        assert!(h.shows("Review skipped drafts (8)"), "{}", h.screen());
        let cases = b.cases(&project, &smoke.id).await.unwrap().items;
        let found = cases.iter().any(|c| {
            c.steps.iter().any(|s| {
                s.assertion
                    .as_ref()
                    .is_some_and(|a| a.get("needle") == Some(&json!("five")))
            })
        });
        assert!(found, "{cases:#?}");
    }
}

// --- tool calls: progress, cancel, questions -------------------------------------------------

/// With the tools of `server` on screen, selects `name` (by its place in the server's list,
/// so it works when the list is taller than the screen).
async fn pick_tool(h: &mut Harness, b: &dyn Backend, project: &str, server: &str, name: &str) {
    let tools = b
        .tools(project, server, &Default::default())
        .await
        .expect("tools")
        .items;
    let at = tools
        .iter()
        .position(|t| t.name == name)
        .unwrap_or_else(|| panic!("no tool {name}"));
    if h.app.focus() != evaldeck::tui::app::Focus::Detail {
        h.press("Tab");
    }
    h.press("g");
    for _ in 0..at {
        h.press("j");
    }
}

/// A call shows its progress (the demo's `slow` reports it) in place of the last
/// result, and Esc cancels it, without asking.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_shows_its_progress_and_esc_cancels_it() {
    let (mut h, _b, _dir) = app(120, 36).await;
    h.keys(&["2", "t"]);
    h.drain().await;
    // A first result, which must not stay under the next call.
    crate::tui::select_tool(&mut h, "echo");
    h.press("Enter");
    h.type_text("first result");
    h.press("Enter");
    h.drain().await;
    assert!(h.shows("first result"), "{}", h.screen());
    h.press("t");
    h.drain().await;
    crate::tui::select_tool(&mut h, "slow");
    h.press("Enter");
    h.press("C-u");
    h.type_text("6000");
    h.press("Tab");
    h.press("C-u");
    h.type_text("6");
    h.press("C-s");
    // Progress arrives while the call runs (about one report a second).
    let mut screen = String::new();
    for _ in 0..60 {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        h.app.process_ready();
        screen = h.screen();
        if screen.contains(" / 6") {
            break;
        }
    }
    assert!(screen.contains("calling slow"), "{screen}");
    assert!(screen.contains(" / 6"), "progress:\n{screen}");
    assert!(!screen.contains("first result"), "{screen}");
    assert!(screen.contains("cancels the call"), "{screen}");
    let filtered = regex::Regex::new(r"\d+\.\d s")
        .unwrap()
        .replace_all(&screen, "[t] s")
        .into_owned();
    let filtered = regex::Regex::new(r"[█░]+ \d / 6")
        .unwrap()
        .replace_all(&filtered, "[bar] [n] / 6")
        .into_owned();
    let filtered = regex::Regex::new(r"step \d of 6")
        .unwrap()
        .replace_all(&filtered, "step [n] of 6")
        .into_owned();
    snapshot("workbench_call_progress", filtered);
    // Esc cancels it: the call ends as cancelled, said in its place.
    h.press("Esc");
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("(cancelled)"), "{screen}");
    assert!(!screen.contains("calling slow"), "{screen}");
    assert!(
        !screen.contains("Error"),
        "no modal for a cancelled call:\n{screen}"
    );
}

/// A server that asks the person something during a call (elicitation, the demo's
/// `ask-user`): a form from the requested schema, with its rules; accept sends the values.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_question_is_a_form_and_its_answer_reaches_the_server() {
    for (w, rows) in SIZES {
        let (mut h, b, dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
        let body = ServerCreate::new(
            "asker",
            ServerConfig::new(Transport::Stdio {
                command: dir.path().join("evaldeck").display().to_string(),
                args: vec!["demo-server".into(), "--client-features".into()],
                env: Default::default(),
                cwd: None,
            }),
        );
        b.create_server(&project, &body).await.expect("saved");
        h.press("2");
        h.press("r");
        h.drain().await;
        h.press("G");
        h.press("t");
        h.drain().await;
        pick_tool(&mut h, b.as_ref(), &project, "asker", "ask-user").await;
        h.press("Enter");
        h.press("C-s");
        // drain returns when the server's question is on screen.
        h.drain().await;
        let screen = h.screen();
        assert!(screen.contains("asker asks"), "{screen}");
        assert!(screen.contains("Who are you?"), "{screen}");
        assert!(screen.contains("Name*"), "{screen}");
        assert!(screen.contains("Subscribe"), "{screen}");
        // The name is required: accepting without it keeps the form open.
        h.press("C-s");
        assert!(h.shows("✗ required"), "{}", h.screen());
        h.type_text("Ada");
        snapshot(&format!("workbench_elicitation_{w}x{rows}"), h.screen());
        h.press("C-s");
        h.drain().await;
        let screen = h.screen();
        assert!(!screen.contains("asker asks"), "{screen}");
        assert!(screen.contains("Ada"), "the server's answer:\n{screen}");
        // Decline: the server is told, and says so.
        h.press("t");
        h.drain().await;
        pick_tool(&mut h, b.as_ref(), &project, "asker", "ask-user").await;
        h.press("Enter");
        h.press("C-s");
        h.drain().await;
        h.press("C-d");
        h.drain().await;
        assert!(h.shows("decline"), "{}", h.screen());
    }
}

/// URL mode: the page to open, and consent.
#[tokio::test]
async fn a_url_question_shows_the_page_and_asks_for_consent() {
    use evaldeck::spec::client_features::ElicitationAction;
    let (mut h, _b, _dir) = app(120, 36).await;
    let asker = h.app.asker();
    let request: evaldeck::spec::primitives::ElicitationRequest = serde_json::from_value(json!({
        "message": "Sign in to continue.", "mode": "url",
        "url": "https://auth.example/device?code=ABCD"
    }))
    .unwrap();
    let answer = tokio::spawn(async move { asker.elicit("srv_x", request).await });
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    h.app.process_ready();
    let screen = h.screen();
    assert!(screen.contains("asks you to open a page"), "{screen}");
    assert!(
        screen.contains("https://auth.example/device?code=ABCD"),
        "{screen}"
    );
    snapshot("workbench_elicitation_url", screen);
    h.press("y");
    let a = answer.await.unwrap();
    assert_eq!(a.action, ElicitationAction::Accept);
    assert!(a.content.is_none());
}

/// A saved server running the demo with the tools that ask things of the client, sampling
/// answered by a script.
async fn add_asker(b: &dyn Backend, project: &str, dir: &std::path::Path) {
    use evaldeck::spec::client_features::SamplingPolicy;
    use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
    let mut config = ServerConfig::new(Transport::Stdio {
        command: dir.join("evaldeck").display().to_string(),
        args: vec!["demo-server".into(), "--client-features".into()],
        env: Default::default(),
        cwd: None,
    });
    config.client.sampling = Some(SamplingPolicy::Scripted {
        text: "Paris".into(),
    });
    b.create_server(project, &ServerCreate::new("asker", config))
        .await
        .expect("saved");
}

/// Clock times in the protocol view, and its count of events (the server's stderr line
/// comes when it comes), made stable for snapshots.
fn steady(screen: String) -> String {
    let s = regex::Regex::new(r"\d{2}:\d{2}:\d{2}\.\d{3}")
        .unwrap()
        .replace_all(&screen, "[clock]     ")
        .into_owned();
    let s = regex::Regex::new(r"Protocol \(\d+\)")
        .unwrap()
        .replace_all(&s, "Protocol [n]")
        .into_owned();
    regex::Regex::new(r"(/ tools/list +\d+)/\d+")
        .unwrap()
        .replace_all(&s, "$1/[n]")
        .into_owned()
}

/// The protocol view: the server's traffic both ways as a list (newest last), the selected
/// message in full below, the revision the connection speaks in its title; `/` filters it,
/// `y` copies the message, and what happens meanwhile comes in as it happens.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_protocol_view_shows_the_traffic_live_filtered_and_copyable() {
    for (w, rows) in SIZES {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        h.keys(&["2", "t"]);
        h.drain().await;
        h.press("P");
        h.drain().await;
        let screen = h.screen();
        assert!(screen.contains("demo › Protocol ("), "{screen}");
        assert!(screen.contains("MCP 2026-07-28"), "{screen}");
        assert!(screen.contains("→ tools/list #"), "{screen}");
        assert!(screen.contains("← response #"), "{screen}");
        // With the detail focused, `/` filters the events.
        h.press("Tab");
        h.press("/");
        h.type_text("tools/list");
        h.press("Enter");
        let screen = h.screen();
        assert!(screen.contains("/ tools/list"), "{screen}");
        assert!(!screen.contains("server/discover"), "{screen}");
        snapshot(&format!("workbench_protocol_{w}x{rows}"), steady(screen));
        // `y` copies the selected message, as pretty JSON.
        h.press("y");
        let copied: serde_json::Value =
            serde_json::from_str(h.app.copied().expect("copied")).expect("JSON");
        assert_eq!(copied["method"], "tools/list", "{copied}");
        assert!(h.shows("copied"), "{}", h.screen());
        h.press("Esc");
        // A call made meanwhile (here from outside the workbench) shows up by itself.
        b.call_tool(
            &project,
            "demo",
            &evaldeck::spec::primitives::ToolCallRequest::new(
                "echo".to_string(),
                Some(
                    json!({"message": "from elsewhere"})
                        .as_object()
                        .unwrap()
                        .clone(),
                ),
            ),
        )
        .await
        .expect("called");
        tokio::time::sleep(std::time::Duration::from_millis(600)).await;
        h.app.on_tick();
        h.drain().await;
        assert!(h.shows("→ tools/call #"), "{}", h.screen());
        h.keys(&["G", "k", "y"]);
        assert!(
            h.app
                .copied()
                .unwrap_or_default()
                .contains("from elsewhere"),
            "{}",
            h.screen()
        );
    }
}

/// A resource template is listed after the resources; Enter opens a form with a field per
/// variable of the template, the URI it makes shown as it is typed; Ctrl-S reads it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resource_template_is_filled_in_and_read() {
    for (w, rows) in SIZES {
        let (mut h, _b, _dir) = app(w, rows).await;
        h.keys(&["2", "R"]);
        h.drain().await;
        h.press("Tab");
        h.press("G");
        assert!(h.shows("demo://items/{id}  template"), "{}", h.screen());
        assert!(h.shows("variables     id"), "{}", h.screen());
        h.press("Enter");
        assert!(h.shows("Read resource item"), "{}", h.screen());
        // Required: nothing is read without it.
        h.press("C-s");
        assert!(h.shows("✗ required"), "{}", h.screen());
        h.type_text("item-3");
        let screen = h.screen();
        assert!(
            screen.contains("demo://items/{id}  →  demo://items/item-3"),
            "{screen}"
        );
        snapshot(&format!("workbench_template_form_{w}x{rows}"), screen);
        h.press("C-s");
        h.drain().await;
        let screen = h.screen();
        assert!(screen.contains("resource demo://items/item-3"), "{screen}");
        assert!(screen.contains("Item 3"), "{screen}");
    }
}

/// A server that asks for sampling during a call: the result says how evaldeck answered.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sampling_request_during_a_call_is_noted_with_its_result() {
    let (mut h, b, dir) = app(120, 36).await;
    let project = demo_project(&b).await;
    add_asker(b.as_ref(), &project, dir.path()).await;
    h.press("2");
    h.press("r");
    h.drain().await;
    h.press("G");
    h.press("t");
    h.drain().await;
    pick_tool(&mut h, b.as_ref(), &project, "asker", "ask-llm").await;
    h.press("Enter");
    h.type_text("Capital of France?");
    h.press("C-s");
    h.drain().await;
    // The notes come with the server's events, read once the call has ended.
    h.drain().await;
    let screen = h.screen();
    assert!(screen.contains("Paris"), "{screen}");
    assert!(screen.contains("during the call"), "{screen}");
    assert!(
        screen.contains("the server asked for sampling; answered with the"),
        "{screen}"
    );
}

/// An image resource is drawn as a picture (half-blocks here, where no terminal says it
/// can do better), its colours the image's own, under the result's text.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_image_is_drawn_as_a_picture() {
    for (w, rows) in SIZES {
        let (mut h, _b, _dir) = app(w, rows).await;
        h.keys(&["2", "R"]);
        h.drain().await;
        h.keys(&["Tab", "g", "j", "j"]);
        assert!(h.shows("demo://logo.png"), "{}", h.screen());
        h.press("Enter");
        h.drain().await;
        let screen = h.screen();
        assert!(screen.contains("image/png 16×8 · half-blocks"), "{screen}");
        assert!(screen.contains('▀'), "{screen}");
        snapshot(&format!("workbench_picture_{w}x{rows}"), screen);
        // The picture's colours: its red, green, blue and yellow quarters are all there.
        // (Scaling blends the edges; each quarter's colour is there, or all but.)
        let buf = h.buffer();
        let colours: Vec<(i32, i32, i32)> = buf
            .content()
            .iter()
            .flat_map(|c| [c.fg, c.bg])
            .filter_map(|c| match c {
                ratatui::style::Color::Rgb(r, g, b) => Some((r.into(), g.into(), b.into())),
                _ => None,
            })
            .collect();
        for (r, g, b) in [(220, 40, 40), (40, 180, 60), (40, 80, 220), (240, 200, 30)] {
            let near = colours
                .iter()
                .any(|(x, y, z)| (x - r).abs() + (y - g).abs() + (z - b).abs() <= 30);
            assert!(near, "({r}, {g}, {b}) missing from {colours:?}");
        }
    }
}

/// Structured content is a table (a list of objects with a column per key) beside the
/// tool's output schema, and says whether it matches it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_content_is_a_table_beside_its_output_schema() {
    for (w, rows) in SIZES {
        let (mut h, b, _dir) = app(w, rows).await;
        let project = demo_project(&b).await;
        h.keys(&["2", "t"]);
        h.drain().await;
        crate::tui::select_tool(&mut h, "get-stats");
        h.press("Enter");
        h.type_text("[2, 4, 9]");
        h.press("C-s");
        h.drain().await;
        let screen = h.screen();
        assert!(screen.contains("✓ matches the output schema"), "{screen}");
        assert!(screen.contains("field"), "{screen}");
        assert!(screen.contains("mean"), "{screen}");
        assert!(screen.contains("outputSchema"), "{screen}");
        snapshot(&format!("workbench_structured_{w}x{rows}"), screen);
        // A list of objects: a column per key.
        h.press("t");
        h.drain().await;
        pick_tool(&mut h, b.as_ref(), &project, "demo", "list-items").await;
        h.press("Enter");
        h.press("C-s");
        h.drain().await;
        let screen = h.screen();
        assert!(
            screen.contains("the structured content below, as JSON"),
            "{screen}"
        );
        assert!(screen.contains("items"), "{screen}");
        h.press("G");
        let screen = h.screen();
        assert!(
            screen
                .lines()
                .any(|l| l.contains("id") && l.contains("name") && !l.contains("field")),
            "{screen}"
        );
        assert!(
            screen.contains("item-1") && screen.contains("Item 5"),
            "{screen}"
        );
    }
}

/// A suite run more than once shows its pass rate run over run as a chart.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_suite_trend_is_a_chart() {
    let (mut h, b, _dir) = app(120, 36).await;
    let project = demo_project(&b).await;
    let suite = seed_missing_call(b.as_ref(), &project).await;
    run_to_end(b.as_ref(), &project, &suite).await;
    run_to_end(b.as_ref(), &project, &suite).await;
    h.press("5");
    h.press("r");
    h.drain().await;
    crate::tui::select_suite(&mut h, "Diff");
    let screen = h.screen();
    assert!(screen.contains("pass rate, last 2 runs"), "{screen}");
    assert!(screen.contains("100%"), "{screen}");
    snapshot("workbench_suite_trend_chart", screen);
}

/// A case's detail shows how it did in the suite's last runs: a mark per run and, once it
/// ran twice, its pass rate as a chart (read from the runs' iterations).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_case_shows_its_history_across_runs() {
    let (mut h, b, _dir) = app(120, 36).await;
    let project = demo_project(&b).await;
    let suite = create_suite(
        b.as_ref(),
        &project,
        json!({
        "name": "History", "serverIds": ["demo"], "model": "builtin/baseline",
        "tests": [{"title": "echoes", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use echo to say hello"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledAtLeastOnce", "toolName": "echo"}}
        ]}]
    }),
    )
    .await;
    let passed = run_to_end(b.as_ref(), &project, &suite).await;
    assert_eq!(passed.result.as_deref(), Some("passed"), "{passed:?}");
    // The same case, now asking for a tool the baseline does not call: it fails.
    let case = b.cases(&project, &suite).await.unwrap().items.remove(0);
    let update: evaldeck::spec::case::EvalCaseUpdate = serde_json::from_value(json!({
        "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Use echo to say hello"},
            {"id": "a1", "kind": "assert", "assertion": {"type": "toolCalledAtLeastOnce", "toolName": "get-sum"}}
        ]
    }))
    .unwrap();
    b.update_case(&project, &suite, &case.id, &update)
        .await
        .unwrap();
    let failed = run_to_end(b.as_ref(), &project, &suite).await;
    assert_eq!(failed.result.as_deref(), Some("failed"), "{failed:?}");

    h.press("5");
    h.press("r");
    h.drain().await;
    crate::tui::select_suite(&mut h, "History");
    h.press("Enter");
    h.drain().await;
    let screen = h.screen();
    assert!(
        screen.contains("✓✗  (last 2 run(s), oldest first)"),
        "{screen}"
    );
    assert!(
        screen.contains("this case's pass rate, last 2 runs · now 0 %"),
        "{screen}"
    );
    snapshot("workbench_case_history", screen);
}
