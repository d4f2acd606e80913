//! Where a server is.

use crate::disk::SOCKET;
use crate::error::{Code, Error, Result};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// A server's address.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Address {
    /// A Unix socket, written `unix:PATH`.
    Unix(PathBuf),
    /// A TCP address, written `tcp://HOST:PORT`.
    Tcp(String),
    /// TCP wrapped in TLS, written `tls://HOST:PORT[?ca=FILE&cert=FILE&key=FILE]`.
    Tls(TlsTarget),
}

/// A `tls://` address: where the server is, what its certificate must be
/// signed by, and the client's own certificate, if it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TlsTarget {
    /// `HOST:PORT`, as given.
    pub hostport: String,
    /// The PEM file of the CAs the server's certificate must chain to;
    /// `None`: the system's roots.
    pub ca: Option<PathBuf>,
    /// The client's certificate chain and private key (PEM), for a server
    /// that asks for one (mutual TLS).
    pub cert: Option<(PathBuf, PathBuf)>,
}

impl TlsTarget {
    /// The host the server's certificate must name: `HOST` without its
    /// brackets (`[::1]` names `::1`).
    pub fn host(&self) -> &str {
        let host = self.hostport.rsplit_once(':').map_or("", |(host, _)| host);
        host.trim_start_matches('[').trim_end_matches(']')
    }
}

impl Address {
    /// Parses `unix:PATH`, `tcp://HOST:PORT`, `tls://HOST:PORT` with its
    /// options (`?ca=FILE&cert=FILE&key=FILE`, `%XX` escapes allowed), or a
    /// bare path: a store directory stands for its `tinystore.sock`,
    /// anything else for a socket.
    pub fn parse(text: &str) -> Result<Address> {
        if let Some(path) = text.strip_prefix("unix:") {
            if path.is_empty() {
                return Err(bad(text, "the socket path is empty"));
            }
            return Ok(Address::Unix(PathBuf::from(path)));
        }
        if let Some(hostport) = text.strip_prefix("tcp://") {
            check_hostport(text, hostport, "tcp")?;
            return Ok(Address::Tcp(hostport.to_string()));
        }
        if let Some(rest) = text.strip_prefix("tls://") {
            return parse_tls(text, rest).map(Address::Tls);
        }
        if text.is_empty() {
            return Err(bad(text, "it is empty"));
        }
        if text.contains("://") {
            return Err(bad(
                text,
                "only unix:, tcp:// and tls:// addresses are known",
            ));
        }
        let path = PathBuf::from(text);
        if path.is_dir() {
            return Ok(Address::Unix(path.join(SOCKET)));
        }
        Ok(Address::Unix(path))
    }
}

fn check_hostport(text: &str, hostport: &str, scheme: &str) -> Result<()> {
    let ok = hostport
        .rsplit_once(':')
        .is_some_and(|(host, port)| !host.is_empty() && port.parse::<u16>().is_ok());
    if ok {
        Ok(())
    } else {
        Err(bad(text, &format!("expected {scheme}://HOST:PORT")))
    }
}

fn parse_tls(text: &str, rest: &str) -> Result<TlsTarget> {
    let (hostport, query) = rest.split_once('?').unwrap_or((rest, ""));
    check_hostport(text, hostport, "tls")?;
    let (mut ca, mut cert, mut key) = (None, None, None);
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| bad(text, &format!("option {pair:?} has no value (NAME=FILE)")))?;
        let value = PathBuf::from(
            unescape(value)
                .ok_or_else(|| bad(text, &format!("option {name:?} has a bad %XX escape")))?,
        );
        let slot = match name {
            "ca" => &mut ca,
            "cert" => &mut cert,
            "key" => &mut key,
            _ => {
                let why = format!("unknown option {name:?}; the options are ca, cert and key");
                return Err(bad(text, &why));
            }
        };
        if slot.replace(value).is_some() {
            return Err(bad(text, &format!("option {name:?} is given twice")));
        }
    }
    let cert = match (cert, key) {
        (Some(cert), Some(key)) => Some((cert, key)),
        (None, None) => None,
        _ => return Err(bad(text, "cert and key go together: give both or neither")),
    };
    Ok(TlsTarget {
        hostport: hostport.to_string(),
        ca,
        cert,
    })
}

/// Decodes `%XX` escapes; `None` for a bad one or text that is not UTF-8.
fn unescape(value: &str) -> Option<String> {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Escapes what would end an option's value: `%`, `&`, `?`, `=` and `#`.
fn escape(value: &std::path::Path) -> String {
    let mut out = String::new();
    for c in value.to_string_lossy().chars() {
        match c {
            '%' | '&' | '?' | '=' | '#' => out.push_str(&format!("%{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn bad(text: &str, why: &str) -> Error {
    Error::new(
        Code::Invalid,
        format!("address {text:?} is not valid: {why}"),
    )
}

impl FromStr for Address {
    type Err = Error;

    fn from_str(text: &str) -> Result<Address> {
        Address::parse(text)
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Unix(path) => write!(f, "unix:{}", path.display()),
            Address::Tcp(hostport) => write!(f, "tcp://{hostport}"),
            Address::Tls(target) => {
                write!(f, "tls://{}", target.hostport)?;
                let mut options = Vec::new();
                if let Some(ca) = &target.ca {
                    options.push(format!("ca={}", escape(ca)));
                }
                if let Some((cert, key)) = &target.cert {
                    options.push(format!("cert={}", escape(cert)));
                    options.push(format!("key={}", escape(key)));
                }
                if !options.is_empty() {
                    write!(f, "?{}", options.join("&"))?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Address, TlsTarget};
    use std::path::PathBuf;

    #[test]
    fn tls_addresses_carry_their_files_and_print_back() {
        let text = "tls://db.example:7400?ca=/etc/ca.pem&cert=/c%26d.pem&key=k.pem";
        let Address::Tls(target) = Address::parse(text).unwrap() else {
            panic!("not a tls address");
        };
        assert_eq!(
            target,
            TlsTarget {
                hostport: "db.example:7400".into(),
                ca: Some(PathBuf::from("/etc/ca.pem")),
                cert: Some(("/c&d.pem".into(), "k.pem".into())),
            }
        );
        assert_eq!(target.host(), "db.example");
        assert_eq!(Address::Tls(target).to_string(), text);
        let plain = Address::parse("tls://[::1]:7400").unwrap();
        assert_eq!(plain.to_string(), "tls://[::1]:7400");
        let Address::Tls(target) = plain else {
            panic!("not a tls address");
        };
        assert_eq!(target.host(), "::1");
    }

    #[test]
    fn bad_tls_addresses_say_what_is_wrong() {
        for (text, why) in [
            ("tls://host", "expected tls://HOST:PORT"),
            ("tls://host:1?cert=a.pem", "cert and key go together"),
            ("tls://host:1?ca=a&ca=b", "\"ca\" is given twice"),
            ("tls://host:1?token=x", "unknown option \"token\""),
            ("tls://host:1?ca", "has no value"),
            ("tls://host:1?ca=%zz", "bad %XX escape"),
        ] {
            let err = Address::parse(text).unwrap_err();
            assert_eq!(err.code(), crate::error::Code::Invalid);
            assert!(err.message().contains(why), "{text}: {err}");
        }
    }
}
