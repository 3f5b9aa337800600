//! `GrepRequest` and `GlobRequest`: the engine's requests (`crate::request`) as frozen
//! Python objects, converted from keyword arguments and checked by the engine when made.

use crate::error::Error;
use crate::request::{GlobRequest as GlobRequestOf, GrepRequest as Request};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Number, Value};
use std::path::PathBuf;

/// A Python class `$class` holding the engine's request `$request` (`$what`: its name in
/// messages); both requests are made, checked and shown the same way.
macro_rules! request_class {
    ($class:ident, $request:ty, $what:literal) => {
        #[pyclass(frozen, module = "codesift._core")]
        pub struct $class {
            pub request: $request,
        }

        #[pymethods]
        impl $class {
            /// `search_path` (workspace-relative) and the options of the engine's request
            /// (`crate::request`) by name; a value the engine does not allow is an
            /// `InvalidArgumentError` here.
            #[new]
            #[pyo3(signature = (search_path, **options))]
            fn new(search_path: PathBuf, options: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
                let mut request: $request = request_of($what, options)?;
                request.search_path = search_path;
                request.query()?;
                Ok($class { request })
            }

            /// Every option by name, as the engine holds it (defaults filled in).
            #[getter]
            fn options<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
                options_of(py, $what, &self.request)
            }
        }
    };
}

request_class!(GrepRequest, Request, "grep");
request_class!(GlobRequest, GlobRequestOf, "glob");

/// A request of the engine's made from keyword arguments (`what`: its name in messages).
fn request_of<T: DeserializeOwned>(what: &str, options: Option<&Bound<'_, PyDict>>) -> PyResult<T> {
    let value = match options {
        Some(options) => to_value(what, options.as_any())?,
        None => Value::Object(Map::new()),
    };
    Ok(serde_json::from_value(value)
        .map_err(|e| Error::InvalidArgument(format!("{what} request: {e}")))?)
}

fn options_of<'py>(
    py: Python<'py>,
    what: &str,
    request: &impl Serialize,
) -> PyResult<Bound<'py, PyAny>> {
    let value =
        serde_json::to_value(request).map_err(|e| Error::Io(format!("{what} request: {e}")))?;
    from_value(py, &value)
}

/// A Python value (None, bool, int, float, str, list, tuple, dict with str keys) as JSON;
/// a float JSON has no number for is named ("inf", "nan") for the engine to refuse.
fn to_value(what: &str, obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    Ok(if obj.is_none() {
        Value::Null
    } else if let Ok(b) = obj.cast::<PyBool>() {
        Value::Bool(b.is_true())
    } else if obj.is_instance_of::<PyInt>() {
        match obj.extract::<i64>() {
            Ok(n) => Value::from(n),
            Err(_) => Value::from(obj.extract::<u64>()?),
        }
    } else if let Ok(f) = obj.cast::<PyFloat>() {
        let f = f.value();
        Number::from_f64(f).map_or_else(|| Value::String(f.to_string()), Value::Number)
    } else if let Ok(s) = obj.cast::<PyString>() {
        Value::String(s.to_str()?.to_owned())
    } else if let Ok(d) = obj.cast::<PyDict>() {
        let mut map = Map::new();
        for (k, v) in d.iter() {
            map.insert(k.extract::<String>()?, to_value(what, &v)?);
        }
        Value::Object(map)
    } else if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        Value::Array(
            obj.try_iter()?
                .map(|item| to_value(what, &item?))
                .collect::<PyResult<_>>()?,
        )
    } else {
        return Err(Error::InvalidArgument(format!(
            "{what} request: a {} is not a value of a request",
            obj.get_type().name()?
        ))
        .into());
    })
}

fn from_value<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (_, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let items = items
                .iter()
                .map(|item| from_value(py, item))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any()
        }
        Value::Object(map) => {
            let d = PyDict::new(py);
            for (k, v) in map {
                d.set_item(k, from_value(py, v)?)?;
            }
            d.into_any()
        }
    })
}
