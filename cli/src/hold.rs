//! `tinystore hold TARGET NAME KEY -- CMD...`: runs CMD while holding a lock.

use crate::target::Target;
use std::process::ExitCode;
use std::time::Duration;
use tinystore::{Code, Lease};
use tokio::process::{Child, Command};
use tokio::signal::unix::{signal, SignalKind};

/// The exit status when the wait for the lock ran out.
pub const EXIT_WAIT_RAN_OUT: u8 = 75;
/// The exit status when tinystore failed before CMD ran.
pub const EXIT_ERROR: u8 = 70;
/// The exit status when CMD could not be started.
pub const EXIT_NOT_STARTED: u8 = 127;

/// Holds NAME/KEY while CMD runs, renewing the lease every ttl/3. CMD gets
/// TINYSTORE_FENCE (decimal) and TINYSTORE_FENCE_TEXT (40 digits). If the
/// lease is lost, CMD's process group gets SIGTERM, then SIGKILL after
/// --kill-after. SIGTERM and SIGINT to hold are passed on to CMD.
///
/// Exit status: CMD's own (128+N if a signal N ended it); 75 when --wait ran
/// out; 70 when tinystore failed before CMD ran; 127 when CMD did not start.
///
/// Example: tinystore hold ./data summaries 42 --ttl 10s --wait 1m -- ./summarize.sh 42
#[derive(clap::Args)]
#[command(verbatim_doc_comment)]
pub struct Args {
    #[command(flatten)]
    target: Target,
    /// The lock group's name.
    name: String,
    /// The key to hold.
    key: String,
    /// The lease's TTL, e.g. 15s.
    #[arg(long, value_name = "D", default_value = "15s", value_parser = crate::duration::parse)]
    ttl: Duration,
    /// How long to wait for the key (default: until it is free), e.g. 30s.
    #[arg(long, value_name = "D", value_parser = crate::duration::parse)]
    wait: Option<Duration>,
    /// How long CMD has between SIGTERM and SIGKILL once the lease is lost.
    #[arg(long, value_name = "D", default_value = "5s", value_parser = crate::duration::parse)]
    kill_after: Duration,
    /// The command and its arguments.
    #[arg(required = true, last = true, value_name = "CMD")]
    cmd: Vec<String>,
}

pub fn run(args: Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let rt = crate::target::runtime()?;
    Ok(rt.block_on(hold(args)))
}

async fn hold(args: Args) -> ExitCode {
    let lease = match acquire(&args).await {
        Ok(lease) => lease,
        Err(err) if err.code() == Code::Timeout => {
            eprintln!("tinystore hold: {err}");
            return ExitCode::from(EXIT_WAIT_RAN_OUT);
        }
        Err(err) => {
            eprintln!("tinystore hold: {err}");
            return ExitCode::from(EXIT_ERROR);
        }
    };
    let fence = lease.fence();
    let child = Command::new(&args.cmd[0])
        .args(&args.cmd[1..])
        .env("TINYSTORE_FENCE", fence.to_string())
        .env("TINYSTORE_FENCE_TEXT", fence.text())
        .process_group(0)
        .spawn();
    let child = match child {
        Ok(child) => child,
        Err(err) => {
            eprintln!("tinystore hold: cannot run {:?}: {err}", args.cmd[0]);
            let _ = lease.release().await;
            return ExitCode::from(EXIT_NOT_STARTED);
        }
    };
    let code = supervise(child, &lease, args.kill_after).await;
    if let Err(err) = lease.release().await {
        if lease_was_held_at_exit(&err) {
            eprintln!("tinystore hold: {err}");
        }
    }
    code
}

async fn acquire(args: &Args) -> tinystore::Result<Lease> {
    let store = args.target.open().await?;
    let mut locks = store.locks(&args.name).ttl(args.ttl);
    if let Some(wait) = args.wait {
        locks = locks.wait(wait);
    }
    locks.acquire(args.key.as_str()).await
}

fn lease_was_held_at_exit(err: &tinystore::Error) -> bool {
    err.code() != Code::LeaseLost
}

/// Waits for CMD, stopping it when the lease is lost and passing on
/// SIGTERM and SIGINT; returns the status to exit with.
async fn supervise(mut child: Child, lease: &Lease, kill_after: Duration) -> ExitCode {
    let group = child.id().map(|pid| pid as i32);
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return exit_code(child.wait().await);
    };
    let lost = lease.lost();
    tokio::pin!(lost);
    loop {
        tokio::select! {
            status = child.wait() => return exit_code(status),
            _ = term.recv() => send(group, libc::SIGTERM),
            _ = int.recv() => send(group, libc::SIGINT),
            reason = &mut lost => {
                eprintln!(
                    "tinystore hold: lost the lease on {}/{} (fence {}): {reason}; stopping the command",
                    lease.name(), lease.key(), lease.fence()
                );
                send(group, libc::SIGTERM);
                return match tokio::time::timeout(kill_after, child.wait()).await {
                    Ok(status) => exit_code(status),
                    Err(_) => {
                        send(group, libc::SIGKILL);
                        exit_code(child.wait().await)
                    }
                };
            }
        }
    }
}

/// Sends `sig` to CMD's process group.
fn send(group: Option<i32>, sig: i32) {
    if let Some(pgid) = group {
        // SAFETY: kill(2) with a process group id; no memory is shared.
        unsafe {
            libc::kill(-pgid, sig);
        }
    }
}

fn exit_code(status: std::io::Result<std::process::ExitStatus>) -> ExitCode {
    use std::os::unix::process::ExitStatusExt;
    match status {
        Ok(status) => match (status.code(), status.signal()) {
            (Some(code), _) => ExitCode::from(code as u8),
            (None, Some(sig)) => ExitCode::from(128 + sig as u8),
            _ => ExitCode::from(EXIT_ERROR),
        },
        Err(err) => {
            eprintln!("tinystore hold: cannot wait for the command: {err}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
