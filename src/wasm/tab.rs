//! The tab election's binding: `TabElectionCore` drives a core [`TabElection`], `PageHoldCore`
//! a [`PageHold`], `ObserverCore` an [`Observer`]. JavaScript (`pkg/tab-engine.js`,
//! `pkg/tab-lease.js`, `pkg/kubernetes-lease-grantor.js`) reads the clocks, passes them in with
//! every call, and carries out what the core asks: IndexedDB, Web Locks, BroadcastChannel,
//! timers. Nothing here calls JavaScript back, so no borrow can be re-entered.

use js_sys::{JsString, Object};
use wasm_bindgen::prelude::*;

use super::error::{config_error, get, lease_error, set};
use crate::core::{
    checked_ms, AppendOutcome, EntryKind, IoId, LockEvent, LogEntry, LogRecord, Micros, Notice,
    Now, Observer, PageHold, Stamp, TabConfig, TabElection, TabEvent, TabMirror, TabOutput,
    WallTime,
};
use crate::protocol::Token;

/// A reading pair from JavaScript for the election; one that is not a clock reading counts as
/// far in the future on the wall clock, which ends this candidate's hold: failing safe. (The
/// observer's inputs ignore such readings instead, since there a late reading would judge
/// others expired.)
fn holder_now(mono_ms: f64, wall_ms: f64) -> Now {
    Now::from_ms(mono_ms, wall_ms).unwrap_or(Now::from_micros(0, u64::MAX / 2))
}

fn number(value: &JsValue) -> Option<f64> {
    value.as_f64().filter(|n| n.is_finite() && *n >= 0.0)
}

/// An epoch or slot from storage: a non-negative safe integer, else zero (nothing to build on).
fn count(value: &JsValue) -> u64 {
    match number(value) {
        Some(n) if n.fract() == 0.0 && n <= crate::protocol::MAX_TOKEN as f64 => n as u64,
        _ => 0,
    }
}

/// A log entry as stored (`{seq, holder, epoch, kind, leaseMs, locks, takeover?}`), read as leniently as
/// the log was always read: a missing field is empty, an unreadable lease is the reader's own.
fn entry_from(value: &JsValue) -> Option<LogEntry> {
    if value.is_null() || value.is_undefined() {
        return None;
    }
    let holder = get(value, "holder").as_string().unwrap_or_default();
    let kind = get(value, "kind")
        .as_string()
        .and_then(|k| EntryKind::parse(&k))
        .unwrap_or(EntryKind::Beat);
    let lease = number(&get(value, "leaseMs")).map(Micros::from_ms_f64);
    Some(LogEntry {
        seq: count(&get(value, "seq")),
        record: LogRecord {
            holder,
            epoch: count(&get(value, "epoch")),
            kind,
            lease,
            locks: get(value, "locks").as_bool().unwrap_or(false),
            // Only a grant can be a takeover; the core reads it so (`LogRecord::takeover`).
            takeover: get(value, "takeover").as_bool() == Some(true),
        },
    })
}

fn record_object(record: &LogRecord, seq: Option<u64>) -> Object {
    let object = Object::new();
    if let Some(seq) = seq {
        set(&object, "seq", &JsValue::from_f64(seq as f64));
    }
    set(&object, "holder", &JsValue::from_str(&record.holder));
    set(&object, "epoch", &JsValue::from_f64(record.epoch as f64));
    set(&object, "kind", &JsValue::from_str(record.kind.as_str()));
    if let Some(lease) = record.lease {
        set(&object, "leaseMs", &JsValue::from_f64(lease.as_ms_f64()));
    }
    set(&object, "locks", &JsValue::from_bool(record.locks));
    // Written only where true, so entries keep their old shape (readers default to false).
    if record.takeover {
        set(&object, "takeover", &JsValue::TRUE);
    }
    object
}

fn typed(kind: &str) -> Object {
    let object = Object::new();
    set(&object, "type", &JsValue::from_str(kind));
    object
}

