//! TLS on TCP with a real `tinystore serve`: certificates made at run time
//! (rcgen), a good handshake, and each refusal with its cause: an unknown
//! CA, a wrong host name, an expired certificate, mutual TLS without a
//! client certificate, a plain client on the TLS port (the server carrying
//! on for the others).

use crate::support::server::*;
use rcgen::{
    date_time_ymd, BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair,
};
use std::path::{Path, PathBuf};
use tinystore::blocking::Store;
use tinystore::{Code, ConnectOptions};

pub(super) const TOKEN: &str = "tls-test-token-0123456789";

/// A CA that signs certificates, kept as PEM files in a directory.
pub(super) struct Ca {
    cert: rcgen::Certificate,
    key: KeyPair,
    dir: PathBuf,
    name: String,
}

impl Ca {
    pub(super) fn new(dir: &Path, name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, name);
        let key = KeyPair::generate().unwrap();
        let cert = params.self_signed(&key).unwrap();
        let ca = Ca {
            cert,
            key,
            dir: dir.to_path_buf(),
            name: name.to_string(),
        };
        std::fs::write(ca.pem(), ca.cert.pem()).unwrap();
        ca
    }

    /// The CA's certificate file.
    pub(super) fn pem(&self) -> PathBuf {
        self.dir.join(format!("{}.pem", self.name))
    }

    /// A certificate for `names` (DNS names), valid from `from` to `until`
    /// (years), for a server or a client; its (certificate, key) files.
    pub(super) fn sign(
        &self,
        file: &str,
        names: &[&str],
        years: (i32, i32),
        server: bool,
    ) -> (PathBuf, PathBuf) {
        let names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let mut params = CertificateParams::new(names).unwrap();
        params.distinguished_name.push(DnType::CommonName, file);
        params.not_before = date_time_ymd(years.0, 1, 1);
        params.not_after = date_time_ymd(years.1, 1, 1);
        params.extended_key_usages = vec![if server {
            ExtendedKeyUsagePurpose::ServerAuth
        } else {
            ExtendedKeyUsagePurpose::ClientAuth
        }];
        let key = KeyPair::generate().unwrap();
        let cert = params.signed_by(&key, &self.cert, &self.key).unwrap();
        let (cert_file, key_file) = (
            self.dir.join(format!("{file}.pem")),
            self.dir.join(format!("{file}.key")),
        );
        std::fs::write(&cert_file, cert.pem()).unwrap();
        std::fs::write(&key_file, key.serialize_pem()).unwrap();
        (cert_file, key_file)
    }
}

/// Years a certificate valid now spans.
pub(super) const VALID: (i32, i32) = (2020, 2090);

