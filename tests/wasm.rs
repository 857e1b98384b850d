//! The WebAssembly binding under real JavaScript timers and promises: in Node by default, and in
//! headless Chromium and a dedicated worker through `WASM_BINDGEN_USE_BROWSER` and
//! `WASM_BINDGEN_USE_DEDICATED_WORKER` (see `scripts/test`).
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Function, Reflect};
use tenure::wasm::{HolderCore, LeaseCore};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test;

#[wasm_bindgen(inline_js = r#"
export function sleep(ms) { return new Promise((resolve) => setTimeout(resolve, ms)); }
export function now() { return performance.now(); }
export function wall() { return Date.now(); }

// A grantor whose replies a test scripts: `grants` and `renewals` are lists of replies (or the
// strings "hang" / "throw" / "reject"), used in order, the last one repeating.
export function scriptedGrantor(grants, renewals) {
  const log = { grants: 0, renewals: 0, releases: 0, aborted: 0, requestIds: [] };
  const answer = (list, count, args) => {
    log.requestIds.push(args.requestId);
    args.signal.addEventListener("abort", () => { log.aborted += 1; });
    const reply = list[Math.min(count, list.length - 1)];
    if (reply === "hang") return new Promise(() => {});
    if (reply === "throw") throw new Error("grantor exploded");
    if (reply === "reject") return Promise.reject(new TypeError("fetch failed"));
    return Promise.resolve(typeof reply === "function" ? reply(args) : reply);
  };
  return {
    log,
    grant(args) { return answer(grants, log.grants++, args); },
    renew(args) { return answer(renewals, log.renewals++, args); },
    release() { log.releases += 1; return Promise.resolve({ released: true }); },
  };
}

export function config(extra) {
  return Object.assign({ resource: "r", holderId: "h", leaseMs: 600, marginMs: 150 }, extra);
}
"#)]
extern "C" {
    fn sleep(ms: f64) -> js_sys::Promise;
    fn now() -> f64;
    fn wall() -> f64;
    #[wasm_bindgen(js_name = scriptedGrantor)]
    fn scripted_grantor(grants: JsValue, renewals: JsValue) -> JsValue;
    fn config(extra: JsValue) -> JsValue;
}

async fn wait(ms: f64) {
    JsFuture::from(sleep(ms)).await.unwrap();
}

fn json(text: &str) -> JsValue {
    js_sys::JSON::parse(text).unwrap()
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).unwrap()
}

fn count(grantor: &JsValue, key: &str) -> f64 {
    get(&get(grantor, "log"), key).as_f64().unwrap()
}

/// Events as (type, detail) in arrival order.
#[derive(Clone, Default)]
struct Events(Rc<RefCell<Vec<(String, JsValue)>>>);

impl Events {
    fn callback(&self) -> Function {
        let sink = self.0.clone();
        Closure::<dyn FnMut(String, JsValue)>::new(move |kind, detail| {
            sink.borrow_mut().push((kind, detail));
        })
        .into_js_value()
        .unchecked_into()
    }

    fn kinds(&self) -> Vec<String> {
        self.0.borrow().iter().map(|(k, _)| k.clone()).collect()
    }

    fn last_reason(&self) -> Option<String> {
        self.0
            .borrow()
            .iter()
            .rev()
            .find_map(|(_, detail)| get(detail, "reason").as_string())
    }

    async fn until(&self, kind: &str, max_ms: f64) -> bool {
        let start = now();
        while now() - start < max_ms {
            if self.kinds().iter().any(|k| k == kind) {
                return true;
            }
            wait(10.0).await;
        }
        false
    }
}

fn holder(grants: &str, renewals: &str, extra: &str) -> (HolderCore, JsValue, Events) {
    let grantor = scripted_grantor(json(grants), json(renewals));
    let events = Events::default();
    let core = HolderCore::new(grantor.clone(), config(json(extra)), events.callback())
        .unwrap_or_else(|e| panic!("config rejected: {e:?}"));
    (core, grantor, events)
}

#[wasm_bindgen_test]
fn lease_core_validates_and_names_the_field() {
    let error = LeaseCore::new(100.0, 100.0).err().unwrap();
    assert_eq!(get(&error, "name"), "LeaseError");
    assert_eq!(get(&error, "code"), "ERR_LEASE_CONFIG");
    assert_eq!(get(&error, "field"), "durationMs");
    let error = LeaseCore::new(f64::NAN, 10.0).err().unwrap();
    assert_eq!(get(&error, "field"), "durationMs");
    let error = LeaseCore::new(100.0, -1.0).err().unwrap();
    assert_eq!(get(&error, "field"), "safetyMarginMs");
}

