//! `FencedStoreCore`: values in IndexedDB fenced by a TabLease name's epochs. A write is
//! accepted only with the newest epoch granted for the name (checked just before, in the log),
//! and never after a write with a newer one (checked in the same transaction as the write), so a
//! tab that lost the role, even one that was frozen through the takeover, can no longer write.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise};
use wasm_bindgen::prelude::*;
use web_sys::IdbRequest;

use super::super::error::{get, lease_error, set};
use super::store::{latest_entry, transact, Tx, FENCED};
use super::sys::{indexed_db, storage_error};
use super::{assert_supported, checked_name};

/// A stored value with the epoch that wrote it (`{value, epoch}` at key `[name, key]`); also
/// what a read resolves.
fn fenced_entry(value: &JsValue, epoch: &JsValue) -> JsValue {
    let object = Object::new();
    set(&object, "value", value);
    set(&object, "epoch", epoch);
    object.into()
}

/// A name's fence, at key `[name]`: the newest epoch that wrote.
fn fence(epoch: f64) -> JsValue {
    let object = Object::new();
    set(&object, "epoch", &JsValue::from_f64(epoch));
    object.into()
}

/// What a write answers: accepted or not, and the name's newest epoch (`null` if never held).
fn write_outcome(accepted: bool, epoch: Option<f64>) -> JsValue {
    let object = Object::new();
    set(&object, "accepted", &JsValue::from_bool(accepted));
    set(
        &object,
        "epoch",
        &epoch.map_or(JsValue::NULL, JsValue::from_f64),
    );
    object.into()
}

/// A promise settled by `run`, which gets the resolve and reject functions.
fn promise(run: impl FnOnce(Function, Function)) -> Promise {
    let mut run = Some(run);
    Promise::new(&mut |resolve, reject| {
        if let Some(run) = run.take() {
            run(resolve, reject);
        }
    })
}

fn settle(resolve: &Function, reject: &Function, outcome: Result<JsValue, JsValue>) {
    let _ = match outcome {
        Ok(value) => resolve.call1(&JsValue::UNDEFINED, &value),
        Err(error) => reject.call1(&JsValue::UNDEFINED, &error),
    };
}

/// `key` if IndexedDB takes it as a key.
fn checked_key(key: &JsValue) -> Result<(), JsValue> {
    match indexed_db().map(|factory| factory.cmp(key, key)) {
        Some(Ok(_)) => Ok(()),
        _ => Err(lease_error(
            "ERR_LEASE_USAGE",
            "key must be a valid IndexedDB key (string, number, date, array)",
            None,
        )),
    }
}

/// The store of one name; the package's `FencedStore` class wraps it.
#[wasm_bindgen]
pub struct FencedStoreCore {
    name: String,
}

#[wasm_bindgen]
impl FencedStoreCore {
    /// The store of the TabLease name `name` (`ERR_LEASE_CONFIG` for a bad name,
    /// `ERR_TAB_UNSUPPORTED` without IndexedDB).
    #[wasm_bindgen(skip_jsdoc, constructor)]
    pub fn new(name: JsValue) -> Result<FencedStoreCore, JsValue> {
        let name = checked_name(&name)?;
        assert_supported("FencedStore")?;
        Ok(FencedStoreCore { name })
    }

    /// The TabLease name whose epochs fence this store.
    #[wasm_bindgen(skip_jsdoc, getter)]
    pub fn name(&self) -> String {
        self.name.clone()
    }

