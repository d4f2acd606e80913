//! The signals that ask this process to stop: SIGTERM and SIGINT on Unix
//! (`serve` shuts down cleanly on either; `hold` and `elect` pass them on
//! to CMD). On Windows the console's Ctrl+Break and Ctrl+C stand for them
//! (tokio's `signal::windows`).

/// Which stop was asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SIGTERM (Ctrl+Break on Windows).
    Terminate,
    /// SIGINT (Ctrl+C on Windows).
    Interrupt,
}

impl Stop {
    /// The signal's name, for the log: `SIGTERM`, `SIGINT`.
    pub fn name(self) -> &'static str {
        match (self, cfg!(unix)) {
            (Stop::Terminate, true) => "SIGTERM",
            (Stop::Interrupt, true) => "SIGINT",
            (Stop::Terminate, false) => "Ctrl+Break",
            (Stop::Interrupt, false) => "Ctrl+C",
        }
    }
}

/// The stop signals, listened to from when this is made.
pub struct StopSignals {
    #[cfg(unix)]
    term: tokio::signal::unix::Signal,
    #[cfg(unix)]
    int: tokio::signal::unix::Signal,
    #[cfg(windows)]
    brk: tokio::signal::windows::CtrlBreak,
    #[cfg(windows)]
    ctrl_c: tokio::signal::windows::CtrlC,
}

impl StopSignals {
    /// Starts listening (inside a tokio runtime).
    pub fn new() -> std::io::Result<StopSignals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            Ok(StopSignals {
                term: signal(SignalKind::terminate())?,
                int: signal(SignalKind::interrupt())?,
            })
        }
        #[cfg(windows)]
        {
            use tokio::signal::windows::{ctrl_break, ctrl_c};
            Ok(StopSignals {
                brk: ctrl_break()?,
                ctrl_c: ctrl_c()?,
            })
        }
    }

    /// The next stop asked for.
    pub async fn next(&mut self) -> Stop {
        #[cfg(unix)]
        {
            tokio::select! {
                _ = self.term.recv() => Stop::Terminate,
                _ = self.int.recv() => Stop::Interrupt,
            }
        }
        #[cfg(windows)]
        {
            tokio::select! {
                _ = self.brk.recv() => Stop::Terminate,
                _ = self.ctrl_c.recv() => Stop::Interrupt,
            }
        }
    }
}
