//! Forms: labelled fields of a few kinds (text, numbers, a toggle, a choice or several from
//! a picker, a list of lines, a piece of JSON), checked as the user types by the same rules
//! the API applies, with the document they describe one key away (Ctrl-T) as JSON.
//!
//! A form is a list of [`Field`]s and a [`Model`] that turns the fields into the document
//! (a request body) and back. Switching between the form and the JSON keeps every value:
//! the JSON is the form's document, and a valid edit of the JSON is loaded into the fields,
//! keys the form has no field for included (the model keeps them).
//!
//! Keys: Tab / Shift-Tab next and previous field, ↑/↓ also move between the lines of a list,
//! ←/→ or Space change a toggle or a choice, Enter opens a picker (a choice among many, or
//! several), adds a line to a list, or moves on (and saves on the last field), Ctrl-S saves,
//! Ctrl-T switches to the JSON and back, Esc cancels (or closes the picker).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::{Map, Value};

use super::input::LineInput;
use super::json_edit::{EditOutcome, JsonEditor, Validator};
use super::modal::{centered, frame_box};
use crate::spec::Error;
use crate::tui::theme::Theme;

/// One option of a choice: the value it stands for and how it reads.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    pub value: Value,
    pub label: String,
}

impl Choice {
    pub fn new(value: impl Into<Value>, label: impl Into<String>) -> Choice {
        Choice {
            value: value.into(),
            label: label.into(),
        }
    }

    /// A string option that reads as itself.
    pub fn text(s: &str) -> Choice {
        Choice::new(s, s)
    }
}

/// How the lines of a list field become a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinesAs {
    /// An array of strings.
    Strings,
    /// An object: each line `KEY<sep>VALUE`.
    Map(char),
    /// MCP roots: each line a path or `file://` URI, optionally `=NAME`.
    Roots,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Kind {
    Text,
    Integer,
    Number,
    Toggle(bool),
    /// One of `options`; with `custom`, any typed text is a value too (a model id).
    Choice {
        options: Vec<Choice>,
        selected: Option<usize>,
        custom: bool,
    },
    /// Any number of `options`.
    Multi {
        options: Vec<Choice>,
        chosen: Vec<bool>,
    },
    Lines(LinesAs),
    /// A JSON value typed on one line.
    Json,
}

#[derive(Debug, Clone)]
pub struct Field {
    /// What the model knows the field by: a JSON Pointer into the document for
    /// [`PathModel`] (`/transport/url`).
    pub key: String,
    pub label: String,
    pub kind: Kind,
    pub input: LineInput,
    pub rows: Vec<LineInput>,
    row: usize,
    pub required: bool,
    pub help: Option<String>,
    pub error: Option<String>,
    /// Shown only while the field `key` has one of these values.
    pub show_if: Option<(String, Vec<Value>)>,
    /// An empty field is `null` in the document (clears it) rather than left out.
    pub null_when_empty: bool,
}

impl Field {
    fn new(key: &str, label: &str, kind: Kind) -> Field {
        Field {
            key: key.to_string(),
            label: label.to_string(),
            kind,
            input: LineInput::default(),
            rows: vec![LineInput::default()],
            row: 0,
            required: false,
            help: None,
            error: None,
            show_if: None,
            null_when_empty: false,
        }
    }

    pub fn text(key: &str, label: &str) -> Field {
        Field::new(key, label, Kind::Text)
    }
    pub fn integer(key: &str, label: &str) -> Field {
        Field::new(key, label, Kind::Integer)
    }
    pub fn number(key: &str, label: &str) -> Field {
        Field::new(key, label, Kind::Number)
    }
    pub fn toggle(key: &str, label: &str, on: bool) -> Field {
        Field::new(key, label, Kind::Toggle(on))
    }
    pub fn choice(key: &str, label: &str, options: Vec<Choice>) -> Field {
        Field::new(
            key,
            label,
            Kind::Choice {
                options,
                selected: None,
                custom: false,
            },
        )
    }
    pub fn multi(key: &str, label: &str, options: Vec<Choice>) -> Field {
        let chosen = vec![false; options.len()];
        Field::new(key, label, Kind::Multi { options, chosen })
    }
    pub fn lines(key: &str, label: &str, how: LinesAs) -> Field {
        Field::new(key, label, Kind::Lines(how))
    }
    pub fn json(key: &str, label: &str) -> Field {
        Field::new(key, label, Kind::Json)
    }

    pub fn required(mut self) -> Field {
        self.required = true;
        self
    }
    pub fn help(mut self, h: impl Into<String>) -> Field {
        self.help = Some(h.into());
        self
    }
    pub fn show_if(mut self, key: &str, values: &[&str]) -> Field {
        self.show_if = Some((
            key.to_string(),
            values.iter().map(|v| Value::from(*v)).collect(),
        ));
        self
    }
    /// Shown only while the field `key` has one of these values (any JSON).
    pub fn show_if_value(mut self, key: &str, values: &[Value]) -> Field {
        self.show_if = Some((key.to_string(), values.to_vec()));
        self
    }
    pub fn nullable(mut self) -> Field {
        self.null_when_empty = true;
        self
    }
    /// A choice that also takes any typed text (a model id, a server name).
    pub fn custom(mut self) -> Field {
        if let Kind::Choice { custom, .. } = &mut self.kind {
            *custom = true;
        }
        self
    }
    /// Starts with this value (as [`Field::set`]).
    pub fn with(mut self, v: &Value) -> Field {
        self.set(v);
        self
    }

