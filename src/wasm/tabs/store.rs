//! The IndexedDB database every TabLease and FencedStore of an origin shares: one connection per
//! context, the election logs, and small facts (the browser's id and global mode's lease secret).
//!
//! Every request's result is read once its transaction has ended (a request's `result` and
//! `error` stay readable then), so no Rust code runs inside a transaction except where a write
//! depends on a read (the fenced write).

use std::cell::{Cell, RefCell};

use js_sys::{Array, JsString, Promise, Reflect};
use wasm_bindgen::prelude::*;
use web_sys::{
    IdbCursor, IdbCursorDirection, IdbCursorWithValue, IdbDatabase, IdbKeyRange, IdbObjectStore,
    IdbRequest, IdbTransaction, IdbTransactionDurability, IdbTransactionMode,
    IdbTransactionOptions,
};

#[cfg(feature = "holder")]
use super::sys::random_id;
use super::sys::{indexed_db, on_settled, storage_error};
use super::wire::{count, EntryWire};
use crate::core::{LogEntry, LogRecord};

const DB_NAME: &str = "tenure-tabs";
const DB_VERSION: u32 = 1;
/// Election logs by `[name, seq]`.
const LEASES: &str = "leases";
/// Fenced values by `[name, key]`, and each name's fence at `[name]`.
pub const FENCED: &str = "fenced";
/// Small facts: the browser's id, global mode's lease secrets.
const META: &str = "meta";

type Waiter = Box<dyn FnOnce(Result<IdbDatabase, JsValue>)>;

/// The context's connection.
enum Connection {
    Closed,
    Opening(Vec<Waiter>),
    Open {
        db: IdbDatabase,
        generation: u32,
        /// Forgets this connection when it closes or a newer schema asks it to.
        _forget: Closure<dyn FnMut()>,
    },
}

thread_local! {
    static CONNECTION: RefCell<Connection> = const { RefCell::new(Connection::Closed) };
    static GENERATION: Cell<u32> = const { Cell::new(0) };
}

/// Calls `waiter` with the open database: one connection per context, opened on first use and
/// again after the browser closed it.
fn with_db(waiter: Waiter) {
    enum Next {
        Ready(IdbDatabase, Waiter),
        Wait,
        Open,
    }
    let next = CONNECTION.with(|cell| {
        let mut connection = cell.borrow_mut();
        match &mut *connection {
            Connection::Open { db, .. } => Next::Ready(db.clone(), waiter),
            Connection::Opening(waiters) => {
                waiters.push(waiter);
                Next::Wait
            }
            Connection::Closed => {
                *connection = Connection::Opening(vec![waiter]);
                Next::Open
            }
        }
    });
    match next {
        Next::Ready(db, waiter) => waiter(Ok(db)),
        Next::Wait => {}
        Next::Open => open(),
    }
}

fn open() {
    let request = match indexed_db().map(|factory| factory.open_with_u32(DB_NAME, DB_VERSION)) {
        Some(Ok(request)) => request,
        Some(Err(error)) => return opened(Err(storage_error(&error, "open"))),
        None => {
            return opened(Err(storage_error(
                &JsValue::from_str("no indexedDB"),
                "open",
            )));
        }
    };
    let upgrading = request.clone();
    let upgrade = Closure::<dyn FnMut()>::new(move || {
        let Ok(db) = upgrading.result() else { return };
        let db: IdbDatabase = db.unchecked_into();
        let names = db.object_store_names();
        for store in [LEASES, FENCED, META] {
            if !names.contains(store) {
                let _ = db.create_object_store(store);
            }
        }
    });
    request.set_onupgradeneeded(Some(upgrade.as_ref().unchecked_ref()));
    let settled = Promise::new(&mut |resolve, reject| {
        request.set_onsuccess(Some(&resolve));
        request.set_onerror(Some(&reject));
    });
    on_settled(&settled, move |outcome| {
        drop(upgrade);
        let db = match outcome.and_then(|_| request.result()) {
            Ok(db) => Ok(db.unchecked_into::<IdbDatabase>()),
            Err(_) => {
                let error = request.error().ok().flatten().map(JsValue::from);
                Err(storage_error(&error.unwrap_or_default(), "open"))
            }
        };
        opened(db);
    });
}

