//! SARIF 2.1.0 for `check`, `report` (of a check) and `scan`, written so GitHub code
//! scanning accepts it: every result has a location with a `physicalLocation` (an
//! `artifactLocation.uri` and a `region.startLine`) and a logical location naming the
//! server and the item (`demo/tools/get-sum`).
//!
//! Which file a result points into, first that applies:
//!
//! - a scan finding: the snapshot given to `scan` (an `export` file or a check report),
//!   at the line of the tool, prompt, resource or call and of the member the finding's
//!   JSON Pointer names;
//! - the lock file (`check --pins`) for `pins.unchanged`, at the pinned tool's line; the
//!   baseline file (`--baseline`) for a baselined failure, at its entry;
//! - the report given to `report FILE`: a check at its own result there, a finding at its
//!   item in the report's snapshot (or its calls);
//! - for a live server with no such file, the stable path `.evaldeck/SERVER.json` (the
//!   server's name made safe for a path): where `evaldeck export SERVER >
//!   .evaldeck/SERVER.json` keeps its snapshot; when that file exists the region is the
//!   item's line in it, otherwise line 1.
//!
//! Relative paths are written as given, against `%SRCROOT%` (where evaldeck ran: the
//! checkout in CI); absolute ones as `file://` URIs.

use serde_json::{Value, json};
use sha2::Digest;

use crate::local::checks::RULES;
use crate::local::checks::catalog;
use crate::spec::conformance::{CheckReport, Outcome, REPORT_KIND};
use crate::spec::scan::{Finding, Severity};

/// The `uriBaseId` of relative paths: the directory evaldeck ran in.
pub const SRCROOT: &str = "%SRCROOT%";

/// A file a result can point into: its path as given, and its text when it could be read.
#[derive(Debug, Clone)]
pub struct Artifact {
    path: String,
    text: Option<String>,
    json: Value,
}

impl Artifact {
    pub fn new(path: impl Into<String>, text: Option<String>) -> Artifact {
        let json = text
            .as_deref()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null);
        Artifact {
            path: path.into(),
            text,
            json,
        }
    }

    /// The file at `path`, read now (a file that cannot be read is still named).
    pub fn read(path: impl Into<String>) -> Artifact {
        let path = path.into();
        let text = std::fs::read_to_string(&path).ok();
        Artifact::new(path, text)
    }

    /// `.evaldeck/SERVER.json`: where a live server's results point when no file holds
    /// them.
    pub fn for_server(server: &str) -> Artifact {
        let safe: String = server
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '-'
                }
            })
            .collect();
        let safe = safe.trim_start_matches('.');
        let safe = if safe.is_empty() { "server" } else { safe };
        Artifact::read(format!(".evaldeck/{safe}.json"))
    }

    fn artifact_location(&self) -> Value {
        let path = self.path.replace('\\', "/");
        if path.starts_with('/') {
            return json!({"uri": format!("file://{}", encode(&path))});
        }
        let mut rel = path.as_str();
        while let Some(rest) = rel.strip_prefix("./") {
            rel = rest;
        }
        json!({"uri": encode(rel), "uriBaseId": SRCROOT})
    }

    /// The line of the value `pointer` names (or of the deepest part of it the file has).
    fn line(&self, pointer: &str) -> usize {
        self.text
            .as_deref()
            .and_then(|t| json_line(t, pointer))
            .unwrap_or(1)
    }

    fn physical(&self, pointer: Option<&str>) -> Value {
        let line = pointer.map_or(1, |p| self.line(p));
        json!({"artifactLocation": self.artifact_location(), "region": {"startLine": line}})
    }

    /// Where the snapshot sits in this file: the root of an `export` file, `/snapshot` of a
    /// check report.
    fn snapshot_prefix(&self) -> Option<&'static str> {
        if self.json["kind"] == REPORT_KIND {
            Some("/snapshot")
        } else if self.json["tools"].is_array() {
            Some("")
        } else {
            None
        }
    }

    /// The JSON Pointer of an item (`tool:NAME`, `prompt:NAME`, `resource:URI`,
    /// `template:URI`, `call:NAME`) and of `inner` within it, in this file.
    fn item_pointer(&self, location: &str, inner: &str) -> Option<String> {
        let (kind, name) = location.split_once(':')?;
        if kind == "call" {
            let j = self.json["calls"]
                .as_array()?
                .iter()
                .position(|c| c["tool"] == name)?;
            return Some(format!("/calls/{j}/result{inner}"));
        }
        let prefix = self.snapshot_prefix()?;
        let (array, key) = match kind {
            "tool" => ("tools", "name"),
            "prompt" => ("prompts", "name"),
            "resource" => ("resources", "uri"),
            "template" => ("resourceTemplates", "uriTemplate"),
            _ => return None,
        };
        let snapshot = self.json.pointer(prefix)?;
        let i = snapshot[array]
            .as_array()?
            .iter()
            .position(|t| t[key] == name)?;
        Some(format!("{prefix}/{array}/{i}{inner}"))
    }
}

