//! Assertions a test script makes on the calls a model made, read as the fields they
//! state: chai and Jest chains (`expect(calls[0].name).to.eql('get_issue')`), and a path
//! compared with a value, as HTTP test files write them (Hurl's `jsonpath
//! "$.tool_calls[0].name" == "get_forecast"`, Bruno's `res.body.tool_calls[0].name: eq
//! x`, Karate's `match response.tool_calls[0].arguments.city == 'Oslo'`).

use std::borrow::Cow;

use crate::service::authoring::lines::has;

/// What an assertion says of the calls: a tool called, one never called, none at all, or
/// an argument.
fn field_for(subject: &str, negated: bool, counted: bool, lit: &str) -> Option<String> {
    let unquoted = lit.trim_matches(['\'', '"', '`']);
    let quoted = lit.starts_with(['\'', '"', '`']);
    let subject = subject.trim_end_matches("[*]");
    let last = subject
        .rsplit(['.', '['])
        .next()
        .unwrap_or_default()
        .trim_end_matches(']');
    let calls_list = is_calls(last) || !subject.contains(['.', '[']);
    // (`match response.tool_calls == []`: the empty list compared with.)
    if calls_list && (counted && lit == "0" || lit.replace(' ', "") == "[]") {
        return (!negated).then(|| "Expected: no tool call".into());
    }
    let names_tools = matches!(last, "name" | "tool" | "tool_name" | "toolName")
        || subject.contains(".name)")
        || subject.contains("=> c.name")
        || subject.contains(".name ");
    if names_tools && (quoted || is_bare_name(lit)) {
        return Some(if negated {
            format!("Must not call: {unquoted}")
        } else {
            format!("Tool: {unquoted}")
        });
    }
    if negated {
        return None;
    }
    // (A call matched whole, `contains { name: 'get-sum', arguments: { a: 17 } }`: its
    // tool with its arguments.)
    if lit.starts_with('{')
        && let Some(name) = called_name(lit)
    {
        let args = lit
            .find("arguments")
            .or_else(|| lit.find("args"))
            .and_then(|i| lit[i..].find('{').map(|j| i + j))
            .map(|a| {
                let end = lit.rfind('}').filter(|&e| e > a).unwrap_or(lit.len());
                lit[a..end].trim_end_matches([' ', '}']).to_string() + "}"
            });
        return Some(match args {
            Some(a) => format!("Tool: {name} {a}"),
            None => format!("Tool: {name}"),
        });
    }
    if lit.starts_with('{') {
        return Some(format!("Arguments: {lit}"));
    }
    // `a.owner` … `eql('acme')`, `tool_calls[0].arguments.pull_number` == 17.
    let param = Some(last).filter(|p| {
        !p.is_empty() && p.chars().all(|c| c.is_alphanumeric() || c == '_') && subject.contains('.')
    })?;
    let under_arguments = ["arguments.", "args.", "input.", "parameters.", "params."]
        .iter()
        .any(|a| subject.contains(a));
    if matches!(
        param,
        "length" | "name" | "status" | "code" | "body" | "arguments" | "args"
    ) && !under_arguments
    {
        return None;
    }
    Some(format!("Arguments: {param} = {lit}"))
}

/// The tool a call written as an object names (`{ name: 'echo', … }`).
fn called_name(lit: &str) -> Option<String> {
    let at = lit.find("name")? + "name".len();
    let rest = lit[at..].trim_start_matches(['"', '\'']).trim_start();
    let rest = rest.strip_prefix(':')?.trim_start();
    let q = rest.chars().next().filter(|c| matches!(c, '\'' | '"'))?;
    let body = &rest[1..];
    Some(body[..body.find(q)?].to_string())
}

/// A word naming the calls made (`tool_calls`, `toolCalls`, `calls`).
fn is_calls(w: &str) -> bool {
    let w = w.to_ascii_lowercase().replace('_', "");
    matches!(
        w.as_str(),
        "toolcalls"
            | "calls"
            | "tools"
            | "toolsused"
            | "toolscalled"
            | "tooluses"
            | "functioncalls"
    )
}

/// A tool name written without quotes (Bruno's `eq get_forecast`).
fn is_bare_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/'))
        && s.chars().any(|c| c.is_ascii_alphabetic())
        && !matches!(s, "true" | "false" | "null")
}

/// The field an assertion line states, or `None` when it is no assertion on the calls.
pub fn field(line: &str) -> Option<String> {
    if line.contains("expect(") {
        expect_chain(line)
    } else {
        path_assertion(line)
    }
}

