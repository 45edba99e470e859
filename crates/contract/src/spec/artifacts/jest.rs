//! Jest's `--json` output and Vitest's `--reporter=json` output (the same shape):
//! `testResults[]` (one per test file) of `assertionResults[]`.
//!
//! `passed` and `failed` assertions become results; `pending`, `skipped`, `todo` and
//! `disabled` ones are not run. The title is `fullName` (else the ancestor titles and the
//! title joined by spaces); `duration` is milliseconds; `failureMessages` joined become
//! `error`; the test file (relative to the common directory of all files) goes to
//! `metadata.file`. A test file that failed to run at all (a syntax error: no assertions,
//! `status: failed`, a `message`) becomes one failed result titled after the file.

use serde_json::{Map, Value, json};

use super::{Occurrences, ParsedArtifact, error_text, external_id, invalid, title};
use crate::spec::error::Error;
use crate::spec::ingest::{ArtifactKind, IngestResult, MAX_DURATION_MS};

/// Jest or Vitest, when `v` has this shape.
pub fn sniff(v: &Value) -> Option<ArtifactKind> {
    let files = v.get("testResults")?.as_array()?;
    let vitest_meta = files.iter().any(|f| {
        f.get("assertionResults")
            .and_then(Value::as_array)
            .is_some_and(|a| a.iter().any(|x| x.get("meta").is_some()))
    });
    let jest_keys = v.get("wasInterrupted").is_some() || v.get("openHandles").is_some();
    Some(if jest_keys && !vitest_meta {
        ArtifactKind::Jest
    } else {
        ArtifactKind::Vitest
    })
}

fn str_of<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

/// The longest directory prefix the file paths share, so titles and metadata stay short.
fn common_dir(paths: &[&str]) -> String {
    let Some(first) = paths.first() else {
        return String::new();
    };
    let mut prefix: &str = first.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    for p in &paths[1..] {
        while !prefix.is_empty() && !p.starts_with(&format!("{prefix}/")) {
            prefix = prefix.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        }
    }
    if prefix.is_empty() {
        String::new()
    } else {
        format!("{prefix}/")
    }
}