    fn type_name(&self) -> &'static str {
        match &self.kind {
            Kind::Text => "text",
            Kind::Integer => "integer",
            Kind::Number => "number",
            Kind::Toggle(_) => "yes/no",
            Kind::Choice { custom: true, .. } => "pick or type",
            Kind::Choice { .. } => "pick one",
            Kind::Multi { .. } => "pick any",
            Kind::Lines(LinesAs::Strings) => "one per line",
            Kind::Lines(LinesAs::Map(_)) => "KEY=VALUE per line",
            Kind::Lines(LinesAs::Roots) => "a path per line, =NAME optional",
            Kind::Json => "JSON",
        }
    }

    /// The field's value, `None` when it is empty; `Err` when what was typed is not one.
    pub fn value(&self) -> Result<Option<Value>, String> {
        let text = self.input.text().trim();
        Ok(match &self.kind {
            Kind::Toggle(b) => Some(Value::Bool(*b)),
            Kind::Choice {
                options,
                selected,
                custom,
            } => match selected {
                Some(i) => options.get(*i).map(|c| c.value.clone()),
                None if *custom && !text.is_empty() => Some(Value::String(text.to_string())),
                None => None,
            },
            Kind::Multi { options, chosen } => Some(Value::Array(
                options
                    .iter()
                    .zip(chosen)
                    .filter(|(_, on)| **on)
                    .map(|(c, _)| c.value.clone())
                    .collect(),
            )),
            Kind::Lines(how) => {
                let items: Vec<&str> = self
                    .rows
                    .iter()
                    .map(|r| r.text().trim())
                    .filter(|t| !t.is_empty())
                    .collect();
                // A nullable list left empty is no value (`null`), not an empty list.
                if items.is_empty() && self.null_when_empty {
                    return Ok(None);
                }
                match how {
                    LinesAs::Strings => Some(Value::Array(
                        items.iter().map(|s| Value::from(*s)).collect(),
                    )),
                    LinesAs::Map(sep) => {
                        let mut m = Map::new();
                        for it in items {
                            let Some((k, v)) = it.split_once(*sep) else {
                                return Err(format!("`{it}` is not KEY{sep}VALUE"));
                            };
                            m.insert(k.trim().to_string(), Value::from(v.trim()));
                        }
                        Some(Value::Object(m))
                    }
                    LinesAs::Roots => Some(Value::Array(
                        items
                            .iter()
                            .map(|t| {
                                serde_json::to_value(crate::spec::client_features::Root::parse(t))
                                    .unwrap_or_default()
                            })
                            .collect(),
                    )),
                }
            }
            _ if text.is_empty() => None,
            Kind::Text => Some(Value::String(self.input.text().to_string())),
            Kind::Integer => Some(Value::from(
                text.parse::<i64>()
                    .map_err(|_| "not a whole number".to_string())?,
            )),
            Kind::Number => {
                let n = text
                    .parse::<i64>()
                    .map(serde_json::Number::from)
                    .ok()
                    .or_else(|| {
                        text.parse::<f64>()
                            .ok()
                            .and_then(serde_json::Number::from_f64)
                    })
                    .ok_or_else(|| "not a number".to_string())?;
                Some(Value::Number(n))
            }
            Kind::Json => Some(serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?),
        })
    }

    /// Shows `v` in the field (`null` empties it).
    pub fn set(&mut self, v: &Value) {
        let text = |v: &Value| match v {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
        match &mut self.kind {
            Kind::Toggle(b) => *b = v.as_bool().unwrap_or(false),
            Kind::Choice {
                options,
                selected,
                custom,
            } => {
                *selected = options.iter().position(|c| &c.value == v);
                if selected.is_none() && !v.is_null() {
                    if *custom {
                        self.input = LineInput::with_text(&text(v));
                    } else {
                        // A value the options lack is still shown, as an option of its own.
                        options.push(Choice::new(v.clone(), text(v)));
                        *selected = Some(options.len() - 1);
                    }
                } else {
                    self.input = LineInput::default();
                }
            }
            Kind::Multi { options, chosen } => {
                let want: Vec<Value> = v.as_array().cloned().unwrap_or_default();
                for w in &want {
                    if !options.iter().any(|c| &c.value == w) {
                        options.push(Choice::new(w.clone(), text(w)));
                        chosen.push(false);
                    }
                }
                for (c, on) in options.iter().zip(chosen.iter_mut()) {
                    *on = want.contains(&c.value);
                }
            }
            Kind::Lines(how) => {
                let lines: Vec<String> = match (how, v) {
                    (LinesAs::Map(sep), Value::Object(m)) => m
                        .iter()
                        .map(|(k, x)| format!("{k}{sep}{}", text(x)))
                        .collect(),
                    (LinesAs::Roots, Value::Array(a)) => a
                        .iter()
                        .map(|r| {
                            let uri = r.get("uri").and_then(Value::as_str).unwrap_or("");
                            let path = uri.strip_prefix("file://").unwrap_or(uri);
                            match r.get("name").and_then(Value::as_str) {
                                Some(n) => format!("{path}={n}"),
                                None => path.to_string(),
                            }
                        })
                        .collect(),
                    (_, Value::Array(a)) => a.iter().map(text).collect(),
                    _ => Vec::new(),
                };
                self.rows = lines.iter().map(|l| LineInput::with_text(l)).collect();
                if self.rows.is_empty() {
                    self.rows.push(LineInput::default());
                }
                self.row = 0;
            }
            Kind::Json => {
                self.input = if v.is_null() {
                    LineInput::default()
                } else {
                    LineInput::with_text(&v.to_string())
                }
            }
            _ => self.input = LineInput::with_text(&text(v)),
        }
    }

    /// How many screen rows the field takes (a list: one per line).
    fn height(&self) -> usize {
        match self.kind {
            Kind::Lines(_) => self.rows.len(),
            _ => 1,
        }
    }
}

