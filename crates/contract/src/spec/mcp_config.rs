//! Reading the `mcp.json`-style files users already keep (Claude Desktop, Claude Code,
//! Cursor: `{"mcpServers": {…}}`; VS Code: `{"servers": {…}, "inputs": […]}`) into servers
//! to save, with a note for everything that cannot be mapped. Pure: the CLI and the
//! workbench both call it and then save through their backend.
//!
//! VS Code (and Cursor) keep these files as JSONC: `//` and `/* */` comments and trailing
//! commas are accepted and dropped before parsing.

use serde_json::{Map, Value};
use std::collections::BTreeMap;

use super::server::{ServerCreate, Transport};

/// A path as a shell would expand a leading `~` (`~` and `~/…`, from `HOME`); anything
/// else, `~user` included, is returned as typed.
pub fn expand_home(path: &str) -> String {
    let home = || std::env::var("HOME").ok().filter(|h| !h.is_empty());
    match path.strip_prefix('~') {
        Some("") => home().unwrap_or_else(|| path.to_string()),
        Some(rest) if rest.starts_with('/') => match home() {
            Some(h) => format!("{}{rest}", h.trim_end_matches('/')),
            None => path.to_string(),
        },
        _ => path.to_string(),
    }
}

/// What a config file yields: servers ready to save, and what was left out and why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mapped {
    pub servers: Vec<ServerCreate>,
    pub skipped: Vec<Unmapped>,
    /// Mapped, but with something the user should know (an unresolved `${input:…}`, …).
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Unmapped {
    pub name: String,
    pub reason: String,
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

fn string_map(v: Option<&Value>) -> BTreeMap<String, String> {
    v.and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str()
                            .map(str::to_string)
                            .unwrap_or_else(|| v.to_string()),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Variables like `${input:api-key}` or `${workspaceFolder}` that only the editor resolves.
fn placeholders(s: &ServerCreate) -> Vec<String> {
    let mut texts: Vec<&str> = Vec::new();
    match &s.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            texts.push(command);
            texts.extend(args.iter().map(String::as_str));
            texts.extend(env.values().map(String::as_str));
            texts.extend(cwd.as_deref());
        }
        Transport::Http { url, headers } | Transport::Sse { url, headers } => {
            texts.push(url);
            texts.extend(headers.values().map(String::as_str));
        }
    }
    let mut out: Vec<String> = texts
        .iter()
        .flat_map(|t| t.match_indices("${").map(move |(i, _)| &t[i..]))
        .filter_map(|t| t.find('}').map(|j| t[..=j].to_string()))
        .collect();
    out.sort();
    out.dedup();
    out
}

