//! Which connections the grantor keeps when too many are open, and how long a reply may wait for
//! a reader that does not read.
//!
//! A slow-HTTP attack holds connections open cheaply: headers or a body trickled a byte at a
//! time (slow-loris), or replies read a byte at a time (slow read). Each costs the attacker
//! almost nothing and the grantor a socket, so without limits a few thousand of them exhaust its
//! file descriptors, and a holder that reconnects to renew is refused while its lease runs out.
//!
//! - **Caps**: at most [`ConnectionLimits::max_total`] connections open, and at most
//!   [`ConnectionLimits::max_per_address`] from one peer address.
//! - **Who makes room**: a connection counts as *proven* once it completed a `/v1` request with
//!   a success status (what holders and workers send; `/metrics` and static files do not count),
//!   unless its replies ever stalled because it did not read them (then it is
//!   *suspect* for good, and the first to go). At a cap, a new connection is admitted by closing
//!   a suspect connection, else the oldest one that has not proven itself and is over a second
//!   old (in the same address, for the per-address cap); if there is none, the new one is
//!   refused. Holders renew over connections that proved themselves long ago and read every
//!   reply, so an attacker's connections, which never complete a request or never read the
//!   replies, only ever displace each other.
//! - **Slow readers**: a reply that cannot be written for [`ConnectionLimits::write_stall`]
//!   (the peer stopped reading and the socket's buffer is full) closes its connection.
//!
//! The header and body deadlines (`Config::header_timeout`, `Config::body_timeout`) bound the
//! other two slow modes on each connection.

use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::oneshot;
use tokio::time::{sleep, Sleep};

/// How long a new connection is safe from being closed for room before it proved itself: long
/// enough for a client to send its first request and get the reply.
const ADMISSION_GRACE: Duration = Duration::from_secs(1);

/// The default for [`ConnectionLimits::max_total`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;

/// The default for [`ConnectionLimits::max_per_address`].
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 1024;

/// The default for [`ConnectionLimits::write_stall`].
pub const DEFAULT_WRITE_STALL: Duration = Duration::from_secs(10);

/// How many connections the grantor keeps open, and how long a stalled reply may wait.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Connections open at once, in total.
    pub max_total: usize,
    /// Connections open at once from one peer address.
    pub max_per_address: usize,
    /// How long a reply may make no progress because the peer does not read it.
    pub write_stall: Duration,
}

impl Default for ConnectionLimits {
    fn default() -> ConnectionLimits {
        ConnectionLimits {
            max_total: DEFAULT_MAX_CONNECTIONS,
            max_per_address: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
            write_stall: DEFAULT_WRITE_STALL,
        }
    }
}

/// The open connections, for admitting new ones.
pub(crate) struct Registry {
    limits: ConnectionLimits,
    /// How long a new connection is safe from being closed for room ([`ADMISSION_GRACE`]).
    grace: Duration,
    inner: Mutex<Open>,
}

struct Open {
    next_id: u64,
    connections: HashMap<u64, Entry>,
    per_address: HashMap<IpAddr, usize>,
    /// Ids of connections that may be closed for room: suspect ones first, then unproven ones,
    /// oldest first. Entries go stale when their connection proves itself or closes, and are
    /// skipped then.
    unproven: VecDeque<u64>,
}

struct Entry {
    address: IpAddr,
    opened: Instant,
    standing: Arc<Standing>,
    /// Closes the connection when sent to (or dropped).
    close: oneshot::Sender<()>,
}

/// Whether a connection has shown that it is a client worth keeping.
#[derive(Default)]
pub(crate) struct Standing(AtomicU8);

const UNPROVEN: u8 = 0;
const PROVEN: u8 = 1;
const SUSPECT: u8 = 2;

impl Standing {
    /// The connection completed a request with a success status: proven, unless suspect.
    pub(crate) fn prove(&self) {
        let _ = self
            .0
            .compare_exchange(UNPROVEN, PROVEN, Ordering::Relaxed, Ordering::Relaxed);
    }

