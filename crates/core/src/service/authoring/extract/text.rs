//! Documents written as text (Markdown, wiki markup, plain notes, e-mails, chat exports):
//! cut into candidate units by structure, each read by [`read_unit`].
//!
//! Structure: headings (`#`, setext underlines, Confluence `h2.`, a line that is all
//! bold, a lead-in line ending with a colon above a list) make sections. A section with
//! exactly one prompt label (`Prompt:`, `Eingabe:`, `入力：`…) is one unit; otherwise its
//! table rows (under a header with a prompt column), list items (with their continuation
//! and nested lines), and paragraphs (a chat message is one: its name-and-time line and
//! its text) are units. Sections whose heading says they hold no case (set-up,
//! environment, exit criteria, dropped ideas, action items, change history…) are skipped.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use super::super::catalog::Catalog;
use super::super::draft::{self, Draft};
use super::super::fields::{Role, role_of};
use super::super::lexicon::{self, LabelRole, label_role};
use super::super::lines::{LineIndex, has};
use super::super::reading;
use super::super::unit::{
    LabelParts, Segment, UnitInfo, assistant_line, label_parts, leading_label, leading_role,
    read_unit, said_title, segments_of, segments_of_known,
};
use crate::service::authoring::lines::split_lines;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Blank,
    /// A heading of this level (1–6; 7 a bold line; 8 a lead-in line).
    Heading(u8),
    /// The underline of a setext heading, or a rule.
    Rule,
    Item,
    Table,
    Code,
    Text,
}

struct Ln<'a> {
    n: usize,
    text: &'a str,
    kind: Kind,
    indent: usize,
    /// The role of the line's leading label, read once (sections ask it many times).
    label: Option<LabelRole>,
    /// The line's label and value, when they were read (a section's reader splits its
    /// lines at them again).
    parts: Option<Option<LabelParts<'a>>>,
    /// An item led by its case's name (`- Pergunta geral: "…" → …`), not by a field.
    title_head: bool,
    /// An item led by a name that is no label, with a quote or an arrow after it: a
    /// list of such items names its cases (read once per line, in parallel).
    says: bool,
    /// A heading's title, and whether it names a part that holds no case (worked out
    /// once for every heading, in parallel: the walk asks them of each it passes).
    title: String,
    excludes: bool,
}

fn indent_of(s: &str) -> usize {
    s.chars()
        .take_while(|c| c.is_whitespace())
        .map(|c| if c == '\t' { 4 } else { 1 })
        .sum()
}

/// The marker of a list item, if the line starts one.
pub fn item_marker(t: &str) -> Option<usize> {
    let b = t.as_bytes();
    if b.is_empty() {
        return None;
    }
    // (`○`, `●`, `◆`: the bullets of Korean and Japanese office documents.)
    for m in [
        "- ", "* ", "+ ", "• ", "▪ ", "◦ ", "‣ ", "○ ", "● ", "◯ ", "◆ ", "◇ ", "▶ ", "► ", "※ ",
    ] {
        if t.starts_with(m) {
            return Some(m.len());
        }
    }
    // `1.`, `1)`, `(1)`, `CA1.`, `TC-01:`
    let digits_at = t.find(|c: char| c.is_ascii_digit())?;
    let prefix = &t[..digits_at];
    let prefix_ok = prefix.is_empty()
        || prefix == "("
        || (prefix.len() <= 5
            && prefix
                .trim_end_matches('-')
                .chars()
                .all(|c| c.is_ascii_uppercase())
            && !prefix.is_empty());
    if !prefix_ok {
        return None;
    }
    let digits = t[digits_at..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .count();
    if digits == 0 || digits > 4 {
        return None;
    }
    let after = &t[digits_at + digits..];
    for m in [". ", ") ", ".\t", ")\t"] {
        if after.starts_with(m) {
            return Some(digits_at + digits + m.len());
        }
    }
    // `1）`, `2、`, `3．`: full-width marks need no space after them.
    if prefix.is_empty()
        && let Some(m) = ['）', '、', '．']
            .into_iter()
            .find(|m| after.starts_with(*m))
    {
        return Some(digits_at + digits + m.len_utf8());
    }
    None
}

/// A list whose items lead with names (`- Soma: …`, `- **加法**：…`): a name that only
/// holds a label word (`Pergunta geral`, `常识问题`) names its case too, and is no field.
fn title_heads(lines: &mut [Ln]) {
    let mut i = 0;
    // (One list of items for all the lists, cleared for each.)
    let mut items = Vec::new();
    while i < lines.len() {
        if lines[i].kind != Kind::Item {
            i += 1;
            continue;
        }
        let indent = lines[i].indent;
        // The list's items at this depth (deeper lines and blank lines between them).
        items.clear();
        items.push(i);
        let mut k = i + 1;
        while k < lines.len() {
            let l = &lines[k];
            if l.kind == Kind::Item && l.indent == indent {
                items.push(k);
            } else if !(l.kind == Kind::Blank || l.indent > indent) {
                break;
            }
            k += 1;
        }
        let head = |k: usize| {
            let text = lines[k].text;
            item_head(text).map(|(h, _)| (k, label_role(h).map(|_| h)))
        };
        // Names of cases, not keys of fields: at least two of them lead to what a user
        // says (a quote) or what is expected (an arrow) (each item's `says`).
        let said = items.len() >= 3 && items.iter().filter(|&&k| lines[k].says).count() >= 2;
        let heads: Vec<(usize, Option<&str>)> = if said {
            items.iter().filter_map(|&k| head(k)).collect()
        } else {
            Vec::new()
        };
        let unnamed = heads.iter().filter(|(_, r)| r.is_none()).count();
        if said && unnamed * 2 >= heads.len() {
            // (Only a name that reads as a label needs taking apart; a speaker's name or
            // a plain one leaves the item as it is.)
            for (k, head) in heads {
                if head.is_some_and(|h| !lexicon::is_listed_label(h)) {
                    lines[k].label = None;
                    lines[k].title_head = true;
                }
            }
        }
        i = k.max(i + 1);
    }
}

/// The short name before an item's first colon and the text after it (`- Soma: …` →
/// `Soma`, `…`), when there is one.
fn item_head(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start();
    let t = t[item_marker(t)?..].trim_start();
    let t = crate::service::authoring::unit::strip_checkbox(t);
    // (A struck item names nothing: it was dropped.)
    if t.starts_with("~~") {
        return None;
    }
    // `**多轮：删除商品**`: a bold name may hold the colon itself.
    let bold = t
        .strip_prefix("**")
        .and_then(|r| lexicon::find_str(r, "**").map(|e| &r[..e]))
        .filter(|b| b.ends_with([':', '：']) || t[b.len() + 4..].starts_with([':', '：']));
    let (head, rest) = match bold {
        Some(b) => (
            b.trim_end_matches([':', '：']).trim(),
            t[b.len() + 4..].trim_start_matches([':', '：']),
        ),
        None => {
            let (h, r) = t.split_once([':', '：'])?;
            (h.trim().trim_matches(['*', '_']).trim(), r)
        }
    };
    (!head.is_empty()
        && head.chars().count() <= 40
        && head.split_whitespace().count() <= 5
        && !head.contains(['"', '“', '「', '«', '`', '→']))
    .then_some((head, rest.trim_start_matches(['*', '_']).trim_start()))
}

/// The kind of a line outside a fenced block, by its trimmed text and its indent.
fn line_kind(t: &str, indent: usize) -> Kind {
    if t.is_empty() || reactions(t) {
        Kind::Blank
    } else if let Some(level) = atx_level(t) {
        Kind::Heading(level)
    } else if t.starts_with(['□', '■']) && t[3..].starts_with(' ') && indent == 0 {
        // `□ 검증 항목`: an office document's section mark.
        Kind::Heading(2)
    } else if bare_tag(t) && !t.contains("details") && !t.contains("summary") {
        // `<aside>`, `</div>` alone on a line: markup round the text, no part of it.
        Kind::Blank
    } else if t.starts_with("<details") || t.starts_with("</details") {
        // A collapsible block (`<details><summary>E3 …</summary> … </details>`) is a
        // section of its own: its summary the heading, its close the end.
        Kind::Rule
    } else if is_rule(t) {
        Kind::Rule
    } else if t.starts_with('|') || grid_border(t) {
        Kind::Table
    } else if t.starts_with("<!--") || t.starts_with("{toc") {
        Kind::Code
    } else if item_marker(t).is_some() {
        Kind::Item
    } else if bracket_title(t)
        || bold_line(t)
        // (`**공통 금지: `crash`**` states a rule, it heads nothing.)
        && !leading_label(t).is_some_and(|(l, r)| {
            !r.trim_matches(['*', ' ']).is_empty()
                && label_role(&l) == Some(LabelRole::Forbidden)
        })
    {
        Kind::Heading(7)
    } else {
        Kind::Text
    }
}

/// Each line's indent, the kind of each line outside a fenced block, and the role of each
/// text, item and bold line's leading label (each line on its own, so a long document's
/// are read in parallel).
fn kinds_and_labels(lines: &mut [Ln]) {
    super::par_each(lines, 500, |l| {
        l.indent = indent_of(l.text);
        if l.kind != Kind::Code {
            l.kind = line_kind(l.text.trim(), l.indent);
        }
        if matches!(l.kind, Kind::Text | Kind::Item | Kind::Heading(7)) {
            let parts = label_parts(l.text);
            l.label = parts.and_then(|(head, _, _)| label_role(head));
            l.parts = Some(parts);
        }
        if l.kind == Kind::Item {
            let t = l.text;
            // (Only a line that can hold either has its head read.)
            let may_say =
                t.contains(['"', '“', '„', '«', '「', '『']) || lexicon::may_hold_arrow(t);
            l.says = may_say
                && item_head(t).is_some_and(|(h, _)| label_role(h).is_none())
                && (!reading::quotes(t).is_empty()
                    || ["→", "->", "=>"].iter().any(|a| t.contains(a)));
        }
    });
}

/// Whether a line is one HTML tag and nothing else (`<aside>`, `</div>`, `<br/>`).
fn bare_tag(t: &str) -> bool {
    let Some(inner) = t.strip_prefix('<').and_then(|r| r.strip_suffix('>')) else {
        return false;
    };
    let name = inner.trim_start_matches('/');
    name.starts_with(|c: char| c.is_ascii_alphabetic())
        && !inner.contains(['<', '>'])
        && name
            .split([' ', '/'])
            .next()
            .is_some_and(|n| n.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'))
}

fn classify<'a>(ix: &LineIndex<'a>) -> Vec<Ln<'a>> {
    let mut out: Vec<Ln> = Vec::with_capacity(ix.len());
    let mut fence = false;
    for n in 1..=ix.len() {
        let raw = ix.line(n);
        let text = raw.trim_end_matches('\r');
        let t = text.trim();
        // (Fenced lines are told here, in order; every other line's kind is its own, read
        // with its label in `kinds_and_labels`.)
        let code = if t.starts_with("```") || t.starts_with("~~~") {
            fence = !fence;
            true
        } else {
            fence
        };
        out.push(Ln {
            n,
            text,
            kind: if code { Kind::Code } else { Kind::Text },
            indent: 0,
            label: None,
            parts: None,
            title_head: false,
            says: false,
            title: String::new(),
            excludes: false,
        });
    }
    kinds_and_labels(&mut out);
    // A quotation a hard wrap broke before a number (`…: 4, 7, 2, 11,` / `5. Ge mig…"`):
    // the line closing it goes on with the text, it is no numbered item.
    for i in 1..out.len() {
        let open = |t: &str| {
            t.matches('"').count() % 2 == 1 || t.matches('“').count() > t.matches('”').count()
        };
        if out[i].kind == Kind::Item
            && matches!(out[i - 1].kind, Kind::Text | Kind::Item)
            && open(out[i - 1].text)
            && out[i].text.matches('"').count() % 2 == 1
        {
            out[i].kind = Kind::Text;
        }
    }
    title_heads(&mut out);
    // Setext headings: a text line above `===` or `---` that stands alone (a field line,
    // or the last line of a block, above a `----` separator is not a title).
    for i in 1..out.len() {
        let alone = i < 2 || !matches!(out[i - 2].kind, Kind::Text | Kind::Item);
        if out[i].kind == Kind::Rule
            && out[i - 1].kind == Kind::Text
            && alone
            && out[i - 1].label.is_none()
        {
            let t = out[i].text.trim();
            if t.starts_with('=') || t.starts_with('-') {
                out[i - 1].kind = Kind::Heading(if t.starts_with('=') { 1 } else { 2 });
            }
        }
    }
    mail_apart(&mut out);
    // A numbered outline (`3.1. Sum`, `2.4 Errors`, as word processors export it): once
    // the document numbers its headings in levels, each numbered title line is a heading.
    let outline: Vec<(usize, u8)> = out
        .iter()
        .enumerate()
        .filter(|(_, l)| matches!(l.kind, Kind::Text | Kind::Item) && l.indent == 0)
        .filter_map(|(i, l)| outline_level(l.text).map(|n| (i, n)))
        .collect();
    if outline.iter().filter(|(_, n)| *n > 1).count() >= 2 {
        for (i, n) in outline {
            if out[i].label.is_none() {
                out[i].kind = Kind::Heading(n.min(6));
            }
        }
    }
    // Chinese outline numbering (`一、测试目的`, `（二）多轮对话`), once a document has two.
    let han: Vec<(usize, u8)> = out
        .iter()
        .enumerate()
        .filter(|(_, l)| l.kind == Kind::Text && l.indent == 0)
        .filter_map(|(i, l)| han_outline_level(l.text).map(|n| (i, n)))
        .collect();
    if han.len() >= 2 {
        for (i, n) in han {
            out[i].kind = Kind::Heading(n);
        }
    }
    // Lead-in lines: a short line ending with a colon right above a list.
    for i in 0..out.len() {
        if out[i].kind != Kind::Text {
            continue;
        }
        let t = out[i].text.trim();
        if !(t.ends_with(':') || t.ends_with('：')) || t.chars().count() > 120 {
            continue;
        }
        let next = out[i + 1..].iter().find(|l| l.kind != Kind::Blank);
        // (Or above a block of fields it sets apart: `Template (copy, do not run):`.)
        let fields_set_apart = next.is_some_and(|l| l.kind == Kind::Text && l.label.is_some())
            && lexicon::heading_excludes(t);
        // `Expected:` alone on a line is a field, not a heading.
        if !fields_set_apart
            && !t.ends_with("::")
            && leading_label(t).is_some_and(|(_, rest)| rest.is_empty())
        {
            continue;
        }
        if (next.is_some_and(|l| l.kind == Kind::Item) || fields_set_apart)
            && (i == 0
                || matches!(out[i - 1].kind, Kind::Blank | Kind::Heading(_))
                || t.contains("."))
        {
            out[i].kind = Kind::Heading(8);
        }
    }
    heading_titles(&mut out);
    out
}

