//! Engine errors crossing into JavaScript, by their kind's stable name and number
//! ([`ErrorKind::name`], [`ErrorKind::code`]), never by a message encoding. A thrown or
//! rejected engine error is a JS `Error` with its message, `code` (the kind's name, e.g.
//! `"invalid_input"`), `kindCode` (the kind's number), `rpcCode` (the JSON-RPC code or
//! `null`) and `data`; in an event the same fields travel as a JSON object. The JS layer
//! picks the `McpError` subclass by the name. Errors a JS handler throws come back as
//! `{"code", "message", "data"}`.

use std::future::Future;

use napi::bindgen_prelude::{JsObjectValue, PromiseRaw, ToNapiValue};
use napi::{Env, JsValue};
use napi_derive::napi;
use oxmcp::{Error, ErrorKind};
use serde_json::json;

/// An engine error as JSON text for an event.
pub fn to_json(e: &Error) -> String {
    json!({
        "code": e.kind().name(),
        "kindCode": e.kind().code(),
        "rpcCode": e.code(),
        "message": e.detail(),
        "data": e.rpc().and_then(|r| r.data.clone()),
    })
    .to_string()
}

/// An engine error as the JS error to throw or reject with (JS thread only).
pub fn to_js(env: &Env, e: &Error) -> napi::Error {
    let build = || -> napi::Result<napi::Error> {
        let mut js = env.create_error(napi::Error::from_reason(e.detail()))?;
        js.set_named_property("code", e.kind().name())?;
        js.set_named_property("kindCode", e.kind().code())?;
        js.set_named_property("rpcCode", e.code())?;
        js.set_named_property("data", e.rpc().and_then(|r| r.data.clone()))?;
        Ok(napi::Error::from(js.to_unknown()))
    };
    // Building fails only while the environment shuts down; the napi error says why.
    build().unwrap_or_else(|failure| failure)
}

/// Bad input from JavaScript, as [`to_js`] throws it.
pub fn invalid(env: &Env, message: impl Into<String>) -> napi::Error {
    to_js(env, &Error::new(ErrorKind::InvalidInput, message))
}

/// Runs `work` on the engine's runtime as a Promise; an engine error rejects it as
/// [`to_js`] builds it (which needs the JS thread, where the promise settles).
pub fn promise<'env, T>(
    env: &'env Env,
    work: impl Future<Output = oxmcp::Result<T>> + Send + 'static,
) -> napi::Result<PromiseRaw<'env, T>>
where
    T: ToNapiValue + Send + 'static,
{
    env.spawn_future_with_callback(async move { Ok(work.await) }, |env, outcome| outcome.map_err(|e| to_js(env, &e)))
}

/// What a JS handler threw (`{"code"?, "message", "data"?}`) as an engine error, by the
/// engine's one rule for a host's failure ([`oxmcp::host::failure`]).
pub fn from_js(text: &str) -> Error {
    oxmcp::host::failure::from_json(text)
}

/// One engine error kind, as [`error_kinds`] lists it.
#[napi(object)]
pub struct ErrorKindEntry {
    /// The kind's stable number.
    pub code: u32,
    /// The kind's stable name.
    pub name: String,
}

/// Every engine error kind the addon can report, so the JS layer's mapping can be
/// checked against the engine's (test/errors.test.mjs).
#[napi]
pub fn error_kinds() -> Vec<ErrorKindEntry> {
    ErrorKind::ALL.iter().map(|k| ErrorKindEntry { code: k.code(), name: k.name().to_string() }).collect()
}
