//! Model providers behind one trait ([`Model`]): OpenAI-compatible chat completions with
//! tool calling (OpenAI, Ollama, vLLM, llama.cpp server), Anthropic messages, and the
//! built-in offline baseline agent (`builtin/baseline`), which needs no account and no
//! network and is labelled as a baseline wherever it appears.
//!
//! Decisions where the spec is silent:
//! - Ids are `<provider>/<name>`. A bare name with a separate `provider` means
//!   `<provider>/<name>`; a bare name without one is invalid.
//! - The catalog ([`ModelCatalog`]) is the operator's: each provider has a base URL, an
//!   optional key and a list of hosted names. A *hosted* id is a listed name of a provider
//!   whose key is configured; it runs on the operator's key (the organization's credits).
//!   Any other name of a known provider is *provider-native* and needs
//!   `modelApiKeys.<provider>`. A provider configured as `open` (a local server such as
//!   Ollama, no key) runs any name.
//! - A model that cannot run is `VALIDATION_ERROR` with a violation at the model's path and
//!   `details.hostedModels` listing the runnable hosted ids of that provider (of every
//!   provider when the provider is unknown).
//! - Environment variables: `EVALDECK_OPENAI_BASE_URL`, `EVALDECK_OPENAI_KEY`,
//!   `EVALDECK_OPENAI_MODELS` (comma-separated hosted names), the same three with
//!   `ANTHROPIC`, and `EVALDECK_OLLAMA_BASE_URL` (an open OpenAI-compatible provider named
//!   `ollama`). `EVALDECK_JUDGE_MODEL` names the judge model (none by default).
//! - Provider-native keys are never persisted; a resumed run that needed one fails.

mod anthropic;
pub mod baseline;
mod openai;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::spec::run::Usage;
use crate::spec::{Code, Error, Result};

/// The baseline agent's id.
pub const BASELINE_ID: &str = "builtin/baseline";

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// A tool call a model asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ModelToolCall {
    pub id: String,
    pub name: String,
    pub arguments: Value,
}

/// One message of a conversation, as models see it and as transcripts store it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub role: Role,
    #[serde(default)]
    pub content: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ModelToolCall>,
    /// For `tool` messages: the call answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// For `tool` messages: the tool's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// For `tool` messages: whether the result was an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// The case step that produced the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_id: Option<String>,
}

impl Message {
    pub fn new(role: Role, content: impl Into<String>) -> Self {
        Message {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            name: None,
            is_error: None,
            step_id: None,
        }
    }
}

/// A tool as offered to a model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolSpec {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub input_schema: Value,
}

pub struct ModelRequest<'a> {
    pub system: Option<&'a str>,
    pub messages: &'a [Message],
    pub tools: &'a [ToolSpec],
}

/// One model turn: text, tool calls (empty = a final answer) and token usage.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelReply {
    pub text: String,
    pub tool_calls: Vec<ModelToolCall>,
    pub usage: Usage,
}

#[async_trait]
pub trait Model: Send + Sync {
    /// `<provider>/<name>`.
    fn id(&self) -> &str;
    async fn complete(&self, req: &ModelRequest<'_>) -> Result<ModelReply>;
}

/// The wire protocol a provider speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    OpenAi,
    Anthropic,
    Builtin,
}

/// One provider of the catalog.
#[derive(Debug, Clone)]
pub struct ProviderConfig {
    pub name: String,
    pub kind: ProviderKind,
    pub base_url: String,
    /// The operator's key; hosted names run on it.
    pub api_key: Option<String>,
    pub hosted: Vec<String>,
    /// Any name runs without a key (a local server).
    pub open: bool,
}

impl ProviderConfig {
    pub fn openai_compatible(name: &str, base_url: &str) -> Self {
        ProviderConfig {
            name: name.into(),
            kind: ProviderKind::OpenAi,
            base_url: base_url.trim_end_matches('/').into(),
            api_key: None,
            hosted: Vec::new(),
            open: false,
        }
    }

    fn hosted_ids(&self) -> Vec<String> {
        match self.kind {
            ProviderKind::Builtin => vec![BASELINE_ID.into()],
            _ if self.api_key.is_some() || self.open => self
                .hosted
                .iter()
                .map(|n| format!("{}/{n}", self.name))
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The models the operator offers.
#[derive(Debug, Clone)]
pub struct ModelCatalog {
    pub providers: Vec<ProviderConfig>,
    /// Upper bound on one model request.
    pub timeout: Duration,
}

impl Default for ModelCatalog {
    fn default() -> Self {
        Self::from_env()
    }
}

fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.trim().is_empty())
}

fn list(v: Option<String>, default: &[&str]) -> Vec<String> {
    match v {
        Some(s) => s
            .split(',')
            .map(|x| x.trim().to_string())
            .filter(|x| !x.is_empty())
            .collect(),
        None => default.iter().map(|s| s.to_string()).collect(),
    }
}

/// A resolved model: what runs and whether it is hosted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    pub id: String,
    pub provider: String,
    pub hosted: bool,
}

