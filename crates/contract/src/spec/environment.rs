//! Environments: a named execution bundle of one host, an optional server group, and pinned
//! skills and plugin versions. Every write carries the revision it was made against.

use serde::{Deserialize, Deserializer, Serialize};

use super::client_features::{MAX_ROOTS, Root};
use super::error::Error;
use super::validate::{Checker, join};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillSelection {
    /// Only `explicit` exists today.
    pub mode: String,
    pub skill_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Environment {
    pub id: String,
    pub project_id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub host_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_attachment_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_selection: Option<SkillSelection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_version_ids: Option<Vec<String>>,
    /// Extension: the roots every server of the environment is given during its runs
    /// (`roots/list`), instead of each saved server's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<Root>>,
    pub revision: i64,
    pub archived: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub archived_at: Option<i64>,
    pub created_at: i64,
    pub updated_at: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnvironmentCreate {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub host_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_attachment_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill_selection: Option<SkillSelection>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plugin_version_ids: Option<Vec<String>>,
    /// Extension: roots for every server of the environment (see [`Environment::roots`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<Root>>,
}

/// A field that may be absent (keep), `null` (clear) or a value (set).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Patch<T> {
    #[default]
    Keep,
    Clear,
    Set(T),
}

impl<T> Patch<T> {
    pub fn is_keep(&self) -> bool {
        matches!(self, Patch::Keep)
    }
    /// Applies the patch to a current value.
    pub fn apply(self, current: Option<T>) -> Option<T> {
        match self {
            Patch::Keep => current,
            Patch::Clear => None,
            Patch::Set(v) => Some(v),
        }
    }
    pub fn as_set(&self) -> Option<&T> {
        match self {
            Patch::Set(v) => Some(v),
            _ => None,
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Patch<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Option::<T>::deserialize(d)? {
            None => Patch::Clear,
            Some(v) => Patch::Set(v),
        })
    }
}

impl<T: Serialize> Serialize for Patch<T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Patch::Set(v) => v.serialize(s),
            _ => s.serialize_none(),
        }
    }
}

/// A field that cannot be cleared: omitted keeps it, `null` is a type violation naming the
/// field (not a silent "keep"), a value sets it. Use with `#[serde(default)]`.
pub(crate) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

impl<T: schemars::JsonSchema> schemars::JsonSchema for Patch<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        format!("Nullable_{}", T::schema_name()).into()
    }
    fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Option<T>>::json_schema(g)
    }
}

/// `PATCH /projects/{p}/environments/{e}`: `expectedRevision` plus at least one field;
/// `null` clears `serverAttachmentId`, `skillSelection` and `pluginVersionIds` (and the
/// optional `description` and `modelId`); `null` for `name` or `hostId`, which an
/// environment always has, is a type violation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EnvironmentPatch {
    pub expected_revision: i64,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "String")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub description: Patch<String>,
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(with = "String")]
    pub host_id: Option<String>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub server_attachment_id: Patch<String>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub model_id: Patch<String>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub skill_selection: Patch<SkillSelection>,
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub plugin_version_ids: Patch<Vec<String>>,
    /// Extension: `null` gives each server its own saved roots again.
    #[serde(default, skip_serializing_if = "Patch::is_keep")]
    pub roots: Patch<Vec<Root>>,
}

/// Body of archive and restore.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevisionGuard {
    pub expected_revision: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentQuery {
    #[serde(default)]
    pub include_archived: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentRef {
    pub id: String,
    pub name: String,
    pub revision: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PluginVersionRef {
    pub plugin_id: String,
    pub plugin_version_id: String,
    pub name: String,
    pub bundle_hash: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerRef {
    pub server_id: String,
    pub name: String,
}

/// `GET …/environments/{e}/resolve`: what a launch would use.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentResolution {
    pub environment: EnvironmentRef,
    pub host_id: String,
    pub host_name: String,
    pub host_config_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effective_model_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_attachment_id: Option<String>,
    pub selected_server_ids: Vec<String>,
    pub effective_server_ids: Vec<String>,
    pub plugin_versions: Vec<PluginVersionRef>,
    pub servers: Vec<ServerRef>,
    /// Additive: the host's full config, as the launch would see it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_config: Option<super::catalog::Object>,
    /// Additive: the roots the launch gives every server, when the environment sets them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<Vec<Root>>,
}

/// Answer to restore: the environment, and the pins dropped because their plugin version
/// no longer exists (additive field).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnvironmentRestored {
    #[serde(flatten)]
    pub environment: Environment,
    #[serde(default)]
    pub dropped_plugin_version_ids: Vec<String>,
}

/// Extension `POST /projects/{p}/server-groups`: a named, ordered set of saved servers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerGroupCreate {
    pub name: String,
    pub server_ids: Vec<String>,
}

