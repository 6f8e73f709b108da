//! The native half of the `oxmcp` Python package (`oxmcp._oxmcp`): a translation layer
//! between Python objects and the oxmcp engine. JSON text crosses the boundary; the
//! Python layer (`python/oxmcp/`) builds schemas, converts values and offers the API.
//! No protocol logic lives here.

mod bridge;
mod client;
mod errors;
mod event_loop;
mod http_app;
mod json_text;
mod runtime;
mod server;

use pyo3::prelude::*;

/// Stops the runtime's threads; the package calls it at interpreter exit.
#[pyfunction]
fn _shutdown(py: Python<'_>) {
    py.detach(runtime::shutdown);
}

/// Validates `instance_json` against `schema_json` with the engine's validator; returns
/// the problems, or `None` when valid (the same engine checks tool arguments).
#[pyfunction]
fn validate_json(schema_json: &str, instance_json: &str) -> PyResult<Option<String>> {
    let bad = |e: serde_json::Error| errors::raise(oxmcp::Error::new(oxmcp::ErrorKind::InvalidInput, e.to_string()));
    let schema = oxmcp::schema::Schema::compile(&serde_json::from_str(schema_json).map_err(bad)?).map_err(errors::raise)?;
    Ok(schema.validate(&serde_json::from_str(instance_json).map_err(bad)?).err())
}

/// `value` as compact JSON text (`json.dumps(value, ensure_ascii=False, allow_nan=False)`
/// without the spaces), written here for plain values; see `json_text`.
#[pyfunction]
fn to_json(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    json_text::to_text(py, value)
}

#[pymodule]
fn _oxmcp(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<server::NativeServer>()?;
    m.add_class::<server::NativeContext>()?;
    m.add_class::<client::NativeClient>()?;
    m.add_class::<http_app::NativeHttpApp>()?;
    m.add_class::<http_app::NativeHttpBody>()?;
    m.add_function(wrap_pyfunction!(_shutdown, m)?)?;
    m.add_function(wrap_pyfunction!(validate_json, m)?)?;
    m.add_function(wrap_pyfunction!(to_json, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