/// Each heading's title and whether it heads what holds no case.
fn heading_titles(lines: &mut [Ln]) {
    super::par_each(lines, 500, |l| {
        if matches!(l.kind, Kind::Heading(_)) {
            l.title = heading_text(l.text);
            l.excludes = lexicon::heading_excludes(&l.title);
        }
    });
}

/// A chat's reactions pasted under a message (`:+1: 2`, `:white_check_mark: 1 :eyes: 3`):
/// no part of what was said.
fn reactions(t: &str) -> bool {
    let mut any = false;
    for w in t.split_whitespace() {
        let emoji = w.len() > 2
            && w.starts_with(':')
            && w.ends_with(':')
            && w[1..w.len() - 1]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'-'));
        if emoji {
            any = true;
        } else if !w.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    }
    any
}

/// E-mail kept apart from what is read (as blank lines, which part paragraphs): a
/// message's header block (`From:`, `Subject:`,
/// `Message-ID:`…, an mbox `From ` line), and the quoted text of an earlier message under
/// its attribution (`On Mon, … <a@b.c> wrote:`), which repeats what was already read.
fn mail_apart(lines: &mut [Ln]) {
    const HEADERS: &[&str] = &[
        "from",
        "to",
        "cc",
        "bcc",
        "subject",
        "date",
        "message-id",
        "in-reply-to",
        "references",
        "mime-version",
        "content-type",
        "content-transfer-encoding",
        "return-path",
        "reply-to",
        "sender",
        "received",
        "user-agent",
        "thread-topic",
        "thread-index",
        "x-mailer",
        "importance",
        "delivered-to",
        // Outlook's, in the languages it writes them.
        "sent",
        "von",
        "gesendet",
        "an",
        "betreff",
        "datum",
        "de",
        "envoyé",
        "envoye",
        "à",
        "objet",
        "enviado",
        "enviada em",
        "para",
        "asunto",
        "assunto",
        "da",
        "inviato",
        "a",
        "oggetto",
        "van",
        "verzonden",
        "aan",
        "onderwerp",
        "差出人",
        "送信日時",
        "宛先",
        "件名",
        "发件人",
        "发送时间",
        "收件人",
        "主题",
        "보낸 사람",
        "받는 사람",
        "날짜",
        "제목",
    ];
    let header = |t: &str| {
        t.starts_with(char::is_alphabetic)
            && t.split_once([':', '：']).is_some_and(|(name, _)| {
                name.len() <= 25
                    && (HEADERS
                        .iter()
                        .any(|h| h.eq_ignore_ascii_case(name) || name.to_lowercase() == *h)
                        || name.get(..2).is_some_and(|p| p.eq_ignore_ascii_case("x-")))
            })
    };
    let mut k = 0;
    while k < lines.len() {
        let t = lines[k].text;
        // A block of three or more header lines (an mbox `From addr date` line may open it).
        let mut e = k + usize::from(t.starts_with("From ") && t.contains('@'));
        while e < lines.len()
            && (header(lines[e].text)
                || (e > k
                    && lines[e].text.starts_with([' ', '\t'])
                    && !lines[e].text.trim().is_empty()
                    && header(lines[e - 1].text)))
        {
            e += 1;
        }
        if e - k >= 3 {
            // (An older message quoted under its headers, `> …` after a blank line, is
            // left out with them: it repeats what was discussed.)
            let quote = (e..lines.len()).find(|&j| !lines[j].text.trim().is_empty());
            if k > 0 && quote.is_some_and(|j| lines[j].text.starts_with('>')) {
                while e < lines.len()
                    && (lines[e].text.starts_with('>') || lines[e].text.trim().is_empty())
                {
                    e += 1;
                }
            }
            for l in &mut lines[k..e] {
                l.kind = Kind::Blank;
            }
            k = e;
            continue;
        }
        // An attribution, then the quoted message.
        let attribution = t.trim_end().ends_with([':', '：'])
            && (t.contains('@') || t.to_ascii_lowercase().contains("wrote"));
        // (Gmail leaves a blank line between the two.)
        let quote = (k + 1..lines.len()).find(|&j| !lines[j].text.trim().is_empty());
        if attribution && quote.is_some_and(|j| lines[j].text.starts_with('>')) {
            let mut e = k + 1;
            while e < lines.len()
                && (lines[e].text.starts_with('>')
                    || lines[e].text.trim().is_empty()
                        && (e < quote.unwrap_or(0)
                            || lines.get(e + 1).is_some_and(|l| l.text.starts_with('>'))))
            {
                e += 1;
            }
            for l in &mut lines[k..e] {
                l.kind = Kind::Blank;
            }
            k = e;
            continue;
        }
        k += 1;
    }
}

/// The depth of an outline number before a short title (`3.1.` is 2), when the line is
/// one: a title, not a sentence.
fn outline_level(t: &str) -> Option<u8> {
    let t = t.trim_start_matches('\u{feff}');
    let num_len = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let num = &t[..num_len];
    let title = t[num_len..].strip_prefix([' ', '\t'])?.trim();
    let parts: Vec<&str> = num.trim_end_matches('.').split('.').collect();
    let ok = !num.starts_with('.')
        && !num.contains("..")
        && parts.len() <= 6
        && parts.iter().all(|p| (1..=3).contains(&p.len()));
    let sentence = title.ends_with(['.', '!', '?', ':', ';', ',', '。'])
        || title.chars().count() > 80
        || title.split_whitespace().count() > 12;
    (ok && !title.is_empty() && !sentence).then_some(parts.len() as u8)
}

/// The level of a title numbered in Han numerals: `四、暂不纳入` is 1, `（一）加法` is 2.
fn han_outline_level(t: &str) -> Option<u8> {
    const NUMERALS: &str = "一二三四五六七八九十";
    let t = t.trim();
    let (level, rest) = if let Some(r) = t.strip_prefix(['（', '(']) {
        let n = r.find(|c: char| !NUMERALS.contains(c))?;
        (2, r[n..].strip_prefix(['）', ')'])?)
    } else {
        let n = t.find(|c: char| !NUMERALS.contains(c))?;
        (1, t[n..].strip_prefix('、').filter(|_| n > 0)?)
    };
    let title = rest.trim();
    (!title.is_empty()
        && title.chars().count() <= 30
        && !title.ends_with(['。', '：', ':', '？', '！', '.']))
    .then_some(level)
}

fn atx_level(t: &str) -> Option<u8> {
    if t.starts_with("<summary") {
        return Some(4);
    }
    // Markdown `## Title`, AsciiDoc `== Title`.
    for mark in ['#', '='] {
        let n = t.chars().take_while(|c| *c == mark).count();
        if (1..=6).contains(&n) && t[n..].starts_with(' ') && !t[n..].trim().is_empty() {
            return Some(n as u8);
        }
    }
    // Confluence `h2. Title`.
    let b = t.as_bytes();
    if b.len() > 3 && b[0] == b'h' && (b'1'..=b'6').contains(&b[1]) && b[2] == b'.' && b[3] == b' '
    {
        return Some(b[1] - b'0');
    }
    None
}

/// A line that is only a title in lenticular brackets (`【说明】`, `【评审意见】`), not the
/// label of a case's field over its value (`【输入】`).
fn bracket_title(t: &str) -> bool {
    t.strip_prefix('【')
        .and_then(|r| r.strip_suffix('】'))
        .is_some_and(|inner| {
            !inner.contains(['【', '】'])
                && !matches!(
                    label_role(inner),
                    Some(
                        LabelRole::Prompt
                            | LabelRole::Expected
                            | LabelRole::Tool
                            | LabelRole::Args
                            | LabelRole::Forbidden
                            | LabelRole::Steps
                            | LabelRole::Contains
                    )
                )
        })
}

/// A line of one rule character (`---`, `***`, `━━━`, `═══`), spaces allowed.
fn is_rule(t: &str) -> bool {
    let mut marks = t.chars().filter(|c| *c != ' ');
    let Some(first) = marks.next() else {
        return false;
    };
    "-=*_━─═—".contains(first)
        && t.chars().filter(|c| *c == first).count() >= 3
        && marks.all(|c| c == first)
}

fn bold_line(t: &str) -> bool {
    let inner = t
        .strip_prefix("**")
        .and_then(|x| x.strip_suffix("**"))
        .or_else(|| t.strip_prefix("__").and_then(|x| x.strip_suffix("__")));
    inner.is_some_and(|x| !x.is_empty() && !x.contains("**") && x.chars().count() <= 120)
}

fn heading_text(t: &str) -> String {
    let owned = super::markup::blank_tags(t);
    let t = owned.trim();
    let t = t.trim_start_matches(['#', '□', '■']).trim();
    let t = if atx_level(t).is_none()
        && t.len() > 3
        && t.as_bytes()[0] == b'h'
        && t.as_bytes()[2] == b'.'
    {
        &t[3..]
    } else {
        t
    };
    // (Pandoc's heading attributes, `{#tc-06 .unnumbered}`, are no part of the title.)
    let t = match t.rfind(" {") {
        Some(i) if t.ends_with('}') && t[i + 2..].starts_with(['#', '.']) => &t[..i],
        _ => t,
    };
    t.trim_matches(['*', '_', ' ', '【', '】'])
        .trim_end_matches([':', '：'])
        .trim()
        .to_string()
}

/// The document with Markdown's backslash escapes (`\"`, `\[`, `\*`, as converters
/// write them) resolved, outside code, line for line.
/// A table drawn with box characters (`┌──┬──┐`, `│ a │ b │`, as terminals and Korean
/// and Japanese boards print them) as the pipe table it is, line for line.
pub fn box_drawn(t: &str) -> Cow<'_, str> {
    // (Three substring searches run far faster than one for a set of characters.)
    if !has(t, "│") && !has(t, "┃") && !has(t, "║") {
        return Cow::Borrowed(t);
    }
    Cow::Owned(
        t.chars()
            .map(|c| match c {
                '│' | '┃' | '║' | '├' | '┼' | '┤' | '┌' | '┬' | '┐' | '└' | '┴' | '┘' | '╞'
                | '╪' | '╡' | '╔' | '╦' | '╗' | '╠' | '╬' | '╣' | '╚' | '╩' | '╝' | '┣' | '╋'
                | '┫' | '┏' | '┳' | '┓' | '┗' | '┻' | '┛' => '|',
                '─' | '━' | '═' => '-',
                c => c,
            })
            .collect(),
    )
}

/// Crosses that mark a result where a checklist's legend says so (`❌ 실패`, `✗ = failed`).
const CROSSES: [char; 3] = ['❌', '✗', '✘'];

/// Whether `t`'s legend makes a cross a failed run, not a dropped case.
pub fn crosses_are_failures(t: &str) -> bool {
    (has(t, "❌") || has(t, "✗") || has(t, "✘"))
        && t.lines().any(|l| {
            l.match_indices(CROSSES).any(|(i, c)| {
                let after: String = l[i + c.len()..]
                    .trim_start_matches([' ', '=', ':', '：', '-', '–', '—', '(', '*'])
                    .chars()
                    .take(24)
                    .collect();
                let word = after
                    .split(|c: char| !c.is_alphanumeric())
                    .next()
                    .unwrap_or_default();
                lexicon::listed(lexicon::RUN_RESULTS, &lexicon::fold(word))
                    && !lexicon::is_dropped_status(word)
            })
        })
}