/// The value of the field `key` among `fields` (ignoring errors).
pub fn get(fields: &[Field], key: &str) -> Option<Value> {
    fields
        .iter()
        .find(|f| f.key == key)
        .and_then(|f| f.value().ok().flatten())
}

fn visible(fields: &[Field], f: &Field) -> bool {
    match &f.show_if {
        None => true,
        Some((key, values)) => get(fields, key).is_some_and(|v| values.contains(&v)),
    }
}

/// Turns the fields into the form's document and back, and checks the document.
pub trait Model: Send + 'static {
    /// The document the fields describe.
    fn to_value(&self, fields: &[Field]) -> Value;
    /// Shows a document in the fields (after the JSON was edited); `Err` says why it can't.
    fn load(&mut self, fields: &mut [Field], v: &Value) -> Result<(), String>;
    /// What is wrong with the document, as `path: message` lines.
    fn validate(&self, v: &Value) -> Vec<String>;
    /// After a change: a model may add or remove fields (a tool's arguments follow the tool).
    fn refresh(&mut self, _fields: &mut Vec<Field>) {}
    /// The model itself, for its owner to reach (new options from the backend).
    fn as_any(&mut self) -> &mut dyn std::any::Any;
}

/// The usual model: each field's key is a JSON Pointer into the document, which starts as
/// `base` (so keys without a field are kept as they were).
pub struct PathModel {
    pub base: Value,
    pub validator: Validator,
    /// Objects kept even when empty (`/client`: an empty one clears a server's features).
    pub keep: Vec<String>,
}

impl PathModel {
    pub fn new(base: Value, validator: Validator) -> PathModel {
        PathModel {
            base,
            validator,
            keep: Vec::new(),
        }
    }
}

/// Removes empty objects below the root (what emptied fields left behind), except `keep`.
fn prune(v: &mut Value, at: &str, keep: &[String]) {
    if let Value::Object(m) = v {
        let keys: Vec<String> = m.keys().cloned().collect();
        for k in keys {
            let path = format!("{at}/{k}");
            if let Some(child) = m.get_mut(&k) {
                prune(child, &path, keep);
                if child.as_object().is_some_and(|o| o.is_empty()) && !keep.contains(&path) {
                    m.remove(&k);
                }
            }
        }
    }
}

/// Sets `v` at the JSON Pointer `ptr`, creating objects on the way.
pub fn set_at(doc: &mut Value, ptr: &str, v: Value) {
    let mut cur = doc;
    let parts: Vec<&str> = ptr.split('/').skip(1).collect();
    for (i, p) in parts.iter().enumerate() {
        if !cur.is_object() {
            *cur = Value::Object(Map::new());
        }
        let m = cur.as_object_mut().expect("an object");
        if i + 1 == parts.len() {
            m.insert((*p).to_string(), v);
            return;
        }
        cur = m
            .entry((*p).to_string())
            .or_insert_with(|| Value::Object(Map::new()));
    }
}

/// Removes the key at the JSON Pointer `ptr`, if there is one.
pub fn remove_at(doc: &mut Value, ptr: &str) {
    let Some((parent, last)) = ptr.rsplit_once('/') else {
        return;
    };
    let target = if parent.is_empty() {
        Some(doc)
    } else {
        doc.pointer_mut(parent)
    };
    if let Some(Value::Object(m)) = target {
        m.remove(last);
    }
}

impl Model for PathModel {
    fn to_value(&self, fields: &[Field]) -> Value {
        let mut doc = self.base.clone();
        if !doc.is_object() {
            doc = Value::Object(Map::new());
        }
        for f in fields {
            let value = f.value().ok().flatten();
            let empty = match &value {
                None => true,
                Some(Value::Array(a)) => {
                    a.is_empty() && (f.null_when_empty || !matches!(f.kind, Kind::Multi { .. }))
                }
                Some(Value::Object(o)) => o.is_empty(),
                _ => false,
            };
            if !visible(fields, f) {
                remove_at(&mut doc, &f.key);
            } else if empty {
                if f.null_when_empty {
                    set_at(&mut doc, &f.key, Value::Null);
                } else {
                    remove_at(&mut doc, &f.key);
                }
            } else if let Some(v) = value {
                set_at(&mut doc, &f.key, v);
            }
        }
        prune(&mut doc, "", &self.keep);
        for k in &self.keep {
            if doc.pointer(k).is_none() {
                set_at(&mut doc, k, Value::Object(Map::new()));
            }
        }
        doc
    }

    fn load(&mut self, fields: &mut [Field], v: &Value) -> Result<(), String> {
        if !v.is_object() {
            return Err("the document must be a JSON object".into());
        }
        self.base = v.clone();
        for f in fields.iter_mut() {
            match v.pointer(&f.key) {
                Some(x) => f.set(x),
                None => f.set(&match f.kind {
                    Kind::Toggle(_) => Value::Bool(false),
                    _ => Value::Null,
                }),
            }
        }
        Ok(())
    }

    fn validate(&self, v: &Value) -> Vec<String> {
        (self.validator)(v)
    }

