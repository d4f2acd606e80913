//! TLS on the TCP listener: the server's certificate and key, and with a
//! client CA, mutual TLS, where a verified client certificate stands in
//! place of the token. The handshake counts as a stranger's time (the same
//! cap and deadline as an unauthenticated connection); a client that speaks
//! plain JSON to the TLS port is told so, in plain JSON, and closed.

use super::connection::Transport;
use super::gate::Pass;
use super::listener::{accept_tcp, admit, refuse, Shared};
use crate::error::{Code, Error, Result};
use crate::tls::{certificates, describe, private_key, provider, roots_from};
use crate::wire::STRANGER_TIMEOUT;
use rustls::server::WebPkiClientVerifier;
use rustls::ServerConfig;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::net::{TcpListener, TcpStream};
use tokio_rustls::TlsAcceptor;

/// The first byte of every TLS connection (a handshake record).
const TLS_HANDSHAKE: u8 = 0x16;

/// TLS on the TCP listener.
#[derive(Clone, Debug)]
pub struct TlsOptions {
    /// The server's certificate chain (PEM), its own certificate first.
    pub cert: PathBuf,
    /// The certificate's private key (PEM).
    pub key: PathBuf,
    /// With a CA file (PEM), every client must give a certificate signed by
    /// one of its CAs, and that certificate stands in place of the token.
    pub client_ca: Option<PathBuf>,
}

/// The listener's TLS: its settings, and whether clients prove themselves
/// with certificates.
pub(super) struct Tls {
    acceptor: TlsAcceptor,
    certified: bool,
}

impl Tls {
    /// Reads the certificate, key and client CA; `io` when a file cannot be
    /// read, `invalid` when it holds no certificate or key, or they do not
    /// go together.
    pub(super) fn new(options: &TlsOptions) -> Result<Tls> {
        let builder = ServerConfig::builder_with_provider(provider())
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::internal(format!("TLS settings: {e}")))?;
        let builder = match &options.client_ca {
            Some(ca) => {
                let roots = roots_from(ca, "client CA file")?;
                let verifier =
                    WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider())
                        .build()
                        .map_err(|e| {
                            Error::new(
                                Code::Invalid,
                                format!("client CA file {}: {e}", ca.display()),
                            )
                        })?;
                builder.with_client_cert_verifier(verifier)
            }
            None => builder.with_no_client_auth(),
        };
        let config = builder
            .with_single_cert(
                certificates(&options.cert, "certificate file")?,
                private_key(&options.key)?,
            )
            .map_err(|e| {
                Error::new(
                    Code::Invalid,
                    format!(
                        "certificate {} and key {} do not go together: {e}",
                        options.cert.display(),
                        options.key.display()
                    ),
                )
            })?;
        Ok(Tls {
            acceptor: TlsAcceptor::from(Arc::new(config)),
            certified: options.client_ca.is_some(),
        })
    }

    /// The same certificate, key and client CA, for another listener (the
    /// metrics' with `--metrics-tls`).
    pub(super) fn acceptor(&self) -> TlsAcceptor {
        self.acceptor.clone()
    }
}

/// Accepts TLS connections until shutdown. Without a client CA each must
/// authenticate with `token` in `hello`, as on plain TCP.
pub(super) fn spawn_tls(listener: TcpListener, shared: Shared, token: String, tls: Tls) {
    let token: Option<Arc<str>> = (!tls.certified).then(|| token.into());
    let tls = Arc::new(tls);
    let to = shared.clone();
    accept_tcp(listener, shared, move |stream, peer, pass| {
        let handshake = handshake(stream, peer, tls.clone(), token.clone(), pass, to.clone());
        tokio::spawn(handshake);
    });
}

/// Makes the handshake within the strangers' deadline, then serves the
/// connection; a failed handshake is logged with its cause.
async fn handshake(
    stream: TcpStream,
    peer: SocketAddr,
    tls: Arc<Tls>,
    token: Option<Arc<str>>,
    mut pass: Pass,
    shared: Shared,
) {
    let mut shutdown = shared.shutdown();
    let accepted = tokio::select! {
        accepted = tokio::time::timeout(STRANGER_TIMEOUT, accept(stream, &tls)) => accepted,
        _ = pass.evicted() => return refused(&shared, peer, "evicted during the TLS handshake"),
        _ = shutdown.recv() => return,
    };
    match accepted {
        Ok(Ok(stream)) => {
            let transport = Transport::Tls(token);
            admit(stream, transport, pass, Some(peer), shared);
        }
        Ok(Err(why)) => refused(&shared, peer, &why),
        Err(_) => {
            let why = format!("no TLS handshake within {STRANGER_TIMEOUT:?}");
            refused(&shared, peer, &why)
        }
    }
}

/// The TLS handshake; a client that does not start one is told, in plain
/// JSON, that this port speaks TLS.
async fn accept(
    stream: TcpStream,
    tls: &Tls,
) -> std::result::Result<tokio_rustls::server::TlsStream<TcpStream>, String> {
    let mut first = [0u8; 1];
    match stream.peek(&mut first).await {
        Ok(1) if first[0] == TLS_HANDSHAKE => {}
        Ok(0) | Err(_) => return Err("closed before the TLS handshake".into()),
        Ok(_) => {
            let why = "this port speaks TLS: connect with a tls:// address";
            refuse(stream, Error::new(Code::Unauthorized, why));
            return Err(format!("a plain client on the TLS port: {why}"));
        }
    }
    tls.acceptor
        .accept(stream)
        .await
        .map_err(|e| match crate::tls::rustls_error(&e) {
            Some(err) => describe(err, "the client"),
            None => format!("the TLS handshake broke: {e}"),
        })
}

fn refused(shared: &Shared, peer: SocketAddr, why: &str) {
    tracing::warn!(target: "tinystore::auth", %peer, transport = "tls", why, "refused authentication");
    shared.metrics.refused("tls");
}
