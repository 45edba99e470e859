//! Arguments a document states once for many cases: "every call uses owner = acme and
//! repo = shop unless a row says otherwise", a `[defaults]` table, `defaults:` in front
//! matter. A line outside every case that assigns parameters of live tools and says (or
//! stands under a line that says) it holds for all of them is a default; it applies to
//! each expected call of a tool taking that parameter which does not set it itself, and
//! only to the tools the line or its parent names, when it names some.

use serde_json::Value;

use crate::service::authoring::catalog::Catalog;
use crate::service::authoring::draft::Draft;
use crate::service::authoring::lexicon::{self, fold};
use crate::service::authoring::lines::LineIndex;

/// Words that say a value holds for all cases (folded; `*` ends a stem).
const CUES: &[&str] = &[
    "default*",
    "unless",
    "every",
    "all calls",
    "all cases",
    "always",
    "standard*",
    "standaard",
    "par defaut",
    "por defecto",
    "por padrao",
    "padrao",
    "predefinit*",
    "domysln*",
    "vychozi",
    "alapertelmez*",
    "mindenhol",
    "kiveve",
    "по умолчанию",
    "за замовчуванням",
    "для всех",
    "для всіх",
    "varsayilan",
    "oletus*",
    "ellei",
    "med mindre",
    "alltid",
    "altid",
    "sauf",
    "salvo",
    "tranne",
    "ausser",
    "wenn nicht",
    "chyba ze",
    "pokud neni",
    "kecuali",
    "ja vien",
    "visos",
    "visi",
    "jei nenurodyta",
    "kui pole",
    "alati",
    "vaikimisi",
    "daca nu",
    "implicit*",
    "osim ako",
    "uvijek",
    "zadan*",
    "مگر",
    "پیش فرض",
    "پیش‌فرض",
    "همه",
    "افتراضي",
    "ברירת מחדל",
    "डिफ़ॉल्ट",
    "기본",
    "預設",
    "预设",
    "默认",
    "デフォルト",
    "既定",
    "mặc định",
    "mac dinh",
    "ค่าเริ่มต้น",
    "rhagosod*",
    "oni nodir",
    "mura",
    "ach amhain",
    "réamhshocr*",
    "reamhshocr*",
];

/// A line of defaults, and the tools it is limited to (none: every tool taking its
/// parameters).
struct Stated {
    line: usize,
    tools: Vec<usize>,
}

/// Fills each case's calls with the defaults the document states outside its cases.
pub fn apply(ix: &LineIndex, drafts: &mut [Draft], cat: &Catalog) {
    if drafts.is_empty() || cat.is_empty() {
        return;
    }
    let covered = super::covered_lines(ix, drafts);
    let cued = |n: usize| lexicon::has_any(&fold(ix.line(n)), CUES);
    let mut found: Vec<Stated> = Vec::new();
    for n in 1..=ix.len() {
        let line = ix.line(n);
        if covered[n] || !names_a_param(line, cat) {
            continue;
        }
        // The line says it, or a lead-in up to three lines above it does (`[defaults]`,
        // `defaults:`, a comment), with no case between.
        let lead = (n.saturating_sub(3).max(1)..n)
            .rev()
            .take_while(|&k| !covered[k])
            .find(|&k| cued(k));
        if !cued(n) && lead.is_none() {
            continue;
        }
        // Limited to the tools the line names, or else its parent line (`search-items:`
        // over `limit: 10`).
        let mut tools: Vec<usize> = cat.mentions(line).iter().filter_map(|m| m.tool).collect();
        if tools.is_empty() {
            let indent = line.len() - line.trim_start().len();
            if let Some(parent) = (n.saturating_sub(3).max(1)..n)
                .rev()
                .map(|k| ix.line(k))
                .find(|l| !l.trim().is_empty() && l.len() - l.trim_start().len() < indent)
            {
                tools = cat.mentions(parent).iter().filter_map(|m| m.tool).collect();
            }
        }
        found.push(Stated { line: n, tools });
    }
    if found.is_empty() {
        return;
    }
    // (Each line's values for a tool are read once, however many cases call it.)
    let mut values: std::collections::HashMap<(usize, usize), serde_json::Map<String, Value>> =
        Default::default();
    for d in drafts.iter_mut().filter(|d| !d.negative) {
        let mut added: Vec<String> = Vec::new();
        for call in &mut d.expected_calls {
            let Some((t, _)) = cat.resolve(&call.tool) else {
                continue;
            };
            for def in found
                .iter()
                .filter(|f| f.tools.is_empty() || f.tools.contains(&t))
            {
                let read = values
                    .entry((def.line, t))
                    .or_insert_with(|| cat.read_args(t, without_comment(ix.line(def.line))));
                for (k, v) in read.clone() {
                    let args = call.args.get_or_insert_with(Default::default);
                    if !args.contains_key(&k) && !matches!(v, Value::Null) {
                        added.push(k.clone());
                        args.insert(k, v);
                    }
                }
            }
        }
        if !added.is_empty() {
            added.dedup();
            d.exact_rule = None;
            d.notes.push(format!(
                "arguments the document sets for every case: {}",
                added.join(", ")
            ));
        }
    }
}

/// Whether a line assigns a parameter of a live tool: the name, then `=` or `:` (or a
/// closing backtick or quote before them).
fn names_a_param(line: &str, cat: &Catalog) -> bool {
    let t = line.trim();
    if t.is_empty() || t.len() > 400 {
        return false;
    }
    let words = t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'));
    let mut rest = t;
    for w in words {
        let Some(at) = rest.find(w) else { break };
        let after = &rest[at + w.len()..];
        rest = after;
        if !w.is_empty()
            && cat.is_param(w)
            && after
                .trim_start_matches(['`', '"', '\'', '*', ' '])
                .starts_with(['=', ':'])
        {
            return true;
        }
    }
    false
}

/// A line without the remark written after its values (`owner: acme   # the sandbox org`,
/// `repo = shop // unless a row says otherwise`): a `#` or `//` after a space, outside
/// quotes.
fn without_comment(line: &str) -> &str {
    let b = line.as_bytes();
    let mut quote: Option<u8> = None;
    for (i, &c) in b.iter().enumerate() {
        match (quote, c) {
            (None, b'"' | b'\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, b'#')
                if i > 0
                    && b[i - 1].is_ascii_whitespace()
                    && b.get(i + 1).is_none_or(|n| n.is_ascii_whitespace()) =>
            {
                return line[..i].trim_end();
            }
            (None, b'/')
                if i > 0 && b[i - 1].is_ascii_whitespace() && b.get(i + 1) == Some(&b'/') =>
            {
                return line[..i].trim_end();
            }
            _ => {}
        }
    }
    line
}
