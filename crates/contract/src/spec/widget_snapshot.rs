//! Widget snapshots a reported result refers to: the HTML of an MCP Apps view, uploaded
//! beforehand through an upload URL (`kind: "widget"`) and named by its `storageId`.
//!
//! What a result's `widgetSnapshots` accepts (additive; at most [`MAX_SNAPSHOTS`] entries):
//! - a storage id string: `"art_…"`;
//! - an object with `storageId` — or `widgetHtmlBlobId`, the name the public eval SDK gives
//!   it — and optional `toolName`, `toolCallId`, `name`, `resourceUri`, `serverId`,
//!   `protocol` (strings) and `capturedAt` (a string or epoch milliseconds). Other keys
//!   (the SDK's `widgetCsp`, `toolMetadata` …) are ignored, as everywhere in ingestion.
//! - an object without an id but with inline `widgetHtml` (what the SDK sends when its upload
//!   failed): the HTML is kept as a widget upload of the project (once per distinct HTML, so
//!   a retried report stores nothing new) and named by its new `storageId`; HTML that is
//!   no valid widget (empty, over 4 MiB) is dropped and the snapshot shown `found: false`.
//!
//! An entry of another type, or a field of the wrong type, is 400 `VALIDATION_ERROR` (rule
//! `type`) at the entry's path; an object with neither id nor HTML is rule `required` at
//! `…/storageId`; bounds are checked like the result's other fields.
//!
//! On the stored iteration each entry becomes a [`WidgetSnapshot`], resolved when the result
//! is stored (the SDK uploads first, then reports): `found` says whether the id names a
//! widget artifact of the run's project, and only then are `kind`, `contentType`, `bytes`
//! and `sha256` given. An unknown id is never an error, so a report is never refused for it.

use schemars::JsonSchema;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use super::ingest::{ArtifactKind, MAX_EXTERNAL_ID, MAX_NAME, MAX_URL};
use super::validate::{Checker, join};

/// Snapshots one result may name.
pub const MAX_SNAPSHOTS: usize = 50;
/// Longest `protocol` and `capturedAt` string.
pub const MAX_SHORT: usize = 100;

/// One `widgetSnapshots` entry as a reporter sends it (a bare id reads as `{storageId}`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSnapshotRef {
    /// The upload's `storageId` (`widgetHtmlBlobId` is read as this).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// An ISO 8601 string or epoch milliseconds, kept as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured_at: Option<Value>,
    /// Inline HTML, sent when the reporter could not upload it (kept as an upload).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub widget_html: Option<String>,
}

/// The documented shape of an entry: a storage id, or the object form.
#[derive(JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
pub enum WidgetSnapshotInput {
    StorageId(String),
    Object(Box<WidgetSnapshotRef>),
}

const STRING_FIELDS: [&str; 8] = [
    "storageId",
    "widgetHtmlBlobId",
    "toolName",
    "toolCallId",
    "name",
    "resourceUri",
    "serverId",
    "protocol",
];

impl WidgetSnapshotRef {
    pub fn id(storage_id: impl Into<String>) -> Self {
        WidgetSnapshotRef {
            storage_id: Some(storage_id.into()),
            ..Default::default()
        }
    }

    /// Reads one entry; the message names the faulty field (the path names the entry).
    fn from_json(v: Value) -> Result<Self, String> {
        let mut o = match v {
            Value::String(id) => return Ok(Self::id(id)),
            Value::Object(o) => o,
            _ => return Err("a widget snapshot is a storage id string or an object".into()),
        };
        for f in STRING_FIELDS.iter().chain(&["widgetHtml"]) {
            if o.get(*f).is_some_and(|v| !v.is_string() && !v.is_null()) {
                return Err(format!("`{f}` must be a string"));
            }
        }
        if let Some(c) = o.get("capturedAt")
            && !(c.is_string() || c.is_u64() || c.is_null())
        {
            return Err(
                "`capturedAt` must be an ISO 8601 string or epoch milliseconds".to_string(),
            );
        }
        let captured_at = o.remove("capturedAt").filter(|c| !c.is_null());
        let mut s = |k: &str| match o.remove(k) {
            Some(Value::String(s)) => Some(s),
            _ => None,
        };
        let storage_id = s("storageId").or_else(|| s("widgetHtmlBlobId"));
        Ok(WidgetSnapshotRef {
            storage_id,
            tool_name: s("toolName"),
            tool_call_id: s("toolCallId"),
            name: s("name"),
            resource_uri: s("resourceUri"),
            server_id: s("serverId"),
            protocol: s("protocol"),
            widget_html: s("widgetHtml"),
            captured_at,
        })
    }

    /// Checks `list` (at `p`, the result's `widgetSnapshots`).
    pub fn validate_all(list: &[WidgetSnapshotRef], p: &str, c: &mut Checker) {
        if list.len() > MAX_SNAPSHOTS {
            c.fail(
                p,
                "maxItems",
                format!("must name at most {MAX_SNAPSHOTS} widget snapshots"),
            );
        }
        for (i, w) in list.iter().enumerate() {
            w.validate(&join(p, i), c);
        }
    }