/// The page with its block comments blanked, line for line: a `/* … */` opening a line
/// (a config file's entry commented out) runs to the line that closes it.
pub fn without_block_comments(t: &str) -> Cow<'_, str> {
    if !has(t, "/*") || !t.lines().any(|l| l.trim_start().starts_with("/*")) {
        return Cow::Borrowed(t);
    }
    let mut inside = false;
    let lines: Vec<String> = t
        .lines()
        .map(|l| {
            if !inside && l.trim_start().starts_with("/*") {
                inside = true;
            }
            if inside {
                inside = !l.contains("*/");
                String::new()
            } else {
                l.to_string()
            }
        })
        .collect();
    Cow::Owned(super::rejoin(t, &lines))
}

/// Lists as word processors and chat canvases paste them: `•`-bulleted items as Markdown's,
/// and an item opened by its status mark (`✅ 1. "…"`) as the numbered item it is, the mark
/// after its number.
pub fn pasted_bullets(t: &str) -> Cow<'_, str> {
    const BULLETS: &[char] = &['•', '◦', '▪', '‣', '●', '○', '■'];
    if t.is_ascii() || !t.contains(BULLETS) && !t.lines().any(|l| marked_item(l).is_some()) {
        return Cow::Borrowed(t);
    }
    let lines: Vec<String> = t
        .lines()
        .map(|l| {
            let body = l.trim_start();
            let indent = &l[..l.len() - body.len()];
            if let Some(rest) = body.strip_prefix(BULLETS) {
                return format!("{indent}- {}", rest.trim_start());
            }
            match marked_item(l) {
                // (A pause mark, `⏸️`, says the item is on hold: not run now.)
                Some((mark, number, rest)) if mark.starts_with(['⏸', '⏹']) => {
                    format!("{indent}{number} [on hold] {rest}")
                }
                Some((mark, number, rest)) => format!("{indent}{number} {mark} {rest}"),
                None => l.to_string(),
            }
        })
        .collect();
    Cow::Owned(super::rejoin(t, &lines))
}

/// A numbered item opened by a status mark: the mark, the number (`1.`) and the rest.
fn marked_item(l: &str) -> Option<(&str, &str, &str)> {
    let body = l.trim_start();
    let (mark, rest) = body.split_once(' ')?;
    let emoji = !mark.is_empty()
        && mark.chars().all(|c| {
            matches!(c as u32, 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F | 0x200D | 0x2B00..=0x2BFF | 0x23E9..=0x23FA)
        });
    let (number, rest) = rest.trim_start().split_once(' ')?;
    let numbered = number.len() >= 2
        && number.ends_with(['.', ')'])
        && number[..number.len() - 1]
            .bytes()
            .all(|b| b.is_ascii_digit());
    (emoji && numbered).then_some((mark, number, rest))
}

/// A chat's reactions copied with its messages (Slack's `👍` over `3`): lines of emoji
/// alone, and the count under each, left blank, so that they end the message above.
pub fn without_reactions(t: &str) -> Cow<'_, str> {
    // (Emoji are never ASCII: most pages are passed over at once.)
    let emoji_only = |l: &str| {
        let l = l.trim();
        !l.is_empty()
            && l.chars().count() <= 12
            && l.chars().all(|c| {
                c.is_whitespace()
                    || matches!(c as u32, 0x1F000..=0x1FAFF | 0x2600..=0x27BF | 0xFE0F | 0x200D | 0x2B00..=0x2BFF)
            })
    };
    if t.is_ascii() || !t.lines().any(emoji_only) {
        return Cow::Borrowed(t);
    }
    let mut after_emoji = false;
    let lines: Vec<String> = t
        .lines()
        .map(|l| {
            let count = l.trim().len() <= 4
                && !l.trim().is_empty()
                && l.trim().bytes().all(|b| b.is_ascii_digit());
            if emoji_only(l) || after_emoji && count {
                after_emoji = emoji_only(l);
                String::new()
            } else {
                after_emoji = false;
                l.to_string()
            }
        })
        .collect();
    Cow::Owned(super::rejoin(t, &lines))
}

/// A checklist whose crosses are failed runs, its crosses read as a plain mark (`✖`).
pub fn failed_marks(t: &str) -> Cow<'_, str> {
    if crosses_are_failures(t) {
        Cow::Owned(t.replace(CROSSES, "✖"))
    } else {
        Cow::Borrowed(t)
    }
}

/// Pandoc's tracked changes and comments (`--track-changes=all`) as the text they leave:
/// `[15]{.insertion author=…}` is `15`, a deletion and a comment are nothing.
pub fn accepted_changes(t: &str) -> Cow<'_, str> {
    static SPAN: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\[([^\[\]\n]*)\]\{\.(insertion|deletion|comment-start|comment-end|paragraph-insertion|paragraph-deletion|mark)\b[^}\n]*\}")
            .unwrap()
    });
    if !has(t, "]{.") {
        return Cow::Borrowed(t);
    }
    // (Innermost first: a comment inside a deletion.)
    let mut out = Cow::Borrowed(t);
    for _ in 0..3 {
        let next = SPAN.replace_all(&out, |c: &regex::Captures| match &c[2] {
            "insertion" | "paragraph-insertion" | "mark" => c[1].to_string(),
            _ => String::new(),
        });
        match next {
            Cow::Borrowed(_) => break,
            Cow::Owned(n) => out = Cow::Owned(n),
        }
    }
    out
}

pub fn unescaped(t: &str) -> std::borrow::Cow<'_, str> {
    if !has(t, "\\") {
        return std::borrow::Cow::Borrowed(t);
    }
    let mut out = String::with_capacity(t.len());
    let mut fence = false;
    for line in t.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = !fence;
        }
        if fence || !line.contains('\\') {
            out.push_str(line);
            continue;
        }
        let mut code = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if c == '`' {
                code = !code;
            }
            // (`\|` stays: a table's cells are parted where it is not.)
            if c == '\\'
                && !code
                && chars
                    .peek()
                    .is_some_and(|n| n.is_ascii_punctuation() && *n != '|')
            {
                out.push(chars.next().unwrap_or(c));
                continue;
            }
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A reply written between the lines of the message it quotes (`> 4. «…» → slow …`, then
/// the replier's `Este lo cambiaría …`), at any depth of quoting (a reply quoted in turn,
/// `> > 4. …` between `> OK`): the quoted message is what is discussed, so its lines are
/// read without their `>` marks, line for line. A quoted copy under a reply (nothing
/// written between its lines) is left to be skipped.
pub fn inline_reply(t: &str) -> Cow<'_, str> {
    if !has(t, "\n>") {
        return Cow::Borrowed(t);
    }
    let lines: Vec<&str> = t.lines().collect();
    // Each line's depth of quoting and its text without the marks.
    let unquoted: Vec<(usize, &str)> = lines
        .iter()
        .map(|l| {
            let mut depth = 0;
            let mut rest = *l;
            while let Some(r) = rest.strip_prefix('>') {
                depth += 1;
                rest = r.strip_prefix(' ').unwrap_or(r);
            }
            (depth, rest)
        })
        .collect();
    let deepest = unquoted.iter().map(|(d, _)| *d).max().unwrap_or(0);
    // Quoted runs at some depth parted by a few lines written at a shallower one (a copy
    // quoted under each message of a thread has a whole message between).
    let interleaved = (1..=deepest).any(|depth| {
        let mut seen_quote = false;
        let mut gap: Option<usize> = None;
        for (d, text) in &unquoted {
            if text.trim().is_empty() {
                continue;
            }
            if *d >= depth {
                if gap.is_some_and(|g| (1..=6).contains(&g)) {
                    return true;
                }
                seen_quote = true;
                gap = Some(0);
            } else if seen_quote {
                gap = gap.map(|g| g + 1);
            }
        }
        false
    });
    if !interleaved {
        return Cow::Borrowed(t);
    }
    let out: Vec<String> = unquoted.iter().map(|(_, r)| r.to_string()).collect();
    Cow::Owned(super::rejoin(t, &out))
}

/// Fields whose label is set as a heading of its own (`### Prompt` under a case's heading,
/// a `**Expected**` line), their values on the lines below: the `Label:` lines they mean,
/// line for line. A heading no deeper than the one above it, or one over a table, heads a
/// section, not a field.
pub fn label_headings(t: &str) -> std::borrow::Cow<'_, str> {
    fn field(head: &str) -> Option<&str> {
        let h = head.trim().trim_end_matches([':', '：']).trim_end();
        (!h.is_empty()
            && h.chars().count() <= 40
            && h.split_whitespace().count() <= 3
            && label_role(h).is_some_and(LabelRole::is_field)
            && !lexicon::heading_excludes(h))
        .then_some(h)
    }
    let lines: Vec<&str> = split_lines(t).collect();
    let mut out: Option<Vec<String>> = None;
    let mut level = 0;
    for (i, l) in lines.iter().enumerate() {
        let s = l.trim();
        let hashes = s.bytes().take_while(|b| *b == b'#').count();
        // (Or a list item of the label alone over its indented value, as Notion exports
        // a toggle: `- Prompt` over `    „…“`.)
        let item = s
            .strip_prefix(['-', '*', '+'])
            .filter(|r| r.starts_with(' '))
            .filter(|_| {
                let indent = l.len() - l.trim_start().len();
                lines[i + 1..]
                    .iter()
                    .find(|n| !n.trim().is_empty())
                    .is_some_and(|n| n.len() - n.trim_start().len() > indent)
            });
        let (head, deeper) = if let Some(r) = item {
            (r, true)
        } else if (1..=6).contains(&hashes) && s[hashes..].starts_with(' ') {
            let deeper = level > 0 && hashes > level;
            if field(&s[hashes..]).is_none() || !deeper {
                level = hashes;
            }
            (&s[hashes..], deeper)
        } else if let Some(inner) = ["**", "__"]
            .iter()
            .find_map(|m| s.strip_prefix(m).and_then(|r| r.strip_suffix(m)))
        {
            (inner, true)
        } else {
            continue;
        };
        let next = lines[i + 1..]
            .iter()
            .map(|n| n.trim())
            .find(|n| !n.is_empty());
        // (An item's label is one the lexicon lists: `- large-result` names a tool.)
        if let Some(label) = deeper
            .then(|| field(head))
            .flatten()
            .filter(|h| item.is_none() || lexicon::is_listed_label(h))
            && next.is_some_and(|n| !n.starts_with(['#', '|']))
        {
            let lead = if item.is_some() {
                &l[..l.len() - s.len() + 2]
            } else {
                ""
            };
            out.get_or_insert_with(|| lines.iter().map(|l| l.to_string()).collect())[i] =
                format!("{lead}{label}:");
        }
    }
    match out {
        Some(out) => std::borrow::Cow::Owned(super::rejoin(t, &out)),
        None => std::borrow::Cow::Borrowed(t),
    }
}

/// Definition lists (`Prompt` over `: „…“`, as Kramdown and PHP Markdown write them) as
/// the `Label: value` lines they mean, line for line: the term's line left blank, a
/// further definition of the same term a line of its own.
pub fn definitions(t: &str) -> std::borrow::Cow<'_, str> {
    fn def(l: &str) -> Option<&str> {
        l.strip_prefix(": ")
            .or_else(|| l.strip_prefix(":\t"))
            .map(str::trim)
            .filter(|r| !r.is_empty())
    }
    // (Most documents have none: one search decides.)
    if !has(t, "\n: ") && !has(t, "\n:\t") {
        return std::borrow::Cow::Borrowed(t);
    }
    let lines: Vec<&str> = t.lines().collect();
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let mut in_def = false;
    for i in 1..lines.len() {
        let Some(rest) = def(lines[i]) else {
            in_def = false;
            continue;
        };
        let term = lines[i - 1].trim();
        if in_def {
            out[i] = rest.to_string();
        } else if !term.is_empty()
            && term.chars().count() <= 60
            && !term.starts_with(['#', '|', '-', '*', '>', ':'])
            && !term.ends_with([':', '.'])
        {
            // (A definition that is itself a field, `: Nutzer: „…“`, stays one under its
            // term: `Verlauf:` over the turns.)
            if leading_label(rest).is_some() {
                out[i - 1] = format!("{term}:");
                out[i] = rest.to_string();
            } else {
                out[i - 1] = String::new();
                out[i] = format!("{term}: {rest}");
            }
            in_def = true;
        }
    }
    std::borrow::Cow::Owned(super::rejoin(t, &out))
}

/// Extracts every case of a text document.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let lines = classify(ix);
    // (Room for a draft or a section per heading: a long plan's slots, which hold whole
    // drafts, are not copied over and over as they grow.)
    let headings = lines
        .iter()
        .filter(|l| matches!(l.kind, Kind::Heading(_)))
        .count();
    let mut out = Out {
        drafts: Vec::with_capacity(headings),
        sections: Vec::with_capacity(headings),
    };
    let first_heading = lines
        .iter()
        .find(|l| l.kind != Kind::Blank)
        .filter(|l| matches!(l.kind, Kind::Heading(_)))
        .map(|l| l.n);
    walk(
        &lines,
        0,
        lines.len(),
        &mut Vec::new(),
        first_heading,
        cat,
        &mut out,
    );
    let mut drafts = out.finish(&lines, cat);
    expectations_below(&lines, &mut drafts, cat);
    drafts
}

