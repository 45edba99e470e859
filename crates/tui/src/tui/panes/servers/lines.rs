//! The pane's text as styled lines: doctor reports, tool, prompt and resource listings,
//! call output, run progress and check details.

use super::super::{field, heading, time};
use super::*;
use crate::spec::conformance::{CheckResult, Outcome};
use crate::spec::primitives::{
    Check, CheckStatus, DoctorReport, DoctorStatus, PromptItem, ResourceItem, ResourceTemplateItem,
    ToolItem,
};
use crate::spec::server::{Server, Transport};
use crate::tui::theme::Theme;
use crate::tui::widgets::highlight;
use ratatui::text::{Line, Span};
use serde_json::Value;

pub(super) fn check_line(label: &str, c: &Check, theme: &Theme) -> Line<'static> {
    let (mark, style) = match c.status {
        CheckStatus::Ok => ("✓", theme.ok),
        CheckStatus::Error => ("✗", theme.error),
        CheckStatus::Skipped => ("–", theme.dim),
    };
    let ms = c
        .duration_ms
        .map(|d| format!("  {d} ms"))
        .unwrap_or_default();
    Line::from(vec![
        Span::styled(format!("{mark} "), style),
        Span::styled(format!("{label:<19}"), theme.base),
        Span::styled(
            c.detail.clone(),
            if c.status == CheckStatus::Error {
                theme.error
            } else {
                theme.dim
            },
        ),
        Span::styled(ms, theme.dim),
    ])
}

pub(super) fn doctor_lines(r: &DoctorReport, theme: &Theme) -> Vec<Line<'static>> {
    let (word, style) = match r.status {
        DoctorStatus::Ready => ("ready", theme.ok),
        DoctorStatus::OauthRequired => ("OAuth required", theme.warn),
        DoctorStatus::Partial => ("partial", theme.warn),
        DoctorStatus::Error => ("error", theme.error),
    };
    let mut head = vec![
        Span::styled("Doctor  ", theme.title),
        Span::styled(word.to_string(), style),
    ];
    if let Some(info) = &r.init_info {
        head.push(Span::styled(
            format!("  MCP {}", info.protocol_version),
            theme.accent,
        ));
    }
    head.push(Span::styled(
        format!("  in {} ms", r.timings.total_ms),
        theme.dim,
    ));
    let mut lines = vec![Line::from(head)];
    if let Some(p) = &r.probe {
        lines.push(field(
            "target",
            format!("{} {}", p.transport, p.target),
            theme,
        ));
    }
    lines.push(Line::raw(""));
    let c = &r.checks;
    let stages: [(&str, &Option<Check>); 8] = [
        ("probe", &c.probe),
        ("connection", &c.connection),
        ("initialization", &c.initialization),
        ("capabilities", &c.capabilities),
        ("tools", &c.tools),
        ("resources", &c.resources),
        ("resource templates", &c.resource_templates),
        ("prompts", &c.prompts),
    ];
    for (label, check) in stages {
        if let Some(check) = check {
            lines.push(check_line(label, check, theme));
        }
    }
    // Which protocol revisions the server accepts, each tried on a connection of its own.
    if let Some(revisions) = r.revisions.as_ref().filter(|r| !r.is_empty()) {
        lines.push(Line::raw(""));
        lines.push(heading("revisions", theme));
        for rev in revisions {
            let (mark, style) = if rev.accepted {
                ("✓", theme.ok)
            } else {
                ("✗", theme.dim)
            };
            lines.push(Line::from(vec![
                Span::styled(format!("{mark} "), style),
                Span::styled(format!("{:<19}", rev.revision), theme.base),
                Span::styled(rev.detail.clone(), theme.dim),
            ]));
        }
    }
    if let Some(e) = &r.error {
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!("{}: {}", e.code, e.message),
            theme.error,
        ));
        lines.extend(crate::tui::widgets::modal::details_lines(e, theme));
    }
    if let Some(info) = &r.init_info {
        lines.push(Line::raw(""));
        lines.push(field("protocol", info.protocol_version.clone(), theme));
        if let Some(si) = &info.server_info {
            let name = si.get("name").and_then(Value::as_str).unwrap_or("?");
            let version = si.get("version").and_then(Value::as_str).unwrap_or("");
            lines.push(field("server", format!("{name} {version}"), theme));
        }
        if let Some(i) = &info.instructions {
            // Every line of the server's instructions, as it wrote them.
            let mut it = i.lines();
            lines.push(field(
                "instructions",
                it.next().unwrap_or("").to_string(),
                theme,
            ));
            for l in it {
                lines.push(Line::from(vec![
                    Span::raw(" ".repeat(14)),
                    Span::raw(l.to_string()),
                ]));
            }
        }
    }
    let count = |v: &Option<Vec<_>>| v.as_ref().map(Vec::len);
    let mut counts = Vec::new();
    if let Some(n) = count(&r.tools) {
        counts.push(format!("{n} tools"));
    }
    if let Some(n) = r.prompts.as_ref().map(Vec::len) {
        counts.push(format!("{n} prompts"));
    }
    if let Some(n) = r.resources.as_ref().map(Vec::len) {
        counts.push(format!("{n} resources"));
    }
    if !counts.is_empty() {
        lines.push(field("offers", counts.join(" · "), theme));
    }
    lines
}

