//! The words the reader knows, in English, German, French, Spanish, Portuguese, Italian,
//! Dutch, Japanese, Chinese and Korean: field labels and their roles, negation, "no tool"
//! and "answer directly" wordings, none-words, booleans, and the markers of units that are
//! not cases (dropped ideas, set-up, exit criteria, change logs…).
//!
//! Matching is done on [`fold`]ed text: NFKC (full-width colons, equals signs and digits
//! become ASCII), lowercase, accents stripped. Latin words match on word boundaries; words
//! in scripts without spaces (Japanese, Chinese, Korean) match as substrings.

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

pub mod concepts;
mod labels;
pub mod numbers;
pub use labels::*;

/// NFKC, lowercase, accents stripped: the form every lexicon lookup works on.
pub fn fold(s: &str) -> String {
    if s.is_ascii() {
        return s.to_ascii_lowercase();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.nfkc() {
        // Latin and Greek lose their accents (Greek's tonos is written inconsistently).
        let latin = (c as u32) <= 0x024f
            || (0x1e00..=0x1eff).contains(&(c as u32))
            || (0x0370..=0x03ff).contains(&(c as u32))
            || (0x1f00..=0x1fff).contains(&(c as u32));
        if !latin {
            // Kana voicing marks, Hangul syllables and Cyrillic й are letters, not accents.
            out.extend(c.to_lowercase());
            continue;
        }
        for d in std::iter::once(c).nfd() {
            if is_combining_mark(d) {
                continue;
            }
            if d.is_ascii() {
                out.push(d.to_ascii_lowercase());
            } else if let Some(base) = base_letter(d) {
                out.push(base);
            } else {
                out.extend(d.to_lowercase());
            }
        }
    }
    out
}

/// Latin letters that carry their mark in the glyph, not as a combining accent
/// (Turkish ı, Polish ł, Danish ø): the letter they fold to.
fn base_letter(c: char) -> Option<char> {
    Some(match c {
        'ı' | 'I' => 'i',
        'ł' | 'Ł' => 'l',
        'ø' | 'Ø' => 'o',
        'đ' | 'Đ' => 'd',
        'ħ' | 'Ħ' => 'h',
        _ => return None,
    })
}

/// Whether a character belongs to a script written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    // Japanese, Chinese, Korean, and Thai, Lao, Khmer and Myanmar (written without spaces
    // between words too).
    matches!(c as u32,
        0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0x1100..=0x11ff
        | 0x3130..=0x318f | 0xf900..=0xfaff | 0xff66..=0xff9f)
        || is_spelled_no_space(c)
}

/// The scripts of [`is_cjk`] that spell words out in letters (Thai, Lao, Khmer, Myanmar).
pub fn is_spelled_no_space(c: char) -> bool {
    matches!(c as u32, 0x0e00..=0x0eff | 0x1780..=0x17ff | 0x1000..=0x109f)
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '\''
}

/// Whether folded `before` ends in an elided article or preposition (`d'`, `l'`, `dell'`):
/// the word after the apostrophe stands on its own (`d'outil`, `l'strumento`).
fn elided(before: &str) -> bool {
    let Some(head) = before.strip_suffix('\'') else {
        return false;
    };
    let word = head
        .rsplit(|c: char| !c.is_alphabetic())
        .next()
        .unwrap_or_default();
    matches!(
        word,
        "d" | "l"
            | "qu"
            | "n"
            | "j"
            | "s"
            | "c"
            | "m"
            | "t"
            | "dell"
            | "all"
            | "dall"
            | "nell"
            | "sull"
            | "un"
            | "quell"
            | "dev"
    )
}

/// Every position where `word` occurs in folded `text` as a whole word (a CJK word or one
/// ending in `*` as a prefix of a word).
pub fn find_word(text: &str, word: &str) -> Vec<usize> {
    let (word, prefix) = match word.strip_suffix('*') {
        Some(w) => (w, true),
        None => (word, false),
    };
    let mut out = Vec::new();
    if word.is_empty() || !text.contains(word) {
        return out;
    }
    let cjk = word.chars().any(is_cjk);
    let mut from = 0;
    while let Some(i) = text[from..].find(word) {
        let at = from + i;
        let end = at + word.len();
        let before_ok = cjk
            || text[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !is_word_char(c) || is_cjk(c));
        let after_ok = cjk
            || prefix
            || text[end..]
                .chars()
                .next()
                .is_none_or(|c| !is_word_char(c) || is_cjk(c));
        if before_ok && after_ok {
            out.push(at);
        }
        from = at + word.len().max(1);
        while !text.is_char_boundary(from) {
            from += 1;
        }
    }
    out
}

/// A word list compiled once into one automaton, so a text is scanned once for all of its
/// words instead of once per word (the lexicon's lists run to hundreds of words).
pub struct WordSet {
    ac: aho_corasick::AhoCorasick,
    /// Per pattern: whether it is a prefix (`word*`) and whether it is CJK.
    kinds: Vec<(bool, bool)>,
}

impl WordSet {
    fn new(words: &[&str]) -> WordSet {
        let patterns: Vec<&str> = words.iter().map(|w| w.trim_end_matches('*')).collect();
        WordSet {
            ac: aho_corasick::AhoCorasick::new(&patterns).expect("lexicon words compile"),
            kinds: words
                .iter()
                .map(|w| (w.ends_with('*'), w.chars().any(is_cjk)))
                .collect(),
        }
    }

    /// The compiled set of a constant list (compiled on first use, kept for the process).
    pub fn of(words: &'static [&'static str]) -> &'static WordSet {
        use std::collections::HashMap;
        use std::sync::{LazyLock, Mutex};
        static SETS: LazyLock<Mutex<HashMap<(usize, usize), &'static WordSet>>> =
            LazyLock::new(Default::default);
        let key = (words.as_ptr() as usize, words.len());
        cached(&SET_CACHE, key, || {
            *SETS
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .entry(key)
                .or_insert_with(|| Box::leak(Box::new(WordSet::new(words))))
        })
    }

    /// Whether a match stands as a whole word (a CJK word, or one ending in `*` as a word's
    /// prefix, needs no boundary after it).
    fn whole(&self, text: &str, m: &aho_corasick::Match) -> bool {
        let (prefix, cjk) = self.kinds[m.pattern().as_usize()];
        let bound = |c: Option<char>| c.is_none_or(|c| !is_word_char(c) || is_cjk(c));
        let before = &text[..m.start()];
        cjk || ((bound(before.chars().next_back()) || elided(before))
            && (prefix || bound(text[m.end()..].chars().next())))
    }

    /// Every whole-word occurrence in folded `text`: `(position, length, pattern index)`,
    /// in order of position.
    pub fn find(&self, text: &str) -> Vec<(usize, usize, usize)> {
        self.ac
            .find_overlapping_iter(text)
            .filter(|m| self.whole(text, m))
            .map(|m| (m.start(), m.len(), m.pattern().as_usize()))
            .collect()
    }

    /// Every occurrence that closes a longer word (a compound's last part: `verktyget` in
    /// `väderverktyget`): `(position of the word, position of the part, its end)`.
    pub fn compound_ends(&self, text: &str) -> Vec<(usize, usize, usize)> {
        self.ac
            .find_overlapping_iter(text)
            .filter(|m| {
                let (prefix, cjk) = self.kinds[m.pattern().as_usize()];
                let after = text[m.end()..].chars().next();
                !cjk && text[..m.start()]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphabetic)
                    && (prefix || after.is_none_or(|c| !is_word_char(c)))
            })
            .map(|m| {
                let word = text[..m.start()]
                    .rfind(|c: char| !c.is_alphabetic())
                    .map_or(0, |i| {
                        i + text[i..].chars().next().map_or(1, char::len_utf8)
                    });
                (word, m.start(), m.end())
            })
            .collect()
    }

    /// Whether folded `text` holds any of the words.
    pub fn any_in(&self, text: &str) -> bool {
        self.ac
            .find_overlapping_iter(text)
            .any(|m| self.whole(text, &m))
    }
}

