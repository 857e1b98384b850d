//! What the tabs of an origin write and say to one another, and what a page and its heartbeat
//! worker say: the shapes, converted with serde-wasm-bindgen.
//!
//! The log's entries and the BroadcastChannel notices keep the shapes earlier versions of the
//! package wrote and sent, so a log written before still reads and tabs of both versions hear
//! each other. The page–worker messages are private to one build (the page starts the worker
//! with its own module), so they take serde's plainest shape: a variant's name, or an object
//! with one key naming it.

use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

use crate::core::{EntryKind, LogEntry, LogRecord, Micros, Notice};
use crate::protocol::MAX_TOKEN;

/// A log entry as stored (`{holder, epoch, kind, leaseMs, locks, takeover?}`, at key `[name,
/// seq]`), the same with `type` and `seq` as broadcast, or a leaving notice (`{type: "leaving",
/// holder, epoch}`). Every field is optional to read: the log has always been read leniently.
#[derive(Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct EntryWire {
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    notice: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    seq: Option<f64>,
    holder: Option<String>,
    epoch: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lease_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    locks: Option<bool>,
    /// Written only where true, so entries keep their old shape (readers default to false).
    #[serde(skip_serializing_if = "Option::is_none")]
    takeover: Option<bool>,
}

/// A number the log may hold: finite and not negative.
fn number(value: Option<f64>) -> Option<f64> {
    value.filter(|n| n.is_finite() && *n >= 0.0)
}

/// An epoch or slot from storage: a non-negative safe integer, else zero (nothing to build on).
pub fn count(value: Option<f64>) -> u64 {
    match number(value) {
        Some(n) if n.fract() == 0.0 && n <= MAX_TOKEN as f64 => n as u64,
        _ => 0,
    }
}

impl EntryWire {
    /// `record` as stored, or (with `seq` and the notice `type`) as broadcast.
    pub fn of(record: &LogRecord, broadcast: Option<(u64, &str)>) -> EntryWire {
        EntryWire {
            notice: broadcast.map(|(_, kind)| kind.to_owned()),
            seq: broadcast.map(|(seq, _)| seq as f64),
            holder: Some(record.holder.clone()),
            epoch: Some(record.epoch as f64),
            kind: Some(record.kind.as_str().to_owned()),
            lease_ms: record.lease.map(Micros::as_ms_f64),
            locks: Some(record.locks),
            takeover: record.takeover.then_some(true),
        }
    }

    /// The leaving notice of a page that stopped acting on the hold `epoch` of `holder`.
    pub fn leaving(holder: &str, epoch: u64) -> EntryWire {
        EntryWire {
            notice: Some("leaving".to_owned()),
            holder: Some(holder.to_owned()),
            epoch: Some(epoch as f64),
            ..EntryWire::default()
        }
    }

    /// A stored value, read as leniently as the log always was: a missing field is empty, an
    /// unreadable lease is the reader's own. A value that is no entry at all reads as one with
    /// every field missing.
    pub fn read(value: JsValue) -> EntryWire {
        serde_wasm_bindgen::from_value(value).unwrap_or_default()
    }

    /// This entry at slot `seq`.
    pub fn entry(self, seq: u64) -> LogEntry {
        LogEntry {
            seq,
            record: LogRecord {
                holder: self.holder.unwrap_or_default(),
                epoch: count(self.epoch),
                kind: self
                    .kind
                    .as_deref()
                    .and_then(EntryKind::parse)
                    .unwrap_or(EntryKind::Beat),
                lease: number(self.lease_ms).map(Micros::from_ms_f64),
                locks: self.locks.unwrap_or(false),
                // Only a grant can be a takeover; the core reads it so (`LogRecord::takeover`).
                takeover: self.takeover == Some(true),
            },
        }
    }

    /// A message heard on the channel as the election's [`Notice`], if it is one.
    pub fn notice(message: JsValue) -> Option<Notice> {
        if !message.is_object() {
            return None;
        }
        let wire: EntryWire = serde_wasm_bindgen::from_value(message).ok()?;
        if wire.notice.as_deref() == Some("leaving") {
            return Some(Notice::Leaving {
                holder: wire.holder?,
                epoch: count(wire.epoch),
            });
        }
        let seq = count(wire.seq);
        (seq > 0).then(|| Notice::Written(wire.entry(seq)))
    }

    /// As a JavaScript object.
    pub fn to_js(&self) -> JsValue {
        serde_wasm_bindgen::to_value(self).unwrap_or(JsValue::UNDEFINED)
    }
}

