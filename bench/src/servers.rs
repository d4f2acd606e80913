//! Starts each system on loopback as its users run it by default, in a
//! temporary directory, and stops it when dropped.

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A server process, killed when dropped.
pub struct Server {
    pub child: Child,
}

impl Drop for Server {
    fn drop(&mut self) {
        // SIGTERM first so that servers remove their files; then make sure.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A free TCP port on 127.0.0.1.
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn wait_for(what: &str, ready: impl Fn() -> bool) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        if ready() {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(format!("{what} did not start within 30 s"))
}

fn spawn(name: &'static str, cmd: &mut Command, log: &Path) -> Result<Server, String> {
    let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
    let child = cmd
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log)
        .spawn()
        .map_err(|e| format!("cannot start {name}: {e}"))?;
    Ok(Server { child })
}

fn port_open(port: u16) -> bool {
    TcpStream::connect(("127.0.0.1", port)).is_ok()
}

/// `redis-server` with its default configuration, on a loopback port.
pub fn redis(dir: &Path) -> Result<(Server, String), String> {
    let port = free_port();
    let server = spawn(
        "redis",
        Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--dir"])
            .arg(dir),
        &dir.join("redis.log"),
    )?;
    wait_for("redis", || port_open(port))?;
    Ok((server, format!("redis://127.0.0.1:{port}/")))
}

/// A single-member etcd with its defaults, on loopback ports.
pub fn etcd(dir: &Path) -> Result<(Server, String), String> {
    let (client, peer) = (free_port(), free_port());
    let client_url = format!("http://127.0.0.1:{client}");
    let peer_url = format!("http://127.0.0.1:{peer}");
    let server = spawn(
        "etcd",
        Command::new("etcd")
            .args(["--name", "bench", "--data-dir"])
            .arg(dir.join("etcd"))
            .args([
                "--listen-client-urls",
                &client_url,
                "--advertise-client-urls",
                &client_url,
            ])
            .args([
                "--listen-peer-urls",
                &peer_url,
                "--initial-advertise-peer-urls",
                &peer_url,
            ])
            .args(["--initial-cluster", &format!("bench={peer_url}")]),
        &dir.join("etcd.log"),
    )?;
    wait_for("etcd", || port_open(client))?;
    Ok((server, format!("127.0.0.1:{client}")))
}

fn pg_bin(tool: &str) -> Result<PathBuf, String> {
    let root = Path::new("/usr/lib/postgresql");
    let mut versions: Vec<PathBuf> = std::fs::read_dir(root)
        .map_err(|e| format!("PostgreSQL is not installed ({}): {e}", root.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    versions.sort();
    versions
        .pop()
        .map(|v| v.join("bin").join(tool))
        .ok_or_else(|| "no PostgreSQL version under /usr/lib/postgresql".into())
}

/// PostgreSQL with its default configuration (fsync and synchronous commit
/// on), run as the `postgres` user, on a loopback port.
pub fn postgres(dir: &Path) -> Result<(Server, String), String> {
    let data = dir.join("pg");
    std::fs::create_dir_all(&data).map_err(|e| e.to_string())?;
    let chown = Command::new("chown")
        .args(["-R", "postgres:postgres"])
        .arg(dir)
        .status();
    if !chown.is_ok_and(|s| s.success()) {
        return Err("cannot give the PostgreSQL directory to the postgres user".into());
    }
    let initdb = Command::new("runuser")
        .args(["-u", "postgres", "--"])
        .arg(pg_bin("initdb")?)
        .args(["-D"])
        .arg(&data)
        .args(["-U", "postgres", "--auth=trust"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !initdb.success() {
        return Err("initdb failed".into());
    }
    let port = free_port();
    let server = spawn(
        "postgres",
        Command::new("runuser")
            .args(["-u", "postgres", "--"])
            .arg(pg_bin("postgres")?)
            .arg("-D")
            .arg(&data)
            .args([
                "-p",
                &port.to_string(),
                "-c",
                "listen_addresses=127.0.0.1",
                "-k",
            ])
            .arg(dir),
        &dir.join("postgres.log"),
    )?;
    wait_for("postgres", || port_open(port))?;
    std::thread::sleep(Duration::from_millis(300));
    Ok((
        server,
        format!("host=127.0.0.1 port={port} user=postgres dbname=postgres"),
    ))
}

/// `tinystore serve DIR`, with its defaults, reached on its unix socket.
pub fn tinystore(binary: &Path, dir: &Path) -> Result<(Server, String), String> {
    let store = dir.join("store");
    let socket = store.join("tinystore.sock");
    let server = spawn(
        "tinystore",
        Command::new(binary).arg("serve").arg(&store),
        &dir.join("tinystore.log"),
    )?;
    wait_for("tinystore serve", || {
        std::os::unix::net::UnixStream::connect(&socket).is_ok()
    })?;
    Ok((server, format!("unix:{}", socket.display())))
}

/// The resident set size of a process, in bytes.
pub fn rss_bytes(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
