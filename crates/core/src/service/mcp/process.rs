//! Stdio servers as process trees that never outlive evaldeck.
//!
//! A stdio server runs under a small supervisor (this binary's hidden `supervise` command),
//! in a process group of its own:
//!
//! ```text
//! evaldeck ══ lifeline pipe ══▶ supervisor ──▶ server (leads group G) ──▶ its children (G)
//! ```
//!
//! The supervisor ends group G — `SIGTERM`, then `SIGKILL` for whatever is left a moment
//! later — when the server exits (a wrapper script's leftover children go with it), when
//! evaldeck asks with `SIGTERM`, and when the lifeline closes. evaldeck closes its end of
//! the lifeline when it lets a session go, and the kernel closes it when evaldeck exits in
//! any way (quit, a signal, a panic, `kill -9`); the server then first gets the grace
//! period to exit on the end of its input. The supervisor is also a child subreaper, so
//! the server's orphaned descendants are reaped rather than handed to init.
//!
//! Without a supervisor (library use where no binary was registered with
//! [`register_supervisor`]) the server leads its own group and evaldeck ends that group
//! itself, which covers every exit path that runs evaldeck's code.

use std::ffi::{OsStr, OsString};
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill, killpg};
use std::os::unix::process::CommandExt;

use nix::unistd::Pid;

/// The file descriptor the supervisor finds its end of the lifeline on.
const LIFELINE_FD: RawFd = 3;

/// How long leftover members of a server's group get after `SIGTERM` before `SIGKILL`.
const TERM_WAIT: Duration = Duration::from_millis(300);

static SUPERVISOR: OnceLock<PathBuf> = OnceLock::new();

/// Registers the binary that supervises stdio servers (`evaldeck` itself: its hidden
/// `supervise` command). The first registration wins; the pool reads it when it is built.
pub fn register_supervisor(binary: PathBuf) {
    let _ = SUPERVISOR.set(binary);
}

/// The registered supervisor binary, if any.
pub fn supervisor() -> Option<PathBuf> {
    SUPERVISOR.get().cloned()
}

/// evaldeck's end of a supervisor's lifeline, and the supervisor's end until it is spawned.
pub(crate) struct Lifeline {
    ours: OwnedFd,
    theirs: OwnedFd,
}

impl Lifeline {
    /// After the spawn: the child holds its own copy, so this process keeps only its end.
    pub(crate) fn spawned(self) -> OwnedFd {
        drop(self.theirs);
        self.ours
    }
}

