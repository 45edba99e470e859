//! Collecting validation failures as JSON-Pointer-addressed [`Violation`]s.
//!
//! Validators walk a typed value or a raw `serde_json::Value` and report every failed rule
//! at once, so a user fixes a request in one round trip instead of one error at a time.

use super::error::{Error, Violation};
use serde_json::Value;

/// The largest integer the spec accepts where it says "positive integer" (2^53 - 1).
pub const MAX_SAFE_INTEGER: u64 = 9_007_199_254_740_991;

/// Accumulates violations under a base path.
#[derive(Debug, Default)]
pub struct Checker {
    errors: Vec<Violation>,
}

/// Escapes one JSON Pointer reference token (RFC 6901).
pub fn pointer_token(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

/// Joins a pointer and a token: `join("/steps", "0")` is `/steps/0`.
pub fn join(base: &str, token: impl std::fmt::Display) -> String {
    format!("{base}/{}", pointer_token(&token.to_string()))
}

impl Checker {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn fail(&mut self, path: impl Into<String>, rule: &str, message: impl Into<String>) {
        self.errors.push(Violation {
            path: path.into(),
            rule: rule.into(),
            message: message.into(),
        });
    }

    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    pub fn errors(&self) -> &[Violation] {
        &self.errors
    }

    /// `Ok(())` when nothing failed, else one `VALIDATION_ERROR` listing every violation.
    pub fn finish(self) -> Result<(), Error> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(Error::validation(self.errors))
        }
    }

    /// Length in characters (Unicode scalar values), as the spec counts strings.
    pub fn length(&mut self, path: &str, s: &str, min: usize, max: Option<usize>) {
        let n = s.chars().count();
        if n < min {
            if min == 1 {
                self.fail(path, "minLength", "must not be empty");
            } else {
                self.fail(
                    path,
                    "minLength",
                    format!("must be at least {min} characters"),
                );
            }
        }
        if let Some(max) = max
            && n > max
        {
            self.fail(
                path,
                "maxLength",
                format!("must be at most {max} characters (got {n})"),
            );
        }
    }

    pub fn range_f64(&mut self, path: &str, v: f64, min: f64, max: f64) {
        if !(min..=max).contains(&v) {
            self.fail(path, "range", format!("must be between {min} and {max}"));
        }
    }

    pub fn range_i64(&mut self, path: &str, v: i64, min: i64, max: i64) {
        if !(min..=max).contains(&v) {
            self.fail(path, "range", format!("must be between {min} and {max}"));
        }
    }

    pub fn one_of(&mut self, path: &str, v: &str, allowed: &[&str]) {
        if !allowed.contains(&v) {
            self.fail(
                path,
                "enum",
                format!("must be one of {}", allowed.join(", ")),
            );
        }
    }

    /// A positive integer: a JSON integer greater than 0 and at most 2^53 - 1.
    pub fn positive_integer(&mut self, path: &str, v: &Value) {
        match v.as_u64() {
            Some(n) if n > 0 && n <= MAX_SAFE_INTEGER => {}
            _ => self.fail(
                path,
                "positiveInteger",
                format!("must be an integer greater than 0 and at most {MAX_SAFE_INTEGER}"),
            ),
        }
    }

    /// Rejects keys of `obj` not in `allowed` ("no additional properties").
    pub fn no_additional(
        &mut self,
        path: &str,
        obj: &serde_json::Map<String, Value>,
        allowed: &[&str],
    ) {
        for k in obj.keys() {
            if !allowed.contains(&k.as_str()) {
                self.fail(
                    join(path, k),
                    "additionalProperties",
                    format!("unknown field `{k}`"),
                );
            }
        }
    }
}

/// Deserializes a typed value from JSON, turning serde's complaint into a violation with the
/// path of the offending field (via `serde_path_to_error`).
pub fn from_value<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, Error> {
    serde_path_to_error::deserialize(v).map_err(|e| {
        let pointer = path_to_pointer(&e.path().to_string());
        serde_violation(pointer, &e.into_inner().to_string())
    })
}

/// Names the rule behind serde's message: a missing field, an unknown field, or a wrong type.
fn serde_violation(pointer: String, message: &str) -> Error {
    let quoted = |m: &str| m.split('`').nth(1).map(str::to_string);
    let message = message.split(" at line ").next().unwrap_or(message);
    if let Some(field) = message.strip_prefix("missing field ").and_then(quoted) {
        let path = join(&pointer, &field);
        return Error::invalid(&path, "required", format!("`{field}` is required"));
    }
    if let Some(field) = message.strip_prefix("unknown field ").and_then(quoted) {
        // serde_path_to_error already descends into the unknown key.
        let path = if pointer.ends_with(&join("", &field)) {
            pointer
        } else {
            join(&pointer, &field)
        };
        return Error::invalid(
            &path,
            "additionalProperties",
            format!("unknown field `{field}`"),
        );
    }
    if message.starts_with("unknown variant") {
        return Error::invalid(&pointer, "enum", message);
    }
    Error::invalid(&pointer, "type", message)
}

