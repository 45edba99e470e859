//! Deprecated aliases (spec "Versioning" rule 5): older paths that still answer, with the
//! same handler as the current path, marked `Deprecation: true` plus a
//! `Link: <current>; rel="successor-version"` naming the concrete path to move to.
//!
//! The marking runs outside authentication, rate limiting and idempotency, so every answer
//! an alias gives carries it: a 401, a 429 and an idempotent replay included.

use axum::extract::{MatchedPath, OriginalUri, Request, State};
use axum::http::{HeaderValue, Method};
use axum::middleware::Next;
use axum::response::Response;
use std::sync::Arc;

/// An older path served by the handler of `current`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alias {
    pub method: Method,
    /// The older path template, e.g. `/projects/{project_id}/servers/{server_id}/tools/list`.
    pub old: &'static str,
    /// The path that replaces it, e.g. `/projects/{project_id}/servers/{server_id}/tools`.
    pub current: &'static str,
}

/// The path parameters of a template, in order.
pub fn params(template: &str) -> Vec<&str> {
    template
        .split('/')
        .filter_map(|seg| seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')))
        .collect()
}

/// The concrete successor of a request to an alias: the request's own parameter values
/// (still percent-encoded, as sent) put into `current`, after the prefix the API is mounted
/// at. `None` when the request path does not fit `matched` (it always does when routed).
pub fn successor(matched: &str, requested: &str, alias: &Alias) -> Option<String> {
    let prefix = matched.strip_suffix(alias.old)?;
    let want: Vec<&str> = matched.split('/').collect();
    let got: Vec<&str> = requested.split('/').collect();
    if want.len() != got.len() {
        return None;
    }
    let values: Vec<(&str, &str)> = want
        .iter()
        .zip(&got)
        .filter_map(|(w, g)| {
            w.strip_prefix('{')
                .and_then(|s| s.strip_suffix('}'))
                .map(|name| (name, *g))
        })
        .collect();
    let mut out = String::from(prefix);
    for seg in alias.current.split('/').skip(1) {
        out.push('/');
        match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
            Some(name) => out.push_str(values.iter().find(|(n, _)| *n == name)?.1),
            None => out.push_str(seg),
        }
    }
    Some(out)
}

/// The aliases of an API mounted at `prefix` (`/api/v1`), as the marking layer's state.
#[derive(Debug, Default)]
pub struct Aliases {
    /// `(prefix + old path template, alias)`: what axum's `MatchedPath` reports.
    by_matched: Vec<(String, Alias)>,
}

impl Aliases {
    pub fn new(prefix: &str, aliases: Vec<Alias>) -> Aliases {
        Aliases {
            by_matched: aliases
                .into_iter()
                .map(|a| (format!("{prefix}{}", a.old), a))
                .collect(),
        }
    }
}

/// Marks answers to alias routes; other routes pass untouched.
pub async fn mark(State(aliases): State<Arc<Aliases>>, req: Request, next: Next) -> Response {
    let matched = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| m.as_str().to_string());
    let alias = matched.as_deref().and_then(|m| {
        aliases
            .by_matched
            .iter()
            .find(|(full, a)| full == m && a.method == req.method())
            .map(|(_, a)| a)
    });
    let Some(alias) = alias.cloned() else {
        return next.run(req).await;
    };
    let requested = req
        .extensions()
        .get::<OriginalUri>()
        .map_or_else(|| req.uri().path().to_string(), |u| u.path().to_string());
    let link = successor(matched.as_deref().unwrap_or_default(), &requested, &alias);
    let mut res = next.run(req).await;
    let headers = res.headers_mut();
    headers.insert("deprecation", HeaderValue::from_static("true"));
    if let Some(v) =
        link.and_then(|l| HeaderValue::from_str(&format!("<{l}>; rel=\"successor-version\"")).ok())
    {
        headers.insert(axum::http::header::LINK, v);
    }
    res
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools_list() -> Alias {
        Alias {
            method: Method::POST,
            old: "/projects/{project_id}/servers/{server_id}/tools/list",
            current: "/projects/{project_id}/servers/{server_id}/tools",
        }
    }

    #[test]
    fn the_successor_keeps_the_mount_prefix_and_the_requested_values() {
        let a = tools_list();
        assert_eq!(
            successor(
                "/api/v1/projects/{project_id}/servers/{server_id}/tools/list",
                "/api/v1/projects/p_1/servers/my%20server/tools/list",
                &a,
            )
            .as_deref(),
            Some("/api/v1/projects/p_1/servers/my%20server/tools")
        );
    }

    #[test]
    fn parameters_may_move_between_old_and_current_paths() {
        let a = Alias {
            method: Method::GET,
            old: "/suites/{suite_id}/of/{project_id}",
            current: "/projects/{project_id}/eval-suites/{suite_id}",
        };
        assert_eq!(
            successor("/suites/{suite_id}/of/{project_id}", "/suites/s9/of/p2", &a).as_deref(),
            Some("/projects/p2/eval-suites/s9")
        );
        assert_eq!(params(a.old), vec!["suite_id", "project_id"]);
    }

    #[test]
    fn a_path_that_does_not_fit_has_no_successor() {
        let a = tools_list();
        assert_eq!(
            successor(
                "/api/v1/projects/{project_id}/servers/{server_id}/tools/list",
                "/api/v1/projects/p/tools/list",
                &a
            ),
            None
        );
        assert_eq!(successor("/other/{x}", "/other/1", &a), None);
    }
}