/// The files a check report's SARIF can point into.
#[derive(Debug, Clone, Default)]
pub struct CheckFiles {
    /// The report itself, when it is rendered from a file (`report FILE`).
    pub report: Option<Artifact>,
    /// `check --pins FILE`.
    pub pins: Option<Artifact>,
    /// `check --baseline FILE`.
    pub baseline: Option<Artifact>,
}

/// Where one snapshot `scan` read came from.
#[derive(Debug, Clone)]
pub struct ScanSource {
    /// The server's name for logical locations.
    pub server: String,
    /// The file it was read from, or the server's stable path.
    pub artifact: Artifact,
}

/// Percent-encodes what a URI path cannot hold as is.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~!$&'()*+,;=:@".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A JSON Pointer token: `~` and `/` escaped.
fn token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// The logical location of an evidence or finding location (`tool:get-sum` of `demo` is
/// `demo/tools/get-sum`).
fn logical(server: &str, location: &str) -> Value {
    let (kind, name) = location.split_once(':').unwrap_or(("", location));
    let (group, lkind) = match kind {
        "tool" | "call" => ("tools", "function"),
        "prompt" => ("prompts", "resource"),
        "resource" => ("resources", "resource"),
        "template" => ("resourceTemplates", "resource"),
        "request" => ("requests", "member"),
        "http" => ("http", "module"),
        _ => ("", "module"),
    };
    if group.is_empty() {
        return json!({"name": server, "fullyQualifiedName": server, "kind": lkind});
    }
    json!({"name": name, "fullyQualifiedName": format!("{server}/{group}/{name}"), "kind": lkind})
}

fn location(physical: Value, logical: Value, message: &str, pointer: Option<&str>) -> Value {
    let mut l = json!({
        "physicalLocation": physical,
        "logicalLocations": [logical],
        "message": {"text": message}
    });
    if let Some(p) = pointer {
        l["properties"] = json!({"jsonPointer": p});
    }
    l
}

/// A stable identity for GitHub to match a result across runs: the rule and where, never
/// a line number.
fn fingerprint(parts: &[&str]) -> Value {
    let digest = sha2::Sha256::digest(parts.join("\u{1f}").as_bytes());
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    json!({"evaldeckResult/v1": hex})
}

fn sarif_level(s: Severity) -> &'static str {
    match s {
        Severity::Note => "note",
        Severity::Warning => "warning",
        Severity::Error => "error",
    }
}

fn sarif_rules() -> Vec<Value> {
    let mut rules: Vec<Value> = catalog::CHECKS
        .iter()
        .map(|c| {
            json!({
                "id": c.id,
                "name": c.id.replace(['.', '-'], "_"),
                "shortDescription": {"text": c.title},
                "fullDescription": {"text": format!("{} (MCP specification: {}; revisions {})", c.title, c.reference, c.revisions.join(", "))},
                "defaultConfiguration": {"level": "error"},
                "properties": {"revisions": c.revisions, "area": c.area()}
            })
        })
        .collect();
    rules.extend(RULES.iter().map(|r| {
        json!({
            "id": r.id,
            "name": r.id.replace(['.', '-'], "_"),
            "shortDescription": {"text": r.title},
            "help": {"text": r.help},
            "defaultConfiguration": {"level": sarif_level(r.severity)}
        })
    }));
    rules
}