fn with_id(kind: &str, id: IoId) -> Object {
    let object = typed(kind);
    set(&object, "id", &JsValue::from_f64(id.0 as f64));
    object
}

fn output_object(output: TabOutput) -> Object {
    match output {
        TabOutput::Listen => typed("listen"),
        TabOutput::StopListening => typed("unlisten"),
        TabOutput::ReadLog(id) => with_id("read", id),
        TabOutput::Append {
            id,
            after,
            record,
            prune,
        } => {
            let object = with_id("append", id);
            set(&object, "after", &JsValue::from_f64(after as f64));
            set(&object, "record", &record_object(&record, None));
            if let Some(through) = prune {
                set(&object, "pruneThrough", &JsValue::from_f64(through as f64));
            }
            object
        }
        TabOutput::RequestLock { id, steal } => {
            let object = with_id("lock", id);
            set(&object, "steal", &JsValue::from_bool(steal));
            object
        }
        TabOutput::ReleaseLock => typed("unlock"),
        TabOutput::Broadcast(entry) => {
            let object = typed("broadcast");
            set(
                &object,
                "entry",
                &record_object(&entry.record, Some(entry.seq)),
            );
            object
        }
        TabOutput::Ping => typed("ping"),
        TabOutput::Event(event) => match event {
            TabEvent::Active { epoch, remaining } | TabEvent::Renewed { epoch, remaining } => {
                let active = matches!(event, TabEvent::Active { .. });
                let object = typed(if active { "active" } else { "renewed" });
                set(&object, "epoch", &JsValue::from_f64(epoch as f64));
                set(
                    &object,
                    "remainingMs",
                    &JsValue::from_f64(remaining.as_ms_f64()),
                );
                object
            }
            TabEvent::Lost {
                epoch,
                reason,
                logged,
            } => {
                let object = typed("lost");
                set(&object, "epoch", &JsValue::from_f64(epoch as f64));
                set(&object, "reason", &JsValue::from_str(reason.as_str()));
                set(&object, "logged", &JsValue::from_bool(logged));
                object
            }
            TabEvent::Left => typed("left"),
            TabEvent::Closed => typed("closed"),
        },
    }
}

fn required_ms(config: &JsValue, key: &'static str) -> Result<Micros, JsValue> {
    let value = get(config, key).as_f64().unwrap_or(f64::NAN);
    checked_ms(key, value).map_err(|e| config_error(&e))
}

/// Drives one candidate's [`TabElection`]. `pkg/tab-engine.js` carries out its outputs.
#[wasm_bindgen]
pub struct TabElectionCore {
    core: TabElection,
}

