//! The workbench's settings file: `workbench.json` in the user's config directory
//! (`~/.config/evaldeck/` on Linux, or `$EVALDECK_CONFIG_DIR`). Every field is optional:
//!
//! ```json
//! { "theme": "mono", "keys": { "C-r": "refresh", "F2": "import", "R": {"goto": "runs"} },
//!   "backend": { "url": "http://127.0.0.1:8787/api/v1", "apiKeyEnv": "EVALDECK_API_KEY" } }
//! ```
//!
//! `theme` is `color` (the default) or `mono`; `NO_COLOR` always wins. `keys` binds key
//! names (`j`, `G`, `C-x`, `Enter`, `F5`, …) to the serde names of [`Action`]; a binding
//! here comes before the built-in ones, so it also becomes the key the footer shows.
//! `backend` is the default remote of the workbench and the CLI when no flag or environment
//! variable picks one; it names the variable holding the API key, never the key itself.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Deserializer};
use serde_json::json;

use crate::spec::{Code, Error};

use super::keymap::{Action, Key, Keymap};
use super::theme::Theme;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThemeName {
    #[default]
    Color,
    Mono,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    pub theme: ThemeName,
    pub keys: BTreeMap<String, Action>,
    pub backend: Option<BackendSetting>,
}

/// The environment variable a default backend's key is read from unless the file names one.
pub const DEFAULT_API_KEY_ENV: &str = "EVALDECK_API_KEY";

/// A remote backend to use by default. The key stays in the environment: files get
/// committed, copied and shared, so `apiKey` is refused outright.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(from = "BackendFields")]
pub struct BackendSetting {
    /// An `evaldeck serve` (or any `/api/v1`) base URL.
    pub url: String,
    /// The environment variable holding the API key.
    pub api_key_env: String,
}

/// The `backend` section as written, validated field by field (so errors keep their line).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct BackendFields {
    #[serde(deserialize_with = "http_url")]
    url: String,
    #[serde(default = "default_api_key_env", deserialize_with = "env_name")]
    api_key_env: String,
    /// Never set: present only so that an `apiKey` gets its own explanation.
    #[serde(default, deserialize_with = "no_key")]
    api_key: (),
}

impl From<BackendFields> for BackendSetting {
    fn from(f: BackendFields) -> Self {
        let BackendFields {
            url,
            api_key_env,
            api_key: (),
        } = f;
        BackendSetting { url, api_key_env }
    }
}

fn default_api_key_env() -> String {
    DEFAULT_API_KEY_ENV.to_string()
}

fn http_url<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    match reqwest::Url::parse(&s) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.has_host() => Ok(s),
        _ => Err(serde::de::Error::custom(format!(
            "backend.url `{s}` is not an absolute http:// or https:// URL"
        ))),
    }
}

fn env_name<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let s = String::deserialize(d)?;
    if s.starts_with("sk_") {
        return Err(serde::de::Error::custom(
            "backend.apiKeyEnv looks like an API key: name the environment variable that holds the key instead",
        ));
    }
    let valid = !s.is_empty()
        && !s.starts_with(|c: char| c.is_ascii_digit())
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(serde::de::Error::custom(format!(
            "backend.apiKeyEnv `{s}` is not an environment variable name (letters, digits and `_`)"
        )));
    }
    Ok(s)
}

fn no_key<'de, D: Deserializer<'de>>(_: D) -> Result<(), D::Error> {
    Err(serde::de::Error::custom(
        "backend.apiKey is not allowed: keep the key in an environment variable and name it with apiKeyEnv",
    ))
}

/// A serde error as `line L, column C: message` (serde's own message ends with the place).
fn located(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let place = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&place) {
        Some(msg) => format!("line {}, column {}: {msg}", e.line(), e.column()),
        None => text,
    }
}

