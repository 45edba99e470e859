//! One candidate unit (a section, list item, table row, scenario, chat message or
//! paragraph) read into a draft, whatever shape it came from.
//!
//! A unit is a list of [`Segment`]s: text with the role of its label when it has one
//! (a table column, `**Prompt:**`, `Erwartung:`, `期待動作：`), or none. The prompt is the
//! prompt-labelled segment, else the first quoted utterance; the expectation is what the
//! expectation, tool, argument and note segments say, else the unlabelled text around the
//! prompt. A unit is a case when it has a prompt and (for a prompt read from a quote) an
//! expectation: a named tool, a forbidden tool, or a negative wording. A unit whose prompt
//! was struck through, or whose status says it was dropped, is no case.

use std::borrow::Cow;

use serde_json::Value;

use super::catalog::Catalog;
use super::draft::{Draft, ExpectedCall, Needle};
use super::lexicon::{self, ARROWS, LabelRole, label_role};
use super::reading::{self, Reading, prepare, quotes, utterance_like};

/// A piece of a unit: its label (with the label's role) and its text.
#[derive(Debug, Clone)]
pub struct Segment {
    pub label: Option<String>,
    pub role: Option<LabelRole>,
    pub text: String,
}

impl Segment {
    pub fn labelled(label: &str, text: impl Into<String>) -> Self {
        Segment {
            role: label_role(label),
            label: Some(label.to_string()),
            text: text.into(),
        }
    }

    pub fn plain(text: impl Into<String>) -> Self {
        Segment {
            label: None,
            role: None,
            text: text.into(),
        }
    }
}

/// Where a unit came from, for the claim's note.
pub struct UnitInfo<'a> {
    pub shape: &'a str,
    pub start: usize,
    pub end: usize,
    pub title: Option<String>,
    pub key: Option<String>,
    /// A unit that is a row of a table with a prompt column: its prompt needs no
    /// expectation to be a case.
    pub structured: bool,
    /// A unit with no prompt in its body whose keyed title is what the user says (an
    /// outline's `K1: Cari barang …` node over its tool and arguments).
    pub title_said: bool,
}

/// Strips the outer quotes of a prompt field.
pub fn unquote_prompt(s: &str) -> String {
    let t = s.trim();
    // (`*can you pull up the README?*`: an utterance set in italics, as a quote is.)
    let t = emphasized(t).unwrap_or(t);
    // (`输入：用户：“…”`: the speaker named again inside the field.)
    let t = match t.split_once([':', '：']) {
        Some((who, said))
            if lexicon::USER_SPEAKERS.contains(&lexicon::fold(who.trim()).as_str())
                && !said.trim().is_empty() =>
        {
            said.trim()
        }
        _ => t,
    };
    let qs = quotes(t);
    if let Some(&(a, b)) = qs.first() {
        let open = t[..a].trim();
        let close = t[b..].chars().skip(1).collect::<String>();
        // (Or a remark after it, set off: `"…" – just explain, no tools`, `"…" (short)`,
        // `«…». Очікуємо DeleteItem`.)
        let remark = close
            .trim_start()
            .starts_with(['–', '—', '-', '→', '(', ';', ',', '·'])
            || close.starts_with(". ") && close.len() > 2;
        if open.chars().count() <= 1 && (close.trim().is_empty() || remark) {
            return t[a..b].trim().to_string();
        }
    }
    super::draft::unquote(t)
}

/// What the steps of a manual script have the tester say, in order: a step that types,
/// asks or sends (`Type: …`, `Ask "…"`, `Saisir : …`, `Escribe «…»`), or else a quoted
/// message. A step about the assistant's side (`The assistant should ask …`) says nothing.
pub fn said_in_steps(text: &str) -> Vec<String> {
    let t = reading::strip_struck(text);
    t.lines().filter_map(said_in_step).collect()
}

fn said_in_step(line: &str) -> Option<String> {
    let mut t = strip_number(line.trim().trim_start_matches(['-', '*', '•', ' ']));
    // (`Step 2: Type: …`: the step's own label first.)
    if let Some((l, rest, _)) = label_parts(t)
        && label_role(l) == Some(LabelRole::Steps)
    {
        t = rest.trim_start();
    }
    if assistant_line(t).is_some() || lexicon::speaks_for_assistant(t) {
        return None;
    }
    let quoted = || {
        quotes(t)
            .into_iter()
            .map(|(a, b)| t[a..b].trim().to_string())
            .find(|q| utterance_like(q))
    };
    let f = lexicon::fold(t);
    let verb = f
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .next()
        .unwrap_or_default();
    let cjk_verb = lexicon::SAY_VERBS
        .iter()
        .any(|v| v.chars().any(lexicon::is_cjk) && f.starts_with(v));
    if !(lexicon::listed(lexicon::SAY_VERBS, verb) || cjk_verb) {
        return quoted();
    }
    // `Type: what is 2 + 2?`, `Type in the chat: …`: the rest of the line after the colon,
    // or the quote the verb leads to.
    if let Some(q) = quoted() {
        return Some(q);
    }
    let colon = t.find([':', '：'])?;
    let lead = &t[..colon];
    let rest = t[colon..].trim_start_matches([':', '：']).trim();
    (lead.split_whitespace().count() <= 5 && !rest.is_empty()).then(|| unquote_prompt(rest))
}

/// A tool field that names no tool but says what it does (`el eco viejo`, `la que borra`,
/// `le paginateur, avec pageSize = 12`): the tool its words describe, with the arguments
/// after them.
fn described_call(text: &str, cat: &Catalog) -> Option<ExpectedCall> {
    described_call_with(text, cat, 1)
}

/// [`described_call`] when the description matches at least `min_hits` of its words.
fn described_call_with(text: &str, cat: &Catalog, min_hits: usize) -> Option<ExpectedCall> {
    let t = prepare(text);
    let t = t.trim();
    let cut = t
        .find([',', '(', '（', ';', '，', ':', '：'])
        .unwrap_or(t.len());
    let (head, rest) = t.split_at(cut);
    if head.split_whitespace().count() > 5 || lexicon::is_none_word(head) {
        return None;
    }
    let (i, hits) = cat.described_with_hits(head)?;
    if hits < min_hits {
        return None;
    }
    let args = cat.read_args(i, rest);
    Some(ExpectedCall {
        tool: cat.name(i).to_string(),
        args: (!args.is_empty()).then_some(args),
    })
}

/// Whether a unit's own words say it was dropped ("Dropped.", "Vervallen: …", "→ 항목 삭제").
pub fn says_dropped(text: &str) -> bool {
    crossed(text) || words_say_dropped(text)
}

/// Whether text opens with a cross: `❌ 5) "…" → crash`, a checklist's cross against the
/// ticks of the cases kept.
fn crossed(text: &str) -> bool {
    text.trim_start()
        .trim_start_matches(['-', '*', '•', ' '])
        .starts_with(['❌', '✗', '✘', '🚫', '⛔'])
}

/// Whether a unit's words say it was dropped: its last clause, or a line opening with a
/// status and a colon.
fn words_say_dropped(text: &str) -> bool {
    let t = prepare(text);
    let trimmed = t.trim_end();
    // The last clause of the unit.
    let last = reading::last_clause(trimmed)
        .map(|(a, b)| trimmed[a..b].trim())
        .unwrap_or_default();
    if lexicon::is_dropped_status(last) {
        return true;
    }
    // (A passage saying it only shows the notation, anywhere in it.)
    if lexicon::has_any(
        &lexicon::fold(&without_bold_marks(&t)),
        lexicon::EXAMPLE_ONLY,
    ) {
        return true;
    }
    // A line that starts with a status word and a colon, or a verdict after an arrow
    // (`→ Rejected ❌ — admins only`).
    t.lines().any(|l| {
        let arrowed = lexicon::ARROWS
            .iter()
            .any(|a| l.trim_start().starts_with(a));
        let l = l
            .trim()
            .trim_start_matches(['-', '*', ' ', '(', '[', '/', '#', '→', '➜', '>', '=']);
        if arrowed
            && let Some(head) = l.split([' ', '—', '–', ',', '(', '.']).next()
            && lexicon::is_dropped_status(head)
        {
            return true;
        }
        // (A shouted status opening the line, a status lozenge's `UTSATT venter på …`.)
        let first = l.split_whitespace().next().unwrap_or_default();
        if first.chars().filter(|c| c.is_alphabetic()).count() > 3
            && !first.chars().any(char::is_lowercase)
            && lexicon::is_dropped_status(first)
        {
            return true;
        }
        l.split_once([':', '：']).is_some_and(|(head, _)| {
            // `Dropped: …`, or a shouted status before its reason (`DROPPED (review 11/6): …`).
            let first = head.split_whitespace().next().unwrap_or_default();
            let shouted = first.chars().count() > 2 && !first.chars().any(char::is_lowercase);
            lexicon::is_dropped_status(head) && (head.chars().count() < 24 || shouted)
        })
    })
}

