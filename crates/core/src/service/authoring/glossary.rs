//! Names a document gives the live tools: a glossary of nicknames (`| the parrot | echo |`,
//! `Rechner = get-sum`), read before the cases so a case that writes a nickname names the
//! tool it stands for.
//!
//! A definition puts the nickname first and the live name after it, alone in its cell or
//! after `=`, `→`, `:` or a dash, in a document that speaks of a glossary, aliases or
//! nicknames (or defines with ` = `). One definition alone counts only with its nickname
//! quoted: a line such as `Addition → get-sum` is more often a case than a glossary.

use super::catalog::Catalog;
use super::lexicon::{self, label_role};

/// Words that head a glossary or its nickname column (ASCII ones matched in any case).
const GLOSSARY: &[&str] = &[
    "glossary",
    "glossar",
    "glossaire",
    "glosario",
    "glossario",
    "woordenlijst",
    "ordlista",
    "alias",
    "nickname",
    "spitzname",
    "surnom",
    "apodo",
    "apelido",
    "soprannome",
    "bijnaam",
    "smeknamn",
    "known as",
    "stands for",
    "用語集",
    "別名",
    "あだ名",
    "呼び名",
    "术语",
    "術語",
    "词汇",
    "詞彙",
    "别名",
    "別稱",
    "용어",
    "별명",
    "별칭",
    " = ",
];

/// The nicknames `text` defines, each with the catalog index of its tool.
pub fn aliases(text: &str, cat: &Catalog) -> Vec<(String, usize)> {
    static WORDS: std::sync::LazyLock<aho_corasick::AhoCorasick> = std::sync::LazyLock::new(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(GLOSSARY)
            .expect("glossary words compile")
    });
    // (A document defines names in a glossary it calls one, or on `x = y` lines: one pass
    // over the text tells most documents apart, which define none.)
    if cat.is_empty() || !WORDS.is_match(text) {
        return Vec::new();
    }
    let mut found: Vec<(String, usize, bool)> = Vec::new();
    for line in text.lines() {
        if let Some(def) = definition(line.trim(), cat) {
            found.push(def);
        }
    }
    // A nickname given to two tools names neither.
    let mut out: Vec<(String, usize)> = Vec::new();
    let quoted = found.iter().any(|(_, _, q)| *q);
    if found.len() < 2 && !quoted {
        return out;
    }
    for (term, tool, _) in &found {
        let key = lexicon::fold(term);
        if found
            .iter()
            .any(|(t, other, _)| lexicon::fold(t) == key && other != tool)
        {
            continue;
        }
        if !out.iter().any(|(t, _)| lexicon::fold(t) == key) {
            out.push((term.clone(), *tool));
        }
    }
    out
}

/// `(nickname, tool, quoted)` when the line defines one.
fn definition(line: &str, cat: &Catalog) -> Option<(String, usize, bool)> {
    let (term, rest) = if let Some(row) = line.strip_prefix('|') {
        let mut cells = row.split('|').map(str::trim);
        (cells.next()?, cells.next()?)
    } else {
        let t = line.trim_start_matches(['-', '*', '•', ' ']);
        split_at_separator(t)?
    };
    // The live name, alone or before a remark (`get-sum (adds two numbers)`): most lines
    // name none, and are passed over first.
    let name = rest
        .split([' ', '(', ',', ';', '（'])
        .next()?
        .trim_matches(['`', '*', '"', '\'']);
    let (tool, _) = cat.resolve(name)?;
    let bare = term.trim().trim_matches(['*', '_', '`']).trim();
    let unquoted = bare.trim_matches(['"', '“', '”', '„', '«', '»', '「', '」', '\'']);
    let quoted = unquoted.len() < bare.len();
    let term = unquoted.trim();
    let chars = term.chars().count();
    let letters = term.chars().filter(|c| c.is_alphabetic()).count();
    let cjk = term.chars().any(lexicon::is_cjk);
    let sound = letters >= 2
        && chars <= 40
        && (cjk || chars >= 3)
        && term.split_whitespace().count() <= 4
        && !term.chars().any(|c| c.is_ascii_digit())
        && !term.contains(['"', '“', '「', '(', ')', '[', '=', ':', '#'])
        && label_role(term).is_none()
        && cat.resolve(term).is_none()
        && !cat.is_param(term)
        && !lexicon::is_none_word(term);
    sound.then(|| (term.to_string(), tool, quoted))
}

/// A line parted at its first `=`, arrow, colon, dash or tab: `(before, after)`.
fn split_at_separator(t: &str) -> Option<(&str, &str)> {
    // (Looked for byte by byte: a space is a separator's start only before `=`, `-` or an
    // arrow or dash, whose UTF-8 opens with 0xE2.)
    const SPACED: [&str; 6] = [" = ", " → ", " -> ", " => ", " — ", " – "];
    let b = t.as_bytes();
    (0..b.len()).find_map(|i| {
        let len = match b[i] {
            b'\t' => 1,
            b':' if b.get(i + 1) == Some(&b' ') => 2,
            0xEF if t[i..].starts_with('：') => '：'.len_utf8(),
            b' ' if matches!(b.get(i + 1), Some(b'=' | b'-' | 0xE2)) => SPACED
                .iter()
                .find(|s| b[i..].starts_with(s.as_bytes()))?
                .len(),
            _ => return None,
        };
        Some((&t[..i], &t[i + len..]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service::authoring::catalog::demo_tools;

    #[test]
    fn a_glossary_table_and_defining_lines_name_tools() {
        let cat = Catalog::new(&demo_tools());
        let doc = "| Nickname | Tool |\n|---|---|\n| the adder | get-sum |\n| parrot | `echo` |\n| old parrot | legacy-echo (uppercase) |\n";
        let a = aliases(doc, &cat);
        let names: Vec<(&str, &str)> = a.iter().map(|(t, i)| (t.as_str(), cat.name(*i))).collect();
        assert_eq!(
            names,
            [
                ("the adder", "get-sum"),
                ("parrot", "echo"),
                ("old parrot", "legacy-echo")
            ]
        );
    }

    #[test]
    fn a_single_unquoted_line_is_no_glossary_and_labels_are_no_nicknames() {
        let cat = Catalog::new(&demo_tools());
        assert!(aliases("Addition → get-sum\nExpected tool: echo\n", &cat).is_empty());
        let a = aliases("\"the shouter\" = legacy-echo\n", &cat);
        assert_eq!(a.len(), 1);
        assert_eq!(cat.name(a[0].1), "legacy-echo");
    }
}
