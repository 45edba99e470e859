//! The reader against the demo server's catalog: the defects the issue names, promptfoo's
//! metadata columns and trajectory assertions, negatives in every lexicon language.

use serde_json::{Value, json};

use crate::service::authoring::author_builtin;
use crate::service::authoring::catalog::demo_tools;
use crate::spec::case::{ClaimStatus, EvalCase};

fn cases(doc: &str) -> Vec<EvalCase> {
    author_builtin(doc, "plan.md", &demo_tools(), &[])
}

fn asserts(c: &EvalCase) -> Vec<Value> {
    c.steps
        .iter()
        .filter_map(|s| s.assertion.clone())
        .map(Value::Object)
        .collect()
}

fn of_type(c: &EvalCase, t: &str) -> Vec<Value> {
    asserts(c).into_iter().filter(|a| a["type"] == t).collect()
}

fn positive_tools(c: &EvalCase) -> Vec<String> {
    asserts(c)
        .iter()
        .filter(|a| {
            matches!(
                a["type"].as_str(),
                Some("toolCalledAtLeastOnce" | "toolCalledWith")
            )
        })
        .filter_map(|a| a["toolName"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_negative_naming_a_tool_stays_negative() {
    let doc = "### TC-05 Trivial arithmetic\n- **Prompt:** \"Quick one: what's 2 + 2?\"\n- **Expected:** Must not use get-sum or any other tool; answers 4 directly.\n";
    let c = cases(doc);
    assert_eq!(c.len(), 1);
    assert!(c[0].is_negative);
    assert!(positive_tools(&c[0]).is_empty(), "{:?}", asserts(&c[0]));
}

#[test]
fn must_not_use_alone_forbids_the_tool() {
    let doc = "### Echo\n- **Prompt:** \"Say hi back\"\n- **Expected tool:** echo\n- **Notes:** must not use `legacy-echo`.\n";
    let c = &cases(doc)[0];
    assert!(!c.is_negative);
    assert_eq!(positive_tools(c), ["echo"]);
    assert_eq!(of_type(c, "toolNeverCalled")[0]["toolName"], "legacy-echo");
}

#[test]
fn a_parameter_is_never_a_tool() {
    let doc = "### TC-02 Echo round trip\n- **Prompt:** \"Please echo back exactly: hello world\"\n- **Expected tool:** calls `echo` with `message` = \"hello world\"\n";
    let c = &cases(doc)[0];
    assert_eq!(positive_tools(c), ["echo"]);
    let w = &of_type(c, "toolCalledWith")[0];
    assert_eq!(w["args"]["args"], json!({"message": "hello world"}));
    assert_ne!(c.import.as_ref().unwrap().status, ClaimStatus::Unresolved);
}

#[test]
fn numbers_lose_sentence_punctuation() {
    let doc = "### TC-01 Sum\n- **Prompt:** \"What is 17 + 25?\"\n- **Expected:** get-sum with a=17, b=25. Answer mentions 42.\n";
    let c = &cases(doc)[0];
    let w = &of_type(c, "toolCalledWith")[0];
    assert_eq!(w["args"]["args"], json!({"a": 17, "b": 25}));
    assert_ne!(c.import.as_ref().unwrap().status, ClaimStatus::Unresolved);
}

#[test]
fn promptfoo_metadata_columns_name_the_tool_and_its_arguments() {
    let doc = "question,__expected,__description,__metadata:expected_tool,__metadata:expected_args\nWhat is 120 plus 380?,contains: 500,basic sum,get-sum,\"{\"\"a\"\": 120, \"\"b\"\": 380}\"\nHow much is 9 times 7?,contains: 63,no multiply tool; should answer directly without tools,,\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2);
    let w = &of_type(&c[0], "toolCalledWith")[0];
    assert_eq!(w["toolName"], "get-sum");
    assert_eq!(w["args"]["args"], json!({"a": 120, "b": 380}));
    assert!(c[1].is_negative);
}

fn promptfoo(asserts_yaml: &str) -> EvalCase {
    let doc = format!(
        "prompts:\n  - '{{{{question}}}}'\ntests:\n  - description: t\n    vars:\n      question: Compute the mean of 2, 4 and 9, then echo done\n    assert:\n{asserts_yaml}"
    );
    let c = cases(&doc);
    assert_eq!(c.len(), 1, "{doc}");
    c.into_iter().next().unwrap()
}

#[test]
fn every_promptfoo_trajectory_assertion_maps_onto_tool_assertions() {
    // tool-used: a name, a list, an object with min and max.
    let c = promptfoo("      - type: trajectory:tool-used\n        value: get-stats\n");
    assert_eq!(positive_tools(&c), ["get-stats"]);
    assert_ne!(c.import.as_ref().unwrap().status, ClaimStatus::Unsupported);
    let c = promptfoo("      - type: trajectory:tool-used\n        value: [get-stats, echo]\n");
    assert_eq!(positive_tools(&c), ["get-stats", "echo"]);
    let c = promptfoo(
        "      - type: trajectory:tool-used\n        value:\n          name: echo\n          min: 2\n          max: 3\n",
    );
    assert!(
        of_type(&c, "toolCalledWith")
            .iter()
            .any(|a| a["minCount"] == 2)
    );
    assert_eq!(of_type(&c, "toolCallCountUnder")[0]["count"], 4);
    // not-trajectory:tool-used forbids; over every tool it is a negative case.
    let c = promptfoo("      - type: not-trajectory:tool-used\n        value: legacy-echo\n");
    assert_eq!(of_type(&c, "toolNeverCalled")[0]["toolName"], "legacy-echo");
    let all: Vec<String> = demo_tools().iter().map(|t| t.tool.name.clone()).collect();
    let c = promptfoo(&format!(
        "      - type: not-trajectory:tool-used\n        value: [{}]\n",
        all.join(", ")
    ));
    assert!(c.is_negative);
    // tool-args-match, partial and exact.
    let c = promptfoo(
        "      - type: trajectory:tool-args-match\n        value:\n          name: echo\n          args: { message: done }\n",
    );
    let w = &of_type(&c, "toolCalledWith")[0];
    assert_eq!(
        (&w["args"]["args"], &w["args"]["argumentMatching"]),
        (&json!({"message": "done"}), &json!("partial"))
    );
    let c = promptfoo(
        "      - type: trajectory:tool-args-match\n        value:\n          name: echo\n          args: { message: done }\n          mode: exact\n",
    );
    assert!(
        of_type(&c, "toolCalledWith")
            .iter()
            .any(|a| a["args"]["argumentMatching"] == "exact")
    );
    // tool-sequence: order, and in exact mode the set of tools.
    let c = promptfoo(
        "      - type: trajectory:tool-sequence\n        value:\n          steps: [get-stats, echo]\n",
    );
    let b = &of_type(&c, "toolCalledBefore")[0];
    assert_eq!(
        (&b["toolName"], &b["beforeToolName"]),
        (&json!("get-stats"), &json!("echo"))
    );
    let c = promptfoo(
        "      - type: trajectory:tool-sequence\n        value:\n          mode: exact\n          steps: [get-stats, echo]\n",
    );
    assert_eq!(
        of_type(&c, "onlyToolsCalled")[0]["toolNames"],
        json!(["get-stats", "echo"])
    );
    // step-count: max 0 tool steps is a negative case; a maximum caps the calls.
    let c = promptfoo(
        "      - type: trajectory:step-count\n        value:\n          type: tool\n          max: 0\n",
    );
    assert!(c.is_negative);
    let c = promptfoo(
        "      - type: trajectory:step-count\n        value:\n          type: tool\n          max: 3\n",
    );
    assert_eq!(of_type(&c, "toolCallCountUnder")[0]["count"], 4);
    // goal-success is graded by the judge.
    let c = promptfoo(
        "      - type: trajectory:goal-success\n        value: Reports the mean and echoes done\n",
    );
    assert_eq!(
        c.expected_output.as_deref(),
        Some("Reports the mean and echoes done")
    );
}

#[test]
fn negatives_in_every_language_of_the_lexicon() {
    for (lang, expectation) in [
        ("en", "Should not call any tool."),
        ("de", "Darf kein Werkzeug aufrufen."),
        ("fr", "Le modèle ne doit appeler aucun outil."),
        ("es", "Responde sin usar herramientas."),
        ("pt", "Não deve chamar nenhuma ferramenta."),
        ("it", "Nessuno strumento: risponde da solo."),
        ("nl", "Geen enkele tool aanroepen."),
        ("ja", "ツールを呼び出さずに回答する"),
        ("zh", "不应调用任何工具，直接回答。"),
        ("ko", "도구를 호출하지 않아야 함"),
    ] {
        let doc = format!("- \"Tell me something nice\" → {expectation}\n");
        let c = cases(&doc);
        assert_eq!(c.len(), 1, "{lang}: {doc}");
        assert!(c[0].is_negative, "{lang}: {expectation}");
    }
}

#[test]
fn negatives_and_forbidden_tools_in_the_lexicons_later_languages() {
    for (lang, expectation) in [
        ("bg", "Не трябва да извиква никакъв инструмент."),
        ("mk", "Не смее да повика ниедна алатка."),
        ("be", "Не павінен выклікаць ніякіх інструментаў."),
        ("hy", "Ոչ մի գործիք չպետք է կանչի։"),
        ("az", "Heç bir alət çağırılmamalıdır."),
        ("kk", "Ешқандай құрал шақырмау керек."),
        ("uz", "Hech qanday vosita chaqirilmasin."),
        ("sq", "Nuk duhet të thërrasë asnjë mjet."),
        ("mt", "M'għandu jsejjaħ l-ebda għodda."),
        ("cy", "Ni ddylai alw unrhyw offeryn."),
        ("ga", "Níor cheart aon uirlis a úsáid."),
        ("ta", "எந்த கருவியையும் அழைக்கக்கூடாது."),
        ("te", "ఏ సాధనాన్నీ పిలవకూడదు."),
        ("mr", "कोणतेही टूल वापरू नये."),
        ("kn", "ಯಾವುದೇ ಸಾಧನವನ್ನು ಕರೆಯಬಾರದು."),
        ("ml", "ഏതെങ്കിലും ഉപകരണം വിളിക്കരുത്."),
        ("gu", "કોઈ ટૂલ કૉલ ન કરવું."),
        ("pa", "ਕੋਈ ਟੂਲ ਨਾ ਵਰਤੋ।"),
        ("si", "කිසිදු මෙවලමක් භාවිතා නොකරන්න."),
        ("km", "មិនត្រូវប្រើឧបករណ៍ណាមួយទេ។"),
        ("lo", "ບໍ່ຕ້ອງໃຊ້ເຄື່ອງມືໃດໆ."),
        ("my", "ဘာကိရိယာမှ မသုံးရ။"),
        ("mn", "Ямар ч хэрэгсэл дуудахгүй."),
        ("tg", "Ҳеҷ абзорро даъват накунед."),
        ("ky", "Эч кандай куралды чакырбаңыз."),
        ("zu", "Akufanele abize noma yiliphi ithuluzi."),
        ("rw", "Nta gikoresho na kimwe gikoreshwa."),
        ("kmr", "Bêyî amûrê bersiv bide."),
        ("ckb", "هیچ ئامرازێک بانگ مەکە."),
        ("so", "Qalab la'aan ku jawaab."),
        ("ha", "Babu kayan aiki."),
        ("ha", "Kada ya kira ko wane tool, ya amsa da kansa."),
        ("yo", "Láìsí irinṣẹ́ kankan."),
        // "Call no tool, answer directly" as plans in these languages write it.
        (
            "bg",
            "Не трябва да използва никакви инструменти, отговаря пряко.",
        ),
        ("mk", "Не треба да повика некоја алатка; одговара директно."),
        ("mk", "Не повикува ништо, одговара самостојно."),
        (
            "be",
            "Не выклікаць якіх-небудзь інструментаў, адказаць наўпрост.",
        ),
        ("hy", "Ոչ մի գործիք չկանչել, պատասխանել ուղղակիորեն։"),
        ("az", "Heç bir alət çağırmayın, birbaşa cavab verin."),
        ("kk", "Ешқандай құрал шақырмаңыз, өз бетінше жауап беріңіз."),
        (
            "uz",
            "Hech qanday vosita ishlatmang, to'g'ridan-to'g'ri javob bering.",
        ),
        ("sq", "Mos thirr asnjë mjet; përgjigju drejtpërdrejt."),
        ("sq", "Nuk thërret asgjë, përgjigjet vetë."),
        ("mt", "Tużax l-ebda għodda, wieġeb direttament."),
        (
            "cy",
            "Peidiwch â defnyddio unrhyw offeryn; atebwch yn uniongyrchol.",
        ),
        ("ga", "Ná húsáid aon uirlis; freagair go díreach."),
        ("ga", "Ná glaoigh faic, freagair go díreach."),
        (
            "gl",
            "Non debe chamar ningunha ferramenta, responde directamente.",
        ),
        ("is", "Ekki kalla á nokkurt verkfæri, svaraðu beint."),
        ("ta", "எந்தக் கருவியையும் அழைக்க வேண்டாம், நேரடியாகப் பதில் சொல்லவும்."),
        ("ta", "எதையும் அழைக்காதே, நேரடியாகப் பதிலளி."),
        ("te", "ఏమీ పిలవకూడదు, నేరుగా సమాధానం ఇవ్వాలి."),
        ("mr", "कोणतेही टूल वापरू नका, थेट उत्तर द्या."),
        ("kn", "ಯಾವುದೇ ಸಾಧನವನ್ನು ಬಳಸಬೇಡಿ, ನೇರವಾಗಿ ಉತ್ತರಿಸಿ."),
        ("ml", "ഒരു ഉപകരണവും വിളിക്കരുത്, നേരിട്ട് ഉത്തരം നൽകുക."),
        ("gu", "કશું કૉલ ન કરો, સીધો જવાબ આપો."),
        ("pa", "ਕਿਸੇ ਵੀ ਟੂਲ ਨੂੰ ਕਾਲ ਨਾ ਕਰੋ, ਸਿੱਧਾ ਜਵਾਬ ਦਿਓ।"),
        ("si", "කිසිදු මෙවලමක් භාවිතා නොකර කෙලින්ම පිළිතුරු දෙන්න."),
        ("km", "កុំហៅឧបករណ៍ណាមួយ ឆ្លើយដោយផ្ទាល់។"),
        ("lo", "ບໍ່ຕ້ອງເອີ້ນເຄື່ອງມືໃດໆ ຕອບເອງ."),
        ("my", "ဘာကိရိယာမှ မသုံးဘဲ တိုက်ရိုက်ဖြေပါ။"),
        ("mn", "Ямар ч хэрэгсэл ашиглахгүйгээр шууд хариулна."),
        (
            "tg",
            "Ҳеҷ абзорро истифода набаред, мустақиман ҷавоб диҳед.",
        ),
        ("ky", "Эч кандай куралды колдонбоңуз, түз жооп бериңиз."),
        ("am", "ምንም አትጥራ፤ በራሱ ይመልስ።"),
        ("yo", "Má ṣe pe irinṣẹ́ kankan, dáhùn ní tààràtà."),
        ("yo", "Kò gbọdọ̀ pe irinṣẹ́ kankan; ó yẹ kí ó dáhùn fúnra rẹ̀."),
        ("zu", "Ungabizi noma yiliphi ithuluzi, phendula ngqo."),
        (
            "zu",
            "Akufanele asebenzise noma yiliphi ithuluzi; uphendule ngokwakhe.",
        ),
        ("so", "Ha isticmaalin qalab kasta, si toos ah uga jawaab."),
        (
            "rw",
            "Ntugahamagare igikoresho na kimwe, subiza mu buryo butaziguye.",
        ),
        (
            "rw",
            "Ntigomba gukoresha igikoresho na kimwe, asubize ako kanya.",
        ),
        ("ps", "هیڅ tool مه کاروئ، مستقیم ځواب ورکړئ."),
        ("ckb", "هیچ ئامرازێک بەکارمەهێنە، ڕاستەوخۆ وەڵام بدەوە."),
        ("kmr", "Tu amûrê bikar neyne, bi xwe bersiv bide."),
        ("ne", "कुनै पनि टुल नबोलाउनुहोस्, सिधै जवाफ दिनुहोस्।"),
        ("ka", "არცერთი ხელსაწყო არ გამოიძახო, პირდაპირ უპასუხე."),
        ("sw", "Asitumie zana yoyote, ajibu mwenyewe."),
        ("sw", "Hakuna zana inayohitajika; ajibu moja kwa moja."),
        ("bn", "কিছুই কল করবে না, সরাসরি উত্তর দেবে।"),
        ("ur", "کسی ٹول کو کال نہ کریں، سیدھے جواب دیں۔"),
        ("tr", "Hiç araç çağrılmamalı, doğrudan cevap ver."),
    ] {
        let doc = format!("- \"Tell me something nice\" → {expectation}\n");
        let c = cases(&doc);
        assert_eq!(c.len(), 1, "{lang}: {doc}");
        assert!(c[0].is_negative, "{lang}: {expectation}");
    }
    for (lang, expectation) in [
        ("bg", "echo. Не извиквай legacy-echo."),
        ("kk", "echo; legacy-echo шақыруға болмайды"),
        ("az", "echo; legacy-echo çağırılmamalıdır"),
        ("uz", "echo; legacy-echo chaqirilmasin"),
        ("hy", "echo; legacy-echo չի կարելի կանչել"),
        ("mt", "echo; tużax legacy-echo"),
        ("cy", "echo. Peidiwch â galw legacy-echo."),
        ("sq", "echo. Mos thirr legacy-echo."),
        ("kn", "echo. legacy-echo ಕರೆಯಬಾರದು."),
        ("ml", "echo; legacy-echo വിളിക്കരുത്"),
        ("gu", "echo; legacy-echo કૉલ ન કરો"),
        ("pa", "echo; legacy-echo ਨਾ ਵਰਤੋ"),
        ("si", "echo; legacy-echo භාවිතා නොකරන්න"),
        ("mn", "echo; legacy-echo дуудахгүй"),
        ("tg", "echo; legacy-echo истифода набаред"),
        ("ky", "echo; legacy-echo чакырбаңыз"),
        ("zu", "echo; ungabizi legacy-echo"),
        ("kmr", "echo; legacy-echo qedexe ye"),
        ("rw", "echo; ntugahamagare legacy-echo"),
        ("ha", "echo. Kada ya taɓa amfani da legacy-echo."),
        ("mk", "echo. Не повикувај legacy-echo."),
        ("be", "echo; legacy-echo не выклікаць"),
        ("gl", "echo. Non chames a legacy-echo."),
        ("ga", "echo. Níor cheart legacy-echo a úsáid."),
        ("is", "echo. Ekki kalla á legacy-echo."),
        ("ta", "echo; legacy-echo அழைக்கக்கூடாது"),
        ("te", "echo; legacy-echo పిలవకూడదు"),
        ("mr", "echo; legacy-echo वापरू नका"),
        ("ne", "echo; legacy-echo प्रयोग नगर्नुहोस्"),
        ("so", "echo; legacy-echo waa mamnuuc"),
        ("so", "echo; marnaba ha isticmaalin legacy-echo"),
        ("ps", "echo؛ هیڅکله legacy-echo مه کاروئ"),
        ("ckb", "echo. هەرگیز legacy-echo بەکارمەهێنە"),
        ("ka", "echo; legacy-echo არ გამოიძახო"),
        ("sw", "echo; legacy-echo haitakiwi kuitwa"),
        ("bn", "echo; legacy-echo কল করা নিষিদ্ধ"),
        ("ur", "echo; legacy-echo کو کال نہ کریں"),
        ("km", "echo; កុំប្រើ legacy-echo"),
        ("lo", "echo; ຫ້າມໃຊ້ legacy-echo"),
    ] {
        let doc = format!("- \"Repeat hello\" → {expectation}\n");
        let c = &cases(&doc)[0];
        assert_eq!(positive_tools(c), ["echo"], "{lang}");
        assert_eq!(
            of_type(c, "toolNeverCalled")[0]["toolName"],
            "legacy-echo",
            "{lang}"
        );
    }
}

#[test]
fn a_word_keeps_its_marks_but_a_persian_non_joiner_ends_its_part() {
    use crate::service::authoring::lexicon::{find_word, fold};
    // A Tamil or Malayalam word runs on past its viramas.
    assert!(!find_word(&fold("ഉപകരണം വിളിക്കരുത്"), "വിളിക്കരുത്").is_empty());
    assert!(find_word(&fold("அழைக்கக்கூடாது"), "கூடாது").is_empty());
    // Persian's non-joiner parts a word as before.
    assert!(!find_word(&fold("فراخوانی نمی‌شود"), "نمی").is_empty());
    // A Latin letter's tone stays no more where no letter holds it and the dot below.
    assert_eq!(fold("Irinṣẹ́ èèwọ̀"), "irinse eewo");
}

#[test]
fn forbidden_tools_in_every_language() {
    for (lang, expectation) in [
        ("en", "echo, and it must not call legacy-echo"),
        ("de", "echo; legacy-echo wird nicht aufgerufen"),
        ("fr", "echo. Surtout pas legacy-echo."),
        ("es", "echo. No debe llamar a legacy-echo."),
        ("ja", "echo。legacy-echo は使わないこと"),
        ("zh", "echo，注意不能用 legacy-echo"),
        ("ko", "echo 호출 (legacy-echo 사용 금지)"),
    ] {
        let doc = format!("- \"Repeat hello\" → {expectation}\n");
        let c = &cases(&doc)[0];
        assert_eq!(positive_tools(c), ["echo"], "{lang}");
        assert_eq!(
            of_type(c, "toolNeverCalled")[0]["toolName"],
            "legacy-echo",
            "{lang}"
        );
    }
}

#[test]
fn tools_named_by_spelling_or_description_are_mapped_with_an_honest_claim() {
    let doc = "1. “what’s 19 plus 23” Expected: call the sum tool with a = 19, b = 23.\n2. “Mean of 1.5 and 2.5?” → GetStats, numbers = [1.5, 2.5]\n";
    let c = cases(doc);
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert_eq!(positive_tools(&c[1]), ["get-stats"]);
    for x in &c {
        assert_eq!(x.import.as_ref().unwrap().status, ClaimStatus::Approximated);
    }
}

#[test]
fn documents_without_cases_yield_none() {
    for doc in [
        "# Changelog\n\n## [1.0]\n- `get-sum` no longer rounds (`a=0.1, b=0.2`).\n",
        "# Set-up\n\n1. Start the server with `demo --stdio`.\n2. Call `get-sum` with a = 1 and b = 2 to check it works.\n",
        "## Actions\n- Ana: add the \"echo twice\" case → Bo reviews\n",
    ] {
        assert!(cases(doc).is_empty(), "{doc}");
    }
}

#[test]
fn odd_input_never_panics() {
    let odd = [
        "",
        "~~",
        "|",
        "||a||b||\n|x|",
        "---\n---",
        "\"",
        "“unclosed",
        "İstanbul İİ ẞ → get-sum a=1",
        "- \"İİİ ẞẞ\" → the İ tool, a=İ",
        "# 见\n- 用户输入：“「」”\n- 预期工具：\n",
        "Rédaction: a\nÉté: b\nx: c\n",
        "#!/bin/sh\nrun --prompt \"é\" --expect --never\n",
        "INSERT INTO t (prompt, tool) VALUES ('it''s', 'é'), ('",
        "h1. a\nh2. b\n@x@y@ -é-\n",
        "+--+\n| é |\n+==+\n|",
        "From a@b.c Mon\nFrom: é\nTo: x\nSubject: y\n\nOn Mon, <a@b.c> wrote:\n> é\n",
        "[{\"text\": \"`é é é` → `get-sum`\", \"user\": \"U1\"}]",
        "question,__expected\n\"a\nb",
        "Feature: x\n  Scenario Outline: y\n    When \"<a>\"\n    Examples:\n      | a |\n      | \"|",
        "{\"tests\": [{\"prompt\": null, \"tool\": {}}]}",
        "tests:\n  - vars: {q: [}\n",
        "- \"Ask 3,\" → get-sum a=3,,,, b=..5",
        "\u{feff}\r\n\r\n- \"x y\" → `echo` message=\"\u{a0}\"\r\n",
    ];
    for doc in odd {
        let _ = cases(doc);
        // Every prefix, cut at character boundaries, too.
        for (i, _) in doc.char_indices() {
            let _ = cases(&doc[..i]);
        }
    }
}

/// (first line, last line, negative, positive tools) of each case.
fn outline(doc: &str) -> Vec<(u32, u32, bool, Vec<String>)> {
    cases(doc)
        .iter()
        .map(|c| {
            let s = c.source.as_ref().unwrap();
            (
                s.start_line as u32,
                s.end_line as u32,
                c.is_negative,
                positive_tools(c),
            )
        })
        .collect()
}

#[test]
fn an_html_table_gives_a_case_per_row_but_not_under_a_reference_heading() {
    let doc = "<!DOCTYPE html>\n<html><body>\n<h2>Tools (for reference)</h2>\n<table><tr><th>Tool</th><th>Example prompt</th></tr>\n<tr><td>get-sum</td><td>\"add 1 and 2\"</td></tr></table>\n<h2>Test cases</h2>\n<table>\n<tr><th>ID</th><th>User prompt</th><th>Expected tool</th><th>Arguments</th></tr>\n<tr>\n<td>TC-1</td>\n<td>What&#39;s 12 plus 30?</td>\n<td><code>get-sum</code></td>\n<td>a = 12, b = 30</td>\n</tr>\n<tr><td>TC-2</td><td>What is the capital of France?</td><td><em>none</em> &ndash; no tool call</td><td>&nbsp;</td></tr>\n</table>\n</body></html>\n";
    assert_eq!(
        outline(doc),
        [
            (9, 14, false, vec!["get-sum".to_string()]),
            (15, 15, true, vec![])
        ]
    );
}

#[test]
fn repeated_xml_elements_are_cases_whatever_holds_them() {
    let doc = "<?xml version=\"1.0\"?>\n<suite>\n<section><name>Maths</name>\n<cases>\n<case>\n<title>Sum</title>\n<steps><step><content>Send: \"Add 19 and 23 for me.\"</content>\n<expected>Calls get-sum with a=19 and b=23.</expected></step></steps>\n</case>\n</cases>\n</section>\n<section><name>Chat</name>\n<cases>\n<case>\n<title>Joke</title>\n<steps><step><content>Send: \"Tell me a joke.\"</content>\n<expected>No tool is called.</expected></step></steps>\n</case>\n</cases>\n</section>\n</suite>\n";
    assert_eq!(
        outline(doc),
        [
            (5, 9, false, vec!["get-sum".to_string()]),
            (14, 18, true, vec![])
        ]
    );
}

#[test]
fn asciidoc_table_cells_run_over_lines() {
    let doc = "= Plan\n\n== Cases\n\n|===\n|Nr. |Prompt |Expected tool |Remark\n\n|1\n|Add 17 and 25.\n|`get-sum`\n|answer has 42\n\n|2\n|Delete everything.\n|`delete-item`\n|DROPPED — too risky\n|===\n";
    assert_eq!(outline(doc), [(8, 11, false, vec!["get-sum".to_string()])]);
}

#[test]
fn chat_lines_with_a_quote_and_an_arrow_are_cases_of_their_own() {
    let doc = "Jonas  10:15 AM\n5) \"what is 2 plus 3\" -> get-sum\nalso 6) \"don't look anything up, what is 2+2\" -> no tools\n\nAisha  10:16 AM\nand a multi-turn one:\n   user: \"echo hi\" -> echo\n   user: \"now add 1 and 2\" -> get-sum\n";
    assert_eq!(
        outline(doc),
        [
            (2, 2, false, vec!["get-sum".to_string()]),
            (3, 3, true, vec![]),
            (6, 8, false, vec!["echo".to_string(), "get-sum".to_string()])
        ]
    );
}

#[test]
fn a_details_block_with_a_conversation_table_is_one_case() {
    let doc = "# Evals\n\n<details>\n<summary><b>E2 — sum after a clarifying turn</b></summary>\n\n| turn | role | text |\n|---|---|---|\n| 1 | user | I need to add two numbers. |\n| 2 | assistant | Which ones? |\n| 3 | user | 7.5 and 2.25 |\n\n**Expect:** `get-sum` called with `{\"a\": 7.5, \"b\": 2.25}`.\n\n</details>\n";
    let c = cases(doc);
    assert_eq!(c.len(), 1);
    let prompts: Vec<_> = c[0].steps.iter().filter_map(|s| s.prompt.clone()).collect();
    assert_eq!(prompts, ["I need to add two numbers.", "7.5 and 2.25"]);
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
}

#[test]
fn sheet_rows_forbidding_any_tool_are_negative_and_todo_rows_are_not_cases() {
    let doc = "Nightly regression\t\t\t\n\t\t\t\n#\tUser prompt\tExpected tool\tMust not call\n1\twhat is 2 plus 3\tget-sum\t\n2\tlol ok\t\tany\n\n\tTODO: unicode names\t\t\n";
    assert_eq!(
        outline(doc),
        [
            (4, 4, false, vec!["get-sum".to_string()]),
            (5, 5, true, vec![])
        ]
    );
}

#[test]
fn a_forbidden_tool_or_anything_else_is_a_negative() {
    let doc = "Cases:\n\n* \"What timezone is Sydney in?\" - a knowledge question, it must not call get-sum (or anything else).\n";
    let c = cases(doc);
    assert_eq!(c.len(), 1);
    assert!(c[0].is_negative);
}

#[test]
fn an_expectation_object_and_arguments_keyed_by_tool() {
    let doc = "{\"id\":\"j1\",\"input\":\"Sum 1000 and 24\",\"expect\":{\"tool\":\"get-sum\",\"arguments\":{\"get-sum\":{\"a\":1000,\"b\":24}}}}\n{\"id\":\"j2\",\"input\":\"Write a haiku\",\"expect\":{\"tool\":null}}\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2);
    assert_eq!(
        of_type(&c[0], "toolCalledWith")[0]["args"]["args"],
        json!({"a": 1000, "b": 24})
    );
    assert!(c[1].is_negative);
}

#[test]
fn toml_tables_are_cases_unless_switched_off() {
    let doc = "title = \"Plan\"\n\n[[case]]\nid = \"sum-01\"\nprompt = \"Add 2 and 3\"\ntools = [\"get-sum\"]\nargs = { \"get-sum\" = { a = 2, b = 3 } }\n\n# dropped in review\n[[case]]\nid = \"crash-01\"\nenabled = false\nprompt = \"Crash the server.\"\ntools = [\"crash\"]\n";
    assert_eq!(outline(doc), [(3, 7, false, vec!["get-sum".to_string()])]);
    let c = &cases(doc)[0];
    assert_eq!(
        of_type(c, "toolCalledWith")[0]["args"]["args"],
        json!({"a": 2, "b": 3})
    );
}

#[test]
fn an_assistant_line_is_no_part_of_the_prompt() {
    let doc = "### Slow job\n- User: \"Run something slow\"\n- Assistant: \"For how long?\"\n- User: \"Two seconds, no progress\"\n- Expected tool: slow with durationMs=2000\n";
    let c = cases(doc);
    assert_eq!(c.len(), 1);
    let prompts: Vec<_> = c[0].steps.iter().filter_map(|s| s.prompt.clone()).collect();
    assert_eq!(prompts, ["Run something slow", "Two seconds, no progress"]);
    assert_eq!(positive_tools(&c[0]), ["slow"]);
}

#[test]
fn a_dashed_separator_under_a_block_is_no_heading() {
    let doc = "Scenarios\n---------\n[1] Sum\n  User: \"Add 50 and 70\"\n  Expected tool: get-sum (a=50, b=70)\n---------\n[2] Echo\n  User: \"Echo hi\"\n  Expected tool: echo (message=\"hi\")\n---------\n";
    assert_eq!(
        outline(doc),
        [
            (3, 5, false, vec!["get-sum".to_string()]),
            (7, 9, false, vec!["echo".to_string()])
        ]
    );
}

#[test]
fn an_html_page_of_prose_is_read_as_text_with_its_items_and_entities() {
    let doc = "<html><body>\n<h1>Evals for demo</h1>\n<p>Owner: Kim &amp; Jo</p>\n<ul>\n<li>&quot;What is 4 plus 5?&quot; &rarr; get-sum with a=4, b=5</li>\n<li>&#8220;Tell me a joke&#8221; &rarr; no tool &eacute;</li>\n</ul>\n</body></html>\n";
    assert_eq!(
        outline(doc),
        [
            (5, 5, false, vec!["get-sum".to_string()]),
            (6, 6, true, vec![])
        ]
    );
}

#[test]
fn pytest_params_take_their_names_from_the_parametrize_signature() {
    let doc = r#"import pytest

KNOWN = ("echo", "get-sum")

CASES = [
    pytest.param("What is 3 + 4?", ["get-sum"], {"get-sum": {"a": 3, "b": 4}}, id="sum"),
    pytest.param("Who wrote Hamlet? No tools.", [], {}, id="trivia"),
    # pytest.param("Call the fail tool.", ["fail"], {}, id="dropped"),
]

@pytest.mark.parametrize("prompt,expected_tools,expected_args", CASES)
def test_choice(prompt, expected_tools, expected_args):
    result = run_model(prompt, tools=session.tools)
"#;
    let cs = cases(doc);
    assert_eq!(cs.len(), 2, "{cs:#?}");
    assert_eq!(positive_tools(&cs[0]), ["get-sum"]);
    assert_eq!(
        of_type(&cs[0], "toolCalledWith")[0]["args"]["args"],
        json!({"a": 3, "b": 4})
    );
    assert_eq!(cs[0].source.as_ref().unwrap().start_line, 6);
    assert!(
        cs[1].is_negative,
        "an empty tool list with 'No tools.' is negative"
    );
}

#[test]
fn go_table_rows_are_cases_and_a_row_without_the_tool_expects_none() {
    let doc = "package evals\n\nimport \"testing\"\n\nfunc TestTools(t *testing.T) {\n\ttests := []struct {\n\t\tname     string\n\t\tprompt   string\n\t\twantTool string\n\t\twantArgs map[string]any\n\t}{\n\t\t{name: \"sum\", prompt: \"What do 64 and 36 add up to?\", wantTool: \"get-sum\", wantArgs: map[string]any{\"a\": 64, \"b\": 36}},\n\t\t{name: \"echo\", prompt: \"Echo back: hi there\", wantTool: \"echo\", wantArgs: map[string]any{\"message\": \"hi there\"}},\n\t\t{name: \"trivia\", prompt: \"What is the capital of Australia?\"},\n\t}\n\tfor _, tc := range tests {\n\t\t_ = tc\n\t}\n}\n";
    let cs = cases(doc);
    assert_eq!(cs.len(), 3, "{cs:#?}");
    assert_eq!(
        of_type(&cs[0], "toolCalledWith")[0]["args"]["args"],
        json!({"a": 64, "b": 36})
    );
    assert_eq!(positive_tools(&cs[1]), ["echo"]);
    assert!(cs[2].is_negative);
}

#[test]
fn test_functions_are_cases_when_a_module_has_no_case_literal() {
    let doc = r#"import { describe, it, expect } from "vitest";

describe("demo", () => {
  it("adds with get-sum", async () => {
    const calls = await agent.ask("Add 2.5 and 0.75 for me.");
    expect(names(calls)).toContain("get-sum");
    expect(calls[0].args).toEqual({ a: 2.5, b: 0.75 });
  });

  it("answers without tools", async () => {
    const calls = await agent.ask("Without using any tools, what is 10 times 10?");
    expect(calls).toHaveLength(0);
  });

  it.skip("crashes the server (rejected)", async () => {
    const calls = await agent.ask("Crash the server now please.");
    expect(names(calls)).toContain("crash");
  });
});
"#;
    let cs = cases(doc);
    assert_eq!(cs.len(), 2, "{cs:#?}");
    assert_eq!(cs[0].title, "adds with get-sum");
    assert_eq!(
        of_type(&cs[0], "toolCalledWith")[0]["args"]["args"],
        json!({"a": 2.5, "b": 0.75})
    );
    assert!(cs[1].is_negative);
}

#[test]
fn an_example_literal_beside_the_table_of_cases_is_no_case() {
    let doc = r#"from dataclasses import dataclass

DOC_EXAMPLE = EvalCase(prompt="add 1 and 2", expect_tool="get-sum")

CASES = [
    EvalCase(prompt="What's 0.1 + 0.2?", expect_tool="get-sum", args={"a": 0.1, "b": 0.2}),
    EvalCase(prompt="Okay, now delete it.", history=({"role": "user", "content": "Show me the first item."},), expect_tool="delete-item"),
]
"#;
    let cs = cases(doc);
    assert_eq!(cs.len(), 2, "{cs:#?}");
    let prompts: Vec<&str> = cs[1]
        .steps
        .iter()
        .filter_map(|s| s.prompt.as_deref())
        .collect();
    assert_eq!(prompts, ["Show me the first item.", "Okay, now delete it."]);
}

#[test]
fn a_decimal_comma_between_semicolon_separated_pairs_is_a_decimal_point() {
    use crate::service::authoring::fields::parse_args;
    assert_eq!(
        Value::Object(parse_args("a=0,5; b=0,25").unwrap()),
        json!({"a": 0.5, "b": 0.25})
    );
    assert_eq!(
        Value::Object(parse_args("a=1, b=2").unwrap()),
        json!({"a": 1, "b": 2})
    );
}

#[test]
fn a_long_plan_read_in_parallel_keeps_its_order() {
    let mut doc = String::from("# Plan\n\nSet-up: start the demo server.\n\n");
    for i in 0..120 {
        doc.push_str(&format!(
            "## TC-{i:03} Add {i} and 1\n- Prompt: \"What is {i} + 1?\"\n- Expected tool: get-sum with a={i}, b=1\n\n"
        ));
    }
    let cs = cases(&doc);
    assert_eq!(cs.len(), 120);
    for (i, c) in cs.iter().enumerate() {
        assert_eq!(
            c.source.as_ref().unwrap().start_line,
            5 + 4 * i as i64,
            "{}",
            c.title
        );
        assert_eq!(
            of_type(c, "toolCalledWith")[0]["args"]["args"],
            json!({"a": i, "b": 1})
        );
    }
}

#[test]
fn jest_each_rows_take_their_names_from_the_callbacks_parameters() {
    let doc = "import { test, expect } from \"@jest/globals\";\n\ntest.each([\n  [\"What is 12 plus 30?\", \"get-sum\"],\n  [\"Please echo: hello there\", \"echo\"],\n])(\"routes %s\", async (prompt, tool) => {\n  const calls = await ask(prompt);\n  expect(calls[0].name).toBe(tool);\n});\n";
    let cs = cases(doc);
    assert_eq!(cs.len(), 2, "{cs:#?}");
    assert_eq!(positive_tools(&cs[0]), ["get-sum"]);
    assert_eq!(positive_tools(&cs[1]), ["echo"]);
    assert_eq!(cs[1].source.as_ref().unwrap().start_line, 5);
}

#[test]
fn the_users_turns_after_the_fields_are_one_case() {
    // Fields first, then the conversation (an Org property drawer reads this way).
    let doc = "## Paging\n\nTool: get-sum\nArgs: {\"a\": 1, \"b\": 2}\nForbid: echo\n\nuser: Add one and two.\nassistant: (answers 3)\nuser: Now say it again.\n\n## Echo\n\nPrompt: \"Say hi back\"\nTool: echo\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:#?}");
    let turns: Vec<_> = c[0].steps.iter().filter_map(|s| s.prompt.clone()).collect();
    assert_eq!(turns, ["Add one and two.", "Now say it again."]);
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert_eq!(of_type(&c[0], "toolNeverCalled")[0]["toolName"], "echo");
    assert_eq!(positive_tools(&c[1]), ["echo"]);
}

#[test]
fn a_prompt_sent_inside_the_assertion_is_the_prompt() {
    let doc = r#"describe("routing", () => {
  test("adds", async () => {
    expect(await agent.ask("What is 2 + 3? Use the tool.")).toCallTool("get-sum");
  });
  test("echoes", async () => {
    expect(tools(await run("Please echo back: hello there"))).toEqual(["echo"]);
  });
});
"#;
    let cs = cases(doc);
    assert_eq!(cs.len(), 2, "{cs:#?}");
    let first = |c: &EvalCase| c.steps.iter().find_map(|s| s.prompt.clone());
    assert_eq!(
        first(&cs[0]).as_deref(),
        Some("What is 2 + 3? Use the tool.")
    );
    assert_eq!(positive_tools(&cs[0]), ["get-sum"]);
    assert_eq!(
        first(&cs[1]).as_deref(),
        Some("Please echo back: hello there")
    );
    assert_eq!(positive_tools(&cs[1]), ["echo"]);
}

