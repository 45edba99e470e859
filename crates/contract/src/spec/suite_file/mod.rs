//! Suites as files: the YAML document `evaldeck suite export` writes and `evaldeck suite
//! apply` reads, its validation (every rule of suites and cases, each fault at its line and
//! column) and the diff against a live suite ([`plan`]).
//!
//! The document is the suite's full desired state:
//!
//! ```yaml
//! evaldeck/suite: 1          # format version
//! name: Checkout
//! description: …             # optional
//! servers: [shop]            # saved servers, by name
//! environments: [staging]    # attached environments, by name (optional)
//! settings: {model: …, repetitions: 1, passThreshold: 1.0, standardChecks: […], …}
//! cases:                     # every field of a case except `id` and the timestamps
//!   - title: …
//!     steps: […]
//! ```
//!
//! Decisions:
//! - Ids and times are the server's, so a file applies to any project; `export --ids` adds
//!   each case's `id` for matching by id.
//! - `settings.standardChecks` is a set: written sorted and compared as a set.
//! - A case without `iterations`, `isNegative` or `models` gets what adding a case through
//!   the API gives it (1, false, the suite's model).
//! - The suite's schedule is operational state (it fires runs) and is not part of the file.

mod diff;
mod yaml;

pub use diff::{Change, Live, Plan, Target, creation, plan, settings_patch};
pub use yaml::{Pos, Positions};

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::case::{EvalCase, normalize_check_ids};
use super::environment::Patch;
use super::error::{Error, Violation};
use super::suite::{EvalSuite, SuitePatch, SuiteSettings};
use super::validate::{Checker, from_value, join};

/// The key naming the format and its version.
pub const FORMAT_KEY: &str = "evaldeck/suite";
/// The version this build writes and reads.
pub const FORMAT_VERSION: i64 = 1;
/// The comment every exported file starts with.
pub const HEADER: &str = "# An evaldeck suite. `evaldeck suite apply FILE` shows the diff against the live suite,\n# then creates or updates it. Cases match by `id` when given, else `declaredId`, else `title`.\n";

/// A suite as a file holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteDoc {
    pub name: String,
    pub description: Option<String>,
    /// Saved servers, by name.
    pub servers: Vec<String>,
    /// Attached environments, by name.
    pub environments: Vec<String>,
    pub settings: SuiteSettings,
    pub cases: Vec<DocCase>,
}

/// One case of a file.
#[derive(Debug, Clone, PartialEq)]
pub struct DocCase {
    /// The live case's id, when the file names one.
    pub id: Option<String>,
    /// The case; its `id` is [`DocCase::id`] or empty, its times are `None`.
    pub case: EvalCase,
}

impl SuiteDoc {
    /// The file form of a live suite whose server and environment ids were named.
    pub fn from_live(
        suite: &EvalSuite,
        servers: Vec<String>,
        environments: Vec<String>,
        cases: &[EvalCase],
        with_ids: bool,
    ) -> SuiteDoc {
        let mut settings = suite.settings.clone();
        normalize_check_ids(&mut settings.standard_checks);
        SuiteDoc {
            name: suite.name.clone(),
            description: suite.description.clone(),
            servers,
            environments,
            settings,
            cases: cases
                .iter()
                .map(|c| {
                    let mut case = c.clone();
                    case.created_at = None;
                    case.updated_at = None;
                    let id = with_ids.then(|| case.id.clone());
                    case.id = id.clone().unwrap_or_default();
                    DocCase { id, case }
                })
                .collect(),
        }
    }

    /// The document as JSON, keys in file order.
    pub fn to_value(&self) -> Value {
        let mut m = Map::new();
        m.insert(FORMAT_KEY.into(), json!(FORMAT_VERSION));
        m.insert("name".into(), json!(self.name));
        if let Some(d) = &self.description {
            m.insert("description".into(), json!(d));
        }
        m.insert("servers".into(), json!(self.servers));
        m.insert("environments".into(), json!(self.environments));
        m.insert("settings".into(), to_json(&self.settings));
        m.insert(
            "cases".into(),
            Value::Array(self.cases.iter().map(DocCase::to_value).collect()),
        );
        Value::Object(m)
    }
}

impl DocCase {
    /// The case as the file writes it: `id` only when known, never the times.
    pub fn to_value(&self) -> Value {
        Value::Object(case_body(&self.case, self.id.as_deref()))
    }
}

