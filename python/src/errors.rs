//! The Python exceptions the binding raises. Every failure is an exception
//! with a sentence saying what was wrong; nothing aborts the interpreter.

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::PyErr;

pyo3::create_exception!(
    _wsite,
    SiteError,
    PyValueError,
    "A site that cannot be opened: unreadable, not a site, or with errors (the diagnostics are in the message)."
);

/// A bad argument or action (`message`: a sentence, or an error whose
/// message is one).
pub fn bad_argument(message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// A site that cannot be opened.
pub fn site_error(message: String) -> PyErr {
    SiteError::new_err(message)
}

/// A batch whose lock was poisoned by a crash in an earlier call.
pub fn lock_failed() -> PyErr {
    PyRuntimeError::new_err("this environment is unusable after an internal error; make a new one")
}
