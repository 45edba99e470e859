//! Field labels in many languages and the role each gives its value (`label_role`).

use super::*;
use unicode_normalization::UnicodeNormalization;

/// The role of a field label.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabelRole {
    Id,
    Title,
    Prompt,
    Steps,
    Tool,
    Args,
    Expected,
    Contains,
    Forbidden,
    Negative,
    Notes,
    Status,
    Type,
    Metadata,
}

/// Keywords of each role, tried in this order (so "expected tool" is a tool label and
/// "tool arguments" an argument label).
const LABELS: &[(LabelRole, &[&str])] = &[
    (
        LabelRole::Forbidden,
        &[
            "khong duoc goi",
            "khong duoc dung",
            "cam goi",
            "must not",
            "mustn't",
            "never",
            "forbid",
            "forbids",
            "ممنوع*",
            "محظور*",
            "वर्जित",
            "निषिद्ध",
            "yasak*",
            "forbidden",
            "must not call",
            "should not call",
            "never call",
            "not called",
            "disallowed",
            "prohibited",
            "proibidas",
            "proibida",
            "proibido",
            "verboten",
            "interdit*",
            "prohibid*",
            "vietat*",
            "verboden",
            "禁止",
            "금지",
            "never tools",
        ],
    ),
    (
        LabelRole::Negative,
        &[
            "negative",
            "is negative",
            "no tools",
            "expect no tools",
            "negativ*",
            "negatif",
        ],
    ),
    (
        LabelRole::Contains,
        &[
            "contains",
            "contain",
            "must include",
            "should mention",
            "mention",
            "includes",
            "enthalt*",
            "contient",
            "contiene",
            "contem",
            "contiene",
            "bevat",
            "含む",
            "包含",
            "포함",
            "should contain",
            "must contain",
        ],
    ),
    (
        LabelRole::Args,
        &[
            "tham so",
            "doi so",
            "الوسائط",
            "وسائط",
            "المعاملات",
            "معاملات",
            "पैरामीटर",
            "आर्ग्युमेंट",
            "аргументы",
            "параметры",
            "argumenty",
            "parametry",
            "parametre",
            "parametreler",
            "argumen",
            "args",
            "arguments",
            "argument",
            "parameters",
            "parameter",
            "params",
            "input parameters",
            "argumente",
            "parametres",
            "parametre",
            "argumentos",
            "parametros",
            "argomenti",
            "parametri",
            "argumenten",
            "引数",
            "パラメータ",
            "参数",
            "인자",
            "파라미터",
            "매개변수",
            "with",
        ],
    ),
    (
        LabelRole::Tool,
        &[
            "cong cu",
            "cong cu mong doi",
            "الأداة",
            "أداة",
            "الأدوات",
            "टूल",
            "उपकरण",
            "инструмент*",
            "narzedzi*",
            "verktyg",
            "vaerktoj",
            "verktoy",
            "alat",
            "arac",
            "nastroj",
            "tool",
            "tools",
            "tool call",
            "tool calls",
            "function",
            "functions",
            "werkzeug*",
            "outil",
            "outils",
            "herramienta",
            "herramientas",
            "ferramenta",
            "ferramentas",
            "strumento",
            "strumenti",
            "gereedschap",
            "ツール",
            "工具",
            "도구",
            "should call",
            "must call",
            "calls",
        ],
    ),
    (
        LabelRole::Steps,
        &[
            "steps",
            "step",
            "procedure",
            "test script",
            "test data",
            "schritte",
            "etapes",
            "pasos",
            "passos",
            "passi",
            "stappen",
            "手順",
            "步骤",
            "단계",
            "actions",
        ],
    ),
    (
        LabelRole::Expected,
        &[
            "ket qua mong doi",
            "ket qua",
            "mong doi",
            "المتوقع*",
            "النتيجة",
            "अपेक्षित",
            "परिणाम",
            "ожидается",
            "ожидаемый",
            "ожидаемое",
            "ожидаемый результат",
            "ответ",
            "результат",
            "oczekiwan*",
            "wynik",
            "odpowiedz",
            "forvantat",
            "forventet",
            "svar",
            "resultat",
            "diharapkan",
            "hasil",
            "jawaban",
            "beklenen",
            "sonuc",
            "ocekavan*",
            "vysledek",
            "expected",
            "should",
            "must",
            "expect",
            "expectation",
            "result",
            "results",
            "answer",
            "output",
            "outputs",
            "response",
            "outcome",
            "check",
            "verification",
            "pass if",
            "ideal",
            "reference",
            "target",
            "then",
            "acceptance",
            "erwartet*",
            "erwartung",
            "ergebnis",
            "antwort",
            "attendu",
            "attendue",
            "resultat",
            "reponse",
            "verification",
            "esperado",
            "esperada",
            "resultado",
            "respuesta",
            "resposta",
            "atteso",
            "attesa",
            "risposta",
            "risultato",
            "verwacht",
            "verwachting",
            "resultaat",
            "antwoord",
            "期待",
            "結果",
            "応答",
            "確認",
            "預期",
            "预期",
            "期望",
            "结果",
            "回答",
            "예상",
            "기대",
            "결과",
            "응답",
            "확인",
        ],
    ),
    (
        LabelRole::Prompt,
        &[
            "cau lenh",
            "loi nhac",
            "cau hoi",
            "yeu cau",
            "dau vao",
            "طلب",
            "المستخدم",
            "سؤال",
            "الطلب",
            "प्रॉम्प्ट",
            "उपयोगकर्ता",
            "अनुरोध",
            "प्रश्न",
            "запрос",
            "вопрос",
            "сообщение",
            "ввод",
            "pytanie",
            "zapytanie",
            "wiadomosc",
            "fraga",
            "sporsmal",
            "sporgsmal",
            "pertanyaan",
            "soru",
            "dotaz",
            "otazka",
            "pesan",
            "prompt",
            "prompts",
            "input",
            "inputs",
            "question",
            "query",
            "utterance",
            "user",
            "message",
            "request",
            "ask",
            "instruction",
            "say",
            "says",
            "eingabe",
            "frage",
            "nutzer*",
            "anfrage",
            "nachricht",
            "demande",
            "entree",
            "requete",
            "pregunta",
            "entrada",
            "consulta",
            "mensaje",
            "solicitud",
            "pergunta",
            "mensagem",
            "pedido",
            "domanda",
            "richiesta",
            "messaggio",
            "vraag",
            "invoer",
            "verzoek",
            "bericht",
            "入力",
            "質問",
            "発話",
            "ユーザー",
            "输入",
            "问题",
            "用户",
            "提问",
            "입력",
            "질문",
            "사용자",
            "메시지",
            "발화",
            "conversation",
            "turns",
            "dialogue",
        ],
    ),
    (
        LabelRole::Notes,
        &[
            "ghi chu",
            "ملاحظات",
            "ملاحظة",
            "टिप्पणी",
            "नोट",
            "notes",
            "note",
            "remarks",
            "remark",
            "comment",
            "comments",
            "hint",
            "hinweis",
            "anmerkung",
            "bemerkung",
            "remarque",
            "remarques",
            "nota",
            "notas",
            "observacao",
            "observacion",
            "opmerking",
            "opmerkingen",
            "備考",
            "注意",
            "备注",
            "비고",
            "참고",
        ],
    ),
    (
        LabelRole::Status,
        &[
            "status",
            "estado",
            "stato",
            "etat",
            "statut",
            "zustand",
            "状态",
            "상태",
            "ステータス",
        ],
    ),
    (
        LabelRole::Id,
        &[
            "الرقم",
            "رقم",
            "क्रमांक",
            "id",
            "key",
            "ref",
            "no",
            "nr",
            "#",
            "clave",
            "referencia",
            "番号",
            "编号",
            "번호",
        ],
    ),
    (
        LabelRole::Title,
        &[
            "tieu de",
            "title",
            "name",
            "summary",
            "description",
            "scenario",
            "objective",
            "case",
            "test case",
            "titel",
            "titre",
            "titulo",
            "titolo",
            "resumen",
            "resumo",
            "nombre",
            "nome",
            "naam",
            "beschreibung",
            "descripcion",
            "descricao",
            "descrizione",
            "omschrijving",
            "名前",
            "タイトル",
            "标题",
            "名称",
            "描述",
            "제목",
            "이름",
            "설명",
        ],
    ),
    (
        LabelRole::Type,
        &[
            "type",
            "category",
            "kind",
            "tags",
            "tag",
            "labels",
            "polarity",
            "tipo",
            "typ",
            "categorie",
            "種別",
            "类型",
            "유형",
        ],
    ),
    (
        LabelRole::Metadata,
        &[
            "priority",
            "owner",
            "author",
            "component",
            "components",
            "severity",
            "precondition",
            "preconditions",
            "prerequisite",
            "prerequisites",
            "created",
            "updated",
            "date",
            "version",
            "module",
            "feature",
            "area",
            "suite",
            "requirement",
            "requirements",
            "ticket",
            "link",
            "links",
            "url",
            "reviewer",
            "assignee",
            "estimate",
            "automated",
            "risk",
            "release",
            "sprint",
            "platform",
            "environment",
            "source",
            "split",
            "metadata",
            "section",
            "references",
            "prioritat",
            "prioridad",
            "prioridade",
            "priorita",
            "prioriteit",
            "優先度",
            "优先级",
            "우선순위",
            "vorbedingung*",
            "precondicion",
            "precondicao",
            "precondizione",
            "voorwaarde*",
            "前提条件",
            "前置条件",
            "사전 조건",
            "전제 조건",
        ],
    ),
];