    fn validate(&self, p: &str, c: &mut Checker) {
        match &self.storage_id {
            Some(id) => c.length(&join(p, "storageId"), id, 1, Some(MAX_EXTERNAL_ID)),
            None if self.widget_html.is_none() => c.fail(
                join(p, "storageId"),
                "required",
                "`storageId` is required: the id an upload URL answered for the widget's HTML",
            ),
            None => {}
        }
        for (field, v, max) in [
            ("toolName", &self.tool_name, MAX_NAME),
            ("toolCallId", &self.tool_call_id, MAX_EXTERNAL_ID),
            ("name", &self.name, MAX_NAME),
            ("resourceUri", &self.resource_uri, MAX_URL),
            ("serverId", &self.server_id, MAX_EXTERNAL_ID),
            ("protocol", &self.protocol, MAX_SHORT),
        ] {
            if let Some(v) = v {
                c.length(&join(p, field), v, 1, Some(max));
            }
        }
        if let Some(Value::String(t)) = &self.captured_at {
            c.length(&join(p, "capturedAt"), t, 1, Some(MAX_SHORT));
        }
    }
}

impl<'de> Deserialize<'de> for WidgetSnapshotRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Self::from_json(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// A snapshot as the iteration shows it (`widgetSnapshots`, additive): the reporter's
/// description and what the store holds under its id.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSnapshot {
    /// Absent only when inline HTML was sent instead of an id and could not be kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage_id: Option<String>,
    /// Whether the id names a widget artifact of this project (read it back with
    /// `GET eval-ingest/artifacts/{storageId}`).
    pub found: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<ArtifactKind>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// The stored HTML's size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub captured_at: Option<Value>,
}

impl WidgetSnapshot {
    /// The reporter's description, not yet resolved (`found: false`).
    pub fn described(r: &WidgetSnapshotRef) -> Self {
        WidgetSnapshot {
            storage_id: r.storage_id.clone(),
            found: false,
            kind: None,
            content_type: None,
            bytes: None,
            sha256: None,
            tool_name: r.tool_name.clone(),
            tool_call_id: r.tool_call_id.clone(),
            name: r.name.clone(),
            resource_uri: r.resource_uri.clone(),
            server_id: r.server_id.clone(),
            protocol: r.protocol.clone(),
            captured_at: r.captured_at.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<WidgetSnapshotRef, String> {
        WidgetSnapshotRef::from_json(v)
    }

    #[test]
    fn reads_ids_objects_and_the_sdks_shape() {
        assert_eq!(
            read(json!("art_1")).unwrap(),
            WidgetSnapshotRef::id("art_1")
        );
        let sdk = read(json!({
            "toolCallId": "call_1", "toolName": "show_chart", "protocol": "mcp-apps",
            "serverId": "charts", "resourceUri": "ui://charts/view.html", "toolMetadata": {},
            "widgetCsp": null, "widgetPermissive": false, "prefersBorder": true,
            "widgetHtmlBlobId": "art_2"
        }))
        .unwrap();
        assert_eq!(sdk.storage_id.as_deref(), Some("art_2"));
        assert_eq!(sdk.tool_name.as_deref(), Some("show_chart"));
        assert_eq!(sdk.resource_uri.as_deref(), Some("ui://charts/view.html"));
        let inline = read(json!({"toolName": "t", "widgetHtml": "<p>hi</p>"})).unwrap();
        assert_eq!(inline.storage_id, None);
        assert!(read(json!({"storageId": "a", "capturedAt": 1_700_000_000_000u64})).is_ok());
    }

    #[test]
    fn names_what_is_malformed() {
        assert!(read(json!(5)).unwrap_err().contains("storage id string"));
        assert!(
            read(json!({"storageId": 5}))
                .unwrap_err()
                .contains("storageId")
        );
        assert!(
            read(json!({"storageId": "a", "toolName": []}))
                .unwrap_err()
                .contains("toolName")
        );
        assert!(
            read(json!({"storageId": "a", "capturedAt": true}))
                .unwrap_err()
                .contains("capturedAt")
        );
        let mut c = Checker::new();
        let list = vec![
            WidgetSnapshotRef::default(),
            WidgetSnapshotRef::id(""),
            WidgetSnapshotRef {
                tool_name: Some(String::new()),
                ..WidgetSnapshotRef::id("a")
            },
        ];
        WidgetSnapshotRef::validate_all(&list, "/w", &mut c);
        let got: Vec<_> = c
            .errors()
            .iter()
            .map(|v| (v.path.as_str(), v.rule.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                ("/w/0/storageId", "required"),
                ("/w/1/storageId", "minLength"),
                ("/w/2/toolName", "minLength")
            ]
        );
        let many = vec![WidgetSnapshotRef::id("a"); MAX_SNAPSHOTS + 1];
        let mut c = Checker::new();
        WidgetSnapshotRef::validate_all(&many, "/w", &mut c);
        assert_eq!(c.errors()[0].rule, "maxItems");
    }
}