/// A case's JSON without `id` and times, with `id` first when given.
pub fn case_body(case: &EvalCase, id: Option<&str>) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(id) = id {
        out.insert("id".into(), json!(id));
    }
    if let Value::Object(m) = to_json(case) {
        for (k, v) in m {
            if !matches!(k.as_str(), "id" | "createdAt" | "updatedAt") {
                out.insert(k, v);
            }
        }
    }
    out
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("spec types serialize")
}

// ---------------------------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------------------------

/// The file text of `doc`, or an error when the text would not read back as exactly `doc`
/// (a value YAML cannot hold as written, or a suite that breaks a rule a file must keep).
pub fn export(doc: &SuiteDoc) -> Result<String, Error> {
    let value = doc.to_value();
    let text = format!("{HEADER}{}", yaml::write(&value));
    let lossy = |path: String, message: String| {
        Err(Error::invalid(&path, "lossless", message).with_reason("LOSSY_EXPORT"))
    };
    match yaml::read(&text) {
        Err(e) => {
            return lossy(
                String::new(),
                format!(
                    "refusing to export: the YAML written would not read back (line {}: {})",
                    e.pos.line, e.message
                ),
            );
        }
        Ok((back, _)) if back != value => {
            let path = first_difference(&value, &back, "");
            return lossy(
                path.clone(),
                format!("refusing to export: the value at {path} would not read back unchanged"),
            );
        }
        Ok(_) => {}
    }
    match parse(&text) {
        Ok(p) if p.doc == *doc => Ok(text),
        Ok(p) => {
            let path = first_difference(&value, &p.doc.to_value(), "");
            lossy(
                path.clone(),
                format!("refusing to export: {path} would not apply back unchanged"),
            )
        }
        Err(errs) => {
            let v = &errs[0].violation;
            lossy(
                v.path.clone(),
                format!(
                    "refusing to export: the suite breaks a rule a file must keep ({} [{}]: {})",
                    v.path, v.rule, v.message
                ),
            )
        }
    }
}

/// The JSON Pointer of the first place where `a` and `b` differ.
fn first_difference(a: &Value, b: &Value, at: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                match y.get(k) {
                    Some(w) if v == w => {}
                    Some(w) => return first_difference(v, w, &join(at, k)),
                    None => return join(at, k),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| join(at, k))
                .unwrap_or_else(|| at.to_string())
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find(|(_, (v, w))| v != w)
            .map(|(i, (v, w))| first_difference(v, w, &join(at, i)))
            .unwrap_or_else(|| at.to_string()),
        _ => at.to_string(),
    }
}

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

/// A violation at a place in the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub violation: Violation,
    pub pos: Pos,
}

/// A read and valid document with the positions of its nodes (for later, online errors).
#[derive(Debug, Clone)]
pub struct Parsed {
    pub doc: SuiteDoc,
    pub positions: Positions,
}

impl Parsed {
    /// Places violations (JSON Pointers into the document) in the file.
    pub fn locate(&self, violations: Vec<Violation>) -> Vec<Located> {
        locate(&self.positions, violations)
    }
}

fn locate(positions: &Positions, violations: Vec<Violation>) -> Vec<Located> {
    violations
        .into_iter()
        .map(|v| Located {
            pos: positions.locate(&v.path, v.rule == "additionalProperties"),
            violation: v,
        })
        .collect()
}

/// One `VALIDATION_ERROR` for faults in `file`: each violation's message starts with
/// `file:line:column:` and carries `line` and `column`.
pub fn file_error(file: &str, errs: &[Located]) -> Error {
    let errors: Vec<Value> = errs
        .iter()
        .map(|l| {
            json!({
                "path": l.violation.path,
                "rule": l.violation.rule,
                "message": format!("{file}:{}:{}: {}", l.pos.line, l.pos.column, l.violation.message),
                "line": l.pos.line,
                "column": l.pos.column,
            })
        })
        .collect();
    let first = errs.first().map(|l| {
        format!(
            "{file}:{}:{}: {}: {}",
            l.pos.line,
            l.pos.column,
            if l.violation.path.is_empty() {
                "file"
            } else {
                &l.violation.path
            },
            l.violation.message
        )
    });
    let message = match (first, errs.len()) {
        (Some(f), 1) => f,
        (Some(f), n) => format!("{f} (and {} more)", n - 1),
        (None, _) => format!("{file}: invalid suite file"),
    };
    Error::new(super::Code::ValidationError, message).with_details(json!({ "errors": errors }))
}