/// `t` without its `**` marks (as `t.replace("**", "")`, copied in runs between them).
fn without_bold_marks(t: &str) -> Cow<'_, str> {
    if !t.contains("**") {
        return Cow::Borrowed(t);
    }
    let b = t.as_bytes();
    let mut out = String::with_capacity(t.len());
    let (mut from, mut i) = (0, 0);
    while i + 1 < b.len() {
        if b[i] == b'*' && b[i + 1] == b'*' {
            out.push_str(&t[from..i]);
            i += 2;
            from = i;
        } else {
            i += 1;
        }
    }
    out.push_str(&t[from..]);
    Cow::Owned(out)
}

/// An expectation's label that names its tool (`Expect createEvent: summary=…`): the tool
/// is part of what the field says.
fn tools_in_labels(segs: &[Segment], cat: &Catalog) -> Option<Vec<Segment>> {
    let names = |s: &Segment| {
        matches!(s.role, Some(LabelRole::Expected | LabelRole::Tool))
            && s.label.as_deref().is_some_and(|l| {
                l.split_whitespace().count() >= 2
                    && l.split_whitespace().any(|w| cat.resolve(w).is_some())
            })
    };
    if !segs.iter().any(names) {
        return None;
    }
    Some(
        segs.iter()
            .map(|s| {
                if !names(s) {
                    return s.clone();
                }
                let label = s.label.as_deref().unwrap_or_default();
                let tools: Vec<&str> = label
                    .split_whitespace()
                    .filter(|w| cat.resolve(w).is_some())
                    .collect();
                Segment {
                    text: format!("{} {}", tools.join(" "), s.text),
                    ..s.clone()
                }
            })
            .collect(),
    )
}

