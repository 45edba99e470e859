//! Keys become [`Action`]s through one table, so the footer, the help overlay and the
//! command palette all name the same keys, and a config file can later rebind them (the
//! enum is serde for that reason).

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde::{Deserialize, Serialize};

use super::section::Section;

/// Everything a key can ask for. Global actions are handled by the app; the rest go to the
/// focused pane, which says in its `commands()` which ones it understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    Help,
    Palette,
    Filter,
    FocusNext,
    FocusPrev,
    Up,
    Down,
    Left,
    Right,
    Top,
    Bottom,
    PageUp,
    PageDown,
    Open,
    Back,
    Refresh,
    /// Add an item (a server).
    New,
    Delete,
    ToggleArchived,
    Archive,
    Restore,
    /// Connect and initialize a server (its status).
    Validate,
    /// A server's saved config.
    Config,
    Doctor,
    /// A server's conformance checks, its drift since the last check, the scan.
    Checks,
    Tools,
    Prompts,
    Resources,
    /// A server's protocol events.
    Protocol,
    /// Copy the selected item (a protocol message) to the clipboard.
    Copy,
    /// Edit the selected item (a case).
    Edit,
    /// Paste or load a test plan into the selected suite.
    Import,
    /// Start a run of the selected suite.
    StartRun,
    /// Cancel what is running (a run, a job).
    Cancel,
    /// Mark the selected run as the base of a comparison.
    Mark,
    /// Compare the selected run with the marked one.
    Compare,
    /// Grade a finished run's stored transcripts again.
    Regrade,
    /// Edit a suite's scheduled runs.
    Schedule,
    /// Talk to the project's agent.
    Agent,
    /// The organization's credit balance and ledger.
    Credits,
    Goto(Section),
}

impl Action {
    /// What the action does, for help, footer and palette.
    pub fn label(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Help => "help",
            Action::Palette => "command",
            Action::Filter => "filter",
            Action::FocusNext => "next pane",
            Action::FocusPrev => "previous pane",
            Action::Up => "up",
            Action::Down => "down",
            Action::Left => "left",
            Action::Right => "right",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::PageUp => "page up",
            Action::PageDown => "page down",
            Action::Open => "open",
            Action::Back => "back",
            Action::Refresh => "refresh",
            Action::New => "new",
            Action::Delete => "delete",
            Action::ToggleArchived => "archived",
            Action::Archive => "archive",
            Action::Restore => "restore",
            Action::Validate => "validate",
            Action::Config => "config",
            Action::Doctor => "doctor",
            Action::Checks => "checks",
            Action::Tools => "tools",
            Action::Prompts => "prompts",
            Action::Resources => "resources",
            Action::Protocol => "protocol",
            Action::Copy => "copy",
            Action::Edit => "edit",
            Action::Import => "import",
            Action::StartRun => "start a run",
            Action::Cancel => "cancel",
            Action::Mark => "mark",
            Action::Compare => "compare",
            Action::Regrade => "regrade",
            Action::Schedule => "schedule",
            Action::Agent => "agent",
            Action::Credits => "credits",
            Action::Goto(s) => s.goto_label(),
        }
    }
}

/// One binding: a key with its modifiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Key {
    const fn plain(code: KeyCode) -> Key {
        Key {
            code,
            mods: KeyModifiers::NONE,
        }
    }
    const fn ch(c: char) -> Key {
        Key::plain(KeyCode::Char(c))
    }
    const fn ctrl(c: char) -> Key {
        Key {
            code: KeyCode::Char(c),
            mods: KeyModifiers::CONTROL,
        }
    }

    /// Parses a key name: `j`, `G`, `?`, `C-x`, `A-x`, `Enter`, `Esc`, `Tab`, `BackTab`,
    /// `Up`, `Down`, `Left`, `Right`, `Home`, `End`, `PgUp`, `PgDn`, `Delete`, `Space`, `F1`…
    pub fn parse(name: &str) -> Option<Key> {
        if let Some(rest) = name.strip_prefix("C-") {
            let mut k = Key::parse(rest)?;
            k.mods |= KeyModifiers::CONTROL;
            return Some(k);
        }
        if let Some(rest) = name.strip_prefix("A-") {
            let mut k = Key::parse(rest)?;
            k.mods |= KeyModifiers::ALT;
            return Some(k);
        }
        let code = match name {
            "Enter" => KeyCode::Enter,
            "Esc" => KeyCode::Esc,
            "Tab" => KeyCode::Tab,
            "BackTab" => KeyCode::BackTab,
            "Up" => KeyCode::Up,
            "Down" => KeyCode::Down,
            "Left" => KeyCode::Left,
            "Right" => KeyCode::Right,
            "Home" => KeyCode::Home,
            "End" => KeyCode::End,
            "PgUp" => KeyCode::PageUp,
            "PgDn" => KeyCode::PageDown,
            "Delete" => KeyCode::Delete,
            "Backspace" => KeyCode::Backspace,
            "Space" => KeyCode::Char(' '),
            f if f.len() > 1 && f.starts_with('F') => KeyCode::F(f[1..].parse().ok()?),
            c if c.chars().count() == 1 => KeyCode::Char(c.chars().next()?),
            _ => return None,
        };
        Some(Key::plain(code))
    }

    /// Whether a terminal key event is this binding. Shift is folded into the character
    /// (`G`, `?`), since terminals disagree on whether they report it.
    fn matches(&self, ev: &KeyEvent) -> bool {
        if ev.code != self.code {
            return false;
        }
        let relevant = KeyModifiers::CONTROL | KeyModifiers::ALT;
        (ev.modifiers & relevant) == (self.mods & relevant)
    }

    /// How the key is written in the footer and help: `j`, `Enter`, `Ctrl-c`.
    pub fn display(&self) -> String {
        let base = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "Shift-Tab".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Delete => "Del".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        if self.mods.contains(KeyModifiers::CONTROL) {
            format!("Ctrl-{base}")
        } else {
            base
        }
    }
}