/// Reads a Jest or Vitest JSON report; `kind` labels the results.
pub fn parse(text: &str, kind: ArtifactKind) -> Result<ParsedArtifact, Error> {
    let v: Value = serde_json::from_str(text).map_err(|e| {
        invalid(format!(
            "not valid JSON at line {}, column {}: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let files = v
        .get("testResults")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            invalid(format!(
                "JSON but not a {} report: no `testResults` array",
                if kind == ArtifactKind::Jest {
                    "Jest"
                } else {
                    "Vitest"
                }
            ))
        })?;
    let names: Vec<&str> = files.iter().filter_map(|f| str_of(f, "name")).collect();
    let base = common_dir(&names);
    let mut out = ParsedArtifact {
        kind,
        suite_name: None,
        results: Vec::new(),
        not_run: 0,
    };
    let mut seen = Occurrences::default();
    for (i, f) in files.iter().enumerate() {
        let file = str_of(f, "name").unwrap_or_default();
        let rel = file.strip_prefix(&base).unwrap_or(file).to_string();
        let asserts = match f.get("assertionResults") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(a)) => a.as_slice(),
            Some(_) => {
                return Err(invalid(format!(
                    "`testResults/{i}/assertionResults` is not an array"
                )));
            }
        };
        if asserts.is_empty() && str_of(f, "status") == Some("failed") {
            let parts = [rel.as_str(), "(file)"];
            let mut r = IngestResult::new(
                title(&format!("{rel} (test file failed to run)")),
                false,
                external_id(kind, &parts, seen.next(&parts)),
            );
            r.error = Some(error_text(
                str_of(f, "message")
                    .filter(|m| !m.trim().is_empty())
                    .unwrap_or("the test file failed to run"),
            ));
            r.metadata = Some(json!({"format": kind.as_str(), "file": rel}));
            out.results.push(r);
            continue;
        }
        for (j, a) in asserts.iter().enumerate() {
            let status = str_of(a, "status").ok_or_else(|| {
                invalid(format!(
                    "`testResults/{i}/assertionResults/{j}` has no `status`"
                ))
            })?;
            let passed = match status {
                "passed" => true,
                "failed" => false,
                _ => {
                    out.not_run += 1;
                    continue;
                }
            };
            let ancestors: Vec<&str> = a
                .get("ancestorTitles")
                .and_then(Value::as_array)
                .map(|x| x.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let name = match str_of(a, "fullName").filter(|s| !s.trim().is_empty()) {
                Some(n) => n.to_string(),
                None => ancestors
                    .iter()
                    .copied()
                    .chain(str_of(a, "title"))
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            let parts = [rel.as_str(), name.as_str()];
            let mut r = IngestResult::new(
                title(&name),
                passed,
                external_id(kind, &parts, seen.next(&parts)),
            );
            r.external_case_id = Some(external_id(kind, &parts, 0));
            r.duration_ms = a
                .get("duration")
                .and_then(Value::as_f64)
                .filter(|d| d.is_finite() && *d >= 0.0)
                .map(|d| d.min(MAX_DURATION_MS));
            let failures: Vec<&str> = a
                .get("failureMessages")
                .and_then(Value::as_array)
                .map(|x| x.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if !passed {
                r.error = Some(error_text(&if failures.is_empty() {
                    "the test failed".to_string()
                } else {
                    failures.join("\n\n")
                }));
            }
            let mut meta = Map::new();
            meta.insert("format".into(), json!(kind.as_str()));
            meta.insert("file".into(), json!(rel));
            if !ancestors.is_empty() {
                meta.insert("ancestorTitles".into(), json!(ancestors));
            }
            if let Some(l) = a.get("location").filter(|l| !l.is_null()) {
                meta.insert("location".into(), l.clone());
            }
            r.metadata = Some(Value::Object(meta));
            out.results.push(r);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const JEST: &str = include_str!("../../../../../assets/artifacts/jest-results.json");
    const VITEST: &str = include_str!("../../../../../assets/artifacts/vitest-results.json");

    #[test]
    fn reads_the_jest_sample() {
        let v: Value = serde_json::from_str(JEST).unwrap();
        assert_eq!(sniff(&v), Some(ArtifactKind::Jest));
        let a = parse(JEST, ArtifactKind::Jest).unwrap();
        assert_eq!(a.results.len(), 5);
        assert_eq!(a.not_run, 2, "pending and todo");
        assert_eq!(a.failed(), 1);
        let f = a.results.iter().find(|r| !r.passed).unwrap();
        assert_eq!(
            f.case_title,
            "weather server get_forecast flags an unknown city as an error"
        );
        assert!(f.error.as_deref().unwrap().contains("Expected: true"));
        assert_eq!(f.duration_ms, Some(97.0));
        assert_eq!(f.metadata.as_ref().unwrap()["file"], "forecast.test.ts");
    }

    #[test]
    fn reads_the_vitest_sample() {
        let v: Value = serde_json::from_str(VITEST).unwrap();
        assert_eq!(sniff(&v), Some(ArtifactKind::Vitest));
        let a = parse(VITEST, ArtifactKind::Vitest).unwrap();
        assert_eq!((a.results.len(), a.not_run, a.failed()), (5, 1, 1));
        assert_eq!(a.results[0].duration_ms, Some(241.83));
        assert_eq!(a.results[0].metadata.as_ref().unwrap()["format"], "vitest");
    }

    #[test]
    fn a_file_that_failed_to_run_is_one_failure() {
        let text = r#"{"testResults": [{"name": "/w/a.test.ts", "status": "failed",
            "message": "SyntaxError: Unexpected token", "assertionResults": []}]}"#;
        let a = parse(text, ArtifactKind::Vitest).unwrap();
        assert_eq!(a.results.len(), 1);
        assert!(!a.results[0].passed);
        assert!(
            a.results[0]
                .error
                .as_deref()
                .unwrap()
                .contains("SyntaxError")
        );
    }

    #[test]
    fn malformed_json_is_a_clear_error() {
        let e = parse("{\n\"testResults\": [", ArtifactKind::Jest).unwrap_err();
        assert!(e.message.contains("line 2"), "{}", e.message);
        let e = parse(r#"{"numTotalTests": 1}"#, ArtifactKind::Jest).unwrap_err();
        assert!(e.message.contains("testResults"), "{}", e.message);
        let e = parse(
            r#"{"testResults": [{"assertionResults": [{"title": "x"}]}]}"#,
            ArtifactKind::Jest,
        )
        .unwrap_err();
        assert!(e.message.contains("status"), "{}", e.message);
        assert_eq!(common_dir(&["/a/b/c.ts", "/a/b/d/e.ts"]), "/a/b/");
        assert_eq!(common_dir(&["c.ts"]), "");
    }
}
