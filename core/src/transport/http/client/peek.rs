//! What the transport reads of messages: the parts of an outgoing message that shape its
//! POST, and incoming messages parsed once (the session takes them as they are).

use bytes::Bytes;
use serde::Deserialize;
use serde_json::Value;

use crate::protocol::jsonrpc::{Incoming, Rejected};
use crate::protocol::{methods, Message, RequestId};
use crate::transport::Inbound;

/// The parts of an outgoing message the transport needs.
#[derive(Deserialize, Default)]
pub(super) struct Peek {
    #[serde(default)]
    pub(super) id: Option<Value>,
    #[serde(default)]
    pub(super) method: Option<String>,
    #[serde(default)]
    params: Option<PeekParams>,
}

#[derive(Deserialize, Default)]
struct PeekParams {
    /// A tool's or prompt's name (Value: other methods may use the key differently).
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    uri: Option<Value>,
    /// A task's id (`tasks/get`, `tasks/update`, `tasks/cancel`).
    #[serde(default, rename = "taskId")]
    task_id: Option<Value>,
    #[serde(default, rename = "_meta")]
    meta: Option<PeekMeta>,
}

#[derive(Deserialize, Default)]
struct PeekMeta {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion")]
    version: Option<String>,
    #[serde(default)]
    traceparent: Option<String>,
    #[serde(default)]
    tracestate: Option<String>,
}

impl Peek {
    /// Reads an outgoing message (nothing, when it is not a JSON object).
    pub(super) fn of(bytes: &[u8]) -> Peek {
        serde_json::from_slice(bytes).unwrap_or_default()
    }

    /// A notification the session described, so nothing needs reading.
    pub(super) fn notification(method: &str) -> Peek {
        Peek { id: None, method: Some(method.to_string()), params: None }
    }

    /// The request id, for requests.
    pub(super) fn request_id(&self) -> Option<RequestId> {
        self.id.as_ref().and_then(RequestId::from_value)
    }

    /// Whether the message is a request with `method`.
    pub(super) fn is(&self, method: &str) -> bool {
        self.method.as_deref() == Some(method)
    }

    /// The protocol version a stateless-era request names in its `_meta`.
    pub(super) fn stateless_version(&self) -> Option<&str> {
        self.params.as_ref()?.meta.as_ref()?.version.as_deref()
    }

    /// The span the message names in its `_meta` (telemetry on): what its POST waits on
    /// (a token refresh) is that span's child.
    pub(super) fn trace(&self) -> Option<opentelemetry::Context> {
        if !crate::telemetry::is_enabled() {
            return None;
        }
        let meta = self.params.as_ref()?.meta.as_ref()?;
        let trace =
            crate::telemetry::TraceContext { traceparent: meta.traceparent.clone()?, tracestate: meta.tracestate.clone() };
        crate::telemetry::remote(&trace)
    }

    /// What `Mcp-Name` mirrors: `params.name` of tools/call and prompts/get, `params.uri`
    /// of resources/read.
    pub(super) fn mirrored_name(&self) -> Option<&str> {
        let p = self.params.as_ref()?;
        match self.method.as_deref()? {
            methods::TOOLS_CALL | methods::PROMPTS_GET => p.name.as_ref()?.as_str(),
            methods::RESOURCES_READ => p.uri.as_ref()?.as_str(),
            methods::TASKS_GET | methods::TASKS_UPDATE | methods::TASKS_CANCEL => p.task_id.as_ref()?.as_str(),
            _ => None,
        }
    }
}

/// The parts of an incoming message a lenient reader sees: what decides, for a message
/// the strict parser refuses, whether it answers a request (as before the strict parse).
#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    id: Option<Value>,
    #[serde(default)]
    method: Option<String>,
}

/// An incoming message, parsed once: the transport reads what it needs of it, the session
/// takes it as it is.
pub(super) struct Received {
    frame: Result<Incoming, Rejected>,
    bytes: Bytes,
}

impl Received {
    pub(super) fn parse(bytes: Bytes) -> Received {
        Received { frame: Message::parse(&bytes), bytes }
    }

    /// The message, if it is one well-formed message.
    pub(super) fn message(&self) -> Option<&Message> {
        match &self.frame {
            Ok(Incoming::Single(m)) => Some(m),
            _ => None,
        }
    }

    /// Whether it is the answer to request `id` (a result or an error).
    pub(super) fn answers(&self, id: Option<&Value>) -> bool {
        let Some(id) = id else { return false };
        match &self.frame {
            Ok(Incoming::Single(m @ (Message::Response { .. } | Message::Error { .. }))) => {
                m.id().is_some_and(|mine| RequestId::from_value(id).as_ref() == Some(mine))
            }
            Ok(_) => false,
            // Malformed: the session answers it with an error; whether it ends the wait
            // for the request is read as leniently as ever.
            Err(_) => {
                serde_json::from_slice::<Answer>(&self.bytes).is_ok_and(|a| a.method.is_none() && a.id.as_ref() == Some(id))
            }
        }
    }

    /// The bytes as they arrived.
    pub(super) fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// What the session reads: the parsed message, or the bytes it will refuse itself.
    pub(super) fn into_inbound(self) -> Inbound {
        match self.frame {
            Ok(frame) => Inbound::Parsed { frame, bytes: self.bytes },
            Err(_) => Inbound::Bytes(self.bytes),
        }
    }
}
