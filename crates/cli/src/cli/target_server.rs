//! The server a command talks to: a saved one by name or id, or an unsaved target given on
//! the command line (`-- node build/index.js`, `--url http://127.0.0.1:3000/mcp`), and the
//! client-side options of a connection (roots, sampling and elicitation answers, log level).
//!
//! An unsaved target is saved for the length of the command under the reserved name
//! `adhoc-HASH` and deleted afterwards, so it goes through exactly the checks a saved
//! server does: over a remote backend a stdio target runs on that `serve`'s machine and
//! obeys its stdio policy (`--no-stdio`, `--allow-command`, admins only), or is refused.

use std::collections::BTreeMap;

use clap::Args;

use crate::client::Backend;
use crate::spec::client_features::{
    ClientFeatures, ElicitationAction, ElicitationAnswer, LogLevel, Root, SamplingPolicy,
};
use crate::spec::server::{ServerConfig, ServerCreate, Transport};
use crate::spec::{Error, Result};

/// An unsaved server to talk to instead of a saved one.
#[derive(Debug, Clone, Default, Args)]
pub struct AdHoc {
    /// Talk to this streamable HTTP endpoint without saving it.
    #[arg(long = "url", value_name = "URL")]
    pub url: Option<String>,
    /// With --url: the endpoint speaks legacy HTTP+SSE.
    #[arg(long = "sse", requires = "url")]
    pub sse: bool,
    /// With --url: `Name: value` HTTP header (repeatable).
    #[arg(long = "header", requires = "url")]
    pub headers: Vec<String>,
    /// Run this stdio server without saving it (everything after `--`).
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

impl AdHoc {
    pub fn given(&self) -> bool {
        self.url.is_some() || !self.command.is_empty()
    }

    fn config(&self) -> Result<ServerConfig> {
        let transport = match (&self.url, self.command.split_first()) {
            (Some(_), Some(_)) => {
                return Err(Error::invalid(
                    "/transport",
                    "oneOf",
                    "give either --url or a command after --, not both",
                ));
            }
            (Some(url), None) if self.sse => Transport::Sse {
                url: url.clone(),
                headers: pairs(&self.headers, ':', "headers")?,
            },
            (Some(url), None) => Transport::Http {
                url: url.clone(),
                headers: pairs(&self.headers, ':', "headers")?,
            },
            (None, Some((cmd, args))) => Transport::Stdio {
                command: cmd.clone(),
                args: args.to_vec(),
                env: BTreeMap::new(),
                cwd: std::env::current_dir()
                    .ok()
                    .map(|d| d.display().to_string()),
            },
            (None, None) => {
                return Err(Error::invalid(
                    "/server",
                    "required",
                    "name a saved server, or give --url URL or -- COMMAND ARGS…",
                ));
            }
        };
        Ok(ServerConfig::new(transport))
    }

    /// The reserved name of this target: the same command line, the same name.
    fn name(&self, config: &ServerConfig) -> String {
        use sha2::Digest;
        let digest = sha2::Sha256::digest(
            serde_json::to_string(&config.transport)
                .unwrap_or_default()
                .as_bytes(),
        );
        let hex: String = digest.iter().take(5).map(|b| format!("{b:02x}")).collect();
        format!("adhoc-{hex}")
    }
}

/// The server a command talks to, and what to undo afterwards.
pub struct Resolved {
    pub server: String,
    /// The transient server saved for an unsaved target, deleted by [`Resolved::finish`].
    transient: Option<String>,
}

impl Resolved {
    /// Deletes the transient server, if one was saved.
    pub async fn finish(self, b: &dyn Backend, project: &str) {
        if let Some(id) = self.transient {
            let _ = b.delete_server(project, &id).await;
        }
    }
}

/// The saved server `named`, or the unsaved target `adhoc` saved for now.
pub async fn resolve(
    b: &dyn Backend,
    project: &str,
    named: Option<&str>,
    adhoc: &AdHoc,
) -> Result<Resolved> {
    match (named, adhoc.given()) {
        (Some(_), true) => Err(Error::invalid(
            "/server",
            "oneOf",
            "name a saved server or give an unsaved target (--url, -- COMMAND), not both",
        )),
        (Some(n), false) => Ok(Resolved {
            server: n.to_string(),
            transient: None,
        }),
        (None, _) => {
            let config = adhoc.config()?;
            let name = adhoc.name(&config);
            // A leftover of an interrupted command goes first.
            if let Ok(old) = b.server(project, &name).await {
                let _ = b.delete_server(project, &old.id).await;
            }
            let s = b
                .create_server(project, &ServerCreate::new(&name, config))
                .await?;
            Ok(Resolved {
                server: s.id.clone(),
                transient: Some(s.id),
            })
        }
    }
}

/// What evaldeck offers the server as its client, as options of `servers add` and
/// `servers set`.
#[derive(Debug, Clone, Default, Args)]
pub struct ClientArgs {
    /// A root offered to the server: a path or a file:// URI, optionally `=NAME`
    /// (repeatable).
    #[arg(long = "root", value_name = "PATH[=NAME]")]
    pub roots: Vec<String>,
    /// How to answer the server's sampling requests: `decline` (the default),
    /// `scripted:TEXT` or `model:PROVIDER/NAME`.
    #[arg(long, value_name = "POLICY")]
    pub sampling: Option<String>,
    /// How to answer the server's elicitations where nobody is asked: `decline` (the
    /// default), `cancel`, or `accept[:JSON]`.
    #[arg(long = "elicit", value_name = "ANSWER")]
    pub elicitation: Option<String>,
    /// The level of log messages to ask of the server (debug … emergency).
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// Upper bound on one request however much progress it reports, in milliseconds.
    #[arg(long)]
    pub max_total_timeout_ms: Option<u64>,
}

impl ClientArgs {
    pub fn given(&self) -> bool {
        !self.roots.is_empty()
            || self.sampling.is_some()
            || self.elicitation.is_some()
            || self.log_level.is_some()
            || self.max_total_timeout_ms.is_some()
    }

