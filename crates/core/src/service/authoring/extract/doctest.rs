//! Doctest examples in a page (`>>> r = ask("…")`, `>>> r.tools` over `['get-sum']`,
//! `>>> 'crash' in r.tools` over `False`): each check and the result under it said as
//! the field it stands for, line for line, so the page reads as a plan (a check's own
//! line keeps its prompt marker, so the example stays one paragraph).

use crate::service::authoring::lines::has;

/// Whether a page holds doctest examples.
pub fn has_examples(t: &str) -> bool {
    has(t, ">>> ")
        && t.lines()
            .filter(|l| l.trim_start().starts_with(">>> "))
            .count()
            >= 3
}

/// The page with each check over its result rewritten as a field.
pub fn as_fields(t: &str) -> String {
    let src: Vec<&str> = t.lines().collect();
    let mut out: Vec<String> = src.iter().map(|l| l.to_string()).collect();
    for i in 0..src.len() {
        let line = src[i];
        let body = line.trim_start();
        let Some(expr) = body.strip_prefix(">>> ") else {
            continue;
        };
        let indent = &line[..line.len() - body.len()];
        if expr.contains("doctest: +SKIP") {
            out[i] = format!("{indent}Status: skipped");
            continue;
        }
        let Some(result) = src.get(i + 1).map(|r| r.trim()) else {
            continue;
        };
        if result.starts_with(">>>") || result.starts_with("...") || result.is_empty() {
            continue;
        }
        let expr = expr.trim();
        let field = if let Some((name, _)) = expr
            .split_once(" in ")
            .filter(|(n, rest)| rest.trim_end().ends_with(".tools") && n.starts_with(['\'', '"']))
        {
            out[i] = format!("{indent}>>>");
            let name = name.trim_matches(['\'', '"']);
            match result {
                "False" => Some(format!("Must not call: {name}")),
                "True" => Some(format!("Expected tool: {name}")),
                _ => None,
            }
        } else if let Some(call) = expr.strip_suffix(".tools") {
            // `ask("…").tools` keeps the prompt on its line.
            out[i] = if call.contains(['"', '\'']) {
                format!("{indent}{call}")
            } else {
                format!("{indent}>>>")
            };
            let names = names(result);
            Some(if names.is_empty() {
                "Expected tool: none".to_string()
            } else {
                format!("Expected tool: {}", names.join(", "))
            })
        } else if expr.contains(".args(") {
            // `r.args('t') == {…}` over `True`, or `r.args('t')` over the dict.
            let dict = match expr.split_once("==") {
                Some((_, d)) if result == "True" => Some(d.trim()),
                None if result.starts_with('{') => Some(result),
                _ => None,
            };
            dict.map(|d| {
                out[i] = format!("{indent}>>>");
                format!("Arguments: {}", python_to_json(d))
            })
        } else {
            None
        };
        if let Some(f) = field {
            out[i + 1] = format!("{indent}{f}");
        }
    }
    super::rejoin(t, &out)
}

/// The names in a printed list (`['get-sum', 'echo']`).
fn names(list: &str) -> Vec<&str> {
    list.trim_matches(['[', ']', '(', ')'])
        .split(',')
        .map(|n| n.trim().trim_matches(['\'', '"']))
        .filter(|n| !n.is_empty())
        .collect()
}

/// A printed Python literal as JSON, where it can be: single-quoted strings in double
/// quotes, and `True`, `False` and `None` outside strings as JSON's words.
fn python_to_json(d: &str) -> String {
    let mut out = String::with_capacity(d.len());
    let mut quote: Option<char> = None;
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(match word.as_str() {
            "True" => "true",
            "False" => "false",
            "None" => "null",
            w => w,
        });
        word.clear();
    };
    for c in d.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                out.push('"');
            }
            Some('\'') if c == '"' => out.push_str("\\\""),
            Some(_) => out.push(c),
            None if c == '\'' || c == '"' => {
                flush(&mut word, &mut out);
                quote = Some(c);
                out.push('"');
            }
            None if c.is_alphanumeric() || c == '_' => word.push(c),
            None => {
                flush(&mut word, &mut out);
                out.push(c);
            }
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_and_results_become_fields() {
        let t = "    >>> r = ask(\"Add 1 and 2\")\n    >>> r.tools\n    ['get-sum']\n    >>> r.args('get-sum') == {'a': 1, 'b': 2}\n    True\n    >>> 'get-stats' in r.tools\n    False\n    >>> ask(\"Hi\").tools\n    []\n";
        assert!(has_examples(t));
        let l: Vec<String> = as_fields(t).lines().map(str::to_string).collect();
        assert_eq!(l[0], "    >>> r = ask(\"Add 1 and 2\")");
        assert_eq!(l[2], "    Expected tool: get-sum");
        assert_eq!(l[4], "    Arguments: {\"a\": 1, \"b\": 2}");
        assert_eq!(l[6], "    Must not call: get-stats");
        assert_eq!(l[7], "    ask(\"Hi\")");
        assert_eq!(l[8], "    Expected tool: none");
        // Words inside a string stay as written.
        assert_eq!(
            python_to_json("{'message': 'True story', 'loud': True, 'x': None}"),
            "{\"message\": \"True story\", \"loud\": true, \"x\": null}"
        );
    }
}
