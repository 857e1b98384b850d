//! What the tabs of an origin write and say to one another, and what a page and its heartbeat
//! worker say: the shapes, and their conversions to and from JavaScript values.
//!
//! The log's entries and the BroadcastChannel notices keep the shapes earlier versions of the
//! package wrote and sent, so a log written before still reads and tabs of both versions hear
//! each other. The page–worker messages are private to one build (the page starts the worker
//! with its own module): an object whose `t` names the message.
//!
//! Written by hand rather than with serde: a `tenure/tabs` app loads no serde (its derive code
//! and serde-wasm-bindgen's deserializer would be most of that module), and every reader here is
//! lenient by design, which serde's derive is not.

use js_sys::Object;
use wasm_bindgen::JsValue;

use super::super::error::{get, set};
use crate::core::{EntryKind, LogEntry, LogRecord, Micros, Notice};
use crate::protocol::MAX_TOKEN;

fn f64_of(value: &JsValue, key: &str) -> Option<f64> {
    get(value, key).as_f64()
}

fn string_of(value: &JsValue, key: &str) -> Option<String> {
    get(value, key).as_string()
}

fn bool_of(value: &JsValue, key: &str) -> Option<bool> {
    get(value, key).as_bool()
}

fn num(n: f64) -> JsValue {
    JsValue::from_f64(n)
}

fn text(s: &str) -> JsValue {
    JsValue::from_str(s)
}

/// A log entry as stored (`{holder, epoch, kind, leaseMs, locks, takeover?}`, at key `[name,
/// seq]`), the same with `type` and `seq` as broadcast, or a leaving notice (`{type: "leaving",
/// holder, epoch}`). Every field is optional to read: the log has always been read leniently.
#[derive(Default)]
pub struct EntryWire {
    notice: Option<String>,
    seq: Option<f64>,
    holder: Option<String>,
    epoch: Option<f64>,
    kind: Option<String>,
    lease_ms: Option<f64>,
    locks: Option<bool>,
    /// Written only where true, so entries keep their old shape (readers default to false).
    takeover: Option<bool>,
    /// A handover's release: the tab id it hands the role to (written only there).
    to: Option<String>,
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
            to: record.to.clone(),
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

    /// A stored value, read as leniently as the log always was: a missing field (or one of
    /// another type) is empty, an unreadable lease is the reader's own.
    pub fn read(value: JsValue) -> EntryWire {
        if !value.is_object() {
            return EntryWire::default();
        }
        EntryWire {
            notice: string_of(&value, "type"),
            seq: f64_of(&value, "seq"),
            holder: string_of(&value, "holder"),
            epoch: f64_of(&value, "epoch"),
            kind: string_of(&value, "kind"),
            lease_ms: f64_of(&value, "leaseMs"),
            locks: bool_of(&value, "locks"),
            takeover: bool_of(&value, "takeover"),
            to: string_of(&value, "to"),
        }
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
                to: self.to,
            },
        }
    }

    /// A message heard on the channel as the election's [`Notice`], if it is one.
    pub fn notice(message: JsValue) -> Option<Notice> {
        if !message.is_object() {
            return None;
        }
        let wire = EntryWire::read(message);
        if wire.notice.as_deref() == Some("leaving") {
            return Some(Notice::Leaving {
                holder: wire.holder?,
                epoch: count(wire.epoch),
            });
        }
        let seq = count(wire.seq);
        (seq > 0).then(|| Notice::Written(wire.entry(seq)))
    }

    /// As a JavaScript object, its fields in the order earlier versions wrote them.
    pub fn to_js(&self) -> JsValue {
        let object = Object::new();
        if let Some(notice) = &self.notice {
            set(&object, "type", &text(notice));
        }
        if let Some(seq) = self.seq {
            set(&object, "seq", &num(seq));
        }
        set(
            &object,
            "holder",
            &self.holder.as_deref().map_or(JsValue::NULL, text),
        );
        set(&object, "epoch", &self.epoch.map_or(JsValue::NULL, num));
        if let Some(kind) = &self.kind {
            set(&object, "kind", &text(kind));
        }
        if let Some(lease_ms) = self.lease_ms {
            set(&object, "leaseMs", &num(lease_ms));
        }
        if let Some(locks) = self.locks {
            set(&object, "locks", &JsValue::from_bool(locks));
        }
        if let Some(takeover) = self.takeover {
            set(&object, "takeover", &JsValue::from_bool(takeover));
        }
        if let Some(to) = &self.to {
            set(&object, "to", &text(to));
        }
        object.into()
    }
}

