//! Suites as files: `evaldeck suite export` and `evaldeck suite apply` through the CLI
//! binary, against the embedded store (`--db`) and a served API (`--base-url`).

use std::path::Path;

use evaldeck::client::Backend;
use evaldeck::spec::case::sha256_hex;
use evaldeck::spec::environment::{EnvironmentCreate, Patch, ServerGroupCreate};
use evaldeck::spec::host::HostCreate;
use evaldeck::spec::server::{ServerConfig, ServerCreate, Transport};
use evaldeck::spec::suite::{PassCriteria, SuiteCreate, SuitePatch, SuiteTest};
use serde_json::{Value, json};

use evaldeck_testkit::served::Harness;

/// What a CLI run left behind.
struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

/// The arguments that point the CLI at the harness: its database, or its API.
fn targets(h: &Harness) -> Vec<(&'static str, Vec<String>)> {
    vec![
        (
            "embedded",
            vec!["--db".into(), h.db_path().display().to_string()],
        ),
        (
            "remote",
            vec![
                "--base-url".into(),
                h.base.clone(),
                "--api-key".into(),
                h.owner_key.clone(),
            ],
        ),
    ]
}

/// Runs `evaldeck TARGET --project P ARGS…` with no terminal on stdin.
async fn cli(target: &[String], project: &str, args: &[&str]) -> Ran {
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_evaldeck"))
        .args(target)
        .args(["--project", project])
        .args(args)
        .env_remove("EVALDECK_DB")
        .env_remove("EVALDECK_BASE_URL")
        .env_remove("EVALDECK_API_KEY")
        .env_remove("EVALDECK_PROJECT")
        .stdin(std::process::Stdio::null())
        .output()
        .await
        .expect("the CLI runs");
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

impl Ran {
    #[track_caller]
    fn ok(&self) -> &Self {
        assert_eq!(
            self.code, 0,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

/// A host, a saved server `shop`, a server group and an environment `staging`.
async fn fixtures(b: &dyn Backend, p: &str) -> (String, String) {
    let host = b
        .create_host(
            p,
            &HostCreate {
                name: "Claude".into(),
                template: Some("claude".into()),
                config: None,
            },
        )
        .await
        .expect("host");
    let server = b
        .create_server(
            p,
            &ServerCreate::new(
                "shop",
                ServerConfig::new(Transport::Http {
                    url: "http://127.0.0.1:9/mcp".into(),
                    headers: Default::default(),
                }),
            ),
        )
        .await
        .expect("server");
    let group = b
        .create_server_group(
            p,
            &ServerGroupCreate {
                name: "shop only".into(),
                server_ids: vec![server.id.clone()],
            },
        )
        .await
        .expect("group");
    let env = b
        .create_environment(
            p,
            &EnvironmentCreate {
                name: "staging".into(),
                host_id: host.id.clone(),
                server_attachment_id: Some(group.id),
                ..Default::default()
            },
        )
        .await
        .expect("environment");
    (server.id, env.id)
}

/// One assertion of every type, with the keys each needs and some it does not know.
fn every_assertion() -> Value {
    json!([
        {"type": "toolDescriptionsPresent", "role": "advisory", "minLength": 20},
        {"type": "toolAnnotationsPresent", "role": "advisory", "require": ["readOnlyHint", "destructiveHint"]},
        {"type": "toolNamesUnique", "role": "advisory"},
        {"type": "noDeprecatedToolExposed", "role": "advisory", "severity": "warn"},
        {"type": "toolInputSchemasWellFormed", "role": "advisory"},
        {"type": "toolOutputSchemasPresent", "role": "advisory"},
        {"type": "toolCalledWith", "toolName": "search", "minCount": 2,
         "args": {"args": {"q": "shoes", "max": 50, "ratio": 0.25}, "argumentMatching": "partial"}},
        {"type": "toolCalledAtLeastOnce", "toolName": "search", "role": "required"},
        {"type": "toolNeverCalled", "toolName": "delete"},
        {"type": "onlyToolsCalled", "toolNames": ["search", "buy"]},
        {"type": "firstToolWas", "toolName": "search"},
        {"type": "responseContains", "needle": "yes", "caseSensitive": false},
        {"type": "responseMatches", "pattern": "^total: \\d+ (USD|EUR)$"},
        {"type": "noToolErrors", "severity": "warn"},
        {"type": "finalAssistantMessageNonEmpty"},
        {"type": "tokenBudgetUnder", "tokens": 4000},
        {"type": "widgetRendered", "toolName": "cart"},
        {"type": "widgetRenderLatencyUnder", "ms": 500},
        {"type": "widgetNoConsoleErrors"},
        {"type": "turnCountUnder", "turns": 3},
        {"type": "noEndingQuestion"},
        {"type": "toolLatencyUnder", "ms": 250, "toolName": "search"},
        {"type": "toolResultContains", "needle": "42", "caseSensitive": true},
        {"type": "toolResultMatchesSchema", "schema": {"type": "object", "required": ["sum"],
                                                       "properties": {"sum": {"type": "number"}}}},
        {"type": "toolResultSizeUnder", "maxBytes": 1024},
        {"type": "argumentsMatchToolSchema"},
        {"type": "noRepeatedIdenticalCall", "toolName": "search"},
        {"type": "toolCallCountUnder", "count": 5},
        {"type": "toolCalledBefore", "toolName": "search", "beforeToolName": "buy"},
        {"type": "noDeprecatedToolCalled"},
        {"type": "noDestructiveToolCalled", "role": "gating"},
        {"type": "toolErrorNamesInput", "x-reviewer-note": {"why": ["kept", 1, null]}},
        {"type": "fullPageHasContinuation", "toolName": "list"}
    ])
}

/// A case with every field a case holds, additional step properties and provenance.
fn rich_case() -> Value {
    let excerpt = "## Checkout\n\n- Ask for shoes under $50\n- Expect `search` with max=50\n";
    json!({
        "declaredId": "TC-7",
        "title": "Finds shoes: \"cheap\" ones",
        "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "Find shoes under $50.\nOnly red ones.\n",
             "timeoutMs": 5000, "meta": {"origin": "import", "tags": ["yes", "12", "on"]}},
            {"id": "t1", "kind": "toolCall", "serverName": "shop", "toolName": "search",
             "arguments": {"q": "shoes", "max": 50, "filters": {"color": ["red"], "inStock": true, "note": null}}},
            {"id": "i1", "kind": "interact", "toolName": "cart", "action": {"click": "#buy"}},
            {"id": "a1", "kind": "assert", "assertion": {"type": "widgetVisible", "selector": "#total"},
             "x-custom": null, "weight": 1.5}
        ],
        "expectedOutput": "A list of red shoes",
        "iterations": 3,
        "repetitions": 2,
        "passThreshold": 0.5,
        "isNegative": false,
        "scenario": "A shopper on a budget",
        "intent": "checkout",
        "kind": "regression",
        "models": [{"model": "openai/gpt-4o", "provider": "openai"}, {"model": "builtin/baseline"}],
        "matchOptions": {"toolOrder": "any"},
        "checks": {"mode": "extend", "list": every_assertion()},
        "judge": {"enabled": false},
        "import": {"status": "exact", "sourceCaseKey": "TC-7", "note": "one row, one case"},
        "source": {"format": "markdown", "method": "ai", "fileName": "plan.md",
                   "fileHash": sha256_hex(excerpt), "excerpt": excerpt, "startLine": 3,
                   "endLine": 6, "extractorVersion": "evaldeck-extract/1"},
        "suppressedSuiteStandardCheckIds": ["call.schema", "response.size"]
    })
}

fn prompt_test(title: &str, runs: i64) -> SuiteTest {
    serde_json::from_value(json!({
        "title": title, "runs": runs,
        "steps": [{"id": "s1", "kind": "prompt", "prompt": format!("Please {title}")}]
    }))
    .unwrap()
}

/// A suite using every setting, with plain cases and a rich one.
async fn rich_suite(
    b: &dyn Backend,
    p: &str,
    name: &str,
    (server, env): &(String, String),
) -> String {
    let created = b
        .create_suite(
            p,
            &SuiteCreate {
                name: name.into(),
                description: Some("Checkout flows.\nKept in git.".into()),
                server_ids: vec![server.clone()],
                model: "builtin/baseline".into(),
                provider: None,
                pass_criteria: Some(PassCriteria {
                    minimum_pass_rate: Some(80.0),
                }),
                tags: Some(vec!["smoke".into(), "checkout".into()]),
                tests: vec![prompt_test("Add numbers", 2), prompt_test("Echo", 1)],
            },
        )
        .await
        .expect("suite");
    let id = created.suite_id;
    b.update_suite(
        p,
        &id,
        &SuitePatch {
            environment_ids: Patch::Set(vec![env.clone()]),
            repetitions: Some(2),
            pass_threshold: Some(0.75),
            standard_checks: Some(vec!["call.schema".into(), "discovery.description".into()]),
            ..Default::default()
        },
    )
    .await
    .expect("settings");
    b.create_case(p, &id, &rich_case())
        .await
        .expect("rich case");
    b.create_case(
        p,
        &id,
        &json!({"title": "Echo", "steps": [{"id": "s1", "kind": "prompt", "prompt": "Echo twice"}]}),
    )
    .await
    .expect("a second case titled Echo");
    id
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[tokio::test]
async fn export_apply_export_is_byte_identical() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    for (label, target) in targets(&h) {
        let b = h.embedded(&h.owner);
        let source = h.new_project(&format!("Source {label}"));
        let fresh = h.new_project(&format!("Fresh {label}"));
        let fx = fixtures(&b, &source).await;
        fixtures(&b, &fresh).await;
        rich_suite(&b, &source, "Checkout", &fx).await;

        let first = cli(&target, &source, &["suite", "export", "Checkout"]).await;
        first.ok();
        let text = first.stdout.clone();
        assert!(text.starts_with("# An evaldeck suite."), "{label}: {text}");
        assert!(
            text.contains("\nevaldeck/suite: 1\nname: Checkout\n"),
            "{text}"
        );
        assert!(
            text.contains("servers:\n  - shop\nenvironments:\n  - staging\n"),
            "{text}"
        );
        assert!(
            text.contains("      - type: fullPageHasContinuation\n"),
            "{text}"
        );
        assert!(text.contains("        x-custom: null\n"), "{text}");
        let file = write(dir.path(), &format!("{label}.yaml"), &text);

        // `-o` writes the same bytes.
        let out_path = dir.path().join(format!("{label}-o.yaml"));
        cli(
            &target,
            &source,
            &[
                "suite",
                "export",
                "Checkout",
                "-o",
                out_path.to_str().unwrap(),
            ],
        )
        .await
        .ok();
        assert_eq!(std::fs::read_to_string(&out_path).unwrap(), text);

        // To the same suite: nothing to do, and no confirmation needed.
        let same = cli(&target, &source, &["suite", "apply", &file]).await;
        same.ok();
        assert!(
            same.stdout.contains("no changes"),
            "{label}: {}",
            same.stdout
        );

        // To a fresh project: created, and exported byte for byte the same.
        let created = cli(&target, &fresh, &["suite", "apply", &file, "--yes"]).await;
        created.ok();
        assert!(
            created
                .stdout
                .contains("+ create suite `Checkout` on shop with 4 cases"),
            "{label}: {}",
            created.stdout
        );
        let again = cli(&target, &fresh, &["suite", "export", "Checkout"]).await;
        again.ok();
        assert_eq!(
            again.stdout, text,
            "{label}: export → apply → export differs"
        );
        let live = b.suite(&fresh, "Checkout").await.unwrap();
        assert_eq!(live.case_count, 4);
        let cases = b.cases(&fresh, &live.id).await.unwrap().items;
        assert_eq!(cases[2].steps[0].extra["timeoutMs"], json!(5000));
        assert_eq!(cases[2].declared_id.as_deref(), Some("TC-7"));

        // Applying it there again is a no-op too.
        let noop = cli(&target, &fresh, &["suite", "apply", &file]).await;
        noop.ok();
        assert!(noop.stdout.contains("no changes"), "{}", noop.stdout);
    }
}

/// The exported file with one case edited, one removed, the model and the tags changed.
fn edited(text: &str) -> String {
    let t = text.replacen("  model: builtin/baseline\n", "  model: openai/gpt-4o\n", 1);
    let t = t.replacen(
        "  tags:\n    - smoke\n    - checkout\n",
        "  tags:\n    - nightly\n",
        1,
    );
    let t = t.replacen(
        "  - title: Add numbers\n    steps:\n      - id: s1\n        kind: prompt\n        prompt: Please Add numbers\n    iterations: 2\n",
        "  - title: Add numbers\n    steps:\n      - id: s1\n        kind: prompt\n        prompt: Please add 2 and 3\n    iterations: 4\n",
        1,
    );
    // The second case titled Echo (the last one) goes.
    let cut = t.rfind("  - title: Echo\n").expect("the second Echo");
    let t = t[..cut].to_string();
    assert_ne!(t, text);
    t
}

#[tokio::test]
async fn dry_run_prints_the_diff_and_changes_nothing() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let b = h.embedded(&h.owner);
    let fx = fixtures(&b, &h.project).await;
    rich_suite(&b, &h.project, "Checkout", &fx).await;
    let target = &targets(&h)[1].1;
    let before = cli(target, &h.project, &["suite", "export", "Checkout"]).await;
    before.ok();
    let file = write(dir.path(), "suite.yaml", &edited(&before.stdout));

    let dry = cli(target, &h.project, &["suite", "apply", &file, "--dry-run"]).await;
    dry.ok();
    for line in [
        "  ~ settings.model: \"builtin/baseline\" → \"openai/gpt-4o\"",
        "  - case `Echo` (",
        "  ~ case `Add numbers`: steps, iterations",
        "dry run: nothing applied",
        "  ~ settings.tags: [\"smoke\",\"checkout\"] → [\"nightly\"]",
        "2 settings, 1 changed, 1 removed",
    ] {
        assert!(dry.stdout.contains(line), "{line:?} in\n{}", dry.stdout);
    }
    let after = cli(target, &h.project, &["suite", "export", "Checkout"]).await;
    assert_eq!(after.stdout, before.stdout, "a dry run changes nothing");

    // `--json` gives the same diff to programs.
    let json = cli(
        target,
        &h.project,
        &["--json", "suite", "apply", &file, "--dry-run"],
    )
    .await;
    json.ok();
    let v: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(v["applied"], false);
    let ops: Vec<&str> = v["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["op"].as_str().unwrap())
        .collect();
    assert_eq!(ops, ["set", "set", "removeCase", "updateCase"]);
}

#[tokio::test]
async fn apply_updates_a_changed_case_and_removes_a_deleted_one() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let b = h.embedded(&h.owner);
    for (label, target) in targets(&h) {
        let p = h.new_project(&format!("Apply {label}"));
        let fx = fixtures(&b, &p).await;
        let suite = rich_suite(&b, &p, "Checkout", &fx).await;
        let before = b.cases(&p, &suite).await.unwrap().items;
        let exported = cli(&target, &p, &["suite", "export", "Checkout"]).await;
        let text = edited(&exported.stdout);
        let file = write(dir.path(), &format!("{label}.yaml"), &text);

        // Without a terminal, applying needs --yes; nothing is written.
        let refused = cli(&target, &p, &["suite", "apply", &file]).await;
        assert_eq!(refused.code, 2, "{label}: {}", refused.stderr);
        assert!(refused.stderr.contains("--yes"), "{}", refused.stderr);
        assert_eq!(b.cases(&p, &suite).await.unwrap().items, before);

        let applied = cli(&target, &p, &["suite", "apply", &file, "--yes"]).await;
        applied.ok();
        assert!(
            applied
                .stdout
                .contains("applied 4 changes to suite `Checkout`"),
            "{}",
            applied.stdout
        );
        let after = b.cases(&p, &suite).await.unwrap().items;
        assert_eq!(after.len(), 3, "{label}: the second Echo is gone");
        assert_eq!(after[0].id, before[0].id, "edited in place, same id");
        assert_eq!(after[0].iterations, 4);
        assert_eq!(
            after[0].steps[0].prompt.as_deref(),
            Some("Please add 2 and 3")
        );
        assert!(after.iter().all(|c| c.id != before[3].id));
        assert_eq!(after[1], before[1], "untouched cases are untouched");
        let s = b.suite(&p, &suite).await.unwrap();
        assert_eq!(s.settings.model, "openai/gpt-4o");
        assert_eq!(s.settings.tags, ["nightly"]);

        // The suite now reads back as the file, byte for byte.
        let again = cli(&target, &p, &["suite", "export", "Checkout"]).await;
        assert_eq!(again.stdout, text);
    }
}

#[tokio::test]
async fn a_new_case_in_the_middle_is_appended_and_said_so() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let b = h.embedded(&h.owner);
    let fx = fixtures(&b, &h.project).await;
    let suite = rich_suite(&b, &h.project, "Checkout", &fx).await;
    let target = &targets(&h)[0].1;
    let text = cli(target, &h.project, &["suite", "export", "Checkout"])
        .await
        .stdout;
    let text = text.replacen(
        "cases:\n",
        "cases:\n  - title: Brand new\n    steps:\n      - id: s1\n        kind: prompt\n        prompt: Hello\n",
        1,
    );
    let file = write(dir.path(), "suite.yaml", &text);
    let run = cli(target, &h.project, &["suite", "apply", &file, "-y"]).await;
    run.ok();
    assert!(
        run.stdout.contains("  + case `Brand new`"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("case order will differ"),
        "{}",
        run.stdout
    );
    let cases = b.cases(&h.project, &suite).await.unwrap().items;
    assert_eq!(cases.len(), 5);
    assert_eq!(cases[4].title, "Brand new");
    assert_eq!(cases[4].models[0].model, "builtin/baseline");
}

#[tokio::test]
async fn faults_in_the_file_carry_line_and_column() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let b = h.embedded(&h.owner);
    fixtures(&b, &h.project).await;
    for (label, target) in targets(&h) {
        // A YAML syntax error.
        let file = write(
            dir.path(),
            "syntax.yaml",
            "evaldeck/suite: 1\nname: Broken\nservers: [shop\nsettings:\n  model: builtin/baseline\ncases: []\n",
        );
        let run = cli(&target, &h.project, &["suite", "apply", &file, "--dry-run"]).await;
        assert_eq!(run.code, 2, "{label}: {}", run.stderr);
        assert!(
            run.stderr.contains("syntax.yaml:4:") && run.stderr.contains("not valid YAML"),
            "{}",
            run.stderr
        );

        // A spec violation deep in a case, and a misspelt key.
        let file = write(
            dir.path(),
            "deep.yaml",
            "\
evaldeck/suite: 1
name: Deep
servers: [shop]
settings:
  model: builtin/baseline
cases:
  - title: fine
    steps:
      - id: s1
        kind: prompt
        prompt: hi
  - title: broken
    steps:
      - id: s1
        kind: prompt
        prompt: hi
    checks:
      mode: extend
      list:
        - type: toolCalledWith
          toolName: search
          args:
            args: {}
            argumentMatching: fuzzy
    scenaro: typo
",
        );
        let run = cli(&target, &h.project, &["suite", "apply", &file, "--dry-run"]).await;
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(
            run.stderr
                .contains("deep.yaml:24:31: /cases/1/checks/list/0/args/argumentMatching"),
            "{}",
            run.stderr
        );
        assert!(
            run.stderr
                .contains("deep.yaml:25:5: unknown field `scenaro`"),
            "{}",
            run.stderr
        );
        assert!(
            b.suite(&h.project, "Deep").await.is_err(),
            "nothing created"
        );

        // A name the project does not have is found online, and still placed in the file.
        let file = write(
            dir.path(),
            "names.yaml",
            "evaldeck/suite: 1\nname: Names\nservers:\n  - shop\n  - nowhere\nenvironments: [prod]\nsettings: {model: builtin/baseline}\ncases: []\n",
        );
        let run = cli(&target, &h.project, &["--json", "suite", "apply", &file]).await;
        assert_eq!(run.code, 2, "{}", run.stderr);
        let e: Value = serde_json::from_str(run.stderr.trim()).unwrap();
        let errors = e["details"]["errors"].as_array().unwrap();
        assert_eq!(
            errors
                .iter()
                .map(|e| (e["path"].as_str().unwrap(), e["line"].as_u64().unwrap()))
                .collect::<Vec<_>>(),
            [("/servers/1", 5), ("/environments/0", 6)]
        );
    }
}