/// Parses a request body: invalid UTF-8 or invalid JSON are violations of the whole body.
pub fn parse_body<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::invalid("", "utf8", format!("body is not valid UTF-8: {e}")))?;
    let text = if text.trim().is_empty() { "{}" } else { text };
    // A syntax fault outranks whatever the typed decode tripped over first.
    let not_json = || {
        serde_json::from_str::<serde::de::IgnoredAny>(text)
            .err()
            .map(|e| Error::invalid("", "json", format!("body is not valid JSON: {e}")))
    };
    if !text.trim_start().starts_with('{') {
        // serde would fill a struct from an array by position; every body is an object.
        return Err(not_json()
            .unwrap_or_else(|| Error::invalid("", "type", "the body must be a JSON object")));
    }
    let mut de = serde_json::Deserializer::from_str(text);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let pointer = path_to_pointer(&e.path().to_string());
        let inner = e.into_inner();
        if inner.is_syntax() || inner.is_eof() {
            return Error::invalid(&pointer, "json", format!("body is not valid JSON: {inner}"));
        }
        not_json().unwrap_or_else(|| serde_violation(pointer, &inner.to_string()))
    })?;
    de.end().map_err(|e| {
        Error::invalid(
            "",
            "json",
            format!("trailing characters after the body: {e}"),
        )
    })?;
    Ok(value)
}

/// `a.b[0].c` (serde_path_to_error's notation) to `/a/b/0/c`.
fn path_to_pointer(path: &str) -> String {
    if path == "." || path.is_empty() {
        return String::new();
    }
    let mut out = String::new();
    for seg in path.split('.') {
        let mut rest = seg;
        if let Some(i) = rest.find('[') {
            let (name, idx) = rest.split_at(i);
            if !name.is_empty() {
                out.push_str(&join("", name));
            }
            rest = idx;
            for part in rest.split('[').filter(|p| !p.is_empty()) {
                out.push('/');
                out.push_str(part.trim_end_matches(']'));
            }
        } else {
            out.push_str(&join("", rest));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Body {
        n: Option<i64>,
    }

    /// Arrays and scalars are not bodies, and a syntax fault is reported as one even where
    /// an unknown field comes first.
    #[test]
    fn bodies_are_json_objects() {
        for (text, rule) in [
            ("[5]", "type"),
            ("\"x\"", "type"),
            ("[5", "json"),
            ("{\"a\":", "json"),
            ("{\"n\": 1} x", "json"),
        ] {
            let e = parse_body::<Body>(text.as_bytes()).unwrap_err();
            let rules: Vec<_> = e.details.as_ref().unwrap()["errors"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v["rule"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(rules, [rule], "{text}");
        }
        assert_eq!(parse_body::<Body>(b" {\"n\": 1}").unwrap().n, Some(1));
        assert!(parse_body::<Body>(b"").unwrap().n.is_none());
    }

    #[test]
    fn pointer_from_serde_path() {
        assert_eq!(
            path_to_pointer("tests[2].steps[0].id"),
            "/tests/2/steps/0/id"
        );
        assert_eq!(path_to_pointer("a/b"), "/a~1b");
        assert_eq!(path_to_pointer("."), "");
    }

    #[test]
    fn characters_not_bytes() {
        let mut c = Checker::new();
        c.length("/x", &"é".repeat(10), 1, Some(10));
        assert!(c.is_ok());
        c.length("/x", &"é".repeat(11), 1, Some(10));
        assert_eq!(c.errors()[0].rule, "maxLength");
    }

    #[test]
    fn body_faults_are_violations() {
        let e = parse_body::<serde_json::Value>(b"\xff\xfe").unwrap_err();
        assert_eq!(e.violations()[0].rule, "utf8");
        let e = parse_body::<serde_json::Value>(b"{\"a\":").unwrap_err();
        assert_eq!(e.violations()[0].rule, "json");
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct T {
            n: u32,
        }
        let e = parse_body::<T>(br#"{"n":"x"}"#).unwrap_err();
        assert_eq!(e.violations()[0].path, "/n");
        let e = parse_body::<T>(b"{}").unwrap_err();
        assert_eq!(
            (
                e.violations()[0].path.as_str(),
                e.violations()[0].rule.as_str()
            ),
            ("/n", "required")
        );
    }
}