/// The key table. Order matters only for display: the first key bound to an action is the
/// one the footer shows.
pub struct Keymap {
    bindings: Vec<(Key, Action)>,
}

impl Default for Keymap {
    fn default() -> Self {
        use Action::*;
        use KeyCode as K;
        let bindings = vec![
            (Key::ch('q'), Quit),
            (Key::ctrl('c'), Quit),
            (Key::ch('?'), Help),
            (Key::ch(':'), Palette),
            (Key::ch('/'), Filter),
            (Key::plain(K::Tab), FocusNext),
            (Key::plain(K::BackTab), FocusPrev),
            (Key::ch('k'), Up),
            (Key::plain(K::Up), Up),
            (Key::ch('j'), Down),
            (Key::plain(K::Down), Down),
            (Key::ch('h'), Left),
            (Key::plain(K::Left), Left),
            (Key::ch('l'), Right),
            (Key::plain(K::Right), Right),
            (Key::ch('g'), Top),
            (Key::plain(K::Home), Top),
            (Key::ch('G'), Bottom),
            (Key::plain(K::End), Bottom),
            (Key::plain(K::PageUp), PageUp),
            (Key::ctrl('u'), PageUp),
            (Key::plain(K::PageDown), PageDown),
            (Key::ctrl('d'), PageDown),
            (Key::plain(K::Enter), Open),
            (Key::plain(K::Esc), Back),
            (Key::ch('r'), Refresh),
            (Key::plain(K::F(5)), Refresh),
            (Key::ch('n'), New),
            (Key::ch('D'), Delete),
            (Key::plain(K::Delete), Delete),
            (Key::ch('a'), ToggleArchived),
            (Key::ch('x'), Archive),
            (Key::ch('u'), Restore),
            (Key::ch('v'), Validate),
            (Key::ch('c'), Config),
            (Key::ch('d'), Doctor),
            (Key::ch('K'), Checks),
            (Key::ch('t'), Tools),
            (Key::ch('p'), Prompts),
            (Key::ch('R'), Resources),
            (Key::ch('P'), Protocol),
            (Key::ch('y'), Copy),
            (Key::ch('e'), Edit),
            (Key::ch('i'), Import),
            (Key::ch('s'), StartRun),
            (Key::ch('X'), Cancel),
            (Key::ch('m'), Mark),
            (Key::ch('C'), Compare),
            (Key::ch('E'), Regrade),
            (Key::ch('S'), Schedule),
            (Key::ch('A'), Agent),
            (Key::ch('$'), Credits),
            (Key::ch('1'), Goto(Section::Projects)),
            (Key::ch('2'), Goto(Section::Servers)),
            (Key::ch('3'), Goto(Section::Environments)),
            (Key::ch('4'), Goto(Section::Hosts)),
            (Key::ch('5'), Goto(Section::Suites)),
            (Key::ch('6'), Goto(Section::Runs)),
        ];
        Keymap { bindings }
    }
}

impl Keymap {
    /// The built-in table with `extra` bindings in front (they win, and show in the footer).
    pub fn with_bindings(extra: Vec<(Key, Action)>) -> Keymap {
        let mut km = Keymap::default();
        let mut bindings = extra;
        bindings.append(&mut km.bindings);
        km.bindings = bindings;
        km
    }

    pub fn action(&self, ev: &KeyEvent) -> Option<Action> {
        self.bindings
            .iter()
            .find(|(k, _)| k.matches(ev))
            .map(|(_, a)| *a)
    }

    /// The first key bound to an action, as displayed.
    pub fn key_for(&self, action: Action) -> Option<String> {
        self.bindings
            .iter()
            .find(|(_, a)| *a == action)
            .map(|(k, _)| k.display())
    }

    /// Every key bound to an action, as displayed (`j/↓`).
    pub fn keys_for(&self, action: Action) -> String {
        let keys: Vec<String> = self
            .bindings
            .iter()
            .filter(|(_, a)| *a == action)
            .map(|(k, _)| k.display())
            .collect();
        keys.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shift_is_folded_into_the_character() {
        let km = Keymap::default();
        let ev = KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT);
        assert_eq!(km.action(&ev), Some(Action::Bottom));
        let ev = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL);
        assert_eq!(km.action(&ev), Some(Action::Quit));
        let ev = KeyEvent::new(KeyCode::Char('c'), KeyModifiers::NONE);
        assert_eq!(km.action(&ev), Some(Action::Config));
        let ev = KeyEvent::new(KeyCode::Char('z'), KeyModifiers::NONE);
        assert_eq!(km.action(&ev), None);
        assert_eq!(km.keys_for(Action::Down), "j/↓");
    }
}
