//! What a request sees while it is decided: the records read so far, overlaid with the ones it
//! has decided to write. A decision that needs a record not read yet halts with [`Halt::Read`];
//! the binding reads it and decides the whole request again, so decisions are plain functions of
//! what was read and never wait in the middle.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::Key;
use crate::protocol::ErrorCode;
use crate::requests::Refusal;

/// A read a request asks for.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Read {
    /// One record.
    Get(Key),
    /// Records of one kind whose names sort from `start` (inclusive) to `end` (exclusive), in
    /// order, at most `limit` of them (`None`: all): a queue's due index, oldest due first.
    Range {
        /// The records' kind ([`Key::kind`]).
        kind: &'static str,
        /// The first name.
        start: String,
        /// The name past the last.
        end: String,
        /// How many at most.
        limit: Option<usize>,
    },
}

/// Everything read for a request so far: records by key (`None`: not stored), and each range
/// read, as the records it held.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reads {
    /// Records read one by one, and those a range held.
    pub records: BTreeMap<Key, Option<String>>,
    /// Each range read, as the keys it held, in order.
    pub ranges: BTreeMap<Read, Vec<Key>>,
}

impl Reads {
    /// Adds what `read` found: a record (`Read::Get`), or a range's records in order.
    pub fn add(&mut self, read: Read, found: Vec<(Key, String)>) {
        match read {
            Read::Get(key) => {
                let text = found.into_iter().next().map(|(_, text)| text);
                self.records.insert(key, text);
            }
            range => {
                let keys = found.iter().map(|(key, _)| key.clone()).collect();
                for (key, text) in found {
                    self.records.insert(key, Some(text));
                }
                self.ranges.insert(range, keys);
            }
        }
    }
}

/// Why a decision stopped before its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    /// It needs these read first.
    Read(Vec<Read>),
    /// It is refused.
    Refused(Refusal),
}

impl From<Refusal> for Halt {
    fn from(refusal: Refusal) -> Halt {
        Halt::Refused(refusal)
    }
}

impl From<crate::rules::RuleError> for Halt {
    fn from(e: crate::rules::RuleError) -> Halt {
        Halt::Refused(e.into())
    }
}

/// The records as a request being decided sees them.
pub struct View<'a> {
    reads: &'a Reads,
    /// Records to write (`None`: to delete), by key.
    writes: BTreeMap<Key, Option<String>>,
}

impl<'a> View<'a> {
    /// The records of `reads`, nothing written yet.
    pub fn new(reads: &'a Reads) -> View<'a> {
        View {
            reads,
            writes: BTreeMap::new(),
        }
    }

    /// Halts for whichever of `keys` were not read yet, all at once.
    pub fn need(&self, keys: &[Key]) -> Result<(), Halt> {
        let missing: Vec<Read> = keys
            .iter()
            .filter(|key| !self.writes.contains_key(key) && !self.reads.records.contains_key(key))
            .map(|key| Read::Get(key.clone()))
            .collect();
        if missing.is_empty() {
            Ok(())
        } else {
            Err(Halt::Read(missing))
        }
    }

    /// The record at `key` as this request sees it, read as `T`.
    pub fn get<T: DeserializeOwned>(&self, key: &Key) -> Result<Option<T>, Halt> {
        self.need(std::slice::from_ref(key))?;
        let text = match self.writes.get(key) {
            Some(written) => written.as_deref(),
            None => self.reads.records.get(key).and_then(Option::as_deref),
        };
        let Some(text) = text else {
            return Ok(None);
        };
        serde_json::from_str(text).map(Some).map_err(|_| {
            Halt::Refused(Refusal::new(
                ErrorCode::Internal,
                ["the stored ", key.kind(), " record is unreadable"].concat(),
            ))
        })
    }

    /// The keys `range` held when read (the range must be a [`Read::Range`]), less those this
    /// request has deleted since.
    pub fn range(&self, range: Read) -> Result<Vec<Key>, Halt> {
        let Some(keys) = self.reads.ranges.get(&range) else {
            return Err(Halt::Read(vec![range]));
        };
        Ok(keys
            .iter()
            .filter(|key| !matches!(self.writes.get(key), Some(None)))
            .cloned()
            .collect())
    }

    /// Writes `value` at `key` when the request commits.
    pub fn put<T: Serialize>(&mut self, key: Key, value: &T) {
        self.writes.insert(key, Some(to_json(value)));
    }

    /// Deletes `key` when the request commits.
    pub fn delete(&mut self, key: Key) {
        self.writes.insert(key, None);
    }

    /// The writes decided, to commit together.
    pub fn into_writes(self) -> Vec<(Key, Option<String>)> {
        self.writes.into_iter().collect()
    }
}

/// JSON text of a reply or record: the protocol's types, the records and [`serde_json::Value`]
/// always serialise (their maps have text keys and nothing refuses to be written).
pub fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_default()
}
