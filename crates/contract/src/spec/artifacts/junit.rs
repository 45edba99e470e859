//! JUnit XML (pytest, jest-junit, Maven Surefire, Go's gotestsum …): every `<testcase>` under
//! `<testsuites>` or `<testsuite>` (nested suites included).
//!
//! A case passes unless it holds a `<failure>` or an `<error>`; a `<skipped>` case is not
//! run. The title is `classname::name` (just `name` when the class is empty or already in
//! the name, as jest-junit writes it); `time` (seconds) becomes `durationMs`; the failure's
//! `type`, `message` and text become `error`; the case's `<system-out>` and `<system-err>`
//! become its `trace` (a string); `classname`, `file`, `line`, the suite and the outcome go
//! to `metadata`.

use quick_xml::XmlVersion;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};
use quick_xml::reader::Reader;
use serde_json::{Map, Value, json};

use super::{Occurrences, ParsedArtifact, error_text, external_id, invalid, title};
use crate::spec::error::Error;
use crate::spec::ingest::{ArtifactKind, IngestResult};

#[derive(Clone, Copy, PartialEq)]
enum Child {
    Failure,
    Error,
    Skipped,
    Out,
    Err,
}

#[derive(Default)]
struct Case {
    name: String,
    classname: String,
    file: Option<String>,
    line: Option<String>,
    time: Option<f64>,
    suite: String,
    outcome: Option<&'static str>,
    problem: Vec<String>,
    skipped: bool,
    out: String,
    err: String,
}

fn attrs(e: &BytesStart) -> Result<Map<String, Value>, Error> {
    let mut m = Map::new();
    for a in e.attributes() {
        let a = a.map_err(|e| invalid(format!("not well-formed XML: {e}")))?;
        let key = a.key.local_name().as_ref().to_string();
        let value = a
            .normalized_value(XmlVersion::Implicit1_0)
            .map_err(|e| invalid(format!("not well-formed XML: {e}")))?;
        m.insert(key, Value::String(value.into_owned()));
    }
    Ok(m)
}

