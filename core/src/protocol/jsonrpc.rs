//! The JSON-RPC 2.0 envelope, parsed strictly.
//!
//! Rules enforced here (everything above this layer may rely on them):
//! - `jsonrpc` is exactly `"2.0"`;
//! - a request/response id is a string or an integer, never null or fractional;
//! - a response carries exactly one of `result` and `error`;
//! - `params`, when present, is an object (MCP never uses positional params).
//!
//! Parsing is a single pass into a private envelope struct: no intermediate `Value` tree
//! for the envelope itself.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::error::ErrorObject;

/// A JSON-RPC request id: an integer or a string (MCP forbids null).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id (what oxmcp allocates).
    Number(i64),
    /// A string id (what some peers allocate).
    String(Arc<str>),
}

impl RequestId {
    /// Reads an id from JSON; `None` for null, floats, booleans, objects.
    pub fn from_value(v: &Value) -> Option<Self> {
        match v {
            Value::Number(n) => n.as_i64().map(RequestId::Number),
            Value::String(s) => Some(RequestId::String(Arc::from(s.as_str()))),
            _ => None,
        }
    }
    /// The id as JSON.
    pub fn to_value(&self) -> Value {
        match self {
            RequestId::Number(n) => Value::from(*n),
            RequestId::String(s) => Value::from(&**s),
        }
    }
}

impl fmt::Display for RequestId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{s:?}"),
        }
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(Arc::from(s))
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => s.serialize_i64(*n),
            RequestId::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        RequestId::from_value(&v).ok_or_else(|| serde::de::Error::custom("request id must be a string or an integer"))
    }
}

/// One JSON-RPC message.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// A request: expects exactly one response with the same id.
    Request {
        /// The request id.
        id: RequestId,
        /// The method name.
        method: String,
        /// The params object, if any.
        params: Option<Value>,
    },
    /// A notification: no id, no response.
    Notification {
        /// The method name.
        method: String,
        /// The params object, if any.
        params: Option<Value>,
    },
    /// A successful response.
    Response {
        /// The id of the request answered.
        id: RequestId,
        /// The result.
        result: Value,
    },
    /// An error response; `id` is `None` only when the request's id could not be read.
    Error {
        /// The id of the request answered, if known.
        id: Option<RequestId>,
        /// The error.
        error: ErrorObject,
    },
}

/// Why incoming bytes could not become a [`Message`], with the id when it could be read
/// (so the error response can be correlated). Large, but only on the rare bad-input path,
/// hence the `result_large_err` allowances below.
#[derive(Debug, Clone, PartialEq)]
pub struct Rejected {
    /// The id of the offending request, when readable.
    pub id: Option<RequestId>,
    /// The error to answer with (-32700 or -32600).
    pub error: ErrorObject,
}

/// What one incoming frame held.
#[derive(Debug)]
pub enum Incoming {
    /// A single message.
    Single(Message),
    /// A JSON-RPC batch (each element parsed on its own).
    Batch(Vec<Result<Message, Rejected>>),
}

/// Accepts a field's value even when it is `null`, so "present but null" differs from
/// "absent" (which stays `None` through `#[serde(default)]`).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

impl Message {
    /// Parses one frame (a message or, where the caller allows it, a batch).
    #[allow(clippy::result_large_err)]
    pub fn parse(bytes: &[u8]) -> Result<Incoming, Rejected> {
        // serde_json skips unknown members without decoding them, so invalid UTF-8 there
        // would pass unseen: the whole frame must be UTF-8, whatever part is read.
        if let Err(e) = std::str::from_utf8(bytes) {
            return Err(Rejected {
                id: None,
                error: ErrorObject::parse_error(format!("parse error: invalid UTF-8 at byte {}", e.valid_up_to())),
            });
        }
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        if first == Some(&b'[') {
            let items: Vec<Value> = serde_json::from_slice(bytes).map_err(parse_rejection)?;
            if items.is_empty() {
                return Err(Rejected { id: None, error: ErrorObject::invalid_request("empty batch") });
            }
            let parsed = items
                .into_iter()
                .map(|v| match serde_json::from_value::<Envelope>(v) {
                    Ok(env) => env.into_message(),
                    Err(e) => Err(not_an_object(e)),
                })
                .collect();
            return Ok(Incoming::Batch(parsed));
        }
        let env: Envelope = serde_json::from_slice(bytes).map_err(|e| {
            if e.is_syntax() || e.is_eof() {
                parse_rejection(e)
            } else {
                not_an_object(e)
            }
        })?;
        env.into_message().map(Incoming::Single)
    }