/// A rule a section states once for all its cases, before them ("No case in this section
/// may call the crash tool", `**공통 금지: `crash`**`): each case of the section forbids
/// those tools too, but for one it calls itself (the rule's exception, "apart from case
/// [6]", is that case's own call).
fn section_rule(lines: &[Ln], a: usize, b: usize, cat: &Catalog, found: &mut [Draft]) {
    let Some(first) = found.iter().map(|d| d.start_line).min() else {
        return;
    };
    let text: Vec<&str> = lines[a..b]
        .iter()
        .filter(|l| l.n < first && l.kind != Kind::Blank && l.kind != Kind::Code)
        .map(|l| l.text)
        .collect();
    if text.is_empty() {
        return;
    }
    let text = text.join("\n");
    if !lexicon::has_any(&lexicon::fold(&text), lexicon::SECTION_WIDE) {
        return;
    }
    let r = reading::read(&text, cat);
    // ("No case in this section may call the crash tool": what it names, it forbids.)
    let mut never = r.never.clone();
    if lexicon::has_any(&lexicon::fold(&text), lexicon::NO_CASE)
        || leading_role(&text) == Some(LabelRole::Forbidden)
    {
        never.extend(r.calls.iter().map(|c| c.tool.clone()));
    } else if !r.calls.is_empty() {
        return;
    }
    if never.is_empty() || r.negative.is_some() {
        return;
    }
    for d in found.iter_mut().filter(|d| !d.negative) {
        for n in &never {
            if !d.never_called.contains(n) && !d.expected_calls.iter().any(|c| &c.tool == n) {
                d.never_called.push(n.clone());
                d.exact_rule = None;
            }
        }
    }
}

/// A conversation set apart from what it expects (`> User: …` turns, then "After the
/// last message the assistant should call list-items …" as a paragraph of its own), or a
/// case whose `Expected:` paragraph a page break parted from it (the page's furniture
/// blanked between): the paragraph right under a case that expects nothing is its own.
fn expectations_below(lines: &[Ln], drafts: &mut [Draft], cat: &Catalog) {
    for d in drafts.iter_mut() {
        // (Tools its section forbids are no expectation of its own.)
        let expects = d.negative || !d.expected_calls.is_empty() || !d.contains.is_empty();
        if expects {
            continue;
        }
        // Lines are numbered from 1, indexed from 0.
        let Some(from) = (d.end_line..lines.len()).find(|&k| lines[k].kind != Kind::Blank) else {
            continue;
        };
        let labelled = matches!(
            lines[from].label,
            Some(LabelRole::Expected | LabelRole::Tool)
        );
        if d.prompts.len() < 2 && !labelled {
            continue;
        }
        let to = (from..lines.len())
            .find(|&k| lines[k].kind != Kind::Text)
            .unwrap_or(lines.len());
        // (A field that forbids, `:禁止调用: …`, forbids what it names; a status is none.)
        let field = |k: usize, role: LabelRole| lines[k].label == Some(role);
        let text: Vec<&str> = (from..to)
            .filter(|&k| !field(k, LabelRole::Forbidden) && !field(k, LabelRole::Status))
            .map(|k| lines[k].text)
            .collect();
        let text = text.join("\n");
        if from == to
            || reading::quotes(&text)
                .iter()
                .any(|&(a, b)| reading::utterance_like(&text[a..b]))
        {
            continue;
        }
        let mut r = reading::read(&text, cat);
        for k in (from..to).filter(|&k| field(k, LabelRole::Forbidden)) {
            let f = reading::read(lines[k].text, cat);
            for c in f.calls.into_iter().map(|c| c.tool).chain(f.never) {
                if !r.never.contains(&c) {
                    r.never.push(c);
                }
            }
        }
        if r.calls.is_empty() && r.never.is_empty() && r.negative.is_none() {
            continue;
        }
        super::super::fields::apply_reading(d, r);
        d.end_line = lines[to - 1].n;
        d.exact_rule = None;
        d.notes
            .push("expectations read from the paragraph under the conversation".into());
    }
}

/// What the walk found, in document order: drafts already read, and sections still to
/// read. Sections are independent of each other, so a long plan's are read in parallel.
#[derive(Default)]
struct Out {
    drafts: Vec<Option<Draft>>,
    sections: Vec<Pending>,
}

/// A section still to read as one unit: its heading's line, where it ends, its title,
/// its slot in `drafts`. (Its text is put together where it is read.)
struct Pending {
    slot: usize,
    heading: usize,
    end: usize,
    title: String,
    titled: bool,
    /// The tool the parent heading names, for a section whose body names none.
    tool: Option<String>,
    read: Option<Draft>,
}

impl Out {
    fn push(&mut self, d: Draft) {
        self.drafts.push(Some(d));
    }

    fn defer(
        &mut self,
        heading: usize,
        end: usize,
        title: String,
        titled: bool,
        tool: Option<String>,
    ) {
        self.sections.push(Pending {
            slot: self.drafts.len(),
            heading,
            end,
            title,
            titled,
            tool,
            read: None,
        });
        self.drafts.push(None);
    }

    fn finish(mut self, lines: &[Ln], cat: &Catalog) -> Vec<Draft> {
        super::par_each(&mut self.sections, 32, |p| {
            // (Its lines' labels were read already: looked up, not read again.)
            let own = &lines[p.heading + 1..p.end];
            let known = |line: &str| own.iter().find(|l| l.text == line).and_then(|l| l.parts);
            p.read = section_unit(lines, p.heading, p.end, &p.title, p.titled).and_then(
                |(text, info)| {
                    let text = match &p.tool {
                        Some(t) if reading::read(&text, cat).calls.is_empty() => {
                            format!("Tool: {t}\n{text}")
                        }
                        _ => text,
                    };
                    read_unit(&segments_of_known(&text, known), &info, cat)
                },
            );
        });
        for p in self.sections {
            self.drafts[p.slot] = p.read;
        }
        self.drafts.into_iter().flatten().collect()
    }
}

/// Reads lines `[a, b)` of one section (its heading excluded).
fn walk(
    lines: &[Ln],
    a: usize,
    b: usize,
    chain: &mut Vec<String>,
    title_line: Option<usize>,
    cat: &Catalog,
    out: &mut Out,
) {
    // The body before the first sub-heading, then each sub-section.
    let mut i = a;
    let first_sub = (a..b).find(|&k| matches!(lines[k].kind, Kind::Heading(_)));
    let body_end = first_sub.unwrap_or(b);
    // The tool this section's heading is, wholly (`## fs.read_file` over its cases).
    // (Or describes it, `перанос / перайменаванне файлаў`, or says no tool is called.)
    let parent_tool = chain.last().and_then(|h| {
        let h = h.trim().trim_matches('`');
        if reading::negative_clause(&lexicon::fold(h)).is_some() {
            return Some("none".to_string());
        }
        cat.resolve(h)
            .map(|(t, _)| t)
            .or_else(|| cat.described_by(h))
            .map(|t| cat.name(t).to_string())
    });
    let mut found = Vec::new();
    blocks(lines, i, body_end, chain, cat, &mut found);
    section_rule(lines, i, body_end, cat, &mut found);
    for d in found {
        out.push(d);
    }
    i = body_end;
    while i < b {
        let Kind::Heading(level) = lines[i].kind else {
            i += 1;
            continue;
        };
        // (A bold title line's section also ends where a paragraph opens with the next
        // bold title, `**Caso 2.5 – …** Prompt: …`, and at a rule.)
        let end = (i + 1..b)
            .find(|&k| {
                matches!(lines[k].kind, Kind::Heading(l) if l <= level)
                    || (level == 7
                        && (lines[k].kind == Kind::Rule
                            || lines[k].kind == Kind::Text
                                && lines[k - 1].kind == Kind::Blank
                                && lines[k].text.trim_start().starts_with("**")))
            })
            .unwrap_or(b);
        let title = lines[i].title.clone();
        let excluded = Some(lines[i].n) != title_line && lines[i].excludes;
        // (A lead-in that heads no cases, `Kurz zur Schreibweise:`, leaves out the list
        // under it, not what follows the list.)
        let below = (i + 1..end).find(|&k| lines[k].kind != Kind::Blank);
        let end = if excluded && level == 8 && below.is_some_and(|k| lines[k].kind == Kind::Text) {
            // (Or the paragraph under it: `cut (not in set):` over its lines.)
            (below.unwrap_or(i + 1)..end)
                .find(|&k| lines[k].kind == Kind::Blank)
                .unwrap_or(end)
        } else if excluded && level == 8 {
            (i + 2..end)
                .find(|&k| {
                    lines[k].indent == 0 && !matches!(lines[k].kind, Kind::Item | Kind::Blank)
                })
                .unwrap_or(end)
        } else {
            end
        };
        if !excluded {
            // Fields at the top of the section (a numbered step under `Steps:` is not one).
            let top = (i + 1..end)
                .filter(|&k| !matches!(lines[k].kind, Kind::Blank | Kind::Code))
                .map(|k| lines[k].indent)
                .min()
                .unwrap_or(0);
            let prompts = (i + 1..end)
                .filter(|&k| {
                    !matches!(lines[k].kind, Kind::Heading(_) | Kind::Table | Kind::Code)
                        && lines[k].indent <= top
                        && lines[k].label == Some(LabelRole::Prompt)
                })
                .count();
            // (Headings that are a case's field labels, `### 入力` over its prompt and
            // `### Expected output` over what it expects, head no case of their own.)
            // (Nor does a lead-in, unless it heads what is no case: `Notatie per eis:` over
            // the fields explained.)
            let sub_headings = (i + 1..end).any(|k| match lines[k].kind {
                Kind::Heading(8) => lines[k].excludes,
                Kind::Heading(_) => !lexicon::is_listed_label(&lines[k].title),
                _ => false,
            });
            let steps = (i + 1..end)
                .filter(|&k| {
                    !matches!(lines[k].kind, Kind::Heading(_) | Kind::Table | Kind::Code)
                        && lines[k].indent <= top
                        && lines[k].label == Some(LabelRole::Steps)
                })
                .count();
            // One conversation: a list of fields whose prompts all come before its
            // expectations.
            let conversation = prompts >= 2 && !sub_headings && {
                let body: Vec<usize> = (i + 1..end)
                    .filter(|&k| lines[k].kind != Kind::Blank)
                    .collect();
                body.first()
                    .and_then(|&f| field_list(lines, f, end))
                    .is_some_and(|items| {
                        items.len() == body.len() && {
                            let roles: Vec<bool> = items
                                .iter()
                                .filter(|&&k| assistant_line(lines[k].text).is_none())
                                .map(|&k| lines[k].label == Some(LabelRole::Prompt))
                                .collect();
                            let first_other = roles.iter().position(|p| !p).unwrap_or(roles.len());
                            roles[first_other..].iter().all(|p| !p)
                        }
                    })
            };
            // Or the user's turns in one block (the assistant's between them), wherever the
            // case's fields stand around it: `user: …` lines start no case of their own.
            let turn_block = prompts >= 2 && !sub_headings && {
                let ks: Vec<usize> = (i + 1..end)
                    .filter(|&k| {
                        !matches!(lines[k].kind, Kind::Heading(_) | Kind::Table | Kind::Code)
                            && lines[k].indent <= top
                            && lines[k].label == Some(LabelRole::Prompt)
                    })
                    .collect();
                let (first, last) = (ks[0], ks[ks.len() - 1]);
                // (Paragraphs quoting what users say outside the block are cases of their
                // own: the section holds several, one of them a conversation.)
                let others = (i + 1..end)
                    .filter(|&k| k < first || k > last)
                    .filter(|&k| lines[k].kind != Kind::Blank && lines[k - 1].kind == Kind::Blank)
                    .filter(|&k| {
                        !reading::quotes(lines[k].text).is_empty()
                            || lines
                                .get(k + 1)
                                .is_some_and(|n| !reading::quotes(n.text).is_empty())
                    })
                    .count();
                // (Turns that each point at what they expect, `user: "…" → get-sum`,
                // are cases of their own.)
                let arrowed = ks
                    .iter()
                    .filter(|&&k| {
                        lexicon::ARROWS.iter().any(|a| lines[k].text.contains(a))
                            || expects_after_quote(lines[k].text)
                    })
                    .count();
                // Between them, the assistant's turns or a narration of them
                // (`2. The assistant asks which item.`), but no other field.
                others < 2
                    && arrowed < 2
                    && ks.iter().all(|&k| user_turn(lines[k].text))
                    && (first..=last).all(|k| {
                        matches!(lines[k].kind, Kind::Blank | Kind::Item | Kind::Text)
                            && matches!(lines[k].label, None | Some(LabelRole::Prompt))
                    })
            };
            // Items beside the one prompt field that state cases of their own (`3. 用户输入
            // “…”，应调用 echo` above `4. 多轮对话：`): the section is a list of cases.
            let listed_cases = prompts == 1
                && (i + 1..end).any(|k| {
                    lines[k].kind == Kind::Item
                        && lines[k].indent <= top
                        && lines[k].label.is_none()
                        && (reading::quotes(lines[k].text)
                            .iter()
                            .any(|&(a, b)| reading::utterance_like(&lines[k].text[a..b]))
                            || reading::code_spans(lines[k].text)
                                .iter()
                                .any(|&(a, b)| reading::prose_like(&lines[k].text[a..b])))
                        && !reading::read(lines[k].text, cat).is_empty()
                });
            let table_turns = prompts == 0 && conversation_table(lines, i + 1, end).is_some();
            // Whether the body states an expectation: a field with one of these labels, or
            // words that expect a call or none (`- ツール呼び出しなし`).
            let states_expectation = |labels: &[LabelRole]| {
                (i + 1..end).any(|k| lines[k].label.is_some_and(|l| labels.contains(&l))) || {
                    let rest: Vec<&str> = (i + 1..end)
                        .filter(|&k| matches!(lines[k].kind, Kind::Text | Kind::Item))
                        .map(|k| lines[k].text)
                        .collect();
                    let r = reading::read(&rest.join("\n"), cat);
                    r.negative.is_some() || !r.calls.is_empty() || !r.never.is_empty()
                }
            };
            // A prompt set in a fenced block of text, the case's fields labelled around it.
            // (Or, without a label, words that expect something: `- ツール呼び出しなし`.)
            let fenced = prompts == 0
                && !sub_headings
                && prose_fence(lines, i + 1, end).is_some()
                && states_expectation(&[
                    LabelRole::Expected,
                    LabelRole::Tool,
                    LabelRole::Forbidden,
                ]);
            // No prompt in the body, but a keyed title that is itself what the user says
            // (an outline's `K1: Cari barang …` node over its tool and arguments).
            // (Or a title that is wholly a quoted utterance, `### «Show me …»`, under a
            // heading naming the tool, as mind maps and outlines are laid out.)
            let quoted_title = {
                let bare = draft::unquote(&title);
                bare.len() < title.trim().len() && said_title(&bare)
            };
            let titled = prompts == 0
                && steps == 0
                && !sub_headings
                && !fenced
                && (matches!(key_and_title(&title), (Some(_), t) if said_title(&t))
                    || quoted_title)
                && !(i + 1..end).any(|k| {
                    let t = lines[k].text;
                    reading::quotes(t).iter().any(|&(a, b)| {
                        // (Under a quoted title, a quote a field holds is a value:
                        // `content: «…»`.)
                        reading::utterance_like(&t[a..b])
                            && !(quoted_title
                                && t[..a]
                                    .trim_end_matches(|c: char| {
                                        !c.is_alphanumeric()
                                            && !c.is_whitespace()
                                            && !matches!(c, ':' | '：' | '=')
                                    })
                                    .trim_end()
                                    .ends_with([':', '：', '=']))
                    })
                })
                && (states_expectation(&[LabelRole::Expected, LabelRole::Tool])
                    || quoted_title && parent_tool.is_some());
            // No prompt field, but paragraphs of which one quotes what the user says and
            // the others say what is expected (`Employee: "…"` over `The assistant answers
            // on its own, calling no tool.`): one case.
            let quoted = prompts == 0
                && steps == 0
                && !sub_headings
                && !title.contains("~~")
                && !fenced
                && !titled
                && (i + 1..end)
                    .all(|k| matches!(lines[k].kind, Kind::Text | Kind::Blank))
                && (i + 1..end)
                    .filter(|&k| {
                        let t = lines[k].text;
                        reading::quotes(t)
                            .iter()
                            .any(|&(a, b)| reading::utterance_like(&t[a..b]))
                    })
                    .count()
                    == 1
                && states_expectation(&[LabelRole::Expected, LabelRole::Tool])
                // (Only where its paragraphs, read one by one, give no case.)
                && {
                    let mut found = Vec::new();
                    blocks(lines, i + 1, end, chain, cat, &mut found);
                    !found.iter().any(|d| {
                        !d.prompts.is_empty()
                            && (d.negative
                                || !d.expected_calls.is_empty()
                                || !d.never_called.is_empty())
                    })
                };
            if (prompts == 1 && !listed_cases
                || fenced
                || titled
                || quoted
                || (prompts == 0 && steps == 1)
                || conversation
                || turn_block
                || table_turns)
                && !sub_headings
            {
                out.defer(
                    i,
                    end,
                    title,
                    titled,
                    parent_tool.clone().filter(|_| titled),
                );
            } else {
                chain.push(title);
                walk(lines, i + 1, end, chain, title_line, cat, out);
                chain.pop();
            }
        }
        // Paragraphs after a bold title's section that open with bold titles of their own
        // (`**Caso 2.5 – …** Prompt: …`) are read as the blocks they are, up to the next
        // heading.
        if end < b && matches!(lines[end].kind, Kind::Text | Kind::Rule) {
            let next = (end..b)
                .find(|&k| matches!(lines[k].kind, Kind::Heading(_)))
                .unwrap_or(b);
            let mut found = Vec::new();
            blocks(lines, end, next, chain, cat, &mut found);
            for d in found {
                out.push(d);
            }
            i = next;
            continue;
        }
        i = end;
    }
}

