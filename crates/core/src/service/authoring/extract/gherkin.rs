//! Gherkin feature files, with the keywords of English, German, French, Spanish,
//! Portuguese, Italian, Dutch, Japanese, Chinese, Korean and some thirty more languages: each `Scenario` is a unit
//! (its steps read like any text: the quoted utterance is the prompt, the rest the
//! expectation), and each `Examples` row of a `Scenario Outline` is a unit whose steps are
//! the outline's with the row's values put in. `Background` is set-up, never a case; a
//! step's data table (`| key | value |`) is read as `key = value`.

use super::super::catalog::Catalog;
use super::super::draft::Draft;
use super::super::lexicon;
use super::super::lines::LineIndex;
use super::super::unit::{Segment, UnitInfo, leading_label, read_unit, segments_of};
use super::text::cells;

const FEATURE: &[&str] = &[
    "Omadus",
    "Egenskap",
    "Egenskab",
    "Ominaisuus",
    "Jellemző",
    "Funcționalitate",
    "Functionalitate",
    "Osobina",
    "Funkcionalnost",
    "Požiadavka",
    "Funkcionalitāte",
    "Savybė",
    "Функціонал",
    "Функционалност",
    "Δυνατότητα",
    "Eiginleiki",
    "תכונה",
    "خاصية",
    "रूप लेख",
    "โครงหลัก",
    "Tính năng",
    "Mogućnost",
    "Vlastnosť",
    "Функция",
    "Функционал",
    "Функциональность",
    "Właściwość",
    "Funkcja",
    "Požadavek",
    "Fitur",
    "Özellik",
    "Feature",
    "Business Need",
    "Ability",
    "Funktionalität",
    "Funktion",
    "Fonctionnalité",
    "Característica",
    "Necesidad del negocio",
    "Funcionalidade",
    "Característica",
    "Funzionalità",
    "Functionaliteit",
    "Eigenschap",
    "フィーチャ",
    "機能",
    "功能",
    "기능",
];
const OUTLINE: &[&str] = &[
    "Raamstsenaarium",
    "Scenariomall",
    "Scenariomal",
    "Tapausaihio",
    "Forgatókönyv vázlat",
    "Structura scenariu",
    "Structură scenariu",
    "Skica",
    "Koncept",
    "Struktura scenarija",
    "Náčrt Scenáru",
    "Scenārijs pēc parauga",
    "Scenarijaus šablonas",
    "Структура сценарію",
    "Рамка на сценарий",
    "Περιγραφή Σεναρίου",
    "Esquema de l'escenari",
    "Esbozo do escenario",
    "Lýsing Atburðarásar",
    "תבנית תרחיש",
    "سيناريو مخطط",
    "परिदृश्य रूपरेखा",
    "สรุปเหตุการณ์",
    "Khung tình huống",
    "Структура сценария",
    "Szablon scenariusza",
    "Abstrakt Scenario",
    "Náčrt Scénáře",
    "Skenario konsep",
    "Senaryo taslağı",
    "Scenario Outline",
    "Scenario Template",
    "Szenariogrundriss",
    "Szenarien",
    "Plan du scénario",
    "Plan du Scénario",
    "Esquema del escenario",
    "Esquema do Cenário",
    "Esquema do Cenario",
    "Delineação do Cenário",
    "Schema dello scenario",
    "Abstract Scenario",
    "シナリオアウトライン",
    "シナリオテンプレート",
    "场景大纲",
    "剧本大纲",
    "시나리오 개요",
];
const SCENARIO: &[&str] = &[
    "Stsenaarium",
    "Juhtum",
    "Scenarie",
    "Tapaus",
    "Forgatókönyv",
    "Scenariu",
    "Scenarij",
    "Primer",
    "Scenár",
    "Scenārijs",
    "Scenarijus",
    "Сценарій",
    "Σενάριο",
    "Escenari",
    "Atburðarás",
    "תרחיש",
    "سيناريو",
    "परिदृश्य",
    "เหตุการณ์",
    "Tình huống",
    "Сценарий",
    "Пример",
    "Scenariusz",
    "Scénář",
    "Skenario",
    "Senaryo",
    "Scenario",
    "Example",
    "Szenario",
    "Beispiel",
    "Scénario",
    "Exemple",
    "Escenario",
    "Ejemplo",
    "Cenário",
    "Cenario",
    "Exemplo",
    "Esempio",
    "Voorbeeld",
    "シナリオ",
    "场景",
    "剧本",
    "시나리오",
];
const EXAMPLES: &[&str] = &[
    "Juhtumid",
    "Eksempler",
    "Tapaukset",
    "Példák",
    "Exemple",
    "Primjeri",
    "Primeri",
    "Príklady",
    "Piemēri",
    "Paraugs",
    "Pavyzdžiai",
    "Приклади",
    "Примери",
    "Παραδείγματα",
    "Dæmi",
    "דוגמאות",
    "امثلة",
    "उदाहरण",
    "ชุดของตัวอย่าง",
    "Dữ liệu",
    "Примеры",
    "Przykłady",
    "Exempel",
    "Příklady",
    "Contoh",
    "Örnekler",
    "Examples",
    "Scenarios",
    "Beispiele",
    "Exemples",
    "Ejemplos",
    "Escenarios",
    "Exemplos",
    "Cenários",
    "Esempi",
    "Voorbeelden",
    "例",
    "サンプル",
    "例子",
    "예",
];
const BACKGROUND: &[&str] = &[
    "Taust",
    "Bakgrunn",
    "Baggrund",
    "Tausta",
    "Háttér",
    "Context",
    "Pozadina",
    "Kontekst",
    "Ozadje",
    "Pozadie",
    "Konteksts",
    "Kontekstas",
    "Передумова",
    "Предистория",
    "Υπόβαθρο",
    "Rerefons",
    "Bakgrunnur",
    "רקע",
    "الخلفية",
    "पृष्ठभूमि",
    "แนวคิด",
    "Bối cảnh",
    "Предыстория",
    "Контекст",
    "Założenia",
    "Bakgrund",
    "Pozadí",
    "Dasar",
    "Geçmiş",
    "Background",
    "Grundlage",
    "Hintergrund",
    "Voraussetzungen",
    "Contexte",
    "Antecedentes",
    "Contexto",
    "Cenário de Fundo",
    "Contesto",
    "Achtergrond",
    "背景",
    "배경",
];
const RULE: &[&str] = &[
    "Rule",
    "Regel",
    "Règle",
    "Regla",
    "Regra",
    "Regola",
    "ルール",
    "规则",
    "규칙",
];