/// What a page's election engine runs with.
#[derive(Clone)]
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

impl EngineConfig {
    fn to_js(&self) -> JsValue {
        let object = Object::new();
        set(&object, "name", &text(&self.name));
        set(&object, "instance", &text(&self.instance));
        set(&object, "leaseMs", &num(self.lease_ms));
        set(&object, "marginMs", &num(self.margin_ms));
        set(&object, "renewIntervalMs", &num(self.renew_interval_ms));
        set(&object, "webLocks", &JsValue::from_bool(self.web_locks));
        if let Some(global) = &self.global {
            set(&object, "global", &global.to_js());
        }
        object.into()
    }

    fn from_js(value: &JsValue) -> Option<EngineConfig> {
        let global = get(value, "global");
        Some(EngineConfig {
            name: string_of(value, "name")?,
            instance: string_of(value, "instance")?,
            lease_ms: f64_of(value, "leaseMs")?,
            margin_ms: f64_of(value, "marginMs")?,
            renew_interval_ms: f64_of(value, "renewIntervalMs")?,
            web_locks: bool_of(value, "webLocks")?,
            global: if global.is_undefined() {
                None
            } else {
                Some(GlobalConfig::from_js(&global)?)
            },
        })
    }
}

/// Global mode's lease, validated by the page: the holder's settings in ms.
#[derive(Clone)]
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

/// The timings of [`GlobalConfig`], by their JavaScript names.
const GLOBAL_TIMINGS: [&str; 6] = [
    "leaseMs",
    "marginMs",
    "renewIntervalMs",
    "requestTimeoutMs",
    "retryDelayMs",
    "retryDelayMaxMs",
];

impl GlobalConfig {
    fn timings(&self) -> [f64; 6] {
        [
            self.lease_ms,
            self.margin_ms,
            self.renew_interval_ms,
            self.request_timeout_ms,
            self.retry_delay_ms,
            self.retry_delay_max_ms,
        ]
    }

    fn to_js(&self) -> JsValue {
        let object = Object::new();
        set(&object, "resource", &text(&self.resource));
        if let Some(holder_id) = &self.holder_id {
            set(&object, "holderId", &text(holder_id));
        }
        for (key, value) in GLOBAL_TIMINGS.into_iter().zip(self.timings()) {
            set(&object, key, &num(value));
        }
        object.into()
    }

    fn from_js(value: &JsValue) -> Option<GlobalConfig> {
        let mut timings = [0.0; 6];
        for (slot, key) in timings.iter_mut().zip(GLOBAL_TIMINGS) {
            *slot = f64_of(value, key)?;
        }
        let [lease_ms, margin_ms, renew_interval_ms, request_timeout_ms, retry_delay_ms, retry_delay_max_ms] =
            timings;
        Some(GlobalConfig {
            resource: string_of(value, "resource")?,
            holder_id: string_of(value, "holderId"),
            lease_ms,
            margin_ms,
            renew_interval_ms,
            request_timeout_ms,
            retry_delay_ms,
            retry_delay_max_ms,
        })
    }
}

/// A grantor call's outcome, from the page: the reply, or (not `ok`) the error as a plain object.
pub struct Answer {
    /// The call's id.
    pub id: f64,
    /// Whether the grantor answered (else it threw or rejected).
    pub ok: bool,
    /// The reply, or the error.
    pub value: JsValue,
}

