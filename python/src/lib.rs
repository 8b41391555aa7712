//! `wsite._wsite`: the Rust half of the Python package (`python/wsite/` is
//! the other). It opens sites ([`sites`]) and runs batches of environments
//! over the runtime's JIT or interpreter ([`batch`]), whose buffers numpy
//! views in place; the Gymnasium classes are written in Python on top.
//! INTERFACES.md, "Python", is the contract.

mod batch;
mod errors;
mod sites;

use pyo3::prelude::*;

/// The names of every task instance of the site at `path`.
#[pyfunction]
fn instances(path: &str) -> PyResult<Vec<String>> {
    let site = sites::open(path).map_err(errors::site_error)?;
    Ok(site.instances.iter().map(|i| i.name.clone()).collect())
}

#[pymodule]
fn _wsite(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<batch::Batch>()?;
    m.add_function(wrap_pyfunction!(instances, m)?)?;
    m.add("SiteError", m.py().get_type::<errors::SiteError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