fn keyword(t: &str, list: &[&str]) -> Option<String> {
    for k in list {
        if let Some(rest) = t.strip_prefix(k) {
            let rest = rest.trim_start();
            if let Some(r) = rest.strip_prefix(':').or_else(|| rest.strip_prefix('：')) {
                return Some(r.trim().to_string());
            }
        }
    }
    None
}

/// Whether the text is a Gherkin feature file.
pub fn looks_like_gherkin(text: &str) -> bool {
    let mut feature = false;
    let mut scenario = false;
    for l in text.lines().take(400) {
        let t = l.trim();
        if t.starts_with("# language:") {
            feature = true;
        }
        // Every keyword starts the line and ends in a colon (ASCII or full-width).
        if t.starts_with(['-', '*', '#', '|', '>', '`', '[', '{']) || !t.contains([':', '：']) {
            continue;
        }
        if keyword(t, FEATURE).is_some() {
            feature = true;
        }
        if keyword(t, SCENARIO).is_some() || keyword(t, OUTLINE).is_some() {
            scenario = true;
        }
    }
    feature && scenario
}

enum Block {
    None,
    Background,
    Scenario {
        start: usize,
        title: String,
        tags: Vec<String>,
    },
    Outline {
        title: String,
    },
}

/// Extracts every scenario and outline row.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let mut out = Vec::new();
    let mut block = Block::None;
    let mut steps: Vec<(usize, String)> = Vec::new();
    let mut examples: Vec<(usize, Vec<String>)> = Vec::new();
    let mut in_examples = false;
    let mut in_doc = false;
    let mut tags: Vec<String> = Vec::new();
    let n = ix.len();
    let flush = |block: &Block,
                 steps: &[(usize, String)],
                 examples: &[(usize, Vec<String>)],
                 out: &mut Vec<Draft>| match block {
        Block::Scenario { start, title, tags } => {
            let Some(last) = steps.last().map(|(l, _)| *l) else {
                return;
            };
            // `@descartado @ignore`: kept in the file, not run.
            if tags.iter().any(|t| {
                lexicon::is_dropped_status(t)
                    || lexicon::listed(lexicon::OFF_SWITCHES, &lexicon::fold(t))
            }) {
                return;
            }
            let mut segs = step_segments(steps);
            if !tags.is_empty() {
                segs.push(Segment::labelled("tags", tags.join(" ")));
            }
            let info = UnitInfo {
                shape: "Gherkin scenario",
                start: *start,
                end: last,
                title: Some(title.clone()),
                key: None,
                structured: false,
                title_said: false,
            };
            if let Some(d) = read_unit(&segs, &info, cat) {
                out.push(d);
            }
        }
        Block::Outline { title, .. } => {
            let Some((_, header)) = examples.first() else {
                return;
            };
            for (line, row) in examples.iter().skip(1) {
                let fill = |s: &str| {
                    let mut s = s.to_string();
                    for (h, v) in header.iter().zip(row) {
                        s = s.replace(&format!("<{h}>"), v);
                    }
                    s
                };
                let filled: Vec<(usize, String)> =
                    steps.iter().map(|(l, s)| (*l, fill(s))).collect();
                let segs = step_segments(&filled);
                let info = UnitInfo {
                    shape: "Gherkin outline example row",
                    start: *line,
                    end: *line,
                    title: Some(format!("{} ({})", fill(title), row.join(", "))),
                    key: None,
                    structured: false,
                    title_said: false,
                };
                if let Some(d) = read_unit(&segs, &info, cat) {
                    out.push(d);
                }
            }
        }
        _ => {}
    };
    for ln in 1..=n {
        let raw = ix.line(ln).trim_end_matches('\r');
        let t = raw.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if t.starts_with('@') {
            tags = t
                .split_whitespace()
                .map(|s| s.trim_start_matches('@').to_string())
                .collect();
            continue;
        }
        let new_block = if let Some(title) = keyword(t, OUTLINE) {
            Some(Block::Outline { title })
        } else if let Some(title) = keyword(t, SCENARIO) {
            Some(Block::Scenario {
                start: ln,
                title,
                tags: std::mem::take(&mut tags),
            })
        } else if keyword(t, BACKGROUND).is_some()
            || keyword(t, FEATURE).is_some()
            || keyword(t, RULE).is_some()
        {
            Some(Block::Background)
        } else {
            None
        };
        if let Some(b) = new_block {
            flush(&block, &steps, &examples, &mut out);
            block = b;
            steps.clear();
            examples.clear();
            in_examples = false;
            tags.clear();
            continue;
        }
        if keyword(t, EXAMPLES).is_some() {
            in_examples = true;
            continue;
        }
        if t.starts_with('|') {
            if in_examples {
                examples.push((ln, cells(t)));
            } else {
                let c = cells(t);
                // A conversation's rows (`| usuario | … |`) are its turns.
                let speaker = c.first().map(|s| lexicon::fold(s.trim()));
                let said = c[1..].join(", ");
                if speaker
                    .as_deref()
                    .is_some_and(|s| lexicon::USER_SPEAKERS.contains(&s))
                {
                    steps.push((ln, format!("User: \"{said}\"")));
                } else if speaker
                    .as_deref()
                    .is_some_and(|s| lexicon::ASSISTANT_SPEAKERS.contains(&s))
                {
                    steps.push((ln, format!("Assistant: \"{said}\"")));
                } else if c.len() >= 2 {
                    steps.push((ln, format!("{} = {}", c[0], said)));
                }
            }
            continue;
        }
        if !in_examples && matches!(block, Block::Scenario { .. } | Block::Outline { .. }) {
            // A doc string (`"""` … `"""`) holding a conversation: its turns, each quoted,
            // and a break after it so the next step is no part of the last turn.
            if t.starts_with("\"\"\"") || t.starts_with("```") {
                in_doc = !in_doc;
                continue;
            }
            if in_doc && let Some((who, said)) = leading_label(t) {
                let who = lexicon::fold(&who);
                let speaker = if lexicon::USER_SPEAKERS.contains(&who.as_str()) {
                    Some("User")
                } else if lexicon::ASSISTANT_SPEAKERS.contains(&who.as_str()) {
                    Some("Assistant")
                } else {
                    None
                };
                if let Some(sp) = speaker {
                    steps.push((ln, format!("{sp}: \"{said}\"")));
                    continue;
                }
            }
            // (A step matching on the calls, Karate's `match response.tool_calls …`, is
            // the field it states.)
            let step = match t
                .contains("calls")
                .then(|| super::asserts::field(t))
                .flatten()
            {
                Some(f) => f,
                None => t.to_string(),
            };
            steps.push((ln, step));
        }
    }
    flush(&block, &steps, &examples, &mut out);
    out
}