/// What the page tells its engine.
pub enum ToEngine {
    /// Start an engine with this configuration (a worker's first message after its core).
    Init(EngineConfig),
    /// Become a candidate.
    Join,
    /// Withdraw.
    Leave,
    /// The page stopped believing the hold with this epoch.
    Yield(f64),
    /// Hand the role over to this tab id (or whoever is next).
    HandOff(Option<String>),
    /// Re-validate: the page may have been frozen, asleep or cached.
    Check,
    /// Leave and close for good.
    Close,
    /// The page answers the ping with this number.
    Pong(f64),
    /// A grantor call ended.
    Answer(Answer),
}

/// A message object of kind `t`.
fn message(t: &str) -> Object {
    let object = Object::new();
    set(&object, "t", &text(t));
    object
}

/// A message object of kind `t` carrying the number `n`.
fn message_with(t: &str, n: f64) -> JsValue {
    let object = message(t);
    set(&object, "n", &num(n));
    object.into()
}

impl ToEngine {
    /// As the worker receives it.
    pub fn to_js(&self) -> JsValue {
        match self {
            ToEngine::Init(config) => {
                let object = message("init");
                set(&object, "config", &config.to_js());
                object.into()
            }
            ToEngine::Join => message("join").into(),
            ToEngine::Leave => message("leave").into(),
            ToEngine::Yield(epoch) => message_with("yield", *epoch),
            ToEngine::HandOff(to) => {
                let object = message("handoff");
                if let Some(to) = to {
                    set(&object, "to", &text(to));
                }
                object.into()
            }
            ToEngine::Check => message("check").into(),
            ToEngine::Close => message("close").into(),
            ToEngine::Pong(n) => message_with("pong", *n),
            ToEngine::Answer(answer) => {
                let object = message("answer");
                set(&object, "id", &num(answer.id));
                set(&object, "ok", &JsValue::from_bool(answer.ok));
                set(&object, "value", &answer.value);
                object.into()
            }
        }
    }

    /// A message from the page, or `None` for anything else.
    pub fn from_js(value: &JsValue) -> Option<ToEngine> {
        let n = || f64_of(value, "n");
        Some(match string_of(value, "t")?.as_str() {
            "init" => ToEngine::Init(EngineConfig::from_js(&get(value, "config"))?),
            "join" => ToEngine::Join,
            "leave" => ToEngine::Leave,
            "yield" => ToEngine::Yield(n()?),
            "handoff" => ToEngine::HandOff(string_of(value, "to")),
            "check" => ToEngine::Check,
            "close" => ToEngine::Close,
            "pong" => ToEngine::Pong(n()?),
            "answer" => ToEngine::Answer(Answer {
                id: f64_of(value, "id")?,
                ok: bool_of(value, "ok")?,
                value: get(value, "value"),
            }),
            _ => return None,
        })
    }
}

/// A hold as the engine reports it: its epoch (or grantor token), what remained of it, and the
/// readings that remaining time is measured at (the wall clock, and the monotonic clock on the
/// shared time line).
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

impl Report {
    fn fill(&self, object: &Object) {
        set(object, "token", &num(self.token));
        set(object, "remainingMs", &num(self.remaining_ms));
        set(object, "wallMs", &num(self.wall_ms));
        set(object, "originMs", &num(self.origin_ms));
    }

    fn from_js(value: &JsValue) -> Option<Report> {
        Some(Report {
            token: f64_of(value, "token")?,
            remaining_ms: f64_of(value, "remainingMs")?,
            wall_ms: f64_of(value, "wallMs")?,
            origin_ms: f64_of(value, "originMs")?,
        })
    }
}

/// A grantor call the engine asks the page to make (the grantor lives there).
pub struct Call {
    /// Identifies the call; the answer carries it back.
    pub id: f64,
    /// `"grant"`, `"renew"` or `"release"`.
    pub method: String,
    /// The call's argument, without its `signal` (the page adds its own).
    pub args: JsValue,
}

