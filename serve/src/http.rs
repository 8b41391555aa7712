//! axum in front of [`App::handle`]: one handler for every route, the body
//! capped, the work done on the blocking pool (SQLite and the interpreter
//! are synchronous), and the cookie set for new sessions.

use crate::app::{App, Method, Request, Response, COOKIE};
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, HeaderValue, Method as HttpMethod, StatusCode, Uri};
use axum::response::IntoResponse;
use axum::Router;
use std::net::SocketAddr;
use std::sync::Arc;

/// The largest request body taken, in bytes.
pub const MAX_BODY: usize = 64 * 1024;

/// The router serving `app`.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .fallback(handle)
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(app)
}

async fn handle(
    State(app): State<Arc<App>>,
    method: HttpMethod,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    let request = Request {
        method: match method {
            HttpMethod::GET => Method::Get,
            HttpMethod::HEAD => Method::Head,
            HttpMethod::POST => Method::Post,
            _ => Method::Other,
        },
        path: uri.path().to_string(),
        session: cookie(&headers, COOKIE),
        json: headers
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("application/json")),
        body: body.to_vec(),
    };
    let answered = tokio::task::spawn_blocking(move || app.handle(&request)).await;
    match answered {
        Ok(response) => into_http(response),
        Err(_) => (StatusCode::INTERNAL_SERVER_ERROR, "the request failed").into_response(),
    }
}

fn into_http(r: Response) -> axum::response::Response {
    let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, r.body).into_response();
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(r.content_type),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    if let Some(location) = r.location.and_then(|l| HeaderValue::from_str(&l).ok()) {
        headers.insert(header::LOCATION, location);
    }
    if let Some(id) = r.new_session {
        let cookie = format!("{COOKIE}={id}; Path=/; HttpOnly; SameSite=Lax");
        if let Ok(v) = HeaderValue::from_str(&cookie) {
            headers.insert(header::SET_COOKIE, v);
        }
    }
    response
}

/// The value of cookie `name`, if sent.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.to_string())
}

/// Serves `app` on `addr` until Ctrl-C; `ready` is told the bound address
/// (port 0 picks a free one).
pub fn serve(
    app: Arc<App>,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        ready(listener.local_addr()?);
        axum::serve(listener, router(app))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
    })
}
