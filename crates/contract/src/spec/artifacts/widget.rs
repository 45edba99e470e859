//! Widget snapshots: the HTML of an MCP Apps view, uploaded to an upload URL by an eval SDK
//! and stored as sent (no run). This module only recognizes and checks the bytes.
//!
//! A widget is at most [`MAX_BYTES`] of UTF-8 text. It is recognized by the minted request's
//! `kind: "widget"`, else — no kind given — by a `text/html` (or XHTML) `Content-Type`, else
//! by content that starts, after a BOM, whitespace and comments, with `<!doctype html`,
//! `<html`, `<head` or `<body` (case-insensitive). JUnit XML (`<?xml`, `<testsuites`,
//! `<testsuite`) never matches those, so it is still read as a report.

use super::{invalid, strip_bom};
use crate::spec::error::Error;
use crate::spec::ingest::ArtifactKind;

/// The largest widget snapshot accepted (whatever the upload cap for reports).
pub const MAX_BYTES: usize = 4 * 1024 * 1024;

/// How a stored widget is served back.
pub const CONTENT_TYPE: &str = "text/html; charset=utf-8";

/// Whether an upload is a widget snapshot (see the module docs).
pub fn is_widget(
    requested: Option<ArtifactKind>,
    content_type: Option<&str>,
    bytes: &[u8],
) -> bool {
    match requested {
        Some(k) => k == ArtifactKind::Widget,
        None => content_type.is_some_and(is_html_type) || looks_like_html(bytes),
    }
}

/// `text/html` or `application/xhtml+xml`, whatever the parameters.
pub fn is_html_type(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or("").trim();
    essence.eq_ignore_ascii_case("text/html")
        || essence.eq_ignore_ascii_case("application/xhtml+xml")
}

/// Whether the first tag, past a BOM, whitespace and comments, opens an HTML document.
pub fn looks_like_html(bytes: &[u8]) -> bool {
    let mut rest = strip_bom(bytes);
    loop {
        rest = rest.trim_ascii_start();
        match rest.strip_prefix(b"<!--") {
            Some(after) => match after.windows(3).position(|w| w == b"-->") {
                Some(end) => rest = &after[end + 3..],
                None => return false,
            },
            None => break,
        }
    }
    ["<!doctype html", "<html", "<head", "<body"]
        .iter()
        .any(|p| {
            rest.len() >= p.len()
                && rest[..p.len()].eq_ignore_ascii_case(p.as_bytes())
                && rest
                    .get(p.len())
                    .is_none_or(|b| b.is_ascii_whitespace() || *b == b'>' || *b == b'/')
        })
}

/// A widget's bytes are non-empty UTF-8 text within [`MAX_BYTES`]. An oversize one is the
/// same `maxBodySize` violation as any oversize artifact.
pub fn check(bytes: &[u8]) -> Result<(), Error> {
    if bytes.len() > MAX_BYTES {
        return Err(Error::invalid(
            "",
            "maxBodySize",
            format!(
                "the widget snapshot is {} bytes; at most {MAX_BYTES} bytes are accepted",
                bytes.len()
            ),
        ));
    }
    if strip_bom(bytes).iter().all(u8::is_ascii_whitespace) {
        return Err(invalid("the widget snapshot is empty"));
    }
    std::str::from_utf8(bytes)
        .map_err(|e| invalid(format!("the widget snapshot is not UTF-8 text ({e})")))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognizes_html_but_not_junit() {
        for html in [
            &b"<!DOCTYPE html><html></html>"[..],
            b"\xEF\xBB\xBF\n  <!doctype HTML>",
            b"<html lang=\"en\">",
            b"<!-- rendered by the SDK --> <html>",
            b"<head><title>t</title></head>",
            b"<body>",
        ] {
            assert!(looks_like_html(html), "{}", String::from_utf8_lossy(html));
        }
        for not in [
            &b"<?xml version=\"1.0\"?><testsuites/>"[..],
            b"<testsuite name=\"html\"/>",
            b"<htmlreport/>",
            b"<!-- <html> never closed",
            b"{\"testResults\": []}",
            b"",
        ] {
            assert!(!looks_like_html(not), "{}", String::from_utf8_lossy(not));
        }
        let junit = b"<testsuites/>";
        assert!(is_widget(None, Some("text/html; charset=utf-8"), junit));
        assert!(!is_widget(None, Some("application/xml"), junit));
        assert!(!is_widget(
            Some(ArtifactKind::Junit),
            Some("text/html"),
            b"<html>"
        ));
        assert!(is_widget(
            Some(ArtifactKind::Widget),
            None,
            b"<div>fragment</div>"
        ));
        assert!(is_html_type("Application/XHTML+XML"));
    }

    #[test]
    fn checks_size_and_text() {
        assert!(check(b"<p>hi</p>").is_ok());
        assert_eq!(check(b"  ").unwrap_err().violations()[0].rule, "artifact");
        assert_eq!(
            check(b"\xff\xfe").unwrap_err().violations()[0].rule,
            "artifact"
        );
        let big = vec![b'a'; MAX_BYTES + 1];
        assert_eq!(check(&big).unwrap_err().violations()[0].rule, "maxBodySize");
    }
}
