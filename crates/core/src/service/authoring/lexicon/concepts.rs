//! Words for what tools do, in the languages people write plans in, mapped onto the English
//! words of tool descriptions: a plan that says `두 수를 더해 합을 돌려주는 도구` or
//! `l'outil qui supprime un article` names the tool whose description says "add … sum" or
//! "deletes an item". The table is `concepts.txt`: one English word a line, then what other
//! languages write for it, folded (`*` ends a stem; CJK words match inside a run of text;
//! `=old` takes in every word of another line).

use std::sync::LazyLock;

use super::WordSet;

struct Concepts {
    words: WordSet,
    /// Per pattern of `words`: the English word it stands for.
    english: Vec<&'static str>,
}

static CONCEPTS: LazyLock<Concepts> = LazyLock::new(|| {
    let table: Vec<(&'static str, Vec<&'static str>)> = include_str!("concepts.txt")
        .lines()
        .filter_map(|l| l.split_once(": "))
        .map(|(k, v)| {
            (
                k,
                v.split(", ")
                    .map(str::trim)
                    .filter(|v| !v.is_empty())
                    .collect(),
            )
        })
        .collect();
    let mut patterns: Vec<&'static str> = Vec::new();
    let mut english = Vec::new();
    for (key, values) in &table {
        for v in values {
            // `=old`: every word written for "old" says this one too.
            let words = match v.strip_prefix('=') {
                Some(other) => table
                    .iter()
                    .find(|(k, _)| *k == other)
                    .map_or(&[][..], |(_, w)| &w[..]),
                None => std::slice::from_ref(v),
            };
            for w in words.iter().filter(|w| !w.starts_with('=')) {
                patterns.push(w);
                english.push(*key);
            }
        }
    }
    Concepts {
        words: WordSet::new(&patterns),
        english,
    }
});

/// The English words of tool descriptions that folded `text` says in other words, once
/// each, in order of first appearance.
pub fn english_words(folded: &str) -> Vec<&'static str> {
    let c = &*CONCEPTS;
    let mut out: Vec<&'static str> = Vec::new();
    let found = c.words.find(folded);
    // (A word inside a longer one found is no word of its own: `อากาศ`, air, in
    // `สภาพอากาศ`, weather.)
    let inside = |&(at, len, _): &(usize, usize, usize)| {
        found
            .iter()
            .any(|&(a, l, _)| l > len && a <= at && at + len <= a + l)
    };
    for &(_, _, i) in found.iter().filter(|m| !inside(m)) {
        let w = c.english[i];
        if !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptions_in_other_languages_map_onto_english_words() {
        let ko = english_words("두 수를 더해 합을 돌려주는");
        assert!(
            ko.contains(&"add") && ko.contains(&"sum") && ko.contains(&"return"),
            "{ko:?}"
        );
        let fr = english_words(&crate::service::authoring::lexicon::fold(
            "qui supprime un article",
        ));
        assert!(fr.contains(&"delete"), "{fr:?}");
        assert!(english_words("the tool that adds").is_empty());
        // The languages added later: Bulgarian, Kazakh, Welsh, Maltese, Tajik, Sinhala.
        for phrase in [
            "инструментът, който изтрива елемент",
            "элементті жоятын құрал",
            "offeryn sy'n dileu eitem",
            "l-għodda li tħassar oġġett",
            "абзоре, ки элементро ҳазф мекунад",
        ] {
            let words = english_words(&crate::service::authoring::lexicon::fold(phrase));
            assert!(
                words.contains(&"delete") && words.contains(&"item"),
                "{phrase}: {words:?}"
            );
        }
        let si = english_words("ගොනුව කියවන්න");
        assert!(si.contains(&"file") && si.contains(&"read"), "{si:?}");
    }
}
