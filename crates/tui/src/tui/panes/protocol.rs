//! A server's protocol events as the workbench has read them — every JSON-RPC message both
//! ways, the lines the server wrote to stderr, and what evaldeck decided on its behalf —
//! and what they tell: the protocol revision the connection speaks, and the notes taken
//! during one call (a sampling request answered or declined).

use ratatui::text::{Line, Span};
use serde_json::Value;

use crate::spec::primitives::{ProtocolEvent, TrafficPage};
use crate::tui::theme::Theme;
use crate::tui::widgets::highlight;

/// Events kept per server on screen (the core keeps as many).
pub const KEPT: usize = 2000;
/// A page of the traffic endpoint is at most this long: a full one means more are waiting.
const PAGE: usize = 500;

/// What has been read of one server's protocol events.
#[derive(Debug, Default)]
pub struct Traffic {
    pub events: Vec<ProtocolEvent>,
    /// The newest sequence number read (the next read asks for what came after it).
    pub last_seq: u64,
    /// The revision the last connection settled on, as its messages show it.
    revision: Option<String>,
    /// Bumped whenever `events` changes, so the list's keys are rebuilt only then.
    pub generation: u64,
}

/// What a page did to the events.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Added {
    /// Events dropped from the front (the oldest, past [`KEPT`]).
    pub dropped: usize,
    /// More may be waiting: read again at once.
    pub more: bool,
}

impl Traffic {
    pub fn add(&mut self, page: TrafficPage) -> Added {
        // The core started afresh (a restarted `serve`): its numbers begin again.
        if page.last_seq < self.last_seq {
            let dropped = self.events.len();
            *self = Traffic {
                generation: self.generation + 1,
                ..Traffic::default()
            };
            return Added {
                dropped,
                more: true,
            };
        }
        let more = page.items.len() >= PAGE;
        let mut changed = false;
        for e in page.items {
            if e.seq <= self.last_seq {
                continue;
            }
            self.last_seq = e.seq;
            if let Some(r) = revision_of(&e) {
                self.revision = Some(r);
            }
            self.events.push(e);
            changed = true;
        }
        let dropped = self.events.len().saturating_sub(KEPT);
        if dropped > 0 {
            self.events.drain(..dropped);
        }
        if changed {
            self.generation += 1;
        }
        Added { dropped, more }
    }

    /// The protocol revision the server's connection speaks, as its messages say.
    pub fn revision(&self) -> Option<&str> {
        self.revision.as_deref()
    }

    /// What evaldeck decided for the server between two instants (epoch ms): the notes of
    /// one call.
    pub fn notes_between(&self, from: i64, to: i64) -> Vec<String> {
        self.events
            .iter()
            .filter(|e| e.direction == "note" && e.at >= from && e.at <= to)
            .map(|e| match &e.message {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            })
            .collect()
    }
}

/// The revision a message shows: a request of the stateless era carries it in its `_meta`;
/// the answer to `initialize` names the one the handshake settled on.
fn revision_of(e: &ProtocolEvent) -> Option<String> {
    let m = &e.message;
    let v = match e.direction.as_str() {
        "out" => m.pointer("/params/_meta/io.modelcontextprotocol~1protocolVersion"),
        "in" if e.kind == "response" => m.pointer("/result/protocolVersion"),
        _ => None,
    };
    v.and_then(Value::as_str).map(str::to_string)
}

/// `HH:MM:SS.mmm` in local time.
fn clock(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| {
            t.with_timezone(&chrono::Local)
                .format("%H:%M:%S%.3f")
                .to_string()
        })
        .unwrap_or_default()
}

/// The part of a message worth a glance: its params, result or error (not the envelope).
fn gist(e: &ProtocolEvent) -> String {
    match &e.message {
        Value::String(s) => s.clone(),
        v => {
            let part = ["params", "result", "error"]
                .iter()
                .find_map(|k| v.get(*k))
                .unwrap_or(v);
            match part {
                Value::Object(o) if o.is_empty() => String::new(),
                p => p.to_string(),
            }
        }
    }
}

fn arrow(e: &ProtocolEvent) -> &'static str {
    match e.direction.as_str() {
        "out" => "→",
        "in" => "←",
        "stderr" => "⚠",
        _ => "·",
    }
}

/// `method #id`, or what stands in for it.
fn what(e: &ProtocolEvent) -> String {
    match (&e.method, &e.id) {
        (Some(m), Some(id)) => format!("{m} #{id}"),
        (Some(m), None) => m.clone(),
        (None, Some(id)) => format!("{} #{id}", e.kind),
        (None, None) => e.kind.clone(),
    }
}

