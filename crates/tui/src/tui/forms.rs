//! The workbench's forms, one per thing a person saves: a server (with its client
//! features), a host, an environment, a suite (new, and its settings), a schedule. Each is
//! a [`Form`] over the request body, checked by the same rules the API applies, with the
//! JSON view one key away. The case form, which the review of drafts shares, is in
//! [`case_form`](super::case_form).

use serde_json::{Value, json};

use crate::spec::case::decode;
use crate::spec::environment::Environment;
use crate::spec::host::Host;
use crate::spec::schedule::SuiteSchedule;
use crate::spec::server::Server;
use crate::spec::suite::EvalSuite;
use crate::tui::widgets::form::{Choice, Field, Form, LinesAs};
use crate::tui::widgets::json_edit::{Validator, error_lines};

/// What the pickers offer, from what the workbench has read of the project.
#[derive(Debug, Clone, Default)]
pub struct Pickers {
    /// Saved servers: id → name.
    pub servers: Vec<Choice>,
    pub hosts: Vec<Choice>,
    /// Live (not archived) environments.
    pub environments: Vec<Choice>,
    /// Model ids seen in the project, the built-in baseline first.
    pub models: Vec<Choice>,
}

fn check<T: serde::de::DeserializeOwned>(
    v: &Value,
    validate: impl Fn(&T) -> crate::spec::Result<()>,
) -> Vec<String> {
    match decode::<T>(v.clone()).and_then(|b| validate(&b)) {
        Ok(()) => Vec::new(),
        Err(e) => error_lines(&e),
    }
}

// --- servers ------------------------------------------------------------------------------

fn validate_server_create(v: &Value) -> Vec<String> {
    check::<crate::spec::server::ServerCreate>(v, |b| b.validate())
}

fn log_levels() -> Vec<Choice> {
    [
        "debug",
        "info",
        "notice",
        "warning",
        "error",
        "critical",
        "alert",
        "emergency",
    ]
    .iter()
    .map(|s| Choice::text(s))
    .collect()
}

/// The server form: a new server, or `existing` edited. Transport fields follow the
/// transport; the client features (roots, sampling, elicitation, log level, time cap) are
/// fields too.
pub fn server(existing: Option<&Server>) -> Form {
    let (title, base, validator): (String, Value, Validator) = match existing {
        None => (
            "Add a server".into(),
            json!({"name": "", "enabled": true, "transport": {"type": "stdio", "command": ""}}),
            validate_server_create,
        ),
        Some(s) => (
            format!("Edit server “{}” (revision {})", s.name, s.revision),
            crate::tui::panes::servers::edit_value(s),
            crate::tui::panes::servers::validate_patch,
        ),
    };
    let fields = vec![
        Field::text("/name", "name").required(),
        Field::choice(
            "/transport/type",
            "transport",
            vec![
                Choice::new("stdio", "stdio (a command)"),
                Choice::new("http", "streamable HTTP"),
                Choice::new("sse", "legacy SSE"),
            ],
        )
        .with(&json!("stdio")),
        Field::text("/transport/command", "command")
            .required()
            .show_if("/transport/type", &["stdio"])
            .help("npx, uvx, a path"),
        Field::lines("/transport/args", "arguments", LinesAs::Strings)
            .show_if("/transport/type", &["stdio"]),
        Field::text("/transport/cwd", "working dir").show_if("/transport/type", &["stdio"]),
        Field::lines("/transport/env", "environment", LinesAs::Map('='))
            .show_if("/transport/type", &["stdio"]),
        Field::text("/transport/url", "url")
            .required()
            .show_if("/transport/type", &["http", "sse"]),
        Field::lines("/transport/headers", "headers", LinesAs::Map(':'))
            .show_if("/transport/type", &["http", "sse"])
            .help("Name: value"),
        Field::integer("/connectTimeoutMs", "connect timeout").help("ms"),
        Field::integer("/requestTimeoutMs", "request timeout").help("ms"),
        Field::toggle("/useOAuth", "OAuth", false),
        Field::toggle("/enabled", "enabled", true),
        Field::lines("/client/roots", "roots", LinesAs::Roots).help("what the server may see"),
        Field::choice(
            "/client/sampling/mode",
            "sampling",
            vec![
                Choice::new("decline", "decline"),
                Choice::new("scripted", "answer with a text"),
                Choice::new("model", "answer with a model"),
            ],
        ),
        Field::text("/client/sampling/text", "sampling text")
            .required()
            .show_if("/client/sampling/mode", &["scripted"]),
        Field::text("/client/sampling/model", "sampling model")
            .required()
            .show_if("/client/sampling/mode", &["model"]),
        Field::choice(
            "/client/elicitation/action",
            "elicitation",
            vec![
                Choice::new("accept", "accept (with content)"),
                Choice::new("decline", "decline"),
                Choice::new("cancel", "cancel"),
            ],
        )
        .help("where nobody is asked"),
        Field::json("/client/elicitation/content", "elicitation content")
            .show_if("/client/elicitation/action", &["accept"]),
        Field::choice("/client/logLevel", "log level", log_levels()),
        Field::integer("/client/maxTotalTimeoutMs", "time cap").help("ms, however much progress"),
    ];
    let keep = if existing.is_some() {
        vec!["/client".to_string()]
    } else {
        Vec::new()
    };
    Form::paths_keeping(title, base, fields, validator, keep)
}