impl Settings {
    /// Where the file lives: `$EVALDECK_CONFIG_DIR/workbench.json` when that is set (tests,
    /// portable setups), else the user's config directory.
    pub fn path() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("EVALDECK_CONFIG_DIR").filter(|d| !d.is_empty()) {
            return Some(PathBuf::from(dir).join("workbench.json"));
        }
        directories::ProjectDirs::from("", "", "evaldeck")
            .map(|d| d.config_dir().join("workbench.json"))
    }

    /// The file's default backend, for the workbench and the CLI when no flag or environment
    /// variable chose one. A missing file has none; a file that cannot be read or parsed is
    /// an error naming it and the line, since silently falling back to the embedded store
    /// would send the user's commands somewhere they did not mean.
    pub fn default_backend() -> crate::spec::Result<Option<BackendSetting>> {
        match Settings::path() {
            Some(path) => Settings::backend_in(&path),
            None => Ok(None),
        }
    }

    /// [`Settings::default_backend`] of the file at `path`.
    pub fn backend_in(path: &Path) -> crate::spec::Result<Option<BackendSetting>> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(Error::new(
                    Code::ValidationError,
                    format!("cannot read the settings file {}: {e}", path.display()),
                )
                .with_details(json!({"file": path.display().to_string()})));
            }
        };
        // Only the JSON is checked here: a bad key binding is the workbench's to report.
        serde_json::from_str::<Settings>(&text)
            .map(|s| s.backend)
            .map_err(|e| {
                Error::new(
                    Code::ValidationError,
                    format!(
                        "the settings file {} is malformed: {}",
                        path.display(),
                        located(&e)
                    ),
                )
                .with_details(json!({
                    "file": path.display().to_string(),
                    "line": e.line(),
                    "column": e.column(),
                }))
            })
    }

    /// Reads the file; a missing file is the defaults, a broken one is the defaults plus the
    /// reason (shown in the footer at start).
    pub fn load() -> (Settings, Option<String>) {
        let Some(path) = Settings::path() else {
            return (Settings::default(), None);
        };
        match std::fs::read_to_string(&path) {
            Err(_) => (Settings::default(), None),
            Ok(text) => match Settings::parse(&text) {
                Ok(s) => (s, None),
                Err(e) => (
                    Settings::default(),
                    Some(format!("{}: {e}", path.display())),
                ),
            },
        }
    }

    pub fn parse(text: &str) -> Result<Settings, String> {
        let s: Settings = serde_json::from_str(text).map_err(|e| located(&e))?;
        s.keymap()?;
        Ok(s)
    }

    pub fn theme(&self) -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Theme::new(!no_color && self.theme == ThemeName::Color)
    }

    pub fn keymap(&self) -> Result<Keymap, String> {
        let mut extra = Vec::new();
        for (name, action) in &self.keys {
            let key = Key::parse(name).ok_or_else(|| format!("unknown key name `{name}`"))?;
            extra.push((key, *action));
        }
        Ok(Keymap::with_bindings(extra))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

    #[test]
    fn keys_bind_actions_by_their_serde_names() {
        let s = Settings::parse(
            r#"{"theme": "mono", "keys": {"C-r": "refresh", "F2": "import", "R": {"goto": "runs"}}}"#,
        )
        .unwrap();
        assert_eq!(s.theme, ThemeName::Mono);
        let km = s.keymap().unwrap();
        let ctrl_r = KeyEvent::new(KeyCode::Char('r'), KeyModifiers::CONTROL);
        assert_eq!(km.action(&ctrl_r), Some(Action::Refresh));
        assert_eq!(
            km.action(&KeyEvent::new(KeyCode::F(2), KeyModifiers::NONE)),
            Some(Action::Import)
        );
        assert_eq!(
            km.action(&KeyEvent::new(KeyCode::Char('R'), KeyModifiers::SHIFT)),
            Some(Action::Goto(crate::tui::section::Section::Runs))
        );
        assert_eq!(km.key_for(Action::Import).as_deref(), Some("F2"));
        assert!(Settings::parse(r#"{"keys": {"C-": "quit"}}"#).is_err());
        assert!(Settings::parse(r#"{"keys": {"x": "fly"}}"#).is_err());
        assert!(Settings::parse(r#"{"colour": "mono"}"#).is_err());
    }

    #[test]
    fn the_backend_section_names_a_url_and_the_keys_variable() {
        let s = Settings::parse(
            r#"{"backend": {"url": "http://127.0.0.1:8787/api/v1", "apiKeyEnv": "TEAM_KEY"}}"#,
        )
        .unwrap();
        let b = s.backend.unwrap();
        assert_eq!(b.url, "http://127.0.0.1:8787/api/v1");
        assert_eq!(b.api_key_env, "TEAM_KEY");
        let b = Settings::parse(r#"{"backend": {"url": "https://evals.example.com"}}"#)
            .unwrap()
            .backend
            .unwrap();
        assert_eq!(b.api_key_env, DEFAULT_API_KEY_ENV);
        assert_eq!(Settings::parse("{}").unwrap().backend, None);
    }

    #[test]
    fn a_bad_backend_section_says_what_and_where() {
        for (text, wanted) in [
            (r#"{"backend": {"apiKeyEnv": "K"}}"#, "missing field `url`"),
            (r#"{"backend": {"url": "ftp://x"}}"#, "not an absolute http"),
            (
                r#"{"backend": {"url": "localhost:8787"}}"#,
                "not an absolute http",
            ),
            (
                r#"{"backend": {"url": "http://x", "apiKeyEnv": "1X"}}"#,
                "not an environment variable name",
            ),
            (
                r#"{"backend": {"url": "http://x", "apiKeyEnv": "sk_abc"}}"#,
                "looks like an API key",
            ),
            (
                r#"{"backend": {"url": "http://x", "apiKey": "sk_abc"}}"#,
                "apiKey is not allowed",
            ),
            (
                r#"{"backend": {"url": "http://x", "token": "t"}}"#,
                "unknown field `token`",
            ),
            (r#"{"backend": "http://x"}"#, "invalid type"),
        ] {
            let e = Settings::parse(text).unwrap_err();
            assert!(e.contains(wanted), "{text}: {e}");
            assert!(e.starts_with("line 1, column "), "{text}: {e}");
        }
    }

    #[test]
    fn reading_the_default_backend_names_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("workbench.json");
        assert_eq!(
            Settings::backend_in(&path).unwrap(),
            None,
            "no file, no default"
        );

        std::fs::write(
            &path,
            "{\n  \"theme\": \"mono\",\n  \"backend\": {\"url\": 42}\n}\n",
        )
        .unwrap();
        let e = Settings::backend_in(&path).unwrap_err();
        assert_eq!(e.code, Code::ValidationError);
        assert!(
            e.message.contains(&path.display().to_string()),
            "{}",
            e.message
        );
        assert!(e.message.contains("line 3, column"), "{}", e.message);
        let d = e.details.unwrap();
        assert_eq!(d["line"], 3);
        assert_eq!(d["file"], path.display().to_string());

        // A bad key binding is the workbench's to report; the backend still applies.
        std::fs::write(
            &path,
            r#"{"keys": {"C-": "quit"}, "backend": {"url": "http://127.0.0.1:1"}}"#,
        )
        .unwrap();
        let b = Settings::backend_in(&path).unwrap().unwrap();
        assert_eq!(b.url, "http://127.0.0.1:1");
    }
}
