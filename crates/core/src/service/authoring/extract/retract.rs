//! Cases a later message takes back. In a thread (a chat export, an issue, an e-mail
//! exchange) a case proposed early may be dropped by a reply: "-1 on case 6 … let's drop
//! it", "Sugiro tirar o C5". What the thread agreed is what counts, so a case named by a
//! later line that drops it is no case.
//!
//! A case is named by its key as written (`demo-sql-07`) and by the first reference in its
//! own text that reads as a case's name: a case word and a number (`case 6`, `caso 3`,
//! `Fall 2`) or a capitalised code (`C5`, `TC-06`, `QA-107`). A line drops it when it stands after the case and outside every
//! case, names it, and has a dropping verb that is not negated.

use super::super::catalog::Catalog;
use super::super::draft::Draft;
use super::super::lexicon::{self, fold};
use super::super::lines::LineIndex;
use super::super::reading;

/// Words that name a case before its number.
const CASE_WORDS: &[&str] = &[
    "case",
    "cases",
    "caso",
    "casos",
    "cas",
    "fall",
    "testfall",
    "test",
    "testcase",
    "scenario",
    "szenario",
    "escenario",
    "cenario",
    "sample",
    "example",
    "prueba",
    "teste",
    "przypadek",
    "pripad",
    "vaka",
    "kasus",
    "item",
    "punto",
    "tc",
    "uji",
    "teszteset",
    "eset",
    "кейс",
    "кейса",
    "случай",
    "тест",
    "περιπτωση",
    "σεναριο",
    "케이스",
    "ケース",
    "案例",
    "用例",
    "मामला",
    "परीक्षण",
    "khoan",
    "muc",
    "nummer",
    "number",
    "scenar",
    "scenare",
    "scenariu",
    "tapaus",
    "senaryo",
];

/// Verbs and participles that take a proposed case back (folded). Verbs that also say
/// what a tool does (`remove`, `delete`, `eliminar`) are left out: a note about a case that
/// removes an item does not drop it.
const DROPPING: &[&str] = &[
    // (Hausa: `an cire #4`, removed.)
    "cire",
    "deleted",
    "removed",
    "removing",
    "drop",
    "drops",
    "dropped",
    "dropping",
    "scrap",
    "scrapped",
    "reject",
    "rejected",
    "rejecting",
    "withdraw",
    "withdrawn",
    "strike",
    "struck",
    "вычеркива*",
    "вычёркива*",
    "не берем",
    "не берём",
    "убира*",
    "veto",
    "vetoed",
    "tirar",
    "tira",
    "tirei",
    "tiramos",
    "fora",
    "tuiache",
    "tuache",
    "naifuta",
    "tuifute",
    "tuiondoe",
    "retirar",
    "retirado",
    "retirada",
    "descartar",
    "descartado",
    "descartada",
    "quitar",
    "quitamos",
    "traiem",
    "treiem",
    "treure",
    "descartem",
    "retirem",
    "stryker",
    "stryk",
    "struken",
    "eemaldame",
    "jatame valja",
    "izmetamo",
    "izbacujemo",
    "izbacimo",
    "izpustimo",
    "crtamo",
    "vyhodime",
    "vyradime",
    "izmetam",
    "izsvitrojam",
    "махаме",
    "премахваме",
    "retiramos",
    "cortamos",
    "sleppum",
    "kendu",
    "kentzen",
    "tanggalin",
    "alisin",
    "buang",
    "risquei",
    "streichen",
    "gestrichen",
    "verwerfen",
    "verworfen",
    "rausnehmen",
    "retirer",
    "retire",
    "ecarter",
    "ecarte",
    "abandonner",
    "rimuovere",
    "rimosso",
    "togliere",
    "tolto",
    "scartare",
    "scartato",
    "schrappen",
    "geschrapt",
    "laten vallen",
    "laten we vallen",
    "voorlopig vallen",
    "vervalt",
    "odrzucic",
    "odrzucony",
    "wycofac",
    "убрать",
    "убираем",
    "исключить",
    "исключаем",
    "отклонить",
    "прибира*",
    "прибрати",
    "прибрав",
    "викреслю*",
    "викреслити",
    "не беремо",
    "відхиля*",
    "відхилено",
    "cikar*",
    "kaldir*",
    "hapus",
    "dihapus",
    "vyradit",
    "vyhodili",
    "vyhodil",
    "vyhodit",
    "zahodili",
    "vynechali",
    "zrusili",
    "vyrazeno",
    "zamitnout",
    "zamitnuto",
    "bo di",
    "loai bo",
    "削除",
    "却下",
    "外す",
    "删掉",
    "去掉",
    "删除",
    "삭제",
    "제외",
    "빼",
    "❌",
    "🚫",
    "刪除",
    "刪掉",
    "移除",
    "拿掉",
    "kivett*",
    "kivesszuk",
    "kihagyjuk",
    "hagyjuk ki",
    "toroljuk",
    "toroltuk",
    "eliminam",
    "eliminat",
    "scoatem",
    "poistetaan",
    "poistettu",
    "jatetaan pois",
    "fjerner",
    "fjernet",
    "dropper",
    "tar bort",
    "izmetam",
    "svitrojam",
    "iznemam",
    "isbraukiam",
    "isbraukem",
    "heqim",
    "hoqem",
    "verwyder",
    "skrap",
    "αφαιρουμε",
    "βγαζουμε",
    "להסיר",
    "הסרנו",
    "نحذف",
    "حذفنا",
    "حذف شد",
    "हटा दिया",
    "हटाते",
    "eliminamos",
    "eliminado",
    "eliminiamo",
    "eliminato",
    "removido",
    "викида*",
    "викину*",
    "выкидыва*",
    "выкину*",
    "не рахуємо",
    "не считаем",
    "відклада*",
    "откладыва*",
    "переносимо",
    "переносим",
    "ამოვაგდ*",
    "ამოვიღ*",
    "ამოვშალ*",
    "აღარ გვინდა",
];

