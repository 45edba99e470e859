//! The model author: the document (in chunks of whole lines, each line numbered) and the
//! discovered tools go to a chat model over an OpenAI-compatible `chat/completions`
//! endpoint (OpenAI, Ollama, vLLM, llama.cpp server) or Anthropic's `messages` API; the
//! reply is one JSON object of drafts, validated here. Output that does not validate is
//! sent back once with the problems listed; a second failure fails the job with them.
//! Line numbers the model cites are checked against the chunk, and the excerpt is always
//! cut from the document itself, never taken from the model.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::draft::{Draft, ExpectedCall, Needle};
use super::ground::DiscoveredTool;
use super::lines::LineIndex;
use crate::spec::{Code, Error, Result};

/// Which author writes the drafts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum AuthorConfig {
    /// The deterministic built-in extractor (the offline default).
    #[default]
    Builtin,
    /// An OpenAI-compatible chat-completions endpoint; `base_url` ends before
    /// `/chat/completions` (e.g. `https://api.openai.com/v1`, `http://localhost:11434/v1`).
    #[serde(rename_all = "camelCase")]
    OpenAi {
        base_url: String,
        #[serde(skip_serializing, default)]
        api_key: Option<String>,
        model: String,
    },
    /// Anthropic's messages API; `base_url` ends before `/messages`.
    #[serde(rename_all = "camelCase")]
    Anthropic {
        base_url: String,
        #[serde(skip_serializing, default)]
        api_key: Option<String>,
        model: String,
    },
}

impl AuthorConfig {
    /// From `EVALDECK_AUTHOR_PROVIDER` (`openai`, `anthropic`, `builtin`),
    /// `EVALDECK_AUTHOR_BASE_URL`, `EVALDECK_AUTHOR_API_KEY` and `EVALDECK_AUTHOR_MODEL`;
    /// the built-in extractor when none is set.
    pub fn from_env() -> AuthorConfig {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
        let provider = var("EVALDECK_AUTHOR_PROVIDER").map(|p| p.to_lowercase());
        let base = var("EVALDECK_AUTHOR_BASE_URL");
        let key = var("EVALDECK_AUTHOR_API_KEY");
        let model = var("EVALDECK_AUTHOR_MODEL");
        match (provider.as_deref(), base) {
            (Some("anthropic"), base) => AuthorConfig::Anthropic {
                base_url: base.unwrap_or_else(|| "https://api.anthropic.com/v1".into()),
                api_key: key,
                model: model.unwrap_or_else(|| "claude-sonnet-4-5".into()),
            },
            (Some("openai"), base) | (None, base @ Some(_)) => AuthorConfig::OpenAi {
                base_url: base.unwrap_or_else(|| "https://api.openai.com/v1".into()),
                api_key: key,
                model: model.unwrap_or_else(|| "gpt-4o-mini".into()),
            },
            _ => AuthorConfig::Builtin,
        }
    }

    pub fn model(&self) -> Option<&str> {
        match self {
            AuthorConfig::Builtin => None,
            AuthorConfig::OpenAi { model, .. } | AuthorConfig::Anthropic { model, .. } => {
                Some(model)
            }
        }
    }
}

/// Drafts and token usage of a model run.
pub struct Authored {
    pub drafts: Vec<Draft>,
    pub tokens_in: i64,
    pub tokens_out: i64,
}

/// Splits the document into chunks of whole lines of at most `max` bytes, cutting at a
/// heading or blank line where one falls in the second half of a chunk.
pub fn chunks(ix: &LineIndex, max: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 1;
    let mut size = 0;
    let mut cut: Option<usize> = None;
    let mut n = 1;
    while n <= ix.len() {
        let line = ix.line(n);
        if size + line.len() + 1 > max && n > start {
            let end = cut.filter(|c| *c > start).unwrap_or(n - 1);
            out.push((start, end));
            start = end + 1;
            n = start;
            size = 0;
            cut = None;
            continue;
        }
        size += line.len() + 1;
        if (line.trim().is_empty() || line.starts_with('#')) && size > max / 2 {
            cut = Some(if line.starts_with('#') { n - 1 } else { n });
        }
        n += 1;
    }
    if start <= ix.len() {
        out.push((start, ix.len()));
    }
    out
}

