//! The OTLP/HTTP exporter (protobuf), configured by the standard `OTEL_*` variables or by
//! code. Spans go out in batches and metrics periodically, each from a thread of the
//! OpenTelemetry SDK's own, so no export ever waits on a session's runtime.

use std::time::Duration;

use opentelemetry::global;
use opentelemetry_otlp::{MetricExporter, SpanExporter, WithExportConfig};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;

use crate::error::{Error, ErrorKind, Result};

/// Exporting telemetry: while this value lives, the engine's spans and metrics go to an
/// OTLP/HTTP endpoint (Jaeger, an OpenTelemetry Collector, Prometheus' OTLP receiver...).
/// Dropping it flushes what is batched and stops the export.
///
/// ```no_run
/// let telemetry = oxmcp::telemetry::Telemetry::otlp("http://127.0.0.1:4318", "my-server")?;
/// assert!(oxmcp::telemetry::is_enabled());
/// drop(telemetry); // flushed
/// # Ok::<(), oxmcp::Error>(())
/// ```
pub struct Telemetry {
    traces: Option<SdkTracerProvider>,
    metrics: Option<SdkMeterProvider>,
}

impl std::fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Telemetry").field("traces", &self.traces.is_some()).field("metrics", &self.metrics.is_some()).finish()
    }
}

fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().map(|v| v.trim().to_owned()).filter(|v| !v.is_empty())
}

fn refused(what: impl std::fmt::Display) -> Error {
    Error::new(ErrorKind::InvalidInput, format!("telemetry: {what}"))
}

impl Telemetry {
    /// Turns telemetry on as the standard variables say, or returns `None` when they leave it
    /// off: on when `OTEL_EXPORTER_OTLP_ENDPOINT` (or a signal's own
    /// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `..._METRICS_ENDPOINT`) is set and
    /// `OTEL_SDK_DISABLED` is not `true`; `OTEL_TRACES_EXPORTER=none` or
    /// `OTEL_METRICS_EXPORTER=none` leaves a signal out; `OTEL_SERVICE_NAME` (else
    /// `service_name`), `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_EXPORTER_OTLP_HEADERS`,
    /// `OTEL_BSP_SCHEDULE_DELAY` and `OTEL_METRIC_EXPORT_INTERVAL` are honoured. Only
    /// `http/protobuf` is spoken: another `OTEL_EXPORTER_OTLP_PROTOCOL` is an error.
    pub fn from_env(service_name: &str) -> Result<Option<Telemetry>> {
        if env("OTEL_SDK_DISABLED").is_some_and(|v| v.eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let any = |signal: &str| {
            env("OTEL_EXPORTER_OTLP_ENDPOINT").is_some() || env(&format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")).is_some()
        };
        let wanted = |signal: &str| any(signal) && env(&format!("OTEL_{signal}_EXPORTER")).is_none_or(|v| v != "none");
        let (traces, metrics) = (wanted("TRACES"), wanted("METRICS"));
        if !traces && !metrics {
            return Ok(None);
        }
        if let Some(protocol) = env("OTEL_EXPORTER_OTLP_PROTOCOL").filter(|p| p != "http/protobuf") {
            return Err(refused(format!("OTEL_EXPORTER_OTLP_PROTOCOL={protocol} is not supported; use http/protobuf")));
        }
        Self::start(None, service_name, traces, metrics).map(Some)
    }

    /// Turns telemetry on, exporting to `endpoint` (the base URL: `/v1/traces` and
    /// `/v1/metrics` are added), whatever the variables say.
    pub fn otlp(endpoint: &str, service_name: &str) -> Result<Telemetry> {
        let base = endpoint.trim_end_matches('/');
        if !(base.starts_with("http://") || base.starts_with("https://")) {
            return Err(refused(format!("the OTLP endpoint must be an http(s) URL, not {endpoint:?}")));
        }
        Self::start(Some(base), service_name, true, true)
    }

    fn start(endpoint: Option<&str>, service_name: &str, traces: bool, metrics: bool) -> Result<Telemetry> {
        let mut resource = Resource::builder();
        if env("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name(service_name.to_owned());
        }
        let resource = resource.build();
        let traces = match traces {
            false => None,
            true => {
                let mut exporter = SpanExporter::builder().with_http();
                if let Some(base) = endpoint {
                    exporter = exporter.with_endpoint(format!("{base}/v1/traces"));
                }
                let exporter = exporter.build().map_err(refused)?;
                Some(SdkTracerProvider::builder().with_batch_exporter(exporter).with_resource(resource.clone()).build())
            }
        };
        let metrics = match metrics {
            false => None,
            true => {
                let mut exporter = MetricExporter::builder().with_http();
                if let Some(base) = endpoint {
                    exporter = exporter.with_endpoint(format!("{base}/v1/metrics"));
                }
                let exporter = exporter.build().map_err(refused)?;
                Some(SdkMeterProvider::builder().with_periodic_exporter(exporter).with_resource(resource).build())
            }
        };
        if let Some(p) = &traces {
            global::set_tracer_provider(p.clone());
        }
        if let Some(p) = &metrics {
            global::set_meter_provider(p.clone());
        }
        super::use_global_providers();
        Ok(Telemetry { traces, metrics })
    }

    /// Sends what is batched now (a short-lived command calls it before it exits).
    pub fn flush(&self) {
        if let Some(p) = &self.traces {
            let _ = p.force_flush();
        }
        if let Some(p) = &self.metrics {
            let _ = p.force_flush();
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        super::disable();
        if let Some(p) = self.traces.take() {
            let _ = p.shutdown_with_timeout(Duration::from_secs(5));
        }
        if let Some(p) = self.metrics.take() {
            let _ = p.shutdown_with_timeout(Duration::from_secs(5));
        }
    }
}

/// The process's own export, for hosts that have no `main` of ours (Python, Node, the JVM,
/// C, .NET): started from the variables by the first host runtime, flushed when one stops.
static PROCESS: std::sync::Mutex<Option<Telemetry>> = std::sync::Mutex::new(None);

/// Starts the process's export as [`Telemetry::from_env`] says, once; a bad setting is
/// logged, never fatal to the host.
pub fn start_from_env_once(service_name: &str) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| match Telemetry::from_env(service_name) {
        Ok(started) => *PROCESS.lock().unwrap_or_else(|e| e.into_inner()) = started,
        Err(e) => tracing::warn!("{e}"),
    });
}

/// Sends what the process's export has batched (a host runtime stopping).
pub fn flush_process() {
    if let Some(t) = PROCESS.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
        t.flush();
    }
}
