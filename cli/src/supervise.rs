//! Running CMD while something is held ([`Held`]: leases, permits or a
//! leadership; `hold` and `elect`). CMD gets its fences in its environment,
//! runs in its own process group, is stopped when what is held is lost, and
//! the exit status follows one rule for both commands.

use crate::cmd_process::{self, Group};
use crate::held::{fence_env, Held};
use crate::stop_signals::StopSignals;
use std::future::Future;
use std::time::Duration;
use tinystore::{Code, Error};
use tokio::process::{Child, Command};

/// The exit status when the wait for the lock (or to lead) ran out.
pub const EXIT_WAIT_RAN_OUT: u8 = 75;
/// The exit status when tinystore failed before CMD ran.
pub const EXIT_ERROR: u8 = 70;
/// The exit status when CMD could not be started.
pub const EXIT_NOT_STARTED: u8 = 127;
/// The exit status when what was held was lost before CMD ended (it ran
/// out unrenewed, its store closed, its connection broke), whatever CMD's
/// own.
pub const EXIT_LOST: u8 = 76;

/// The options of a command that runs CMD while something is held.
#[derive(clap::Args)]
pub struct Running {
    /// The TTL of the lease (for elect: of the leadership), e.g. 15s.
    #[arg(long, value_name = "D", default_value = "15s", value_parser = crate::duration::parse)]
    pub ttl: Duration,
    /// How long to wait for it (default: until it is granted), e.g. 30s.
    #[arg(long, value_name = "D", value_parser = crate::duration::parse)]
    pub wait: Option<Duration>,
    /// Keep it no longer than this after its grant, e.g. 1h: past it, it
    /// is renewed no more, runs out, and CMD is stopped as for any loss.
    #[arg(long, value_name = "D", value_parser = crate::duration::parse)]
    pub max_hold: Option<Duration>,
    /// How long CMD has between SIGTERM and SIGKILL once it is lost.
    #[arg(long, value_name = "D", default_value = "5s", value_parser = crate::duration::parse)]
    pub kill_after: Duration,
    /// The command and its arguments.
    #[arg(required = true, last = true, value_name = "CMD")]
    pub cmd: Vec<String>,
}

impl Running {
    /// The lease options these flags ask for: the TTL, and the wait and
    /// max_hold if set.
    pub fn options(&self) -> tinystore::Options {
        tinystore::Options {
            ttl: Some(self.ttl),
            wait: self.wait,
            max_hold: self.max_hold,
            ..Default::default()
        }
    }
}

/// Runs the command `command` (`hold`, `elect`): gets what `get` gives,
/// then runs CMD while it is held ([`run_while_held`]); the exit status.
pub fn run<H: Held>(
    command: &str,
    running: &Running,
    get: impl Future<Output = tinystore::Result<H>>,
) -> Result<u8, Box<dyn std::error::Error>> {
    if let Err(err) = cmd_process::supported(command) {
        return Ok(not_held(command, &err));
    }
    let rt = crate::target::runtime()?;
    Ok(rt.block_on(async {
        match get.await {
            Ok(held) => run_while_held(command, &held, &running.cmd, running.kill_after).await,
            Err(err) => not_held(command, &err),
        }
    }))
}

/// The exit status for a failure to get what CMD needs held: `timeout`
/// is [`EXIT_WAIT_RAN_OUT`], anything else [`EXIT_ERROR`].
fn not_held(command: &str, err: &Error) -> u8 {
    say!("tinystore {command}: {err}");
    if err.code() == Code::Timeout {
        EXIT_WAIT_RAN_OUT
    } else {
        EXIT_ERROR
    }
}

/// Runs `cmd` while `held` is held, for the command `command` (`hold`,
/// `elect`): CMD gets its fences ([`fence_env`]), is stopped (SIGTERM, SIGKILL after `kill_after`) when
/// `held` is lost, and `held` is released when CMD ends. Gives the exit
/// status: CMD's own, or [`EXIT_LOST`], or [`EXIT_NOT_STARTED`].
async fn run_while_held(
    command: &str,
    held: &impl Held,
    cmd: &[String],
    kill_after: Duration,
) -> u8 {
    let mut command_line = Command::new(&cmd[0]);
    command_line.args(&cmd[1..]);
    for (variable, value) in fence_env(&held.fences()) {
        match value {
            Some(value) => command_line.env(variable, value),
            None => command_line.env_remove(variable),
        };
    }
    let spawned = cmd_process::spawn(&mut command_line);
    let (child, group) = match spawned {
        Ok(spawned) => spawned,
        Err(err) => {
            say!("tinystore {command}: cannot run {:?}: {err}", cmd[0]);
            let _ = held.release().await;
            return EXIT_NOT_STARTED;
        }
    };
    match supervise(command, child, group, held, kill_after).await {
        Ended::Lost => {
            let _ = held.release().await;
            EXIT_LOST
        }
        Ended::Exited(code) => release_after(command, held, code).await,
    }
}

/// Releases `held` once CMD exited with `code`; the status to exit with:
/// `code`, or [`EXIT_LOST`] when it had ended before (the command may not
/// have seen it yet, e.g. when it was stopped itself).
async fn release_after(command: &str, held: &impl Held, code: u8) -> u8 {
    let still = held.is_held();
    let lost = match held.release().await {
        Err(err) if err.code() == Code::LeaseLost => err,
        _ if !still => held.lost().await,
        Err(err) => {
            say!("tinystore {command}: {err}");
            return code;
        }
        Ok(()) => return code,
    };
    say!(
        "tinystore {command}: lost {} before the command ended: {lost}",
        held.what()
    );
    EXIT_LOST
}

/// How supervising CMD ended.
enum Ended {
    /// CMD exited by itself (or by a signal passed on) with this status.
    Exited(u8),
    /// What was held was lost; CMD was stopped.
    Lost,
}

/// Waits for CMD, stopping it when `held` is lost and passing on SIGTERM
/// and SIGINT.
async fn supervise(
    command: &str,
    mut child: Child,
    group: Group,
    held: &impl Held,
    kill_after: Duration,
) -> Ended {
    let Ok(mut stops) = StopSignals::new() else {
        return Ended::Exited(exit_code(command, child.wait().await));
    };
    let lost = held.lost();
    tokio::pin!(lost);
    loop {
        tokio::select! {
            status = child.wait() => return Ended::Exited(exit_code(command, status)),
            stop = stops.next() => group.pass_on(stop),
            reason = &mut lost => {
                say!(
                    "tinystore {command}: lost {}: {reason}; stopping the command",
                    held.what()
                );
                group.terminate();
                if tokio::time::timeout(kill_after, child.wait()).await.is_err() {
                    group.kill();
                    let _ = child.wait().await;
                }
                return Ended::Lost;
            }
        }
    }
}

/// CMD's exit status ([`cmd_process::exit_code`]), or [`EXIT_ERROR`].
fn exit_code(command: &str, status: std::io::Result<std::process::ExitStatus>) -> u8 {
    match status {
        Ok(status) => cmd_process::exit_code(status).unwrap_or(EXIT_ERROR),
        Err(err) => {
            say!("tinystore {command}: cannot wait for the command: {err}");
            EXIT_ERROR
        }
    }
}