    fn is_proven(&self) -> bool {
        self.0.load(Ordering::Relaxed) == PROVEN
    }

    fn is_suspect(&self) -> bool {
        self.0.load(Ordering::Relaxed) == SUSPECT
    }
}

/// An admitted connection: mark it proven through [`Admission::standing`]; it is closed when
/// `closed` resolves, and leaves the registry when this is dropped.
pub(crate) struct Admission {
    registry: Arc<Registry>,
    id: u64,
    /// Proven once the connection completed a request with a success status.
    pub(crate) standing: Arc<Standing>,
    /// Resolves when the registry closes the connection to make room for another.
    pub(crate) closed: oneshot::Receiver<()>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        self.registry.leave(self.id);
    }
}

impl Registry {
    pub(crate) fn new(limits: ConnectionLimits) -> Registry {
        Registry::with_grace(limits, ADMISSION_GRACE)
    }

    fn with_grace(limits: ConnectionLimits, grace: Duration) -> Registry {
        Registry {
            limits,
            grace,
            inner: Mutex::new(Open {
                next_id: 0,
                connections: HashMap::new(),
                per_address: HashMap::new(),
                unproven: VecDeque::new(),
            }),
        }
    }

    /// Admits a connection from `address`, closing the oldest unproven connection in the way of
    /// each cap; `None` when a cap is full of proven connections.
    pub(crate) fn admit(self: &Arc<Self>, address: IpAddr) -> Option<Admission> {
        // A panic while holding the lock left the bookkeeping as it was mid-change; carrying on
        // with it is better than refusing every connection from then on.
        let mut open = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let from_address = open.per_address.get(&address).copied().unwrap_or(0);
        if from_address >= self.limits.max_per_address && !open.evict(Some(address), self.grace) {
            return None;
        }
        if open.connections.len() >= self.limits.max_total && !open.evict(None, self.grace) {
            return None;
        }
        let id = open.next_id;
        open.next_id += 1;
        let standing = Arc::new(Standing::default());
        let (close, closed) = oneshot::channel();
        open.connections.insert(
            id,
            Entry {
                address,
                opened: Instant::now(),
                standing: standing.clone(),
                close,
            },
        );
        *open.per_address.entry(address).or_insert(0) += 1;
        open.unproven.push_back(id);
        Some(Admission {
            registry: self.clone(),
            id,
            standing,
            closed,
        })
    }

    /// Marks connection `id` suspect for good (its replies stalled): the first to close for room.
    fn suspect(&self, id: u64) {
        let mut open = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = open.connections.get(&id) {
            entry.standing.0.store(SUSPECT, Ordering::Relaxed);
            open.unproven.push_front(id);
        }
    }

    fn leave(&self, id: u64) {
        let mut open = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        open.remove(id);
    }
}

impl Open {
    /// Closes the oldest unproven connection (of `address`, if given); false if there is none.
    /// Connections younger than `grace` are spared, unless suspect.
    fn evict(&mut self, address: Option<IpAddr>, grace: Duration) -> bool {
        let mut kept = VecDeque::new();
        let mut evicted = false;
        while let Some(id) = self.unproven.pop_front() {
            let Some(entry) = self.connections.get(&id) else {
                continue; // closed already
            };
            if entry.standing.is_proven() {
                continue;
            }
            if address.is_some_and(|a| a != entry.address) {
                kept.push_back(id);
                continue;
            }
            if !entry.standing.is_suspect() && entry.opened.elapsed() < grace {
                // Too young to have proven anything, and every unproven one after it is
                // younger still: a client that just connected gets its chance.
                kept.push_back(id);
                break;
            }
            if let Some(entry) = self.remove(id) {
                // The connection's task may have ended a moment ago; then there is nothing to
                // close.
                let _ = entry.close.send(());
            }
            evicted = true;
            break;
        }
        // Those of other addresses stay, in their order, ahead of the rest.
        while let Some(id) = kept.pop_back() {
            self.unproven.push_front(id);
        }
        evicted
    }

