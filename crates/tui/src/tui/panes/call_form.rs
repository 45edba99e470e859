//! The arguments form for calling a tool or rendering a prompt, generated from the tool's
//! input schema (nested objects become dotted fields, enums and booleans cycle, arrays and
//! free objects are typed as JSON, defaults are filled in), with a raw-JSON toggle.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};
use ratatui_textarea::TextArea;
use serde_json::{Map, Value};

use super::clip;
use crate::spec::primitives::{PromptGetRequest, PromptItem, ToolCallRequest, ToolItem};
use crate::tui::message::Request;
use crate::tui::theme::Theme;
use crate::tui::widgets::input::LineInput;
use crate::tui::widgets::modal::{centered, frame_box};

#[derive(Debug, Clone, PartialEq)]
enum Kind {
    Text,
    Number,
    Integer,
    /// `None` is "not set".
    Bool(Option<bool>),
    /// Index into the choices; `None` is "not set".
    Enum(Vec<Value>, Option<usize>),
    /// Arrays and objects without declared properties, typed as JSON.
    Json,
}

#[derive(Debug, Clone)]
struct Field {
    path: Vec<String>,
    kind: Kind,
    required: bool,
    description: Option<String>,
    input: LineInput,
    error: Option<String>,
}

impl Field {
    fn type_name(&self) -> &'static str {
        match self.kind {
            Kind::Text => "string",
            Kind::Number => "number",
            Kind::Integer => "integer",
            Kind::Bool(_) => "boolean",
            Kind::Enum(..) => "enum",
            Kind::Json => "json",
        }
    }
}

/// What the form calls.
#[derive(Debug, Clone, PartialEq)]
pub enum Target {
    Tool,
    Prompt,
}

pub struct CallForm {
    pub server: String,
    pub name: String,
    target: Target,
    description: Option<String>,
    fields: Vec<Field>,
    focus: usize,
    raw: Option<TextArea<'static>>,
    error: Option<String>,
}

#[allow(clippy::large_enum_variant)] // returned once per key, never stored
pub enum CallOutcome {
    Keep,
    Cancel,
    Submit(Request),
}

fn schema_type(prop: &Value) -> Option<&str> {
    match prop.get("type") {
        Some(Value::String(s)) => Some(s),
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

fn collect_fields(schema: &Value, prefix: &[String], out: &mut Vec<Field>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (name, prop) in props {
        let mut path = prefix.to_vec();
        path.push(name.clone());
        let ty = schema_type(prop);
        if ty == Some("object") && prop.get("properties").is_some() {
            collect_fields(prop, &path, out);
            continue;
        }
        let default = prop.get("default");
        let mut input = LineInput::default();
        let kind = if let Some(choices) = prop.get("enum").and_then(Value::as_array) {
            let idx = default.and_then(|d| choices.iter().position(|c| c == d));
            Kind::Enum(choices.clone(), idx)
        } else {
            match ty {
                Some("boolean") => Kind::Bool(default.and_then(Value::as_bool)),
                Some("integer") => Kind::Integer,
                Some("number") => Kind::Number,
                Some("string") | None if prop.get("items").is_none() => Kind::Text,
                _ => Kind::Json,
            }
        };
        if let Some(d) = default {
            match (&kind, d) {
                (Kind::Text, Value::String(s)) => input = LineInput::with_text(s),
                (Kind::Number | Kind::Integer | Kind::Json, d) => {
                    input = LineInput::with_text(&d.to_string())
                }
                _ => {}
            }
        }
        out.push(Field {
            path,
            kind,
            required: required.contains(&name.as_str()),
            description: prop
                .get("description")
                .and_then(Value::as_str)
                .map(str::to_string),
            input,
            error: None,
        });
    }
}

fn insert_at(map: &mut Map<String, Value>, path: &[String], v: Value) {
    match path {
        [] => {}
        [last] => {
            map.insert(last.clone(), v);
        }
        [first, rest @ ..] => {
            let entry = map
                .entry(first.clone())
                .or_insert_with(|| Value::Object(Map::new()));
            if !entry.is_object() {
                *entry = Value::Object(Map::new());
            }
            if let Value::Object(m) = entry {
                insert_at(m, rest, v);
            }
        }
    }
}

fn get_at<'a>(v: &'a Value, path: &[String]) -> Option<&'a Value> {
    path.iter().try_fold(v, |v, k| v.get(k))
}

