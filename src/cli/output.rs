//! Printing results: aligned tables for people, JSON for programs, errors on stderr.

use serde::Serialize;

use crate::spec::catalog::{EvalSuiteSummary, Me, Project};
use crate::spec::environment::Environment;
use crate::spec::host::HostSummary;
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