/// A command that starts `program` as a stdio server: under `supervisor` when given (with
/// the lifeline to keep until the spawn), else as the leader of its own process group.
pub(crate) fn command(
    program: &Path,
    args: &[String],
    supervisor: Option<&Path>,
    grace: Duration,
) -> std::io::Result<(tokio::process::Command, Option<Lifeline>)> {
    let Some(sup) = supervisor else {
        let mut cmd = tokio::process::Command::new(program);
        cmd.args(args).process_group(0).kill_on_drop(true);
        return Ok((cmd, None));
    };
    let (theirs, ours) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)?;
    let mut cmd = tokio::process::Command::new(sup);
    cmd.arg("supervise")
        .arg("--grace-ms")
        .arg(grace.as_millis().to_string())
        .arg("--")
        .arg(program)
        .args(args)
        // Out of the terminal's group: Ctrl-C reaches evaldeck, which decides.
        .process_group(0);
    let fd = theirs.as_raw_fd();
    // SAFETY: only async-signal-safe calls between fork and exec. `dup2` onto another
    // number clears close-on-exec there; when the pipe already sits on 3, clear it here.
    unsafe {
        cmd.pre_exec(move || {
            if fd == LIFELINE_FD {
                if libc::fcntl(fd, libc::F_SETFD, 0) == -1 {
                    return Err(std::io::Error::last_os_error());
                }
            } else if libc::dup2(fd, LIFELINE_FD) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    Ok((cmd, Some(Lifeline { ours, theirs })))
}

/// Ends process group `group`: `SIGTERM`, then `SIGKILL` after [`TERM_WAIT`] to whatever is
/// left. Errors (the group is already gone) are ignored.
pub(crate) async fn end_group(group: u32) {
    let pgid = Pid::from_raw(group as i32);
    if killpg(pgid, Signal::SIGTERM).is_err() {
        return;
    }
    tokio::time::sleep(TERM_WAIT).await;
    let _ = killpg(pgid, Signal::SIGKILL);
}

/// Asks the supervisor `pid` to end its server's group now.
pub(crate) fn stop_supervisor(pid: u32) {
    let _ = kill(Pid::from_raw(pid as i32), Signal::SIGTERM);
}

/// The supervisor: runs `program` in a group of its own and ends that group when the server
/// exits, when asked (`SIGTERM`, `SIGINT`, `SIGHUP`), or `grace` after the lifeline on
/// descriptor 3 closes. Exits as the server did (its code, or the same signal).
pub fn supervise(grace: Duration, program: &OsStr, args: &[OsString]) -> i32 {
    let stop = std::sync::Arc::new(AtomicBool::new(false));
    for sig in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP] {
        let _ = signal_hook::flag::register(sig, stop.clone());
    }
    #[cfg(target_os = "linux")]
    let _ = nix::sys::prctl::set_child_subreaper(true);
    // The lifeline is the supervisor's alone.
    // SAFETY: plain fcntl on a descriptor number; an invalid one only returns an error.
    let lifeline = unsafe { libc::fcntl(LIFELINE_FD, libc::F_SETFD, libc::FD_CLOEXEC) } != -1;

    let mut child = match std::process::Command::new(program)
        .args(args)
        .process_group(0)
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!("cannot start `{}`: {e}", program.to_string_lossy());
            return 127;
        }
    };
    let group = child.id();
    let mut lost_at: Option<Instant> = None;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            reap_group(group);
            return exit_like(status);
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
        match lost_at {
            Some(t) if t.elapsed() >= grace => break,
            Some(_) => std::thread::sleep(Duration::from_millis(20)),
            None if lifeline && lifeline_closed(Duration::from_millis(20)) => {
                lost_at = Some(Instant::now())
            }
            None if lifeline => {}
            None => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    reap_group(group);
    match child.try_wait() {
        Ok(Some(status)) => exit_like(status),
        _ => 143,
    }
}

/// Waits up to `wait` for the lifeline to close (its other end gone).
fn lifeline_closed(wait: Duration) -> bool {
    use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
    // SAFETY: descriptor 3 stays open for the supervisor's whole life.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(LIFELINE_FD) };
    let mut fds = [PollFd::new(fd, PollFlags::POLLIN)];
    let ms = u16::try_from(wait.as_millis()).unwrap_or(u16::MAX);
    match poll(&mut fds, PollTimeout::from(ms)) {
        Ok(n) if n > 0 => fds[0].revents().is_some_and(|r| !r.is_empty()),
        Ok(_) => false,
        Err(_) => true,
    }
}

/// Ends group `group` and reaps every descendant that came back to the supervisor.
fn reap_group(group: u32) {
    use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
    let pgid = Pid::from_raw(group as i32);
    let _ = killpg(pgid, Signal::SIGTERM);
    let deadline = Instant::now() + TERM_WAIT;
    let mut killed = false;
    loop {
        match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => {
                if Instant::now() >= deadline {
                    if killed {
                        return;
                    }
                    let _ = killpg(pgid, Signal::SIGKILL);
                    killed = true;
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Ok(_) => {}
            // No child left at all.
            Err(_) => {
                if !killed {
                    let _ = killpg(pgid, Signal::SIGKILL);
                }
                return;
            }
        }
    }
}

/// This process's exit in the likeness of the server's: the same code, or the same signal.
fn exit_like(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    if let Some(code) = status.code() {
        return code;
    }
    if let Some(sig) = status.signal() {
        let _ = signal_hook::low_level::emulate_default_handler(sig);
        return 128 + sig;
    }
    1
}
