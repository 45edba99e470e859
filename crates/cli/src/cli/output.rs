//! Printing results: aligned tables for people, JSON for programs, errors on stderr.

use serde::Serialize;

use crate::spec::catalog::{EvalSuiteSummary, Me, Project};
use crate::spec::environment::Environment;
use crate::spec::host::HostSummary;
use crate::spec::primitives::{
    CheckStatus, DoctorReport, PromptItem, ResourceItem, ResourceTemplateItem, ToolItem,
};
use crate::spec::server::Server;
use crate::spec::{Error, Result};

pub struct Out {
    pub json: bool,
}

/// Prints rows as aligned columns under a header.
pub fn table(header: &[&str], rows: Vec<Vec<String>>) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in &rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let parts: Vec<String> = cells
            .iter()
            .enumerate()
            .map(|(i, c)| {
                format!(
                    "{c:<w$}",
                    w = if i + 1 == cells.len() { 0 } else { widths[i] }
                )
            })
            .collect();
        println!("{}", parts.join("  ").trim_end());
    };
    line(header.iter().map(|h| h.to_uppercase()).collect());
    for r in rows {
        line(r);
    }
}

/// Epoch milliseconds as UTC for tables (`2026-11-22 14:03:07`); JSON output keeps the number.
pub fn when(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_else(|| ms.to_string())
}

fn or_dash(s: Option<impl ToString>) -> String {
    s.map(|s| s.to_string()).unwrap_or_else(|| "—".into())
}

impl Out {
    pub fn value<T: Serialize>(&self, v: &T) -> Result<()> {
        println!(
            "{}",
            serde_json::to_string_pretty(v).expect("wire types serialize")
        );
        Ok(())
    }

    fn list<T: Serialize>(
        &self,
        items: &[T],
        header: &[&str],
        row: impl Fn(&T) -> Vec<String>,
    ) -> Result<()> {
        if self.json {
            return self.value(&items);
        }
        table(header, items.iter().map(row).collect());
        Ok(())
    }

    pub fn error(&self, e: &Error) {
        if self.json {
            eprintln!("{}", serde_json::to_string(e).expect("errors serialize"));
            return;
        }
        eprintln!("error: {} ({})", e.message, e.code);
        for v in e.violations() {
            eprintln!(
                "  {} [{}]: {}",
                if v.path.is_empty() { "body" } else { &v.path },
                v.rule,
                v.message
            );
        }
        if let Some(d) = e.details.as_ref().filter(|_| e.violations().is_empty()) {
            eprintln!("  details: {d}");
        }
    }

    pub fn me(&self, me: &Me, backend: &str) -> Result<()> {
        if self.json {
            return self.value(me);
        }
        println!("{} <{}>", me.name, me.email);
        if let Some(o) = &me.organization {
            println!("organization  {} ({}), role {}", o.name, o.id, o.role);
            println!("credits       {}", o.credits);
        }
        println!("backend       {backend}");
        Ok(())
    }

    pub fn projects(&self, items: &[Project]) -> Result<()> {
        self.list(items, &["id", "name", "role", "description"], |p| {
            vec![
                p.id.clone(),
                p.name.clone(),
                or_dash(p.role.as_ref()),
                or_dash(p.description.as_ref()),
            ]
        })
    }

    pub fn servers(&self, items: &[Server]) -> Result<()> {
        self.list(
            items,
            &["id", "name", "transport", "status", "target"],
            |s| {
                let target = match s.config.as_ref().map(|c| &c.transport) {
                    Some(crate::spec::server::Transport::Stdio { command, args, .. }) => {
                        format!("{command} {}", args.join(" ")).trim().to_string()
                    }
                    _ => or_dash(s.url.as_ref()),
                };
                let status = if s.enabled {
                    or_dash(s.last_status.as_ref())
                } else {
                    "disabled".into()
                };
                vec![
                    s.id.clone(),
                    s.name.clone(),
                    s.transport_type.clone(),
                    status,
                    target,
                ]
            },
        )
    }

    pub fn hosts(&self, items: &[HostSummary]) -> Result<()> {
        self.list(items, &["id", "name", "profile", "model", "servers"], |h| {
            vec![
                h.id.clone(),
                h.name.clone(),
                h.host_config_id.clone(),
                h.model_id.clone(),
                h.server_count.to_string(),
            ]
        })
    }

