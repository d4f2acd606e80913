//! The wake-up on Unix systems: an eventfd on Linux, else a pipe.

use crate::Kind;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

/// A descriptor that is readable once woken, until cleared. Both ends are
/// non-blocking and closed on exec; dropping it closes them.
#[derive(Debug)]
pub struct Wakeup {
    kind: Kind,
    /// What the loop waits on and reads.
    read: OwnedFd,
    /// What `wake` writes: the same eventfd, or the pipe's write end.
    write: Option<OwnedFd>,
}

impl Wakeup {
    /// The platform's wake-up: an eventfd on Linux, a pipe elsewhere. On
    /// Linux too a pipe when the environment has `TINYSTORE_WAKEUP=pipe`
    /// (read at each call): how the bindings' tests run their event loops
    /// over the pipe that other systems get.
    pub fn new() -> io::Result<Wakeup> {
        #[cfg(target_os = "linux")]
        {
            if std::env::var_os(crate::FORCE_VAR).is_some_and(|v| v == "pipe") {
                return Wakeup::pipe();
            }
            Wakeup::eventfd()
        }
        #[cfg(not(target_os = "linux"))]
        {
            Wakeup::pipe()
        }
    }

    /// An eventfd (Linux only).
    #[cfg(target_os = "linux")]
    pub fn eventfd() -> io::Result<Wakeup> {
        // SAFETY: eventfd takes no pointer; it makes a new descriptor or
        // returns -1.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Wakeup {
            kind: Kind::Eventfd,
            // SAFETY: `fd` is a new descriptor that nothing else owns.
            read: unsafe { OwnedFd::from_raw_fd(fd) },
            write: None,
        })
    }

    /// A pipe, on every Unix system: what [`Wakeup::new`] makes where
    /// there is no eventfd.
    pub fn pipe() -> io::Result<Wakeup> {
        let mut fds = [-1 as RawFd; 2];
        make_pipe(&mut fds)?;
        Ok(Wakeup {
            kind: Kind::Pipe,
            // SAFETY: `pipe` made both descriptors just now; nothing else
            // owns them.
            read: unsafe { OwnedFd::from_raw_fd(fds[0]) },
            // SAFETY: as above.
            write: Some(unsafe { OwnedFd::from_raw_fd(fds[1]) }),
        })
    }

    /// Which kind it is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The descriptor to wait on: readable once woken, until cleared. It
    /// stays owned by the wake-up (do not close it).
    pub fn fd(&self) -> RawFd {
        self.read.as_raw_fd()
    }

    /// Makes [`Wakeup::fd`] readable. Never blocks: an eventfd whose
    /// counter is full, or a pipe whose buffer is, is readable already.
    pub fn wake(&self) {
        let fd = self.write.as_ref().unwrap_or(&self.read).as_raw_fd();
        let one = 1u64.to_ne_bytes();
        // An eventfd takes exactly 8 bytes; a pipe one byte is enough.
        let len = match self.kind {
            Kind::Eventfd => one.len(),
            Kind::Pipe => 1,
        };
        // SAFETY: writes `len` (at most 8) bytes from a live 8-byte array
        // to a descriptor this wake-up owns. EAGAIN means readable already.
        unsafe { libc::write(fd, one.as_ptr().cast(), len) };
    }

    /// Takes every wake so far: [`Wakeup::fd`] is not readable after it
    /// until the next [`Wakeup::wake`]. Never blocks.
    pub fn clear(&self) {
        let mut buf = [0u8; 64];
        loop {
            // SAFETY: reads at most `buf.len()` bytes into a live local
            // buffer from a descriptor this wake-up owns (non-blocking).
            let n = unsafe { libc::read(self.fd(), buf.as_mut_ptr().cast(), buf.len()) };
            // An eventfd is emptied by one read; a pipe may hold more
            // bytes than one read takes. EAGAIN: nothing (more) to take.
            if n <= 0 || self.kind == Kind::Eventfd || (n as usize) < buf.len() {
                return;
            }
        }
    }
}

/// `pipe2(O_NONBLOCK | O_CLOEXEC)` where the system has it, else `pipe`
/// and `fcntl` (macOS).
fn make_pipe(fds: &mut [RawFd; 2]) -> io::Result<()> {
    #[cfg(not(any(target_os = "macos", target_os = "ios")))]
    {
        // SAFETY: `fds` is a live array of two descriptors for pipe2 to
        // fill.
        if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_NONBLOCK | libc::O_CLOEXEC) } < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    #[cfg(any(target_os = "macos", target_os = "ios"))]
    {
        // SAFETY: `fds` is a live array of two descriptors for pipe to
        // fill.
        if unsafe { libc::pipe(fds.as_mut_ptr()) } < 0 {
            return Err(io::Error::last_os_error());
        }
        for &fd in fds.iter() {
            // SAFETY: fcntl on a descriptor pipe just made; no pointer.
            let ok = unsafe {
                libc::fcntl(fd, libc::F_SETFL, libc::O_NONBLOCK) >= 0
                    && libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) >= 0
            };
            if !ok {
                let err = io::Error::last_os_error();
                // SAFETY: closes the two descriptors made above, owned by
                // nothing else.
                unsafe {
                    libc::close(fds[0]);
                    libc::close(fds[1]);
                }
                return Err(err);
            }
        }
    }
    Ok(())
}
