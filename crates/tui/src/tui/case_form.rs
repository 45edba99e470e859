//! The case form, one for a saved case (`e` on a case) and for a skipped draft in the review:
//! title, the prompt(s), the negative toggle, the expected tool picked from the live tools,
//! its arguments in fields generated from the tool's input schema, and the text the answer
//! should contain. Steps the form has no field for (checks, tool-call steps, widget actions)
//! are kept as they are, after the ones it writes; the JSON view shows the whole case.

use serde_json::{Map, Value, json};

use crate::spec::case::EvalCase;
use crate::spec::primitives::ToolItem;
use crate::tui::panes::cases::{edit_value, validate_update};
use crate::tui::widgets::form::{Choice, Field, Form, LinesAs, Model};
use crate::tui::widgets::schema_form;

/// Step ids the form writes.
const TOOL_STEP: &str = "expect-tool";
const TEXT_STEP: &str = "expect-text";

pub struct CaseModel {
    /// The editable keys of the case, as the document last was.
    base: Value,
    /// The live tools the expected tool is picked from.
    tools: Vec<ToolItem>,
    /// The tool whose argument fields are shown.
    shown: Option<String>,
    /// `argumentMatching` of the expected call, kept.
    matching: Option<Value>,
    /// Arguments read from a document, for the fields built next.
    pending_args: Option<Map<String, Value>>,
}

/// What the form reads out of a case's steps.
struct Parts {
    prompts: Vec<String>,
    tool: Option<String>,
    args: Map<String, Value>,
    matching: Option<Value>,
    expected: Option<String>,
}

fn assertion_type(step: &Value) -> Option<&str> {
    (step.get("kind").and_then(Value::as_str) == Some("assert"))
        .then(|| step.pointer("/assertion/type").and_then(Value::as_str))
        .flatten()
}

