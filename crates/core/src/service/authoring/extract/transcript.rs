//! Transcripts of a recorded call (WebVTT, SubRip): cues of a few seconds each, cut
//! wherever the recorder paused, so one thing said runs over several cues. A unit is a
//! turn: the cues one speaker says in a row (`<v Priya>` in WebVTT, `Priya:` or `[Priya]`
//! at a cue's start in SubRip). A turn that proposes a case and the next speaker's turn
//! putting it off ("let's park that, not for this batch") leave no case.

use super::super::catalog::Catalog;
use super::super::draft::Draft;
use super::super::lexicon;
use super::super::lines::LineIndex;
use super::super::reading;
use super::super::unit::{UnitInfo, read_unit, segments_of};

/// Whether the document is a transcript: `WEBVTT` first, or SubRip's numbered cues with
/// a `00:00:01,000 --> 00:00:04,000` timing line.
pub fn looks_like_transcript(head: &str) -> bool {
    let mut lines = head.lines().map(str::trim).filter(|l| !l.is_empty());
    match lines.next() {
        Some(first) if first.starts_with("WEBVTT") => true,
        Some(first) => {
            first.chars().all(|c| c.is_ascii_digit()) && lines.next().is_some_and(is_timing)
        }
        None => false,
    }
}

/// A cue's timing line: `00:00:02.140 --> 00:00:07.900` (settings may follow).
fn is_timing(l: &str) -> bool {
    let Some((a, b)) = l.split_once("-->") else {
        return false;
    };
    let stamp = |s: &str| {
        let s = s.split_whitespace().next().unwrap_or_default();
        s.len() >= 5
            && s.contains(':')
            && s.chars()
                .all(|c| c.is_ascii_digit() || matches!(c, ':' | '.' | ','))
    };
    stamp(a.trim()) && stamp(b.trim())
}

/// One speaker's turn: who, what was said (one line a cue), its lines, and when its last
/// cue ended (seconds).
struct Turn {
    who: Option<String>,
    said: Vec<String>,
    start: usize,
    end: usize,
    ended: Option<f64>,
}

/// A cue's start and end, in seconds.
fn times(l: &str) -> Option<(f64, f64)> {
    let (a, b) = l.split_once("-->")?;
    let secs = |s: &str| -> Option<f64> {
        let s = s.split_whitespace().next()?.replace(',', ".");
        s.split(':').try_fold(0.0, |acc, part| {
            Some(acc * 60.0 + part.parse::<f64>().ok()?)
        })
    };
    Some((secs(a)?, secs(b)?))
}

/// How long a pause may be inside one turn: a cue cut mid-sentence starts as the one
/// before it ends; a speaker who starts again after a pause says something new.
const PAUSE: f64 = 0.5;

/// Extracts the cases said in a transcript.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let turns = turns(ix);
    let read = |from: usize, to: usize| {
        let info = UnitInfo {
            shape: "transcript turn",
            start: turns[from].start,
            end: turns[to].end,
            title: None,
            key: None,
            structured: false,
            title_said: false,
        };
        let said: Vec<&str> = turns[from..=to]
            .iter()
            .flat_map(|t| t.said.iter().map(String::as_str))
            .collect();
        read_unit(&segments_of(&said.join("\n")), &info, cat).filter(Draft::is_case)
    };
    let alone: Vec<Option<Draft>> = (0..turns.len()).map(|k| read(k, k)).collect();
    // A case is talked over: the turns after the one proposing it, up to the next case,
    // add to it (the arguments someone adds, "and never X"), and a proposal whose prompt
    // is only settled a turn or two later ("then the prompt is: '…'") is read with them.
    let mut drafts: Vec<Draft> = vec![Draft::default(); turns.len()];
    let mut k = 0;
    while k < turns.len() {
        let mut end = k + 1;
        while end < turns.len() && end - k <= THREAD && alone[end].is_none() {
            end += 1;
        }
        match &alone[k] {
            Some(d) => {
                // (A turn expecting a tool this case does not is another proposal.)
                let expects = d.negative || !d.expected_calls.is_empty();
                // (Nor is one quoting something new to say.)
                let own = |t: &Turn| {
                    let said = t.said.join("\n");
                    let quotes_new = reading::quotes(&said).iter().any(|&(a, b)| {
                        let q = said[a..b].trim();
                        reading::utterance_like(q) && !d.prompts.iter().any(|p| p.contains(q))
                    });
                    let names_new = expects
                        && reading::read(&said, cat).calls.iter().any(|c| {
                            !d.expected_calls.iter().any(|e| e.tool == c.tool)
                                && !d.never_called.contains(&c.tool)
                        });
                    !quotes_new && !names_new
                };
                if let Some(other) = (k + 1..end).find(|&j| !own(&turns[j])) {
                    end = other;
                }
                // The case runs to the last turn that added to it.
                let mut best = d.clone();
                for j in k + 1..end {
                    match read(k, j) {
                        // (Read with the turns after it, the case keeps what it expected.)
                        Some(t)
                            if t.prompts == d.prompts
                                && t.negative == d.negative
                                && d.expected_calls
                                    .iter()
                                    .all(|c| t.expected_calls.iter().any(|e| e.tool == c.tool)) =>
                        {
                            if adds(&t, &best) {
                                best = t;
                            }
                        }
                        _ => break,
                    }
                }
                drafts[k] = best;
                k = end;
            }
            None => match (k + 1..proposals_apart(&turns, k, end))
                .find_map(|m| Some((m, read(k, m)?)))
            {
                Some((m, d)) => {
                    drafts[k] = d;
                    k = m + 1;
                }
                None => k += 1,
            },
        }
    }
    // The next speaker putting a proposal off drops it.
    let replies: Vec<Option<String>> = (0..turns.len())
        .map(|k| {
            let other = turns.get(k + 1).is_some_and(|n| n.who != turns[k].who);
            other.then(|| turns[k + 1].said.join(" "))
        })
        .collect();
    super::retract::without_declined(drafts, &replies)
}