impl CallForm {
    pub fn for_tool(server: &str, tool: &ToolItem) -> CallForm {
        let mut fields = Vec::new();
        if let Some(schema) = &tool.input_schema {
            collect_fields(schema, &[], &mut fields);
        }
        CallForm {
            server: server.to_string(),
            name: tool.name.clone(),
            target: Target::Tool,
            description: tool.description.clone(),
            fields,
            focus: 0,
            raw: None,
            error: None,
        }
    }

    pub fn for_prompt(server: &str, prompt: &PromptItem) -> CallForm {
        let fields = prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| Field {
                path: vec![a.name.clone()],
                kind: Kind::Text,
                required: a.required.unwrap_or(false),
                description: a.description.clone(),
                input: LineInput::default(),
                error: None,
            })
            .collect();
        CallForm {
            server: server.to_string(),
            name: prompt.name.clone(),
            target: Target::Prompt,
            description: prompt.description.clone(),
            fields,
            focus: 0,
            raw: None,
            error: None,
        }
    }

    /// The arguments the fields describe, or marks the fields that are wrong.
    fn arguments_from_fields(&mut self) -> Option<Map<String, Value>> {
        let mut map = Map::new();
        let mut ok = true;
        for f in &mut self.fields {
            f.error = None;
            let text = f.input.text().trim();
            let value = match &f.kind {
                Kind::Bool(b) => b.map(Value::Bool),
                Kind::Enum(choices, i) => i.map(|i| choices[i].clone()),
                _ if text.is_empty() => None,
                Kind::Text => Some(Value::String(f.input.text().to_string())),
                Kind::Integer => match text.parse::<i64>() {
                    Ok(n) => Some(Value::from(n)),
                    Err(_) => {
                        f.error = Some("not an integer".into());
                        None
                    }
                },
                Kind::Number => match text
                    .parse::<i64>()
                    .map(serde_json::Number::from)
                    .ok()
                    .or_else(|| {
                        text.parse::<f64>()
                            .ok()
                            .and_then(serde_json::Number::from_f64)
                    }) {
                    Some(n) => Some(Value::Number(n)),
                    None => {
                        f.error = Some("not a number".into());
                        None
                    }
                },
                Kind::Json => match serde_json::from_str::<Value>(text) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        f.error = Some(format!("not valid JSON: {e}"));
                        None
                    }
                },
            };
            match value {
                Some(v) => insert_at(&mut map, &f.path, v),
                None if f.error.is_none() && f.required => {
                    f.error = Some("required".into());
                }
                None => {}
            }
            ok &= f.error.is_none();
        }
        ok.then_some(map)
    }

    fn arguments(&mut self) -> Option<Map<String, Value>> {
        match &self.raw {
            None => self.arguments_from_fields(),
            Some(ta) => match serde_json::from_str::<Value>(&ta.lines().join("\n")) {
                Ok(Value::Object(m)) => Some(m),
                Ok(_) => {
                    self.error = Some("the arguments must be a JSON object".into());
                    None
                }
                Err(e) => {
                    self.error = Some(format!("not valid JSON: {e}"));
                    None
                }
            },
        }
    }

    /// Switches between the fields and one JSON text, carrying the values across.
    fn toggle_raw(&mut self) {
        self.error = None;
        match self.raw.take() {
            None => {
                let args = self.arguments_from_fields().unwrap_or_default();
                for f in &mut self.fields {
                    f.error = None;
                }
                let text = serde_json::to_string_pretty(&Value::Object(args))
                    .unwrap_or_else(|_| "{}".into());
                let mut ta = TextArea::new(text.lines().map(str::to_string).collect());
                ta.set_line_number_style(ratatui::style::Style::default());
                self.raw = Some(ta);
            }
            Some(ta) => {
                let text = ta.lines().join("\n");
                match serde_json::from_str::<Value>(&text) {
                    Ok(v @ Value::Object(_)) => {
                        for f in &mut self.fields {
                            let Some(x) = get_at(&v, &f.path) else {
                                continue;
                            };
                            match (&mut f.kind, x) {
                                (Kind::Bool(b), Value::Bool(x)) => *b = Some(*x),
                                (Kind::Enum(c, i), x) => *i = c.iter().position(|c| c == x),
                                (Kind::Text, Value::String(s)) => f.input = LineInput::with_text(s),
                                (_, x) => f.input = LineInput::with_text(&x.to_string()),
                            }
                        }
                    }
                    _ => {
                        self.error = Some("fix the JSON before switching back to the form".into());
                        self.raw = Some(ta);
                    }
                }
            }
        }
    }

    fn submit(&mut self, project: &str) -> CallOutcome {
        self.error = None;
        let Some(args) = self.arguments() else {
            return CallOutcome::Keep;
        };
        let parameters = (!args.is_empty()).then_some(args);
        let (project, server) = (project.to_string(), self.server.clone());
        CallOutcome::Submit(match self.target {
            Target::Tool => Request::CallTool {
                project,
                server,
                body: ToolCallRequest::new(self.name.clone(), parameters),
            },
            Target::Prompt => Request::GetPrompt {
                project,
                server,
                body: PromptGetRequest {
                    prompt_name: self.name.clone(),
                    arguments: parameters,
                },
            },
        })
    }

    pub fn handle_key(&mut self, key: &KeyEvent, project: &str) -> CallOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Esc => return CallOutcome::Cancel,
            KeyCode::Char('s') if ctrl => return self.submit(project),
            KeyCode::Char('t') if ctrl => {
                self.toggle_raw();
                return CallOutcome::Keep;
            }
            _ => {}
        }
        if let Some(ta) = self.raw.as_mut() {
            ta.input(*key);
            return CallOutcome::Keep;
        }
        let n = self.fields.len();
        if n == 0 {
            if key.code == KeyCode::Enter {
                return self.submit(project);
            }
            return CallOutcome::Keep;
        }
        let field = &mut self.fields[self.focus];
        match (&mut field.kind, key.code) {
            (_, KeyCode::Enter) if self.focus + 1 >= n => return self.submit(project),
            (_, KeyCode::Enter | KeyCode::Tab | KeyCode::Down) => self.focus = (self.focus + 1) % n,
            (_, KeyCode::BackTab | KeyCode::Up) => self.focus = (self.focus + n - 1) % n,
            (Kind::Bool(b), KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right) => {
                *b = match b {
                    None => Some(true),
                    Some(true) => Some(false),
                    Some(false) => None,
                }
            }
            (Kind::Enum(c, i), KeyCode::Char(' ') | KeyCode::Right) => {
                *i = match i {
                    None if !c.is_empty() => Some(0),
                    Some(x) if *x + 1 < c.len() => Some(*x + 1),
                    _ => None,
                }
            }
            (Kind::Enum(c, i), KeyCode::Left) => {
                *i = match i {
                    None if !c.is_empty() => Some(c.len() - 1),
                    Some(0) | None => None,
                    Some(x) => Some(*x - 1),
                }
            }
            (Kind::Bool(_) | Kind::Enum(..), _) => {}
            _ => {
                field.input.handle_key(key);
            }
        }
        CallOutcome::Keep
    }

    pub fn paste(&mut self, text: &str) {
        match self.raw.as_mut() {
            Some(ta) => {
                ta.insert_str(text);
            }
            None => {
                if let Some(f) = self.fields.get_mut(self.focus) {
                    f.input.insert_str(text.lines().next().unwrap_or(""));
                }
            }
        }
    }

    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        let width = (area.width * 8 / 10).clamp(50.min(area.width), 110);
        let inner_w = width.saturating_sub(2) as usize;
        let mut lines: Vec<Line<'static>> = Vec::new();
        if let Some(d) = &self.description {
            lines.push(Line::styled(
                clip(d.lines().next().unwrap_or(""), inner_w),
                theme.dim,
            ));
            lines.push(Line::raw(""));
        }
        let label_w = self
            .fields
            .iter()
            .map(|f| f.path.join(".").chars().count() + 1)
            .max()
            .unwrap_or(4)
            .min(24);
        if self.raw.is_none() {
            if self.fields.is_empty() {
                lines.push(Line::styled("no arguments", theme.dim));
            }
            for (i, field) in self.fields.iter().enumerate() {
                let focused = i == self.focus;
                let name = format!(
                    "{}{}",
                    field.path.join("."),
                    if field.required { "*" } else { "" }
                );
                let mut spans = vec![Span::styled(
                    format!(
                        "{} {:<label_w$} ",
                        if focused { "▸" } else { " " },
                        clip(&name, label_w)
                    ),
                    if focused { theme.accent } else { theme.base },
                )];
                let value_w;
                match &field.kind {
                    Kind::Bool(b) => {
                        let s = match b {
                            None => "(unset)",
                            Some(true) => "true",
                            Some(false) => "false",
                        };
                        value_w = s.len();
                        spans.push(Span::styled(
                            s.to_string(),
                            if focused { theme.selected } else { theme.title },
                        ));
                    }
                    Kind::Enum(c, idx) => {
                        let s = idx
                            .map(|i| match &c[i] {
                                Value::String(s) => s.clone(),
                                v => v.to_string(),
                            })
                            .unwrap_or_else(|| "(unset)".into());
                        let s = format!("‹ {s} ›");
                        value_w = s.chars().count();
                        spans.push(Span::styled(
                            s,
                            if focused { theme.selected } else { theme.title },
                        ));
                    }
                    _ => {
                        value_w = field.input.text().chars().count() + 1;
                        spans.extend(field.input.line(theme.base, theme.selected, focused).spans);
                        if !focused {
                            spans.push(Span::raw(" "));
                        }
                    }
                }
                let used = label_w + 3 + value_w;
                let room = inner_w.saturating_sub(used + 2);
                let mut help = field.type_name().to_string();
                if let Some(d) = &field.description {
                    help = format!("{help} · {d}");
                }
                if room > 8 {
                    spans.push(Span::styled(format!("  {}", clip(&help, room)), theme.dim));
                }
                lines.push(Line::from(spans));
                if let Some(e) = &field.error {
                    lines.push(Line::styled(
                        format!("{:w$}✗ {e}", "", w = label_w + 3),
                        theme.error,
                    ));
                }
            }
        }
        if let Some(e) = &self.error {
            lines.push(Line::styled(format!("✗ {e}"), theme.error));
        }
        let hint = Line::from(vec![
            Span::styled("Ctrl-s", theme.key),
            Span::raw(if self.target == Target::Tool {
                " call  "
            } else {
                " render  "
            }),
            Span::styled("Ctrl-t", theme.key),
            Span::raw(if self.raw.is_some() {
                " form  "
            } else {
                " raw JSON  "
            }),
            Span::styled("Tab", theme.key),
            Span::raw(" next  "),
            Span::styled("Space/←/→", theme.key),
            Span::raw(" choose  "),
            Span::styled("Esc", theme.key),
            Span::raw(" cancel"),
        ]);
        let body_h: usize = lines.len();
        let raw_h = if self.raw.is_some() { 12 } else { 0 };
        let height = (body_h + raw_h + 4) as u16;
        let rect = centered(area, width, height);
        let what = if self.target == Target::Tool {
            "Call tool"
        } else {
            "Render prompt"
        };
        let inner = frame_box(
            f,
            rect,
            Line::styled(format!(" {what} {} ", self.name), theme.accent),
            theme.border_focused,
        );
        let text_h = (body_h as u16).min(inner.height.saturating_sub(2));
        f.render_widget(
            Paragraph::new(lines).wrap(Wrap { trim: false }),
            Rect {
                height: text_h,
                ..inner
            },
        );
        if let Some(ta) = self.raw.as_mut() {
            ta.set_block(
                Block::bordered()
                    .border_style(theme.border)
                    .title("arguments (JSON)"),
            );
            let r = Rect {
                y: inner.y + text_h,
                height: inner.height.saturating_sub(text_h + 1),
                ..inner
            };
            f.render_widget(&*ta, r);
        }
        let hint_area = Rect {
            y: inner.y + inner.height.saturating_sub(1),
            height: 1,
            ..inner
        };
        f.render_widget(Paragraph::new(hint), hint_area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value) -> ToolItem {
        serde_json::from_value(json!({"name": "t", "inputSchema": schema})).unwrap()
    }

    #[test]
    fn schema_becomes_fields_and_fields_become_arguments() {
        let t = tool(json!({
            "type": "object",
            "required": ["a"],
            "properties": {
                "a": {"type": "integer"},
                "mode": {"enum": ["fast", "slow"], "default": "slow"},
                "opts": {"type": "object", "properties": {"deep": {"type": "boolean", "default": true}}},
                "tags": {"type": "array", "items": {"type": "string"}},
                "note": {"type": "string", "default": "hi"}
            }
        }));
        let mut f = CallForm::for_tool("srv_1", &t);
        let paths: Vec<String> = f.fields.iter().map(|f| f.path.join(".")).collect();
        assert_eq!(paths, ["a", "mode", "opts.deep", "tags", "note"]);
        assert!(f.arguments_from_fields().is_none(), "a is required");
        assert_eq!(f.fields[0].error.as_deref(), Some("required"));
        f.fields[0].input = LineInput::with_text("17");
        f.fields[3].input = LineInput::with_text(r#"["x"]"#);
        let args = f.arguments_from_fields().unwrap();
        assert_eq!(
            Value::Object(args),
            json!({"a": 17, "mode": "slow", "opts": {"deep": true}, "tags": ["x"], "note": "hi"})
        );
        // Raw JSON round trip keeps the values.
        f.toggle_raw();
        assert!(f.raw.is_some());
        f.toggle_raw();
        assert_eq!(f.fields[0].input.text(), "17");
    }
}