/// Reads a unit into a draft; `None` when it is no case.
pub fn read_unit(segs: &[Segment], info: &UnitInfo, cat: &Catalog) -> Option<Draft> {
    let named;
    let segs = match tools_in_labels(segs, cat) {
        Some(moved) => {
            named = moved;
            &named[..]
        }
        None => segs,
    };
    let mut d = Draft {
        start_line: info.start,
        end_line: info.end,
        title: info.title.clone().unwrap_or_default(),
        key: info.key.clone(),
        ..Draft::default()
    };
    let mut rules: Vec<String> = Vec::new();
    let mut notes: Vec<String> = Vec::new();
    // Status, or a dropped marker.
    // (A block without a heading is titled by its first line when that is no field.)
    let first_line = segs
        .first()
        .filter(|s| s.role.is_none())
        .and_then(|s| s.text.lines().next())
        .filter(|l| l.chars().count() <= 120);
    if info
        .title
        .as_deref()
        .or(first_line)
        .is_some_and(lexicon::title_says_dropped)
    {
        return None;
    }
    for s in segs {
        // A field that opens with a bracketed status (`[Postponed to 1.4 – …]`) sets the
        // case aside.
        if let Some(inner) = s.text.trim_start().strip_prefix(['[', '('])
            && lexicon::is_dropped_status(
                &inner
                    .split_whitespace()
                    .take(4)
                    .collect::<Vec<_>>()
                    .join(" "),
            )
        {
            return None;
        }
        // A record whose one type or tag is set-up (`setup`, `Environment`), or a bug
        // report (whose steps quote what failed), is no case.
        if s.role == Some(LabelRole::Type)
            && !s.text.contains([',', ';', '|', '\n'])
            && (lexicon::heading_excludes(&s.text) || lexicon::is_bug_type(&s.text))
        {
            return None;
        }
        // (A status may give its reason after it: `Rejected. CI times out on 10 MB.`)
        if s.role == Some(LabelRole::Status) {
            let first = s.text.split(['.', '।', '。', ';', '!', '\n']).next();
            if lexicon::is_dropped_status(&s.text)
                || lexicon::is_dropped_status(first.unwrap_or_default())
                || lexicon::listed(lexicon::STATUS_ONLY, &lexicon::fold(s.text.trim()))
            {
                return None;
            }
        }
        // A remark that opens with a shouted status (`VERVALLEN — too risky`), or is one.
        if s.role == Some(LabelRole::Notes) {
            let t = s.text.trim();
            let first = t.split_whitespace().next().unwrap_or_default();
            // Shouted (`VERVALLEN`) or, in a script without case, set in bold (`**مرفوضة**`).
            let shouted = first.chars().any(char::is_alphabetic)
                && !first.chars().any(char::is_lowercase)
                && first.chars().count() > 2
                || first.starts_with("**")
                    && lexicon::is_dropped_status(first.trim_matches(['*', '_']));
            // (A long remark after the status is looked up by its first word.)
            let status = if t.chars().count() > 80 {
                first.trim_matches(['*', '_', ':', ','])
            } else {
                t
            };
            if lexicon::is_dropped_status(status)
                && (shouted
                    || lexicon::is_dropped_status(t.trim_end_matches(['.', '!']))
                        && !t.contains(' '))
            {
                return None;
            }
        }
    }
    // The prompt.
    // The prompt, the segment it is in, and its byte span there when read from a quote.
    type Found = (String, usize, Option<(usize, usize)>);
    let mut prompt: Option<Found> = None;
    for (i, s) in segs.iter().enumerate() {
        if s.role == Some(LabelRole::Prompt) && !s.text.trim().is_empty() {
            let raw = s.text.trim();
            if raw.starts_with("~~") || raw.ends_with("~~") {
                return None;
            }
            let p = unquote_prompt(&reading::strip_struck(raw));
            if !p.is_empty() && !lexicon::is_none_word(&p) {
                rules.push(format!(
                    "`{}` → prompt step",
                    s.label.as_deref().unwrap_or("prompt")
                ));
                prompt = Some((p, i, None));
                break;
            }
        }
    }
    if prompt.is_none() {
        for (i, s) in segs.iter().enumerate() {
            if s.role == Some(LabelRole::Steps)
                && let Some(p) = said_in_steps(&s.text).into_iter().next()
            {
                notes.push(format!(
                    "the prompt was read from what `{}` has the tester say",
                    s.label.as_deref().unwrap_or("steps")
                ));
                prompt = Some((p, i, None));
                break;
            }
        }
    }
    let quoted_prompt = prompt.is_none();
    if prompt.is_none() {
        // The first quoted utterance of an unlabelled or non-expectation segment.
        'outer: for (i, s) in segs.iter().enumerate() {
            if matches!(
                s.role,
                Some(
                    LabelRole::Expected
                        | LabelRole::Tool
                        | LabelRole::Args
                        | LabelRole::Contains
                        | LabelRole::Forbidden
                        | LabelRole::Notes
                        | LabelRole::Status
                )
            ) {
                continue;
            }
            let raw = s.text.clone();
            // A quote, or (as chat and issue threads write it) prose set as code:
            // `what is 8 + 13?`; whichever comes first.
            let quoted = quotes(&raw).into_iter().find(|&(a, b)| {
                let q = raw[a..b].trim();
                // `a « no tool » case is …`, `«Не вызывать X» = …`: a term being defined,
                // not something said.
                let close = b + raw[b..].chars().next().map_or(0, char::len_utf8);
                let after = raw[close..].trim_start();
                let words = lexicon::fold(
                    &after
                        .trim_start_matches([',', '，', '、', ' '])
                        .chars()
                        .take(16)
                        .collect::<String>(),
                );
                // (Or a label named in prose: `Onder "Niet aanroepen" staan …`.)
                let defined = after.starts_with(['=', '＝']) && !after.starts_with("=>")
                    || lexicon::DEFINES.iter().any(|w| words.starts_with(w))
                    || (if q.chars().any(lexicon::is_cjk) {
                        q.chars().count() <= 8
                    } else {
                        q.split_whitespace().count() <= 3
                    } && lexicon::label_role(q).is_some_and(LabelRole::is_field)
                        // (`- "say hello" → echo`: an item that opens with a quote
                        // pointing at its expectation says it.)
                        && !(ARROWS.iter().any(|x| after.starts_with(x))
                            && raw[..a]
                                .trim_end_matches(|c: char| !c.is_alphanumeric() && c != ' ')
                                .trim()
                                .trim_start_matches(['-', '*', '+'])
                                .trim()
                                .is_empty()));
                // (`R3 (was "…") now reads: "…"`: the old wording is no prompt.)
                let former = lexicon::says_formerly(&raw[..a]);
                utterance_like(q) && !lexicon::is_none_word(q) && !defined && !former
            });
            let coded = reading::code_spans(&raw).into_iter().find(|&(a, b)| {
                let q = raw[a..b].trim();
                reading::prose_like(q) && !lexicon::is_none_word(q) && cat.resolve(q).is_none()
            });
            let quoted = quoted.or_else(|| {
                reading::arrowed_emphasis(&raw)
                    .into_iter()
                    .find(|&(a, b)| utterance_like(&raw[a..b]))
            });
            let first = match (quoted, coded) {
                (Some(q), Some(c)) => Some(if c.0 < q.0 { c } else { q }),
                (q, c) => q.or(c),
            };
            if let Some((a, b)) = first {
                if in_struck(&raw, a) {
                    return None;
                }
                prompt = Some((unwrap_lines(raw[a..b].trim()), i, Some((a, b))));
                break 'outer;
            }
        }
    }
    // Else the title, when the unit says it is what the user says. It stays a case only
    // if the unit states an expectation.
    let mut titled = false;
    if prompt.is_none()
        && info.title_said
        && let Some(t) = info
            .title
            .as_deref()
            .map(crate::service::authoring::draft::unquote)
            .filter(|t| said_title(t))
    {
        notes.push("the prompt was read from the case's title".into());
        // (No segment holds it: all of the body is read for the expectation.)
        prompt = Some((t, segs.len(), None));
        titled = true;
    }
    let (prompt_text, prompt_seg, prompt_span) = prompt?;
    d.prompts.push(prompt_text);
    // Further prompt fields, or further quoted messages in the steps: turns of one case.
    if !quoted_prompt {
        for (i, s) in segs.iter().enumerate().skip(prompt_seg + 1) {
            let raw = s.text.trim();
            match s.role {
                Some(LabelRole::Prompt) if !raw.is_empty() && !raw.contains("~~") => {
                    d.prompts.push(unquote_prompt(raw));
                }
                _ => {}
            }
            let _ = i;
        }
        // Every step after the first that has the tester say something: a further turn.
        if segs[prompt_seg].role == Some(LabelRole::Steps) {
            let all: Vec<String> = segs[prompt_seg..]
                .iter()
                .filter(|s| s.role == Some(LabelRole::Steps))
                .flat_map(|s| said_in_steps(&s.text))
                .collect();
            if all.len() > 1 {
                d.prompts = all;
            }
        }
        if d.prompts.len() > 1 {
            rules.push("each prompt → a prompt step, in order".into());
        }
    }

    // The expectation.
    // (A forbidden-tools field alone leaves the unlabelled text to say what is expected.)
    let has_expect_label = segs.iter().any(|s| {
        matches!(
            s.role,
            Some(LabelRole::Expected | LabelRole::Tool | LabelRole::Args)
        )
    });
    let mut tool_field: Option<Reading> = None;
    let mut expected_reading = Reading::default();
    let mut notes_reading = Reading::default();
    let mut args_fields: Vec<(String, String)> = Vec::new();
    let mut interpreted = false;
    let mut bare_none: Option<String> = None;
    for (i, s) in segs.iter().enumerate() {
        let text = s.text.trim();
        if text.is_empty() {
            continue;
        }
        let label = s.label.as_deref().unwrap_or_default();
        match s.role {
            Some(LabelRole::Tool) => {
                if lexicon::is_none_word(text) {
                    d.negative = true;
                    rules.push(format!("`{label}` = `{text}` → isNegative"));
                    continue;
                }
                let mut r = reading::read(text, cat);
                if r.is_empty() {
                    // A name the target lacks, written alone or as code: kept, so
                    // grounding says it does not resolve.
                    let t = reading::prepare(text);
                    let bare = t.trim().trim_matches(['`', '"', '\'', '*']);
                    let code = t.split('`').nth(1).filter(|_| t.matches('`').count() >= 2);
                    let name = if !bare.is_empty()
                        && bare
                            .chars()
                            .all(|c| c.is_alphanumeric() || "_-.:/".contains(c))
                    {
                        Some(bare.to_string())
                    } else {
                        code.filter(|c| {
                            !c.is_empty()
                                && c.chars()
                                    .all(|x| x.is_alphanumeric() || "_-.:/".contains(x))
                        })
                        .map(str::to_string)
                    };
                    if let Some(n) = name.filter(|n| !cat.is_param(n)) {
                        r.calls.push(ExpectedCall {
                            tool: n,
                            args: None,
                        });
                    } else if let Some((t, hits)) =
                        cat.described_with_hits(&without_parentheses(&t))
                        && hits >= 2
                    {
                        // A tool field that says what the tool does (`Narzędzie:
                        // dodanie komentarza do zgłoszenia`): the tool it describes.
                        r.calls.push(ExpectedCall {
                            tool: cat.name(t).to_string(),
                            args: None,
                        });
                    }
                }
                let head = reading::prepare(text);
                let head = head.trim().trim_start_matches('`');
                let whole = r.calls.len() == 1
                    && r.never.is_empty()
                    && r.notes.is_empty()
                    && r.negative.is_none()
                    && head.starts_with(&r.calls[0].tool)
                    && head[r.calls[0].tool.len()..]
                        .chars()
                        .next()
                        .is_none_or(|c| !c.is_alphanumeric() && c != '_' && c != '-');
                if whole {
                    rules.push(format!("`{label}` → tool assertion"));
                } else {
                    interpreted = true;
                    notes.push(format!("tools read from the wording of `{label}`"));
                }
                match &mut tool_field {
                    Some(prev) => merge(prev, r),
                    None => tool_field = Some(r),
                }
            }
            Some(LabelRole::Args) => {
                if !lexicon::is_none_word(text) && !reading::prepare(text).trim().is_empty() {
                    args_fields.push((label.to_string(), text.to_string()));
                    // (`state=open; never merge_pull_request`: what the cell forbids
                    // besides its arguments.)
                    d.forbid(reading::read(text, cat).never);
                }
            }
            // `Expected: no tool call` makes the case negative; a bare `Expected: none`
            // asks for nothing in particular, or for no call: the latter when the case
            // expects nothing else.
            Some(LabelRole::Expected) if lexicon::is_none_word(text) => {
                let rule = format!("`{label}` = `{text}` → isNegative");
                if lexicon::has_any(&lexicon::fold(text), lexicon::TOOL_NOUNS) {
                    d.negative = true;
                    rules.push(rule);
                } else {
                    bare_none = Some(rule);
                }
            }
            // A run's verdict (`PASS`, `FAIL`) beside the tool field: no expectation.
            Some(LabelRole::Expected)
                if lexicon::listed(lexicon::RUN_RESULTS, lexicon::fold(text).trim())
                    && segs.iter().any(|s| s.role == Some(LabelRole::Tool)) => {}
            Some(LabelRole::Expected) => {
                let mut r = reading::read(text, cat);
                // (Beside a tool field, this one says what the answer is, not the tool.)
                if r.is_empty()
                    && !segs.iter().any(|s| s.role == Some(LabelRole::Tool))
                    && let Some(call) = described_call(text, cat)
                {
                    r.calls.push(call);
                }
                let note = format!("expectations read from the wording of `{label}`");
                if !r.is_empty() {
                    interpreted = true;
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                }
                for n in reading::needles(text) {
                    interpreted = true;
                    let note = format!("response needles read from the wording of `{label}`");
                    if !notes.contains(&note) {
                        notes.push(note);
                    }
                    if !d.contains.iter().any(|x| x.text == n) {
                        d.contains.push(Needle {
                            text: n,
                            case_sensitive: None,
                        });
                    }
                }
                merge(&mut expected_reading, r);
                if d.expected_output.is_none() {
                    d.expected_output = Some(prepare(text).trim().to_string());
                    rules.push(format!("`{label}` → expectedOutput"));
                }
            }
            Some(LabelRole::Forbidden) if lexicon::is_all_word(text) => {
                d.negative = true;
                rules.push(format!("`{label}` forbids every tool → isNegative"));
            }
            Some(LabelRole::Forbidden) => {
                let r = reading::read(text, cat);
                let mut names = r.never;
                names.extend(r.calls.into_iter().map(|c| c.tool));
                if names.is_empty() && r.negative.is_none() {
                    names.extend(described_call(text, cat).map(|c| c.tool));
                }
                d.forbid(names);
                rules.push(format!("`{label}` → toolNeverCalled"));
            }
            Some(LabelRole::Contains) => {
                d.contains.push(Needle {
                    text: unquote_prompt(text),
                    case_sensitive: None,
                });
                rules.push(format!("`{label}` → responseContains"));
            }
            Some(LabelRole::Notes) => {
                let r = reading::read(text, cat);
                if r.negative.is_some() || !r.never.is_empty() {
                    interpreted = true;
                    notes.push(format!("expectations read from the wording of `{label}`"));
                }
                merge(&mut notes_reading, r);
            }
            Some(LabelRole::Negative) => {
                if lexicon::truthy(text) == Some(true) {
                    d.negative = true;
                    rules.push(format!("`{label}` → isNegative"));
                }
            }
            Some(LabelRole::Type) => {
                let f = lexicon::fold(text);
                if lexicon::has_any(
                    &f,
                    &[
                        "negative",
                        "negativ*",
                        "negatif",
                        "negativo",
                        "negatief",
                        "ネガティブ",
                        "否定",
                        "부정",
                    ],
                ) {
                    d.negative = true;
                    rules.push(format!("`{label}` = negative → isNegative"));
                }
            }
            Some(LabelRole::Prompt) | Some(LabelRole::Steps) if i == prompt_seg => {
                // Words around a prompt read from a quote inside a field ("Send: "…"",
                // `Prompt: "…" – just explain, no tools`).
                if prompt_span.is_none() && !has_expect_label {
                    let r = reading::read(&without_prompt(&s.text, &d.prompts[0]), cat);
                    merge(&mut expected_reading, r);
                }
            }
            Some(LabelRole::Steps) => {
                // (What a step has the tester say is a turn, not an expectation.)
                let done: Vec<&str> = text.lines().filter(|l| said_in_step(l).is_none()).collect();
                let r = reading::read(&done.join("\n"), cat);
                if !r.is_empty() {
                    interpreted = true;
                }
                merge(&mut expected_reading, r);
            }
            None if !has_expect_label => {
                // Unlabelled text: what is not the prompt is the expectation.
                let t = if i == prompt_seg {
                    match prompt_span {
                        Some((a, b)) => {
                            let raw = s.text.clone();
                            let open = raw[..a].char_indices().last().map_or(0, |(i, _)| i);
                            let close = b + raw[b..].chars().next().map_or(0, char::len_utf8);
                            let mut x = raw[..open].to_string();
                            x.push_str(" \u{2192} ");
                            x.push_str(&raw[close..]);
                            x
                        }
                        None => String::new(),
                    }
                } else {
                    s.text.clone()
                };
                let r = reading::read(&t, cat);
                if !r.is_empty() {
                    interpreted = true;
                }
                merge(&mut expected_reading, r);
            }
            _ => {
                if let Some(l) = &s.label
                    && !matches!(
                        s.role,
                        Some(
                            LabelRole::Metadata
                                | LabelRole::Id
                                | LabelRole::Title
                                | LabelRole::Status
                                | LabelRole::Prompt
                        )
                    )
                    && s.role.is_some()
                {
                    notes.push(super::fields::unread_note(l));
                }
            }
        }
    }
    // Tools: the tool field first, then the expectation's wording.
    let mut calls: Vec<ExpectedCall> = Vec::new();
    let mut never: Vec<String> = Vec::new();
    let mut negative_word: Option<String> = None;
    for r in [
        tool_field.as_ref(),
        Some(&expected_reading),
        Some(&notes_reading),
    ]
    .into_iter()
    .flatten()
    {
        if negative_word.is_none() {
            negative_word = r.negative.clone();
        }
        for n in &r.never {
            if !never.contains(n) {
                never.push(n.clone());
            }
        }
        for note in &r.notes {
            if !notes.contains(note) {
                notes.push(note.clone());
            }
        }
    }
    // Notes name forbidden tools and negatives, not the tools to call.
    for r in [tool_field.as_ref(), Some(&expected_reading)]
        .into_iter()
        .flatten()
    {
        for c in &r.calls {
            match calls.iter_mut().find(|x| x.tool == c.tool) {
                Some(x) => {
                    if x.args.is_none() {
                        x.args = c.args.clone();
                    }
                }
                None => calls.push(c.clone()),
            }
        }
    }
    if let Some(w) = &negative_word
        && !d.negative
    {
        d.negative = true;
        notes.push(format!("negative: \"{w}\""));
    }
    // Arguments fields go to the first expected tool whose parameters they name (`for
    // findFreeSlots: durationMinutes = 45` under two tools).
    for (label, text) in &args_fields {
        let read = calls
            .iter_mut()
            .find_map(|c| reading::read_args_field(text, &c.tool, cat).map(|a| (c, a)));
        if let Some((call, a)) = read {
            let args = call.args.get_or_insert_with(Default::default);
            for (k, v) in a {
                args.insert(k, v);
            }
            rules.push(format!("`{label}` → toolCalledWith.args"));
        } else if let Some(first) = calls.first() {
            notes.push(format!(
                "the `{label}` value could not be read as arguments of `{}`",
                first.tool
            ));
        } else if !d.negative
            && let Some((t, a)) =
                cat.tool_by_args(&text.replace(['{', '}'], "\n").replace(", ", "\n"))
        {
            // (Arguments only one live tool takes name it.)
            notes.push(format!(
                "`{label}` names no tool; `{}` is the one live tool that takes these arguments",
                cat.name(t)
            ));
            calls.push(ExpectedCall {
                tool: cat.name(t).to_string(),
                args: Some(a),
            });
        } else if !d.negative {
            notes.push(format!(
                "`{label}` given without a tool; the arguments were not used"
            ));
        }
    }
    if let Some(rule) = bare_none
        && calls.is_empty()
        && tool_field.is_none()
        && d.contains.is_empty()
    {
        d.negative = true;
        rules.push(rule);
    }
    if d.negative {
        if !calls.is_empty() {
            notes.push("the case is negative, so its expected tool calls were dropped".into());
        }
        calls.clear();
    }
    never.retain(|n| !calls.iter().any(|c| &c.tool == n));
    // No tool named, but arguments that only one live tool takes (`numbers = [5.6, 7.2]`
    // under a tool described in words the lexicon lacks): that tool, approximated.
    if calls.is_empty() && !d.negative && d.contains.is_empty() {
        // (The lines that are not the prompt's: a message may run on under it.)
        let rest: Vec<&str> = segs
            .iter()
            .flat_map(|s| s.text.lines())
            .filter(|l| !d.prompts.iter().any(|p| l.contains(p.as_str())))
            .collect();
        if let Some((t, args)) = cat.tool_by_args(&rest.join("\n")) {
            calls.push(ExpectedCall {
                tool: cat.name(t).to_string(),
                args: Some(args),
            });
            d.exact_rule = None;
            notes.push(format!(
                "no tool named; `{}` is the one live tool that takes the arguments given",
                cat.name(t)
            ));
        }
    }
    // A tool named in its own field, its arguments in the expectation (`Tool: get-sum`,
    // `Expected: a 4, b 9`): an expectation that is nothing but the tool's parameters,
    // each before its value.
    for c in calls.iter_mut().filter(|c| c.args.is_none()) {
        if let Some((i, _)) = cat.resolve(&c.tool)
            && let Some(a) = segs
                .iter()
                .filter(|s| s.role == Some(LabelRole::Expected))
                .filter(|s| {
                    s.text.split([',', ';', '\n']).all(|part| {
                        let word = part.split([' ', '=', ':']).find(|w| !w.is_empty());
                        word.is_some_and(|w| cat.has_param(i, w.trim_matches('`')))
                    })
                })
                .map(|s| cat.read_args(i, &s.text))
                .find(|a| !a.is_empty())
        {
            c.args = Some(a);
        }
    }
    // "get-stats with those four numbers": the numbers the prompt lists.
    if calls.iter().any(|c| c.args.is_none())
        && let Some(p) = d.prompts.last()
        && segs.iter().enumerate().any(|(i, s)| {
            i != prompt_seg && lexicon::has_any(&lexicon::fold(&s.text), lexicon::POINTS_BACK)
        })
    {
        for c in calls.iter_mut().filter(|c| c.args.is_none()) {
            c.args = cat.numbers_from_prompt(&c.tool, p);
        }
    }
    d.expected_calls = calls;
    d.forbid(never);
    // Every named tool forbidden: no tool at all.
    if !d.negative
        && !cat.is_empty()
        && d.expected_calls.is_empty()
        && d.never_called.len() >= cat.len()
    {
        let all = (0..cat.len()).all(|i| d.never_called.iter().any(|n| n == cat.name(i)));
        if all {
            d.negative = true;
            d.never_called.clear();
            notes.push("every tool of the target is forbidden: a negative case".into());
        }
    }
    // `"…" → busca de arquivos: path src`: a tool described after the arrow.
    if quoted_prompt
        && !d.negative
        && d.expected_calls.is_empty()
        && let Some(call) = segs.iter().filter(|s| s.role.is_none()).find_map(|s| {
            let at = ARROWS
                .iter()
                .filter_map(|a| s.text.find(a).map(|i| i + a.len()))
                .min()?;
            // (Two words of the tool at least: `→ simple formule de politesse` is none.)
            described_call_with(s.text[at..].lines().next()?, cat, 2)
        })
    {
        notes.push(format!(
            "`{}` read from what the expectation describes",
            call.tool
        ));
        d.expected_calls.push(call);
    }
    let expects = d.negative
        || !d.expected_calls.is_empty()
        || !d.never_called.is_empty()
        || (has_expect_label && !quoted_prompt);
    if quoted_prompt && !expects && !info.structured {
        return None;
    }
    if quoted_prompt && !info.structured && !titled {
        notes.push("the prompt was read from a quoted utterance".into());
    }
    if says_dropped_unit(segs) {
        return None;
    }
    if interpreted || !notes.is_empty() {
        d.notes = notes;
    } else {
        rules.dedup();
        d.exact_rule = Some(format!("{}: {}", info.shape, rules.join("; ")));
    }
    d.ensure_title();
    Some(d)
}