const SYSTEM: &str = r#"You convert test documents (QA plans, spreadsheets, JSON exports, notes) into eval cases for an MCP server. Only write a case for a test the document actually describes; never invent cases from prose that contains none. Reply with ONE JSON object and nothing else:
{"cases": [{"title": string, "key": string|null, "prompts": [string, ...], "negative": boolean,
  "expectedTools": [{"name": string, "arguments": object|null}], "responseContains": [string],
  "responsePatterns": [string], "expectedOutput": string|null, "startLine": integer, "endLine": integer}]}
- prompts: the user's messages in order (several for a multi-turn case), copied from the document.
- negative: true when the document says no tool should be called; then expectedTools is [].
- expectedTools: only tools the document expects, spelled as in the tool list when it is clearly the same tool.
- startLine/endLine: the 1-based inclusive lines (as numbered) the case came from.
- key: the case's id in the document (e.g. TC-004), or null."#;

fn user_message(
    ix: &LineIndex,
    file_name: &str,
    (a, b): (usize, usize),
    tools: &[DiscoveredTool],
) -> String {
    let tools: Vec<Value> = tools
        .iter()
        .map(|t| json!({"name": t.tool.name, "description": t.tool.description, "inputSchema": t.tool.input_schema}))
        .collect();
    let mut s = format!(
        "Tools of the server under test:\n{}\n\nDocument `{file_name}`, lines {a} to {b}:\n",
        serde_json::to_string(&tools).unwrap_or_default()
    );
    for n in a..=b {
        s.push_str(&format!("{n}| {}\n", ix.line(n)));
    }
    s
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ModelCase {
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    key: Option<String>,
    #[serde(default)]
    prompts: Vec<String>,
    #[serde(default)]
    prompt: Option<String>,
    #[serde(default)]
    negative: bool,
    #[serde(default)]
    expected_tools: Vec<ModelTool>,
    #[serde(default)]
    response_contains: Vec<String>,
    #[serde(default)]
    response_patterns: Vec<String>,
    #[serde(default)]
    expected_output: Option<String>,
    start_line: Option<i64>,
    end_line: Option<i64>,
}

#[derive(Debug, Deserialize)]
struct ModelTool {
    name: String,
    #[serde(default, alias = "args")]
    arguments: Option<Value>,
}

/// Parses and checks a reply: the cases read and the problems of single cases, or `Err`
/// when the reply's shape is wrong. Problems are sent back to the model once.
type Parsed = std::result::Result<(Vec<ModelCase>, Vec<String>), Vec<String>>;

fn parse_reply(text: &str, (a, b): (usize, usize)) -> Parsed {
    let t = text.trim();
    let t = t
        .strip_prefix("```json")
        .or_else(|| t.strip_prefix("```"))
        .map(|r| r.trim_end().trim_end_matches("```"))
        .unwrap_or(t);
    let (s, e) = match (t.find(['{', '[']), t.rfind(['}', ']'])) {
        (Some(s), Some(e)) if e > s => (s, e),
        _ => return Err(vec!["the reply holds no JSON object".into()]),
    };
    let v: Value = serde_json::from_str(&t[s..=e])
        .map_err(|err| vec![format!("the reply is not valid JSON: {err}")])?;
    let list = match v {
        Value::Object(mut o) => o
            .remove("cases")
            .ok_or_else(|| vec!["the object has no `cases` array".to_string()])?,
        arr @ Value::Array(_) => arr,
        _ => return Err(vec!["expected an object with `cases`".into()]),
    };
    let Value::Array(items) = list else {
        return Err(vec!["`cases` is not an array".into()]);
    };
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        match serde_json::from_value::<ModelCase>(item) {
            Ok(mut c) => {
                if let Some(p) = c.prompt.take() {
                    c.prompts.insert(0, p);
                }
                c.prompts.retain(|p| !p.trim().is_empty());
                if c.prompts.is_empty() {
                    problems.push(format!("cases[{i}] has no prompt"));
                }
                match (c.start_line, c.end_line) {
                    (Some(s), Some(e)) if s >= a as i64 && e <= b as i64 && s <= e => {}
                    (s, e) => problems.push(format!(
                        "cases[{i}] has lines {s:?}..{e:?}, outside the numbered lines {a}..{b} or reversed"
                    )),
                }
                out.push(c);
            }
            Err(err) => problems.push(format!("cases[{i}]: {err}")),
        }
    }
    Ok((out, problems))
}

