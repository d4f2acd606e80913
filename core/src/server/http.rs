//! The small HTTP/1.1 of the metrics listener ([`super::scrape`]): one
//! request's head read and parsed, one reply written, the connection
//! closed after it. Bodies of requests are never read.

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// The longest request head read; a longer one gets `431`.
pub(super) const MAX_REQUEST_BYTES: usize = 8 * 1024;

/// A request's method, path (without its query) and headers.
pub(super) struct Request {
    pub method: String,
    pub path: String,
    headers: Vec<(String, String)>,
}

impl Request {
    /// The request of `head` (its request line and headers); `None` when
    /// it has no request line.
    pub(super) fn parse(head: &str) -> Option<Request> {
        let mut lines = head.lines();
        let mut words = lines.next()?.split_whitespace();
        let method = words.next()?.to_string();
        let target = words.next()?;
        let path = target.split('?').next().unwrap_or(target).to_string();
        let headers = lines
            .filter_map(|line| line.split_once(':'))
            .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_string()))
            .collect();
        Some(Request {
            method,
            path,
            headers,
        })
    }

    /// The value of the first header named `name` (lowercase), if any.
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One reply: a status line, a content type, more headers, a body.
pub(super) struct Reply {
    status: &'static str,
    content_type: &'static str,
    headers: Vec<(&'static str, &'static str)>,
    body: Vec<u8>,
}

impl Reply {
    /// A reply of `status` (e.g. `200 OK`) with `body` of `content_type`.
    pub(super) fn new(
        status: &'static str,
        content_type: &'static str,
        body: impl Into<Vec<u8>>,
    ) -> Reply {
        Reply {
            status,
            content_type,
            headers: Vec::new(),
            body: body.into(),
        }
    }

    /// A plain text reply.
    pub(super) fn text(status: &'static str, body: impl Into<String>) -> Reply {
        Reply::new(status, "text/plain; charset=utf-8", body.into())
    }

    /// This reply with the header `name: value` too.
    pub(super) fn with(mut self, name: &'static str, value: &'static str) -> Reply {
        self.headers.push((name, value));
        self
    }

    /// Writes the reply and closes the stream's sending half.
    pub(super) async fn send<S: AsyncWrite + Unpin>(&self, stream: &mut S) -> std::io::Result<()> {
        let mut head = format!(
            "HTTP/1.1 {}\r\nContent-Type: {}\r\nContent-Length: {}\r\nConnection: close\r\n",
            self.status,
            self.content_type,
            self.body.len()
        );
        for (name, value) in &self.headers {
            head += &format!("{name}: {value}\r\n");
        }
        head += "\r\n";
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(&self.body).await?;
        stream.shutdown().await
    }
}

/// The request's head (up to the blank line); `None` when it is too long.
pub(super) async fn read_head<S: AsyncRead + Unpin>(
    stream: &mut S,
) -> std::io::Result<Option<String>> {
    let mut head = Vec::new();
    let mut buf = [0u8; 1024];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && !head.windows(2).any(|w| w == b"\n\n") {
        if head.len() > MAX_REQUEST_BYTES {
            return Ok(None);
        }
        let n = stream.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        head.extend_from_slice(&buf[..n]);
    }
    Ok(Some(String::from_utf8_lossy(&head).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::Request;

    #[test]
    fn parses_the_method_path_and_headers() {
        let r = Request::parse(
            "GET /page.json?x=1 HTTP/1.1\r\nHost: a\r\nAuthorization:  Bearer t \r\n\r\n",
        )
        .unwrap();
        assert_eq!((r.method.as_str(), r.path.as_str()), ("GET", "/page.json"));
        assert_eq!(r.header("authorization"), Some("Bearer t"));
        assert_eq!(r.header("cookie"), None);
        assert!(Request::parse("").is_none());
        assert!(Request::parse("GET\r\n\r\n").is_none());
    }
}