/// Extension `POST /projects/{p}/plugins`: registers a plugin version to pin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PluginVersionCreate {
    pub name: String,
    pub version: String,
    pub bundle_hash: String,
}

/// Extension `POST /projects/{p}/skills`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillCreate {
    pub name: String,
}

/// `{id}` of something just created by an extension endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Created {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
}

fn check_name(c: &mut Checker, name: &str) {
    c.length("/name", name, 1, Some(200));
    if name.trim() != name {
        c.fail("/name", "trimmed", "must not start or end with whitespace");
    }
}

fn check_ids(c: &mut Checker, path: &str, ids: &[String]) {
    let mut seen = std::collections::HashSet::new();
    for (i, id) in ids.iter().enumerate() {
        if id.is_empty() {
            c.fail(join(path, i), "minLength", "must not be empty");
        } else if !seen.insert(id) {
            c.fail(
                join(path, i),
                "uniqueItems",
                format!("`{id}` is listed twice"),
            );
        }
    }
}

fn check_skills(c: &mut Checker, s: &SkillSelection) {
    c.one_of("/skillSelection/mode", &s.mode, &["explicit"]);
    check_ids(c, "/skillSelection/skillIds", &s.skill_ids);
}

impl EnvironmentCreate {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        check_name(&mut c, &self.name);
        c.length("/hostId", &self.host_id, 1, None);
        if let Some(d) = &self.description {
            c.length("/description", d, 0, Some(2000));
        }
        if let Some(s) = &self.skill_selection {
            check_skills(&mut c, s);
        }
        if let Some(p) = &self.plugin_version_ids {
            check_ids(&mut c, "/pluginVersionIds", p);
        }
        if let Some(r) = &self.roots {
            check_roots(&mut c, r);
        }
        c.finish()
    }
}

/// Roots as a saved server's client settings hold them: `file://` URIs, at most
/// [`MAX_ROOTS`].
fn check_roots(c: &mut Checker, roots: &[Root]) {
    for (i, r) in roots.iter().enumerate() {
        r.validate(&format!("/roots/{i}"), c);
    }
    if roots.len() > MAX_ROOTS {
        c.fail("/roots", "maxItems", format!("at most {MAX_ROOTS} roots"));
    }
}

/// Revisions start at 1: a guard below that is a malformed request, not a stale one.
fn check_revision(c: &mut Checker, revision: i64) {
    if revision < 1 {
        c.fail("/expectedRevision", "minimum", "must be at least 1");
    }
}

impl RevisionGuard {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        check_revision(&mut c, self.expected_revision);
        c.finish()
    }
}

