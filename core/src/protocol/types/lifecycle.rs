//! The `initialize` handshake.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::capabilities::{ClientCapabilities, ServerCapabilities};
use super::common::{Implementation, Meta};

/// Parameters of `initialize`, sent by the client first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeRequestParams {
    /// The protocol version the client wants (normally its latest).
    pub protocol_version: String,
    /// What the client supports.
    pub capabilities: ClientCapabilities,
    /// Who the client is.
    pub client_info: Implementation,
    /// Request metadata, including an optional `progressToken`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InitializeRequestParams {
    /// Parameters for the given version, capabilities and client info.
    pub fn new(protocol_version: impl Into<String>, capabilities: ClientCapabilities, client_info: Implementation) -> Self {
        InitializeRequestParams {
            protocol_version: protocol_version.into(),
            capabilities,
            client_info,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// The server's answer to `initialize`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The protocol version the server chose to speak.
    pub protocol_version: String,
    /// What the server supports.
    pub capabilities: ServerCapabilities,
    /// Who the server is.
    pub server_info: Implementation,
    /// Hints for the client's model on how to use this server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// Fields this version of oxmcp does not know, kept for round trips.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl InitializeResult {
    /// A result for the given version, capabilities and server info.
    pub fn new(protocol_version: impl Into<String>, capabilities: ServerCapabilities, server_info: Implementation) -> Self {
        InitializeResult {
            protocol_version: protocol_version.into(),
            capabilities,
            server_info,
            instructions: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Sets the instructions.
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }
}
