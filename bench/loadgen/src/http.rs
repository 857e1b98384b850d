//! A minimal HTTP/1.1 client: one keep-alive connection, one request in flight.
//!
//! Hand-written rather than a general client so that the generator's cost per request is a
//! `format!` of the head, one `write` and as few `read`s as the reply needs: no connection pool,
//! no header maps, no per-request allocation once the buffers have grown to the reply size.

use std::fmt;
use std::io;
use std::sync::Arc;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A reply head larger than this is not one of the servers under test misbehaving slightly.
const MAX_HEAD: usize = 64 * 1024;

/// Why a request failed.
#[derive(Debug)]
pub enum Error {
    /// The server closed the connection before any byte of the reply: an idle keep-alive
    /// connection it dropped, which a paced client reconnects instead of counting as a failure.
    Closed,
    /// Anything else, described for the user.
    Failed(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Closed => f.write_str("the server closed the connection"),
            Error::Failed(message) => f.write_str(message),
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;

/// A failure about the reply `body` to `path`, quoting its start so the user sees what came back.
pub fn bad_reply(path: &str, what: &str, body: &[u8]) -> Error {
    Error::Failed(format!("{path}: {what}: {}", preview(body)))
}

/// The first 200 bytes of a body, printable.
fn preview(body: &[u8]) -> String {
    String::from_utf8_lossy(&body[..body.len().min(200)]).into_owned()
}

/// Where requests go, shared by every connection.
pub struct Endpoint {
    /// `host:port`, for connecting.
    authority: String,
    /// The URL's path, without a trailing `/`, put before every request path.
    prefix: String,
    /// The header lines every request carries, ready to copy.
    headers: String,
}

impl Endpoint {
    /// Parses `http://host[:port][/prefix]`; `api_key` becomes a bearer `Authorization` header.
    pub fn new(url: &str, api_key: Option<&str>) -> std::result::Result<Arc<Endpoint>, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("--url {url}: only http:// URLs are supported"))?;
        let (authority, prefix) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        if authority.is_empty() {
            return Err(format!("--url {url}: no host"));
        }
        let authority = if authority.contains(':') {
            authority.to_owned()
        } else {
            format!("{authority}:80")
        };
        let mut headers = format!("Host: {authority}\r\nContent-Type: application/json\r\n");
        if let Some(key) = api_key {
            headers.push_str(&format!("Authorization: Bearer {key}\r\n"));
        }
        Ok(Arc::new(Endpoint {
            authority,
            prefix: prefix.trim_end_matches('/').to_owned(),
            headers,
        }))
    }

    /// Opens a connection.
    pub async fn connect(self: &Arc<Self>) -> Result<Conn> {
        let stream = TcpStream::connect(&self.authority)
            .await
            .map_err(|e| Error::Failed(format!("connecting to {}: {e}", self.authority)))?;
        // Each request is written with one `write`; without this, Nagle's algorithm would hold
        // a small request back waiting for the ACK of the previous one, adding up to 40 ms.
        stream
            .set_nodelay(true)
            .map_err(|e| Error::Failed(format!("TCP_NODELAY: {e}")))?;
        Ok(Conn {
            endpoint: Arc::clone(self),
            stream,
            out: Vec::with_capacity(1024),
            buf: Vec::with_capacity(16 * 1024),
            pos: 0,
            body: Vec::with_capacity(1024),
            closing: false,
        })
    }
}

/// One keep-alive connection.
pub struct Conn {
    endpoint: Arc<Endpoint>,
    stream: TcpStream,
    /// The request being sent, reused.
    out: Vec<u8>,
    /// Bytes received; those before `pos` belong to replies already returned.
    buf: Vec<u8>,
    pos: usize,
    /// The last reply's body, de-chunked, reused.
    body: Vec<u8>,
    /// The server announced `Connection: close` on the last reply.
    closing: bool,
}

impl Conn {
    /// POSTs a JSON `body` to `path` and returns the reply body; any status but 2xx is an error.
    pub async fn post(&mut self, path: &str, body: &[u8]) -> Result<&[u8]> {
        if self.closing {
            return Err(Error::Closed);
        }
        self.out.clear();
        let endpoint = &self.endpoint;
        self.out.extend_from_slice(
            format!(
                "POST {}{path} HTTP/1.1\r\n{}Content-Length: {}\r\n\r\n",
                endpoint.prefix,
                endpoint.headers,
                body.len()
            )
            .as_bytes(),
        );
        self.out.extend_from_slice(body);
        if let Err(e) = self.stream.write_all(&self.out).await {
            return Err(io_error(path, e));
        }
        let status = self.read_reply(path).await?;
        if !(200..300).contains(&status) {
            return Err(Error::Failed(format!(
                "{path}: HTTP {status}: {}",
                preview(&self.body)
            )));
        }
        Ok(&self.body)
    }