#[wasm_bindgen]
impl TabElectionCore {
    /// `config`: `{instance, leaseMs, marginMs, renewIntervalMs, webLocks, gated, seed}`.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(config: &JsValue) -> Result<TabElectionCore, JsValue> {
        let instance = get(config, "instance")
            .dyn_into::<JsString>()
            .ok()
            .map(String::from)
            .filter(|s| !s.is_empty())
            .ok_or_else(|| lease_error("ERR_LEASE_CONFIG", "instance must be a string", None))?;
        let seed = number(&get(config, "seed")).unwrap_or(0.0) as u64;
        let config = TabConfig::new(
            instance,
            required_ms(config, "leaseMs")?,
            required_ms(config, "marginMs")?,
            required_ms(config, "renewIntervalMs")?,
            get(config, "webLocks").as_bool().unwrap_or(false),
            get(config, "gated").as_bool().unwrap_or(false),
            seed,
        )
        .map_err(|e| config_error(&e))?;
        Ok(TabElectionCore {
            core: TabElection::new(config),
        })
    }

    /// Becomes a candidate.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn join(&mut self, mono_ms: f64, wall_ms: f64) {
        self.core.join(holder_now(mono_ms, wall_ms));
    }

    /// Withdraws; with `immediately`, writes nothing (the page is leaving).
    #[wasm_bindgen(skip_jsdoc)]
    pub fn leave(&mut self, mono_ms: f64, wall_ms: f64, immediately: bool) {
        self.core.leave(holder_now(mono_ms, wall_ms), immediately);
    }

    /// Steps down and stays a candidate: the page stopped believing the hold `epoch`. A yield
    /// for another hold, or with an epoch that is not one, names no current hold and changes
    /// nothing.
    #[wasm_bindgen(skip_jsdoc, js_name = yieldRole)]
    pub fn yield_role(&mut self, mono_ms: f64, wall_ms: f64, epoch: f64) {
        if let Ok(epoch) = Token::from_f64(epoch) {
            self.core
                .yield_role(holder_now(mono_ms, wall_ms), epoch.get());
        }
    }

    /// Re-validates after a freeze, sleep or the back/forward cache.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn check(&mut self, mono_ms: f64, wall_ms: f64) {
        self.core.check(holder_now(mono_ms, wall_ms));
    }

    /// Leaves and closes for good.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn close(&mut self, mono_ms: f64, wall_ms: f64) {
        self.core.close(holder_now(mono_ms, wall_ms));
    }

    /// The page answered the last ping.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn pong(&mut self, mono_ms: f64, wall_ms: f64) {
        self.core.handle_pong(holder_now(mono_ms, wall_ms));
    }

    /// A message from another candidate: `{type: "leaving", holder, epoch}` or a written entry.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn notice(&mut self, mono_ms: f64, wall_ms: f64, message: &JsValue) {
        let now = holder_now(mono_ms, wall_ms);
        let notice = if get(message, "type").as_string().as_deref() == Some("leaving") {
            let Some(holder) = get(message, "holder").as_string() else {
                return;
            };
            Notice::Leaving {
                holder,
                epoch: count(&get(message, "epoch")),
            }
        } else {
            match entry_from(message) {
                Some(entry) if entry.seq > 0 => Notice::Written(entry),
                _ => return,
            }
        };
        self.core.handle_notice(now, notice);
    }

    /// Read `id` found `entry` (null: the log is empty).
    #[wasm_bindgen(skip_jsdoc)]
    pub fn read(&mut self, mono_ms: f64, wall_ms: f64, id: f64, entry: &JsValue) {
        let entry = entry_from(entry);
        self.core
            .handle_read(holder_now(mono_ms, wall_ms), IoId(id as u64), Ok(entry));
    }

    /// Read `id` failed.
    #[wasm_bindgen(skip_jsdoc, js_name = readFailed)]
    pub fn read_failed(&mut self, mono_ms: f64, wall_ms: f64, id: f64) {
        self.core
            .handle_read(holder_now(mono_ms, wall_ms), IoId(id as u64), Err(()));
    }

    /// Append `id` ended: `"appended"`, `"conflict"` or anything else for a storage failure.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn appended(&mut self, mono_ms: f64, wall_ms: f64, id: f64, outcome: &str) {
        let outcome = match outcome {
            "appended" => AppendOutcome::Appended,
            "conflict" => AppendOutcome::Conflict,
            _ => AppendOutcome::Failed,
        };
        self.core
            .handle_append(holder_now(mono_ms, wall_ms), IoId(id as u64), outcome);
    }

    /// Lock request `id` was granted (`true`) or ended without the lock or was stolen.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn lock(&mut self, mono_ms: f64, wall_ms: f64, id: f64, granted: bool) {
        let event = if granted {
            LockEvent::Granted
        } else {
            LockEvent::Lost
        };
        self.core
            .handle_lock(holder_now(mono_ms, wall_ms), IoId(id as u64), event);
    }

    /// The timer fired (or the host may have slept).
    #[wasm_bindgen(skip_jsdoc)]
    pub fn timeout(&mut self, mono_ms: f64, wall_ms: f64) {
        self.core.handle_timeout(holder_now(mono_ms, wall_ms));
    }

    /// The next output (`{type, ...}`), or `undefined` when drained.
    #[wasm_bindgen(skip_jsdoc, js_name = pollOutput)]
    pub fn poll_output(&mut self) -> Option<Object> {
        self.core.poll_output().map(output_object)
    }

    /// When to call `timeout` next, as a `performance.now()` reading, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = timeoutAt)]
    pub fn timeout_at(&self) -> Option<f64> {
        self.core.poll_timeout().map(|at| at.0 as f64 / 1000.0)
    }

    /// Milliseconds left of the held heartbeat lease (0 when not active).
    #[wasm_bindgen(skip_jsdoc, js_name = remainingMs)]
    pub fn remaining_ms(&mut self, mono_ms: f64, wall_ms: f64) -> f64 {
        self.core
            .remaining(holder_now(mono_ms, wall_ms))
            .as_ms_f64()
    }
}