    pub fn environments(&self, items: &[Environment]) -> Result<()> {
        self.list(items, &["id", "name", "revision", "state", "host"], |e| {
            let state = if e.archived { "archived" } else { "live" };
            vec![
                e.id.clone(),
                e.name.clone(),
                e.revision.to_string(),
                state.into(),
                e.host_id.clone(),
            ]
        })
    }

    pub fn suites(&self, items: &[EvalSuiteSummary]) -> Result<()> {
        self.list(items, &["id", "name", "cases", "runs", "latest"], |s| {
            let latest = s
                .latest_run
                .as_ref()
                .map(|r| {
                    format!(
                        "{} {}",
                        or_dash(r.status.as_ref()),
                        r.pass_rate
                            .map(|p| format!("{:.0}%", p * 100.0))
                            .unwrap_or_default()
                    )
                })
                .unwrap_or_else(|| "never run".into());
            vec![
                s.id.clone(),
                or_dash(s.name.as_ref()),
                or_dash(s.case_count),
                or_dash(s.totals.runs),
                latest.trim().to_string(),
            ]
        })
    }
}

impl Out {
    pub fn import_report(
        &self,
        saved: &[Server],
        failed: &[(String, String)],
        warnings: &[String],
    ) -> Result<()> {
        if self.json {
            let failed: Vec<_> = failed
                .iter()
                .map(|(n, r)| serde_json::json!({"name": n, "reason": r}))
                .collect();
            return self.value(
                &serde_json::json!({"saved": saved, "notMapped": failed, "warnings": warnings}),
            );
        }
        for s in saved {
            println!("saved    {} ({}, {})", s.name, s.transport_type, s.id);
        }
        for (name, reason) in failed {
            println!("skipped  {name}: {reason}");
        }
        for w in warnings {
            println!("warning  {w}");
        }
        Ok(())
    }

    pub fn doctor(&self, r: &DoctorReport) -> Result<()> {
        if self.json {
            return self.value(r);
        }
        let status = serde_json::to_value(r.status)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default();
        println!("doctor: {status}  ({} ms)", r.timings.total_ms);
        let c = &r.checks;
        let stages = [
            ("probe", &c.probe),
            ("connection", &c.connection),
            ("initialization", &c.initialization),
            ("capabilities", &c.capabilities),
            ("tools", &c.tools),
            ("resources", &c.resources),
            ("resource templates", &c.resource_templates),
            ("prompts", &c.prompts),
            ("revisions", &c.revisions),
        ];
        for (name, check) in stages {
            let Some(check) = check else { continue };
            let mark = match check.status {
                CheckStatus::Ok => "✓",
                CheckStatus::Error => "✗",
                CheckStatus::Skipped => "–",
            };
            let ms = check
                .duration_ms
                .map(|d| format!(" ({d} ms)"))
                .unwrap_or_default();
            println!("  {mark} {name:<19}{}{ms}", check.detail);
        }
        if let Some(revisions) = &r.revisions {
            println!("  protocol revisions:");
            for v in revisions {
                let mark = if v.accepted { "✓" } else { "✗" };
                println!("    {mark} {}  {}", v.revision, v.detail);
            }
        }
        if let Some(e) = &r.error {
            println!("  error: {} ({})", e.message, e.code);
        }
        Ok(())
    }

    pub fn tools(&self, items: &[ToolItem]) -> Result<()> {
        self.list(items, &["name", "hints", "description"], |t| {
            let mut hints = Vec::new();
            if let Some(a) = &t.annotations {
                for (key, label) in [
                    ("readOnlyHint", "read-only"),
                    ("destructiveHint", "destructive"),
                    ("idempotentHint", "idempotent"),
                ] {
                    if a.get(key).and_then(serde_json::Value::as_bool) == Some(true) {
                        hints.push(label);
                    }
                }
            }
            let desc = t
                .description
                .as_deref()
                .unwrap_or("—")
                .lines()
                .next()
                .unwrap_or_default()
                .to_string();
            vec![
                t.name.clone(),
                if hints.is_empty() {
                    "—".into()
                } else {
                    hints.join(",")
                },
                desc,
            ]
        })
    }

