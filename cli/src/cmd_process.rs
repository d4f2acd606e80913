//! CMD as a process, for `hold` and `elect`: started with this process's
//! standard streams, in a process group of its own, so that stopping it
//! stops what it started, and its exit status as one number.
//!
//! On Unix CMD leads a new process group (`setpgid`), which is sent
//! SIGTERM, SIGINT and SIGKILL with `kill(-pgid)`; a signal that ended it
//! is the status 128+N. Windows is not built yet: running CMD fails there
//! with `invalid`, naming the system, before anything is acquired. The
//! choice made for it is a job object (`CreateJobObject`,
//! `AssignProcessToJobObject`, `TerminateJobObject`), which holds every
//! process CMD starts and ends them together: Windows has no signals to
//! send a process group, and a job is what it has for "CMD and all it
//! started".

use crate::stop_signals::Stop;
use std::process::Stdio;
use tinystore::Error;
use tokio::process::{Child, Command};

/// Fails with `invalid`, naming the system, where CMD cannot be run.
pub fn supported(command: &str) -> Result<(), Error> {
    if cfg!(unix) {
        return Ok(());
    }
    Err(Error::new(
        tinystore::Code::Invalid,
        format!(
            "running a command under `tinystore {command}` is not supported on {}; \
             hold the lock from a program with one of tinystore's libraries instead",
            std::env::consts::OS
        ),
    ))
}

/// CMD's process group, as far as it can be signalled.
pub struct Group {
    #[cfg_attr(not(unix), allow(dead_code))]
    pgid: Option<i32>,
}

/// Starts `command` with this process's standard streams, in a process
/// group of its own (on Unix).
pub fn spawn(command: &mut Command) -> std::io::Result<(Child, Group)> {
    command
        .stdin(passed_on(Stream::In))
        .stdout(passed_on(Stream::Out))
        .stderr(passed_on(Stream::Err));
    #[cfg(unix)]
    command.process_group(0);
    let child = command.spawn()?;
    let pgid = child.id().and_then(|pid| i32::try_from(pid).ok());
    Ok((child, Group { pgid }))
}

impl Group {
    /// Passes a stop this process was asked for on to CMD's group.
    pub fn pass_on(&self, stop: Stop) {
        #[cfg(unix)]
        self.send(match stop {
            Stop::Terminate => libc::SIGTERM,
            Stop::Interrupt => libc::SIGINT,
        });
        #[cfg(not(unix))]
        let _ = stop;
    }

    /// Asks CMD's group to stop (SIGTERM).
    pub fn terminate(&self) {
        #[cfg(unix)]
        self.send(libc::SIGTERM);
    }

    /// Ends CMD's group (SIGKILL).
    pub fn kill(&self) {
        #[cfg(unix)]
        self.send(libc::SIGKILL);
    }

    #[cfg(unix)]
    fn send(&self, sig: libc::c_int) {
        if let Some(pgid) = self.pgid {
            // SAFETY: kill(2) with a process group id; no memory is shared.
            unsafe {
                libc::kill(-pgid, sig);
            }
        }
    }
}

/// CMD's exit status as one number: its code, or 128+N when signal N
/// ended it; `None` when it says neither.
pub fn exit_code(status: std::process::ExitStatus) -> Option<u8> {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        match (status.code(), status.signal()) {
            (Some(code), _) => Some(code as u8),
            (None, Some(sig)) => Some(128 + sig as u8),
            _ => None,
        }
    }
    #[cfg(not(unix))]
    {
        status.code().map(|code| code as u8)
    }
}

/// One of this process's standard streams.
enum Stream {
    In,
    Out,
    Err,
}

/// This process's `stream` for CMD, as a copy that CMD gets in its place
/// even when the host marked the original close-on-exec (Node does, for
/// its standard streams, when `tinystore` runs inside it through `npx`).
#[cfg(unix)]
fn passed_on(stream: Stream) -> Stdio {
    use std::os::fd::AsFd;
    let copy = match stream {
        Stream::In => std::io::stdin().as_fd().try_clone_to_owned(),
        Stream::Out => std::io::stdout().as_fd().try_clone_to_owned(),
        Stream::Err => std::io::stderr().as_fd().try_clone_to_owned(),
    };
    copy.map(Stdio::from).unwrap_or_else(|_| Stdio::inherit())
}

/// This process's `stream` for CMD, inherited.
#[cfg(not(unix))]
fn passed_on(_stream: Stream) -> Stdio {
    Stdio::inherit()
}
