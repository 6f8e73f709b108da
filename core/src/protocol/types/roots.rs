//! Roots: the filesystem locations a client exposes to servers (`roots/list`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::common::Meta;

/// A directory or file the server may work within.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// URI of the root (a `file://` URI in current versions).
    pub uri: String,
    /// Human-readable name of the root.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Root metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Root {
    /// A root with just a URI.
    pub fn new(uri: impl Into<String>) -> Self {
        Root { uri: uri.into(), name: None, meta: None, extra: Map::new() }
    }

    /// Sets the name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

/// The client's answer to `roots/list`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListRootsResult {
    /// The client's roots.
    pub roots: Vec<Root>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ListRootsResult {
    /// A result listing `roots`.
    pub fn new(roots: Vec<Root>) -> Self {
        ListRootsResult { roots, ..Default::default() }
    }
}