#[wasm_bindgen_test]
fn lease_core_rejects_bad_tokens_and_counts_from_send() {
    let mut lease = LeaseCore::new(1_000.0, 100.0).unwrap();
    let (mono, wall_now) = (now(), wall());
    for bad in [-1.0, 1.5, f64::NAN, 9007199254740992.0] {
        let error = lease
            .grant_at(bad, mono, wall_now, mono, wall_now)
            .err()
            .unwrap();
        assert_eq!(get(&error, "code"), "ERR_LEASE_TOKEN");
    }
    lease
        .grant_at(3.0, mono - 600.0, wall_now - 600.0, mono, wall_now)
        .unwrap();
    let remaining = lease.remaining_ms_at(mono, wall_now);
    assert!((399.0..=400.0).contains(&remaining), "{remaining}");
    // A wall clock stepped back an hour adds nothing; one stepped forward ends the lease.
    assert!(lease.is_safely_held_at(mono, wall_now - 3_600_000.0));
    assert!(!lease.is_safely_held_at(mono, wall_now + 3_600_000.0));
    assert!(!lease.is_safely_held_at(f64::NAN, wall_now));
}

#[wasm_bindgen_test]
fn holder_config_errors_name_the_field() {
    let grantor = scripted_grantor(json("[]"), json("[]"));
    let cases = [
        (r#"{"leaseMs": 100, "marginMs": 100}"#, "marginMs"),
        (r#"{"leaseMs": "9000"}"#, "leaseMs"),
        (r#"{"resource": ""}"#, "resource"),
        (r#"{"holderId": 7}"#, "holderId"),
        (r#"{"renewIntervalMs": 500}"#, "renewIntervalMs"),
        (r#"{"requestTimeoutMs": -5}"#, "requestTimeoutMs"),
    ];
    for (extra, field) in cases {
        let error = HolderCore::new(
            grantor.clone(),
            config(json(extra)),
            Function::new_no_args(""),
        )
        .err()
        .unwrap();
        assert_eq!(get(&error, "field"), field, "{extra}");
    }
    let error = HolderCore::new(JsValue::NULL, config(json("{}")), Function::new_no_args(""))
        .err()
        .unwrap();
    assert_eq!(get(&error, "field"), "grantor.grant");
}

#[wasm_bindgen_test]
async fn acquires_and_keeps_renewing() {
    let (core, grantor, events) = holder(
        r#"[{"granted": true, "token": 4}]"#,
        r#"[{"renewed": true, "token": 4}]"#,
        "{}",
    );
    core.acquire(false).unwrap();
    assert!(events.until("acquired", 2_000.0).await);
    wait(1_300.0).await;
    assert!(core.is_safely_held_at(now(), wall()));
    assert!(count(&grantor, "renewals") >= 3.0, "renews every 200 ms");
    assert_eq!(core.consecutive_failures(), 0);
    JsFuture::from(core.release()).await.unwrap();
    assert_eq!(count(&grantor, "releases"), 1.0);
    assert_eq!(events.kinds().last().unwrap(), "released");
}

#[wasm_bindgen_test]
async fn hung_renewal_surrenders_at_the_margin() {
    let (core, grantor, events) = holder(r#"[{"granted": true, "token": 1}]"#, r#"["hang"]"#, "{}");
    let start = now();
    core.acquire(false).unwrap();
    assert!(events.until("lost", 3_000.0).await);
    let elapsed = now() - start;
    assert_eq!(events.last_reason().unwrap(), "margin_exhausted");
    // Surrender no later than leaseMs - marginMs after the send (generous slack for timers),
    // and never before the first renewal attempt timed out.
    assert!(elapsed <= 450.0 + 250.0, "surrendered after {elapsed} ms");
    assert!(elapsed >= 400.0, "surrendered after {elapsed} ms");
    assert!(!core.is_safely_held_at(now(), wall()));
    // The hung attempts were abandoned through their AbortSignals.
    assert!(count(&grantor, "aborted") >= 1.0);
}

#[wasm_bindgen_test]
async fn malformed_grant_replies_are_failures_never_grants() {
    let replies = [
        r#"{"granted": "yes", "token": 1}"#,
        r#"{"granted": true}"#,
        r#"{"granted": true, "token": -1}"#,
        r#"{"granted": true, "token": 1.5}"#,
        r#"{"granted": true, "token": "1"}"#,
        r#"{"granted": true, "token": 9007199254740992}"#,
        r#"{"granted": true, "token": 1, "durationMs": -5}"#,
        r#"null"#,
        r#""granted""#,
    ];
    for reply in replies {
        let (core, _, events) = holder(&format!("[{reply}]"), "[]", "{}");
        core.acquire(false).unwrap();
        assert!(events.until("acquireFailed", 2_000.0).await, "{reply}");
        assert_eq!(events.last_reason().unwrap(), "malformed_reply", "{reply}");
        assert!(!core.is_safely_held_at(now(), wall()), "{reply}");
        assert_eq!(core.phase(), "idle");
    }
}

#[wasm_bindgen_test]
async fn a_grantor_that_throws_or_rejects_is_a_failed_attempt() {
    for failure in ["throw", "reject"] {
        let (core, _, events) = holder(&format!(r#"["{failure}"]"#), "[]", "{}");
        core.acquire(false).unwrap();
        assert!(events.until("acquireFailed", 2_000.0).await);
        assert_eq!(events.last_reason().unwrap(), "unreachable");
    }
}

#[wasm_bindgen_test]
async fn lower_renewal_token_is_a_loss() {
    let (core, _, events) = holder(
        r#"[{"granted": true, "token": 9}]"#,
        r#"[{"renewed": true, "token": 8}]"#,
        "{}",
    );
    core.acquire(false).unwrap();
    assert!(events.until("lost", 2_000.0).await);
    assert_eq!(events.last_reason().unwrap(), "token_regressed");
}

#[wasm_bindgen_test]
async fn refusal_surrenders_with_the_grantors_reason() {
    let (core, _, events) = holder(
        r#"[{"granted": true, "token": 2}]"#,
        r#"[{"renewed": false, "reason": "revoked"}]"#,
        "{}",
    );
    core.acquire(false).unwrap();
    assert!(events.until("lost", 2_000.0).await);
    assert_eq!(events.last_reason().unwrap(), "revoked");
}

#[wasm_bindgen_test]
async fn malformed_renewal_is_retried_not_trusted() {
    let (core, grantor, events) = holder(
        r#"[{"granted": true, "token": 2}]"#,
        r#"[{"renewed": true, "token": null}, {"renewed": true, "token": 2}]"#,
        "{}",
    );
    core.acquire(false).unwrap();
    assert!(events.until("renewed", 2_000.0).await);
    assert!(events.kinds().iter().any(|k| k == "renewFailed"));
    assert!(count(&grantor, "renewals") >= 2.0);
    assert!(core.is_safely_held_at(now(), wall()));
    core.surrender("done");
}

#[wasm_bindgen_test]
async fn campaign_retries_after_denial_until_granted() {
    let (core, grantor, events) = holder(
        r#"[{"granted": false, "holder": "other", "expiresInMs": 100},
            {"granted": false, "holder": "other", "expiresInMs": 100},
            {"granted": true, "token": 12}]"#,
        r#"[{"renewed": true, "token": 12}]"#,
        "{}",
    );
    core.acquire(true).unwrap();
    assert!(events.until("acquired", 3_000.0).await);
    assert_eq!(count(&grantor, "grants"), 3.0);
    assert_eq!(core.token(), Some(12.0));
    core.cancel_acquire();
    core.surrender("done");
    assert_eq!(core.phase(), "idle");
}

#[wasm_bindgen_test]
async fn reentrant_calls_from_callbacks_do_not_panic() {
    // The event callback calls back into the holder while the holder is delivering.
    let grantor = scripted_grantor(
        json(r#"[{"granted": true, "token": 1}, {"granted": true, "token": 2}]"#),
        json(r#"[{"renewed": false, "reason": "not_holder"}]"#),
    );
    let cell: Rc<RefCell<Option<HolderCore>>> = Rc::new(RefCell::new(None));
    let seen = Rc::new(RefCell::new(Vec::<String>::new()));
    let (cell2, seen2) = (cell.clone(), seen.clone());
    let callback = Closure::<dyn FnMut(String, JsValue)>::new(move |kind: String, _| {
        seen2.borrow_mut().push(kind.clone());
        if kind == "lost" {
            if let Some(core) = cell2.borrow().as_ref() {
                core.acquire(false).unwrap();
                let _ = core.phase();
            }
        }
    })
    .into_js_value()
    .unchecked_into();
    let core = HolderCore::new(grantor, config(json("{}")), callback).unwrap();
    core.acquire(false).unwrap();
    *cell.borrow_mut() = Some(core);
    let start = now();
    while now() - start < 3_000.0 && seen.borrow().iter().filter(|k| *k == "acquired").count() < 2 {
        wait(10.0).await;
    }
    assert_eq!(
        seen.borrow().iter().filter(|k| *k == "acquired").count(),
        2,
        "{:?}",
        seen.borrow()
    );
    if let Some(core) = cell.borrow().as_ref() {
        core.dispose();
    };
}

#[wasm_bindgen_test]
async fn reply_to_an_abandoned_attempt_is_ignored() {
    // The grant answers after 400 ms, but the attempt times out after 100 ms.
    let grantor = scripted_grantor(JsValue::UNDEFINED, JsValue::UNDEFINED);
    let late = Function::new_with_args(
        "args",
        "return new Promise((resolve) => setTimeout(() => resolve({granted: true, token: 5}), 400));",
    );
    Reflect::set(&grantor, &JsValue::from_str("grant"), &late).unwrap();
    let events = Events::default();
    let core = HolderCore::new(
        grantor,
        config(json(r#"{"requestTimeoutMs": 100}"#)),
        events.callback(),
    )
    .unwrap();
    core.acquire(false).unwrap();
    assert!(events.until("acquireFailed", 2_000.0).await);
    assert_eq!(events.last_reason().unwrap(), "timed_out");
    wait(500.0).await;
    assert_eq!(core.phase(), "idle");
    assert!(!events.kinds().iter().any(|k| k == "acquired"));
}
