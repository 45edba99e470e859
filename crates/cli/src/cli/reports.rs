//! The reports of `check`, `diff` and `scan` as text: a table for the terminal, Markdown
//! (a GitHub job summary or PR comment), one self-contained HTML file (no external
//! `src` or `href`) and JUnit XML; SARIF 2.1.0 is [`super::sarif`].

use std::fmt::Write;

use crate::spec::conformance::{CheckReport, CheckResult, Outcome};
use crate::spec::drift::{DriftClass, DriftReport};
use crate::spec::scan::Finding;

/// Aligned columns, as [`super::table`] prints them.
pub fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (i, c) in r.iter().enumerate() {
            widths[i] = widths[i].max(c.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<String>| {
        let n = cells.len();
        let parts: Vec<String> = cells
            .into_iter()
            .enumerate()
            .map(|(i, c)| format!("{c:<w$}", w = if i + 1 == n { 0 } else { widths[i] }))
            .collect();
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(header.iter().map(|h| h.to_uppercase()).collect());
    for r in rows {
        line(r.clone());
    }
    out
}

fn outcome_word(r: &CheckResult) -> String {
    if r.baselined {
        format!("{} (baselined)", r.outcome.as_str())
    } else {
        r.outcome.as_str().to_string()
    }
}

pub use crate::spec::conformance::check_counts;

fn header_line(r: &CheckReport) -> String {
    let name = r
        .server_info
        .as_ref()
        .and_then(|i| {
            Some(format!(
                "{} {}",
                i["name"].as_str()?,
                i["version"].as_str().unwrap_or("")
            ))
        })
        .unwrap_or_else(|| "—".into());
    format!(
        "check {} ({} {}): {}, protocol {}, in {} ms",
        r.server,
        r.transport,
        r.target,
        name.trim(),
        r.revision.as_deref().unwrap_or("—"),
        r.duration_ms
    )
}

/// The terminal table: every check, the evidence of those that failed or could not run,
/// the scan's findings, and the counts.
pub fn check_table(r: &CheckReport) -> String {
    let mut out = header_line(r);
    out.push_str("\n\n");
    let rows: Vec<Vec<String>> = r
        .results
        .iter()
        .map(|c| vec![c.id.clone(), outcome_word(c), c.summary.clone()])
        .collect();
    out.push_str(&table(&["check", "result", "summary"], &rows));
    let open: Vec<&CheckResult> = r
        .results
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Failed | Outcome::CouldNotRun))
        .collect();
    if !open.is_empty() {
        out.push_str("\nevidence:\n");
        for c in open {
            let _ = writeln!(out, "  {} — {}", c.id, c.summary);
            for e in c.evidence.iter().take(10) {
                let _ = writeln!(
                    out,
                    "    {}{}",
                    e.location
                        .as_deref()
                        .map(|l| format!("[{l}] "))
                        .unwrap_or_default(),
                    e.message
                );
            }
        }
    }
    if !r.findings.is_empty() {
        out.push_str("\nscan findings:\n");
        out.push_str(&findings_table(&r.findings));
    }
    if let Some(d) = &r.drift {
        let _ = writeln!(
            out,
            "\ndrift since {}: {} breaking, {} to review, {} non-breaking",
            d.old, d.summary.breaking, d.summary.review, d.summary.non_breaking
        );
        for c in &d.changes {
            let _ = writeln!(out, "  {:<13} {}", c.class.as_str(), c.message);
        }
    }
    if !r.summary.stale_baseline.is_empty() {
        let _ = writeln!(
            out,
            "\nthe baseline expects these to fail, but they pass (remove them): {}",
            r.summary.stale_baseline.join(", ")
        );
    }
    let _ = writeln!(out, "\n{}", check_counts(r));
    out
}

