//! The one error taxonomy, mapped both ways: every `oxmcp::ErrorKind` to its Python
//! exception class (defined in `oxmcp/_errors.py`, so they can also derive from
//! `TimeoutError`, `ConnectionError`, `ValueError`), and Python exceptions raised by
//! handlers back to engine errors.

use oxmcp::{Error, ErrorKind};
use pyo3::prelude::*;

/// The Python class for each kind. A new kind does not compile until it is mapped here.
fn class_name(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Rpc => "McpError",
        ErrorKind::Timeout => "RequestTimeout",
        ErrorKind::Cancelled => "RequestCancelled",
        ErrorKind::Closed => "ConnectionClosed",
        ErrorKind::Transport => "TransportError",
        ErrorKind::Protocol => "ProtocolError",
        ErrorKind::InvalidInput => "InvalidInput",
        ErrorKind::CapabilityMissing => "CapabilityMissing",
        ErrorKind::Handler => "HandlerError",
        ErrorKind::Unauthorized => "Unauthorized",
    }
}

/// An engine error as a Python exception, keeping the JSON-RPC code and data.
pub fn to_py(py: Python<'_>, e: &Error) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let module = py.import("oxmcp._errors")?;
        let data = e.rpc().and_then(|r| r.data.as_ref()).map(|d| d.to_string());
        let exc = module.call_method1("_from_native", (class_name(e.kind()), e.code(), e.detail(), data))?;
        Ok(PyErr::from_value(exc))
    };
    build().unwrap_or_else(|import_failed| import_failed)
}

/// Raises `e` in Python (for use in `map_err`).
pub fn raise(e: Error) -> PyErr {
    Python::attach(|py| to_py(py, &e))
}

/// A Python exception from a handler as an engine error: `McpError` with a code controls
/// the JSON-RPC error exactly; anything else is a handler failure with its message.
pub fn from_py(py: Python<'_>, err: &PyErr) -> Error {
    let value = err.value(py);
    // `McpError` with a code encodes itself once (`_to_native`); the engine reads it by its
    // one rule for a host's failure.
    let rpc = (|| -> PyResult<Option<String>> {
        let module = py.import("oxmcp._errors")?;
        let encoded = module.call_method1("_to_native", (value,))?;
        if encoded.is_none() {
            return Ok(None);
        }
        Ok(Some(encoded.extract()?))
    })();
    match rpc {
        Ok(Some(text)) => oxmcp::host::failure::from_json(&text),
        _ => {
            let type_name = value.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "Exception".into());
            let text = value.str().map(|s| s.to_string()).unwrap_or_default();
            // The message alone, as every host sends it (the type's name when there is none).
            let message = if text.is_empty() { type_name } else { text };
            Error::new(ErrorKind::Handler, message)
        }
    }
}