/// chai's `pm.expect(…).to.…` and Jest's `expect(…).to…`: the subject is what `expect` is
/// given, the literal what the chain ends on.
fn expect_chain(line: &str) -> Option<String> {
    let t = line.trim();
    let open = t.find("expect(")? + "expect(".len();
    // The subject: what `expect(…)` is given, up to its closing parenthesis.
    let mut depth = 1;
    let close = t[open..].char_indices().find_map(|(i, c)| {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        (depth == 0).then_some(open + i)
    })?;
    let subject = t[open..close].split(", ").next().unwrap_or_default().trim();
    let chain = &t[close + 1..];
    let negated = chain.contains(".not.") || chain.contains(".not(");
    // The literal the chain ends on.
    let lit_open = chain.rfind('(')? + 1;
    let lit = chain[lit_open..]
        .trim_end_matches([';', ' '])
        .trim_end_matches(')')
        .trim_end_matches([')', ';', ' '])
        .trim();
    let method = chain[..lit_open - 1]
        .rsplit('.')
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    let counted = method == "lengthof" || method == "tohavelength";
    field_for(subject, negated, counted, lit)
}

/// A path into the response compared with a value: Hurl's `jsonpath "$.tool_calls[0].name"
/// == "x"` (or `count == 0`, `not includes "x"`), Bruno's `res.body.tool_calls[0].name: eq
/// x`, Karate's `match response.tool_calls[0].name == 'x'`.
fn path_assertion(line: &str) -> Option<String> {
    let t = line.trim();
    // The path: the first word (quoted or not) that goes through the calls.
    let (start, path) = t
        .split_whitespace()
        .scan(0, |at, w| {
            let here = t[*at..].find(w).map_or(*at, |i| *at + i);
            *at = here + w.len();
            Some((here, w))
        })
        .find(|(_, w)| {
            let w = w.trim_matches(['"', '\'', ':']);
            w.split(['.', '[', ']', '$'])
                .any(|part| is_calls(part.trim_end_matches(['?', '*'])))
        })?;
    let subject = path.trim_matches(['"', '\'']).trim_end_matches(':');
    let subject = subject.trim_matches(['"', '\'']);
    let rest = t[start + path.len()..].trim();
    let words: Vec<&str> = rest.split_whitespace().collect();
    let negated = words
        .iter()
        .any(|w| matches!(*w, "not" | "!=" | "neq" | "!contains"));
    let counted = words
        .iter()
        .any(|w| matches!(*w, "count" | "length" | "size"))
        || subject.ends_with(".length");
    if words.contains(&"isEmpty") {
        return field_for(subject, negated, true, "0");
    }
    // The value compared with: the rest after its operator.
    let ops = [
        "==",
        "!=",
        "includes",
        "contains",
        "!contains",
        "eq",
        "neq",
        "equals",
        "===",
    ];
    let k = words.iter().rposition(|w| ops.contains(w))?;
    let lit = words[k + 1..].join(" ");
    let lit = lit.trim_end_matches([';', ',']).trim();
    if lit.is_empty() {
        return None;
    }
    let subject = subject.trim_end_matches(".length");
    field_for(subject, negated, counted, lit)
}

/// The document with each assertion on the calls rewritten as the field it states, line
/// for line, or the document itself when it has none.
pub fn as_fields(text: &str) -> Cow<'_, str> {
    if !has(text, "calls") && !has(text, "Calls") {
        return Cow::Borrowed(text);
    }
    let mut changed = false;
    let lines: Vec<String> = text
        .lines()
        .map(|l| match path_assertion(l) {
            Some(f) if !l.contains("expect(") => {
                changed = true;
                let indent = &l[..l.len() - l.trim_start().len()];
                format!("{indent}{f}")
            }
            _ => l.to_string(),
        })
        .collect();
    if !changed {
        return Cow::Borrowed(text);
    }
    Cow::Owned(super::rejoin(text, &lines))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_assertions_state_the_tool_its_arguments_or_no_call() {
        assert_eq!(
            field(r#"jsonpath "$.tool_calls[0].name" == "get_forecast""#).as_deref(),
            Some("Tool: get_forecast")
        );
        assert_eq!(
            field(r#"jsonpath "$.tool_calls[0].arguments.latitude" == 60.39"#).as_deref(),
            Some("Arguments: latitude = 60.39")
        );
        assert_eq!(
            field(r#"jsonpath "$.tool_calls" count == 0"#).as_deref(),
            Some("Expected: no tool call")
        );
        assert_eq!(
            field(r#"jsonpath "$.tool_calls[*].name" not includes "get_alerts""#).as_deref(),
            Some("Must not call: get_alerts")
        );
        assert_eq!(
            field("res.body.tool_calls[0].name: eq get_forecast").as_deref(),
            Some("Tool: get_forecast")
        );
        assert_eq!(
            field("match response.tool_calls[0].arguments.city == 'Oslo'").as_deref(),
            Some("Arguments: city = 'Oslo'")
        );
        assert_eq!(
            field("expect(calls[0].name).to.eql('get_issue');").as_deref(),
            Some("Tool: get_issue")
        );
        assert_eq!(field(r#"jsonpath "$.status" == "ok""#), None);
        // Karate's negated match and its empty list.
        assert_eq!(
            field("And match response.tool_calls[*].name !contains 'crash'").as_deref(),
            Some("Must not call: crash")
        );
        assert_eq!(
            field("And match response.tool_calls == []").as_deref(),
            Some("Expected: no tool call")
        );
    }
}