/// The key that lists a view's items.
pub(super) fn what_key(view: View) -> &'static str {
    match view {
        View::Tools => "t",
        View::Prompts => "p",
        _ => "R",
    }
}

/// Hints a tool's annotations give, as short marks for the list.
pub(super) fn annotation_marks(t: &ToolItem) -> &'static str {
    let a = t.annotations.as_ref();
    let flag = |k: &str| a.and_then(|a| a.get(k)).and_then(Value::as_bool);
    if flag("destructiveHint") == Some(true) {
        "⚠"
    } else if flag("readOnlyHint") == Some(true) {
        "✓"
    } else {
        " "
    }
}

/// A schema's properties as `name: type (required)` lines.
pub(super) fn schema_summary(schema: &Value, theme: &Theme) -> Vec<Line<'static>> {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return vec![Line::styled("  (no properties)", theme.dim)];
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .map(|(name, p)| {
            let ty = match p.get("type") {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None if p.get("enum").is_some() => "enum".into(),
                None => "any".into(),
            };
            let mut spans = vec![
                Span::styled(format!("  {name}"), theme.base),
                Span::styled(format!(": {ty}"), theme.accent),
            ];
            if required.contains(&name.as_str()) {
                spans.push(Span::styled(" required", theme.warn));
            }
            if let Some(d) = p.get("description").and_then(Value::as_str) {
                spans.push(Span::styled(format!("  {d}"), theme.dim));
            }
            Line::from(spans)
        })
        .collect()
}

pub(super) fn tool_lines(t: &ToolItem, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![heading(&t.name, theme)];
    if let Some(title) = t.extra.get("title").and_then(Value::as_str) {
        lines.push(Line::styled(title.to_string(), theme.accent));
    }
    if let Some(d) = &t.description {
        lines.extend(d.lines().map(|l| Line::raw(l.to_string())));
    }
    if let Some(a) = t.annotations.as_ref().and_then(Value::as_object) {
        let marks: Vec<Span> = a
            .iter()
            .filter(|(k, _)| k.ends_with("Hint"))
            .map(|(k, v)| {
                let on = v.as_bool() == Some(true);
                Span::styled(
                    format!("{k} {}  ", if on { "✓" } else { "✗" }),
                    if on { theme.ok } else { theme.dim },
                )
            })
            .collect();
        if !marks.is_empty() {
            lines.push(Line::from(marks));
        }
    }
    lines.push(Line::raw(""));
    lines.push(heading("input", theme));
    match &t.input_schema {
        Some(s) => lines.extend(schema_summary(s, theme)),
        None => lines.push(Line::styled("  —", theme.dim)),
    }
    lines.push(heading("output", theme));
    match &t.output_schema {
        Some(s) => lines.extend(schema_summary(s, theme)),
        None => lines.push(Line::styled("  —", theme.dim)),
    }
    if let Some(s) = &t.input_schema {
        lines.push(Line::raw(""));
        lines.push(heading("input schema", theme));
        lines.extend(highlight::json(s, theme));
    }
    if let Some(s) = &t.output_schema {
        lines.push(heading("output schema", theme));
        lines.extend(highlight::json(s, theme));
    }
    lines
}

