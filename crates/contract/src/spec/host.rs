//! Hosts: the MCP client an eval emulates (model, system prompt, declared capabilities).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::catalog::Object;
use super::environment::present;
use super::error::Error;
use super::validate::Checker;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HostSummary {
    pub id: String,
    pub name: String,
    pub host_config_id: String,
    pub model_id: String,
    pub server_count: i64,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Host {
    pub id: String,
    pub name: String,
    /// The full host config; always carries `modelId` and `hostConfigId`.
    pub config: Object,
}

/// `POST /projects/{p}/hosts`: exactly one of `template` and `config`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HostCreate {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<Object>,
}

/// `PATCH /projects/{p}/hosts/{h}`: at least one field. A host always has a name and a
/// config, so `null` for either is a type violation, not a silent "keep".
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HostPatch {
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "String")]
    pub name: Option<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "Object")]
    pub config: Option<Object>,
}

/// A built-in host profile: what a well-known MCP client declares and which model it runs.
pub struct Template {
    pub id: &'static str,
    pub display_name: &'static str,
    pub model_id: &'static str,
    /// Client capabilities the host declares at initialize (they change what servers list).
    pub roots: bool,
    pub sampling: bool,
    pub elicitation: bool,
    /// Whether the host renders MCP UI widgets (resources with `ui://` URIs).
    pub widgets: bool,
    pub transports: &'static [&'static str],
}

/// The template ids `wire-shapes.md` lists, with each client's documented profile.
pub const TEMPLATES: &[Template] = &[
    Template {
        id: "claude",
        display_name: "Claude (desktop and web)",
        model_id: "anthropic/claude-sonnet-4-5",
        roots: false,
        sampling: false,
        elicitation: true,
        widgets: true,
        transports: &["stdio", "http", "sse"],
    },
    Template {
        id: "claude-code",
        display_name: "Claude Code",
        model_id: "anthropic/claude-sonnet-4-5",
        roots: true,
        sampling: false,
        elicitation: true,
        widgets: false,
        transports: &["stdio", "http", "sse"],
    },
    Template {
        id: "chatgpt",
        display_name: "ChatGPT (apps and connectors)",
        model_id: "openai/gpt-5",
        roots: false,
        sampling: false,
        elicitation: false,
        widgets: true,
        transports: &["http", "sse"],
    },
    Template {
        id: "cursor",
        display_name: "Cursor",
        model_id: "openai/gpt-5",
        roots: true,
        sampling: false,
        elicitation: true,
        widgets: false,
        transports: &["stdio", "http", "sse"],
    },
    Template {
        id: "codex",
        display_name: "OpenAI Codex CLI",
        model_id: "openai/gpt-5-codex",
        roots: false,
        sampling: false,
        elicitation: true,
        widgets: false,
        transports: &["stdio", "http"],
    },
    Template {
        id: "copilot",
        display_name: "GitHub Copilot (agent mode)",
        model_id: "openai/gpt-5",
        roots: true,
        sampling: true,
        elicitation: true,
        widgets: false,
        transports: &["stdio", "http", "sse"],
    },
    Template {
        id: "vscode",
        display_name: "Visual Studio Code",
        model_id: "openai/gpt-5",
        roots: true,
        sampling: true,
        elicitation: true,
        widgets: false,
        transports: &["stdio", "http", "sse"],
    },
    Template {
        id: "mistral",
        display_name: "Mistral Le Chat",
        model_id: "mistral/mistral-medium-latest",
        roots: false,
        sampling: false,
        elicitation: false,
        widgets: false,
        transports: &["http", "sse"],
    },
    Template {
        id: "perplexity",
        display_name: "Perplexity",
        model_id: "perplexity/sonar-pro",
        roots: false,
        sampling: false,
        elicitation: false,
        widgets: false,
        transports: &["stdio", "http"],
    },
];

impl Template {
    pub fn find(id: &str) -> Option<&'static Template> {
        TEMPLATES.iter().find(|t| t.id == id)
    }

    /// The full config a host created from this template starts with.
    pub fn config(&self) -> Object {
        let v = serde_json::json!({
            "hostConfigId": self.id,
            "displayName": self.display_name,
            "modelId": self.model_id,
            "capabilities": {
                "roots": self.roots,
                "sampling": self.sampling,
                "elicitation": self.elicitation,
            },
            "widgets": self.widgets,
            "transports": self.transports,
        });
        match v {
            Value::Object(m) => m,
            _ => unreachable!("a json! object literal"),
        }
    }
}

fn check_name(c: &mut Checker, name: &str) {
    c.length("/name", name, 1, Some(200));
}