/// A report from the engine, as the page read it: `(now, now_origin, token, remaining, sent)`
/// for [`PageHold`]'s inputs, or `None` when a reading or field is not a number it can be.
#[allow(clippy::too_many_arguments)]
fn report(
    mono_ms: f64,
    wall_ms: f64,
    origin_ms: f64,
    token: f64,
    remaining_ms: f64,
    sent_wall_ms: f64,
    sent_origin_ms: f64,
) -> Option<(Now, Micros, Token, Micros, Stamp)> {
    let now = Now::from_ms(mono_ms, wall_ms).ok()?;
    let token = Token::from_f64(token).ok()?;
    let ms = |value: f64| number(&JsValue::from_f64(value)).map(Micros::from_ms_f64);
    let sent = Stamp {
        wall: WallTime(ms(sent_wall_ms)?.0),
        origin: ms(sent_origin_ms)?,
    };
    Some((now, ms(origin_ms)?, token, ms(remaining_ms)?, sent))
}

fn mirror(duration_ms: f64, margin_ms: f64) -> Result<TabMirror, JsValue> {
    let duration = checked_ms("durationMs", duration_ms).map_err(|e| config_error(&e))?;
    let margin = checked_ms("safetyMarginMs", margin_ms).map_err(|e| config_error(&e))?;
    TabMirror::new(duration, margin).map_err(|e| config_error(&e))
}

/// The page's view of its hold ([`PageHold`]): the role and, in global mode, the grantor lease
/// reported by the heartbeat worker, mirrored on the page's clocks. `pkg/tab-lease.js` feeds it
/// every report with its readings and acts on [`PageHoldCore::standing`].
///
/// Each report passes the page's readings (`monoMs`, `wallMs`, and `originMs` on the shared time
/// line), the hold's epoch or token, the `remainingMs` it had when stamped, and the stamp
/// (`sentWallMs`, `sentOriginMs`).
#[wasm_bindgen]
pub struct PageHoldCore {
    core: PageHold,
}