    /// Parses a frame that must hold exactly one message.
    #[allow(clippy::result_large_err)]
    pub fn parse_single(bytes: &[u8]) -> Result<Message, Rejected> {
        match Self::parse(bytes)? {
            Incoming::Single(m) => Ok(m),
            Incoming::Batch(_) => Err(Rejected { id: None, error: ErrorObject::invalid_request("batches are not allowed here") }),
        }
    }

    /// Serializes to compact JSON bytes (no trailing newline).
    pub fn to_bytes(&self) -> Vec<u8> {
        // Serializing our own types into a Vec cannot fail.
        serde_json::to_vec(self).expect("JSON-RPC message serializes")
    }

    /// The request id, for requests and responses.
    pub fn id(&self) -> Option<&RequestId> {
        match self {
            Message::Request { id, .. } | Message::Response { id, .. } => Some(id),
            Message::Error { id, .. } => id.as_ref(),
            Message::Notification { .. } => None,
        }
    }

    /// The method, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            _ => None,
        }
    }
}

fn parse_rejection(e: serde_json::Error) -> Rejected {
    Rejected { id: None, error: ErrorObject::parse_error(format!("parse error: {e}")) }
}

fn not_an_object(e: serde_json::Error) -> Rejected {
    Rejected { id: None, error: ErrorObject::invalid_request(format!("invalid JSON-RPC message: {e}")) }
}

impl Envelope {
    #[allow(clippy::result_large_err)]
    fn into_message(self) -> Result<Message, Rejected> {
        // Read the id first so every later rejection can still be correlated.
        let id = match &self.id {
            None => None,
            Some(v) => match RequestId::from_value(v) {
                Some(id) => Some(id),
                None if v.is_null() && self.error.is_some() => None, // error for an unreadable request
                None => return Err(invalid(None, "id must be a string or an integer")),
            },
        };
        match &self.jsonrpc {
            Some(Value::String(s)) if s == "2.0" => {}
            _ => return Err(invalid(id, "jsonrpc must be \"2.0\"")),
        }
        match (self.method, self.result, self.error) {
            (Some(method), None, None) => {
                let Value::String(method) = method else {
                    return Err(invalid(id, "method must be a string"));
                };
                let params = match self.params {
                    None => None,
                    Some(p @ Value::Object(_)) => Some(p),
                    Some(_) => return Err(invalid(id, "params must be an object")),
                };
                Ok(match (self.id, id) {
                    (None, _) => Message::Notification { method, params },
                    (Some(_), Some(id)) => Message::Request { id, method, params },
                    (Some(_), None) => return Err(invalid(None, "id must be a string or an integer")),
                })
            }
            (None, Some(result), None) => match id {
                Some(id) => Ok(Message::Response { id, result }),
                None => Err(invalid(None, "a response needs an id")),
            },
            (None, None, Some(error)) => match serde_json::from_value::<ErrorObject>(error) {
                Ok(error) if self.id.is_some() => Ok(Message::Error { id, error }),
                Ok(_) => Err(invalid(None, "an error response needs an id (null when unknown)")),
                Err(e) => Err(invalid(id, format!("malformed error object: {e}"))),
            },
            (None, Some(_), Some(_)) => Err(invalid(id, "a response has exactly one of result and error")),
            (None, None, None) => Err(invalid(id, "not a request, notification or response")),
            (Some(_), _, _) => Err(invalid(id, "a message cannot have both a method and a result or error")),
        }
    }
}