#[tokio::test]
async fn export_refuses_a_lossy_suite_and_writes_nothing() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let b = h.embedded(&h.owner);
    let fx = fixtures(&b, &h.project).await;
    let env = fx.1.clone();
    let suite = rich_suite(&b, &h.project, "Checkout", &fx).await;
    let target = &targets(&h)[1].1;
    let out = dir.path().join("suite.yaml");
    let out_arg = out.display().to_string();
    let args = ["suite", "export", "Checkout", "-o", out_arg.as_str()];
    let export = || cli(target, &h.project, &args);

    // A key YAML cannot hold as a plain mapping key (over 1024 characters).
    let long = b
        .create_case(
            &h.project,
            &suite,
            &json!({"title": "Long key", "steps": [{"id": "s1", "kind": "prompt", "prompt": "p",
                    "k".repeat(1100): 1}]}),
        )
        .await
        .unwrap();
    let run = export().await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("refusing to export"), "{}", run.stderr);
    assert!(run.stdout.is_empty());
    assert!(!out.exists(), "nothing is written");
    b.delete_case(&h.project, &suite, &long.id).await.unwrap();
    export().await.ok();
    assert!(out.exists());
    std::fs::remove_file(&out).unwrap();

    // An archived environment whose name a live one now has: a file cannot name it.
    let archived = b.environment(&h.project, &env).await.unwrap();
    b.archive_environment(&h.project, &env, archived.revision)
        .await
        .unwrap();
    let host = archived.host_id.clone();
    b.create_environment(
        &h.project,
        &EnvironmentCreate {
            name: "staging".into(),
            host_id: host,
            server_attachment_id: archived.server_attachment_id.clone(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let run = export().await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr.contains("/environments/0") && run.stderr.contains("archived"),
        "{}",
        run.stderr
    );
    assert!(!out.exists());
}

#[tokio::test]
async fn editing_provenance_replaces_the_case() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let b = h.embedded(&h.owner);
    let fx = fixtures(&b, &h.project).await;
    let suite = rich_suite(&b, &h.project, "Checkout", &fx).await;
    let before = b.cases(&h.project, &suite).await.unwrap().items;
    let target = &targets(&h)[1].1;
    let text = cli(target, &h.project, &["suite", "export", "Checkout"])
        .await
        .stdout
        .replacen("fileName: plan.md", "fileName: checkout-plan.md", 1);
    let file = write(dir.path(), "suite.yaml", &text);
    let run = cli(target, &h.project, &["suite", "apply", &file, "--yes"]).await;
    run.ok();
    assert!(
        run.stdout
            .contains("± case `Finds shoes: \"cheap\" ones`: replaced (source cannot be edited)"),
        "{}",
        run.stdout
    );
    let after = b.cases(&h.project, &suite).await.unwrap().items;
    assert_eq!(after.len(), 4);
    let replaced = after.last().unwrap();
    assert_ne!(replaced.id, before[2].id);
    assert_eq!(
        replaced.source.as_ref().unwrap().file_name,
        "checkout-plan.md"
    );
    assert_eq!(replaced.checks, before[2].checks);
    // Applying the file again changes nothing: only the order differs, which apply says.
    let again = cli(target, &h.project, &["suite", "apply", &file]).await;
    again.ok();
    assert!(again.stdout.contains("no changes"), "{}", again.stdout);
    assert!(
        again.stdout.contains("case order differs from the file's"),
        "{}",
        again.stdout
    );
}

