//! Test helpers shared by the test suites (a dev-dependency only): [`served`], a real
//! `serve` on loopback over a fresh database with both backends acting as one principal,
//! and [`workbench`], the whole workbench driven headless.

pub mod served;
pub mod workbench;

use std::path::PathBuf;

/// The `evaldeck` binary cargo built beside the running test executable (an integration
/// test lives in `target/<profile>/deps/`, the binary in `target/<profile>/`). The seeded
/// demo server runs it, not the test runner.
pub fn evaldeck_bin() -> String {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("a target directory");
    let bin: PathBuf = dir.join(format!("evaldeck{}", std::env::consts::EXE_SUFFIX));
    assert!(
        bin.exists(),
        "{} is missing: run the tests with cargo, which builds the binary first",
        bin.display()
    );
    bin.to_string_lossy().into_owned()
}