/// What a page's election engine runs with.
#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct EngineConfig {
    /// The role's name.
    pub name: String,
    /// This candidate's id in the log, fresh per engine.
    pub instance: String,
    /// The heartbeat lease, its margin and its renew interval, in ms.
    pub lease_ms: f64,
    /// See `lease_ms`.
    pub margin_ms: f64,
    /// See `lease_ms`.
    pub renew_interval_ms: f64,
    /// Whether Web Locks may be used.
    pub web_locks: bool,
    /// Global mode: the grantor lease the active tab holds.
    pub global: Option<GlobalConfig>,
}

/// Global mode's lease, validated by the page: the holder's settings in ms.
#[derive(Serialize, Deserialize, Clone)]
#[serde(rename_all = "camelCase")]
pub struct GlobalConfig {
    /// The grantor's resource.
    pub resource: String,
    /// The holder id the page named, else the browser's own.
    pub holder_id: Option<String>,
    /// `leaseMs`.
    pub lease_ms: f64,
    /// `marginMs`.
    pub margin_ms: f64,
    /// `renewIntervalMs`, resolved.
    pub renew_interval_ms: f64,
    /// `requestTimeoutMs`, resolved.
    pub request_timeout_ms: f64,
    /// `retryDelayMs`, resolved.
    pub retry_delay_ms: f64,
    /// `retryDelayMaxMs`, resolved.
    pub retry_delay_max_ms: f64,
}

/// A grantor call's outcome, from the page: the reply, or (not `ok`) the error as a plain object.
#[derive(Serialize, Deserialize)]
pub struct Answer {
    /// The call's id.
    pub id: f64,
    /// Whether the grantor answered (else it threw or rejected).
    pub ok: bool,
    /// The reply, or the error.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub value: JsValue,
}

/// What the page tells its engine.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ToEngine {
    /// Start an engine with this configuration (a worker's first message after its core).
    Init(EngineConfig),
    /// Become a candidate.
    Join,
    /// Withdraw.
    Leave,
    /// The page stopped believing the hold with this epoch.
    Yield(f64),
    /// Re-validate: the page may have been frozen, asleep or cached.
    Check,
    /// Leave and close for good.
    Close,
    /// The page answers the ping with this number.
    Pong(f64),
    /// A grantor call ended.
    Answer(Answer),
}

/// A hold as the engine reports it: its epoch (or grantor token), what remained of it, and the
/// readings that remaining time is measured at (the wall clock, and the monotonic clock on the
/// shared time line).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The hold's epoch, or the grantor lease's token.
    pub token: f64,
    /// Time left, in ms.
    pub remaining_ms: f64,
    /// `Date.now()` when measured.
    pub wall_ms: f64,
    /// `performance.timeOrigin + performance.now()` when measured.
    pub origin_ms: f64,
}

/// A grantor call the engine asks the page to make (the grantor lives there).
#[derive(Serialize, Deserialize)]
pub struct Call {
    /// Identifies the call; the answer carries it back.
    pub id: f64,
    /// `"grant"`, `"renew"` or `"release"`.
    pub method: String,
    /// The call's argument, without its `signal` (the page adds its own).
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub args: JsValue,
}