/// Whether a case's title reads as something a user says rather than a name for the case:
/// a sentence (a question, or four words at least), not a label.
pub(crate) fn said_title(t: &str) -> bool {
    let words = t.split_whitespace().count();
    let cjk = t.chars().filter(|c| lexicon::is_cjk(*c)).count();
    (words >= 4 || cjk >= 4 || t.ends_with(['?', '？']) && words >= 2)
        && utterance_like(t)
        && !t.contains('`')
}

/// Whether a unit's unlabelled text or notes say it was dropped, or a line a field runs on
/// to (`Expected: crash` over `→ Refused: …`).
fn says_dropped_unit(segs: &[Segment]) -> bool {
    let all: Vec<&str> = segs
        .iter()
        .flat_map(|s| {
            let whole = s.role.is_none() || s.role == Some(LabelRole::Notes);
            s.text.lines().skip(usize::from(!whole))
        })
        .collect();
    // (A cross marks the line it opens: the case when that is the unit's first, a tool
    // never to call when it is a later item, `- ❌ `legacy-echo` never`.)
    !all.is_empty()
        && segs.iter().all(|s| s.role != Some(LabelRole::Status))
        && (segs[0].role.is_none() && crossed(&segs[0].text) || words_say_dropped(&all.join("\n")))
}

