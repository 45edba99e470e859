//! URI templates (RFC 6570, levels 1–3 and the prefix modifier of level 4), as MCP resource
//! templates use them: the variables a template names, for a form or `--var` flags, and
//! the URI they expand to.

/// One variable of a template, with the operator of the expression it is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    pub name: String,
    /// `None` for `{x}`; `+ # . / ; ? &` otherwise.
    pub operator: Option<char>,
}

impl Variable {
    /// Whether the URI can do without it: the query and parameter forms (`{?x}`, `{&x}`,
    /// `{;x}`) leave an unset variable out; elsewhere it would leave a hole in the path.
    pub fn optional(&self) -> bool {
        matches!(self.operator, Some('?' | '&' | ';'))
    }
}

/// An expression's parts: the operator, and each variable's name with its prefix length.
fn parse_expression(expr: &str) -> (Option<char>, Vec<(String, Option<usize>)>) {
    let (op, list) = match expr.chars().next() {
        Some(c @ ('+' | '#' | '.' | '/' | ';' | '?' | '&')) => (Some(c), &expr[1..]),
        _ => (None, expr),
    };
    let vars = list
        .split(',')
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(|v| {
            let v = v.trim_end_matches('*');
            match v.split_once(':') {
                Some((name, n)) => (name.to_string(), n.parse().ok()),
                None => (v.to_string(), None),
            }
        })
        .collect();
    (op, vars)
}

/// The template's expressions in order, `Err` naming an unclosed `{`.
fn expressions(template: &str) -> Result<Vec<(&str, &str)>, String> {
    // (literal before, expression) pairs; the tail literal comes with an empty expression.
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        let Some(end) = rest[start..].find('}') else {
            return Err(format!("`{template}`: an unclosed `{{`"));
        };
        out.push((&rest[..start], &rest[start + 1..start + end]));
        rest = &rest[start + end + 1..];
    }
    out.push((rest, ""));
    Ok(out)
}

/// Every variable the template names, once each, in order.
pub fn variables(template: &str) -> Vec<Variable> {
    let mut out: Vec<Variable> = Vec::new();
    for (_, expr) in expressions(template).unwrap_or_default() {
        let (operator, vars) = parse_expression(expr);
        for (name, _) in vars {
            if !out.iter().any(|v| v.name == name) {
                out.push(Variable { name, operator });
            }
        }
    }
    out
}

/// Percent-encodes all but the unreserved characters (and, for `+` and `#`, the reserved
/// ones too).
fn encode(value: &str, reserved: bool) -> String {
    let mut out = String::new();
    for c in value.chars() {
        let keep = c.is_ascii_alphanumeric()
            || "-._~".contains(c)
            || (reserved && ":/?#[]@!$&'()*+,;=%".contains(c));
        if keep {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out
}

/// The URI for `lookup`'s values; a variable without a value is left out, as RFC 6570
/// says. `Err` for a template with an unclosed `{`.
pub fn expand(template: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::new();
    for (literal, expr) in expressions(template)? {
        out.push_str(literal);
        if expr.is_empty() {
            continue;
        }
        let (op, vars) = parse_expression(expr);
        let (first, sep, named, empty_eq, reserved) = match op {
            None => ("", ",", false, "", false),
            Some('+') => ("", ",", false, "", true),
            Some('#') => ("#", ",", false, "", true),
            Some('.') => (".", ".", false, "", false),
            Some('/') => ("/", "/", false, "", false),
            Some(';') => (";", ";", true, "", false),
            Some('?') => ("?", "&", true, "=", false),
            Some('&') => ("&", "&", true, "=", false),
            Some(_) => unreachable!("operators are matched above"),
        };
        let mut parts = Vec::new();
        for (name, prefix) in vars {
            let Some(mut value) = lookup(&name) else {
                continue;
            };
            if let Some(n) = prefix {
                value = value.chars().take(n).collect();
            }
            let value = encode(&value, reserved);
            parts.push(match (named, value.is_empty()) {
                (true, true) => format!("{name}{empty_eq}"),
                (true, false) => format!("{name}={value}"),
                (false, _) => value,
            });
        }
        if !parts.is_empty() {
            out.push_str(first);
            out.push_str(&parts.join(sep));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |k| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn the_rfc_examples_expand() {
        let vars = [
            ("var", "value"),
            ("hello", "Hello World!"),
            ("path", "/foo/bar"),
            ("x", "1024"),
            ("y", "768"),
            ("empty", ""),
        ];
        let cases = [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("X{#var}", "X#value"),
            ("map?{x,y}", "map?1024,768"),
            ("{+x,hello,y}", "1024,Hello%20World!,768"),
            ("X{.var}", "X.value"),
            ("{/var,x}/here", "/value/1024/here"),
            ("{;x,y,empty}", ";x=1024;y=768;empty"),
            ("{?x,y,empty}", "?x=1024&y=768&empty="),
            ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
            ("{var:3}", "val"),
            ("{?x,undef}", "?x=1024"),
            ("demo://items/{id}", "demo://items/"),
        ];
        for (t, want) in cases {
            assert_eq!(expand(t, with(&vars)).unwrap(), want, "{t}");
        }
        assert!(expand("x://{open", with(&vars)).is_err());
    }

    #[test]
    fn variables_are_named_once_and_query_ones_are_optional() {
        let v = variables("file:///{+root}/{name}{?page,q}{&page}");
        let names: Vec<_> = v.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["root", "name", "page", "q"]);
        assert!(!v[0].optional() && !v[1].optional());
        assert!(v[2].optional() && v[3].optional());
    }
}