    /// Reads one reply into `body`, returning its status.
    async fn read_reply(&mut self, path: &str) -> Result<u16> {
        // Whatever follows the previous reply (nothing, unless the server sent more than one)
        // is the start of this one.
        self.buf.drain(..self.pos);
        self.pos = 0;
        self.body.clear();
        let mut scanned = 0;
        let head_len = loop {
            if let Some(at) = find(&self.buf[scanned..], b"\r\n\r\n") {
                break scanned + at + 4;
            }
            if self.buf.len() > MAX_HEAD {
                return Err(bad_reply(path, "reply head too large", &self.buf));
            }
            scanned = self.buf.len().saturating_sub(3);
            self.fill(path).await?;
        };
        let head = std::str::from_utf8(&self.buf[..head_len])
            .map_err(|_| bad_reply(path, "reply head is not text", &self.buf))?;
        let mut lines = head.split("\r\n");
        let status = lines
            .next()
            .and_then(|line| line.strip_prefix("HTTP/1."))
            .and_then(|line| line.split(' ').nth(1))
            .and_then(|code| code.parse::<u16>().ok())
            .ok_or_else(|| bad_reply(path, "not an HTTP/1 status line", &self.buf))?;
        let mut length = None;
        let mut chunked = false;
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .parse::<usize>()
                        .map_err(|_| bad_reply(path, "bad Content-Length", head.as_bytes()))?,
                );
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value.to_ascii_lowercase().contains("chunked");
            } else if name.eq_ignore_ascii_case("connection") {
                self.closing = value.eq_ignore_ascii_case("close");
            }
        }
        self.pos = head_len;
        if chunked {
            self.read_chunked(path).await?;
        } else {
            let length = length.ok_or_else(|| {
                bad_reply(
                    path,
                    "reply has neither Content-Length nor chunks",
                    &self.buf,
                )
            })?;
            while self.buf.len() < self.pos + length {
                self.fill(path).await?;
            }
            self.body
                .extend_from_slice(&self.buf[self.pos..self.pos + length]);
            self.pos += length;
        }
        Ok(status)
    }

    /// Reads a chunked body (etcd's gateway streams its replies so) into `body`.
    async fn read_chunked(&mut self, path: &str) -> Result<()> {
        loop {
            let end = self.line_end(path).await?;
            let line = &self.buf[self.pos..end];
            let digits = line.split(|&b| b == b';').next().unwrap_or_default();
            let size = std::str::from_utf8(digits)
                .ok()
                .and_then(|d| usize::from_str_radix(d.trim(), 16).ok())
                .ok_or_else(|| bad_reply(path, "bad chunk size", line))?;
            self.pos = end + 2;
            if size == 0 {
                // Trailers, if any, up to the empty line.
                loop {
                    let end = self.line_end(path).await?;
                    let empty = end == self.pos;
                    self.pos = end + 2;
                    if empty {
                        return Ok(());
                    }
                }
            }
            while self.buf.len() < self.pos + size + 2 {
                self.fill(path).await?;
            }
            self.body
                .extend_from_slice(&self.buf[self.pos..self.pos + size]);
            if &self.buf[self.pos + size..self.pos + size + 2] != b"\r\n" {
                return Err(bad_reply(path, "chunk not followed by CRLF", &self.body));
            }
            self.pos += size + 2;
        }
    }

    /// The index of the next CRLF at or after `pos`, reading until there is one.
    async fn line_end(&mut self, path: &str) -> Result<usize> {
        let mut scanned = self.pos;
        loop {
            if let Some(at) = find(&self.buf[scanned..], b"\r\n") {
                return Ok(scanned + at);
            }
            scanned = self.buf.len().saturating_sub(1).max(self.pos);
            self.fill(path).await?;
        }
    }

    /// Appends whatever the socket has to `buf`.
    async fn fill(&mut self, path: &str) -> Result<()> {
        self.buf.reserve(16 * 1024);
        match self.stream.read_buf(&mut self.buf).await {
            Ok(0) if self.buf.is_empty() => Err(Error::Closed),
            Ok(0) => Err(bad_reply(
                path,
                "the server closed the connection mid-reply",
                &self.buf,
            )),
            Ok(_) => Ok(()),
            Err(e) if self.buf.is_empty() => Err(io_error(path, e)),
            Err(e) => Err(Error::Failed(format!("{path}: reading the reply: {e}"))),
        }
    }
}

/// A socket error before any byte of the reply: a reset or broken pipe is how a server's close
/// of an idle connection may show up, the rest is a failure.
fn io_error(path: &str, e: io::Error) -> Error {
    match e.kind() {
        io::ErrorKind::ConnectionReset | io::ErrorKind::BrokenPipe => Error::Closed,
        _ => Error::Failed(format!("{path}: {e}")),
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