/// Whether a line's label says what a case expects (a tool, its arguments, what is
/// forbidden, no tool, what the reply holds).
fn says_expected(label: Option<LabelRole>) -> bool {
    matches!(
        label,
        Some(
            LabelRole::Expected
                | LabelRole::Tool
                | LabelRole::Args
                | LabelRole::Forbidden
                | LabelRole::Negative
                | LabelRole::Contains
        )
    )
}

/// Whether a line goes on, after the utterance it quotes, to say what it expects
/// (`Користувач: «…». Очікуємо DeleteItem …`): two words at least after its first quote.
fn expects_after_quote(t: &str) -> bool {
    reading::quotes(t).first().is_some_and(|&(_, b)| {
        t[b..]
            .split_whitespace()
            .filter(|w| w.chars().any(char::is_alphanumeric))
            .count()
            >= 2
    })
}

/// The content lines `a..b` of the first fenced block in `from..to` that holds words,
/// not code: fenced as text (or with no language) and reading as an utterance.
fn prose_fence(lines: &[Ln], from: usize, to: usize) -> Option<(usize, usize)> {
    let open = (from..to).find(|&k| {
        let t = lines[k].text.trim();
        let info = t.trim_start_matches(['`', '~']).trim();
        (t.starts_with("```") || t.starts_with("~~~"))
            && matches!(
                info,
                "" | "text" | "txt" | "plain" | "plaintext" | "prompt" | "user" | "md" | "markdown"
            )
    })?;
    let close = (open + 1..to).find(|&k| {
        let t = lines[k].text.trim();
        t.starts_with("```") || t.starts_with("~~~")
    })?;
    let said: Vec<&str> = lines[open + 1..close]
        .iter()
        .map(|l| l.text.trim())
        .collect();
    let said = said.join(" ");
    (close > open + 1 && reading::utterance_like(&said) && !said.contains(['{', '}', ';', '=']))
        .then_some((open + 1, close))
}

/// A whole section as one unit: its text and where it came from (`None`: it has no body).
fn section_unit(
    lines: &[Ln],
    h: usize,
    end: usize,
    title: &str,
    titled: bool,
) -> Option<(String, UnitInfo<'static>)> {
    // A rule (`---`) ends the case: what follows it is not part of it.
    let end = (h + 1..end)
        .find(|&k| {
            lines[k].kind == Kind::Rule && matches!(lines[k - 1].kind, Kind::Blank | Kind::Code)
        })
        .unwrap_or(end);
    // A fenced JSON object (a call's arguments under `Expected: `get-sum``) is read as one
    // line of the field above it; other code is no part of the case.
    let objects = json_fences(lines, h + 1, end);
    let body: Vec<&Ln> = lines[h + 1..end]
        .iter()
        .filter(|l| {
            !matches!(l.kind, Kind::Code | Kind::Rule) || objects.iter().any(|(n, _)| *n == l.n)
        })
        .collect();
    let last = body.iter().rev().find(|l| l.kind != Kind::Blank)?;
    // A conversation written as a table: its user rows are the turns.
    let turns = conversation_table(lines, h + 1, end);
    let fence = prose_fence(lines, h + 1, end);
    let mut text = body
        .iter()
        .filter(|l| l.n <= last.n)
        .filter_map(|l| match &turns {
            Some(t) if l.kind == Kind::Table => t
                .iter()
                .find(|(n, _)| *n == l.n)
                .map(|(_, said)| format!("User: {said}")),
            _ => Some(
                objects
                    .iter()
                    .find(|(n, _)| *n == l.n)
                    .map_or_else(|| l.text.to_string(), |(_, o)| o.clone()),
            ),
        })
        .collect::<Vec<_>>()
        .join("\n");
    if let Some((a, b)) = fence {
        let said: Vec<&str> = lines[a..b].iter().map(|l| l.text.trim()).collect();
        // A conversation is its turns as written; anything else, one prompt.
        let turns = said.iter().any(|l| user_turn(l));
        text = if turns {
            // Each turn quoted, so what follows the block is no part of the last one.
            let quoted: Vec<String> = said
                .iter()
                .map(|l| match leading_label(l) {
                    Some((who, what)) if !what.starts_with(['"', '“', '「']) => {
                        format!("{who}: \"{what}\"")
                    }
                    _ => l.to_string(),
                })
                .collect();
            format!("{}\n\n{text}", quoted.join("\n"))
        } else {
            format!("Prompt: \"{}\"\n{text}", said.join("\n"))
        };
    }
    let (key, title) = key_and_title(title);
    let info = UnitInfo {
        shape: "markdown section",
        start: lines[h].n,
        end: last.n,
        title: Some(title),
        key,
        structured: false,
        title_said: titled,
    };
    Some((text, info))
}

/// Each fenced block in lines `[a, b)` that holds one JSON object: the line number of its
/// closing fence and the object on one line, indented as the fence is.
fn json_fences(lines: &[Ln], a: usize, b: usize) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut k = a;
    while k < b {
        let t = lines[k].text.trim();
        if !(lines[k].kind == Kind::Code && (t.starts_with("```") || t.starts_with("~~~"))) {
            k += 1;
            continue;
        }
        let info = t.trim_start_matches(['`', '~']).trim();
        let Some(close) = (k + 1..b).find(|&j| {
            let c = lines[j].text.trim();
            c.starts_with("```") || c.starts_with("~~~")
        }) else {
            break;
        };
        let inner: Vec<&str> = lines[k + 1..close]
            .iter()
            .map(|l| l.text.trim())
            .filter(|l| !l.is_empty())
            .collect();
        let one = inner.join(" ");
        if matches!(info, "json" | "json5" | "jsonc" | "")
            && one.starts_with('{')
            && one.ends_with('}')
        {
            out.push((
                lines[close].n,
                format!("{}{one}", " ".repeat(lines[k].indent)),
            ));
        }
        k = close + 1;
    }
    out
}

/// The user turns (line number, text) of the first table in lines `[a, b)` whose header
/// has a speaker column and a text column (`| turn | role | text |`).
fn conversation_table(lines: &[Ln], a: usize, b: usize) -> Option<Vec<(usize, String)>> {
    const SPEAKER: &[&str] = &[
        "role", "speaker", "from", "who", "author", "rol", "rolle", "ruolo", "papel", "役割",
        "話者", "角色", "역할", "роль",
    ];
    const SAID: &[&str] = &[
        "text",
        "content",
        "message",
        "utterance",
        "says",
        "inhalt",
        "nachricht",
        "texte",
        "texto",
        "mensaje",
        "mensagem",
        "testo",
        "messaggio",
        "tekst",
        "内容",
        "メッセージ",
        "发言",
        "내용",
        "메시지",
        "текст",
    ];
    let h = (a..b).find(|&k| lines[k].kind == Kind::Table)?;
    let header: Vec<String> = cells(lines[h].text)
        .iter()
        .map(|c| lexicon::fold(c).trim().to_string())
        .collect();
    let who = header.iter().position(|c| SPEAKER.contains(&c.as_str()))?;
    let said = header.iter().position(|c| SAID.contains(&c.as_str()))?;
    let turns: Vec<(usize, String)> = lines[h + 1..b]
        .iter()
        .take_while(|l| l.kind == Kind::Table)
        .filter(|l| !is_separator(l.text))
        .filter_map(|l| {
            let row = cells(l.text);
            let speaker = lexicon::fold(row.get(who)?);
            let text = row.get(said)?.trim().to_string();
            (lexicon::USER_SPEAKERS.contains(&speaker.trim()) && !text.is_empty())
                .then_some((l.n, text))
        })
        .collect();
    (!turns.is_empty()).then_some(turns)
}

/// `TC-01 Simple addition` → (`TC-01`, `Simple addition`).
fn key_and_title(t: &str) -> (Option<String>, String) {
    let t = t.trim();
    let first = t.split_whitespace().next().unwrap_or_default();
    let looks_key = first.chars().any(|c| c.is_ascii_digit())
        && first.chars().any(|c| c.is_ascii_alphabetic())
        && first.len() <= 16
        && !first.contains(['.', '/']);
    if looks_key {
        let rest = t[first.len()..]
            .trim_start_matches([' ', '–', '—', '-', ':', '：', '·', '|', '•', '.'])
            .trim();
        let key = first.trim_end_matches([':', '：', '.']).to_string();
        (
            Some(key),
            if rest.is_empty() {
                t.to_string()
            } else {
                rest.to_string()
            },
        )
    } else {
        (None, t.to_string())
    }
}