/// Whether `w` is one of `words` (a constant list, hashed on first use and kept).
pub fn listed(words: &'static [&'static str], w: &str) -> bool {
    use std::collections::HashMap;
    use std::sync::{LazyLock, Mutex};
    static SETS: LazyLock<Mutex<HashMap<(usize, usize), &'static Words>>> =
        LazyLock::new(Default::default);
    let key = (words.as_ptr() as usize, words.len());
    let set = cached(&WORDS_CACHE, key, || {
        *SETS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(key)
            .or_insert_with(|| Box::leak(Box::new(words.iter().copied().collect())))
    });
    set.contains(w)
}

type Words = std::collections::HashSet<&'static str, foldhash::fast::FixedState>;

type Cache<T> = std::cell::RefCell<Vec<((usize, usize), T)>>;

thread_local! {
    // Each reading thread keeps the few lists it asked about, found by address, so the hot
    // path takes no lock (the shared maps are asked once per list and thread).
    static SET_CACHE: Cache<&'static WordSet> = const { std::cell::RefCell::new(Vec::new()) };
    static WORDS_CACHE: Cache<&'static Words> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The value kept for `key` in this thread's cache, else `shared()`'s, kept from now on.
fn cached<T: Copy + 'static>(
    cache: &'static std::thread::LocalKey<Cache<T>>,
    key: (usize, usize),
    shared: impl FnOnce() -> T,
) -> T {
    cache.with(|c| {
        if let Some((_, v)) = c.borrow().iter().find(|(k, _)| *k == key) {
            return *v;
        }
        let v = shared();
        c.borrow_mut().push((key, v));
        v
    })
}

/// Whether folded `text` holds any of `words`.
pub fn has_any(text: &str, words: &'static [&'static str]) -> bool {
    WordSet::of(words).any_in(text)
}

/// "In no case", "under no circumstances" (folded): what follows in the clause is never to
/// be done.
pub const NEVER_IDIOMS: &[&str] = &[
    "in no case",
    "under no circumstances",
    "in nessun caso",
    "in alcun caso",
    "in nessun modo",
    "auf keinen fall",
    "in keinem fall",
    "unter keinen umstanden",
    "en aucun cas",
    "en ningun caso",
    "de ninguna manera",
    "bajo ningun concepto",
    "em nenhum caso",
    "de jeito nenhum",
    "in geen geval",
    "onder geen beding",
    "ni en broma",
];

/// Words after a quoted term that define it (`"no tool" means …`, `写了“X”的就是…`),
/// folded: the quote is a term, not something said.
pub const DEFINES: &[&str] = &[
    "means",
    "meaning",
    "stands for",
    "bedeutet",
    "heisst",
    "signifie",
    "veut dire",
    "significa",
    "quiere decir",
    "quer dizer",
    "vuol dire",
    "betekent",
    "的就是",
    "就是",
    "的意思",
    "表示",
    "是指",
    "とは",
    "의미",
    "란",
    "이란",
    "означает",
    "oznacza",
    "と書",
    "と記載",
    "と記入",
    "i mean",
    "we mean",
    "that means",
    "this means",
    "it means",
    "ich meine",
    "gemeint ist",
    "je veux dire",
    "quiero decir",
    "quero dizer",
    "intendo",
    "bedoel ik",
    "es que",
    "vale para",
    "significa que",
    "applies to",
    "gilt fur",
    "s applique",
    "vale per",
];

/// Words that point back at numbers the prompt gave ("those four numbers"), folded.
pub const POINTS_BACK: &[&str] = &[
    "those",
    "these",
    "same numbers",
    "the numbers given",
    "diese",
    "diesen",
    "ces",
    "ces nombres",
    "esos",
    "estos",
    "esses",
    "estes",
    "quei",
    "questi",
    "deze",
    "die getallen",
    "それらの",
    "これらの",
    "这些",
    "那些",
    "이 숫자",
    "그 숫자",
];

/// Words that make a rule hold for every case of a section (folded): "no case in this
/// section", "common forbidden", "공통 금지".
pub const SECTION_WIDE: &[&str] = &[
    "in this section",
    "every case",
    "all cases",
    "no case",
    "each case",
    "common",
    "in diesem abschnitt",
    "alle falle",
    "kein fall",
    "jeder fall",
    "gemeinsam",
    "dans cette section",
    "tous les cas",
    "aucun cas",
    "commun",
    "en esta seccion",
    "todos los casos",
    "ningun caso",
    "comun",
    "nesta secao",
    "todos os casos",
    "nenhum caso",
    "in questa sezione",
    "tutti i casi",
    "nessun caso",
    "comune",
    "in deze sectie",
    "alle gevallen",
    "gemeenschappelijk",
    "공통",
    "共通",
    "すべてのケース",
    "全ケース",
    "通用",
    "所有用例",
    "本节",
    "in deze paragraaf",
    "in diesem kapitel",
    "dans ce chapitre",
    "en este apartado",
    "neste capitulo",
    "in questo capitolo",
];

/// "No case may …" in the languages of the lexicon (folded): a rule that forbids what it
/// names.
pub const NO_CASE: &[&str] = &[
    "no case",
    "none of the cases",
    "kein fall",
    "keiner der falle",
    "aucun cas",
    "ningun caso",
    "nenhum caso",
    "nessun caso",
    "geen geval",
    "どのケースも",
    "任何用例",
    "어떤 케이스도",
    "geen enkel geval",
    "kein einziger fall",
    "in keinem fall",
    "aucun des cas",
    "ninguno de los casos",
    "nenhum dos casos",
    "nessuno dei casi",
    "どのケースでも",
    "没有任何用例",
    "어느 케이스도",
];

/// Keys, tags and marks that switch a case off while keeping it in the file (`skip:`,
/// `@ignore`, `Skip = "…"`, `omitir:`), folded.
pub const OFF_SWITCHES: &[&str] = &[
    "skip",
    "skipped",
    "skip reason",
    "disabled",
    "ignore",
    "ignored",
    "exclude",
    "excluded",
    "omit",
    "omitir",
    "omitido",
    "ignorar",
    "saltar",
    "pular",
    "uberspringen",
    "ignorieren",
    "ignorer",
    "sauter",
    "ignorare",
    "saltare",
    "overslaan",
    "negeren",
    "wip",
    "スキップ",
    "跳过",
    "건너뛰기",
];

/// Arrows that lead from what is said to what is expected.
pub const ARROWS: [&str; 5] = ["→", "->", "=>", "➜", "⇒"];

/// What a sheet's note says of its blank cells when merged cells came out blank, folded.
pub const SAME_AS_ABOVE: &[&str] = &[
    "same as above",
    "same as the cell above",
    "same as the row above",
    "ditto",
    "wie oben",
    "wie daruber",
    "wie in der zeile daruber",
    "comme ci-dessus",
    "comme au-dessus",
    "comme la ligne du dessus",
    "igual que arriba",
    "fila de arriba",
    "celda de arriba",
    "fila anterior",
    "the row above",
    "the cell above",
    "lo mismo que arriba",
    "igual que la celda de arriba",
    "igual ao de cima",
    "o mesmo que acima",
    "mesmo valor da linha de cima",
    "come sopra",
    "uguale a sopra",
    "come la riga sopra",
    "hetzelfde als de cel erboven",
    "hetzelfde als erboven",
    "zelfde als hierboven",
    "jak wyzej",
    "tak samo jak wyzej",
    "samma som ovan",
    "同上",
    "上と同じ",
    "上のセルと同じ",
    "与上相同",
    "위와 같음",
    "위와 동일",
];

/// Keys whose `false` turns a case off (`enabled: false`, `activo: false`), folded.
pub const ON_SWITCHES: &[&str] = &[
    "enabled",
    "active",
    "run",
    "activo",
    "activa",
    "habilitado",
    "ativo",
    "aktiv",
    "aktiviert",
    "actif",
    "attivo",
    "abilitato",
    "actief",
    "ingeschakeld",
    "aktywny",
    "aktiverad",
    "启用",
    "啟用",
    "有効",
    "활성",
];

