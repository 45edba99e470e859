//! TOML files of cases: each `[[case]]` (any name but a template's, `[[example]]`) table
//! whose keys name a prompt, steps or tool is a record, read like a JSON case object. A table runs from its header to the
//! next header; its span leaves out trailing blank and comment lines.

use serde_json::Value;

use super::json::object_draft;
use super::keys;
use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::Draft;
use crate::service::authoring::fields::names_a_case;
use crate::service::authoring::lexicon;
use crate::service::authoring::lines::LineIndex;

fn is_array_header(t: &str) -> bool {
    t.starts_with("[[") && t.trim_end().ends_with("]]")
}

/// Whether tables of this name show how a case is written (`[[example]]`, `[[template]]`)
/// rather than hold one.
fn is_template(name: &str) -> bool {
    const SAMPLES: &[&str] = &[
        "example",
        "examples",
        "sample",
        "samples",
        "exemple",
        "ejemplo",
        "beispiel",
        "voorbeeld",
        "esempio",
        "exemplo",
        "przyklad",
        "priklad",
        "esimerkki",
        "exempel",
        "eksempel",
        "pelda",
        "пример",
        "приклад",
        "contoh",
        "ornek",
        "例",
        "例子",
        "示例",
        "サンプル",
        "예시",
    ];
    let f = lexicon::fold(name);
    let last = f.rsplit('.').next().unwrap_or(&f);
    lexicon::listed(SAMPLES, last) || lexicon::has_any(last, lexicon::TEMPLATE_WORDS)
}

/// Whether the document is TOML with arrays of tables.
pub fn looks_like_toml(t: &str) -> bool {
    t.contains("[[")
        && t.lines().any(|l| is_array_header(l.trim()))
        && ::toml::from_str::<::toml::Table>(t).is_ok()
}

/// Extracts one case per array-of-tables entry that reads as a case.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let n = ix.len();
    let headers: Vec<usize> = (1..=n)
        .filter(|&k| ix.line(k).trim_start().starts_with('['))
        .collect();
    let mut tables = Vec::new();
    for (i, &h) in headers.iter().enumerate() {
        let header = ix.line(h).trim();
        if !is_array_header(header) || is_template(header.trim_matches(['[', ']', ' '])) {
            continue;
        }
        // (The entry runs on through its sub-tables, `[case.expect]` under `[[case]]`.)
        let name = header.trim_matches(['[', ']', ' ']);
        let sub = |k: usize| {
            ix.line(k)
                .trim()
                .trim_start_matches('[')
                .strip_prefix(name)
                .is_some_and(|r| r.starts_with('.'))
        };
        let next = headers[i + 1..]
            .iter()
            .copied()
            .find(|&k| !sub(k))
            .unwrap_or(n + 1);
        let mut end = next - 1;
        while end > h && {
            let l = ix.line(end).trim();
            l.is_empty() || l.starts_with('#')
        } {
            end -= 1;
        }
        let body: String = (h + 1..=end)
            .map(|k| {
                let l = ix.line(k).trim_end_matches('\r');
                // (A sub-table's header as the entry's own: `[case.expect]` → `[expect]`.)
                if sub(k) {
                    l.replacen(&format!("{name}."), "", 1)
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n");
        let Ok(table) = ::toml::from_str::<::toml::Table>(&body) else {
            continue;
        };
        let Ok(Value::Object(m)) = serde_json::to_value(&table) else {
            continue;
        };
        tables.push((m, h, end));
    }
    let mut records: Vec<_> = tables.iter_mut().map(|(m, ..)| std::mem::take(m)).collect();
    keys::name_unknown(&mut records, cat);
    records
        .into_iter()
        .zip(tables)
        .filter(|(m, _)| names_a_case(m.keys().map(String::as_str)))
        .map(|(m, (_, h, end))| object_draft(&m, h, end, "TOML table", cat))
        .collect()
}