pub(super) fn prompt_lines(p: &PromptItem, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![heading(&p.name, theme)];
    if let Some(d) = &p.description {
        lines.extend(d.lines().map(|l| Line::raw(l.to_string())));
    }
    lines.push(Line::raw(""));
    lines.push(heading("arguments", theme));
    let args = p.arguments.as_deref().unwrap_or_default();
    if args.is_empty() {
        lines.push(Line::styled("  none", theme.dim));
    }
    for a in args {
        let mut spans = vec![Span::raw(format!("  {}", a.name))];
        if a.required == Some(true) {
            spans.push(Span::styled(" required", theme.warn));
        }
        if let Some(d) = &a.description {
            spans.push(Span::styled(format!("  {d}"), theme.dim));
        }
        lines.push(Line::from(spans));
    }
    lines
}

pub(super) fn template_lines(t: &ResourceTemplateItem, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![heading(t.name.as_deref().unwrap_or(&t.uri_template), theme)];
    lines.push(field("template", t.uri_template.clone(), theme));
    if let Some(m) = &t.mime_type {
        lines.push(field("mime type", m.clone(), theme));
    }
    let vars: Vec<String> = crate::spec::uri_template::variables(&t.uri_template)
        .into_iter()
        .map(|v| v.name)
        .collect();
    if !vars.is_empty() {
        lines.push(field("variables", vars.join(", "), theme));
    }
    if let Some(d) = &t.description {
        lines.push(Line::raw(""));
        lines.extend(d.lines().map(|l| Line::raw(l.to_string())));
    }
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "Enter fills in its variables and reads the resource",
        theme.dim,
    ));
    lines
}

pub(super) fn resource_lines(r: &ResourceItem, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![heading(r.name.as_deref().unwrap_or(&r.uri), theme)];
    lines.push(field("uri", r.uri.clone(), theme));
    if let Some(m) = &r.mime_type {
        lines.push(field("mime type", m.clone(), theme));
    }
    if let Some(d) = &r.description {
        lines.push(Line::raw(""));
        lines.extend(d.lines().map(|l| Line::raw(l.to_string())));
    }
    lines
}

/// Text that is JSON is shown pretty and highlighted; anything else as is.
pub(super) fn text_block(text: &str, theme: &Theme) -> Vec<Line<'static>> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) if v.is_object() || v.is_array() => highlight::json(&v, theme),
        _ => text.lines().map(|l| Line::raw(l.to_string())).collect(),
    }
}

/// One MCP content block: text, image/audio (described), embedded resource, link.
pub(super) fn content_lines(block: &Value, theme: &Theme) -> Vec<Line<'static>> {
    let ty = block.get("type").and_then(Value::as_str).unwrap_or("?");
    match ty {
        "text" => text_block(
            block.get("text").and_then(Value::as_str).unwrap_or(""),
            theme,
        ),
        "image" | "audio" => {
            let mime = block.get("mimeType").and_then(Value::as_str).unwrap_or("?");
            let bytes = block
                .get("data")
                .and_then(Value::as_str)
                .map(|d| d.len() * 3 / 4)
                .unwrap_or(0);
            vec![Line::styled(
                format!("[{ty} {mime}, about {bytes} bytes]"),
                theme.accent,
            )]
        }
        "resource" => {
            let r = block.get("resource").cloned().unwrap_or_default();
            let uri = r.get("uri").and_then(Value::as_str).unwrap_or("?");
            let mut lines = vec![Line::styled(format!("[resource {uri}]"), theme.accent)];
            if let Some(t) = r.get("text").and_then(Value::as_str) {
                lines.extend(text_block(t, theme));
            }
            lines
        }
        "resource_link" => {
            let uri = block.get("uri").and_then(Value::as_str).unwrap_or("?");
            vec![Line::styled(format!("[link {uri}]"), theme.accent)]
        }
        _ => highlight::json(block, theme),
    }
}

