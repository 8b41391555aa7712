//! `wsitec serve`: a verified site as a real web application (INTERFACES
//! "`wsitec serve`").
//!
//! - `episode`: what a browser request does to an episode — links, forms and
//!   answers as the simulator's steps (§5.3), hostile requests refused whole;
//! - `html`: the page as semantic HTML, from the same rendered page the agent
//!   observes (`Env::page`), with `data-wsite-key` on every element;
//! - `store` and `values`: each session's episode in SQLite, site tables as
//!   real SQL tables, every step committed in one transaction;
//! - `app`: routes, sessions (cookies), control endpoints
//!   (`/_wsite/reset`, `/_wsite/state`, `/_wsite/answer`), error pages;
//! - `http`: axum in front of `app`.

mod app;
mod episode;
mod html;
mod http;
mod store;
pub mod values;

pub use app::{form_token, App, Method, Options, Request, Response, ServeError, COOKIE};
pub use episode::{Refusal, BROWSE, MAX_FIELD};
pub use html::{decode_path, encode_path};
pub use http::{router, serve, MAX_BODY};
pub use store::{Meta, Store, StoreError, Stored};
