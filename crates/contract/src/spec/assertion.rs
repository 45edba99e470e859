//! `EvalAssertion`: the entries of a case's `checks.list`, and their validation.
//!
//! An assertion is kept as the raw JSON object it arrived as ([`EvalAssertion`] wraps a
//! `serde_json::Value`), so keys this version does not know survive a read-modify-write;
//! [`EvalAssertion::validate`] checks it against the spec's table, which lives here as data
//! ([`assertion_fields`]) so the CLI and the workbench can build forms from the same source.
//!
//! Decisions where the spec is silent:
//! - "Observation kinds" are the six discovery kinds ([`OBSERVATION_TYPES`]): they judge the
//!   server's tool declarations, which the case under test cannot influence, so they may only
//!   advise. Their `role` must be present and `advisory` (an absent role is a violation, since
//!   the spec gives no default role).
//! - Minimum lengths apply only where the spec states one (`toolCalledWith.toolName`,
//!   `onlyToolsCalled.toolNames[]`, needles, `pattern`); other strings only need to be strings.
//! - `responseMatches.pattern` is not compiled here: patterns are written for the evaluator,
//!   whose regex dialect is its own concern.
//! - Keys the table does not name are kept and not checked (assertions are open objects).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use std::borrow::Cow;

use super::validate::{Checker, MAX_SAFE_INTEGER, join};

/// Every assertion `type` the spec defines, in the spec's order.
pub const ASSERTION_TYPES: &[&str] = &[
    "toolDescriptionsPresent",
    "toolAnnotationsPresent",
    "toolNamesUnique",
    "noDeprecatedToolExposed",
    "toolInputSchemasWellFormed",
    "toolOutputSchemasPresent",
    "toolCalledWith",
    "toolCalledAtLeastOnce",
    "toolNeverCalled",
    "onlyToolsCalled",
    "firstToolWas",
    "responseContains",
    "responseMatches",
    "noToolErrors",
    "finalAssistantMessageNonEmpty",
    "tokenBudgetUnder",
    "widgetRendered",
    "widgetRenderLatencyUnder",
    "widgetNoConsoleErrors",
    "turnCountUnder",
    "noEndingQuestion",
    "toolLatencyUnder",
    "toolResultContains",
    "toolResultMatchesSchema",
    "toolResultSizeUnder",
    "argumentsMatchToolSchema",
    "noRepeatedIdenticalCall",
    "toolCallCountUnder",
    "toolCalledBefore",
    "noDeprecatedToolCalled",
    "noDestructiveToolCalled",
    "toolErrorNamesInput",
    "fullPageHasContinuation",
];

/// Observation kinds: the discovery assertions, which observe the server's declared tools
/// rather than the model's behaviour. They require role `advisory`.
pub const OBSERVATION_TYPES: &[&str] = &[
    "toolDescriptionsPresent",
    "toolAnnotationsPresent",
    "toolNamesUnique",
    "noDeprecatedToolExposed",
    "toolInputSchemasWellFormed",
    "toolOutputSchemasPresent",
];

/// Allowed `role` values.
pub const ROLES: &[&str] = &["gating", "advisory", "required"];
/// Allowed `severity` values.
pub const SEVERITIES: &[&str] = &["warn"];
/// Allowed `toolCalledWith.args.argumentMatching` values.
pub const ARGUMENT_MATCHING: &[&str] = &["exact", "partial", "ignore"];
/// Allowed entries of `toolAnnotationsPresent.require`.
pub const ANNOTATION_HINTS: &[&str] = &["readOnlyHint", "destructiveHint"];
/// Largest `toolResultContains.needle`, in characters.
pub const MAX_RESULT_NEEDLE: usize = 1000;

/// Whether `kind` is an observation kind (see [`OBSERVATION_TYPES`]).
pub fn is_observation_type(kind: &str) -> bool {
    OBSERVATION_TYPES.contains(&kind)
}