/// Where the turns after `k` (up to `end`) stop talking it over: a turn quoting
/// something new to say, when `k` quotes its own, is another proposal ("Case five:
/// '…'" whose tool no one could name is no part of "Case six: '…'").
fn proposals_apart(turns: &[Turn], k: usize, end: usize) -> usize {
    let utterances = |t: &Turn| -> Vec<String> {
        let said = t.said.join("\n");
        reading::quotes(&said)
            .into_iter()
            .map(|(a, b)| said[a..b].trim().to_string())
            .filter(|q| reading::utterance_like(q))
            .collect()
    };
    let own = utterances(&turns[k]);
    if own.is_empty() {
        return end;
    }
    (k + 1..end)
        .find(|&j| utterances(&turns[j]).iter().any(|q| !own.contains(q)))
        .unwrap_or(end)
}

/// Whether a reading of more turns expects more than the one before it.
fn adds(more: &Draft, before: &Draft) -> bool {
    let args = |d: &Draft| {
        d.expected_calls
            .iter()
            .map(|c| c.args.as_ref().map_or(0, |a| a.len()) + 1)
            .sum::<usize>()
    };
    args(more) > args(before)
        || more.never_called.len() > before.never_called.len()
        || more.contains.len() > before.contains.len()
}

/// How many turns after a proposal may still talk it over.
const THREAD: usize = 4;

/// The transcript's turns, cue timings, numbers and notes left out.
fn turns(ix: &LineIndex) -> Vec<Turn> {
    let mut out: Vec<Turn> = Vec::new();
    let mut note = false;
    // The timing of the cue being read.
    let mut cue: Option<(f64, f64)> = None;
    for n in 1..=ix.len() {
        let t = ix.line(n).trim();
        if t.is_empty() {
            note = false;
            continue;
        }
        // (`NOTE`, `STYLE` and `REGION` blocks run to the next blank line.)
        if note || n == 1 && t.starts_with("WEBVTT") {
            continue;
        }
        if ["NOTE", "STYLE", "REGION"]
            .iter()
            .any(|w| t.starts_with(w) && t[w.len()..].chars().next().is_none_or(|c| c == ' '))
        {
            note = true;
            continue;
        }
        if is_timing(t) {
            cue = times(t);
            continue;
        }
        if n < ix.len() && is_timing(ix.line(n + 1).trim()) {
            continue;
        }
        let (who, said) = speaker(t);
        let said = without_tags(said);
        if said.is_empty() {
            continue;
        }
        let ended = cue.map(|(_, e)| e);
        match out.last_mut() {
            Some(last)
                if (who.is_none() || who == last.who)
                    && match (last.ended, cue) {
                        (Some(e), Some((s, _))) => {
                            (s - e <= PAUSE || last.end + 1 == n) && !opens_anew(last, &said)
                        }
                        _ => true,
                    } =>
            {
                last.said.push(said);
                last.end = n;
                last.ended = ended;
            }
            _ => out.push(Turn {
                who,
                said: vec![said],
                start: n,
                end: n,
                ended,
            }),
        }
    }
    out
}