/// The opening ended: keep the connection (or forget it) and answer everyone waiting.
fn opened(db: Result<IdbDatabase, JsValue>) {
    let next = match &db {
        Ok(db) => {
            let generation = GENERATION.with(|g| {
                g.set(g.get().wrapping_add(1));
                g.get()
            });
            let closing = db.clone();
            // A later schema must not wait for this context: close, and open again on next use.
            let forget = Closure::<dyn FnMut()>::new(move || {
                forget(Some(generation));
                closing.close();
            });
            db.set_onversionchange(Some(forget.as_ref().unchecked_ref()));
            db.set_onclose(Some(forget.as_ref().unchecked_ref()));
            Connection::Open {
                db: db.clone(),
                generation,
                _forget: forget,
            }
        }
        Err(_) => Connection::Closed,
    };
    let previous = CONNECTION.with(|cell| cell.replace(next));
    if let Connection::Opening(waiters) = previous {
        for waiter in waiters {
            waiter(db.clone());
        }
    }
}

/// Forgets the connection (only the one of `generation`, if given), so the next use reopens.
fn forget(generation: Option<u32>) {
    let previous = CONNECTION.with(|cell| {
        let mut connection = cell.borrow_mut();
        match &*connection {
            Connection::Open { generation: g, .. } if generation.is_none_or(|mine| mine == *g) => {
                Some(std::mem::replace(&mut *connection, Connection::Closed))
            }
            _ => None,
        }
    });
    // Dropped out of the borrow: this may be the closure running now (wasm-bindgen frees it
    // once it returns).
    drop(previous);
}

/// How a transaction runs.
#[derive(Clone, Copy)]
pub struct Tx {
    store: &'static str,
    write: bool,
    /// No disk flush before completion: the election's log writes.
    relaxed: bool,
    /// Every request is issued at once and the transaction committed right away, so it
    /// completes without this context running again. A tab frozen in the middle of a
    /// transaction that waits on its callbacks would block every other tab's transactions on
    /// the store for as long as it stays frozen.
    one_shot: bool,
}

impl Tx {
    /// A one-shot read of `store`.
    pub const fn read(store: &'static str) -> Tx {
        Tx {
            store,
            write: false,
            relaxed: false,
            one_shot: true,
        }
    }

    /// A one-shot write of `store`.
    const fn write(store: &'static str, relaxed: bool) -> Tx {
        Tx {
            store,
            write: true,
            relaxed,
            one_shot: true,
        }
    }

    /// A write of `store` whose requests depend on earlier ones' results.
    pub const fn dependent_write(store: &'static str) -> Tx {
        Tx {
            store,
            write: true,
            relaxed: false,
            one_shot: false,
        }
    }
}

/// What runs in a transaction: its requests, issued on the store.
type Body = Box<dyn FnOnce(&IdbObjectStore) -> Result<JsValue, JsValue>>;
/// What hears how it ended.
type Done = Box<dyn FnOnce(JsValue, Result<(), JsValue>)>;

/// Runs `body` in one transaction and calls `done` once it ended: with what `body` returned
/// (`undefined` if it failed), and whether the transaction committed (else the storage error).
pub fn transact(
    tx: Tx,
    body: impl FnOnce(&IdbObjectStore) -> Result<JsValue, JsValue> + 'static,
    done: impl FnOnce(JsValue, Result<(), JsValue>) + 'static,
) {
    run(tx, Box::new(body), Box::new(done));
}