/// Removes the drafts a later line drops.
/// `crosses_drop`: whether a cross (`❌`) drops what it marks (not where the document's
/// legend makes it a failed run).
pub fn drop_retracted(ix: &LineIndex, drafts: &mut Vec<Draft>, crosses_drop: bool) {
    if drafts.len() < 2 {
        return;
    }
    // Most documents drop nothing later on: find the dropping lines outside every case
    // first, and name the cases only when there are some.
    let covered = super::covered_lines(ix, drafts);
    // In a thread with the newest message on top (Outlook's), a reply stands above the
    // message it answers: lines are compared by message, newest first.
    let message = top_posted_messages(ix);
    // (In one message, what it quotes, `> …`, came before what it says above it.)
    let depth = |n: usize| {
        ix.line(n)
            .chars()
            .filter(|c| !c.is_whitespace())
            .take_while(|&c| c == '>')
            .count()
    };
    let in_order = |n: usize, case_end: usize| {
        depth(n) < depth(case_end) || depth(n) == depth(case_end) && case_end < n
    };
    let later = |n: usize, case_end: usize| match &message {
        Some(m) => m[n] < m[case_end] || m[n] == m[case_end] && in_order(n, case_end),
        None => in_order(n, case_end),
    };
    // (A reply written above the message it quotes stands before the cases it drops.)
    let first_end = if message.is_some() || drafts.iter().any(|d| depth(d.start_line) > 0) {
        0
    } else {
        drafts.iter().map(|d| d.end_line).min().unwrap_or(0)
    };
    let verdicts = verdict_rows(ix);
    let dropping: Vec<usize> = (first_end + 1..=ix.len())
        .filter(|&n| {
            let l = ix.line(n);
            // (A heading names a part of the document, `## 2. Add and delete`, not a case;
            // `#9 drop it` names one.)
            let heading = l.trim_start().starts_with('#')
                && l.trim_start().trim_start_matches('#').starts_with(' ')
                || l.trim_start().starts_with(|c: char| c.is_ascii_digit())
                    && l.split_whitespace().count() <= 4
                    && !l.trim_end().ends_with(['.', '!', '?', '。']);
            !covered[n] && !heading && !l.trim().is_empty() && l.len() <= 2000 && {
                let f = if crosses_drop && !verdicts[n] {
                    fold(l)
                } else {
                    fold(&l.replace(['❌', '✗', '✘'], " "))
                };
                drops(&f) || lexicon::has_any(&f, DECLINES)
            }
        })
        .collect();
    if dropping.is_empty() {
        return;
    }
    // Each case's names: the reference it goes by, and its key as written (`demo-sql-07`),
    // kept as `=key`.
    let names: Vec<Vec<(String, u32)>> = drafts
        .iter()
        .map(|d| {
            let mut n: Vec<(String, u32)> = case_name(ix, d).into_iter().collect();
            // (Its number in a numbered list, `5. «…»`, kept as `#`; in a chat export's
            // message, `{` over `"text": "5) …"`, the first of its lines that has one.)
            let opener = |k: usize| matches!(ix.line(k).trim(), "{" | "[" | "{{");
            let first = if opener(d.start_line) {
                (d.start_line..=d.end_line.min(d.start_line + 8))
                    .find_map(|k| list_number(ix.line(k)))
            } else {
                list_number(ix.line(d.start_line))
            };
            n.extend(first.map(|num| ("#".to_string(), num)));
            n.extend(
                d.key
                    .iter()
                    .filter(|k| k.len() >= 3)
                    .map(|k| (format!("={}", k.to_lowercase()), 0)),
            );
            n
        })
        .collect();
    let keys: Vec<&str> = drafts
        .iter()
        .filter_map(|d| d.key.as_deref())
        .filter(|k| k.len() >= 3)
        .collect();
    let mut dropped = vec![false; drafts.len()];
    for n in dropping {
        let line = ix.line(n);
        let f = fold(line);
        // The reply right under a proposal that puts it off or turns it down ("will do in
        // next PR", "already covered in round 1"): with nothing between but blank lines
        // and the reply's header (`mkaran 1 day ago`).
        let prose =
            !line.trim_start().starts_with(['#', '=', '|']) && line.split_whitespace().count() >= 3;
        if prose && lexicon::has_any(&f, DECLINES) {
            if let Some(k) = drafts.iter().rposition(|d| d.end_line < n)
                && reply_to(ix, drafts[k].end_line, n)
            {
                dropped[k] = true;
            }
            if !drops(&f) {
                continue;
            }
        }
        // "Este lo quitamos.", "This one we drop": the case just above, with nothing but
        // blank lines between (quoted ones, `>`, in a reply written between the lines).
        let blank = |j: usize| {
            ix.line(j)
                .trim_matches(|c: char| c == '>' || c.is_whitespace())
                .is_empty()
        };
        if points_back(&f)
            && let Some(k) = drafts
                .iter()
                .rposition(|d| d.end_line < n && (d.end_line + 1..n).all(blank))
        {
            dropped[k] = true;
            continue;
        }
        for r in dropped_refs(line, &keys) {
            // A bare number names the one case numbered so.
            let named_by = |list: bool| -> Vec<usize> {
                (0..drafts.len())
                    .filter(|&k| {
                        names[k].iter().any(|(w, num)| {
                            *num == r.1
                                && if list {
                                    w == "#"
                                } else {
                                    *w == r.0 || r.0.is_empty() && !w.starts_with(['=', '#'])
                                }
                        })
                    })
                    .collect()
            };
            // (`case 5` names the case keyed so, or else the fifth of a numbered list; of
            // the cases so named, those the line comes after.)
            let before_line = |ks: Vec<usize>| -> Vec<usize> {
                ks.into_iter()
                    .filter(|&k| later(n, drafts[k].end_line))
                    .collect()
            };
            let mut named = before_line(named_by(false));
            if named.is_empty() && (r.0.is_empty() || lexicon::listed(CASE_WORDS, &r.0)) {
                named = before_line(named_by(true));
            }
            if let [k] = named[..] {
                dropped[k] = true;
            }
        }
    }
    let mut k = 0;
    drafts.retain(|_| {
        k += 1;
        !dropped[k - 1]
    });
}