fn check_config(c: &mut Checker, config: &Object) {
    match config.get("modelId") {
        Some(Value::String(s)) if !s.trim().is_empty() => {}
        _ => c.fail(
            "/config/modelId",
            "required",
            "a host config needs a non-empty `modelId`",
        ),
    }
    if let Some(v) = config.get("hostConfigId")
        && v.as_str().is_none_or(|s| s.is_empty())
    {
        c.fail("/config/hostConfigId", "type", "must be a non-empty string");
    }
}

impl HostCreate {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        check_name(&mut c, &self.name);
        match (&self.template, &self.config) {
            (Some(_), Some(_)) => {
                c.fail("", "oneOf", "give either `template` or `config`, not both")
            }
            (None, None) => c.fail("", "oneOf", "give a `template` or a full `config`"),
            (Some(t), None) => {
                if Template::find(t).is_none() {
                    let ids: Vec<&str> = TEMPLATES.iter().map(|t| t.id).collect();
                    c.one_of("/template", t, &ids);
                }
            }
            (None, Some(cfg)) => check_config(&mut c, cfg),
        }
        c.finish()
    }
}

impl HostPatch {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        if self.name.is_none() && self.config.is_none() {
            c.fail("", "minProperties", "give `name`, `config` or both");
        }
        if let Some(n) = &self.name {
            check_name(&mut c, n);
        }
        if let Some(cfg) = &self.config {
            check_config(&mut c, cfg);
        }
        c.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(r: Result<(), Error>) -> Vec<(String, String)> {
        r.err()
            .map(|e| e.violations())
            .unwrap_or_default()
            .into_iter()
            .map(|v| (v.path, v.rule))
            .collect()
    }

    #[test]
    fn host_create_rules() {
        let ok_t = HostCreate {
            name: "c".into(),
            template: Some("cursor".into()),
            config: None,
        };
        assert!(ok_t.validate().is_ok());
        let mut cfg = Object::new();
        cfg.insert("modelId".into(), "openai/gpt-5".into());
        let ok_c = HostCreate {
            name: "c".into(),
            template: None,
            config: Some(cfg.clone()),
        };
        assert!(ok_c.validate().is_ok());
        let both = HostCreate {
            name: "c".into(),
            template: Some("cursor".into()),
            config: Some(cfg),
        };
        assert_eq!(rules(both.validate()), [("".into(), "oneOf".into())]);
        let none = HostCreate {
            name: "c".into(),
            ..Default::default()
        };
        assert_eq!(rules(none.validate()), [("".into(), "oneOf".into())]);
        let bad = HostCreate {
            name: "".into(),
            template: Some("netscape".into()),
            config: None,
        };
        assert_eq!(
            rules(bad.validate()),
            [
                ("/name".into(), "minLength".into()),
                ("/template".into(), "enum".into())
            ]
        );
        let nomodel = HostCreate {
            name: "c".into(),
            template: None,
            config: Some(Object::new()),
        };
        assert_eq!(
            rules(nomodel.validate()),
            [("/config/modelId".into(), "required".into())]
        );
    }

    #[test]
    fn host_patch_needs_a_field() {
        assert_eq!(
            rules(HostPatch::default().validate()),
            [("".into(), "minProperties".into())]
        );
        assert!(
            HostPatch {
                name: Some("x".into()),
                config: None
            }
            .validate()
            .is_ok()
        );
    }

    /// `null` cannot clear a host's name or config: a type violation at the field.
    #[test]
    fn host_patch_null_is_a_type_error() {
        use crate::spec::validate::parse_body;
        let rows: &[(&str, Option<(&str, &str)>)] = &[
            (r#"{"name":null}"#, Some(("/name", "type"))),
            (r#"{"config":null}"#, Some(("/config", "type"))),
            (r#"{"name":"ok","config":null}"#, Some(("/config", "type"))),
            (r#"{"name":5}"#, Some(("/name", "type"))),
            (r#"{}"#, Some(("", "minProperties"))),
            (r#"{"name":""}"#, Some(("/name", "minLength"))),
            (r#"{"config":{}}"#, Some(("/config/modelId", "required"))),
            (r#"{"name":"ok"}"#, None),
            (r#"{"config":{"modelId":"openai/gpt-5"}}"#, None),
        ];
        for (body, want) in rows {
            let got = parse_body::<HostPatch>(body.as_bytes()).and_then(|p| p.validate());
            let got = got.err().map(|e| {
                let v = &e.violations()[0];
                (v.path.clone(), v.rule.clone())
            });
            let want = want.map(|(p, r)| (p.to_string(), r.to_string()));
            assert_eq!(got, want, "{body}");
        }
    }

    #[test]
    fn every_template_config_is_valid() {
        for t in TEMPLATES {
            let h = HostCreate {
                name: t.id.into(),
                template: None,
                config: Some(t.config()),
            };
            assert!(h.validate().is_ok(), "{}", t.id);
        }
    }
}
