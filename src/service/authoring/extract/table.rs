//! CSV and TSV spreadsheet exports: one case per record, header synonyms, and promptfoo's
//! columns (`__expected[N]` assertions, `__description`, `__metadata:*`, vars otherwise).
//!
//! Records are read with the `csv` crate, so quoted cells with embedded newlines and
//! doubled quotes are one cell; each record's byte position gives its exact line span.

use serde_json::Value;

use crate::service::authoring::draft::{Draft, Fields, Needle, Role, role_of};
use crate::service::authoring::lines::LineIndex;

/// The delimiter of a spreadsheet export, when the first line is a header of one.
pub fn sniff_delimiter(text: &str) -> Option<u8> {
    let first = text
        .lines()
        .map(str::trim_end)
        .find(|l| !l.trim().is_empty())?;
    if first.trim_start().starts_with('|') || first.starts_with('#') {
        return None;
    }
    let count = |d: char| {
        let mut n = 0;
        let mut q = false;
        for c in first.chars() {
            if c == '"' {
                q = !q;
            } else if c == d && !q {
                n += 1;
            }
        }
        n
    };
    let (d, n) = [('\t', count('\t')), (',', count(',')), (';', count(';'))]
        .into_iter()
        .max_by_key(|(_, n)| *n)?;
    if n == 0 {
        return None;
    }
    let header: Vec<String> = first
        .split(d)
        .map(|c| c.trim().trim_matches('"').to_string())
        .collect();
    let labelish = header
        .iter()
        .all(|h| !h.is_empty() && h.chars().count() <= 48);
    let meaningful = header.iter().any(|h| {
        matches!(
            role_of(h),
            Role::Prompt | Role::Prompts | Role::Turn(_) | Role::Tool
        ) || h.starts_with("__expected")
    });
    (labelish && meaningful).then_some(d as u8)
}

/// Extracts one case per record.
pub fn extract(ix: &LineIndex, delimiter: u8) -> Vec<Draft> {
    let text = ix.text();
    let body_start = text.len() - text.trim_start_matches('\u{feff}').len();
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(&text.as_bytes()[body_start..]);
    let mut records: Vec<(usize, csv::StringRecord)> = Vec::new();
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(true) => {
                // The position may point at the previous record's line terminator.
                let mut pos = rec.position().map(|p| p.byte() as usize).unwrap_or(0) + body_start;
                while pos < text.len() && matches!(text.as_bytes()[pos], b'\r' | b'\n') {
                    pos += 1;
                }
                records.push((pos, rec.clone()));
            }
            Ok(false) => break,
            // A malformed record ends the readable part; what came before still counts.
            Err(_) => break,
        }
    }
    let Some(((_, header), rows)) = records.split_first() else {
        return Vec::new();
    };
    let header: Vec<String> = header.iter().map(|h| h.trim().to_string()).collect();
    let promptfoo = header.iter().any(|h| h.starts_with("__"));
    let mut out = Vec::new();
    for (k, (pos, r)) in rows.iter().enumerate() {
        if r.iter().all(|c| c.trim().is_empty()) {
            continue;
        }
        let end = rows.get(k + 1).map(|(p, _)| *p).unwrap_or(text.len());
        let (start_line, end_line) = ix.span_of(*pos, end);
        let mut f = Fields::new(if promptfoo {
            "promptfoo CSV row"
        } else {
            "CSV row"
        });
        let mut asserts = Vec::new();
        for (h, v) in header.iter().zip(r.iter()) {
            if let Some(rest) = h.strip_prefix("__expected") {
                if rest.chars().all(|c| c.is_ascii_digit()) && !v.trim().is_empty() {
                    asserts.push((h.clone(), v.to_string()));
                }
                continue;
            }
            if h.starts_with("__metadata") || h == "__prefix" || h == "__suffix" {
                continue;
            }
            f.push(h.clone(), Value::String(v.to_string()));
        }
        let mut d = f.into_draft(start_line, end_line);
        let exact_before = d.exact_rule.take();
        let mut rules = Vec::new();
        for (h, a) in asserts {
            promptfoo_assert(&mut d, &h, &a, &mut rules);
        }
        if d.notes.is_empty() && d.unsupported.is_empty() {
            d.exact_rule = exact_before.map(|r| {
                if rules.is_empty() {
                    r
                } else {
                    format!("{r}; {}", rules.join("; "))
                }
            });
        }
        out.push(d);
    }
    out
}