/// Which lines are rows of a table of verdicts: a table where ticks stand beside the
/// crosses (`| JA-03 | ❌ | … |` under `| JA-01 | ✅ |`) gives a run's results, and its
/// crosses drop nothing.
fn verdict_rows(ix: &LineIndex) -> Vec<bool> {
    let mut out = vec![false; ix.len() + 1];
    let mut n = 1;
    while n <= ix.len() {
        if !ix.line(n).trim_start().starts_with('|') {
            n += 1;
            continue;
        }
        let start = n;
        while n <= ix.len() && ix.line(n).trim_start().starts_with('|') {
            n += 1;
        }
        if (start..n).any(|k| ix.line(k).contains(['✅', '✔', '✓'])) {
            out[start..n].fill(true);
        }
    }
    out
}

/// Each line's message (0 the first) when `ix` is a mail thread quoted without `>`, each
/// older message under a separator (`________________________________`, `-----Original
/// Message-----`): the newest stands on top.
fn top_posted_messages(ix: &LineIndex) -> Option<Vec<usize>> {
    let separator = |l: &str| {
        let t = l.trim();
        t.len() >= 10 && t.bytes().all(|b| b == b'_')
            || t.starts_with("-----") && t.ends_with("-----") && t.chars().any(char::is_alphabetic)
    };
    let mut out = Vec::with_capacity(ix.len() + 1);
    out.push(0);
    let mut m = 0;
    for n in 1..=ix.len() {
        if separator(ix.line(n)) {
            m += 1;
        }
        out.push(m);
    }
    (m > 0).then_some(out)
}

/// The drafts of a conversation read message by message, without those the reply right
/// after puts off or turns down (`replies[k]`: the text answering draft `k`, when it is
/// another's). A reply that is itself a case proposes, it does not answer.
pub(super) fn without_declined(drafts: Vec<Draft>, replies: &[Option<String>]) -> Vec<Draft> {
    let declined: Vec<bool> = (0..drafts.len())
        .map(|k| {
            replies.get(k).and_then(Option::as_deref).is_some_and(|r| {
                drafts.get(k + 1).is_some_and(|next| !next.is_case()) && declines(r)
            })
        })
        .collect();
    drafts
        .into_iter()
        .zip(declined)
        .filter(|(d, no)| d.is_case() && !no)
        .map(|(d, _)| d)
        .collect()
}

/// Whether a reply puts off or turns down what it answers ("not this one, let's postpone
/// it").
pub(super) fn declines(reply: &str) -> bool {
    lexicon::has_any(&fold(reply), DECLINES)
}