/// A scenario's steps as the segments of one unit: a conversation given in a doc string or
/// a data table has its turns as fields, and so do the fields a step matching on the calls
/// states; else the steps as sentences.
fn step_segments(steps: &[(usize, String)]) -> Vec<Segment> {
    let turn = |s: &str| s.starts_with("User: \"") || s.starts_with("Assistant: \"");
    let stated = |s: &str| {
        ["Tool: ", "Must not call: ", "Arguments: ", "Expected: "]
            .iter()
            .any(|p| s.starts_with(p))
    };
    if !steps.iter().any(|(_, s)| turn(s) || stated(s)) {
        return vec![Segment::plain(step_text(steps))];
    }
    // (A break after the last turn: the next step is no part of it.)
    let mut text = String::new();
    for (k, (_, s)) in steps.iter().enumerate() {
        text.push_str(&if turn(s) || stated(s) {
            s.clone()
        } else {
            sentence(s)
        });
        text.push('\n');
        if turn(s) && steps.get(k + 1).is_some_and(|(_, n)| !turn(n)) {
            text.push('\n');
        }
    }
    segments_of(&text)
}

/// The steps as sentences: each step is a clause of its own (`Então … "delete-item"` is
/// not negated by the `Mas não …` step under it).
fn step_text(steps: &[(usize, String)]) -> String {
    steps
        .iter()
        .map(|(_, s)| sentence(s))
        .collect::<Vec<_>>()
        .join("\n")
}

fn sentence(s: &str) -> String {
    let t = s.trim_end();
    if t.is_empty() || t.ends_with(['.', '!', '?', ':', '。', '？', '！']) || t.starts_with('|')
    {
        t.to_string()
    } else {
        format!("{t}.")
    }
}