/// A quote wrapped over lines of prose, as one line (a script without spaces joined as
/// it was written).
fn unwrap_lines(q: &str) -> String {
    let mut out = String::with_capacity(q.len());
    for line in q.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let wide = out.chars().next_back().is_some_and(lexicon::is_cjk)
            && line.chars().next().is_some_and(lexicon::is_cjk);
        if !out.is_empty() && !wide {
            out.push(' ');
        }
        out.push_str(line);
    }
    out
}

fn in_struck(t: &str, at: usize) -> bool {
    t[..at].matches("~~").count() % 2 == 1
}

fn without_prompt(text: &str, prompt: &str) -> String {
    let t = text.nfkc_string();
    match t.find(prompt) {
        Some(i) => format!("{} \u{2192} {}", &t[..i], &t[i + prompt.len()..]),
        None => t,
    }
}

fn merge(into: &mut Reading, r: Reading) {
    if into.negative.is_none() {
        into.negative = r.negative;
    }
    for c in r.calls {
        match into.calls.iter_mut().find(|x| x.tool == c.tool) {
            Some(x) => {
                if x.args.is_none() {
                    x.args = c.args;
                }
            }
            None => into.calls.push(c),
        }
    }
    for n in r.never {
        if !into.never.contains(&n) {
            into.never.push(n);
        }
    }
    into.notes.extend(r.notes);
}

trait Nfkc {
    fn nfkc_string(&self) -> String;
}

impl Nfkc for str {
    fn nfkc_string(&self) -> String {
        use unicode_normalization::UnicodeNormalization;
        self.nfkc().collect()
    }
}

impl Nfkc for String {
    fn nfkc_string(&self) -> String {
        self.as_str().nfkc_string()
    }
}

/// Splits a line at a leading label: `**Prompt:** …`, `- Erwartung: …`, `入力：「…」`.
pub fn leading_label(line: &str) -> Option<(String, String)> {
    owned_label(label_parts(line)?)
}

/// [`LabelParts`] as [`leading_label`] gives them: a struck label's value keeps the mark.
fn owned_label((head, rest, struck): LabelParts) -> Option<(String, String)> {
    let rest = if struck {
        format!("~~{rest}")
    } else {
        rest.to_string()
    };
    Some((head.to_string(), rest))
}

/// Whether a line opens with a label ([`leading_label`] is `Some`), without copying it.
pub fn has_leading_label(line: &str) -> bool {
    label_parts(line).is_some()
}

/// The role of a line's leading label, without copying the line ([`leading_label`]'s
/// rules).
pub fn leading_role(line: &str) -> Option<LabelRole> {
    label_parts(line).and_then(|(head, _, _)| label_role(head))
}

/// A line's leading label, the text after it (both trimmed), and whether the label was
/// struck through.
pub type LabelParts<'a> = (&'a str, &'a str, bool);