#[test]
fn a_column_of_parameter_assignments_holds_the_arguments_whatever_its_heading() {
    let doc = "| ID | Prompt | Tool | Arguemnts |\n|---|---|---|---|\n| T1 | \"Add 2 and 3\" | get-sum | a = 2, b = 3 |\n| T2 | \"Stats of 1, 2\" | get-stats | numbers = [1, 2] |\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:#?}");
    let with = of_type(&c[0], "toolCalledWith");
    assert_eq!(
        with[0]["args"]["args"],
        json!({"a": 2, "b": 3}),
        "{:?}",
        asserts(&c[0])
    );
    let with = of_type(&c[1], "toolCalledWith");
    assert_eq!(
        with[0]["args"]["args"],
        json!({"numbers": [1, 2]}),
        "{:?}",
        asserts(&c[1])
    );
}

#[test]
fn a_negated_status_word_in_a_heading_is_no_status() {
    let doc = "### Echo uses the non-deprecated tool\n- Prompt: \"Please echo back: hi there\"\n- Expected tool: echo\n\n### Deprecated: legacy flow\n- Prompt: \"Use legacy echo for: hi\"\n- Expected tool: legacy-echo\n";
    let c = cases(doc);
    assert_eq!(c.len(), 1, "{c:#?}");
    assert_eq!(positive_tools(&c[0]), ["echo"]);
}

#[test]
fn vietnamese_labels_and_the_no_tool_case() {
    let doc = "### 1. Tính tổng\n- Câu lệnh: “Tính tổng của 35 và 65.”\n- Kết quả mong đợi: gọi get-sum với a = 35, b = 65\n- Không được gọi: get-stats\n\n### 2. Câu hỏi thông thường\n- Câu lệnh: “Hà Nội có bao nhiêu quận?”\n- Kết quả mong đợi: không gọi công cụ nào, trả lời trực tiếp\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:#?}");
    assert_eq!(positive_tools(&c[0]), ["get-sum"], "{:#?}", c[0]);
    assert_eq!(
        of_type(&c[0], "toolNeverCalled")[0]["toolName"],
        "get-stats"
    );
    assert!(c[1].is_negative, "{:?}", asserts(&c[1]));
    assert!(positive_tools(&c[1]).is_empty());
}

#[test]
fn a_csv_column_of_parameter_assignments_holds_the_arguments_too() {
    let doc = "Case,Question,Tool,Paramz\nC1,\"What is 3 plus 4?\",get-sum,\"a = 3, b = 4\"\n";
    let c = author_builtin(doc, "plan.csv", &demo_tools(), &[]);
    assert_eq!(c.len(), 1, "{c:#?}");
    let with = of_type(&c[0], "toolCalledWith");
    assert_eq!(
        with[0]["args"]["args"],
        json!({"a": 3, "b": 4}),
        "{:?}",
        asserts(&c[0])
    );
}

fn drafts(doc: &str) -> Vec<super::super::draft::Draft> {
    super::extract(doc, &demo_tools())
}

fn tools_of(d: &super::super::draft::Draft) -> Vec<&str> {
    d.expected_calls.iter().map(|c| c.tool.as_str()).collect()
}

#[test]
fn a_tracker_export_keeps_its_fields_in_the_description_cell() {
    // Jira names its custom columns `Custom field (…)`, and writes the prompt inside the
    // description in wiki markup; a ticket resolved "Won't Do" is no case.
    let doc = "Summary,Issue key,Status,Resolution,Description,Custom field (Expected Tool),Custom field (Forbidden Tools)\n\
Add two,T-1,Done,Done,\"h3. Prompt\n{quote}Add 3 and 4 please{quote}\n h3. Notes\nplain\",get-sum,\n\
Echo,T-2,Done,Done,\"h3. Prompt\n{quote}Say back: hi there{quote}\",echo,legacy-echo\n\
Crash,T-3,Closed,Won't Do,\"h3. Prompt\n{quote}Crash it now{quote}\",crash,\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Add 3 and 4 please"]);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[1].never_called, ["legacy-echo"]);
    assert_eq!((d[1].start_line, d[1].end_line), (6, 7));
}

#[test]
fn a_numbered_outline_makes_sections_and_lettered_fields() {
    let doc = "1. Purpose\nCheck the tools.\n\n2. Cases\n2.1. Sum\n   a. Prompt: \"Add 35 and 65.\"\n   b. Expected: calls get-sum with a = 35, b = 65\n2.2. Chit-chat\n   a. Prompt: \"How are you today?\"\n   b. Expected: no tool at all\n2.3. [DROPPED – review 18/06] Crash\n   a. Prompt: \"Crash the server.\"\n   b. Expected: crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (5, 7));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert!(d[1].negative);
}

#[test]
fn a_chat_export_reads_each_message_and_drops_what_a_reply_takes_back() {
    // The user field is an id, the case is in the message text with its prompt as code,
    // and a later reply drops case 3.
    let doc = r#"[
  {"user": "U01AB", "text": "reply with one case per message: prompt in backticks, then the tool", "ts": "1.0"},
  {"user": "U01AB", "text": "*case 1* — `what is 8 + 13 then?` → `get-sum` with a=8, b=13", "ts": "2.0"},
  {"user": "U02CD", "text": "*case 2* — `hi! how's your day going?` → no tool at all", "ts": "3.0"},
  {"user": "U02CD", "text": "*case 3* — `crash the server on purpose` → `crash`", "ts": "4.0"},
  {"user": "U01AB", "text": "-1 on case 3, it takes the shared server down. let's drop it", "ts": "5.0"}
]"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["what is 8 + 13 then?"]);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert!(d[1].negative);
}

#[test]
fn code_in_a_changelog_is_no_prompt() {
    let doc = "## [0.9.2]\n### Fixed\n- `get-sum` no longer rounds `a + b` to an integer\n- `list items` is faster\n";
    assert!(drafts(doc).is_empty());
}

#[test]
fn a_list_of_turns_ends_each_turn_at_the_next_item() {
    let doc = "### 3.5 Conversation: deleting\n\nFlow:\n1. User: \"I want to delete something.\"\n2. The assistant asks which item.\n3. User: \"Item pl-15.\"\n\nExpected: `delete-item` with `id = \"pl-15\"`. Never `crash`.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["I want to delete something.", "Item pl-15."]);
    assert_eq!(tools_of(&d[0]), ["delete-item"]);
}

#[test]
fn positional_rows_say_what_they_are_by_their_values() {
    // No signature names the fields: an utterance, a live tool (or none), an object of
    // its parameters and a list of tools.
    let rust = r#"use test_case::test_case;

#[test_case("What's 12 plus 30?", Expect::Tool("get-sum"), json!({"a": 12, "b": 30}), &["get-stats"] ; "sum")]
#[test_case("Is Rust memory safe?", Expect::NoTool, Value::Null, &[] ; "trivia")]
fn routing(p: &str, e: Expect, a: Value, n: &[&str]) {
    run(p, e, a, n);
}

#[test]
fn delete_over_two_turns() {
    let h = harness();
    h.converse(&[user("I want to delete an item."), assistant("Which one?"), user("Item r-2.")]);
    h.assert_called("delete-item");
}
"#;
    let d = drafts(rust);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(30)
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
    assert_eq!(d[2].prompts.len(), 2, "{:?}", d[2].prompts);

    let php = "<?php\nfinal class T extends TestCase\n{\n    public static function cases(): iterable\n    {\n        yield 'sum' => ['Add 0.5 and 0.25 for me', 'get-sum', ['a' => 0.5, 'b' => 0.25], []];\n        yield 'trivia' => ['Which PHP version added enums?', null, [], []];\n    }\n\n    #[DataProvider('cases')]\n    public function testIt(string $p, ?string $t): void {}\n}\n";
    let d = drafts(php);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert!(d[1].negative);
}

#[test]
fn chat_lines_in_other_languages_keep_expected_and_forbidden_apart() {
    let doc = "[10:02] Kim\n형식: 프롬프트 → 툴 / 금지: 툴. \"툴 호출 없음\"이라고 쓰면 툴을 부르지 않는 케이스.\n\n[10:09] Lee\n케이스3) \"5, 10, 15의 평균 알려줘\" → get-stats, numbers [5, 10, 15] / 금지: get-sum\n\n[10:20] Kim\n케이스5) 멀티턴\n  사용자: 실패 처리를 보고 싶어\n  어시스턴트: 사유는요?\n  사용자: \"테스트\"로 해 줘\n→ fail, reason=\"테스트\" / 금지: crash\n\nАлексей, [12.09.2024 10:41]\nПравила: «Не вызывать X» = запрещённый инструмент.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-stats"]);
    assert_eq!(d[0].never_called, ["get-sum"]);
    assert_eq!(d[1].prompts.len(), 2, "{:?}", d[1].prompts);
    assert_eq!(tools_of(&d[1]), ["fail"]);
    assert_eq!(d[1].never_called, ["crash"]);
}

#[test]
fn a_script_running_one_command_per_case_reads_its_flags() {
    let doc = "#!/usr/bin/env bash\n# Flags: --prompt TEXT, --expect TOOL (`--expect none` = no tool), --never TOOL\nset -euo pipefail\n\n# warm-up, not scored\nevalctl ask --prompt \"ping\"\n\nevalctl case --id sum \\\n  --prompt \"add -40 and 2\" \\\n  --expect get-sum --arg a=-40 --arg b=2 --never get-stats\n\nevalctl case --id chat --prompt \"what does set -e do?\" --expect none\n\n# DROPPED (review 2024-06-11): takes the server down\nevalctl case --id crash --prompt \"crash the demo server\" --expect crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (8, 10));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(-40)
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
}

#[test]
fn a_grid_table_is_read_row_by_row_with_its_wrapped_cells() {
    let doc = "4. 試験項目\n\n+------+------------------------------+-------------+---------------+----------+\n| No.  | 入力（ユーザー発話）         | 期待ツール  | 引数          | 判定     |\n+======+==============================+=============+===============+==========+\n| T-01 | 「38 と 62 を足して」        | get-sum     | a=38, b=62    | 合格     |\n+------+------------------------------+-------------+---------------+----------+\n| T-02 | 「そのまま繰り返して：お疲れ | echo        | message=お疲  | 合格     |\n|      | さまです」                   |             | れさまです    |          |\n+------+------------------------------+-------------+---------------+----------+\n| T-03 | ユーザー：「商品を消したい」 | delete-item | id=jp-204     | 合格     |\n|      | アシスタント：「どの ID？」  |             |               |          |\n|      | ユーザー：「jp-204 です」    |             |               |          |\n+------+------------------------------+-------------+---------------+----------+\n| T-04 | 「サーバーを落として」       | crash       | —             | 却下     |\n+------+------------------------------+-------------+---------------+----------+\n\n改訂: T-03〜T-04 追加、T-04 却下\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!((d[1].start_line, d[1].end_line), (8, 9));
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["message"],
        json!("お疲れさまです")
    );
    assert_eq!(d[2].prompts, ["商品を消したい", "jp-204 です"]);
    assert_eq!(tools_of(&d[2]), ["delete-item"]);
    // (The prompt wrapped in the first column: a row runs to the next border.)
    let doc = "+----------------------+-------------------+\n| What the user types  | Expected          |\n+======================+===================+\n| \"Repeat after me,    | echo, message     |\n| please: good night\"  | good night        |\n+----------------------+-------------------+\n| \"What is 2 plus      | get-sum           |\n| 40?\"                 |                   |\n+----------------------+-------------------+\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Repeat after me, please: good night"]);
    assert_eq!((d[1].start_line, d[1].end_line), (7, 8));
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
}

#[test]
fn a_mail_thread_skips_headers_and_quoted_replies_and_honours_a_later_drop() {
    let doc = "From ana@example.com Mon Sep 23 09:14:02 2024\nFrom: Ana <ana@example.com>\nTo: qa@example.com\nSubject: eval cases\nDate: Mon, 23 Sep 2024 09:14:02 +0700\nMessage-ID: <a1@example.com>\n\nHi all,\n\nK1. Prompt: \"Run the slow job please\"\n    Expected: slow, for 4 seconds\n\nK2. Prompt: \"Crash the server right now\"\n    Expected: crash\n\nFrom bo@example.com Mon Sep 23 13:40:55 2024\nFrom: Bo <bo@example.com>\nTo: Ana <ana@example.com>\nSubject: Re: eval cases\nMessage-ID: <b7@example.com>\n\nK2 should be dropped: it takes the shared server down.\n\nOn Mon, 23 Sep 2024 at 09:14, Ana <ana@example.com> wrote:\n> K2. Prompt: \"Crash the server right now\"\n>     Expected: crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (10, 11));
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["durationMs"],
        json!(4000)
    );
}

#[test]
fn minutes_whose_agenda_item_holds_case_blocks_read_each_block() {
    let doc = "Minutes — demo server evals\n\n1. Action items from last time\n   - Rahul: staging up — done.\n\n2. Cases discussed\n   Rule: a \"no tool\" case answers without calling anything.\n\n   Case 2.1 — sum\n     प्रॉम्प्ट: \"45 और 55 का योग बताओ\"\n     अपेक्षित: get-sum, a = 45, b = 55\n\n   Case 2.2 — general question\n     प्रॉम्प्ट: \"ताजमहल किस शहर में है?\"\n     अपेक्षित: कोई टूल नहीं — मॉडल खुद जवाब दे।\n\n   Case 2.3 — big result\n     प्रॉम्प्ट: \"10 MB का large-result लाओ\"\n     अपेक्षित: large-result, size = 10000000\n     निर्णय: अस्वीकृत। CI में टाइमआउट होता है।\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (9, 11));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert!(d[1].negative);
}

#[test]
fn a_semicolon_export_reads_decimal_commas_and_grouped_thousands() {
    let doc = "Azonosító;Felhasználói kérés;Elvárt eszköz;Paraméterek;Tilos hívni;Státusz\nHU-01;Mennyi 12,5 meg 7,25?;get-sum;\"a = 12,5; b = 7,25\";–;elfogadva\nHU-02;\"Átlag: 1,5; 2,5; 4\";get-stats;\"numbers = [1,5; 2,5; 4]\";get-sum;elfogadva\nHU-03;Kérek 1024 bájtot;large-result;size = 1 024;crash;elfogadva\nHU-04;Állítsd le a szervert.;crash;–;–;elutasítva\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    let args = |k: usize| d[k].expected_calls[0].args.clone().unwrap();
    assert_eq!(args(0)["b"], json!(7.25));
    assert_eq!(args(1)["numbers"], json!([1.5, 2.5, 4]));
    assert_eq!(args(2)["size"], json!(1024));
    assert_eq!(d[1].never_called, ["get-sum"]);
}

#[test]
fn a_textile_page_reads_its_code_and_struck_lines() {
    let doc = "h1. Σχέδιο ελέγχου\n\nh3. ΠΕ-1: Ηχώ\n\n* Ερώτημα: «Επανάλαβε ακριβώς: Καλημέρα κόσμε»\n* Αναμενόμενο: @echo@, message = «Καλημέρα κόσμε»\n* Απαγορεύεται: @legacy-echo@, @crash@\n\nh3. ΠΕ-2: Αργή\n\n-Ερώτημα: «Τρέξε το slow για ένα λεπτό» -- Αναμενόμενο: @slow@-\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo", "crash"]);
}

#[test]
fn a_sql_seed_reads_each_row_by_its_column_list_and_a_later_update_drops_one() {
    let doc = "-- Seeds the eval cases (the runner reads rows WHERE status = 'active').\nINSERT INTO eval_cases (id, prompt, turns, expect_tool, expect_args, never_tools, no_tool) VALUES\n    ('c-01', 'What''s 99 plus 1?', NULL, 'get-sum', '{\"a\": 99, \"b\": 1}', '{}', false),\n    ('c-02', 'Explain a LEFT JOIN, briefly.', NULL, NULL, NULL, '{}', true),\n    ('c-03', NULL, '[{\"role\": \"user\", \"content\": \"Clean up the catalogue.\"},\n                {\"role\": \"user\", \"content\": \"The one with id sku-42.\"}]',\n        'delete-item', '{\"id\": \"sku-42\"}', '{crash,list-items}', false),\n    ('c-04', 'Please call legacy-echo with hello', NULL, 'legacy-echo', NULL, '{}', false);\n\n-- c-04 rejected in review.\nUPDATE eval_cases SET status = 'rejected' WHERE id = 'c-04';\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].prompts, ["What's 99 plus 1?"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(99)
    );
    assert!(d[1].negative);
    assert_eq!(d[2].prompts.len(), 2);
    assert_eq!(d[2].never_called, ["crash", "list-items"]);
}

#[test]
fn a_junit_report_reads_each_testcase_by_its_named_properties() {
    let doc = "<?xml version=\"1.0\"?>\n<testsuites>\n  <testsuite name=\"routing\">\n    <testcase name=\"sum\">\n      <properties>\n        <property name=\"prompt\" value=\"Add 1000000 and 2500000\"/>\n        <property name=\"expected.tool\" value=\"get-sum\"/>\n        <property name=\"expected.args\" value=\"{&quot;a&quot;: 1000000, &quot;b&quot;: 2500000}\"/>\n      </properties>\n    </testcase>\n    <testcase name=\"talk\">\n      <properties>\n        <property name=\"turn.1\" value=\"user: Show me how errors look.\"/>\n        <property name=\"turn.2\" value=\"assistant: Which reason?\"/>\n        <property name=\"turn.3\" value=\"user: disk full\"/>\n        <property name=\"expected.tool\" value=\"fail\"/>\n        <property name=\"never\"><![CDATA[crash]]></property>\n      </properties>\n    </testcase>\n    <testcase name=\"empty\">\n      <properties>\n        <property name=\"prompt\" value=\"Echo an empty string back\"/>\n        <property name=\"expected.tool\" value=\"echo\"/>\n      </properties>\n      <skipped message=\"withdrawn: undefined behaviour\"/>\n    </testcase>\n  </testsuite>\n</testsuites>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(2500000)
    );
    assert_eq!(d[1].prompts, ["Show me how errors look.", "disk full"]);
    assert_eq!(d[1].never_called, ["crash"]);
}

#[test]
fn a_table_inside_a_text_block_is_read_row_by_row() {
    let doc = "import org.junit.jupiter.api.Test\nimport org.junit.jupiter.params.provider.CsvSource\n\nclass RoutingTest {\n    @ParameterizedTest\n    @CsvSource(\n        delimiter = '|',\n        textBlock = \"\"\"\n        # id     | prompt                                  | tool      | args       | never\n        sum-01   | Add 17 and 25                           | get-sum   | a=17;b=25  |\n        none-01  | Who wrote War and Peace?                | NONE      |            |\n        items-01 | List the catalogue with page size 2     | list-items| pageSize=2 | delete-item,crash\n        # crash-01 | Crash the server                      | crash     |            |\n        \"\"\"\n    )\n    fun routing(id: String, prompt: String, tool: String, args: String?, never: String?) {\n        val calls = agent.ask(prompt)\n    }\n\n    @Test\n    fun `multi turn delete`() {\n        val calls = agent.converse(\n            user(\"Can you remove an item from the catalogue?\"),\n            assistant(\"Which item id?\"),\n            user(\"kt-42\"),\n        )\n        assertThat(calls.map(ToolCall::name)).containsExactly(\"delete-item\")\n        assertThat(calls.map(ToolCall::name)).doesNotContain(\"crash\")\n    }\n}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 4, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (10, 10));
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(25)
    );
    assert!(d[1].negative);
    assert_eq!(d[2].never_called, ["delete-item", "crash"]);
    assert_eq!(
        d[3].prompts,
        ["Can you remove an item from the catalogue?", "kt-42"]
    );
    assert_eq!(tools_of(&d[3]), ["delete-item"]);
    assert_eq!(d[3].never_called, ["crash"]);
}

#[test]
fn an_api_collection_reads_each_request_with_its_test_script() {
    let doc = r#"{
  "info": {"name": "demo evals"},
  "item": [
    {"name": "Routing", "item": [
      {"name": "sum", "event": [{"listen": "test", "script": {"exec": ["expectTool(\"get-sum\", {a: 250, b: 17});", "expectNever([\"get-stats\"]);"]}}],
       "request": {"method": "POST", "body": {"raw": "{\"messages\": [{\"role\": \"user\", \"content\": \"What is 250 + 17?\"}]}"}}},
      {"name": "chat", "event": [{"listen": "test", "script": {"exec": ["expectNoTools();"]}}],
       "request": {"method": "POST", "body": {"raw": "{\"messages\": [{\"role\": \"user\", \"content\": \"Write a two-line poem\"}]}"}}}
    ]},
    {"name": "Parking lot", "description": "Ideas that were rejected.", "item": [
      {"name": "crash", "event": [{"listen": "test", "script": {"exec": ["expectTool(\"crash\");"]}}],
       "request": {"method": "POST", "body": {"raw": "{\"messages\": [{\"role\": \"user\", \"content\": \"Crash it on purpose\"}]}"}}}
    ]}
  ]
}"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["What is 250 + 17?"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(250)
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
}