/// Normalises a label: markup and a trailing colon dropped, `_-./` as spaces, camelCase
/// split, parentheticals dropped, folded.
pub fn normalize_label(label: &str) -> String {
    let mut bare = String::with_capacity(label.len());
    let mut depth = 0;
    let mut prev_lower = false;
    for ch in label.nfkc() {
        match ch {
            '(' | '（' => depth += 1,
            ')' | '）' if depth > 0 => depth -= 1,
            _ if depth > 0 => {}
            '_' | '-' | '.' | '/' | '\u{a0}' | '\t' | ':' => {
                bare.push(' ');
                prev_lower = false;
            }
            '*' | '`' | '[' | ']' | '?' | '…' | '"' | '\'' => {}
            c => {
                if c.is_uppercase() && prev_lower {
                    bare.push(' ');
                }
                prev_lower = c.is_lowercase() || c.is_ascii_digit();
                bare.push(c);
            }
        }
    }
    let f = fold(&bare);
    f.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The role of a label, when the lexicon knows it. An exact match wins; else, among the
/// keywords the label holds, a tool, argument, containment or forbidden-tool keyword
/// (so "expected tool" and "outil attendu" are tool labels), else the last keyword (the
/// head noun: "test script – expected result").
pub fn label_role(label: &str) -> Option<LabelRole> {
    thread_local! {
        static SEEN: std::cell::RefCell<std::collections::HashMap<String, Option<LabelRole>>> =
            std::cell::RefCell::new(std::collections::HashMap::new());
    }
    // Documents repeat their labels: each is looked up once per thread.
    if let Some(r) = SEEN.with(|m| m.borrow().get(label).copied()) {
        return r;
    }
    let r = label_role_uncached(label);
    SEEN.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() > 4096 {
            m.clear();
        }
        m.insert(label.to_string(), r);
    });
    r
}

