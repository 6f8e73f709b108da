//! Python values as JSON text (a handler's result, a request's params), written here for
//! the plain types (dicts, lists, tuples, str, int, float, bool, None) instead of by
//! `json.dumps` on the event loop: the same JSON for the same value, at a fraction of the
//! cost. Anything else (a subclass, a
//! non-str key, a lone surrogate, a NaN, very deep nesting) goes to `json.dumps`, so what
//! was valid before stays valid and what raised before raises the same way.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// Deeper than this, `json.dumps` decides (it raises `RecursionError` where Python would).
const MAX_DEPTH: usize = 256;

/// `value` as compact JSON text with non-ASCII kept as is (`json.dumps(value,
/// ensure_ascii=False, allow_nan=False)`, without the spaces).
pub fn to_text(py: Python<'_>, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let mut out = Vec::with_capacity(128);
    if write(value, &mut out, 0).is_some() {
        // Only str's UTF-8 and ASCII went in.
        return String::from_utf8(out).map_err(|e| PyValueError::new_err(e.to_string()));
    }
    static DUMPS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let dumps = DUMPS.get_or_try_init(py, || py.import("json")?.getattr("dumps").map(Bound::unbind))?;
    let kwargs = PyDict::new(py);
    kwargs.set_item("ensure_ascii", false)?;
    kwargs.set_item("allow_nan", false)?;
    let text = dumps.bind(py).call((value,), Some(&kwargs))?;
    text.extract::<String>().map_err(|e| PyValueError::new_err(format!("the result is not JSON text: {e}")))
}

/// Appends `value`; `None` when it is not one of the plain types (the caller falls back).
fn write(value: &Bound<'_, PyAny>, out: &mut Vec<u8>, depth: usize) -> Option<()> {
    if depth > MAX_DEPTH {
        return None;
    }
    // Exact types only: a subclass may serialize differently (an IntEnum, a str enum).
    if let Ok(s) = value.cast_exact::<PyString>() {
        return write_str(s, out);
    }
    if value.is_none() {
        out.extend_from_slice(b"null");
    } else if let Ok(b) = value.cast_exact::<PyBool>() {
        out.extend_from_slice(if b.is_true() { b"true" } else { b"false" });
    } else if value.is_exact_instance_of::<PyInt>() {
        match value.extract::<i64>() {
            Ok(n) => out.extend_from_slice(n.to_string().as_bytes()),
            // Beyond 64 bits: Python's own digits.
            Err(_) => out.extend_from_slice(value.str().ok()?.to_cow().ok()?.as_bytes()),
        }
    } else if let Ok(f) = value.cast_exact::<PyFloat>() {
        let n = serde_json::Number::from_f64(f.value())?; // NaN and infinities are not JSON
        out.extend_from_slice(n.to_string().as_bytes());
    } else if let Ok(d) = value.cast_exact::<PyDict>() {
        out.push(b'{');
        for (i, (k, v)) in d.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            write_str(k.cast_exact::<PyString>().ok()?, out)?;
            out.push(b':');
            write(&v, out, depth + 1)?;
        }
        out.push(b'}');
    } else if let Ok(l) = value.cast_exact::<PyList>() {
        write_array(l.iter(), out, depth)?;
    } else if let Ok(t) = value.cast_exact::<PyTuple>() {
        write_array(t.iter(), out, depth)?;
    } else {
        return None;
    }
    Some(())
}

fn write_array<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>, out: &mut Vec<u8>, depth: usize) -> Option<()> {
    out.push(b'[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write(&item, out, depth + 1)?;
    }
    out.push(b']');
    Some(())
}

fn write_str(s: &Bound<'_, PyString>, out: &mut Vec<u8>) -> Option<()> {
    let text = s.to_cow().ok()?; // a lone surrogate is not UTF-8
                                 // serde_json escapes what JSON requires and keeps the rest, as ensure_ascii=False does.
    serde_json::to_writer(&mut *out, &*text).ok()
}
