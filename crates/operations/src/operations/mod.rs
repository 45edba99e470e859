//! Each `/api/v1` operation as a type, defined once in `list.rs`: its method, path template
//! and parameters, query, body rule and types, success status, summary, and the one
//! function that calls the service. Everything else is derived from that definition:
//!
//! - the axum route and its extraction: one generic handler (`api/handler.rs`);
//! - the OpenAPI entry (`api::Routes` visits the list), in the list's order;
//! - the `Remote` call: one generic method building the URL from the template;
//! - the `Embedded` dispatch: one generic method calling [`Operation::serve`], the same
//!   function the HTTP handler calls.
//!
//! A new operation is one entry in the list; [`visit`] hands every entry to whatever needs
//! them all (the router, the document, the tests that cover both backends).
//!
//! # Exceptions
//!
//! Hand-written, each for one reason:
//!
//! - `EvalSuites`' HTTP handler: it answers from the per-key suite-page cache.
//! - `ImportCases`' HTTP handler: it reads idempotency keys from headers and answers 200
//!   or 202 by the job's state.
//! - `IngestUploadUrl`'s HTTP handler: the URL's origin comes from the request's `Host`.
//!   These three are still listed (document, `Remote`, `Embedded` come from the list); the
//!   router refuses to start if one has no handler.
//! - `POST|PUT /eval-ingest/uploads/{token}`: a raw file body authorized by its token, not
//!   by a key; no `Backend` method.
//! - `/api-keys` (every method answers 403) and `/openapi.json`: not operations.
//! - The deprecated aliases (`api::routes::aliases`): older paths served by the same
//!   handler with `Deprecation` headers.
//! - `Backend::call_tool_watched`, `check`, `kept_snapshots`: the embedded core only
//!   (progress and elicitation in-process, conformance checks, the snapshots they kept);
//!   not in `/api/v1`.

#[macro_use]
mod define;
mod list;
mod params;

pub use list::*;
pub use params::{PathParams, QueryParams, parse_query};

use axum::http::Method;
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::service::store::projects::ProjectRole;
use crate::service::{Principal, Service};
use crate::spec::Result;
use crate::spec::run::RunSource;

/// How an operation's request body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyRule {
    /// No body (GET, DELETE): none documented, none read, none sent.
    Absent,
    /// A body documented and sent (`{}`), but not read: access is the service's check.
    Unread,
    /// JSON, read once the caller is known to be a member of the path's project.
    Member,
    /// JSON, read once the caller is known to administer the path's project.
    Admin,
}

impl BodyRule {
    /// The project role the body waits for, if it is read at all.
    pub fn role(self) -> Option<ProjectRole> {
        match self {
            BodyRule::Absent | BodyRule::Unread => None,
            BodyRule::Member => Some(ProjectRole::Member),
            BodyRule::Admin => Some(ProjectRole::Admin),
        }
    }
}

/// What [`Operation::serve`] runs against: the service, and the source a run it starts is
/// tagged with (`api` over HTTP, `ui` in-process). Derefs to the service.
pub struct Ctx<'a> {
    pub service: &'a Service,
    pub source: RunSource,
}

impl std::ops::Deref for Ctx<'_> {
    type Target = Service;

    fn deref(&self) -> &Service {
        self.service
    }
}

/// One `/api/v1` operation. Implemented only by the entries of `list.rs`.
pub trait Operation: Send + Sync + 'static {
    /// The path parameters, in template order (`(project, server)`).
    type Path: PathParams;
    /// The query structs, in the order their parameters are documented.
    type Query: QueryParams;
    /// What a caller sends (`()` for [`BodyRule::Absent`]).
    type Body: Serialize + Send + Sync + 'static;
    /// The request schema the document shows (the body type, unless the wire reads a
    /// looser shape than it documents).
    type RequestDoc: JsonSchema;
    type Response: Serialize + DeserializeOwned + JsonSchema + Send + 'static;
    /// The schema of [`Operation::ALSO`]'s answer (`()` when there is none).
    type Also: JsonSchema;

    /// The type's name, for messages.
    const NAME: &'static str;
    const METHOD: Method;
    /// The template under `/api/v1`, axum's syntax (`/projects/{project_id}`).
    const PATH: &'static str;
    const SUMMARY: &'static str;
    /// The success status.
    const STATUS: u16;
    const BODY: BodyRule;
    /// Another documented success answer: status and description.
    const ALSO: Option<(u16, &'static str)>;
    /// Additive to the published contract (`x-evaldeck-extension`).
    const EXTENSION: bool;
    /// `Some(reason)`: the HTTP handler is hand-written (see the module's exceptions).
    const HANDWRITTEN: Option<&'static str>;

    /// Reads the body the HTTP handler received (after the access check its rule asks for).
    fn parse(bytes: &[u8]) -> Result<Self::Body>;

    /// The one call into the service, shared by the HTTP handler and `Embedded`.
    fn serve<'a>(
        cx: Ctx<'a>,
        who: &'a Principal,
        path: Self::Path,
        query: Self::Query,
        body: Self::Body,
    ) -> BoxFuture<'a, Result<Self::Response>>;
}

/// Something that wants every operation, one type at a time, in the list's order.
pub trait Visit {
    fn visit<O: Operation>(&mut self);
}

/// Hands every operation to `v`, in the list's order (the document's order).
pub fn visit(v: &mut impl Visit) {
    list::visit_all(v);
}

/// The path of `O` under `/api/v1` with `path`'s values put in, as URL segments.
pub fn segments<O: Operation>(path: &O::Path) -> Vec<&str> {
    let mut values = path.values().into_iter();
    O::PATH
        .split('/')
        .skip(1)
        .map(|seg| {
            if seg.starts_with('{') {
                values.next().expect("a value for each parameter")
            } else {
                seg
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each template names as many parameters as its path tuple holds.
    #[test]
    fn templates_match_their_path_tuples() {
        struct Check(Vec<String>);
        impl Visit for Check {
            fn visit<O: Operation>(&mut self) {
                let named = O::PATH.split('/').filter(|s| s.starts_with('{')).count();
                if named != O::Path::LEN {
                    self.0
                        .push(format!("{}: {} takes {}", O::NAME, O::PATH, O::Path::LEN));
                }
                let bodiless = O::METHOD == Method::GET || O::METHOD == Method::DELETE;
                if (O::BODY == BodyRule::Absent) != bodiless {
                    self.0.push(format!(
                        "{}: {} with body {:?}",
                        O::NAME,
                        O::METHOD,
                        O::BODY
                    ));
                }
            }
        }
        let mut c = Check(Vec::new());
        visit(&mut c);
        assert!(c.0.is_empty(), "{:#?}", c.0);
    }

    #[test]
    fn segments_fill_the_template_in_order() {
        let path = ("p1".to_string(), "s/1".to_string());
        assert_eq!(
            segments::<Tools>(&path),
            ["projects", "p1", "servers", "s/1", "tools"]
        );
        assert_eq!(segments::<Me>(&()), ["me"]);
    }
}