/// The [`LabelParts`] of a line, when it opens with a label.
pub fn label_parts(line: &str) -> Option<LabelParts<'_>> {
    let t = line.trim_start();
    let t = t
        .trim_start_matches(['-', '*', '+', '•', '>', '▪', '◦'])
        .trim_start();
    let t = strip_checkbox(t);
    let t = strip_number(t);
    // A reStructuredText field: `:Expected tool: …`.
    let t = match t.strip_prefix(':') {
        Some(r)
            if r.find(':').is_some_and(|e| {
                e > 0 && (r[e + 1..].starts_with([' ', '\t']) || r[e + 1..].trim().is_empty())
            }) =>
        {
            r
        }
        _ => t,
    };
    // `【输入】…`, `［期待］…`: a label in lenticular or full-width brackets.
    if let Some(r) = t.strip_prefix(['【', '［', '〔'])
        && let Some(close) = r.find(['】', '］', '〕'])
    {
        let head = r[..close].trim();
        let rest = r[close + '】'.len_utf8()..]
            .trim_start_matches([':', '：'])
            .trim();
        return label_role(head)
            .filter(|role| role.is_field())
            .map(|_| (head, rest, false));
    }
    // (A label is short: only the start of a long line is searched.)
    let mut limit = t.len().min(200);
    while !t.is_char_boundary(limit) {
        limit -= 1;
    }
    let colon = t[..limit].find([':', '：'])?;
    let head = &t[..colon];
    let struck = head.trim_start().starts_with("~~");
    let head_clean = head
        .trim()
        .trim_start_matches('~')
        .trim_matches(['*', '_'])
        .trim();
    let ascii = head_clean.is_ascii();
    let cjk = !ascii && head_clean.chars().any(lexicon::is_cjk);
    // Han, kana and hangul write a word in a character or two; Thai, Lao, Khmer and
    // Myanmar spell theirs out, with vowel and tone marks of their own.
    let cjk_limit = if !ascii && head_clean.chars().any(lexicon::is_spelled_no_space) {
        24
    } else {
        16
    };
    // (A parenthetical glosses a label, `Test Input (User Prompt)`: its words don't count.)
    let words = head_clean
        .split_once(['(', '（'])
        .map_or(head_clean, |(h, _)| h)
        .split_whitespace()
        .count();
    // (`Tur 1 – Kullanıcı`, `1턴 사용자`: a numbered turn, however it is written.)
    let turn = head_clean.chars().any(char::is_numeric) && {
        let f = lexicon::fold(head_clean);
        lexicon::turn_speaker(&f).is_some() || lexicon::numbered_turn(&f)
    };
    if head_clean.is_empty()
        || head_clean.len() > 40 && head_clean.chars().count() > 40
        || (!cjk && words > 3 && !turn && (words > 5 || !lexicon::is_listed_label(head_clean)))
        || (cjk && head_clean.chars().count() > cjk_limit && !lexicon::is_listed_label(head_clean))
        || !head_clean.chars().next().is_some_and(char::is_alphabetic) && !turn
        || head_clean.contains([
            '"', '“', '”', '「', '」', '„', '«', '»', '`', '·', '→', '➜', '|',
        ])
    {
        return None;
    }
    // `**常识问题**：…`: a bold name in a script without spaces is a label only as the
    // lexicon lists it (else any title holding a label word, such as 问题, would be one).
    if cjk && head.trim().starts_with("**") && !lexicon::is_listed_label(head_clean) {
        return None;
    }
    // "Nessuno strumento: …", "No tool: …": the negation is the point, not a label (but
    // "Prohibited tool invocations:", "Nie wywoływać:" label what is forbidden).
    let role = label_role(head_clean);
    let first = head_clean.split_whitespace().next().unwrap_or_default();
    let first = lexicon::fold_cow(first);
    if (lexicon::listed(lexicon::NO_DETERMINER, &first)
        || lexicon::listed(lexicon::NEGATION, &first))
        && !lexicon::is_listed_label(head_clean)
        && role != Some(LabelRole::Forbidden)
    {
        return None;
    }
    let Some(role) = role else {
        // A case's key set before its first field (`**R2**: user: "…" → echo`): the field.
        let key = head_clean.len() <= 12
            && head_clean.chars().any(|c| c.is_ascii_digit())
            && head_clean
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | '#' | '.'));
        let rest = &t[colon + t[colon..].chars().next()?.len_utf8()..];
        return if key { label_parts(rest) } else { None };
    };
    // `negative: "…" → no tool`: a tag before the case, not a yes/no field.
    let rest_raw = &t[colon..];
    if role == LabelRole::Negative
        && lexicon::truthy(rest_raw.trim_start_matches([':', '：'])).is_none()
    {
        return None;
    }
    if !role.is_field() {
        return None;
    }
    let rest = &t[colon + t[colon..].chars().next()?.len_utf8()..];
    Some((
        head_clean,
        rest.trim_start_matches(['*', '_']).trim(),
        struck,
    ))
}

pub fn strip_checkbox(t: &str) -> &str {
    for b in ["[ ]", "[x]", "[X]", "[✓]", "[-]"] {
        if let Some(r) = t.strip_prefix(b) {
            return r.trim_start();
        }
    }
    t
}

pub fn strip_number(t: &str) -> &str {
    // An outline's lettered item: `a. Prompt:`, `b) Expected:`.
    let mut c = t.chars();
    if let (Some(l), Some(m), Some(' ' | '\t')) = (c.next(), c.next(), c.next())
        && l.is_ascii_lowercase()
        && matches!(m, '.' | ')')
    {
        return t[2..].trim_start();
    }
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && digits < 4 {
        let r = &t[digits..];
        if let Some(x) = r.strip_prefix(['.', ')']) {
            return x.trim_start();
        }
    }
    t
}

/// A numbered line that states a case without quotes or labels, as notes typed in a hurry
/// do (`3 紐約未來7天 要華氏 → forecast days 7`, `2. add five and six -> get-sum`): the
/// words before the arrow and the expectation after it.
pub fn numbered_utterance(line: &str) -> Option<(&str, &str)> {
    let t = line.trim();
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits == 0 || digits > 3 || !quotes(t).is_empty() {
        return None;
    }
    let r = t[digits..].strip_prefix(['.', ')']).unwrap_or(&t[digits..]);
    if !r.starts_with([' ', '\t']) {
        return None;
    }
    let (at, arrow) = lexicon::ARROWS
        .iter()
        .filter_map(|a| r.find(a).map(|i| (i, *a)))
        .min()?;
    let said = r[..at].trim();
    let expected = r[at + arrow.len()..].trim();
    let cjk = said.chars().filter(|c| lexicon::is_cjk(*c)).count();
    // (`→ Nein, gestrichen`: the answer to a question, which drops it.)
    let dropped = reading::clauses(expected)
        .iter()
        .any(|&(a, b)| lexicon::is_dropped_status(&expected[a..b]));
    (!expected.is_empty()
        && !dropped
        && leading_label(said).is_none()
        && (cjk >= 3 || said.split_whitespace().count() >= 3))
        .then_some((said, expected))
}

/// Splits a unit's text into labelled segments; a label may start a line or follow a
/// sentence end (`… twice. Expected: …`).
pub fn segments_of(text: &str) -> Vec<Segment> {
    segments_of_known(text, |_| None)
}