/// What a field of an assertion must hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Any string.
    String,
    /// A string of at least one character.
    NonEmptyString,
    /// A string of 1 to [`MAX_RESULT_NEEDLE`] characters.
    Needle,
    /// An integer > 0 and ≤ 2^53 - 1.
    PositiveInteger,
    Boolean,
    /// Any JSON value (a JSON Schema, for `toolResultMatchesSchema.schema`).
    Any,
    /// An array of non-empty strings.
    NonEmptyStringList,
    /// At most 2 unique entries of [`ANNOTATION_HINTS`].
    AnnotationHints,
    /// `{args: object, argumentMatching?: exact|partial|ignore}`.
    ToolArgs,
}

/// One field of an assertion type, as the spec's table states it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSpec {
    pub name: &'static str,
    pub shape: Shape,
    pub required: bool,
}

const fn req(name: &'static str, shape: Shape) -> FieldSpec {
    FieldSpec {
        name,
        shape,
        required: true,
    }
}
const fn opt(name: &'static str, shape: Shape) -> FieldSpec {
    FieldSpec {
        name,
        shape,
        required: false,
    }
}

const TOOL: FieldSpec = opt("toolName", Shape::String);
const TOOL_R: FieldSpec = req("toolName", Shape::String);

use Shape::{
    AnnotationHints, Any, Boolean, Needle, NonEmptyString, NonEmptyStringList, PositiveInteger,
    ToolArgs,
};

/// The spec's table: each type with its further fields, in [`ASSERTION_TYPES`] order.
const TABLE: &[(&str, &[FieldSpec])] = &[
    (
        "toolDescriptionsPresent",
        &[opt("minLength", PositiveInteger)],
    ),
    ("toolAnnotationsPresent", &[opt("require", AnnotationHints)]),
    ("toolNamesUnique", &[]),
    ("noDeprecatedToolExposed", &[]),
    ("toolInputSchemasWellFormed", &[]),
    ("toolOutputSchemasPresent", &[]),
    (
        "toolCalledWith",
        &[
            req("toolName", NonEmptyString),
            req("args", ToolArgs),
            opt("minCount", PositiveInteger),
        ],
    ),
    ("toolCalledAtLeastOnce", &[TOOL_R]),
    ("toolNeverCalled", &[TOOL_R]),
    ("onlyToolsCalled", &[req("toolNames", NonEmptyStringList)]),
    ("firstToolWas", &[TOOL_R]),
    (
        "responseContains",
        &[req("needle", NonEmptyString), opt("caseSensitive", Boolean)],
    ),
    ("responseMatches", &[req("pattern", NonEmptyString)]),
    ("noToolErrors", &[]),
    ("finalAssistantMessageNonEmpty", &[]),
    ("tokenBudgetUnder", &[req("tokens", PositiveInteger)]),
    ("widgetRendered", &[TOOL]),
    (
        "widgetRenderLatencyUnder",
        &[req("ms", PositiveInteger), TOOL],
    ),
    ("widgetNoConsoleErrors", &[TOOL]),
    ("turnCountUnder", &[req("turns", PositiveInteger)]),
    ("noEndingQuestion", &[]),
    ("toolLatencyUnder", &[req("ms", PositiveInteger), TOOL]),
    (
        "toolResultContains",
        &[req("needle", Needle), opt("caseSensitive", Boolean), TOOL],
    ),
    ("toolResultMatchesSchema", &[req("schema", Any), TOOL]),
    (
        "toolResultSizeUnder",
        &[req("maxBytes", PositiveInteger), TOOL],
    ),
    ("argumentsMatchToolSchema", &[TOOL]),
    ("noRepeatedIdenticalCall", &[TOOL]),
    ("toolCallCountUnder", &[req("count", PositiveInteger), TOOL]),
    (
        "toolCalledBefore",
        &[TOOL_R, req("beforeToolName", Shape::String)],
    ),
    ("noDeprecatedToolCalled", &[]),
    ("noDestructiveToolCalled", &[]),
    ("toolErrorNamesInput", &[TOOL]),
    ("fullPageHasContinuation", &[TOOL]),
];

/// The further fields of assertion type `kind` (beyond `type`, `role`, `severity`), or `None`
/// for an unknown type.
pub fn assertion_fields(kind: &str) -> Option<&'static [FieldSpec]> {
    TABLE.iter().find(|(k, _)| *k == kind).map(|(_, f)| *f)
}

