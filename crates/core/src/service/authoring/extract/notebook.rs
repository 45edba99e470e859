//! Jupyter notebooks (`.ipynb`) as the code they hold, line for line: each line of a cell's
//! `source` array becomes that source line, every other line of the JSON is blank, so the
//! code reader's cases keep their lines in the notebook. Markdown cells become comments.

/// Whether the document is a notebook: JSON with `cells` and `nbformat`.
pub fn looks_like_notebook(t: &str) -> bool {
    let t = t.trim_start_matches('\u{feff}').trim_start();
    t.starts_with('{')
        && t.contains("\"nbformat\"")
        && t.contains("\"cells\"")
        && serde_json::from_str::<serde_json::Value>(t)
            .is_ok_and(|v| v.get("cells").is_some_and(serde_json::Value::is_array))
}

/// The notebook's cells as source text, line for line.
pub fn to_source(t: &str) -> String {
    let mut out = Vec::new();
    // Inside a cell's `"source": [` array, and whether the cell is markdown.
    let mut in_source = false;
    let mut markdown = false;
    for l in t.lines() {
        let s = l.trim();
        if s.starts_with("\"cell_type\"") {
            markdown = s.contains("\"markdown\"") || s.contains("\"raw\"");
        }
        if !in_source {
            if let Some(rest) = s.strip_prefix("\"source\":") {
                let rest = rest.trim();
                // `"source": "one line"` or `"source": ["one line"]` on one line.
                let one = rest.trim_end_matches(',');
                if one.starts_with('"') {
                    out.push(line_of(one, markdown));
                    continue;
                }
                if one.starts_with('[') && one.ends_with(']') {
                    let inner = one[1..one.len() - 1].trim();
                    out.push(if inner.is_empty() {
                        String::new()
                    } else {
                        line_of(inner, markdown)
                    });
                    continue;
                }
                in_source = rest.starts_with('[');
            }
            out.push(String::new());
            continue;
        }
        if s.starts_with(']') {
            in_source = false;
            out.push(String::new());
            continue;
        }
        out.push(line_of(s.trim_end_matches(','), markdown));
    }
    super::rejoin(t, &out)
}

/// One JSON string of a source array as its line (`"x = 1\n"` → `x = 1`); a markdown
/// cell's line as a comment.
fn line_of(json: &str, markdown: bool) -> String {
    let line = serde_json::from_str::<String>(json)
        .map(|s| s.trim_end_matches(['\n', '\r']).replace('\n', " "))
        .unwrap_or_default();
    if markdown && !line.trim().is_empty() {
        format!("# {line}")
    } else {
        line
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn cells_become_their_source_lines_in_place() {
        let nb = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"source\": [\n    \"## Cases\"\n   ]\n  },\n  {\n   \"cell_type\": \"code\",\n   \"source\": [\n    \"case(\\n\",\n    \"    prompt=\\\"Add 2 and 3\\\",\\n\",\n    \")\"\n   ]\n  }\n ],\n \"nbformat\": 4\n}\n";
        assert!(super::looks_like_notebook(nb));
        let src = super::to_source(nb);
        let lines: Vec<&str> = src.lines().collect();
        assert_eq!(lines.len(), nb.lines().count());
        assert_eq!(lines[5], "# ## Cases");
        assert_eq!(lines[11], "case(");
        assert_eq!(lines[12], "    prompt=\"Add 2 and 3\",");
        assert_eq!(lines[13], ")");
    }
}
