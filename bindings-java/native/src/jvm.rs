//! Calling into Java: every call from Rust goes through one static method of
//! `dev.oxmcp.Native` (the class is cached at `Native.init()`), so Rust only ever passes
//! longs, doubles and strings; Java keeps the registries of futures, handlers and
//! listeners, keyed by the ids passed here.
//!
//! Threads of the runtime attach as daemon threads (see [`crate::runtime`]).

use std::cell::Cell;
use std::ffi::c_void;
use std::sync::OnceLock;

use jni::objects::{JClass, JObject, JString, JValue};
use jni::refs::Global;
use jni::strings::JNIString;
use jni::{jni_sig, jni_str, sys, Env, EnvUnowned, JavaVM};

use oxmcp::{Error, ErrorKind};

/// `dev.oxmcp.Native`, looked up once on a Java thread (runtime threads may not see the
/// application's class loader).
static NATIVE_CLASS: OnceLock<Global<JClass<'static>>> = OnceLock::new();

thread_local! {
    /// Whether this thread attached itself (as a daemon) and so must detach when it stops.
    static ATTACHED_HERE: Cell<bool> = const { Cell::new(false) };
}

/// Caches the `Native` class (called from `Native.init()`, on a Java thread).
pub fn init(env: &mut Env<'_>) -> jni::errors::Result<()> {
    if NATIVE_CLASS.get().is_none() {
        let class = env.find_class(jni_str!("dev/oxmcp/Native"))?;
        let global = env.new_global_ref(class)?;
        let _ = NATIVE_CLASS.set(global);
    }
    Ok(())
}

/// Attaches this (native) thread as a daemon thread, unless it is attached already.
fn attach_daemon(vm: &JavaVM) {
    if matches!(vm.is_thread_attached(), Ok(true)) {
        return;
    }
    let raw = vm.get_raw();
    let mut env: *mut c_void = std::ptr::null_mut();
    let mut args =
        sys::JavaVMAttachArgs { version: sys::JNI_VERSION_1_8, name: c"oxmcp".as_ptr() as *mut _, group: std::ptr::null_mut() };
    // Safety: `raw` is the live JavaVM; AttachCurrentThreadAsDaemon (JNI 1.4) takes an
    // out-pointer for the env and a pointer to attach arguments that outlive the call.
    let status = unsafe { ((**raw).v1_4.AttachCurrentThreadAsDaemon)(raw, &mut env, &mut args as *mut _ as *mut c_void) };
    if status == sys::JNI_OK {
        ATTACHED_HERE.with(|a| a.set(true));
    }
}

/// Detaches the current thread if [`attach_daemon`] attached it (runtime `on_thread_stop`).
pub fn detach_current_thread() {
    if !ATTACHED_HERE.with(|a| a.replace(false)) {
        return;
    }
    if let Ok(vm) = JavaVM::singleton() {
        let raw = vm.get_raw();
        // Safety: this thread attached itself and holds no JNI frames now (the thread is
        // stopping, outside any `with_java` call).
        unsafe {
            ((**raw).v1_1.DetachCurrentThread)(raw);
        }
    }
}

/// Runs `f` with a JNI environment on this thread (attaching it as a daemon if needed).
/// Failures are reported on stderr: there is no Java caller to throw to.
pub fn with_java(what: &str, f: impl FnOnce(&mut Env<'_>, &JClass<'static>) -> jni::errors::Result<()>) {
    let (Ok(vm), Some(class)) = (JavaVM::singleton(), NATIVE_CLASS.get()) else { return };
    attach_daemon(&vm);
    let outcome = vm.attach_current_thread(|env| -> jni::errors::Result<()> { f(env, class) });
    if let Err(e) = outcome {
        eprintln!("oxmcp-java: calling Java ({what}) failed: {e}");
    }
}

/// A Java string for `s` (or null).
pub fn jstring<'l>(env: &mut Env<'l>, s: Option<&str>) -> jni::errors::Result<JObject<'l>> {
    match s {
        Some(s) => Ok(JString::from_str(env, s)?.into()),
        None => Ok(JObject::null()),
    }
}

/// A Rust string from a Java one (`None` for null).
pub fn rstring(env: &Env<'_>, s: &JString<'_>) -> jni::errors::Result<Option<String>> {
    if s.is_null() {
        Ok(None)
    } else {
        s.try_to_string(env).map(Some)
    }
}

/// A Rust string from a Java one (`""` for null).
pub fn req_str(env: &Env<'_>, s: &JString<'_>) -> jni::errors::Result<String> {
    Ok(rstring(env, s)?.unwrap_or_default())
}

/// Runs a native method's body with its JNI environment: the one shape of every entry
/// point. A JNI failure or a panic becomes a Java `RuntimeException` and the method returns
/// `T`'s default (null, 0, false).
pub fn entry<'l, T: Default>(mut env: EnvUnowned<'l>, body: impl FnOnce(&mut Env<'l>) -> jni::errors::Result<T>) -> T {
    env.with_env(body).resolve::<jni::errors::ThrowRuntimeExAndDefault>()
}

/// Runs a native method body that may fail with an engine error; the error is returned to
/// Java as `"kindCode\nmessage"` (null on success), where `McpException.check` throws it.
pub fn sync_result<'l>(
    env: EnvUnowned<'l>,
    f: impl FnOnce(&mut Env<'l>) -> jni::errors::Result<oxmcp::Result<()>>,
) -> JObject<'l> {
    entry(env, |env| match f(env)? {
        Ok(()) => Ok(JObject::null()),
        Err(e) => jstring(env, Some(&encode(&e))),
    })
}