/// A result as text: `output_schema` is the tool's, for its structured content; `width`
/// the room there is for tables.
pub(super) fn output_lines(
    o: &Output,
    output_schema: Option<&Value>,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let v = &o.value;
    let is_error = v.get("isError").and_then(Value::as_bool) == Some(true);
    let mut lines = vec![Line::from(vec![
        Span::styled(o.title.clone(), theme.title),
        Span::styled(format!("  {} ms", o.elapsed_ms), theme.dim),
        if is_error {
            Span::styled("  tool error (isError)", theme.error)
        } else {
            Span::raw("")
        },
    ])];
    let args = o
        .request
        .get("parameters")
        .or_else(|| o.request.get("arguments"))
        .map(|a| a.to_string())
        .unwrap_or_else(|| "{}".into());
    lines.push(Line::styled(format!("arguments {args}"), theme.dim));
    lines.push(Line::raw(""));
    if v.get("cancelled").and_then(Value::as_bool) == Some(true) {
        lines.push(Line::styled(
            format!(
                "cancelled: {}",
                v.get("message").and_then(Value::as_str).unwrap_or("")
            ),
            theme.warn,
        ));
    }
    let structured = v.get("structuredContent");
    if let Some(content) = v.get("content").and_then(Value::as_array) {
        for block in content {
            // The structured content again as JSON text (as servers are asked to send it)
            // is shown once, as the table below.
            let text = block.get("text").and_then(Value::as_str);
            if structured.is_some()
                && text
                    .and_then(|t| serde_json::from_str::<Value>(t).ok())
                    .as_ref()
                    == structured
            {
                lines.push(Line::styled(
                    "text: the structured content below, as JSON",
                    theme.dim,
                ));
                continue;
            }
            lines.extend(content_lines(block, theme));
        }
    }
    if let Some(sc) = v.get("structuredContent") {
        lines.push(Line::raw(""));
        let schema_lines = output_schema
            .map(|s| schema_summary(s, theme))
            .unwrap_or_default();
        lines.extend(super::super::structured::lines(
            sc,
            output_schema,
            schema_lines,
            width,
            theme,
        ));
    }
    if let Some(messages) = v.get("messages").and_then(Value::as_array) {
        if let Some(d) = v.get("description").and_then(Value::as_str) {
            lines.push(Line::styled(d.to_string(), theme.dim));
        }
        for m in messages {
            let role = m.get("role").and_then(Value::as_str).unwrap_or("?");
            lines.push(Line::styled(format!("{role}:"), theme.accent));
            if let Some(c) = m.get("content") {
                lines.extend(content_lines(c, theme));
            }
        }
    }
    if let Some(contents) = v.get("contents").and_then(Value::as_array) {
        for c in contents {
            let uri = c.get("uri").and_then(Value::as_str).unwrap_or("?");
            let mime = c.get("mimeType").and_then(Value::as_str).unwrap_or("");
            lines.push(Line::styled(format!("{uri}  {mime}"), theme.accent));
            if let Some(t) = c.get("text").and_then(Value::as_str) {
                lines.extend(text_block(t, theme));
            } else if let Some(b) = c.get("blob").and_then(Value::as_str) {
                lines.push(Line::styled(
                    format!("[binary, about {} bytes]", b.len() * 3 / 4),
                    theme.dim,
                ));
            }
        }
    }
    lines
}

/// What evaldeck decided for the server during a call (a sampling request answered or
/// declined), under its result or its progress.
pub(super) fn notes_lines(notes: &[String], theme: &Theme) -> Vec<Line<'static>> {
    if notes.is_empty() {
        return Vec::new();
    }
    let mut lines = vec![Line::raw(""), heading("during the call", theme)];
    lines.extend(
        notes
            .iter()
            .map(|n| Line::styled(format!("· {n}"), theme.warn)),
    );
    lines
}