/// A TLS server with the certificate and key `server`, and `extra` arguments.
pub(super) fn serve_tls(tmp: &Path, server: (PathBuf, PathBuf), extra: &[&str]) -> Served {
    let token = tmp.join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let mut args = vec![
        "--tcp".to_string(),
        "127.0.0.1:0".into(),
        "--tls-cert".into(),
        server.0.display().to_string(),
        "--tls-key".into(),
        server.1.display().to_string(),
    ];
    if !extra.contains(&"--tls-client-ca") {
        args.extend(["--token-file".to_string(), token.display().to_string()]);
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Served::start(&tmp.join(format!("store-{}", rand_suffix())), &args)
}

fn rand_suffix() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// The port the server printed for its TLS listener.
fn port(served: &Served) -> u16 {
    let log = served.log();
    let at = log.find("tls://").expect("a tls:// address in the log") + "tls://".len();
    let hostport = log[at..].split_whitespace().next().unwrap();
    hostport.rsplit_once(':').unwrap().1.parse().unwrap()
}

fn connect(address: &str) -> tinystore::Result<Store> {
    Store::connect_with(address, ConnectOptions::default().token(TOKEN))
}

fn refused(address: &str, because: &str) {
    match connect(address) {
        Ok(_) => panic!("{address}: connected, though it should be refused ({because})"),
        Err(err) => {
            assert_eq!(err.code(), Code::Unauthorized, "{address}: {err}");
            assert!(err.message().contains(because), "{address}: {err}");
        }
    }
}

#[test]
fn a_good_handshake_serves_locks_and_each_bad_one_is_refused_with_its_cause() {
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new(tmp.path(), "ca");
    let other = Ca::new(tmp.path(), "other-ca");
    let served = serve_tls(
        tmp.path(),
        ca.sign("server", &["localhost"], VALID, true),
        &[],
    );
    let port = port(&served);
    let ca_pem = ca.pem().display().to_string();

    // A good handshake: a lock with its fence, over TLS.
    let good = format!("tls://localhost:{port}?ca={ca_pem}");
    let store = connect(&good).unwrap();
    let lease = store.locks("jobs").acquire("a").unwrap();
    assert!(lease.fence().get() > 0);

    // The server's certificate is signed by a CA the client does not trust.
    let other_pem = other.pem().display().to_string();
    refused(
        &format!("tls://localhost:{port}?ca={other_pem}"),
        "unknown issuer",
    );
    // The certificate names localhost, not 127.0.0.1.
    refused(
        &format!("tls://127.0.0.1:{port}?ca={ca_pem}"),
        "not valid for this host name",
    );
    // A plain client on the TLS port is told, in plain JSON.
    refused(&format!("tcp://127.0.0.1:{port}"), "this port speaks TLS");
    // A CA file that is not there is an `io` error naming it.
    let missing = tmp.path().join("missing.pem");
    let Err(err) = connect(&format!("tls://localhost:{port}?ca={}", missing.display())) else {
        panic!("connected with a CA file that does not exist");
    };
    assert_eq!(err.code(), Code::Io, "{err}");
    assert!(err.message().contains("missing.pem"), "{err}");
    // TLS without mutual TLS still asks for the token.
    let Err(err) = Store::connect(&good) else {
        panic!("no token, yet served");
    };
    assert_eq!(err.code(), Code::Unauthorized, "{err}");
    assert!(err.message().contains("token"), "{err}");

    // The server carried on: the first client still holds its lease, and a
    // new one is served.
    assert!(lease.is_held());
    let again = connect(&good).unwrap();
    assert!(again.locks("jobs").try_acquire("a").unwrap().is_none());
    drop(lease);
    let log = served.log();
    assert!(log.contains("refused authentication"), "{log}");
    assert!(!log.contains(TOKEN), "the token is never logged: {log}");
}

#[test]
fn an_expired_certificate_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new(tmp.path(), "ca");
    let expired = ca.sign("old", &["localhost"], (2001, 2002), true);
    let served = serve_tls(tmp.path(), expired, &[]);
    let address = format!(
        "tls://localhost:{}?ca={}",
        port(&served),
        ca.pem().display()
    );
    refused(&address, "expired");
}

#[test]
fn mutual_tls_takes_a_client_certificate_in_place_of_the_token() {
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new(tmp.path(), "ca");
    let clients = Ca::new(tmp.path(), "clients-ca");
    let strangers = Ca::new(tmp.path(), "strangers-ca");
    let client_ca = clients.pem().display().to_string();
    let served = serve_tls(
        tmp.path(),
        ca.sign("server", &["localhost"], VALID, true),
        &["--tls-client-ca", &client_ca],
    );
    let base = format!(
        "tls://localhost:{}?ca={}",
        port(&served),
        ca.pem().display()
    );

    // Without a client certificate: refused.
    refused(&base, "requires a client certificate");
    // With one from a CA the server does not trust: refused.
    let (cert, key) = strangers.sign("stranger", &["client"], VALID, false);
    let strange = format!("{base}&cert={}&key={}", cert.display(), key.display());
    refused(&strange, "not signed by a CA it trusts");
    // With a good one, and no token: served.
    let (cert, key) = clients.sign("client", &["client"], VALID, false);
    let address = format!("{base}&cert={}&key={}", cert.display(), key.display());
    let store = Store::connect(&address).unwrap();
    let lease = store.locks("jobs").acquire("a").unwrap();
    assert!(lease.fence().get() > 0);
    assert!(served.log().contains("refused authentication"));
}

#[test]
fn bad_certificate_files_stop_serve_with_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let token = tmp.path().join("token");
    std::fs::write(&token, TOKEN).unwrap();
    let not_pem = tmp.path().join("not.pem");
    std::fs::write(&not_pem, "hello").unwrap();
    let dir = tmp.path().join("store");
    let out = std::process::Command::new(BIN)
        .args(["serve", dir.to_str().unwrap(), "--tcp", "127.0.0.1:0"])
        .args(["--token-file", token.to_str().unwrap()])
        .args(["--tls-cert", not_pem.to_str().unwrap()])
        .args(["--tls-key", not_pem.to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("invalid") && err.contains("no PEM certificate"),
        "{err}"
    );
}

#[test]
fn a_tls_client_on_a_plain_port_is_told_the_server_does_not_speak_tls() {
    let tmp = tempfile::tempdir().unwrap();
    let served = Served::start_tcp(&tmp.path().join("store"), TOKEN, &[], &[]);
    let hostport = served.tcp_addr().unwrap();
    refused(&format!("tls://{hostport}"), "does not speak TLS here");
    assert!(connect(&format!("tcp://{hostport}")).is_ok());
}