const TOP_KEYS: &[&str] = &[
    FORMAT_KEY,
    "name",
    "description",
    "servers",
    "environments",
    "settings",
    "cases",
];

/// The property names a type's JSON Schema declares.
fn schema_keys<T: JsonSchema>() -> Vec<String> {
    let schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or_default();
    schema["properties"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default()
}

/// Keys of a case an edit may change (the rest need the case re-created).
pub(crate) fn editable_case_keys() -> Vec<String> {
    schema_keys::<super::case::EvalCaseUpdate>()
}

fn prefixed(e: Error, base: &str) -> Vec<Violation> {
    e.violations()
        .into_iter()
        .map(|mut v| {
            v.path = format!("{base}{}", v.path);
            v
        })
        .collect()
}

/// Decodes one member with the validator's rules, reporting under its pointer.
fn member<T: DeserializeOwned>(
    obj: &Map<String, Value>,
    key: &str,
    required: bool,
    errs: &mut Vec<Violation>,
) -> Option<T> {
    let path = join("", key);
    match obj.get(key) {
        None if required => {
            errs.push(Violation {
                path,
                rule: "required".into(),
                message: format!("`{key}` is required"),
            });
            None
        }
        None => None,
        Some(v) => match from_value::<T>(v.clone()) {
            Ok(t) => Some(t),
            Err(e) => {
                errs.extend(prefixed(e, &path));
                None
            }
        },
    }
}

fn unknown_keys(c: &mut Checker, path: &str, obj: &Map<String, Value>, known: &[String]) {
    for k in obj.keys() {
        if !known.iter().any(|n| n == k) {
            c.fail(
                join(path, k),
                "additionalProperties",
                format!("unknown field `{k}`"),
            );
        }
    }
}

/// Reads and validates a suite file offline: YAML syntax, the document's shape and every rule
/// of suites and cases. All faults at once, each at its line and column.
pub fn parse(text: &str) -> Result<Parsed, Vec<Located>> {
    let (value, positions) = yaml::read(text).map_err(|e| {
        vec![Located {
            violation: Violation {
                path: String::new(),
                rule: "yaml".into(),
                message: format!("not valid YAML: {}", e.message),
            },
            pos: e.pos,
        }]
    })?;
    let fail = |vs: Vec<Violation>| Err(locate(&positions, vs));
    let Value::Object(obj) = &value else {
        return fail(vec![Violation {
            path: String::new(),
            rule: "type".into(),
            message: format!(
                "a suite file is a mapping with `{FORMAT_KEY}: {FORMAT_VERSION}`, `name`, `servers`, `settings` and `cases`"
            ),
        }]);
    };
    let format_path = join("", FORMAT_KEY);
    match obj.get(FORMAT_KEY) {
        Some(v) if v == &json!(FORMAT_VERSION) => {}
        Some(v) => {
            return fail(vec![Violation {
                path: format_path,
                rule: "enum".into(),
                message: format!(
                    "this evaldeck reads suite files of version {FORMAT_VERSION}, not {v}"
                ),
            }]);
        }
        None => {
            return fail(vec![Violation {
                path: format_path,
                rule: "required".into(),
                message: format!(
                    "`{FORMAT_KEY}: {FORMAT_VERSION}` is required (is this an evaldeck suite file?)"
                ),
            }]);
        }
    }
    let mut c = Checker::new();
    let top: Vec<String> = TOP_KEYS.iter().map(|s| s.to_string()).collect();
    unknown_keys(&mut c, "", obj, &top);
    let mut errs: Vec<Violation> = Vec::new();
    let name: Option<String> = member(obj, "name", true, &mut errs);
    let description: Option<Option<String>> = member(obj, "description", false, &mut errs);
    let servers: Option<Vec<String>> = member(obj, "servers", true, &mut errs);
    let environments: Option<Vec<String>> = member(obj, "environments", false, &mut errs);
    let settings: Option<SuiteSettings> = member(obj, "settings", true, &mut errs);
    if let Some(Value::Object(s)) = obj.get("settings") {
        unknown_keys(&mut c, "/settings", s, &schema_keys::<SuiteSettings>());
    }
    let raw_cases: Option<Vec<Value>> = member(obj, "cases", true, &mut errs);

    let case_keys = schema_keys::<EvalCase>();
    let mut cases = Vec::new();
    let mut ids = std::collections::HashSet::new();
    for (i, raw) in raw_cases.iter().flatten().enumerate() {
        let path = join("/cases", i);
        let Value::Object(m) = raw else {
            c.fail(path, "type", "a case is a mapping");
            continue;
        };
        for k in m.keys() {
            if k == "createdAt" || k == "updatedAt" {
                c.fail(
                    join(&path, k),
                    "additionalProperties",
                    format!("`{k}` is set by the server; remove it"),
                );
            }
        }
        unknown_keys(&mut c, &path, m, &case_keys);
        let mut m = m.clone();
        m.remove("createdAt");
        m.remove("updatedAt");
        let id = match m.get("id") {
            None => None,
            Some(Value::String(s)) => {
                c.length(&join(&path, "id"), s, 1, None);
                if !s.is_empty() && !ids.insert(s.clone()) {
                    c.fail(
                        join(&path, "id"),
                        "uniqueItems",
                        format!("case id `{s}` is used twice"),
                    );
                }
                Some(s.clone())
            }
            Some(_) => {
                c.fail(join(&path, "id"), "type", "must be a string");
                None
            }
        };
        m.insert("id".into(), json!(id.clone().unwrap_or_default()));
        m.entry("iterations").or_insert(json!(1));
        m.entry("isNegative").or_insert(json!(false));
        if let Some(s) = &settings {
            m.entry("models").or_insert(json!([{ "model": s.model }]));
        }
        match from_value::<EvalCase>(Value::Object(m)) {
            Ok(mut case) => {
                case.validate(&path, &mut c);
                case.normalize();
                cases.push(DocCase { id, case });
            }
            Err(e) => errs.extend(prefixed(e, &path)),
        }
    }

    if let (Some(name), Some(servers), Some(settings)) = (&name, &servers, &settings) {
        let envs = environments.clone().unwrap_or_default();
        let patch = patch_for(
            name,
            description.clone().flatten(),
            servers,
            &envs,
            settings,
        );
        if let Err(e) = patch.validate() {
            for mut v in e.violations() {
                v.path = file_path(&v.path);
                errs.push(v);
            }
        }
        for (list, what) in [(servers, "/servers"), (&envs, "/environments")] {
            for (i, n) in list.iter().enumerate() {
                if list[..i].contains(n) {
                    c.fail(
                        join(what, i),
                        "uniqueItems",
                        format!("`{n}` is listed twice"),
                    );
                }
            }
        }
    }
    errs.extend(c.errors().iter().cloned());
    if !errs.is_empty() {
        let mut located = locate(&positions, errs);
        located.sort_by_key(|l| (l.pos.line, l.pos.column));
        return Err(located);
    }
    let (Some(name), Some(servers), Some(settings)) = (name, servers, settings) else {
        unreachable!("missing members are violations");
    };
    Ok(Parsed {
        doc: SuiteDoc {
            name,
            description: description.flatten(),
            servers,
            environments: environments.unwrap_or_default(),
            settings,
            cases,
        },
        positions,
    })
}

/// A patch setting every field of a suite to the document's values (names stand in for
/// ids), validated with the suite's own rules.
fn patch_for(
    name: &str,
    description: Option<String>,
    servers: &[String],
    environments: &[String],
    s: &SuiteSettings,
) -> SuitePatch {
    SuitePatch {
        name: Some(name.to_string()),
        description: description.map_or(Patch::Clear, Patch::Set),
        server_ids: Some(servers.to_vec()),
        environment_ids: if environments.is_empty() {
            Patch::Clear
        } else {
            Patch::Set(environments.to_vec())
        },
        model: Some(s.model.clone()),
        provider: s.provider.clone().map_or(Patch::Clear, Patch::Set),
        repetitions: Some(s.repetitions),
        pass_threshold: Some(s.pass_threshold),
        pass_criteria: s.pass_criteria.map_or(Patch::Clear, Patch::Set),
        standard_checks: Some(s.standard_checks.clone()),
        tags: Some(s.tags.clone()),
    }
}

/// A `SuitePatch` pointer as a pointer into the file.
fn file_path(p: &str) -> String {
    for (from, to) in [
        ("/name", "/name"),
        ("/description", "/description"),
        ("/serverIds", "/servers"),
        ("/environmentIds", "/environments"),
    ] {
        if p == from || p.starts_with(&format!("{from}/")) {
            return format!("{to}{}", &p[from.len()..]);
        }
    }
    format!("/settings{p}")
}

#[cfg(test)]
mod tests;