pub fn findings_table(f: &[Finding]) -> String {
    let rows: Vec<Vec<String>> = f
        .iter()
        .map(|f| {
            vec![
                f.severity.as_str().to_string(),
                f.rule.clone(),
                format!("{}{}", f.location, f.pointer),
                f.message.clone(),
            ]
        })
        .collect();
    table(&["severity", "rule", "where", "finding"], &rows)
}

fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn icon(o: Outcome, baselined: bool) -> &'static str {
    match (o, baselined) {
        (_, true) => "⚠️",
        (Outcome::Passed, _) => "✅",
        (Outcome::Failed, _) => "❌",
        (Outcome::NotApplicable, _) => "➖",
        (Outcome::CouldNotRun, _) => "⛔",
    }
}

/// Markdown for a GitHub job summary or a PR comment.
pub fn check_markdown(r: &CheckReport) -> String {
    let mut out = String::new();
    let verdict = match r.exit_code() {
        0 => "✅ passed",
        1 => "❌ failed",
        _ => "⛔ could not run every check",
    };
    let _ = writeln!(out, "## evaldeck check: `{}` — {verdict}\n", r.server);
    let _ = writeln!(out, "{}\n", md_escape(&header_line(r)));
    let _ = writeln!(out, "{}\n", check_counts(r));
    let open: Vec<&CheckResult> = r
        .results
        .iter()
        .filter(|c| matches!(c.outcome, Outcome::Failed | Outcome::CouldNotRun))
        .collect();
    if !open.is_empty() {
        out.push_str("| | check | result | evidence |\n|---|---|---|---|\n");
        for c in &open {
            let ev: Vec<String> = c
                .evidence
                .iter()
                .take(5)
                .map(|e| md_escape(&e.message))
                .collect();
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} |",
                icon(c.outcome, c.baselined),
                c.id,
                md_escape(&c.summary),
                ev.join("<br>")
            );
        }
        out.push('\n');
    }
    out.push_str("<details><summary>All checks</summary>\n\n| | check | result |\n|---|---|---|\n");
    for c in &r.results {
        let _ = writeln!(
            out,
            "| {} | `{}` | {} |",
            icon(c.outcome, c.baselined),
            c.id,
            md_escape(&c.summary)
        );
    }
    out.push_str("\n</details>\n");
    if !r.findings.is_empty() {
        out.push_str(&findings_markdown(&r.findings));
    }
    if let Some(d) = &r.drift
        && !d.changes.is_empty()
    {
        out.push('\n');
        out.push_str(&drift_markdown(d).replacen("## ", "### ", 1));
    }
    out
}

