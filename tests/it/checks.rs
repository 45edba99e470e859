//! `evaldeck check`, `diff`, `pin`, `scan` and `report` as a user runs them: the CLI as a
//! process against the demo server (stdio, and streamable HTTP on loopback), with
//! `demo-server --fault NAME` breaking one rule at a time so every failure is seen to be
//! caught, not only the passes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_evaldeck");

fn cli_env(db: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(BIN);
    c.arg("--db")
        .arg(db)
        .args(args)
        .env_remove("EVALDECK_BASE_URL")
        .env_remove("EVALDECK_PROJECT")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null());
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run the CLI")
}

fn cli(db: &Path, args: &[&str]) -> Output {
    cli_env(db, args, &[])
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

struct Env {
    _dir: tempfile::TempDir,
    root: PathBuf,
    db: PathBuf,
}

fn env() -> Env {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    Env {
        db: root.join("db.sqlite3"),
        root,
        _dir: dir,
    }
}

impl Env {
    fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }
    fn p(&self, name: &str) -> String {
        self.path(name).display().to_string()
    }
    /// `evaldeck --json check [args] -- evaldeck demo-server [demo]`: the report and the
    /// exit code.
    fn check(&self, args: &[&str], demo: &[&str]) -> (Value, i32) {
        let mut all = vec!["--json", "check"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--", BIN, "demo-server"]);
        all.extend_from_slice(demo);
        let out = cli(&self.db, &all);
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("a JSON report ({e}): {}", stderr(&out)));
        (report, out.status.code().unwrap_or(-1))
    }
}