/// What the engine tells its page.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FromEngine {
    /// The worker listens.
    Ready,
    /// Whether the engine uses Web Locks (`"web-locks"` mode) or the lease alone.
    WebLocks(bool),
    /// Prove the page responsive: answer with [`ToEngine::Pong`] and this number.
    Ping(f64),
    /// This candidate holds the role.
    Role(Report),
    /// The hold was renewed.
    Renewed(Report),
    /// The hold with `epoch` ended for `reason`.
    RoleLost {
        /// The hold's epoch.
        epoch: f64,
        /// Why it ended.
        reason: String,
    },
    /// Global mode: the grantor lease is held (or was renewed).
    Global(Report),
    /// Global mode: the grantor lease was lost, or could not be had.
    GlobalLost,
    /// The withdrawal is done.
    Left,
    /// The engine closed.
    Closed,
    /// Call the grantor.
    Call(Call),
    /// Abort the grantor call with this id: the engine stopped waiting for it.
    Abort(f64),
    /// The worker cannot run the engine: why.
    Failed(String),
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen::JsCast;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn json(text: &str) -> JsValue {
        js_sys::JSON::parse(text).unwrap()
    }

    fn text(value: &JsValue) -> String {
        js_sys::JSON::stringify(value).unwrap().into()
    }

    fn record(takeover: bool) -> LogRecord {
        LogRecord {
            holder: "tab-1".to_owned(),
            epoch: 7,
            kind: EntryKind::Grant,
            lease: Some(Micros::from_ms(1_500)),
            locks: true,
            takeover,
        }
    }

    #[wasm_bindgen_test]
    fn entries_keep_the_stored_and_broadcast_shapes() {
        assert_eq!(
            text(&EntryWire::of(&record(false), None).to_js()),
            r#"{"holder":"tab-1","epoch":7,"kind":"grant","leaseMs":1500,"locks":true}"#
        );
        assert_eq!(
            text(&EntryWire::of(&record(true), Some((3, "granted"))).to_js()),
            r#"{"type":"granted","seq":3,"holder":"tab-1","epoch":7,"kind":"grant","leaseMs":1500,"locks":true,"takeover":true}"#
        );
        assert_eq!(
            text(&EntryWire::leaving("tab-2", 9).to_js()),
            r#"{"type":"leaving","holder":"tab-2","epoch":9}"#
        );
    }

    #[wasm_bindgen_test]
    fn stored_entries_read_back_and_old_ones_read_leniently() {
        let stored = EntryWire::of(&record(true), None).to_js();
        assert_eq!(EntryWire::read(stored).entry(3).record, record(true));
        // An entry of an older version: no lease, no takeover flag.
        let old = EntryWire::read(json(r#"{"holder":"tab-1","epoch":2,"kind":"beat"}"#)).entry(5);
        assert_eq!(old.record.lease, None);
        assert!(!old.record.locks && !old.record.takeover);
        assert_eq!((old.seq, old.record.epoch), (5, 2));
        // Not an entry at all, or numbers that cannot be epochs: nothing to build on.
        for bad in [
            r#""text""#,
            r#"{"epoch":-1}"#,
            r#"{"epoch":1.5,"kind":"odd"}"#,
        ] {
            let entry = EntryWire::read(json(bad)).entry(1);
            assert_eq!(entry.record.epoch, 0);
            assert_eq!(entry.record.kind, EntryKind::Beat);
        }
    }

    #[wasm_bindgen_test]
    fn notices_are_read_as_the_election_hears_them() {
        let written = EntryWire::of(&record(false), Some((4, "granted"))).to_js();
        assert_eq!(
            EntryWire::notice(written),
            Some(Notice::Written(LogEntry {
                seq: 4,
                record: record(false)
            }))
        );
        assert_eq!(
            EntryWire::notice(EntryWire::leaving("tab-2", 9).to_js()),
            Some(Notice::Leaving {
                holder: "tab-2".to_owned(),
                epoch: 9
            })
        );
        for ignored in [
            "null",
            "5",
            r#"{"type":"leaving","epoch":3}"#,
            r#"{"type":"beat","holder":"tab-1","epoch":3}"#,
            r#"{"type":"beat","seq":"2"}"#,
        ] {
            assert_eq!(EntryWire::notice(json(ignored)), None, "{ignored}");
        }
    }

    #[wasm_bindgen_test]
    fn messages_round_trip_and_keep_javascript_values() {
        let args = json(r#"{"resource":"r","holder":"h"}"#);
        let call = FromEngine::Call(Call {
            id: 3.0,
            method: "grant".to_owned(),
            args: args.clone(),
        });
        let sent = serde_wasm_bindgen::to_value(&call).unwrap();
        assert_eq!(
            text(&sent),
            r#"{"call":{"id":3,"method":"grant","args":{"resource":"r","holder":"h"}}}"#
        );
        let Ok(FromEngine::Call(back)) = serde_wasm_bindgen::from_value(sent) else {
            panic!("not a call");
        };
        assert_eq!(back.args, args);
        let ready = serde_wasm_bindgen::to_value(&FromEngine::Ready).unwrap();
        assert_eq!(ready.as_string().as_deref(), Some("ready"));
        let answer: ToEngine = serde_wasm_bindgen::from_value(json(
            r#"{"answer":{"id":3,"ok":false,"value":{"kind":"timed_out"}}}"#,
        ))
        .unwrap();
        let ToEngine::Answer(answer) = answer else {
            panic!("not an answer");
        };
        assert!(!answer.ok);
        assert!(answer.value.is_object() && answer.value.dyn_ref::<js_sys::Object>().is_some());
        assert!(serde_wasm_bindgen::from_value::<ToEngine>(json(r#"{"nonsense":1}"#)).is_err());
    }
}