fn invalid(id: Option<RequestId>, msg: impl Into<String>) -> Rejected {
    Rejected { id, error: ErrorObject::invalid_request(msg) }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("jsonrpc", "2.0")?;
        match self {
            Message::Request { id, method, params } => {
                m.serialize_entry("id", id)?;
                m.serialize_entry("method", method)?;
                if let Some(p) = params {
                    m.serialize_entry("params", p)?;
                }
            }
            Message::Notification { method, params } => {
                m.serialize_entry("method", method)?;
                if let Some(p) = params {
                    m.serialize_entry("params", p)?;
                }
            }
            Message::Response { id, result } => {
                m.serialize_entry("id", id)?;
                m.serialize_entry("result", result)?;
            }
            Message::Error { id, error } => {
                m.serialize_entry("id", id)?;
                m.serialize_entry("error", error)?;
            }
        }
        m.end()
    }
}

#[cfg(test)]
#[allow(clippy::result_large_err)]
mod tests {
    use super::*;
    use crate::protocol::codes;
    use serde_json::json;

    fn one(s: &str) -> Result<Message, Rejected> {
        Message::parse_single(s.as_bytes())
    }

    #[test]
    fn parses_each_kind_and_round_trips() {
        let cases = [
            json!({"jsonrpc":"2.0","id":1,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":7,"result":{}}),
            json!({"jsonrpc":"2.0","id":7,"error":{"code":-32601,"message":"nope","data":{"k":1}}}),
            json!({"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}),
        ];
        for c in cases {
            let m = one(&c.to_string()).unwrap();
            let back: Value = serde_json::from_slice(&m.to_bytes()).unwrap();
            assert_eq!(back, c);
        }
    }

    #[test]
    fn invalid_utf8_anywhere_is_a_parse_error() {
        // In a member the envelope reads, in one it skips, and inside params.
        for frame in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"p\xffing\"}"[..],
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"junk\":\"\xc3\x28\"}"[..],
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"_meta\":{\"x\":\"\xed\xa0\x80\"}}}"[..],
            &b"[{\"jsonrpc\":\"2.0\",\"method\":\"n\",\"skip\":\"\xf8\"}]"[..],
        ] {
            let Err(r) = Message::parse(frame) else { panic!("accepted") };
            assert_eq!(r.error.code, codes::PARSE_ERROR, "{}", String::from_utf8_lossy(frame));
        }
    }

    #[test]
    fn rejects_bad_envelopes_with_the_right_code() {
        let parse = one("{not json").unwrap_err();
        assert_eq!(parse.error.code, codes::PARSE_ERROR);
        assert_eq!(parse.id, None);

        for (bad, id) in [
            (r#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#, Some(RequestId::Number(3))),
            (r#"{"id":3,"method":"ping"}"#, Some(RequestId::Number(3))),
            (r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#, None),
            (r#"{"jsonrpc":"2.0","id":true,"result":{}}"#, None),
            (r#"{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}"#, Some(RequestId::Number(4))),
            (r#"{"jsonrpc":"2.0","id":5}"#, Some(RequestId::Number(5))),
            (r#"{"jsonrpc":"2.0","id":6,"method":"x","params":[1]}"#, Some(RequestId::Number(6))),
            (r#"{"jsonrpc":"2.0","id":"s","method":7}"#, Some(RequestId::from("s"))),
            (r#"[1,2]"#, None),
            (r#"42"#, None),
        ] {
            let r = match Message::parse(bad.as_bytes()) {
                Err(r) => r,
                Ok(Incoming::Batch(items)) => items.into_iter().next().unwrap().unwrap_err(),
                Ok(other) => panic!("{bad} was accepted as {other:?}"),
            };
            assert_eq!(r.error.code, codes::INVALID_REQUEST, "{bad}");
            assert_eq!(r.id, id, "{bad}");
        }
    }

    #[test]
    fn batch_elements_parse_independently() {
        let Incoming::Batch(items) = Message::parse(br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"bad":1}]"#).unwrap() else {
            panic!("expected a batch")
        };
        assert!(matches!(items[0], Ok(Message::Request { .. })));
        assert!(items[1].is_err());
        assert!(Message::parse(b"[]").is_err());
    }
}