#[wasm_bindgen]
impl PageHoldCore {
    /// A page hold for a role lease of `leaseMs`, believed while more than `marginMs` is left;
    /// in global mode (`global`: `{leaseMs, marginMs}` of the grantor lease, else null) also
    /// for the grantor lease.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(lease_ms: f64, margin_ms: f64, global: &JsValue) -> Result<PageHoldCore, JsValue> {
        let grantor = if global.is_null() || global.is_undefined() {
            None
        } else {
            let field = |key| get(global, key).as_f64().unwrap_or(f64::NAN);
            Some(mirror(field("leaseMs"), field("marginMs"))?)
        };
        Ok(PageHoldCore {
            core: PageHold::new(mirror(lease_ms, margin_ms)?, grantor),
        })
    }

    /// The election made the hold `epoch` active. A report that cannot be read ends any hold
    /// instead: failing safe.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(skip_jsdoc, js_name = roleGranted)]
    pub fn role_granted(
        &mut self,
        mono_ms: f64,
        wall_ms: f64,
        origin_ms: f64,
        epoch: f64,
        remaining_ms: f64,
        sent_wall_ms: f64,
        sent_origin_ms: f64,
    ) {
        let read = report(
            mono_ms,
            wall_ms,
            origin_ms,
            epoch,
            remaining_ms,
            sent_wall_ms,
            sent_origin_ms,
        );
        match read {
            Some((now, origin, epoch, remaining, sent)) => {
                self.core.role_granted(now, origin, epoch, remaining, sent);
            }
            None => self.core.step_down(),
        }
    }

    /// The election renewed the hold `epoch` (a report about another hold is ignored, as is one
    /// that cannot be read: the belief runs out on its own).
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(skip_jsdoc, js_name = roleRenewed)]
    pub fn role_renewed(
        &mut self,
        mono_ms: f64,
        wall_ms: f64,
        origin_ms: f64,
        epoch: f64,
        remaining_ms: f64,
        sent_wall_ms: f64,
        sent_origin_ms: f64,
    ) {
        if let Some((now, origin, epoch, remaining, sent)) = report(
            mono_ms,
            wall_ms,
            origin_ms,
            epoch,
            remaining_ms,
            sent_wall_ms,
            sent_origin_ms,
        ) {
            self.core.role_renewed(now, origin, epoch, remaining, sent);
        }
    }

    /// The election ended the hold `epoch`; whether that was the hold mirrored.
    #[wasm_bindgen(skip_jsdoc, js_name = roleLost)]
    pub fn role_lost(&mut self, epoch: f64) -> bool {
        Token::from_f64(epoch).is_ok_and(|epoch| self.core.role_lost(epoch))
    }

    /// The engine holds the grantor lease `token`; whether it counts (global mode, a role
    /// held). A report that cannot be read drops the lease mirrored: failing safe.
    #[allow(clippy::too_many_arguments)]
    #[wasm_bindgen(skip_jsdoc, js_name = grantorGranted)]
    pub fn grantor_granted(
        &mut self,
        mono_ms: f64,
        wall_ms: f64,
        origin_ms: f64,
        token: f64,
        remaining_ms: f64,
        sent_wall_ms: f64,
        sent_origin_ms: f64,
    ) -> bool {
        let read = report(
            mono_ms,
            wall_ms,
            origin_ms,
            token,
            remaining_ms,
            sent_wall_ms,
            sent_origin_ms,
        );
        match read {
            Some((now, origin, token, remaining, sent)) => self
                .core
                .grantor_granted(now, origin, token, remaining, sent),
            None => {
                self.core.grantor_lost();
                false
            }
        }
    }

    /// The engine lost the grantor lease.
    #[wasm_bindgen(skip_jsdoc, js_name = grantorLost)]
    pub fn grantor_lost(&mut self) {
        self.core.grantor_lost();
    }

    /// The page let go of the role.
    #[wasm_bindgen(skip_jsdoc, js_name = stepDown)]
    pub fn step_down(&mut self) {
        self.core.step_down();
    }

    /// Where the hold stands at these readings: `"holds"` (act), `"expired"` (stop and have the
    /// engine step down; the role is dropped), `"grantor_lost"` (stop until the grantor lease is
    /// back), `"awaiting_grantor"` or `"not_held"`. A lapse's name is the reason the hold ended.
    /// Readings that are not clock readings end the role: failing safe.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn standing(&mut self, mono_ms: f64, wall_ms: f64) -> String {
        self.core
            .standing(holder_now(mono_ms, wall_ms))
            .as_str()
            .to_owned()
    }

    /// The epoch of the role mirrored, or `undefined`.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn epoch(&self) -> Option<f64> {
        self.core.epoch().map(|epoch| epoch.get() as f64)
    }

    /// When the hold stops standing if the monotonic clock runs true (`performance.now()`), or
    /// `undefined` when it has no safe time left.
    #[wasm_bindgen(skip_jsdoc, getter, js_name = safeUntil)]
    pub fn safe_until(&self) -> Option<f64> {
        self.core.safe_until().map(|at| at.0 as f64 / 1000.0)
    }

    /// Whether a hold that ended for `reason` ended by the page's own choice ("released"), not
    /// against its will ("lost").
    #[wasm_bindgen(skip_jsdoc, js_name = endedVoluntarily)]
    pub fn ended_voluntarily(reason: &JsValue) -> bool {
        reason
            .as_string()
            .is_some_and(|reason| TabMirror::ended_voluntarily(&reason))
    }
}

