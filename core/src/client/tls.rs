//! A `tls://` connection: the client's TLS settings made from its address
//! (the CA file or the system's roots, the client certificate), the
//! handshake, and the failed handshake told as `unauthorized` with its cause.

use super::address::TlsTarget;
use crate::error::{Code, Error, Result};
use crate::tls::{certificates, describe, private_key, provider, roots_from, rustls_error};
use rustls::{ClientConfig, RootCertStore};
use rustls_pki_types::ServerName;
use std::sync::{Arc, OnceLock};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::TlsConnector;

/// Connects to `target` and makes the TLS handshake, the server's
/// certificate checked against the address's CA file or the system's roots.
pub(super) async fn connect(target: &TlsTarget, address: &str) -> Result<TlsStream<TcpStream>> {
    let config = client_config(target)?;
    let name = ServerName::try_from(target.host().to_string()).map_err(|e| {
        Error::new(
            Code::Invalid,
            format!(
                "address {address}: {:?} is not a host name: {e}",
                target.host()
            ),
        )
    })?;
    let tcp = TcpStream::connect(&target.hostport).await.map_err(|e| {
        Error::new(
            Code::Unavailable,
            format!("cannot reach tinystore server at {address}: {e}"),
        )
    })?;
    tcp.set_nodelay(true)
        .map_err(|e| Error::io("cannot set TCP_NODELAY", e))?;
    TlsConnector::from(config)
        .connect(name, tcp)
        .await
        .map_err(|e| failed(address, e))
}

/// The error of a TLS stream that failed: `unauthorized` with the cause when
/// TLS refused (a certificate, the other side's alert, a peer that does not
/// speak TLS), else `unavailable`.
pub(super) fn failed(address: &str, err: std::io::Error) -> Error {
    match rustls_error(&err) {
        Some(tls) => Error::new(
            Code::Unauthorized,
            format!(
                "TLS with tinystore server at {address} failed: {}",
                describe(tls, "the server")
            ),
        ),
        None => Error::new(
            Code::Unavailable,
            format!("cannot reach tinystore server at {address}: {err}"),
        ),
    }
}

fn client_config(target: &TlsTarget) -> Result<Arc<ClientConfig>> {
    let roots = match &target.ca {
        Some(ca) => roots_from(ca, "CA file")?,
        None => system_roots()?,
    };
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::internal(format!("TLS settings: {e}")))?
        .with_root_certificates(roots);
    let config = match &target.cert {
        None => builder.with_no_client_auth(),
        Some((cert, key)) => builder
            .with_client_auth_cert(certificates(cert, "certificate file")?, private_key(key)?)
            .map_err(|e| {
                Error::new(
                    Code::Invalid,
                    format!(
                        "client certificate {} and key {} do not go together: {e}",
                        cert.display(),
                        key.display()
                    ),
                )
            })?,
    };
    Ok(Arc::new(config))
}

/// The system's trusted roots, read once per process.
fn system_roots() -> Result<RootCertStore> {
    static ROOTS: OnceLock<RootCertStore> = OnceLock::new();
    if let Some(roots) = ROOTS.get() {
        return Ok(roots.clone());
    }
    let found = rustls_native_certs::load_native_certs();
    let mut roots = RootCertStore::empty();
    roots.add_parsable_certificates(found.certs);
    if roots.is_empty() {
        return Err(Error::new(
            Code::Unavailable,
            format!(
                "no trusted CA certificates found on this system ({} errors reading them); \
                 give the server's CA in the address: tls://HOST:PORT?ca=FILE",
                found.errors.len()
            ),
        ));
    }
    Ok(ROOTS.get_or_init(|| roots).clone())
}
