//! A word processor's page furniture, as it comes along when a document is pasted as plain
//! text: page numbers (`Page 2 of 3`, `第 2 页 共 3 页`), the running header or footer
//! repeated at each page break, and figure captions (`Figure 2  Expected output`, `图 1`).
//! None of it is part of a case, and left in, it stretches the case above a page break to
//! the next page's header. Each such line is blanked, line for line.

use std::borrow::Cow;
use std::sync::LazyLock;

use crate::service::authoring::lines::split_lines;
use regex::Regex;

/// A line that is a page number and nothing else.
static PAGE_NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?mi)^[ \t]*(?:(?:page|seite|página|pagina|pág\.|p\.|страница|strona|sida|side|sivu|strana|stránka|sayfa|halaman|trang|σελίδα|صفحة|صفحه|עמוד|หน้า|पृष्ठ)[ \t]*\d+[ \t]*(?:of|von|de|di|van|sur|из|z|av|af|din|dari|από|من|از|מתוך|จาก|में से|/)[ \t]*\d+|第[ \t]*\d+[ \t]*[页頁](?:[ \t]*[,，]?[ \t]*共[ \t]*\d+[ \t]*[页頁])?|\d+[ \t]*/[ \t]*\d+[ \t]*(?:ページ|页|頁|페이지)|-[ \t]*\d+[ \t]*-)[ \t]*\r?$",
    )
    .expect("page number pattern compiles")
});

/// A figure's caption: its word and number opening a line of its own.
static CAPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?i:figure|fig\.|abbildung|abb\.|figura|afbeelding|рисунок|рис\.|rysunek|图|圖|図|그림)[ \t]*\d+(?:[.:：\s]|$)",
    )
    .expect("caption pattern compiles")
});

/// The page with its page numbers, running headers and figure captions blanked, or the
/// page itself when it has no page numbers.
pub fn without_furniture(t: &str) -> Cow<'_, str> {
    // (A page number is a short line ending in a figure, `页` or `-`: only those are
    // matched against the pattern.)
    let page_number = |l: &str| {
        let e = l.trim_end();
        e.trim_start().len() <= 60
            && e.ends_with(|c: char| c.is_numeric() || matches!(c, '页' | '頁' | 'ジ' | '지' | '-'))
            && PAGE_NUMBER.is_match(l)
    };
    let numbers: Vec<usize> = split_lines(t)
        .enumerate()
        .filter(|(_, l)| page_number(l))
        .map(|(k, _)| k)
        .collect();
    if numbers.len() < 2 {
        return Cow::Borrowed(t);
    }
    let lines: Vec<&str> = split_lines(t).collect();
    let mut blank = vec![false; lines.len()];
    for &k in &numbers {
        blank[k] = true;
    }
    // A running header or footer: a line next to a page number (blank lines aside) that
    // the document repeats.
    let count = |s: &str| lines.iter().filter(|l| l.trim() == s).count();
    for &k in &numbers {
        let near = (k.saturating_sub(3)..(k + 4).min(lines.len()))
            .filter(|&j| j != k && !lines[j].trim().is_empty());
        for j in near {
            let s = lines[j].trim();
            if count(s) >= 2 {
                for (b, l) in blank.iter_mut().zip(&lines) {
                    if l.trim() == s {
                        *b = true;
                    }
                }
            }
        }
    }
    // Captions standing alone between blank lines.
    for k in 0..lines.len() {
        let alone = |j: Option<&&str>| j.is_none_or(|l| l.trim().is_empty());
        if CAPTION.is_match(lines[k].trim_start())
            && alone(k.checked_sub(1).and_then(|p| lines.get(p)))
            && alone(lines.get(k + 1))
        {
            blank[k] = true;
        }
    }
    let out: Vec<String> = lines
        .iter()
        .zip(&blank)
        .map(|(l, b)| if *b { String::new() } else { l.to_string() })
        .collect();
    Cow::Owned(super::rejoin(t, &joined_hyphenation(out, &blank)))
}

/// Words a page's hard wrap hyphenated (`om-` / `ständigheter anropas`), whole again: the
/// word's end moves up to the line its start ends, both lines kept.
fn joined_hyphenation(mut lines: Vec<String>, furniture: &[bool]) -> Vec<String> {
    for k in 0..lines.len() {
        let broken = {
            let l = lines[k].trim_end();
            l.len() >= 40
                && l.strip_suffix('-')
                    .and_then(|w| w.chars().next_back())
                    .is_some_and(char::is_lowercase)
        };
        if !broken {
            continue;
        }
        // (The word goes on past the page's furniture and the blank lines round it.)
        let Some(next) =
            (k + 1..lines.len()).find(|&j| !furniture[j] && !lines[j].trim().is_empty())
        else {
            continue;
        };
        let rest = lines[next].trim_start();
        if !rest.starts_with(char::is_lowercase) {
            continue;
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let tail = rest[..end].to_string();
        let left = rest[end..].trim_start().to_string();
        let head = lines[k].trim_end().trim_end_matches('-').to_string();
        lines[k] = head + &tail;
        lines[next] = left;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_numbers_running_headers_and_captions_are_blanked() {
        let doc = "ACME eval plan v2\n\n1. Sum\nPrompt: add 2 and 3\n\nFigure 1  the expected card\n\n\t\tPage 1 of 2\nACME eval plan v2\n\nExpected: get-sum\n\n\t\tPage 2 of 2\n";
        let out = without_furniture(doc);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), doc.lines().count());
        assert_eq!(lines[0], "");
        assert_eq!(lines[3], "Prompt: add 2 and 3");
        assert_eq!(lines[5], "");
        assert_eq!(lines[7], "");
        assert_eq!(lines[8], "");
        assert_eq!(lines[10], "Expected: get-sum");
        let zh = "第 1 页 共 2 页\n用例\n第 2 页 共 2 页\n";
        assert_eq!(without_furniture(zh).lines().nth(1), Some("用例"));
        assert_eq!(without_furniture(zh).lines().next(), Some(""));
    }

    #[test]
    fn a_word_hyphenated_across_a_page_break_is_whole_again() {
        let doc = "Utfall: verktyget delete-item får under inga om-\n\n\t\tSida 1 av 2\nPlan\nständigheter anropas här.\n\t\tSida 2 av 2\nPlan\n";
        let out = without_furniture(doc);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), doc.lines().count());
        assert_eq!(
            lines[0],
            "Utfall: verktyget delete-item får under inga omständigheter"
        );
        assert_eq!(lines[4], "anropas här.");
    }

    #[test]
    fn a_page_without_page_numbers_keeps_its_captions() {
        let doc = "Figure 1 shows the flow.\n\nPrompt: hi\n";
        assert!(matches!(without_furniture(doc), Cow::Borrowed(_)));
    }
}