    /// These options applied over `base`.
    pub fn apply(&self, mut base: ClientFeatures) -> Result<ClientFeatures> {
        if !self.roots.is_empty() {
            base.roots = self.roots.iter().map(|r| Root::parse(r)).collect();
        }
        if let Some(s) = &self.sampling {
            base.sampling = Some(sampling(s)?);
        }
        if let Some(e) = &self.elicitation {
            base.elicitation = Some(elicitation(e)?);
        }
        if let Some(l) = &self.log_level {
            base.log_level = Some(
                serde_json::from_value::<LogLevel>(serde_json::json!(l.to_lowercase()))
                    .map_err(|_| {
                        Error::invalid(
                            "/client/logLevel",
                            "enum",
                            format!("`{l}` is not a log level (debug, info, notice, warning, error, critical, alert, emergency)"),
                        )
                    })?,
            );
        }
        if let Some(ms) = self.max_total_timeout_ms {
            base.max_total_timeout_ms = Some(ms);
        }
        Ok(base)
    }
}

/// `decline`, `scripted:TEXT` or `model:ID`.
pub fn sampling(text: &str) -> Result<SamplingPolicy> {
    match text.split_once(':') {
        None if text == "decline" => Ok(SamplingPolicy::Decline),
        Some(("scripted", t)) => Ok(SamplingPolicy::Scripted { text: t.into() }),
        Some(("model", m)) if !m.is_empty() => Ok(SamplingPolicy::Model { model: m.into() }),
        _ => Err(Error::invalid(
            "/client/sampling",
            "format",
            format!("`{text}`: give decline, scripted:TEXT or model:PROVIDER/NAME"),
        )),
    }
}

/// `decline`, `cancel`, `accept` or `accept:{"name": "x"}`.
pub fn elicitation(text: &str) -> Result<ElicitationAnswer> {
    let bad = || {
        Error::invalid(
            "/client/elicitation",
            "format",
            format!("`{text}`: give decline, cancel, accept or accept:JSON-OBJECT"),
        )
    };
    let (action, content) = match text.split_once(':') {
        None => (text, None),
        Some((a, json)) => match serde_json::from_str::<serde_json::Value>(json) {
            Ok(serde_json::Value::Object(m)) => (a, Some(m)),
            _ => return Err(bad()),
        },
    };
    let action = match action {
        "accept" => ElicitationAction::Accept,
        "decline" if content.is_none() => ElicitationAction::Decline,
        "cancel" if content.is_none() => ElicitationAction::Cancel,
        _ => return Err(bad()),
    };
    Ok(ElicitationAnswer { action, content })
}

/// `KEY=VALUE` (or `Name: value`) pairs.
pub fn pairs(items: &[String], sep: char, what: &str) -> Result<BTreeMap<String, String>> {
    items
        .iter()
        .map(|p| {
            p.split_once(sep)
                .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| {
                    Error::invalid(
                        &format!("/{what}"),
                        "format",
                        format!("`{p}` is not `name{sep}value`"),
                    )
                })
        })
        .collect()
}

/// Fills in a URI template (RFC 6570 up to level 3, as the workbench's form does) from
/// `vars`; a variable without a value is an error naming it.
pub fn expand_template(template: &str, vars: &BTreeMap<String, String>) -> Result<String> {
    use crate::spec::uri_template;
    if let Some(v) = uri_template::variables(template)
        .into_iter()
        .find(|v| !vars.contains_key(&v.name))
    {
        return Err(Error::invalid(
            &format!("/vars/{}", v.name),
            "required",
            format!("the template `{template}` needs `--var {}=VALUE`", v.name),
        ));
    }
    uri_template::expand(template, |k| vars.get(k).cloned())
        .map_err(|e| Error::invalid("/uri", "format", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_templates_fill_in() {
        let vars: BTreeMap<String, String> = [("id", "item 3"), ("path", "a/b")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(
            expand_template("demo://items/{id}", &vars).unwrap(),
            "demo://items/item%203"
        );
        assert_eq!(
            expand_template("file:///{+path}", &vars).unwrap(),
            "file:///a/b"
        );
        let e = expand_template("x://{missing}", &vars).unwrap_err();
        assert!(e.message.contains("--var missing=VALUE"), "{}", e.message);
    }

    #[test]
    fn answers_as_typed() {
        assert_eq!(sampling("decline").unwrap(), SamplingPolicy::Decline);
        assert_eq!(
            sampling("scripted:Paris").unwrap(),
            SamplingPolicy::Scripted {
                text: "Paris".into()
            }
        );
        assert!(sampling("maybe").is_err());
        let a = elicitation(r#"accept:{"name":"Ada"}"#).unwrap();
        assert_eq!(a.action, ElicitationAction::Accept);
        assert_eq!(a.content.unwrap()["name"], "Ada");
        assert!(elicitation("decline:{}").is_err());
    }
}
