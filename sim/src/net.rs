//! The simulated network: a time-ordered queue of messages in flight.
//!
//! Latency, jitter, loss, duplication, partitions and held messages are decided by the world
//! when a message is sent or arrives; this module only keeps the messages in order of arrival.
//! Jitter alone reorders messages, since each copy draws its own latency.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use tenure::core::{Reply, Request, RequestId};
use tenure::protocol::Token;

use crate::grantor::HolderId;

/// A message between a holder process and the grantor or the fenced resource.
#[derive(Clone, Debug)]
pub enum Msg {
    /// A request from a holder process to the grantor.
    Request {
        /// The sending holder.
        from: HolderId,
        /// The sending process's incarnation.
        incarnation: u32,
        /// The request.
        request: Request,
    },
    /// The grantor's answer to a holder process.
    Reply {
        /// The receiving holder.
        to: HolderId,
        /// The process incarnation that sent the request.
        incarnation: u32,
        /// The request answered.
        id: RequestId,
        /// The answer.
        reply: Reply,
    },
    /// A write to the fenced resource.
    Write {
        /// The writing holder.
        from: HolderId,
        /// The writer's fencing token.
        token: Token,
    },
}

impl Msg {
    /// The holder at the other end.
    pub fn holder(&self) -> HolderId {
        match self {
            Msg::Request { from, .. } | Msg::Write { from, .. } => *from,
            Msg::Reply { to, .. } => *to,
        }
    }

    /// Whether the message travels from the holder towards the grantor.
    pub fn is_outbound(&self) -> bool {
        !matches!(self, Msg::Reply { .. })
    }
}

/// A message and when it arrives: the simulation's messages by default; other worlds carry
/// their own.
#[derive(Clone, Debug)]
pub struct Envelope<M = Msg> {
    /// Arrival time (true time).
    pub at: u64,
    seq: u64,
    /// The message.
    pub msg: M,
}

impl<M> Envelope<M> {
    /// `msg`, arriving at `at`; `seq` orders arrivals at the same instant (the sender's count).
    pub fn new(at: u64, seq: u64, msg: M) -> Envelope<M> {
        Envelope { at, seq, msg }
    }
}

impl<M> PartialEq for Envelope<M> {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.seq) == (other.at, other.seq)
    }
}

impl<M> Eq for Envelope<M> {}

impl<M> PartialOrd for Envelope<M> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl<M> Ord for Envelope<M> {
    // Reversed, so the std max-heap pops the earliest arrival; `seq` keeps ties deterministic.
    fn cmp(&self, other: &Self) -> Ordering {
        (other.at, other.seq).cmp(&(self.at, self.seq))
    }
}

/// Messages in flight, earliest arrival first.
#[derive(Clone, Debug, Default)]
pub struct Network {
    queue: BinaryHeap<Envelope>,
    seq: u64,
}

impl Network {
    /// Puts `msg` in flight, arriving at `at`.
    pub fn push(&mut self, at: u64, msg: Msg) {
        self.seq += 1;
        self.queue.push(Envelope {
            at,
            seq: self.seq,
            msg,
        });
    }

    /// When the next message arrives.
    pub fn next_arrival(&self) -> Option<u64> {
        self.queue.peek().map(|e| e.at)
    }

    /// Takes the next message to arrive.
    pub fn pop(&mut self) -> Option<Envelope> {
        self.queue.pop()
    }

    /// Drops everything in flight (connections reset when the network heals).
    pub fn clear(&mut self) {
        self.queue.clear();
    }
}