/// One assertion, verbatim. Construct with [`EvalAssertion::new`] and [`EvalAssertion::with`],
/// or deserialize any JSON and call [`EvalAssertion::validate`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct EvalAssertion(pub Value);

impl EvalAssertion {
    /// `{"type": kind}`.
    pub fn new(kind: &str) -> Self {
        EvalAssertion(json!({ "type": kind }))
    }

    /// Sets one key (builder style); a no-op if the assertion is not an object.
    pub fn with(mut self, key: &str, value: impl Into<Value>) -> Self {
        if let Value::Object(m) = &mut self.0 {
            m.insert(key.to_string(), value.into());
        }
        self
    }

    /// The `type`, when it is a string.
    pub fn kind(&self) -> Option<&str> {
        self.str("type")
    }

    pub fn role(&self) -> Option<&str> {
        self.str("role")
    }

    pub fn severity(&self) -> Option<&str> {
        self.str("severity")
    }

    /// The optional or required `toolName`, when it is a string.
    pub fn tool_name(&self) -> Option<&str> {
        self.str("toolName")
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key)
    }

    /// A string-valued key.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(Value::as_str)
    }

    pub fn as_object(&self) -> Option<&Map<String, Value>> {
        self.0.as_object()
    }

    pub fn is_observation(&self) -> bool {
        self.kind().is_some_and(is_observation_type)
    }

    /// Checks the assertion at `path` against the spec's table, reporting every violation.
    pub fn validate(&self, path: &str, c: &mut Checker) {
        let Some(obj) = self.0.as_object() else {
            c.fail(path, "type", "an assertion must be an object");
            return;
        };
        let type_path = join(path, "type");
        let kind = match obj.get("type") {
            None => {
                c.fail(&type_path, "required", "missing field `type`");
                None
            }
            Some(Value::String(s)) => {
                if assertion_fields(s).is_none() {
                    c.fail(&type_path, "enum", format!("unknown assertion type `{s}`"));
                    None
                } else {
                    Some(s.as_str())
                }
            }
            Some(_) => {
                c.fail(&type_path, "type", "must be a string");
                None
            }
        };

        let role_path = join(path, "role");
        let role = match obj.get("role") {
            None => None,
            Some(Value::String(r)) => {
                c.one_of(&role_path, r, ROLES);
                Some(r.as_str())
            }
            Some(_) => {
                c.fail(&role_path, "type", "must be a string");
                None
            }
        };
        match obj.get("severity") {
            None => {}
            Some(Value::String(s)) => c.one_of(&join(path, "severity"), s, SEVERITIES),
            Some(_) => c.fail(join(path, "severity"), "type", "must be a string"),
        }

        let Some(kind) = kind else { return };
        // A role of the wrong type or outside ROLES was reported above; report each fault once.
        let role_misplaced = match obj.get("role") {
            None => true,
            Some(_) => role.is_some_and(|r| r != "advisory" && ROLES.contains(&r)),
        };
        if is_observation_type(kind) && role_misplaced {
            c.fail(
                &role_path,
                "observationRole",
                format!("`{kind}` is an observation kind and requires role `advisory`"),
            );
        }
        for f in assertion_fields(kind).unwrap_or_default() {
            let p = join(path, f.name);
            match obj.get(f.name) {
                None if f.required => c.fail(&p, "required", format!("missing field `{}`", f.name)),
                None => {}
                Some(v) => check_shape(&p, f.shape, v, c),
            }
        }
    }
}

fn check_string(path: &str, v: &Value, min: usize, max: Option<usize>, c: &mut Checker) {
    match v.as_str() {
        Some(s) => c.length(path, s, min, max),
        None => c.fail(path, "type", "must be a string"),
    }
}

