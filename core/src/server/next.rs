//! The rest of a middleware chain, as a value. It sits below both the context, which
//! carries it to a host's middleware (`RequestContext::with_next`), and the `Middleware`
//! trait, which takes it: the context stands on neither the middleware nor the dispatcher.

use futures::future::BoxFuture;
use serde_json::Value;

use crate::protocol::ErrorObject;

/// What a request ends with: its result, or the JSON-RPC error.
pub type Reply = Result<Value, ErrorObject>;

/// The rest of the chain: the next middleware, then the server's own handling.
pub struct Next(pub(crate) Box<dyn FnOnce(Option<Value>) -> BoxFuture<'static, Reply> + Send>);

impl Next {
    /// Runs the rest of the chain with `params` (the request's own, or changed ones).
    pub async fn run(self, params: Option<Value>) -> Reply {
        (self.0)(params).await
    }
}

impl std::fmt::Debug for Next {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Next")
    }
}