/// Whether a cue starts something new after a finished sentence: "… Agreed." then
/// "Eighth: …".
fn opens_anew(last: &Turn, said: &str) -> bool {
    const STOPS: [char; 9] = ['.', '!', '?', '…', '。', '।', '؟', '።', '။'];
    let ended = last
        .said
        .last()
        .is_some_and(|l| l.trim_end().ends_with(STOPS));
    // (A word or two before a colon or a stop: a label, an ordinal, a name, a case
    // announced by its number, `Case 3:`, `केस एक।`.)
    let labelled = said
        .split_once([':', '：', '.', '।', '—'])
        .is_some_and(|(head, rest)| {
            let words = head.split_whitespace().count();
            (1..=2).contains(&words)
                && !rest.trim().is_empty()
                && head.chars().all(|c| {
                    c.is_alphanumeric()
                        || c == ' '
                        || unicode_normalization::char::is_combining_mark(c)
                })
        });
    ended && labelled
}

/// A cue line's speaker and words: `<v Priya Raman>…`, `Priya Raman: …`, `[Priya] …`.
fn speaker(t: &str) -> (Option<String>, &str) {
    if let Some(rest) = t.strip_prefix("<v")
        && let Some(close) = rest.find('>')
    {
        // (`<v.loud Priya>`: classes before the name.)
        let inner = &rest[..close];
        let who = if inner.starts_with('.') {
            inner.split_once(' ').map_or("", |(_, name)| name)
        } else {
            inner
        };
        return (Some(who.trim().to_string()), rest[close + 1..].trim());
    }
    if let Some(rest) = t.strip_prefix('[')
        && let Some(close) = rest.find(']')
        && close <= 40
    {
        return (
            Some(rest[..close].trim().to_string()),
            rest[close + 1..].trim(),
        );
    }
    // (A name is capitalized, or written in a script without capitals, `रमेश:`; a
    // field's label, `Expected:`, `अपेक्षा:`, is no one.)
    let named = |w: &str| {
        w.chars()
            .next()
            .is_some_and(|c| c.is_uppercase() || c.is_alphabetic() && !c.is_lowercase())
    };
    if let Some((who, said)) = t.split_once(": ")
        && !who.is_empty()
        && who.chars().count() <= 30
        && who.split_whitespace().count() <= 3
        && who.split_whitespace().all(named)
        && lexicon::label_role(who).is_none()
    {
        return (Some(who.to_string()), said.trim());
    }
    (None, t)
}