    fn remove(&mut self, id: u64) -> Option<Entry> {
        let entry = self.connections.remove(&id)?;
        if let Some(count) = self.per_address.get_mut(&entry.address) {
            *count -= 1;
            if *count == 0 {
                self.per_address.remove(&entry.address);
            }
        }
        Some(entry)
    }
}

/// A connection's socket whose writes fail with `TimedOut` after making no progress for the
/// stall limit: a peer that stops reading cannot hold its connection open.
pub(crate) struct StallLimited<S> {
    inner: S,
    limit: Duration,
    /// Armed while a write is waiting for the socket.
    stalled: Option<Pin<Box<Sleep>>>,
    /// The connection to mark suspect at its first stalled write; `None` once marked.
    suspect: Option<(Arc<Registry>, u64)>,
}

impl<S> StallLimited<S> {
    /// `inner`, the socket of `admission`'s connection.
    pub(crate) fn new(inner: S, admission: &Admission) -> StallLimited<S> {
        StallLimited {
            inner,
            limit: admission.registry.limits.write_stall,
            stalled: None,
            suspect: Some((admission.registry.clone(), admission.id)),
        }
    }

    /// Called when a write could not progress: the peer is not reading (a holder's small replies
    /// never fill the socket's buffer), so the connection is suspect; arms the stall timer, and
    /// fails once it ran out.
    fn check_stall(&mut self, cx: &mut Context<'_>) -> io::Result<()> {
        if let Some((registry, id)) = self.suspect.take() {
            registry.suspect(id);
        }
        let limit = self.limit;
        let timer = self.stalled.get_or_insert_with(|| Box::pin(sleep(limit)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the peer has not read its reply",
            )),
            Poll::Pending => Ok(()),
        }
    }

    fn track<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>>
    where
        S: Unsent,
    {
        match poll {
            Poll::Pending => match self.check_stall(cx) {
                Ok(()) => Poll::Pending,
                Err(e) => Poll::Ready(Err(e)),
            },
            ready => {
                self.stalled = None;
                // Written, but perhaps only into the socket's buffer: replies piling up there
                // unread (a slow reader keeps its receive window tiny) make it suspect too, long
                // before the buffer fills and a write stalls.
                if self.suspect.is_some() && self.inner.unsent() > SUSPECT_UNSENT_BYTES {
                    if let Some((registry, id)) = self.suspect.take() {
                        registry.suspect(id);
                    }
                }
                ready
            }
        }
    }
}

/// Reply bytes a connection may leave unread in its socket before it is suspect: far more than
/// a holder's replies (a few hundred bytes each, read at once) ever leave behind.
const SUSPECT_UNSENT_BYTES: usize = 32 * 1024;

/// A socket that can tell how much written data its peer has not yet received.
pub(crate) trait Unsent {
    /// Bytes written but not yet acknowledged by the peer.
    fn unsent(&self) -> usize;
}

impl Unsent for tokio::net::TcpStream {
    #[cfg(target_os = "linux")]
    fn unsent(&self) -> usize {
        use std::os::fd::AsRawFd;
        let mut unsent: libc::c_int = 0;
        // SAFETY: TIOCOUTQ (SIOCOUTQ for TCP) writes one int through the pointer, which lives
        // for the call; the descriptor is this open socket's.
        let queried = unsafe { libc::ioctl(self.as_raw_fd(), libc::TIOCOUTQ, &mut unsent) };
        if queried == 0 {
            usize::try_from(unsent).unwrap_or(0)
        } else {
            0
        }
    }

