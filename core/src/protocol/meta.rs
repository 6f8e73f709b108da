//! The stateless era's per-request `_meta` (2026-07-28): every request carries the
//! protocol version, the client's capabilities and (should) its info, instead of a session
//! remembering them from `initialize`.

use serde_json::{json, Map, Value};

use super::error::{codes, ErrorObject};
use super::types::{ClientCapabilities, Implementation, LoggingLevel};
use super::version::ProtocolVersion;

/// `_meta` key: the request's protocol version (required).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key: the client's capabilities for this request (required; `{}` for none).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key: the client's name and version (should be present).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key: the lowest log level the client wants for this request (absent: no logs).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// Result `_meta` key: the server's name and version.
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// Notification `_meta` key: the `subscriptions/listen` request a notification belongs to.
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// What a stateless-era request says about its client.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMeta {
    /// The request's protocol version.
    pub version: ProtocolVersion,
    /// The client's capabilities for this request.
    pub capabilities: ClientCapabilities,
    /// The client's info, when it sent it.
    pub client_info: Option<Implementation>,
    /// The lowest level of log messages the client wants; `None`: send none.
    pub log_level: Option<LoggingLevel>,
}

/// Whether `params` carry a stateless-era `_meta` (its protocol version key).
pub fn is_stateless_request(params: Option<&Value>) -> bool {
    params.and_then(|p| p.get("_meta")).and_then(|m| m.get(PROTOCOL_VERSION)).is_some()
}

/// -32022 for `requested`, listing what the server speaks.
pub fn unsupported_version(requested: &str) -> ErrorObject {
    let supported: Vec<&str> = [ProtocolVersion::STATELESS].iter().map(|v| v.as_str()).collect();
    ErrorObject::new(codes::UNSUPPORTED_PROTOCOL_VERSION, format!("unsupported protocol version {requested:?}"))
        .with_data(json!({ "requested": requested, "supported": supported }))
}

impl RequestMeta {
    /// Reads a stateless-era request's `_meta`: -32602 when it is missing or malformed,
    /// -32022 when its version is not one oxmcp serves statelessly.
    pub fn from_params(params: Option<&Value>) -> Result<RequestMeta, ErrorObject> {
        let invalid = |what: &str| ErrorObject::invalid_params(format!("invalid request _meta: {what}"));
        let meta: &Map<String, Value> = params
            .and_then(|p| p.get("_meta"))
            .ok_or_else(|| {
                invalid("missing (a 2026-07-28 request carries its protocol version and client capabilities in _meta)")
            })?
            .as_object()
            .ok_or_else(|| invalid("not an object"))?;
        let requested = meta
            .get(PROTOCOL_VERSION)
            .ok_or_else(|| invalid(&format!("missing {PROTOCOL_VERSION}")))?
            .as_str()
            .ok_or_else(|| invalid(&format!("{PROTOCOL_VERSION} is not a string")))?;
        let version =
            ProtocolVersion::parse(requested).filter(|v| v.is_stateless()).ok_or_else(|| unsupported_version(requested))?;
        let capabilities = meta.get(CLIENT_CAPABILITIES).ok_or_else(|| invalid(&format!("missing {CLIENT_CAPABILITIES}")))?;
        let capabilities: ClientCapabilities =
            serde_json::from_value(capabilities.clone()).map_err(|e| invalid(&format!("{CLIENT_CAPABILITIES}: {e}")))?;
        let client_info = match meta.get(CLIENT_INFO) {
            None => None,
            Some(v) => Some(serde_json::from_value(v.clone()).map_err(|e| invalid(&format!("{CLIENT_INFO}: {e}")))?),
        };
        let log_level = match meta.get(LOG_LEVEL) {
            None => None,
            Some(v) => Some(serde_json::from_value(v.clone()).map_err(|e| invalid(&format!("{LOG_LEVEL}: {e}")))?),
        };
        Ok(RequestMeta { version, capabilities, client_info, log_level })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_stateless_request_meta_and_names_what_is_wrong() {
        let params = json!({"_meta": {
            PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: {"elicitation": {}},
            CLIENT_INFO: {"name": "c", "version": "1"}, LOG_LEVEL: "warning"}});
        let m = RequestMeta::from_params(Some(&params)).unwrap();
        assert_eq!(m.version, ProtocolVersion::V2026_07_28);
        assert!(m.capabilities.elicitation.is_some());
        assert_eq!(m.client_info.unwrap().name, "c");
        assert_eq!(m.log_level, Some(LoggingLevel::Warning));

        let missing_caps = json!({"_meta": {PROTOCOL_VERSION: "2026-07-28"}});
        let e = RequestMeta::from_params(Some(&missing_caps)).unwrap_err();
        assert_eq!(e.code, codes::INVALID_PARAMS);
        assert!(e.message.contains(CLIENT_CAPABILITIES));
        assert_eq!(RequestMeta::from_params(None).unwrap_err().code, codes::INVALID_PARAMS);

        let old = json!({"_meta": {PROTOCOL_VERSION: "2025-11-25", CLIENT_CAPABILITIES: {}}});
        let e = RequestMeta::from_params(Some(&old)).unwrap_err();
        assert_eq!(e.code, codes::UNSUPPORTED_PROTOCOL_VERSION);
        assert_eq!(e.data.unwrap()["supported"], json!(["2026-07-28"]));
        assert!(is_stateless_request(Some(&old)) && !is_stateless_request(Some(&json!({"name": "x"}))));
    }
}
