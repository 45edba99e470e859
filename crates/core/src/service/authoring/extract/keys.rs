//! Roles of record keys no lexicon knows (`galdera`, `tresna`, `argumentuak`), told by
//! what the records hold: a file of cases keys them in its writer's language, but its
//! values still name live tools, assign their parameters and quote what users say.

use std::collections::HashSet;

use serde_json::{Map, Value};

use crate::service::authoring::catalog::{Catalog, Via};
use crate::service::authoring::fields::{Role, role_of};
use crate::service::authoring::lexicon::LabelRole;
use crate::service::authoring::reading::{quotes, utterance_like};
use crate::service::authoring::unit::leading_role;

/// The records with their unknown keys renamed to the roles their values show, when the
/// set reads as cases that way: a key whose values name live tools is the tool, one whose
/// objects assign the tools' parameters the arguments, and the key of longest free text
/// the prompt. Keys the lexicon knows keep their roles.
pub fn name_unknown(records: &mut [Map<String, Value>], cat: &Catalog) {
    let renames = renames(records, cat);
    if renames.is_empty() {
        return;
    }
    for r in records.iter_mut() {
        *r = std::mem::take(r)
            .into_iter()
            .map(|(k, v)| match renames.iter().find(|(from, _)| *from == k) {
                Some((_, to)) => ((*to).to_string(), v),
                None => (k, v),
            })
            .collect();
    }
}

/// A table's columns named the same way: a header cell no lexicon knows takes the role
/// its column's cells show (`Câu người dùng` over what users say is the prompt).
pub fn name_columns(header: &mut [String], rows: &[Vec<String>], cat: &Catalog) {
    // (A row struck through whole, `| ~~8~~ | ~~"…"~~ |`, was set aside: it shows nothing
    // of what the columns hold.)
    let struck = |row: &&Vec<String>| {
        row.iter()
            .map(|c| c.trim())
            .filter(|c| !c.is_empty())
            .all(|c| c.starts_with("~~") && c.ends_with("~~"))
    };
    let records: Vec<Map<String, Value>> = rows
        .iter()
        .filter(|row| !struck(row))
        .map(|row| {
            header
                .iter()
                .zip(row)
                .filter(|(h, c)| !h.is_empty() && !c.trim().is_empty())
                .map(|(h, c)| (h.clone(), Value::String(c.trim().to_string())))
                .collect()
        })
        .collect();
    for (from, to) in renames(&records, cat) {
        if let Some(h) = header.iter_mut().find(|h| **h == from) {
            *h = to.to_string();
        }
    }
}