pub fn findings_markdown(f: &[Finding]) -> String {
    let mut out = String::from(
        "\n### Security scan\n\n| severity | rule | where | finding |\n|---|---|---|---|\n",
    );
    for f in f {
        let _ = writeln!(
            out,
            "| {} | `{}` | `{}{}` | {} |",
            f.severity.as_str(),
            f.rule,
            f.location,
            f.pointer,
            md_escape(&f.message)
        );
    }
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// One self-contained HTML file: styles and the chart inline, no external `src` or `href`.
pub fn check_html(r: &CheckReport) -> String {
    let s = &r.summary;
    let bars = [
        ("passed", s.passed, "#2e7d32"),
        ("failed", s.failed, "#c62828"),
        ("not applicable", s.not_applicable, "#9e9e9e"),
        ("could not run", s.could_not_run, "#ef6c00"),
    ];
    let total = s.total.max(1) as f64;
    let mut svg = String::from(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="28" role="img" aria-label="results">"#,
    );
    let mut x = 0.0;
    for (label, n, color) in bars {
        let w = 600.0 * n as f64 / total;
        if n > 0 {
            let _ = write!(
                svg,
                r#"<rect x="{x:.1}" y="0" width="{w:.1}" height="28" fill="{color}"><title>{label}: {n}</title></rect>"#
            );
        }
        x += w;
    }
    svg.push_str("</svg>");
    let mut rows = String::new();
    for c in &r.results {
        let ev: Vec<String> = c
            .evidence
            .iter()
            .map(|e| {
                format!(
                    "<li>{}{}</li>",
                    e.location
                        .as_deref()
                        .map(|l| format!("<code>{}</code> ", esc(l)))
                        .unwrap_or_default(),
                    esc(&e.message)
                )
            })
            .collect();
        let _ = write!(
            rows,
            "<tr class=\"{}\"><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}{}</td></tr>",
            c.outcome.as_str().replace(' ', "-"),
            icon(c.outcome, c.baselined),
            esc(&c.id),
            esc(&outcome_word(c)),
            esc(&c.summary),
            if ev.is_empty() {
                String::new()
            } else {
                format!(
                    "<details><summary>evidence</summary><ul>{}</ul></details>",
                    ev.join("")
                )
            }
        );
    }
    let mut findings = String::new();
    if !r.findings.is_empty() {
        findings.push_str("<h2>Security scan</h2><table><tr><th>severity</th><th>rule</th><th>where</th><th>finding</th></tr>");
        for f in &r.findings {
            let _ = write!(
                findings,
                "<tr><td>{}</td><td><code>{}</code></td><td><code>{}{}</code></td><td>{}</td></tr>",
                f.severity.as_str(),
                esc(&f.rule),
                esc(&f.location),
                esc(&f.pointer),
                esc(&f.message)
            );
        }
        findings.push_str("</table>");
    }
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>evaldeck check: {server}</title>\
<style>body{{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;width:100%}}\
td,th{{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}}tr.failed{{background:#fdecea}}\
tr.could-not-run{{background:#fff3e0}}code{{font-size:13px}}</style></head><body>\
<h1>evaldeck check: {server}</h1><p>{header}</p><p>{counts}</p>{svg}\
<table><tr><th></th><th>check</th><th>result</th><th>summary</th></tr>{rows}</table>{findings}</body></html>\n",
        server = esc(&r.server),
        header = esc(&header_line(r)),
        counts = esc(&check_counts(r)),
    )
}

fn xml(s: &str) -> String {
    // Characters XML 1.0 cannot hold are dropped.
    esc(s)
        .chars()
        .filter(|c| matches!(*c, '\t' | '\n' | '\r') || *c >= ' ')
        .collect()
}

fn secs(ms: u64) -> String {
    format!("{:.3}", ms as f64 / 1000.0)
}

/// JUnit XML: one test case per check. A failure is a `<failure>`, a check that could not
/// run an `<error>`, one that does not apply (or a baselined failure) `<skipped>`.
pub fn check_junit(r: &CheckReport) -> String {
    let s = &r.summary;
    let failures = r
        .results
        .iter()
        .filter(|c| c.outcome == Outcome::Failed && !c.baselined)
        .count();
    let errors = r
        .results
        .iter()
        .filter(|c| c.outcome == Outcome::CouldNotRun && !c.baselined)
        .count();
    let skipped = s.not_applicable + s.baselined;
    let name = format!("evaldeck check {}", r.server);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" time=\"{}\">",
        xml(&name),
        s.total,
        secs(r.duration_ms)
    );
    let _ = writeln!(
        out,
        "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{}\" timestamp=\"{}\">",
        xml(&name),
        s.total,
        secs(r.duration_ms),
        xml(&r.generated_at)
    );
    let _ = writeln!(
        out,
        "    <properties><property name=\"transport\" value=\"{}\"/><property name=\"target\" value=\"{}\"/><property name=\"revision\" value=\"{}\"/></properties>",
        xml(&r.transport),
        xml(&r.target),
        xml(r.revision.as_deref().unwrap_or(""))
    );
    for c in &r.results {
        let _ = write!(
            out,
            "    <testcase name=\"{}\" classname=\"evaldeck.check.{}\" time=\"{}\"",
            xml(&c.id),
            xml(&c.area),
            secs(c.duration_ms)
        );
        let evidence: String = c
            .evidence
            .iter()
            .map(|e| {
                format!(
                    "{}{}\n",
                    e.location
                        .as_deref()
                        .map(|l| format!("[{l}] "))
                        .unwrap_or_default(),
                    e.message
                )
            })
            .collect();
        let body = match (c.outcome, c.baselined) {
            (Outcome::Passed, _) => None,
            (_, true) => Some(format!(
                "<skipped message=\"baselined: {}\"/>",
                xml(&c.summary)
            )),
            (Outcome::NotApplicable, _) => {
                Some(format!("<skipped message=\"{}\"/>", xml(&c.summary)))
            }
            (Outcome::Failed, _) => Some(format!(
                "<failure type=\"{}\" message=\"{}\">{}</failure>",
                xml(&c.id),
                xml(&c.summary),
                xml(&evidence)
            )),
            (Outcome::CouldNotRun, _) => Some(format!(
                "<error type=\"could-not-run\" message=\"{}\">{}</error>",
                xml(&c.summary),
                xml(&evidence)
            )),
        };
        match body {
            None => out.push_str("/>\n"),
            Some(b) => {
                let _ = writeln!(out, ">{b}</testcase>");
            }
        }
    }
    out.push_str("  </testsuite>\n</testsuites>\n");
    out
}

pub fn drift_table(r: &DriftReport) -> String {
    let mut out = format!("diff {} → {}\n\n", r.old, r.new);
    if r.changes.is_empty() {
        out.push_str("no changes\n");
        return out;
    }
    let rows: Vec<Vec<String>> = r
        .changes
        .iter()
        .map(|c| {
            vec![
                c.class.as_str().to_string(),
                c.rule.clone(),
                format!("{}:{}{}", c.kind, c.name, c.pointer),
                c.message.clone(),
            ]
        })
        .collect();
    out.push_str(&table(&["class", "rule", "where", "change"], &rows));
    let _ = writeln!(
        out,
        "\n{} breaking, {} to review, {} non-breaking",
        r.summary.breaking, r.summary.review, r.summary.non_breaking
    );
    out
}

pub fn drift_markdown(r: &DriftReport) -> String {
    let mut out = format!(
        "## evaldeck diff: `{}` → `{}`\n\n{} breaking, {} to review, {} non-breaking\n\n",
        r.old, r.new, r.summary.breaking, r.summary.review, r.summary.non_breaking
    );
    if r.changes.is_empty() {
        out.push_str("No changes.\n");
        return out;
    }
    out.push_str("| class | rule | where | change |\n|---|---|---|---|\n");
    for c in &r.changes {
        let _ = writeln!(
            out,
            "| {} | `{}` | `{}:{}{}` | {} |",
            match c.class {
                DriftClass::Breaking => "❌ breaking",
                DriftClass::Review => "⚠️ review",
                DriftClass::NonBreaking => "non-breaking",
            },
            c.rule,
            c.kind,
            c.name,
            c.pointer,
            md_escape(&c.message)
        );
    }
    out
}

use crate::client::compare::{Change, Comparison};
use crate::spec::run::{EvalIteration, EvalRun};

fn run_verdict(run: &EvalRun) -> &'static str {
    match (run.status.as_str(), run.result.as_deref()) {
        (_, Some("passed")) => "✅ passed",
        (_, Some("failed")) => "❌ failed",
        ("completed", _) | ("failed", _) => "⛔ no verdict",
        ("cancelled", _) => "⛔ cancelled",
        _ => "⏳ running",
    }
}

fn iteration_icon(i: &EvalIteration) -> &'static str {
    match i.result.as_deref() {
        Some("passed") => "✅",
        Some("failed") => "❌",
        Some("error") => "⛔",
        _ => "➖",
    }
}

fn iteration_name(i: &EvalIteration) -> String {
    format!(
        "{} #{}",
        i.title.clone().unwrap_or_default(),
        i.iteration_number
    )
}

fn run_line(run: &EvalRun) -> String {
    let s = run.summary.clone().unwrap_or_default();
    format!(
        "{}/{} iterations passed{}, cases {}/{} passed, {} errored, {} tokens, {:.0} ms in all",
        s.passed,
        s.total,
        s.pass_rate
            .map(|r| format!(" ({:.0}%)", r * 100.0))
            .unwrap_or_default(),
        s.cases.passed,
        s.cases.total,
        s.errored,
        s.tokens.total_tokens,
        s.latency_ms.total
    )
}

/// What regressed and what was fixed from a base run, as Markdown.
pub fn comparison_markdown(c: &Comparison) -> String {
    let mut out = format!(
        "\n### Compared with `{}`\n\n{} regressed, {} fixed, {} added, {} removed\n\n",
        c.base_run_id,
        c.count(Change::Regressed),
        c.count(Change::Fixed),
        c.count(Change::Added),
        c.count(Change::Removed)
    );
    let changed: Vec<_> = c
        .cases
        .iter()
        .filter(|d| d.change != Change::Unchanged)
        .collect();
    if changed.is_empty() {
        out.push_str("No case changed.\n");
        return out;
    }
    out.push_str("| change | case | model | base | head |\n|---|---|---|---|---|\n");
    for d in changed {
        let t = |t: Option<crate::client::compare::Tally>| {
            t.map(|t| t.to_string()).unwrap_or_else(|| "–".into())
        };
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {} | {} |",
            if d.change == Change::Regressed {
                "❌ "
            } else {
                ""
            },
            d.change.as_str(),
            md_escape(&d.title),
            d.model.as_deref().unwrap_or("–"),
            t(d.base),
            t(d.head)
        );
    }
    out
}

