//! The workbench: a ratatui app over a [`Backend`] (embedded core or remote `/api/v1`).
//!
//! Shape (after Slumber and gitui): [`app::App`] is the controller; it owns the backend and
//! a reply queue. [`run`] is one loop that takes queued replies first, then input, and
//! draws once per batch. Backend calls run on spawned tasks and post their replies back
//! tagged with a generation, so the loop never waits on I/O and a stale reply never
//! overwrites a newer one. Logs go to a file in the data directory, never to the screen.

pub mod app;
pub mod case_form;
pub mod forms;
pub mod keymap;
pub mod message;
pub mod nav;
pub mod panes;
pub mod section;
pub mod settings;
pub mod terminal;
pub mod theme;
pub mod widgets;

use std::sync::Arc;
use std::time::Duration;

use crossterm::event::EventStream;
use futures::StreamExt;
use tokio::time::MissedTickBehavior;

use crate::client::Backend;
pub use app::App;

enum Step {
    Reply(app::Incoming),
    Input(Option<std::io::Result<crossterm::event::Event>>),
    Tick,
}

/// Runs the workbench until the user quits. The terminal is restored on every exit path,
/// panics included.
pub async fn run(backend: Arc<dyn Backend>) -> anyhow::Result<()> {
    run_opening(backend, Opening::Home).await
}

/// Where the workbench opens.
pub enum Opening {
    Home,
    /// A review link (an import's `reviewUrl`): exactly its drafts.
    Review(String),
    /// One server of a project, selected in the servers pane.
    Server {
        project: String,
        id: String,
    },
}

/// Runs the workbench, opened where `opening` says.
pub async fn run_opening(backend: Arc<dyn Backend>, opening: Opening) -> anyhow::Result<()> {
    if let Opening::Review(u) = &opening
        && panes::import::parse_review_url(u).is_none()
    {
        anyhow::bail!("not a review link: {u} (expected …/review/PROJECT/JOB?drafts=…)");
    }
    let log = terminal::init_logging();
    tracing::info!(backend = %backend.describe(), "workbench starting");
    // Never dropped: ratatui's `Terminal` prints to stderr when its drop cannot show the
    // cursor, and printing to a terminal that hung up panics, which would skip the
    // caller's cleanup (an unsaved target stayed saved). `RestoreOnDrop` shows the cursor.
    let mut term = std::mem::ManuallyDrop::new(terminal::enter()?);
    let _restore = terminal::RestoreOnDrop;
    // Before input is read: a terminal that draws graphics answers on standard input.
    widgets::picture::detect();
    let mut app = App::new(backend);
    app.copy_to_terminal(true);
    match opening {
        Opening::Home => {}
        Opening::Review(u) => {
            app.open_url(&u);
        }
        Opening::Server { project, id } => app.open_server(project, id),
    }
    let mut events = EventStream::new();
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    tick.set_missed_tick_behavior(MissedTickBehavior::Skip);
    // A closed terminal (SIGHUP) or a kill (SIGTERM) ends the workbench like `q`: the
    // terminal is restored and what it started is cleaned up by its caller.
    use tokio::signal::unix::{SignalKind, signal};
    let mut hangup = signal(SignalKind::hangup())?;
    let mut terminate = signal(SignalKind::terminate())?;
    loop {
        term.draw(|f| app.render(f))?;
        if app.should_quit() {
            break;
        }
        let animating = app.animating();
        let step = tokio::select! {
            biased;
            _ = hangup.recv() => break,
            _ = terminate.recv() => break,
            Some(i) = app.recv() => Step::Reply(i),
            ev = events.next() => Step::Input(ev),
            _ = tick.tick(), if animating => Step::Tick,
        };
        if !handle(&mut app, step)? {
            break;
        }
        // Whatever else is already waiting joins this batch: one draw for all of it. (The
        // stream is polled inside this task, never with a no-op waker, or it stops waking.)
        for _ in 0..256 {
            let step = tokio::select! {
                biased;
                Some(i) = app.recv() => Step::Reply(i),
                Some(ev) = events.next() => Step::Input(Some(ev)),
                _ = std::future::ready(()) => break,
            };
            if !handle(&mut app, step)? || app.should_quit() {
                break;
            }
        }
    }
    tracing::info!("workbench closed");
    drop(log);
    Ok(())
}

/// Applies one step; `false` when input has ended.
fn handle(app: &mut App, step: Step) -> anyhow::Result<bool> {
    match step {
        Step::Reply(i) => app.on_incoming(i),
        Step::Input(Some(Ok(ev))) => app.handle_event(ev),
        Step::Input(Some(Err(e))) => return Err(e.into()),
        Step::Input(None) => return Ok(false),
        Step::Tick => app.on_tick(),
    }
    Ok(true)
}