#[tokio::test]
async fn ids_match_cases_and_an_unknown_id_is_refused() {
    let h = Harness::start().await;
    let dir = tempfile::tempdir().unwrap();
    let b = h.embedded(&h.owner);
    let fx = fixtures(&b, &h.project).await;
    let suite = rich_suite(&b, &h.project, "Checkout", &fx).await;
    let fresh = h.new_project("Fresh");
    fixtures(&b, &fresh).await;
    let cases = b.cases(&h.project, &suite).await.unwrap().items;
    let target = &targets(&h)[0].1;
    let text = cli(
        target,
        &h.project,
        &["suite", "export", "Checkout", "--ids"],
    )
    .await
    .stdout;
    assert!(
        text.contains(&format!(
            "  - id: {}\n    title: Add numbers\n",
            cases[0].id
        )),
        "{text}"
    );
    // Retitled, yet matched by its id: an edit, not a removal and an addition.
    let file = write(
        dir.path(),
        "ids.yaml",
        &text.replacen("title: Add numbers", "title: Adds two numbers", 1),
    );
    let run = cli(target, &h.project, &["suite", "apply", &file, "-y"]).await;
    run.ok();
    assert!(
        run.stdout.contains("~ case `Adds two numbers`: title"),
        "{}",
        run.stdout
    );
    assert_eq!(
        b.case(&h.project, &suite, &cases[0].id)
            .await
            .unwrap()
            .title,
        "Adds two numbers"
    );
    // Elsewhere those ids mean nothing: refused at the id's line, nothing created.
    let run = cli(target, &fresh, &["suite", "apply", &file, "-y"]).await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(b.suite(&fresh, "Checkout").await.is_err());
    let line = text
        .lines()
        .position(|l| l.starts_with("  - id: "))
        .unwrap()
        + 1;
    assert!(
        run.stderr
            .contains(&format!("ids.yaml:{line}:9: /cases/0/id")),
        "{}",
        run.stderr
    );
}
