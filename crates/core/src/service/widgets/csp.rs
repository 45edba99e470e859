//! The Content-Security-Policy a view runs under, built from the domains its resource
//! declares (`_meta.ui.csp`), and put into the view's document.
//!
//! Without declarations a view gets MCP Apps' restrictive default (no network, no nested
//! frames, inline scripts and styles only). Declared domains are added to the directives the
//! extension maps them to and never loosen anything else; an entry that is not an origin
//! (spaces, quotes, `;`) is dropped, so a declaration cannot inject a directive.

use serde_json::Value;

/// The policy for a resource content's `_meta.ui.csp` (or the resource declaration's).
pub fn policy(declared: &Value) -> String {
    let list = |key: &str| -> Vec<String> {
        declared[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .filter(|d| is_origin(d))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let with = |base: &str, extra: &[String]| {
        let mut s = base.to_string();
        for d in extra {
            s.push(' ');
            s.push_str(d);
        }
        s
    };
    let or = |fallback: &str, extra: &[String]| {
        if extra.is_empty() {
            fallback.to_string()
        } else {
            extra.join(" ")
        }
    };
    let resources = list("resourceDomains");
    let connect = list("connectDomains");
    let frames = list("frameDomains");
    let base = list("baseUriDomains");
    [
        "default-src 'none'".to_string(),
        format!("script-src {}", with("'self' 'unsafe-inline'", &resources)),
        format!("style-src {}", with("'self' 'unsafe-inline'", &resources)),
        format!("img-src {}", with("'self' data:", &resources)),
        format!("font-src {}", with("'self' data:", &resources)),
        format!("media-src {}", with("'self' data:", &resources)),
        format!("connect-src {}", or("'none'", &connect)),
        format!("frame-src {}", or("'none'", &frames)),
        format!("base-uri {}", or("'self'", &base)),
        "object-src 'none'".to_string(),
    ]
    .join("; ")
}

/// A scheme-qualified origin, optionally with a `*.` host wildcard and a port.
fn is_origin(d: &str) -> bool {
    let Some((scheme, rest)) = d.split_once("://") else {
        return false;
    };
    !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        && !rest.is_empty()
        && rest
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-.*:[]/_%~".contains(c))
}

/// `html` with the policy as its first `<meta http-equiv>`, ahead of any script.
pub fn apply(html: &str, policy: &str) -> String {
    let meta = format!(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"{}\">",
        policy.replace('"', "&quot;")
    );
    let lower = html.to_ascii_lowercase();
    let after_tag = |tag: &str| -> Option<usize> {
        let mut from = 0;
        while let Some(i) = lower[from..].find(tag) {
            let at = from + i;
            let next = lower.as_bytes().get(at + tag.len()).copied();
            if matches!(
                next,
                Some(b'>') | Some(b' ') | Some(b'\t') | Some(b'\n') | Some(b'\r')
            ) {
                return lower[at..].find('>').map(|j| at + j + 1);
            }
            from = at + tag.len();
        }
        None
    };
    if let Some(i) = after_tag("<head") {
        return format!("{}{meta}{}", &html[..i], &html[i..]);
    }
    if let Some(i) = after_tag("<html") {
        return format!("{}<head>{meta}</head>{}", &html[..i], &html[i..]);
    }
    if let Some(i) = after_tag("<!doctype") {
        return format!("{}{meta}{}", &html[..i], &html[i..]);
    }
    format!("{meta}{html}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_default_allows_no_network_and_no_frames() {
        let p = policy(&Value::Null);
        assert!(p.contains("connect-src 'none'"), "{p}");
        assert!(p.contains("frame-src 'none'"), "{p}");
        assert!(p.contains("default-src 'none'"), "{p}");
        assert!(p.contains("object-src 'none'"), "{p}");
    }

    #[test]
    fn declared_domains_go_to_their_directives_and_junk_is_dropped() {
        let p = policy(&json!({
            "connectDomains": ["https://api.example.com", "https://x; script-src *"],
            "resourceDomains": ["https://*.cdn.example", "'unsafe-eval'"],
        }));
        assert!(p.contains("connect-src https://api.example.com;"), "{p}");
        assert!(
            p.contains("script-src 'self' 'unsafe-inline' https://*.cdn.example;"),
            "{p}"
        );
        assert!(!p.contains("unsafe-eval"), "{p}");
        assert!(!p.contains("script-src *"), "{p}");
    }

    #[test]
    fn the_meta_goes_first_in_the_head() {
        let m = |h: &str| apply(h, "default-src 'none'");
        assert!(
            m("<!doctype html><html><head><script>x</script></head></html>")
                .starts_with("<!doctype html><html><head><meta http-equiv")
        );
        assert!(m("<html lang=en><body>x</body></html>").starts_with("<html lang=en><head><meta"));
        assert!(m("<div>x</div>").starts_with("<meta"));
        // `<header>` is not `<head>`.
        assert!(m("<!DOCTYPE html><header>h</header>").starts_with("<!DOCTYPE html><meta"));
    }
}
