//! Entering and leaving the terminal (raw mode, alternate screen, mouse, bracketed paste),
//! restored on every exit path: normal return, error and panic. And the log file.

use std::fs::File;
use std::io::{self, stdout};
use std::path::PathBuf;
use std::sync::Mutex;

use crossterm::cursor::Show;
use crossterm::event::{
    DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
};
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::DefaultTerminal;
use ratatui::backend::CrosstermBackend;

/// Switches the terminal into the workbench's mode and installs a panic hook that puts it
/// back before the panic message prints.
pub fn enter() -> io::Result<DefaultTerminal> {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        restore();
        tracing::error!(%info, "panic");
        previous(info);
    }));
    enable_raw_mode()?;
    if let Err(e) = execute!(
        stdout(),
        EnterAlternateScreen,
        EnableMouseCapture,
        EnableBracketedPaste
    ) {
        restore();
        return Err(e);
    }
    ratatui::Terminal::new(CrosstermBackend::new(stdout()))
}

/// Puts the terminal back; safe to call more than once.
pub fn restore() {
    let _ = execute!(
        stdout(),
        DisableBracketedPaste,
        DisableMouseCapture,
        LeaveAlternateScreen,
        Show
    );
    let _ = disable_raw_mode();
}

/// Restores the terminal when dropped, so `?` and early returns restore it too.
pub struct RestoreOnDrop;

impl Drop for RestoreOnDrop {
    fn drop(&mut self) {
        restore();
    }
}

/// Where the workbench logs: `evaldeck.log` in the user's data directory.
pub fn log_path() -> PathBuf {
    directories::ProjectDirs::from("dev", "evaldeck", "evaldeck")
        .map(|d| d.data_dir().join("evaldeck.log"))
        .unwrap_or_else(|| std::env::temp_dir().join("evaldeck.log"))
}

/// Sends tracing output to the log file (`EVALDECK_LOG` sets the filter). Returns the path
/// when logging was set up; a missing directory or an existing subscriber is not an error.
pub fn init_logging() -> Option<PathBuf> {
    use tracing_subscriber::EnvFilter;
    let path = log_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).ok()?;
    }
    let file = File::options().create(true).append(true).open(&path).ok()?;
    let filter = EnvFilter::try_from_env("EVALDECK_LOG")
        .unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(Mutex::new(file))
        .try_init()
        .ok()?;
    Some(path)
}
