//! `doctor`: a fresh connection taken through every stage, and its reports.

use super::*;
use crate::spec::primitives::{
    CURRENT_REVISIONS, Check, ConnectionSummary, DoctorChecks, DoctorReport, DoctorStatus,
    DoctorTimings, ProbeReport, REVISIONS,
};
use crate::spec::server::Transport;
use crate::spec::{Code, Error};
use connect::{ConnectTimings, Stage};
use serde_json::Value;
use std::sync::Arc;
use std::time::Instant;

impl McpPool {
    /// `doctor`: a fresh, unpooled connection taken through every stage, then closed.
    /// Never fails: a broken server is a report with `status: error` and the error inside.
    pub async fn doctor(&self, target: &Target) -> DoctorReport {
        let started = Instant::now();
        let mut timings = ConnectTimings::default();
        let mut checks = DoctorChecks::default();
        let kind = target.config.transport.kind().to_string();
        let result = self.open(target, &mut timings, self.era(target)).await;
        let probe = timings.probe.map(|d| ProbeReport {
            transport: kind.clone(),
            target: timings.probe_target.clone().unwrap_or_else(|| {
                match &target.config.transport {
                    Transport::Stdio { command, .. } => command.clone(),
                    Transport::Http { url, .. } | Transport::Sse { url, .. } => url.clone(),
                }
            }),
            reachable: timings.probe_target.is_some(),
            duration_ms: ms(d),
        });
        let connect_ms = match (timings.connect, timings.initialize) {
            (Some(a), Some(b)) => Some(ms(a + b)),
            (Some(a), None) => Some(ms(a)),
            _ => None,
        };
        let session = match result {
            Ok(s) => s,
            Err(f) => {
                let msg = f.error.message.clone();
                match f.stage {
                    Stage::Probe => {
                        checks.probe = Some(Check::error(&msg, timings.probe.map(ms)));
                        checks.connection = Some(Check::skipped("the probe failed"));
                        checks.initialization = Some(Check::skipped("not connected"));
                    }
                    Stage::Connection => {
                        checks.probe = Some(match &timings.probe_target {
                            Some(t) => Check::ok(format!("reachable: {t}"), timings.probe.map(ms)),
                            None => Check::skipped("not attempted"),
                        });
                        checks.connection = Some(Check::error(&msg, timings.connect.map(ms)));
                        checks.initialization = Some(Check::skipped("not connected"));
                    }
                    Stage::Initialization => {
                        checks.probe = Some(Check::ok(
                            format!(
                                "reachable: {}",
                                timings.probe_target.clone().unwrap_or_default()
                            ),
                            timings.probe.map(ms),
                        ));
                        checks.connection = Some(Check::ok(
                            timings
                                .connection_detail
                                .clone()
                                .unwrap_or_else(|| "connected".into()),
                            timings.connect.map(ms),
                        ));
                        checks.initialization = Some(Check::error(&msg, None));
                    }
                }
                for c in [
                    &mut checks.capabilities,
                    &mut checks.tools,
                    &mut checks.resources,
                    &mut checks.resource_templates,
                    &mut checks.prompts,
                ] {
                    *c = Some(Check::skipped("not initialized"));
                }
                let status = if f.error.code == Code::OauthRequired {
                    DoctorStatus::OauthRequired
                } else {
                    DoctorStatus::Error
                };
                let connection = ConnectionSummary {
                    status: if f.stage == Stage::Initialization {
                        "connected"
                    } else {
                        "error"
                    }
                    .into(),
                    detail: if f.stage == Stage::Initialization {
                        timings
                            .connection_detail
                            .clone()
                            .unwrap_or_else(|| "connected".into())
                    } else {
                        msg
                    },
                };
                let timings = DoctorTimings {
                    probe_ms: timings.probe.map(ms),
                    connect_ms,
                    discovery_ms: None,
                    total_ms: ms(started.elapsed()),
                };
                return unconnected(status, probe, connection, checks, timings, f.error);
            }
        };
        let session = Arc::new(session);
        checks.probe = Some(Check::ok(
            format!(
                "reachable: {}",
                timings.probe_target.clone().unwrap_or_default()
            ),
            timings.probe.map(ms),
        ));
        let conn_detail = timings
            .connection_detail
            .clone()
            .unwrap_or_else(|| "connected".into());
        checks.connection = Some(Check::ok(&conn_detail, timings.connect.map(ms)));
        let info = init_info(&session.info);
        let server_name = session
            .info
            .server_info
            .as_ref()
            .map(|s| format!("{} {}", s.name, s.version))
            .unwrap_or_else(|| "an unnamed server".into());
        checks.initialization = Some(Check::ok(
            format!("{server_name}, protocol {}", info.protocol_version),
            timings.initialize.map(ms),
        ));
        let caps: Vec<&str> = [
            ("tools", session.info.capabilities.tools.is_some()),
            ("prompts", session.info.capabilities.prompts.is_some()),
            ("resources", session.info.capabilities.resources.is_some()),
            (
                "completions",
                session.info.capabilities.completions.is_some(),
            ),
            ("logging", session.info.capabilities.logging.is_some()),
        ]
        .into_iter()
        .filter(|(_, on)| *on)
        .map(|(n, _)| n)
        .collect();
        checks.capabilities = Some(Check::ok(
            if caps.is_empty() {
                "no capabilities advertised".to_string()
            } else {
                format!("advertised: {}", caps.join(", "))
            },
            None,
        ));

        let discovery = Instant::now();
        let mut first_error: Option<Error> = None;
        let mut report_tools = None;
        let mut report_prompts = None;
        let mut report_resources = None;
        let mut report_templates = None;
        for list in [List::Tools, List::Resources, List::Templates, List::Prompts] {
            let check = if !list.cap().advertised(&session) {
                Check::skipped(format!("`{}` capability not advertised", list.cap().name()))
            } else {
                let t = Instant::now();
                match self.list_all_on(target, &session, list).await {
                    Ok(v) => {
                        let n = v.len();
                        let noun = match list {
                            List::Tools => "tool",
                            List::Prompts => "prompt",
                            List::Resources => "resource",
                            List::Templates => "resource template",
                        };
                        let converted = match list {
                            List::Tools => items(v).map(|x| report_tools = Some(x)),
                            List::Prompts => items(v).map(|x| report_prompts = Some(x)),
                            List::Resources => items(v).map(|x| report_resources = Some(x)),
                            List::Templates => items(v).map(|x| report_templates = Some(x)),
                        };
                        match converted {
                            Ok(()) => Check::ok(
                                format!("{n} {noun}{}", if n == 1 { "" } else { "s" }),
                                Some(ms(t.elapsed())),
                            ),
                            Err(e) => {
                                let c = Check::error(&e.message, Some(ms(t.elapsed())));
                                first_error.get_or_insert(e);
                                c
                            }
                        }
                    }
                    // Templates are optional even where resources are advertised.
                    Err(e)
                        if matches!(list, List::Templates)
                            && e.code == Code::FeatureNotSupported =>
                    {
                        Check::skipped("the server does not implement resources/templates/list")
                    }
                    Err(e) => {
                        let c = Check::error(&e.message, Some(ms(t.elapsed())));
                        first_error.get_or_insert(e);
                        c
                    }
                }
            };
            match list {
                List::Tools => checks.tools = Some(check),
                List::Prompts => checks.prompts = Some(check),
                List::Resources => checks.resources = Some(check),
                List::Templates => checks.resource_templates = Some(check),
            }
        }
        session.close(self.inner.opts.close_grace).await;
        let revisions = self.revision_matrix(target).await;
        let current = revisions.iter().take(CURRENT_REVISIONS).any(|r| r.accepted);
        let accepted: Vec<&str> = revisions
            .iter()
            .filter(|r| r.accepted)
            .map(|r| r.revision.as_str())
            .collect();
        checks.revisions = Some(if current {
            Check::ok(format!("accepts {}", accepted.join(", ")), None)
        } else {
            Check::error(
                format!(
                    "accepts none of the current revisions ({}); accepts {}",
                    REVISIONS[..CURRENT_REVISIONS].join(", "),
                    if accepted.is_empty() {
                        "none of them".to_string()
                    } else {
                        accepted.join(", ")
                    }
                ),
                None,
            )
        });
        DoctorReport {
            generated_at: iso_now(),
            status: if first_error.is_some() || !current {
                DoctorStatus::Partial
            } else {
                DoctorStatus::Ready
            },
            probe,
            connection: ConnectionSummary {
                status: "connected".into(),
                detail: conn_detail,
            },
            capabilities: Some(info.capabilities.clone()),
            init_info: Some(info),
            tools: report_tools,
            resources: report_resources,
            resource_templates: report_templates,
            prompts: report_prompts,
            revisions: Some(revisions),
            checks,
            timings: DoctorTimings {
                probe_ms: timings.probe.map(ms),
                connect_ms,
                discovery_ms: Some(ms(discovery.elapsed())),
                total_ms: ms(started.elapsed()),
            },
            error: first_error,
        }
    }
}

