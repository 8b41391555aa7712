//! Shared support: a served example, and SQL reads of its tables.
