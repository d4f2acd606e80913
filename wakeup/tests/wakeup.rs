//! The wake-up's promises, through poll(2) as an event loop sees them, for
//! each kind this system has: the eventfd (Linux) and the pipe.

#![cfg(unix)]

use std::os::fd::RawFd;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tinystore_wakeup::{Kind, Wakeup};

/// Whether `fd` is readable within `wait`, as an event loop's poll says.
fn readable(fd: RawFd, wait: Duration) -> bool {
    let mut pfd = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one live pollfd, counted as one.
    let n = unsafe { libc::poll(&mut pfd, 1, wait.as_millis() as libc::c_int) };
    assert!(n >= 0, "poll: {}", std::io::Error::last_os_error());
    n == 1 && pfd.revents & libc::POLLIN != 0
}

fn kinds() -> Vec<Wakeup> {
    let mut all = vec![Wakeup::pipe().expect("a pipe")];
    #[cfg(target_os = "linux")]
    all.push(Wakeup::eventfd().expect("an eventfd"));
    all
}

#[test]
fn new_is_the_eventfd_on_linux_and_a_pipe_elsewhere() {
    // Tests run in threads of one process: the switch is seen as it is.
    let forced = std::env::var_os(tinystore_wakeup::FORCE_VAR).is_some_and(|v| v == "pipe");
    let made = Wakeup::new().expect("a wake-up");
    let expected = if cfg!(target_os = "linux") && !forced {
        Kind::Eventfd
    } else {
        Kind::Pipe
    };
    assert_eq!(made.kind(), expected);
    assert_eq!(Wakeup::pipe().unwrap().kind(), Kind::Pipe);
}

#[test]
fn readable_from_a_wake_until_a_clear() {
    for w in kinds() {
        assert!(
            !readable(w.fd(), Duration::ZERO),
            "{:?} readable unwoken",
            w.kind()
        );
        w.wake();
        assert!(
            readable(w.fd(), Duration::ZERO),
            "{:?} not readable woken",
            w.kind()
        );
        assert!(
            readable(w.fd(), Duration::ZERO),
            "{:?}: a poll cleared it",
            w.kind()
        );
        w.clear();
        assert!(
            !readable(w.fd(), Duration::ZERO),
            "{:?} readable cleared",
            w.kind()
        );
        w.clear();
        assert!(
            !readable(w.fd(), Duration::ZERO),
            "{:?}: a second clear",
            w.kind()
        );
    }
}

#[test]
fn many_wakes_never_block_and_one_clear_takes_them_all() {
    // More wakes than a pipe's buffer holds (64 KiB on Linux): a full pipe
    // drops the byte, and is readable already.
    for w in kinds() {
        for _ in 0..200_000 {
            w.wake();
        }
        assert!(readable(w.fd(), Duration::ZERO), "{:?}", w.kind());
        w.clear();
        assert!(
            !readable(w.fd(), Duration::ZERO),
            "{:?} readable after clear",
            w.kind()
        );
        w.wake();
        assert!(
            readable(w.fd(), Duration::ZERO),
            "{:?}: lost a wake",
            w.kind()
        );
    }
}

#[test]
fn a_wake_from_another_thread_ends_a_wait() {
    for w in kinds() {
        let w = Arc::new(w);
        let waker = w.clone();
        let started = Instant::now();
        let thread = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(20));
            waker.wake();
        });
        assert!(readable(w.fd(), Duration::from_secs(10)), "{:?}", w.kind());
        assert!(started.elapsed() < Duration::from_secs(10));
        thread.join().unwrap();
        w.clear();
        assert!(!readable(w.fd(), Duration::ZERO), "{:?}", w.kind());
    }
}

#[test]
fn descriptors_are_closed_on_exec_and_non_blocking() {
    for w in kinds() {
        // SAFETY: fcntl reads flags of a descriptor the wake-up owns.
        let (fd_flags, fl_flags) = unsafe {
            (
                libc::fcntl(w.fd(), libc::F_GETFD),
                libc::fcntl(w.fd(), libc::F_GETFL),
            )
        };
        assert!(fd_flags & libc::FD_CLOEXEC != 0, "{:?}", w.kind());
        assert!(fl_flags & libc::O_NONBLOCK != 0, "{:?}", w.kind());
    }
}
