//! Chat logs exported or pasted as text: WhatsApp (`[12/03/24, 10:15:32] Name: …`, or
//! `12/03/2024, 10:15 - Name: …`), DiscordChatExporter (`[18/11/2024 9:02] name` over the
//! message), IRC (`[10:15] <nick> …`). A message opens on the line with its time and
//! sender and runs, blank lines and all, to the next such line: each message is a unit,
//! read as a page of its own, and a message whose reply puts it off leaves no case.

use std::sync::LazyLock;

use regex::Regex;

use super::super::catalog::Catalog;
use super::super::draft::Draft;
use super::super::lines::LineIndex;
use super::super::reading;
use crate::service::authoring::lines::split_lines;

/// A message's first line: its time in brackets, then its sender (and maybe its words).
static BRACKETED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\[([^\]\n]{0,30}\d{1,2}[:.]\d{2}[^\]\n]{0,16})\]\s*(\S.*)$")
        .expect("bracketed header compiles")
});

/// WhatsApp on Android: `12/03/2024, 10:15 - Name: …`.
static DASHED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^\d{1,4}[./-]\d{1,2}[./-]\d{1,4},?\s+\d{1,2}:\d{2}(?::\d{2})?(?:\s?[APap]\.?[Mm]\.?)?\s+[-–]\s+(\S.*)$")
        .expect("dashed header compiles")
});

/// What a message's first line says after the sender's name (empty when the message
/// starts on the next line), or `None` when the line opens no message.
fn header(line: &str) -> Option<&str> {
    let rest = BRACKETED
        .captures(line)
        .or_else(|| DASHED.captures(line))?
        .iter()
        .flatten()
        .last()?
        .as_str();
    // `<nick> words` (IRC), `Name: words` (WhatsApp), or the name alone (Discord).
    if let Some(r) = rest.strip_prefix('<')
        && let Some((who, said)) = r.split_once('>')
    {
        return is_name(who).then_some(said.trim());
    }
    if let Some((who, said)) = rest.split_once(": ")
        && is_name(who)
    {
        return Some(said.trim());
    }
    is_name(rest.trim_end_matches(':')).then_some("")
}

/// Whether words can be a sender's name (`Somchai`, `kovacs.bence`, `Ana (QA)`): a few
/// words and no sentence.
fn is_name(who: &str) -> bool {
    who.chars().count() <= 40
        && who.split_whitespace().count() <= 4
        && !who.contains(['"', '“', '„', '«', '「', '?', '!', ',', ';'])
        && !who.contains(". ")
        && !who.ends_with('.')
}

/// Whether the document is a chat log: three messages or more, their first lines at least
/// one line in ten.
pub fn looks_like_chat_log(head: &str) -> bool {
    let mut lines = 0;
    let mut heads = 0;
    for l in split_lines(head).filter(|l| !l.trim().is_empty()) {
        lines += 1;
        heads += usize::from(header(l).is_some());
    }
    heads >= 3 && heads * 10 >= lines
}

/// A message: its first and last line (1-based), and what its first line says after the
/// sender's name.
struct Message<'a> {
    start: usize,
    end: usize,
    first: &'a str,
}

impl Message<'_> {
    /// What the message says, line for line: its first line holds the words after the
    /// sender.
    fn lines<'a>(&'a self, ix: &'a LineIndex) -> Vec<&'a str> {
        std::iter::once(self.first)
            .chain((self.start + 1..=self.end).map(|n| ix.line(n)))
            .collect()
    }
}

/// Extracts the cases of a chat log, message by message.
pub fn extract(ix: &LineIndex, cat: &Catalog) -> Vec<Draft> {
    let mut messages: Vec<Message> = Vec::new();
    for n in 1..=ix.len() {
        let line = ix.line(n);
        if let Some(first) = header(line) {
            messages.push(Message {
                start: n,
                end: n,
                first,
            });
        } else if let Some(m) = messages.last_mut()
            && !line.trim().is_empty()
        {
            m.end = n;
        }
    }
    let read: Vec<Vec<Draft>> = messages
        .iter()
        .map(|m| {
            // The message as a page of its own.
            let mut drafts = super::markdown(&LineIndex::new(&m.lines(ix).join("\n")), cat);
            drafts.retain(Draft::is_case);
            let whole = drafts.len() == 1;
            for d in &mut drafts {
                if whole {
                    (d.start_line, d.end_line) = (m.start, m.end);
                } else {
                    d.start_line += m.start - 1;
                    d.end_line += m.start - 1;
                }
            }
            drafts
        })
        .collect();
    // A message that one of the two replies after it puts off leaves no case: "not a
    // model eval, that one" and then "OK, cut it". (A reply that proposes, or quotes what
    // to say, opens a thread of its own.)
    let proposes: Vec<bool> = read.iter().map(|d| !d.is_empty()).collect();
    let words: Vec<String> = messages.iter().map(|m| m.lines(ix).join(" ")).collect();
    let mut out = Vec::new();
    for (k, drafts) in read.into_iter().enumerate() {
        let declined = (k + 1..messages.len().min(k + 3))
            .take_while(|&r| !proposes[r] && reading::quotes(&words[r]).is_empty())
            .any(|r| super::retract::declines(&words[r]));
        if !declined {
            out.extend(drafts);
        }
    }
    out
}
