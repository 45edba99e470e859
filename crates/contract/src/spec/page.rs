//! Cursor pagination: `{items, nextCursor}`; `nextCursor` is omitted on the last page.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use super::error::Error;

/// Default and maximum page sizes for every list.
pub const DEFAULT_LIMIT: usize = 50;
pub const MAX_LIMIT: usize = 200;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    pub items: Vec<T>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// Where a list starts and how much of it to return.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
}

/// The position a cursor stands for: the sort key and id of the last item served.
/// Opaque to clients (base64 of JSON), so the ordering can change without breaking them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    pub key: String,
    pub id: String,
}

impl PageRequest {
    pub fn limit(&self) -> Result<usize, Error> {
        match self.limit {
            None => Ok(DEFAULT_LIMIT),
            Some(n) if (1..=MAX_LIMIT).contains(&n) => Ok(n),
            Some(_) => Err(Error::invalid(
                "/limit",
                "range",
                format!("must be between 1 and {MAX_LIMIT}"),
            )),
        }
    }

    pub fn position(&self) -> Result<Option<Position>, Error> {
        let Some(c) = &self.cursor else {
            return Ok(None);
        };
        URL_SAFE_NO_PAD
            .decode(c)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .map(Some)
            .ok_or_else(|| Error::invalid("/cursor", "cursor", "not a cursor this service issued"))
    }
}

impl Position {
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(self).expect("position serializes"))
    }
}

impl<T> Page<T> {
    /// Builds a page from `limit + 1` fetched rows: the extra row only says there is more.
    pub fn from_rows(mut rows: Vec<T>, limit: usize, position: impl Fn(&T) -> Position) -> Self {
        let next_cursor = if rows.len() > limit {
            rows.truncate(limit);
            rows.last().map(|r| position(r).encode())
        } else {
            None
        };
        Page {
            items: rows,
            next_cursor,
        }
    }

    pub fn map<U>(self, f: impl FnMut(T) -> U) -> Page<U> {
        Page {
            items: self.items.into_iter().map(f).collect(),
            next_cursor: self.next_cursor,
        }
    }
}
