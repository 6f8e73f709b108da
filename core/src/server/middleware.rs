//! Middleware: code around every request a server routes to its lists and handlers
//! (`tools/*`, `resources/*`, `prompts/*`, `completion/complete`, `tasks/*`, the skills
//! methods, and `logging/setLevel`, whose level is kept where the chain ends), in both eras. It sees
//! the method, the params and the request's context; it may answer by itself (a cache, a
//! rate limit), change the params it passes on, or look at or replace what comes back
//! (logging, timing, turning errors into something else). The first one added is the
//! outermost.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! use std::sync::{Arc, atomic::{AtomicUsize, Ordering}};
//! use oxmcp::server::{Next, Server};
//! use oxmcp::protocol::{CallToolResult, ErrorObject, Tool};
//! use serde_json::json;
//!
//! let calls = Arc::new(AtomicUsize::new(0));
//! let counted = calls.clone();
//! let server = Server::builder("demo", "1")
//!     .middleware(move |method: String, params: Option<serde_json::Value>, _ctx, next: Next| {
//!         let counted = counted.clone();
//!         async move {
//!             counted.fetch_add(1, Ordering::Relaxed);
//!             if method == "tools/call" && params.as_ref().is_some_and(|p| p["name"] == "secret") {
//!                 return Err(ErrorObject::new(-32001, "not for you"));
//!             }
//!             next.run(params).await
//!         }
//!     })
//!     .tool(Tool::new("hi", "", json!({"type": "object"})), |_, _| async { Ok(CallToolResult::text("hi")) })
//!     .build()
//!     .unwrap();
//! # drop(server);
//! # }
//! ```

use std::future::Future;

use futures::future::BoxFuture;
use serde_json::Value;

use super::context::RequestContext;
use super::next::{Next, Reply};

/// Code around requests; see the module docs.
pub trait Middleware: Send + Sync + 'static {
    /// Handles the `method` request with `params`: calls `next` to go on, or answers itself.
    fn handle(&self, method: String, params: Option<Value>, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply>;
}

impl<F, Fut> Middleware for F
where
    F: Fn(String, Option<Value>, RequestContext, Next) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Reply> + Send + 'static,
{
    fn handle(&self, method: String, params: Option<Value>, ctx: RequestContext, next: Next) -> BoxFuture<'static, Reply> {
        Box::pin(self(method, params, ctx, next))
    }
}
