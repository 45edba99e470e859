//! `evaldeck agent "MESSAGE"`: one headless agent turn, printing the reply, the operations
//! the agent performed and what it created (`--json` prints the response body).
//!
//! A conversation continues through a history file (`--history FILE`: a JSON array of
//! `{role, content}` or an object with `messages`); `--save` writes the history with this
//! exchange back to it. A turn is not idempotent, so nothing here retries it; on an error,
//! what was already created is printed before the error.

use clap::Args;
use std::path::{Path, PathBuf};

use super::output::Out;
use super::{Target, project_id};
use crate::client::Backend;
use crate::spec::agent::{AgentMessage, AgentTurnRequest, AgentTurnResponse, CreatedResource};
use crate::spec::{Error, Result};

#[derive(Debug, Args)]
pub struct AgentArgs {
    /// What to ask the agent.
    pub message: String,
    /// Earlier messages: a JSON array of `{role: user|assistant, content}` (or `{messages}`).
    #[arg(long)]
    pub history: Option<PathBuf>,
    /// Write the history with this exchange back to `--history` (created if missing).
    #[arg(long, requires = "history")]
    pub save: bool,
}

fn read_history(path: &Path, must_exist: bool) -> Result<Vec<AgentMessage>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !must_exist => {
            return Ok(Vec::new());
        }
        Err(e) => {
            return Err(Error::invalid(
                "/messages",
                "read",
                format!("cannot read {}: {e}", path.display()),
            ));
        }
    };
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let v: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        Error::invalid(
            "/messages",
            "json",
            format!("{} is not JSON: {e}", path.display()),
        )
    })?;
    let messages = match v {
        serde_json::Value::Object(mut o) => o.remove("messages").unwrap_or_default(),
        other => other,
    };
    crate::spec::validate::from_value::<Vec<AgentMessage>>(messages).map_err(|e| {
        let mut e = e;
        e.message = format!("{}: {}", path.display(), e.message);
        e
    })
}

fn print_created(created: &[CreatedResource]) {
    if created.is_empty() {
        return;
    }
    println!("Created:");
    for c in created {
        println!(
            "  {} {}{}  {}",
            c.kind,
            c.id,
            c.name
                .as_deref()
                .map(|n| format!(" \"{n}\""))
                .unwrap_or_default(),
            c.url
        );
    }
}

fn print_turn(r: &AgentTurnResponse) {
    println!("{}", r.reply.trim_end());
    if !r.tool_calls.is_empty() {
        println!();
        println!("Tool calls:");
        for c in &r.tool_calls {
            let args = c.arguments.to_string();
            let args: String = if args.chars().count() > 120 {
                format!("{}…", args.chars().take(120).collect::<String>())
            } else {
                args
            };
            match &c.error {
                None => println!("  ✓ {} {args}", c.operation),
                Some(e) => println!("  ✗ {} {args}: {} {}", c.operation, e.code, e.message),
            }
        }
    }
    if !r.created_resources.is_empty() {
        println!();
        print_created(&r.created_resources);
    }
    println!();
    println!(
        "{} input + {} output tokens, {} step(s), {} credit(s){}",
        r.usage.input_tokens,
        r.usage.output_tokens,
        r.steps,
        r.credits_charged,
        r.model
            .as_deref()
            .map(|m| format!(", model {m}"))
            .unwrap_or_default()
    );
}

pub async fn run(target: &Target, b: &dyn Backend, a: AgentArgs, out: &Out) -> Result<()> {
    let mut messages = match &a.history {
        Some(p) => read_history(p, !a.save)?,
        None => Vec::new(),
    };
    messages.push(AgentMessage::user(a.message));
    let project = project_id(b, target.project.as_deref()).await?;
    let req = AgentTurnRequest {
        messages,
        session_id: None,
    };
    let r = match b.agent_turn(&project, &req).await {
        Ok(r) => r,
        Err(e) => {
            let created: Vec<CreatedResource> = e
                .details
                .as_ref()
                .and_then(|d| d.get("createdResources"))
                .and_then(|c| serde_json::from_value(c.clone()).ok())
                .unwrap_or_default();
            if !out.json {
                print_created(&created);
            }
            return Err(e);
        }
    };
    if let (true, Some(path)) = (a.save, &a.history) {
        let mut history = req.messages;
        if !r.reply.trim().is_empty() {
            history.push(AgentMessage::assistant(r.reply.clone()));
        }
        let text = serde_json::to_string_pretty(&history).expect("messages serialize");
        std::fs::write(path, text + "\n").map_err(|e| {
            Error::invalid(
                "/messages",
                "write",
                format!("cannot write {}: {e}", path.display()),
            )
        })?;
    }
    if out.json {
        return out.value(&r);
    }
    print_turn(&r);
    Ok(())
}