impl ModelCatalog {
    /// Only the baseline agent, plus OpenAI and Anthropic for provider-native keys.
    pub fn builtin_only() -> Self {
        ModelCatalog {
            providers: vec![
                ProviderConfig {
                    name: "builtin".into(),
                    kind: ProviderKind::Builtin,
                    base_url: String::new(),
                    api_key: None,
                    hosted: vec!["baseline".into()],
                    open: false,
                },
                ProviderConfig::openai_compatible("openai", "https://api.openai.com/v1"),
                ProviderConfig {
                    name: "anthropic".into(),
                    kind: ProviderKind::Anthropic,
                    base_url: "https://api.anthropic.com".into(),
                    api_key: None,
                    hosted: Vec::new(),
                    open: false,
                },
            ],
            timeout: Duration::from_secs(120),
        }
    }

    /// The catalog from `EVALDECK_*` variables (see the module docs).
    pub fn from_env() -> Self {
        let mut c = Self::builtin_only();
        for p in c.providers.iter_mut() {
            let up = p.name.to_uppercase();
            if p.kind == ProviderKind::Builtin {
                continue;
            }
            if let Some(u) = env(&format!("EVALDECK_{up}_BASE_URL")) {
                p.base_url = u.trim_end_matches('/').into();
            }
            p.api_key = env(&format!("EVALDECK_{up}_KEY"))
                .or_else(|| env(&format!("EVALDECK_{up}_API_KEY")));
            let default: &[&str] = match p.kind {
                ProviderKind::OpenAi => &["gpt-4o-mini", "gpt-4.1-mini"],
                _ => &["claude-3-5-haiku-latest", "claude-sonnet-4-0"],
            };
            p.hosted = list(env(&format!("EVALDECK_{up}_MODELS")), default);
        }
        if let Some(u) = env("EVALDECK_OLLAMA_BASE_URL") {
            let mut p = ProviderConfig::openai_compatible("ollama", &u);
            p.open = true;
            p.hosted = list(env("EVALDECK_OLLAMA_MODELS"), &[]);
            c.providers.push(p);
        }
        c
    }

    /// Adds (or replaces, by name) a provider.
    pub fn with_provider(mut self, p: ProviderConfig) -> Self {
        self.providers.retain(|x| x.name != p.name);
        self.providers.push(p);
        self
    }

    fn provider(&self, name: &str) -> Option<&ProviderConfig> {
        self.providers.iter().find(|p| p.name == name)
    }

    /// Whether a model spends the organization's credits: hosted ids that run on the
    /// operator's key do. The built-in models and keyless local providers cost nothing, and
    /// provider-native ids run on the caller's own `modelApiKeys`.
    pub fn bills_credits(&self, provider: &str, hosted: bool) -> bool {
        hosted
            && self
                .providers
                .iter()
                .any(|p| p.name == provider && p.kind != ProviderKind::Builtin && !p.open)
    }

    /// Runnable hosted ids, of one provider or of all.
    pub fn hosted_ids(&self, provider: Option<&str>) -> Vec<String> {
        self.providers
            .iter()
            .filter(|p| provider.is_none_or(|n| p.name == n))
            .flat_map(|p| p.hosted_ids())
            .collect()
    }

