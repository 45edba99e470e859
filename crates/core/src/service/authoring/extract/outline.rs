//! Outlines exported as XML (OPML from Workflowy, Logseq or Dynalist; FreeMind and
//! Freeplane mind maps): nested nodes whose words sit in a `text` attribute, not in the
//! element. Read as the Markdown they correspond to, line for line: a node with children
//! is a heading of its depth, a leaf a list item, a leaf's note (`_note`) after it.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

use crate::service::authoring::lines::LineIndex;

/// FreeMind's and Freeplane's built-in icons that set a branch aside.
const SET_ASIDE: &[&str] = &["button_cancel", "stop-sign", "stop", "closed", "cancel"];

/// How many nodes with a text attribute make a document an outline.
const MIN_NODES: usize = 3;

/// The outline as Markdown, one line for each of `t`'s lines, when `t` is one.
pub fn as_markdown(t: &str) -> Option<String> {
    let mut reader = Reader::from_str(t);
    let cfg = reader.config_mut();
    cfg.check_end_names = false;
    cfg.allow_unmatched_ends = true;
    cfg.allow_dangling_amp = true;
    let ix = LineIndex::new(t);
    let mut lines: Vec<String> = vec![String::new(); ix.len()];
    // The open nodes' names, for the depth of the next.
    let mut open: Vec<String> = Vec::new();
    let mut nodes = 0;
    // (Inside a node's rich note: its words are lines of the node.)
    let mut note = 0usize;
    loop {
        let at = reader.buffer_position() as usize;
        let Ok(ev) = reader.read_event() else {
            return None;
        };
        let (e, leaf) = match &ev {
            Event::Eof => break,
            Event::Start(e) if e.local_name().into_inner() == "richcontent" => {
                note += 1;
                continue;
            }
            Event::End(e) if e.local_name().into_inner() == "richcontent" => {
                note = note.saturating_sub(1);
                continue;
            }
            Event::Text(x) if note > 0 => {
                let raw: &str = x.as_ref();
                let at = at + (raw.len() - raw.trim_start().len());
                let words = super::markup::blank_tags(raw)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                if !words.is_empty() {
                    let line = ix.line_of(at.min(t.len())) - 1;
                    lines[line] = words;
                }
                continue;
            }
            Event::Start(e) => (e, false),
            Event::Empty(e) if e.local_name().into_inner() == "icon" => {
                // A mind map marks a branch set aside with an icon (a cross, a stop sign).
                if attribute(e, &["BUILTIN"]).is_some_and(|i| SET_ASIDE.contains(&i.as_str())) {
                    lines[ix.line_of(at + t[at..].find('<').unwrap_or(0)) - 1] =
                        "Status: dropped".into();
                }
                continue;
            }
            Event::Empty(e) => (e, true),
            Event::End(e) => {
                let name = e.local_name().as_ref().to_ascii_lowercase();
                if let Some(k) = open.iter().rposition(|n| *n == name) {
                    open.truncate(k);
                }
                continue;
            }
            _ => continue,
        };
        let name = e.local_name().as_ref().to_ascii_lowercase();
        let Some(words) = attribute(e, &["text", "TEXT"]) else {
            continue;
        };
        nodes += 1;
        // (The tag opens on the line after any blank the reader stepped over.)
        let line = ix.line_of(at + t[at..].find('<').unwrap_or(0)) - 1;
        let depth = open.len() + 1;
        lines[line] = if leaf {
            match attribute(e, &["_note", "NOTE"]).filter(|n| !n.is_empty()) {
                Some(note) => format!("- {words} — {note}"),
                None => format!("- {words}"),
            }
        } else {
            format!("{} {words}", "#".repeat(depth.min(6)))
        };
        if !leaf {
            open.push(name);
        }
    }
    (nodes >= MIN_NODES).then(|| super::rejoin(t, &lines))
}

/// The first of `names` the element carries, its entities decoded and any HTML in it
/// reduced to its words, on one line.
fn attribute(e: &BytesStart, names: &[&str]) -> Option<String> {
    let a = names
        .iter()
        .find_map(|n| e.try_get_attribute(n).ok().flatten())?;
    let raw: &str = &a.value;
    let text = super::markup::blank_tags(&super::markup::blank_tags(raw));
    Some(text.split_whitespace().collect::<Vec<_>>().join(" "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opml_outline_reads_as_headings_over_items() {
        let t = "<?xml version=\"1.0\"?>\n<opml version=\"2.0\">\n<body>\n<outline text=\"Cases\">\n  <outline text=\"C1: What is 2 plus 3 right now?\">\n    <outline text=\"&lt;b&gt;get-sum&lt;/b&gt;\" _note=\"a=2, b=3\"/>\n  </outline>\n</outline>\n</body>\n</opml>\n";
        let md = as_markdown(t).expect("an outline");
        let l: Vec<&str> = md.lines().collect();
        assert_eq!(l.len(), t.lines().count());
        assert_eq!(l[3], "# Cases");
        assert_eq!(l[4], "## C1: What is 2 plus 3 right now?");
        assert_eq!(l[5], "- get-sum — a=2, b=3");
        assert_eq!(l[6], "");
    }

    #[test]
    fn markup_without_text_attributes_is_no_outline() {
        assert!(as_markdown("<html><body><p>Hello</p><p>There</p></body></html>").is_none());
    }
}