/// The tab election's defaults, `{ leaseMs, marginMs }`, for options the page leaves out.
#[wasm_bindgen(skip_jsdoc, js_name = tabDefaults)]
pub fn tab_defaults() -> Object {
    let defaults = Object::new();
    set(
        &defaults,
        "leaseMs",
        &JsValue::from_f64(TabConfig::DEFAULT_LEASE.as_ms_f64()),
    );
    set(
        &defaults,
        "marginMs",
        &JsValue::from_f64(TabConfig::DEFAULT_MARGIN.as_ms_f64()),
    );
    defaults
}

/// Checks a role name: a non-empty string of at most `TabConfig::MAX_NAME_LENGTH` UTF-16 code
/// units, as JavaScript counts `length`.
#[wasm_bindgen(skip_jsdoc, js_name = checkTabName)]
pub fn check_tab_name(name: &JsValue) -> Result<(), JsValue> {
    let length = name
        .as_string()
        .map_or(0, |name| name.encode_utf16().count());
    TabConfig::check_name_length(length).map_err(|e| config_error(&e))
}

/// Observed expiry of one record another party rewrites (see `core::observed`).
#[wasm_bindgen]
pub struct ObserverCore {
    core: Observer<String>,
}

#[wasm_bindgen]
impl ObserverCore {
    /// An observer that waits `defaultDurationMs` for records that carry no duration.
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(default_duration_ms: f64) -> Result<ObserverCore, JsValue> {
        let duration =
            checked_ms("durationMs", default_duration_ms).map_err(|e| config_error(&e))?;
        Ok(ObserverCore {
            core: Observer::new(duration),
        })
    }

    /// The record reads `version` with `durationMs` (not a number from 0: the default).
    /// Returns whether the version is new. Readings that are not clock readings are ignored:
    /// a sighting at an unknown time would start the wait at an unknown point.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn observe(
        &mut self,
        mono_ms: f64,
        wall_ms: f64,
        version: String,
        duration_ms: f64,
    ) -> bool {
        let Ok(now) = Now::from_ms(mono_ms, wall_ms) else {
            return false;
        };
        let duration = number(&JsValue::from_f64(duration_ms)).map(Micros::from_ms_f64);
        self.core.observe(now, version, duration)
    }

    /// Whether the version seen counts as expired: strictly more than its duration has elapsed
    /// on our monotonic clock since we first saw it. False before any sighting, and at readings
    /// that are not clock readings (never judged expired on those).
    #[wasm_bindgen(skip_jsdoc, js_name = isExpired)]
    pub fn is_expired(&mut self, mono_ms: f64, wall_ms: f64) -> bool {
        Now::from_ms(mono_ms, wall_ms).is_ok_and(|now| self.core.is_expired(now))
    }

    /// The wait a denial reports: whole milliseconds, rounded up, until the instant the version
    /// seen has had its full duration (it counts as expired just after); at least 1 while it is
    /// live, 0 once expired; `Infinity` before any sighting or at readings that are not clock
    /// readings.
    #[wasm_bindgen(skip_jsdoc, js_name = expiresInMs)]
    pub fn expires_in_ms(&mut self, mono_ms: f64, wall_ms: f64) -> f64 {
        let left = Now::from_ms(mono_ms, wall_ms)
            .ok()
            .and_then(|now| self.core.remaining(now));
        match left {
            None => f64::INFINITY,
            Some(Micros::ZERO) => 0.0,
            // `remaining` runs to the first expired instant, one microsecond past the duration.
            Some(left) => (left.0 - 1).div_ceil(1_000).max(1) as f64,
        }
    }
}