fn run(tx: Tx, body: Body, done: Done) {
    with_db(Box::new(move |db| {
        let db = match db {
            Ok(db) => db,
            Err(error) => return done(JsValue::UNDEFINED, Err(error)),
        };
        let options = IdbTransactionOptions::new();
        options.set_durability(if tx.relaxed {
            IdbTransactionDurability::Relaxed
        } else {
            IdbTransactionDurability::Default
        });
        let mode = if tx.write {
            IdbTransactionMode::Readwrite
        } else {
            IdbTransactionMode::Readonly
        };
        let stores = [JsString::from(tx.store)];
        let transaction =
            match db.transaction_with_str_sequence_and_mode_and_options(&stores, mode, &options) {
                Ok(transaction) => transaction,
                Err(error) => {
                    // The connection is closing (schema change, storage cleared): the next call
                    // reopens.
                    forget(None);
                    return done(
                        JsValue::UNDEFINED,
                        Err(storage_error(&error, "transaction")),
                    );
                }
            };
        let value = match transaction
            .object_store(tx.store)
            .and_then(|store| body(&store))
        {
            Ok(value) => value,
            Err(error) => {
                let _ = transaction.abort();
                return done(JsValue::UNDEFINED, Err(storage_error(&error, "request")));
            }
        };
        if tx.one_shot {
            // Engines without `commit` complete it all the same once the requests are done.
            // (web-sys marks it deprecated; it is the standard way to end a transaction now.)
            #[allow(deprecated)]
            let _ = transaction.commit();
        }
        let ended = Promise::new(&mut |resolve, reject| {
            transaction.set_oncomplete(Some(&resolve));
            transaction.set_onabort(Some(&reject));
        });
        on_settled(&ended, move |outcome| {
            let outcome = outcome.map(|_| ()).map_err(|_| aborted(&transaction));
            done(value, outcome);
        });
    }));
}

/// The storage error of a transaction that aborted.
fn aborted(transaction: &IdbTransaction) -> JsValue {
    let error = transaction.error().map_or_else(
        || JsValue::from(js_sys::Error::new("transaction aborted")),
        JsValue::from,
    );
    storage_error(&error, "transaction")
}

/// The key of slot `seq` in `name`'s log (`[name, 0]` and `[name, Infinity]` bound it).
fn log_key(name: &str, seq: f64) -> JsValue {
    Array::of2(&JsValue::from_str(name), &JsValue::from_f64(seq)).into()
}

/// The slots `from..=to` of `name`'s log.
fn log_range(name: &str, to: f64) -> Result<JsValue, JsValue> {
    IdbKeyRange::bound(&log_key(name, 0.0), &log_key(name, to)).map(JsValue::from)
}

/// The slot of a log key.
fn slot_of(key: Result<JsValue, JsValue>) -> u64 {
    count(
        key.and_then(|key| Reflect::get_u32(&key, 1))
            .ok()
            .and_then(|seq| seq.as_f64()),
    )
}

// The election log of a name: entries at keys [name, seq], seq = 1, 2, 3, ... The newest entry
// says who holds the role, with which epoch, and whether it is alive. Every write is an `add` at
// the slot after the newest entry its writer knows, which fails if anyone wrote since: a
// compare-and-set that needs no read-then-write transaction.

/// The newest entry of `name`'s log, or `None` when it has none.
pub fn latest_entry(name: &str, done: impl FnOnce(Result<Option<LogEntry>, JsValue>) + 'static) {
    let range = log_range(name, f64::INFINITY);
    transact(
        Tx::read(LEASES),
        move |store| {
            store
                .open_cursor_with_range_and_direction(&range?, IdbCursorDirection::Prev)
                .map(JsValue::from)
        },
        move |request, outcome| {
            done(outcome.map(|()| {
                let request: IdbRequest = request.dyn_into().ok()?;
                let cursor = request.result().ok().filter(|c| !c.is_null())?;
                let cursor: IdbCursorWithValue = cursor.unchecked_into();
                let value = cursor.value().unwrap_or_default();
                Some(EntryWire::read(value).entry(slot_of(cursor.key())))
            }))
        },
    );
}