fn get(m: &Map<String, Value>, k: &str) -> Option<String> {
    m.get(k)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// The 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: u64) -> usize {
    let end = (offset as usize).min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

struct Reading {
    suites: Vec<String>,
    root_name: Option<String>,
    first_suite: Option<String>,
    saw_root: bool,
    case: Option<Case>,
    child: Option<(Child, String, Map<String, Value>)>,
    out: ParsedArtifact,
    seen: Occurrences,
}

impl Reading {
    fn open(&mut self, e: &BytesStart, empty: bool) -> Result<(), Error> {
        let name = e.local_name();
        match name.as_ref() {
            "testsuites" => {
                self.saw_root = true;
                if self.root_name.is_none() {
                    self.root_name = get(&attrs(e)?, "name");
                }
            }
            "testsuite" => {
                self.saw_root = true;
                let n = get(&attrs(e)?, "name").unwrap_or_default();
                if self.first_suite.is_none() && !n.is_empty() {
                    self.first_suite = Some(n.clone());
                }
                if !empty {
                    self.suites.push(n);
                }
            }
            "testcase" if self.case.is_none() => {
                let a = attrs(e)?;
                let case = Case {
                    name: get(&a, "name").unwrap_or_default(),
                    classname: get(&a, "classname").unwrap_or_default(),
                    file: get(&a, "file"),
                    line: get(&a, "line"),
                    time: get(&a, "time")
                        .and_then(|t| t.parse::<f64>().ok())
                        .filter(|t| t.is_finite() && *t >= 0.0),
                    suite: self.suites.last().cloned().unwrap_or_default(),
                    ..Case::default()
                };
                self.case = Some(case);
                if empty {
                    self.close_case();
                }
            }
            other if self.case.is_some() && self.child.is_none() => {
                let kind = match other {
                    "failure" => Child::Failure,
                    "error" => Child::Error,
                    "skipped" => Child::Skipped,
                    "system-out" => Child::Out,
                    "system-err" => Child::Err,
                    _ => return Ok(()),
                };
                self.child = Some((kind, String::new(), attrs(e)?));
                if empty {
                    self.close_child();
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn text(&mut self, s: &str) {
        if let Some((_, buf, _)) = self.child.as_mut() {
            buf.push_str(s);
        }
    }

    fn close(&mut self, name: &str) {
        match name {
            "testsuite" => {
                self.suites.pop();
            }
            "testcase" => self.close_case(),
            "failure" | "error" | "skipped" | "system-out" | "system-err" => self.close_child(),
            _ => {}
        }
    }

    fn close_child(&mut self) {
        let (Some((kind, text, a)), Some(case)) = (self.child.take(), self.case.as_mut()) else {
            return;
        };
        match kind {
            Child::Failure | Child::Error => {
                case.outcome = Some(if kind == Child::Failure {
                    "failure"
                } else {
                    "error"
                });
                let head = match (get(&a, "type"), get(&a, "message")) {
                    (Some(t), Some(m)) if !m.starts_with(&t) => format!("{t}: {m}"),
                    (_, Some(m)) => m,
                    (Some(t), None) => t,
                    (None, None) => String::new(),
                };
                let body = text.trim();
                let msg = match (head.is_empty(), body.is_empty()) {
                    (false, false) => format!("{head}\n{body}"),
                    (false, true) => head,
                    (true, _) => body.to_string(),
                };
                case.problem.push(if msg.is_empty() {
                    format!("test {}", case.outcome.unwrap_or("failure"))
                } else {
                    msg
                });
            }
            Child::Skipped => case.skipped = true,
            Child::Out => case.out.push_str(&text),
            Child::Err => case.err.push_str(&text),
        }
    }

    fn close_case(&mut self) {
        let Some(case) = self.case.take() else { return };
        if case.skipped && case.outcome.is_none() {
            self.out.not_run += 1;
            return;
        }
        let full = if case.classname.is_empty() || case.name.contains(&case.classname) {
            case.name.clone()
        } else {
            format!("{}::{}", case.classname, case.name)
        };
        let parts = [
            case.suite.as_str(),
            case.classname.as_str(),
            case.name.as_str(),
        ];
        let n = self.seen.next(&parts);
        let mut r = IngestResult::new(
            title(&full),
            case.outcome.is_none(),
            external_id(ArtifactKind::Junit, &parts, n),
        );
        r.external_case_id = Some(external_id(ArtifactKind::Junit, &parts, 0));
        r.duration_ms = case
            .time
            .map(|t| (t * 1000.0).min(crate::spec::ingest::MAX_DURATION_MS));
        if !case.problem.is_empty() {
            r.error = Some(error_text(&case.problem.join("\n\n")));
        }
        let (out, err) = (case.out.trim(), case.err.trim());
        r.trace = match (out.is_empty(), err.is_empty()) {
            (true, true) => None,
            (false, true) => Some(json!(out)),
            (true, false) => Some(json!(format!("[stderr]\n{err}"))),
            (false, false) => Some(json!(format!("{out}\n[stderr]\n{err}"))),
        };
        let mut meta = Map::new();
        meta.insert("format".into(), json!("junit"));
        if !case.classname.is_empty() {
            meta.insert("classname".into(), json!(case.classname));
        }
        if !case.suite.is_empty() {
            meta.insert("suite".into(), json!(case.suite));
        }
        if let Some(f) = case.file {
            meta.insert("file".into(), json!(f));
        }
        if let Some(l) = case.line {
            meta.insert("line".into(), json!(l));
        }
        meta.insert("outcome".into(), json!(case.outcome.unwrap_or("passed")));
        r.metadata = Some(Value::Object(meta));
        self.out.results.push(r);
    }
}

/// Reads a JUnit XML report.
pub fn parse(text: &str) -> Result<ParsedArtifact, Error> {
    let mut reader = Reader::from_str(text);
    let mut st = Reading {
        suites: Vec::new(),
        root_name: None,
        first_suite: None,
        saw_root: false,
        case: None,
        child: None,
        out: ParsedArtifact {
            kind: ArtifactKind::Junit,
            suite_name: None,
            results: Vec::new(),
            not_run: 0,
        },
        seen: Occurrences::default(),
    };
    loop {
        let ev = reader.read_event().map_err(|e| {
            invalid(format!(
                "not well-formed XML at line {}: {e}",
                line_of(text, reader.error_position())
            ))
        })?;
        match ev {
            Event::Start(e) => st.open(&e, false)?,
            Event::Empty(e) => st.open(&e, true)?,
            Event::End(e) => st.close(e.local_name().as_ref()),
            Event::Text(t) => st.text(&t.xml10_content()),
            Event::CData(t) => st.text(&t.xml10_content()),
            Event::GeneralRef(r) => {
                let s = match r.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => resolve_predefined_entity(&r)
                        .map(str::to_string)
                        .unwrap_or_else(|| format!("&{};", &*r)),
                    Err(e) => {
                        return Err(invalid(format!(
                            "not well-formed XML at line {}: {e}",
                            line_of(text, reader.buffer_position())
                        )));
                    }
                };
                st.text(&s);
            }
            Event::Eof => break,
            _ => {}
        }
        if st.out.results.len() + st.out.not_run > super::MAX_CASES {
            break;
        }
    }
    if !st.saw_root {
        return Err(invalid(
            "an XML file but not a JUnit report: no <testsuites> or <testsuite> element",
        ));
    }
    st.out.suite_name = st.root_name.or(st.first_suite);
    Ok(st.out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PYTEST: &str = include_str!("../../../../../assets/artifacts/pytest-junit.xml");

    #[test]
    fn reads_the_pytest_sample() {
        let a = parse(PYTEST).unwrap();
        assert_eq!(a.suite_name.as_deref(), Some("mcp-server contract tests"));
        assert_eq!(a.results.len(), 7);
        assert_eq!(a.not_run, 1);
        assert_eq!(a.failed(), 3);
        let first = &a.results[0];
        assert_eq!(
            first.case_title,
            "tests.test_mcp_tools.TestGetSum::test_adds_two_integers"
        );
        assert!(first.passed);
        assert_eq!(first.duration_ms, Some(412.0));
        assert_eq!(
            first.metadata.as_ref().unwrap()["file"],
            "tests/test_mcp_tools.py"
        );
        let out = &a.results[1];
        assert!(
            out.trace
                .as_ref()
                .unwrap()
                .as_str()
                .unwrap()
                .contains("get-sum")
        );
        let failed = &a.results[2];
        assert!(!failed.passed);
        let err = failed.error.as_deref().unwrap();
        assert!(
            err.starts_with("AssertionError: expected isError=True"),
            "{err}"
        );
        assert!(
            err.contains("> ") || err.contains(">       assert"),
            "{err}"
        );
        let trace = failed.trace.as_ref().unwrap().as_str().unwrap();
        assert!(
            trace.contains("[stderr]") && trace.contains("WARNING"),
            "{trace}"
        );
        assert!(a.results[4].case_title.ends_with("[héllo wörld]"));
        let cdata = &a.results[5];
        assert!(
            cdata
                .error
                .as_deref()
                .unwrap()
                .contains("E         + \"hello\"")
        );
        let error = &a.results[6];
        assert_eq!(error.metadata.as_ref().unwrap()["outcome"], "error");
        assert!(
            error
                .error
                .as_deref()
                .unwrap()
                .contains("\"ConnectionRefusedError")
        );
        let ids: std::collections::HashSet<_> =
            a.results.iter().map(|r| &r.external_iteration_id).collect();
        assert_eq!(ids.len(), 7, "ids are distinct");
        assert_eq!(parse(PYTEST).unwrap(), a, "parsing is deterministic");
    }

    #[test]
    fn jest_junit_names_and_repeats() {
        let xml = r#"<testsuites name="jest tests" tests="3">
          <testsuite name="math" tests="3">
            <testcase classname="math adds" name="math adds" time="0.002"/>
            <testcase classname="math adds" name="math adds" time="0.003"/>
            <testcase classname="" name="bare"><failure/></testcase>
          </testsuite></testsuites>"#;
        let a = parse(xml).unwrap();
        assert_eq!(a.results[0].case_title, "math adds");
        assert_ne!(
            a.results[0].external_iteration_id,
            a.results[1].external_iteration_id
        );
        assert_eq!(a.results[0].external_case_id, a.results[1].external_case_id);
        assert_eq!(a.results[2].case_title, "bare");
        assert_eq!(a.results[2].error.as_deref(), Some("test failure"));
        let single = parse(r#"<testsuite name="solo"><testcase name="a"/></testsuite>"#).unwrap();
        assert_eq!(single.suite_name.as_deref(), Some("solo"));
        assert_eq!(single.results.len(), 1);
    }

    #[test]
    fn malformed_xml_is_a_clear_error() {
        let e = parse("<testsuites>\n<testsuite name=\"x\">\n<testcase name=\"a\"></testsuite>")
            .unwrap_err();
        assert!(e.message.contains("line 3"), "{}", e.message);
        let e = parse("<html><body>hello</body></html>").unwrap_err();
        assert!(e.message.contains("not a JUnit report"), "{}", e.message);
    }
}
