//! A program in a terminal of its own (a pseudo-terminal of a given size), as a person
//! runs it: keys go in, and what it draws lands on a screen that is read back as text.

use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

pub struct Terminal {
    /// `None` once the terminal hung up.
    master: Option<std::fs::File>,
    /// Tells the reader to let go of its end, so [`Terminal::hang_up`] can close them all.
    closing: Arc<AtomicBool>,
    reader: Option<std::thread::JoinHandle<()>>,
    screen: Arc<Mutex<vt100::Parser>>,
    /// When the program first wrote anything (its first frame, for a full-screen one).
    first_output: Arc<Mutex<Option<Instant>>>,
    pub started: Instant,
    pub child: Child,
}

impl Terminal {
    /// Starts `cmd` with the terminal as its standard streams and controlling terminal.
    pub fn open(mut cmd: Command, rows: u16, cols: u16) -> Terminal {
        use std::os::fd::FromRawFd;
        use std::os::unix::process::CommandExt;
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two descriptors it opened; the pointers are valid.
        let rc = unsafe {
            libc::openpty(
                &mut master,
                &mut slave,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        assert_eq!(rc, 0, "openpty");
        // openpty's descriptors are inherited by every child otherwise: the program would
        // hold its own terminal's master open, and closing ours would never hang it up.
        for fd in [master, slave] {
            // SAFETY: fcntl on a descriptor just opened.
            unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
        }
        // SAFETY: both descriptors were just opened and are owned here alone.
        let (master, slave) = unsafe {
            (
                std::fs::File::from_raw_fd(master),
                std::fs::File::from_raw_fd(slave),
            )
        };
        cmd.env("TERM", "xterm-256color")
            .stdin(slave.try_clone().unwrap())
            .stdout(slave.try_clone().unwrap())
            .stderr(slave);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                // A session of its own with the terminal as its controlling one, as a shell
                // would start it.
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY as _, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let started = Instant::now();
        let child = cmd.spawn().unwrap();
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            rows.try_into().unwrap(),
            cols.try_into().unwrap(),
            0,
        )));
        let first_output = Arc::new(Mutex::new(None));
        let mut reader = master.try_clone().unwrap();
        let (sink, first) = (screen.clone(), first_output.clone());
        let closing = Arc::new(AtomicBool::new(false));
        let stop = closing.clone();
        let reader = std::thread::spawn(move || {
            use std::io::Read;
            use std::os::fd::AsRawFd;
            let mut buf = [0u8; 8192];
            // Polled, not blocked in `read`, so it can let go when the terminal hangs up.
            while !stop.load(Ordering::Relaxed) {
                let mut fd = libc::pollfd {
                    fd: reader.as_raw_fd(),
                    events: libc::POLLIN,
                    revents: 0,
                };
                // SAFETY: one valid pollfd for the duration of the call.
                if unsafe { libc::poll(&mut fd, 1, 50) } <= 0 {
                    continue;
                }
                match reader.read(&mut buf) {
                    Ok(n) if n > 0 => {
                        first.lock().unwrap().get_or_insert_with(Instant::now);
                        sink.lock().unwrap().process(&buf[..n]);
                    }
                    _ => break,
                }
            }
        });
        Terminal {
            master: Some(master),
            closing,
            reader: Some(reader),
            screen,
            first_output,
            started,
            child,
        }
    }

    /// Types `bytes` (raw: `\r` is Enter, `\x13` Ctrl-S), then gives the program a moment.
    pub fn keys(&mut self, bytes: &[u8]) {
        self.send(bytes);
        std::thread::sleep(Duration::from_millis(150));
    }

    /// Types `bytes` and returns at once.
    pub fn send(&mut self, bytes: &[u8]) {
        use std::io::Write;
        let master = self.master.as_mut().expect("the terminal is open");
        master.write_all(bytes).unwrap();
        master.flush().unwrap();
    }

    /// Closes the terminal as a terminal window closes: the program gets SIGHUP, and what
    /// it writes afterwards fails.
    pub fn hang_up(&mut self) {
        self.closing.store(true, Ordering::Relaxed);
        if let Some(r) = self.reader.take() {
            r.join().unwrap();
        }
        self.master = None;
    }

    pub fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// When the program first wrote to the terminal.
    pub fn first_output(&self) -> Option<Instant> {
        *self.first_output.lock().unwrap()
    }

    /// Waits until the screen shows `text`; returns when it first did (to a millisecond).
    pub fn wait_for(&self, text: &str) -> Instant {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if self.contents().contains(text) {
                return Instant::now();
            }
            assert!(
                Instant::now() < deadline,
                "the program never showed {text:?}:\n{}",
                self.contents()
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

impl Drop for Terminal {
    /// A test that fails half-way leaves no workbench behind.
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}