/// What a reply says of a proposal it puts off or turns down (folded).
const DECLINES: &[&str] = &[
    "ამოვაგდოთ",
    "არ გვინდა",
    "tuiache",
    "tuiahirishe",
    "nao vale a pena",
    "no vale la pena",
    "not worth it",
    "ne vaut pas la peine",
    "non vale la pena",
    "lohnt sich nicht",
    "hagyjuk ki",
    "kihagyjuk",
    "kovetkezo sprint*",
    "nasta sprint",
    "vi skippar",
    "hoppa over",
    "stryk den",
    "neste sprint",
    "vi dropper",
    "dropp den",
    "naeste sprint",
    "næste sprint",
    "seuraava* sprint*",
    "jatetaan pois",
    "ho deixem fora",
    "el deixem fora",
    "proper sprint",
    "wag na muna",
    "huwag na muna",
    "susunod na sprint",
    "vynechame",
    "nechajme to",
    "buduci sprint",
    "dalsi sprint",
    "pristi sprint",
    "sprintul urmator",
    "επομενο sprint",
    "το αφηνουμε",
    "نؤجل",
    "السبرنت القادم",
    "نستبعد",
    "अगले स्प्रिंट",
    "छोड़ देते",
    "हटा देते",
    "अभी नहीं",
    // (Nepali: "let's not keep it", "let's leave it", "taken out".)
    "नराखौं",
    "छोडौं",
    "हटाइयो",
    "اسپرینت بعدی",
    "فعلا نه",
    "کنار میگذاریم",
    "کنار بگذاریم",
    "מורידים",
    "נוריד",
    "לא בינתיים",
    "ספרינט הבא",
    "בספרינט הבא",
    "נחזור לזה",
    "דוחים",
    "לא עכשיו",
    "다음 스프린트",
    "下个迭代",
    "先不做",
    "次のスプリント",
    "今回は見送",
    "sprint sau",
    "สปรินต์หน้า",
    "ตัดออก",
    "sprint seterusnya",
    "tangguhkan",
    "leave it out",
    "leave this one out",
    "not this one",
    "lassen wir weg",
    "lassen wir raus",
    "on laisse tomber",
    "on le laisse de cote",
    "lo dejamos fuera",
    "queda fuera",
    "fica de fora",
    "fica fora",
    "deixa de fora",
    "deixa fora",
    "deixar fora",
    "esse nao",
    "lasciamo fuori",
    "lasciamolo fuori",
    "laten we weg",
    "laten we eruit",
    "見送り",
    "这个不要",
    "这条不要",
    "이건 빼",
    "next pr",
    "next sprint",
    "sonraki sprint",
    "simdilik gerek yok",
    "ted ne",
    "zatim ne",
    "поки що ні",
    "наступний спринт",
    "de lai sau",
    "sprint berikutnya",
    "nanti saja",
    "nastepny sprint",
    "nastepnym sprincie",
    "odlozmy",
    "odkladamy",
    "next round",
    "follow-up pr",
    "followup pr",
    "follow up pr",
    "not in this pr",
    "postpone*",
    "defer*",
    "already covered",
    "not duplicating",
    "nachsten pr",
    "nicht in diesem pr",
    "spater",
    "plus tard",
    "prochaine pr",
    "prochain sprint",
    "mas adelante",
    "proximo pr",
    "proximo sprint",
    "fica pra depois",
    "piu avanti",
    "prossima pr",
    "prossimo sprint",
    "volgende pr",
    "nasta pr",
    "次のpr",
    "次回",
    "後回し",
    "下个pr",
    "以后再",
    "下一个pr",
    "다음 pr",
    "나중에",
];

/// Whether line `n` opens the reply to what ends at line `end`: only blank lines and the
/// reply's header line (a name with a time: `mkaran 1 day ago`, `Ana  10:42`) between.
fn reply_to(ix: &LineIndex, end: usize, n: usize) -> bool {
    let between: Vec<&str> = (end + 1..n)
        .map(|j| ix.line(j).trim())
        .filter(|l| !l.is_empty())
        .collect();
    matches!(between[..], [h] if reply_header(h))
}

/// A reply's header: short, unquoted, with a time (`3 days ago`, `10:42`, `2024-10-08`).
fn reply_header(l: &str) -> bool {
    let f = fold(l);
    let b = l.as_bytes();
    let clock = (1..b.len().saturating_sub(2))
        .any(|k| b[k] == b':' && b[k - 1].is_ascii_digit() && b[k + 1].is_ascii_digit());
    let date = l.chars().filter(char::is_ascii_digit).count() >= 4 && l.contains(['-', '/', '.']);
    l.chars().count() <= 60
        && reading::quotes(l).is_empty()
        && (clock
            || date
            || lexicon::has_any(
                &f,
                &[
                    "ago", "vor", "il y a", "hace", "ha", "fa", "geleden", "sedan",
                ],
            )
            || f.contains("前")
            || f.contains("전"))
}

/// Words that change what was written (folded).
const CHANGE: &[&str] = &[
    "cambiaria",
    "cambiamos",
    "change",
    "changed",
    "replace",
    "instead",
    "andern",
    "anderen",
    "ersetzen",
    "changerais",
    "changeons",
    "remplacer",
    "cambierei",
    "cambiamo",
    "mudaria",
    "mudamos",
    "veranderen",
    "vervangen",
    "変更",
    "改成",
    "改为",
    "바꾸",
    "改為",
    "改掉",
    "修改為",
    "修改为",
    "diventa",
    "becomes",
    "wird zu",
    "devient",
    "pasa a ser",
    "passa a ser",
];

