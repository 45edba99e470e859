//! The shape of the house, checked: storage is reached through the store's traits only.

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
    let store = root.join("src/service/store");
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 100, "the sources were found");
    let offenders: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(&store))
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
        "rusqlite named outside src/service/store: {offenders:?}"
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