// --- hosts --------------------------------------------------------------------------------

fn validate_host_create(v: &Value) -> Vec<String> {
    check::<crate::spec::host::HostCreate>(v, |b| b.validate())
}

fn validate_host_patch(v: &Value) -> Vec<String> {
    check::<crate::spec::host::HostPatch>(v, |b| b.validate())
}

/// A new host from a built-in profile, or `existing` edited (its name and config).
pub fn host(existing: Option<&Host>) -> Form {
    match existing {
        None => {
            let templates: Vec<Choice> = crate::spec::host::TEMPLATES
                .iter()
                .map(|t| Choice::new(t.id, t.display_name))
                .collect();
            Form::paths(
                "New host",
                json!({"name": ""}),
                vec![
                    Field::text("/name", "name").required(),
                    Field::choice("/template", "profile", templates)
                        .help("what the client declares, which model"),
                    Field::json("/config", "config").help("overrides, as JSON"),
                ],
                validate_host_create,
            )
        }
        Some(h) => Form::paths(
            format!("Edit host “{}”", h.name),
            json!({"name": h.name, "config": h.config}),
            vec![
                Field::text("/name", "name").required(),
                Field::json("/config", "config").help("Ctrl-T edits it at length"),
            ],
            validate_host_patch,
        ),
    }
}

// --- environments -------------------------------------------------------------------------

/// A new environment, or `existing` edited at the revision it was read at.
pub fn environment(existing: Option<&Environment>, p: &Pickers) -> Form {
    use crate::tui::panes::environments as envs;
    let (title, base, validator): (String, Value, Validator) = match existing {
        None => (
            "New environment".into(),
            envs::create_template(p.hosts.first().and_then(|h| h.value.as_str())),
            envs::validate_create,
        ),
        Some(e) => (
            format!("Edit environment “{}” (revision {})", e.name, e.revision),
            envs::edit_value(e),
            envs::validate_patch,
        ),
    };
    let clear = existing.is_some();
    let nullable = |f: Field| if clear { f.nullable() } else { f };
    let fields = vec![
        Field::text("/name", "name").required(),
        nullable(Field::text("/description", "description")),
        Field::choice("/hostId", "host", p.hosts.clone()).required(),
        // A server group's id (groups are made with `POST …/server-groups`; there is no
        // list of them to pick from yet).
        nullable(
            Field::choice("/serverAttachmentId", "server group", Vec::new())
                .custom()
                .help("its id; what a launch attaches"),
        ),
        nullable(Field::choice("/modelId", "model", p.models.clone()).custom()),
        Field::lines("/roots", "roots", LinesAs::Roots)
            .nullable()
            .help("every server's, in its runs; empty: each server's own"),
    ];
    Form::paths(title, base, fields, validator)
}

// --- suites -------------------------------------------------------------------------------

fn validate_suite_create(v: &Value) -> Vec<String> {
    // The first case is optional in the form: a placeholder stands in for the check.
    let mut body = v.clone();
    if body.get("tests").is_none() {
        body["tests"] = json!([{"title": "placeholder", "steps": [
            {"id": "p1", "kind": "prompt", "prompt": "placeholder"}]}]);
    }
    check::<crate::spec::suite::SuiteCreate>(&body, |b| b.validate())
}

