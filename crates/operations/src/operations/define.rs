//! The `operations!` macro: one entry per operation becomes a unit type implementing
//! [`Operation`](super::Operation), and the section's `visit` function lists them in order.
//!
//! An entry reads:
//!
//! ```text
//! Name: METHOD "/path/{param}",
//!     path(param…), query(var: Type…), body RULE(var: Type),
//!     [doc(DocumentedRequestType),]
//!     -> Response, STATUS, "summary",
//!     [also(STATUS, Type, "description"),] [handwritten("reason"),]
//!     |service, who| call;
//! ```
//!
//! `RULE` is `none`, `unread`, `member(b: T)`, `admin(b: T)`, or `decoded(b: T)` (a member
//! body read as JSON, then by `T`'s [`IngestBody`](crate::spec::ingest::IngestBody)
//! decoder). `call` is the body of an `async` block: it may `.await`.

macro_rules! operations {
    ($visit:ident, extension = $ext:literal;
    $(
        $name:ident: $method:ident $path:literal,
            path($($pp:ident),*),
            query($($qv:ident: $qt:ty),*),
            body $rule:ident $(($bv:ident: $bt:ty))?,
            $(doc($rd:ty),)?
            -> $resp:ty, $status:literal, $summary:literal,
            $(also($also_status:literal, $also_ty:ty, $also_desc:literal),)?
            $(handwritten($reason:literal),)?
            |$s:ident, $who:ident| $serve:expr;
    )*) => {
        $(
            #[doc = concat!("`", stringify!($method), " ", $path, "`: ", $summary, ".")]
            pub struct $name;

            impl $crate::operations::Operation for $name {
                type Path = ($(op_string!($pp),)*);
                type Query = ($($qt,)*);
                type Body = op_body!($rule $($bt)?);
                type RequestDoc = op_or!($($rd)?; op_body!($rule $($bt)?));
                type Response = $resp;
                type Also = op_or!($($also_ty)?; ());

                const NAME: &'static str = stringify!($name);
                const METHOD: ::axum::http::Method = ::axum::http::Method::$method;
                const PATH: &'static str = $path;
                const SUMMARY: &'static str = $summary;
                const STATUS: u16 = $status;
                const BODY: $crate::operations::BodyRule = op_rule!($rule);
                const ALSO: Option<(u16, &'static str)> = op_some!($($also_status, $also_desc)?);
                const EXTENSION: bool = $ext;
                const HANDWRITTEN: Option<&'static str> = op_some!($($reason)?);

                fn parse(bytes: &[u8]) -> $crate::spec::Result<Self::Body> {
                    op_parse!(bytes, $rule $($bt)?)
                }

                fn serve<'a>(
                    cx: $crate::operations::Ctx<'a>,
                    $who: &'a $crate::service::Principal,
                    ($($pp,)*): Self::Path,
                    ($($qv,)*): Self::Query,
                    body: Self::Body,
                ) -> ::futures::future::BoxFuture<'a, $crate::spec::Result<Self::Response>> {
                    op_bind!(body $(, $bv)?);
                    Box::pin(async move {
                        let $s = cx;
                        $serve
                    })
                }
            }
        )*

        /// This section's operations, in the document's order.
        pub(super) fn $visit(v: &mut impl $crate::operations::Visit) {
            $(v.visit::<$name>();)*
        }
    };
}

macro_rules! op_string {
    ($x:ident) => {
        String
    };
}

macro_rules! op_body {
    (none) => {
        ()
    };
    (unread) => {
        ::serde_json::Value
    };
    ($rule:ident $t:ty) => {
        $t
    };
}

macro_rules! op_rule {
    (none) => {
        $crate::operations::BodyRule::Absent
    };
    (unread) => {
        $crate::operations::BodyRule::Unread
    };
    (member) => {
        $crate::operations::BodyRule::Member
    };
    (decoded) => {
        $crate::operations::BodyRule::Member
    };
    (admin) => {
        $crate::operations::BodyRule::Admin
    };
}

macro_rules! op_parse {
    ($bytes:ident, none) => {{
        let _ = $bytes;
        Ok(())
    }};
    ($bytes:ident, unread) => {{
        let _ = $bytes;
        Ok(::serde_json::Value::Null)
    }};
    ($bytes:ident, decoded $t:ty) => {{
        let v = $crate::spec::validate::parse_body::<::serde_json::Value>($bytes)?;
        <$t as $crate::spec::ingest::IngestBody>::decode(v)
    }};
    ($bytes:ident, $rule:ident $t:ty) => {
        $crate::spec::validate::parse_body::<$t>($bytes)
    };
}

macro_rules! op_or {
    (; $default:ty) => {
        $default
    };
    ($t:ty; $default:ty) => {
        $t
    };
}

macro_rules! op_some {
    () => { None };
    ($($x:expr),+) => { Some(($($x),+)) };
}

macro_rules! op_bind {
    ($body:ident) => {
        let _ = $body;
    };
    ($body:ident, $var:ident) => {
        let $var = $body;
    };
}
