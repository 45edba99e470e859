//! OAuth tokens for HTTP servers: the refresh grant (RFC 6749 §6) and token-endpoint
//! discovery (RFC 9728 protected-resource metadata, then RFC 8414 server metadata).
//!
//! Tokens are stored by the caller (the store); this module only talks to the token
//! endpoint. Nothing here logs or formats a token: [`OAuthTokens`]'s `Debug` redacts them.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::errors::{REASON_REFRESH_FAILED, oauth_required, unreachable};
use crate::spec::Error;
use crate::spec::primitives::ImportedTokens;

/// The tokens the service keeps for one server.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthTokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    /// Epoch milliseconds; `None` when the server did not say.
    pub expires_at: Option<i64>,
}

impl std::fmt::Debug for OAuthTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthTokens")
            .field("access_token", &"<redacted>")
            .field(
                "refresh_token",
                &self.refresh_token.as_ref().map(|_| "<redacted>"),
            )
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

impl OAuthTokens {
    /// Tokens as `oauth/import-tokens` received them; `expires_in` is counted from `now_ms`.
    pub fn from_imported(t: &ImportedTokens, now_ms: i64) -> Self {
        OAuthTokens {
            access_token: t.access_token.clone(),
            refresh_token: t.refresh_token.clone(),
            expires_at: t.expires_in.map(|s| now_ms + (s as i64) * 1000),
        }
    }

    /// Expired, or expiring within `skew_ms`: refresh before use rather than after a 401.
    pub fn is_expired(&self, now_ms: i64, skew_ms: i64) -> bool {
        self.expires_at.is_some_and(|e| e <= now_ms + skew_ms)
    }
}

/// Everything a refresh grant needs.
#[derive(Clone)]
pub struct RefreshRequest {
    pub token_endpoint: String,
    pub refresh_token: String,
    pub client_id: String,
    pub client_secret: Option<String>,
    /// RFC 8707 `resource`, when the server was imported with an `oauthResourceUrl`.
    pub resource: Option<String>,
}

#[derive(Deserialize)]
struct TokenResponse {
    access_token: String,
    #[serde(default)]
    refresh_token: Option<String>,
    #[serde(default)]
    expires_in: Option<u64>,
}

/// Exchanges a refresh token for a new access token. When the endpoint does not rotate the
/// refresh token, the old one is kept. A refused grant is `OAUTH_REQUIRED` with
/// `details.reason = "REFRESH_FAILED"`; an unreachable endpoint is `SERVER_UNREACHABLE`.
pub async fn refresh_access_token(
    http: &reqwest::Client,
    req: &RefreshRequest,
    now_ms: i64,
) -> Result<OAuthTokens, Error> {
    let mut form = vec![
        ("grant_type", "refresh_token"),
        ("refresh_token", req.refresh_token.as_str()),
        ("client_id", req.client_id.as_str()),
    ];
    if let Some(s) = &req.client_secret {
        form.push(("client_secret", s.as_str()));
    }
    if let Some(r) = &req.resource {
        form.push(("resource", r.as_str()));
    }
    let resp = http
        .post(&req.token_endpoint)
        .header(
            reqwest::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(reqwest::header::ACCEPT, "application/json")
        .body(form_encode(&form))
        .send()
        .await
        .map_err(|e| unreachable(format!("token endpoint: {}", e.without_url())))?;
    let status = resp.status();
    if !status.is_success() {
        // The body of an OAuth error is `{error, error_description?}`: safe to report.
        let body: serde_json::Value = resp.json().await.unwrap_or(json!(null));
        let code = body
            .get("error")
            .and_then(|v| v.as_str())
            .unwrap_or("unknown_error");
        let mut e = oauth_required(
            format!("the token endpoint refused the refresh token ({status}: {code})"),
            REASON_REFRESH_FAILED,
            None,
        );
        e.details.as_mut().expect("reason set")["oauthError"] = json!(code);
        return Err(e);
    }
    let t: TokenResponse = resp.json().await.map_err(|_| {
        unreachable("the token endpoint answered with something that is not a token response")
    })?;
    Ok(OAuthTokens {
        access_token: t.access_token,
        refresh_token: t.refresh_token.or_else(|| Some(req.refresh_token.clone())),
        expires_at: t.expires_in.map(|s| now_ms + (s as i64) * 1000),
    })
}

/// Finds the token endpoint of the authorization server protecting `server_url`: the
/// protected-resource metadata names the authorization server, whose metadata names the
/// endpoint. Falls back to `{origin}/token` when neither document exists.
pub async fn discover_token_endpoint(
    http: &reqwest::Client,
    server_url: &str,
) -> Result<String, Error> {
    let url = reqwest::Url::parse(server_url)
        .map_err(|_| Error::invalid("/serverUrl", "url", "not an absolute URL"))?;
    let origin = url.origin().ascii_serialization();
    let mut issuer = origin.clone();
    let resource_meta = get_json(
        http,
        &format!("{origin}/.well-known/oauth-protected-resource"),
    )
    .await;
    if let Some(s) = resource_meta
        .as_ref()
        .and_then(|m| m.get("authorization_servers"))
        .and_then(|a| a.get(0))
        .and_then(|s| s.as_str())
    {
        issuer = s.trim_end_matches('/').to_string();
    }
    for doc in ["oauth-authorization-server", "openid-configuration"] {
        let meta = get_json(http, &format!("{issuer}/.well-known/{doc}")).await;
        if let Some(t) = meta
            .as_ref()
            .and_then(|m| m.get("token_endpoint"))
            .and_then(|t| t.as_str())
        {
            return Ok(t.to_string());
        }
    }
    Ok(format!("{issuer}/token"))
}

async fn get_json(http: &reqwest::Client, url: &str) -> Option<serde_json::Value> {
    let resp = http.get(url).send().await.ok()?;
    if !resp.status().is_success() {
        return None;
    }
    resp.json().await.ok()
}

/// `application/x-www-form-urlencoded` without pulling reqwest's `form` feature.
fn form_encode(pairs: &[(&str, &str)]) -> String {
    fn enc(s: &str, out: &mut String) {
        for b in s.bytes() {
            match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                    out.push(b as char)
                }
                b' ' => out.push('+'),
                _ => out.push_str(&format!("%{b:02X}")),
            }
        }
    }
    let mut out = String::new();
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        enc(k, &mut out);
        out.push('=');
        enc(v, &mut out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_forms() {
        assert_eq!(
            form_encode(&[("a", "b c"), ("t", "x/y=z&")]),
            "a=b+c&t=x%2Fy%3Dz%26"
        );
    }

    #[test]
    fn debug_redacts() {
        let t = OAuthTokens {
            access_token: "secret".into(),
            refresh_token: Some("r".into()),
            expires_at: None,
        };
        assert!(!format!("{t:?}").contains("secret"));
    }
}
