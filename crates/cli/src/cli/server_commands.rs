//! The commands that talk to one MCP server — doctor, validate, export, tools, prompts,
//! resources, tasks — against a saved server or an unsaved target ([`target_server`]).

use std::collections::BTreeMap;

use super::output::Out;
use super::target_server::{self, Resolved};
use super::{
    Command, Failure, Outcome, PromptsCmd, ResourcesCmd, Target, TasksCmd, ToolsCmd, collect_mcp,
    project_id, server_and_name, tool_arguments,
};
use crate::client::Backend;
use crate::spec::primitives::{
    DoctorStatus, ListRequest, PromptGetRequest, ResourceReadRequest, ToolCallRequest,
};
use crate::spec::{Code, Result};

pub(super) async fn run(target: &Target, b: &dyn Backend, cmd: Command, out: &Out) -> Outcome {
    let p = project_id(b, target.project.as_deref()).await?;
    let (named, adhoc) = match &cmd {
        Command::Doctor { server, adhoc }
        | Command::Validate { server, adhoc }
        | Command::Export { server, adhoc }
        | Command::Tools(ToolsCmd::List { server, adhoc })
        | Command::Prompts(PromptsCmd::List { server, adhoc })
        | Command::Resources(ResourcesCmd::List { server, adhoc })
        | Command::Tasks(TasksCmd::List { server, adhoc }) => (server.clone(), adhoc.clone()),
        Command::Tools(ToolsCmd::Call { names, adhoc, .. })
        | Command::Tasks(TasksCmd::Cancel { names, adhoc })
        | Command::Prompts(PromptsCmd::Get { names, adhoc, .. })
        | Command::Resources(ResourcesCmd::Read { names, adhoc, .. })
        | Command::Resources(ResourcesCmd::Subscribe { names, adhoc, .. }) => {
            (server_and_name(names, adhoc)?.0, adhoc.clone())
        }
        _ => unreachable!("only server commands come here"),
    };
    let resolved = target_server::resolve(b, &p, named.as_deref(), &adhoc).await?;
    // Over a remote backend the traffic is fetched once the command is done.
    let remote_verbose = target.verbose && target.base_url.is_some();
    let before = match remote_verbose {
        true => b
            .server_traffic(&p, &resolved.server, u64::MAX)
            .await
            .map(|t| t.last_seq)
            .ok(),
        false => None,
    };
    let result = dispatch(b, &p, &resolved, cmd, out).await;
    if let Some(seq) = before
        && let Ok(t) = b.server_traffic(&p, &resolved.server, seq).await
    {
        for e in &t.items {
            eprintln!("{}", crate::local::mcp::traffic_line(&resolved.server, e));
        }
    }
    resolved.finish(b, &p).await;
    result
}