/// Tables, list items and paragraphs of lines `[a, b)`.
fn blocks(lines: &[Ln], a: usize, b: usize, chain: &[String], cat: &Catalog, out: &mut Vec<Draft>) {
    let no_tool = chain
        .last()
        .is_some_and(|h| reading::negative_clause(&lexicon::fold(h)).is_some());
    let section_tool = chain
        .last()
        .and_then(|h| cat.resolve(h.trim().trim_matches('`')))
        .filter(|(_, via)| *via == crate::service::authoring::catalog::Via::Exact)
        .map(|(i, _)| cat.name(i).to_string());
    let cases_section = chain.last().is_some_and(|h| {
        lexicon::has_any(&lexicon::fold(h), lexicon::CASES_HEADING)
            || lexicon::has_any(
                &lexicon::fold(h),
                &[
                    "test*",
                    "eval*",
                    "check*",
                    "szenari*",
                    "prueba*",
                    "teste*",
                    "prova",
                    "テスト",
                    "测试",
                    "테스트",
                ],
            )
    });
    let mut i = a;
    while i < b {
        match lines[i].kind {
            Kind::Blank | Kind::Rule | Kind::Code | Kind::Heading(_) => i += 1,
            Kind::Table if lines[i].text.trim() == "|===" => {
                let close = (i + 1..b)
                    .find(|&k| lines[k].text.trim() == "|===")
                    .unwrap_or(b);
                asciidoc_table(lines, i + 1, close, cat, out);
                i = close + 1;
            }
            Kind::Table => {
                let end = (i..b).find(|&k| lines[k].kind != Kind::Table).unwrap_or(b);
                table(lines, i, end, cat, out);
                i = end;
            }
            Kind::Item if field_list(lines, i, b).is_some() => {
                let items = field_list(lines, i, b).unwrap();
                let title = chain.last().cloned();
                let mut group: Vec<usize> = Vec::new();
                let mut has_expect = false;
                let flush = |group: &mut Vec<usize>, out: &mut Vec<Draft>| {
                    if group.is_empty() {
                        return;
                    }
                    let segs: Vec<Segment> = group
                        .iter()
                        .filter_map(|&k| leading_label(lines[k].text))
                        .map(|(l, r)| Segment::labelled(&l, r))
                        .collect();
                    let info = UnitInfo {
                        shape: "field list",
                        start: lines[group[0]].n,
                        end: lines[*group.last().unwrap()].n,
                        title: title.clone(),
                        key: None,
                        structured: false,
                        title_said: false,
                    };
                    if let Some(d) = read_unit(&segs, &info, cat) {
                        out.push(d);
                    }
                    group.clear();
                };
                for &k in &items {
                    // The assistant's turns sit between the user's: they start nothing.
                    if assistant_line(lines[k].text).is_some() {
                        group.push(k);
                        continue;
                    }
                    let role = leading_label(lines[k].text).and_then(|(l, _)| label_role(&l));
                    // (`8. Користувач: «…». Очікуємо DeleteItem …` over `9. Користувач: «…» —
                    // …`: a prompt item that says what it expects after its quote is a case
                    // of its own.)
                    // (A numbered turn after another goes on their conversation.)
                    let next_turn = numbered_turn_item(lines[k].text)
                        && group.iter().any(|&p| numbered_turn_item(lines[p].text));
                    if role == Some(LabelRole::Prompt)
                        && !next_turn
                        && (has_expect
                            || group
                                .last()
                                .is_some_and(|&p| expects_after_quote(lines[p].text)))
                    {
                        flush(&mut group, out);
                        has_expect = false;
                    }
                    if role != Some(LabelRole::Prompt) {
                        has_expect = true;
                    }
                    group.push(k);
                }
                flush(&mut group, out);
                i = items.last().unwrap() + 1;
            }
            Kind::Item => {
                let base = lines[i].indent;
                let mut end = i + 1;
                let mut last = i;
                while end < b {
                    let l = &lines[end];
                    match l.kind {
                        Kind::Item if l.indent <= base => break,
                        Kind::Heading(_) | Kind::Table if l.indent <= base => break,
                        Kind::Blank => {
                            // A blank line ends the item unless the next line is deeper.
                            let next = (end + 1..b).find(|&k| lines[k].kind != Kind::Blank);
                            match next {
                                Some(k)
                                    if lines[k].indent > base
                                        && lines[k].kind != Kind::Heading(8) =>
                                {
                                    end += 1;
                                }
                                _ => break,
                            }
                        }
                        Kind::Text if l.indent <= base && lines[end - 1].kind == Kind::Blank => {
                            break;
                        }
                        _ => {
                            last = end;
                            end += 1;
                        }
                    }
                }
                // Items right under an item that says what the user says and expects
                // nothing, each led by an expectation's label (a page's paragraphs, `- Caller
                // writes: «…»` over `- Expected: echo …`), say what it expects.
                // Turns of one conversation written as items of their own (`- Turn 1 – User:
                // "…"` over what it expects, then `- Turn 2 – User: …`): one case.
                if numbered_turn_item(lines[i].text) {
                    let mut k = last + 1;
                    while let Some(j) = (k..b).find(|&j| lines[j].kind != Kind::Blank)
                        && lines[j].kind == Kind::Item
                        && lines[j].indent == base
                        && numbered_turn_item(lines[j].text)
                    {
                        last = (j + 1..b)
                            .take_while(|&n| lines[n].kind == Kind::Blank || lines[n].indent > base)
                            .filter(|&n| lines[n].kind != Kind::Blank)
                            .last()
                            .unwrap_or(j);
                        k = last + 1;
                    }
                }
                let expects = |k: usize| says_expected(lines[k].label);
                if !(i..=last).any(expects)
                    && (i..=last).any(|k| {
                        lines[k].label == Some(LabelRole::Prompt)
                            || !reading::quotes(lines[k].text).is_empty()
                    })
                {
                    while last + 1 < b
                        && lines[last + 1].kind == Kind::Item
                        && lines[last + 1].indent == base
                        && expects(last + 1)
                    {
                        last += 1;
                    }
                }
                // An item that heads blocks of cases of its own (`2. Cases discussed`, then
                // indented `Case 2.1 — …` blocks, each with its prompt): a section.
                let groups_with_prompt = (i + 1..=last)
                    .filter(|&k| {
                        // (A conversation's `User:` turns are one case's.)
                        lines[k].label == Some(LabelRole::Prompt)
                            && !user_turn(lines[k].text)
                            && (i + 1..k)
                                .rev()
                                .take_while(|&j| lines[j].kind != Kind::Blank)
                                .all(|j| lines[j].label != Some(LabelRole::Prompt))
                    })
                    .count();
                if groups_with_prompt >= 2 && (i + 1..=last).any(|k| lines[k].kind == Kind::Blank) {
                    let mut inner = chain.to_vec();
                    inner.push(lines[i].text.trim().to_string());
                    blocks(lines, i + 1, last + 1, &inner, cat, out);
                    i = last + 1;
                    continue;
                }
                for (s, e) in case_lines(lines, i, last) {
                    // (An item led by its case's name: the name is the title, the rest
                    // the case.)
                    let named = lines[s]
                        .title_head
                        .then(|| item_head(lines[s].text))
                        .flatten();
                    let text = named
                        .map(|(_, rest)| format!("- {rest}"))
                        .into_iter()
                        .chain(
                            lines[s + usize::from(named.is_some())..=e]
                                .iter()
                                .map(|l| l.text.to_string()),
                        )
                        .collect::<Vec<_>>()
                        .join("\n");
                    free_unit(
                        &text,
                        (lines[s].n, lines[e].n),
                        "list item",
                        named.map(|(h, _)| h.to_string()),
                        SectionSays {
                            cases: cases_section,
                            no_tool,
                            tool: section_tool.as_deref(),
                        },
                        cat,
                        out,
                    );
                }
                i = last + 1;
            }
            Kind::Text => {
                let mut end = i;
                // (A conversation's turns listed inside the block, `Échange :` over `1.
                // Utilisateur : …`, are part of it, and so are the lines after them.)
                let turn = |l: &Ln| {
                    l.kind == Kind::Item && (user_turn(l.text) || assistant_line(l.text).is_some())
                };
                while end + 1 < b && (lines[end + 1].kind == Kind::Text || turn(&lines[end + 1])) {
                    end += 1;
                }
                // Paragraphs of expectations under a prompt's (`Prompt:` over its words,
                // then `Expected tool:` over its own) are that case's.
                let has_prompt =
                    |s: usize, e: usize| (s..=e).any(|k| lines[k].label == Some(LabelRole::Prompt));
                while has_prompt(i, end) {
                    let Some(next) = (end + 1..b).find(|&k| lines[k].kind != Kind::Blank) else {
                        break;
                    };
                    let next_end = (next..b)
                        .take_while(|&k| lines[k].kind == Kind::Text)
                        .last()
                        .unwrap_or(next);
                    let expects = says_expected(lines[next].label);
                    if lines[next].kind != Kind::Text
                        || !expects
                        || has_prompt(next, next_end)
                        || (i..=end)
                            .filter(|&k| lines[k].label == Some(LabelRole::Prompt))
                            .count()
                            > 1
                    {
                        break;
                    }
                    end = next_end;
                }
                // Chat messages copied without blank lines between them: each
                // name-and-time line starts a message of its own.
                let heads: Vec<usize> = (i..=end).filter(|&k| chat_header(lines[k].text)).collect();
                if heads.len() >= 2 {
                    let mut from = i;
                    for (n, &h) in heads.iter().chain([&(end + 1)]).enumerate() {
                        if h > from && (n > 0 || !chat_header(lines[from].text)) {
                            paragraph(lines, from, h - 1, cat, out);
                        }
                        from = h;
                    }
                    i = end + 1;
                    continue;
                }
                paragraph(lines, i, end, cat, out);
                i = end + 1;
            }
        }
    }
}

/// The units of a paragraph `i..=end` (a chat message's name-and-time line heads it but
/// is no part of a case).
fn paragraph(lines: &[Ln], mut i: usize, end: usize, cat: &Catalog, out: &mut Vec<Draft>) {
    if end > i && chat_header(lines[i].text) {
        i += 1;
    }
    let unit = |s: usize, e: usize, out: &mut Vec<Draft>| {
        let text = lines[s..=e]
            .iter()
            .map(|l| l.text)
            .collect::<Vec<_>>()
            .join("\n");
        free_unit(
            &text,
            (lines[s].n, lines[e].n),
            "paragraph",
            block_title(lines, s, e).map(str::to_string),
            SectionSays::default(),
            cat,
            out,
        );
    };
    // A paragraph with several prompt labels holds several units; `user: …` lines are
    // turns of one conversation, not cases of their own.
    let starts: Vec<usize> = (i..=end)
        .filter(|&k| lines[k].label == Some(LabelRole::Prompt))
        .collect();
    // (`Échange :` alone on its line leads the turns in.)
    let turns = starts.iter().all(|&k| {
        user_turn(lines[k].text) || leading_label(lines[k].text).is_some_and(|(_, r)| r.is_empty())
    });
    // Slides or blocks pasted with no blank line between them (`スライド 5<TAB>ケース1`
    // over its tab-indented body): each title line over an indented body opens a block.
    let heads: Vec<usize> = (i..end)
        .filter(|&k| {
            lines[k].indent == 0
                && lines[k].label.is_none()
                && lines[k].kind == Kind::Text
                && lines[k + 1].indent > 0
        })
        .collect();
    // A plain-text block's title line (`SCRIPT 4 - Delete an item`, `SETUP (not a test)`,
    // `Rejected and undecided` over notes): a block it says holds no case is passed over.
    let several = heads.len() >= 2 && starts.len() > 1;
    if !several
        && (bare_title(lines, i, end).is_some_and(lexicon::heading_excludes)
            || legend(lines, i, end))
    {
        return;
    }
    if several {
        if heads[0] > i {
            unit(i, heads[0] - 1, out);
        }
        for (k, &h) in heads.iter().enumerate() {
            let e = heads.get(k + 1).map_or(end, |x| x - 1);
            let title = lines[h].text.trim();
            if !lexicon::heading_excludes(title) {
                unit(h, e, out);
            }
        }
    } else if starts.len() > 1 && !turns {
        for (k, &s) in starts.iter().enumerate() {
            unit(s, starts.get(k + 1).map(|x| x - 1).unwrap_or(end), out);
        }
    } else if let Some(cases) = outline_cases(lines, i, end) {
        for (s, e) in cases {
            unit(s, e, out);
        }
    } else {
        for (s, e) in case_lines(lines, i, end) {
            unit(s, e, out);
        }
    }
}

/// An outline pasted as text (a slide's tab-indented bullets): at the first depth inside
/// block `a..=b`, each line that quotes what the user says over deeper lines is a case,
/// down to its last deeper line (a speaker's turn continues its conversation). `None`
/// unless there are two such lines.
fn outline_cases(lines: &[Ln], a: usize, b: usize) -> Option<Vec<(usize, usize)>> {
    let depth = (a..=b)
        .filter(|&k| lines[k].kind != Kind::Blank && lines[k].indent > 0)
        .map(|k| lines[k].indent)
        .min()?;
    let cases: Vec<(usize, usize)> = (a..b)
        .filter(|&k| {
            lines[k].indent == depth
                && lines[k + 1].indent > depth
                && !speaks(lines[k].text)
                && reading::quotes(lines[k].text)
                    .iter()
                    .any(|&(x, y)| reading::utterance_like(&lines[k].text[x..y]))
        })
        .map(|k| {
            let last = (k + 1..=b)
                .take_while(|&j| lines[j].indent > depth)
                .last()
                .unwrap_or(k);
            (k, last)
        })
        .collect();
    (cases.len() >= 2).then_some(cases)
}

