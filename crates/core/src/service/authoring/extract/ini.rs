//! INI files with one section per case (`[case:sum]`, then `prompt = …`, `expect = …`,
//! `args.a = 1`, `never = crash`), as Python's configparser reads them: `;` and `#`
//! comments, values continued on indented lines, `args.<name>` keys gathered into the
//! arguments, `%%` a percent sign. A section whose keys name no case (`[server]`) is none.

use serde_json::{Map, Value};

use super::json::object_draft;
use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::Draft;
use crate::service::authoring::fields::{Role, names_a_case, role_of};
use crate::service::authoring::lexicon;
use crate::service::authoring::lines::LineIndex;
use crate::service::authoring::lines::split_lines;

fn section(l: &str) -> Option<&str> {
    let t = l.trim_end();
    (t.starts_with('[') && t.ends_with(']') && !t.starts_with("[["))
        .then(|| &t[1..t.len() - 1])
        .filter(|n| !n.is_empty() && !n.contains(['[', ']']))
}

fn key_value(l: &str) -> Option<(&str, &str)> {
    let at = l.find(['=', ':'])?;
    let k = l[..at].trim();
    (!k.is_empty()
        && !l.starts_with([' ', '\t'])
        && k.chars().all(|c| c.is_alphanumeric() || "._-".contains(c)))
    .then(|| (k, l[at + 1..].trim()))
}

/// Whether the document is an INI file: two sections or more, and (comments and blank
/// lines aside) lines of keys and values or their continuations.
pub fn looks_like_ini(head: &str) -> bool {
    let lines: Vec<&str> = split_lines(head)
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with([';', '#']))
        .collect();
    let sections = lines.iter().filter(|l| section(l).is_some()).count();
    let fields = lines
        .iter()
        .filter(|l| section(l).is_none() && (key_value(l).is_some() || l.starts_with([' ', '\t'])))
        .count();
    sections >= 2 && (sections + fields) * 10 >= lines.len() * 9
}

/// One case per section whose keys name one.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let mut out = Vec::new();
    let mut n = 1;
    while n <= ix.len() {
        if section(ix.line(n)).is_none() {
            n += 1;
            continue;
        }
        let start = n;
        let mut m: Map<String, Value> = Map::new();
        let mut args: Map<String, Value> = Map::new();
        let mut last_key: Option<String> = None;
        let mut end = n;
        n += 1;
        while n <= ix.len() && section(ix.line(n)).is_none() {
            let l = ix.line(n).trim_end_matches('\r');
            if l.trim().is_empty() || l.trim_start().starts_with([';', '#']) {
                n += 1;
                continue;
            }
            end = n;
            if l.starts_with([' ', '\t']) {
                // A value continued on an indented line.
                if let Some(k) = &last_key
                    && let Some(Value::String(v)) = m.get_mut(k)
                {
                    if !v.is_empty() {
                        v.push('\n');
                    }
                    v.push_str(&l.trim().replace("%%", "%"));
                }
            } else if let Some((k, v)) = key_value(l) {
                let v = v.replace("%%", "%");
                if let Some(name) = k.strip_prefix("args.").or_else(|| k.strip_prefix("arg.")) {
                    let value = serde_json::from_str(&v).unwrap_or(Value::String(v));
                    args.insert(name.to_string(), value);
                    last_key = None;
                } else {
                    // `expect = -`: the expected tool is none.
                    let key = if role_of(k) == Role::Expected && lexicon::is_none_word(&v) {
                        "tool".to_string()
                    } else {
                        k.to_string()
                    };
                    m.insert(key.clone(), Value::String(v));
                    last_key = Some(key);
                }
            }
            n += 1;
        }
        if !args.is_empty() {
            m.insert("args".into(), Value::Object(args));
        }
        if names_a_case(m.keys().map(String::as_str)) {
            out.push(object_draft(&m, start, end, "INI section", cat));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_key_lines_make_an_ini_file() {
        assert!(looks_like_ini("; c\n[a]\nx = 1\n[b]\ny: 2\n  more\n"));
        assert!(!looks_like_ini("# Title\n\n[link]\ntext here\n[other]\n"));
    }
}
