//! Reading a templated resource: one field per variable of the URI template (those of a
//! query or parameter expression may stay empty), the URI they make shown as it is typed,
//! and Ctrl-S reads it.

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use serde_json::Value;

use crate::spec::primitives::ResourceTemplateItem;
use crate::spec::uri_template;
use crate::tui::message::Request;
use crate::tui::theme::Theme;
use crate::tui::widgets::form::{Field, Form, FormOutcome};

pub struct TemplateForm {
    pub server: String,
    pub template: String,
    form: Form,
}

#[allow(clippy::large_enum_variant)] // returned once per key, never stored
pub enum TemplateOutcome {
    Keep,
    Cancel,
    Read(Request),
}

fn no_rules(_: &Value) -> Vec<String> {
    Vec::new()
}

impl TemplateForm {
    pub fn new(server: &str, t: &ResourceTemplateItem) -> TemplateForm {
        let fields = uri_template::variables(&t.uri_template)
            .into_iter()
            .map(|v| {
                let f = Field::text(&format!("/{}", v.name), &v.name);
                let f = match v.operator {
                    Some('?' | '&') => f.help("a query parameter: left out when empty"),
                    Some(';') => f.help("a path parameter: left out when empty"),
                    Some('+' | '#') => f.help("reserved characters (/ ? # …) kept as typed"),
                    _ => f,
                };
                if v.optional() { f } else { f.required() }
            })
            .collect();
        let name = t.name.as_deref().unwrap_or(&t.uri_template);
        let mut form = Form::paths(
            format!("Read resource {name}"),
            serde_json::json!({}),
            fields,
            no_rules,
        );
        form.save_label = "read";
        let mut me = TemplateForm {
            server: server.to_string(),
            template: t.uri_template.clone(),
            form,
        };
        me.show_uri();
        me
    }

    /// The URI the fields make now.
    pub fn uri(&self) -> String {
        let doc = self.form.value();
        let value = |k: &str| match doc.get(k) {
            Some(Value::String(s)) if !s.is_empty() => Some(s.clone()),
            Some(Value::Null | Value::String(_)) | None => None,
            Some(other) => Some(other.to_string()),
        };
        uri_template::expand(&self.template, value).unwrap_or_else(|e| e)
    }

    fn show_uri(&mut self) {
        self.form.intro = Some(format!("{}  →  {}", self.template, self.uri()));
    }

    pub fn handle_key(&mut self, key: &KeyEvent, project: &str) -> TemplateOutcome {
        let out = match self.form.handle_key(key) {
            FormOutcome::Keep | FormOutcome::Alt(_) => TemplateOutcome::Keep,
            FormOutcome::Cancel => TemplateOutcome::Cancel,
            FormOutcome::Save(_) => TemplateOutcome::Read(Request::ReadResource {
                project: project.to_string(),
                server: self.server.clone(),
                uri: self.uri(),
            }),
        };
        self.show_uri();
        out
    }

    pub fn paste(&mut self, text: &str) {
        self.form.paste(text);
        self.show_uri();
    }

    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        self.form.render(f, area, theme);
    }
}