/// The first line of block `a..=b` when it titles the fields under it: short, unlabelled,
/// no sentence and no quote, with a labelled line right after it.
fn block_title<'a>(lines: &[Ln<'a>], a: usize, b: usize) -> Option<&'a str> {
    bare_title(lines, a, b).filter(|_| lines[a + 1].label.is_some())
}

/// The first line of block `a..=b` when it reads as a title over the rest (a heading of a
/// page pasted as plain text): short, unlabelled, no sentence and no quote.
fn bare_title<'a>(lines: &[Ln<'a>], a: usize, b: usize) -> Option<&'a str> {
    let t = lines[a].text.trim();
    (b > a
        && lines[a].kind == Kind::Text
        && lines[a].label.is_none()
        && t.chars().count() <= 80
        && !t.ends_with(['.', '?', '!', ':', '。', '？', '！', '：', ','])
        && reading::quotes(t).is_empty())
    .then_some(t)
}

/// Whether block `a..=b` explains the fields every case has: a lead-in that says so
/// (`For each case, give:`, `Pour chaque scénario, indiquez :`) over labelled lines.
fn legend(lines: &[Ln], a: usize, b: usize) -> bool {
    let t = lines[a].text.trim();
    b > a
        && t.ends_with([':', '：'])
        && (lines[a].label.is_none()
            && lines[a + 1].label.is_some()
            && lexicon::has_any(&lexicon::fold(t), lexicon::EACH_WORDS)
            // (`cut (not in set):`, `Abgelehnt:` over the lines it sets apart.)
            || t.chars().count() <= 40
                && lexicon::heading_excludes(t.trim_end_matches([':', '：'])))
}

/// Whether an item opens with a numbered turn (`- Turn 2: "…"`, `- **Tur 1 – Kullanıcı:**
/// …`).
fn numbered_turn_item(t: &str) -> bool {
    leading_label(t).is_some_and(|(l, _)| {
        let f = lexicon::fold(&l);
        lexicon::numbered_turn(&f) || lexicon::turn_speaker(&f).is_some()
    })
}

/// Whether a line is the user's turn of a conversation (`user: …`, `Kunde: …`, `Turn 2:
/// …`).
fn user_turn(text: &str) -> bool {
    leading_label(text).is_some_and(|(l, _)| {
        let f = lexicon::fold(&l);
        lexicon::is_user_speaker(&f) || lexicon::numbered_turn(&f)
    })
        // (A turn numbered before its speaker, `1턴 사용자: …`, is no field's label.)
        || super::super::unit::user_said(text.trim_start_matches(['-', '*', ' ', '\t']))
            .is_some()
}

/// Whether a line is a chat message's header: a short line with a time of day
/// (`Aisha Khan  10:11 AM`, `[09:42] jonas:`), no quote and no arrow.
fn chat_header(t: &str) -> bool {
    let t = t.trim();
    if t.chars().count() > 80 || t.contains(['"', '“', '→', '「']) || t.contains("->") {
        return false;
    }
    let b = t.as_bytes();
    (0..b.len()).any(|k| {
        b[k] == b':'
            && k >= 1
            && b[k - 1].is_ascii_digit()
            && b.get(k + 1).is_some_and(u8::is_ascii_digit)
            && b.get(k + 2).is_some_and(u8::is_ascii_digit)
            && !b.get(k + 3).is_some_and(u8::is_ascii_digit)
    })
}

/// Lines `a..=b` cut where a line states a case of its own: a quoted utterance followed by
/// an expectation (`5) "what's the time" -> get-time`, `also 6) "…" → no tools`). Turns of
/// one conversation (`user: "…" -> tool`) stay together; so does a block with fewer than
/// two such lines.
fn case_lines(lines: &[Ln], a: usize, b: usize) -> Vec<(usize, usize)> {
    // (A case's line may wrap its expectation onto an indented line of its own.)
    // (A line crossed out with an `x` ends the case above it: `x 東京一週天氣 不做了`.)
    let crossed = |k: usize| {
        let t = lines[k].text.trim_start();
        t.starts_with(['x', 'X', '✗', '✘']) && t[1..].starts_with(' ')
    };
    let starts: Vec<usize> = (a..=b)
        .filter(|&k| {
            states_a_case(lines[k].text)
                || crossed(k)
                || k < b
                    && lines[k + 1].indent > lines[k].indent
                    && lexicon::ARROWS
                        .iter()
                        .any(|a| lines[k + 1].text.trim_start().starts_with(a))
                    && !reading::quotes(lines[k].text).is_empty()
                    && !states_a_case(lines[k + 1].text)
                    && !speaks(lines[k].text)
        })
        .collect();
    if starts.len() < 2 {
        return vec![(a, b)];
    }
    // Cases listed as items of one list: each sibling item starts a case too (one whose
    // turns are nested under it, `- **C-5 Catalog (multi-turn)**:`).
    let mut starts = starts;
    let sibling =
        |k: usize| lines[k].kind == Kind::Item && lines[k].indent == lines[starts[0]].indent;
    if starts.iter().all(|&k| sibling(k)) {
        starts = (starts[0]..=b).filter(|&k| sibling(k)).collect();
    }
    let mut out = Vec::new();
    if starts[0] > a && lines[a].indent < lines[starts[0]].indent {
        // A parent item's own line leads the list in: no part of its first case.
        out.push((starts[0], starts.get(1).map_or(b, |x| x - 1)));
    } else if starts[0] > a {
        // Lead-in lines belong to the first case.
        out.push((a, starts.get(1).map_or(b, |x| x - 1)));
    } else {
        out.push((starts[0], starts.get(1).map_or(b, |x| x - 1)));
    }
    for (k, &s) in starts.iter().enumerate().skip(1) {
        out.push((s, starts.get(k + 1).map_or(b, |x| x - 1)));
    }
    out
}

/// Whether a line is a speaker's turn (`user: "…"`, `Turn 2, user: "…"`), which
/// continues a conversation.
fn speaks(line: &str) -> bool {
    leading_label(line).is_some_and(|(l, _)| {
        label_role(&l) == Some(LabelRole::Prompt)
            || matches!(role_of(&l), Role::Prompt | Role::Prompts | Role::Turn(_))
    }) || user_turn(line)
}

/// Whether a line holds a quoted utterance and, after it, an arrow to what is expected —
/// and is not a speaker's turn.
fn states_a_case(line: &str) -> bool {
    if crate::service::authoring::unit::numbered_utterance(line).is_some() {
        return true;
    }
    if speaks(line) {
        return false;
    }
    let Some(&(_, b)) = reading::quotes(line).first() else {
        return false;
    };
    let after = &line[b..];
    lexicon::ARROWS.iter().any(|a| after.contains(a))
}

/// A list whose items are one-line fields (`- Prompt: "…"`, `- Expected: …`) with at
/// least two prompts: the indices of its items.
fn field_list(lines: &[Ln], a: usize, b: usize) -> Option<Vec<usize>> {
    let base = lines[a].indent;
    let mut items = Vec::new();
    let mut k = a;
    while k < b && lines[k].kind == Kind::Item && lines[k].indent == base {
        if assistant_line(lines[k].text).is_none() {
            leading_label(lines[k].text)?;
        }
        items.push(k);
        k += 1;
    }
    let prompts = items
        .iter()
        .filter(|&&k| lines[k].label == Some(LabelRole::Prompt))
        .count();
    (items.len() >= 2 && prompts >= 2 && prompts < items.len()).then_some(items)
}

/// What the section a unit stands in says of its cases: that it holds cases, and that
/// none of them calls a tool ("### No tool expected", "Scénarios où aucun outil ne doit
/// être utilisé").
#[derive(Clone, Copy, Default)]
struct SectionSays<'a> {
    cases: bool,
    no_tool: bool,
    /// The tool the section is named for (`## get-sum` over the prompts that call it).
    tool: Option<&'a str>,
}

fn free_unit(
    text: &str,
    (start, end): (usize, usize),
    shape: &str,
    title: Option<String>,
    section: SectionSays,
    cat: &Catalog,
    out: &mut Vec<Draft>,
) {
    let cases_section = section.cases;
    let mut segs = segments_of(text);
    // Under a heading that names a tool, a case that names none expects that one.
    if let Some(tool) = section.tool
        && !segs
            .iter()
            .any(|s| matches!(s.role, Some(LabelRole::Tool | LabelRole::Expected)))
        && segs
            .iter()
            .filter(|s| s.role.is_none())
            .all(|s| reading::read(&s.text, cat).calls.is_empty())
    {
        segs.push(Segment::labelled("expected tool", tool));
    }
    let info = UnitInfo {
        shape,
        start,
        end,
        title,
        key: None,
        structured: false,
        title_said: false,
    };
    if let Some(d) = read_unit(&segs, &info, cat) {
        // (Prose about a case thrown out, no call in it: no case.)
        if !(d.expected_calls.is_empty() && super::retract::says_case_dropped(text)) {
            out.push(d);
        }
        return;
    }
    // A quoted prompt alone, in a section of cases that call no tool: a negative case.
    if section.no_tool {
        segs.push(Segment::labelled("expected tool", "none"));
        if let Some(mut d) = read_unit(&segs, &info, cat) {
            d.notes.push("no tool at all, as its section says".into());
            d.exact_rule = None;
            out.push(d);
        }
        return;
    }
    // Under a heading about cases, an item written as an instruction and its expectation
    // (`1. Echo hello back → echo`, `2. Say hi. Expected: no tool`): the instruction is
    // the prompt, when what follows it names a tool or says no tool.
    if cases_section
        && shape == "list item"
        && let Some(segs) = instruction_segments(text)
        && let Some(mut d) = read_unit(&segs, &info, cat)
    {
        d.notes
            .retain(|n| n != "the prompt was read from a quoted utterance");
        d.notes
            .push("the prompt was read from the instruction before the expectation".into());
        d.exact_rule = None;
        out.push(d);
    }
}

/// An unquoted instruction before its expectation, quoted so the unit reader takes it as
/// the prompt.
fn instruction_segments(text: &str) -> Option<Vec<Segment>> {
    let first = text.lines().next()?.trim();
    let t = first
        .get(item_marker(first).unwrap_or(0)..)
        .unwrap_or(first)
        .trim();
    let t = crate::service::authoring::unit::strip_checkbox(t);
    // A struck-through item was dropped, whatever it says.
    if t.starts_with("~~") {
        return None;
    }
    let segs = segments_of(text);
    // (Under the item's title, a `>` quote of what the user types is the prompt.)
    if segs.len() > 1
        && segs[0].label.is_none()
        && let Some(said) = segs[0]
            .text
            .lines()
            .skip(1)
            .find_map(|l| l.trim().strip_prefix('>'))
            .map(str::trim)
            .filter(|q| !q.is_empty())
    {
        let mut out = vec![Segment::labelled("prompt", said.to_string())];
        out.extend(segs.into_iter().skip(1));
        return Some(out);
    }
    let (lead, rest): (String, String) = if segs.len() > 1 && segs[0].label.is_none() {
        let lead = segs[0].text.lines().next().unwrap_or_default().to_string();
        let lead = lead
            .get(item_marker(lead.trim_start()).unwrap_or(0)..)
            .unwrap_or(&lead)
            .to_string();
        (lead, String::new())
    } else {
        let cut = ["→", "->", "➜", " — ", " – "]
            .iter()
            .filter_map(|m| t.find(m))
            .min()?;
        (t[..cut].to_string(), t[cut..].to_string())
    };
    let lead = lead.trim().trim_matches(['*', '_', ' ']).trim().to_string();
    if lead.is_empty() || lead.contains(['"', '“', '«', '「']) {
        return None;
    }
    let mut out = vec![Segment::plain(format!("“{lead}”"))];
    if rest.is_empty() {
        out.extend(segs.into_iter().skip(1));
    } else {
        out.push(Segment::plain(rest));
        out.extend(segments_of(
            &text.lines().skip(1).collect::<Vec<_>>().join("\n"),
        ));
    }
    Some(out)
}

/// Splits a table row into cells: `\|` is a pipe inside a cell; Confluence `||` too.
pub fn cells(row: &str) -> Vec<String> {
    let t = row.trim();
    let t = t
        .strip_prefix("||")
        .or_else(|| t.strip_prefix('|'))
        .unwrap_or(t);
    let t = t
        .strip_suffix("||")
        .or_else(|| t.strip_suffix('|'))
        .unwrap_or(t);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut chars = t.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cur.push('|');
                chars.next();
            }
            '|' => {
                if chars.peek() == Some(&'|') {
                    chars.next();
                }
                out.push(std::mem::take(&mut cur).trim().to_string());
            }
            _ => cur.push(c),
        }
    }
    out.push(cur.trim().to_string());
    // (A sheet converted by pandas writes an empty cell `NaN`.)
    for c in &mut out {
        if blank_cell(c) {
            c.clear();
        }
    }
    out
}

