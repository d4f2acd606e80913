//! `serve --metrics-tls`: the metrics and the live page in HTTPS with the
//! lock port's certificate, key and client CA, read by a real TLS client
//! (rustls); a plain HTTP client gets no answer there, and with a client CA
//! a scraper without a client certificate is refused in the handshake.

use super::tls::{serve_tls, Ca, TOKEN, VALID};
use crate::support::server::*;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::{ClientConfig, RootCertStore};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The metrics address the server printed, with its scheme.
fn metrics_url(served: &Served) -> String {
    let log = served.log();
    let at = log.find("metrics on ").expect("a metrics address") + "metrics on ".len();
    log[at..]
        .split_whitespace()
        .next()
        .unwrap()
        .trim_end_matches([',', ';'])
        .trim_end_matches("/metrics")
        .to_string()
}

/// A TLS client that trusts `ca`, with a client certificate when given.
fn client(ca: &Path, cert: Option<(PathBuf, PathBuf)>) -> Arc<ClientConfig> {
    let mut roots = RootCertStore::empty();
    roots
        .add(CertificateDer::from_pem_file(ca).unwrap())
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    Arc::new(match cert {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => builder
            .with_client_auth_cert(
                vec![CertificateDer::from_pem_file(cert).unwrap()],
                PrivateKeyDer::from_pem_file(key).unwrap(),
            )
            .unwrap(),
    })
}

/// GET `path` over HTTPS from `hostport` (as `localhost`), with `headers`;
/// the whole answer, or the I/O error that ended it.
fn get(
    config: &Arc<ClientConfig>,
    hostport: &str,
    path: &str,
    headers: &str,
) -> std::io::Result<String> {
    let name = ServerName::try_from("localhost").unwrap();
    let conn = rustls::ClientConnection::new(config.clone(), name).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, TcpStream::connect(hostport)?);
    write!(
        tls,
        "GET {path} HTTP/1.1\r\nHost: localhost\r\n{headers}\r\n"
    )?;
    let mut answer = String::new();
    tls.read_to_string(&mut answer)?;
    Ok(answer)
}

#[test]
fn metrics_and_the_live_page_speak_https_with_the_lock_ports_certificate() {
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new(tmp.path(), "ca");
    let served = serve_tls(
        tmp.path(),
        ca.sign("server", &["localhost"], VALID, true),
        &["--metrics", "127.0.0.1:0", "--metrics-tls", "--page"],
    );
    let url = metrics_url(&served);
    let hostport = url
        .strip_prefix("https://")
        .expect("an https:// metrics address");
    assert!(
        served.log().contains(&format!("the live page on {url}/")),
        "{}",
        served.log()
    );
    let config = client(&ca.pem(), None);

    let metrics = get(&config, hostport, "/metrics", "").unwrap();
    assert!(metrics.starts_with("HTTP/1.1 200"), "{metrics}");
    assert!(metrics.contains("tinystore_"), "{metrics}");
    let page = get(&config, hostport, "/", "").unwrap();
    assert!(
        page.starts_with("HTTP/1.1 200") && page.contains("<html"),
        "{page}"
    );
    let data = get(
        &config,
        hostport,
        "/page.json",
        &format!("Authorization: Bearer {TOKEN}\r\n"),
    )
    .unwrap();
    assert!(
        data.starts_with("HTTP/1.1 200") && data.contains("\"groups\""),
        "{data}"
    );
    let no_token = get(&config, hostport, "/page.json", "").unwrap();
    assert!(no_token.starts_with("HTTP/1.1 401"), "{no_token}");

    // A plain HTTP client is answered nothing it can read as HTTP.
    let mut plain = TcpStream::connect(hostport).unwrap();
    plain
        .write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let mut answer = Vec::new();
    let _ = plain.read_to_end(&mut answer);
    assert!(
        !answer.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    // A client that does not trust the CA is refused.
    let stranger = Ca::new(tmp.path(), "stranger");
    assert!(get(&client(&stranger.pem(), None), hostport, "/metrics", "").is_err());
}

#[test]
fn with_a_client_ca_a_scraper_needs_a_client_certificate() {
    let tmp = tempfile::tempdir().unwrap();
    let ca = Ca::new(tmp.path(), "ca");
    let clients = Ca::new(tmp.path(), "clients-ca");
    let client_ca = clients.pem().display().to_string();
    let served = serve_tls(
        tmp.path(),
        ca.sign("server", &["localhost"], VALID, true),
        &[
            "--tls-client-ca",
            &client_ca,
            "--metrics",
            "127.0.0.1:0",
            "--metrics-tls",
        ],
    );
    let url = metrics_url(&served);
    let hostport = url.strip_prefix("https://").unwrap();
    assert!(get(&client(&ca.pem(), None), hostport, "/metrics", "").is_err());
    let certified = client(
        &ca.pem(),
        Some(clients.sign("scraper", &["scraper"], VALID, false)),
    );
    let metrics = get(&certified, hostport, "/metrics", "").unwrap();
    assert!(metrics.starts_with("HTTP/1.1 200"), "{metrics}");
}

#[test]
fn metrics_tls_needs_tls_on_the_lock_port() {
    let tmp = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(BIN)
        .args(["serve"])
        .arg(tmp.path().join("store"))
        .args(["--metrics", "127.0.0.1:0", "--metrics-tls"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--tls-cert"), "{err}");
    assert!(!tmp.path().join("store").exists(), "nothing was opened");
}
