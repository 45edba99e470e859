//! Steps: what each does and the field that makes it meaningful.

use crate::spec::validate::{Checker, join};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

// ---------------------------------------------------------------------------------------------
// Steps
// ---------------------------------------------------------------------------------------------

/// What a step does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum StepKind {
    /// A user message and a model turn.
    Prompt,
    /// A deterministic, model-free tool call.
    ToolCall,
    /// One pure widget action.
    Interact,
    /// An expectation.
    Assert,
}

impl StepKind {
    pub fn as_str(self) -> &'static str {
        match self {
            StepKind::Prompt => "prompt",
            StepKind::ToolCall => "toolCall",
            StepKind::Interact => "interact",
            StepKind::Assert => "assert",
        }
    }
}

/// One ordered step of a case. Keys beyond the spec's are kept in `extra` and written back.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EvalTestStep {
    pub id: String,
    pub kind: StepKind,
    /// For `prompt`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// For `toolCall`: the server owning the tool.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_name: Option<String>,
    /// For `toolCall` and `interact`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// For `toolCall`; free-form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Map<String, Value>>,
    /// For `interact`; free-form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action: Option<Map<String, Value>>,
    /// For `assert`: a transcript predicate or a DOM widget assertion; free-form.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assertion: Option<Map<String, Value>>,
    /// Additional properties, preserved verbatim.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl EvalTestStep {
    fn bare(id: impl Into<String>, kind: StepKind) -> Self {
        EvalTestStep {
            id: id.into(),
            kind,
            prompt: None,
            server_name: None,
            tool_name: None,
            arguments: None,
            action: None,
            assertion: None,
            extra: Map::new(),
        }
    }

    pub fn new_prompt(id: impl Into<String>, prompt: impl Into<String>) -> Self {
        EvalTestStep {
            prompt: Some(prompt.into()),
            ..Self::bare(id, StepKind::Prompt)
        }
    }

    pub fn new_tool_call(
        id: impl Into<String>,
        tool_name: impl Into<String>,
        arguments: Map<String, Value>,
    ) -> Self {
        EvalTestStep {
            tool_name: Some(tool_name.into()),
            arguments: Some(arguments),
            ..Self::bare(id, StepKind::ToolCall)
        }
    }

    pub fn new_interact(
        id: impl Into<String>,
        tool_name: Option<String>,
        action: Map<String, Value>,
    ) -> Self {
        EvalTestStep {
            tool_name,
            action: Some(action),
            ..Self::bare(id, StepKind::Interact)
        }
    }

    pub fn new_assert(id: impl Into<String>, assertion: Map<String, Value>) -> Self {
        EvalTestStep {
            assertion: Some(assertion),
            ..Self::bare(id, StepKind::Assert)
        }
    }

    pub fn validate(&self, path: &str, c: &mut Checker) {
        c.length(&join(path, "id"), &self.id, 1, None);
        let (field, present) = match self.kind {
            StepKind::Prompt => {
                if let Some(p) = &self.prompt {
                    c.length(&join(path, "prompt"), p, 1, None);
                }
                ("prompt", self.prompt.is_some())
            }
            StepKind::ToolCall => {
                if let Some(t) = &self.tool_name {
                    c.length(&join(path, "toolName"), t, 1, None);
                }
                ("toolName", self.tool_name.is_some())
            }
            StepKind::Interact => ("action", self.action.is_some()),
            StepKind::Assert => ("assertion", self.assertion.is_some()),
        };
        if !present {
            c.fail(
                join(path, field),
                "required",
                format!("a `{}` step needs `{field}`", self.kind.as_str()),
            );
        }
    }
}

/// At least one step, each valid, ids unique.
pub fn validate_steps(path: &str, steps: &[EvalTestStep], c: &mut Checker) {
    if steps.is_empty() {
        c.fail(path, "minItems", "must have at least 1 step");
    }
    let mut seen = std::collections::HashSet::new();
    for (i, s) in steps.iter().enumerate() {
        let p = join(path, i);
        s.validate(&p, c);
        if !s.id.is_empty() && !seen.insert(s.id.as_str()) {
            c.fail(
                join(&p, "id"),
                "uniqueItems",
                format!("step id `{}` is used twice", s.id),
            );
        }
    }
}