/// Words that correct what was said before them (folded): a change named as such.
const CORRECTION: &[&str] = &[
    "correction",
    "corrected",
    "amendment",
    "amended",
    "korrektur",
    "korrigiert",
    "rectification",
    "correccion",
    "corregido",
    "correcao",
    "corrigido",
    "correzione",
    "corretto",
    "correctie",
    "gecorrigeerd",
    "исправление",
    "поправка",
    "poprawka",
    "duzeltme",
    "更正",
    "訂正",
    "정정",
];

/// Whether folded `f` changes or corrects something said before.
fn changes(f: &str) -> bool {
    lexicon::has_any(f, CHANGE) || lexicon::has_any(f, CORRECTION)
}

/// A case corrected further down its own text, or in the talk after it up to the next
/// case by a line naming it, as a chat thread does ("Replying to 'Case 6…': my bad.
/// Correction for case 6: updateEvent, … and it must not call deleteEvent"): the tools
/// the correction expects replace those said before it.
pub fn corrected(ix: &LineIndex, drafts: &mut [Draft], cat: &Catalog) {
    let starts: Vec<usize> = drafts.iter().map(|d| d.start_line).collect();
    for (k, d) in drafts.iter_mut().enumerate() {
        let talk_ends = starts
            .get(k + 1)
            .map_or(ix.len(), |&s| s.saturating_sub(1))
            .min(d.end_line + 30);
        let name = case_name(ix, d);
        let Some(n) = (d.start_line + 1..=talk_ends.max(d.end_line)).find(|&n| {
            let line = ix.line(n);
            lexicon::has_any(&fold(line), CORRECTION)
                && (n <= d.end_line || name.as_ref().is_some_and(|c| refs(line).contains(c)))
                && !reading::read(line, cat).calls.is_empty()
        }) else {
            continue;
        };
        let end = if n <= d.end_line { d.end_line } else { n };
        let r = reading::read(ix.excerpt(n, end), cat);
        d.negative = false;
        d.expected_calls = r.calls;
        for t in r.never {
            if !d.never_called.contains(&t) {
                d.never_called.push(t);
            }
        }
        let expected: Vec<&str> = d.expected_calls.iter().map(|c| c.tool.as_str()).collect();
        d.never_called.retain(|t| !expected.contains(&t.as_str()));
        d.end_line = end;
        d.excerpt_range = None;
        d.exact_rule = None;
        d.notes.push(format!("corrected on line {n}"));
    }
}

/// A case written right under another as its amendment ("Este lo cambiaría: … Mejor
/// «…» → slow …", "I'd change this one: …") replaces it, and spans both.
pub fn replace_amended(ix: &LineIndex, drafts: &mut Vec<Draft>) {
    let mut k = 1;
    while k < drafts.len() {
        let (prev, cur) = (&drafts[k - 1], &drafts[k]);
        let first = fold(ix.line(cur.start_line));
        let adjacent = prev.end_line < cur.start_line
            && (prev.end_line + 1..cur.start_line).all(|j| ix.line(j).trim().is_empty());
        if adjacent && points_back(&first) && changes(&first) {
            let start = prev.start_line;
            drafts.remove(k - 1);
            drafts[k - 1].start_line = start;
            drafts[k - 1].excerpt_range = None;
            continue;
        }
        k += 1;
    }
}

/// A case written under a line that replaces an earlier case by name ("2. 案例 3 整個改掉，
/// 改為：" over the new prompt and expectation, "Replace case 3 with:"): the earlier case
/// is gone, and the new one stands.
pub fn replace_named(ix: &LineIndex, drafts: &mut Vec<Draft>) {
    let mut gone = vec![false; drafts.len()];
    for k in 0..drafts.len() {
        // (A case with a key of its own replaces none.)
        if drafts[k].key.is_some() {
            continue;
        }
        // The case's own first line (`2. Case 3 is replaced by:` heading its item), or the
        // line above it, outside every case.
        let first = drafts[k].start_line;
        let above = (1..first)
            .rev()
            .find(|&n| !ix.line(n).trim().is_empty())
            .filter(|&n| !drafts.iter().any(|d| d.start_line <= n && n <= d.end_line));
        for n in std::iter::once(first).chain(above) {
            let line = ix.line(n);
            if !changes(&fold(line)) {
                continue;
            }
            // (A list's own number, `2.`, names no case: a case word or code does.)
            let named_refs: Vec<(String, u32)> = refs(line)
                .into_iter()
                .filter(|(w, _)| !w.is_empty())
                .collect();
            let [r] = &named_refs[..] else {
                continue;
            };
            let named: Vec<usize> = (0..k)
                .filter(|&j| case_name(ix, &drafts[j]).is_some_and(|c| c == *r))
                .collect();
            if let [j] = named[..] {
                gone[j] = true;
                break;
            }
        }
    }
    let mut k = 0;
    drafts.retain(|_| {
        k += 1;
        !gone[k - 1]
    });
}