/// [`segments_of`], given the [`label_parts`] of lines already read (`known(line)` is
/// `Some(parts)` for those).
pub fn segments_of_known<'k>(
    text: &str,
    known: impl Fn(&str) -> Option<Option<LabelParts<'k>>>,
) -> Vec<Segment> {
    let flags = command_flags(text);
    let text = flags.as_deref().unwrap_or(text);
    let mut out: Vec<Segment> = Vec::new();
    let mut cur = Segment::plain(String::new());
    let mut cur_indent = 0usize;
    let mut cur_quoted = false;
    let push_text = |cur: &mut Segment, t: &str| {
        if !cur.text.is_empty() {
            cur.text.push('\n');
        }
        cur.text.push_str(t);
    };
    // (`4) İzmir'in hava kalitesi nasıl` over `→ get_air_quality …`: a numbered
    // utterance whose arrow opens the next line is one line.)
    let mut lines: Vec<Cow<str>> = Vec::new();
    for line in text.lines() {
        match lines.last_mut() {
            Some(prev)
                if ARROWS.iter().any(|a| line.trim_start().starts_with(a))
                    && numbered_utterance(prev).is_none()
                    && numbered_utterance(&format!("{prev} {}", line.trim())).is_some() =>
            {
                *prev = Cow::Owned(format!("{prev} {}", line.trim()));
            }
            _ => lines.push(Cow::Borrowed(line)),
        }
    }
    for line in lines.iter().map(|l| l.as_ref()) {
        let indent = line.len() - line.trim_start().len();
        // (Split once: the check below and the field's start both ask for it.)
        let label = known(line)
            .unwrap_or_else(|| label_parts(line))
            .and_then(owned_label);
        // A prompt that is one whole quote is complete: the unlabelled line after it says
        // what is expected (`Der Nutzer schreibt: „…“`, then `Erwartet wird …`; `User:
        // "Three per page."`, then `After the last message the model should…`).
        if cur.role == Some(LabelRole::Prompt)
            && whole_quote(&cur.text)
            && label.is_none()
            && assistant_line(line).is_none()
        {
            out.push(std::mem::replace(&mut cur, Segment::plain(String::new())));
            if line.trim().is_empty() {
                continue;
            }
        }
        let deeper_args =
            matches!(cur.role, Some(LabelRole::Args | LabelRole::Steps)) && indent > cur_indent;
        // `assistant: "…"`: the other side of a conversation, kept out of the prompt.
        if let Some(said) = assistant_line(line) {
            if !cur.text.trim().is_empty() || cur.label.is_some() {
                out.push(std::mem::replace(&mut cur, Segment::plain(String::new())));
            }
            out.push(Segment {
                label: Some("assistant".into()),
                role: Some(LabelRole::Metadata),
                text: said,
            });
            continue;
        }
        if cur.label.is_none()
            && !out.iter().any(|s| s.label.is_some())
            && let Some((said, expected)) = numbered_utterance(line)
        {
            if !cur.text.trim().is_empty() {
                out.push(std::mem::replace(&mut cur, Segment::plain(String::new())));
            }
            out.push(Segment::labelled("prompt", said.to_string()));
            cur = Segment::labelled("expected", expected.to_string());
            cur_indent = indent;
            continue;
        }
        let mut rest = match label.or_else(|| field_row(line)).filter(|_| !deeper_args) {
            Some((label, rest)) => {
                if !cur.text.trim().is_empty() || cur.label.is_some() {
                    out.push(std::mem::replace(&mut cur, Segment::plain(String::new())));
                }
                cur = Segment::labelled(&label, String::new());
                cur_indent = indent;
                cur_quoted = line.trim_start().starts_with('>');
                rest
            }
            None => {
                // The next item of a list of turns (`2. The assistant asks…`) ends a turn.
                let t = line.trim_start();
                let item = strip_number(t).len() < t.len() || t.starts_with(['-', '*', '•']);
                // So does a line out of the quote block the turn was written in.
                let unquoted = cur_quoted && !t.starts_with('>');
                // And an arrow opening a line says what the turns expect.
                if cur.role == Some(LabelRole::Prompt)
                    && let Some(a) = ARROWS.iter().find(|a| t.starts_with(*a))
                {
                    out.push(std::mem::replace(
                        &mut cur,
                        Segment::labelled("expected", String::new()),
                    ));
                    t[a.len()..].trim().to_string()
                } else {
                    if cur.role == Some(LabelRole::Prompt)
                        && (item && indent <= cur_indent || unquoted)
                    {
                        out.push(std::mem::replace(&mut cur, Segment::plain(String::new())));
                    }
                    match t.strip_prefix('>') {
                        // A label over a quote block (`**Prompt**` then `> …`): the block
                        // is its value.
                        Some(q) if cur.label.is_some() && !cur_quoted => q.trim().to_string(),
                        _ => line.to_string(),
                    }
                }
            }
        };
        // `"What is 4 + 4?" Expected: …`, `… answered 41 (!). Expected: …`: a label
        // after a quote or a sentence end inside the line.
        while let Some((before, label, after)) = inline_label(&rest) {
            if !before.trim().is_empty() {
                push_text(&mut cur, &before);
            }
            out.push(std::mem::replace(
                &mut cur,
                Segment::labelled(&label, String::new()),
            ));
            cur_indent = indent;
            rest = after;
        }
        // `user: "…" -> search-items`: the quote is the turn, the arrow what it expects.
        if cur.role == Some(LabelRole::Prompt)
            && cur.text.is_empty()
            && let Some((turn, expected)) = quote_then_arrow(&rest)
        {
            push_text(&mut cur, &turn);
            out.push(std::mem::replace(
                &mut cur,
                Segment::labelled("expected", expected),
            ));
            continue;
        }
        push_text(&mut cur, &rest);
    }
    if !cur.text.trim().is_empty() || cur.label.is_some() {
        out.push(cur);
    }
    for s in &mut out {
        let t = s.text.trim_matches('\n');
        if t.len() < s.text.len() {
            s.text = t.to_string();
        }
    }
    out.retain(|s| s.label.is_some() || !s.text.trim().is_empty());
    out
}

/// The text inside emphasis that wraps all of `t` (`*…*`, `**…**`, `_…_`).
fn emphasized(t: &str) -> Option<&str> {
    ["**", "__", "*", "_"].iter().find_map(|m| {
        let inner = t.strip_prefix(m)?.strip_suffix(m)?.trim();
        let c = m.chars().next().unwrap_or('*');
        (!inner.is_empty() && !inner.contains(c) && !inner.contains('\n')).then_some(inner)
    })
}

/// Whether `t` is one quoted passage (or one set in italics) and nothing else.
fn whole_quote(t: &str) -> bool {
    let t = t.trim();
    if emphasized(t).is_some() {
        return true;
    }
    quotes(t)
        .first()
        .is_some_and(|&(a, b)| t[..a].chars().count() == 1 && t[b..].chars().count() == 1)
}

/// A two-cell table row that is a field (`| Forbidden | `crash` |`), as label and value.
fn field_row(line: &str) -> Option<(String, String)> {
    let t = line.trim();
    let inner = t.strip_prefix('|')?.strip_suffix('|')?;
    let (label, value) = inner.split_once('|')?;
    if value.contains('|') {
        return None;
    }
    let label = label.trim().trim_matches(['*', '_']).trim();
    label_role(label)
        .is_some_and(LabelRole::is_field)
        .then(|| (label.to_string(), value.trim().to_string()))
}

/// The fields written inside one long cell (a Jira or TestRail description): its own
/// labels, headings that are labels (`h3. Prompt`, `### Expected`) and quote blocks
/// (`{quote}…{quote}`) read as a unit's segments. `None` when the cell names no prompt.
pub fn cell_segments(text: &str) -> Option<Vec<Segment>> {
    if !text.contains('\n') {
        return None;
    }
    let mut plain = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim();
        let heading = t
            .strip_prefix(['h', 'H'])
            .and_then(|r| r.strip_prefix(|c: char| ('1'..='6').contains(&c)))
            .and_then(|r| r.strip_prefix(". "))
            .or_else(|| {
                let r = t.trim_start_matches('#');
                (r.len() < t.len() && r.starts_with(' ')).then_some(r)
            })
            .or_else(|| {
                t.strip_prefix("**")
                    .and_then(|r| r.strip_suffix("**"))
                    .filter(|r| !r.contains("**"))
            })
            .map(|h| h.trim().trim_end_matches([':', '：']).trim())
            .filter(|h| label_role(h).is_some());
        let line = match heading {
            Some(h) => format!("{h}:"),
            None => {
                let mut l = line.to_string();
                for m in ["{quote}", "{noformat}", "{code}", "{panel}"] {
                    l = l.replace(m, "");
                }
                l
            }
        };
        plain.push_str(&line);
        plain.push('\n');
    }
    let segs = segments_of(&plain);
    segs.iter()
        .any(|s| matches!(s.role, Some(LabelRole::Prompt | LabelRole::Steps)))
        .then_some(segs)
}