/// The renames [`name_unknown`] makes: each unknown key and the role it takes.
fn renames(records: &[Map<String, Value>], cat: &Catalog) -> Vec<(String, &'static str)> {
    if records.len() < 2 || cat.is_empty() {
        return Vec::new();
    }
    let known =
        |role: fn(&Role) -> bool| records.iter().any(|r| r.keys().any(|k| role(&role_of(k))));
    let has_prompt = known(|r| {
        matches!(
            r,
            Role::Prompt | Role::Prompts | Role::Steps | Role::Turn(_)
        )
    });
    let has_tool = known(|r| matches!(r, Role::Tool | Role::Expected));
    let has_args = known(|r| *r == Role::Args);
    if has_prompt && has_tool && has_args {
        return Vec::new();
    }
    let unknown: Vec<String> = {
        let mut seen = HashSet::new();
        records
            .iter()
            .flat_map(|r| r.keys())
            .filter(|k| role_of(k) == Role::Other && seen.insert(k.as_str()))
            .cloned()
            .collect()
    };
    let names_tools = |v: &Value| match v {
        // (Or a short phrase naming one, `buscar no catálogo (search-items)`.)
        Value::String(s) => {
            cat.resolve(s).is_some()
                || s.split_whitespace().count() <= 6
                    && cat
                        .mentions(s)
                        .iter()
                        .any(|m| m.tool.is_some() && m.via == Via::Exact)
        }
        // (A list of names, or of calls: `[ToolCall("get-sum", {…})]` read as `[["get-sum",
        // {…}]]`, or `{"tool": "get-sum", …}`.)
        Value::Array(a) => {
            let named = |x: &Value| match x {
                Value::String(s) => cat.resolve(s).is_some(),
                Value::Array(c) => c
                    .first()
                    .and_then(Value::as_str)
                    .is_some_and(|s| cat.resolve(s).is_some()),
                Value::Object(o) => ["tool", "name"].iter().any(|k| {
                    o.get(*k)
                        .and_then(Value::as_str)
                        .is_some_and(|s| cat.resolve(s).is_some())
                }),
                _ => false,
            };
            !a.is_empty() && a.iter().all(named)
        }
        _ => false,
    };
    // The tool key: the one naming tools in most records, with at least two such records
    // and in at least half of those that have it. A second such key in records without the
    // first (`tools = [...]` beside `tool = "..."`) is the tool too; one beside it in the
    // same record says something else of the tools (forbidden, optional) and stays unread.
    let mut tools: Vec<String> = Vec::new();
    if !has_tool {
        let mut scored: Vec<(usize, &String)> = unknown
            .iter()
            .filter_map(|k| {
                let all = values_of(records, k).count();
                let hits = values_of(records, k).filter(|v| names_tools(v)).count();
                (hits >= 1 && hits * 2 >= all).then_some((hits, k))
            })
            .collect();
        scored.sort_by_key(|s| std::cmp::Reverse(s.0));
        for (n, (hits, k)) in scored.into_iter().enumerate() {
            // (A second key names tools in every record that has it.)
            if (n == 0 || hits == values_of(records, k).count())
                && records
                    .iter()
                    .all(|r| !(r.contains_key(k) && tools.iter().any(|t| r.contains_key(t))))
            {
                tools.push(k.clone());
            }
        }
        if tools.is_empty()
            || values_of(records, &tools[0])
                .filter(|v| names_tools(v))
                .count()
                < 2
        {
            return Vec::new();
        }
    }
    // The record's tool, under the key found or a key the lexicon knows.
    let tool_of = |r: &Map<String, Value>| {
        r.iter()
            .filter(|(k, _)| tools.contains(k) || role_of(k) == Role::Tool)
            .find_map(|(_, v)| v.as_str().and_then(|s| cat.resolve(s)))
            .map(|(i, _)| i)
    };
    // An object of arguments: mostly parameters of live tools, or the writer's own names
    // for all of its tool's parameters (`{fyrri_tala: 17, seinni_tala: 25}`).
    let assigns = |r: &Map<String, Value>, v: &Value| match v {
        Value::Object(m) if !m.is_empty() => {
            m.keys().filter(|p| cat.is_param(p)).count() * 2 >= m.len()
                || tool_of(r).is_some_and(|i| {
                    let mut m = m.clone();
                    cat.own_names(i, &mut m, true);
                    m.keys().all(|p| cat.has_param(i, p))
                })
        }
        // (Or text that assigns them: `query = «bond», limit = 20`.)
        Value::String(t) => cat.assigns_params(t),
        _ => false,
    };
    let assigned = |k: &String| {
        records
            .iter()
            .filter(|r| r.get(k).is_some_and(|v| assigns(r, v)))
            .count()
    };
    let args = (!has_args)
        .then(|| {
            unknown
                .iter()
                .filter(|k| !tools.contains(k))
                .filter(|k| assigned(k) > 0)
                .max_by_key(|k| assigned(k))
                .cloned()
        })
        .flatten();
    // The prompt: free text of three words or more in most records, no two alike, the
    // longest on average of such keys (a title is shorter than what a user asks).
    let prompt = (!has_prompt)
        .then(|| {
            let words = |v: &Value| v.as_str().map_or(0, |s| s.split_whitespace().count());
            unknown
                .iter()
                .filter(|k| !tools.contains(k) && Some(*k) != args.as_ref())
                .filter_map(|k| {
                    let texts: Vec<&str> =
                        values_of(records, k).filter_map(Value::as_str).collect();
                    let long = texts
                        .iter()
                        .filter(|s| words(&Value::from(**s)) >= 3)
                        .count();
                    let distinct = texts.iter().collect::<HashSet<_>>().len() == texts.len();
                    (long * 2 > records.len() && distinct).then(|| {
                        let mean = texts.iter().map(|s| s.chars().count()).sum::<usize>()
                            / texts.len().max(1);
                        (mean, k)
                    })
                })
                .max_by_key(|(mean, _)| *mean)
                .map(|(_, k)| k.clone())
        })
        .flatten()
        // (Not where another field says what the user says, as a prompt line or a
        // quoted utterance in a description: the prompt is there.)
        .filter(|k| {
            !records.iter().any(|r| {
                // (A quote in an argument or a tool's field is a value.)
                r.iter()
                    .filter(|(rk, _)| {
                        *rk != k
                            && Some(*rk) != args.as_ref()
                            && !tools.contains(rk)
                            && !matches!(role_of(rk), Role::Args | Role::Tool | Role::Expected)
                    })
                    .any(|(_, v)| {
                        v.as_str().is_some_and(|t| {
                            // (`query: renovasjon` assigns a parameter of that name.)
                            t.lines().any(|l| {
                                leading_role(l) == Some(LabelRole::Prompt)
                                    && !l
                                        .split([':', '='])
                                        .next()
                                        .is_some_and(|p| cat.is_param(p.trim()))
                            }) || quotes(t).iter().any(|&(a, b)| {
                                // (A quote assigned to a name, `message = «hi»`, is a value.)
                                let before = t[..a]
                                    .trim_end_matches(|c: char| {
                                        !c.is_alphanumeric() && !matches!(c, '=' | ':')
                                    })
                                    .trim_end();
                                utterance_like(&t[a..b]) && !before.ends_with(['=', ':'])
                            })
                        })
                    })
            })
        });
    if !has_prompt && prompt.is_none() {
        return Vec::new();
    }
    tools
        .into_iter()
        .map(|k| (k, "tool"))
        .chain(args.map(|k| (k, "arguments")))
        .chain(prompt.map(|k| (k, "prompt")))
        .collect()
}

/// The values of key `k` in the records that have it.
fn values_of<'a>(records: &'a [Map<String, Value>], k: &'a str) -> impl Iterator<Item = &'a Value> {
    records.iter().filter_map(move |r| r.get(k))
}