    /// Writes `value` under `key` if `epoch` is the newest epoch of the name; resolves
    /// `{accepted, epoch}`, `epoch` being the newest one.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn write(&self, key: JsValue, value: JsValue, epoch: JsValue) -> Promise {
        let epoch = epoch
            .as_f64()
            .filter(|e| *e >= 1.0 && e.fract() == 0.0 && *e <= 9_007_199_254_740_991.0);
        let Some(epoch) = epoch else {
            let error = lease_error("ERR_LEASE_TOKEN", "epoch must be a positive integer", None);
            return Promise::reject(&error);
        };
        if let Err(error) = checked_key(&key) {
            return Promise::reject(&error);
        }
        let name = self.name.clone();
        promise(move |resolve, reject| {
            latest_entry(&self.name, move |entry| {
                let granted = match entry {
                    Ok(entry) => entry.map(|entry| entry.record.epoch as f64),
                    Err(error) => return settle(&resolve, &reject, Err(error)),
                };
                if granted != Some(epoch) {
                    return settle(&resolve, &reject, Ok(write_outcome(false, granted)));
                }
                fenced_put(&name, key, value, epoch, move |outcome| {
                    settle(&resolve, &reject, outcome)
                });
            });
        })
    }

    /// Resolves `{value, epoch}` (the epoch that wrote it), or `null` when `key` was never
    /// written.
    #[wasm_bindgen(skip_jsdoc)]
    pub fn read(&self, key: JsValue) -> Promise {
        if let Err(error) = checked_key(&key) {
            return Promise::reject(&error);
        }
        let key: JsValue = Array::of2(&JsValue::from_str(&self.name), &key).into();
        promise(move |resolve, reject| {
            transact(
                Tx::read(FENCED),
                move |store| store.get(&key).map(JsValue::from),
                move |request, outcome| {
                    let read =
                        outcome.and_then(|()| request.unchecked_into::<IdbRequest>().result());
                    let entry = read.map(|stored| {
                        if stored.is_undefined() {
                            return JsValue::NULL;
                        }
                        fenced_entry(&get(&stored, "value"), &get(&stored, "epoch"))
                    });
                    settle(&resolve, &reject, entry);
                },
            );
        })
    }
}

/// The write itself, after the log's check: the fence at `[name]`, beside the values at `[name,
/// key]`, read and written in one transaction. That transaction reads before it writes; the
/// election never waits for it (it touches only this store).
fn fenced_put(
    name: &str,
    key: JsValue,
    value: JsValue,
    epoch: f64,
    done: impl FnOnce(Result<JsValue, JsValue>) + 'static,
) {
    let fence_key: JsValue = Array::of1(&JsValue::from_str(name)).into();
    let value_key: JsValue = Array::of2(&JsValue::from_str(name), &key).into();
    let entry = fenced_entry(&value, &JsValue::from_f64(epoch));
    let fence = fence(epoch);
    // What the read decided, and a write that could not be made.
    let decided: Rc<RefCell<Option<Result<JsValue, JsValue>>>> = Rc::new(RefCell::new(None));
    let deciding = Rc::clone(&decided);
    transact(
        Tx::dependent_write(FENCED),
        move |store| {
            let read = store.get(&fence_key)?;
            let writing = store.clone();
            let request = read.clone();
            let on_read = Closure::once_into_js(move || {
                let stored = get(&request.result().unwrap_or_default(), "epoch");
                let newest = stored.as_f64().unwrap_or(0.0);
                let outcome = if newest > epoch {
                    Ok(write_outcome(false, Some(newest)))
                } else {
                    match writing
                        .put_with_key(&entry, &value_key)
                        .and_then(|_| writing.put_with_key(&fence, &fence_key))
                    {
                        Ok(_) => Ok(write_outcome(true, Some(epoch))),
                        Err(error) => {
                            if let Some(transaction) = request.transaction() {
                                let _ = transaction.abort();
                            }
                            Err(storage_error(&error, "write"))
                        }
                    }
                };
                *deciding.borrow_mut() = Some(outcome);
            });
            // Called once if the read succeeds; if it fails, the transaction aborts and the
            // closure goes with the request.
            read.set_onsuccess(Some(on_read.unchecked_ref()));
            Ok(JsValue::UNDEFINED)
        },
        move |_, outcome| {
            let decided = decided.borrow_mut().take();
            done(match (decided, outcome) {
                (Some(Err(failure)), _) => Err(failure),
                (_, Err(error)) => Err(error),
                (Some(Ok(result)), Ok(())) => Ok(result),
                (None, Ok(())) => Err(storage_error(&JsValue::from_str("no answer"), "write")),
            });
        },
    );
}
