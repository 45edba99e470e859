//! An operation's path and query parameters: how the server reads them, how `Remote`
//! writes them, and how the document lists them — one implementation of each per shape.

use schemars::{JsonSchema, SchemaGenerator};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::spec::{Error, Result};

/// The values of a path template's parameters, in order: `()`, `(String,)`, …
pub trait PathParams: DeserializeOwned + Send + Sync + 'static {
    const LEN: usize;
    fn values(&self) -> Vec<&str>;
    /// Placeholder-filled parameters (tests reach every operation with them).
    fn from_values(values: Vec<String>) -> Option<Self>;
}

impl PathParams for () {
    const LEN: usize = 0;
    fn values(&self) -> Vec<&str> {
        Vec::new()
    }
    fn from_values(values: Vec<String>) -> Option<Self> {
        values.is_empty().then_some(())
    }
}

macro_rules! path_params {
    ($len:literal: $($i:tt),+) => {
        impl PathParams for ($(path_params!(@string $i),)+) {
            const LEN: usize = $len;
            fn values(&self) -> Vec<&str> {
                vec![$(self.$i.as_str()),+]
            }
            fn from_values(values: Vec<String>) -> Option<Self> {
                let mut v = values.into_iter();
                let out = ($({ let _ = $i; v.next()? },)+);
                v.next().is_none().then_some(out)
            }
        }
    };
    (@string $i:tt) => { String };
}

path_params!(1: 0);
path_params!(2: 0, 1);
path_params!(3: 0, 1, 2);

/// An operation's query: `()`, or a tuple of flat query structs read one after another.
pub trait QueryParams: Default + Send + Sync + 'static {
    /// Reads the request's query string (the part after `?`).
    fn parse(query: &str) -> Result<Self>;
    /// The query string to send; `None` for an operation without one.
    fn encode(&self) -> Result<Option<String>>;
    /// One `in: query` parameter per field, in order.
    fn document(generator: &mut SchemaGenerator) -> Vec<Value>;
}

impl QueryParams for () {
    fn parse(_: &str) -> Result<()> {
        Ok(())
    }
    fn encode(&self) -> Result<Option<String>> {
        Ok(None)
    }
    fn document(_: &mut SchemaGenerator) -> Vec<Value> {
        Vec::new()
    }
}

macro_rules! query_params {
    ($($t:ident $i:tt),+) => {
        impl<$($t),+> QueryParams for ($($t,)+)
        where
            $($t: DeserializeOwned + Serialize + JsonSchema + Default + Send + Sync + 'static),+
        {
            fn parse(query: &str) -> Result<Self> {
                Ok(($(parse_query::<$t>(query)?,)+))
            }
            fn encode(&self) -> Result<Option<String>> {
                let parts = [$(encode(&self.$i)?),+];
                Ok(Some(parts.into_iter().filter(|p| !p.is_empty()).collect::<Vec<_>>().join("&")))
            }
            fn document(generator: &mut SchemaGenerator) -> Vec<Value> {
                let mut out = Vec::new();
                $(out.extend(document::<$t>(generator));)+
                out
            }
        }
    };
}

query_params!(A 0);
query_params!(A 0, B 1);

fn encode<T: Serialize>(q: &T) -> Result<String> {
    serde_urlencoded::to_string(q)
        .map_err(|e| Error::internal(format!("cannot encode the query: {e}")))
}

/// Reads a query string into `T`, naming the offending parameter on failure.
pub fn parse_query<T: DeserializeOwned>(q: &str) -> Result<T> {
    let de = serde_urlencoded::Deserializer::new(form_urlencoded::parse(q.as_bytes()));
    serde_path_to_error::deserialize(de).map_err(|e| {
        let param = e.path().to_string();
        let path = if param == "." {
            String::new()
        } else {
            format!("/{param}")
        };
        Error::invalid(
            &path,
            "query",
            format!("invalid query parameter: {}", e.into_inner()),
        )
    })
}

/// One `in: query` parameter per property of `T` (a flat query struct), with its schema,
/// description and whether it is required.
fn document<T: JsonSchema>(generator: &mut SchemaGenerator) -> Vec<Value> {
    let schema = T::json_schema(generator).to_value();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return Vec::new();
    };
    props
        .iter()
        .map(|(name, prop)| {
            let mut p = json!({
                "name": name,
                "in": "query",
                "required": required.contains(&name.as_str()),
                "schema": not_null(prop.clone()),
            });
            if let Some(d) = prop.get("description") {
                p["description"] = d.clone();
            }
            p
        })
        .collect()
}

/// A query parameter is present or absent, never `null`: drops the `null` alternative an
/// `Option` field's schema carries.
fn not_null(mut schema: Value) -> Value {
    if let Some(types) = schema.get("type").and_then(Value::as_array) {
        let rest: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        schema["type"] = match rest.as_slice() {
            [one] => one.clone(),
            _ => Value::Array(rest),
        };
    }
    if let Some(any) = schema.get("anyOf").and_then(Value::as_array) {
        let rest: Vec<&Value> = any.iter().filter(|s| s["type"] != "null").collect();
        if let [one] = rest.as_slice() {
            let one = (*one).clone();
            let obj = schema
                .as_object_mut()
                .expect("a schema with anyOf is an object");
            obj.remove("anyOf");
            if let Value::Object(m) = one {
                obj.extend(m);
            }
        }
    }
    if let Some(obj) = schema.as_object_mut() {
        obj.remove("nullable");
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::catalog::ProjectQuery;
    use crate::spec::page::PageRequest;

    #[test]
    fn two_query_structs_read_and_write_one_string() {
        let q = <(ProjectQuery, PageRequest)>::parse("limit=2&organizationId=o1").unwrap();
        assert_eq!(q.1.limit, Some(2));
        assert_eq!(
            q.encode().unwrap().as_deref(),
            Some("organizationId=o1&limit=2")
        );
        assert_eq!(
            <(PageRequest,)>::default().encode().unwrap().as_deref(),
            Some("")
        );
    }

    #[test]
    fn path_values_come_back_in_order() {
        let p = <(String, String)>::from_values(vec!["a".into(), "b".into()]).unwrap();
        assert_eq!(p.values(), ["a", "b"]);
        assert!(<(String,)>::from_values(vec![]).is_none());
    }
}