/// A border of a grid table (`+----+-----+`, `+====+`), as reStructuredText and database
/// shells draw them: a separator of the table it frames.
fn grid_border(t: &str) -> bool {
    t.len() >= 3
        && t.starts_with('+')
        && t.ends_with('+')
        && t.chars().all(|c| matches!(c, '+' | '-' | '='))
        && t.contains(['-', '='])
}

fn is_separator(row: &str) -> bool {
    let t = row.trim().trim_matches('|');
    // (A row of empty cells, `| | |`, is a row: it has no rule in it.)
    t.contains(['-', '='])
        && t.chars()
            .all(|c| matches!(c, '-' | ':' | '|' | ' ' | '+' | '='))
}

/// One unit per row of a table whose header has a prompt column.
fn table(lines: &[Ln], a: usize, b: usize, cat: &Catalog, out: &mut Vec<Draft>) {
    // A grid table opens with its border.
    let Some(a) = (a..b).find(|&k| !is_separator(lines[k].text)) else {
        return;
    };
    let names_prompt = |k: usize| {
        cells(lines[k].text)
            .iter()
            .any(|h| matches!(label_role(h), Some(LabelRole::Prompt | LabelRole::Steps)))
    };
    // The header may stand below a title row and empty rows (a sheet converted to
    // Markdown: `| Piano di test … | Unnamed: 1 |`, `| NaN | NaN |`, then the header).
    let a = if names_prompt(a) {
        a
    } else {
        match (a + 1..b.min(a + 6))
            .filter(|&k| !is_separator(lines[k].text))
            .find(|&k| names_prompt(k))
        {
            // (Above it only a title and empty rows: one filled cell a row at most, a
            // converter's `Unnamed: 1` not counted.)
            Some(h)
                if cells(lines[h].text).len() >= 3
                    && (a..h).all(|k| {
                        is_separator(lines[k].text)
                            || cells(lines[k].text)
                                .iter()
                                .filter(|c| !blank_cell(c) && !c.starts_with("Unnamed:"))
                                .count()
                                <= 1
                    }) =>
            {
                h
            }
            // (Or a header in words no lexicon has, whose prompt column its cells show.)
            _ if {
                let mut h = cells(lines[a].text);
                let rows: Vec<Vec<String>> = lines[a + 1..b]
                    .iter()
                    .filter(|l| !is_separator(l.text))
                    .map(|l| cells(l.text))
                    .collect();
                super::keys::name_columns(&mut h, &rows, cat);
                // (What users say, quoted or asked, in most rows: not a table of what
                // each tool does.)
                h.iter()
                    .position(|c| label_role(c) == Some(LabelRole::Prompt))
                    .is_some_and(|p| {
                        let said = rows
                            .iter()
                            .filter_map(|r| r.get(p))
                            .filter(|c| {
                                let c = c.trim();
                                c.ends_with('?') || !reading::quotes(c).is_empty()
                            })
                            .count();
                        said * 2 > rows.len()
                    })
            } =>
            {
                a
            }
            _ => {
                field_table(lines, a, b, cat, out);
                return;
            }
        }
    };
    let mut header = cells(lines[a].text);
    // A row whose first cell is empty continues the one above (a wrapped line, a merged
    // cell, a wiki row's cell written on a line of its own): its cells join the row's, and
    // the row's span grows.
    // In a grid table every line up to the next border is the same row, whatever its
    // first cell holds.
    let grid = lines[a + 1..b].iter().any(|l| grid_border(l.text.trim()));
    let mut bordered = true;
    let mut rows: Vec<(Vec<String>, (usize, usize))> = Vec::new();
    for l in &lines[a + 1..b] {
        if is_separator(l.text) {
            bordered = true;
            continue;
        }
        let row = cells(l.text);
        let continues = grid && !bordered;
        bordered = false;
        match rows.last_mut() {
            Some((prev, span))
                if continues
                    || header.len() > 2 && row.first().is_none_or(|c| c.trim().is_empty()) =>
            {
                for (p, c) in prev.iter_mut().zip(&row) {
                    join_wrapped(p, c.trim());
                }
                span.1 = l.n;
            }
            _ => rows.push((row, (l.n, l.n))),
        }
    }
    // Columns headed in words no lexicon has take the roles their cells show.
    let row_cells: Vec<Vec<String>> = rows.iter().map(|(r, _)| r.clone()).collect();
    super::keys::name_columns(&mut header, &row_cells, cat);
    // A sheet's merged cells that came out blank, as the page says ("a blank tool cell
    // takes the one above"): the tool and forbidden columns fill down.
    let same_as_above = lines
        .iter()
        .any(|l| lexicon::has_any(&lexicon::fold(l.text), lexicon::SAME_AS_ABOVE));
    let mut above: Vec<Option<String>> = vec![None; header.len()];
    for (mut row, span) in rows {
        // A row whose footnote sets it aside (`| 6 | … | [^1] |`, `[^1]: postponed, not
        // run for now`) is no case.
        if row.iter().any(|c| footnote_drops(lines, c)) {
            continue;
        }
        if same_as_above {
            for (c, h) in header.iter().enumerate() {
                if !matches!(label_role(h), Some(LabelRole::Tool | LabelRole::Forbidden)) {
                    continue;
                }
                match row.get(c) {
                    Some(v) if !blank_cell(v) => above[c] = Some(v.clone()),
                    Some(_) => row[c] = above[c].clone().unwrap_or_default(),
                    None => {}
                }
            }
        }
        table_row(&header, &row, "markdown table row", span, cat, out);
    }
}

/// Whether a cell refers to a footnote (`[^1]`) that says its row was dropped or put off.
fn footnote_drops(lines: &[Ln], cell: &str) -> bool {
    let Some(at) = cell.find("[^") else {
        return false;
    };
    let Some(len) = cell[at..].find(']') else {
        return false;
    };
    let mark = &cell[at..=at + len];
    lines.iter().any(|l| {
        l.text.trim_start().strip_prefix(mark).is_some_and(|r| {
            let f = lexicon::fold(r);
            r.starts_with(':')
                && (lexicon::has_any(&f, lexicon::DROPPED_STATUS)
                    || lexicon::has_any(&f, lexicon::EXAMPLE_ONLY))
        })
    })
}

/// A cell with nothing in it, as spreadsheets and their converters write one (`NaN`).
fn blank_cell(c: &str) -> bool {
    let t = c.trim();
    t.is_empty() || matches!(t, "NaN" | "nan" | "None" | "null" | "#N/A")
}

/// A table of two columns that lists one case's fields, a label and its value a row
/// (`| Prompt | "…" |`, `| Expected tool | get-sum |`): one unit.
fn field_table(lines: &[Ln], a: usize, b: usize, cat: &Catalog, out: &mut Vec<Draft>) {
    let rows: Vec<(usize, Vec<String>)> = (a..b)
        .filter(|&k| !is_separator(lines[k].text))
        .map(|k| (k, cells(lines[k].text)))
        .collect();
    if rows.iter().any(|(_, r)| r.len() != 2) {
        return;
    }
    let segs: Vec<Segment> = rows
        .iter()
        .filter(|(_, r)| label_role(&r[0]).is_some_and(LabelRole::is_field))
        .map(|(_, r)| Segment::labelled(&r[0], r[1].clone()))
        .collect();
    if segs.len() < 2 || !segs.iter().any(|s| s.role == Some(LabelRole::Prompt)) {
        return;
    }
    let info = UnitInfo {
        shape: "field table",
        start: lines[a].n,
        end: lines[b - 1].n,
        title: None,
        key: None,
        structured: false,
        title_said: false,
    };
    if let Some(d) = read_unit(&segs, &info, cat) {
        out.push(d);
    }
}

/// Joins a cell's wrapped line to it: a turn of a conversation on a line of its own, words
/// with a space, and a script without spaces (Japanese, Chinese) as it was written.
fn join_wrapped(cell: &mut String, more: &str) {
    if more.is_empty() {
        return;
    }
    // (Han and kana run on without a space; hangul is written with spaces.)
    let wide = |c: char| {
        lexicon::is_cjk(c) && !('\u{ac00}'..='\u{d7a3}').contains(&c)
            || ('\u{3000}'..='\u{303f}').contains(&c)
            || ('\u{ff00}'..='\u{ffef}').contains(&c)
    };
    let turn = assistant_line(more).is_some()
        || leading_label(more).is_some_and(|(l, _)| lexicon::is_user_speaker(&lexicon::fold(&l)));
    // (A cell of assignments, one a line: `path: /srv/x` over `head: 20`.)
    let assignment = |t: &str| {
        t.split_once([':', '=']).is_some_and(|(k, _)| {
            let k = k.trim().trim_matches('`');
            !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || c == '_')
        })
    };
    if !cell.is_empty() {
        if turn || assignment(cell) && assignment(more) {
            cell.push('\n');
        } else if cell.ends_with('/') && !more.contains(' ') {
            // A path wrapped after a separator runs on.
        } else if !(cell.chars().next_back().is_some_and(wide)
            && more.chars().next().is_some_and(wide))
        {
            cell.push(' ');
        }
    }
    cell.push_str(more);
}

/// An AsciiDoc table (between `|===` lines): the first row is the header and sets the
/// number of columns; each later cell starts with `|` and may run over lines, so a row is
/// the next that many cells, wherever the lines break.
fn asciidoc_table(lines: &[Ln], a: usize, b: usize, cat: &Catalog, out: &mut Vec<Draft>) {
    let mut cells: Vec<(usize, String)> = Vec::new();
    let mut header: Option<Vec<String>> = None;
    for l in &lines[a..b] {
        let t = l.text.trim();
        if t.is_empty() {
            continue;
        }
        let mut parts = t.split('|');
        let lead = parts.next().unwrap_or_default().trim();
        if !lead.is_empty()
            && let Some((_, last)) = cells.last_mut()
        {
            last.push('\n');
            last.push_str(lead);
        }
        let row: Vec<String> = parts.map(|c| c.trim().to_string()).collect();
        if header.is_none() {
            header = Some(row);
            continue;
        }
        cells.extend(row.into_iter().map(|c| (l.n, c)));
    }
    let Some(header) = header else { return };
    let roles: Vec<Option<LabelRole>> = header.iter().map(|h| label_role(h)).collect();
    if header.is_empty()
        || !roles
            .iter()
            .any(|r| matches!(r, Some(LabelRole::Prompt | LabelRole::Steps)))
    {
        return;
    }
    for row in cells.chunks(header.len()) {
        let values: Vec<String> = row.iter().map(|(_, c)| c.clone()).collect();
        let span = (row[0].0, row[row.len() - 1].0);
        table_row(&header, &values, "AsciiDoc table row", span, cat, out);
    }
}

/// One row of a table under its header, read as a unit.
fn table_row(
    header: &[String],
    row: &[String],
    shape: &str,
    (start, end): (usize, usize),
    cat: &Catalog,
    out: &mut Vec<Draft>,
) {
    if row.iter().all(|c| c.trim().is_empty()) {
        return;
    }
    // A cell that is nothing but a shouted status (`VOID`, `DROPPED`), in whatever column a
    // protocol keeps it: the row is no case.
    if row.iter().any(|c| {
        let t = c.trim().trim_matches(['*', '_', '~']);
        t.chars().any(char::is_alphabetic)
            && !t.chars().any(char::is_lowercase)
            && lexicon::is_dropped_status(t)
    }) {
        return;
    }
    let mut segs = Vec::new();
    let mut key = None;
    let mut title = None;
    for (h, v) in header.iter().zip(row.iter()) {
        let mut s = Segment::labelled(h, v.clone());
        // (A conversation in one cell, `Utente: … Assistente: … Utente: …`: its turns.)
        if s.role == Some(LabelRole::Prompt)
            && let Some(turns) = super::super::fields::turns_on_one_line(v)
        {
            segs.extend(segments_of(&turns));
            continue;
        }
        // A column whose heading is no known label (`Arguemnts`) but whose cells assign the
        // live tools' parameters holds the arguments.
        if s.role.is_none() && cat.assigns_params(v) {
            s = Segment::labelled("arguments", v.clone());
        }
        match s.role {
            Some(LabelRole::Id) if key.is_none() && !v.trim().is_empty() => {
                key = Some(v.trim().to_string())
            }
            Some(LabelRole::Title) if title.is_none() && !v.trim().is_empty() => {
                title = Some(v.trim().to_string())
            }
            _ => {}
        }
        if s.role == Some(LabelRole::Contains) && lexicon::is_none_word(v) {
            continue;
        }
        // A prompt cell that holds a conversation, one turn a line.
        if s.role == Some(LabelRole::Prompt) && v.contains('\n') {
            let turns = segments_of(v);
            if turns
                .iter()
                .filter(|t| t.role == Some(LabelRole::Prompt))
                .count()
                >= 2
            {
                segs.extend(turns);
                continue;
            }
        }
        segs.push(s);
    }
    let info = UnitInfo {
        shape,
        start,
        end,
        title,
        key,
        structured: true,
        title_said: false,
    };
    if let Some(d) = read_unit(&segs, &info, cat) {
        out.push(d);
    }
}