/// Whether a line opens by pointing at what stands above it ("Este lo quitamos", "This
/// one we drop", "Den streichen wir"), folded.
fn points_back(f: &str) -> bool {
    const THIS: &[&str] = &[
        "este ",
        "esta ",
        "este caso",
        "this one",
        "this case",
        "that one",
        "den ",
        "diesen ",
        "dieser ",
        "celui-ci",
        "celui-la",
        "ce cas",
        "questo ",
        "quello ",
        "deze ",
        "die ",
        "esse ",
        "essa ",
        "este, ",
        "aquest ",
        "aquesta ",
        "aquest cas",
        "denna ",
        "detta ",
        "den har",
        "see ",
        "seda ",
        "ovaj ",
        "ovo ",
        "ta ",
        "tento ",
        "toto ",
        "този ",
        "това ",
        "sem ",
        "hau ",
        "ito ",
        "yung ",
        "hierdie ",
        "이건",
        "이 케이스",
        "这个",
        "这条",
        "これは",
        "このケース",
    ];
    let t = f.trim_start_matches(|c: char| !c.is_alphanumeric());
    THIS.iter().any(|w| t.starts_with(w))
}

/// The names a dropping line drops: those in a clause with a dropping verb ("T-06〜T-08
/// added, T-06 rejected" drops T-06), or the line's one name when its verb stands apart
/// ("-1 on case 6, … let's drop it").
fn dropped_refs(line: &str, keys: &[&str]) -> Vec<(String, u32)> {
    let mut named = refs_at(line);
    let lower = line.to_lowercase();
    for key in keys {
        let k = key.to_lowercase();
        for (at, _) in lower.match_indices(&k) {
            let bounded =
                |c: Option<char>| c.is_none_or(|c| !(c.is_alphanumeric() || "-_".contains(c)));
            if bounded(lower[..at].chars().next_back())
                && bounded(lower[at + k.len()..].chars().next())
            {
                named.push(((format!("={k}"), 0), at));
            }
        }
    }
    // (A number standing alone before the verb of its clause, `І 8 теж викидаємо`,
    // `+1, 4 не рахуємо`: after a conjunction or a comma, not a vote's `+1`.)
    // Only with the dropping verb in the two words after it or before it (`8 теж
    // викидаємо`, `on retire le 3`; not `8 (6 제외)`), never as the line's one reference.
    let loose: Vec<((String, u32), usize)> = loose_numbers(line)
        .into_iter()
        .filter(|(at, _)| !named.iter().any(|(_, a)| a == at))
        .filter(|&(at, _)| {
            let rest = line[at..].trim_start_matches(|c: char| c.is_ascii_digit());
            let next: Vec<&str> = rest
                .split_whitespace()
                .take_while(|w| !w.starts_with('('))
                .take(2)
                .collect();
            let before: Vec<&str> = line[..at]
                .split_whitespace()
                .rev()
                .take_while(|w| !w.ends_with([',', ';', '.', ')']))
                .take(2)
                .collect();
            drops(&fold(&next.join(" ")))
                || drops(&fold(
                    &before.into_iter().rev().collect::<Vec<_>>().join(" "),
                ))
        })
        .map(|(at, num)| ((String::new(), num), at))
        .collect();
    let mut out: Vec<(String, u32)> = Vec::new();
    let mut start = 0;
    for (end, _) in line
        .char_indices()
        .filter(|(_, c)| ",;.!?、，；。！？".contains(*c))
        .chain(std::iter::once((line.len(), ' ')))
    {
        if drops(&fold(&line[start..end])) {
            out.extend(
                named
                    .iter()
                    .chain(&loose)
                    .filter(|(_, at)| (start..end).contains(at))
                    .map(|(r, _)| r.clone()),
            );
        }
        start = (end + 1).min(line.len());
        while !line.is_char_boundary(start) {
            start += 1;
        }
    }
    if out.is_empty() {
        let mut all: Vec<(String, u32)> = named.into_iter().map(|(r, _)| r).collect();
        all.dedup();
        if all.len() == 1 {
            out = all;
        }
    }
    out
}

/// Numbers of one to three digits standing as words of their own, each with its byte
/// position: after nothing but a conjunction or a short word (`і`, `and`, `a`), a comma or
/// the line's start, and before a space or a comma; not signed, nor a date or a time.
fn loose_numbers(line: &str) -> Vec<(usize, u32)> {
    let mut out = Vec::new();
    let bytes = line.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if !bytes[i].is_ascii_digit() || i > 0 && bytes[i - 1].is_ascii_alphanumeric() {
            i += 1;
            continue;
        }
        let end = (i..bytes.len())
            .find(|&j| !bytes[j].is_ascii_digit())
            .unwrap_or(bytes.len());
        let after_ok = bytes.get(end).is_none_or(|&b| b == b' ' || b == b',');
        let before = line[..i].trim_end();
        let signed = before.ends_with(['+', '-', '#', '/', '.', ':']);
        let word = before
            .rsplit(|c: char| !c.is_alphabetic())
            .next()
            .unwrap_or_default();
        let lead_ok = before.is_empty()
            || before.ends_with(',')
            || !word.is_empty()
                && (word.chars().count() <= 2
                    || lexicon::listed(lexicon::CONJUNCTIONS, &fold(word)))
                && before.ends_with(word);
        if end - i <= 3
            && after_ok
            && !signed
            && lead_ok
            && let Ok(n) = line[i..end].parse()
        {
            out.push((i, n));
        }
        i = end;
    }
    out
}

