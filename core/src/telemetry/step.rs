//! Spans for work a request waits on or starts inside the engine: a shared store's round
//! trip, an OAuth token refresh, a task's life. Recorded only under a request's span (work
//! nobody waits on, such as a store's background listener, would be a root span of its own
//! per call: noise).

use opentelemetry::trace::{SpanKind, Status, TraceContextExt, Tracer};
use opentelemetry::{global, Context, KeyValue};

#[cfg(feature = "http")]
use super::instruments;

/// One step's span, ended by [`Step::end`] (or as succeeded when dropped).
pub(crate) struct Step {
    cx: Context,
    ended: bool,
}

impl Step {
    /// A call to a store (`system`: `redis`), named by its command, as the database
    /// conventions say (`db.system.name`, `db.operation.name`).
    #[cfg(feature = "http")]
    pub(crate) fn store_call(system: &'static str, operation: &'static str) -> Option<Step> {
        let attributes = vec![KeyValue::new("db.system.name", system), KeyValue::new("db.operation.name", operation)];
        Step::start(operation, SpanKind::Client, attributes)
    }

    /// An internal step, such as `oauth token refresh` or `task`.
    pub(crate) fn internal(name: &'static str, attributes: Vec<KeyValue>) -> Option<Step> {
        Step::start(name, SpanKind::Internal, attributes)
    }

    fn start(name: &'static str, kind: SpanKind, attributes: Vec<KeyValue>) -> Option<Step> {
        if !super::is_enabled() || !Context::map_current(|cx| cx.has_active_span()) {
            return None;
        }
        let parent = Context::current();
        let tracer = global::tracer(super::SCOPE);
        let span = tracer.span_builder(name).with_kind(kind).with_attributes(attributes).start_with_context(&tracer, &parent);
        Some(Step { cx: parent.with_span(span), ended: false })
    }

    /// The step's context: what runs in it is its child.
    pub(crate) fn context(&self) -> &Context {
        &self.cx
    }

    /// Adds an attribute learned as the step went (a task's final status).
    pub(crate) fn set_attribute(&self, attribute: KeyValue) {
        self.cx.span().set_attribute(attribute);
    }

    /// Ends the span: `Err(kind, message)` marks it failed with `error.type` = `kind`.
    pub(crate) fn end(mut self, outcome: Result<(), (&str, &str)>) {
        self.ended = true;
        let span = self.cx.span();
        if let Err((kind, message)) = outcome {
            span.set_attribute(KeyValue::new("error.type", kind.to_owned()));
            span.set_status(Status::error(message.to_owned()));
        }
        span.end();
    }
}

impl Drop for Step {
    fn drop(&mut self) {
        if !self.ended {
            self.cx.span().end();
        }
    }
}

/// Counts a failed store call (`oxmcp.store.errors`, by `db.operation.name`), whether or
/// not a request waited on it.
#[cfg(feature = "http")]
pub(crate) fn count_store_error(operation: &'static str) {
    if let Some(i) = instruments::get() {
        i.store_errors.add(1, &[KeyValue::new("db.operation.name", operation)]);
    }
}