/// The doctor's report when the OAuth access token could not be refreshed: `oauth_required`,
/// with the refresh failure as its error (an `OAUTH_REQUIRED` one with reason
/// `REFRESH_FAILED`; an unreachable token endpoint's error keeps its code in
/// `details.cause`). `rejected` is the report of the attempt whose token the server
/// rejected; without one the token had expired and no connection was attempted.
pub fn doctor_refresh_failed(
    rejected: Option<DoctorReport>,
    error: Error,
    started: Instant,
) -> DoctorReport {
    let error = if error.code == Code::OauthRequired {
        error
    } else {
        let mut e = errors::oauth_required(
            format!("cannot refresh the OAuth access token: {}", error.message),
            errors::REASON_REFRESH_FAILED,
            None,
        );
        e.details.as_mut().expect("reason set")["cause"] =
            serde_json::to_value(&error.code).unwrap_or(Value::Null);
        e
    };
    match rejected {
        Some(mut r) => {
            r.status = DoctorStatus::OauthRequired;
            r.generated_at = iso_now();
            r.connection.detail = format!(
                "the server rejected the access token, and refreshing it failed: {}",
                error.message
            );
            r.timings.total_ms = ms(started.elapsed());
            r.error = Some(error);
            r
        }
        None => {
            let detail = format!(
                "the access token expired, and refreshing it failed: {}",
                error.message
            );
            let not_attempted = || Check::skipped("not attempted: no usable access token");
            unconnected(
                DoctorStatus::OauthRequired,
                None,
                ConnectionSummary {
                    status: "error".into(),
                    detail: detail.clone(),
                },
                DoctorChecks {
                    probe: Some(not_attempted()),
                    connection: Some(Check::error(detail, None)),
                    initialization: Some(Check::skipped("not connected")),
                    capabilities: Some(Check::skipped("not initialized")),
                    tools: Some(Check::skipped("not initialized")),
                    resources: Some(Check::skipped("not initialized")),
                    resource_templates: Some(Check::skipped("not initialized")),
                    prompts: Some(Check::skipped("not initialized")),
                    revisions: Some(Check::skipped("not initialized")),
                },
                DoctorTimings {
                    probe_ms: None,
                    connect_ms: None,
                    discovery_ms: None,
                    total_ms: ms(started.elapsed()),
                },
                error,
            )
        }
    }
}

/// A report of a doctor run that never got a session: nothing was discovered, and
/// `error` says why.
fn unconnected(
    status: DoctorStatus,
    probe: Option<ProbeReport>,
    connection: ConnectionSummary,
    checks: DoctorChecks,
    timings: DoctorTimings,
    error: Error,
) -> DoctorReport {
    DoctorReport {
        generated_at: iso_now(),
        status,
        probe,
        connection,
        init_info: None,
        capabilities: None,
        tools: None,
        resources: None,
        resource_templates: None,
        prompts: None,
        revisions: None,
        checks,
        timings,
        error: Some(error),
    }
}