/// An engine error as `"kindCode\nmessage"`, which `McpException.fromNative` reads back.
fn encode(e: &Error) -> String {
    format!("{}\n{}", kind_code(e.kind()), e.detail())
}

/// Throws `error` as a `dev.oxmcp.McpException` of its kind: Java sees it when the native
/// method returns (whatever it returns is then ignored).
pub fn throw(env: &mut Env<'_>, error: &Error) -> jni::errors::Result<()> {
    env.throw_new(jni_str!("dev/oxmcp/McpException"), &*JNIString::from(encode(error)))
}

/// An error kind as it crosses to Java: the core's stable number, which
/// `McpException.Kind.fromCode` reads back (never an enum position).
pub fn kind_code(kind: ErrorKind) -> i32 {
    kind.code() as i32
}

/// `Native.onSuccess(callId, json, handle)`: an asynchronous call succeeded.
pub fn on_success(call_id: i64, json: Option<&str>, handle: i64) {
    with_java("onSuccess", |env, class| {
        let json = jstring(env, json)?;
        env.call_static_method(
            class,
            jni_str!("onSuccess"),
            jni_sig!("(JLjava/lang/String;J)V"),
            &[JValue::Long(call_id), JValue::Object(&json), JValue::Long(handle)],
        )?;
        Ok(())
    });
}

/// `Native.onChunk(callId, bytes)`: an HTTP answer's next chunk (null: the body ended).
pub fn on_chunk(call_id: i64, chunk: Option<&[u8]>) {
    with_java("onChunk", |env, class| {
        let bytes: JObject<'_> = match chunk {
            Some(chunk) => env.byte_array_from_slice(chunk)?.into(),
            None => JObject::null(),
        };
        env.call_static_method(class, jni_str!("onChunk"), jni_sig!("(J[B)V"), &[JValue::Long(call_id), JValue::Object(&bytes)])?;
        Ok(())
    });
}

/// `Native.onFailure(callId, kind, hasCode, code, message, dataJson)`.
pub fn on_failure(call_id: i64, error: &Error) {
    with_java("onFailure", |env, class| {
        let message = jstring(env, Some(&error.detail()))?;
        let data = error.rpc().and_then(|r| r.data.as_ref()).map(|d| d.to_string());
        let data = jstring(env, data.as_deref())?;
        env.call_static_method(
            class,
            jni_str!("onFailure"),
            jni_sig!("(JIZJLjava/lang/String;Ljava/lang/String;)V"),
            &[
                JValue::Long(call_id),
                JValue::Int(kind_code(error.kind())),
                JValue::Bool(error.code().is_some()),
                JValue::Long(error.code().unwrap_or(0)),
                JValue::Object(&message),
                JValue::Object(&data),
            ],
        )?;
        Ok(())
    });
}

/// `Native.onProgress(callId, progress, total (NaN: none), message)`.
pub fn on_progress(call_id: i64, progress: f64, total: Option<f64>, message: Option<&str>) {
    with_java("onProgress", |env, class| {
        let message = jstring(env, message)?;
        env.call_static_method(
            class,
            jni_str!("onProgress"),
            jni_sig!("(JDDLjava/lang/String;)V"),
            &[
                JValue::Long(call_id),
                JValue::Double(progress),
                JValue::Double(total.unwrap_or(f64::NAN)),
                JValue::Object(&message),
            ],
        )?;
        Ok(())
    });
}

/// `Native.onNotification(listenerId, method, paramsJson)`.
pub fn on_notification(listener_id: i64, method: &str, params: &str) {
    with_java("onNotification", |env, class| {
        let method = jstring(env, Some(method))?;
        let params = jstring(env, Some(params))?;
        env.call_static_method(
            class,
            jni_str!("onNotification"),
            jni_sig!("(JLjava/lang/String;Ljava/lang/String;)V"),
            &[JValue::Long(listener_id), JValue::Object(&method), JValue::Object(&params)],
        )?;
        Ok(())
    });
}

/// `Native.onRequest(handlerId, requestHandle, input, method)`: run a host handler on
/// `input` (JSON; `method` names a client handler's request, null for a server's handler);
/// it answers later through `Native.requestComplete` / `requestFail`.
pub fn on_request(handler_id: i64, request: i64, input: &str, method: Option<&str>) -> bool {
    let mut delivered = false;
    with_java("onRequest", |env, class| {
        let input = jstring(env, Some(input))?;
        let method = jstring(env, method)?;
        env.call_static_method(
            class,
            jni_str!("onRequest"),
            jni_sig!("(JJLjava/lang/String;Ljava/lang/String;)V"),
            &[JValue::Long(handler_id), JValue::Long(request), JValue::Object(&input), JValue::Object(&method)],
        )?;
        delivered = true;
        Ok(())
    });
    delivered
}

/// `Native.onCancel(requestHandle)`: the peer cancelled a request a handler works on.
pub fn on_cancel(request: i64) {
    with_java("onCancel", |env, class| {
        env.call_static_method(class, jni_str!("onCancel"), jni_sig!("(J)V"), &[JValue::Long(request)])?;
        Ok(())
    });
}