fn rule_index(id: &str) -> Option<usize> {
    catalog::CHECKS
        .iter()
        .map(|c| c.id)
        .chain(RULES.iter().map(|r| r.id))
        .position(|r| r == id)
}

/// One scan finding of `server`, pointing into `artifact` (or `fallback` when the item is
/// not in it: `/findings/N` of a report).
fn finding_result(
    f: &Finding,
    server: &str,
    artifact: &Artifact,
    fallback: Option<String>,
) -> Value {
    let pointer = artifact.item_pointer(&f.location, &f.pointer).or(fallback);
    let mut r = json!({
        "ruleId": f.rule,
        "kind": "fail",
        "level": sarif_level(f.severity),
        "message": {"text": match &f.excerpt {
            Some(x) => format!("{} — \"{x}\"", f.message),
            None => f.message.clone(),
        }},
        "locations": [location(
            artifact.physical(pointer.as_deref()),
            logical(server, &f.location),
            &format!("{}{}", f.location, f.pointer),
            pointer.as_deref(),
        )],
        "partialFingerprints": fingerprint(&[&f.rule, server, &f.location, &f.pointer])
    });
    if let Some(i) = rule_index(&f.rule) {
        r["ruleIndex"] = json!(i);
    }
    r
}

fn sarif_log(target: &str, results: Vec<Value>, properties: Value) -> Value {
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "evaldeck",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": "https://modelcontextprotocol.io/specification",
                "rules": sarif_rules()
            }},
            "automationDetails": {"id": format!("evaldeck/{target}/")},
            "results": results,
            "properties": properties
        }]
    })
}

/// Where a check's result at `location` points: the lock file for `pins.unchanged`, the
/// baseline for a baselined failure, the report it is rendered from, or the server's
/// stable path.
fn check_physical(
    files: &CheckFiles,
    fallback: &Artifact,
    id: &str,
    baselined: bool,
    k: usize,
    location: &str,
) -> (Value, Option<String>) {
    if id == "pins.unchanged"
        && let Some(pins) = &files.pins
    {
        let p = match location.strip_prefix("tool:") {
            Some(name) if pins.json["tools"].get(name).is_some() => {
                format!("/tools/{}", token(name))
            }
            _ => "/tools".to_string(),
        };
        return (pins.physical(Some(&p)), Some(p));
    }
    if baselined && let Some(base) = &files.baseline {
        let p = match base.json["expectedFailures"]
            .as_array()
            .and_then(|a| a.iter().position(|e| e["id"] == id))
        {
            Some(i) => format!("/expectedFailures/{i}"),
            None => "/expectedFailures".to_string(),
        };
        return (base.physical(Some(&p)), Some(p));
    }
    if let Some(report) = &files.report {
        let p = format!("/results/{k}");
        return (report.physical(Some(&p)), Some(p));
    }
    let p = fallback.item_pointer(location, "");
    (fallback.physical(p.as_deref()), p)
}