#[test]
fn a_two_column_table_of_fields_is_one_case() {
    let doc = "## Senaryolar\n\n### TS-01 · Toplama\n\n| Alan | Değer |\n|---|---|\n| İstem | \"156 ile 244'ü topla\" |\n| Beklenen araç | `get-sum` |\n| Parametreler | `a=156`, `b=244` |\n| Yasak | `get-stats` |\n\n### TS-02 · Liste\n\n| Alan | Değer |\n|---|---|\n| İstem | \"Katalogu göster\" |\n| Beklenen araç | `list-items` |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (5, 10));
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(244)
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
}

#[test]
fn compound_labels_and_a_spreadsheets_row_numbers() {
    // Swedish writes `Användarfråga` as one word; Google Sheets numbers its rows in <th>.
    let doc = "<table><tr><th></th><th>A</th><th>B</th><th>C</th></tr>\n<tr><th>1</th><td colspan=\"3\">Testfall för demo-verktyg</td></tr>\n<tr><th>2</th><td>ID</td><td>Användarfråga</td><td>Förväntat verktyg</td></tr>\n<tr><th>3</th><td>SV-01</td><td>Vad blir 19 plus 23?</td><td>get-sum</td></tr>\n<tr><th>4</th><td>SV-02</td><td>Vem skrev Pippi?</td><td>inget verktyg</td></tr>\n</table>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Vad blir 19 plus 23?"]);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn chat_messages_copied_without_blank_lines_are_read_one_by_one() {
    let doc = "Giulia — 08/10/2024 09:31\nFormato: caso N: \"prompt\" → tool, vietati: X\nLuca — 08/10/2024 09:33\ncaso 1: \"Quanto fa 120 più 80?\" → get-sum (a=120, b=80), vietati: get-stats\n[09:34]\ncaso 2: \"Chi ha dipinto la Gioconda?\" → nessuno strumento\nMarta — 08/10/2024 09:36\nahah\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (4, 4));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
}

#[test]
fn a_ci_matrix_and_a_thai_plan_are_read() {
    let yaml = "name: evals\non:\n  push:\njobs:\n  route:\n    strategy:\n      matrix:\n        include:\n          - case: sum\n            prompt: \"What is 0.25 + 0.5?\"\n            expect: get-sum\n            args: '{\"a\": 0.25, \"b\": 0.5}'\n            never: get-stats\n          - case: noop-only\n            prompt: \"Just call noop, nothing else.\"\n            expect: noop\n            never: crash,fail\n          - case: trivia\n            prompt: \"What does fail-fast do in a matrix?\"\n            expect: none\n    steps:\n      - uses: actions/checkout@v4\n";
    let d = drafts(yaml);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(0.5)
    );
    assert_eq!(d[1].never_called, ["crash", "fail"]);
    assert!(d[2].negative, "`expect: none` where the others name a tool");

    let thai = "4. กรณีทดสอบ\n\nTC-01  บวกเลข\n   คำสั่งผู้ใช้ : \"12 บวก 88 ได้เท่าไร\"\n   เครื่องมือที่คาดหวัง : get-sum\n   อาร์กิวเมนต์ : a = 12, b = 88\n   ห้ามเรียก : get-stats\n";
    let d = drafts(thai);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["get-stats"]);
}

#[test]
fn a_prompt_in_a_fenced_block_of_text_is_the_prompt() {
    let doc = "## Przypadki\n\n#### P-01 — dodawanie\n\n```text\nIle to jest 37 plus 63?\n```\n\n- **Oczekiwane narzędzie:** `get-sum`\n- **Argumenty:** `{\"a\": 37, \"b\": 63}`\n- **Zakazane:** `get-stats`\n\n#### P-02 — rozmowa\n\n```\nużytkownik: Chcę usunąć pozycję.\nasystent: Którą?\nużytkownik: pl-404\n```\n\n- **Oczekiwane narzędzie:** `delete-item`\n\n#### P-03 — kod\n\n```python\nprint(\"hi there you\")\n```\n\n- **Oczekiwane narzędzie:** `echo`\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Ile to jest 37 plus 63?"]);
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert_eq!(d[1].prompts, ["Chcę usunąć pozycję.", "pl-404"]);
}

#[test]
fn an_ini_file_reads_one_case_per_section() {
    let doc = "; cases: prompt, expect (\"-\" = no tool), args.<name>, never, enabled\n[DEFAULT]\nenabled = yes\n\n[server]\ncommand = node demo.js\n\n[case:sum]\nprompt = What's 1000000 plus 2500000?\nexpect = get-sum\nargs.a = 1000000\nargs.b = 2500000\nnever = get-stats\n\n[case:trivia]\nprompt = Who popularised the INI format?\nexpect = -\n\n[case:echo]\nprompt = Echo back exactly: 100%% done\nexpect = echo\nargs.message = \"100% done\"\n\n[case:multi]\nturns =\n    user: Can you list the catalogue?\n    assistant: How many per page?\n    user: Two per page.\nexpect = list-items\n\n[case:legacy]\nprompt = Shout it back: hello\nexpect = legacy-echo\nenabled = no\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 4, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(2500000)
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
    assert_eq!(d[2].prompts, ["Echo back exactly: 100% done"]);
    assert_eq!(d[3].prompts.len(), 2);
}

#[test]
fn a_board_export_reads_each_card_and_skips_the_rejected_list() {
    let doc = r#"{
  "id": "b1", "name": "Testgevallen", "desc": "Eén kaart = één testgeval.",
  "lists": [{"id": "list-ready", "name": "Klaar voor run"}, {"id": "list-rejected", "name": "Afgewezen"}],
  "cards": [
    {"id": "c1", "name": "Optellen", "desc": "**Prompt:** Hoeveel is 75 plus 25?\n**Verwacht:** `get-sum` met a = 75 en b = 25\n**Niet aanroepen:** get-stats", "idList": "list-ready"},
    {"id": "c2", "name": "Kennis", "desc": "**Prompt:** Wat is de hoofdstad van Friesland?\n**Verwacht:** geen enkele tool", "idList": "list-ready"},
    {"id": "c3", "name": "Crash", "desc": "**Prompt:** Laat de server crashen\n**Verwacht:** `crash`", "idList": "list-rejected"}
  ],
  "actions": [{"type": "createCard", "data": {"text": "kaart gemaakt"}}]
}"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(25)
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
}

#[test]
fn japanese_labels_as_people_write_them_read_the_fields() {
    let doc = "# テスト計画\n\n## 3. 判定ルール\n\n- 「ツールを呼ばずに直接回答する」と書かれたケースは、どのツールも呼び出してはならない。\n\n## 4. テストケース\n\n### TC-01 足し算\n\n- プロンプト：「35と65を足すといくつ？」\n- 期待される結果：`get-sum` が呼ばれる（a=35、b=65）\n- 呼んではいけないツール：`get-stats`\n\n### TC-02 サーバー情報\n\n- プロンプト：「サーバーのプロセスIDを教えて」\n- 期待される結果：`server-info`（引数なし）\n- 呼んではいけないツール：`crash`、`noop`\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["35と65を足すといくつ？"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(65)
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert_eq!(d[1].never_called, ["crash", "noop"]);
}

#[test]
fn list_items_led_by_a_cases_name_are_cases_not_fields() {
    // `Pergunta geral` and `常识问题` hold a prompt label word, but name their case.
    let doc = "## Casos\n\n- Soma: usuário pergunta \"quanto é 15 + 27?\" → get-sum com a=15 e b=27. Não pode chamar get-stats.\n- Pergunta geral: \"qual é a capital da Bahia?\" → nenhuma ferramenta.\n- Eco: \"repete: bom dia\" → `echo` com message \"bom dia\"; não pode chamar list-items nem crash.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[1].title, "Pergunta geral");
    assert_eq!(d[1].prompts, ["qual é a capital da Bahia?"]);
    assert!(d[1].negative);
    assert_eq!(d[2].never_called, ["list-items", "crash"]);
    let zh = "## 用例\n\n- [x] **加法**：输入「12.5 加 7.5 等于多少？」→ 预期 `get-sum`；禁止 `get-stats`、`crash`\n- [ ] **常识问题**：输入「长城大概有多长？」→ 不调用工具，直接回答\n- [ ] **回显**：输入「原样回复：你好，MCP！」→ 预期 `echo`，message 为「你好，MCP！」\n- [ ] ~~**崩溃**：输入「让服务器崩溃」→ `crash`~~ ❌ 删掉了\n";
    let d = drafts(zh);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].never_called, ["get-stats", "crash"]);
    assert!(d[1].negative);
    // The string argument as written, full-width punctuation and all.
    assert_eq!(
        d[2].expected_calls[0].args.as_ref().unwrap()["message"],
        json!("你好，MCP！")
    );
}

#[test]
fn a_two_cell_field_table_after_a_conversation_reads_its_fields() {
    let doc = "### TS-05 · Çok turlu\n\n> **Kullanıcı:** Uzun süren bir işlem başlatır mısın?\n> **Asistan:** Ne kadar sürsün?\n> **Kullanıcı:** 2,5 saniye sürsün, 5 adımda bildir.\n\n| Alan | Değer |\n|---|---|\n| Beklenen araç | `slow` |\n| Yasak | `crash` |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].title, "Çok turlu");
    assert_eq!(d[0].expected_calls[0].tool, "slow");
    assert_eq!(d[0].never_called, ["crash"]);
}

#[test]
fn number_lists_written_in_prose_fill_the_list_parameter() {
    let doc = "### 2. Durchschnitt\n\nDer Nutzer schreibt: „Wie viel war das im Schnitt?“\n\nErwartet wird das Statistik-Tool (`get-stats`) mit den Zahlen 8, 12, 7 und 10 als Liste.\n\n### 3. Summe\n\nWenn der Nutzer fragt „Was ist 17 plus 4?“, soll `get-sum` mit a=17, b=4 aufgerufen werden – das Modell soll nicht auf das Statistik-Tool ausweichen.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Wie viel war das im Schnitt?"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["numbers"],
        json!([8, 12, 7, 10])
    );
    // A tool noun inside a tool's name forbids that tool; it asks for no negative.
    assert!(!d[1].negative);
    assert_eq!(d[1].expected_calls[0].tool, "get-sum");
    assert_eq!(d[1].never_called, ["get-stats"]);
}

#[test]
fn titles_that_carry_a_dropped_status_drop_their_case() {
    let doc = "٤. الحالات\n\nالحالة ١\n  الطلب: «كم حاصل جمع 25 و 75؟»\n  المتوقع: get-sum، a = 25، b = 75\n\nالحالة ٦ — مرفوضة\n  الطلب: «أوقف الخادم فورًا»\n  المتوقع: crash\n\nTC-06  Big result            [Status: cancelled]\n   Prompt : \"Give me 20 MB\"\n   Expected tool : large-result\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].expected_calls[0].tool, "get-sum");
}

#[test]
fn a_spanning_summary_row_of_an_html_sheet_is_no_case() {
    let doc = "<table>\n<tr><td>ID</td><td>Användarfråga</td><td>Förväntat verktyg</td><td>Status</td></tr>\n<tr><td>SV-01</td><td>Vad blir 19 plus 23?</td><td>get-sum</td><td>Klar</td></tr>\n<tr><td>SV-06</td><td>Radera allt</td><td>delete-item</td><td>Avvisad</td></tr>\n<tr><td colspan=\"2\">Antal aktiva fall: 1</td><td colspan=\"2\">Senast körd: 2024-10-11</td></tr>\n</table>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["Vad blir 19 plus 23?"]);
}

#[test]
fn json5_configs_read_as_json_with_their_own_lines() {
    let doc = "// evals\n{\n  cases: [\n    {\n      id: 'sum',\n      prompt: 'What is -7 plus 19?',\n      expect: { tool: 'get-sum', args: { a: -7, b: 19 } },\n      forbid: ['get-stats'],\n    },\n    {\n      id: 'legacy',\n      skip: \"won't do: deprecated\",\n      prompt: 'SHOUT it: hello',\n      expect: { tool: 'legacy-echo' },\n    },\n  ],\n}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (4, 9));
    assert_eq!(d[0].never_called, ["get-stats"]);
}

#[test]
fn code_tables_read_chat_turns_by_speaker_products_and_skip_marks() {
    let go = "func TestRouting(t *testing.T) {\n\ttests := []struct {\n\t\tname   string\n\t\tprompt string\n\t\tturns  []evalkit.Turn\n\t\twant   string\n\t\targs   map[string]any\n\t}{\n\t\t{\n\t\t\tname: \"stats\",\n\t\t\tturns: []evalkit.Turn{\n\t\t\t\tevalkit.User(\"I want stats.\"),\n\t\t\t\tevalkit.Assistant(\"Sure, go ahead.\"),\n\t\t\t\tevalkit.User(\"3, 6, 9\"),\n\t\t\t},\n\t\t\twant: \"get-stats\",\n\t\t},\n\t\t{\n\t\t\tname:   \"large\",\n\t\t\tprompt: \"Give me 64 KiB of filler text\",\n\t\t\twant:   \"large-result\",\n\t\t\targs:   map[string]any{\"size\": 64 * 1024},\n\t\t},\n\t}\n\t_ = tests\n\tt.Fatalf(\"server advertises %d tools, want 12\", 3)\n}\n";
    let d = drafts(go);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["I want stats.", "3, 6, 9"]);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["size"],
        json!(65536)
    );
    let py = "CASES = [\n    pytest.param(\"Who wrote Hamlet?\", None, {}, [], id=\"trivia\"),\n    pytest.param(\n        \"Produce 10 MB of filler text\",\n        \"large-result\",\n        {\"size\": 10_000_000},\n        [],\n        id=\"large\",\n        marks=pytest.mark.skip(reason=\"rejected in review\"),\n    ),\n]\n\n@pytest.mark.parametrize(\"prompt,tool,args,never\", CASES)\ndef test_routing(prompt, tool, args, never):\n    pass\n";
    let d = drafts(py);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0].negative);
}

#[test]
fn asciidoc_sections_literal_blocks_and_bold_labels_read_as_cases() {
    let doc = "= Piano di test\n:toc:\n\n== Casi di test\n\n=== IT-06: conversazione\n\n....\nUtente:     Vorrei lanciare un'operazione lenta.\nAssistente: Quanto deve durare?\nUtente:     Due secondi, in 4 passi.\n....\n\n*Strumento atteso:* `slow` con `durationMs=2000`, `steps=4` +\n*Vietati:* `crash`\n\n=== IT-07: informazioni\n\n*Richiesta:* \"Da quanto tempo è in esecuzione il server?\" +\n*Strumento atteso:* `server-info` +\n*Vietati:* `noop`\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts.len(), 2);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["durationMs"],
        json!(2000)
    );
    assert_eq!(d[1].prompts, ["Da quanto tempo è in esecuzione il server?"]);
    assert_eq!(d[1].never_called, ["noop"]);
}

#[test]
fn a_bare_expected_none_with_nothing_else_expected_is_a_negative() {
    let doc = "* Cases\n** READY general knowledge\n:PROPERTIES:\n:ID:       org-03\n:EXPECT:   none\n:END:\n#+begin_quote\nHow many legs does a spider have?\n#+end_quote\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0].negative);
}

#[test]
fn definition_lists_read_as_labelled_fields() {
    let doc = "# Testfälle\n\n### TF-01 Summe\n\nPrompt\n: „Rechne 19,99 plus 5,01 zusammen.“\n\nErwartung\n: `get-sum` mit a = 19.99 und b = 5.01\n\nVerboten\n: `get-stats` darf nicht aufgerufen werden.\n\n### TF-06 Rückfrage\n\nVerlauf\n: Nutzer: „Starte bitte einen langsamen Testlauf.“\n: Assistent: „Wie lange?“\n: Nutzer: „Eine halbe Sekunde.“\n\nErwartung\n: `slow` mit durationMs = 500\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Rechne 19,99 plus 5,01 zusammen."]);
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert_eq!(d[1].prompts.len(), 2, "{:?}", d[1].prompts);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["durationMs"],
        json!(500)
    );
}

#[test]
fn tools_described_in_the_lexicons_languages_resolve() {
    let doc = "1. «Renvoie : salut» → l'outil d'écho avec le message « salut »\n2. „Summe von 2 und 3“ → das Summen-Werkzeug mit a = 2, b = 3\n3. \"Suma 1 y 2\" → la herramienta de suma con a=1 y b=2\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["message"],
        json!("salut")
    );
    assert_eq!(tools_of(&d[2]), ["get-sum"]);
    assert_eq!(d[2].expected_calls[0].args.as_ref().unwrap()["a"], json!(1));
    // Hausa, its hooked letters typed or not.
    for doc in [
        "1) \"Ga lambobi: 4, 8, 15\" → kayan aikin da ke ƙirga jimla, matsakaici da mafi girma na jerin lambobi\n",
        "1) \"Ga lambobi: 4, 8, 15\" → kayan aikin da ke kirga jimla, matsakaici da mafi girma na jerin lambobi\n",
    ] {
        let d = drafts(doc);
        assert_eq!(d.len(), 1, "{d:#?}");
        assert_eq!(tools_of(&d[0]), ["get-stats"], "{doc}");
    }
    // The lexicon's later languages: demo tools described in their words.
    for (lang, description, tool) in [
        (
            "bg",
            "инструментът, който връща броя, средното, минимума и максимума",
            "get-stats",
        ),
        (
            "mk",
            "алатката што враќа просек, минимум и максимум",
            "get-stats",
        ),
        (
            "be",
            "інструмент, які вяртае колькасць, сярэдняе, мінімум і максімум",
            "get-stats",
        ),
        (
            "be",
            "інструмент, які пералічвае каталог старонка за старонкай",
            "list-items",
        ),
        (
            "hy",
            "գործիքը, որը վերադարձնում է թվերի միջինը և առավելագույնը",
            "get-stats",
        ),
        ("hy", "վիճակագրության գործիք", "get-stats"),
        ("hy", "գործիք, որը սպասում է ուշացումով", "slow"),
        (
            "ka",
            "ხელსაწყო, რომელიც ითვლის საშუალოს, მინიმუმს და მაქსიმუმს",
            "get-stats",
        ),
        ("ka", "ნელი ხელსაწყო", "slow"),
        ("az", "statistika aləti", "get-stats"),
        (
            "az",
            "kataloqu səhifə-səhifə siyahılayan alət",
            "list-items",
        ),
        ("kk", "статистика құралы", "get-stats"),
        ("kk", "орташа мен максимум құралы", "get-stats"),
        (
            "kk",
            "каталогты бет-бетімен тізімдейтін құрал",
            "list-items",
        ),
        ("uz", "o'rtacha va maksimum qiymat vositasi", "get-stats"),
        (
            "uz",
            "katalogni sahifama-sahifa ro'yxatlovchi vosita: keyingi kursorni qaytaradi",
            "list-items",
        ),
        (
            "sq",
            "mjeti që llogarit mesataren, minimumin dhe maksimumin",
            "get-stats",
        ),
        (
            "sq",
            "mjeti që liston katalogun faqe pas faqe",
            "list-items",
        ),
        (
            "mt",
            "l-għodda li tikkalkula l-medja, il-minimu u l-massimu",
            "get-stats",
        ),
        (
            "mt",
            "l-għodda li tħassar oġġett mill-katalgu",
            "delete-item",
        ),
        (
            "cy",
            "offeryn sy'n cyfrifo cyfartaledd, lleiafswm ac uchafswm",
            "get-stats",
        ),
        ("ga", "uirlis staitisticí", "get-stats"),
        (
            "gl",
            "a ferramenta que devolve a media, o mínimo e o máximo",
            "get-stats",
        ),
        (
            "gl",
            "a ferramenta que lista o catálogo páxina a páxina",
            "list-items",
        ),
        ("is", "tölfræðiverkfærið", "get-stats"),
        ("is", "verkfærið fyrir meðaltal og hámark", "get-stats"),
        ("ta", "சராசரி மற்றும் அதிகபட்சம் தரும் கருவி", "get-stats"),
        (
            "ta",
            "பட்டியலிலிருந்து ஒரு உருப்படியை நீக்கும் கருவி",
            "delete-item",
        ),
        ("te", "సగటు మరియు గరిష్ఠ విలువల సాధనం", "get-stats"),
        ("mr", "सरासरी आणि कमाल देणारे टूल", "get-stats"),
        ("kn", "ಸರಾಸರಿ ಮತ್ತು ಗರಿಷ್ಠ ನೀಡುವ ಸಾಧನ", "get-stats"),
        (
            "ml",
            "സംഖ്യകളുടെ ലിസ്റ്റിന്റെ എണ്ണം, തുക, ശരാശരി, പരമാവധി എന്നിവ നൽകുന്ന ഉപകരണം",
            "get-stats",
        ),
        (
            "gu",
            "સંખ્યાઓની યાદીની ગણતરી, સરવાળો, સરેરાશ, લઘુત્તમ અને મહત્તમ આપતું ટૂલ",
            "get-stats",
        ),
        (
            "pa",
            "ਨੰਬਰਾਂ ਦੀ ਸੂਚੀ ਦੀ ਗਿਣਤੀ, ਜੋੜ, ਔਸਤ, ਘੱਟੋ-ਘੱਟ ਅਤੇ ਵੱਧ ਤੋਂ ਵੱਧ ਦੇਣ ਵਾਲਾ ਟੂਲ",
            "get-stats",
        ),
        (
            "si",
            "සංඛ්‍යා ලැයිස්තුවක ගණන, එකතුව, අවම සහ උපරිම ලබා දෙන මෙවලම",
            "get-stats",
        ),
        (
            "km",
            "ឧបករណ៍ដែលរាប់ចំនួន គណនាផលបូក មធ្យម អប្បបរមា និងអតិបរមានៃបញ្ជីលេខ",
            "get-stats",
        ),
        ("lo", "ເຄື່ອງມືຄິດໄລ່ສະເລ່ຍ ແລະ ສູງສຸດ", "get-stats"),
        (
            "my",
            "ဂဏန်းစာရင်း၏ ပေါင်းလဒ်၊ ပျမ်းမျှ၊ အနည်းဆုံးနှင့် အများဆုံးကို ပြန်ပေးသော ကိရိယာ",
            "get-stats",
        ),
        ("mn", "статистикийн хэрэгсэл", "get-stats"),
        (
            "tg",
            "абзоре, ки ҳадди ақал ва ҳадди аксарро медиҳад",
            "get-stats",
        ),
        ("ky", "статистика куралы", "get-stats"),
        ("am", "አማካይ እና ከፍተኛ የሚሰጥ መሳሪያ", "get-stats"),
        ("yo", "irinṣẹ́ àròpín", "get-stats"),
        ("zu", "ithuluzi elinikeza isilinganiso", "get-stats"),
        (
            "so",
            "qalab oo bixiya tirada, wadarta, ugu yar iyo ugu badan",
            "get-stats",
        ),
        ("rw", "igikoresho gitanga impuzandengo", "get-stats"),
        ("ps", "هغه tool چې اوسط او لږترلږه ورکوي", "get-stats"),
        (
            "ckb",
            "ئامرازێک کە کەمترین و زۆرترینی ژمارەکان دەدات",
            "get-stats",
        ),
        (
            "kmr",
            "amûra ku herî kêm û herî mezin a hejmaran dide",
            "get-stats",
        ),
        ("ne", "औसत र अधिकतम दिने टुल", "get-stats"),
        (
            "sw",
            "zana ambayo inarudisha idadi, wastani, kiwango cha chini na kiwango cha juu",
            "get-stats",
        ),
        (
            "sw",
            "zana inayofuta kipengee kutoka kwenye katalogi",
            "delete-item",
        ),
        ("sw", "zana ya polepole", "slow"),
        ("bn", "পরিসংখ্যান টুল", "get-stats"),
        ("bn", "ধীর টুল", "slow"),
        ("ur", "شماریات ٹول", "get-stats"),
    ] {
        let doc = format!("1) \"Ga lambobi: 4, 8, 15\" → {description}\n");
        let d = drafts(&doc);
        assert_eq!(d.len(), 1, "{lang}: {d:#?}");
        assert_eq!(tools_of(&d[0]), [tool], "{lang}: {description}");
    }
}

#[test]
fn yaml_front_matter_holds_the_cases_of_a_page() {
    let doc = "---\ntitle: \"Evals\"\ncasos:\n  - id: suma\n    prompt: \"¿Cuánto es 2,5 más 7,5?\"\n    herramienta: get-sum\n    args: {a: 2.5, b: 7.5}\n  - id: borrar\n    conversacion:\n      - usuario: \"Quiero borrar un artículo\"\n      - asistente: \"¿Cuál?\"\n      - usuario: \"Es el es-1492\"\n    herramienta: delete-item\n  - id: error\n    omitir: \"pendiente: el runner no distingue isError\"\n    prompt: \"Provoca un error de prueba\"\n    herramienta: fail\n---\n\n# Evals\n\nLos casos están arriba.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[1].prompts, ["Quiero borrar un artículo", "Es el es-1492"]);
}

#[test]
fn a_quoted_term_being_defined_is_no_prompt() {
    let doc = "How to read this: when I say the model \"should just answer\", I mean it must not call any tool at all.\n\nCase 1\nThe user asks \"How many days are in a leap year?\". No tool needed, the model should just answer.\n\nCase 2\nThe user writes:\n\"I need the average of these readings: 4.2, 3.9, 5.1\"\nThe model should call get-stats with those numbers. It must not call noop or crash.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d[0].negative);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["numbers"],
        json!([4.2, 3.9, 5.1])
    );
    assert_eq!(d[1].never_called, ["noop", "crash"]);
}

#[test]
fn full_width_item_numbers_part_a_chats_cases() {
    let doc = "王磊  12月3日 15:02\n（写了“不需要调用工具”的就是模型直接回答）\n\n1）“帮我算一下 36 加 64” → 调 get-sum，a=36，b=64，别调 get-stats\n2）“把这句话原样发回来：今晚上线” → echo，message 就是“今晚上线”\n3）“这几天的气温是 18、21、19 度，平均值是多少” → get-stats\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["message"],
        json!("今晚上线")
    );
    assert_eq!(d[2].prompts, ["这几天的气温是 18、21、19 度，平均值是多少"]);
}

#[test]
fn swift_implicit_members_and_a_conversation_in_a_gherkin_doc_string() {
    let swift = "import Testing\n\nstruct RoutingCase {\n    let name: String\n    let turns: [Turn]\n}\n\nextension RoutingCase {\n    static let all: [RoutingCase] = [\n        RoutingCase(\n            name: \"sum\",\n            turns: [.user(\"What is -40 plus -2?\")],\n            expected: \"get-sum\",\n            args: [\"a\": -40, \"b\": -2],\n            forbidden: [\"get-stats\"]\n        ),\n        RoutingCase(\n            name: \"no tool\",\n            turns: [.user(\"How many centimetres are in an inch?\")],\n            expected: nil,\n            args: [:],\n            forbidden: []\n        ),\n        RoutingCase(\n            name: \"pid\",\n            turns: [.user(\"Which process ID is the server?\")],\n            expected: \"server-info\",\n            args: [:],\n            forbidden: []\n        ),\n    ]\n}\n";
    let d = drafts(swift);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].prompts, ["What is -40 plus -2?"]);
    assert!(d[1].negative);
    let feature = "# language: pt\nFuncionalidade: x\n  Cenário: Exclusão\n    Dado o histórico de conversa:\n      \"\"\"\n      usuário: quero excluir um item\n      assistente: Qual é o id?\n      usuário: pt-808\n      \"\"\"\n    Então o assistente deve chamar a ferramenta \"delete-item\" com o id \"pt-808\"\n    Mas não deve chamar a ferramenta \"list-items\"\n\n  @wip\n  Cenário: Erro\n    Quando o usuário pede \"gera um erro com o motivo x\"\n    Então o assistente deve chamar a ferramenta \"fail\"\n";
    let d = drafts(feature);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["quero excluir um item", "pt-808"]);
    assert!(!d[0].negative);
    assert_eq!(d[0].never_called, ["list-items"]);
}

#[test]
fn a_section_of_cases_that_call_no_tool_makes_its_prompts_negative() {
    let doc = "# Demo\n\n### Cases\n\n- `add 2 and 3` → `get-sum` a=2 b=3. never get-stats\n\n### No tool expected\n\nModel should answer on its own, zero tool calls.\n\n- `what does MCP stand for?`\n- `convert 5 miles to km`\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert!(!d[0].negative);
    assert!(d[1].negative && d[2].negative);
    assert_eq!(d[2].prompts, ["convert 5 miles to km"]);
}

#[test]
fn a_tool_that_is_the_subject_of_a_negated_modal_is_forbidden() {
    let doc = "**[7]** The user says \"Repeat after me: the quick brown fox\". The assistant\nshould call echo with message = \"the quick brown fox\". The deprecated\nlegacy-echo, which upper-cases its input, must not be used.\n\n**[8]** The user asks \"What is 2 plus 3?\". The assistant should call get-sum; it must not call get-stats.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
    assert_eq!(d[1].never_called, ["get-stats"]);
}

#[test]
fn a_reply_between_the_quoted_lines_amends_and_drops_cases() {
    let doc = "El lun, 10 feb 2025, Martín <m@ejemplo.es> escribió:\n> 1. «¿Cuánto es 1500 más 320?» → get-sum con a=1500 y b=320.\n>\n> 4. «Haz una tarea lenta de 5 segundos» → slow con durationMs=5000. No debe llamar a crash.\n\nEste lo cambiaría: mejor «Haz una tarea lenta de 2 segundos» → slow con durationMs=2000.\n\n> 8. «Genérame 10 MB de texto» → large-result con size=10000000.\n\nEste lo quitamos, se come el contexto.\n\n> Un saludo,\n> Martín\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[1].prompts, ["Haz una tarea lenta de 2 segundos"]);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["durationMs"],
        json!(2000)
    );
    assert_eq!(d[1].start_line, 4);
}

#[test]
fn a_sheet_converted_to_markdown_keeps_its_header_under_the_title_row() {
    let doc = "## Casi\n| Piano di test | Unnamed: 1 | Unnamed: 2 | Unnamed: 3 |\n| --- | --- | --- | --- |\n| NaN | NaN | NaN | NaN |\n| ID | Richiesta dell'utente | Strumento atteso | Argomenti |\n| IT-01 | Quanto fa 45 + 55? | get-sum | a=45; b=55 |\n| IT-05 | Utente: Puoi simulare un errore? Assistente: Con quale motivo? Utente: prova | fail | reason=\"prova\" |\n| NaN | NaN | NaN | NaN |\n| Totale casi: 2 | NaN | NaN | NaN |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[1].prompts, ["Puoi simulare un errore?", "prova"]);
}