/// An eval run as Markdown (a job summary, a PR comment): the verdict, the counts, the
/// iterations that did not pass, all of them folded, and the comparison with a base run.
pub fn run_markdown(
    run: &EvalRun,
    suite: &str,
    its: &[EvalIteration],
    cmp: Option<&Comparison>,
) -> String {
    let mut out = format!(
        "## evaldeck run #{} of `{}` — {}\n\n{}\n\n",
        run.run_number.unwrap_or_default(),
        suite,
        run_verdict(run),
        run_line(run)
    );
    if let Some(e) = &run.error {
        let _ = writeln!(out, "Error: {}\n", md_escape(e));
    }
    let bad: Vec<&EvalIteration> = its
        .iter()
        .filter(|i| matches!(i.result.as_deref(), Some("failed") | Some("error")))
        .collect();
    if !bad.is_empty() {
        out.push_str("| | iteration | model | why |\n|---|---|---|---|\n");
        for i in &bad {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                iteration_icon(i),
                md_escape(&iteration_name(i)),
                i.model.as_deref().unwrap_or("–"),
                md_escape(i.error.as_deref().unwrap_or("assertions failed"))
            );
        }
        out.push('\n');
    }
    out.push_str("<details><summary>All iterations</summary>\n\n| | iteration | model | ms | tools |\n|---|---|---|---|---|\n");
    for i in its {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            iteration_icon(i),
            md_escape(&iteration_name(i)),
            i.model.as_deref().unwrap_or("–"),
            i.duration_ms.map(|d| format!("{d:.0}")).unwrap_or_default(),
            i.actual_tool_calls
                .iter()
                .map(|c| format!("`{}`", c.tool_name))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    out.push_str("\n</details>\n");
    if let Some(c) = cmp {
        out.push_str(&comparison_markdown(c));
    }
    out
}