/// A cue's words without its inline tags (`<i>`, `<c.yellow>`, `</v>`, `<00:00:03.000>`)
/// and with its entities decoded.
fn without_tags(s: &str) -> String {
    super::markup::blank_tags(s)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_webvtt_file_and_a_subrip_file_are_transcripts() {
        assert!(looks_like_transcript(
            "WEBVTT\n\n1\n00:00:01.000 --> 00:00:02.000\n<v A>Hi\n"
        ));
        assert!(looks_like_transcript(
            "1\n00:00:01,000 --> 00:00:02,500\nHello\n"
        ));
        assert!(!looks_like_transcript("1. Add two numbers\n2. Echo\n"));
    }

    #[test]
    fn cues_of_one_speaker_in_a_row_are_one_turn() {
        let t = "WEBVTT\n\nNOTE\nauto transcript\n\n1\n00:00:01.000 --> 00:00:02.000\n<v Ana>First part,\n\n2\n00:00:02.000 --> 00:00:03.000\n<v Ana>second part.\n\n3\n00:00:03.000 --> 00:00:04.000\n<v Ben>Reply.\n";
        let turns = turns(&LineIndex::new(t));
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].who.as_deref(), Some("Ana"));
        assert_eq!(turns[0].said, ["First part,", "second part."]);
        assert_eq!((turns[0].start, turns[0].end), (8, 12));
        assert_eq!(turns[1].said, ["Reply."]);
    }

    #[test]
    fn subrip_speakers_in_a_script_without_capitals_and_cases_announced_by_number() {
        let cue = |n: usize, said: &str| {
            format!(
                "{n}\n00:00:{:02},000 --> 00:00:{:02},400\n{said}\n\n",
                n * 2,
                n * 2 + 1
            )
        };
        let t = [
            cue(1, "सुनिता: Recording started, the store cases today."),
            cue(2, "रमेश: OK. I read the first one."),
            // (Said on, with no pause: the same turn, but a case announced anew.)
            "3\n00:00:05,400 --> 00:00:07,000\nरमेश: केस एक। The user writes: \"Add 2 and 3 for me\"\nget-sum, a 2, b 3.\n\n".to_string(),
            cue(4, "Expected: this line is a label, not a speaker."),
            cue(5, "अनिता: केस दुई: \"Say hello back to me\""),
            // (Nobody could name its tool: the next quoted proposal is no part of it.)
            cue(6, "प्रकाश: केस तीन: \"Repeat after me: good night\" → echo"),
            cue(7, "सुनिता: यो चाहिं नराखौं।"),
            cue(8, "रमेश: केस चार: \"What is 7 plus 8?\" → get-sum, a 7, b 8"),
        ]
        .concat();
        let ix = LineIndex::new(&t);
        let turns = turns(&ix);
        assert_eq!(turns[0].who.as_deref(), Some("सुनिता"));
        assert_eq!(
            turns[2].said[0],
            "केस एक। The user writes: \"Add 2 and 3 for me\""
        );
        assert!(turns.iter().all(|t| t.who.as_deref() != Some("Expected")));
        let drafts = extract(
            &ix,
            &Catalog::new(&crate::service::authoring::catalog::demo_tools()),
        );
        let prompts: Vec<&str> = drafts.iter().map(|d| d.prompts[0].as_str()).collect();
        // Case three is put off by the next speaker ("let's not keep this one").
        assert_eq!(
            prompts,
            ["Add 2 and 3 for me", "What is 7 plus 8?"],
            "{drafts:#?}"
        );
        assert_eq!(drafts[0].start_line, 11);
    }

    #[test]
    fn a_case_talked_over_in_later_turns_gathers_what_they_add() {
        let cue = |n: usize, who: &str, said: &str| {
            format!(
                "{n}\n00:00:{:02}.000 --> 00:00:{:02}.500\n<v {who}>{said}\n\n",
                n * 2,
                n * 2
            )
        };
        let t = [
            "WEBVTT\n\n".to_string(),
            cue(
                1,
                "Ana",
                "Next: \"Repeat after me: good morning\", expect echo.",
            ),
            cue(
                2,
                "Ben",
                "Write the argument too: message = good morning. And never legacy-echo.",
            ),
            cue(3, "Ana", "Done."),
            cue(
                4,
                "Ben",
                "Also, should we test \"add 2 and 3 for me\"? I think get-sum.",
            ),
            cue(5, "Ana", "Another: echo with message = hi there, exactly."),
            cue(
                6,
                "Ben",
                "Then the prompt is: \"Can you say hi there to the team?\"",
            ),
        ]
        .concat();
        let ix = LineIndex::new(&t);
        let drafts = extract(
            &ix,
            &Catalog::new(&crate::service::authoring::catalog::demo_tools()),
        );
        assert_eq!(drafts.len(), 3, "{drafts:#?}");
        // The arguments a second speaker adds join the case; the agreement after adds nothing.
        assert_eq!(drafts[0].prompts, ["Repeat after me: good morning"]);
        assert_eq!(drafts[0].never_called, ["legacy-echo"]);
        let args = drafts[0].expected_calls[0].args.clone().unwrap_or_default();
        assert_eq!(
            args.get("message"),
            Some(&serde_json::json!("good morning"))
        );
        assert_eq!((drafts[0].start_line, drafts[0].end_line), (5, 9));
        // A turn quoting something new is a case of its own.
        assert_eq!(drafts[1].prompts, ["add 2 and 3 for me"]);
        // A proposal whose prompt a later turn settles is read with it.
        assert_eq!(drafts[2].prompts, ["Can you say hi there to the team?"]);
        assert_eq!(drafts[2].expected_calls[0].tool, "echo");
    }

    #[test]
    fn turns_read_after_a_case_never_take_away_what_it_expects() {
        // The second cue opens with a label of its own; read with it, the first cue's
        // tool must not be lost.
        let t = "1\n00:00:01,000 --> 00:00:04,000\nLucía: Primer caso: \"¿Cuánto es 8 más 5?\", esperamos get-sum.\n\n2\n00:00:05,000 --> 00:00:08,000\nMarcos: Añade los argumentos: a = 8, b = 5. Y nunca legacy-echo.\n";
        let drafts = extract(
            &LineIndex::new(t),
            &Catalog::new(&crate::service::authoring::catalog::demo_tools()),
        );
        assert_eq!(drafts.len(), 1, "{drafts:#?}");
        assert_eq!(drafts[0].expected_calls[0].tool, "get-sum");
    }
}
