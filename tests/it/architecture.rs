//! The shape of the house, checked: the crate graph keeps the arrows, and storage is
//! reached through the store's traits only.

use std::path::{Path, PathBuf};

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// No source outside the store module names `rusqlite`: the service reaches storage only
/// through the per-aggregate traits (`service::store::Storage`), so a second store can be
/// added without touching it.
#[test]
fn rusqlite_stays_inside_the_store() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let store = root.join("crates/core/src/service/store");
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates"), &mut files);
    assert!(files.len() > 100, "the sources were found");
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(&store))
        // `?` on a SQLite error: the conversion is defined with `Error` (feature `sqlite`).
        .filter(|f| !f.ends_with("crates/contract/src/spec/error.rs"))
        .filter(|f| {
            std::fs::read_to_string(f)
                .unwrap()
                .lines()
                .any(|l| l.contains("rusqlite") && !l.trim_start().starts_with("//"))
        })
        .map(|f| f.strip_prefix(root).unwrap().display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "rusqlite named outside crates/core/src/service/store: {offenders:?}"
    );
    // And the store module does use it (the check looks at the right place).
    let mut inside = Vec::new();
    rust_files(&store, &mut inside);
    assert!(
        inside
            .iter()
            .any(|f| std::fs::read_to_string(f).unwrap().contains("rusqlite::"))
    );
}

/// The direct dependencies of each workspace crate, from `cargo metadata`: the normal and
/// build ones, or with `dev` the dev-dependencies alone.
fn workspace_deps_of_kind(dev: bool) -> std::collections::BTreeMap<String, Vec<String>> {
    let out = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--no-deps",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| (d["kind"].as_str() == Some("dev")) == dev)
                .map(|d| d["name"].as_str().unwrap().to_string())
                .collect();
            (p["name"].as_str().unwrap().to_string(), deps)
        })
        .collect()
}

fn workspace_deps() -> std::collections::BTreeMap<String, Vec<String>> {
    workspace_deps_of_kind(false)
}

/// The shared test helpers are a dev-dependency only: nothing that ships links them.
#[test]
fn test_helpers_never_ship() {
    for (krate, deps) in workspace_deps() {
        assert!(
            !deps.iter().any(|d| d == "evaldeck-testkit"),
            "{krate} depends on the test helpers outside its dev-dependencies"
        );
    }
    assert!(workspace_deps_of_kind(true)["evaldeck"].contains(&"evaldeck-testkit".to_string()));
}

/// The workbench and the CLI hold a `Backend`: they depend on the client crate, never on
/// the core or the HTTP API; the arrows point one way (contract ← core ← operations ← api;
/// contract ← client ← tui, cli).
#[test]
fn the_crate_graph_keeps_the_arrows() {
    let deps = workspace_deps();
    let of = |c: &str| -> Vec<&str> {
        deps.get(c)
            .unwrap_or_else(|| panic!("crate {c} in the workspace: {deps:?}"))
            .iter()
            .map(String::as_str)
            .filter(|d| d.starts_with("evaldeck"))
            .collect()
    };
    for leaf in ["evaldeck-tui", "evaldeck-cli"] {
        let d = of(leaf);
        assert!(d.contains(&"evaldeck-client"), "{leaf}: {d:?}");
        for banned in ["evaldeck-core", "evaldeck-api", "evaldeck-operations"] {
            assert!(!d.contains(&banned), "{leaf} depends on {banned}: {d:?}");
        }
    }
    assert!(of("evaldeck-contract").is_empty());
    assert_eq!(of("evaldeck-core"), ["evaldeck-contract"]);
    for c in [
        "evaldeck-contract",
        "evaldeck-core",
        "evaldeck-operations",
        "evaldeck-api",
    ] {
        for up in ["evaldeck-client", "evaldeck-tui", "evaldeck-cli"] {
            assert!(!of(c).contains(&up), "{c} depends on {up}");
        }
    }
    assert!(!of("evaldeck-client").contains(&"evaldeck-api"));
}