    /// Text blocks as text, other blocks described, `structuredContent` as JSON.
    pub fn tool_result(
        &self,
        result: &serde_json::Value,
        elapsed: std::time::Duration,
    ) -> Result<()> {
        if self.json {
            return self.value(result);
        }
        if result.get("isError").and_then(serde_json::Value::as_bool) == Some(true) {
            println!("tool error:");
        }
        print_content(result.get("content"));
        if let Some(sc) = result.get("structuredContent") {
            println!(
                "structuredContent:\n{}",
                serde_json::to_string_pretty(sc).expect("json")
            );
        }
        eprintln!("({} ms)", elapsed.as_millis());
        Ok(())
    }

    pub fn prompts(&self, items: &[PromptItem]) -> Result<()> {
        self.list(items, &["name", "arguments", "description"], |p| {
            let args = p
                .arguments
                .iter()
                .flatten()
                .map(|a| {
                    if a.required == Some(true) {
                        format!("{}*", a.name)
                    } else {
                        a.name.clone()
                    }
                })
                .collect::<Vec<_>>()
                .join(", ");
            vec![
                p.name.clone(),
                or_dash((!args.is_empty()).then_some(args)),
                or_dash(p.description.as_ref()),
            ]
        })
    }

    pub fn prompt_result(&self, result: &serde_json::Value) -> Result<()> {
        if self.json {
            return self.value(result);
        }
        if let Some(d) = result
            .get("description")
            .and_then(serde_json::Value::as_str)
        {
            println!("{d}\n");
        }
        for m in result
            .get("messages")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
        {
            println!(
                "[{}]",
                m.get("role")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("?")
            );
            print_content(
                m.get("content")
                    .map(|c| {
                        if c.is_array() {
                            c.clone()
                        } else {
                            serde_json::json!([c])
                        }
                    })
                    .as_ref(),
            );
        }
        Ok(())
    }

    pub fn resources(
        &self,
        items: &[ResourceItem],
        templates: &[ResourceTemplateItem],
    ) -> Result<()> {
        if self.json {
            return self
                .value(&serde_json::json!({"resources": items, "resourceTemplates": templates}));
        }
        let mut rows: Vec<Vec<String>> = items
            .iter()
            .map(|r| {
                vec![
                    r.uri.clone(),
                    or_dash(r.name.as_ref()),
                    or_dash(r.mime_type.as_ref()),
                    or_dash(r.description.as_ref()),
                ]
            })
            .collect();
        rows.extend(templates.iter().map(|t| {
            vec![
                t.uri_template.clone(),
                or_dash(t.name.as_ref()),
                or_dash(t.mime_type.as_ref()),
                "(template)".into(),
            ]
        }));
        table(&["uri", "name", "type", "description"], rows);
        Ok(())
    }

    pub fn resource_contents(&self, result: &serde_json::Value) -> Result<()> {
        if self.json {
            return self.value(result);
        }
        for c in result
            .get("contents")
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
        {
            match (
                c.get("text").and_then(serde_json::Value::as_str),
                c.get("blob").and_then(serde_json::Value::as_str),
            ) {
                (Some(text), _) => println!("{text}"),
                (None, Some(blob)) => println!(
                    "<binary {}, {} bytes base64>",
                    c.get("mimeType")
                        .and_then(serde_json::Value::as_str)
                        .unwrap_or("application/octet-stream"),
                    blob.len()
                ),
                _ => println!("{c}"),
            }
        }
        Ok(())
    }
}

fn print_content(content: Option<&serde_json::Value>) {
    for block in content
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
    {
        let kind = block
            .get("type")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("?");
        match kind {
            "text" => println!(
                "{}",
                block
                    .get("text")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default()
            ),
            "image" | "audio" => println!(
                "<{kind} {}, {} bytes base64>",
                block
                    .get("mimeType")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("?"),
                block
                    .get("data")
                    .and_then(serde_json::Value::as_str)
                    .map(str::len)
                    .unwrap_or(0)
            ),
            "resource_link" => println!(
                "<link {}>",
                block
                    .get("uri")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("?")
            ),
            "resource" => println!(
                "<embedded resource {}>",
                block
                    .pointer("/resource/uri")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or("?")
            ),
            _ => println!("{block}"),
        }
    }
}
