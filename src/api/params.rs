//! Query parameters documented from the handler's own extractors: a route's OpenAPI
//! parameters come from the `Query<T>` types its handler takes, so the document cannot
//! list a parameter the handler does not read, nor miss one it does.
//!
//! Every extractor a handler may take implements [`DocParams`]; one without query
//! parameters uses the empty default. A handler taking an extractor not listed here does
//! not compile until it is added — by design.

use axum::body::Bytes;
use axum::extract::{ConnectInfo, OriginalUri, RawPathParams, Request, State};
use axum::http::{HeaderMap, Method, Uri};
use schemars::JsonSchema;
use serde_json::Value;

use super::extract::{AdminBody, Body, MemberBody, Path, Query};
use super::openapi::Doc;
use crate::service::Principal;

/// What an extractor adds to its operation's documented query parameters.
pub(crate) trait DocParams {
    fn query(_doc: &mut Doc) -> Vec<Value> {
        Vec::new()
    }
}

impl<T: JsonSchema> DocParams for Query<T> {
    fn query(doc: &mut Doc) -> Vec<Value> {
        doc.query_params::<T>()
    }
}

impl<T: DocParams, E> DocParams for Result<T, E> {
    fn query(doc: &mut Doc) -> Vec<Value> {
        T::query(doc)
    }
}

impl<T: DocParams> DocParams for Option<T> {
    fn query(doc: &mut Doc) -> Vec<Value> {
        T::query(doc)
    }
}

impl DocParams for Principal {}
impl<T> DocParams for Path<T> {}
impl<T> DocParams for Body<T> {}
impl<T> DocParams for AdminBody<T> {}
impl<T> DocParams for MemberBody<T> {}
impl<S> DocParams for State<S> {}
impl<T> DocParams for ConnectInfo<T> {}
impl<T> DocParams for axum::Extension<T> {}
impl<T> DocParams for axum::Json<T> {}
impl DocParams for RawPathParams {}
impl DocParams for HeaderMap {}
impl DocParams for Method {}
impl DocParams for Uri {}
impl DocParams for OriginalUri {}
impl DocParams for Request {}
impl DocParams for Bytes {}
impl DocParams for String {}

/// A handler without arguments (axum's `Handler<((),), S>`).
impl DocParams for ((),) {}

/// A handler's arguments: axum's `Handler<(M, T1, …, Tn), S>`, `M` a marker.
macro_rules! handler_args {
    ($($t:ident),+) => {
        impl<M, $($t: DocParams),+> DocParams for (M, $($t,)+) {
            fn query(doc: &mut Doc) -> Vec<Value> {
                let mut out = Vec::new();
                $(out.extend($t::query(doc));)+
                out
            }
        }
    };
}

handler_args!(T1);
handler_args!(T1, T2);
handler_args!(T1, T2, T3);
handler_args!(T1, T2, T3, T4);
handler_args!(T1, T2, T3, T4, T5);
handler_args!(T1, T2, T3, T4, T5, T6);
handler_args!(T1, T2, T3, T4, T5, T6, T7);
handler_args!(T1, T2, T3, T4, T5, T6, T7, T8);
handler_args!(T1, T2, T3, T4, T5, T6, T7, T8, T9);
handler_args!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10);
handler_args!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11);
handler_args!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12);
handler_args!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13);
handler_args!(T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14);
handler_args!(
    T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15
);
handler_args!(
    T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11, T12, T13, T14, T15, T16
);