/// SARIF 2.1.0 of a check report: every check as a result (`kind` pass, fail,
/// notApplicable, or open for a check that could not run; a baselined failure carries an
/// external suppression), and each scan finding.
pub fn check_sarif(r: &CheckReport, files: &CheckFiles) -> Value {
    let fallback = Artifact::for_server(&r.server);
    let mut results: Vec<Value> = r
        .results
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let (kind, level) = match c.outcome {
                Outcome::Passed => ("pass", "none"),
                Outcome::Failed => ("fail", "error"),
                Outcome::NotApplicable => ("notApplicable", "none"),
                Outcome::CouldNotRun => ("open", "none"),
            };
            let mut text = c.summary.clone();
            for e in c.evidence.iter().take(10) {
                text.push_str("\n- ");
                text.push_str(&e.message);
            }
            let mut wheres: Vec<String> = c
                .evidence
                .iter()
                .filter_map(|e| e.location.clone())
                .collect::<std::collections::BTreeSet<_>>()
                .into_iter()
                .take(10)
                .collect();
            if wheres.is_empty() {
                wheres.push(format!("server:{}", r.server));
            }
            let locations: Vec<Value> = wheres
                .iter()
                .map(|l| {
                    let (physical, pointer) =
                        check_physical(files, &fallback, &c.id, c.baselined, k, l);
                    location(physical, logical(&r.server, l), l, pointer.as_deref())
                })
                .collect();
            let mut v = json!({
                "ruleId": c.id,
                "kind": kind,
                "level": level,
                "message": {"text": text},
                "locations": locations,
                "partialFingerprints": fingerprint(&[&c.id, &r.server, &wheres[0]]),
                "properties": {"outcome": c.outcome.as_str(), "durationMs": c.duration_ms}
            });
            if let Some(i) = rule_index(&c.id) {
                v["ruleIndex"] = json!(i);
            }
            if c.baselined {
                v["suppressions"] = json!([{"kind": "external", "justification": "expected failure (baseline file)"}]);
            }
            v
        })
        .collect();
    let artifact = files.report.as_ref().unwrap_or(&fallback);
    results.extend(r.findings.iter().enumerate().map(|(i, f)| {
        let fallback = files.report.as_ref().map(|_| format!("/findings/{i}"));
        finding_result(f, &r.server, artifact, fallback)
    }));
    sarif_log(
        &r.server,
        results,
        json!({"server": r.server, "transport": r.transport, "target": r.target,
            "revision": r.revision, "summary": r.summary}),
    )
}

/// SARIF of scan findings alone (`evaldeck scan`): each finding with the index of the
/// snapshot it was found in.
pub fn findings_sarif(label: &str, findings: &[(usize, Finding)], sources: &[ScanSource]) -> Value {
    let results = findings
        .iter()
        .map(|(i, f)| {
            let s = &sources[*i];
            finding_result(f, &s.server, &s.artifact, None)
        })
        .collect();
    sarif_log(label, results, json!({}))
}

/// The 1-based line where the value `pointer` names starts in the JSON `text` — or, when
/// the text has only part of that path, where the deepest value it has starts. `None`
/// when `text` is not JSON this reader follows.
pub fn json_line(text: &str, pointer: &str) -> Option<usize> {
    let tokens: Vec<String> = match pointer {
        "" => vec![],
        p => p
            .strip_prefix('/')?
            .split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    };
    let mut r = Reader {
        b: text.as_bytes(),
        i: 0,
        line: 1,
    };
    r.ws();
    r.find(&tokens)
}

