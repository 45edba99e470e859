//! What evaldeck, as an MCP client, offers a server and how it answers what the server asks
//! of it: roots, sampling, elicitation, the log level and the request time cap. Saved on a
//! server (`config.client`), overridable per environment (roots) and per call or case
//! (sampling and elicitation answers).
//!
//! Nobody is asked on the API, in the CLI or in a run, so there a server's sampling and
//! elicitation requests are declined unless a scripted answer (or, for sampling, a model)
//! is configured; the workbench asks its user instead. A declined request is recorded in
//! the call's protocol events and in the iteration's trace.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::validate::{Checker, join};

/// The client side of a saved server's config (`config.client`); every field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientFeatures {
    /// Roots answered to `roots/list`. Editing them notifies live sessions
    /// (`notifications/roots/list_changed`) instead of reconnecting.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roots: Vec<Root>,
    /// How `sampling/createMessage` is answered; declined when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingPolicy>,
    /// How `elicitation/create` is answered where nobody can be asked; declined when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationAnswer>,
    /// The level of log messages asked of the server (`logging/setLevel` in the handshake
    /// era, a per-request `_meta` level from `2026-07-28`); the server's own default when
    /// absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LogLevel>,
    /// Upper bound on one request however much progress it reports (progress restarts the
    /// request timeout); 600000 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_total_timeout_ms: Option<u64>,
}

impl ClientFeatures {
    pub fn is_default(&self) -> bool {
        self == &ClientFeatures::default()
    }

    pub fn validate(&self, path: &str, c: &mut Checker) {
        for (i, r) in self.roots.iter().enumerate() {
            r.validate(&join(&join(path, "roots"), i), c);
        }
        if self.roots.len() > MAX_ROOTS {
            c.fail(
                join(path, "roots"),
                "maxItems",
                format!("at most {MAX_ROOTS} roots"),
            );
        }
        if let Some(s) = &self.sampling {
            s.validate(&join(path, "sampling"), c);
        }
        if let Some(e) = &self.elicitation {
            e.validate(&join(path, "elicitation"), c);
        }
        if let Some(ms) = self.max_total_timeout_ms {
            c.range_i64(
                &join(path, "maxTotalTimeoutMs"),
                ms as i64,
                1,
                super::server::MAX_TIMEOUT_MS as i64,
            );
        }
    }
}

/// Most roots a server may be offered.
pub const MAX_ROOTS: usize = 100;

/// A root: a `file://` URI and an optional display name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Root {
    pub uri: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl Root {
    /// A root from a path or a URI as a person types it: `/srv/app`, `~/code`,
    /// `file:///srv/app`, optionally followed by `=NAME`.
    pub fn parse(text: &str) -> Root {
        let (target, name) = match text.rsplit_once('=') {
            Some((t, n)) if !n.is_empty() && !t.is_empty() => (t, Some(n.to_string())),
            _ => (text, None),
        };
        let uri = if target.starts_with("file://") {
            target.to_string()
        } else {
            let expanded = super::mcp_config::expand_home(target);
            format!("file://{expanded}")
        };
        Root { uri, name }
    }

    pub fn validate(&self, path: &str, c: &mut Checker) {
        if !self.uri.starts_with("file://") || url::Url::parse(&self.uri).is_err() {
            c.fail(
                join(path, "uri"),
                "uri",
                "a root is a file:// URI (MCP roots name directories and files)",
            );
        }
        if let Some(n) = &self.name {
            c.length(&join(path, "name"), n, 1, Some(200));
        }
    }
}

/// How a server's `sampling/createMessage` is answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", tag = "mode", deny_unknown_fields)]
pub enum SamplingPolicy {
    /// Refused with an error the server sees (the default).
    Decline,
    /// Answered with this text, as the model `evaldeck/scripted`.
    Scripted { text: String },
    /// Answered by a configured model (`provider/name`, as runs name models).
    Model { model: String },
}

impl SamplingPolicy {
    fn validate(&self, path: &str, c: &mut Checker) {
        match self {
            SamplingPolicy::Decline => {}
            SamplingPolicy::Scripted { text } => {
                c.length(&join(path, "text"), text, 0, Some(100_000))
            }
            SamplingPolicy::Model { model } => c.length(&join(path, "model"), model, 1, Some(200)),
        }
    }
}

/// An answer to `elicitation/create`: accept (with the form's content), decline or cancel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ElicitationAnswer {
    pub action: ElicitationAction,
    /// The form's values (for `accept` of a form; a URL elicitation takes none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitationAnswer {
    pub fn decline() -> Self {
        ElicitationAnswer {
            action: ElicitationAction::Decline,
            content: None,
        }
    }

    pub fn validate(&self, path: &str, c: &mut Checker) {
        if self.content.is_some() && self.action != ElicitationAction::Accept {
            c.fail(
                join(path, "content"),
                "requires",
                "`content` goes with `action: accept` only",
            );
        }
        for (k, v) in self.content.iter().flatten() {
            let ok = match v {
                Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
                Value::Array(a) => a.iter().all(Value::is_string),
                _ => false,
            };
            if !ok {
                c.fail(
                    join(&join(path, "content"), k),
                    "type",
                    "an elicitation value is a string, number, boolean or array of strings",
                );
            }
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum ElicitationAction {
    Accept,
    Decline,
    Cancel,
}

impl ElicitationAction {
    pub fn as_str(self) -> &'static str {
        match self {
            ElicitationAction::Accept => "accept",
            ElicitationAction::Decline => "decline",
            ElicitationAction::Cancel => "cancel",
        }
    }
}

/// MCP log levels (RFC 5424 severities).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum LogLevel {
    Debug,
    Info,
    Notice,
    Warning,
    Error,
    Critical,
    Alert,
    Emergency,
}

impl LogLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            LogLevel::Debug => "debug",
            LogLevel::Info => "info",
            LogLevel::Notice => "notice",
            LogLevel::Warning => "warning",
            LogLevel::Error => "error",
            LogLevel::Critical => "critical",
            LogLevel::Alert => "alert",
            LogLevel::Emergency => "emergency",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roots_from_what_people_type() {
        assert_eq!(Root::parse("/srv/app").uri, "file:///srv/app");
        let r = Root::parse("file:///srv/app=App");
        assert_eq!(
            (r.uri.as_str(), r.name.as_deref()),
            ("file:///srv/app", Some("App"))
        );
        let mut c = Checker::new();
        Root {
            uri: "https://x".into(),
            name: None,
        }
        .validate("/roots/0", &mut c);
        assert!(c.finish().is_err());
    }

    #[test]
    fn answers_are_shaped_like_mcp() {
        let a: ElicitationAnswer = serde_json::from_value(
            serde_json::json!({"action": "accept", "content": {"name": "x"}}),
        )
        .unwrap();
        let mut c = Checker::new();
        a.validate("/e", &mut c);
        assert!(c.finish().is_ok());
        let bad: ElicitationAnswer = serde_json::from_value(
            serde_json::json!({"action": "decline", "content": {"nested": {"x": 1}}}),
        )
        .unwrap();
        let mut c = Checker::new();
        bad.validate("/e", &mut c);
        assert_eq!(c.finish().unwrap_err().violations().len(), 2);
        let s: SamplingPolicy =
            serde_json::from_value(serde_json::json!({"mode": "scripted", "text": "Paris"}))
                .unwrap();
        assert_eq!(
            s,
            SamplingPolicy::Scripted {
                text: "Paris".into()
            }
        );
    }
}