/// Whether the label is written exactly as the lexicon lists it (a long label such as
/// Vietnamese `Kết quả mong đợi` is taken only then).
pub fn is_listed_label(label: &str) -> bool {
    let l = normalize_label(label);
    LABELS.iter().any(|(_, words)| words.contains(&l.as_str()))
}

fn label_role_uncached(label: &str) -> Option<LabelRole> {
    let l = normalize_label(label);
    if l.is_empty() || l.chars().count() > 60 {
        return None;
    }
    for (role, words) in LABELS {
        if words.contains(&l.as_str()) {
            return Some(*role);
        }
    }
    // promptfoo's `__expected1`, `turn 2`…: a number after a known label.
    let trimmed = l.trim_end_matches(|c: char| c.is_ascii_digit() || c == ' ');
    if trimmed != l && !trimmed.is_empty() {
        return label_role_uncached(trimmed);
    }
    let mut hits: Vec<(LabelRole, usize)> = Vec::new();
    for (role, words) in LABELS {
        if matches!(role, LabelRole::Id | LabelRole::Negative) {
            continue;
        }
        for w in *words {
            if w.chars().count() <= 2 && !w.chars().any(is_cjk) {
                continue;
            }
            if let Some(&at) = find_word(&l, w).last() {
                hits.push((*role, at));
            }
        }
    }
    let strong = [
        LabelRole::Forbidden,
        LabelRole::Contains,
        LabelRole::Args,
        LabelRole::Tool,
    ];
    for s in strong {
        if hits.iter().any(|(r, _)| *r == s) {
            return Some(s);
        }
    }
    hits.into_iter().max_by_key(|(_, at)| *at).map(|(r, _)| r)
}