    fn as_any(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// What a key did to the form.
pub enum FormOutcome {
    Keep,
    Cancel,
    /// The document, valid by the form's rules.
    Save(Value),
    /// Ctrl + one of the form's extra keys (decline an elicitation).
    Alt(char),
}

/// The picker open on a choice or multi-choice field.
struct Picker {
    filter: LineInput,
    cursor: usize,
}

pub struct Form {
    pub title: String,
    pub fields: Vec<Field>,
    focus: usize,
    model: Box<dyn Model>,
    /// Problems no field owns.
    problems: Vec<String>,
    /// What the backend said to the last save.
    server_error: Option<String>,
    pub saving: bool,
    picker: Option<Picker>,
    json: Option<Box<JsonEditor>>,
    json_error: Option<String>,
    /// A line under the title (what the form is for).
    pub intro: Option<String>,
    /// What Ctrl-S does (`save`, `call`, `accept`).
    pub save_label: &'static str,
    /// Extra Ctrl keys and what they do (`d` decline).
    pub alt_keys: Vec<(char, &'static str)>,
    /// Whether Ctrl-T switches to JSON (an elicitation's answer has no JSON view).
    pub has_json: bool,
    scroll: usize,
}

impl Form {
    pub fn new(title: impl Into<String>, fields: Vec<Field>, model: Box<dyn Model>) -> Form {
        let mut f = Form {
            title: title.into(),
            fields,
            focus: 0,
            model,
            problems: Vec::new(),
            server_error: None,
            saving: false,
            picker: None,
            json: None,
            json_error: None,
            intro: None,
            save_label: "save",
            alt_keys: Vec::new(),
            has_json: true,
            scroll: 0,
        };
        f.refresh();
        f
    }

    /// A form over `base` whose fields are JSON Pointers into it.
    pub fn paths(
        title: impl Into<String>,
        base: Value,
        fields: Vec<Field>,
        validator: Validator,
    ) -> Form {
        Form::paths_keeping(title, base, fields, validator, Vec::new())
    }

    /// Like [`Form::paths`], with objects kept in the document even when empty.
    pub fn paths_keeping(
        title: impl Into<String>,
        base: Value,
        fields: Vec<Field>,
        validator: Validator,
        keep: Vec<String>,
    ) -> Form {
        let mut fields = fields;
        let mut model = PathModel::new(base.clone(), validator);
        model.keep = keep;
        // The fields show the document's values (a field's own start value when it has none).
        for f in fields.iter_mut() {
            if let Some(v) = base.pointer(&f.key) {
                f.set(v);
            }
        }
        model.base = base;
        Form::new(title, fields, Box::new(model))
    }

    pub fn is_json(&self) -> bool {
        self.json.is_some()
    }

    /// The document the form describes now (fields, or the JSON while it is shown and valid).
    pub fn value(&self) -> Value {
        if let Some(ed) = &self.json
            && let Ok(v) = serde_json::from_str::<Value>(&ed.text())
        {
            return v;
        }
        self.model.to_value(&self.fields)
    }

    /// The form's model and fields, to change them from outside (then [`Form::refresh`]).
    pub fn parts(&mut self) -> (&mut dyn Model, &mut Vec<Field>) {
        (self.model.as_mut(), &mut self.fields)
    }

    /// Lets the model follow a change made from outside, and checks the form again.
    pub fn refresh(&mut self) {
        self.model.refresh(&mut self.fields);
        self.check();
    }

    /// The field with this key.
    pub fn field_mut(&mut self, key: &str) -> Option<&mut Field> {
        self.fields.iter_mut().find(|f| f.key == key)
    }

    fn visible_indices(&self) -> Vec<usize> {
        (0..self.fields.len())
            .filter(|&i| visible(&self.fields, &self.fields[i]))
            .collect()
    }

    /// Checks the fields and the document; returns the document when nothing is wrong.
    fn check(&mut self) -> Option<Value> {
        let mut ok = true;
        for f in &mut self.fields {
            f.error = None;
        }
        let vis = self.visible_indices();
        for &i in &vis {
            let f = &mut self.fields[i];
            match f.value() {
                Err(e) => {
                    f.error = Some(e);
                    ok = false;
                }
                Ok(None) if f.required => {
                    f.error = Some("required".into());
                    ok = false;
                }
                Ok(_) => {}
            }
        }
        let doc = self.model.to_value(&self.fields);
        self.problems.clear();
        for p in self.model.validate(&doc) {
            ok = false;
            let (path, msg) = p.split_once(": ").unwrap_or(("", p.as_str()));
            // The field whose key is the longest prefix of the path owns the problem.
            let owner = vis
                .iter()
                .copied()
                .filter(|&i| {
                    let k = &self.fields[i].key;
                    !path.is_empty()
                        && (path == k
                            || path.starts_with(&format!("{k}/"))
                            || k.starts_with(&format!("{path}/")))
                })
                .max_by_key(|&i| self.fields[i].key.len());
            match owner {
                Some(i) if self.fields[i].error.is_none() => {
                    self.fields[i].error = Some(msg.to_string())
                }
                Some(_) => {}
                // A problem of the whole document reads without the empty path before it.
                None if path.is_empty() => self.problems.push(msg.to_string()),
                None => self.problems.push(p.clone()),
            }
        }
        ok.then_some(doc)
    }

    /// Shows what the backend said about the last save, beside the fields its paths name.
    pub fn set_error(&mut self, e: &Error) {
        self.saving = false;
        let v = e.violations();
        if v.is_empty() {
            self.server_error = Some(format!("{}: {}", e.code, e.message));
            return;
        }
        let mut rest = Vec::new();
        for v in v {
            match self
                .fields
                .iter_mut()
                .filter(|f| v.path == f.key || v.path.starts_with(&format!("{}/", f.key)))
                .max_by_key(|f| f.key.len())
            {
                Some(f) => f.error = Some(v.message),
                None => rest.push(format!("{}: {}", v.path, v.message)),
            }
        }
        self.server_error = (!rest.is_empty()).then(|| rest.join("; "));
        if self.server_error.is_none() {
            self.server_error = Some(format!("{}: see the fields marked ✗", e.code));
        }
    }

    fn toggle_json(&mut self) {
        self.json_error = None;
        match self.json.take() {
            None => {
                let doc = self.model.to_value(&self.fields);
                let mut ed = JsonEditor::unchecked(self.title.clone(), &doc);
                ed.set_problems(self.model.validate(&doc));
                self.json = Some(Box::new(ed));
            }
            Some(ed) => match serde_json::from_str::<Value>(&ed.text()) {
                Ok(v) => match self.model.load(&mut self.fields, &v) {
                    Ok(()) => {
                        self.refresh();
                    }
                    Err(e) => {
                        self.json_error = Some(e);
                        self.json = Some(ed);
                    }
                },
                Err(e) => {
                    self.json_error = Some(format!("fix the JSON before going back: {e}"));
                    self.json = Some(ed);
                }
            },
        }
    }

    fn focused(&self) -> Option<usize> {
        let vis = self.visible_indices();
        if vis.is_empty() {
            return None;
        }
        Some(vis[self.focus.min(vis.len() - 1)])
    }

    fn move_field(&mut self, forward: bool) {
        let n = self.visible_indices().len();
        if n == 0 {
            return;
        }
        self.focus = if forward {
            (self.focus + 1) % n
        } else {
            (self.focus + n - 1) % n
        };
        if let Some(i) = self.focused() {
            let f = &mut self.fields[i];
            f.row = if forward { 0 } else { f.rows.len() - 1 };
        }
    }

    fn is_last(&self) -> bool {
        self.focus + 1 >= self.visible_indices().len()
    }

    fn save(&mut self) -> FormOutcome {
        self.server_error = None;
        match self.check() {
            Some(v) => {
                self.saving = true;
                FormOutcome::Save(v)
            }
            None => FormOutcome::Keep,
        }
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> FormOutcome {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if let KeyCode::Char(c) = key.code
            && ctrl
            && self.alt_keys.iter().any(|(k, _)| *k == c)
        {
            return FormOutcome::Alt(c);
        }
        if ctrl && key.code == KeyCode::Char('t') && self.has_json {
            self.toggle_json();
            return FormOutcome::Keep;
        }
        if let Some(ed) = self.json.as_mut() {
            let outcome = ed.handle_key(key);
            // The JSON is checked by the form's own rules as it is typed.
            let problems = match serde_json::from_str::<Value>(&ed.text()) {
                Ok(v) => self.model.validate(&v),
                Err(e) => vec![format!("not JSON: {e}")],
            };
            let ok = problems.is_empty();
            ed.set_problems(problems);
            return match outcome {
                EditOutcome::Keep => FormOutcome::Keep,
                EditOutcome::Cancel => FormOutcome::Cancel,
                EditOutcome::Save(v) if ok => {
                    self.saving = true;
                    // The fields follow, so the form shows the same values.
                    let _ = self.model.load(&mut self.fields, &v);
                    FormOutcome::Save(v)
                }
                EditOutcome::Save(_) => {
                    ed.saving = false;
                    FormOutcome::Keep
                }
            };
        }
        if self.picker.is_some() {
            self.picker_key(key);
            self.refresh();
            return FormOutcome::Keep;
        }
        match key.code {
            KeyCode::Esc => return FormOutcome::Cancel,
            KeyCode::Char('s') if ctrl => return self.save(),
            KeyCode::Tab => self.move_field(true),
            KeyCode::BackTab => self.move_field(false),
            _ => {
                let Some(i) = self.focused() else {
                    if key.code == KeyCode::Enter {
                        return self.save();
                    }
                    return FormOutcome::Keep;
                };
                let last = self.is_last();
                let f = &mut self.fields[i];
                match (&mut f.kind, key.code) {
                    (Kind::Lines(_), KeyCode::Down) if f.row + 1 < f.rows.len() => f.row += 1,
                    (Kind::Lines(_), KeyCode::Up) if f.row > 0 => f.row -= 1,
                    (Kind::Lines(_), KeyCode::Enter) => {
                        f.rows.insert(f.row + 1, LineInput::default());
                        f.row += 1;
                    }
                    (Kind::Lines(_), KeyCode::Backspace)
                        if f.rows[f.row].text().is_empty() && f.rows.len() > 1 =>
                    {
                        f.rows.remove(f.row);
                        f.row = f.row.saturating_sub(1);
                    }
                    (Kind::Lines(_), _) if !matches!(key.code, KeyCode::Down | KeyCode::Up) => {
                        f.rows[f.row].handle_key(key);
                    }
                    (_, KeyCode::Down) => self.move_field(true),
                    (_, KeyCode::Up) => self.move_field(false),
                    (Kind::Toggle(b), KeyCode::Char(' ') | KeyCode::Left | KeyCode::Right) => {
                        *b = !*b
                    }
                    (Kind::Toggle(_), KeyCode::Enter) if last => return self.save(),
                    (Kind::Toggle(_), KeyCode::Enter) => self.move_field(true),
                    (
                        Kind::Choice {
                            options, selected, ..
                        },
                        KeyCode::Left | KeyCode::Right,
                    ) if !options.is_empty() => {
                        let n = options.len();
                        *selected = Some(match (*selected, key.code == KeyCode::Right) {
                            (None, true) => 0,
                            (None, false) => n - 1,
                            (Some(x), true) => (x + 1) % n,
                            (Some(x), false) => (x + n - 1) % n,
                        });
                        f.input = LineInput::default();
                    }
                    (
                        Kind::Choice { .. } | Kind::Multi { .. },
                        KeyCode::Enter | KeyCode::Char(' '),
                    ) => {
                        self.picker = Some(Picker {
                            filter: LineInput::default(),
                            cursor: 0,
                        });
                    }
                    (
                        Kind::Choice {
                            custom: true,
                            selected,
                            ..
                        },
                        _,
                    ) => {
                        if f.input.handle_key(key) {
                            *selected = None;
                        }
                    }
                    (Kind::Choice { .. } | Kind::Multi { .. }, _) => {}
                    (_, KeyCode::Enter) if last => return self.save(),
                    (_, KeyCode::Enter) => self.move_field(true),
                    _ => {
                        f.input.handle_key(key);
                    }
                }
            }
        }
        self.refresh();
        FormOutcome::Keep
    }

    /// The options of the focused choice that pass the picker's filter, as indices.
    fn picked_options(&self) -> Vec<usize> {
        let (Some(i), Some(p)) = (self.focused(), &self.picker) else {
            return Vec::new();
        };
        let terms: Vec<String> = p
            .filter
            .text()
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        let options = match &self.fields[i].kind {
            Kind::Choice { options, .. } | Kind::Multi { options, .. } => options,
            _ => return Vec::new(),
        };
        (0..options.len())
            .filter(|&o| {
                let l = options[o].label.to_lowercase();
                terms.iter().all(|t| l.contains(t.as_str()))
            })
            .collect()
    }

    fn picker_key(&mut self, key: &KeyEvent) {
        let shown = self.picked_options();
        let Some(i) = self.focused() else {
            self.picker = None;
            return;
        };
        let Some(p) = self.picker.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Esc => self.picker = None,
            KeyCode::Up => p.cursor = p.cursor.saturating_sub(1),
            KeyCode::Down => p.cursor = (p.cursor + 1).min(shown.len().saturating_sub(1)),
            KeyCode::Char(' ') if matches!(self.fields[i].kind, Kind::Multi { .. }) => {
                if let (Some(&o), Kind::Multi { chosen, .. }) =
                    (shown.get(p.cursor), &mut self.fields[i].kind)
                {
                    chosen[o] = !chosen[o];
                }
            }
            KeyCode::Enter => {
                let typed = p.filter.text().trim().to_string();
                let f = &mut self.fields[i];
                match &mut f.kind {
                    Kind::Choice {
                        selected, custom, ..
                    } => match shown.get(p.cursor) {
                        Some(&o) => {
                            *selected = Some(o);
                            f.input = LineInput::default();
                        }
                        None if *custom && !typed.is_empty() => {
                            *selected = None;
                            f.input = LineInput::with_text(&typed);
                        }
                        None => {}
                    },
                    Kind::Multi { chosen, .. } => {
                        // Enter on an option nobody ticked ticks it; then the picker closes.
                        if let Some(&o) = shown.get(p.cursor)
                            && !chosen.iter().any(|c| *c)
                        {
                            chosen[o] = true;
                        }
                    }
                    _ => {}
                }
                self.picker = None;
            }
            _ => {
                if p.filter.handle_key(key) {
                    p.cursor = 0;
                }
            }
        }
    }

    pub fn paste(&mut self, text: &str) {
        if let Some(ed) = self.json.as_mut() {
            ed.paste(text);
            return;
        }
        if let Some(p) = self.picker.as_mut() {
            p.filter.insert_str(text.lines().next().unwrap_or(""));
            return;
        }
        let Some(i) = self.focused() else {
            return;
        };
        let f = &mut self.fields[i];
        match f.kind {
            Kind::Lines(_) => {
                let mut lines = text.lines();
                if let Some(first) = lines.next() {
                    f.rows[f.row].insert_str(first);
                }
                for l in lines {
                    f.rows.insert(f.row + 1, LineInput::with_text(l));
                    f.row += 1;
                }
            }
            _ => f.input.insert_str(text.lines().next().unwrap_or("")),
        }
        self.check();
    }

    /// Draws the form in a box centred in `area`.
    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width.clamp(40.min(area.width), 110);
        // As tall as the fields need (the JSON view and an open picker take what there is).
        let wanted = if self.json.is_some() || self.picker.is_some() {
            usize::MAX
        } else {
            let w = width.saturating_sub(2);
            Paragraph::new(self.lines(w as usize, theme))
                .wrap(Wrap { trim: false })
                .line_count(w)
                + 3
        };
        let height = (wanted.min(u16::MAX as usize) as u16)
            .min(area.height.saturating_sub(2))
            .max(8.min(area.height));
        let rect = centered(area, width, height);
        let mode = if self.json.is_some() { " (JSON)" } else { "" };
        let inner = frame_box(
            f,
            rect,
            Line::styled(format!(" {}{mode} ", self.title), theme.accent),
            theme.border_focused,
        );
        let hint = self.hint_line(theme);
        let hint_area = Rect {
            y: inner.y + inner.height.saturating_sub(1),
            height: 1,
            ..inner
        };
        let body = Rect {
            height: inner.height.saturating_sub(1),
            ..inner
        };
        f.render_widget(Paragraph::new(hint), hint_area);
        if let Some(ed) = self.json.as_mut() {
            let mut r = body;
            if let Some(e) = &self.json_error {
                f.render_widget(
                    Paragraph::new(Line::styled(format!("✗ {e}"), theme.error)),
                    Rect { height: 1, ..r },
                );
                r.y += 1;
                r.height = r.height.saturating_sub(1);
            }
            ed.render_plain(f, r, theme);
            return;
        }
        let lines = self.lines(body.width as usize, theme);
        // Keep the focused field on screen.
        let focus_row = self.focus_row();
        let h = body.height as usize;
        if focus_row < self.scroll {
            self.scroll = focus_row;
        } else if focus_row >= self.scroll + h.saturating_sub(1) {
            self.scroll = focus_row + 2 - h.min(focus_row + 2);
        }
        let shown: Vec<Line> = lines.into_iter().skip(self.scroll).collect();
        f.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }), body);
        if self.picker.is_some() {
            self.render_picker(f, body, theme);
        }
    }

    /// The row (in [`Form::lines`]) where the focused field starts.
    fn focus_row(&self) -> usize {
        let mut row = usize::from(self.intro.is_some()) * 2;
        let Some(fi) = self.focused() else {
            return row;
        };
        for i in self.visible_indices() {
            if i == fi {
                return row + self.fields[i].row;
            }
            row += self.fields[i].height() + usize::from(self.fields[i].error.is_some());
        }
        row
    }

    fn hint_line(&self, theme: &Theme) -> Line<'static> {
        let mut spans = Vec::new();
        let mut k = |key: &str, label: &str| {
            spans.push(Span::styled(key.to_string(), theme.key));
            spans.push(Span::styled(format!(" {label}  "), theme.dim));
        };
        if self.saving {
            return Line::styled("saving…", theme.warn);
        }
        k("Ctrl-S", self.save_label);
        for (c, label) in &self.alt_keys {
            k(&format!("Ctrl-{}", c.to_ascii_uppercase()), label);
        }
        if self.json.is_some() {
            k("Ctrl-T", "form");
        } else {
            if self.has_json {
                k("Ctrl-T", "JSON");
            }
            if self.picker.is_some() {
                k("type", "filter");
                k("Space", "tick");
                k("Enter", "choose");
                k("Esc", "close");
                return Line::from(spans);
            }
            k("Tab", "next");
            k("Enter", "pick/next");
        }
        k("Esc", "cancel");
        Line::from(spans)
    }

    fn lines(&self, width: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut lines = Vec::new();
        if let Some(i) = &self.intro {
            lines.push(Line::styled(i.clone(), theme.dim));
            lines.push(Line::raw(""));
        }
        let label_w = self
            .fields
            .iter()
            .map(|f| f.label.chars().count() + 1)
            .max()
            .unwrap_or(6)
            .clamp(6, 22);
        let focused = self.focused();
        for i in self.visible_indices() {
            let fd = &self.fields[i];
            let is_focus = focused == Some(i) && self.picker.is_none();
            let name = format!("{}{}", fd.label, if fd.required { "*" } else { "" });
            let label = Span::styled(
                format!(
                    "{} {:<label_w$} ",
                    if focused == Some(i) { "▸" } else { " " },
                    super::super::panes::clip(&name, label_w)
                ),
                if focused == Some(i) {
                    theme.accent
                } else {
                    theme.base
                },
            );
            let pad = " ".repeat(label_w + 3);
            let value_style = if is_focus {
                theme.selected
            } else {
                theme.title
            };
            let mut first: Vec<Span<'static>> = vec![label];
            match &fd.kind {
                Kind::Toggle(b) => first.push(Span::styled(
                    if *b { "[x] yes" } else { "[ ] no" }.to_string(),
                    value_style,
                )),
                Kind::Choice {
                    options, selected, ..
                } => {
                    let s = match selected {
                        Some(o) => options[*o].label.clone(),
                        None if !fd.input.text().is_empty() => fd.input.text().to_string(),
                        None => "(none)".into(),
                    };
                    if is_focus && selected.is_none() && !fd.input.text().is_empty() {
                        first.extend(fd.input.line(theme.base, theme.selected, true).spans);
                    } else {
                        first.push(Span::styled(format!("‹ {s} ›"), value_style));
                    }
                }
                Kind::Multi { options, chosen } => {
                    let names: Vec<&str> = options
                        .iter()
                        .zip(chosen)
                        .filter(|(_, on)| **on)
                        .map(|(c, _)| c.label.as_str())
                        .collect();
                    let s = if names.is_empty() {
                        "(none)".to_string()
                    } else {
                        names.join(", ")
                    };
                    first.push(Span::styled(
                        format!("[{}]", super::super::panes::clip(&s, width / 2)),
                        value_style,
                    ));
                }
                Kind::Lines(_) => {
                    let row = &fd.rows[0];
                    first.extend(
                        row.line(theme.base, theme.selected, is_focus && fd.row == 0)
                            .spans,
                    );
                }
                _ => first.extend(fd.input.line(theme.base, theme.selected, is_focus).spans),
            }
            let used: usize = first.iter().map(|s| s.width()).sum();
            let mut help = fd.type_name().to_string();
            if let Some(h) = &fd.help {
                help = format!("{h} · {help}");
            }
            if width > used + 10 {
                first.push(Span::styled(
                    format!("  {}", super::super::panes::clip(&help, width - used - 4)),
                    theme.dim,
                ));
            }
            lines.push(Line::from(first));
            if let Kind::Lines(_) = fd.kind {
                for (r, row) in fd.rows.iter().enumerate().skip(1) {
                    let mut spans = vec![Span::raw(pad.clone())];
                    spans.extend(
                        row.line(theme.base, theme.selected, is_focus && fd.row == r)
                            .spans,
                    );
                    lines.push(Line::from(spans));
                }
            }
            if let Some(e) = &fd.error {
                lines.push(Line::styled(format!("{pad}✗ {e}"), theme.error));
            }
        }
        if !self.problems.is_empty() || self.server_error.is_some() {
            lines.push(Line::raw(""));
        }
        for p in &self.problems {
            lines.push(Line::styled(format!("✗ {p}"), theme.error));
        }
        if let Some(e) = &self.server_error {
            lines.push(Line::styled(format!("✗ {e}"), theme.error));
        }
        if self.problems.is_empty()
            && self.server_error.is_none()
            && self.fields.iter().all(|f| f.error.is_none())
        {
            lines.push(Line::raw(""));
            lines.push(Line::styled("✓ valid", theme.ok));
        }
        lines
    }

    fn render_picker(&self, f: &mut Frame, body: Rect, theme: &Theme) {
        let (Some(i), Some(p)) = (self.focused(), &self.picker) else {
            return;
        };
        let fd = &self.fields[i];
        let (options, chosen) = match &fd.kind {
            Kind::Choice { options, .. } => (options, None),
            Kind::Multi { options, chosen } => (options, Some(chosen)),
            _ => return,
        };
        let shown = self.picked_options();
        let h = (shown.len() as u16 + 3).clamp(4, body.height.saturating_sub(2).max(4));
        let w = body.width.saturating_sub(8).min(64);
        let rect = centered(body, w, h);
        let inner = frame_box(
            f,
            rect,
            Line::styled(format!(" {} ", fd.label), theme.accent),
            theme.border_focused,
        );
        let mut lines = vec![Line::from({
            let mut s = vec![Span::styled("/ ", theme.key)];
            s.extend(p.filter.line(theme.base, theme.selected, true).spans);
            s
        })];
        let rows = inner.height.saturating_sub(1) as usize;
        let start = p.cursor.saturating_sub(rows.saturating_sub(1));
        for (n, &o) in shown.iter().enumerate().skip(start).take(rows) {
            let mark = match chosen {
                Some(c) if c[o] => "[x] ",
                Some(_) => "[ ] ",
                None => "",
            };
            let style = if n == p.cursor {
                theme.selected
            } else {
                theme.base
            };
            lines.push(Line::styled(format!("{mark}{}", options[o].label), style));
        }
        if shown.is_empty() {
            let custom = matches!(fd.kind, Kind::Choice { custom: true, .. });
            lines.push(Line::styled(
                if custom && !p.filter.text().is_empty() {
                    "Enter takes what you typed"
                } else {
                    "no match"
                },
                theme.dim,
            ));
        }
        f.render_widget(Paragraph::new(lines), inner);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }
    fn ctrl(c: char) -> KeyEvent {
        KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
    }
    fn no_rules(_: &Value) -> Vec<String> {
        Vec::new()
    }

    #[test]
    fn fields_make_the_document_and_the_json_view_keeps_every_value() {
        let base = json!({"name": "a", "keep": {"me": 1}});
        let mut form = Form::paths(
            "T",
            base,
            vec![
                Field::text("/name", "name").required(),
                Field::choice(
                    "/transport/type",
                    "transport",
                    vec![Choice::text("stdio"), Choice::text("http")],
                )
                .with(&json!("stdio")),
                Field::text("/transport/url", "url").show_if("/transport/type", &["http"]),
                Field::lines("/transport/headers", "headers", LinesAs::Map(':'))
                    .show_if("/transport/type", &["http"]),
                Field::toggle("/enabled", "enabled", true),
            ],
            no_rules,
        );
        for c in "bc".chars() {
            form.handle_key(&key(KeyCode::Char(c)));
        }
        form.handle_key(&key(KeyCode::Tab));
        form.handle_key(&key(KeyCode::Right));
        form.handle_key(&key(KeyCode::Tab));
        for c in "https://x".chars() {
            form.handle_key(&key(KeyCode::Char(c)));
        }
        form.handle_key(&key(KeyCode::Tab));
        form.paste("Authorization: Bearer t\nX-A: b");
        let v = form.value();
        assert_eq!(
            v,
            json!({"name": "abc", "keep": {"me": 1}, "enabled": true, "transport": {
                "type": "http", "url": "https://x",
                "headers": {"Authorization": "Bearer t", "X-A": "b"}}})
        );
        // To JSON and back: the same document, the fields unchanged.
        form.handle_key(&ctrl('t'));
        assert!(form.is_json());
        assert_eq!(form.value(), v);
        form.handle_key(&ctrl('t'));
        assert!(!form.is_json());
        assert_eq!(form.value(), v);
        assert_eq!(form.fields[2].input.text(), "https://x");
        // Saving gives the document.
        match form.handle_key(&ctrl('s')) {
            FormOutcome::Save(s) => assert_eq!(s, v),
            _ => panic!("saved"),
        }
    }

    #[test]
    fn a_required_field_and_a_bad_number_keep_the_form_open() {
        let mut form = Form::paths(
            "T",
            json!({}),
            vec![
                Field::text("/name", "name").required(),
                Field::integer("/n", "n"),
            ],
            no_rules,
        );
        assert!(matches!(form.handle_key(&ctrl('s')), FormOutcome::Keep));
        assert_eq!(form.fields[0].error.as_deref(), Some("required"));
        form.handle_key(&key(KeyCode::Char('x')));
        form.handle_key(&key(KeyCode::Tab));
        form.handle_key(&key(KeyCode::Char('q')));
        assert_eq!(form.fields[1].error.as_deref(), Some("not a whole number"));
        form.handle_key(&key(KeyCode::Backspace));
        form.handle_key(&key(KeyCode::Char('4')));
        match form.handle_key(&ctrl('s')) {
            FormOutcome::Save(v) => assert_eq!(v, json!({"name": "x", "n": 4})),
            _ => panic!("saved"),
        }
    }

    #[test]
    fn a_picker_filters_and_ticks_several() {
        let mut form = Form::paths(
            "T",
            json!({}),
            vec![Field::multi(
                "/servers",
                "servers",
                vec![
                    Choice::text("demo"),
                    Choice::text("docs"),
                    Choice::text("wiki"),
                ],
            )],
            no_rules,
        );
        form.handle_key(&key(KeyCode::Enter));
        form.handle_key(&key(KeyCode::Char(' ')));
        for c in "wi".chars() {
            form.handle_key(&key(KeyCode::Char(c)));
        }
        form.handle_key(&key(KeyCode::Char(' ')));
        form.handle_key(&key(KeyCode::Enter));
        assert_eq!(form.value(), json!({"servers": ["demo", "wiki"]}));
    }
}