/// Words that join the names of a list ("X, Y or Z", "X、Y 和 Z"), folded.
pub const CONJUNCTIONS: &[&str] = &[
    "and",
    "or",
    "nor",
    "und",
    "oder",
    "et",
    "ou",
    "ni",
    "y",
    "o",
    "e",
    "u",
    "en",
    "of",
    "noch",
    "i",
    "lub",
    "ani",
    "и",
    "или",
    "ve",
    "veya",
    "ya",
    "da",
    "och",
    "eller",
    "dan",
    "atau",
    "va",
    "hoac",
    "和",
    "或",
    "或者",
    "与",
    "及",
    "以及",
    "や",
    "と",
    "または",
    "및",
    "또는",
    "와",
    "과",
    "και",
    "ή",
    "و",
    "أو",
    "או",
    "और",
    "या",
    "และ",
    "หรือ",
    "nem",
    "ne",
    "weder",
];

/// Words that negate what follows them in the clause (or, for verb-final languages and
/// passives, what precedes them).
pub const NEGATION: &[&str] = &[
    "khong",
    "لا",
    "دون",
    "بدون",
    "नहीं",
    "बिना",
    "मत",
    "cagrilmamali",
    "cagrilmamalidir",
    "cagirmamali",
    "cagirmamasi",
    "cagirmasin",
    "cagirmadan",
    "cagirmiyor",
    "cagrilmaz",
    "kullanilmamali",
    "kullanmamali",
    "kullanilmaz",
    "olmadan",
    "не",
    "без",
    "nie",
    "bez",
    "inte",
    "ikke",
    "tidak",
    "tanpa",
    "jangan",
    "bukan",
    "nesmi",
    "nema",
    "not",
    "n't",
    "never",
    "without",
    "avoid",
    "avoids",
    "instead of",
    "rather than",
    "nicht",
    "niemals",
    "ohne",
    "statt",
    "anstatt",
    "pas",
    "jamais",
    "sans",
    "au lieu",
    "no",
    "nunca",
    "sin",
    "en lugar",
    "en vez",
    "nao",
    "sem",
    "em vez",
    "non",
    "mai",
    "senza",
    "invece",
    "niet",
    "nooit",
    "zonder",
    "in plaats",
    "不",
    "别",
    "勿",
    "禁止",
    "不要",
    "不能",
    "不应",
    "ない",
    "なし",
    "しない",
    "せず",
    "ずに",
    "않",
    "안 됨",
    "안 돼",
    "안됨",
    "금지",
    "말 것",
    "말고",
    "없이",
    "mustn't",
    "shouldn't",
    "doesn't",
    "don't",
    "won't",
    "isn't",
    "ไม่",
    "ห้าม",
    "ไม่ต้อง",
    "ni",
    "nem",
    "nor",
    "neither",
    "weder",
    "forbidden",
    "forbid",
    "prohibited",
    "banned",
    "disallowed",
    "verboten",
    "untersagt",
    "interdit",
    "interdite",
    "interdits",
    "interdites",
    "prohibido",
    "prohibida",
    "prohibidos",
    "prohibidas",
    "proibido",
    "proibida",
    "proibidos",
    "proibidas",
    "vietato",
    "vietata",
    "vietati",
    "vietate",
    "verboden",
    "禁用",
];

/// Negation words that also negate a tool named before them ("`x` is not called",
/// "`x` wird nicht aufgerufen", "x は使わない", "x 호출 금지").
pub const NEGATION_AFTER: &[&str] = &[
    "नहीं",
    // Turkish negates inside the verb: "çağrılmamalı", "kullanılmaz"; "get sum değil".
    "cagrilmamali",
    "cagrilmamalidir",
    "cagirmamali",
    "cagirmamasi",
    "cagirmasin",
    "cagirmiyor",
    "cagrilmaz",
    "degil",
    "kullanilmamali",
    "kullanmamali",
    "kullanilmaz",
    "не",
    "nie",
    "inte",
    "ikke",
    "tidak",
    "not",
    "n't",
    "never",
    "nicht",
    "niet",
    "pas",
    "nunca",
    "nao",
    "non",
    "mai",
    "ない",
    "しない",
    "せず",
    "ずに",
    "禁止",
    "않",
    "안 됨",
    "안 돼",
    "안됨",
    "금지",
    "말 것",
    "말고",
    "不",
    "keinen",
    "keinesfalls",
    "keineswegs",
    "niemals",
    "jamais",
    "nooit",
];

/// Negating determiners: "no", "kein", "aucun", "ningún"…
pub const NO_DETERMINER: &[&str] = &[
    "zero",
    "никакой",
    "жодних",
    "жодного",
    "жоден",
    "жодна",
    "жодне",
    "никаких",
    "никакие",
    "никакого",
    "нет",
    "zadnego",
    "zadnych",
    "zaden",
    "inget",
    "ingen",
    "inga",
    "ingenting",
    "zadny",
    "zadne",
    "hicbir",
    "no",
    "none",
    "zero",
    "kein",
    "keine",
    "keinen",
    "keinem",
    "keiner",
    "aucun",
    "aucune",
    "ningun",
    "ninguna",
    "ninguno",
    "nenhum",
    "nenhuma",
    "nessun",
    "nessuno",
    "nessuna",
    "geen",
    "无",
    "無",
    "没有",
    "없",
    "없이",
    "미",
    "semmilyen",
    "semmi",
    "nincs",
    "tidak ada",
    "zadna",
    "ziaden",
    "ziadny",
    "ei",
    "mikaan",
    "nici",
    "niciun",
    "καμια",
    "κανενα",
    "κανενας",
    "ללא",
    "אין",
    "कोई नहीं",
    "ไม่มี",
    "không",
    "khong co",
    "없음",
];

/// Nouns for "tool" (and "tool call").
pub const TOOL_NOUNS: &[&str] = &[
    "cong cu",
    "wywolan*",
    "инструмент*",
    "narzedzi*",
    "verktyg*",
    "vaerktoj*",
    "værktøj*",
    "værktoj*",
    "verktøy*",
    "nastroj*",
    "alat",
    "arac*",
    "araç*",
    "tool",
    "tools",
    "tool call",
    "tool calls",
    "tool-call",
    "function call",
    "function calls",
    "werkzeug*",
    "tool-aufruf*",
    "outil",
    "outils",
    "herramienta",
    "herramientas",
    "ferramenta",
    "ferramentas",
    "strumento",
    "strumenti",
    "gereedschap",
    "tool-aanroep*",
    "ツール",
    "工具",
    "도구",
    "mcp tool",
    "mcp tools",
    "інструмент*",
    "tyokalu*",
    "eszkoz*",
    "instrument*",
    "εργαλει*",
    "כלי",
    "أداة",
    "الأداة",
    "टूल",
    "เครื่องมือ",
    "eina",
    "툴",
    "инструментов",
    "εργαλειο*",
];

/// Quantifiers that make a negated tool noun mean "no tool at all".
pub const ANY_WORDS: &[&str] = &[
    "any",
    "anything",
    "all",
    "at all",
    "other",
    "irgendein*",
    "irgendwelche",
    "quelconque",
    "ninguna",
    "ningun",
    "alguna",
    "qualquer",
    "nenhuma",
    "alcun*",
    "enkele",
    "任何",
    "何も",
    "一切",
    "아무",
    "कोई",
    "koi",
    "hicbir",
    "zadny",
    "jakikolwiek",
    "любой",
    "какой-либо",
    "apapun",
    "bat ky",
    "semmilyen",
    "nenhum",
];

/// Words after "no tool" that make it something other than a negative ("no tool errors").
pub const NOT_NEGATIVE_AFTER: &[&str] = &[
    "error",
    "errors",
    "failure",
    "failures",
    "result",
    "results",
    "output",
    "outputs",
    "schema",
    "schemas",
    "description",
    "descriptions",
    "annotation",
    "annotations",
    "timeout",
    "timeouts",
    "problem",
    "problems",
    "issue",
    "issues",
    "other",
    "others",
    "besides",
    "except",
    "but",
    "apart",
    "beyond",
    "than",
    "latency",
    "exception",
    "exceptions",
    "warning",
    "warnings",
    "name",
    "names",
    "for this",
    "rejects",
    // "other" in the lexicon's other languages: "no other tool" beside a named tool.
    "annat",
    "annan",
    "andra",
    "andet",
    "anden",
    "andere",
    "anderes",
    "anderen",
    "ander",
    "autre",
    "autres",
    "otro",
    "otra",
    "otros",
    "outro",
    "outra",
    "altro",
    "altri",
    "inny",
    "innego",
    "innych",
    "baska",
    "другой",
    "других",
    "другого",
    "其他",
    "他の",
    "다른",
    "fehler",
    "erreur",
    "erro",
    "errore",
    "fout",
];

