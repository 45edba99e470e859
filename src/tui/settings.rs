//! The workbench's settings file: `workbench.json` in the user's config directory
//! (`~/.config/evaldeck/` on Linux). Every field is optional:
//!
//! ```json
//! { "theme": "mono", "keys": { "C-r": "refresh", "F2": "import", "R": {"goto": "runs"} } }
//! ```
//!
//! `theme` is `color` (the default) or `mono`; `NO_COLOR` always wins. `keys` binds key
//! names (`j`, `G`, `C-x`, `Enter`, `F5`, …) to the serde names of [`Action`]; a binding
//! here comes before the built-in ones, so it also becomes the key the footer shows.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

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
}

impl Settings {
    /// Where the file lives.
    pub fn path() -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", "evaldeck")
            .map(|d| d.config_dir().join("workbench.json"))
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
        let s: Settings = serde_json::from_str(text).map_err(|e| e.to_string())?;
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
            Some(Action::Goto(crate::tui::nav::Section::Runs))
        );
        assert_eq!(km.key_for(Action::Import).as_deref(), Some("F2"));
        assert!(Settings::parse(r#"{"keys": {"C-": "quit"}}"#).is_err());
        assert!(Settings::parse(r#"{"keys": {"x": "fly"}}"#).is_err());
        assert!(Settings::parse(r#"{"colour": "mono"}"#).is_err());
    }
}