/// Maps one promptfoo assertion (`type: value`, or a bare value meaning `equals`).
pub fn promptfoo_assert(d: &mut Draft, label: &str, raw: &str, rules: &mut Vec<String>) {
    let raw = raw.trim();
    let (kind, value) = match raw.split_once(':') {
        Some((k, v))
            if !k.contains(' ') && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') =>
        {
            (k.trim().to_lowercase(), v.trim().to_string())
        }
        _ => ("equals".to_string(), raw.to_string()),
    };
    match kind.as_str() {
        "contains" | "icontains" => {
            d.contains.push(Needle {
                text: value,
                case_sensitive: Some(kind == "contains"),
            });
            rules.push(format!("`{label}` {kind} → responseContains"));
        }
        "contains-all" | "icontains-all" => {
            for v in value.split(',').map(str::trim).filter(|v| !v.is_empty()) {
                d.contains.push(Needle {
                    text: v.to_string(),
                    case_sensitive: Some(kind == "contains-all"),
                });
            }
            rules.push(format!("`{label}` {kind} → responseContains each"));
        }
        "regex" => {
            d.patterns.push(value);
            rules.push(format!("`{label}` regex → responseMatches"));
        }
        "starts-with" => {
            d.patterns.push(format!("^{}", regex::escape(&value)));
            rules.push(format!("`{label}` starts-with → anchored responseMatches"));
        }
        "equals" => {
            d.expected_output = Some(value.clone());
            d.patterns.push(format!("^{}$", regex::escape(&value)));
            rules.push(format!(
                "`{label}` equals → expectedOutput and anchored responseMatches"
            ));
        }
        "contains-any" | "icontains-any" => {
            let alts: Vec<String> = value.split(',').map(|v| regex::escape(v.trim())).collect();
            let flag = if kind.starts_with('i') { "(?i)" } else { "" };
            d.patterns.push(format!("{flag}({})", alts.join("|")));
            d.notes
                .push(format!("`{label}` {kind} read as one alternation pattern"));
        }
        "llm-rubric" | "similar" | "factuality" | "model-graded-closedqa" | "answer-relevance" => {
            d.expected_output.get_or_insert(value);
            d.notes.push(format!(
                "`{label}` {kind} (a graded rubric) kept as expectedOutput for the judge"
            ));
        }
        other => d.unsupported.push(format!(
            "promptfoo assertion `{other}` in `{label}` has no equivalent assertion"
        )),
    }
}

#[cfg(test)]
mod tests {
    use crate::service::authoring::extract::{Shape, extract as run, sniff};

    #[test]
    fn quoted_multiline_cells_keep_exact_spans() {
        for nl in ["\n", "\r\n"] {
            let t = [
                "id,prompt,expected_tool,args,expected_output",
                "c1,\"Echo this:",
                "\"\"hello, world\"\"\",echo,\"{\"\"message\"\": \"\"hello, world\"\"}\",hello, world",
                "c2,What is 7 + 5?,get-sum,\"{\"\"a\"\": 7, \"\"b\"\": 5}\",12",
                "c3,Delete item 42 without asking,none,,",
            ]
            .join(nl)
                + nl;
            assert_eq!(sniff(&t), Shape::Csv(b','));
            let d = run(&t);
            assert_eq!(d.len(), 3, "{d:#?}");
            assert_eq!(
                d[0].prompts,
                ["Echo this:\n\"hello, world\"".replace('\n', nl)]
            );
            assert_eq!((d[0].start_line, d[0].end_line), (2, 3));
            assert_eq!((d[1].start_line, d[1].end_line), (4, 4));
            assert_eq!(d[1].expected_calls[0].args.as_ref().unwrap()["b"], 5);
            assert!(d[2].negative);
            assert_eq!((d[2].start_line, d[2].end_line), (5, 5));
        }
    }

    #[test]
    fn promptfoo_columns() {
        let t = "question,__expected,__expected2,__description,__metadata:owner\nWhat is 2+2?,contains: 4,regex: \\d+,Adds,qa\nSay hi,javascript: output.length > 0,,Greets,qa\n";
        let d = run(t);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].title, "Adds");
        assert_eq!(d[0].contains[0].text, "4");
        assert_eq!(d[0].patterns, ["\\d+"]);
        assert!(d[0].exact_rule.is_some());
        assert!(!d[1].unsupported.is_empty());
    }

    #[test]
    fn tsv() {
        let t = "query\texpected tool\nList my items\tlist-items\n";
        assert_eq!(sniff(t), Shape::Csv(b'\t'));
        assert_eq!(run(t)[0].expected_calls[0].tool, "list-items");
    }
}