/// "Answer directly" wordings: a verb of answering near an adverb of directness.
pub const ANSWER_VERBS: &[&str] = &[
    "отвеча*",
    "ответ*",
    "odpowi*",
    "svara*",
    "svare*",
    "menjawab",
    "jawab*",
    "odpovi*",
    "cevap*",
    "answer*",
    "reply",
    "replies",
    "respond*",
    "antwort*",
    "beantwort*",
    "repond*",
    "contesta*",
    "risponde*",
    "antwoord*",
    "回答",
    "答え",
    "应答",
    "答复",
    "回复",
    "답변",
    "대답",
    "응답",
    "explain*",
    "explica*",
    "erklar*",
];
pub const DIRECTLY: &[&str] = &[
    "сразу",
    "напрямую",
    "сам",
    "bezposrednio",
    "samodzielnie",
    "direkte",
    "langsung",
    "primo",
    "dogrudan",
    "directly",
    "just",
    "only from knowledge",
    "from knowledge",
    "from memory",
    "by itself",
    "on its own",
    "direkt",
    "selbst",
    "directement",
    "lui-meme",
    "directamente",
    "por si mismo",
    "diretamente",
    "direttamente",
    "da solo",
    "da sola",
    "direct",
    "zelf",
    "直接",
    "自分で",
    "自己",
    "바로",
    "직접",
    "스스로",
];

/// Tool-column values that mean "no tool".
pub const NONE_WORDS: &[&str] = &[
    "intet værktoj",
    "intet",
    "ingen værktojer",
    "niciuna",
    "niciunul",
    "nimic",
    "لا شيء",
    "لا يوجد",
    "कोई नहीं",
    "कुछ नहीं",
    "нет",
    "никакой",
    "brak",
    "zadne",
    "inget",
    "ingen",
    "tidak ada",
    "zadny",
    "yok",
    "none",
    "(none)",
    "—",
    "–",
    "-",
    "n/a",
    "na",
    "no",
    "no tool",
    "no tools",
    "nothing",
    "null",
    "[]",
    "∅",
    "keine",
    "kein",
    "keins",
    "kein tool",
    "kein werkzeug",
    "aucun",
    "aucune",
    "aucun outil",
    "ninguna",
    "ninguno",
    "ningun",
    "nenhuma",
    "nenhum",
    "nessuno",
    "nessuna",
    "geen",
    "geen tool",
    "なし",
    "無し",
    "無",
    "ツールなし",
    "无",
    "没有",
    "不调用",
    "없음",
    "도구 없음",
    "no call",
    "no calls",
    "no tool call",
    "no tool calls",
    "no tool needed",
    "no tools needed",
    "no tool call expected",
    "툴 없음",
    "ninguna herramienta",
    "semmi",
    "nincs",
    "tanpa tool",
    "ei mitaan",
    "brak narzedzi",
    "bez narzedzi",
    "ไม่มี",
    "ไม่ใช้เครื่องมือ",
    "ไม่ต้องเรียกเครื่องมือใดๆ",
    "ไม่เรียกเครื่องมือ",
];

/// Whether a tool cell means "no tool at all".
/// "…or anything else" after a forbidden tool: every tool is forbidden (folded text).
pub const ANYTHING_ELSE: &[&str] = &[
    "or anything else",
    "nor anything else",
    "or any other",
    "nor any other",
    "or anything at all",
    "oder sonst etwas",
    "oder irgendein anderes",
    "ou autre chose",
    "ni aucun autre",
    "ni nada mas",
    "ni ninguna otra",
    "o cualquier otra",
    "ou qualquer outra",
    "nem qualquer outra",
    "o qualsiasi altro",
    "ne altro",
    "of iets anders",
    "その他のツールも",
    "或其他任何",
    "也不要调用其他",
    "다른 도구도",
];

/// The user as a speaker (folded): `user:` lines and rows are turns of one conversation.
pub const USER_SPEAKERS: &[&str] = &[
    "user",
    "human",
    "customer",
    "u",
    "benutzer",
    "nutzer",
    "utilisateur",
    "usuario",
    "utente",
    "gebruiker",
    "ユーザー",
    "用户",
    "사용자",
    "пользователь",
    "uzivatel",
    "uzytkownik",
    "kullanici",
    "pengguna",
    "nguoi dung",
    "anvandare",
    "bruger",
    "bruker",
    "kayttaja",
    "felhasznalo",
    "utilizator",
    "користувач",
    "χρηστης",
    "משתמש",
    "المستخدم",
    "उपयोगकर्ता",
    "ผู้ใช้",
    "usuari",
    "client",
    "klient",
    "kunde",
    "cliente",
    "nutzerin",
    "benutzerin",
    "kundin",
    "utilisatrice",
    "usuaria",
    "gebruikster",
    "klantin",
    "utilizador",
    "usuario(a)",
    "user (human)",
];

/// The assistant as a speaker (folded): its lines are no part of a prompt.
pub const ASSISTANT_SPEAKERS: &[&str] = &[
    "assistant",
    "bot",
    "agent",
    "ai",
    "model",
    "assistent",
    "assistente",
    "asistente",
    "assistente virtuale",
    "アシスタント",
    "助手",
    "助理",
    "어시스턴트",
    "ассистент",
    "asistent",
    "asystent",
    "asistan",
    "asisten",
    "tro ly",
    "avustaja",
    "asszisztens",
    "помощник",
    "асистент",
    "βοηθος",
    "עוזר",
    "المساعد",
    "सहायक",
    "ผู้ช่วย",
    "agente",
    "assistant ai",
    "chatbot",
    "llm",
    "claude",
    "gpt",
    "copilot",
];

/// Words that give a text's earlier version (`(was "…")`, `vorher: „…“`, `変更前「…」`).
const FORMERLY: &[&str] = &[
    "was",
    "previously",
    "formerly",
    "old",
    "before",
    "originally",
    "vorher",
    "fruher",
    "alt",
    "bisher",
    "avant",
    "anciennement",
    "ancien",
    "antes",
    "anteriormente",
    "antiguo",
    "antigo",
    "prima",
    "precedente",
    "voorheen",
    "eerst",
    "oud",
    "이전",
    "기존",
];

/// The same, in scripts that write them without spaces.
const FORMERLY_CJK: &[&str] = &["旧", "以前", "変更前", "修改前", "原来", "原文", "변경 전"];

/// Whether the text before a quote (its opening mark included) introduces an earlier
/// version of what is quoted: a word of it in brackets or as a label (`(was "…")`,
/// `Vorher: „…“`), or a word that says nothing else (`変更前「…」`).
pub fn says_formerly(before: &str) -> bool {
    let f = fold(before);
    let t = f
        .trim_end()
        .trim_end_matches(|c: char| !c.is_alphanumeric() && !matches!(c, ':' | '：'))
        .trim_end();
    if FORMERLY_CJK.iter().any(|w| t.ends_with(w)) {
        return true;
    }
    let labelled = t.ends_with([':', '：']);
    let t = t.trim_end_matches([':', '：']).trim_end();
    let word_at = t
        .rfind(|c: char| !c.is_alphanumeric())
        .map_or(0, |i| i + t[i..].chars().next().map_or(1, char::len_utf8));
    let bracketed = t[..word_at].trim_end().ends_with(['(', '[', '（']);
    listed(FORMERLY, &t[word_at..]) && (labelled || bracketed)
}

/// Words for "each" and "every" (`For each case, give:`), folded.
pub const EACH_WORDS: &[&str] = &[
    "each", "every", "chaque", "jeden", "jede", "jedes", "cada", "ogni", "elk", "elke", "ieder",
    "iedere", "各", "每", "각",
];

/// Relative pronouns that open a clause describing the noun before them (`das Werkzeug,
/// das …`, `l'outil qui …`, `the tool that …`).
pub const RELATIVES: &[&str] = &[
    "that",
    "which",
    "der",
    "die",
    "das",
    "welches",
    "welche",
    "qui",
    "que",
    "che",
    "il quale",
    "la quale",
    "dat",
    "die",
    "welke",
    "который",
    "которая",
    "ktory",
    "ktore",
];