/// Check id → outcome.
fn outcomes(report: &Value) -> BTreeMap<String, String> {
    report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["id"].as_str().unwrap().to_string(),
                r["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn with_outcome(report: &Value, outcome: &str) -> BTreeSet<String> {
    outcomes(report)
        .into_iter()
        .filter(|(_, o)| o == outcome)
        .map(|(id, _)| id)
        .collect()
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

/// The committed list of check ids: an id (or the revisions it applies to) never changes
/// without this snapshot changing with it.
#[test]
fn the_check_ids_are_committed() {
    let e = env();
    let out = cli(&e.db, &["--json", "check", "--list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let text: String = list
        .iter()
        .map(|c| {
            format!(
                "{} [{}]\n",
                c["id"].as_str().unwrap(),
                c["revisions"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|r| r.as_str().unwrap())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
        .collect();
    let mut settings = insta::Settings::clone_current();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("check_ids", text));
}

/// The demo server passes every check that applies; each fault fails exactly the checks of
/// the rule it breaks, with evidence.
#[test]
fn the_demo_server_passes_and_each_fault_fails_its_checks() {
    let e = env();
    let (clean, code) = e.check(&[], &[]);
    assert_eq!(code, 0, "{clean:#}");
    assert!(with_outcome(&clean, "failed").is_empty(), "{clean:#}");
    assert!(
        with_outcome(&clean, "could_not_run").is_empty(),
        "{clean:#}"
    );
    assert_eq!(clean["revision"], "2026-07-28");
    assert_eq!(
        clean["summary"]["total"],
        clean["results"].as_array().unwrap().len()
    );
    // Under 2026-07-28 the mechanisms it removed do not apply.
    let o = outcomes(&clean);
    for id in [
        "ping.answers",
        "transport.http-session",
        "transport.http-sse-resumption",
    ] {
        assert_eq!(o[id], "not_applicable", "{id}");
    }
    assert!(
        clean["findings"].as_array().unwrap().is_empty(),
        "{clean:#}"
    );
    // The handshake era over stdio: `initialize`, `ping`, a made-up revision answered
    // with a supported one.
    let (old, code) = e.check(&[], &["--protocol", "2025-11-25"]);
    assert_eq!(code, 0, "{old:#}");
    assert_eq!(old["revision"], "2025-11-25");
    let o = outcomes(&old);
    for id in [
        "ping.answers",
        "lifecycle.version-negotiation",
        "transport.stdio-stdout",
    ] {
        assert_eq!(o[id], "passed", "{id}: {old:#}");
    }
    // A server that speaks only an old revision.
    let (r, code) = e.check(&["--only", "lifecycle"], &["--protocol", "2024-11-05"]);
    assert_eq!(code, 1);
    assert_eq!(
        with_outcome(&r, "failed"),
        set(&["lifecycle.current-revision"]),
        "{r:#}"
    );

    let faults: &[(&str, &[&str])] = &[
        ("stdout-noise", &["transport.stdio-stdout"]),
        (
            "tool-names",
            &[
                "tools.name-length",
                "tools.name-charset",
                "tools.name-unique",
                "pagination.tools",
            ],
        ),
        (
            "bad-schemas",
            &[
                "schema.input-valid",
                "schema.output-valid",
                "schema.dialect",
            ],
        ),
        ("bad-structured", &["tools.structured-content"]),
        ("bad-annotations", &["tools.annotations"]),
        (
            "cursor-loop",
            &[
                "pagination.tools",
                "pagination.prompts",
                "pagination.resources",
                "pagination.resource-templates",
                "pagination.invalid-cursor",
                "tools.name-unique",
                "resources.uri",
            ],
        ),
        (
            "error-codes",
            &[
                "errors.unknown-method",
                "errors.invalid-params",
                "errors.unknown-tool",
                "pagination.invalid-cursor",
                "resources.not-found",
                "prompts.missing-argument",
            ],
        ),
        (
            "bad-uris",
            &["resources.uri", "resources.templates", "resources.read"],
        ),
        ("bad-prompts", &["prompts.arguments", "prompts.get"]),
        ("undeclared-log", &["capabilities.undeclared-unused"]),
        ("bad-progress", &["progress.notifications"]),
        ("bad-server-info", &["lifecycle.server-info"]),
        (
            "list-fails",
            &["capabilities.declared-answer", "pagination.prompts"],
        ),
    ];
    for (fault, want) in faults {
        let (r, code) = e.check(&[], &["--fault", fault]);
        assert_eq!(
            with_outcome(&r, "failed"),
            set(want),
            "--fault {fault}: {:#}",
            r["results"]
        );
        assert_eq!(code, 1, "--fault {fault}");
        for res in r["results"].as_array().unwrap() {
            if res["outcome"] == "failed" {
                assert!(
                    !res["evidence"].as_array().unwrap().is_empty(),
                    "{fault}: {res:#}"
                );
            }
        }
    }
}

/// A server that dies on a cancellation, and one that never completes the handshake.
#[test]
fn cancellation_and_the_handshake_are_seen_failing() {
    let e = env();
    for id in ["cancellation.in-flight", "cancellation.unknown-request"] {
        let (r, code) = e.check(&["--only", id], &["--fault", "cancel-exits"]);
        assert_eq!(code, 1, "{r:#}");
        assert_eq!(with_outcome(&r, "failed"), set(&[id]), "{r:#}");
        let (r, code) = e.check(&["--only", id], &[]);
        assert_eq!(code, 0, "{r:#}");
    }
    let out = cli(
        &e.db,
        &["--json", "check", "--", "sh", "-c", "echo not-json; exit 0"],
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "a failure outranks could-not-run"
    );
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(outcomes(&r)["lifecycle.connect"], "failed", "{r:#}");
    assert_eq!(r["summary"]["couldNotRun"], 41);
}

/// `tests/fixtures/echo-revision-server.sh`, a few lines of shell that speak just enough
/// MCP to be wrong: it echoes any revision offered and answers with a malformed result.
#[test]
fn a_hand_written_server_that_echoes_revisions_is_caught() {
    let e = env();
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/echo-revision-server.sh"
    );
    let out = cli(&e.db, &["--json", "check", "--", "sh", script]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["revision"], "2025-11-25");
    assert_eq!(
        with_outcome(&r, "failed"),
        set(&[
            "lifecycle.version-negotiation",
            "pagination.invalid-cursor",
            "ping.answers",
            "tools.result-shape",
        ]),
        "{r:#}"
    );
}

#[test]
fn a_request_past_the_timeout_fails_the_timeout_check() {
    let e = env();
    let (r, code) = e.check(
        &["--timeout-ms", "700", "--only", "timeouts,tools"],
        &["--fault", "slow-echo"],
    );
    assert_eq!(code, 1);
    let o = outcomes(&r);
    assert_eq!(o["timeouts.answered-in-time"], "failed", "{r:#}");
    let ev = r["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["id"] == "timeouts.answered-in-time")
        .unwrap()["evidence"]
        .to_string();
    assert!(ev.contains("tools/call"), "{ev}");
    let (r, code) = e.check(&["--timeout-ms", "700", "--only", "timeouts"], &[]);
    assert_eq!(code, 0, "{r:#}");
}

fn http_check(e: &Env, faults: &[&str]) -> (Value, i32) {
    let mut args = vec![
        "demo-server",
        "--http",
        "127.0.0.1:0",
        "--protocol",
        "2025-11-25",
    ];
    for f in faults {
        args.extend_from_slice(&["--fault", f]);
    }
    let mut server = Command::new(BIN)
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let url = {
        use std::io::BufRead;
        let mut line = String::new();
        std::io::BufReader::new(server.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        line.trim()
            .strip_prefix("listening on ")
            .unwrap()
            .to_string()
    };
    let out = cli(&e.db, &["--json", "check", "--url", &url]);
    let _ = server.kill();
    let _ = server.wait();
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    (r, out.status.code().unwrap_or(-1))
}

/// Every check of a handshake-era server over streamable HTTP on loopback: the session,
/// `Accept`, status codes, SSE resumption and the protocol header; then the same server
/// breaking each of those rules.
#[test]
fn over_streamable_http_the_transport_rules_are_checked() {
    let e = env();
    let (r, code) = http_check(&e, &[]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["transport"], "http");
    assert_eq!(r["revision"], "2025-11-25");
    let o = outcomes(&r);
    for id in [
        "transport.http-accept",
        "transport.http-status-codes",
        "transport.http-session",
        "transport.http-sse-resumption",
        "transport.http-protocol-header",
        "ping.answers",
    ] {
        assert_eq!(o[id], "passed", "{id}: {r:#}");
    }
    assert_eq!(o["transport.stdio-stdout"], "not_applicable");

    let (r, code) = http_check(&e, &["http-lax"]);
    assert_eq!(code, 1);
    assert_eq!(
        with_outcome(&r, "failed"),
        set(&[
            "transport.http-accept",
            "transport.http-status-codes",
            "transport.http-session",
            "transport.http-sse-resumption",
            "transport.http-protocol-header",
        ]),
        "{r:#}"
    );
}

#[test]
fn exit_codes_zero_one_two() {
    let e = env();
    assert_eq!(e.check(&["--only", "lifecycle"], &[]).1, 0);
    assert_eq!(
        e.check(&["--only", "lifecycle"], &["--fault", "bad-server-info"])
            .1,
        1
    );
    // A server that cannot be started: every check could not run.
    let out = cli(&e.db, &["--json", "check", "--", "/nonexistent/mcp-server"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["summary"]["couldNotRun"], r["summary"]["total"], "{r:#}");
    // A usage error.
    let out = cli(
        &e.db,
        &["check", "--only", "nonsense", "--", BIN, "demo-server"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("selects no check"),
        "{}",
        stderr(&out)
    );
    let out = cli(&e.db, &["check"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    // A saved server that does not exist.
    let out = cli(&e.db, &["check", "nope"]);
    assert_eq!(out.status.code(), Some(5), "{}", stderr(&out));
    // The saved demo server of a new store.
    let out = cli(&e.db, &["check", "demo", "--only", "lifecycle,tools"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("lifecycle.connect"),
        "{}",
        stdout(&out)
    );
}

/// `check` runs where the MCP connection is made; over a remote backend it says so before
/// touching anything.
#[test]
fn over_a_remote_backend_check_says_where_it_runs() {
    let e = env();
    let out = cli(
        &e.db,
        &[
            "--base-url",
            "http://127.0.0.1:9",
            "--api-key",
            "k",
            "check",
            "demo",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("runs only where the MCP connection is made"),
        "{err}"
    );
}

#[test]
fn a_baseline_lets_known_failures_pass_and_reports_stale_entries() {
    let e = env();
    let base = e.p("baseline.json");
    let (_, code) = e.check(&["--write-baseline", &base], &["--fault", "error-codes"]);
    let _ = code;
    let b: Value = serde_json::from_str(&std::fs::read_to_string(&base).unwrap()).unwrap();
    assert_eq!(b["evaldeck/baseline"], 1);
    assert_eq!(b["expectedFailures"].as_array().unwrap().len(), 6, "{b:#}");

    let (r, code) = e.check(&["--baseline", &base], &["--fault", "error-codes"]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(r["summary"]["baselined"], 6);
    assert_eq!(r["summary"]["failed"], 6);

    // A failure the baseline does not expect still fails.
    let (_, code) = e.check(
        &["--baseline", &base],
        &["--fault", "error-codes", "--fault", "bad-server-info"],
    );
    assert_eq!(code, 1);

    // Fixed: the entries are stale.
    let (r, code) = e.check(&["--baseline", &base], &[]);
    assert_eq!(code, 0);
    assert_eq!(r["summary"]["staleBaseline"].as_array().unwrap().len(), 6);

    // A malformed baseline is invalid input.
    std::fs::write(e.path("bad.json"), r#"{"expected": []}"#).unwrap();
    let out = cli(
        &e.db,
        &[
            "check",
            "--baseline",
            &e.p("bad.json"),
            "--",
            BIN,
            "demo-server",
        ],
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

/// `pin` writes the tools' hashes; `check --pins` fails when one changed under the same
/// name (the rug pull) or went away.
#[test]
fn a_changed_pinned_tool_fails_the_check() {
    let e = env();
    let pins = e.p("pins.json");
    let out = cli(&e.db, &["pin", "-o", &pins, "--", BIN, "demo-server"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file: Value = serde_json::from_str(&std::fs::read_to_string(&pins).unwrap()).unwrap();
    assert_eq!(file["evaldeck/pins"], 1);
    let echo = file["tools"]["echo"].as_str().unwrap();
    assert!(echo.starts_with("sha256:") && echo.len() == 71, "{echo}");

    let (r, code) = e.check(&["--pins", &pins, "--only", "pins"], &[]);
    assert_eq!(code, 0, "{r:#}");
    assert_eq!(outcomes(&r)["pins.unchanged"], "passed");

    let (r, code) = e.check(
        &["--pins", &pins, "--only", "pins"],
        &["--fault", "rug-pull"],
    );
    assert_eq!(code, 1);
    let res = &r["results"][0];
    assert_eq!(res["outcome"], "failed");
    let ev = res["evidence"].to_string();
    assert!(
        ev.contains("`echo` changed") && ev.contains("`get-sum` was pinned and is gone"),
        "{ev}"
    );
}

/// `export` snapshots before and after: `diff` names what changed and what breaks clients;
/// a server now against its snapshot too.
#[test]
fn diff_classifies_drift_between_snapshots_and_against_a_server_now() {
    let e = env();
    let export = |name: &str, demo: &[&str]| {
        let mut args = vec!["--json", "export", "--", BIN, "demo-server"];
        args.extend_from_slice(demo);
        let out = cli(&e.db, &args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        std::fs::write(e.path(name), &out.stdout).unwrap();
        e.p(name)
    };
    let old = export("old.json", &[]);
    let new = export("new.json", &["--fault", "rug-pull"]);

    let out = cli(&e.db, &["diff", &old, &old]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("no changes"));

    let out = cli(&e.db, &["--json", "diff", &old, &new]);
    assert_eq!(out.status.code(), Some(1), "breaking drift is exit 1");
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: BTreeSet<(String, String, String)> = r["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["rule"].as_str().unwrap().into(),
                c["class"].as_str().unwrap().into(),
                c["name"].as_str().unwrap().into(),
            )
        })
        .collect();
    for want in [
        ("tool.removed", "breaking", "get-sum"),
        ("input.required-added", "breaking", "echo"),
        ("tool.description-changed", "review", "echo"),
        ("input.property-added", "non_breaking", "echo"),
    ] {
        let want = (want.0.to_string(), want.1.to_string(), want.2.to_string());
        if want.0 == "input.property-added" {
            // `times` is added as required: that is the breaking change above, not this one.
            assert!(!rules.contains(&want), "{rules:?}");
        } else {
            assert!(rules.contains(&want), "{want:?} in {rules:?}");
        }
    }
    assert!(r["summary"]["breaking"].as_u64().unwrap() >= 2);

    // The other way round, additions are not breaking except what the old side lacked.
    let out = cli(&e.db, &["--json", "diff", &new, &old]);
    let back: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        back["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["rule"] == "tool.added" && c["class"] == "non_breaking")
    );

    // The server now against its snapshot.
    let out = cli(
        &e.db,
        &[
            "diff",
            &old,
            "--",
            BIN,
            "demo-server",
            "--fault",
            "rug-pull",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("tool.removed"), "{}", stdout(&out));
    let out = cli(&e.db, &["diff", &old, "server:demo"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );

    // A check report holds a snapshot too.
    let (_, _) = e.check(&["--only", "lifecycle", "-o", &e.p("report.json")], &[]);
    let out = cli(
        &e.db,
        &["diff", &e.p("report.json"), &new, "--format", "markdown"],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stdout(&out).contains("| breaking |") || stdout(&out).contains("❌ breaking"));

    // Unhappy paths.
    let out = cli(&e.db, &["diff", &old, &e.p("missing.json")]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("server:NAME"), "{}", stderr(&out));
    std::fs::write(e.path("junk.json"), "{\"tools\": 3}").unwrap();
    let out = cli(&e.db, &["diff", &old, &e.p("junk.json")]);
    assert_eq!(out.status.code(), Some(2));
}

/// The scan of what a server lists and of the results `check` got from it.
#[test]
fn the_scan_reports_each_rule_with_its_location() {
    let e = env();
    let (r, code) = e.check(&["-o", &e.p("poisoned.json")], &["--fault", "poisoned"]);
    let _ = (r, code);
    let out = cli(&e.db, &["--json", "scan", &e.p("poisoned.json")]);
    assert_eq!(out.status.code(), Some(1), "an error finding is exit 1");
    let f: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let got: BTreeSet<(String, String)> = f
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().into(),
                f["location"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want: BTreeSet<(String, String)> = [
        ("scan.hidden-instructions", "tool:add-notes"),
        ("scan.invisible-unicode", "tool:add-notes"),
        ("scan.destructive-unhinted", "tool:delete-everything"),
        ("scan.broad-schema", "tool:read-file"),
        ("scan.secret-in-result", "call:show-config"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(got, want);

    // A clean export has no findings; two snapshots with a common tool name shadow.
    let out = cli(&e.db, &["--json", "export", "--", BIN, "demo-server"]);
    std::fs::write(e.path("clean.json"), &out.stdout).unwrap();
    let out = cli(&e.db, &["scan", &e.p("clean.json")]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("no findings"));
    let mut other: Value = serde_json::from_slice(&out_json(&e, "clean.json")).unwrap();
    other["serverId"] = json!("other-server");
    std::fs::write(e.path("other.json"), other.to_string()).unwrap();
    let out = cli(
        &e.db,
        &["--json", "scan", &e.p("clean.json"), &e.p("other.json")],
    );
    let f: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(f.iter().any(|f| f["rule"] == "scan.shadowing"), "{f:#?}");

    // SARIF of the scan is valid SARIF.
    let out = cli(&e.db, &["scan", &e.p("poisoned.json"), "--format", "sarif"]);
    validate_sarif(&serde_json::from_slice(&out.stdout).unwrap());
}

fn out_json(e: &Env, name: &str) -> Vec<u8> {
    std::fs::read(e.path(name)).unwrap()
}

fn validate_sarif(v: &Value) {
    let schema: Value =
        serde_json::from_str(include_str!("../schemas/sarif-schema-2.1.0.json")).unwrap();
    let validator = jsonschema::options()
        .with_draft(jsonschema::Draft::Draft4)
        .build(&schema)
        .expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(v)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "SARIF schema violations: {errors:#?}");
}

/// JUnit XML against the XSD: this validator reads `tests/schemas/junit-10.xsd` — its
/// elements, their allowed children, required and allowed attributes, and the
/// `SUREFIRE_TIME` pattern — and checks a document against them.
fn validate_junit(xml: &str) {
    use quick_xml::XmlVersion;
    use quick_xml::events::Event;
    struct Decl {
        children: BTreeSet<String>,
        attrs: BTreeSet<String>,
        required: BTreeSet<String>,
        time_typed: BTreeSet<String>,
    }
    let xsd = include_str!("../schemas/junit-10.xsd");
    let mut decls: BTreeMap<String, Decl> = BTreeMap::new();
    let mut stack: Vec<String> = vec![];
    let mut time_pattern = String::new();
    let mut r = quick_xml::Reader::from_str(xsd);
    let attr = |e: &quick_xml::events::BytesStart, k: &str| -> Option<String> {
        e.attributes()
            .flatten()
            .find(|a| a.key.as_ref() == k)
            .map(|a| a.value.to_string())
    };
    let mut current_type: Option<String> = None;
    let mut refs_of_type: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    loop {
        let ev = r.read_event().unwrap();
        let (e, empty) = match &ev {
            Event::Start(e) => (e.clone(), false),
            Event::Empty(e) => (e.clone(), true),
            Event::End(_) => {
                let done = stack.pop();
                if let Some(t) = &current_type
                    && done.as_deref() == Some(&format!("type:{t}"))
                {
                    current_type = None;
                }
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = e.name().as_ref().to_string();
        let owner = stack
            .iter()
            .rev()
            .find_map(|s| s.strip_prefix("el:"))
            .map(String::from);
        match name.as_str() {
            "xs:element" => {
                if let Some(n) = attr(&e, "name") {
                    // A top-level declaration (or the element itself, inside a type).
                    if stack.iter().all(|s| !s.starts_with("el:")) && current_type.is_none() {
                        decls.entry(n.clone()).or_insert(Decl {
                            children: BTreeSet::new(),
                            attrs: BTreeSet::new(),
                            required: BTreeSet::new(),
                            time_typed: BTreeSet::new(),
                        });
                        if !empty {
                            stack.push(format!("el:{n}"));
                        }
                        continue;
                    }
                    if let Some(t) = &current_type {
                        refs_of_type.entry(t.clone()).or_default().insert(n);
                    }
                } else if let Some(rf) = attr(&e, "ref")
                    && let Some(o) = &owner
                {
                    decls.get_mut(o).unwrap().children.insert(rf);
                }
            }
            "xs:attribute" => {
                if let (Some(o), Some(n)) = (&owner, attr(&e, "name")) {
                    let d = decls.get_mut(o).unwrap();
                    d.attrs.insert(n.clone());
                    if attr(&e, "use").as_deref() == Some("required") {
                        d.required.insert(n.clone());
                    }
                    if attr(&e, "type").as_deref() == Some("SUREFIRE_TIME") {
                        d.time_typed.insert(n);
                    }
                }
            }
            "xs:pattern" => time_pattern = attr(&e, "value").unwrap(),
            "xs:complexType" | "xs:simpleType" if attr(&e, "name").is_some() => {
                current_type = attr(&e, "name");
                if !empty {
                    stack.push(format!("type:{}", current_type.clone().unwrap()));
                }
                continue;
            }
            _ => {}
        }
        if !empty {
            stack.push(name);
        }
    }
    assert!(decls.contains_key("testcase") && decls.contains_key("testsuite"));
    let time = regex::Regex::new(&format!("^(?:{time_pattern})$")).unwrap();

    // The document.
    let mut r = quick_xml::Reader::from_str(xml);
    let mut open: Vec<String> = vec![];
    let mut root = None;
    loop {
        let ev = r
            .read_event()
            .unwrap_or_else(|e| panic!("not well-formed XML: {e}"));
        let (e, empty) = match &ev {
            Event::Start(e) => (e.clone(), false),
            Event::Empty(e) => (e.clone(), true),
            Event::End(_) => {
                open.pop();
                continue;
            }
            Event::Eof => break,
            _ => continue,
        };
        let name = e.name().as_ref().to_string();
        let d = decls
            .get(&name)
            .unwrap_or_else(|| panic!("<{name}> is not declared by the schema"));
        match open.last() {
            None => root = Some(name.clone()),
            Some(parent) => assert!(
                decls[parent].children.contains(&name),
                "<{name}> is not allowed in <{parent}>"
            ),
        }
        let mut seen = BTreeSet::new();
        for a in e.attributes().flatten() {
            let k = a.key.as_ref().to_string();
            let v = a
                .normalized_value(XmlVersion::Implicit1_0)
                .unwrap()
                .into_owned();
            assert!(d.attrs.contains(&k), "<{name} {k}> is not allowed");
            if d.time_typed.contains(&k) {
                assert!(
                    time.is_match(&v),
                    "<{name} {k}=\"{v}\"> is not a SUREFIRE_TIME"
                );
            }
            seen.insert(k);
        }
        for req in &d.required {
            assert!(seen.contains(req), "<{name}> lacks {req}");
        }
        if !empty {
            open.push(name);
        }
    }
    assert!(
        matches!(root.as_deref(), Some("testsuites") | Some("testsuite")),
        "{root:?}"
    );
}

/// SARIF and JUnit outputs validated against their schemas, with passes, failures,
/// baselined failures and checks that do not apply in them; the HTML report is one file
/// that loads nothing.
#[test]
fn sarif_junit_markdown_and_html_reports() {
    let e = env();
    let base = e.p("baseline.json");
    std::fs::write(
        &base,
        r#"{"evaldeck/baseline": 1, "expectedFailures": [{"id": "errors.unknown-tool", "reason": "tracked upstream"}]}"#,
    )
    .unwrap();
    let run = |format: &str, out: &str| {
        let mut args = vec!["check", "--format", format, "-o", out, "--baseline", &base];
        args.extend_from_slice(&[
            "--",
            BIN,
            "demo-server",
            "--fault",
            "error-codes",
            "--fault",
            "poisoned",
        ]);
        let o = cli(&e.db, &args);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        // With -o the terminal still gets the table.
        assert!(stdout(&o).contains("CHECK"), "{}", stdout(&o));
        std::fs::read_to_string(out).unwrap()
    };
    let sarif: Value = serde_json::from_str(&run("sarif", &e.p("check.sarif"))).unwrap();
    validate_sarif(&sarif);
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert!(
        results
            .iter()
            .any(|r| r["kind"] == "fail" && r["level"] == "error")
    );
    assert!(results.iter().any(|r| r["kind"] == "pass"));
    assert!(results.iter().any(|r| r["kind"] == "notApplicable"));
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "errors.unknown-tool" && r["suppressions"].is_array())
    );
    assert!(
        results
            .iter()
            .any(|r| r["ruleId"] == "scan.secret-in-result")
    );

    let junit = run("junit", &e.p("check.xml"));
    validate_junit(&junit);
    assert!(
        junit.contains("<failure type=\"errors.unknown-method\""),
        "{junit}"
    );
    assert!(junit.contains("<skipped message=\"baselined: "), "{junit}");
    // A malformed document is caught by the validator.
    let broken =
        std::panic::catch_unwind(|| validate_junit("<testsuites><testcase/></testsuites>"));
    assert!(
        broken.is_err(),
        "a testcase outside a testsuite must not validate"
    );
    let broken = std::panic::catch_unwind(|| {
        validate_junit(
            "<testsuite name=\"x\" tests=\"1\" failures=\"0\" errors=\"0\" time=\"soon\"/>",
        )
    });
    assert!(
        broken.is_err(),
        "a time that is not a SUREFIRE_TIME must not validate"
    );

    let html = run("html", &e.p("check.html"));
    assert!(html.starts_with("<!doctype html>"));
    let external = regex::Regex::new(r#"(?i)\b(src|href)\s*="#).unwrap();
    assert!(!external.is_match(&html), "no external src or href");
    assert!(!html.contains("<script"), "no script");
    assert!(html.contains("<svg") && html.contains("errors.unknown-method"));

    let md = run("markdown", &e.p("check.md"));
    assert!(md.starts_with("## evaldeck check"), "{md}");
    assert!(md.contains("| ❌ | `errors.unknown-method` |"), "{md}");
    assert!(md.contains("### Security scan"), "{md}");

    // `report` renders a saved report again, in any of the formats.
    let (_, _) = e.check(&["-o", &e.p("r.json")], &["--fault", "bad-uris"]);
    for (format, marker) in [
        ("markdown", "## evaldeck check"),
        ("html", "<!doctype html>"),
        ("junit", "<testsuites"),
        ("table", "CHECK"),
    ] {
        let o = cli(&e.db, &["report", &e.p("r.json"), "--format", format]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(stdout(&o).contains(marker), "{format}: {}", stdout(&o));
    }
    let o = cli(&e.db, &["report", &e.p("r.json"), "--format", "sarif"]);
    validate_sarif(&serde_json::from_slice(&o.stdout).unwrap());
    let o = cli(&e.db, &["report", &e.p("r.json"), "--format", "junit"]);
    validate_junit(&stdout(&o));
    let o = cli(&e.db, &["report", &base]);
    assert_eq!(o.status.code(), Some(2), "not a report");
}

/// `--github` appends the Markdown report to `$GITHUB_STEP_SUMMARY`.
#[test]
fn github_mode_writes_the_step_summary() {
    let e = env();
    let summary = e.path("summary.md");
    std::fs::write(&summary, "# earlier step\n").unwrap();
    let s = summary.display().to_string();
    let o = cli_env(
        &e.db,
        &[
            "check",
            "--github",
            "--only",
            "lifecycle",
            "--",
            BIN,
            "demo-server",
        ],
        &[("GITHUB_STEP_SUMMARY", &s)],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(&summary).unwrap();
    assert!(
        text.starts_with("# earlier step\n"),
        "appended, not replaced"
    );
    assert!(
        text.contains("## evaldeck check:") && text.contains("✅ passed"),
        "{text}"
    );

    let (_, _) = e.check(&["-o", &e.p("r.json")], &["--fault", "bad-prompts"]);
    let o = cli_env(
        &e.db,
        &["report", &e.p("r.json"), "--github", "-o", &e.p("x.md")],
        &[("GITHUB_STEP_SUMMARY", &s)],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&summary)
            .unwrap()
            .contains("❌ failed")
    );

    // Unset: it says so and writes nothing.
    let o = cli(
        &e.db,
        &[
            "check",
            "--github",
            "--only",
            "lifecycle",
            "--",
            BIN,
            "demo-server",
        ],
    );
    assert_eq!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("GITHUB_STEP_SUMMARY is not set"));
}

/// The benchmark the README quotes: a whole `check` of the demo server in under a second.
#[test]
fn a_check_of_the_demo_server_takes_under_a_second() {
    let e = env();
    // The first run creates the store.
    let _ = e.check(&["--only", "lifecycle.connect"], &[]);
    let started = std::time::Instant::now();
    let (r, code) = e.check(&[], &[]);
    let took = started.elapsed();
    assert_eq!(code, 0);
    assert!(
        took < std::time::Duration::from_secs(1),
        "check took {took:?} (its own count: {} ms)",
        r["durationMs"]
    );
}

/// `report RUN`: an eval run (here two ingested ones) as Markdown with the comparison to a
/// base run, one self-contained HTML file, and JUnit valid against the XSD; `--github`
/// appends the Markdown to the job summary.
#[test]
fn eval_runs_are_reported_as_markdown_html_and_junit() {
    let e = env();
    let pytest = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/artifacts/pytest-junit.xml"
    );
    let fixed = regex::Regex::new(r"(?s)<failure[^>]*/>|<failure.*?</failure>")
        .unwrap()
        .replace_all(&std::fs::read_to_string(pytest).unwrap(), "")
        .into_owned();
    std::fs::write(e.path("fixed.xml"), fixed).unwrap();
    let ingest = |file: &str| {
        let o = cli(
            &e.db,
            &[
                "--json",
                "ingest",
                "junit",
                file,
                "--suite",
                "Contract tests",
            ],
        );
        let v: Value = serde_json::from_slice(&o.stdout).unwrap();
        v["runId"].as_str().unwrap().to_string()
    };
    let base = ingest(pytest);
    let head = ingest(&e.p("fixed.xml"));

    let summary = e.p("summary.md");
    let o = cli_env(
        &e.db,
        &["report", &head, "--base", &base, "--github"],
        &[("GITHUB_STEP_SUMMARY", &summary)],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let md = stdout(&o);
    assert!(
        md.starts_with("## evaldeck run #2 of `Contract tests`"),
        "{md}"
    );
    assert!(md.contains("6/7 iterations passed"), "{md}");
    assert!(md.contains("0 regressed, 2 fixed"), "{md}");
    assert!(
        md.contains("| fixed | tests.test_mcp_tools.TestGetSum::test_rejects_strings"),
        "{md}"
    );
    assert_eq!(std::fs::read_to_string(&summary).unwrap().trim(), md.trim());

    let o = cli(&e.db, &["runs", "compare", &base, &head, "--markdown"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).starts_with("### Compared with `run_"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("| fixed |"), "{}", stdout(&o));

    let o = cli(&e.db, &["report", &base, "--format", "html"]);
    let html = stdout(&o);
    assert!(
        html.starts_with("<!doctype html>") && html.contains("<svg"),
        "{html}"
    );
    let external = regex::Regex::new(r#"(?i)\b(src|href)\s*="#).unwrap();
    assert!(!external.is_match(&html) && !html.contains("<script"));

    let o = cli(&e.db, &["report", &base, "--format", "junit"]);
    validate_junit(&stdout(&o));

    let o = cli(&e.db, &["report", &base, "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(2), "SARIF does not fit a run");
    let o = cli(&e.db, &["report", "run_nope"]);
    assert_eq!(o.status.code(), Some(5));
}

/// A saved server keeps the snapshot of its last check: the next check reports the drift
/// since, and `diff last:NAME` compares it with the server now.
#[test]
fn the_last_check_is_kept_and_the_next_one_reports_the_drift() {
    let e = env();
    let flags = e.path("flags");
    std::fs::write(&flags, "").unwrap();
    let line = format!("exec {BIN} demo-server $(cat {})", flags.display());
    let o = cli(
        &e.db,
        &[
            "servers",
            "add",
            "app",
            "--command",
            "sh",
            "--",
            "-c",
            &line,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    let o = cli(&e.db, &["diff", "last:app"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("run `evaldeck check app`"),
        "{}",
        stderr(&o)
    );

    let check = || {
        let o = cli(&e.db, &["--json", "check", "app", "--only", "lifecycle"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_slice::<Value>(&o.stdout).unwrap()
    };
    let first = check();
    assert!(first["drift"].is_null(), "nothing to compare yet");
    assert_eq!(cli(&e.db, &["diff", "last:app"]).status.code(), Some(0));

    // A new version of the server behind the same saved name.
    std::fs::write(&flags, "--fault rug-pull").unwrap();
    let o = cli(&e.db, &["diff", "last:app"]);
    assert_eq!(
        o.status.code(),
        Some(1),
        "breaking drift since the last check"
    );
    assert!(stdout(&o).contains("tool.removed"), "{}", stdout(&o));
    let second = check();
    assert_eq!(
        second["drift"]["summary"]["breaking"], 2,
        "{:#}",
        second["drift"]
    );
    let o = cli(&e.db, &["check", "app", "--only", "lifecycle"]);
    assert!(
        stdout(&o).contains("drift since the check of"),
        "{}",
        stdout(&o)
    );
    // That check kept the new snapshot: no drift any more.
    assert_eq!(cli(&e.db, &["diff", "last:app"]).status.code(), Some(0));
}

/// Checks of two saved servers of one project: the second one's scan finds the tools it
/// shares with the first (as the first's last check saw them).
#[test]
fn a_check_finds_tools_shadowing_another_saved_server() {
    let e = env();
    for name in ["one", "two"] {
        let o = cli(
            &e.db,
            &[
                "servers",
                "add",
                name,
                "--command",
                BIN,
                "--",
                "demo-server",
            ],
        );
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let o = cli(&e.db, &["--json", "check", "one", "--only", "lifecycle"]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let shadowing = |r: &Value| {
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["rule"] == "scan.shadowing")
            .count()
    };
    // `demo` of the first-run project has no kept snapshot yet: nothing to shadow.
    assert_eq!(shadowing(&r), 0, "{:#}", r["findings"]);
    let o = cli(&e.db, &["--json", "check", "two", "--only", "lifecycle"]);
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(shadowing(&r), 13, "{:#}", r["findings"]);
    assert!(
        r["findings"][0]["message"]
            .as_str()
            .unwrap()
            .contains("also a tool of `one`"),
        "{:#}",
        r["findings"][0]
    );
    // Findings do not change the exit code of check.
    assert_eq!(o.status.code(), Some(0));
}

/// The saved server `app` of a new store, a shell line that starts the demo server with
/// the flags in the returned file (so a test can change the server behind the name).
fn saved_app(e: &Env) -> PathBuf {
    let flags = e.path("flags");
    std::fs::write(&flags, "").unwrap();
    let line = format!("exec {BIN} demo-server $(cat {})", flags.display());
    let o = cli(
        &e.db,
        &[
            "servers",
            "add",
            "app",
            "--command",
            "sh",
            "--",
            "-c",
            &line,
        ],
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    flags
}

/// Each check of a saved server keeps what it listed (its last ten): `diff last:NAME~1
/// last:NAME` is the drift between its last two checks, `last:NAME~N` N checks back; a
/// server with none, a check that was not kept, a malformed reference and an unknown
/// server are each a clear error.
#[test]
fn two_kept_checks_of_a_saved_server_are_diffed() {
    let e = env();
    let flags = saved_app(&e);
    let check = || {
        let o = cli(&e.db, &["check", "app", "--only", "lifecycle"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    };
    let diff = |args: &[&str]| {
        let mut all = vec!["--json", "diff"];
        all.extend_from_slice(args);
        cli(&e.db, &all)
    };

    // No check yet: nothing kept, exit 2.
    let o = diff(&["last:app~1", "last:app"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("no check of `app` has kept a snapshot yet")
            && stderr(&o).contains("run `evaldeck check app`"),
        "{}",
        stderr(&o)
    );

    check();
    // One check kept: there is no check before it, and the error lists what there is.
    let o = diff(&["last:app~1", "last:app"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("`last:app~1` is 1 check(s) before the newest")
            && err.contains("kept 1 snapshot(s): last:app ("),
        "{err}"
    );

    // A new version of the server behind the same name, checked again.
    std::fs::write(&flags, "--fault rug-pull").unwrap();
    check();
    let o = diff(&["last:app~1", "last:app"]);
    assert_eq!(o.status.code(), Some(1), "breaking drift: {}", stderr(&o));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rules: BTreeSet<(String, String)> = r["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["rule"].as_str().unwrap().to_string(),
                c["name"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for want in [
        ("tool.removed", "get-sum"),
        ("input.required-added", "echo"),
        ("tool.description-changed", "echo"),
    ] {
        assert!(
            rules.contains(&(want.0.to_string(), want.1.to_string())),
            "{want:?} in {rules:?}"
        );
    }
    let old = r["old"].as_str().unwrap();
    assert!(old.starts_with("last:app~1 (the check of "), "{old}");
    assert!(
        r["new"]
            .as_str()
            .unwrap()
            .starts_with("last:app (the check of "),
        "{r:#}"
    );
    // `~0` is the newest; the other way round get-sum comes back, not breaking.
    let o = diff(&["last:app", "last:app~0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = diff(&["last:app", "last:app~1"]);
    let back: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        back["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["rule"] == "tool.added" && c["name"] == "get-sum"),
        "{back:#}"
    );
    // An older check alone: against the server now.
    let o = cli(&e.db, &["diff", "last:app~1"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stdout(&o).contains("tool.removed"), "{}", stdout(&o));
    // The scan reads a kept snapshot too.
    let o = cli(&e.db, &["scan", "last:app~1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));

    // Malformed references and an unknown server.
    for (bad, says) in [
        ("last:app~", "needs a number"),
        ("last:", "names no server"),
        (
            "last:app~99999999999999999999999",
            "is not a number of checks",
        ),
    ] {
        let o = diff(&[bad, "last:app"]);
        assert_eq!(o.status.code(), Some(2), "{bad}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{bad}: {}", stderr(&o));
    }
    let o = diff(&["last:app~12", "last:app"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("kept 2 snapshot(s): last:app (")
            && stderr(&o).contains("last:app~1 ("),
        "{}",
        stderr(&o)
    );
    let o = diff(&["last:nope~1", "last:app"]);
    assert_eq!(
        o.status.code(),
        Some(5),
        "an unknown server is not found: {}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("nope"), "{}", stderr(&o));

    // Deleting the server deletes what its checks kept.
    let kept = || {
        std::fs::read_dir(e.root.join("db.sqlite3.snapshots"))
            .map(|d| d.count())
            .unwrap_or(0)
    };
    assert_eq!(kept(), 2);
    let o = cli(&e.db, &["servers", "remove", "app"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(kept(), 0);
}

/// Over both backends: the embedded one reads the snapshots the checks kept; the remote
/// one (`/api/v1` has no conformance suites, and these are what they kept) says so, from
/// the `Backend` and from the CLI.
#[tokio::test(flavor = "multi_thread")]
async fn kept_checks_over_the_embedded_and_the_remote_backend() {
    let h = evaldeck_testkit::served::Harness::with_config(evaldeck_testkit::served::demo_config())
        .await;
    let db = h.db_path();
    // Eleven checks: the last ten are kept.
    for _ in 0..11 {
        let o = cli(&db, &["check", "demo", "--only", "lifecycle"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    for (name, b) in h.backends(&h.owner, &h.owner_key) {
        let kept = b.kept_snapshots(&h.project, "demo").await;
        match name {
            "embedded" => {
                let kept = kept.expect("the embedded backend reads them");
                assert_eq!(kept.len(), 10, "the last ten checks are kept");
                assert!(
                    kept.windows(2)
                        .all(|w| w[0].exported_at >= w[1].exported_at),
                    "newest first"
                );
            }
            _ => {
                let e = kept.expect_err("not over /api/v1");
                assert!(e.message.contains("remote backend"), "{}", e.message);
            }
        }
    }
    let o = cli(&db, &["diff", "last:demo~9", "last:demo"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(stdout(&o).contains("no changes"), "{}", stdout(&o));
    let o = cli(&db, &["diff", "last:demo~10", "last:demo"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("kept 10 snapshot(s)"), "{}", stderr(&o));
    let remote = |args: &[&str]| {
        let mut all = vec![
            "--base-url",
            h.base.as_str(),
            "--api-key",
            h.owner_key.as_str(),
        ];
        all.extend_from_slice(args);
        cli(&db, &all)
    };
    let o = remote(&["diff", "last:demo~1", "last:demo"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("remote backend") && stderr(&o).contains("server:demo"),
        "{}",
        stderr(&o)
    );
    // What the API does serve works over it: the server now, exported.
    let o = remote(&["diff", "server:demo", "server:demo"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// The CLI run in the test's directory, so relative paths are relative to it.
fn cli_at(e: &Env, args: &[&str]) -> Output {
    let mut c = Command::new(BIN);
    c.current_dir(&e.root)
        .arg("--db")
        .arg(&e.db)
        .args(args)
        .env_remove("EVALDECK_BASE_URL")
        .env_remove("EVALDECK_PROJECT")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null());
    c.output().expect("run the CLI")
}

/// What GitHub code scanning needs of an upload beyond the schema: every result has a
/// location (it rejects the whole file otherwise) whose `physicalLocation` names a file —
/// a relative path against `%SRCROOT%`, or a `file:` URI — and a line; a logical location
/// names the server's item; a fingerprint that is no line number. Returns the results.
fn validate_code_scanning(v: &Value) -> Vec<Value> {
    validate_sarif(v);
    let results = v["runs"][0]["results"].as_array().expect("results").clone();
    for r in &results {
        assert!(
            r["ruleId"].is_string() && r["message"]["text"].is_string(),
            "{r:#}"
        );
        let locations = r["locations"]
            .as_array()
            .filter(|l| !l.is_empty())
            .unwrap_or_else(|| panic!("a result without a location: {r:#}"));
        assert!(locations.len() <= 10, "{r:#}");
        for l in locations {
            let a = &l["physicalLocation"]["artifactLocation"];
            let uri = a["uri"]
                .as_str()
                .unwrap_or_else(|| panic!("no artifactLocation.uri: {r:#}"));
            assert!(!uri.is_empty(), "{r:#}");
            if uri.starts_with("file://") {
                assert!(a["uriBaseId"].is_null(), "{r:#}");
            } else {
                assert_eq!(a["uriBaseId"], "%SRCROOT%", "{r:#}");
                assert!(!uri.starts_with('/') && !uri.contains("://"), "{uri}");
            }
            let line = l["physicalLocation"]["region"]["startLine"].as_u64();
            assert!(line.is_some_and(|n| n >= 1), "{r:#}");
            assert!(
                l["logicalLocations"][0]["fullyQualifiedName"].is_string(),
                "{r:#}"
            );
        }
        assert!(
            r["partialFingerprints"]
                .as_object()
                .is_some_and(|o| !o.is_empty()),
            "{r:#}"
        );
    }
    results
}

/// The first location of `r`: its file (relative to the test's directory), its line's text
/// there, and its JSON Pointer.
fn first_location(e: &Env, r: &Value) -> (String, String, String) {
    let l = &r["locations"][0];
    let uri = l["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap()
        .to_string();
    let line = l["physicalLocation"]["region"]["startLine"]
        .as_u64()
        .unwrap() as usize;
    let text = std::fs::read_to_string(e.root.join(&uri))
        .ok()
        .and_then(|t| t.lines().nth(line - 1).map(str::to_string))
        .unwrap_or_default();
    let pointer = l["properties"]["jsonPointer"]
        .as_str()
        .unwrap_or("")
        .to_string();
    (uri, text, pointer)
}

/// The line a location names holds the member its JSON Pointer ends in.
fn assert_points_at_member(e: &Env, r: &Value) {
    let (uri, text, pointer) = first_location(e, r);
    let last = pointer.rsplit('/').next().unwrap_or("");
    if !last.is_empty() && last.parse::<usize>().is_err() {
        assert!(
            text.contains(&format!("\"{last}\"")),
            "{uri}: `{text}` is not where {pointer} is"
        );
    }
}

fn by_rule<'a>(results: &'a [Value], id: &str) -> &'a Value {
    results
        .iter()
        .find(|r| r["ruleId"] == id)
        .unwrap_or_else(|| panic!("no {id} result"))
}

/// `scan --format sarif`: each finding points at the file scanned, at the line of the item
/// (and the member) it is about; a saved server at its stable path, `.evaldeck/NAME.json`,
/// and into that file when it exists.
#[test]
fn scan_sarif_points_into_the_files_scanned() {
    let e = env();
    let o = cli_at(
        &e,
        &[
            "check",
            "--format",
            "json",
            "-o",
            "poisoned.json",
            "--",
            BIN,
            "demo-server",
            "--fault",
            "poisoned",
        ],
    );
    assert!(e.path("poisoned.json").exists(), "{}", stderr(&o));
    let o = cli_at(&e, &["scan", "poisoned.json", "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let results = validate_code_scanning(&serde_json::from_slice(&o.stdout).unwrap());
    assert_eq!(results.len(), 5, "{results:#?}");
    for r in &results {
        let (uri, _, pointer) = first_location(&e, r);
        assert_eq!(uri, "poisoned.json");
        assert!(
            pointer.starts_with("/snapshot/tools/") || pointer.starts_with("/calls/"),
            "{pointer}"
        );
        assert_points_at_member(&e, r);
    }
    let hidden = by_rule(&results, "scan.hidden-instructions");
    let (_, text, pointer) = first_location(&e, hidden);
    assert!(pointer.ends_with("/description"), "{pointer}");
    assert!(text.contains("\"description\""), "{text}");
    let fqn = hidden["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
        .as_str()
        .unwrap();
    assert!(fqn.ends_with("/tools/add-notes"), "{fqn}");
    let secret = by_rule(&results, "scan.secret-in-result");
    assert!(first_location(&e, secret).2.starts_with("/calls/"));

    // A saved server now: its stable path, line 1 while that file does not exist …
    let o = cli_at(&e, &["--json", "export", "demo"]);
    let mut other: Value = serde_json::from_slice(&o.stdout).unwrap();
    other["serverId"] = json!("other-server");
    std::fs::write(e.path("other.json"), other.to_string()).unwrap();
    let scan = || {
        let o = cli_at(
            &e,
            &["scan", "server:demo", "other.json", "--format", "sarif"],
        );
        validate_code_scanning(&serde_json::from_slice(&o.stdout).unwrap())
    };
    let results = scan();
    let of_demo: Vec<&Value> = results
        .iter()
        .filter(|r| {
            r["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
                .as_str()
                .unwrap()
                .starts_with("demo/tools/")
        })
        .collect();
    assert!(!of_demo.is_empty(), "{results:#?}");
    for r in &of_demo {
        let l = &r["locations"][0]["physicalLocation"];
        assert_eq!(l["artifactLocation"]["uri"], ".evaldeck/demo.json");
        assert_eq!(l["region"]["startLine"], 1);
    }
    assert!(
        results
            .iter()
            .any(|r| first_location(&e, r).0 == "other.json"),
        "{results:#?}"
    );
    // … and the tool's line in it once the snapshot is kept there.
    std::fs::create_dir_all(e.path(".evaldeck")).unwrap();
    let o = cli_at(&e, &["--json", "export", "demo"]);
    std::fs::write(e.path(".evaldeck/demo.json"), &o.stdout).unwrap();
    for r in scan() {
        let (uri, text, pointer) = first_location(&e, &r);
        if uri == ".evaldeck/demo.json" {
            assert!(pointer.starts_with("/tools/"), "{pointer}");
            assert!(
                text.trim_start().starts_with('{') || text.contains('"'),
                "{text}"
            );
            assert!(r["locations"][0]["physicalLocation"]["region"]["startLine"] != 1);
        }
    }
}

/// `check --format sarif` and `report FILE --format sarif`: a pin failure points at the
/// tool's line in the lock file, a baselined failure at its entry in the baseline, the
/// rest of a live server's results at its stable path; rendered from a report file, each
/// result points at itself in that file and each finding at its tool there.
#[test]
fn check_sarif_points_at_the_lock_file_the_baseline_and_the_report() {
    let e = env();
    let o = cli_at(&e, &["pin", "-o", "pins.json", "--", BIN, "demo-server"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::write(
        e.path("baseline.json"),
        "{\n  \"evaldeck/baseline\": 1,\n  \"expectedFailures\": [\n    {\"id\": \"errors.unknown-tool\", \"reason\": \"upstream\"}\n  ]\n}\n",
    )
    .unwrap();
    let faults = [
        "--",
        BIN,
        "demo-server",
        "--fault",
        "error-codes",
        "--fault",
        "rug-pull",
        "--fault",
        "poisoned",
    ];
    let mut args = vec![
        "check",
        "--pins",
        "pins.json",
        "--baseline",
        "baseline.json",
        "--format",
        "sarif",
        "-o",
        "check.sarif",
    ];
    args.extend_from_slice(&faults);
    let o = cli_at(&e, &args);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let sarif: Value =
        serde_json::from_str(&std::fs::read_to_string(e.path("check.sarif")).unwrap()).unwrap();
    let results = validate_code_scanning(&sarif);

    let pins = by_rule(&results, "pins.unchanged");
    assert_eq!(pins["kind"], "fail");
    let (uri, text, _) = first_location(&e, pins);
    assert_eq!(uri, "pins.json");
    assert!(
        text.contains("\"echo\"") || text.contains("\"get-sum\""),
        "{text}"
    );
    let baselined = by_rule(&results, "errors.unknown-tool");
    assert!(baselined["suppressions"].is_array());
    let (uri, text, _) = first_location(&e, baselined);
    assert_eq!(uri, "baseline.json");
    assert!(text.contains("errors.unknown-tool"), "{text}");
    let server = sarif["runs"][0]["properties"]["server"].as_str().unwrap();
    let live = by_rule(&results, "errors.unknown-method");
    let (uri, _, _) = first_location(&e, live);
    assert_eq!(uri, format!(".evaldeck/{server}.json"));
    assert_eq!(
        live["locations"][0]["logicalLocations"][0]["fullyQualifiedName"]
            .as_str()
            .unwrap()
            .split('/')
            .next(),
        Some(server)
    );

    // The same check as JSON, rendered again from the file.
    let mut args = vec![
        "check",
        "--baseline",
        "baseline.json",
        "--format",
        "json",
        "-o",
        "check.json",
    ];
    args.extend_from_slice(&faults);
    cli_at(&e, &args);
    let o = cli_at(&e, &["report", "check.json", "--format", "sarif"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let results = validate_code_scanning(&serde_json::from_slice(&o.stdout).unwrap());
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(e.path("check.json")).unwrap()).unwrap();
    for r in &results {
        let (uri, text, pointer) = first_location(&e, r);
        let id = r["ruleId"].as_str().unwrap();
        if id.starts_with("scan.") {
            assert_eq!(uri, "check.json");
            assert!(
                pointer.starts_with("/snapshot/tools/") || pointer.starts_with("/calls/"),
                "{pointer}"
            );
            assert_points_at_member(&e, r);
        } else {
            // A baselined one too: `report` was given no baseline file.
            assert_eq!(uri, "check.json");
            let k: usize = pointer.strip_prefix("/results/").unwrap().parse().unwrap();
            assert_eq!(report["results"][k]["id"], id);
            assert_eq!(text.trim(), "{", "the result's own object: {pointer}");
        }
    }
}
