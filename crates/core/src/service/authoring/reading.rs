//! Reading what a passage expects, grounded in the catalog: the tools it names (each
//! with the arguments written after it), the tools it forbids, and whether it asks for no
//! tool at all, in every language of the [`lexicon`](super::lexicon).
//!
//! The passage is cut into clauses (at sentence ends, semicolons, commas, dashes, arrows
//! and parentheses); negation is judged per clause:
//! - a clause that negates a tool noun ("no tool", "should not call any tool", "kein
//!   Werkzeug", "ninguna herramienta", "ツールを呼び出さない", "不应调用任何工具", "도구 없이"),
//!   or says the assistant answers directly, makes the case **negative**;
//! - a named tool after a negation in its clause, or before a trailing one ("`x` is not
//!   called", "x は使わない", "x 호출 금지"), is **forbidden** (`toolNeverCalled`);
//! - every other named tool is **expected**, with the arguments written between it and
//!   the next named tool.
//!
//! A negative case never carries an expected tool.

use std::borrow::Cow;

use serde_json::{Map, Value};
use unicode_normalization::UnicodeNormalization;

use super::catalog::{Catalog, Mention, Via};
use super::draft::ExpectedCall;
use super::lexicon::{self, LabelRole, fold, has_any, is_cjk};

/// What a passage says about a case.
#[derive(Debug, Default, Clone)]
pub struct Reading {
    /// The wording that makes the case negative.
    pub negative: Option<String>,
    pub calls: Vec<ExpectedCall>,
    pub never: Vec<String>,
    /// How names were read (a spelling or a description mapped to a live tool).
    pub notes: Vec<String>,
}

impl Reading {
    pub fn is_empty(&self) -> bool {
        self.negative.is_none() && self.calls.is_empty() && self.never.is_empty()
    }
}