struct Reader<'a> {
    b: &'a [u8],
    i: usize,
    line: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn ws(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => break,
            }
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> Option<()> {
        self.ws();
        (self.peek()? == c).then(|| self.i += 1)
    }

    /// A string at the cursor, decoded.
    fn string(&mut self) -> Option<String> {
        self.ws();
        if self.peek()? != b'"' {
            return None;
        }
        let start = self.i;
        self.i += 1;
        loop {
            match self.peek()? {
                b'\\' => self.i += 2,
                b'"' => {
                    self.i += 1;
                    break;
                }
                _ => self.i += 1,
            }
        }
        serde_json::from_slice(self.b.get(start..self.i)?).ok()
    }

    /// Moves past the value at the cursor.
    fn skip(&mut self) -> Option<()> {
        self.ws();
        match self.peek()? {
            b'{' => {
                self.i += 1;
                self.ws();
                if self.peek()? == b'}' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.string()?;
                    self.eat(b':')?;
                    self.skip()?;
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        b'}' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                self.i += 1;
                self.ws();
                if self.peek()? == b']' {
                    self.i += 1;
                    return Some(());
                }
                loop {
                    self.skip()?;
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        b']' => {
                            self.i += 1;
                            return Some(());
                        }
                        _ => return None,
                    }
                }
            }
            b'"' => self.string().map(|_| ()),
            _ => {
                while let Some(c) = self.peek() {
                    if matches!(c, b',' | b'}' | b']') || c.is_ascii_whitespace() {
                        break;
                    }
                    self.i += 1;
                }
                Some(())
            }
        }
    }

    /// At a value: the line of the value `tokens` names under it (or of the deepest one
    /// there is).
    fn find(&mut self, tokens: &[String]) -> Option<usize> {
        self.ws();
        let here = self.line;
        let Some((first, rest)) = tokens.split_first() else {
            return Some(here);
        };
        match self.peek()? {
            b'{' => {
                self.i += 1;
                self.ws();
                if self.peek()? == b'}' {
                    return Some(here);
                }
                loop {
                    let key = self.string()?;
                    self.eat(b':')?;
                    if &key == first {
                        return Some(self.find(rest).unwrap_or(here));
                    }
                    self.skip()?;
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        _ => return Some(here),
                    }
                }
            }
            b'[' => {
                let Ok(want) = first.parse::<usize>() else {
                    return Some(here);
                };
                self.i += 1;
                self.ws();
                if self.peek()? == b']' {
                    return Some(here);
                }
                let mut n = 0;
                loop {
                    if n == want {
                        return Some(self.find(rest).unwrap_or(here));
                    }
                    self.skip()?;
                    self.ws();
                    match self.peek()? {
                        b',' => self.i += 1,
                        _ => return Some(here),
                    }
                    n += 1;
                }
            }
            _ => Some(here),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"{
  "serverId": "demo",
  "tools": [
    {
      "name": "echo",
      "description": "Echo"
    },
    {
      "name": "a/b~c",
      "inputSchema": {
        "properties": {
          "path": {"type": "string"}
        }
      }
    }
  ],
  "empty": [],
  "escaped \"key\"": {"x": 1}
}"#;

    #[test]
    fn json_lines_follow_pointers() {
        assert_eq!(json_line(DOC, ""), Some(1));
        assert_eq!(json_line(DOC, "/serverId"), Some(2));
        assert_eq!(json_line(DOC, "/tools"), Some(3));
        assert_eq!(json_line(DOC, "/tools/0"), Some(4));
        assert_eq!(json_line(DOC, "/tools/0/description"), Some(6));
        assert_eq!(json_line(DOC, "/tools/1"), Some(8));
        assert_eq!(
            json_line(DOC, "/tools/1/inputSchema/properties/path"),
            Some(12)
        );
        assert_eq!(json_line(DOC, "/escaped \"key\"/x"), Some(18));
        // What the file lacks: the deepest value it has.
        assert_eq!(json_line(DOC, "/tools/7"), Some(3));
        assert_eq!(json_line(DOC, "/tools/0/inputSchema"), Some(4));
        assert_eq!(json_line(DOC, "/empty/0"), Some(17));
        assert_eq!(json_line(DOC, "/nothing"), Some(1));
        assert_eq!(json_line("not json", "/a"), Some(1));
        assert_eq!(json_line(DOC, "no-slash"), None);
    }

    #[test]
    fn items_are_found_in_exports_and_reports() {
        let a = Artifact::new("snap.json", Some(DOC.into()));
        assert_eq!(
            a.item_pointer("tool:a/b~c", "/inputSchema").as_deref(),
            Some("/tools/1/inputSchema")
        );
        assert_eq!(a.item_pointer("prompt:x", ""), None);
        let report = json!({"kind": REPORT_KIND, "snapshot": {"tools": [{"name": "echo"}]},
            "calls": [{"tool": "show", "result": {}}]});
        let r = Artifact::new("r.json", Some(report.to_string()));
        assert_eq!(
            r.item_pointer("tool:echo", "").as_deref(),
            Some("/snapshot/tools/0")
        );
        assert_eq!(
            r.item_pointer("call:show", "/content/0").as_deref(),
            Some("/calls/0/result/content/0")
        );
    }

    #[test]
    fn paths_become_uris() {
        let loc = |p: &str| Artifact::new(p, None).artifact_location();
        assert_eq!(
            loc("./out/my snap.json"),
            json!({"uri": "out/my%20snap.json", "uriBaseId": SRCROOT})
        );
        assert_eq!(loc("/tmp/x.json"), json!({"uri": "file:///tmp/x.json"}));
        assert_eq!(
            Artifact::for_server("my server/1").path,
            ".evaldeck/my-server-1.json"
        );
        assert_eq!(
            logical("demo", "tool:get-sum")["fullyQualifiedName"],
            "demo/tools/get-sum"
        );
        assert_eq!(logical("demo", "server:demo")["fullyQualifiedName"], "demo");
    }
}
