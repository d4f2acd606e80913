//! deploy/: the systemd units pass `systemd-analyze verify`, the
//! Prometheus files load and their alerts fire as
//! tinystore-alerts.test.yml says (each skipped, with a message, where its
//! tool is missing), and the service's own command line, with its paths
//! moved to a temporary directory, serves over TLS, takes the backup unit's
//! command, and stops cleanly on SIGTERM.

use crate::support::server::*;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A unit file's text with the binary's path replaced by the one under test.
fn unit(name: &str) -> String {
    let text = std::fs::read_to_string(repo().join("deploy").join(name)).unwrap();
    text.replace("/usr/local/bin/tinystore", BIN)
}

/// The words of a unit's `key=` line, continuation lines joined.
fn command(unit: &str, key: &str) -> Vec<String> {
    let start = unit.find(&format!("\n{key}=")).unwrap() + key.len() + 2;
    let mut line = String::new();
    for part in unit[start..].lines() {
        match part.strip_suffix('\\') {
            Some(part) => line.push_str(part),
            None => {
                line.push_str(part);
                break;
            }
        }
    }
    line.split_whitespace().map(str::to_string).collect()
}

#[test]
fn the_units_pass_systemd_analyze_verify() {
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("skipped: systemd-analyze is not installed (apt-get install systemd)");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let names = [
        "tinystore.service",
        "tinystore-backup.service",
        "tinystore-backup.timer",
    ];
    for name in names {
        std::fs::write(tmp.path().join(name), unit(name)).unwrap();
    }
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .args(names.map(|n| tmp.path().join(n)))
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && said.trim().is_empty(), "{said}");
}

#[test]
fn the_services_command_line_serves_over_tls_backs_up_and_stops_cleanly() {
    let tmp = tempfile::tempdir().unwrap();
    let (etc, store) = (tmp.path().join("etc"), tmp.path().join("store"));
    let made = Command::new("sh")
        .arg(repo().join("tests/tls/make-certs.sh"))
        .arg(&etc)
        .status()
        .unwrap();
    assert!(made.success());
    let token = "deploy-test-token-0123456789";
    std::fs::write(etc.join("token"), token).unwrap();
    let moved = |word: &str| {
        word.replace("/var/lib/tinystore-backups", tmp.path().to_str().unwrap())
            .replace("/var/lib/tinystore", store.to_str().unwrap())
            .replace("/etc/tinystore", etc.to_str().unwrap())
            .replace("0.0.0.0:7400", "127.0.0.1:0")
            .replace("127.0.0.1:9400", "127.0.0.1:0")
    };
    let serve: Vec<String> = command(&unit("tinystore.service"), "ExecStart")
        .iter()
        .map(|w| moved(w))
        .collect();
    let log = tmp.path().join("serve.log");
    let mut child = Command::new(&serve[0])
        .args(&serve[1..])
        .stderr(std::fs::File::create(&log).unwrap())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let said = || std::fs::read_to_string(&log).unwrap_or_default();
    let deadline = Instant::now() + Duration::from_secs(20);
    while !said().contains("serving") {
        assert!(Instant::now() < deadline, "not serving: {}", said());
        std::thread::sleep(Duration::from_millis(20));
    }
    // JSON log lines, one a line.
    for line in said().lines() {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    let text = said();
    let at = text.find("tls://").unwrap() + "tls://".len();
    let port = text[at..]
        .split([' ', '"'])
        .next()
        .unwrap()
        .rsplit_once(':')
        .unwrap()
        .1;
    let address = format!("tls://localhost:{port}?ca={}", etc.join("ca.pem").display());
    let status = Command::new(BIN)
        .args(["status", &address, "--json"])
        .env("TINYSTORE_TOKEN", token)
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );

    // The backup unit's command, its shell and date included.
    let backup = command(&unit("tinystore-backup.service"), "ExecStart").join(" ");
    let backup = moved(&backup).replace("%%", "%");
    let script = backup.split_once(" -c ").unwrap().1.trim_matches('\'');
    let out = Command::new("sh").arg("-c").arg(script).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let copies = std::fs::read_dir(tmp.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("kv-")
        })
        .count();
    assert_eq!(copies, 1);

    // SIGTERM, as systemctl stop sends: a clean stop.
    // SAFETY: kill on the child this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(child.wait().unwrap().success(), "{}", said());
    assert!(said().contains("stopped cleanly"), "{}", said());
}

#[test]
fn the_prometheus_files_load_and_each_alert_fires_when_it_should() {
    if Command::new("promtool").arg("--version").output().is_err() {
        eprintln!("skipped: promtool is not installed (apt-get install prometheus)");
        return;
    }
    let deploy = repo().join("deploy");
    for args in [
        &["check", "config", "prometheus.yml"][..],
        &["test", "rules", "tinystore-alerts.test.yml"][..],
    ] {
        let out = Command::new("promtool")
            .args(args)
            .current_dir(&deploy)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "promtool {args:?}: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
