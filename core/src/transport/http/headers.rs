//! The HTTP header names MCP uses, for the server and the client alike.

/// The session id header.
pub const SESSION_ID: &str = "mcp-session-id";
/// The negotiated protocol version header.
pub const PROTOCOL_VERSION: &str = "mcp-protocol-version";
/// SSE resumption header.
pub const LAST_EVENT_ID: &str = "last-event-id";
/// 2026-07-28: the request's method, mirrored from the body.
pub const METHOD: &str = "mcp-method";
/// 2026-07-28: the tool or prompt name, or resource URI, mirrored from the body.
pub const NAME: &str = "mcp-name";
/// 2026-07-28: the prefix of the headers that mirror `x-mcp-header` tool arguments.
pub const PARAM_PREFIX: &str = crate::protocol::mirrored_headers::PARAM_HEADER_PREFIX;