    /// Decides whether `model` (with an optional separate `provider`) can run, given the
    /// request's provider-native keys; `path` locates the field in the request.
    pub fn check(
        &self,
        path: &str,
        model: &str,
        provider: Option<&str>,
        keys: &BTreeMap<String, String>,
    ) -> Result<ModelChoice> {
        let (prov, name) = match model.split_once('/') {
            Some((p, n)) => (p.to_string(), n.to_string()),
            None => match provider {
                Some(p) => (p.to_string(), model.to_string()),
                None => {
                    return Err(self.unrunnable(
                        path,
                        None,
                        format!("`{model}` is not a model id of the form `<provider>/<name>`"),
                    ));
                }
            },
        };
        let Some(p) = self.provider(&prov) else {
            return Err(self.unrunnable(
                path,
                None,
                format!("no model provider `{prov}` is configured"),
            ));
        };
        let id = format!("{prov}/{name}");
        let choice = |hosted| ModelChoice {
            id: id.clone(),
            provider: prov.clone(),
            hosted,
        };
        if name.is_empty() {
            return Err(self.unrunnable(path, Some(&prov), format!("`{id}` names no model")));
        }
        match p.kind {
            ProviderKind::Builtin if name == "baseline" => Ok(choice(true)),
            ProviderKind::Builtin => Err(self.unrunnable(
                path,
                Some(&prov),
                format!("the built-in provider has one agent, `{BASELINE_ID}`"),
            )),
            _ if p.hosted.contains(&name) && (p.api_key.is_some() || p.open) => Ok(choice(true)),
            _ if keys.contains_key(&prov) || p.open => Ok(choice(false)),
            _ => Err(self.unrunnable(
                path,
                Some(&prov),
                format!(
                    "`{id}` cannot run: it is not a hosted model here, and a provider-native id needs `modelApiKeys.{prov}`"
                ),
            )),
        }
    }

    fn unrunnable(&self, path: &str, provider: Option<&str>, message: String) -> Error {
        let hosted = self.hosted_ids(provider);
        let mut e = Error::invalid(path, "model", message);
        if let Some(d) = e.details.as_mut() {
            d["hostedModels"] = json!(hosted);
        }
        e
    }

    /// Builds the model a [`ModelChoice`] names.
    pub fn build(
        &self,
        http: &reqwest::Client,
        choice: &ModelChoice,
        keys: &BTreeMap<String, String>,
    ) -> Result<Arc<dyn Model>> {
        let p = self
            .provider(&choice.provider)
            .ok_or_else(|| Error::internal("model provider vanished"))?;
        let name = choice.id[choice.provider.len() + 1..].to_string();
        let key = if choice.hosted {
            p.api_key.clone()
        } else {
            keys.get(&choice.provider).cloned().or(p.api_key.clone())
        };
        Ok(match p.kind {
            ProviderKind::Builtin => Arc::new(baseline::Baseline),
            ProviderKind::OpenAi => Arc::new(openai::OpenAi {
                id: choice.id.clone(),
                name,
                base_url: p.base_url.clone(),
                key,
                http: http.clone(),
                timeout: self.timeout,
            }),
            ProviderKind::Anthropic => Arc::new(anthropic::Anthropic {
                id: choice.id.clone(),
                name,
                base_url: p.base_url.clone(),
                key,
                http: http.clone(),
                timeout: self.timeout,
            }),
        })
    }
}

/// A provider's failure, as an iteration error.
pub(crate) fn provider_error(id: &str, what: impl std::fmt::Display) -> Error {
    Error::new(Code::ServerUnreachable, format!("model `{id}`: {what}"))
}

/// Approximate token count (4 characters a token) for providers that report none.
pub fn estimate_tokens(s: &str) -> u64 {
    (s.chars().count() as u64).div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolution_rules() {
        let mut c = ModelCatalog::builtin_only();
        c.providers[1].api_key = Some("sk".into());
        c.providers[1].hosted = vec!["gpt-x".into()];
        let none = BTreeMap::new();
        assert!(c.check("/model", BASELINE_ID, None, &none).unwrap().hosted);
        assert!(
            c.check("/model", "baseline", Some("builtin"), &none)
                .is_ok()
        );
        assert!(
            c.check("/model", "openai/gpt-x", None, &none)
                .unwrap()
                .hosted
        );
        let e = c
            .check("/model", "openai/gpt-native", None, &none)
            .unwrap_err();
        assert_eq!(e.code, Code::ValidationError);
        assert_eq!(e.details.unwrap()["hostedModels"], json!(["openai/gpt-x"]));
        let keys = BTreeMap::from([("openai".to_string(), "k".to_string())]);
        assert!(
            !c.check("/model", "openai/gpt-native", None, &keys)
                .unwrap()
                .hosted
        );
        let e = c.check("/model", "nope/x", None, &none).unwrap_err();
        assert_eq!(
            e.details.unwrap()["hostedModels"],
            json!(["builtin/baseline", "openai/gpt-x"])
        );
        assert!(c.check("/model", "gpt-x", None, &none).is_err());
        assert!(c.check("/model", "builtin/other", None, &none).is_err());
        let e = c
            .check("/model", "anthropic/claude", None, &none)
            .unwrap_err();
        assert_eq!(e.details.unwrap()["hostedModels"], json!([]));
    }
}