#[test]
fn a_conversation_takes_the_expectations_written_under_it() {
    let doc = "### 5.2 Catalogue\n\n**[4]** The user asks \"Show me the first ten products.\" The assistant should call list-items with pageSize = 10.\n\n**[5]** The second case is a short conversation:\n\n> User: \"Show me what's in the catalogue.\"\n> Assistant: \"Here are 5 items; the next cursor is pg-2.\"\n> User: \"Next page, same size please.\"\n\nAfter the last message the assistant should call list-items with cursor =\n\"pg-2\" and pageSize = 5.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[1].prompts.len(), 2);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["cursor"],
        json!("pg-2")
    );
}

#[test]
fn a_rule_stated_once_for_a_section_holds_for_each_of_its_cases() {
    let doc = "## 5.2 Catalogue\n\nNo case in this section may call the crash tool, and, apart from case [6],\ndelete-item must not be used either.\n\n**[4]** The user asks \"Show me the first ten products.\" The assistant should call list-items with pageSize = 10.\n\n**[6]** The user writes \"Please remove item SKU-0042.\" The assistant should call delete-item with id = \"SKU-0042\".\n\n## 2. 카탈로그 도구\n\n**공통 금지: `delete-item`**\n\n| 번호 | 사용자 입력 | 기대 동작 | 추가 금지 |\n|---|---|---|---|\n| 2-1 | \"카탈로그 첫 페이지 보여줘\" | list-items 호출 (pageSize=7) | - |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].never_called, ["delete-item", "crash"]);
    // The rule's exception is the case that calls the tool itself.
    assert_eq!(d[1].never_called, ["crash"]);
    assert_eq!(d[2].never_called, ["delete-item"]);
}

#[test]
fn a_heading_that_names_a_tool_is_what_its_cases_expect() {
    let doc = "# 체크리스트\n\n## get-sum\n\n- [x] \"1500 더하기 2700은 얼마야?\"\n  - 인자: a=1500, b=2700\n  - 금지: get-stats\n\n## echo\n\n- [ ] \"hello back please\"\n  - 금지: legacy-echo\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(2700)
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn elixir_and_spock_tests_read_as_cases() {
    let exs = "defmodule DemoEvals.RoutingTest do\n  @moduledoc \"\"\"\n  Every test is one case; tests tagged :skip are not run.\n  \"\"\"\n  use ExUnit.Case\n\n  describe \"routing\" do\n    test \"adds\" do\n      result = ask(\"Add 77 and 23 for me, please.\")\n      assert_called result, \"get-sum\", %{\"a\" => 77, \"b\" => 23}\n      refute_called result, \"get-stats\"\n    end\n\n    test \"art question\" do\n      result = ask(\"Who painted The Starry Night?\")\n      assert_no_tool_calls result\n    end\n\n    test \"delete\" do\n      result = converse(user: \"Remove something.\", assistant: \"Which id?\", user: \"ex-4410\")\n      assert_called result, \"delete-item\", %{\"id\" => \"ex-4410\"}\n    end\n  end\nend\n";
    let d = drafts(exs);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
    assert_eq!(d[2].prompts, ["Remove something.", "ex-4410"]);
    let spock = "import spock.lang.Specification\n\nclass RoutingSpec extends Specification {\n    static final String NO_TOOL = null\n\n    def \"routes a prompt\"() {\n        when:\n        def run = client.ask(prompt)\n\n        then:\n        run.called(tool, args)\n\n        where:\n        prompt                      | tool      | args              || forbidden\n        'What is 13.5 plus 6.5?'    | 'get-sum' | [a: 13.5, b: 6.5] || ['get-stats']\n        'How many minutes in a day?' | NO_TOOL  | [:]               || []\n        'Echo back: alive'          | 'echo'    | [message: 'alive'] || ['legacy-echo']\n    }\n}\n";
    let d = drafts(spock);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(13.5)
    );
    assert!(d[1].negative);
}

#[test]
fn a_negated_call_check_in_code_forbids_whatever_the_variable_is_named() {
    let spock = "import spock.lang.Specification\n\nclass RoutingSpec extends Specification {\n    def \"asks how long before running a slow job\"() {\n        when:\n        def outcome = client.converse(user('Start a slow job'), assistant('How long?'), user('Two seconds'))\n\n        then:\n        outcome.called('slow', [durationMs: 2000])\n        !outcome.called('crash')\n    }\n}\n";
    let d = drafts(spock);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["slow"]);
    assert_eq!(d[0].never_called, ["crash"]);
}

#[test]
fn a_manual_script_reads_what_each_step_has_the_tester_type() {
    // Set-up and legend blocks use the same step lines and are no cases; a removed
    // script is none either.
    let doc = "PREPARATION (not a test)\nSchritt 1: Server starten.\nSchritt 2: Im Chat \"hallo\" senden.\nPrüfen: the tools list shows echo and get-sum\n\nCHECK 1 - Addition\nSchritt 1: Neuen Chat öffnen.\nSchritt 2: Eingeben: Was ergibt 40 plus 2?\nPrüfen: get-sum is called with a=40, b=2.\nPrüfen: get-stats is NOT called.\n\nCHECK 2 - Which item\nStep 1: Enter: Remove one product, please.\nStep 2: The assistant asks which product.\nStep 3: Enter: The one called ab-77.\nVerify: calls delete-item with id=\"ab-77\".\n\nCHECK 3 - Crash (REMOVED, kills the transport)\nStep 1: Type: Crash the server now.\nVerify: calls crash.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Was ergibt 40 plus 2?"]);
    assert_eq!(d[0].title, "CHECK 1 - Addition");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(2));
    assert_eq!(d[0].never_called, ["get-stats"]);
    // The assistant's side is no turn of the user's.
    assert_eq!(
        d[1].prompts,
        ["Remove one product, please.", "The one called ab-77."]
    );
    assert_eq!(tools_of(&d[1]), ["delete-item"]);
}

#[test]
fn a_lowercase_forbidden_label_after_a_sentence_and_a_case_key_with_a_note() {
    let doc = "### Kept\n\n- K1 \"What is 3 plus 4?\" → `get-sum` with a=3, b=4. never: get-stats\n- K2 (multi-turn):\n  - user: \"Show the catalogue\"\n  - assistant: \"How many per page?\"\n  - user: \"Five.\"\n  → `list-items` with pageSize 5. never: delete-item\n- K3 (previously \"stats please\") is now: \"Mean and max of 2, 4, 9\" → `get-stats`. never: get-sum\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(4));
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert_eq!(d[1].prompts.len(), 2);
    assert_eq!(d[1].never_called, ["delete-item"]);
    // The earlier wording is not the prompt.
    assert_eq!(d[2].prompts, ["Mean and max of 2, 4, 9"]);
    assert_eq!(d[2].never_called, ["get-sum"]);
}

#[test]
fn a_sign_up_legend_and_a_refused_scenario_are_no_cases() {
    let doc = "Para cada caso, indique:\n  Mensaje: lo que escribe el usuario\n  Esperado: la herramienta, o «ninguna herramienta»\n\nTURNO 10:00\n  Mensaje: «Rompe el servidor»\n  Esperado: crash\n  → Rechazada (Ana): corta la conexión de todos.\n  Mensaje: «Suma 5 y 6, por favor»\n  Esperado: get-sum, a = 5, b = 6\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["Suma 5 y 6, por favor"]);
}

#[test]
fn a_note_that_changes_a_case_by_its_key_amends_it() {
    let doc = "| ID | Prompt | Tool | Args |\n|---|---|---|---|\n| QA-01 | Add 1 and 2 | get-sum | a=1, b=2 |\n| QA-02 | Run a slow job for 9 seconds | slow | durationMs=9000 |\n\n> Review: QA-02 changed to \"Run a slow job for 3 seconds\", durationMs=3000, and it must not call crash.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[1].prompts, ["Run a slow job for 3 seconds"]);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["durationMs"],
        json!(3000)
    );
    assert_eq!(d[1].never_called, ["crash"]);
    assert_eq!((d[1].start_line, d[1].end_line), (4, 6));
}

#[test]
fn han_numbered_outline_sections_and_their_items() {
    let doc = "一、目的\n\n验证工具选择。\n\n二、用例\n\n（一）计算\n\n1. 用户输入“把 3 和 4 加起来”，应调用 get-sum，参数 a=3、b=4。\n2. 多轮对话：\n   用户：“看看商品”\n   助手：“每页几条？”\n   用户：“5 条”\n   应调用 list-items，pageSize=5。\n\n三、暂不纳入\n\n1. 慢任务用例：用户输入“跑 60 秒的慢任务”，先不加。\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[1].prompts.len(), 2);
    assert_eq!(tools_of(&d[1]), ["list-items"]);
}

#[test]
fn numbers_written_with_a_decimal_comma_read_as_the_writer_means_them() {
    let doc = "## Fälle\n\n- Nutzer: „Was ist 2.400 plus 600?“\n  Erwartet: `get-sum`, a = 2.400, b = 600\n- Nutzer: „Mittelwert von 1,5; 2,5 und 9“\n  Erwartet: `get-stats`, numbers = [1,5; 2,5; 9]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(2400)
    );
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["numbers"],
        json!([1.5, 2.5, 9])
    );
    // A document with decimal points keeps them.
    let d = drafts(
        "- \"Add 1.250 and 2\" → get-sum with a = 1.250, b = 2\n- \"Add 2.5 and 3.75\" → get-sum with a = 2.5, b = 3.75\n",
    );
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(1.25)
    );
}

#[test]
fn tools_described_in_the_writers_language_resolve_by_what_they_do() {
    let doc = "○ (항목 1) 덧셈\n  - 사용자 입력: “7 더하기 8은?”\n  - 기대 동작: 두 수를 더해 합을 돌려주는 도구 호출 (a = 7, b = 8)\n  - 호출 금지: 숫자 목록의 평균·최솟값·최댓값을 구하는 도구\n○ (항목 2) 그대로\n  - 사용자 입력: “그대로 말해줘: 안녕”\n  - 기대 동작: 메시지를 바꾸지 않고 그대로 돌려주는 도구 호출\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
    // A word that only happens to mean a tool's name, in a sentence about tools, is none.
    let d = drafts("Ce document liste les outils que le modèle ne doit pas appeler.\n");
    assert!(d.is_empty(), "{d:#?}");
}

#[test]
fn slides_pasted_without_blank_lines_are_one_case_each() {
    let doc = "ツール選択の評価（定例）\n作成：田中\n\nスライド 1\tケースの見方\n\t入力：ユーザーの発話\n\t期待：呼ぶツール\nスライド 2\tケース1：足し算\n\t入力：「2と3を足して」\n\t期待：get-sum（a = 2、b = 3）\nスライド 3\tケース2：雑談\n\t入力：「今日は何曜日？」\n\t期待：ツール呼び出しなし\n【ノート】雑談のケース。\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (7, 9));
    assert!(d[1].negative);
    assert_eq!((d[1].start_line, d[1].end_line), (10, 13));
}

#[test]
fn doctest_examples_in_a_page_read_as_cases() {
    let doc = "Sums\n----\n\n    >>> r = ask(\"Add 3 and 4\")\n    >>> r.tools\n    ['get-sum']\n    >>> r.args('get-sum')\n    {'a': 3, 'b': 4}\n    >>> 'get-stats' in r.tools\n    False\n\nSkipped\n-------\n\n    >>> r = ask(\"Crash it\")  # doctest: +SKIP\n    >>> r.tools  # doctest: +SKIP\n    ['crash']\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(4));
    assert_eq!(d[0].never_called, ["get-stats"]);
}

#[test]
fn a_table_drawn_with_box_characters_reads_row_by_row() {
    let doc = "┌────┬──────────────────┬─────────┐\n│ ID │ Prompt           │ Tool    │\n├────┼──────────────────┼─────────┤\n│ B1 │ \"Add 4 and 5,    │ get-sum │\n│    │ please\"          │         │\n├────┼──────────────────┼─────────┤\n│ B2 │ \"Hello there\"    │ none    │\n└────┴──────────────────┴─────────┘\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (4, 5));
    assert_eq!(d[0].prompts, ["Add 4 and 5, please"]);
    assert!(d[1].negative);
}

#[test]
fn cases_grouped_by_tool_or_keyed_by_id_in_hand_written_files() {
    let yaml = "serveur: demo\nget-sum:\n  - dit: \"Combien font 2 et 3 ?\"\n    args: {a: 2, b: 3}\necho:\n  - dit: \"Répète : bonjour\"\n    interdits: [legacy-echo]\naucun_outil:\n  - dit: \"Quelle heure est-il à Lima ?\"\n";
    let d = drafts(yaml);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[1].never_called, ["legacy-echo"]);
    assert!(d[2].negative);
    let json = "{\n  \"_readme\": \"one entry per case; a leading underscore switches a case off\",\n  \"sum\": {\"say\": \"add 1 and 2\", \"call\": \"get-sum\", \"not\": [\"get-stats\"]},\n  \"_crash\": {\"say\": \"crash now\", \"call\": \"crash\"},\n  \"chat\": {\"say\": \"how are you?\", \"call\": null}\n}\n";
    let d = drafts(json);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
}

#[test]
fn a_tool_field_may_describe_the_tool_instead_of_naming_it() {
    let doc = "> **Usuario:** «Repíteme: hola»\n> **Espera:** el eco normal, con message = «hola».\n> **Prohibido:** el eco viejo.\n\n> **Usuario:** «Borra el artículo a-1»\n> **Espera:** la que borra, con id = «a-1».\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
    assert_eq!(tools_of(&d[1]), ["delete-item"]);
}

#[test]
fn an_outlook_thread_reads_the_plan_under_its_headers() {
    let doc = "Von:\tAnna <a@example.de>\nGesendet:\tMittwoch, 6. November 2024 11:32\nAn:\tBen <b@example.de>\nBetreff:\tAW: Testfälle\n\nHallo Ben,\n\nkurz zur Schreibweise:\n- „Nutzer:“ ist die Nachricht.\n- „Erwartet:“ ist das Tool.\n\nFall 1 – Addition\nNutzer: „Was ergibt 1.250,5 plus 249,5?“\nErwartet: get-sum mit a = 1.250,5 und b = 249,5.\n\nFall 2 – Wissen\nNutzer: „Wie lang ist der Rhein?“\nErwartet: kein Tool.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(1250.5)
    );
    assert!(d[1].negative);
    // Commas between thousands in a document with decimal points.
    let d = drafts("- \"What is 1,024 plus 2.5?\" → get-sum with a = 1,024, b = 2.5\n");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(1024)
    );
}

#[test]
fn a_mediawiki_row_written_one_cell_a_line_spans_its_lines() {
    let doc = "== Cases ==\n{| class=\"wikitable\"\n! ID !! Prompt !! Tool\n|-\n| W1\n| \"Add 2 and 9\"\n| get-sum\n|-\n| W2 || \"Tell me a joke\" || none\n|}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    // (The `|-` line is the rule between rows, no part of either.)
    assert_eq!((d[0].start_line, d[0].end_line), (5, 7));
    assert_eq!((d[1].start_line, d[1].end_line), (9, 9));
    assert!(d[1].negative);
}

#[test]
fn keys_written_as_clauses_anchors_and_arguments_per_tool() {
    // A home-made harness: German keys that say what to do, a template anchored for reuse.
    let doc = "basis: &basis\n  eingabe: \"Platzhalter\"\nfaelle:\n  - id: A1\n    eingabe: \"Wie viel ist 3 plus 4, und sag hallo\"\n    muss_aufrufen: [get-sum, echo]\n    argumente:\n      get-sum: {a: 3, b: 4}\n      echo: {message: hallo}\n    nicht_aufrufen: [get-stats]\n  - id: A2\n    eingabe: \"Erzähl mir einen Witz\"\n    ohne_tools: true\n  - id: A3\n    aktiv: false\n    eingabe: \"Lösche alles\"\n    muss_aufrufen: [delete-item]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum", "echo"]);
    assert_eq!(
        d[0].expected_calls[0].args,
        Some(json!({"a": 3, "b": 4}).as_object().unwrap().clone())
    );
    assert_eq!(
        d[0].expected_calls[1].args,
        Some(json!({"message": "hallo"}).as_object().unwrap().clone())
    );
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
}

#[test]
fn a_formal_spec_with_glossed_labels_and_a_template_section() {
    let doc = "# Routing spec\n\n## Template\n- **Input (what the user types):** \"<utterance>\"\n- **Expected Tool Invocation:** <tool>\n\n## Cases\n\n### C-1 List\n- **Input (what the user types):** \"List the first 5 items\"\n- **Expected Tool Invocation:** `list-items`\n- **Expected Arguments:** pageSize = 5 (a cursor is not given)\n- **Prohibited Tool Invocations:** `delete-item`\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["List the first 5 items"]);
    assert_eq!(
        d[0].expected_calls[0].args,
        Some(json!({"pageSize": 5}).as_object().unwrap().clone())
    );
    assert_eq!(d[0].never_called, ["delete-item"]);
}

#[test]
fn one_line_cases_with_fat_arrows_and_bangs() {
    let doc = "layout: id \"prompt\" => tool(args) !forbidden\n\nadd    \"12 + 30?\"             => get-sum(a=12, b=30)  !get-stats\nchat   \"how are you\"          => none\nconv   u:\"remove one\"  a:\"which?\"  u:\"itm-9\"\n       => delete-item(id=\"itm-9\")  !list-items\n\ndropped for now:\nboom   \"crash it\"             => crash()\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].prompts, ["12 + 30?"]);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
    assert_eq!((d[2].start_line, d[2].end_line), (5, 6));
    assert_eq!(tools_of(&d[2]), ["delete-item"]);
    assert_eq!(d[2].never_called, ["list-items"]);
}

#[test]
fn a_page_pasted_as_plain_text_with_a_table_one_cell_a_line() {
    let doc = "Cases\nID\nUser prompt\nExpected tool\nDo not call\nStatus\nC-1\nAdd 4 and 5\nget-sum\nget-stats\nReady\nC-2\nWipe item 7\ndelete-item\n—\nRejected\n\nRejected ideas\nC-3 was rejected in review: \"Crash the server now\" is too risky.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (7, 11));
    assert_eq!(d[0].prompts, ["Add 4 and 5"]);
    assert_eq!(d[0].never_called, ["get-stats"]);
}

#[test]
fn a_pull_request_thread_reads_its_hunk_and_the_replies_that_put_proposals_off() {
    let doc = "Add evals #12\n\n@@ -0,0 +1,6 @@\n+## S-1 sum\n+prompt: \"What is 4 plus 9?\"\n+expect: get-sum a=4 b=9\n+\n+## S-2 chat\n+prompt: \"Tell me a joke\"\n+expect: no tool\n\nana reviewed 2 days ago\n  +prompt: \"What is 4 plus 9?\"\n\nana 2 days ago\nCould we add \"Show me the stats of 1, 2 and 3\" -> get-stats too?\n\nbo 1 day ago\nwill do in next PR, this one is big enough\n\nana 1 day ago\nAnd \"Echo back: done\" -> echo please\n\nbo 1 day ago\nadded\n";
    let d = drafts(doc);
    let spans: Vec<(usize, usize)> = d.iter().map(|d| (d.start_line, d.end_line)).collect();
    assert_eq!(spans, [(4, 6), (8, 10), (21, 22)], "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args,
        Some(json!({"a": 4, "b": 9}).as_object().unwrap().clone())
    );
    assert!(d[1].negative);
    assert_eq!(tools_of(&d[2]), ["echo"]);
}

#[test]
fn mail_threads_newest_on_top_and_a_quoted_draft_below_a_blank_line() {
    // Outlook: the reply above drops case 2 of the message quoted under the separator.
    let doc = "Hi,\n\nCase 2 (the crash one) we drop, too risky.\n\nBest\n\n________________________________\nFrom: Ana <ana@example.com>\nSent: Monday 10:02\nTo: Bo <bo@example.com>\nSubject: cases\n\nCase 1: \"What is 5 plus 6?\" → get-sum\nCase 2: \"Crash the server\" → crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    // Gmail: the new list replaces the draft quoted under its attribution.
    let doc = "Here is the final list:\n\n1. \"Echo back: ok\" → echo\n\nOn Mon, 2 Jun 2025 at 18:12, Bo <bo@example.com> wrote:\n\n> 1. \"Echo back: ok\" → legacy-echo\n> 2. \"Crash it\" → crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
}

#[test]
fn a_sheet_whose_blank_cells_mean_the_same_as_above() {
    let doc = "Note: merged cells were exported blank; a blank cell means the same as above.\t\t\t\nID\tPrompt\tExpected tool\tForbidden\tRemark\nA1\tAdd 1 and 2\tget-sum\tget-stats\t\nA2\tAdd 3 and 4\t\t\t\nA3\tHow are you?\tnone\t\t\nA4\tAnd today?\t\t\t\nA5\tAdd 5 and 6\tget-sum\t\tDROPPED: we ran out of time to wire the sandbox for this one, maybe in the next release\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 4, "{d:#?}");
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
    assert_eq!(d[1].never_called, ["get-stats"]);
    assert!(d[3].negative);
}

#[test]
fn a_sheets_section_rows_and_a_checklist_whose_cross_is_a_failed_run() {
    let doc = "ID,Prompt,Expected tool,Owner\n,MATHS,,\nM-1,Add 2 and 2,get-sum,ana\nM-2,Who painted the Mona Lisa?,no tool,bo\n,ECHO,,\nE-1,Echo back: hi,echo,ana\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert!(d[1].negative);
    assert_eq!((d[1].start_line, d[1].end_line), (4, 4));
    // The legend makes a cross a failed run: the case stays, and a heading that says
    // "delete" drops nothing.
    let doc = "# Checklist\n\nLegend: ✅ pass · ❌ fail · 🚫 excluded\n\n## 1. Sums\n\n✅ **C-1** \"Add 2 and 3\"\n   → `get-sum`\n\n❌ **C-2** \"Add 5 and 8\"\n   → `get-sum`\n\n## 2. Create and delete\n\n✅ **C-3** \"Echo back: hi\"\n   → `echo`\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[1].prompts, ["Add 5 and 8"]);
}

#[test]
fn org_entries_indented_under_their_headings_with_quoted_prompts() {
    let doc = "#+TITLE: Cases\n#+TODO: TODO | DONE CANCELLED\n\n* Cases\n** DONE Sum\n   :PROPERTIES:\n   :TOOL:     get-sum\n   :END:\n   \"Add 4 and 9\"\n   → a 4, b 9\n** TODO Chat\n   \"What is a monad?\" – just explain, no tools at all.\n** CANCELLED Crash\n   \"Crash it\"\n   → crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (5, 10));
    assert_eq!(
        d[0].expected_calls[0].args,
        Some(json!({"a": 4, "b": 9}).as_object().unwrap().clone())
    );
    assert_eq!(d[1].prompts, ["What is a monad?"]);
    assert!(d[1].negative);
}

#[test]
fn a_repeated_proposal_a_set_aside_section_and_a_reply_that_rejects() {
    let doc = "## Cases\n\n- [ ] \"Add 2 and 9\" → get-sum\n- [ ] \"Echo back: hi\" → echo\n\n**ana** commented\n\nCould we have \"Add 2 and 9\" → get-sum? It keeps guessing.\n\n## Casos descartados\n\n- \"Crash it now\" → crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (3, 3));
    let doc = "Ana  09:20\ncase 1: \"Add 2 and 9\" → get-sum\n\nBo  09:25\ncase 2: \"Delete every item\" → delete-item\n\nAna  09:31\nnot this one, too destructive even in the sandbox\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_wiki_page_with_a_table_of_cases_and_more_cases_in_prose_below() {
    let doc = "<html><body>\n<h2>Cases</h2>\n<table>\n<tr><th>ID</th><th>Prompt</th><th>Expected tool</th></tr>\n<tr><td>C-1</td><td>Add 2 and 5</td><td>get-sum</td></tr>\n</table>\n<details open>\n<summary>Added after the retro</summary>\n<p><strong>C-2.</strong> The user says: <q>Echo back: ready</q>. Expected: <code>echo</code>.</p>\n<p><strong>C-3.</strong> The user says: <q>Tell me a joke</q>. Expected: no tool at all.</p>\n</details>\n<details>\n<summary>Rejected cases</summary>\n<p>C-X: <q>Crash the server</q> → crash</p>\n</details>\n</body></html>\n";
    assert_eq!(
        outline(doc),
        [
            (5, 5, false, vec!["get-sum".to_string()]),
            (9, 9, false, vec!["echo".to_string()]),
            (10, 10, true, vec![])
        ]
    );
}

#[test]
fn an_amendment_log_that_deletes_and_replaces_cases_by_their_number() {
    let doc = "## Cases\n\n### Case 1 sum\nPrompt: \"Add 2 and 3\"\nExpected: get-sum\n\n### Case 2 stats\nPrompt: \"Stats of 1, 2, 3\"\nExpected: get-stats\n\n### Case 3 echo\nPrompt: \"Echo back: hi\"\nExpected: echo\n\n## Changes\n\n1. Case 2 deleted, the sandbox cannot run it.\n2. Replace case 3 with:\n   Prompt: \"Echo back: bye\"\n   Expected: echo\n";
    let d = drafts(doc);
    let prompts: Vec<&str> = d.iter().map(|d| d.prompts[0].as_str()).collect();
    assert_eq!(prompts, ["Add 2 and 3", "Echo back: bye"], "{d:#?}");
    // A correction names the case it replaces.
    let doc = "Plan\n\nTC-01: \"What is 2 plus 3?\" -> get-sum\nTC-02: \"Say hi back to me\" -> echo\n\nCorrection for TC-01: \"Give me the mean of 2 and 3\" -> get-stats\n";
    let d = drafts(doc);
    let prompts: Vec<&str> = d.iter().map(|d| d.prompts[0].as_str()).collect();
    assert_eq!(
        prompts,
        ["Say hi back to me", "Give me the mean of 2 and 3"],
        "{d:#?}"
    );
}

#[test]
fn cases_nested_under_a_decision_item_each_stand_alone() {
    let doc = "## Decisions\n\n1. The eval set is the following (\"no tool\" means answer without any tool):\n   - **C-1 Sum**: \"Add 2 and 3\" → `get-sum`\n   - **C-2 Trivia**: \"Who wrote Dune?\" → no tool\n   - **C-3 Catalog (multi-turn)**:\n     - user: \"Show me the catalog\"\n     - assistant: \"How many per page?\"\n     - user: \"Four, please\"\n     - → `list-items` (pageSize=4)\n2. We meet again on Friday.\n";
    let d = drafts(doc);
    let spans: Vec<(usize, usize)> = d.iter().map(|d| (d.start_line, d.end_line)).collect();
    assert_eq!(spans, [(4, 4), (5, 5), (6, 10)], "{d:#?}");
    assert!(!d[0].negative);
    assert!(d[1].negative);
    assert_eq!(tools_of(&d[2]), ["list-items"]);
}

#[test]
fn a_tool_whose_call_fails_the_case_is_forbidden() {
    let doc = "### E-1 echo\nPrompt: \"Say back: ok\"\nExpected: echo with message \"ok\". If legacy-echo is called, the case fails.\n\n### E-2 Summe\nPrompt: \"Addiere 2 und 3\"\nErwartet: get-sum. Wenn get-stats aufgerufen wird, schlägt der Fall fehl.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
    assert_eq!(d[1].never_called, ["get-stats"]);
}

#[test]
fn idea_and_run_log_sections_hold_no_case() {
    let doc = "# Notes\n\n## Cases\n- \"Add 2 and 3\" → `get-sum`\n\n## Ideas\n- \"Delete item 42\" → `delete-item`?\n\n## Run log\n- \"Add 2 and 3\" → called get-stats instead 🙃\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
}

#[test]
fn japanese_arguments_given_with_ni() {
    let doc = "- **C-1 足し算**：入力「250と750を足して」→ `get-sum`（a に 250、b に 750）\n- **C-2 雑談**：入力「元気？」→ ツールなし\n";
    let d = drafts(doc);
    assert_eq!(
        d[0].expected_calls[0].args,
        Some(json!({"a": 250, "b": 750}).as_object().unwrap().clone())
    );
}

#[test]
fn a_name_joined_to_a_noun_and_a_numbered_question_that_drops_itself() {
    let doc = "K-1 Summe\nWenn jemand fragt „Was ist 2 plus 3?“, erwarten wir einen get-sum-Aufruf mit a=2 und b=3.\n\nK-2 Echo\nBei „Sag hallo zurück“ erwarten wir einen echo-Aufruf.\n\nOffene Fragen\n1. Sollen wir auch crash testen? → Nein, gestrichen.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_legend_arrow_for_what_is_not_called_and_an_older_message_quoted_under_its_headers() {
    let doc = "legend: -> expected call, !> must NOT call\n\n[x] p: \"Add 2 and 3\" -> get-sum(a=2, b=3) !> get-stats\n";
    let d = drafts(doc);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["get-stats"]);
    let doc = "Hi,\n\n1. \"Echo back: ok\" → echo\n\nBo\n\n-----Original Message-----\nFrom: Ana <ana@example.com>\nSent: Monday\nTo: Bo <bo@example.com>\nSubject: cases\n\n> 1. \"Crash it\" → crash\n> 2. \"Add 1 and 1\" → get-sum\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
}

#[test]
fn a_sheets_note_row_and_a_korean_must_not() {
    let doc = "ID,Prompt,Expected tool,Owner\nA-1,Add 2 and 3,get-sum,ana\nNOTE: rows marked DROPPED are not run; exported from the sheet \"Evals store\" on 11/06,,,\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    let doc =
        "1. \"안녕이라고 그대로 말해줘\"\n   → echo. 이 경우 legacy-echo 를 부르면 안 됩니다.\n";
    let d = drafts(doc);
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
}

#[test]
fn fields_under_a_conversation_keep_their_roles() {
    let doc = "Case 7\n\n::\n\n   user: Move the log file to the archive.\n   assistant: Which file?\n   user: logs/a.log\n\n:Expected tool: echo\n:Forbidden: get-sum, get-stats\n:Status: ready\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["get-sum", "get-stats"]);
}

#[test]
fn a_tool_described_after_the_arrow_of_a_quoted_prompt() {
    let doc = "- \"Give me the mean of 3, 5 and 7\"\n  → the statistics tool: numbers `[3, 5, 7]`\n- \"Thanks, that's all\" → just a polite goodbye\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-stats"]);
}