/// The name a case goes by: the first reference in its key or its own lines.
fn case_name(ix: &LineIndex, d: &Draft) -> Option<(String, u32)> {
    if let Some(r) = d.key.as_deref().and_then(|k| refs(k).into_iter().next()) {
        return Some(r);
    }
    (d.start_line..=d.end_line.min(d.start_line + 5))
        .filter(|&n| n >= 1 && n <= ix.len())
        .find_map(|n| refs(ix.line(n)).into_iter().next())
}

/// The number a numbered list item opens with (`5. «…»`, `12) …`).
fn list_number(line: &str) -> Option<u32> {
    let t = line.trim_start();
    // (A chat export's message, `"text": "6) …"`, opens after its key.)
    let t = match t.split_once("\": \"") {
        Some((key, rest)) if key.starts_with('"') && !key[1..].contains(['"', ' ']) => rest,
        _ => t,
    };
    let t = t.trim_start_matches(['-', '*', ' ', '>']);
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let rest = &t[digits..];
    (digits > 0 && digits <= 3 && (rest.starts_with(". ") || rest.starts_with(") ")))
        .then(|| t[..digits].parse().ok())
        .flatten()
}

/// Whether a unit says in its own words that the case it quotes was dropped ("the
/// „delete branch“ scenario we threw out in the end"): a word for a case and a dropping
/// verb.
pub(super) fn says_case_dropped(text: &str) -> bool {
    let f = fold(text);
    drops(&f)
        && f.split(|c: char| !c.is_alphanumeric())
            .any(|w| lexicon::listed(CASE_WORDS, w))
}

/// Whether a folded line has a dropping verb that is not negated.
fn drops(f: &str) -> bool {
    lexicon::WordSet::of(DROPPING)
        .find(f)
        .into_iter()
        .any(|(at, len, _)| {
            let end = at + len;
            // Part of a tool's name (`drop-table`) is no verb.
            let joined = f[..at].ends_with(['-', '_', '`']) || f[end..].starts_with(['-', '_']);
            let before: Vec<&str> = f[..at]
                .split(|c: char| !c.is_alphanumeric() && c != '\'')
                .filter(|w| !w.is_empty())
                .rev()
                .take(3)
                .collect();
            let negated = before.iter().any(|w| {
                lexicon::listed(lexicon::NEGATION, w) || w.ends_with("n't") || *w == "dont"
            });
            !joined && !negated
        })
}

/// The case names a line mentions: `(word, number)`, the word folded (`case 6` →
/// `("case", 6)`, `TC-06` → `("tc", 6)`); a bare number opening the line or counted
/// (`7 не берём`, `6번은 빼죠`) has no word.
fn refs(line: &str) -> Vec<(String, u32)> {
    refs_at(line).into_iter().map(|(r, _)| r).collect()
}

/// [`refs`], each with the byte position of its number.
/// Whether the number ending before `m` is a list's own (`1. `, `2) `), not a case's.
fn list_marker(chars: &[(usize, char)], m: usize) -> bool {
    chars.get(m).is_some_and(|c| matches!(c.1, '.' | ')'))
        && chars.get(m + 1).is_some_and(|c| c.1 == ' ')
}

fn refs_at(line: &str) -> Vec<((String, u32), usize)> {
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < chars.len() {
        if !chars[k].1.is_ascii_digit() || (k > 0 && chars[k - 1].1.is_ascii_digit()) {
            k += 1;
            continue;
        }
        let mut m = k;
        while m < chars.len() && chars[m].1.is_ascii_digit() {
            m += 1;
        }
        let digits = &line[chars[k].0..chars.get(m).map_or(line.len(), |c| c.0)];
        let after = chars.get(m).map(|c| c.1);
        // The number ends the token (`C5`, not `U01PRIYA` or `3.6`).
        // (Nor a date or a time: `4/20`, `11.06`, `9:30`.)
        let decimal = matches!(after, Some('.' | '/' | ':'))
            && chars.get(m + 1).is_some_and(|c| c.1.is_ascii_digit());
        let counted = after.is_some_and(|c| "번号番".contains(c));
        // (`3-as pontját`, `a 3-ast`: a number taking a suffix, as Hungarian and Finnish
        // name an item of a list.)
        let suffixed = after == Some('-') && {
            let letters = chars[m + 1..]
                .iter()
                .take_while(|c| c.1.is_alphabetic())
                .count();
            (1..=5).contains(&letters)
                && chars
                    .get(m + 1 + letters)
                    .is_none_or(|c| !c.1.is_alphanumeric())
        };
        let ends = after.is_none_or(|c| !c.is_alphanumeric() || counted) && !decimal;
        // One separator at most between the word and the number.
        let mut w_end = k;
        if w_end > 0 && matches!(chars[w_end - 1].1, ' ' | '-' | '#' | '_') {
            w_end -= 1;
        }
        let mut w_start = w_end;
        while w_start > 0 && chars[w_start - 1].1.is_alphabetic() {
            w_start -= 1;
        }
        let word: String = chars[w_start..w_end].iter().map(|c| c.1).collect();
        let bounded = w_start == 0 || !chars[w_start - 1].1.is_alphanumeric();
        let opening = line[..chars[k].0]
            .trim()
            .trim_start_matches(['#', '*', '-'])
            .is_empty();
        if ends
            && bounded
            && digits.len() <= 4
            && word.chars().count() <= 10
            && let Ok(num) = digits.parse::<u32>()
        {
            let folded = fold(&word);
            let code =
                !word.is_empty() && word.chars().all(|c| c.is_ascii_uppercase()) && word.len() <= 5;
            if code || lexicon::listed(CASE_WORDS, &folded) {
                out.push(((folded, num), chars[k].0));
            } else if word.is_empty() && (opening && !list_marker(&chars, m) || counted)
                || suffixed
                // (`#7` anywhere in a reply: a number named as chats and trackers do.)
                || word.is_empty() && k > 0 && chars[k - 1].1 == '#'
                // (`Слушно, прибираю 5.`, `dropping 5`: a number right after the verb.)
                || drops(&folded)
            {
                out.push(((String::new(), num), chars[k].0));
            }
        }
        k = m;
    }
    out
}