    /// Elsewhere only a stalled write reveals a slow reader.
    #[cfg(not(target_os = "linux"))]
    fn unsent(&self) -> usize {
        0
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for StallLimited<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unsent + Unpin> AsyncWrite for StallLimited<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.track(cx, poll)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        self.track(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.track(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_shutdown(cx);
        self.track(cx, poll)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn registry(max_total: usize, max_per_address: usize) -> Arc<Registry> {
        let limits = ConnectionLimits {
            max_total,
            max_per_address,
            write_stall: DEFAULT_WRITE_STALL,
        };
        Arc::new(Registry::with_grace(limits, Duration::ZERO))
    }

    #[test]
    fn a_connection_that_just_arrived_is_not_closed_for_room() {
        let limits = ConnectionLimits {
            max_total: 1,
            ..ConnectionLimits::default()
        };
        let registry = Arc::new(Registry::with_grace(limits, Duration::from_secs(60)));
        let mut first = registry.admit(A).unwrap();
        assert!(
            registry.admit(B).is_none(),
            "the newcomer is refused instead"
        );
        assert!(first.closed.try_recv().is_err());
    }

    const A: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 1));
    const B: IpAddr = IpAddr::V4(std::net::Ipv4Addr::new(10, 0, 0, 2));

    #[test]
    fn at_the_cap_the_oldest_unproven_connection_makes_room() {
        let registry = registry(2, 10);
        let mut first = registry.admit(A).unwrap();
        let mut second = registry.admit(A).unwrap();
        let _third = registry.admit(B).unwrap();
        assert!(first.closed.try_recv().is_ok(), "the oldest was closed");
        assert!(second.closed.try_recv().is_err(), "the next one stays");
    }

    #[test]
    fn proven_connections_are_never_closed_for_room() {
        let registry = registry(2, 10);
        let mut first = registry.admit(A).unwrap();
        first.standing.prove();
        let mut second = registry.admit(A).unwrap();
        second.standing.prove();
        assert!(
            registry.admit(B).is_none(),
            "no room without closing a proven one"
        );
        assert!(first.closed.try_recv().is_err());
        assert!(second.closed.try_recv().is_err());
        drop(first);
        assert!(
            registry.admit(B).is_some(),
            "a closed connection frees its place"
        );
    }

    #[test]
    fn the_address_cap_makes_room_in_that_address_only() {
        let registry = registry(10, 2);
        let mut other = registry.admit(B).unwrap();
        let mut first = registry.admit(A).unwrap();
        let mut proven = registry.admit(A).unwrap();
        proven.standing.prove();
        let _new = registry.admit(A).unwrap();
        assert!(first.closed.try_recv().is_ok());
        assert!(
            other.closed.try_recv().is_err(),
            "another address keeps its connection"
        );
        assert!(proven.closed.try_recv().is_err());
        assert!(
            registry.admit(A).is_some(),
            "the new one is unproven, so it makes room"
        );
    }

    /// The pipe of the tests: it reports nothing unsent, so only stalls count.
    impl Unsent for tokio::io::DuplexStream {
        fn unsent(&self) -> usize {
            0
        }
    }

    #[test]
    fn a_suspect_connection_goes_first_even_when_proven() {
        let registry = registry(2, 10);
        let mut first = registry.admit(A).unwrap();
        let mut reader = registry.admit(A).unwrap();
        first.standing.prove();
        reader.standing.prove();
        registry.suspect(reader.id);
        reader.standing.prove();
        let _new = registry.admit(B).unwrap();
        assert!(
            reader.closed.try_recv().is_ok(),
            "the suspect one made room"
        );
        assert!(first.closed.try_recv().is_err());
    }

    #[tokio::test]
    async fn a_reply_nobody_reads_fails_after_the_stall_limit() {
        use tokio::io::AsyncWriteExt;
        let registry = Arc::new(Registry::new(ConnectionLimits {
            write_stall: Duration::from_millis(50),
            ..ConnectionLimits::default()
        }));
        let admission = registry.admit(A).unwrap();
        admission.standing.prove();
        // A pipe whose reader never reads: writes stall once its buffer is full.
        let (writer, _reader) = tokio::io::duplex(64);
        let mut writer = StallLimited::new(writer, &admission);
        let started = tokio::time::Instant::now();
        let failed = writer.write_all(&[0; 4096]).await.unwrap_err();
        assert_eq!(failed.kind(), io::ErrorKind::TimedOut);
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert!(
            !admission.standing.is_proven(),
            "a reader that does not read is suspect"
        );
    }
}