/// A test run's verdicts, as a results column writes them.
pub const RUN_RESULTS: &[&str] = &[
    "pass",
    "passed",
    "fail",
    "failed",
    "ok",
    "ng",
    "blocked",
    "flaky",
    "green",
    "red",
    "erfolgreich",
    "fehlgeschlagen",
    "reussi",
    "echec",
    "aprobado",
    "fallido",
    "aprovado",
    "falhou",
    "superato",
    "fallito",
    "geslaagd",
    "gefaald",
    "合格",
    "不合格",
    "通过",
    "失败",
    "성공",
    "실패",
];

/// Articles before a speaker who is the subject of a line (`The assistant asks …`).
const SUBJECT_ARTICLES: &[&str] = &[
    "the", "der", "die", "das", "le", "la", "l", "el", "o", "a", "il", "lo", "de", "het",
];

/// Whether a line is about what the assistant says or does (`The assistant should ask
/// which item`, `Der Assistent fragt nach`, `助手反问…`), not something the user says.
pub fn speaks_for_assistant(line: &str) -> bool {
    let f = fold(line.trim());
    if ASSISTANT_SPEAKERS
        .iter()
        .any(|s| s.chars().any(is_cjk) && f.starts_with(s))
    {
        return true;
    }
    let mut words = f
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty());
    let first = words.next().unwrap_or_default();
    let subject = if listed(SUBJECT_ARTICLES, first) {
        words.next().unwrap_or_default()
    } else {
        first
    };
    listed(ASSISTANT_SPEAKERS, subject)
}

/// Verbs a manual script uses for what the tester says (`Type: …`, `Saisir : …`): the
/// first word of a step, folded.
pub const SAY_VERBS: &[&str] = &[
    "type",
    "enter",
    "ask",
    "say",
    "send",
    "write",
    "input",
    "paste",
    "submit",
    "prompt",
    "tippe",
    "tippen",
    "tippt",
    "gib",
    "geben",
    "eingeben",
    "schreibe",
    "schreiben",
    "frage",
    "fragen",
    "sende",
    "senden",
    "tapez",
    "tape",
    "taper",
    "saisir",
    "saisissez",
    "saisis",
    "ecrivez",
    "ecris",
    "ecrire",
    "demandez",
    "demander",
    "envoyez",
    "envoyer",
    "escribe",
    "escriba",
    "escribir",
    "pregunta",
    "pregunte",
    "preguntar",
    "envia",
    "envie",
    "enviar",
    "introduce",
    "introduzca",
    "teclea",
    "digite",
    "digita",
    "digitar",
    "escreva",
    "pergunte",
    "insira",
    "scrivi",
    "scrivere",
    "digitare",
    "chiedi",
    "chiedere",
    "invia",
    "inviare",
    "inserisci",
    "typ",
    "typt",
    "vraag",
    "stuur",
    "schrijf",
    "voer",
    "入力",
    "送信",
    "質問",
    "输入",
    "发送",
    "提问",
    "입력",
    "전송",
    "질문",
];

/// Words meaning "every tool" in a forbidden-tools field (`Must not call: any`).
pub const ALL_WORDS: &[&str] = &[
    "toate",
    "orice",
    "orice unealta",
    "any",
    "all",
    "anything",
    "any tool",
    "any tools",
    "all tools",
    "every tool",
    "*",
    "alle",
    "alles",
    "jedes",
    "tous",
    "toutes",
    "tout",
    "n'importe lequel",
    "todos",
    "todas",
    "cualquiera",
    "qualquer",
    "qualquer um",
    "tutti",
    "tutte",
    "qualsiasi",
    "allemaal",
    "все",
    "любой",
    "wszystkie",
    "każdy",
    "semua",
    "hepsi",
    "すべて",
    "全て",
    "全部",
    "所有",
    "任何",
    "모두",
    "전부",
    "모든 도구",
    "sab",
    "koi bhi",
];

/// Whether a forbidden-tools value forbids every tool.
pub fn is_all_word(s: &str) -> bool {
    let f = fold(s);
    let t = f
        .trim()
        .trim_matches(|c: char| matches!(c, '`' | '*' | '_' | '"' | '\'' | '(' | ')'))
        .trim_end_matches(['.', '!', '。'])
        .trim();
    // (`orice unealtă — fără apeluri`: a remark may follow a dash.)
    let head = t.split(['—', '–']).next().unwrap_or(t).trim();
    ALL_WORDS.contains(&t)
        || ALL_WORDS.contains(&head)
        || (t.len() > 1 && ALL_WORDS.contains(&t.trim_matches('*')))
}

pub fn is_none_word(s: &str) -> bool {
    // A none word is short, with at most a comment after a separator: a value whose first
    // stretch is long is none of them (most values, cheaply).
    let t = s.trim();
    let head = &t[..t
        .find(['(', ':', ',', ';', '–', '—', '-'])
        .unwrap_or(t.len())];
    if head.len() > 64 && head.chars().count() > 64 {
        return false;
    }
    let f = fold(s);
    let t = f
        .trim()
        .trim_matches(|c: char| matches!(c, '`' | '*' | '_' | '"' | '\'' | '「' | '」'))
        .trim_end_matches(['.', '!', '。'])
        .trim();
    // `*(none)*`, `[keins]`: a none word set apart.
    let t = match t
        .strip_prefix(['(', '['])
        .and_then(|x| x.strip_suffix([')', ']']))
    {
        Some(inner) if !inner.contains(['(', '[']) => inner.trim(),
        _ => t,
    };
    if listed(NONE_WORDS, t) {
        return true;
    }
    // A no-tool phrase names a tool: most values name none, and skip the phrase checks.
    let tool_noun = has_any(t, TOOL_NOUNS);
    if tool_noun && is_no_tool_phrase(t) {
        return true;
    }
    // `none (small talk)`, `— (general knowledge)`: a comment after the word, which is
    // short (most values have no separator, or a long stretch before it).
    let Some(first) = t.find(['(', '–', '—', '-', ':', ',', ';']) else {
        return false;
    };
    if t[..first].chars().count() > 40 {
        return false;
    }
    for sep in [" (", "(", " – ", " — ", " - ", ":", ",", ";"] {
        if let Some((head, _)) = t.split_once(sep)
            && !head.trim().is_empty()
            && head.len() < t.len()
        {
            let h = head
                .trim()
                .trim_matches(|c: char| matches!(c, '`' | '*' | '_'));
            // (`Without any tools, what is 10 × 10?` is a prompt: a phrase counts before a
            // dash or a parenthesis only.)
            let aside = [" (", "(", " – ", " — ", " - "].contains(&sep);
            if listed(NONE_WORDS, h) || tool_noun && aside && is_no_tool_phrase(h) {
                return true;
            }
        }
    }
    false
}

/// `no tool at all`, `без инструментов`, `툴 호출 없음`, `tanpa tool` (folded): a short
/// phrase of only negation, tool and call words, with a negation and a tool noun.
fn is_no_tool_phrase(f: &str) -> bool {
    // (Split at spaces and punctuation only: Devanagari's vowel signs are marks inside a
    // word.)
    let words = || {
        f.split(|c: char| c.is_whitespace() || (c.is_ascii_punctuation() && c != '\''))
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && !is_combining_mark(c)))
            .filter(|w| !w.is_empty())
    };
    // Most values are longer: said cheaply.
    if words().nth(6).is_some() {
        return false;
    }
    let (mut neg, mut tool) = (false, false);
    for w in words() {
        if [NEGATION, NO_DETERMINER, NONE_WORDS]
            .iter()
            .any(|l| word_in(l, w))
        {
            neg = true;
        } else if word_in(TOOL_NOUNS, w) {
            tool = true;
        } else if !(word_in(CALL_VERBS, w)
            || word_in(ANY_WORDS, w)
            || matches!(w, "at" | "call" | "calls" | "needed" | "used" | "required"))
        {
            return false;
        }
    }
    neg && tool
}

/// Whether a folded word is in the list, as itself or by a listed prefix (`инструмент*`).
fn word_in(words: &'static [&'static str], w: &str) -> bool {
    listed(words, w)
        || words
            .iter()
            .any(|x| x.strip_suffix('*').is_some_and(|p| w.starts_with(p)))
}