impl EnvironmentPatch {
    pub fn validate(&self) -> Result<(), Error> {
        let mut c = Checker::new();
        check_revision(&mut c, self.expected_revision);
        if let Some(n) = &self.name {
            check_name(&mut c, n);
        }
        if let Some(h) = &self.host_id {
            c.length("/hostId", h, 1, None);
        }
        if let Patch::Set(s) = &self.skill_selection {
            check_skills(&mut c, s);
        }
        if let Patch::Set(p) = &self.plugin_version_ids {
            check_ids(&mut c, "/pluginVersionIds", p);
        }
        if let Patch::Set(r) = &self.roots {
            check_roots(&mut c, r);
        }
        let changes = self.name.is_some()
            || self.host_id.is_some()
            || !self.description.is_keep()
            || !self.server_attachment_id.is_keep()
            || !self.model_id.is_keep()
            || !self.skill_selection.is_keep()
            || !self.plugin_version_ids.is_keep()
            || !self.roots.is_keep();
        if !changes {
            c.fail(
                "",
                "minProperties",
                "give at least one field to change besides `expectedRevision`",
            );
        }
        c.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::validate::parse_body;

    #[test]
    fn null_clears_absent_keeps() {
        let p: EnvironmentPatch = parse_body(
            br#"{"expectedRevision":3,"serverAttachmentId":null,"pluginVersionIds":["pv_1"]}"#,
        )
        .unwrap();
        assert_eq!(p.server_attachment_id, Patch::Clear);
        assert_eq!(p.skill_selection, Patch::Keep);
        assert_eq!(p.plugin_version_ids, Patch::Set(vec!["pv_1".into()]));
        assert!(p.validate().is_ok());
    }

    /// `null` clears only what may be absent; on `name`, `hostId` or `expectedRevision` it
    /// is a type violation at that field, never "give at least one field".
    #[test]
    fn null_only_clears_what_may_be_absent() {
        let bad: &[(&str, &str)] = &[
            (r#"{"expectedRevision":1,"name":null}"#, "/name"),
            (r#"{"expectedRevision":1,"hostId":null}"#, "/hostId"),
            (
                r#"{"expectedRevision":1,"name":"ok","hostId":null}"#,
                "/hostId",
            ),
            (
                r#"{"expectedRevision":null,"name":"x"}"#,
                "/expectedRevision",
            ),
        ];
        for (body, path) in bad {
            let e = parse_body::<EnvironmentPatch>(body.as_bytes()).unwrap_err();
            assert_eq!(e.code, crate::spec::Code::ValidationError, "{body}");
            let v = e.violations();
            assert_eq!(
                (v[0].path.as_str(), v[0].rule.as_str()),
                (*path, "type"),
                "{body}"
            );
        }
        type Check = fn(&EnvironmentPatch) -> bool;
        let good: &[(&str, Check)] = &[
            (r#"{"expectedRevision":1,"description":null}"#, |p| {
                p.description == Patch::Clear
            }),
            (r#"{"expectedRevision":1,"modelId":null}"#, |p| {
                p.model_id == Patch::Clear
            }),
            (r#"{"expectedRevision":1,"skillSelection":null}"#, |p| {
                p.skill_selection == Patch::Clear
            }),
            (r#"{"expectedRevision":1,"pluginVersionIds":null}"#, |p| {
                p.plugin_version_ids == Patch::Clear
            }),
            (r#"{"expectedRevision":1,"name":"n","hostId":"h"}"#, |p| {
                p.name.as_deref() == Some("n") && p.host_id.as_deref() == Some("h")
            }),
        ];
        for (body, check) in good {
            let p: EnvironmentPatch = parse_body(body.as_bytes()).unwrap();
            assert!(check(&p), "{body}");
            assert!(p.validate().is_ok(), "{body}");
        }
    }

    #[test]
    fn patch_rules() {
        let cases: &[(&str, &str, &str)] = &[
            (r#"{"expectedRevision":1}"#, "", "minProperties"),
            (
                r#"{"expectedRevision":0,"name":"x"}"#,
                "/expectedRevision",
                "minimum",
            ),
            (r#"{"expectedRevision":1,"name":" x"}"#, "/name", "trimmed"),
            (r#"{"expectedRevision":1,"name":""}"#, "/name", "minLength"),
            (
                r#"{"expectedRevision":1,"skillSelection":{"mode":"auto","skillIds":[]}}"#,
                "/skillSelection/mode",
                "enum",
            ),
            (
                r#"{"expectedRevision":1,"pluginVersionIds":["a","a"]}"#,
                "/pluginVersionIds/1",
                "uniqueItems",
            ),
        ];
        for (body, path, rule) in cases {
            let p: EnvironmentPatch = parse_body(body.as_bytes()).unwrap();
            let v = p.validate().unwrap_err().violations();
            assert_eq!(
                (v[0].path.as_str(), v[0].rule.as_str()),
                (*path, *rule),
                "{body}"
            );
        }
        let e = parse_body::<EnvironmentPatch>(br#"{"name":"x"}"#).unwrap_err();
        assert_eq!(e.code, crate::spec::Code::ValidationError);
        let e = parse_body::<EnvironmentPatch>(br#"{"expectedRevision":1,"colour":"red"}"#)
            .unwrap_err();
        assert_eq!(e.violations()[0].rule, "additionalProperties");
        assert_eq!(e.violations()[0].path, "/colour");
    }

    #[test]
    fn create_rules() {
        let ok: EnvironmentCreate = parse_body(br#"{"name":"ci","hostId":"hst_1"}"#).unwrap();
        assert!(ok.validate().is_ok());
        let bad: EnvironmentCreate = parse_body(br#"{"name":"","hostId":""}"#).unwrap();
        let paths: Vec<String> = bad
            .validate()
            .unwrap_err()
            .violations()
            .into_iter()
            .map(|v| v.path)
            .collect();
        assert_eq!(paths, ["/name", "/hostId"]);
    }
}