/// A call in progress: the tool, the time it has taken, the server's progress as a bar
/// (`3/5 message`), and how to cancel it.
pub(super) fn running_lines(
    r: &Running,
    spinner: char,
    width: usize,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let secs = r.started.elapsed().as_secs_f64();
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{spinner} "), theme.warn),
        Span::styled(format!("calling {}", r.tool), theme.title),
        Span::styled(format!("  {secs:.1} s"), theme.dim),
    ])];
    match &r.progress {
        Some((p, total, msg)) => {
            let msg = msg.clone().unwrap_or_default();
            let count = match total {
                Some(t) => format!("{} / {}", fmt_num(*p), fmt_num(*t)),
                None => fmt_num(*p),
            };
            if let Some(t) = total.filter(|t| *t > 0.0) {
                let bar_w = width.saturating_sub(count.len() + 3).clamp(4, 40);
                let filled = ((p / t).clamp(0.0, 1.0) * bar_w as f64).round() as usize;
                lines.push(Line::from(vec![
                    Span::styled("█".repeat(filled), theme.ok),
                    Span::styled("░".repeat(bar_w - filled), theme.dim),
                    Span::raw(format!(" {count}")),
                ]));
            } else {
                lines.push(Line::raw(format!("progress {count}")));
            }
            if !msg.is_empty() {
                lines.push(Line::styled(msg, theme.dim));
            }
        }
        None if r.remote => lines.push(Line::styled(
            "progress is not reported over a remote backend",
            theme.dim,
        )),
        None => lines.push(Line::styled("no progress reported yet", theme.dim)),
    }
    lines.push(Line::raw(""));
    lines.push(if r.cancelling {
        Line::styled("cancelling…", theme.warn)
    } else {
        Line::from(vec![
            Span::styled("Esc", theme.key),
            Span::styled(" or ", theme.dim),
            Span::styled("X", theme.key),
            Span::styled(" cancels the call", theme.dim),
        ])
    });
    lines
}

/// A progress figure: whole numbers without a decimal point.
pub(super) fn fmt_num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        format!("{n:.1}")
    }
}

/// The status dot and word of a server: its last validate/doctor outcome.
pub fn status(s: &Server, live: Option<&Live>, theme: &Theme) -> (Span<'static>, Span<'static>) {
    if !s.enabled {
        return (
            Span::styled("○", theme.dim),
            Span::styled("disabled", theme.dim),
        );
    }
    if let Some(l) = live {
        return if l.ok {
            (
                Span::styled("●", theme.ok),
                Span::styled(l.word.clone(), theme.ok),
            )
        } else {
            (
                Span::styled("✗", theme.error),
                Span::styled(l.word.clone(), theme.error),
            )
        };
    }
    match s.last_status.as_deref() {
        Some("connected") => (
            Span::styled("●", theme.ok),
            Span::styled("connected", theme.ok),
        ),
        Some("error") => (
            Span::styled("✗", theme.error),
            Span::styled("error", theme.error),
        ),
        Some(other) => (
            Span::styled("●", theme.warn),
            Span::styled(other.to_string(), theme.warn),
        ),
        None => (
            Span::styled("○", theme.dim),
            Span::styled("not checked", theme.dim),
        ),
    }
}

pub(super) fn detail_lines(
    s: &Server,
    live: Option<&Live>,
    protocol: Option<&str>,
    theme: &Theme,
) -> Vec<Line<'static>> {
    let (dot, word) = status(s, live, theme);
    let mut status_line = vec![
        Span::styled(format!("{:<14}", "status"), theme.dim),
        dot,
        Span::raw(" "),
        word,
    ];
    // The protocol revision the connection settled on (`2025-11-25`, `2026-07-28`).
    if let Some(p) = protocol.or(s.protocol_version.as_deref()) {
        status_line.push(Span::styled(format!("  · MCP {p}"), theme.dim));
    }
    let mut lines = vec![
        heading(&s.name, theme),
        Line::from(status_line),
        field("transport", s.transport_type.clone(), theme),
    ];
    match s.config.as_ref().map(|c| &c.transport) {
        Some(Transport::Stdio {
            command,
            args,
            env,
            cwd,
        }) => {
            lines.push(field("command", command.clone(), theme));
            if !args.is_empty() {
                lines.push(field("args", args.join(" "), theme));
            }
            if let Some(cwd) = cwd {
                lines.push(field("cwd", cwd.clone(), theme));
            }
            for k in env.keys() {
                lines.push(field("env", format!("{k}=•••"), theme));
            }
        }
        Some(Transport::Http { url, headers } | Transport::Sse { url, headers }) => {
            lines.push(field("url", url.clone(), theme));
            for k in headers.keys() {
                lines.push(field("header", format!("{k}: •••"), theme));
            }
        }
        None => {
            if let Some(url) = &s.url {
                lines.push(field("url", url.clone(), theme));
            }
        }
    }
    if let Some(c) = &s.config {
        lines.push(field(
            "timeouts",
            format!(
                "connect {} ms · request {} ms",
                c.connect_timeout_ms, c.request_timeout_ms
            ),
            theme,
        ));
    }
    lines.push(field(
        "oauth",
        if s.use_oauth { "yes" } else { "no" },
        theme,
    ));
    lines.push(field(
        "enabled",
        if s.enabled { "yes" } else { "no" },
        theme,
    ));
    lines.push(field("revision", s.revision.to_string(), theme));
    lines.push(field("id", s.id.clone(), theme));
    if let Some(t) = s.created_at {
        lines.push(field("created", time(t), theme));
    }
    if let Some(t) = s.updated_at {
        lines.push(field("updated", time(t), theme));
    }
    lines
}