/// Appends `record` at slot `after + 1` (deleting the slots up to `prune` in the same
/// transaction, the core's choice). `Ok(true)`: appended; `Ok(false)`: someone wrote after
/// `after` first (the slot is taken, or, for a writer far behind, later slots exist). Log writes
/// use relaxed durability (no disk flush on the handoff's path): after a power cut no tab from
/// before it is alive, and FencedStore's flushed writes persist everything committed before
/// them.
pub fn append(
    name: &str,
    after: u64,
    record: &LogRecord,
    prune: Option<u64>,
    done: impl FnOnce(Result<bool, JsValue>) + 'static,
) {
    let slot = after + 1;
    let value = EntryWire::of(record, None).to_js();
    let key = log_key(name, slot as f64);
    let range = log_range(name, f64::INFINITY);
    let pruned = prune.map(|through| log_range(name, through as f64));
    transact(
        Tx::write(LEASES, true),
        move |store| {
            if let Some(pruned) = pruned {
                store.delete(&pruned?)?;
            }
            let add = store.add_with_key(&value, &key)?;
            let newest = store
                .open_key_cursor_with_range_and_direction(&range?, IdbCursorDirection::Prev)?;
            Ok(Array::of2(&add, &newest).into())
        },
        move |requests, outcome| {
            let request = |at| requests_at(&requests, at);
            let (Some(add), Some(newest)) = (request(0), request(1)) else {
                return done(Err(outcome.err().unwrap_or_default()));
            };
            if let Err(error) = outcome {
                // The add failing (its slot taken) aborts the transaction.
                let conflict = matches!(add.error(), Ok(Some(_)));
                return done(if conflict { Ok(false) } else { Err(error) });
            }
            // A writer whose slot had been pruned lands behind the newest entry: overtaken.
            let newest = newest
                .result()
                .ok()
                .filter(|cursor| !cursor.is_null())
                .map(|cursor| slot_of(cursor.unchecked_into::<IdbCursor>().key()));
            done(Ok(newest == Some(slot)));
        },
    );
}

/// The request at `at` of the list a transaction's body returned, if it ran.
fn requests_at(requests: &JsValue, at: u32) -> Option<IdbRequest> {
    Reflect::get_u32(requests, at).ok()?.dyn_into().ok()
}

/// The result of a one-shot read of `key` in `store` (`undefined` when absent).
#[cfg(feature = "holder")]
fn read_value(
    store_name: &'static str,
    key: JsValue,
    done: impl FnOnce(Result<JsValue, JsValue>) + 'static,
) {
    transact(
        Tx::read(store_name),
        move |store| store.get(&key).map(JsValue::from),
        move |request, outcome| {
            done(outcome.and_then(|()| request.unchecked_into::<IdbRequest>().result()));
        },
    );
}

/// The browser's id toward a grantor in global mode: one per origin, kept in IndexedDB.
#[cfg(feature = "holder")]
pub fn browser_id(done: impl FnOnce(Result<JsValue, JsValue>) + 'static) {
    let key = JsValue::from_str("browserId");
    let id = JsValue::from_str(&random_id("browser-"));
    let read_key = key.clone();
    // Insert-if-absent, then read: two one-shot transactions, no read-then-write. The insert
    // fails (and its transaction aborts) when another tab got there first.
    transact(
        Tx::write(META, false),
        move |store| store.add_with_key(&id, &key).map(JsValue::from),
        move |_, _| read_value(META, read_key, done),
    );
}

// Global mode's lease secret: the grantor binds each grant to a secret that renewals, releases and
// same-holder re-grants must present. The browser's tabs share one holder id, so they share the
// newest grant's secret too, next to that id; a successor tab then re-grants at once instead of
// waiting the old grant out. (Scripts of this origin could read it, as they can the holder id:
// the tabs of one origin are one holder toward the grantor.)

#[cfg(feature = "holder")]
fn secret_key(resource: &str) -> JsValue {
    let mut key = String::from("leaseSecret:");
    key.push_str(resource);
    JsValue::from_str(&key)
}

/// The secret shared for `resource`, if any (a storage failure reads as none).
#[cfg(feature = "holder")]
pub fn shared_secret(resource: &str, done: impl FnOnce(Option<JsValue>) + 'static) {
    read_value(META, secret_key(resource), move |value| {
        done(value.ok().filter(JsValue::is_string));
    });
}

/// Shares `secret` for `resource`; `done` when written or failed.
#[cfg(feature = "holder")]
pub fn share_secret(resource: &str, secret: JsValue, done: impl FnOnce() + 'static) {
    let key = secret_key(resource);
    transact(
        Tx::write(META, false),
        move |store| store.put_with_key(&secret, &key).map(JsValue::from),
        move |_, _| done(),
    );
}