/// An eval run as one self-contained HTML file (no external `src` or `href`).
pub fn run_html(
    run: &EvalRun,
    suite: &str,
    its: &[EvalIteration],
    cmp: Option<&Comparison>,
) -> String {
    let s = run.summary.clone().unwrap_or_default();
    let total = s.total.max(1) as f64;
    let mut svg = String::from(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="600" height="28" role="img" aria-label="iterations">"#,
    );
    let mut x = 0.0;
    for (label, n, color) in [
        ("passed", s.passed, "#2e7d32"),
        ("failed", s.failed, "#c62828"),
        ("errored", s.errored, "#ef6c00"),
        ("pending or cancelled", s.pending + s.cancelled, "#9e9e9e"),
    ] {
        let w = 600.0 * n as f64 / total;
        if n > 0 {
            let _ = write!(
                svg,
                r#"<rect x="{x:.1}" y="0" width="{w:.1}" height="28" fill="{color}"><title>{label}: {n}</title></rect>"#
            );
        }
        x += w;
    }
    svg.push_str("</svg>");
    // Latency per iteration, as bars.
    let max = its
        .iter()
        .filter_map(|i| i.duration_ms)
        .fold(1.0_f64, f64::max);
    let bar_w = (600.0 / its.len().max(1) as f64).clamp(2.0, 40.0);
    let mut lat = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{:.0}" height="60" role="img" aria-label="latency">"#,
        bar_w * its.len() as f64
    );
    for (k, i) in its.iter().enumerate() {
        let h = 58.0 * i.duration_ms.unwrap_or(0.0) / max;
        let _ = write!(
            lat,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{h:.1}" fill="{}"><title>{}: {:.0} ms</title></rect>"#,
            bar_w * k as f64,
            60.0 - h,
            (bar_w - 1.0).max(1.0),
            if i.result.as_deref() == Some("passed") {
                "#2e7d32"
            } else {
                "#c62828"
            },
            esc(&iteration_name(i)),
            i.duration_ms.unwrap_or(0.0)
        );
    }
    lat.push_str("</svg>");
    let mut rows = String::new();
    for i in its {
        let _ = write!(
            rows,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
            iteration_icon(i),
            esc(&iteration_name(i)),
            esc(i.model.as_deref().unwrap_or("–")),
            i.duration_ms.map(|d| format!("{d:.0}")).unwrap_or_default(),
            esc(&i
                .actual_tool_calls
                .iter()
                .map(|c| c.tool_name.as_str())
                .collect::<Vec<_>>()
                .join(", ")),
            esc(i.error.as_deref().unwrap_or(""))
        );
    }
    let compared = cmp
        .map(|c| {
            let mut t = format!(
                "<h2>Compared with {}</h2><p>{} regressed, {} fixed, {} added, {} removed</p><table><tr><th>change</th><th>case</th><th>model</th><th>base</th><th>head</th></tr>",
                esc(&c.base_run_id),
                c.count(Change::Regressed),
                c.count(Change::Fixed),
                c.count(Change::Added),
                c.count(Change::Removed)
            );
            for d in c.cases.iter().filter(|d| d.change != Change::Unchanged) {
                let _ = write!(
                    t,
                    "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
                    d.change.as_str(),
                    esc(&d.title),
                    esc(d.model.as_deref().unwrap_or("–")),
                    d.base.map(|t| t.to_string()).unwrap_or_default(),
                    d.head.map(|t| t.to_string()).unwrap_or_default()
                );
            }
            t.push_str("</table>");
            t
        })
        .unwrap_or_default();
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>evaldeck run {id}</title>\
<style>body{{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}}table{{border-collapse:collapse;width:100%}}\
td,th{{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}}</style></head><body>\
<h1>evaldeck run #{n} of {suite} — {verdict}</h1><p>{line}</p>{svg}<h2>Latency</h2>{lat}\
<table><tr><th></th><th>iteration</th><th>model</th><th>ms</th><th>tools</th><th>error</th></tr>{rows}</table>{compared}</body></html>\n",
        id = esc(&run.id),
        n = run.run_number.unwrap_or_default(),
        suite = esc(suite),
        verdict = esc(run_verdict(run)),
        line = esc(&run_line(run)),
    )
}
