//! The process's own figures, read from /proc at each scrape, under the
//! names Prometheus's client libraries give them: CPU time, resident
//! memory, open and allowed file descriptors, threads, start time.

use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::sync::Mutex;

/// The process's figures.
#[derive(Default)]
pub(super) struct Process {
    cpu: Counter<f64, AtomicU64>,
    /// The CPU seconds counted so far (a counter only goes up by steps).
    cpu_counted: Mutex<f64>,
    resident: Gauge,
    open_fds: Gauge,
    max_fds: Gauge,
    threads: Gauge,
    start_time: Gauge<f64, AtomicU64>,
}

impl Process {
    /// Adds the figures to `registry`.
    pub(super) fn register(&self, registry: &mut Registry) {
        registry.register(
            "process_cpu_seconds",
            "User and system CPU time spent in seconds",
            self.cpu.clone(),
        );
        registry.register(
            "process_resident_memory_bytes",
            "Resident memory size in bytes",
            self.resident.clone(),
        );
        registry.register(
            "process_open_fds",
            "Number of open file descriptors",
            self.open_fds.clone(),
        );
        registry.register(
            "process_max_fds",
            "Maximum number of open file descriptors",
            self.max_fds.clone(),
        );
        registry.register(
            "process_threads",
            "Number of OS threads in the process",
            self.threads.clone(),
        );
        registry.register(
            "process_start_time_seconds",
            "Start time of the process since unix epoch in seconds",
            self.start_time.clone(),
        );
    }

    /// Reads the figures now; those /proc does not give stay as they were.
    pub(super) fn refresh(&self) {
        let Some((ticks, page)) = crate::os::proc_units::ticks_and_page() else {
            return;
        };
        if let Some(stat) = read_stat() {
            let ticks = ticks.max(1) as f64;
            let cpu = (stat.utime + stat.stime) as f64 / ticks;
            let mut counted = self.cpu_counted.lock().unwrap_or_else(|p| p.into_inner());
            if cpu > *counted {
                self.cpu.inc_by(cpu - *counted);
                *counted = cpu;
            }
            self.threads.set(stat.threads);
            if let Some(boot) = boot_time() {
                self.start_time.set(boot + stat.start_ticks as f64 / ticks);
            }
        }
        if let Some(pages) = std::fs::read_to_string("/proc/self/statm")
            .ok()
            .and_then(|s| s.split_whitespace().nth(1)?.parse::<i64>().ok())
        {
            self.resident.set(pages * page);
        }
        if let Ok(fds) = std::fs::read_dir("/proc/self/fd") {
            self.open_fds.set(fds.count() as i64);
        }
        if let Some(limit) = crate::os::open_files::limit() {
            self.max_fds.set(i64::try_from(limit).unwrap_or(i64::MAX));
        }
    }
}

struct Stat {
    utime: u64,
    stime: u64,
    threads: i64,
    start_ticks: u64,
}

/// The fields of /proc/self/stat this page uses (see proc(5)).
fn read_stat() -> Option<Stat> {
    let text = std::fs::read_to_string("/proc/self/stat").ok()?;
    // Fields after the command's name, which is in parentheses; the state
    // is field 3, so field n is at n - 3.
    let fields: Vec<&str> = text.rsplit_once(')')?.1.split_whitespace().collect();
    let field = |n: usize| fields.get(n - 3)?.parse::<u64>().ok();
    Some(Stat {
        utime: field(14)?,
        stime: field(15)?,
        threads: field(20)? as i64,
        start_ticks: field(22)?,
    })
}

/// When the machine booted, in seconds since 1970.
fn boot_time() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    let line = text.lines().find(|l| l.starts_with("btime "))?;
    line[6..].trim().parse().ok()
}