/// The new-suite form: name, servers (picked), model, description, tags and, optionally,
/// the first case's prompt.
pub fn new_suite(p: &Pickers) -> Form {
    let default_model = p
        .models
        .first()
        .map(|c| c.value.clone())
        .unwrap_or(json!("builtin/baseline"));
    let servers: Vec<Value> = p
        .servers
        .first()
        .map(|c| c.value.clone())
        .into_iter()
        .collect();
    Form::paths(
        "New suite",
        json!({"name": "", "serverIds": servers, "model": default_model}),
        vec![
            Field::text("/name", "name").required(),
            Field::text("/description", "description"),
            Field::multi("/serverIds", "servers", p.servers.clone()).required(),
            Field::choice("/model", "model", p.models.clone())
                .custom()
                .required(),
            Field::lines("/tags", "tags", LinesAs::Strings),
            Field::text("/tests/0/steps/0/prompt", "first case prompt")
                .help("optional: a first case to start from"),
        ],
        validate_new_suite_form,
    )
}

/// The new-suite document, with its optional first case made whole.
pub fn new_suite_body(v: &Value) -> Value {
    let mut body = v.clone();
    if let Some(prompt) = v
        .pointer("/tests/0/steps/0/prompt")
        .and_then(Value::as_str)
        .filter(|p| !p.trim().is_empty())
    {
        let title: String = prompt.chars().take(60).collect();
        body["tests"] = json!([{"title": title, "steps": [
            {"id": "p1", "kind": "prompt", "prompt": prompt}]}]);
    } else if let Some(o) = body.as_object_mut() {
        o.remove("tests");
    }
    body
}

fn validate_new_suite_form(v: &Value) -> Vec<String> {
    validate_suite_create(&new_suite_body(v))
}

/// The suite's settings: name, description, servers and environments (picked), model,
/// repetitions, pass threshold and criteria, standard checks, tags.
pub fn suite_settings(s: &EvalSuite, p: &Pickers) -> Form {
    use crate::tui::panes::suite_edit as se;
    let checks: Vec<Choice> = crate::spec::case::STANDARD_CHECK_IDS
        .iter()
        .map(|c| Choice::text(c))
        .collect();
    Form::paths(
        format!("Suite “{}”", s.name),
        se::settings_value(s),
        vec![
            Field::text("/name", "name").required(),
            Field::text("/description", "description").nullable(),
            Field::multi("/serverIds", "servers", p.servers.clone()).required(),
            Field::multi("/environmentIds", "environments", p.environments.clone()).nullable(),
            Field::choice("/model", "model", p.models.clone())
                .custom()
                .required(),
            Field::integer("/repetitions", "repetitions").help("trials per case"),
            Field::number("/passThreshold", "pass threshold").help("0 to 1 of the trials"),
            Field::number("/passCriteria/minimumPassRate", "minimum pass rate")
                .help("percent of cases"),
            Field::multi("/standardChecks", "standard checks", checks),
            Field::lines("/tags", "tags", LinesAs::Strings),
        ],
        se::validate_settings,
    )
}

/// The schedule of a suite: on or off, how often, in which environment.
pub fn schedule(suite: &EvalSuite, sched: Option<&SuiteSchedule>, p: &Pickers) -> Form {
    use crate::tui::panes::suite_edit as se;
    let attached: Vec<Choice> = p
        .environments
        .iter()
        .filter(|c| {
            c.value
                .as_str()
                .is_some_and(|id| suite.environment_ids.iter().any(|e| e == id))
        })
        .cloned()
        .collect();
    let mut form = Form::paths(
        format!("Schedule runs of “{}”", suite.name),
        se::schedule_value(sched),
        vec![
            Field::toggle("/enabled", "enabled", false),
            Field::integer("/intervalMinutes", "every (minutes)").help("5 to 10080"),
            Field::choice("/environmentId", "environment", attached)
                .nullable()
                .help("one of the suite's"),
        ],
        se::validate_schedule,
    );
    form.intro = Some("A run of the whole suite, fired by serve or this workbench.".into());
    form
}