#[test]
fn a_label_with_a_call_verb_and_more_is_no_tool_field() {
    assert_eq!(
        crate::service::authoring::lexicon::label_role("Used by"),
        None
    );
    assert_eq!(
        crate::service::authoring::lexicon::label_role("muss_aufrufen"),
        Some(crate::service::authoring::lexicon::LabelRole::Tool)
    );
}

#[test]
fn a_trackers_json_cards_are_read_as_pages_and_a_cancelled_card_is_none() {
    // Each card's description is Markdown with labels set as bold lines; a card's `state`
    // object (`{"name": "Backlog"}`) holds no case and sets nothing apart.
    let doc = r#"{"board": {"cards": [
  {"key": "QA-1", "title": "Sum check", "state": {"name": "Backlog"},
   "body": "**Prompt**\n> how much is 20 plus 22\n\n**Expected**\n`get-sum` a=20, b=22"},
  {"key": "QA-2", "title": "Greeting", "state": {"name": "Backlog"},
   "body": "Asked: *say hello back to me*\n\nShould use echo, message hello"},
  {"key": "QA-3", "title": "Crash it", "state": {"name": "Won't do"},
   "body": "**Prompt**\n> bring the server down\n\n**Expected**\n`crash`"},
  {"key": "QA-4", "title": "Bump deps", "state": {"name": "Done"},
   "body": "Chore: update the lockfile.\n\n- [x] cargo update"}
]}}"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["how much is 20 plus 22"]);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(22)
    );
    assert_eq!(d[1].prompts, ["say hello back to me"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn labels_set_as_subheadings_or_bold_lines_head_their_values() {
    let doc = "## T1 numbers\n\n### Input\nAdd 5 and 6.\n\n### Expected tool\nget-sum with a=5, b=6\n\n## T2 chat\n\n__Prompt__\n\nTell me a joke\n\n**Expected:**\n\nNo tool, just a joke.\n\n## Expected results\n\nAll green.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Add 5 and 6."]);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[1].prompts, ["Tell me a joke"]);
    assert!(d[1].negative);
}

#[test]
fn case_literals_in_a_pages_code_blocks_are_cases_and_run_results_drop_none() {
    let doc = "# Evals\n\nCases live in the list below.\n\n```py\ncases = [\n    {\"id\": \"e1\", \"prompt\": \"Echo the word banana\", \"tool\": \"echo\"},\n    {\"id\": \"e2\", \"prompt\": \"Is water wet?\", \"tool\": None},\n]\n```\n\nLater:\n\n```python\ncases.append({\"id\": \"e3\", \"prompt\": \"Sum 8 and 9\", \"tool\": \"get-sum\"})\n```\n\n## Last run\n\n| id | result |\n|---|---|\n| e1 | ✅ |\n| e2 | ❌ |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert!(d[1].negative);
    assert_eq!(tools_of(&d[2]), ["get-sum"]);
    assert_eq!((d[2].start_line, d[2].end_line), (15, 15));
}

#[test]
fn a_paragraph_of_expectations_belongs_to_the_prompt_above_it() {
    let doc = "Input: Add 5 and 6.\n\nExpected tool: get-sum with a=5, b=6\n\nInput: Say hi to me\n\nExpected: echo\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (1, 3));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_sphinx_spec_reads_its_fields_code_blocks_and_admonitions() {
    // A template in a note (to copy, not to run), a JSON code block under an empty
    // `:Args:` field, RST's double-backtick values, and a to-do that is no case yet.
    let doc = "Spec\n====\n\n.. note::\n\n   Template (copy it, do not run):\n\n   :Prompt: \"echo something\"\n   :Tool: ``echo``\n\nS-1 sum\n-------\n\n:Prompt: \"add two numbers for me, 3 and 4\"\n:Tool: ``get-sum``\n:Args:\n\n   .. code-block:: json\n\n      {\"a\": 3, \"b\": 4}\n\nS-2 echo\n--------\n\n:Prompt: \"repeat the word kiwi\"\n:Tool: ``echo``\n:Args: ``message`` = ``kiwi``\n\nS-3 chat\n--------\n\n:Prompt: \"what's the capital of Peru?\"\n:Expected: réponse directe, aucun appel d'outil.\n\n.. todo::\n\n   S-4: \"crash the server\" with ``crash``, later.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(4));
    assert_eq!(d[0].end_line, 21);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["message"],
        json!("kiwi")
    );
    assert!(d[2].negative);
}

#[test]
fn arguments_go_to_the_tool_whose_parameters_they_name() {
    let doc = "Prompt: \"average 2, 4 and 9, then say it back\"\nTools: get-stats, then echo\nArgs: message = done\n";
    let d = drafts(doc);
    assert_eq!(tools_of(&d[0]), ["get-stats", "echo"]);
    assert_eq!(d[0].expected_calls[0].args, None);
    assert_eq!(
        d[0].expected_calls[1].args.as_ref().unwrap()["message"],
        json!("done")
    );
}

#[test]
fn a_quoted_label_name_is_no_prompt() {
    // The intro names the fields it uses; it proposes no case.
    let doc = "Each case has a « Message » and a « À ne pas appeler » line, and the model must answer without calling d'outil when no tool fits.\n\nMessage : « additionne 2 et 3 »\nAttendu : get-sum\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_bug_reports_narrative_is_no_case_but_its_regression_list_is() {
    // The narrative quotes the same prompt as the first regression case.
    let doc = "## Bug: sum gets strings\n\n### Steps to reproduce\n\n1. Ask \"add 1.5 and 2.5\"; the assistant calls get-sum with strings.\n\n### Actual behaviour\n\nIt echoes \"SHIP IT\" through legacy-echo.\n\n### Regression cases to add\n\n- **R1**: user: \"add 1.5 and 2.5\" → get-sum, a=1.5, b=2.5\n- **R2**: user: \"say ship it\" → echo, never legacy-echo\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].start_line, 13);
    assert_eq!(d[1].never_called, ["legacy-echo"]);
}

#[test]
fn a_word_export_keeps_a_case_apart_from_captions_and_page_furniture() {
    let doc = "Demo plan\n\n2.1\tSum\nUser: \"add 4 and 4\"\nExpected: get-sum, a=4, b=4\n\nFigure 1  what the card shows\n\n\t\tPage 1 of 2\nDemo plan\n\n2.2\tDelete (postponed to v3)\nUser: \"delete item 7\"\nExpected: delete-item\n\n2.3\tEcho\nUser: \"say hi\"\nExpected: echo\n\n\t\tPage 2 of 2\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (3, 5));
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_legend_in_dutch_with_an_example_line_is_no_case() {
    let doc = "Legenda\n  [x]  geslaagd\n  [ ]  nog te testen\n  voorbeeld:  [ ] Gebruiker: \"lees bestand X\"  ->  echo message=X\n\n[ ] C1  Gebruiker: \"zeg hallo\"\n        verwacht: echo  message=hallo\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["zeg hallo"]);
}

#[test]
fn a_forms_question_headers_and_slash_parted_arguments() {
    // A Google Form's export: its columns are the questions it asked.
    let doc = "Timestamp,Email,What does the user say?,Which tool should it call?,Which arguments?,Anything it should NOT do?\n\
1/2/2025 9:00,a@x.io,Say hello and thanks,echo,message: hello and thanks,\n\
1/2/2025 9:05,b@x.io,Stats for 3 and 9 please,get-stats,\"numbers: 3, 9 / note: none\",never get-sum\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["numbers"],
        json!([3, 9])
    );
    assert_eq!(d[1].never_called, ["get-sum"]);
}

#[test]
fn prose_split_at_its_commas_is_no_csv_header() {
    let doc = "Plan\n\nFor each scenario we give the request, the expected tool and, if needed, what\nmust not be called.\n\nS-1 Sum\n  Request: \"add 2 and 9\"\n  Expected: get-sum, a = 2, b = 9\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn an_html_sheet_with_merged_cells_and_a_header_of_two_rows() {
    let doc = "<table>\n<tr><td colspan=\"5\">Demo evals, v2</td></tr>\n<tr><td rowspan=\"2\">Group</td><td rowspan=\"2\">Prompt</td><td colspan=\"2\">Expected</td><td rowspan=\"2\">Forbidden</td></tr>\n<tr><td>Tool</td><td>Arguments</td></tr>\n<tr><td colspan=\"5\">Legend: \"say hi\" → echo (example only)</td></tr>\n<tr><td rowspan=\"2\">math</td><td>Add 6 and 7</td><td>get-sum</td><td>a=6, b=7</td><td></td></tr>\n<tr><td>Mean of 1, 2, 3</td><td>get-stats</td><td>numbers=[1, 2, 3]</td><td>get-sum</td></tr>\n</table>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(7));
    assert_eq!(d[1].never_called, ["get-sum"]);
}

#[test]
fn a_ci_workflow_keeps_its_cases_in_a_matrix_and_in_command_steps() {
    let doc = "name: evals\non: [pull_request]\njobs:\n  smoke:\n    steps:\n      - uses: actions/checkout@v4\n      - name: build\n        run: |\n          npm ci\n          npm run build\n  eval:\n    strategy:\n      matrix:\n        case:\n          - id: sum\n            prompt: \"Add 4 and 5\"\n            expect_tool: get-sum\n          - id: chat\n            prompt: \"Tell me a joke\"\n            expect_tool: none\n    steps:\n      - name: eval ${{ matrix.case.id }}\n        run: mcp-eval --prompt \"${{ matrix.case.prompt }}\" --expect-tool \"${{ matrix.case.expect_tool }}\"\n  nightly:\n    steps:\n      - name: slow one\n        run: >\n          mcp-eval --prompt \"Wait two seconds, then say done\"\n          --expect-tool slow\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert!(d[1].negative);
    assert_eq!(tools_of(&d[2]), ["slow"]);
    assert_eq!(d[2].prompts, ["Wait two seconds, then say done"]);
}

#[test]
fn a_notion_toggle_labels_its_value_below_and_an_example_callout_is_none() {
    let doc = "## Cases\n\n<aside>\n💡 Template: \"What is 1 + 1?\" → `get-sum` (example only, not executed)\n</aside>\n\n### 1. Stats\n\n- Prompt\n    \n    \"Mean of 4, 6 and 8?\"\n    \n- Expected\n    \n    `get-stats` with numbers [4, 6, 8]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["Mean of 4, 6 and 8?"]);
    assert_eq!(tools_of(&d[0]), ["get-stats"]);
}

#[test]
fn spoken_and_chatted_negations_in_turkish_and_polish() {
    let doc = "[00:10] \"Bana bir fıkra anlat\" ama get sum değil, get sum çağırırsa yanlış sayılır. Echo kullanılabilir.\n\n[00:20] dajmy coś bez tooli: „czym jest MCP?” — model ma odpowiedzieć z głowy, zero wywołań\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].never_called, ["get-sum"]);
    assert!(d[1].negative);
}

#[test]
fn a_harness_toml_lists_its_tools_and_arguments_per_tool() {
    let doc = "[harness]\nserver = \"demo\"\n\n[[case]]\nid = \"c1\"\nprompt = \"Add 2 and 3\"\nexpect_tools = [\"get-sum\"]\nargs.get-sum = { a = 2, b = 3 }\n\n[[case]]\nid = \"c2\"\nprompt = \"Say hi\"\nexpect_tools = [\"echo\"]\nforbid_tools = [\"legacy-echo\"]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(3));
    assert_eq!(tools_of(&d[1]), ["echo"]);
    assert_eq!(d[1].never_called, ["legacy-echo"]);
}

#[test]
fn numbered_notes_typed_in_a_hurry_state_their_cases_without_quotes() {
    let doc = "demo evals quick notes\n1 幫我加 12 跟 30 → get-sum a 12 b 30\n2 講個笑話給我聽 → 不要叫任何tool\nx 重複的那個 不做了\n3. Sollen wir crash testen? → Nein, gestrichen.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert!(d[1].negative);
}

#[test]
fn a_markdown_table_fills_blank_tool_cells_down_when_the_page_says_so() {
    let doc = "Note: a blank tool cell means the same as above.\n\n| # | Tool | Prompt |\n|---|---|---|\n| 1 | get-sum | Add 1 and 2 |\n| 2 |  | Add 3 and 4 |\n| 3 | none | Tell me a joke |\n| 4 |  | Thanks, bye |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 4, "{d:#?}");
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
    assert!(d[2].negative);
    assert!(d[3].negative);
}

#[test]
fn a_footnote_that_puts_a_row_off_and_a_cjk_heading_of_ideas_put_off() {
    let doc = "| # | Tool | Prompt |\n|---|---|---|\n| 1 | get-sum | Add 1 and 2 |\n| 2 | echo | Say hi back [^1] |\n\n[^1]: postponed to the next sprint, not run for now.\n\n## 保留・却下となった案\n\n- 「サーバーを落として」→ crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_testlink_export_keeps_its_prompt_in_the_html_of_a_summary() {
    // Each case's prompt is HTML inside CDATA, its expectation in a step; a case switched
    // off (`<active>0</active>`) is none, and a step's number is no case's id.
    let doc = "<?xml version=\"1.0\"?>\n<testsuite name=\"demo\">\n<testcase name=\"Sum\">\n<summary><![CDATA[<p>L&#39;utente chiede: <em>&quot;Quanto fa 4 pi&ugrave; 5?&quot;</em></p>]]></summary>\n<active>1</active>\n<steps><step><step_number>1</step_number><actions><![CDATA[<p>Send the prompt.</p>]]></actions><expectedresults><![CDATA[<p>Viene chiamato <b>get-sum</b> con a = 4, b = 5.</p>]]></expectedresults></step></steps>\n</testcase>\n<testcase name=\"Old\">\n<summary><![CDATA[<p>Prompt: &quot;Echo ciao&quot;</p>]]></summary>\n<active>0</active>\n<steps><step><step_number>1</step_number><actions><![CDATA[<p>Send.</p>]]></actions><expectedresults><![CDATA[<p>echo</p>]]></expectedresults></step></steps>\n</testcase>\n</testsuite>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["Quanto fa 4 più 5?"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(5));
}

#[test]
fn github_issues_in_json_are_cards_and_one_closed_as_not_planned_is_none() {
    let doc = r####"[
  {"number": 41, "title": "eval: echo", "state": "open",
   "body": "### Prompt\n\nRepeat after me: tea\n\n### Expected\n\n`echo` with message = tea"},
  {"number": 42, "title": "eval: crash", "state": "closed", "state_reason": "not_planned",
   "body": "### Prompt\n\nCrash the server\n\n### Expected\n\n`crash`"}
]"####;
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!((d[0].start_line, d[0].end_line), (2, 3));
}

#[test]
fn a_keyed_title_that_is_what_the_user_says_is_the_prompt() {
    let doc = "# Plan\n\n## A1: Please add 40 and 2 for me\n- get-sum, a = 40, b = 2\n\n## A2: Tell me why the sky is blue\n- no tool, just answer\n\n## A3 Echo round trip\n- echo\n\n## A4: Greeting for the evening\n- \"Say good night to me\" → echo with message good night\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].prompts, ["Please add 40 and 2 for me"]);
    assert_eq!(d[0].expected_calls[0].tool, "get-sum");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(2));
    assert!(
        d[0].exact_rule.is_none(),
        "a title read as a prompt is no exact claim"
    );
    assert!(d[1].negative);
    // (A title of three words names the case; beside a quote in the body, the title
    // is no prompt.)
    assert_eq!(d[2].prompts, ["Say good night to me"]);
    assert!(d.iter().all(|c| c.title != "Echo round trip"));
}

#[test]
fn an_opml_outline_reads_each_node_with_children_as_a_case() {
    let doc = "<?xml version=\"1.0\"?>\n<opml version=\"2.0\">\n  <body>\n    <outline text=\"Setup\">\n      <outline text=\"start the demo server\"/>\n    </outline>\n    <outline text=\"Cases\">\n      <outline text=\"C1: What do 19 and 23 add up to?\">\n        <outline text=\"&lt;code&gt;get-sum&lt;/code&gt;\" _note=\"a=19, b=23\"/>\n      </outline>\n      <outline text=\"C2: Say hello back to me please\">\n        <outline text=\"echo, message = hello\"/>\n        <outline text=\"not legacy-echo\"/>\n      </outline>\n    </outline>\n  </body>\n</opml>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (8, 9));
    assert_eq!(d[0].prompts, ["What do 19 and 23 add up to?"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap(),
        json!({"a": 19, "b": 23}).as_object().unwrap()
    );
    assert_eq!(d[1].expected_calls[0].tool, "echo");
    assert_eq!(d[1].never_called, ["legacy-echo"]);
}

#[test]
fn a_chat_export_in_json_reads_each_message_and_a_reply_that_puts_one_off() {
    let doc = r#"{"value": [
  {"id": "1", "messageType": "message", "createdDateTime": "2025-01-01T09:00:00Z",
   "from": {"user": {"displayName": "Ana Costa"}},
   "body": {"contentType": "html", "content": "<p>Let us collect the cases here, tool and arguments each.</p>"}},
  {"id": "2", "messageType": "message", "createdDateTime": "2025-01-01T09:01:00Z",
   "from": {"user": {"displayName": "Ana Costa"}},
   "body": {"contentType": "html", "content": "<p>1) User: <i>what is 12 plus 30?</i><br>&rarr; <code>get-sum</code>, a = 12, b = 30</p>"}},
  {"id": "3", "messageType": "message", "createdDateTime": "2025-01-01T09:02:00Z",
   "from": {"user": {"displayName": "Ben Ode"}},
   "body": {"contentType": "html", "content": "<p>and a negative one: <i>Why is the sea salty?</i> &rarr; no tool at all</p>"}},
  {"id": "4", "messageType": "message", "createdDateTime": "2025-01-01T09:03:00Z",
   "from": {"user": {"displayName": "Ben Ode"}},
   "body": {"contentType": "html", "content": "<p>maybe also &quot;wait for 3 seconds please&quot; &rarr; slow?</p>"}},
  {"id": "5", "messageType": "message", "createdDateTime": "2025-01-01T09:04:00Z",
   "from": {"user": {"displayName": "Ana Costa"}},
   "body": {"contentType": "html", "content": "<p>Not needed yet, let us postpone that to the next sprint.</p>"}}
]}"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["what is 12 plus 30?"]);
    assert_eq!((d[0].start_line, d[0].end_line), (5, 7));
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap(),
        json!({"a": 12, "b": 30}).as_object().unwrap()
    );
    assert!(d[1].negative);
    assert_eq!(d[1].prompts, ["Why is the sea salty?"]);
}

#[test]
fn a_numbered_utterance_may_put_its_arrow_on_the_next_line() {
    let d = drafts("4) please add 7 and 8 for me\n→ get-sum, a = 7, b = 8\n");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["please add 7 and 8 for me"]);
    assert_eq!(d[0].expected_calls[0].tool, "get-sum");
}

#[test]
fn a_parameter_may_be_assigned_under_a_short_form_of_its_name() {
    let d = drafts("- \"wait a little, please\" → slow with dur=1500\n");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["durationMs"],
        json!(1500)
    );
    // (`pag` is no short form here: nothing assigns it.)
    let d = drafts("- \"list the first page of items\" → list-items, page size 10\n");
    assert_eq!(d[0].expected_calls[0].tool, "list-items");
}

#[test]
fn a_transcript_reads_each_turn_and_drops_one_the_next_speaker_parks() {
    let doc = "WEBVTT\n\nNOTE\nAuto-generated, not reviewed.\n\n1\n00:00:01.000 --> 00:00:04.000\n<v Ana>Okay, first one: \"what do 20 and 22 make?\"\n\n2\n00:00:04.000 --> 00:00:07.000\n<v Ana>and it should call get sum, a twenty, b 22.\n\n3\n00:00:08.000 --> 00:00:09.000\n<v Ana>Right.\n\n4\n00:00:10.000 --> 00:00:13.000\n<v Ben>Could we add \"wait five seconds\" with the slow tool?\n\n5\n00:00:13.500 --> 00:00:16.000\n<v Ana>Let's park that, next sprint maybe.\n\n6\n00:00:17.000 --> 00:00:20.000\n<v Ben>A no-tool one: \"why is the sky blue?\" Just answer, no tools.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (8, 12));
    assert_eq!(d[0].prompts, ["what do 20 and 22 make?"]);
    assert_eq!(d[0].expected_calls[0].tool, "get-sum");
    assert!(d[1].negative);
    assert_eq!((d[1].start_line, d[1].end_line), (28, 28));
}

#[test]
fn a_parameter_named_in_words_takes_its_value() {
    let d = drafts("- \"wait a bit\" → slow, duration ms 1500, progress true\n");
    let args = d[0].expected_calls[0].args.as_ref().unwrap();
    assert_eq!(args["durationMs"], json!(1500));
    assert_eq!(args["progress"], json!(true));
    // A clause run up to a colon is no label: `then` in it does not make it a result.
    let d = drafts("Okay, then mine: \"say hi to the team\" and it should echo it back.\n");
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["say hi to the team"]);
    assert_eq!(d[0].expected_calls[0].tool, "echo");
}

#[test]
fn a_thread_drops_a_list_item_a_reply_removes_and_its_quote() {
    let doc = "Proposal: a first set of evals for the demo server #12\nalice started this conversation in Ideas\n\nalice\n3 days ago\n\nHere is what I would add. What the user writes, then the tool:\n\n1. «add 2 and 2» → get-sum, a=2, b=2\n2. «call fail with reason \"x\"» → fail, reason = x\n3. «say hello to the team» → echo, message = hello\n\n---\n\nbob\n2 days ago\n\n> 2. «call fail with reason \"x\"» → fail, reason = x\n\nThis one tests nothing, the user names the tool.\n\n    alice\n    2 days ago\n\n    Fair, removing 2.\n";
    let d = drafts(doc);
    let prompts: Vec<&str> = d.iter().map(|c| c.prompts[0].as_str()).collect();
    assert_eq!(prompts, ["add 2 and 2", "say hello to the team"], "{d:#?}");
}

#[test]
fn prompt_items_that_each_say_what_they_expect_are_cases_of_their_own() {
    let doc = "And two more from me:\n\n8. User: «delete the item abc-1». We expect delete-item with id=\"abc-1\".\n9. User: «thanks, that's all!» — no tool calls, just a polite reply.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["delete the item abc-1"]);
    assert_eq!(d[0].expected_calls[0].tool, "delete-item");
    assert!(d[1].negative);
    // Ukrainian: `жодних викликів` is no call at all.
    let d = drafts("- «Дякую, це все!» — жодних викликів інструментів.\n");
    assert!(d[0].negative, "{d:#?}");
}

#[test]
fn short_utterances_are_prompts_and_a_list_cut_at_its_commas_is_no_sheet() {
    let doc = "- «say hi» → echo, message = hi\n- \"thanks!\" → no tool\n- \"Why?\" → just answer, no tools\n- \"hi\" → no tool\n";
    assert_eq!(super::sniff(doc), super::Shape::Markdown);
    let d = drafts(doc);
    let prompts: Vec<&str> = d.iter().map(|c| c.prompts[0].as_str()).collect();
    // (A lone word unquestioned and unexclaimed may be a name: `"hi"` is left out.)
    assert_eq!(prompts, ["say hi", "thanks!", "Why?"], "{d:#?}");
    assert_eq!(d[0].expected_calls[0].tool, "echo");
    assert!(d[1].negative && d[2].negative);
}

#[test]
fn yaml_anchors_and_merge_keys_fill_in_the_arguments() {
    let doc = "base: &pair\n  a: 1\ncases:\n  - prompt: \"add one and two\"\n    tool: get-sum\n    args:\n      <<: *pair\n      b: 2\n  - prompt: \"add one and five\"\n    tool: get-sum\n    args: {<<: *pair, b: 5}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap(),
        json!({"a": 1, "b": 2}).as_object().unwrap()
    );
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap(),
        json!({"a": 1, "b": 5}).as_object().unwrap()
    );
}

#[test]
fn a_collections_test_script_states_the_tool_its_arguments_and_what_it_must_not_call() {
    let doc = r#"{"info": {"name": "evals"}, "item": [
  {"name": "Sum", "request": {"method": "POST", "description": "We expect get-sum with a=2, b=3.",
    "body": {"raw": "{\"messages\": [{\"role\": \"user\", \"content\": \"what is two plus three\"}]}"}},
   "event": [{"listen": "test", "script": {"exec": [
     "const calls = pm.response.json().tool_calls || [];",
     "pm.test('sum', () => pm.expect(calls[0].name).to.eql('get-sum'));"]}}]},
  {"name": "Echo", "request": {"method": "POST",
    "body": {"raw": "{\"messages\": [{\"role\": \"user\", \"content\": \"repeat hello back to me\"}]}"}},
   "event": [{"listen": "test", "script": {"exec": [
     "const calls = pm.response.json().tool_calls || [];",
     "pm.expect(calls.map(c => c.name)).to.include('echo');",
     "pm.expect(calls[0].arguments).to.deep.include({message: 'hello'});",
     "pm.expect(calls.map(c => c.name)).to.not.include('legacy-echo');"]}}]},
  {"name": "Chat", "request": {"method": "POST",
    "body": {"raw": "{\"messages\": [{\"role\": \"user\", \"content\": \"how are you today?\"}]}"}},
   "event": [{"listen": "test", "script": {"exec": [
     "const calls = pm.response.json().tool_calls || [];",
     "pm.test('no tools', () => pm.expect(calls).to.have.lengthOf(0));"]}}]},
  {"name": "zz_archive", "item": [
    {"name": "Old", "request": {"method": "POST",
      "body": {"raw": "{\"messages\": [{\"role\": \"user\", \"content\": \"wait for two seconds\"}]}"}},
     "event": [{"listen": "test", "script": {"exec": [
       "pm.expect(calls[0].name).to.eql('slow');"]}}]}]}
]}"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap(),
        json!({"a": 2, "b": 3}).as_object().unwrap()
    );
    assert_eq!(d[1].expected_calls[0].tool, "echo");
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["message"],
        json!("hello")
    );
    assert_eq!(d[1].never_called, ["legacy-echo"]);
    assert!(d[2].negative);
}

#[test]
fn a_sheet_status_may_open_with_its_symbol_and_a_forbidden_all_may_carry_a_remark() {
    let doc = "Name,Prompt,Expected tool,Must not call,Status\nSum,What is 4 plus 5?,get-sum,,✅ Done\nEcho,Say hello back to me,echo,,❌ Abandoned\nPoem,Write me a short poem about rain,,\"any tool — no calls at all\",🔍 In review\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].expected_calls[0].tool, "get-sum");
    assert!(d[1].negative, "{d:#?}");
}

#[test]
fn an_excel_2003_xml_sheet_reads_its_rows_and_leaves_a_sheet_of_results_out() {
    let doc = "<?xml version=\"1.0\"?>\n<Workbook xmlns=\"urn:schemas-microsoft-com:office:spreadsheet\" xmlns:ss=\"urn:schemas-microsoft-com:office:spreadsheet\">\n <Worksheet ss:Name=\"Cases\">\n  <Table>\n   <Row><Cell ss:MergeAcross=\"3\"><Data ss:Type=\"String\">Evaluation round 2</Data></Cell></Row>\n   <Row><Cell><Data ss:Type=\"String\">ID</Data></Cell><Cell><Data ss:Type=\"String\">Prompt</Data></Cell><Cell><Data ss:Type=\"String\">Expected tool</Data></Cell><Cell><Data ss:Type=\"String\">Status</Data></Cell></Row>\n   <Row><Cell><Data ss:Type=\"Number\">1</Data></Cell><Cell><Data ss:Type=\"String\">What is 3 plus 4?</Data></Cell><Cell><Data ss:Type=\"String\">get-sum</Data></Cell></Row>\n   <Row><Cell><Data ss:Type=\"Number\">2</Data></Cell><Cell><Data ss:Type=\"String\">Say hello back to me</Data></Cell><Cell ss:Index=\"4\"><Data ss:Type=\"String\">ok</Data></Cell></Row>\n  </Table>\n </Worksheet>\n <Worksheet ss:Name=\"Results\">\n  <Table>\n   <Row><Cell><Data ss:Type=\"String\">ID</Data></Cell><Cell><Data ss:Type=\"String\">Result</Data></Cell><Cell><Data ss:Type=\"String\">Called tool</Data></Cell></Row>\n   <Row><Cell><Data ss:Type=\"Number\">1</Data></Cell><Cell><Data ss:Type=\"String\">PASS</Data></Cell><Cell><Data ss:Type=\"String\">get-sum</Data></Cell></Row>\n  </Table>\n </Worksheet>\n</Workbook>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["What is 3 plus 4?"]);
    assert_eq!(d[0].expected_calls[0].tool, "get-sum");
    // (`ss:Index="4"` puts `ok` in the status column, not under the tool.)
    assert!(d[1].expected_calls.is_empty(), "{d:#?}");
}

#[test]
fn a_robot_check_on_the_reply_names_no_tool_and_a_no_tool_keyword_is_negative() {
    let doc = "*** Settings ***\nLibrary    McpEval\n\n*** Test Cases ***\nCapital Without Tools\n    Send Prompt    What is the capital of Australia?\n    No Tool Called\n    Response Should Mention    Canberra\n\nPaged Catalogue\n    Send Prompt    Show the catalogue, ten items a page please\n    Tool Called    list-items    pageSize=${10}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d[0].negative, "{d:#?}");
    assert!(d[0].expected_calls.is_empty());
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["pageSize"],
        json!(10)
    );
}

#[test]
fn a_struck_html_row_is_no_case_and_intet_vaerktoej_is_no_tool() {
    let doc = "<h2>Scenarier</h2>\n<table>\n<tr><th>#</th><th>Brugerprompt</th><th>Forventet værktøj</th><th>Argumenter</th></tr>\n<tr><td>1</td><td>Hvad er 2 plus 9?</td><td>get-sum</td><td>a=2, b=9</td></tr>\n<tr><td>2</td><td>Hvad er et symbolsk link?</td><td><em>intet værktøj</em></td><td>–</td></tr>\n<tr><td><s>3</s></td><td><s>Slet alt</s></td><td><s>delete-item</s></td><td><s>id: all</s></td></tr>\n</table>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(9));
    assert!(d[1].negative, "{d:#?}");
}