/// Yes / no in every language of the lexicon.
pub fn truthy(s: &str) -> Option<bool> {
    let f = fold(s);
    let t = f
        .trim()
        .trim_matches(|c: char| matches!(c, '`' | '"' | '\'' | '*' | '.' | '「' | '」'));
    match t {
        "true" | "yes" | "y" | "1" | "x" | "✓" | "✔" | "✅" | "on" | "ja" | "wahr" | "oui"
        | "vrai" | "si" | "sim" | "verdadero" | "verdadeiro" | "vero" | "waar" | "はい" | "真"
        | "是" | "对" | "예" | "네" | "참" => Some(true),
        "false" | "no" | "n" | "0" | "✗" | "❌" | "off" | "nein" | "falsch" | "non" | "faux"
        | "falso" | "nao" | "nee" | "onwaar" | "いいえ" | "偽" | "否" | "假" | "아니요"
        | "아니오" | "거짓" => Some(false),
        _ => None,
    }
}

/// Markers of a unit or a section that holds no case: ideas dropped or rejected, set-up,
/// environment, exit criteria, action items, change logs, sign-offs.
/// A template of a case, shown for authors to copy (its fields are placeholders), folded.
pub const TEMPLATE_WORDS: &[&str] = &[
    "template",
    "sablon",
    "exemplu",
    "templates",
    "vorlage",
    "plantilla",
    "gabarit",
    "sjabloon",
    "szablon",
    "modelo de caso",
    "テンプレート",
    "ひな形",
    "雛形",
    "模板",
    "範本",
    "템플릿",
];

pub const NOT_CASES: &[&str] = &[
    "окружение",
    "среда",
    "подготовка",
    "отклонено",
    "środowisko",
    "srodowisko",
    "przygotowanie",
    "odrzucon*",
    "miljo",
    "miljø",
    "forberedelse",
    "lingkungan",
    "persiapan",
    "ortam",
    "dropped",
    "rejected",
    "discarded",
    "parked",
    "removed",
    "out of scope",
    "not in scope",
    "ideas",
    "ideen",
    "idees",
    "アイデア",
    "想法",
    "아이디어",
    "run log",
    "execution log",
    "test log",
    "実行ログ",
    "実行記録",
    "运行日志",
    "执行记录",
    "실행 로그",
    "testprotokoll",
    "未定",
    "failure analysis",
    "failure analyses",
    "fehleranalyse",
    "analyse des echecs",
    "analisis de fallos",
    "analise de falhas",
    "analisi dei fallimenti",
    "analisi degli errori",
    "foutanalyse",
    "felanalys",
    "失败分析",
    "失敗分析",
    "실패 분석",
    "not in set",
    "not in the set",
    "not a case",
    "not cases",
    "not test cases",
    "not a test",
    "ikke en test",
    "ikke en testcase",
    "no test",
    "housekeeping",
    "setup",
    "set-up",
    "set up",
    "prerequisite*",
    "precondition*",
    "environment",
    "exit criteria",
    "pass criteria",
    "acceptance criteria for the release",
    "sign-off",
    "sign off",
    "signoff",
    "approval",
    "change log",
    "changelog",
    "revision",
    "history",
    "action items",
    "actions",
    "aob",
    "any other business",
    "requirements",
    "document info",
    "troubleshooting",
    // Questions left open: asked, not agreed.
    "open questions",
    "open points",
    "open issues",
    "offene fragen",
    "offene punkte",
    "questions ouvertes",
    "points ouverts",
    "preguntas abiertas",
    "puntos abiertos",
    "questoes em aberto",
    "perguntas em aberto",
    "domande aperte",
    "punti aperti",
    "open vragen",
    "openstaande punten",
    "未解決",
    "待解决",
    "미해결",
    // A board's lane of cards put away.
    "archived",
    "archive",
    "archiv",
    "archivees",
    "archives",
    "archivado",
    "archivados",
    "arquivado",
    "arquivados",
    "archiviato",
    "archiviati",
    "gearchiveerd",
    "архив",
    "アーカイブ",
    "已归档",
    "归档",
    "보관됨",
    "보관",
    // A bug report's own sections: what went wrong, not what to test.
    "what happened",
    "actual behavior",
    "actual behaviour",
    "actual result",
    "actual results",
    "observed behavior",
    "observed behaviour",
    "steps to reproduce",
    "suspected cause",
    "root cause",
    "workaround",
    "stack trace",
    "was ist passiert",
    "ist-verhalten",
    "ist verhalten",
    "tatsachliches verhalten",
    "schritte zur reproduktion",
    "ursache",
    "ce qui s'est passe",
    "comportement observe",
    "comportement actuel",
    "etapes pour reproduire",
    "cause probable",
    "que paso",
    "comportamiento actual",
    "comportamiento observado",
    "pasos para reproducir",
    "causa probable",
    "o que aconteceu",
    "comportamento atual",
    "comportamento observado",
    "passos para reproduzir",
    "causa provavel",
    "cosa e successo",
    "comportamento attuale",
    "comportamento osservato",
    "passi per riprodurre",
    "causa probabile",
    "wat er gebeurde",
    "huidig gedrag",
    "stappen om te reproduceren",
    "vermoedelijke oorzaak",
    "再現手順",
    "実際の動作",
    "実際の結果",
    "発生した現象",
    "推定原因",
    "复现步骤",
    "重现步骤",
    "实际结果",
    "实际行为",
    "可能原因",
    "재현 절차",
    "재현 단계",
    "실제 결과",
    "실제 동작",
    "추정 원인",
    "for reference",
    "reference",
    "tool reference",
    "tools exposed",
    "available tools",
    "tool overview",
    "overview of the tools",
    "glossary",
    "appendix",
    "referenz",
    "werkzeuge",
    "outils disponibles",
    "referencia",
    "riferimento",
    "overzicht van de tools",
    "ferramentas disponiveis",
    "справочн*",
    "ツール一覧",
    "工具列表",
    "도구 목록",
    "common problems",
    "results log",
    "todo",
    "next steps",
    "verworfen",
    "gestrichen",
    "entfallen",
    "nicht im umfang",
    "voraussetzung*",
    "abnahmekriterien",
    "anderungshistorie",
    "historie",
    "umgebung",
    "ecarte*",
    "rejete*",
    "abandonne*",
    "hors perimetre",
    "prerequis",
    "environnement",
    "divers",
    "descartad*",
    "fuera de alcance",
    "fuera del alcance",
    "requisitos",
    "entorno",
    "subtareas",
    "comentarios",
    "fora do escopo",
    "nao sao casos",
    "ambiente",
    "passo a passo",
    "problemas comuns",
    "scartat*",
    "fuori ambito",
    "esclus*",
    "niet in scope",
    "vervallen",
    "geschrapt",
    "acties",
    "opmerkingen",
    "対象外",
    "前提条件",
    "試験環境",
    "合否判定",
    "改訂履歴",
    "承認",
    "环境",
    "通过标准",
    "修订记录",
    "准备",
    "不是用例",
    "테스트 아님",
    "준비",
    "기타",
    "deprecated",
    "obsolete",
    "skip",
    "skipped",
    "wont do",
    "won't do",
    "parking lot",
    "on hold",
    "backlog ideas",
    "reddedilen",
    "reddedilenler",
    "odrzucone propozycje",
    "avvisade",
    "afgewezen",
    "rifiutati",
    "scartati",
    "判定ルール",
    "判定基準",
    "ルール",
    "規約",
    "凡例",
    "完了基準",
    "終了基準",
    "変更履歴",
    "rules",
    "conventions",
    "legend",
    "legenda",
    "legende",
    "leyenda",
    "图例",
    "圖例",
    "범례",
    "regeln",
    "konventionen",
    "regles",
    "reglas",
    "convenciones",
    "regras",
    "convencoes",
    "regole",
    "convenzioni",
    "regels",
    "afspraken",
    "规则",
    "约定",
    "判定规则",
    "규칙",
    "판정 기준",
    "완료 기준",
    "종료 기준",
    "变更记录",
    "变更历史",
    "完成标准",
    "退出标准",
    "exit-kriterien",
    "endekriterien",
    "criteres de sortie",
    "criterios de salida",
    "criterios de saida",
    "criteri di uscita",
    "afsluitcriteria",
    "변경 이력",
    "不在范围",
    "范围外",
    "범위 외",
    "범위 밖",
    "说明",
    "使い方",
    "読み方",
    "how to read",
    "待讨论",
    "未決事項",
    "open questions",
    "offene fragen",
    "questions ouvertes",
    "preguntas abiertas",
    "perguntas em aberto",
    "domande aperte",
    "open vragen",
    "미결 사항",
    "검토 필요",
    "offene punkte",
    "open points",
    "open issues",
    "points ouverts",
    "puntos abiertos",
    "pontos em aberto",
    "punti aperti",
    "openstaande punten",
    "未解決",
    "待定",
    "미해결",
    "概要",
    "overview",
    "uberblick",
    "apercu",
    "resumen",
    "visao geral",
    "panoramica",
    "overzicht",
    "개요",
    "概述",
    "how the cases",
    "how cases are",
    "notation",
    "reading guide",
    "how to read this",
    "comment lire",
    "wie die falle",
    "como leer",
    "como ler",
    "come leggere",
    "leeswijzer",
    "jak czytac",
    "som man laser",
    "hur man laser",
    "表記",
    "读法",
    "작성 규칙",
    "읽는 법",
    "暂不纳入",
    "不纳入",
    "暂不考虑",
    "今回は対象外",
    "보류",
    "はじめに",
    "序文",
    "前言",
    "引言",
    "소개",
    "introduction",
    "einleitung",
    "einfuhrung",
    "introduccion",
    "introducao",
    "introduzione",
    "inleiding",
    "activity",
    "activity feed",
    "aktivitat",
    "activite",
    "actividad",
    "atividade",
    "attivita",
    "activiteit",
    "アクティビティ",
    "动态",
    "활동",
    "comments",
    "kommentare",
    "commentaires",
    "commenti",
    "コメント",
    "评论",
    "댓글",
    "won't have",
    "wont have",
    "will not have",
    "notatie",
    "notacion",
    "notacao",
    "notazione",
    "schreibweise",
    "notations",
    "评审意见",
    "评审记录",
    "review comments",
    "review notes",
    "レビューコメント",
    "レビュー結果",
    "검토 의견",
    "reviewopmerkingen",
    "anmerkungen aus dem review",
    "見方",
    "ケースの見方",
    "宿題",
    "次回までの宿題",
    "작성 방법",
    "작성법",
    "書き方",
    "記入方法",
    "填写说明",
    "编写说明",
    "how to write",
    "how to fill in",
    "root cause",
    "root causes",
    "timeline",
    "lessons learned",
    "what went wrong",
    "what went poorly",
    "incident summary",
    "ursache",
    "ursachenanalyse",
    "zeitverlauf",
    "cause racine",
    "chronologie",
    "causa raiz",
    "causa raíz",
    "cronologia",
    "lecciones aprendidas",
    "licoes aprendidas",
    "根本原因",
    "振り返り",
];