/// What the engine tells its page.
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

impl FromEngine {
    /// As the page receives it.
    pub fn to_js(&self) -> JsValue {
        let report = |t: &str, report: &Report| {
            let object = message(t);
            report.fill(&object);
            JsValue::from(object)
        };
        match self {
            FromEngine::Ready => message("ready").into(),
            FromEngine::WebLocks(locks) => {
                let object = message("webLocks");
                set(&object, "locks", &JsValue::from_bool(*locks));
                object.into()
            }
            FromEngine::Ping(n) => message_with("ping", *n),
            FromEngine::Role(r) => report("role", r),
            FromEngine::Renewed(r) => report("renewed", r),
            FromEngine::RoleLost { epoch, reason } => {
                let object = message("roleLost");
                set(&object, "epoch", &num(*epoch));
                set(&object, "reason", &text(reason));
                object.into()
            }
            FromEngine::Global(r) => report("global", r),
            FromEngine::GlobalLost => message("globalLost").into(),
            FromEngine::Left => message("left").into(),
            FromEngine::Closed => message("closed").into(),
            FromEngine::Call(call) => {
                let object = message("call");
                set(&object, "id", &num(call.id));
                set(&object, "method", &text(&call.method));
                set(&object, "args", &call.args);
                object.into()
            }
            FromEngine::Abort(id) => message_with("abort", *id),
            FromEngine::Failed(why) => {
                let object = message("failed");
                set(&object, "why", &text(why));
                object.into()
            }
        }
    }

    /// A message from the worker, or `None` for anything else.
    pub fn from_js(value: &JsValue) -> Option<FromEngine> {
        let n = || f64_of(value, "n");
        let report = || Report::from_js(value);
        Some(match string_of(value, "t")?.as_str() {
            "ready" => FromEngine::Ready,
            "webLocks" => FromEngine::WebLocks(bool_of(value, "locks")?),
            "ping" => FromEngine::Ping(n()?),
            "role" => FromEngine::Role(report()?),
            "renewed" => FromEngine::Renewed(report()?),
            "roleLost" => FromEngine::RoleLost {
                epoch: f64_of(value, "epoch")?,
                reason: string_of(value, "reason")?,
            },
            "global" => FromEngine::Global(report()?),
            "globalLost" => FromEngine::GlobalLost,
            "left" => FromEngine::Left,
            "closed" => FromEngine::Closed,
            "call" => FromEngine::Call(Call {
                id: f64_of(value, "id")?,
                method: string_of(value, "method")?,
                args: get(value, "args"),
            }),
            "abort" => FromEngine::Abort(n()?),
            "failed" => FromEngine::Failed(string_of(value, "why")?),
            _ => return None,
        })
    }
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
            to: None,
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
        let sent = call.to_js();
        assert_eq!(
            text(&sent),
            r#"{"t":"call","id":3,"method":"grant","args":{"resource":"r","holder":"h"}}"#
        );
        let Some(FromEngine::Call(back)) = FromEngine::from_js(&sent) else {
            panic!("not a call");
        };
        assert_eq!(back.args, args);
        assert!(matches!(
            FromEngine::from_js(&FromEngine::Ready.to_js()),
            Some(FromEngine::Ready)
        ));
        let answer = ToEngine::from_js(&json(
            r#"{"t":"answer","id":3,"ok":false,"value":{"kind":"timed_out"}}"#,
        ));
        let Some(ToEngine::Answer(answer)) = answer else {
            panic!("not an answer");
        };
        assert!(!answer.ok);
        assert!(answer.value.is_object() && answer.value.dyn_ref::<js_sys::Object>().is_some());
        assert!(ToEngine::from_js(&json(r#"{"nonsense":1}"#)).is_none());
        assert!(ToEngine::from_js(&json(r#"{"t":"yield"}"#)).is_none());
    }
}