struct Reply {
    text: String,
    tokens_in: i64,
    tokens_out: i64,
}

async fn chat(
    http: &reqwest::Client,
    cfg: &AuthorConfig,
    messages: &[(String, String)],
    timeout: Duration,
) -> Result<Reply> {
    let unreachable = |e: reqwest::Error| {
        Error::new(
            if e.is_timeout() {
                Code::Timeout
            } else {
                Code::ServerUnreachable
            },
            format!("the model endpoint did not answer: {e}"),
        )
    };
    let (req, anthropic) = match cfg {
        AuthorConfig::OpenAi {
            base_url,
            api_key,
            model,
        } => {
            let mut msgs = vec![json!({"role": "system", "content": SYSTEM})];
            msgs.extend(
                messages
                    .iter()
                    .map(|(r, c)| json!({"role": r, "content": c})),
            );
            let mut rb = http
                .post(format!(
                    "{}/chat/completions",
                    base_url.trim_end_matches('/')
                ))
                .json(&json!({"model": model, "temperature": 0, "messages": msgs}));
            if let Some(k) = api_key {
                rb = rb.bearer_auth(k);
            }
            (rb, false)
        }
        AuthorConfig::Anthropic {
            base_url,
            api_key,
            model,
        } => {
            let msgs: Vec<Value> = messages
                .iter()
                .map(|(r, c)| json!({"role": r, "content": c}))
                .collect();
            let mut rb = http
                .post(format!("{}/messages", base_url.trim_end_matches('/')))
                .header("anthropic-version", "2023-06-01")
                .json(&json!({"model": model, "max_tokens": 8192, "system": SYSTEM, "messages": msgs}));
            if let Some(k) = api_key {
                rb = rb.header("x-api-key", k);
            }
            (rb, true)
        }
        AuthorConfig::Builtin => return Err(Error::internal("the built-in author does not chat")),
    };
    let res = req.timeout(timeout).send().await.map_err(unreachable)?;
    let status = res.status();
    let body: Value = res.json().await.map_err(unreachable)?;
    if !status.is_success() {
        let msg = body
            .pointer("/error/message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| body.to_string().chars().take(300).collect());
        return Err(Error::new(
            Code::ServerUnreachable,
            format!("the model endpoint answered {status}: {msg}"),
        ));
    }
    let (text, tin, tout) = if anthropic {
        // Every text block, in order (a reply may open with a thinking block).
        let text: String = body
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n");
        (
            text,
            body.pointer("/usage/input_tokens"),
            body.pointer("/usage/output_tokens"),
        )
    } else {
        (
            body.pointer("/choices/0/message/content")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            body.pointer("/usage/prompt_tokens"),
            body.pointer("/usage/completion_tokens"),
        )
    };
    Ok(Reply {
        text,
        tokens_in: tin.and_then(Value::as_i64).unwrap_or(0),
        tokens_out: tout.and_then(Value::as_i64).unwrap_or(0),
    })
}

/// Authors drafts for the whole document, chunk by chunk.
pub async fn author(
    http: &reqwest::Client,
    cfg: &AuthorConfig,
    ix: &LineIndex<'_>,
    file_name: &str,
    tools: &[DiscoveredTool],
    chunk_chars: usize,
    timeout: Duration,
) -> Result<Authored> {
    let model = cfg.model().unwrap_or_default().to_string();
    let mut out = Authored {
        drafts: Vec::new(),
        tokens_in: 0,
        tokens_out: 0,
    };
    if ix.text().trim().is_empty() {
        return Ok(out);
    }
    for span in chunks(ix, chunk_chars.max(1024)) {
        let mut messages = vec![("user".to_string(), user_message(ix, file_name, span, tools))];
        let mut attempt = 0;
        let cases = loop {
            let reply = chat(http, cfg, &messages, timeout).await?;
            out.tokens_in += reply.tokens_in;
            out.tokens_out += reply.tokens_out;
            match parse_reply(&reply.text, span) {
                Ok((cases, problems)) if problems.is_empty() || attempt > 0 => {
                    // Still-faulty cases after the retry are kept: they become drafts that
                    // the commit skips with their reason, for a person to finish.
                    break cases;
                }
                Ok((_, problems)) | Err(problems) if attempt == 0 => {
                    attempt += 1;
                    messages.push(("assistant".into(), reply.text));
                    messages.push((
                        "user".into(),
                        format!(
                            "Your reply was invalid:\n- {}\nReply again with only the corrected JSON object.",
                            problems.join("\n- ")
                        ),
                    ));
                }
                Ok((_, problems)) | Err(problems) => {
                    return Err(Error::new(
                        Code::Other("MODEL_OUTPUT_INVALID".into()),
                        format!(
                            "the model `{model}` gave invalid drafts twice: {}",
                            problems.join("; ")
                        ),
                    ));
                }
            }
        };
        for c in cases {
            let (s, e) = match (c.start_line, c.end_line) {
                (Some(s), Some(e)) if s >= span.0 as i64 && s <= e && e <= span.1 as i64 => {
                    (s as usize, e as usize)
                }
                _ => span,
            };
            let mut d = Draft {
                title: c.title.unwrap_or_default(),
                key: c.key.filter(|k| !k.trim().is_empty()),
                prompts: c.prompts,
                negative: c.negative,
                expected_output: c.expected_output.filter(|o| !o.trim().is_empty()),
                start_line: s,
                end_line: e,
                ..Draft::default()
            };
            if !c.negative {
                d.expected_calls = c
                    .expected_tools
                    .into_iter()
                    .map(|t| ExpectedCall {
                        tool: t.name,
                        args: t
                            .arguments
                            .and_then(|a| a.as_object().cloned())
                            .filter(|a| !a.is_empty()),
                    })
                    .collect();
            }
            d.contains = c
                .response_contains
                .into_iter()
                .filter(|n| !n.is_empty())
                .map(|text| Needle {
                    text,
                    case_sensitive: None,
                })
                .collect();
            d.patterns = c.response_patterns;
            d.notes.push(format!(
                "authored by the model `{model}` from the document's wording"
            ));
            d.ensure_title();
            out.drafts.push(d);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_cover_every_line_once() {
        let text: String = (1..=200)
            .map(|i| {
                if i % 10 == 0 {
                    "\n".to_string()
                } else {
                    format!("line {i} of the plan\n")
                }
            })
            .collect();
        let ix = LineIndex::new(&text);
        let c = chunks(&ix, 1000);
        assert!(c.len() > 2);
        assert_eq!(c[0].0, 1);
        assert_eq!(c.last().unwrap().1, ix.len());
        for w in c.windows(2) {
            assert_eq!(w[0].1 + 1, w[1].0);
        }
    }

    #[test]
    fn replies_are_checked() {
        let ok = "```json\n{\"cases\": [{\"title\": \"t\", \"prompts\": [\"p\"], \"startLine\": 2, \"endLine\": 3}]}\n```";
        let (cases, problems) = parse_reply(ok, (1, 5)).unwrap();
        assert_eq!((cases.len(), problems.len()), (1, 0));
        let bad =
            "{\"cases\": [{\"title\": \"t\", \"prompts\": [], \"startLine\": 9, \"endLine\": 3}]}";
        assert_eq!(parse_reply(bad, (1, 5)).unwrap().1.len(), 2);
        assert!(parse_reply("sorry, I can't", (1, 5)).is_err());
    }
}