/// Section headings that hold the plan's cases ("Test cases", "Testfälle", "テストケース"…):
/// a heading naming cases is never a not-a-case section.
pub const CASES_HEADING: &[&str] = &[
    "test case*",
    "cases",
    "testfall",
    "testfalle",
    "cas de test",
    "cas retenus",
    "casos",
    "casi",
    "testgeval*",
    "テストケース",
    "試験項目",
    "测试用例",
    "用例",
    "테스트 케이스",
    "agreed",
    "criterios de aceptacion",
    "acceptance criteria",
];

/// Whether a case's title carries a dropped status: as a tag in brackets (`3.6. [DROPPED –
/// meeting 18/06] Crash`, `TC-06 … [Status: cancelled]`) or after a dash (`Case 6 —
/// Rejected`), where the status is all the part says.
pub fn title_says_dropped(title: &str) -> bool {
    // (Most titles have neither a tag nor a dash: they are passed over cheaply.)
    if !title.contains(['[', '(', '（', '【', '—', '–', '―', '|']) && !title.contains(" - ")
    {
        return false;
    }
    let f = fold(title);
    let tagged = f.split(['[', '(']).skip(1).any(|t| {
        let tag = t.split([']', ')']).next().unwrap_or_default();
        let mut parts = tag.split([':', '：', ',', '–', '—', ';']);
        let head = parts.next().unwrap_or_default();
        is_dropped_status(head)
            || is_dropped_status(head.split(" - ").next().unwrap_or_default())
            || (label_role(head) == Some(LabelRole::Status)
                && is_dropped_status(parts.next().unwrap_or_default()))
    });
    tagged
        || [" — ", " – ", " ― ", " - ", " | "].iter().any(|sep| {
            f.split(sep).skip(1).any(|part| {
                let status = part
                    .split(['(', ':', ',', ';', '.'])
                    .next()
                    .unwrap_or_default();
                listed(
                    DROPPED_STATUS,
                    status.trim().trim_matches(['*', '_', '~']).trim(),
                )
            })
        })
}

