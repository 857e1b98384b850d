// React hooks over TabLease and LeaseHolder: they map the classes' callbacks, promises and signals
// to React state, and tie each instance's life to the component's. Every lease decision stays in
// the classes (and the core behind them).
//
// Each hook starts its instance one microtask after its effect runs. StrictMode mounts, unmounts
// and mounts again synchronously within one commit, so the first mount's start is cancelled
// before it happens: one mounted hook is one candidate, and no discarded instance ever holds (or
// half-acquires) anything.

import { useEffect, useState } from "react";
import { LeaseError, LeaseHolder, TabLease } from "./index.js";

/** Already aborted: the hook's `signal` before its instance exists. */
function notHeldSignal() {
  return AbortSignal.abort(new LeaseError("ERR_LEASE_NOT_HELD", "not held yet"));
}

// Objects other than plain ones (grantors, functions) compare by identity: each gets a number.
const identities = new WeakMap();
let lastIdentity = 0;

function identityOf(value) {
  let id = identities.get(value);
  if (id === undefined) {
    lastIdentity += 1;
    id = lastIdentity;
    identities.set(value, id);
  }
  return id;
}

function isPlainObject(value) {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * A string equal for equal options: plain objects and arrays by value (key order and
 * `undefined` fields ignored), numbers, strings and booleans by value, anything else by identity.
 * An options literal written in the render is then the same options on every render.
 */
function canonical(value) {
  switch (typeof value) {
    case "undefined":
      return "u";
    case "number":
      return `n${value}`;
    case "bigint":
      return `b${value}`;
    case "boolean":
    case "string":
      return JSON.stringify(value);
    case "object":
      if (value === null) return "null";
      if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
      if (isPlainObject(value)) {
        const fields = Object.keys(value)
          .filter((key) => value[key] !== undefined)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`);
        return `{${fields.join(",")}}`;
      }
      return `#${identityOf(value)}`;
    case "function":
      return `#${identityOf(value)}`;
    default:
      // A symbol cannot key a WeakMap everywhere; its description is the best value it has.
      return `s${String(value)}`;
  }
}

function randomHex(bytes) {
  const random = new Uint8Array(bytes);
  globalThis.crypto.getRandomValues(random);
  return Array.from(random, (b) => b.toString(16).padStart(2, "0")).join("");
}

function tabView(key, tab, inactiveReason) {
  return {
    key,
    tabLease: tab,
    isActive: tab.isActive,
    state: tab.state,
    epoch: tab.epoch,
    grantorToken: tab.grantorToken,
    signal: tab.signal,
    inactiveReason,
    error: null,
  };
}

/**
 * Keeps this tab a candidate for the `TabLease` role `name` while the component is mounted, and
 * renders its state: `{isActive, state, epoch, grantorToken, signal, inactiveReason, error,
 * tabLease}`. Unmounting closes the instance, so the next tab takes the role at once; a new
 * `name` or options different by value start a new instance.
 */
export function useTabLease(name, options = {}) {
  const { onActive, onInactive, ...tabOptions } = options;
  if ((onActive ?? onInactive ?? null) !== null) {
    throw new LeaseError(
      "ERR_LEASE_USAGE",
      "useTabLease sets onActive and onInactive itself: react to isActive and signal instead",
    );
  }
  const key = canonical([name, tabOptions]);
  const [idleSignal] = useState(notHeldSignal);
  const [view, setView] = useState(null);

  useEffect(() => {
    let mounted = true;
    let tab = null;
    let inactiveReason = null;
    const show = () => {
      if (mounted) setView(tabView(key, tab, inactiveReason));
    };
    const fail = (error) => {
      if (mounted) setView({ key, tabLease: tab, error });
    };
    queueMicrotask(() => {
      if (!mounted) return;
      try {
        tab = new TabLease(name, {
          ...tabOptions,
          onActive: () => {
            inactiveReason = null;
            show();
          },
          onInactive: (reason) => {
            inactiveReason = reason;
            show();
          },
        });
      } catch (error) {
        fail(error);
        return;
      }
      // Resolution is reported by onActive; a rejection (the worker failed) ends the candidacy.
      tab.acquire().catch(fail);
      show();
    });
    return () => {
      mounted = false;
      // Closing releases the role and its Web Lock now: the next tab does not wait out a lease.
      void tab?.close();
    };
    // `key` stands for `name` and every option, compared by value.
  }, [key]);

  // A view from other options (before the effect restarts) is not this tab's state.
  const current = view?.key === key ? view : null;
  return {
    isActive: current?.isActive ?? false,
    state: current?.state ?? "idle",
    epoch: current?.epoch ?? null,
    grantorToken: current?.grantorToken ?? null,
    signal: current?.signal ?? idleSignal,
    inactiveReason: current?.inactiveReason ?? null,
    error: current?.error ?? null,
    tabLease: current?.tabLease ?? null,
  };
}

/**
 * Campaigns for the lease (`acquire({wait: true})`) while the component is mounted, campaigns
 * again after a loss, and renders the state: `{isHeld, token, signal, lostReason, error,
 * leaseHolder}`. Unmounting releases, so the next holder is granted at once. `config` is a
 * `LeaseHolder` config; without `holderId`, one is made for each holder the hook starts. A new `grantor`
 * (by identity) or a config different by value starts a new holder.
 */
export function useLease(grantor, config) {
  const key = canonical([grantor, config]);
  const [idleSignal] = useState(notHeldSignal);
  const [view, setView] = useState(null);

  useEffect(() => {
    let mounted = true;
    let holder = null;
    let lostReason = null;
    const show = (fields) => {
      if (mounted) setView({ key, leaseHolder: holder, lostReason, error: null, ...fields });
    };
    const campaign = () => {
      if (!mounted) return;
      holder.acquire({ wait: true }).then(
        (outcome) => {
          // A campaign ends without a grant only when cancelled, which only the cleanup does.
          if (!mounted || !outcome.acquired) return;
          lostReason = null;
          const signal = holder.signal;
          signal.addEventListener(
            "abort",
            () => {
              if (!mounted) return;
              lostReason = signal.reason?.reason ?? null;
              show({ isHeld: false, signal: holder.signal });
              // Out of the holder's own event dispatch, which is still running here.
              queueMicrotask(campaign);
            },
            { once: true },
          );
          show({ isHeld: true, token: outcome.token, signal });
        },
        (error) => show({ isHeld: false, error }),
      );
      show({ isHeld: false, signal: holder.signal });
    };
    queueMicrotask(() => {
      if (!mounted) return;
      try {
        // A holder id per instance unless the config names one: a restarted instance must not
        // share its predecessor's id while that one's release or cancelled grant is in flight.
        holder = new LeaseHolder(grantor, { ...config, holderId: config?.holderId ?? `react-${randomHex(12)}` });
      } catch (error) {
        show({ isHeld: false, error });
        return;
      }
      campaign();
    });
    return () => {
      mounted = false;
      // Ends the hold and tells the grantor, so the next holder need not wait for the expiry; or
      // cancels the campaign.
      void holder?.release();
    };
    // `key` stands for the grantor (by identity) and every config field (by value).
  }, [key]);

  const current = view?.key === key ? view : null;
  return {
    isHeld: current?.isHeld ?? false,
    token: current?.isHeld ? current.token : null,
    signal: current?.signal ?? idleSignal,
    lostReason: current?.lostReason ?? null,
    error: current?.error ?? null,
    leaseHolder: current?.leaseHolder ?? null,
  };
}