fn check_shape(path: &str, shape: Shape, v: &Value, c: &mut Checker) {
    match shape {
        Shape::String => check_string(path, v, 0, None, c),
        Shape::NonEmptyString => check_string(path, v, 1, None, c),
        Shape::Needle => check_string(path, v, 1, Some(MAX_RESULT_NEEDLE), c),
        Shape::PositiveInteger => c.positive_integer(path, v),
        Shape::Boolean => {
            if !v.is_boolean() {
                c.fail(path, "type", "must be a boolean");
            }
        }
        Shape::Any => {}
        Shape::NonEmptyStringList => match v.as_array() {
            Some(items) => {
                for (i, item) in items.iter().enumerate() {
                    check_string(&join(path, i), item, 1, None, c);
                }
            }
            None => c.fail(path, "type", "must be an array of strings"),
        },
        Shape::AnnotationHints => match v.as_array() {
            Some(items) => {
                if items.len() > 2 {
                    c.fail(path, "maxItems", "must have at most 2 items");
                }
                let mut seen: Vec<&str> = Vec::new();
                for (i, item) in items.iter().enumerate() {
                    let p = join(path, i);
                    match item.as_str() {
                        Some(s) => {
                            c.one_of(&p, s, ANNOTATION_HINTS);
                            if seen.contains(&s) {
                                c.fail(&p, "uniqueItems", format!("`{s}` is listed twice"));
                            }
                            seen.push(s);
                        }
                        None => c.fail(&p, "type", "must be a string"),
                    }
                }
            }
            None => c.fail(path, "type", "must be an array of strings"),
        },
        Shape::ToolArgs => {
            let Some(obj) = v.as_object() else {
                c.fail(
                    path,
                    "type",
                    "must be an object `{args, argumentMatching?}`",
                );
                return;
            };
            match obj.get("args") {
                None => c.fail(join(path, "args"), "required", "missing field `args`"),
                Some(a) if !a.is_object() => {
                    c.fail(join(path, "args"), "type", "must be an object")
                }
                Some(_) => {}
            }
            match obj.get("argumentMatching") {
                None => {}
                Some(Value::String(m)) => {
                    c.one_of(&join(path, "argumentMatching"), m, ARGUMENT_MATCHING)
                }
                Some(_) => c.fail(join(path, "argumentMatching"), "type", "must be a string"),
            }
        }
    }
}

fn shape_schema(shape: Shape) -> Value {
    match shape {
        Shape::String => json!({ "type": "string" }),
        Shape::NonEmptyString => json!({ "type": "string", "minLength": 1 }),
        Shape::Needle => {
            json!({ "type": "string", "minLength": 1, "maxLength": MAX_RESULT_NEEDLE })
        }
        Shape::PositiveInteger => {
            json!({ "type": "integer", "minimum": 1, "maximum": MAX_SAFE_INTEGER })
        }
        Shape::Boolean => json!({ "type": "boolean" }),
        Shape::Any => json!({}),
        Shape::NonEmptyStringList => {
            json!({ "type": "array", "items": { "type": "string", "minLength": 1 } })
        }
        Shape::AnnotationHints => json!({
            "type": "array",
            "maxItems": 2,
            "uniqueItems": true,
            "items": { "type": "string", "enum": ANNOTATION_HINTS },
        }),
        Shape::ToolArgs => json!({
            "type": "object",
            "required": ["args"],
            "properties": {
                "args": { "type": "object" },
                "argumentMatching": { "type": "string", "enum": ARGUMENT_MATCHING },
            },
        }),
    }
}