pub(super) fn outcome_mark(r: &CheckResult, theme: &Theme) -> Span<'static> {
    let (mark, style) = match (r.outcome, r.baselined) {
        (_, true) => ("⚑", theme.warn),
        (Outcome::Passed, _) => ("✓", theme.ok),
        (Outcome::Failed, _) => ("✗", theme.error),
        (Outcome::NotApplicable, _) => ("–", theme.dim),
        (Outcome::CouldNotRun, _) => ("!", theme.warn),
    };
    Span::styled(mark, style)
}

/// One check: what it is, its result, its evidence.
pub(super) fn check_detail(r: &CheckResult, data: bool, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![
        Line::from(vec![
            outcome_mark(r, theme),
            Span::raw(" "),
            Span::styled(r.id.clone(), theme.title),
            Span::styled(
                format!(
                    "  {}{}",
                    r.outcome.as_str(),
                    if r.baselined { " (baselined)" } else { "" }
                ),
                theme.dim,
            ),
        ]),
        Line::raw(r.title.clone()),
        field("revisions", r.revisions.join(", "), theme),
        field("result", r.summary.clone(), theme),
    ];
    for e in &r.evidence {
        out.push(Line::from(vec![
            Span::styled("  • ", theme.dim),
            Span::styled(
                e.location
                    .as_deref()
                    .map(|l| format!("[{l}] "))
                    .unwrap_or_default(),
                theme.accent,
            ),
            Span::raw(e.message.clone()),
        ]));
        if data && let Some(d) = &e.data {
            let text = serde_json::to_string_pretty(d).unwrap_or_default();
            for l in text.lines().take(40) {
                out.push(Line::styled(format!("      {l}"), theme.dim));
            }
        }
    }
    out
}

/// The scan's findings and the drift, under the selected check.
pub(super) fn report_tail(m: &Mcp, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![];
    if let Some(c) = &m.checks {
        out.push(Line::raw(""));
        out.push(heading(
            &format!("Scan ({} finding(s))", c.findings.len()),
            theme,
        ));
        for f in &c.findings {
            let style = match f.severity {
                crate::spec::scan::Severity::Error => theme.error,
                crate::spec::scan::Severity::Warning => theme.warn,
                crate::spec::scan::Severity::Note => theme.dim,
            };
            out.push(Line::from(vec![
                Span::styled(format!("{:<8}", f.severity.as_str()), style),
                Span::raw(format!("{} {}{}  ", f.rule, f.location, f.pointer)),
                Span::styled(f.message.clone(), theme.dim),
            ]));
        }
    }
    out.push(Line::raw(""));
    match &m.drift {
        None => {
            out.push(heading("Drift", theme));
            out.push(Line::styled(
                "press K again later: the next check is compared with this one",
                theme.dim,
            ));
        }
        Some(d) => {
            out.push(heading(
                &format!(
                    "Drift since {}: {} breaking, {} to review, {} non-breaking",
                    d.old, d.summary.breaking, d.summary.review, d.summary.non_breaking
                ),
                theme,
            ));
            for c in &d.changes {
                let style = match c.class {
                    crate::spec::drift::DriftClass::Breaking => theme.error,
                    crate::spec::drift::DriftClass::Review => theme.warn,
                    crate::spec::drift::DriftClass::NonBreaking => theme.dim,
                };
                out.push(Line::from(vec![
                    Span::styled(format!("{:<13}", c.class.as_str()), style),
                    Span::raw(c.message.clone()),
                ]));
            }
        }
    }
    out
}
