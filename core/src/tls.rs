//! What the TLS client and server share: the crypto provider (ring), PEM
//! files read into certificates, keys and root stores, and one sentence for
//! each way a handshake fails.

use crate::error::{Code, Error, Result};
use rustls::crypto::CryptoProvider;
use rustls::{AlertDescription, CertificateError, RootCertStore};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use std::path::Path;
use std::sync::Arc;

/// The one crypto provider tinystore uses, whatever else the process has
/// installed as rustls's default.
pub(crate) fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The certificates of a PEM file, in order; `io` when it cannot be read,
/// `invalid` when it holds none.
pub(crate) fn certificates(path: &Path, what: &str) -> Result<Vec<CertificateDer<'static>>> {
    let bad = |why: String| Error::new(Code::Invalid, format!("{what} {}: {why}", path.display()));
    let text = std::fs::read(path)
        .map_err(|e| Error::io(format!("cannot read {what} {}", path.display()), e))?;
    let certs = CertificateDer::pem_slice_iter(&text)
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(|e| bad(format!("not PEM certificates ({e})")))?;
    if certs.is_empty() {
        return Err(bad("holds no PEM certificate".into()));
    }
    Ok(certs)
}

/// The private key of a PEM file (PKCS#8, PKCS#1 or SEC1).
pub(crate) fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>> {
    let text = std::fs::read(path)
        .map_err(|e| Error::io(format!("cannot read key file {}", path.display()), e))?;
    PrivateKeyDer::from_pem_slice(&text).map_err(|e| {
        Error::new(
            Code::Invalid,
            format!("key file {} holds no PEM private key ({e})", path.display()),
        )
    })
}

/// The roots a peer's certificate must chain to: the CAs of a PEM file.
pub(crate) fn roots_from(path: &Path, what: &str) -> Result<RootCertStore> {
    let mut roots = RootCertStore::empty();
    for cert in certificates(path, what)? {
        roots.add(cert).map_err(|e| {
            Error::new(
                Code::Invalid,
                format!(
                    "{what} {} holds a certificate that is not a CA: {e}",
                    path.display()
                ),
            )
        })?;
    }
    Ok(roots)
}

/// The rustls error inside an I/O error from a TLS stream, if there is one.
pub(crate) fn rustls_error(err: &std::io::Error) -> Option<&rustls::Error> {
    err.get_ref()?.downcast_ref::<rustls::Error>()
}

/// Why a handshake failed, in words naming the cause: `peer` is the other
/// side, "the server" or "the client".
pub(crate) fn describe(err: &rustls::Error, peer: &str) -> String {
    use rustls::Error as E;
    match err {
        E::InvalidCertificate(cert) => describe_certificate(cert, peer),
        E::NoCertificatesPresented => {
            format!("{peer} gave no certificate, and this side requires one")
        }
        E::AlertReceived(alert) => describe_alert(*alert, peer),
        E::InvalidMessage(_) | E::InappropriateMessage { .. } => {
            format!("{peer} does not speak TLS here (a plain tcp:// port, or another protocol)")
        }
        other => format!("the TLS handshake failed: {other}"),
    }
}

fn describe_certificate(err: &CertificateError, peer: &str) -> String {
    use CertificateError as C;
    match err {
        C::UnknownIssuer => format!(
            "{peer}'s certificate is not signed by a trusted CA (unknown issuer): give the \
             CA that signed it"
        ),
        C::BadSignature => format!(
            "{peer}'s certificate is not signed by a trusted CA (bad signature: a trusted CA \
             has its issuer's name, but did not sign it)"
        ),
        C::NotValidForName | C::NotValidForNameContext { .. } => {
            format!("{peer}'s certificate is not valid for this host name ({err})")
        }
        C::Expired | C::ExpiredContext { .. } => {
            format!("{peer}'s certificate has expired ({err})")
        }
        C::NotValidYet | C::NotValidYetContext { .. } => {
            format!("{peer}'s certificate is not valid yet ({err})")
        }
        other => format!("{peer}'s certificate was refused: {other}"),
    }
}

/// What `peer`'s alert says of this side's certificate (or handshake).
fn describe_alert(alert: AlertDescription, peer: &str) -> String {
    use AlertDescription as A;
    let mine = if peer == "the server" {
        "this client's certificate"
    } else {
        "this server's certificate"
    };
    match alert {
        A::CertificateRequired => {
            format!("{peer} requires a client certificate (give cert= and key=)")
        }
        A::UnknownCA => format!("{peer} refused {mine}: not signed by a CA it trusts"),
        A::CertificateExpired => format!("{peer} refused {mine}: expired"),
        A::DecryptError => {
            format!("{peer} refused {mine}: not signed by a CA it trusts (bad signature)")
        }
        A::BadCertificate | A::UnsupportedCertificate | A::CertificateUnknown => {
            format!("{peer} refused {mine} ({alert:?})")
        }
        A::HandshakeFailure => {
            format!("{peer} refused the handshake (a client certificate it requires?)")
        }
        other => format!("{peer} ended the TLS handshake with the alert {other:?}"),
    }
}