#[test]
fn a_tracker_feed_with_escaped_html_descriptions_gives_a_case_per_issue() {
    let doc = "<?xml version=\"1.0\"?>\n<rss version=\"0.92\">\n<channel>\n<title>Tracker</title>\n<item>\n  <title>[EV-1] Environment token</title>\n  <description>&lt;p&gt;Put the API token in the vault before the run.&lt;/p&gt;</description>\n  <status>Done</status>\n</item>\n<item>\n  <title>[EV-2] Adding</title>\n  <description>&lt;p&gt;&lt;b&gt;User prompt:&lt;/b&gt;&lt;/p&gt;\n&lt;p&gt;What is 12 plus 30?&lt;/p&gt;\n&lt;p&gt;&lt;b&gt;Expected:&lt;/b&gt; calls &lt;tt&gt;get-sum&lt;/tt&gt; with a=12, b=30&lt;/p&gt;</description>\n  <status>Ready</status>\n</item>\n<item>\n  <title>[EV-3] Chit-chat</title>\n  <description>&lt;p&gt;The user writes: &lt;em&gt;How are you today?&lt;/em&gt;&lt;/p&gt;\n&lt;p&gt;No tool at all, it just answers.&lt;/p&gt;</description>\n  <status>Ready</status>\n</item>\n</channel>\n</rss>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["What is 12 plus 30?"]);
    assert_eq!((d[0].start_line, d[0].end_line), (10, 16));
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(30)
    );
    assert!(d[1].negative, "{d:#?}");
}

#[test]
fn steps_kept_as_markup_in_a_csv_cell_are_actions_and_expected_results() {
    let doc = "ID,Work Item Type,Title,State,Tags,Steps\n\
101,Shared Steps,Start the server,Active,setup,\"<steps id=\"\"0\"\"><step id=\"\"2\"\" type=\"\"ActionStep\"\"><parameterizedString isformatted=\"\"true\"\">&lt;DIV&gt;&lt;P&gt;Run &lt;CODE&gt;npm start&lt;/CODE&gt;&lt;/P&gt;&lt;/DIV&gt;</parameterizedString><parameterizedString isformatted=\"\"true\"\">&lt;P&gt;Port 3000 answers&lt;/P&gt;</parameterizedString><description/></step></steps>\"\n\
102,Test Case,Adding,Ready,eval; maths,\"<steps id=\"\"0\"\"><step id=\"\"2\"\" type=\"\"ActionStep\"\"><parameterizedString isformatted=\"\"true\"\">&lt;DIV&gt;&lt;P&gt;What is 8 plus 5?&lt;/P&gt;&lt;/DIV&gt;</parameterizedString><parameterizedString isformatted=\"\"true\"\">&lt;DIV&gt;&lt;P&gt;get-sum is called with a=8, b=5&lt;/P&gt;&lt;/DIV&gt;</parameterizedString><description/></step><step id=\"\"3\"\" type=\"\"ValidateStep\"\"><parameterizedString isformatted=\"\"true\"\">&lt;P&gt;Read the answer&lt;/P&gt;</parameterizedString><parameterizedString isformatted=\"\"true\"\">&lt;P&gt;13&lt;/P&gt;</parameterizedString></step></steps>\"\n\
103,Test Case,Small talk,Ready,eval,\"<steps id=\"\"0\"\"><step id=\"\"2\"\" type=\"\"ActionStep\"\"><parameterizedString isformatted=\"\"true\"\">&lt;P&gt;Prompt: How are you today?&lt;/P&gt;</parameterizedString><parameterizedString isformatted=\"\"true\"\">&lt;P&gt;Answers directly, &lt;B&gt;no tool calls&lt;/B&gt;&lt;/P&gt;</parameterizedString></step></steps>\"\n";
    let d = drafts(doc);
    // (The shared steps, tagged set-up, are no case.)
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["What is 8 plus 5?"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["a"], json!(8));
    assert_eq!(d[1].prompts, ["How are you today?"]);
    assert!(d[1].negative, "{d:#?}");
}

#[test]
fn a_compound_ending_in_a_tool_noun_names_the_tool_its_first_part_says() {
    let d = drafts("- „Was ist 4 plus 5?“ Erwartet: das Summenwerkzeug mit a=4, b=5\n");
    assert_eq!(tools_of(&d[0]), ["get-sum"], "{d:#?}");
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(5));
}

#[test]
fn a_chat_log_reads_each_message_whole_and_drops_a_proposal_its_replies_put_off() {
    let doc = "==============\nChannel: evals\n==============\n\n\
[18/11/2024 9:02] anna.k\nHi all, one message per case please.\n\n\
[18/11/2024 9:04] anna.k\n**Case 1 – adding**\nPrompt: \"What is 6 plus 7?\"\n\nExpected: `get-sum` with a=6, b=7\n\n{Reactions}\n👍 (2)\n\n\
[18/11/2024 9:10] tom\nShould we make it crash on purpose? Let it call crash.\n\n\
[18/11/2024 9:11] anna.k\nThat is a fault-injection test, not a model eval\n\n\
[18/11/2024 9:12] tom\nok, leave it out then\n\n\
[18/11/2024 9:20] tom\nCase 2: \"tell me a joke\" → no tool at all\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    // (The message runs from its header over its blank lines to its reactions.)
    assert_eq!((d[0].start_line, d[0].end_line), (8, 15));
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(7));
    assert!(d[1].negative, "{d:#?}");

    let android = "12/03/2024, 10:15 - Lena: first case\n\"echo back: good morning\"\n→ echo\n12/03/2024, 10:16 - Max: 👍\n12/03/2024, 10:18 - Lena: second one\n\"what is 2 plus 2\" → get-sum a=2 b=2\n12/03/2024, 10:19 - Max: <Media omitted>\n";
    let d = drafts(android);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (1, 3));
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
}

#[test]
fn a_telegram_export_reads_each_message_of_text_runs() {
    let doc = r#"{
 "name": "QA",
 "type": "private_group",
 "id": 77,
 "messages": [
  {"id": 1, "type": "message", "date_unixtime": "1700000000", "from": "Ana", "text": "Morning! One message per case."},
  {"id": 2, "type": "message", "date_unixtime": "1700000060", "from": "Ana",
   "text": [{"type": "bold", "text": "Case 1"}, "\nUser: \"What is 3 plus 9?\"\nExpected: ", {"type": "code", "text": "get-sum"}, " a=3, b=9"]},
  {"id": 3, "type": "message", "date_unixtime": "1700000120", "from": "Ben",
   "text": "Case 2 – User: \"hello there\"\nDapat HINDI tumawag ng kahit anong tool."}
 ]
}
"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["What is 3 plus 9?"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], json!(9));
    assert!(d[1].negative, "{d:#?}");
}

#[test]
fn no_tool_in_a_key_or_said_over_any_is_negative() {
    let toml = "[[case]]\nprompt = \"What is a refund?\"\nexpect_no_tool = true\n\n[[case]]\nprompt = \"Add 2 and 3\"\nexpect_tool = \"get-sum\"\n";
    let d = drafts(toml);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d[0].negative && !d[1].negative, "{d:#?}");
    let hu = "- „Mi a rebase?” – a modell NE hívjon semmilyen toolt, csak magyarázza el.\n";
    assert!(drafts(hu)[0].negative, "{:#?}", drafts(hu));
}

#[test]
fn a_pdf_table_pasted_as_text_reads_its_keyed_rows_across_page_furniture() {
    let doc = "Plan de pruebas\n\nصفحة ١ من ٣\nEquipo QA\n\nID\nPrompt\nExpected\nTC-01\nWhat is 12 plus 30?\ncalls get-\nsum with a = 12، b = 30\nTC-02\nEcho back: good night\n\nصفحة ٢ من ٣\nEquipo QA\n\necho with message = good night\nTC-03\nRepeat after me: hi\n[Postponed to 1.4 – flaky in staging]\n\nEnd.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (9, 12));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(12)
    );
    assert_eq!((d[1].start_line, d[1].end_line), (13, 19));
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_quote_block_under_an_items_title_is_its_prompt_and_a_crossed_item_a_tool_never_called() {
    let doc = "## Cases\n\n1. **Overwrite a file**\n   > Overwrite notes.txt with the text \"hola\"\n\n   Expected: `echo` with message = hola\n\n## Case 3 · echo\n\n- **User:** \"say back: hello world\"\n- **Expected:** `echo` → message = \"hello world\"\n- ❌ `legacy-echo` never — it is deprecated\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Overwrite notes.txt with the text \"hola\""]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
    assert_eq!(d[1].never_called, ["legacy-echo"]);
}

#[test]
fn prose_saying_a_quoted_scenario_was_thrown_out_is_no_case() {
    let doc = "Scenario 1 – sums\nUser: \"What is 5 plus 6?\"\nExpected: get-sum, a=5, b=6\n\nThe \"delete everything\" scenario we dropped in the end, the server has no tool for it.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_tagged_template_table_of_two_columns_names_its_cells_by_its_header() {
    let doc = "import { test, expect } from 'vitest'\n\ntest.each`\n  prompt                      | expectedCalls\n  ${'how is your day going?'} | ${[]}\n  ${'tell me a joke'}         | ${[]}\n`('no tool for $prompt', async ({ prompt, expectedCalls }) => {\n  const r = await run(prompt)\n  expect(r.calls).toEqual(expectedCalls)\n})\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d.iter().all(|c| c.negative), "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (5, 5));
}

#[test]
fn thai_written_into_its_words_negates_a_tool_and_asks_for_none() {
    let doc = "- \"ขอบคุณมากค่ะ\" โมเดลควรตอบกลับเฉยๆ ไม่ต้องเรียก tool ใดๆ\n- \"echo คำว่า สวัสดี\" ต้องใช้ echo ห้ามไปเรียก legacy_echo\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d[0].negative, "{d:#?}");
    assert_eq!(tools_of(&d[1]), ["echo"]);
    assert_eq!(d[1].never_called, ["legacy-echo"]);
}

#[test]
fn lists_of_cases_kept_deep_in_an_api_description_are_read_and_its_template_is_not() {
    let doc = r#"{
  "openapi": "3.0.3",
  "info": {"title": "Gateway", "description": "Cases live under x-evals.", "version": "1"},
  "x-evals-template": {"id": "(id)", "prompt": "(what the user says)", "expect": {"tool": "get-sum"}},
  "paths": {
    "/tools/get-sum": {"post": {"x-evals": [
      {"id": "sum", "prompt": "What is 3 plus 4?", "expect": {"tool": "get-sum", "arguments": {"a": 3, "b": 4}}}
    ]}},
    "/tools/echo": {"post": {"x-evals": [
      {"id": "echo", "prompt": "Say back: ready", "expect": {"tool": "echo"}}
    ]}}
  },
  "x-evals-general": [
    {"id": "none", "prompt": "What is MCP?", "expect": {"tool": null}}
  ]
}
"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
    assert!(d[2].negative, "{d:#?}");
}

#[test]
fn a_call_constructed_with_the_tools_name_and_a_constant_gives_the_tool_and_its_arguments() {
    let doc = "import pytest\nfrom harness import ToolCall, run\n\nOWNER = \"acme\"\n\nCASES = [\n    {\n        \"prompt\": \"Merge PR 7 in acme/web with squash\",\n        \"expect\": ToolCall(\"merge_pull_request\", owner=OWNER, repo=\"web\", pull_number=7),\n    },\n    {\n        \"prompt\": \"Merge PR 8 in acme/api\",\n        \"expect\": ToolCall(\"merge_pull_request\", owner=OWNER, pull_number=8),\n    },\n]\n\n\n@pytest.mark.parametrize(\"case\", CASES)\ndef test_case(case):\n    run(case)\n";
    let tools: Vec<crate::service::authoring::ground::DiscoveredTool> = vec![
        crate::service::authoring::ground::DiscoveredTool {
            server_id: "s".into(),
            server_name: "github".into(),
            tool: serde_json::from_value(json!({"name": "merge_pull_request", "inputSchema": {"type": "object", "properties": {"owner": {"type": "string"}, "repo": {"type": "string"}, "pull_number": {"type": "number"}}}})).unwrap(),
        },
    ];
    let d = super::extract(doc, &tools);
    assert_eq!(d.len(), 2, "{d:#?}");
    let args = d[0].expected_calls[0].args.as_ref().unwrap();
    assert_eq!(args["owner"], json!("acme"));
    assert_eq!(args["pull_number"], json!(7));
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["owner"],
        json!("acme")
    );
}

#[test]
fn a_tap_report_is_run_results_and_holds_no_case() {
    let doc = "TAP version 13\n1..2\nok 1 - sum: \"What is 17 + 25?\" -> get-sum {a: 17, b: 25}\nnot ok 2 - echo: \"say hi\" -> expected echo, got legacy-echo\n  ---\n  severity: fail\n  ...\n";
    assert!(drafts(doc).is_empty(), "{:#?}", drafts(doc));
}

#[test]
fn a_tool_noun_then_a_short_phrase_saying_what_it_does_names_the_tool() {
    let doc = "- \"Was ist das Mittel von 3, 5 und 10?\" → llama a la herramienta de la media con numbers = [3, 5, 10]\n";
    let d = drafts(doc);
    assert_eq!(tools_of(&d[0]), ["get-stats"], "{d:#?}");
}

#[test]
fn a_bug_report_quoting_the_prompt_that_failed_is_no_case() {
    let doc = "Issue Type;Key;Summary;Description;Expected tool\nBug;EV-9;legacy-echo called;\"In the nightly run \"\"Repeat exactly: hello\"\" called legacy-echo -> FAIL.\";\nTest;EV-10;Echo;\"Prompt: \"\"Repeat exactly: hello\"\"\";echo\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
}

#[test]
fn an_outline_pasted_as_text_gives_a_case_per_quoted_bullet_and_a_list_table_its_rows() {
    let slides = "Slide 4\nCases 1-2\n\tCase 1: user says \"What is 4 plus 5?\"\n\t\tExpected: get-sum, a=4, b=5\n\tCase 2: \"Echo back: done\"\n\t\techo, message = done\nSpeaker notes:\n\tKeep it short.\n";
    let d = drafts(slides);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (3, 4));
    assert_eq!(tools_of(&d[1]), ["echo"]);

    let rst = "Cases\n=====\n\n.. list-table:: Table 1\n   :header-rows: 1\n\n   * - ID\n     - Prompt\n     - Expected tool\n   * - C-1\n     - \"What is 2 plus 2?\"\n     - ``get-sum(a=2, b=2)``\n   * - C-2\n     - \"Say hello back\"\n     - ``echo``\n";
    let d = drafts(rst);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (10, 12));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_tab_separated_range_pasted_into_prose_is_a_table_and_other_tool_in_cjk_is_no_negative() {
    let doc = "# 測試計畫\n\n以下案例由 QA 整理，表格從試算表貼上。\n\n## 案例表\n\n編號\t使用者輸入\t預期工具\t參數\n5\t「二加三是多少？」\tget-sum\ta=2, b=3\n6\t「回覆我：你好」\techo\tmessage=你好\n\n## 案例 7\n\n使用者：「把這句話原樣回覆：收到」\n預期：echo\n備註：只用 echo，不要找別的工具\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (8, 8));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert!(!d[2].negative, "{d:#?}");
    assert_eq!(tools_of(&d[2]), ["echo"]);
}

#[test]
fn a_verdict_after_an_arrow_sets_a_case_aside_and_a_negation_after_the_noun_is_read() {
    let doc = "**Case 3 — standup**\nUser: \"Echo back: standup\"\nExpected: echo\n→ Rejected ❌ — only admins create recurring events.\n\n**Case 9 — general**\nصارف: \"ٹائم زون کیسے کام کرتا ہے؟\"\nتوقع: کوئی ٹول کال نہیں، صرف وضاحت\n→ Approved ✅\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0].negative, "{d:#?}");
}

#[test]
fn a_block_comment_and_a_strike_set_by_inline_style_leave_no_case() {
    let hcl = "eval \"sum\" {\n  prompt = \"What is 2 plus 3?\"\n  expect { tool = \"get-sum\" }\n}\n\n/*\neval \"boom\" {\n  prompt = \"Crash the server\"\n  expect { tool = \"crash\" }\n}\n commented out until the runner restarts servers\n*/\n";
    let d = drafts(hcl);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);

    let html = "<html><body>\n<h3><span>Case 1</span></h3>\n<p><span>User says: &ldquo;What is 4 plus 4?&rdquo; Expected: get-sum</span></p>\n<h3><span style=\"text-decoration:line-through\">Case 2</span></h3>\n<p><span style=\"text-decoration:line-through\">User says: &ldquo;Crash the server&rdquo;. Expected: crash</span></p>\n</body></html>\n";
    let d = drafts(html);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_card_whose_one_tag_says_rejected_is_no_case() {
    let doc = r#"{"tasks": [
  {"id": "t1", "name": "Eval: sum", "text_content": "User: \"What is 2 plus 7?\"\nExpected: get-sum a=2, b=7", "status": {"status": "ready"}, "tags": [{"name": "eval-case"}]},
  {"id": "t2", "name": "Idea: crash", "text_content": "Try \"crash the server\" -> crash", "status": {"status": "closed"}, "tags": [{"name": "rejected"}]}
]}
"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_table_row_struck_by_its_style_is_no_case() {
    let doc = "<table>\n<tr><th>Prompt</th><th>Expected tool</th></tr>\n<tr><td>What is 2 plus 2?</td><td>get-sum</td></tr>\n<tr><td><span style=\"text-decoration: line-through\">Crash the server</span></td><td>crash</td></tr>\n</table>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn an_expectation_keyed_by_the_tools_it_expects_gives_their_calls() {
    let doc = r#"[
  {"id": "a", "prompt": "What is 2 plus 9?", "expect": {"get-sum": {"a": 2, "b": 9}}},
  {"id": "b", "prompt": "Show me the server info", "expect": {"server-info": null}},
  {"id": "c", "prompt": "Why is the sky blue?", "expect": null, "no_tool": true}
]
"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(
        d[0].expected_calls[0].args,
        Some(json!({"a": 2, "b": 9}).as_object().unwrap().clone())
    );
    assert_eq!(tools_of(&d[1]), ["server-info"]);
    assert!(d[2].negative && d[2].expected_calls.is_empty());
}

#[test]
fn nothing_as_what_is_called_is_a_negative_but_nothing_else_is_not() {
    let doc = "| ID | Prompt | Expected | Notes |\n|---|---|---|---|\n| 1 | \"Thanks, that's all.\" | nic nevolat | |\n| 2 | \"Danke, das war's.\" | nichts aufrufen | |\n| 3 | \"Repeat: hi\" | call `echo`, nothing else | |\n| 4 | \"Sečti 4 a 5\" | sčítací nástroj, a=4, b=5 | nesmí volat `legacy-echo` |\n| 5 | \"Zopakuj: ahoj\" | `echo` | Pozn.: bez poznámky |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 5, "{d:#?}");
    assert!(d[0].negative && d[1].negative, "{d:#?}");
    assert!(!d[2].negative);
    assert_eq!(tools_of(&d[2]), ["echo"]);
    // A tool described in Czech, and a prohibition in the notes column.
    assert_eq!(tools_of(&d[3]), ["get-sum"]);
    assert_eq!(d[3].never_called, ["legacy-echo"]);
}

#[test]
fn a_column_under_an_abbreviated_label_keeps_its_role() {
    use crate::service::authoring::lexicon::{LabelRole, label_role};
    assert_eq!(label_role("Pozn."), Some(LabelRole::Notes));
    assert_eq!(label_role("Pozn"), None);
    // (A cut that opens labels of two roles stays unread.)
    assert_eq!(label_role("Ex."), None);
}

#[test]
fn a_word_suffixed_after_an_apostrophe_is_no_parameter_and_a_list_ends_at_the_next() {
    let tools: Vec<crate::service::authoring::ground::DiscoveredTool> = vec![
        crate::service::authoring::ground::DiscoveredTool {
            server_id: "s".into(),
            server_name: "calendar".into(),
            tool: serde_json::from_value(json!({"name": "findFreeSlots", "inputSchema": {"type": "object", "properties": {"attendees": {"type": "array", "items": {"type": "string"}}, "durationMinutes": {"type": "number"}, "start": {"type": "string"}}}})).unwrap(),
        },
    ];
    let doc = "## Slots\nPrompt: \"Find 45 free minutes for Ahmet and Zeynep\"\nExpected: findFreeSlots, attendees ahmet@acme.dev, zeynep@acme.dev, durationMinutes 45. start'ı kontrol etmeyelim.\n";
    let d = super::extract(doc, &tools);
    assert_eq!(d.len(), 1, "{d:#?}");
    let args = d[0].expected_calls[0].args.clone().unwrap();
    assert_eq!(
        args.get("attendees"),
        Some(&json!(["ahmet@acme.dev", "zeynep@acme.dev"]))
    );
    assert_eq!(args.get("durationMinutes"), Some(&json!(45)));
    assert_eq!(args.get("start"), None);
}

#[test]
fn a_toggle_is_a_case_and_what_follows_it_is_not_part_of_it() {
    // A wiki's HTML export: toggles (`<details>`) in list items, a two-column table of
    // labelled fields inside one, and a callout after the last that sets a case aside.
    let doc = "<html><body><h2>Scenarios</h2>\n<ul class=\"toggle\"><li><details open=\"\"><summary>Scenario 1 — sum</summary>\n<p>User: \u{ab}What is 3 plus 4?\u{bb}</p>\n<p>Expected: <code>get-sum</code> with a equal to 3 and b = 4</p>\n</details></li></ul>\n<ul class=\"toggle\"><li><details open=\"\"><summary>Scenario 2 — echo</summary>\n<table class=\"simple-table\"><tbody>\n<tr><td>Prompt</td><td>Repeat after me: good night</td></tr>\n<tr><td>Tool</td><td>echo</td></tr>\n<tr><td>Arguments</td><td>message = good night</td></tr>\n</tbody></table>\n</details></li></ul>\n<figure class=\"callout\"><div>Scenario 3 (\u{ab}crash the server\u{bb} with <code>crash</code>) is set aside for now.</div></figure>\n</body></html>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!((d[0].start_line, d[0].end_line), (2, 4));
    assert_eq!(tools_of(&d[1]), ["echo"]);
    assert_eq!(d[1].prompts, ["Repeat after me: good night"]);
    assert_eq!(
        d[1].expected_calls[0]
            .args
            .as_ref()
            .and_then(|a| a.get("message")),
        Some(&json!("good night"))
    );
}

#[test]
fn a_test_functions_failure_message_is_no_prompt() {
    let doc = "package evals\n\nfunc TestSum(t *testing.T) {\n\tgot := run(t, \"What is 2 plus 2?\")\n\tif !got.Called(\"get-sum\") {\n\t\tt.Fatalf(\"expected get-sum to be called, got %v\", got)\n\t}\n}\n\n// Not an eval: the harness itself.\nfunc TestHarnessRejectsEmptyPrompt(t *testing.T) {\n\tif _, err := h.TryRun(ctx, \"\"); err == nil {\n\t\tt.Fatal(\"expected an error for an empty prompt\")\n\t}\n}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts, ["What is 2 plus 2?"]);
}

#[test]
fn an_arguments_cell_that_forbids_a_tool_forbids_it_and_a_swahili_without_is_a_negative() {
    let doc = "| Prompt | Tool | Arguments |\n|---|---|---|\n| \"Repeat: hello\" | echo | message=hello; never call legacy-echo |\n\n## HH-108\nMtumiaji: \"Mvua husababishwa na nini?\"\nMsaidizi ajibu tu moja kwa moja, BILA kutumia chombo chochote.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
    assert!(d[1].negative, "{d:#?}");
}

#[test]
fn a_name_in_parentheses_is_forbidden_by_the_clause_before_it() {
    let doc = "- **T1** – \"Comment on issue 4: fixed\"\n  - expected: `echo`, message = fixed\n  - it must NOT crash the server (`crash`); deprecated echo is forbidden (`legacy-echo`)\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["crash", "legacy-echo"]);
}

#[test]
fn a_yaml_suite_with_merge_keys_and_labels_spelled_without_their_letters_is_read() {
    let doc = "standard: &std\n  model: m1\n\nsager:\n  - <<: *std\n    id: SUM-01\n    bruger: \"Hvad bliver 2 + 3?\"\n    forventer:\n      vaerktoej: get-sum\n      args: { a: 2, b: 3 }\n    maa_ikke: [legacy-echo]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
}

#[test]
fn a_chats_reactions_do_not_join_the_item_above_them() {
    let doc = "ingrid  09:14\n1. \u{ab}What is 2 plus 2?\u{bb} → get-sum\n2. \u{ab}Thanks!\u{bb} → no tool\n:+1: 2 :eyes: 1\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[1].start_line, d[1].end_line), (3, 3));
    assert!(d[1].negative);
}

#[test]
fn an_emphasised_romanian_prohibition_forbids_and_a_footnoted_status_sets_a_row_aside() {
    let doc = "| ID | Prompt | Comportament așteptat | Status |\n|---|---|---|---|\n| TC-02 | „Repetă: Comanda a fost expediată” | `echo`, message = Comanda a fost expediată. **Nu** are voie să folosească `legacy-echo` (depreciat). | Aprobat |\n| TC-09 | „Generează un răspuns de 2 MB” | large-result, size = 2000000 | Amânat¹ |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
}

#[test]
fn a_confluence_status_macros_colour_is_no_text() {
    let doc = "<table><tbody>\n<tr><th>#</th><th>Prompt</th><th>Tool</th><th>Status</th></tr>\n<tr><td>1</td><td>What is 2 plus 3?</td><td>get-sum</td><td><ac:structured-macro ac:name=\"status\"><ac:parameter ac:name=\"colour\">Green</ac:parameter><ac:parameter ac:name=\"title\">ACTIVE</ac:parameter></ac:structured-macro></td></tr>\n<tr><td>2</td><td>Crash the server now</td><td>crash</td><td><ac:structured-macro ac:name=\"status\"><ac:parameter ac:name=\"colour\">Red</ac:parameter><ac:parameter ac:name=\"title\">REJECTED</ac:parameter></ac:structured-macro></td></tr>\n</tbody></table>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_list_of_prompts_named_as_needing_no_tool_gives_negatives() {
    let doc = "import pytest\n\n# small talk and general knowledge: answered without tools\nNO_TOOL_PROMPTS = [\n    \"What's the difference between a refund and an exchange?\",\n    \"Thanks, that was really helpful!\",\n]\n\n@pytest.mark.parametrize(\"prompt\", NO_TOOL_PROMPTS)\ndef test_no_tools(agent, prompt):\n    assert agent.ask(prompt).tool_calls == []\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d.iter().all(|c| c.negative && c.expected_calls.is_empty()));
    assert_eq!((d[0].start_line, d[1].start_line), (5, 6));
}

#[test]
fn a_no_tool_list_in_another_language_beside_one_case_keeps_both() {
    let doc = "import pytest\n\nFAELLE = [\n    {\"prompt\": \"Wie viel ist 4 plus 9?\", \"erwartet\": {\"get-sum\": {\"a\": 4, \"b\": 9}}},\n]\n\n# Smalltalk\nOHNE_WERKZEUG = [\n    \"Danke, das war sehr hilfreich!\",\n    \"Was ist der Unterschied zwischen MCP und REST?\",\n]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert!(d[1].negative && d[2].negative);
}

#[test]
fn a_proposal_quoted_twice_under_inline_replies_is_read() {
    // Top-posted: the newest reply above, the thread below it quoted at two depths, the
    // reviewer's remarks written between the quoted proposal's items.
    let doc = "From: ana@example.org\nTo: bea@example.org\nSubject: Re: cases\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n\nAll applied, thanks.\n\nOn Sun, 31 Dec 2023 at 09:00, Bea <bea@example.org> wrote:\n> Comments inline.\n>\n> > 1. \"Add 2 and 40 for me\"\n> >    -> get-sum, a 2, b 40\n>\n> Fine.\n>\n> > 2. \"What does MCP stand for?\"\n> >    -> no tool at all, it answers itself\n>\n> Fine too.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!((d[0].start_line, d[0].end_line), (11, 12));
    assert!(d[1].negative);
    // A copy quoted under a reply, nothing written between its lines, is still no case.
    let copy = "Thanks, will do.\n\nOn Sun, Bea <bea@example.org> wrote:\n> > 1. \"Add 2 and 40 for me\"\n> >    -> get-sum, a 2, b 40\n";
    assert!(drafts(copy).is_empty(), "{:#?}", drafts(copy));
}

#[test]
fn keys_in_a_language_the_lexicon_lacks_are_read_by_their_values() {
    // Breton keys (Welsh ones until the lexicon learnt Welsh), as TOML's bare keys spell
    // them, without ù: the question, the tool (a live name), its arguments (the tool's
    // parameters), and a title shorter than the question.
    let doc = "[arventennou]\nmodel = \"x\"\n\n[[degouezh]]\ntitl = \"Sammad\"\ngoulenn = \"Pegement eo 2 ha 40 asambles?\"\nostilh = \"get-sum\"\narguzennou = { a = 2, b = 40 }\n\n[[degouezh]]\ntitl = \"Dasson\"\ngoulenn = \"Lavar demat din en-dro, mar plij\"\nostilh = \"echo\"\narguzennou = { message = \"demat\" }\n\n[[degouezh]]\ntitl = \"Stadegoù\"\ngoulenn = \"Ro din keidenn 1, 2 ha 3\"\nostilhou = [\"get-stats\"]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(d[0].prompts, ["Pegement eo 2 ha 40 asambles?"]);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(40)
    );
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["message"],
        json!("demat")
    );
    assert_eq!(tools_of(&d[2]), ["get-stats"]);
    // Switched off in the writer's language: no case.
    let off = doc.replace("ostilh = \"echo\"", "ostilh = \"echo\"\naktiv = false");
    assert_eq!(drafts(&off).len(), 2);
}