/// The schema is generated from the same table the validator uses: one branch per type.
impl schemars::JsonSchema for EvalAssertion {
    fn schema_name() -> Cow<'static, str> {
        "EvalAssertion".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let branches: Vec<Value> = ASSERTION_TYPES
            .iter()
            .map(|kind| {
                let fields = assertion_fields(kind).unwrap_or_default();
                let mut props = Map::new();
                props.insert("type".into(), json!({ "const": kind }));
                let observation = is_observation_type(kind);
                let roles: &[&str] = if observation { &["advisory"] } else { ROLES };
                props.insert("role".into(), json!({ "type": "string", "enum": roles }));
                props.insert(
                    "severity".into(),
                    json!({ "type": "string", "enum": SEVERITIES }),
                );
                let mut required = vec![json!("type")];
                if observation {
                    required.push(json!("role"));
                }
                for f in fields {
                    props.insert(f.name.into(), shape_schema(f.shape));
                    if f.required {
                        required.push(json!(f.name));
                    }
                }
                json!({ "type": "object", "properties": props, "required": required })
            })
            .collect();
        let mut m = Map::new();
        m.insert(
            "description".into(),
            json!("An assertion; `type` selects the further fields. Unknown keys are kept."),
        );
        m.insert("oneOf".into(), Value::Array(branches));
        schemars::Schema::from(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violations(v: &Value) -> Vec<(String, String)> {
        let mut c = Checker::new();
        EvalAssertion(v.clone()).validate("", &mut c);
        c.errors()
            .iter()
            .map(|e| (e.path.clone(), e.rule.clone()))
            .collect()
    }

    #[test]
    fn table_covers_exactly_the_33_types() {
        assert_eq!(ASSERTION_TYPES.len(), 33);
        let names: Vec<&str> = TABLE.iter().map(|(k, _)| *k).collect();
        assert_eq!(names, ASSERTION_TYPES);
        for k in OBSERVATION_TYPES {
            assert!(ASSERTION_TYPES.contains(k));
        }
        assert!(is_observation_type("noDeprecatedToolExposed"));
        assert!(!is_observation_type("noDeprecatedToolCalled"));
    }

    #[test]
    fn good_assertions_are_accepted() {
        let long_needle = "x".repeat(MAX_RESULT_NEEDLE);
        let wide_needle = "é".repeat(MAX_RESULT_NEEDLE);
        let good = [
            json!({"type": "toolDescriptionsPresent", "role": "advisory"}),
            json!({"type": "toolDescriptionsPresent", "role": "advisory", "minLength": 20}),
            json!({"type": "toolAnnotationsPresent", "role": "advisory"}),
            json!({"type": "toolAnnotationsPresent", "role": "advisory", "require": []}),
            json!({"type": "toolAnnotationsPresent", "role": "advisory",
                   "require": ["readOnlyHint", "destructiveHint"]}),
            json!({"type": "toolNamesUnique", "role": "advisory"}),
            json!({"type": "noDeprecatedToolExposed", "role": "advisory", "severity": "warn"}),
            json!({"type": "toolInputSchemasWellFormed", "role": "advisory"}),
            json!({"type": "toolOutputSchemasPresent", "role": "advisory"}),
            json!({"type": "toolCalledWith", "toolName": "search", "args": {"args": {}}}),
            json!({"type": "toolCalledWith", "toolName": "search", "minCount": 2,
                   "args": {"args": {"q": "x", "n": 3}, "argumentMatching": "partial"}}),
            json!({"type": "toolCalledWith", "toolName": "s", "args": {"args": {}, "argumentMatching": "exact"}}),
            json!({"type": "toolCalledWith", "toolName": "s", "args": {"args": {}, "argumentMatching": "ignore"}}),
            json!({"type": "toolCalledAtLeastOnce", "toolName": "search", "role": "gating"}),
            json!({"type": "toolNeverCalled", "toolName": "delete", "role": "required"}),
            json!({"type": "onlyToolsCalled", "toolNames": ["a", "b"]}),
            json!({"type": "onlyToolsCalled", "toolNames": []}),
            json!({"type": "firstToolWas", "toolName": "a"}),
            json!({"type": "responseContains", "needle": "ok"}),
            json!({"type": "responseContains", "needle": "ok", "caseSensitive": false}),
            json!({"type": "responseMatches", "pattern": "^ok"}),
            json!({"type": "noToolErrors", "severity": "warn"}),
            json!({"type": "finalAssistantMessageNonEmpty"}),
            json!({"type": "tokenBudgetUnder", "tokens": MAX_SAFE_INTEGER}),
            json!({"type": "widgetRendered"}),
            json!({"type": "widgetRendered", "toolName": "w"}),
            json!({"type": "widgetRenderLatencyUnder", "ms": 500, "toolName": "w"}),
            json!({"type": "widgetNoConsoleErrors"}),
            json!({"type": "turnCountUnder", "turns": 3}),
            json!({"type": "noEndingQuestion"}),
            json!({"type": "toolLatencyUnder", "ms": 1}),
            json!({"type": "toolResultContains", "needle": "x"}),
            json!({"type": "toolResultContains", "needle": long_needle, "caseSensitive": true, "toolName": "t"}),
            json!({"type": "toolResultContains", "needle": wide_needle}),
            json!({"type": "toolResultMatchesSchema", "schema": {"type": "object"}}),
            json!({"type": "toolResultMatchesSchema", "schema": true, "toolName": "t"}),
            json!({"type": "toolResultSizeUnder", "maxBytes": 1024}),
            json!({"type": "argumentsMatchToolSchema"}),
            json!({"type": "noRepeatedIdenticalCall", "toolName": "t"}),
            json!({"type": "toolCallCountUnder", "count": 5, "toolName": "t"}),
            json!({"type": "toolCalledBefore", "toolName": "a", "beforeToolName": "b"}),
            json!({"type": "noDeprecatedToolCalled"}),
            json!({"type": "noDestructiveToolCalled", "role": "gating"}),
            json!({"type": "toolErrorNamesInput"}),
            json!({"type": "fullPageHasContinuation", "toolName": "list"}),
            // Unknown keys are kept, not checked.
            json!({"type": "noToolErrors", "x-note": {"any": [1, 2]}}),
        ];
        for g in &good {
            assert_eq!(violations(g), vec![], "{g}");
        }
        let covered: std::collections::BTreeSet<&str> =
            good.iter().filter_map(|g| g["type"].as_str()).collect();
        assert_eq!(
            covered.len(),
            ASSERTION_TYPES.len(),
            "every type has a good case"
        );
    }

    #[test]
    fn bad_assertions_name_path_and_rule() {
        let too_long = "x".repeat(MAX_RESULT_NEEDLE + 1);
        let adv = |v: Value| {
            let mut v = v;
            v["role"] = json!("advisory");
            v
        };
        let bad: Vec<(Value, &[(&str, &str)])> = vec![
            (json!([1]), &[("", "type")]),
            (json!("noToolErrors"), &[("", "type")]),
            (json!({}), &[("/type", "required")]),
            (json!({"type": 5}), &[("/type", "type")]),
            (json!({"type": "nope"}), &[("/type", "enum")]),
            (
                json!({"type": "noToolErrors", "role": "boss"}),
                &[("/role", "enum")],
            ),
            (
                json!({"type": "noToolErrors", "role": 1}),
                &[("/role", "type")],
            ),
            (
                json!({"type": "noToolErrors", "severity": "error"}),
                &[("/severity", "enum")],
            ),
            (
                json!({"type": "noToolErrors", "severity": true}),
                &[("/severity", "type")],
            ),
            // Observation kinds need role advisory, explicitly.
            (
                json!({"type": "noDeprecatedToolExposed"}),
                &[("/role", "observationRole")],
            ),
            (
                json!({"type": "noDeprecatedToolExposed", "role": "gating"}),
                &[("/role", "observationRole")],
            ),
            (
                json!({"type": "noDeprecatedToolExposed", "role": "required"}),
                &[("/role", "observationRole")],
            ),
            (
                json!({"type": "noDeprecatedToolExposed", "role": "boss"}),
                &[("/role", "enum")],
            ),
            (
                json!({"type": "toolDescriptionsPresent", "role": "gating"}),
                &[("/role", "observationRole")],
            ),
            (
                json!({"type": "toolAnnotationsPresent"}),
                &[("/role", "observationRole")],
            ),
            (
                json!({"type": "toolNamesUnique", "role": "required"}),
                &[("/role", "observationRole")],
            ),
            (
                json!({"type": "toolInputSchemasWellFormed"}),
                &[("/role", "observationRole")],
            ),
            (
                json!({"type": "toolOutputSchemasPresent", "role": "gating"}),
                &[("/role", "observationRole")],
            ),
            // Positive integers.
            (
                adv(json!({"type": "toolDescriptionsPresent", "minLength": 0})),
                &[("/minLength", "positiveInteger")],
            ),
            (
                adv(json!({"type": "toolDescriptionsPresent", "minLength": -1})),
                &[("/minLength", "positiveInteger")],
            ),
            (
                adv(json!({"type": "toolDescriptionsPresent", "minLength": 1.5})),
                &[("/minLength", "positiveInteger")],
            ),
            (
                adv(json!({"type": "toolDescriptionsPresent", "minLength": "3"})),
                &[("/minLength", "positiveInteger")],
            ),
            (
                adv(json!({"type": "toolDescriptionsPresent", "minLength": MAX_SAFE_INTEGER + 1})),
                &[("/minLength", "positiveInteger")],
            ),
            // toolAnnotationsPresent.require
            (
                adv(
                    json!({"type": "toolAnnotationsPresent", "require": ["readOnlyHint", "readOnlyHint"]}),
                ),
                &[("/require/1", "uniqueItems")],
            ),
            (
                adv(json!({"type": "toolAnnotationsPresent",
                           "require": ["readOnlyHint", "destructiveHint", "readOnlyHint"]})),
                &[("/require", "maxItems"), ("/require/2", "uniqueItems")],
            ),
            (
                adv(json!({"type": "toolAnnotationsPresent", "require": ["openWorldHint"]})),
                &[("/require/0", "enum")],
            ),
            (
                adv(json!({"type": "toolAnnotationsPresent", "require": "readOnlyHint"})),
                &[("/require", "type")],
            ),
            (
                adv(json!({"type": "toolAnnotationsPresent", "require": [1]})),
                &[("/require/0", "type")],
            ),
            // toolCalledWith
            (
                json!({"type": "toolCalledWith", "args": {"args": {}}}),
                &[("/toolName", "required")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": "", "args": {"args": {}}}),
                &[("/toolName", "minLength")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": 3, "args": {"args": {}}}),
                &[("/toolName", "type")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": "s"}),
                &[("/args", "required")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": "s", "args": []}),
                &[("/args", "type")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": "s", "args": {}}),
                &[("/args/args", "required")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": "s", "args": {"args": "q=x"}}),
                &[("/args/args", "type")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": "s", "args": {"args": {}, "argumentMatching": "fuzzy"}}),
                &[("/args/argumentMatching", "enum")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": "s", "args": {"args": {}, "argumentMatching": 1}}),
                &[("/args/argumentMatching", "type")],
            ),
            (
                json!({"type": "toolCalledWith", "toolName": "s", "args": {"args": {}}, "minCount": 0}),
                &[("/minCount", "positiveInteger")],
            ),
            // Required tool names.
            (
                json!({"type": "toolCalledAtLeastOnce"}),
                &[("/toolName", "required")],
            ),
            (
                json!({"type": "toolNeverCalled"}),
                &[("/toolName", "required")],
            ),
            (
                json!({"type": "firstToolWas"}),
                &[("/toolName", "required")],
            ),
            (
                json!({"type": "firstToolWas", "toolName": null}),
                &[("/toolName", "type")],
            ),
            (
                json!({"type": "toolCalledBefore", "toolName": "a"}),
                &[("/beforeToolName", "required")],
            ),
            (
                json!({"type": "toolCalledBefore", "beforeToolName": "b"}),
                &[("/toolName", "required")],
            ),
            // onlyToolsCalled
            (
                json!({"type": "onlyToolsCalled"}),
                &[("/toolNames", "required")],
            ),
            (
                json!({"type": "onlyToolsCalled", "toolNames": "a"}),
                &[("/toolNames", "type")],
            ),
            (
                json!({"type": "onlyToolsCalled", "toolNames": ["a", ""]}),
                &[("/toolNames/1", "minLength")],
            ),
            (
                json!({"type": "onlyToolsCalled", "toolNames": [1]}),
                &[("/toolNames/0", "type")],
            ),
            // Response text.
            (
                json!({"type": "responseContains"}),
                &[("/needle", "required")],
            ),
            (
                json!({"type": "responseContains", "needle": ""}),
                &[("/needle", "minLength")],
            ),
            (
                json!({"type": "responseContains", "needle": "a", "caseSensitive": "yes"}),
                &[("/caseSensitive", "type")],
            ),
            (
                json!({"type": "responseMatches"}),
                &[("/pattern", "required")],
            ),
            (
                json!({"type": "responseMatches", "pattern": ""}),
                &[("/pattern", "minLength")],
            ),
            // Budgets.
            (
                json!({"type": "tokenBudgetUnder"}),
                &[("/tokens", "required")],
            ),
            (
                json!({"type": "tokenBudgetUnder", "tokens": 0}),
                &[("/tokens", "positiveInteger")],
            ),
            (
                json!({"type": "widgetRendered", "toolName": 5}),
                &[("/toolName", "type")],
            ),
            (
                json!({"type": "widgetRenderLatencyUnder"}),
                &[("/ms", "required")],
            ),
            (
                json!({"type": "widgetRenderLatencyUnder", "ms": 0}),
                &[("/ms", "positiveInteger")],
            ),
            (json!({"type": "turnCountUnder"}), &[("/turns", "required")]),
            (
                json!({"type": "turnCountUnder", "turns": -2}),
                &[("/turns", "positiveInteger")],
            ),
            (
                json!({"type": "toolLatencyUnder", "toolName": "t"}),
                &[("/ms", "required")],
            ),
            (
                json!({"type": "toolResultSizeUnder"}),
                &[("/maxBytes", "required")],
            ),
            (
                json!({"type": "toolResultSizeUnder", "maxBytes": 0}),
                &[("/maxBytes", "positiveInteger")],
            ),
            (
                json!({"type": "toolCallCountUnder"}),
                &[("/count", "required")],
            ),
            (
                json!({"type": "toolCallCountUnder", "count": 2.5}),
                &[("/count", "positiveInteger")],
            ),
            // Tool results.
            (
                json!({"type": "toolResultContains"}),
                &[("/needle", "required")],
            ),
            (
                json!({"type": "toolResultContains", "needle": ""}),
                &[("/needle", "minLength")],
            ),
            (
                json!({"type": "toolResultContains", "needle": too_long}),
                &[("/needle", "maxLength")],
            ),
            (
                json!({"type": "toolResultContains", "needle": "a", "toolName": []}),
                &[("/toolName", "type")],
            ),
            (
                json!({"type": "toolResultMatchesSchema"}),
                &[("/schema", "required")],
            ),
            (
                json!({"type": "argumentsMatchToolSchema", "toolName": false}),
                &[("/toolName", "type")],
            ),
        ];
        for (v, want) in &bad {
            let want: Vec<(String, String)> = want
                .iter()
                .map(|(p, r)| (p.to_string(), r.to_string()))
                .collect();
            assert_eq!(violations(v), want, "{v}");
        }
    }

    #[test]
    fn paths_are_relative_to_the_assertion() {
        let mut c = Checker::new();
        EvalAssertion(json!({"type": "toolCalledWith", "args": {}}))
            .validate("/checks/list/2", &mut c);
        let got: Vec<_> = c
            .errors()
            .iter()
            .map(|e| (e.path.as_str(), e.rule.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("/checks/list/2/toolName", "required"),
                ("/checks/list/2/args/args", "required")
            ]
        );
    }

    #[test]
    fn unknown_keys_survive_a_round_trip() {
        let raw = json!({"type": "toolCalledWith", "toolName": "s", "args": {"args": {"q": 1}},
                         "x-origin": "import", "weights": {"a": [1, 2]}});
        let a: EvalAssertion = serde_json::from_value(raw.clone()).unwrap();
        assert_eq!(a.kind(), Some("toolCalledWith"));
        assert_eq!(a.tool_name(), Some("s"));
        assert_eq!(serde_json::to_value(&a).unwrap(), raw);
    }

    #[test]
    fn builder_and_accessors() {
        let a = EvalAssertion::new("noDeprecatedToolExposed").with("role", "advisory");
        assert!(a.is_observation());
        assert_eq!(a.role(), Some("advisory"));
        assert_eq!(a.severity(), None);
        let mut c = Checker::new();
        a.validate("", &mut c);
        assert!(c.is_ok());
    }

    #[test]
    fn schema_has_one_branch_per_type() {
        let s = schemars::schema_for!(EvalAssertion);
        let v = serde_json::to_value(&s).unwrap();
        let branches = v["oneOf"].as_array().unwrap();
        assert_eq!(branches.len(), 33);
        let obs = branches
            .iter()
            .find(|b| b["properties"]["type"]["const"] == "noDeprecatedToolExposed");
        assert_eq!(
            obs.unwrap()["properties"]["role"]["enum"],
            json!(["advisory"])
        );
    }
}