/// What the list's filter matches: direction, kind, method, id and the start of the body.
pub fn key(e: &ProtocolEvent) -> String {
    let body: String = gist(e).chars().take(300).collect();
    format!("{} {} {} {}", e.direction, e.kind, what(e), body)
}

/// One event as one row: `12:03:04.123 → tools/call #3  {"name":"slow",…}`.
pub fn row(e: &ProtocolEvent, width: usize, theme: &Theme) -> Line<'static> {
    let style = match (e.direction.as_str(), e.kind.as_str()) {
        (_, "error") => theme.error,
        ("out", _) => theme.accent,
        ("in", _) => theme.ok,
        ("stderr", _) => theme.warn,
        _ => theme.dim,
    };
    let time = clock(e.at);
    let what = what(e);
    let used = time.chars().count() + 3 + what.chars().count() + 2;
    let body = super::clip(&gist(e), width.saturating_sub(used));
    Line::from(vec![
        Span::styled(time, theme.dim),
        Span::styled(format!(" {} ", arrow(e)), style),
        Span::styled(what, style),
        Span::styled(format!("  {body}"), theme.dim),
    ])
}

/// The selected event in full: what it is, then the message, pretty and highlighted.
pub fn detail(e: &ProtocolEvent, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{} {} ", arrow(e), e.kind), theme.title),
        Span::raw(
            [e.method.clone(), e.id.as_ref().map(|id| format!("#{id}"))]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" "),
        ),
        Span::styled(format!("  {}", clock(e.at)), theme.dim),
    ])];
    match &e.message {
        Value::String(s) => lines.extend(s.lines().map(|l| Line::raw(l.to_string()))),
        v => lines.extend(highlight::json(v, theme)),
    }
    lines
}

/// The text `y` copies: the message as pretty JSON (a stderr line or note as it is).
pub fn copy_text(e: &ProtocolEvent) -> String {
    match &e.message {
        Value::String(s) => s.clone(),
        v => serde_json::to_string_pretty(v).unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(seq: u64, direction: &str, kind: &str, message: Value) -> ProtocolEvent {
        ProtocolEvent {
            seq,
            at: 1_000 + seq as i64,
            direction: direction.into(),
            kind: kind.into(),
            method: message
                .get("method")
                .and_then(Value::as_str)
                .map(str::to_string),
            id: message.get("id").cloned(),
            message,
        }
    }

    #[test]
    fn the_revision_comes_from_the_messages_of_either_era() {
        let mut t = Traffic::default();
        t.add(TrafficPage {
            items: vec![ev(
                1,
                "in",
                "response",
                json!({"id": 0, "result": {"protocolVersion": "2025-11-25"}}),
            )],
            last_seq: 1,
        });
        assert_eq!(t.revision(), Some("2025-11-25"));
        t.add(TrafficPage {
            items: vec![ev(
                2,
                "out",
                "request",
                json!({"id": 1, "method": "tools/list", "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
            )],
            last_seq: 2,
        });
        assert_eq!(t.revision(), Some("2026-07-28"));
    }

    #[test]
    fn old_events_go_past_the_limit_and_a_restarted_core_starts_over() {
        let mut t = Traffic::default();
        let items: Vec<_> = (1..=KEPT as u64 + 10)
            .map(|i| ev(i, "stderr", "stderr", json!("line")))
            .collect();
        let added = t.add(TrafficPage {
            last_seq: items.len() as u64,
            items,
        });
        assert_eq!(added.dropped, 10);
        assert!(added.more);
        assert_eq!(t.events.len(), KEPT);
        assert_eq!(t.events[0].seq, 11);
        // Nothing new: nothing changes.
        let g = t.generation;
        t.add(TrafficPage {
            items: vec![],
            last_seq: t.last_seq,
        });
        assert_eq!(t.generation, g);
        let added = t.add(TrafficPage {
            items: vec![],
            last_seq: 3,
        });
        assert!(added.more);
        assert!(t.events.is_empty());
        assert_eq!(t.last_seq, 0);
    }

    #[test]
    fn notes_of_a_call_are_those_in_its_time() {
        let mut t = Traffic::default();
        t.add(TrafficPage {
            items: vec![
                ev(1, "note", "note", json!("before")),
                ev(
                    5,
                    "note",
                    "note",
                    json!("the server asked for sampling; declined"),
                ),
                ev(9, "note", "note", json!("after")),
            ],
            last_seq: 9,
        });
        assert_eq!(
            t.notes_between(1_004, 1_006),
            vec!["the server asked for sampling; declined".to_string()]
        );
    }
}