/// Splits the steps into what the form shows and what it keeps as it is.
fn parts(steps: &[Value]) -> (Parts, Vec<Value>) {
    let mut p = Parts {
        prompts: Vec::new(),
        tool: None,
        args: Map::new(),
        matching: None,
        expected: None,
    };
    let mut others = Vec::new();
    for s in steps {
        if s.get("kind").and_then(Value::as_str) == Some("prompt")
            && let Some(text) = s.get("prompt").and_then(Value::as_str)
        {
            p.prompts.push(text.to_string());
            continue;
        }
        match assertion_type(s) {
            Some("toolCalledWith" | "toolCalledAtLeastOnce") if p.tool.is_none() => {
                let a = &s["assertion"];
                p.tool = a["toolName"].as_str().map(str::to_string);
                if let Some(args) = a.pointer("/args/args").and_then(Value::as_object) {
                    p.args = args.clone();
                }
                p.matching = a.pointer("/args/argumentMatching").cloned();
            }
            Some("responseContains") if p.expected.is_none() => {
                p.expected = s
                    .pointer("/assertion/needle")
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            _ => others.push(s.clone()),
        }
    }
    (p, others)
}

impl CaseModel {
    pub fn set_tools(&mut self, tools: Vec<ToolItem>) {
        self.tools = tools;
        // The argument fields are built again for the newly known schema.
        self.shown = Some("\u{0}".into());
    }

    fn schema_of(&self, tool: &str) -> Option<&Value> {
        self.tools
            .iter()
            .find(|t| t.name == tool)
            .and_then(|t| t.input_schema.as_ref())
    }

    fn tool_choices(&self) -> Vec<Choice> {
        self.tools
            .iter()
            .map(|t| {
                let d = t
                    .description
                    .as_deref()
                    .and_then(|d| d.lines().next())
                    .unwrap_or("");
                let label = if d.is_empty() {
                    t.name.clone()
                } else {
                    format!("{} — {}", t.name, crate::tui::panes::clip(d, 48))
                };
                Choice::new(t.name.clone(), label)
            })
            .collect()
    }

    /// The arguments the argument fields describe.
    fn args(fields: &[Field]) -> Map<String, Value> {
        if let Some(Ok(Some(Value::Object(m)))) =
            fields.iter().find(|f| f.key == "/args").map(Field::value)
        {
            return m;
        }
        let mut m = Map::new();
        for f in fields.iter().filter(|f| f.key.starts_with("/args/")) {
            if let Ok(Some(v)) = f.value() {
                m.insert(f.key["/args/".len()..].to_string(), v);
            }
        }
        m
    }

    fn set_args(fields: &mut [Field], args: &Map<String, Value>) {
        for f in fields.iter_mut() {
            if f.key == "/args" {
                f.set(&Value::Object(args.clone()));
            } else if let Some(name) = f.key.strip_prefix("/args/") {
                f.set(args.get(name).unwrap_or(&Value::Null));
            }
        }
    }
}

impl Model for CaseModel {
    fn to_value(&self, fields: &[Field]) -> Value {
        let get = |k: &str| crate::tui::widgets::form::get(fields, k);
        let mut doc = self.base.clone();
        let (_, others) = parts(
            self.base
                .get("steps")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or(&[]),
        );
        let negative = get("/isNegative")
            .and_then(|v| v.as_bool())
            .unwrap_or(false);
        let mut steps = Vec::new();
        let prompts: Vec<String> = get("/prompts")
            .and_then(|v| v.as_array().cloned())
            .unwrap_or_default()
            .into_iter()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        for (i, p) in prompts.iter().enumerate() {
            steps.push(json!({"id": format!("prompt-{}", i + 1), "kind": "prompt", "prompt": p}));
        }
        if let Some(tool) = get("/tool").and_then(|v| v.as_str().map(str::to_string))
            && !negative
        {
            let args = CaseModel::args(fields);
            let mut assertion = json!({"type": "toolCalledWith", "toolName": tool});
            if !args.is_empty() {
                assertion["args"] = json!({"args": args});
                assertion["args"]["argumentMatching"] =
                    self.matching.clone().unwrap_or(json!("partial"));
            } else {
                assertion["type"] = json!("toolCalledAtLeastOnce");
            }
            steps.push(json!({"id": TOOL_STEP, "kind": "assert", "assertion": assertion}));
        }
        if let Some(text) = get("/expected").and_then(|v| v.as_str().map(str::to_string)) {
            steps.push(json!({"id": TEXT_STEP, "kind": "assert",
                "assertion": {"type": "responseContains", "needle": text}}));
        }
        // Steps the form does not show, as they were (ids kept apart from the form's).
        for s in others {
            steps.push(s);
        }
        doc["steps"] = Value::Array(steps);
        doc["isNegative"] = json!(negative);
        if let Some(t) = get("/title") {
            doc["title"] = t;
        }
        match get("/iterations") {
            Some(n) => doc["iterations"] = n,
            None => {
                if let Some(o) = doc.as_object_mut() {
                    o.remove("iterations");
                }
            }
        }
        doc
    }

    fn load(&mut self, fields: &mut [Field], v: &Value) -> Result<(), String> {
        if !v.is_object() {
            return Err("a case is a JSON object".into());
        }
        self.base = v.clone();
        let steps: Vec<Value> = v
            .get("steps")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let (p, _) = parts(&steps);
        self.matching = p.matching.clone();
        for f in fields.iter_mut() {
            match f.key.as_str() {
                "/title" => f.set(v.get("title").unwrap_or(&Value::Null)),
                "/prompts" => f.set(&json!(p.prompts)),
                "/isNegative" => f.set(v.get("isNegative").unwrap_or(&json!(false))),
                "/tool" => f.set(&p.tool.clone().map(Value::from).unwrap_or(Value::Null)),
                "/expected" => f.set(&p.expected.clone().map(Value::from).unwrap_or(Value::Null)),
                "/iterations" => f.set(v.get("iterations").unwrap_or(&Value::Null)),
                _ => {}
            }
        }
        // The argument fields are rebuilt for the tool, then filled.
        self.shown = Some("\u{0}".into());
        self.pending_args = Some(p.args);
        Ok(())
    }

    fn validate(&self, v: &Value) -> Vec<String> {
        let mut out = validate_update(v);
        // The expected arguments by the tool's own schema (naming only some is fine).
        let steps = v.get("steps").and_then(Value::as_array);
        if let Some(s) = steps.and_then(|s| s.iter().find(|s| s["id"] == TOOL_STEP))
            && let Some(tool) = s.pointer("/assertion/toolName").and_then(Value::as_str)
            && let Some(schema) = self.schema_of(tool)
        {
            let args = s
                .pointer("/assertion/args/args")
                .cloned()
                .unwrap_or(json!({}));
            out.extend(schema_form::problems(schema, &args, "/args", true));
        }
        out
    }

    fn refresh(&mut self, fields: &mut Vec<Field>) {
        let tool = crate::tui::widgets::form::get(fields, "/tool")
            .and_then(|v| v.as_str().map(str::to_string));
        // The tool picker offers the live tools (they may arrive after the form opened).
        let choices = self.tool_choices();
        if let Some(f) = fields.iter_mut().find(|f| f.key == "/tool")
            && let crate::tui::widgets::form::Kind::Choice { options, .. } = &mut f.kind
            && options.len() < choices.len()
        {
            let current = tool.clone().map(Value::from).unwrap_or(Value::Null);
            *options = choices;
            f.set(&current);
        }
        if self.shown == tool && self.pending_args.is_none() {
            return;
        }
        // The arguments shown so far carry over to the new tool's fields by name.
        let mut args = self
            .pending_args
            .take()
            .unwrap_or_else(|| CaseModel::args(fields));
        if self.shown.as_deref() == Some("\u{0}") && args.is_empty() {
            args = CaseModel::args(fields);
        }
        fields.retain(|f| f.key != "/args" && !f.key.starts_with("/args/"));
        let at = fields
            .iter()
            .position(|f| f.key == "/tool")
            .map(|i| i + 1)
            .unwrap_or(fields.len());
        let mut new: Vec<Field> = match tool.as_deref() {
            Some(t) => match self.schema_of(t) {
                Some(schema) => schema_form::fields(schema, "/args"),
                None => {
                    vec![Field::json("/args", "arguments").help("the tool is not listed: JSON")]
                }
            },
            None => Vec::new(),
        };
        for f in new.iter_mut() {
            // Expected arguments may name only some: nothing is required here, and a
            // schema's default is not an expectation.
            f.required = false;
            f.set(&Value::Null);
            f.label = format!("  {}", f.label);
            *f = f.clone().show_if_value("/isNegative", &[json!(false)]);
        }
        CaseModel::set_args(&mut new, &args);
        for (i, f) in new.into_iter().enumerate() {
            fields.insert(at + i, f);
        }
        self.shown = tool;
    }

    fn as_any(&mut self) -> &mut dyn std::any::Any {
        self
    }
}

/// The case form over `case` (a saved case, or a draft's proposed case), with the tools the
/// expected tool is picked from.
pub fn case_form(title: String, case: &EvalCase, tools: Vec<ToolItem>) -> Form {
    let base = edit_value(case);
    let mut model = CaseModel {
        base: base.clone(),
        tools,
        shown: None,
        matching: None,
        pending_args: None,
    };
    let fields = vec![
        Field::text("/title", "title").required(),
        Field::lines("/prompts", "prompt(s)", LinesAs::Strings).help("a line per user turn"),
        Field::toggle("/isNegative", "negative", false).help("passes when no tool is called"),
        Field::choice("/tool", "expected tool", Vec::new())
            .custom()
            .show_if_value("/isNegative", &[json!(false)]),
        Field::text("/expected", "answer contains").help("text the reply must include"),
        Field::integer("/iterations", "iterations").help("1 to 10"),
    ];
    let mut fields = fields;
    let _ = model.load(&mut fields, &base);
    let mut form = Form::new(title, fields, Box::new(model));
    form.intro = Some(
        "Other steps and checks are kept as they are; Ctrl-T shows the whole case as JSON.".into(),
    );
    form
}

/// Gives an open case form the live tools (they arrive after it opened).
pub fn give_tools(form: &mut Form, tools: Vec<ToolItem>) {
    let (model, _) = form.parts();
    if let Some(m) = model.as_any().downcast_mut::<CaseModel>() {
        m.set_tools(tools);
    }
    form.refresh();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::widgets::form::FormOutcome;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    fn tools() -> Vec<ToolItem> {
        serde_json::from_value(json!([
            {"name": "echo", "inputSchema": {"type": "object", "required": ["message"],
                "properties": {"message": {"type": "string"}}}},
            {"name": "get-sum", "description": "Add two numbers", "inputSchema": {"type": "object",
                "required": ["a", "b"], "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}
        ]))
        .unwrap()
    }

    fn case() -> EvalCase {
        serde_json::from_value(json!({
            "id": "case_1", "title": "Add", "iterations": 1, "isNegative": false, "models": [],
            "steps": [
                {"id": "prompt-1", "kind": "prompt", "prompt": "What is 2 + 3?"},
                {"id": "assert-1", "kind": "assert", "assertion": {"type": "toolCalledWith",
                    "toolName": "echo", "args": {"args": {"message": "5"}, "argumentMatching": "exact"}}},
                {"id": "assert-2", "kind": "assert", "assertion": {"type": "responseContains", "needle": "5"}},
                {"id": "assert-3", "kind": "assert", "assertion": {"type": "noEndingQuestion"}}
            ]
        }))
        .unwrap()
    }

    fn key(c: KeyCode) -> KeyEvent {
        KeyEvent::new(c, KeyModifiers::NONE)
    }

    #[test]
    fn the_form_reads_a_case_and_writes_the_picked_tool_with_its_arguments() {
        let mut form = case_form("Case".into(), &case(), tools());
        let keys: Vec<String> = form.fields.iter().map(|f| f.key.clone()).collect();
        assert!(keys.contains(&"/args/message".to_string()), "{keys:?}");
        assert_eq!(
            form.fields
                .iter()
                .find(|f| f.key == "/args/message")
                .unwrap()
                .input
                .text(),
            "5"
        );
        // Pick get-sum instead: its two arguments replace echo's.
        let tool = form.fields.iter().position(|f| f.key == "/tool").unwrap();
        for _ in 0..tool {
            form.handle_key(&key(KeyCode::Tab));
        }
        form.handle_key(&key(KeyCode::Right));
        let keys: Vec<String> = form.fields.iter().map(|f| f.key.clone()).collect();
        assert!(keys.contains(&"/args/a".to_string()), "{keys:?}");
        assert!(!keys.contains(&"/args/message".to_string()), "{keys:?}");
        form.handle_key(&key(KeyCode::Tab));
        form.handle_key(&key(KeyCode::Char('2')));
        form.handle_key(&key(KeyCode::Tab));
        form.handle_key(&key(KeyCode::Char('3')));
        let v = match form.handle_key(&KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)) {
            FormOutcome::Save(v) => v,
            _ => panic!(
                "saved: {:?}",
                form.fields
                    .iter()
                    .map(|f| (&f.key, &f.error))
                    .collect::<Vec<_>>()
            ),
        };
        let steps = v["steps"].as_array().unwrap();
        assert_eq!(steps[0]["prompt"], "What is 2 + 3?");
        assert_eq!(steps[1]["assertion"]["toolName"], "get-sum");
        assert_eq!(
            steps[1]["assertion"]["args"]["args"],
            json!({"a": 2, "b": 3})
        );
        assert_eq!(steps[1]["assertion"]["args"]["argumentMatching"], "exact");
        assert_eq!(steps[2]["assertion"]["needle"], "5");
        assert_eq!(steps[3]["assertion"]["type"], "noEndingQuestion", "kept");
    }
}