fn map_one(name: &str, v: &Map<String, Value>) -> Result<ServerCreate, String> {
    let kind = v
        .get("type")
        .or_else(|| v.get("transport"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let url = v
        .get("url")
        .or_else(|| v.get("serverUrl"))
        .and_then(Value::as_str);
    let transport = match (v.get("command").and_then(Value::as_str), url) {
        (Some(command), _) if kind.is_empty() || kind == "stdio" => Transport::Stdio {
            command: command.to_string(),
            args: strings(v.get("args")),
            env: string_map(v.get("env")),
            cwd: v.get("cwd").and_then(Value::as_str).map(str::to_string),
        },
        (_, Some(url)) => {
            let headers = string_map(v.get("headers"));
            match kind {
                "sse" => Transport::Sse {
                    url: url.to_string(),
                    headers,
                },
                "" | "http" | "streamable-http" | "streamableHttp" | "streamable_http" => {
                    // A bare URL ending in /sse is, by convention, a legacy SSE endpoint.
                    if kind.is_empty() && url.trim_end_matches('/').ends_with("/sse") {
                        Transport::Sse {
                            url: url.to_string(),
                            headers,
                        }
                    } else {
                        Transport::Http {
                            url: url.to_string(),
                            headers,
                        }
                    }
                }
                other => return Err(format!("unknown transport type `{other}`")),
            }
        }
        _ => return Err("neither a `command` (stdio) nor a `url` (HTTP)".into()),
    };
    let mut s = ServerCreate {
        name: name.trim().to_string(),
        transport,
        connect_timeout_ms: None,
        request_timeout_ms: None,
        use_oauth: v
            .get("oauth")
            .is_some_and(|o| !o.is_null() && o != &Value::Bool(false)),
        enabled: !v.get("disabled").and_then(Value::as_bool).unwrap_or(false),
        client: None,
    };
    // Claude Code and Cursor write `timeout` in milliseconds.
    if let Some(t) = v.get("timeout").and_then(Value::as_u64) {
        s.request_timeout_ms = Some(t.clamp(1, super::server::MAX_TIMEOUT_MS));
    }
    Ok(s)
}

/// JSONC to JSON: drops `//` and `/* */` comments and commas that only precede `}` or `]`,
/// leaving string contents (and so URLs with `//`) untouched. Comments become spaces and
/// newlines are kept, so a parse error's line and column still point into the user's file.
/// An unterminated block comment is left for the JSON parser to reject.
pub fn strip_jsonc(text: &str) -> String {
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    // Where a comma was copied, while only whitespace and comments follow it.
    let mut pending_comma: Option<usize> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => {
                pending_comma = None;
                let start = i;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(b.len());
                out.extend_from_slice(&b[start..i]);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < b.len() && b[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let Some(end) = text[i + 2..].find("*/") else {
                    out.extend_from_slice(&b[i..]);
                    break;
                };
                for &c in &b[i..i + 2 + end + 2] {
                    out.push(if c == b'\n' { b'\n' } else { b' ' });
                }
                i += 2 + end + 2;
                continue;
            }
            b',' => pending_comma = Some(out.len()),
            b'}' | b']' => {
                if let Some(at) = pending_comma.take() {
                    out[at] = b' ';
                }
            }
            c if c.is_ascii_whitespace() => {}
            _ => pending_comma = None,
        }
        out.push(b[i]);
        i += 1;
    }
    // Only ASCII bytes were replaced, by ASCII, outside multi-byte sequences.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Maps a config file's text (JSON or JSONC). A file that is not JSON, or has no server
/// table, is an error message for the user; individual servers that cannot be mapped are
/// reported in `skipped`.
pub fn map_config(text: &str) -> Result<Mapped, String> {
    let text = strip_jsonc(text.trim_start_matches('\u{feff}'));
    let root: Value = serde_json::from_str(&text).map_err(|e| format!("not a JSON file: {e}"))?;
    let table = ["mcpServers", "servers", "mcp_servers"]
        .iter()
        .find_map(|k| root.get(k).and_then(Value::as_object))
        .or_else(|| {
            root.get("mcp")
                .and_then(|m| m.get("servers"))
                .and_then(Value::as_object)
        })
        .ok_or("no `mcpServers` (Claude, Cursor) or `servers` (VS Code) table in the file")?;
    let mut out = Mapped::default();
    for (name, v) in table {
        let Some(obj) = v.as_object() else {
            out.skipped.push(Unmapped {
                name: name.clone(),
                reason: "not an object".into(),
            });
            continue;
        };
        if obj.contains_key("envFile") {
            out.warnings.push(format!(
                "{name}: `envFile` is not read; copy its variables into `env`"
            ));
        }
        match map_one(name, obj) {
            Ok(s) => {
                let vars = placeholders(&s);
                if !vars.is_empty() {
                    out.warnings.push(format!(
                        "{name}: {} must be replaced by real values before the server can start",
                        vars.join(", ")
                    ));
                }
                out.servers.push(s);
            }
            Err(reason) => out.skipped.push(Unmapped {
                name: name.clone(),
                reason,
            }),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_desktop_and_cursor() {
        let m = map_config(
            r#"{"mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"DEBUG": "1"}},
                "remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer x"}},
                "legacy": {"url": "https://old.example.com/sse"},
                "off": {"command": "x", "disabled": true},
                "broken": {"args": ["nothing to run"]}
            }}"#,
        )
        .unwrap();
        assert_eq!(m.servers.len(), 4);
        assert!(
            matches!(&m.servers[0].transport, Transport::Stdio { command, args, env, .. } if command == "npx" && args.len() == 3 && env["DEBUG"] == "1")
        );
        assert!(
            matches!(&m.servers[1].transport, Transport::Http { headers, .. } if headers["Authorization"] == "Bearer x")
        );
        assert!(matches!(&m.servers[2].transport, Transport::Sse { .. }));
        assert!(!m.servers[3].enabled);
        assert_eq!(
            m.skipped,
            vec![Unmapped {
                name: "broken".into(),
                reason: "neither a `command` (stdio) nor a `url` (HTTP)".into()
            }]
        );
    }

    #[test]
    fn vscode_with_inputs() {
        let m = map_config(
            "\u{feff}{\"servers\": {\"gh\": {\"type\": \"http\", \"url\": \"https://api.example.com/mcp\", \"headers\": {\"Authorization\": \"Bearer ${input:token}\"}},
             \"py\": {\"type\": \"stdio\", \"command\": \"uvx\", \"args\": [\"mcp-server-time\"]},
             \"odd\": {\"type\": \"websocket\", \"url\": \"wss://x\"}}, \"inputs\": []}",
        )
        .unwrap();
        assert_eq!(m.servers.len(), 2);
        assert_eq!(m.skipped[0].name, "odd");
        assert!(m.warnings[0].contains("${input:token}"));
    }

    #[test]
    fn not_a_config() {
        assert!(map_config("nope").unwrap_err().contains("not a JSON"));
        assert!(map_config("{}").unwrap_err().contains("mcpServers"));
    }

    #[test]
    fn vscode_jsonc_with_comments_and_trailing_commas() {
        // As VS Code writes `.vscode/mcp.json`.
        let text = r#"{
    // Servers for this workspace. See https://code.visualstudio.com/docs/copilot/mcp
    "inputs": [
        {
            "type": "promptString",
            "id": "github-token",
            "description": "GitHub personal access token", // asked once
            "password": true,
        },
    ],
    "servers": {
        /* The hosted GitHub server */
        "github": {
            "type": "http",
            "url": "https://api.githubcopilot.com/mcp/",
            "headers": { "Authorization": "Bearer ${input:github-token}" },
        },
        "fetch": {
            "type": "stdio",
            "command": "uvx",
            "args": ["mcp-server-fetch", "--user-agent", "a // b /* c */ d,]"], // not a comment
            "env": { "QUOTE": "say \"hi\", // still a string" },
        },
    },
}
"#;
        let m = map_config(text).unwrap();
        assert_eq!(m.servers.len(), 2, "{m:?}");
        assert!(m.skipped.is_empty(), "{m:?}");
        let Transport::Stdio { args, env, .. } = &m.servers[1].transport else {
            panic!("{m:?}")
        };
        assert_eq!(args[2], "a // b /* c */ d,]");
        assert_eq!(env["QUOTE"], "say \"hi\", // still a string");
        assert!(
            matches!(&m.servers[0].transport, Transport::Http { url, .. } if url == "https://api.githubcopilot.com/mcp/")
        );
        assert!(m.warnings[0].contains("${input:github-token}"));
    }

    #[test]
    fn jsonc_stripping_keeps_positions_and_rejects_what_json_rejects() {
        assert_eq!(strip_jsonc("[1, /* x */ 2,]"), "[1,         2 ]");
        assert_eq!(strip_jsonc("{\"a\": 1 // c\n}"), "{\"a\": 1     \n}");
        assert_eq!(strip_jsonc("{\"é\": \"ü,\",}"), "{\"é\": \"ü,\" }");
        // A comma before a value is not trailing; a lone comma is still an error.
        assert!(serde_json::from_str::<Value>(&strip_jsonc("[1,,]")).is_err());
        assert!(map_config("{\"servers\": {} /* open").is_err());
        // Line numbers in errors point into the original file.
        let e = map_config("{\n// c\n\"servers\": {\"a\": }\n}").unwrap_err();
        assert!(e.contains("line 3"), "{e}");
    }
}
