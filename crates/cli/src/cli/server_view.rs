//! One saved server for people (`servers add|show|remove`): an aligned key/value block.
//! `--json` prints the wire object instead. Header and environment values are masked here
//! even for admins, so a terminal or CI log never shows them; `--json` carries them to
//! project admins.

use super::output::{Out, when};
use crate::spec::Result;
use crate::spec::catalog::Deleted;
use crate::spec::server::{REDACTED, Server, Transport};

/// The rows of the block, in order.
fn rows(s: &Server) -> Vec<(&'static str, String)> {
    let mut r: Vec<(&'static str, String)> = vec![
        ("name", s.name.clone()),
        ("id", s.id.clone()),
        ("transport", s.transport_type.clone()),
        ("enabled", if s.enabled { "yes" } else { "no" }.into()),
        (
            "status",
            s.last_status
                .clone()
                .unwrap_or_else(|| format!("not checked yet (evaldeck doctor {})", s.name)),
        ),
    ];
    let masked = |m: &std::collections::BTreeMap<String, String>| {
        m.keys()
            .map(|k| format!("{k}={REDACTED}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(c) = &s.config {
        match &c.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                r.push(("command", command.clone()));
                if !args.is_empty() {
                    r.push(("args", args.join(" ")));
                }
                if let Some(d) = cwd {
                    r.push(("cwd", d.clone()));
                }
                if !env.is_empty() {
                    r.push(("env", masked(env)));
                }
            }
            Transport::Http { url, headers } | Transport::Sse { url, headers } => {
                r.push(("url", url.clone()));
                if !headers.is_empty() {
                    r.push(("headers", masked(headers)));
                }
            }
        }
        r.push((
            "timeouts",
            format!(
                "connect {} ms, request {} ms",
                c.connect_timeout_ms, c.request_timeout_ms
            ),
        ));
    }
    if s.use_oauth {
        r.push((
            "oauth",
            if s.has_client_secret {
                "yes (client secret stored)"
            } else {
                "yes"
            }
            .into(),
        ));
    }
    if let Some(info) = &s.server_info {
        let name = info["name"].as_str().unwrap_or("?");
        let version = info["version"].as_str().unwrap_or("");
        let protocol = s
            .protocol_version
            .as_deref()
            .map(|p| format!(", protocol {p}"))
            .unwrap_or_default();
        r.push((
            "server",
            format!("{name} {version}{protocol}").trim().into(),
        ));
    }
    if let Some(caps) = s.capabilities.as_ref().and_then(|c| c.as_object()) {
        let names: Vec<&str> = caps.keys().map(String::as_str).collect();
        r.push((
            "capabilities",
            if names.is_empty() {
                "none advertised".into()
            } else {
                names.join(", ")
            },
        ));
    }
    if let Some(t) = s.last_validated_at {
        r.push(("validated", when(t)));
    }
    r.push(("revision", s.revision.to_string()));
    if let Some(t) = s.created_at {
        r.push(("created", when(t)));
    }
    if let Some(t) = s.updated_at {
        r.push(("updated", when(t)));
    }
    r
}

/// Prints a server as a key/value block, or as JSON with `--json`.
pub fn server(out: &Out, s: &Server) -> Result<()> {
    if out.json {
        return out.value(s);
    }
    let rows = rows(s);
    let width = rows.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in rows {
        println!("{k:<width$}  {v}");
    }
    Ok(())
}

/// Confirms a deletion, or prints the wire object with `--json`.
pub fn deleted(out: &Out, name: &str, d: &Deleted) -> Result<()> {
    if out.json {
        return out.value(d);
    }
    println!("deleted server {name} ({})", d.id);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::server::ServerConfig;

    #[test]
    fn secrets_are_masked_and_fields_are_labelled() {
        let s = Server {
            id: "srv_1".into(),
            project_id: None,
            name: "remote".into(),
            enabled: true,
            transport_type: "http".into(),
            url: Some("https://h.example/mcp".into()),
            use_oauth: false,
            has_client_secret: false,
            revision: 3,
            config: Some(ServerConfig::new(Transport::Http {
                url: "https://h.example/mcp".into(),
                headers: [("Authorization".to_string(), "Bearer s3cret".to_string())].into(),
            })),
            last_status: Some("connected".into()),
            capabilities: Some(serde_json::json!({"tools": {}, "prompts": {}})),
            protocol_version: Some("2025-11-25".into()),
            server_info: Some(serde_json::json!({"name": "demo", "version": "1.0"})),
            last_validated_at: Some(0),
            created_at: Some(0),
            updated_at: None,
        };
        let text: String = rows(&s)
            .iter()
            .map(|(k, v)| format!("{k}: {v}\n"))
            .collect();
        assert!(!text.contains("s3cret"), "{text}");
        assert!(text.contains("headers: Authorization=********"), "{text}");
        assert!(text.contains("capabilities: tools, prompts"), "{text}");
        assert!(
            text.contains("server: demo 1.0, protocol 2025-11-25"),
            "{text}"
        );
        assert!(text.contains("url: https://h.example/mcp"), "{text}");
    }
}