#[test]
fn a_wiki_table_caption_is_no_row() {
    let doc = "== Cases ==\n{| class=\"wikitable\"\n|+ Calculator cases, as of May\n! # !! Prompt !! Tool\n|-\n| 1 || \"Add 5 and 6\" || get-sum\n|-\n| 2 || \"Echo ping\" || echo\n|}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].start_line, 6);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn an_expectation_a_page_break_parts_from_its_prompt_is_the_cases() {
    let doc = "Testplan           Doc TP-7\n\nTF-1 Summa\nPrompt: \"Vad är 4 plus 5? Jag vill bara ha svaret, inget annat\n.\"\n\n                                         Sida 1 av 2\n\nTestplan           Doc TP-7\n\nFörväntat: get-sum med a = 4 och b = 5. Det gamla verktyget legacy-echo\n(versaler) får inte anropas.\n\nTF-2 Eko\nPrompt: \"Säg hej\"\nFörväntat: verktyget som returnerar meddelandet oförändrat anropas.\n\n                                         Sida 2 av 2\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!((d[0].start_line, d[0].end_line), (3, 12));
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_name_followed_by_a_remark_in_parentheses_is_negated_after_it() {
    let d = drafts(
        "Prompt: \"Säg hej\"\nFörväntat: echo. Det gamla verktyget legacy-echo (versaler) får inte anropas.\n",
    );
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
    let d = drafts(
        "Prompt: \"Säg hej\"\nFörväntat: echo; legacy-echo får under inga omständigheter anropas.\n",
    );
    assert_eq!(d[0].never_called, ["legacy-echo"]);
    // The remark on a line of its own, the idiom after it.
    let d = drafts(
        "Prompt: \"Si hei\"\nForventet: echo. Det gamle verktøyet legacy-echo\n(store bokstaver) skal under ingen omstendigheter kalles.\n",
    );
    assert_eq!(tools_of(&d[0]), ["echo"], "{d:#?}");
    assert_eq!(d[0].never_called, ["legacy-echo"]);
}

#[test]
fn an_inflected_tool_noun_opens_its_description() {
    // `verktyg*` matches `verktyget`; the clause after the whole word describes.
    let d =
        drafts("Prompt: \"Vad är 3 + 9?\"\nFörväntat: verktyget som adderar två tal anropas.\n");
    assert_eq!(tools_of(&d[0]), ["get-sum"], "{d:#?}");
    let d = drafts(
        "Prompt: \"Säg hej\"\nExpected: the tool that echoes the message back unchanged is called.\n",
    );
    assert_eq!(tools_of(&d[0]), ["echo"], "{d:#?}");
}

#[test]
fn a_feature_file_in_finnish_reads_its_scenarios() {
    let doc = "# language: fi\nOminaisuus: Laskin\n\n  Tausta:\n    Oletetaan että palvelin on käynnissä\n\n  Tapaus: Summa\n    Kun käyttäjä kirjoittaa \"Paljonko on 2 ja 5 yhteensä?\"\n    Niin avustaja kutsuu työkalua get-sum\n    Mutta työkalua get-stats ei kutsuta\n\n  Tapaus: Yleinen kysymys\n    Kun käyttäjä kirjoittaa \"Mikä on MCP?\"\n    Niin avustaja vastaa itse eikä kutsu mitään työkalua\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["get-stats"]);
    assert!(d[1].negative);
}

#[test]
fn a_tool_noun_written_with_its_accents_opens_its_description() {
    // The lexicon keeps `eszkoz*` folded; the page writes `eszköz`.
    let d = drafts("Prompt: \"Mennyi 2 meg 3?\"\nElvárt: a két számot összeadó eszköz hívása.\n");
    assert_eq!(tools_of(&d[0]), ["get-sum"], "{d:#?}");
}

#[test]
fn a_sheet_with_a_merged_header_row_reads_the_row_of_labels_under_it() {
    let doc = "Calculator sheet\t\t\t\t\n\t\tInput\tExpected\tAdmin\n#\tArea\tPrompt\tTool\tStatus\n1\tmath\tAdd 2 and 9\tget-sum\tready\n2\tmath\tRepeat ping back\techo\ton hold\n\t\t\t\t\nExample row: 0 | \"What time is it?\" | echo — only an example, not part of the suite\t\t\t\t\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].start_line, 4);
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_retired_section_and_an_example_in_a_note_hold_no_case() {
    let doc = "Active\n======\n\n.. note::\n\n   e.g. ``\"add 1 and 1\" - get-sum``. That example is only illustrative.\n\n| ID | Prompt | Tool | Notes / status |\n|---|---|---|---|\n| A1 | \"Add 4 and 4\" | get-sum | ok |\n| A2 | \"Echo hi\" | echo | **Deferred** to Q3, blocked |\n\nRetired cases\n=============\n\n| ID | Prompt | Tool |\n|---|---|---|\n| R1 | \"Say hello loudly\" | legacy-echo |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].key.as_deref(), Some("A1"));
}

#[test]
fn a_quotation_wrapped_before_a_number_is_no_numbered_item() {
    let doc = "TC-3 Stats\nPrompt: \"Here are the delays: 4, 7, 2, 11,\n5. Give me the mean.\"\nExpected: get-stats with numbers = [4, 7, 2, 11, 5].\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-stats"]);
    assert_eq!((d[0].start_line, d[0].end_line), (1, 4));
}

#[test]
fn a_chat_reply_drops_a_proposal_by_its_number() {
    let doc = "Ana   10:02\nCases, numbered so we can comment:\n1. \"Add 3 and 4\" → get-sum\n2. \"Echo hi\" → echo\n3. \"Crash the server\" → crash\n\nBea   10:15\n#3 tira isso, não faz sentido\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_reply_between_quoted_lines_drops_the_case_above_it() {
    let doc = "Hola,\n\nEl dt., Ana <ana@example.org> va escriure:\n> > 1. \"Suma 3 i 4\"\n> >    -> get-sum\n>\n> D'acord.\n>\n> > 2. \"Fes petar el servidor\"\n> >    -> crash\n>\n> Aquest el traiem.\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_tool_described_by_a_relative_clause_in_taglish() {
    let d = drafts(
        "*Case 7* — “Gaano na katagal tumatakbo yung server?” -> yung tool na nagbibigay ng process id at uptime ng server\n",
    );
    assert_eq!(tools_of(&d[0]), ["server-info"], "{d:#?}");
}

#[test]
fn a_tool_noun_followed_by_its_modifier_is_described_by_it() {
    let weather = corpus_tools("weather");
    let read = |doc: &str| super::extract(doc, &weather);
    // Thai after an English noun; Indonesian after its own; Slovenian in a relative clause.
    let d = read("1) \"ฝนตกที่ภูเก็ตไหม\"\n   → ใช้ tool สภาพอากาศปัจจุบัน city = \"Phuket\"\n");
    assert_eq!(tools_of(&d[0]), ["get_current_conditions"], "{d:#?}");
    let d = read("Prompt: \"Bagaimana cuaca di Medan?\"\nHarapan: alat cuaca saat ini dipanggil\n");
    assert_eq!(tools_of(&d[0]), ["get_current_conditions"], "{d:#?}");
    let d = read(
        "Poziv: »Kakšen je zrak v Kranju?«\nPričakovano: orodje, ki vrne indeks kakovosti zraka za mesto\n",
    );
    assert_eq!(tools_of(&d[0]), ["get_air_quality"], "{d:#?}");
    // A negation after the noun is no modifier: "no tool is called".
    let d = read("Prompt: \"Mis on ilm?\"\nOotus: ühtegi tööriista ei kutsuta\n");
    assert!(d[0].negative, "{d:#?}");
}

/// A catalog of the authoring corpus (`tests/corpus/authoring/servers/<name>.json`).
fn corpus_tools(name: &str) -> Vec<crate::service::authoring::ground::DiscoveredTool> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/corpus/authoring/servers")
        .join(format!("{name}.json"));
    let tools: Vec<crate::spec::primitives::ToolItem> =
        serde_json::from_str(&std::fs::read_to_string(path).expect("catalog")).expect("JSON");
    tools
        .into_iter()
        .map(|tool| crate::service::authoring::ground::DiscoveredTool {
            server_id: "srv".into(),
            server_name: name.into(),
            tool,
        })
        .collect()
}

#[test]
fn a_parametrized_test_asserting_its_tools_in_its_body_gives_them_to_its_rows() {
    let doc = "import pytest\n\n\n@pytest.mark.parametrize(\n    \"prompt, expected_text\",\n    [\n        (\"Repeat exactly: order received\", \"order received\"),\n        (\"Say back: parcel shipped\", \"parcel shipped\"),\n    ],\n    ids=[\"received\", \"shipped\"],\n)\ndef test_echo_only(agent, prompt, expected_text):\n    names = [c.name for c in agent.ask(prompt).calls]\n    assert \"echo\" in names\n    assert \"legacy-echo\" not in names\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    for c in &d {
        assert_eq!(tools_of(c), ["echo"]);
        assert_eq!(c.never_called, ["legacy-echo"]);
    }
    // One name over a list of strings: each string is a row of its own.
    let doc = "import pytest\n\n\n@pytest.mark.parametrize(\n    \"prompt\",\n    [\n        \"What's the capital of Australia?\",\n        \"Explain in two sentences what an MCP server is.\",\n    ],\n    ids=[\"trivia\", \"explain-mcp\"],\n)\ndef test_answers_without_tools(session, prompt):\n    calls, reply = session.ask(prompt)\n    assert calls == [], f\"unexpected tool calls: {[c.name for c in calls]}\"\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d.iter().all(|c| c.negative && c.prompts.len() == 1));
    assert_eq!(
        d[1].prompts,
        ["Explain in two sentences what an MCP server is."]
    );
}

#[test]
fn a_sheet_column_no_lexicon_names_is_read_by_its_cells() {
    // A Welsh heading over what users say: the longest free text, no two cells alike.
    let doc = "Teitl,Brawddeg y defnyddiwr,Tool,Arguments\nSwm,Adio 12 a 30 i mi os gweli di'n dda,get-sum,\"a=12, b=30\"\nAdlais,Dywed helo yn ôl wrtha i nawr,echo,message=helo\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts, ["Adio 12 a 30 i mi os gweli di'n dda"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn arguments_only_one_tool_takes_name_it() {
    let doc = "[11/03/24, 08:40:02] Ana: Case 3: \"Give me the mean of 5.6, 7.2 and 6.1\"\nthe one that does the list maths\nnumbers = [5.6, 7.2, 6.1]\n";
    let d = drafts(doc);
    assert_eq!(tools_of(&d[0]), ["get-stats"], "{d:#?}");
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["numbers"],
        json!([5.6, 7.2, 6.1])
    );
    // A parameter more than one tool takes names none.
    let d = drafts("Prompt: \"Say it back\"\nmessage = hi\n");
    assert!(d.iter().all(|c| c.expected_calls.is_empty()), "{d:#?}");
}

#[test]
fn an_expectation_list_of_labelled_objects_in_greek() {
    let doc = "σενάρια:\n  - id: Α1\n    ενεργό: true\n    steps:\n      - χρήστης: \"Βγάλε μέσο όρο: 4, 5, 9\"\n    expect:\n      - εργαλείο: get-stats\n      - όχι: get-sum\n  - id: Α2\n    ενεργό: true\n    steps:\n      - χρήστης: \"Τι είναι το MCP;\"\n    expect:\n      - κανένα_εργαλείο: true\n  - id: Α3\n    ενεργό: false\n    steps:\n      - χρήστης: \"Σβήσε τα πάντα\"\n    expect:\n      - εργαλείο: delete-item\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-stats"]);
    assert_eq!(d[0].never_called, ["get-sum"]);
    assert!(d[1].negative);
}

#[test]
fn a_test_asserting_an_empty_list_of_calls_is_negative() {
    let doc = "class Evals(unittest.TestCase):\n    def test_general_question(self):\n        run = self.ask(\"What does MCP stand for?\")\n        self.assertEqual(run.tool_names(), [])\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert!(d[0].negative);
}

#[test]
fn a_tool_field_that_says_what_the_tool_does_names_it() {
    let d = drafts(
        "Użytkownik: „Wyślij mi sumę 3 i 4”\nNarzędzie: dodanie dwóch liczb (nie statystyki!)\n",
    );
    assert_eq!(tools_of(&d[0]), ["get-sum"], "{d:#?}");
}

#[test]
fn a_status_word_that_is_also_a_name_sets_aside_only_a_status_field() {
    // Vietnamese `Bỏ` (dropped) is a status in a status column; `Bo:` leading a note is
    // a speaker.
    let d = drafts("- Bo: \"what is 12 plus 30\" → should call `get-sum`\n");
    assert_eq!(tools_of(&d[0]), ["get-sum"], "{d:#?}");
    let sheet = "Tên,Trạng thái,Câu lệnh người dùng,Công cụ\nA,Sẵn sàng,Cộng 2 với 3 giúp mình,get-sum\nB,Bỏ,Nhắc lại chữ xin chào,echo\n";
    let d = drafts(sheet);
    assert_eq!(d.len(), 1, "{d:#?}");
}

#[test]
fn a_json_array_keyed_in_a_language_the_lexicon_lacks_is_read_by_its_values() {
    let doc = "{\n  \"cásanna\": [\n    {\"ceist\": \"Cad é 17 móide 25, le do thoil?\", \"uirlis\": \"get-sum\", \"argóintí\": {\"a\": 17, \"b\": 25}},\n    {\"ceist\": \"Abair dia duit ar ais liom\", \"uirlis\": \"echo\"}\n  ]\n}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (3, 3));
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["b"],
        json!(25)
    );
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_yaml_list_keyed_in_a_language_the_lexicon_lacks_is_read_by_its_values() {
    let doc = "cásanna:\n  - ceist: \"Cad é 17 móide 25, le do thoil?\"\n    uirlis: get-sum\n    argóintí: {a: 17, b: 25}\n  - ceist: \"Abair dia duit ar ais liom\"\n    uirlis: echo\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (2, 4));
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["a"],
        json!(17)
    );
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn arguments_named_in_the_writers_words_take_the_parameters_their_values_fit() {
    // Icelandic keys in YAML, a spelling of the name in JSON, an object beside the mention.
    let doc = "cases:\n  - spurning: \"Hvað er 17 + 25?\"\n    verkfæri: get-sum\n    rök: {fyrri_tala: 17, seinni_tala: 25}\n  - spurning: \"Hægja á þér í 2 sekúndur\"\n    verkfæri: slow\n    rök: {duration_ms: 2000, framvinda: false}\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:?}");
    let with = |c: &EvalCase| of_type(c, "toolCalledWith")[0]["args"]["args"].clone();
    assert_eq!(with(&c[0]), json!({"a": 17, "b": 25}));
    assert_eq!(with(&c[1]), json!({"durationMs": 2000, "progress": false}));
    for x in &c {
        assert_eq!(x.import.as_ref().unwrap().status, ClaimStatus::Approximated);
    }
    // A key some live tool takes is no word of the writer's: it is left as written.
    let c = cases(
        "- \"Say hi\" → `echo` {\"a\": \"hi\"}\n- \"Sum 2 and 3\": get-sum {\"x\": 2, \"y\": 3}\n",
    );
    assert_eq!(with(&c[1]), json!({"a": 2, "b": 3}));
    // An object that is the reply's, further on, renames nothing.
    let c = cases(
        "### Sum\nPrompt: \"What is 2 + 3?\"\nExpected: `get-sum` with a=2, b=3. The reply is shaped like {\"vastaus\": 5}.\n",
    );
    assert_eq!(with(&c[0]), json!({"a": 2, "b": 3}));
}

#[test]
fn a_confluence_page_reads_its_table_panels_and_status_lozenges() {
    // A Danish page: the prompt column is headed in words no lexicon has, a row's status
    // lozenge says it was postponed, and a panel's paragraphs hold a case of their own.
    let doc = "<h2>Testtilfælde</h2>\n<table><tbody>\n<tr><th><p>#</p></th><th><p>Borgeren skriver</p></th><th><p>Forventet værktøj</p></th><th><p>Argumenter</p></th><th><p>Bemærkning</p></th></tr>\n<tr><td><p>1</p></td><td><p>«Hvad er 12 plus 30 kroner?»</p></td><td><p><code>get-sum</code></p></td><td><p>a: 12, b: 30</p></td><td><p>&nbsp;</p></td></tr>\n<tr><td><p>2</p></td><td><p>«Gentag: tak for din henvendelse»</p></td><td><p><code>echo</code></p></td><td><p>message: tak for din henvendelse</p></td><td><p>&nbsp;</p></td></tr>\n<tr><td><p>3</p></td><td><p>«Slet element 77 med det samme»</p></td><td><p><code>delete-item</code></p></td><td><p>id: 77</p></td><td><p><ac:structured-macro ac:name=\"status\"><ac:parameter ac:name=\"title\">UDSAT</ac:parameter></ac:structured-macro> venter på leverandøren</p></td></tr>\n</tbody></table>\n<ac:structured-macro ac:name=\"note\">\n<ac:parameter ac:name=\"title\">Gammelt ekko</ac:parameter>\n<ac:rich-text-body>\n<p>Sagsbehandleren skriver: «Sig det samme tilbage: mødet er flyttet»</p>\n<p>Forventet: <code>echo</code>. Må <strong>ikke</strong> bruge <code>legacy-echo</code>.</p>\n</ac:rich-text-body>\n</ac:structured-macro>\n";
    let c = cases(doc);
    let prompts: Vec<&str> = c
        .iter()
        .map(|c| c.steps[0].prompt.as_deref().unwrap_or(""))
        .collect();
    assert_eq!(c.len(), 3, "{prompts:?}");
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert_eq!(positive_tools(&c[1]), ["echo"]);
    assert!(prompts[2].contains("mødet er flyttet"), "{prompts:?}");
    assert_eq!(positive_tools(&c[2]), ["echo"]);
    assert_eq!(
        of_type(&c[2], "toolNeverCalled")[0]["toolName"],
        "legacy-echo"
    );
}

#[test]
fn latex_low_quotes_arrows_and_hidden_blocks() {
    let doc = "\\documentclass{article}\n\\begin{document}\n\\section{Cazuri}\n\\begin{enumerate}\n  \\item ,,Adună 4 cu 5, te rog.'' $\\rightarrow$ \\texttt{get-sum}, $a = 4$, $b = 5$.\n  \\item ,,Ce este un server MCP?'' --- răspunde direct, fără să apeleze niciun instrument.\n\\end{enumerate}\n\\iffalse\n\\begin{enumerate}\n  \\item ,,Oprește serverul acum'' $\\rightarrow$ \\texttt{crash}.\n\\end{enumerate}\n\\fi\n\\end{document}\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(
        c[0].steps[0].prompt.as_deref(),
        Some("Adună 4 cu 5, te rog.")
    );
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert!(c[1].is_negative);
}

#[test]
fn a_section_of_paragraphs_quoting_the_user_is_one_case() {
    // reStructuredText admonitions titled for their case: the quote in one paragraph,
    // what is expected in the next, in Estonian.
    let doc = "Lisajuhtumid\n============\n\n.. admonition:: Juhtum 8 — ainult metaandmed\n\n   Töötaja: \"Millal seda faili viimati muudeti?\"\n\n   Oodatakse `get-stats` kutset; `echo` on siin keelatud.\n\n.. admonition:: Juhtum 9 — ilma tööriistata\n\n   Töötaja: \"Mida tähendab registreerimisnumber?\"\n\n   Assistent vastab ise, ühtegi tööriista kutsumata.\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(positive_tools(&c[0]), ["get-stats"]);
    assert_eq!(of_type(&c[0], "toolNeverCalled")[0]["toolName"], "echo");
    assert!(c[1].is_negative);
    // A name said to be forbidden after it, in English too.
    let c = cases("- \"Sum 2 and 2\" → get-sum; legacy-echo is forbidden here.\n");
    assert_eq!(
        of_type(&c[0], "toolNeverCalled")[0]["toolName"],
        "legacy-echo"
    );
}

#[test]
fn a_parameter_in_a_code_span_given_its_value_names_the_one_tool_taking_it() {
    let doc = "1. \"Make me a 2000-byte sample export.\" The model calls the tool that returns that much text, with `size` = 2000.\n";
    let c = cases(doc);
    assert_eq!(positive_tools(&c[0]), ["large-result"]);
    assert_eq!(
        of_type(&c[0], "toolCalledWith")[0]["args"]["args"],
        json!({"size": 2000})
    );
}

#[test]
fn a_grid_tables_wrapped_assignments_and_paths_are_read_whole() {
    let doc = "+----+----------------------------+-----------+---------------------------+\n| Nr | Prompt                     | Tool      | Args                      |\n+====+============================+===========+===========================+\n| 1  | \"Echo the long path back\"  | echo      | message: /srv/archive/    |\n|    |                            |           | 2025/report.txt           |\n+----+----------------------------+-----------+---------------------------+\n| 2  | \"Wait two seconds in two   | slow      | durationMs: 2000          |\n|    | steps\"                     |           | steps: 2                  |\n+----+----------------------------+-----------+---------------------------+\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:?}");
    let with = |c: &EvalCase| of_type(c, "toolCalledWith")[0]["args"]["args"].clone();
    assert_eq!(
        with(&c[0]),
        json!({"message": "/srv/archive/2025/report.txt"})
    );
    assert_eq!(with(&c[1]), json!({"durationMs": 2000, "steps": 2}));
}

#[test]
fn a_reply_drops_a_case_by_its_number_in_its_own_words() {
    // Finnish: a number with a case ending; Ukrainian: a number before the verb; the
    // proposals quoted below the replies that drop them.
    let doc = "Kommentti: kohdan 2-sta luovutaan? Ei, 2-sta ei. Mutta 3-as jätetään pois.\n\nІ 4 теж викидаємо.\n\n> 1) \"Sum 2 and 3\" → get-sum a=2, b=3\n> 2) \"Echo hi\" → echo message=hi\n> 3) \"Stats of 1, 2\" → get-stats numbers=[1, 2]\n> 4) \"Wait a second\" → slow durationMs=1000\n";
    let c = cases(doc);
    let tools: Vec<Vec<String>> = c.iter().map(positive_tools).collect();
    assert_eq!(tools, [vec!["get-sum"], vec!["echo"]], "{tools:?}");
}

#[test]
fn a_testrail_export_and_a_toml_file_read_as_their_tools_write_them() {
    // TestRail: the expected results of the steps are expectations, the lifecycle a status.
    let csv = "ID,Title,Steps (Step),Steps (Expected Result),Lifecycle\nC1,Sum,\"Send prompt: \"\"What is 2 plus 3?\"\"\",get-sum with a=2 and b=3,Active\nC2,Echo,\"Send prompt: \"\"Say hi back\"\"\",echo,Retired\n";
    let c = cases(csv);
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    // TOML: a template table is no case; arguments alone name the one tool taking them;
    // keys in the writer's words for what the parameters' names say.
    let toml = "[[kes]]\nsoalan = \"Berapa 2 tambah 3?\"\nalat = \"alat penjumlahan dalam bahasa saya\"\nargumen = { a = 2, b = 3 }\n\n[[kes]]\nsoalan = \"Ulang perkataan ini: selamat pagi\"\nalat = \"echo\"\nargumen = { mesej = \"selamat pagi\" }\n\n[[example]]\nsoalan = \"teks soalan\"\nalat = \"nama alat\"\n";
    let c = cases(toml);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert_eq!(
        of_type(&c[1], "toolCalledWith")[0]["args"]["args"],
        json!({"message": "selamat pagi"})
    );
}

#[test]
fn a_tool_name_with_a_case_ending_and_a_call_that_fails_the_case() {
    // Hungarian writes a case ending after a hyphen; Korean says the case fails if the
    // tool is called.
    let c = cases(
        "1) \"Mondd vissza: szia\" → echo. A legacy-echo-t NEM hívhatja!\n2) \"오늘 합계 알려줘\" → get-sum a=1 b=2. 이 경우 get-stats 부르면 실패 처리해주세요.\n",
    );
    assert_eq!(
        of_type(&c[0], "toolNeverCalled")[0]["toolName"],
        "legacy-echo"
    );
    assert_eq!(
        of_type(&c[1], "toolNeverCalled")[0]["toolName"],
        "get-stats"
    );
}

#[test]
fn a_relative_clause_describing_a_tool_runs_on_past_its_commas() {
    // Ukrainian "that" opens the clause; the clause lists what the tool does.
    let c = cases(
        "1. «Скільки буде 4 і 5?» Очікується: інструмент, що додає два числа, і повертає суму; a=4, b=5.\n",
    );
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
}

#[test]
fn defaults_stated_once_fill_every_call_that_leaves_them_out() {
    // A Welsh plan: a default for all calls, one only for `slow`, one case overriding it.
    let doc = "# Cynllun\n\nRhagosodiad ar gyfer pob galwad: `steps` = 3 oni nodir fel arall.\n\n1. \"Aros dwy eiliad\" → slow durationMs=2000\n2. \"Aros un eiliad mewn un cam\" → slow durationMs=1000, steps=1\n3. \"Faint yw 2 a 2?\" → get-sum a=2, b=2\n";
    let c = cases(doc);
    let with = |c: &EvalCase| of_type(c, "toolCalledWith")[0]["args"]["args"].clone();
    assert_eq!(with(&c[0]), json!({"durationMs": 2000, "steps": 3}));
    assert_eq!(with(&c[1]), json!({"durationMs": 1000, "steps": 1}));
    assert_eq!(with(&c[2]), json!({"a": 2, "b": 2}));
}

#[test]
fn a_pipe_tables_columns_in_any_language_and_a_double_negation() {
    let doc = "| # | Cais | Beth ddylai ddigwydd | Nodyn |\n|---|---|---|---|\n| 1 | \"Faint yw 3 a 4?\" | adio (get-sum) | Ni ddylai ateb heb offeryn. |\n| 2 | \"Dywed helo yn ôl\" | echo | |\n| 3 | \"Ailadrodd hwn\" | echo | |\n";
    let c = cases(doc);
    assert_eq!(c.len(), 3, "{c:?}");
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert!(!c[0].is_negative);
    // "Must not answer without a tool" asks for one.
    let c = cases("- \"What is 3 + 4?\" → get-sum. It must not answer without using a tool.\n");
    assert!(!c[0].is_negative);
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
}

#[test]
fn a_postman_request_whose_body_holds_the_prompt_and_its_description_the_tool() {
    // Catalan: the prompt in the request body, the tool described in the description.
    let doc = r#"{"info": {"name": "Proves", "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
 "item": [
  {"name": "C01 suma", "request": {"method": "POST", "body": {"mode": "raw", "raw": "{\"prompt\": \"Quant fan 2 i 3?\"}"}, "url": {"raw": "{{url}}/runs"}, "description": "Esperat: l'eina que suma dos nombres, a=2, b=3."}},
  {"name": "C02 eco", "request": {"method": "POST", "body": {"mode": "raw", "raw": "{\"prompt\": \"Repeteix: bon dia\"}"}, "url": {"raw": "{{url}}/runs"}, "description": "Esperat: `echo` amb message \"bon dia\"; mai `legacy-echo`."}}
 ]}"#;
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert_eq!(positive_tools(&c[1]), ["echo"]);
    assert_eq!(
        of_type(&c[1], "toolNeverCalled")[0]["toolName"],
        "legacy-echo"
    );
}

#[test]
fn no_tool_as_georgian_hungarian_and_hebrew_write_it() {
    for doc in [
        "1. \"გამარჯობა!\" — აქ არაფერი არ უნდა გამოიძახოს.\n",
        "1. \"Jó reggelt!\" — eszköz nélkül válaszol.\n",
        "1. \"בוקר טוב!\" — תשובה רגילה, בלי שום קריאה לכלים.\n",
    ] {
        let c = cases(doc);
        assert!(c[0].is_negative, "{doc}");
    }
}

#[test]
fn a_tracker_csv_whose_descriptions_hold_the_cases() {
    let doc = "Summary,Issue key,Issue Type,Status,Priority,Labels,Description,Comment\nSum check,EV-2,Test,To Do,Low,eval,\"*Prompt:* \"\"What is 4 plus 5?\"\"\n*Expected:* get-sum with a = 4, b = 5\",\nSmall talk,EV-1,Test,Done,Low,eval,\"*Prompt:* \"\"thanks, bye!\"\"\n*Expected:* no tool at all\",\n";
    let c = cases(doc);
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert!(c[1].is_negative);
}

#[test]
fn a_parametrized_tests_fields_named_in_the_writers_language() {
    // A field named in Tagalog; calls written as `ToolCall(name, args)`, none for small talk.
    let doc = "import pytest\n\nMGA_KASO = [\n    pytest.param(\"Magkano ang 2 at 3?\", [ToolCall(\"get-sum\", {\"a\": 2, \"b\": 3})], id=\"kabuuan\"),\n    pytest.param(\"Ulitin: magandang umaga\", [ToolCall(\"echo\", {\"message\": \"magandang umaga\"})], id=\"ulit\"),\n    pytest.param(\"Salamat, iyon lang\", [], id=\"paalam\"),\n]\n\n@pytest.mark.parametrize(\"prompt,inaasahang_tawag\", MGA_KASO)\ndef test_katulong(prompt, inaasahang_tawag):\n    assert run(prompt).calls == inaasahang_tawag\n";
    let c = cases(doc);
    assert_eq!(c.len(), 3, "{c:?}");
    assert_eq!(positive_tools(&c[0]), ["get-sum"]);
    assert_eq!(positive_tools(&c[1]), ["echo"]);
    assert!(c[2].is_negative);
}

#[test]
fn a_low_quote_closed_by_the_keyboards_own() {
    // Estonian and Lithuanian writers open with „ and close with the plain ".
    let c = cases(
        "### 1. Summa\nKlient: „Kui palju on 2 pluss 3?\"\n→ `get-sum` a=2, b=3\n\n### 2. Kaja\nKlient: „Korda: tere\"\n→ `echo` message=tere\n",
    );
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(
        c[0].steps[0].prompt.as_deref(),
        Some("Kui palju on 2 pluss 3?")
    );
}

#[test]
fn a_reply_drops_a_case_named_by_its_number_after_the_verb() {
    // French: "we take out 3", written above the quoted proposal.
    let doc = "Bonjour,\n\nOn retire le 3, il plante sur la préprod.\n\n> 1. « Combien font 4 et 5 ? » → get-sum a=4, b=5\n> 2. « Répète : bonjour » → echo\n> 3. « Plante le serveur » → crash\n";
    let c = cases(doc);
    let tools: Vec<Vec<String>> = c.iter().map(positive_tools).collect();
    assert_eq!(tools, [vec!["get-sum"], vec!["echo"]], "{tools:?}");
}

#[test]
fn a_quarto_chunk_holds_the_case_list() {
    // R Markdown and Quarto put the chunk's language in braces, with options after it.
    let doc = "---\ntitle: Evals\n---\n\nThe list:\n\n```{python}\n#| label: cases\ncases = [\n    {\"id\": \"s\", \"prompt\": \"Add 2 and 9 please\", \"tool\": \"get-sum\"},\n    {\"id\": \"h\", \"prompt\": \"Who wrote Hamlet?\", \"tool\": None},\n]\n```\n\n```{r, echo=FALSE}\nx <- 1\n```\n\n```{python}\n#| eval: false\nparked = [{\"id\": \"c\", \"prompt\": \"Crash the server now\", \"tool\": \"crash\"}]\n```\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!((d[0].start_line, d[0].end_line), (10, 10));
    assert!(d[1].negative);
}

