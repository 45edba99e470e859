//! A server asks the person at the workbench something during a tool call
//! (`elicitation/create`): a form generated from its requested schema (strings, numbers,
//! booleans, enums, multi-selects, with defaults, required marks and the schema's rules),
//! answered with accept, decline or cancel; or, in URL mode, a page to open and consent to.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use serde_json::Value;
use tokio::sync::oneshot;

use crate::spec::client_features::{ElicitationAction, ElicitationAnswer};
use crate::spec::primitives::ElicitationRequest;
use crate::tui::theme::Theme;
use crate::tui::widgets::form::{Field, Form, FormOutcome, Model, PathModel};
use crate::tui::widgets::modal::{centered, frame_box};
use crate::tui::widgets::schema_form;

/// The form's document, checked by the requested schema itself.
struct SchemaModel {
    paths: PathModel,
    schema: Value,
}

impl Model for SchemaModel {
    fn to_value(&self, fields: &[Field]) -> Value {
        self.paths.to_value(fields)
    }
    fn load(&mut self, fields: &mut [Field], v: &Value) -> Result<(), String> {
        self.paths.load(fields, v)
    }
    fn validate(&self, v: &Value) -> Vec<String> {
        // A missing required value is marked on its field already.
        schema_form::problems(&self.schema, v, "", true)
    }
    fn as_any(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

fn no_rules(_: &Value) -> Vec<String> {
    Vec::new()
}

/// One question from a server, and where its answer goes.
pub struct Ask {
    /// The server's name, as the person knows it.
    pub server: String,
    pub request: ElicitationRequest,
    form: Option<Form>,
    reply: Option<oneshot::Sender<ElicitationAnswer>>,
}

pub enum AskOutcome {
    Keep,
    /// Answered (the answer has gone to the server).
    Done(ElicitationAction),
}

impl Ask {
    pub fn new(
        server: String,
        request: ElicitationRequest,
        reply: oneshot::Sender<ElicitationAnswer>,
    ) -> Ask {
        let form = (request.mode != "url").then(|| {
            let schema = request
                .requested_schema
                .clone()
                .unwrap_or_else(|| serde_json::json!({"type": "object", "properties": {}}));
            let fields = schema_form::fields(&schema, "");
            let model = SchemaModel {
                paths: PathModel::new(serde_json::json!({}), no_rules),
                schema,
            };
            let mut form = Form::new(format!("{server} asks"), fields, Box::new(model));
            form.intro = Some(request.message.clone());
            form.save_label = "accept";
            form.alt_keys = vec![('d', "decline")];
            form.has_json = false;
            form
        });
        Ask {
            server,
            request,
            form,
            reply: Some(reply),
        }
    }

    fn answer(&mut self, action: ElicitationAction, content: Option<Value>) -> AskOutcome {
        let content = content.and_then(|v| v.as_object().cloned());
        if let Some(tx) = self.reply.take() {
            let _ = tx.send(ElicitationAnswer { action, content });
        }
        AskOutcome::Done(action)
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> AskOutcome {
        match self.form.as_mut() {
            Some(form) => match form.handle_key(key) {
                FormOutcome::Keep => AskOutcome::Keep,
                FormOutcome::Save(v) => self.answer(ElicitationAction::Accept, Some(v)),
                FormOutcome::Alt('d') => self.answer(ElicitationAction::Decline, None),
                FormOutcome::Alt(_) => AskOutcome::Keep,
                FormOutcome::Cancel => self.answer(ElicitationAction::Cancel, None),
            },
            // URL mode: consent to having opened the page, or not.
            None => match key.code {
                KeyCode::Char('y') | KeyCode::Enter => self.answer(ElicitationAction::Accept, None),
                KeyCode::Char('n') => self.answer(ElicitationAction::Decline, None),
                KeyCode::Esc => self.answer(ElicitationAction::Cancel, None),
                _ => AskOutcome::Keep,
            },
        }
    }

    pub fn paste(&mut self, text: &str) {
        if let Some(f) = self.form.as_mut() {
            f.paste(text);
        }
    }

    pub fn render(&mut self, f: &mut Frame, area: Rect, theme: &Theme) {
        if let Some(form) = self.form.as_mut() {
            form.render(f, area, theme);
            return;
        }
        let url = self.request.url.clone().unwrap_or_default();
        let lines = vec![
            Line::raw(self.request.message.clone()),
            Line::raw(""),
            Line::from(vec![
                Span::styled("open  ", theme.dim),
                Span::styled(url, theme.accent),
            ]),
            Line::raw(""),
            Line::styled(
                "The server asks you to open this page (nothing is opened for you). Say when \
                 you have done what it asks.",
                theme.dim,
            ),
            Line::raw(""),
            Line::from(vec![
                Span::styled("y", theme.key),
                Span::raw(" done, accept   "),
                Span::styled("n", theme.key),
                Span::raw(" decline   "),
                Span::styled("Esc", theme.key),
                Span::raw(" cancel"),
            ]),
        ];
        let width = area.width.saturating_sub(4).min(90);
        let inner_w = width.saturating_sub(2).max(1);
        let height = Paragraph::new(lines.clone())
            .wrap(Wrap { trim: false })
            .line_count(inner_w) as u16
            + 2;
        let rect = centered(area, width, height);
        let inner = frame_box(
            f,
            rect,
            Line::styled(
                format!(" {} asks you to open a page ", self.server),
                theme.warn,
            ),
            theme.warn,
        );
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
    }
}

impl Drop for Ask {
    /// An unanswered question (the workbench closed) is cancelled, never left hanging.
    fn drop(&mut self) {
        if let Some(tx) = self.reply.take() {
            let _ = tx.send(ElicitationAnswer {
                action: ElicitationAction::Cancel,
                content: None,
            });
        }
    }
}