/// A note further down that names a case by its key and changes it (`ZH-07 的用户输入改为
/// “…”，参数改为 durationMs=1000`, `TC-3: prompt changed to "…"`) amends that case: the
/// note's prompt, tool, arguments and forbidden tools replace or join the case's, and the
/// case spans the note when nothing stands between them.
pub fn apply_changes(ix: &LineIndex, drafts: &mut Vec<Draft>, cat: &Catalog) {
    let mut k = 1;
    while k < drafts.len() {
        let note = &drafts[k];
        if note.key.is_some() {
            k += 1;
            continue;
        }
        let text = ix.excerpt(note.start_line, note.end_line);
        let f = fold(text);
        if !changes(&f) {
            k += 1;
            continue;
        }
        let named: Vec<usize> = (0..k)
            .filter(|&j| {
                drafts[j].end_line < note.start_line
                    && drafts[j].key.as_deref().is_some_and(|key| {
                        key.len() >= 3 && !lexicon::find_word(&f, &fold(key)).is_empty()
                    })
            })
            .collect();
        let [j] = named[..] else {
            k += 1;
            continue;
        };
        let note = drafts.remove(k);
        let next_start = drafts
            .iter()
            .filter(|d| d.start_line > drafts[j].end_line)
            .map(|d| d.start_line)
            .min();
        let case = &mut drafts[j];
        if !note.prompts.is_empty() {
            // (A title that was the old prompt follows it.)
            let old = std::mem::replace(&mut case.prompts, note.prompts.clone());
            if old
                .first()
                .is_some_and(|p| case.title.starts_with(p.trim_end_matches('…')))
            {
                case.title.clear();
            }
        }
        if note.negative {
            case.negative = true;
            case.expected_calls.clear();
        } else if !note.expected_calls.is_empty() {
            case.expected_calls = note.expected_calls.clone();
        } else if let [call] = &mut case.expected_calls[..]
            && let Some((i, _)) = cat.resolve(&call.tool)
        {
            // Arguments changed without naming the tool again: read for the case's tool,
            // outside the quoted prompt.
            let mut plain = text.to_string();
            for (a, b) in reading::quotes(text).into_iter().rev() {
                plain.replace_range(a..b, "");
            }
            let changed = cat.read_args(i, &plain);
            if !changed.is_empty() {
                call.args
                    .get_or_insert_with(Default::default)
                    .extend(changed);
            }
        }
        for n in note.never_called {
            if !case.never_called.contains(&n) {
                case.never_called.push(n);
            }
        }
        let expected: Vec<String> = case.expected_calls.iter().map(|c| c.tool.clone()).collect();
        case.never_called.retain(|n| !expected.contains(n));
        if next_start.is_none_or(|s| s > note.end_line) {
            case.end_line = note.end_line;
        }
        case.excerpt_range = None;
        case.exact_rule = None;
        case.notes
            .push(format!("amended by the note on line {}", note.start_line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_as_cases() {
        assert_eq!(refs("*case 6* — crash"), vec![("case".into(), 6)]);
        assert_eq!(refs("Sugiro tirar o C5."), vec![("c".into(), 5)]);
        assert_eq!(
            refs("TC-06 and QA-107"),
            vec![("tc".into(), 6), ("qa".into(), 107)]
        );
        assert!(refs("\"user\": \"U01PRIYA\", sum 1024 and 3.6, a=17").is_empty());
        assert_eq!(refs("7 не берём"), vec![(String::new(), 7)]);
        assert_eq!(refs("кейс 7: «Урони сервер»"), vec![("кейс".into(), 7)]);
        assert_eq!(refs("6번은 빼죠"), vec![(String::new(), 6)]);
    }

    #[test]
    fn a_dropping_verb_counts_unless_negated() {
        assert!(drops("-1 on case 6, it breaks the server. let's drop it"));
        assert!(drops("sugiro tirar o c5."));
        assert!(!drops("let's not drop case 6"));
        assert!(!drops("case 3 removes an item"));
        assert!(!drops("calls `drop-table` for case 2"));
    }
}