/// Removes `~~struck~~` passages (what was crossed out is not asked for).
pub fn strip_struck(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = lexicon::find_str(rest, "~~") {
        let after = &rest[i + 2..];
        match lexicon::find_str(after, "~~") {
            Some(j) => {
                out.push_str(&rest[..i]);
                rest = &after[j + 2..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

/// NFKC, struck passages removed: the text every reading works on.
pub fn prepare(s: &str) -> String {
    if s.is_ascii() {
        return strip_struck(s);
    }
    strip_struck(&s.nfkc().collect::<String>())
}

/// The passage of `source` whose NFKC form is `value`, as `source` writes it.
pub fn verbatim_in(source: &str, value: &str) -> Option<String> {
    // Each source character's NFKC form, with the character's byte range.
    let mut norm = String::with_capacity(source.len());
    let mut from: Vec<(usize, usize, usize)> = Vec::new();
    for (i, c) in source.char_indices() {
        let at = norm.len();
        norm.extend(std::iter::once(c).nfkc());
        from.push((at, i, i + c.len_utf8()));
    }
    let at = norm.find(value)?;
    let end = at + value.len();
    let first = from.iter().rfind(|(n, _, _)| *n <= at)?;
    let last = from.iter().rfind(|(n, _, _)| *n < end)?;
    (first.0 == at).then(|| source[first.1..last.2].to_string())
}

/// Byte ranges of the clauses of `t`.
pub fn clauses(t: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in t.char_indices() {
        if cuts_at(t, i, c) {
            if i > start {
                out.push((start, i));
            }
            start = i + c.len_utf8();
        }
    }
    if start < t.len() {
        out.push((start, t.len()));
    }
    out
}

/// The last of [`clauses`] of `t`, found from the end (a unit's last words are asked
/// about, not all of its clauses, each line break of which needs its next line read).
pub fn last_clause(t: &str) -> Option<(usize, usize)> {
    let mut end = t.len();
    for (i, c) in t.char_indices().rev() {
        if cuts_at(t, i, c) {
            let next = i + c.len_utf8();
            if next < end {
                return Some((next, end));
            }
            end = i;
        }
    }
    (end > 0).then_some((0, end))
}

/// Whether character `c`, at byte `i` of `t`, ends a clause.
fn cuts_at(t: &str, i: usize, c: char) -> bool {
    let b = t.as_bytes();
    match c {
        '\n' => {
            let next = t[i + 1..].trim_start_matches([' ', '\t', '\r']);
            next.is_empty()
                || next.starts_with(['-', '*', '•', '➜', '→', '>', '|', '\n'])
                || next.chars().next().is_some_and(|c| c.is_ascii_digit())
                || super::unit::has_leading_label(next.lines().next().unwrap_or_default())
        }
        ';' | '!' | '?' | '(' | ')' | '→' | '➜' | '。' | '、' | '|' | '·' => true,
        ',' => {
            !(i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
        }
        '.' => b
            .get(i + 1)
            .is_none_or(|n| *n == b' ' || *n == b'\n' || *n == b'\r'),
        '—' | '–' => true,
        '-' => {
            b.get(i + 1) == Some(&b'>')
                || (i > 0 && b[i - 1] == b' ' && b.get(i + 1) == Some(&b' '))
        }
        ':' => b.get(i + 1).is_none_or(|n| *n == b' '),
        _ => false,
    }
}

fn word_list(f: &str) -> Vec<&str> {
    f.split(|c: char| !(lexicon::is_letter(c) || c == '\'' || c == '-'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// Whether `w` is a word of `list` or starts with one of its prefixes (`word*`).
fn matches_word(w: &str, list: &'static [&'static str]) -> bool {
    lexicon::matches_listed(list, w)
}

/// Thai's "not", "must not", "don't": written into the words they negate; and Lao's and
/// Khmer's, written the same way (`ບໍ່ໃຊ້ເຄື່ອງມື`, `កុំប្រើឧបករណ៍`).
const THAI_NOT: &[&str] = &[
    "ไม่",
    "ห้าม",
    "อย่า",
    "ບໍ່",
    "ຫ້າມ",
    "ຢ່າ",
    "មិន",
    "កុំ",
    "ហាម",
    "គ្មាន",
];

/// Whether a folded clause asks for no tool at all; the wording when it does.
pub fn negative_clause(f: &str) -> Option<String> {
    // (Each reading below needs one of its cue words: most clauses hold none.)
    if !lexicon::may_negate(f) {
        return None;
    }
    // A tool noun governed by a negation or a negating determiner.
    for (at, len, i) in lexicon::WordSet::of(lexicon::TOOL_NOUNS).find(f) {
        let noun = lexicon::TOOL_NOUNS[i];
        let before = &f[..at];
        let after_start = at + len;
        let after = &f[after_start..];
        let next = word_list(after).into_iter().next().unwrap_or_default();
        // "não deve chamar a ferramenta `get-stats`": the noun names the tool after it.
        if matches_word(next, lexicon::NOT_NEGATIVE_AFTER) || next == NAME {
            continue;
        }
        // "without" after the noun, as Hungarian, Georgian and Somali write it (`eszköz
        // nélkül`, `ხელსაწყოს გარეშე`, `qalab la'aan`).
        // (After the noun's whole word: `ხელსაწყო*` matches `ხელსაწყოს`.)
        let word_end = after
            .find(|c: char| !lexicon::is_letter(c))
            .unwrap_or(after.len());
        let next_word = word_list(&after[word_end..])
            .into_iter()
            .next()
            .unwrap_or_default();
        if ["nelkul", "გარეშე", "olmadan", "bila", "bez", "la'aan"].contains(&next_word)
            && !word_list(before)
                .iter()
                .rev()
                .take(4)
                .any(|w| matches_word(w, lexicon::NEGATION))
        {
            return Some(format!("{} {next_word}", noun.trim_end_matches('*')));
        }
        // The eight characters before the noun, where a CJK sentence negates it.
        let prev: String = before
            .chars()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        // (Thai spells its words out: "ไม่ต้องเรียก" runs longer than eight characters.)
        let thai: String = before
            .chars()
            .rev()
            .take(20)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        // (Every word looked for is non-ASCII, and `thai` holds `prev`.)
        let neg_before = !thai.is_ascii()
            && ([
                "不", "无", "無", "没有", "沒有", "禁止", "别", "勿", "아무", "何も",
            ]
            .iter()
            .any(|w| prev.contains(w))
                || THAI_NOT.iter().any(|w| thai.contains(w)));
        if noun.chars().any(is_cjk) {
            // ("不要找別的工具": no other tool, beside the one named.)
            if ["别的", "別的", "其他", "其它", "他の", "別の", "다른"]
                .iter()
                .any(|w| prev.trim_end().ends_with(w))
            {
                continue;
            }
            let post: String = after.chars().take(12).collect();
            let neg_after = [
                "ない",
                "なし",
                "ずに",
                "せず",
                "不要",
                "않",
                "없",
                "금지",
                "미사용",
                "안 ",
                "말",
                // Burmese negates the verb after the noun (`ကိရိယာ မသုံးရ`).
                "မခေါ်",
                "မသုံး",
                "မလို",
                "မရှိ",
                "မပါ",
                "တားမြစ်",
            ]
            .iter()
            .any(|w| post.contains(w));
            // "可以不调用任何工具" (may call none), "使わなくてもよい", "않아도 된다":
            // allowed, not required.
            let permissive = ["可以", "也可", "てもよい", "てもいい", "도 된", "도 괜찮"]
                .iter()
                .any(|w| prev.contains(w) || post.contains(w));
            if (neg_before || neg_after) && !permissive {
                return Some(format!("{}{}{}", prev.trim(), noun, post.trim()));
            }
            continue;
        }
        // (A Latin noun in a CJK sentence, `不要叫任何tool`: negated as the sentence's
        // own nouns are.)
        if neg_before && prev.chars().any(is_cjk) {
            return Some(format!("{}{}", prev.trim(), noun.trim_end_matches('*')));
        }
        let words = word_list(before);
        // (A negation reaches further over "any": Tagalog's "hindi tumawag ng kahit anong
        // tool" puts five words between.)
        let reach = if words
            .iter()
            .rev()
            .take(2)
            .any(|w| matches_word(w, lexicon::ANY_WORDS))
        {
            6
        } else {
            4
        };
        let near: Vec<&str> = words.iter().rev().take(reach).copied().collect();
        // "must not answer without tools" (`Не сме да рачуна „напамет“ без алата`): a
        // negation before "without" asks for a tool.
        const WITHOUT: &[&str] = &[
            "without",
            "ohne",
            "sans",
            "sin",
            "senza",
            "zonder",
            "sem",
            "bez",
            "без",
            "utan",
            "uden",
            "uten",
            "ilman",
            "nelkul",
            "fara",
            "χωρις",
            "بدون",
            "בלי",
            "tanpa",
            "sonder",
            "heb",
            "minghajr",
        ];
        if let Some(k) = near.iter().position(|w| WITHOUT.contains(w))
            && words
                .iter()
                .rev()
                .skip(k + 1)
                .take(5)
                .any(|w| matches_word(w, lexicon::NEGATION) || w.ends_with("n't"))
        {
            continue;
        }
        // "no other tool" (beside a named one): not a negative.
        if near
            .first()
            .is_some_and(|w| matches_word(w, lexicon::NOT_NEGATIVE_AFTER))
        {
            continue;
        }
        let neg = near
            .iter()
            .any(|w| matches_word(w, lexicon::NEGATION) || matches_word(w, lexicon::NO_DETERMINER))
            || near.iter().any(|w| w.contains("n't"))
                && has_any(
                    &near.iter().rev().copied().collect::<Vec<_>>().join(" "),
                    &["n't"],
                )
            || near.iter().any(|w| w.ends_with("n't"));
        // "fallaría por tiempo, no por la herramienta": a negated cause, not a call.
        let cause = near
            .iter()
            .take_while(|w| {
                !(matches_word(w, lexicon::NEGATION) || matches_word(w, lexicon::NO_DETERMINER))
            })
            .any(|w| {
                [
                    "por", "because", "wegen", "cause", "due", "pela", "pelo", "door", "per",
                ]
                .contains(w)
            });
        // Verb-final languages put the negation after the noun and its verb, the "any"
        // before it: "کوئی ٹول کال نہیں", "কোনো টুল ডাকবে না".
        let any_before = near.first().is_some_and(|w| {
            matches_word(w, lexicon::ANY_WORDS) || matches_word(w, lexicon::NO_DETERMINER)
        });
        let neg_after = any_before
            && word_list(after)
                .into_iter()
                .take(3)
                .any(|w| matches_word(w, lexicon::NEGATION_AFTER));
        let neg = neg || neg_after;
        if neg && !cause {
            let phrase: Vec<&str> = words.iter().rev().take(4).rev().copied().collect();
            return Some(format!(
                "{} {}",
                phrase.join(" "),
                noun.trim_end_matches('*')
            ));
        }
    }
    let words = word_list(f);
    // "call nothing", "nichts aufrufen", "nic nevolat" (a Slavic verb negated as the
    // "nothing" is): nothing as what is called; not "call X, nothing else".
    let calls = |w: &str| {
        matches_word(w, lexicon::CALL_VERBS)
            || w.strip_prefix("ne")
                .is_some_and(|v| v.len() > 2 && matches_word(v, lexicon::CALL_VERBS))
    };
    for (i, w) in words.iter().enumerate() {
        if !matches_word(w, lexicon::NOTHING)
            || words
                .get(i + 1)
                .is_some_and(|n| matches_word(n, lexicon::ELSE_WORDS))
        {
            continue;
        }
        // (Georgian puts "must not" between: `არაფერი არ უნდა გამოიძახოს`.)
        let near = &words[i.saturating_sub(2)..(i + 4).min(words.len())];
        if !near.contains(&NAME) && near.iter().any(|x| calls(x)) {
            return Some(near.join(" "));
        }
    }
    // "answers directly", "just reply", "直接回答".
    for (i, w) in words.iter().enumerate() {
        if matches_word(w, lexicon::ANSWER_VERBS) {
            let lo = i.saturating_sub(3);
            let hi = (i + 4).min(words.len());
            let window = words[lo..hi].join(" ");
            if has_any(&window, lexicon::DIRECTLY) {
                return Some(window);
            }
        }
    }
    for v in lexicon::ANSWER_DIRECTLY {
        if !f.is_ascii() && f.contains(v) {
            return Some(v.to_string());
        }
    }
    None
}

/// A word that negates what follows it ("not", "nie", "don't"); "no" alone only as a
/// determiner, which is looked at apart.
fn negates(w: &str) -> bool {
    matches_word(w, lexicon::NEGATION) && !["no", "none", "zero"].contains(&w) || w.ends_with("n't")
}

/// Whether the mention at `m` (within clause `c`) is negated.
/// Whether the tool's sentence says the case fails if it is called: "`legacy-echo` est
/// déprécié : s'il est appelé, le cas est en échec", "if it calls crash the run fails".
fn fails_if_called(t: &str, m: &Mention) -> bool {
    const IF: &[&str] = &[
        "if",
        "si",
        "s'il",
        "s’il",
        "wenn",
        "falls",
        "se",
        "als",
        "om",
        "jesli",
        "jezeli",
        "もし",
        "如果",
        "若",
        "만약",
        "면",
        // (Turkish makes the condition a suffix of the verb: "çağırırsa".)
        "cagirirsa",
        "cagrilirsa",
        "kullanirsa",
        "kullanilirsa",
        "ha",
        "pokud",
        "kdyz",
        "если",
        "якщо",
        "daca",
        "ako",
        "jos",
        "hvis",
        "jika",
        "kalau",
        "apabila",
        "neu",
        "ถ้า",
        "अगर",
        "यदि",
        "اذا",
        "إذا",
        "אם",
        "اگر",
        "ja",
        "jei",
        "jeigu",
        "kui",
        "αν",
        "nese",
        "indien",
        "ef",
    ];
    const FAILS: &[&str] = &[
        "fail*",
        "echec",
        "echoue",
        "falla",
        "fallo",
        "fehl*",
        "scheitert",
        "falha",
        "falhou",
        "fallisce",
        "fallito",
        "faalt",
        "mislukt",
        "失敗",
        "失败",
        "실패",
        "不合格",
        "yanlis*",
        "basarisiz*",
        "sikertelen",
        "bukik",
        "selh*",
        "nieudan*",
        "niepowodzen*",
        "провал*",
        "неуспеш*",
        "неудач*",
        "esuat",
        "esueaza",
        "neuspjes*",
        "neuspjeh",
        "epaonnist*",
        "hylatty",
        "hylataan",
        "misslyck*",
        "underkand",
        "fejler",
        "fejlet",
        "feiler",
        "feilet",
        "gagal",
        "that bai",
        "ล้มเหลว",
        "ไม่ผ่าน",
        "विफल",
        "फेल",
        "فشل",
        "נכשל",
        "شکست",
        "neizdev*",
        "nepavyk*",
        "nesekming*",
        "αποτυχ*",
        "ebaonnestu*",
        "deshtim",
        "mislukk*",
    ];
    const CALLED: &[&str] = &[
        "cagirirsa",
        "cagrilirsa",
        "kullanirsa",
        "kullanilirsa",
        "call*",
        "invok*",
        "use",
        "used",
        "appel*",
        "utilis*",
        "llam*",
        "usad*",
        "aufgerufen",
        "aufruf*",
        "verwendet",
        "chamad*",
        "chiamat*",
        "usat*",
        "aangeroepen",
        "gebruikt",
        "呼ば",
        "呼び出",
        "调用",
        "呼叫",
        "使用",
        "호출",
        "사용",
        "부르",
        "불러",
        "부를",
        "hiv*",
        "vola*",
        "zavola*",
        "wywola*",
        "uzyt*",
        "вызов*",
        "вызыва*",
        "виклик*",
        "apel*",
        "poziv*",
        "kutsu*",
        "anrop*",
        "kald*",
        "panggil*",
        "dipanggil",
        "goi",
        "เรียก",
        "कॉल",
        "استدعاء",
        "فراخوان*",
        "izsauc*",
        "iskvie*",
        "kaivita*",
        "καλει*",
        "κληθ*",
        "thirr*",
        "aanroep*",
        "roep*",
    ];
    let start = t[..m.start]
        .char_indices()
        .rev()
        .find(|(_, c)| matches!(c, '.' | '!' | '?' | '。' | '\n'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = t[m.end..]
        .find(['.', '!', '?', '。', '\n'])
        .map_or(t.len(), |i| m.end + i);
    let f = fold(&t[start..end]);
    has_any(&f, IF) && has_any(&f, FAILS) && has_any(&f, CALLED)
}

/// Whether the sentence has the tool as its subject and a negated modal as its verb, with
/// no tool named after it: "The deprecated legacy-echo, which upper-cases its input, must
/// not be used", "Das veraltete Echo-Tool (`legacy-echo`) darf nicht zum Einsatz kommen".
fn subject_forbidden(t: &str, m: &Mention, all: &[Mention]) -> bool {
    const MODALS: &[&str] = &[
        "must", "should", "may", "can", "darf", "durfen", "soll", "sollte", "doit", "doivent",
        "debe", "deben", "deve", "devem", "pode", "mag", "mogen", "moet", "kan", "puo", "puede",
    ];
    const NOT: &[&str] = &[
        "not", "nicht", "pas", "no", "nao", "non", "niet", "never", "nie",
    ];
    let end = t[m.end..]
        .find(['.', '!', '?', '。', '\n', ';'])
        .map_or(t.len(), |i| m.end + i);
    // (Another tool named after it is the object of the verb: "…, must not call X".)
    if all.iter().any(|o| o.start >= m.end && o.start < end) {
        return false;
    }
    let sentence_start = t[..m.start]
        .rfind(['.', '!', '?', '。', '\n', ';'])
        .map_or(0, |i| i + t[i..].chars().next().map_or(1, char::len_utf8));
    let before = fold(&t[sentence_start..m.start]);
    if word_list(&before)
        .iter()
        .any(|w| matches_word(w, lexicon::CALL_VERBS))
    {
        return false;
    }
    let after = fold(&t[m.end..end]);
    let words = word_list(&after);
    const NEGATED_MODALS: &[&str] = &["mustn't", "shouldn't", "can't", "cannot", "mayn't"];
    words.iter().enumerate().any(|(i, w)| {
        NEGATED_MODALS.contains(w)
            || matches_word(w, MODALS)
                && (words[i + 1..].iter().take(3).any(|x| NOT.contains(x))
                    || i > 0 && NOT.contains(&words[i - 1]))
    })
}

/// The text with each word it quotes written `q`: the words around keep their distances.
fn without_quotes(t: &str) -> Cow<'_, str> {
    let spans = quotes(t);
    if spans.is_empty() {
        return Cow::Borrowed(t);
    }
    let mut out = String::with_capacity(t.len());
    let mut pos = 0;
    for (a, b) in spans {
        if a >= pos {
            out.push_str(&t[pos..a]);
            for _ in t[a..b].split_whitespace() {
                out.push_str(" q");
            }
            out.push(' ');
            pos = b;
        }
    }
    out.push_str(&t[pos..]);
    Cow::Owned(out)
}

/// What [`blank_mentions`] writes for a tool's name.
const NAME: &str = "xtoolnamex";

/// Clause `c` of `t` with each tool it names written [`NAME`].
fn blank_mentions(t: &str, c: (usize, usize), all: &[Mention]) -> String {
    let mut out = String::with_capacity(c.1 - c.0);
    let mut pos = c.0;
    for o in all.iter().filter(|o| o.start >= c.0 && o.end <= c.1) {
        if o.start >= pos {
            out.push_str(&t[pos..o.start]);
            out.push_str(NAME);
            pos = o.end;
        }
    }
    out.push_str(&t[pos.min(c.1)..c.1]);
    out
}

/// Whether clause `c` holds only tool names, joined by `and`/`or` at most.
fn only_names(t: &str, c: (usize, usize), all: &[Mention]) -> bool {
    let f = fold(&blank_mentions(t, c, all));
    word_list(&f)
        .iter()
        .all(|w| *w == NAME || lexicon::listed(lexicon::CONJUNCTIONS, w))
}

fn negated(t: &str, c: (usize, usize), m: &Mention, all: &[Mention]) -> bool {
    // (`=> get-sum  !get-stats`: a bang right before a name, as filters write "not".)
    let lead = t[..m.start].trim_end_matches('`');
    // (`!> get-forecast`: an arrow of its own for what is not called.)
    if lead.trim_end().ends_with("!>") {
        return true;
    }
    if let Some(rest) = lead.strip_suffix('!')
        && (rest.is_empty() || rest.ends_with(char::is_whitespace))
    {
        return true;
    }
    // A name in parentheses after what it names ("must not comment on an issue
    // (`add_issue_comment`)", "merging is forbidden (`merge_pull_request`)"): negated by
    // the clause before the parenthesis.
    if t[..c.0].ends_with('(') && only_names(t, c, all) {
        let head = &t[..c.0 - 1];
        let from = head
            .rfind(['.', ';', '\n', ',', '!', '?', '。', '—', '–', ')'])
            .map_or(0, |i| {
                i + head[i..].chars().next().map_or(1, char::len_utf8)
            });
        let words = fold(&head[from..]);
        if word_list(&words)
            .iter()
            .any(|w| negates(w) || matches_word(w, lexicon::NEGATION_AFTER))
        {
            return true;
        }
    }
    // Earlier names in the clause count as one word each ("not call a.b_c or x").
    let mut raw_before = String::new();
    let mut pos = c.0;
    for o in all.iter().filter(|o| o.start >= c.0 && o.end <= m.start) {
        if o.start >= pos {
            raw_before.push_str(&t[pos..o.start]);
            raw_before.push_str(" x ");
            pos = o.end;
        }
    }
    raw_before.push_str(&t[pos..m.start.max(pos)]);
    let before = fold(&raw_before);
    // (A name in parentheses, `古いほう（legacy-echo）は呼ばない`, is negated by what
    // follows the parenthesis, up to the sentence's end.)
    // (Nor is one followed by a remark in parentheses, `legacy-echo (versaler) får inte
    // anropas`: the clause goes on after it.)
    let remark_end = (m.end <= c.1 && t[m.end..c.1].trim().is_empty() && t[c.1..].starts_with('('))
        .then(|| t[c.1..].find(')').map(|i| c.1 + i + 1))
        .flatten();
    let after_end = if t[c.1..].starts_with(')') || remark_end.is_some() {
        let from = remark_end.unwrap_or(c.1);
        t[from..]
            .find(['.', '。', ';', '\n', ',', '，', '、', '—', '–'])
            .map_or(t.len(), |i| from + i)
    } else {
        c.1
    };
    // (A quoted value after the name, `title "Bin day not shown"`, says nothing of it.)
    let after = fold(&without_quotes(&t[m.end.min(after_end)..after_end]));
    // ("`legacy-echo` (upper case) shall under no circumstances be called".)
    if has_any(&after, lexicon::NEVER_IDIOMS) {
        return true;
    }
    let bw = word_list(&before);
    let near: Vec<&str> = bw.iter().rev().take(5).copied().collect();
    if near.iter().any(|w| negates(w)) {
        return true;
    }
    if bw.iter().rev().take(5).any(|w| ["no", "ne"].contains(w))
        || bw
            .iter()
            .rev()
            .take(2)
            .any(|w| lexicon::listed(lexicon::NO_DETERMINER, w))
    {
        return true;
    }
    // (`→ get-sum × get-stats`: a cross before a name strikes it.) (Every word looked
    // for here and after the name is non-ASCII.)
    if !before.is_ascii()
        && [
            "不要", "不能", "不应", "不得", "别", "勿", "禁止", "不", "금지", "×", "✗", "✘",
        ]
        .iter()
        .chain(THAI_NOT)
        .any(|w| before.contains(w))
    {
        return true;
    }

    let aw: Vec<&str> = word_list(&after).into_iter().take(6).collect();
    if aw
        .iter()
        .any(|w| matches_word(w, lexicon::NEGATION_AFTER) || w.ends_with("n't"))
    {
        return true;
    }
    let post: String = after.chars().take(16).collect();
    !post.is_ascii()
        && [
            "ない",
            "しない",
            "せず",
            "ずに",
            "禁止",
            "않",
            "안 됨",
            "안 돼",
            "안됨",
            "안 됩",
            "안 된",
            "안됩",
            "금지",
            "말 것",
            "말고",
            "不要",
            "不",
        ]
        .iter()
        .any(|w| post.contains(w))
}

/// Reads a passage against the catalog.
pub fn read(text: &str, cat: &Catalog) -> Reading {
    let t = prepare(text);
    read_prepared(&t, cat)
}

pub fn read_prepared(t: &str, cat: &Catalog) -> Reading {
    let mut r = Reading::default();
    let cls = clauses(t);
    let mentions = cat.mentions(t);
    let clause_of = |pos: usize| cls.iter().copied().find(|(a, b)| *a <= pos && pos < *b);
    let mut negated_clauses: Vec<(usize, usize)> = Vec::new();
    let mut never_clauses: Vec<(usize, usize)> = Vec::new();
    let mut negative_other = false;
    for c in &cls {
        // (A tool noun inside a name is no negative: "nicht auf das Statistik-Tool
        // ausweichen" forbids one tool.)
        let names = mentions.iter().any(|m| m.start >= c.0 && m.end <= c.1);
        let f = if names {
            Cow::Owned(fold(&blank_mentions(t, *c, &mentions)))
        } else {
            lexicon::fold_cow(&t[c.0..c.1])
        };
        // (`**Nu** are voie`: emphasis is no part of the words.)
        let f = if f.contains("**") {
            Cow::Owned(f.replace("**", ""))
        } else {
            f
        };
        // "In nessun caso deve essere chiamato X", "auf keinen Fall X": what the clause
        // names is never to be called.
        if names && has_any(&f, lexicon::NEVER_IDIOMS) {
            never_clauses.push(*c);
        }
        if let Some(w) = negative_clause(&f) {
            negated_clauses.push(*c);
            if has_any(
                &f,
                &[
                    "other", "andere*", "autre*", "otra*", "outra*", "altr*", "ander*",
                ],
            ) || f.contains("其他")
                || f.contains("他の")
                || f.contains("다른")
            {
                negative_other = true;
            }
            if r.negative.is_none() {
                r.negative = Some(w.trim().to_string());
            }
        }
    }
    // `"…" => none`, `→ keins`: an arrow to nothing.
    if r.negative.is_none()
        && lexicon::may_hold_arrow(t)
        && let Some(none) = lexicon::ARROWS.iter().find_map(|a| {
            let at = t.find(a)?;
            let head = t[at + a.len()..].split([',', ';', '(', '\n', '!']).next()?;
            lexicon::is_none_word(head).then(|| head.trim().to_string())
        })
    {
        r.negative = Some(none);
    }
    let mut positive: Vec<&Mention> = Vec::new();
    let mut last_negated: Vec<(String, usize)> = Vec::new();
    // The clause of the last forbidden name: `禁止 X、Y`, `must not call X, Y or Z` go on
    // forbidding in the clauses that list nothing but names.
    let mut last_never: Option<(usize, usize)> = None;
    for m in &mentions {
        let c = clause_of(m.start).unwrap_or((0, t.len()));
        let listed_on = last_never.is_some_and(|(_, end)| {
            end <= c.0
                && t.get(end..c.0).is_some_and(|gap| gap.chars().count() <= 2)
                && only_names(t, c, &mentions)
        });
        let neg = negated(t, c, m, &mentions)
            || negated_clauses.contains(&c)
            || listed_on
            || never_clauses.contains(&c)
            || subject_forbidden(t, m, &mentions)
            || fails_if_called(t, m);
        last_never = neg.then_some(c);
        let name = match m.tool {
            Some(i) => cat.name(i).to_string(),
            None => m.written.clone(),
        };
        if neg {
            last_negated.push((name.clone(), m.start));
            if !r.never.contains(&name) {
                r.never.push(name);
            }
        } else {
            positive.push(m);
        }
    }
    // "must not call X (or anything else)": nothing may be called.
    if r.negative.is_none() && positive.is_empty() && !r.never.is_empty() {
        let f = fold(t);
        if let Some(p) = lexicon::ANYTHING_ELSE.iter().find(|p| f.contains(*p)) {
            r.negative = Some((*p).to_string());
        }
    }
    // "calls X and no other tool": the negative clause limits, it does not forbid all.
    if r.negative.is_some() && negative_other && !positive.is_empty() {
        r.negative = None;
    }
    if r.negative.is_some() {
        positive.clear();
    }
    for (k, m) in positive.iter().enumerate() {
        let name = match m.tool {
            Some(i) => cat.name(i).to_string(),
            None => m.written.clone(),
        };
        let next = positive
            .iter()
            .skip(k + 1)
            .find(|n| n.tool != m.tool)
            .map(|n| n.start)
            .unwrap_or(t.len());
        let next = mentions
            .iter()
            .filter(|n| n.start >= m.end && n.tool != m.tool)
            .map(|n| n.start)
            .min()
            .unwrap_or(next)
            .min(next);
        let args = match m.tool {
            Some(i) if next > m.end => cat.read_args(i, &t[m.end..next]),
            _ => Map::new(),
        };
        if let Some(existing) = r.calls.iter_mut().find(|c| c.tool == name) {
            if !args.is_empty() {
                let a = existing.args.get_or_insert_with(Map::new);
                for (k, v) in args {
                    a.entry(k).or_insert(v);
                }
            }
            continue;
        }
        match m.via {
            Via::Exact => {}
            Via::Spelling => r
                .notes
                .push(format!("`{}` mapped to the live tool `{name}`", m.written)),
            Via::Description => r.notes.push(format!(
                "\"{}\" mapped to the live tool `{name}` by its description",
                m.written.trim()
            )),
        }
        r.calls.push(ExpectedCall {
            tool: name,
            args: (!args.is_empty()).then_some(args),
        });
    }
    // A tool both named and forbidden ("get-sum を何度も呼んで…のは NG なので、get-sum は
    // 呼ばない") beside another one that is only named: forbidden.
    let conflicted: Vec<String> = r
        .calls
        .iter()
        .filter(|c| r.never.contains(&c.tool))
        .map(|c| c.tool.clone())
        .collect();
    // So is one whose last word is that it is forbidden ("… went to get-stats; this case
    // must not call get-stats").
    let said_last = |tool: &str| {
        let neg = last_negated
            .iter()
            .filter(|(n, _)| n == tool)
            .map(|(_, at)| *at)
            .max();
        let pos = positive
            .iter()
            .filter(|m| m.tool.map(|i| cat.name(i)) == Some(tool))
            .map(|m| m.start)
            .max();
        neg > pos
    };
    if !conflicted.is_empty() && r.calls.len() > conflicted.len() {
        r.calls.retain(|c| !conflicted.contains(&c.tool));
    } else {
        r.calls
            .retain(|c| !(conflicted.contains(&c.tool) && said_last(&c.tool)));
    }
    r.never.retain(|n| !r.calls.iter().any(|c| &c.tool == n));
    r
}

/// Arguments for `tool` in an argument field (`a = 1.5, b = 2.25`, `{"a": 1}`,
/// `numbers: [3, 9]`).
pub fn read_args_field(text: &str, tool: &str, cat: &Catalog) -> Option<Map<String, Value>> {
    let t = decimal_commas(&without_negated_asides(&prepare(text)));
    let t = t.trim().trim_matches('`').trim();
    if let Some((i, _)) = cat.resolve(tool) {
        let a = cat.read_args(i, t);
        if !a.is_empty() {
            return Some(a);
        }
    }
    if let Ok(Value::Object(m)) = serde_json::from_str::<Value>(t) {
        return Some(m);
    }
    None
}

/// An arguments field without its negated asides: `pageSize = 10 (no cursor shall be
/// supplied)` states no cursor.
fn without_negated_asides(t: &str) -> Cow<'_, str> {
    let Some(open) = t.find('(') else {
        return Cow::Borrowed(t);
    };
    let Some(len) = t[open..].find(')') else {
        return Cow::Borrowed(t);
    };
    let aside = &t[open + 1..open + len];
    let f = lexicon::fold(aside);
    if aside.contains(['=', ':', '"']) || !lexicon::has_any(&f, lexicon::NEGATION) {
        return Cow::Borrowed(t);
    }
    Cow::Owned(format!("{}{}", &t[..open], &t[open + len + 1..]))
}

/// A field that parts its values with semicolons (`a = 12,5; b = 7,25`, `[1,5; 2,5]`), as
/// writers with a decimal comma do: its commas between digits are decimal points, and a
/// space between digit groups (`1 024`) is a thousands separator.
fn decimal_commas(t: &str) -> String {
    if !t.contains(';') || t.contains(", ") && !t.contains("; ") {
        return t.to_string();
    }
    let c: Vec<char> = t.chars().collect();
    let mut out = String::with_capacity(t.len());
    for (i, &ch) in c.iter().enumerate() {
        let digit_before = i > 0 && c[i - 1].is_ascii_digit();
        let digit_after = c.get(i + 1).is_some_and(char::is_ascii_digit);
        match ch {
            ',' if digit_before && digit_after => out.push('.'),
            ' ' | '\u{a0}' | '\u{202f}'
                if digit_before
                    && c.len() >= i + 4
                    && c[i + 1..i + 4].iter().all(char::is_ascii_digit)
                    && c.get(i + 4).is_none_or(|x| !x.is_ascii_digit()) => {}
            _ => out.push(ch),
        }
    }
    out
}

/// The quoted utterances of a passage, with their byte spans (quotes excluded): straight
/// and curly double quotes, „…“, «…», 「…」, 『…』. Quotes inside code spans are skipped.
/// Spans set in italics (`*…*`, `_…_`) right before an arrow: an utterance written the
/// way chats render what someone says (`bir de negatif lazım: *Yağmur neden yağar?* → …`).
pub fn arrowed_emphasis(t: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for arrow in lexicon::ARROWS {
        for (at, _) in t.match_indices(arrow) {
            let before = t[..at].trim_end();
            let Some(mark) = before
                .chars()
                .next_back()
                .filter(|c| matches!(c, '*' | '_'))
            else {
                continue;
            };
            let close = before.len() - 1;
            // (Bold, `**…**`, states; italics say.)
            if before[..close].ends_with(mark) {
                continue;
            }
            if let Some(open) = before[..close].rfind(mark)
                && !before[..open].ends_with(mark)
                && before[open + 1..close].trim() == &before[open + 1..close]
                && !before[open + 1..close].is_empty()
            {
                out.push((open + 1, close));
            }
        }
    }
    out.sort_unstable();
    out
}

pub fn quotes(t: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut code = false;
    let mut i = 0;
    let b = t.as_bytes();
    while i < t.len() {
        // Only a backtick or an opening quote matters: every other character is passed
        // over by its bytes (each opening quote is `"` or starts with 0xC2, 0xE2 or 0xE3).
        match b[i..]
            .iter()
            .position(|x| matches!(x, b'"' | b'`' | 0xC2 | 0xE2 | 0xE3))
        {
            Some(p) => i += p,
            None => break,
        }
        let c = t[i..].chars().next().unwrap();
        let len = c.len_utf8();
        if c == '`' {
            code = !code;
            i += len;
            continue;
        }
        if code {
            i += len;
            continue;
        }
        let close: &[char] = match c {
            '"' => &['"'],
            '“' => &['”', '“'],
            '„' => &['“', '”'],
            '«' => &['»'],
            '「' => &['」'],
            '『' => &['』'],
            _ => {
                i += len;
                continue;
            }
        };
        let start = i + len;
        // The closing quote: for „/“ pairs nesting is allowed (`„Was bedeutet ‚x‘?“`).
        let mut j = start;
        let mut depth = 0;
        let mut found = None;
        // (A `"` closes at the next `"`, unless a line break comes first after nothing but
        // blanks: only those two bytes matter, found with memchr.)
        while c == '"' && j < t.len() {
            let Some(k) = memchr::memchr2(b'"', b'\n', &b[j..]) else {
                j = t.len();
                break;
            };
            j += k;
            if b[j] == b'"' {
                found = Some(j);
                break;
            }
            if t[start..j].trim().is_empty() {
                break;
            }
            j += 1;
        }
        while c != '"' && j < t.len() {
            let d = t[j..].chars().next().unwrap();
            if d == c && c != '"' && !close.contains(&d) {
                depth += 1;
            } else if close.contains(&d) {
                if depth == 0 {
                    found = Some(j);
                    break;
                }
                depth -= 1;
            } else if d == '\n' && c == '"' && t[start..j].trim().is_empty() {
                break;
            }
            j += d.len_utf8();
        }
        // (`„…"`: a low quote typed open, closed by the keyboard's own, on its line.)
        if found.is_none() && c == '„' {
            let line_end = t[start..].find('\n').map_or(t.len(), |k| start + k);
            found = t[start..line_end].find('"').map(|k| start + k);
        }
        match found {
            Some(e) => {
                out.push((start, e));
                i = e + t[e..].chars().next().unwrap().len_utf8();
            }
            None => i += len,
        }
    }
    out
}

/// The byte spans of inline code (`` `x` ``), without the backticks.
pub fn code_spans(t: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut open = None;
    for (i, c) in t.char_indices() {
        if c == '\n' {
            open = None;
        } else if c == '`' {
            match open.take() {
                Some(a) if i > a => out.push((a, i)),
                Some(_) => {}
                None => open = Some(i + 1),
            }
        }
    }
    out
}

/// An utterance set as code, not code: three words or more, with no code punctuation.
pub fn prose_like(q: &str) -> bool {
    let words = q
        .split_whitespace()
        .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
        .count();
    utterance_like(q)
        && q.split_whitespace().count() >= 3
        && words >= 2
        && q.chars().filter(|c| c.is_alphabetic()).count() >= 6
        && !q.contains([
            '(', ')', '{', '}', '[', ']', '=', ';', '<', '>', '$', '|', '\\',
        ])
        && !q.contains("::")
        && !q.contains("--")
}

/// Whether a quoted text reads as something a user would say (not a name, a path, a
/// single word or a program's format string).
pub fn utterance_like(q: &str) -> bool {
    let q = q.trim();
    if q.is_empty() || q.len() > 4000 {
        return false;
    }
    // `"advertises %d tools, want 12"`: a message a test prints.
    let b = q.as_bytes();
    if b.windows(3).any(|w| {
        w[0] == b'%'
            && matches!(w[1], b'd' | b's' | b'v' | b'q' | b'f' | b'x')
            && !w[2].is_ascii_alphanumeric()
    }) || q.ends_with("%d")
        || q.ends_with("%s")
        || q.ends_with("%v")
    {
        return false;
    }
    let cjk = q.chars().filter(|c| is_cjk(*c)).count();
    if cjk >= 3 {
        return true;
    }
    let words = q.split_whitespace().count();
    // (One word is a name or a term, unless it is exclaimed or asked: `"thanks!"`.)
    if words < 2 {
        return q.ends_with(['!', '?', '！', '？'])
            && q.chars().filter(|c| c.is_alphabetic()).count() >= 2;
    }
    // `« Cas de test : »`, `"Expected:"`, `« À ne pas appeler »`: a label being named.
    if q.ends_with([':', '：'])
        || words <= 4
            && lexicon::is_listed_label(q)
            && lexicon::label_role(q).is_some_and(LabelRole::is_field)
    {
        return false;
    }
    // `<prompt>`, `{{question}}`: a placeholder, filled in elsewhere. (`"17.5 + 4.5?"`
    // asks in figures alone.)
    !(q.starts_with('<') && q.ends_with('>'))
        && (q.chars().any(char::is_alphabetic)
            || q.ends_with('?') && q.chars().any(|c| c.is_ascii_digit()))
}

/// Quoted texts an expectation says the reply contains ("contains \"5\"", "enthält „42“").
pub fn needles(text: &str) -> Vec<String> {
    const VERBS: &[&str] = &[
        "contain*",
        "include*",
        "mention*",
        "say*",
        "return*",
        "show*",
        "repl*",
        "respond*",
        "enthalt*",
        "nennt",
        "contient",
        "mentionne*",
        "contiene*",
        "menciona*",
        "contem",
        "inclui*",
        "bevat",
        "noemt",
        "含む",
        "包含",
        "포함",
        "含め",
    ];
    let mut out = Vec::new();
    for (a, b) in quotes(text) {
        let open = text[..a].char_indices().last().map_or(0, |(i, _)| i);
        let before = fold(&text[..open]);
        let last: Vec<&str> = word_list(&before).into_iter().rev().take(2).collect();
        let cjk_before: String = before
            .chars()
            .rev()
            .take(3)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let after: String = fold(&text[b..]).chars().take(6).collect();
        let verb = last.iter().any(|w| matches_word(w, VERBS))
            || ["含む", "包含", "포함"]
                .iter()
                .any(|v| cjk_before.contains(v) || after.contains(v));
        let q = text[a..b].trim();
        if verb && !q.is_empty() && q.chars().count() <= 1000 {
            out.push(q.to_string());
        }
    }
    out
}