async fn dispatch(b: &dyn Backend, p: &str, r: &Resolved, cmd: Command, out: &Out) -> Outcome {
    let server = r.server.as_str();
    match cmd {
        Command::Doctor { .. } => {
            let report = b.doctor(p, server).await?;
            out.doctor(&report)?;
            if report.status == DoctorStatus::Ready {
                Ok(())
            } else {
                Err(Failure::Exit(1))
            }
        }
        Command::Validate { .. } => Ok(out.value(&b.validate_server(p, server).await?)?),
        Command::Export { .. } => Ok(out.value(&b.export(p, server).await?)?),
        Command::Tools(ToolsCmd::List { .. }) => {
            let items =
                collect_mcp(
                    |cursor| async move { b.tools(p, server, &ListRequest { cursor }).await },
                )
                .await?;
            Ok(out.tools(&items)?)
        }
        Command::Tools(ToolsCmd::Call {
            names,
            args,
            arg,
            elicitation,
            sampling,
            task,
            adhoc,
        }) => {
            let (_, tool) = server_and_name(&names, &adhoc)?;
            let parameters = tool_arguments(args.as_deref(), &arg)?;
            let mut req = ToolCallRequest::new(tool, Some(parameters));
            req.elicitation = elicitation
                .as_deref()
                .map(target_server::elicitation)
                .transpose()?;
            req.sampling = sampling
                .as_deref()
                .map(target_server::sampling)
                .transpose()?;
            req.task = task.then(Default::default);
            let started = std::time::Instant::now();
            let Some(result) = call(b, p, server, &mut req).await? else {
                eprintln!("evaldeck: interrupted — the call was cancelled");
                return Err(Failure::Exit(130));
            };
            out.tool_result(&result, started.elapsed())?;
            if result.get("isError").and_then(serde_json::Value::as_bool) == Some(true) {
                return Err(Failure::Exit(3));
            }
            Ok(())
        }
        Command::Prompts(PromptsCmd::List { .. }) => {
            let items =
                collect_mcp(
                    |cursor| async move { b.prompts(p, server, &ListRequest { cursor }).await },
                )
                .await?;
            Ok(out.prompts(&items)?)
        }
        Command::Prompts(PromptsCmd::Get {
            names, arg, adhoc, ..
        }) => {
            let (_, prompt) = server_and_name(&names, &adhoc)?;
            let req = PromptGetRequest {
                prompt_name: prompt,
                arguments: Some(tool_arguments(None, &arg)?),
            };
            Ok(out.prompt_result(&b.get_prompt(p, server, &req).await?)?)
        }
        Command::Resources(ResourcesCmd::List { .. }) => {
            let items = collect_mcp(|cursor| async move {
                b.resources(p, server, &ListRequest { cursor }).await
            })
            .await?;
            let templates = match collect_mcp(|cursor| async move {
                b.resource_templates(p, server, &ListRequest { cursor })
                    .await
            })
            .await
            {
                Ok(t) => t,
                Err(e) if e.code == Code::FeatureNotSupported => Vec::new(),
                Err(e) => return Err(e.into()),
            };
            Ok(out.resources(&items, &templates)?)
        }
        Command::Resources(ResourcesCmd::Read {
            names, vars, adhoc, ..
        }) => {
            let (_, uri) = server_and_name(&names, &adhoc)?;
            let vars: BTreeMap<String, String> = target_server::pairs(&vars, '=', "vars")?;
            let uri = if uri.contains('{') {
                target_server::expand_template(&uri, &vars)?
            } else {
                uri
            };
            let result = b
                .read_resource(p, server, &ResourceReadRequest { uri })
                .await?;
            Ok(out.resource_contents(&result)?)
        }
        Command::Resources(ResourcesCmd::Subscribe {
            names,
            watch,
            adhoc,
        }) => {
            let (_, uri) = server_and_name(&names, &adhoc)?;
            let start = b.server_traffic(p, server, u64::MAX).await?.last_seq;
            let sub = b
                .subscribe_resource(p, server, &ResourceReadRequest { uri: uri.clone() })
                .await?;
            if out.json {
                out.value(&sub)?;
            } else {
                println!("subscribed to {uri}; watching for {watch} s (Ctrl-C stops)");
            }
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(watch);
            let mut after = start;
            while std::time::Instant::now() < deadline {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                let page = b.server_traffic(p, server, after).await?;
                after = page.last_seq;
                for e in page
                    .items
                    .iter()
                    .filter(|e| e.method.as_deref() == Some("notifications/resources/updated"))
                {
                    let updated = e.message["params"]["uri"].as_str().unwrap_or_default();
                    if out.json {
                        out.value(&serde_json::json!({"updated": updated, "at": e.at}))?;
                    } else {
                        println!("updated {updated}");
                    }
                }
            }
            Ok(())
        }
        Command::Tasks(TasksCmd::List { .. }) => {
            let tasks = b.server_tasks(p, server).await?;
            if out.json {
                return Ok(out.value(&tasks)?);
            }
            super::table(
                &["task", "status", "tool", "source", "message"],
                tasks
                    .items
                    .iter()
                    .map(|t| {
                        vec![
                            t.task_id.clone(),
                            t.status.clone(),
                            t.tool_name.clone().unwrap_or_else(|| "—".into()),
                            t.source.clone(),
                            t.status_message.clone().unwrap_or_default(),
                        ]
                    })
                    .collect(),
            );
            Ok(())
        }
        Command::Tasks(TasksCmd::Cancel { names, adhoc }) => {
            let (_, id) = server_and_name(&names, &adhoc)?;
            Ok(out.value(&b.cancel_task(p, server, &id).await?)?)
        }
        _ => unreachable!("only server commands come here"),
    }
}

/// `tools/call`, cancellable with Ctrl-C: the call is named, so over a remote backend the
/// interruption reaches the server that makes it (`…/calls/{callId}/cancel`); in the
/// embedded core the dropped call sends `notifications/cancelled` itself.
/// `None` when interrupted.
async fn call(
    b: &dyn Backend,
    p: &str,
    server: &str,
    req: &mut ToolCallRequest,
) -> Result<Option<serde_json::Value>> {
    let id = format!("cli-{}", uuid::Uuid::now_v7().simple());
    req.call_id = Some(id.clone());
    tokio::select! {
        r = b.call_tool(p, server, req) => r.map(Some),
        _ = tokio::signal::ctrl_c() => {
            let _ = b.cancel_call(p, server, &id).await;
            // Let the cancellation reach the server before the session closes.
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            Ok(None)
        }
    }
}