/// A command line whose flags are fields (`--prompt "…" --expect get-sum --arg a=1
/// --never crash`, continued with `\`), rewritten as one `flag: value` line per flag.
/// `None` when no flag is a field label.
fn command_flags(text: &str) -> Option<String> {
    if !text.contains("--") {
        return None;
    }
    let joined = text.replace("\\\n", " ").replace("\\\r\n", " ");
    let mut out = String::new();
    let mut any = false;
    for line in joined.lines() {
        // A comment's flags are documentation.
        if line.trim_start().starts_with(['#', '/']) {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let words = shell_words(line);
        let mut rest: Vec<String> = Vec::new();
        let mut fields = String::new();
        let mut k = 0;
        while k < words.len() {
            let w = &words[k];
            let flag = w.strip_prefix("--").filter(|f| !f.is_empty());
            let (name, value) = match flag.map(|f| f.split_once('=')) {
                Some(Some((n, v))) => (Some(n), Some(v.to_string())),
                Some(None) => (flag, words.get(k + 1).cloned()),
                None => (None, None),
            };
            let role = name.and_then(label_role).filter(|r| {
                matches!(
                    r,
                    LabelRole::Prompt
                        | LabelRole::Tool
                        | LabelRole::Args
                        | LabelRole::Expected
                        | LabelRole::Forbidden
                        | LabelRole::Negative
                )
            });
            match (name, role, value) {
                (Some(n), Some(r), Some(v)) => {
                    any = true;
                    if !w.contains('=') {
                        k += 1;
                    }
                    // `--turn "user:…"` is the turn as said; `--expect get-sum` names a tool.
                    if assistant_line(&v).is_some() || user_line(&v) {
                        fields.push_str(&format!("{v}\n"));
                    } else if r == LabelRole::Expected && !v.trim().contains(' ') {
                        fields.push_str(&format!("tool: {v}\n"));
                    } else {
                        fields.push_str(&format!("{n}: {v}\n"));
                    }
                }
                _ => rest.push(w.clone()),
            }
            k += 1;
        }
        // The command itself first, then its fields.
        // A command that expects nothing (a warm-up `ask --prompt "ping"`) is no case: its
        // words stay as they were.
        let expects = fields.lines().any(|l| {
            !label_role(l.split(':').next().unwrap_or_default())
                .is_some_and(|r| r == LabelRole::Prompt)
                && !user_line(l)
                && assistant_line(l).is_none()
        });
        if !expects {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        if !rest.is_empty() {
            out.push_str(&rest.join(" "));
            out.push('\n');
        }
        out.push_str(&fields);
    }
    any.then_some(out)
}

/// Whether a line is said by the user (`user: …`).
fn user_line(line: &str) -> bool {
    user_said(line).is_some()
}

/// What the user says on a `user: …` line (`usuário: …`, `Người dùng: …`), trimmed.
pub fn user_said(line: &str) -> Option<&str> {
    let (head, rest) = line.trim().split_once([':', '：'])?;
    let head = lexicon::fold_cow(head.trim());
    let speaker = lexicon::turn_speaker(&head).unwrap_or(&head);
    lexicon::listed(lexicon::USER_SPEAKERS, speaker).then_some(rest.trim())
}

/// A line cut into words as a shell does: quotes group, backslashes escape.
fn shell_words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    let mut started = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (None, ' ' | '\t') => {
                if started {
                    out.push(std::mem::take(&mut cur));
                    started = false;
                }
            }
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (Some(q), _) if c == q => quote = None,
            (Some('"') | None, '\\') => {
                if let Some(n) = chars.next() {
                    cur.push(n);
                }
                started = true;
            }
            _ => {
                cur.push(c);
                started = true;
            }
        }
    }
    if started {
        out.push(cur);
    }
    out
}

/// The text of a line spoken by the assistant (`Assistant: …`, `어시스턴트: …`).
pub fn assistant_line(line: &str) -> Option<String> {
    let t = strip_number(line.trim_start().trim_start_matches(['-', '*', '>', ' ']));
    let (head, rest) = t.split_once([':', '：'])?;
    let head = lexicon::fold_cow(head.trim_matches(['*', '_', ' ']));
    let speaker = lexicon::turn_speaker(&head).unwrap_or(&head);
    lexicon::listed(lexicon::ASSISTANT_SPEAKERS, speaker)
        .then(|| rest.trim_start_matches(['*', '_']).trim().to_string())
}

/// `"…" -> what is expected`: the quote (quotes kept) and the text after the arrow.
fn quote_then_arrow(t: &str) -> Option<(String, String)> {
    let t = t.trim();
    let &(a, b) = quotes(t).first()?;
    let close = b + t[b..].chars().next()?.len_utf8();
    if !t[..a].chars().all(|c| !c.is_alphanumeric()) {
        return None;
    }
    let after = t[close..].trim_start();
    let arrow = ARROWS.into_iter().find(|p| after.starts_with(p))?;
    Some((
        t[..close].to_string(),
        after[arrow.len()..].trim().to_string(),
    ))
}

/// A label after a sentence end inside a line: `(before, label, after)`.
fn inline_label(line: &str) -> Option<(String, String, String)> {
    // (A label ends at a colon: a line without one has none.)
    if !line.contains([':', '：']) {
        return None;
    }
    let b = line.as_bytes();
    // (Only a character right before a space can end a clause: the line's spaces are
    // found with memchr, in order, and the character before each is read.)
    for s in memchr::memchr_iter(b' ', b) {
        let Some(c) = line[..s].chars().next_back() else {
            continue;
        };
        let i = s - c.len_utf8();
        // A dash, a slash or a bar set off by spaces parts clauses too.
        let dash = matches!(c, '—' | '–' | '/' | '|' | '·' | '•') && i > 0 && b[i - 1] == b' ';
        // After a comma, only a forbidden-tools label starts a field (`→ get-sum, vietati:
        // get-stats`); a forbidden-tools label does in whatever case it is written (`→
        // noop. never: server-info`), any other only capitalised.
        let comma = c == ',';
        if dash
            || comma
            || matches!(
                c,
                '.' | ';' | '!' | '?' | '。' | ')' | '"' | '”' | '」' | '»'
            )
        {
            let after = line[s..].trim_start();
            if let Some(colon) = after.find([':', '：']) {
                let head = after[..colon].trim();
                // (`a=1, b=2. never: x`: a head holding a value or a sentence end is
                // none; the label is after the last of them.)
                if !head.is_empty()
                    && !head.contains(['=', '.', '。'])
                    && head.split_whitespace().count() <= 3
                    && (!comma
                        || head.chars().next().is_some_and(char::is_alphabetic)
                            && !head.contains(['[', ']', '/', '|', '(', ')']))
                    && let Some(role) = label_role(head)
                    && (role == LabelRole::Forbidden
                        || !comma && head.chars().next().is_some_and(|c| !c.is_lowercase()))
                    && matches!(
                        role,
                        LabelRole::Expected
                            | LabelRole::Tool
                            | LabelRole::Args
                            | LabelRole::Notes
                            | LabelRole::Forbidden
                    )
                {
                    let rest = after[colon..].chars().skip(1).collect::<String>();
                    let upto = if dash { i } else { s };
                    return Some((
                        line[..upto].to_string(),
                        head.to_string(),
                        rest.trim().to_string(),
                    ));
                }
            }
        }
    }
    None
}

/// A value as text.
pub fn value_text(v: &Value) -> String {
    super::draft::value_text(v)
}

/// `t` without its remarks in parentheses (`(ne výpis událostí!)`): what it says aside
/// describes no tool it expects.
fn without_parentheses(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut depth = 0usize;
    for c in t.chars() {
        match c {
            '(' | '（' => depth += 1,
            ')' | '）' => depth = depth.saturating_sub(1),
            _ if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out
}
