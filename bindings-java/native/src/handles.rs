//! Registries that turn Rust objects into the `long` handles Java holds. A handle that
//! was freed (or never existed) is simply not found: a stale or doubly-closed Java object
//! can never reach freed memory.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};

use oxmcp::{Error, ErrorKind};
use tokio_util::sync::CancellationToken;

use crate::{jvm, runtime};

static NEXT: AtomicI64 = AtomicI64::new(1);

/// Objects by handle.
pub struct Registry<T> {
    map: Mutex<Option<HashMap<i64, Arc<T>>>>,
}

impl<T> Registry<T> {
    /// An empty registry (usable in a `static`).
    pub const fn new() -> Self {
        Self { map: Mutex::new(None) }
    }

    /// Stores `value` (or an object already shared); returns its handle (never 0).
    pub fn insert(&self, value: impl Into<Arc<T>>) -> i64 {
        let id = NEXT.fetch_add(1, Ordering::Relaxed);
        self.map.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new).insert(id, value.into());
        id
    }

    /// The object behind `handle`, if it is still registered.
    pub fn get(&self, handle: i64) -> Option<Arc<T>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).as_ref().and_then(|m| m.get(&handle).cloned())
    }

    /// Unregisters `handle`; returns the object if it was there.
    pub fn remove(&self, handle: i64) -> Option<Arc<T>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).as_mut().and_then(|m| m.remove(&handle))
    }

    /// Unregisters everything; returns the objects.
    pub fn drain(&self) -> Vec<Arc<T>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).take().map(|m| m.into_values().collect()).unwrap_or_default()
    }

    /// How many objects are registered.
    pub fn len(&self) -> usize {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).as_ref().map_or(0, |m| m.len())
    }
}

/// What a finished asynchronous call hands to Java: JSON (or null) and a handle (or 0).
pub struct Done {
    pub json: Option<String>,
    pub handle: i64,
}

impl Done {
    pub fn json(text: String) -> Self {
        Self { json: Some(text), handle: 0 }
    }
    pub fn empty() -> Self {
        Self { json: None, handle: 0 }
    }
}

/// Cancellation tokens of running asynchronous calls, keyed by the Java call id.
static CALLS: Mutex<Option<HashMap<i64, CancellationToken>>> = Mutex::new(None);

fn calls<R>(f: impl FnOnce(&mut HashMap<i64, CancellationToken>) -> R) -> R {
    f(CALLS.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(HashMap::new))
}

/// Runs `fut` on the runtime for the Java future `call_id`, completing it through
/// `Native.onSuccess` / `Native.onFailure` exactly once. [`cancel_call`] drops `fut`
/// (for a client request the engine then sends `notifications/cancelled`).
pub fn spawn_call<F>(call_id: i64, fut: F)
where
    F: Future<Output = oxmcp::Result<Done>> + Send + 'static,
{
    let token = CancellationToken::new();
    calls(|m| m.insert(call_id, token.clone()));
    let spawned = runtime::spawn(async move {
        let outcome = tokio::select! {
            biased;
            _ = token.cancelled() => Err(Error::new(ErrorKind::Cancelled, "the call was cancelled")),
            r = fut => r,
        };
        calls(|m| m.remove(&call_id));
        match outcome {
            Ok(done) => jvm::on_success(call_id, done.json.as_deref(), done.handle),
            Err(e) => jvm::on_failure(call_id, &e),
        }
    });
    if !spawned {
        calls(|m| m.remove(&call_id));
        jvm::on_failure(call_id, &Error::new(ErrorKind::Closed, "the oxmcp runtime is shut down"));
    }
}

/// Cancels the call `call_id` if it is still running.
pub fn cancel_call(call_id: i64) {
    if let Some(token) = calls(|m| m.remove(&call_id)) {
        token.cancel();
    }
}

/// How many asynchronous calls are running (for leak checks in tests).
pub fn running_calls() -> usize {
    calls(|m| m.len())
}