/// Whether a heading or lead-in names a part of the document that holds no case.
pub fn heading_excludes(heading: &str) -> bool {
    if title_says_dropped(heading) {
        return true;
    }
    let f = fold(heading);
    if has_any(&f, CASES_HEADING)
        && !has_any(
            &f,
            &[
                "not", "nao", "niet", "nicht", "pas", "no", "아님", "不是", "dropped", "fora",
                "how", "wie", "comment", "como", "come", "notation", "written",
            ],
        )
        && !has_any(&f, TEMPLATE_WORDS)
        // (`Casos descartados`, `Rejected cases`: cases, but set aside.)
        && !has_any(&f, DROPPED_STATUS)
    {
        return false;
    }
    if has_any(&f, TEMPLATE_WORDS) {
        return true;
    }
    // `保留・却下となった案`: ideas a CJK heading says were put off or turned down.
    if f.chars().any(is_cjk) {
        let statuses = WordSet::of(DROPPED_STATUS).find(&f);
        let ideas = ["案", "アイデア", "提案", "想法", "点子", "아이디어", "제안"]
            .iter()
            .any(|w| f.contains(w));
        if statuses.len() >= 2 || !statuses.is_empty() && ideas {
            return true;
        }
    }
    // `Non deprecated tool`, `not rejected`: a status word negated right before it is none.
    WordSet::of(NOT_CASES)
        .find(&f)
        .into_iter()
        .any(|(at, _, _)| {
            let before = f[..at].trim_end().trim_end_matches('-');
            let prev = before
                .rsplit(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or_default();
            !listed(NEGATION, prev)
        })
}

/// Status values of a unit that is not a case (a status column, or a closing word).
pub const DROPPED_STATUS: &[&str] = &[
    "hylatty",
    "peruttu",
    "poistettu",
    "abandonat",
    "amanat",
    "sablon",
    "void",
    "avbruten",
    "avbrutet",
    "abgebrochen",
    "storniert",
    "annule",
    "annulee",
    "cancelado",
    "cancelada",
    "annullato",
    "geannuleerd",
    "anulowany",
    "キャンセル",
    "取消",
    "취소",
    "cut",
    "voided",
    "مرفوضة",
    "مرفوض",
    "ملغاة",
    "ملغى",
    "रद्द",
    "अस्वीकृत",
    "отклонено",
    "удалено",
    "отменено",
    "odrzucone",
    "usuniete",
    "struken",
    "avvisad",
    "avvisat",
    "utgar",
    "utgatt",
    "strøget",
    "dihapus",
    "silindi",
    "dropped",
    "rejected",
    "discarded",
    "removed",
    "deprecated",
    "obsolete",
    "cancelled",
    "canceled",
    "parked",
    "skip",
    "skipped",
    "wontfix",
    "won't fix",
    "out of scope",
    "verworfen",
    "gestrichen",
    "entfallt",
    "veraltet",
    "abgelehnt",
    "ecarte",
    "rejete",
    "abandonne",
    "supprime",
    "annule",
    "descartado",
    "descartados",
    "descartadas",
    "descartada",
    "rechazado",
    "eliminado",
    "cancelado",
    "removido",
    "scartato",
    "rifiutato",
    "annullato",
    "eliminato",
    "vervallen",
    "geschrapt",
    "afgewezen",
    "verwijderd",
    "削除",
    "廃止",
    "却下",
    "対象外",
    "删除",
    "废弃",
    "不加",
    "삭제",
    "폐기",
    "제외",
    "항목 삭제",
    "left it out",
    "not a case",
    "not a test",
    "ikke en test",
    "fjernet",
    "won't do",
    "wont do",
    "will not do",
    "not planned",
    "withdrawn",
    "declined",
    "abandoned",
    "superseded",
    "retired",
    "zuruckgezogen",
    "abgebrochen",
    "retire",
    "abandonnee",
    "retirado",
    "anulado",
    "rejeitado",
    "rejeitada",
    "descontinuado",
    "ritirato",
    "abbandonato",
    "ingetrokken",
    "zamitnuto",
    "zamitnut",
    "zruseno",
    "vyrazeno",
    "odrzucony",
    "anulowane",
    "da loai",
    "loai bo",
    "reddedildi",
    "iptal",
    "ditolak",
    "dibatalkan",
    "отклонён",
    "отклонен",
    "отменён",
    "取り下げ",
    "不採用",
    "中止",
    "已拒绝",
    "拒绝",
    "作废",
    "반려",
    "απορριφθηκε",
    "απορριφθηκαν",
    "ακυρωθηκε",
    "αφαιρεθηκε",
    "απορριπτεται",
    "απορριφθεν",
    "elutasitva",
    "elvetve",
    "torolve",
    "visszavonva",
    "elhagyva",
    "ยกเลิก",
    "ปฏิเสธ",
    "ไม่ผ่านการพิจารณา",
    "否決",
    "否决",
    "已否决",
    "否決",
    "驳回",
    "駁回",
    "拒絕",
    "已拒絕",
    "作廢",
    "已取消",
    "取消",
    "見送り",
    "削除済み",
    "削除済",
    "廃止済み",
    "実行しない",
    "不执行",
    "已删除",
    "삭제됨",
    "실행하지 않음",
    "refused",
    "refuse",
    "refusee",
    "refusado",
    "refusada",
    "recusado",
    "recusada",
    "rechazada",
    "cancelada",
    "eliminada",
    "rifiutata",
    "scartata",
    "annullata",
    "eliminata",
    "geweigerd",
    "afgekeurd",
    "拒否",
    "거부",
    "거절",
    "abgesagt",
    "annulee",
    "supprimee",
    "ecartee",
    "rejetee",
    "已作废",
    "无效",
    "無効",
    "중단",
    "무효",
    "zuruckgestellt",
    "aufgeschoben",
    "reporte",
    "reportee",
    "pospuesto",
    "aplazado",
    "adiado",
    "rinviato",
    "posticipato",
    "uitgesteld",
    "延期",
    "暂缓",
    "本期不测",
    "本期不做",
    "本次不测",
    "暂不测试",
    "暂不测",
    "下期再测",
    "今回は対象外",
    "対象外",
    "이번엔 제외",
    "이번 제외",
    "연기",
    "postponed",
    "deferred",
    "do not run",
    "not run",
    "don't run",
    "nicht ausfuhren",
    "nicht ausgefuhrt",
    "wird nicht ausgefuhrt",
    "not executed",
    "is not executed",
    "will not be run",
    "won't be run",
    "n'est pas execute",
    "ne sera pas execute",
    "no se ejecuta",
    "nao e executado",
    "nao sera executado",
    "non viene eseguito",
    "wordt niet uitgevoerd",
    "実行しません",
    "不会执行",
    "실행하지 않음",
    "example only",
    "only an example",
    "just an example",
    "nur beispiel",
    "nur ein beispiel",
    "exemple seulement",
    "juste un exemple",
    "solo ejemplo",
    "solo un ejemplo",
    "apenas exemplo",
    "solo esempio",
    "alleen voorbeeld",
    "例のみ",
    "仅示例",
    "예시일 뿐",
    "ne pas executer",
    "no ejecutar",
    "nao executar",
    "non eseguire",
    "niet uitvoeren",
    "今回は実行しない",
    "暂不执行",
    "실행 안 함",
    "보류",
    "保留",
    "暂缓执行",
    "不通过",
    "已驳回",
    "却下済み",
    "기각",
];

/// Cells that mark a row as a reminder to write a case later, not a case (`TODO`).
pub const TODO_MARKERS: &[&str] = &[
    "todo",
    "to do",
    "tbd",
    "wip",
    "fixme",
    "idea",
    "later",
    "offen",
    "a faire",
    "pendiente",
    "pendente",
    "da fare",
    "未定",
    "待定",
    "할 일",
];

/// Whether a cell is a to-do marker, alone or leading a note (`TODO: …`).
pub fn is_todo_marker(s: &str) -> bool {
    let f = fold(s);
    let t = f
        .trim()
        .trim_matches(|c: char| matches!(c, '*' | '_' | '`' | ':' | '!'));
    let t = t.trim();
    TODO_MARKERS
        .iter()
        .any(|m| t == *m || t.strip_prefix(m).is_some_and(|r| r.starts_with(':')))
}

/// Whether a status value says the unit was dropped.
pub fn is_dropped_status(s: &str) -> bool {
    let t = s.trim();
    if t.is_empty() || t.chars().count() > 80 {
        return false;
    }
    let f = fold(t);
    // (`❌ Abandonat`, `⏸ Amânat`: a sheet's status may open with its symbol.)
    let t = f
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric() && c != '(')
        .trim_start_matches('(')
        .trim_end_matches(['.', '!', '。', ')'])
        .trim();
    // The whole value, or its first words before a separator (`rejected (dup)`, `won't
    // do - see #12`): looked up, not scanned.
    !t.is_empty()
        && (listed(DROPPED_STATUS, t)
            || t.char_indices()
                .filter(|(_, c)| {
                    matches!(
                        c,
                        ' ' | '(' | '-' | '–' | '—' | '।' | '.' | ';' | ',' | '。' | '・'
                    )
                })
                .take(4)
                .any(|(i, _)| listed(DROPPED_STATUS, &t[..i])))
}

/// Verbs of calling a tool ("calls", "ruft … auf", "调用"), and arrows that mean it.
pub const CALL_VERBS: &[&str] = &[
    "call",
    "calls",
    "called",
    "calling",
    "use",
    "uses",
    "used",
    "using",
    "invoke*",
    "trigger*",
    "run",
    "runs",
    "expect*",
    "ruft",
    "aufgerufen",
    "aufrufen",
    "verwendet",
    "nutzt",
    "appelle",
    "appeler",
    "appelé",
    "utilise*",
    "llama",
    "llamar",
    "usa",
    "usar",
    "chama",
    "chamar",
    "chamada",
    "chiama",
    "chiamare",
    "usare",
    "roept",
    "aanroep*",
    "gebruik*",
    "呼び出",
    "使用",
    "调用",
    "呼叫",
    "호출",
    "사용",
    "→",
    "->",
    "➜",
    "=>",
    "goi",
    "su dung",
    "vola",
    "zavola",
    "pouzije",
    "pouzit",
    "vyvola",
    "wywola*",
    "wywolyw*",
    "uzyj*",
    "uzywa",
    "вызов*",
    "вызыва*",
    "использ*",
    "виклик*",
    "використ*",
    "cagir*",
    "kullan*",
    "panggil",
    "memanggil",
    "gunakan",
    "menggunakan",
    "anropa*",
    "anvand*",
    "kald*",
    "kalle*",
    "kutsu*",
    "kayta*",
    "meghiv*",
    "hasznal*",
    "apeleaza",
    "apela",
    "foloseste",
    "utiliz*",
    "καλει",
    "χρησιμοποιει",
    "เรียก",
    "ใช้",
    "invoca*",
    "invoque*",
    "benutzt",
    "aufruf*",
    "呼ぶ",
    "使う",
    "使用する",
    "呼び",
    "调",
    "呼",
    "llame",
    "llamen",
    "llames",
    "llamando",
    "llamado",
    "usen",
    "chame",
    "chamem",
    "chamando",
    "utilize",
    "utilizem",
    "chiami",
    "chiamino",
    "chiamato",
    "appellent",
    "appelant",
    "aufruft",
    "aanroept",
];
