//! The client's side of a session: answers the server's requests (sampling, elicitation,
//! roots) with the handlers the user registered, and forwards notifications.

use std::future::Future;
use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::inbox::Inbox;
use super::notification::ServerNotification;
use crate::error::Result;
use crate::protocol::{
    methods, CreateMessageRequestParams, CreateMessageResult, ElicitAction, ElicitRequestParams, ElicitResult, ErrorObject,
    ListRootsResult, RequestId,
};
use crate::session::{IncomingNotification, IncomingRequest, Peer, Service};

/// What a client-side handler receives besides its params.
#[derive(Debug, Clone)]
pub struct ClientContext {
    /// The server's id for this request.
    pub request_id: RequestId,
    /// Fires when the server cancels the request or disconnects.
    pub cancel: CancellationToken,
    /// The session.
    pub peer: Peer,
}

type Handler<P, R> = Arc<dyn Fn(P, ClientContext) -> BoxFuture<'static, Result<R>> + Send + Sync>;

pub(crate) fn boxed<P, R, F, Fut>(f: F) -> Handler<P, R>
where
    F: Fn(P, ClientContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R>> + Send + 'static,
{
    Arc::new(move |p, ctx| Box::pin(f(p, ctx)))
}

/// The handlers a client registered.
#[derive(Clone, Default)]
pub(crate) struct Handlers {
    pub(crate) sampling: Option<Handler<CreateMessageRequestParams, CreateMessageResult>>,
    pub(crate) elicitation: Option<Handler<ElicitRequestParams, ElicitResult>>,
    pub(crate) roots: Option<Handler<(), ListRootsResult>>,
    pub(crate) notification: Option<Arc<dyn Fn(ServerNotification) + Send + Sync>>,
}

pub(crate) struct ClientService {
    pub(crate) handlers: Handlers,
    /// Listen acknowledgements and subscriptions (stateless era).
    pub(crate) inbox: Arc<Inbox>,
}

async fn answer<P, R: Serialize>(
    handler: &Option<Handler<P, R>>,
    method: &str,
    params: Option<Value>,
    ctx: ClientContext,
) -> Result<Value, ErrorObject>
where
    P: serde::de::DeserializeOwned,
{
    let Some(handler) = handler else {
        return Err(ErrorObject::method_not_found(method));
    };
    let params: P = serde_json::from_value(params.unwrap_or(Value::Object(Default::default())))
        .map_err(|e| ErrorObject::invalid_params(format!("invalid {method} params: {e}")))?;
    let result = handler(params, ctx).await.map_err(|e| e.to_error_object())?;
    serde_json::to_value(result).map_err(|e| ErrorObject::internal(e.to_string()))
}

/// SEP-1034: an accepted form answer gets the requested schema's default for every field
/// the handler left out.
fn fill_defaults(result: &mut ElicitResult, schema: &Value) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else { return };
    let content = result.content.get_or_insert_with(Default::default);
    for (name, prop) in props {
        if let Some(default) = prop.get("default") {
            content.entry(name.clone()).or_insert_with(|| default.clone());
        }
    }
}

/// Answers one server-to-client request with the registered handler: a request the
/// server sent on its own (session era) or one carried in an `InputRequiredResult`
/// (stateless era).
pub(crate) async fn answer_request(
    handlers: &Handlers,
    method: &str,
    params: Option<Value>,
    ctx: ClientContext,
) -> Result<Value, ErrorObject> {
    match method {
        methods::SAMPLING_CREATE_MESSAGE => answer(&handlers.sampling, method, params, ctx).await,
        methods::ELICITATION_CREATE => {
            let Some(handler) = &handlers.elicitation else {
                return Err(ErrorObject::method_not_found(method));
            };
            let params: ElicitRequestParams = serde_json::from_value(params.unwrap_or(Value::Object(Default::default())))
                .map_err(|e| ErrorObject::invalid_params(format!("invalid elicitation/create params: {e}")))?;
            let defaults = match &params {
                ElicitRequestParams::Form(form) => Some(form.requested_schema.clone()),
                ElicitRequestParams::Url(_) => None,
            };
            let mut result = handler(params, ctx).await.map_err(|e| e.to_error_object())?;
            if let (ElicitAction::Accept, Some(schema)) = (&result.action, defaults) {
                fill_defaults(&mut result, &schema);
            }
            serde_json::to_value(result).map_err(|e| ErrorObject::internal(e.to_string()))
        }
        methods::ROOTS_LIST => match &handlers.roots {
            None => Err(ErrorObject::method_not_found(method)),
            Some(h) => {
                let roots = h((), ctx).await.map_err(|e| e.to_error_object())?;
                serde_json::to_value(roots).map_err(|e| ErrorObject::internal(e.to_string()))
            }
        },
        other => Err(ErrorObject::method_not_found(other)),
    }
}

/// Whether a notification's `_meta` names a listen stream (stateless era).
fn from_listen_stream(meta: Option<&crate::protocol::Meta>) -> bool {
    meta.is_some_and(|m| m.contains_key(crate::protocol::meta::SUBSCRIPTION_ID))
}

impl Service for ClientService {
    fn handle_request(&self, req: IncomingRequest) -> BoxFuture<'static, Result<Value, ErrorObject>> {
        let handlers = self.handlers.clone();
        Box::pin(async move {
            let ctx = ClientContext { request_id: req.id, cancel: req.cancel, peer: req.peer };
            answer_request(&handlers, &req.method, req.params, ctx).await
        })
    }

    fn handle_notification(&self, note: IncomingNotification) -> BoxFuture<'static, ()> {
        if note.method == methods::SUBSCRIPTIONS_ACKNOWLEDGED {
            // The client's own business: it confirms a listen stream, it is no news.
            self.inbox.deliver_ack(note.params);
        } else if let Some(callback) = &self.handlers.notification {
            let n = ServerNotification::from_wire(note.method, note.params);
            if let ServerNotification::ResourceUpdated(u) = &n {
                if from_listen_stream(u.meta.as_ref()) && !self.inbox.wants_update(&u.uri) {
                    return Box::pin(async {});
                }
            }
            callback(n);
        }
        Box::pin(async {})
    }
}

/// Answers a batch of input requests (`{key: {method, params}}`: a stateless-era round's,
/// or a task's) with the client's handlers, all at once; the answers by the same keys.
pub(crate) async fn answer_input_requests(
    handlers: &Handlers,
    peer: &Peer,
    requests: Map<String, Value>,
) -> crate::Result<Map<String, Value>> {
    use crate::error::{Error, ErrorKind};
    let asks = requests.into_iter().map(|(key, ask)| {
        let method = ask.get("method").and_then(Value::as_str).unwrap_or_default().to_string();
        let params = ask.get("params").cloned();
        let ctx =
            ClientContext { request_id: RequestId::String(key.as_str().into()), cancel: Default::default(), peer: peer.clone() };
        async move {
            match answer_request(handlers, &method, params, ctx).await {
                Ok(v) => Ok((key, v)),
                Err(e) if e.code == crate::protocol::codes::METHOD_NOT_FOUND => Err(Error::new(
                    ErrorKind::Protocol,
                    format!("the server asked for {method:?} (input {key:?}), which this client has no handler for"),
                )),
                Err(e) => Err(Error::from_rpc(e)),
            }
        }
    });
    futures::future::try_join_all(asks).await.map(Map::from_iter)
}