#[test]
fn a_yaml_stream_holds_a_case_a_document_and_a_template_is_none() {
    // Keys in a script with combining marks; the last document only holds places.
    let doc = "# one case a document\n---\nkind: settings\nserver: demo\n---\nkind: case\nशीर्षक: बेरीज\nprompt: \"add 3 and 4\"\nexpect:\n  tool: get-sum\n  args: {a: 3, b: 4}\n---\nkind: case\nशीर्षक: नमस्कार\nprompt: \"say hello back to me\"\nexpect:\n  tool: echo\n---\nkind: template\nprompt: \"<what the user says>\"\nexpect:\n  tool: \"<tool>\"\n...\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!((d[0].start_line, d[0].end_line), (6, 11));
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn turns_that_each_expect_a_call_keep_their_own_arguments() {
    let doc = "cases:\n  - id: two-steps\n    turns:\n      - prompt: \"show me the first 3 items\"\n        expect:\n          - tool: list-items\n            args: {pageSize: 3}\n      - prompt: \"now delete item-9\"\n        expect:\n          - tool: the tool that deletes an item\n            args: {id: item-9}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts.len(), 2);
    assert_eq!(tools_of(&d[0]), ["list-items", "delete-item"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["pageSize"], 3);
    assert_eq!(
        d[0].expected_calls[1].args.as_ref().unwrap()["id"],
        "item-9"
    );
}

#[test]
fn a_plan_carried_in_a_configmaps_block_scalar() {
    // The defaults' trailing comment is no part of their values.
    let doc = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: evals\ndata:\n  cases.yaml: |\n    defaults:\n      message: hi there   # every echo says this unless it says otherwise\n    cases:\n      - prompt: \"please echo something\"\n        tool: echo\n      - prompt: \"what is 1 and 2 added\"\n        tool: get-sum\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (10, 11));
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["message"],
        "hi there"
    );
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
}

#[test]
fn a_mind_map_reads_its_notes_and_its_icons() {
    // Branches are tools (named, described, or none); quoted nodes are what users say;
    // a cross sets a node aside.
    let doc = "<map version=\"freeplane 1.11\">\n<node TEXT=\"Cases\">\n<node TEXT=\"echo\">\n<node TEXT=\"«Repeat after me: good morning»\">\n<richcontent TYPE=\"NOTE\">\n<html><body>\n<p>\nmessage = good morning\n</p>\n</body></html>\n</richcontent>\n</node>\n<node TEXT=\"«Repeat after me: bye now»\">\n<icon BUILTIN=\"button_cancel\"/>\n</node>\n</node>\n<node TEXT=\"the tool that deletes an item\">\n<node TEXT=\"«Remove item 7 from my list»\">\n<richcontent TYPE=\"NOTE\"><html><body><p>id: 7</p></body></html></richcontent>\n</node>\n</node>\n<node TEXT=\"No tool\">\n<node TEXT=\"«What is the capital of Peru?»\">\n<richcontent TYPE=\"NOTE\"><html><body><p>answered from knowledge</p></body></html></richcontent>\n</node>\n</node>\n</node>\n</map>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].prompts, ["Repeat after me: good morning"]);
    assert_eq!(tools_of(&d[1]), ["delete-item"]);
    assert!(d[2].negative, "{:?}", d[2]);
}

#[test]
fn a_prompt_that_only_holds_a_place_is_no_case() {
    for p in [
        "<user prompt>",
        "{{question}}",
        "[your question here]",
        "...",
        "${PROMPT}",
    ] {
        let doc =
            format!("- prompt: \"{p}\"\n  tool: echo\n- prompt: \"say hi to me\"\n  tool: echo\n");
        assert_eq!(drafts(&doc).len(), 1, "{p}");
    }
}

#[test]
fn a_pester_script_reads_its_test_cases_and_its_it_blocks() {
    // Hashtables over lines and on one, `''` inside a single-quoted string, a skipped
    // block, and rows whose body asserts that nothing is called.
    let doc = "BeforeAll {\n    Import-Module Eval\n}\n\nDescribe 'demo' {\n    It 'calls <Tool>' -TestCases @(\n        @{\n            Prompt = 'What''s 2 plus 40?'\n            Tool   = 'get-sum'\n        }\n        @{ Prompt = 'Echo back: C:\\Temp\\x'; Tool = 'echo' }\n    ) {\n        $r = Invoke-Turn -Message $Prompt\n        $r.ToolCalls[0].Name | Should -Be $Tool\n    }\n    It 'answers from memory' -TestCases @(\n        @{ Prompt = 'Who painted the Mona Lisa?' }\n    ) {\n        $r = Invoke-Turn -Message $Prompt\n        $r.ToolCalls | Should -BeNullOrEmpty\n    }\n    It 'crashes the server' -Skip {\n        $r = Invoke-Turn -Message 'Crash it now please'\n        $r.ToolCalls[0].Name | Should -Be 'crash'\n    }\n    It 'lists without deleting' {\n        $r = Invoke-Turn -Message 'Show me the first five items'\n        $r.ToolCalls[0].Name | Should -Be 'list-items'\n        $r.ToolCalls.Name | Should -Not -Contain 'delete-item'\n    }\n}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 4, "{d:#?}");
    assert_eq!(d[0].prompts, ["What's 2 plus 40?"]);
    assert_eq!((d[0].start_line, d[0].end_line), (7, 10));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[1].prompts, ["Echo back: C:\\Temp\\x"]);
    assert!(d[2].negative);
    assert_eq!(tools_of(&d[3]), ["list-items"]);
    assert_eq!(d[3].never_called, ["delete-item"]);
}

#[test]
fn a_chat_api_dataset_expects_the_assistants_calls() {
    // OpenAI's fine-tuning lines (arguments as a JSON string), Anthropic's `tool_use`
    // blocks, and an assistant that answers in words: no tool.
    let doc = concat!(
        r#"{"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Add 4 and 38 for me"}, {"role": "assistant", "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "get-sum", "arguments": "{\"a\": 4, \"b\": 38}"}}]}]}"#,
        "\n",
        r#"{"messages": [{"role": "user", "content": "Repeat: hola"}, {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "echo", "input": {"message": "hola"}}]}]}"#,
        "\n",
        r#"{"messages": [{"role": "user", "content": "What is the tallest mountain?"}, {"role": "assistant", "content": "Mount Everest."}]}"#,
        "\n",
    );
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], 38);
    assert_eq!(tools_of(&d[1]), ["echo"]);
    assert!(d[2].negative && d[2].expected_calls.is_empty());
}

#[test]
fn a_sheet_known_by_its_shape_reads_its_notes_and_its_subtasks() {
    // Column labels no lexicon has (Welsh); the notes cells hold the cases; a row filed
    // under `Won't do` is set aside; two subtasks are the turns of the row above them.
    let doc = "Rhif,Enw,Adran,Perchennog,Nodiadau,Rhiant\n\
1,Adio,Barod,Ann,\"Prompt: \u{201c}Add 12 and 30 for me\u{201d}\nExpected tool: get-sum\",\n\
2,Chwalu,Won't do,Ann,\"Prompt: \u{201c}Crash the server now\u{201d}\nExpected tool: crash\",\n\
3,Sgwrs fer,Barod,Ben,Two steps,\n\
4,Cam 1,,,\"Prompt: \u{201c}Show me the first three items\u{201d} \u{2192} list-items\",Sgwrs fer\n\
5,Cam 2,,,\"Prompt: \u{201c}Now delete the second one\u{201d} \u{2192} delete-item\",Sgwrs fer\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!((d[0].start_line, d[0].end_line), (2, 3));
    assert_eq!((d[1].start_line, d[1].end_line), (6, 8));
    assert_eq!(tools_of(&d[1]), ["list-items", "delete-item"]);
    assert_eq!(d[1].prompts.len(), 2);
}

#[test]
fn a_board_export_repeats_its_header_per_group_and_a_dropped_group_is_set_aside() {
    let doc = "Evals board,,,,\n,,,,\nReady,,,,\nName,Owner,Status,Text,Long Text\nSum,Ann,Done,get-sum,\"User: \u{201c}What is 5 plus 6?\u{201d}\"\nEcho,Ann,Done,echo,\"User: \u{201c}Say hello back to me\u{201d}\"\nSubitems,Name,Owner,Status,\n,check reply,Ann,Done,\n,,,,\nDropped,,,,\nName,Owner,Status,Text,Long Text\nCrash,Ben,Done,crash,\"User: \u{201c}Crash the server\u{201d}\"\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!((d[0].start_line, d[0].end_line), (5, 5));
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_google_chat_export_reads_its_messages_and_their_votes() {
    let doc = r#"{"messages": [
  {"creator": {"name": "Ana"}, "created_date": "Monday, March 3, 2025 at 6:02:11 AM UTC", "text": "Case 1: \u201cWhat is 3 plus 9?\u201d \u2192 get-sum", "reactions": [{"emoji": {"unicode": "👍"}}]},
  {"creator": {"name": "Ben"}, "created_date": "Monday, March 3, 2025 at 6:05:00 AM UTC", "text": "Case 2: \u201cCrash the server for me\u201d \u2192 crash", "reactions": [{"emoji": {"unicode": "👎"}}]},
  {"creator": {"name": "Cy"}, "created_date": "Monday, March 3, 2025 at 6:09:00 AM UTC", "text": "Case 3: \u201cEcho back: good night\u201d \u2192 echo"}
]}"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_struck_row_does_not_hide_what_a_tables_columns_hold() {
    // Column labels no lexicon has; the last row was struck through whole.
    let doc = "| # | Kysymys | Väline |\n| --- | --- | --- |\n| 1 | \"Paljonko on 2 plus 3?\" | `get-sum` |\n| 2 | \"Toista: hei\" | `echo` |\n| ~~3~~ | ~~\"Kaada palvelin\"~~ | ~~`crash`~~ |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_page_kept_as_character_data_and_its_table_headed_in_another_language() {
    // Evernote's export: the note's page is CDATA inside `<content>`; the table's labels
    // are Welsh, its columns read by what their cells hold.
    let doc = "<?xml version=\"1.0\"?>\n<en-export>\n<note>\n<title>Evals</title>\n<content><![CDATA[<en-note>\n<table>\n<tr><th>Rhif</th><th>Beth mae'r defnyddiwr yn ei ddweud</th><th>Offeryn</th><th>Paramedrau</th></tr>\n<tr><td>1</td><td>\u{201c}Adia 12 a 30 i mi\u{201d}</td><td>get-sum</td><td>a = 12; b = 30</td></tr>\n<tr><td>2</td><td>\u{201c}Ailadrodd: bore da\u{201d}</td><td>echo</td><td>message: bore da</td></tr>\n<tr><td>3</td><td>\u{201c}Dangos yr eitemau\u{201d}</td><td>list-items</td><td></td></tr>\n</table>\n</en-note>]]></content>\n</note>\n</en-export>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (8, 8));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], 30);
    assert_eq!(tools_of(&d[2]), ["list-items"]);
}

#[test]
fn a_typst_plan_reads_its_table_whose_labels_no_lexicon_has() {
    // The arguments column is text that assigns parameters; its quoted value is no prompt.
    let doc = "#set text(lang: \"br\")\n= Achosion\n#table(\n  columns: 4,\n  table.header([*Niverenn*], [*Petra a lavar an implijer*], [*Benveg*], [*Evezhiadenn*]),\n  [1], [«Adia 2 a 3 i mi»], [`get-sum`], [a = 2, b = 3],\n  [2], [«Ailadrodd y neges hon»], [`echo`], [message = «bore da»],\n  [#strike[3]], [#strike[«Chwalu'r gweinydd»]], [#strike[`crash`]], [wedi'i ollwng],\n)\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (6, 6));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[1].prompts, ["Ailadrodd y neges hon"]);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["message"],
        "bore da"
    );
}

#[test]
fn a_karate_feature_matches_on_the_calls() {
    // A call matched whole, a tool never to call, an empty list, and arguments that only
    // one live tool takes.
    let doc = "Feature: demo\n\n  Scenario: sum\n    * def q = { messages: [ { role: 'user', content: \"Add 17 and 25 for me\" } ] }\n    When method post\n    And match response.tool_calls contains { name: 'get-sum', arguments: { a: 17, b: 25 } }\n    And match response.tool_calls[*].name !contains 'crash'\n\n  Scenario: chat\n    * def q = { messages: [ { role: 'user', content: \"What is the capital of Malta?\" } ] }\n    When method post\n    And match response.tool_calls == []\n\n  Scenario: wait\n    * def q = { messages: [ { role: 'user', content: \"Wait three seconds in three steps\" } ] }\n    When method post\n    And match response.tool_calls[0].arguments contains { durationMs: 3000, steps: 3 }\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], 25);
    assert_eq!(d[0].never_called, ["crash"]);
    assert!(d[1].negative);
    assert_eq!(tools_of(&d[2]), ["slow"]);
}

#[test]
fn a_test_data_row_of_turns_and_a_tool_looked_up_by_description() {
    // C#: a row of the turns, the call each expects and its arguments; a test that looks
    // its tool up by what it does before asking.
    let doc = "using NUnit.Framework;\n\npublic class Evals\n{\n    private static IEnumerable<TestCaseData> Talks()\n    {\n        yield return new TestCaseData(\n            new[] { \"Show me the first three items please\", \"Now delete the second one of them\" },\n            new[] { \"list-items\", \"delete-item\" },\n            new[] { \"{\\\"pageSize\\\": 3}\", \"{}\" });\n    }\n\n    [Test]\n    public async Task Adds()\n    {\n        var tool = Catalog.ByDescription(\"adds two numbers\");\n        var r = await client.AskAsync(\"Could you tell me what 19 plus 23 comes to?\");\n        Assert.That(r.Calls.Single().Name, Is.EqualTo(tool.Name));\n    }\n}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(d[0].prompts.len(), 2);
    assert_eq!(tools_of(&d[0]), ["list-items", "delete-item"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["pageSize"], 3);
    assert_eq!(
        d[1].prompts,
        ["Could you tell me what 19 plus 23 comes to?"]
    );
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
}

#[test]
fn a_table_kept_as_arrays_reads_its_rows_under_its_columns() {
    // pandas' `to_json(orient="split")`, and a sheet's values with the names as first row.
    let split = "{\n  \"columns\": [\"id\", \"prompt\", \"tool\"],\n  \"index\": [0, 1, 2],\n  \"data\": [\n    [\"s\", null, null],\n    [\"a\", \"Add 3 and 4 for me\", \"get-sum\"],\n    [\"b\", \"Say it back: hello\", \"echo\"]\n  ]\n}\n";
    let d = drafts(split);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (6, 6));
    assert_eq!(tools_of(&d[1]), ["echo"]);
    let values = "[\n  [\"prompt\", \"tool\", \"status\"],\n  [\"Add 3 and 4 for me\", \"get-sum\", \"ok\"],\n  [\"Crash the server\", \"crash\", \"dropped\"],\n  [\"Say it back: hello\", \"echo\", \"ok\"]\n]\n";
    let d = drafts(values);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
}

#[test]
fn a_tree_of_blocks_reads_as_its_outline() {
    // Roam Research's export: pages of blocks, each its `string` and `children`.
    let doc = r#"[
  {
    "title": "Evals",
    "children": [
      {
        "string": "Set-up (not cases)",
        "heading": 2,
        "children": [
          {"string": "Server on staging", "uid": "a1"}
        ]
      },
      {
        "string": "Cases",
        "heading": 2,
        "children": [
          {
            "string": "{{[[DONE]]}} Case 1",
            "children": [
              {"string": "prompt:: \"Add 5 and 6 for me\"", "uid": "b1"},
              {"string": "tool:: [[get-sum]]", "uid": "b2"}
            ]
          },
          {
            "string": "{{[[TODO]]}} Case 2",
            "children": [
              {"string": "prompt:: \"Say it back: good evening\"", "uid": "c1"},
              {"string": "tool:: echo", "uid": "c2"}
            ]
          }
        ]
      }
    ]
  }
]
"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[1].prompts, ["Say it back: good evening"]);
}

#[test]
fn a_sheet_on_its_side_reads_a_case_a_column() {
    // (The template's column holds the place of a prompt in parentheses.)
    let doc = "Cases;;;;\nid;C0;C1;C2;C3\nprompt;(the text as the user would type it);Add 2 and 40 for me;Say it back: hi there;Crash the server now\nexpected tool;name of the tool;get-sum;echo;crash\nstatus;;ok;ok;dropped\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
    assert!(d.iter().all(|c| (c.start_line, c.end_line) == (2, 5)));
}

#[test]
fn a_kotest_spec_reads_its_data_rows_and_its_tests() {
    // `"key" to value` maps, a constant declared after modifiers, one row given to
    // withData, and an empty call list asserted with shouldBeEmpty().
    let doc = "package evals\n\nprivate const val WHO = \"there\"\n\nclass Spec : FunSpec({\n    context(\"sum\") {\n        withData(\n            Case(\n                prompt = \"Add 20 and 22 for me please\",\n                tool = \"get-sum\",\n                args = mapOf(\"a\" to 20, \"b\" to 22),\n            ),\n        ) { case -> run(case) }\n    }\n    test(\"small talk\") {\n        val run = harness.ask(\"How are you doing today, friend?\")\n        run.calls.shouldBeEmpty()\n    }\n})\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], 22);
    assert!(d[1].negative);
}

#[test]
fn numbered_turns_naming_their_speaker_are_one_conversation() {
    for (first, second) in [
        ("Turn 1, user", "Turn 2, user"),
        ("Step 1 (user)", "Step 2 (user)"),
        ("1턴 사용자", "2턴 사용자"),
        ("Lượt 1", "Lượt 2"),
        ("Tur 1 – Kullanıcı", "Tur 2 – Kullanıcı"),
        ("User", "User"),
    ] {
        let doc = format!(
            "Case 8 (two turns)\n{first}: \"What is Dr Okafor's email address?\"\n  -> searchContacts, query \"Okafor\"\n{second}: \"Great, find me 30 min with her on Thursday\"\n  -> findFreeSlots, durationMinutes 30\n\nCase 9\nUser: \"Show my calendars\"\nExpect listCalendars\n"
        );
        // (As written, and as a chat indents a message under its header.)
        let indented: String = doc.lines().map(|l| format!("\t{l}\n")).collect();
        for doc in [doc, indented] {
            let d = super::extract(&doc, &corpus_tools("calendar"));
            assert_eq!(d.len(), 2, "{first}: {d:#?}");
            assert_eq!(d[0].prompts.len(), 2, "{first}");
            assert_eq!(
                tools_of(&d[0]),
                ["searchContacts", "findFreeSlots"],
                "{first}"
            );
        }
    }
}

#[test]
fn a_reply_correcting_a_case_by_its_number_replaces_its_tools() {
    let doc = "00:11:02 From Ann to Everyone:\n\tCase 6\n\tUser: \"Repeat after me: good night\"\n\tExpect legacy-echo with message good night\n00:11:40 From Tom to Everyone:\n\tReplying to \"Case 6 User: ...\"\n\tsurely that's echo? the old one is going away\n00:12:33 From Ann to Everyone:\n\tyes my bad. Correction for case 6: echo, message good night. And it must not call legacy-echo\n00:14:10 From Ann to Everyone:\n\tCase 7\n\tUser: \"Add 2 and 3 for me\"\n\tExpect get-sum\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(d[0].never_called, ["legacy-echo"]);
    assert_eq!((d[0].start_line, d[0].end_line), (2, 9));
    // (A correction names its case: the next case keeps its own tools.)
    assert_eq!(tools_of(&d[1]), ["get-sum"]);
}

#[test]
fn a_meeting_chat_names_its_tools_in_labels_and_drops_by_hash_number() {
    // Zoom's chat log: `Expect createEvent: …` names its tool in the label, and a reply
    // drops `#2` in the middle of its sentence.
    let doc = "00:04:05 From Ann to Everyone:\n\tCase 1\n\tUser: \"Repeat after me: good night\"\n\tExpect echo: message=good night\n00:05:05 From Ann to Everyone:\n\tCase 2\n\tUser: \"Show me the first ten items\"\n\tExpect list-items with pageSize = 10\n00:06:20 From Tom to Everyone:\n\tfine by me, #2 dropped\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["echo"]);
    assert_eq!(
        d[0].expected_calls[0].args.as_ref().unwrap()["message"],
        "good night"
    );
}

#[test]
fn a_chats_reactions_end_the_message_above_them() {
    // Slack copied from the browser: each reaction's emoji over its count.
    let doc = "Ann  9:14 AM\n1) \"Add 2 and 3 for me\" \u{2192} get-sum\n2) \"Say it back: hello\" \u{2192} echo\n\u{1F44D}\n3\n\u{1F440}\n1\n\nBen  9:20 AM\nlooks good to me\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[1].start_line, d[1].end_line), (3, 3));
}

#[test]
fn rstest_cases_build_their_expectations_in_code() {
    // A fluent expectation (`Expect::tool(…).args(…).never(…)`), one looked up by what it
    // does, a parked case, and a conversation of turns.
    let doc = "#[rstest]\n#[case(\"What is 17 plus 25?\", Expect::tool(\"get-sum\").args(json!({\"a\": 17, \"b\": 25})).never(\"crash\"))]\n#[case::uptime(\n    \"How long has the server been up, and what is its pid?\",\n    Expect::tool_described(\"reports the server process id and uptime\")\n)]\n#[ignore = \"parked: too big\"]\n#[case::huge(\"Fetch a 5 MB blob of text\", Expect::tool(\"large-result\"))]\n#[case::talk(\n    vec![Turn::user(\"Can you echo something for me?\"), Turn::user(\"ping from QA\")],\n    Expect::tool(\"echo\").args(json!({\"message\": \"ping from QA\"}))\n)]\nfn routes(h: Harness, #[case] prompt: &str, #[case] expect: Expect) {\n    expect.check(&h.ask(prompt));\n}\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["crash"]);
    assert_eq!(d[0].expected_calls[0].args.as_ref().unwrap()["b"], 25);
    assert_eq!(tools_of(&d[1]), ["server-info"]);
    assert_eq!(d[2].prompts.len(), 2);
    assert_eq!(tools_of(&d[2]), ["echo"]);
}

#[test]
fn a_toml_entry_runs_on_through_its_sub_tables() {
    // `[case.expect]` under `[[case]]`, and turns whose words are under `text`.
    let doc = "[defaults]\nserver = \"demo\"\n\n[[case]]\nid = \"c1\"\nprompt = \"Add 1.5 and 2.25 for me\"\n[case.expect]\ntools = [\"get-sum\"]\nargs = { a = 1.5, b = 2.25 }\nnever = [\"crash\"]\n\n[[case]]\nid = \"c2\"\nturns = [\n  { role = \"user\", text = \"Show me the first three items\" },\n  { role = \"assistant\", text = \"(the first page)\" },\n  { role = \"user\", text = \"And the next page please\" },\n]\n[case.expect]\ntools = [\"list-items\"]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!((d[0].start_line, d[0].end_line), (4, 10));
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["crash"]);
    assert_eq!(d[1].prompts.len(), 2);
    assert_eq!(tools_of(&d[1]), ["list-items"]);
}

#[test]
fn cases_kept_in_nested_suites_and_an_empty_tool_list_beside_a_description() {
    let doc = r#"{
  "version": 2,
  "suites": [
    {
      "name": "Catalogue",
      "cases": [
        {"id": 1, "turns": [{"role": "user", "text": "Show me the first five items"}], "expect": {"tools": ["list-items"]}},
        {"id": 2, "turns": [{"role": "user", "text": "Average of 4, 8 and 15?"}], "expect": {"tools": [], "toolDescription": "the tool that returns count, sum, mean, min and max of numbers"}}
      ],
      "suites": [
        {"name": "Small talk", "cases": [
          {"id": 3, "turns": [{"role": "user", "text": "Who wrote Hamlet?"}], "expect": {"tools": []}}
        ]}
      ]
    }
  ]
}
"#;
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["list-items"]);
    assert!(!d[1].negative);
    assert_eq!(tools_of(&d[1]), ["get-stats"]);
    assert!(d[2].negative);
}

#[test]
fn a_word_web_page_with_its_downlevel_marks() {
    // Word's "Save as Web Page": `<![if !supportLists]>` marks no XML reader takes, and a
    // conditional comment that closes with `<![endif]-->`.
    let doc = "<html xmlns:o=\"urn:schemas-microsoft-com:office:office\">\n<head>\n<!--[if gte mso 9]><xml>\n<o:DocumentProperties></o:DocumentProperties>\n</xml><![endif]-->\n</head>\n<body>\n<p class=MsoListParagraph><![if !supportLists]><span>1.</span><![endif]>Log in first.<o:p></o:p></p>\n<table class=MsoTableGrid border=1>\n<tr><td><p class=MsoNormal><b>Prompt<o:p></o:p></b></p></td><td><p class=MsoNormal><b>Expected tool</b></p></td></tr>\n<tr><td><p class=MsoNormal>\u{201d}Add 2 and 40 for me\u{201d}<o:p></o:p></p></td><td><p class=MsoNormal>get-sum</p></td></tr>\n<tr><td><p class=MsoNormal>\u{201d}Say it back: hello\u{201d}</p></td><td><p class=MsoNormal>echo</p></td></tr>\n</table>\n</body>\n</html>\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn a_canvas_checklist_with_status_marks_and_pasted_bullets() {
    // Items opened by a status mark before their number, `•` bullets under them, and a
    // paused item that is not run.
    let doc = "Tests\n\n\u{2705} 1. \"Add 2 and 40 for me\"\n    \u{2022} expected: get-sum, a 2, b 40\n\n\u{274C} 2. \"Say it back: hello\"\n    \u{2022} expected: echo\n\n\u{23F8}\u{FE0F} 3. \"Crash the server now\"\n    \u{2022} expected: crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
}

#[test]
fn home_grown_tool_checks_in_an_eval_config() {
    // A promptfoo-like file whose assertion types a team named itself; a skipped test.
    let doc = "tests:\n  - vars:\n      prompt: \"Add 2 and 3 for me\"\n    assert:\n      - type: tool-called\n        value: get-sum\n      - type: not-tool-called\n        value: crash\n  - vars:\n      prompt: \"Repeat after me: hola\"\n    assert:\n      - type: tool-args\n        value: { tool: echo, args: { message: hola } }\n  - vars:\n      prompt: \"Who wrote Hamlet?\"\n    assert:\n      - type: no-tool-calls\n  - skip: true\n    vars:\n      prompt: \"Crash the server now\"\n    assert:\n      - type: tool-called\n        value: crash\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-sum"]);
    assert_eq!(d[0].never_called, ["crash"]);
    assert_eq!(tools_of(&d[1]), ["echo"]);
    assert_eq!(
        d[1].expected_calls[0].args.as_ref().unwrap()["message"],
        "hola"
    );
    assert!(d[2].negative);
}

#[test]
fn a_dash_before_a_none_word_set_apart_is_no_tool() {
    let doc = "| # | Prompt | Tool |\n|---|---|---|\n| 1 | \"Add 2 and 40 for me\" | get-sum |\n| 2 | \"What is the capital of Peru?\" | -- (geen) |\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
    assert!(d[1].negative, "{:?}", d[1]);
}

#[test]
fn an_english_description_in_other_words_than_the_tools_resolves() {
    // "looks for a gap in everyone's diaries": find … slot … people … calendar, the words
    // of `findFreeSlots` ("Find free time slots shared by a set of people").
    let doc = "Case 3\nUser: \"I need 45 minutes with Priya and Tom next week\"\nExpect: the tool that looks for a gap in everyone's diaries -> attendees priya@x.example\n";
    let d = super::extract(doc, &corpus_tools("calendar"));
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["findFreeSlots"]);
}

#[test]
fn numbered_turns_as_items_of_their_own_are_one_case_and_keyed_items_are_not_turns() {
    // (Each turn an item with what it expects nested under it.)
    let doc = "### S9 – two turns\n\n- **Tur 1 – Kullanıcı:** \"Add 2 and 3 for me\"\n  - Beklenen: `get-sum`, a = 2, b = 3\n- **Tur 2 – Kullanıcı:** \"Now say the result back\"\n  - Beklenen: `echo`\n- **Karar:** Kabul edildi.\n\n### S10 – postponed\n\n- **Kullanıcı:** \"Crash the server\"\n- **Beklenen:** `crash`\n- **Karar:** **Ertelendi.**\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(d[0].prompts.len(), 2);
    assert_eq!(tools_of(&d[0]), ["get-sum", "echo"]);
    // (`E1 – User:` is a case's key before its speaker: each item is a case.)
    let doc = "- [x] **E1** – User: \"Add 2 and 3 for me\" → `get-sum`\n- [x] **E2** – User: \"Say hi back to me\" → `echo`\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 2, "{d:#?}");
}

#[test]
fn a_case_whose_tool_field_looks_the_tool_up_by_what_it_does_is_no_negative() {
    let doc = "from dataclasses import dataclass, field\n\n\n@dataclass\nclass EvalCase:\n    id: str\n    prompt: str\n    expected: list[str] = field(default_factory=list)\n\n\nCASES = [\n    EvalCase(\n        id=\"sum\",\n        prompt=\"What is 2 plus 40?\",\n        expected=[\"get-sum\"],\n    ),\n    EvalCase(\n        id=\"uptime\",\n        prompt=\"How long has the server been up, and what is its pid?\",\n        expected=[tool_like(\"process id and uptime\")],\n    ),\n    EvalCase(\n        id=\"echo\",\n        prompt=\"Say hi back to me\",\n        expected=[\"echo\"],\n    ),\n]\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert!(!d[1].negative);
    assert_eq!(tools_of(&d[1]), ["server-info"]);
}

#[test]
fn a_category_column_naming_what_a_case_does_is_no_status() {
    // `区分` holds what each case does; `削除` (delete) is also a word for "deleted".
    let doc = "No.,区分,ユーザー発話,期待するツール,ステータス\n1,参照,アイテムを一覧で見せて,list-items,合格\n2,削除,アイテム item-7 を消して,delete-item,未実施\n3,計算,2 と 3 を足して,get-sum,合格\n";
    let d = drafts(doc);
    assert_eq!(d.len(), 3, "{d:#?}");
    assert_eq!(tools_of(&d[1]), ["delete-item"]);
}

#[test]
fn a_tool_described_by_a_verb_right_after_it_resolves_and_adding_one_is_no_tool() {
    let doc = "case 5 - user: \"what time is it in Honolulu right now?\"\nexpected: whatever tool gives the current time for a timezone, with timezone = Pacific/Honolulu\n\n+1. adding one in here: user pastes an id - \"what's in item-42?\" -> `get-item` with id item-42\n";
    let d = super::extract(doc, &corpus_tools("store"));
    assert_eq!(d.len(), 2, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["get-time"]);
    assert_eq!(tools_of(&d[1]), ["get-item"]);
}

#[test]
fn a_relative_clause_set_off_by_a_comma_describes_its_tool() {
    let doc = "Fall 4 – Dateiinfo\nNutzer: „Wie groß ist /srv/ops/plan.xlsx?“\nErwartung: das Tool, das Größe, Zeitstempel und Berechtigungen einer Datei liefert. Die Datei soll NICHT gelesen werden (kein fs.read_file).\n";
    let d = super::extract(doc, &corpus_tools("filesystem"));
    assert_eq!(d.len(), 1, "{d:#?}");
    assert_eq!(tools_of(&d[0]), ["fs.get_file_info"]);
    assert_eq!(d[0].never_called, ["fs.read_file"]);
}
