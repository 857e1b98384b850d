// KubernetesLeaseGrantor: leases from Kubernetes `coordination.k8s.io/v1` Lease objects, over the
// API server's REST API, with client-go leaderelection's rules: every change is a compare-and-swap
// on `metadata.resourceVersion`, and another holder's lease is judged expired on this process's
// own monotonic clock, never by comparing `renewTime` with the local wall clock.

import {
  RecentCalls,
  RestEndpoint,
  attemptKey,
  checkDurationMs,
  checkHolder,
  checkRequestId,
  checkToken,
  checkedCredential,
  grantorError,
  parseJson,
  statusFailure,
} from "./fetch-json.js";
import { LeaseError } from "./errors.js";
import { ERROR_CODE, RENEW_REFUSAL } from "./protocol.js";
import { coreModule } from "./core.js";
import { ObserverCore } from "./glue/tenure.js";

const perf = globalThis.performance;

/** Lease objects are small, but the API server adds `managedFields`; 256 KiB is generous. */
const MAX_REPLY_BYTES = 256 * 1024;
/** `leaseDurationSeconds` and `leaseTransitions` are int32. */
const MAX_INT32 = 2 ** 31 - 1;
/** Observations kept; dropping one only makes the adapter wait a full lease again. */
const MAX_OBSERVATIONS = 4096;
/** The annotation recording which attempt (`requestId`) made the current grant. */
const REQUEST_ID_ANNOTATION = "tenure/request-id";

/** A DNS-1123 label: a namespace. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** A DNS-1123 subdomain: a Lease name. */
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

function malformed(what, detail, status) {
  return grantorError("malformed_reply", `${what}: ${detail}`, { status });
}

/**
 * `MicroTime` now: RFC 3339 in UTC with exactly six fractional digits, the layout the API server
 * parses. Only informational: no decision here ever reads these times back.
 */
function microTimeNow() {
  return new Date().toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function isCount(value, min) {
  return Number.isSafeInteger(value) && value >= min && value <= MAX_INT32;
}

/**
 * A grantor on Kubernetes Lease objects (`coordination.k8s.io/v1`), one per resource, named after
 * it, in one namespace.
 *
 * - **Expiry, as client-go judges it.** The adapter records when, on its own monotonic clock, it
 *   first saw each version of a Lease, and takes another holder's lease over only once
 *   `leaseDurationSeconds` has passed since then with the record unchanged. Clock skew between
 *   machines is therefore harmless (skewed clock *rates* are not), and a process that starts
 *   while someone holds a lease waits one full lease duration before taking it. A takeover is a
 *   compare-and-swap on the version it observed, so a holder that renewed meanwhile wins.
 * - **Durations.** `leaseDurationSeconds` is whole seconds: a request is rounded up, and the
 *   reply's `durationMs` says what was granted.
 * - **Fencing token: `spec.leaseTransitions + 1`.** client-go bumps `leaseTransitions` only when
 *   the holder changes; this adapter bumps it on every grant (a new holder, the same holder again
 *   after expiry or release, or a new grant replacing its own), and the compare-and-swap makes
 *   each value belong to one grant. A Lease created here starts at 0, so the first token is 1.
 *   Tokens stay increasing only while the object lives and nobody else writes the counter: never
 *   delete these Leases (grant RBAC `get`, `create`, `update` on `leases`, not `delete`), and do not
 *   share one with holders that do not use this adapter.
 * - **Release**, as client-go's `ReleaseOnCancel`: `holderIdentity` cleared and
 *   `leaseDurationSeconds: 1`, compare-and-swap, only if this grant still holds it. An empty
 *   `holderIdentity` is free at once.
 * - **Retries.** The annotation `tenure/request-id` records which attempt made the grant, so a
 *   retried grant gets the original token; a new grant by the same holder replaces its own older
 *   one with a larger token.
 *
 * Auth: `token` is sent as `Authorization: Bearer <token>`. Browsers need the API server's
 * `--cors-allowed-origins`, or a same-origin proxy such as `kubectl proxy`.
 */
export class KubernetesLeaseGrantor {
  #http;
  #namespace;
  #recent = new RecentCalls();
  // name -> the core's observation of that Lease: when this process first saw its current version.
  #observed = new Map();

  /**
   * @param {object} options `baseUrl` (the API server, e.g. `"https://10.0.0.1:6443"`, or a
   *   `kubectl proxy`), `namespace` (default `"default"`), `token` (bearer token), `headers`,
   *   `timeoutMs` (each request's, default 10 000), `credentials`, `fetch`
   */
  constructor({ baseUrl, namespace = "default", token, ...rest } = {}) {
    const auth = token === undefined ? {} : { authorization: `Bearer ${checkedCredential(token, "token")}` };
    this.#http = new RestEndpoint({ baseUrl, ...rest }, auth, MAX_REPLY_BYTES);
    if (typeof namespace !== "string" || namespace.length > 63 || !DNS_LABEL.test(namespace)) {
      throw new LeaseError("ERR_LEASE_CONFIG", "namespace must be a DNS-1123 label", { field: "namespace" });
    }
    this.#namespace = namespace;
  }

  /** The API server's base URL. */
  get baseUrl() {
    return this.#http.baseUrl;
  }

  /** The namespace the Lease objects live in. */
  get namespace() {
    return this.#namespace;
  }

  /**
   * Grants the Lease named `resource`: creates it if missing; takes it if it is free, expired by
   * this process's observation, or this holder's own older grant; otherwise denies, naming the
   * holder and (by this process's observation) how long its lease has left.
   */
  async grant({ resource, holder, durationMs, requestId, signal }) {
    const name = checkName(resource);
    checkHolder(holder);
    checkDurationMs(durationMs);
    checkRequestId(requestId);
    const startedAt = perf.now();
    const seconds = Math.min(MAX_INT32, Math.ceil(durationMs / 1000));
    const attempt = attemptKey("grant", resource, holder, requestId);
    const spec = (transitions) => {
      const now = microTimeNow();
      return {
        holderIdentity: holder,
        leaseDurationSeconds: seconds,
        acquireTime: now,
        renewTime: now,
        leaseTransitions: transitions,
      };
    };
    const granted = (lease) => {
      const reply = { granted: true, token: lease.spec.leaseTransitions + 1, durationMs: seconds * 1000 };
      if (attempt !== undefined) this.#recent.remember(attempt, startedAt, reply.durationMs);
      return reply;
    };

    // Two passes: a lost race (create or compare-and-swap) is answered from a fresh read.
    for (let pass = 0; pass < 2; pass += 1) {
      const lease = await this.#get(name, signal);
      if (lease === null) {
        const created = await this.#create(name, spec(0), requestId, signal);
        if (created === null) continue; // someone else created it first
        expectSpec(created, holder, 0);
        return granted(created);
      }
      const current = lease.spec;
      if (current.holderIdentity === holder && requestId !== undefined && requestIdOf(lease) === requestId) {
        return this.#replayGrant(name, lease, seconds, attempt, signal);
      }
      const held = current.holderIdentity !== "" && current.holderIdentity !== holder;
      if (held) {
        // Expired only once a full lease has passed, on this process's clocks, since it first saw
        // the Lease as it is now (the core's observed-expiry rule).
        const monoMs = perf.now();
        const wallMs = Date.now();
        if (!lease.observer.isExpired(monoMs, wallMs)) {
          const expiresInMs = lease.observer.expiresInMs(monoMs, wallMs);
          return { granted: false, holder: current.holderIdentity, expiresInMs };
        }
      }
      // Free, expired by our observation, or this holder's own older grant: a new grant.
      const transitions = current.leaseTransitions + 1;
      if (transitions > MAX_INT32) throw malformed(`Lease ${name}`, "leaseTransitions is exhausted");
      const updated = await this.#replace(name, lease, spec(transitions), requestId, signal);
      if (updated === null) continue; // changed since we read it
      expectSpec(updated, holder, transitions);
      return granted(updated);
    }
    const lease = await this.#get(name, signal);
    const holderNow = lease?.spec.holderIdentity;
    return holderNow ? { granted: false, holder: holderNow } : { granted: false };
  }

  /** Renews: a compare-and-swap of `renewTime` (and the duration), only while this grant holds. */
  async renew({ resource, holder, token, durationMs, requestId, signal }) {
    const name = checkName(resource);
    checkHolder(holder);
    checkToken(token);
    checkDurationMs(durationMs);
    checkRequestId(requestId);
    const startedAt = perf.now();
    const seconds = Math.min(MAX_INT32, Math.ceil(durationMs / 1000));
    for (let pass = 0; pass < 2; pass += 1) {
      const lease = await this.#get(name, signal);
      const refusal = refusalFor(lease, holder, token);
      if (refusal !== undefined) return { renewed: false, reason: refusal };
      const next = { ...lease.spec, leaseDurationSeconds: seconds, renewTime: microTimeNow() };
      const updated = await this.#replace(name, lease, next, requestIdOf(lease), signal);
      if (updated === null) continue; // written meanwhile: read again and decide afresh
      expectSpec(updated, holder, token - 1);
      const attempt = attemptKey("renew", resource, holder, requestId, token);
      // A retried renewal promises no more than the original had left.
      const grantedMs = seconds * 1000;
      const promisedMs = attempt === undefined ? grantedMs : this.#recent.promise(attempt, startedAt, grantedMs);
      return { renewed: true, token, durationMs: promisedMs };
    }
    const lease = await this.#get(name, signal);
    const refusal = refusalFor(lease, holder, token);
    if (refusal !== undefined) return { renewed: false, reason: refusal };
    throw grantorError("server_error", `Lease ${name} kept changing during the renewal`, { status: 409 });
  }

  /**
   * Releases as client-go's `ReleaseOnCancel` does, if grant `token` of `holder` still holds:
   * `holderIdentity` cleared, `leaseDurationSeconds: 1`, the transitions counter kept.
   */
  async release({ resource, holder, token, signal }) {
    const name = checkName(resource);
    checkHolder(holder);
    checkToken(token);
    for (let pass = 0; pass < 3; pass += 1) {
      const lease = await this.#get(name, signal);
      if (refusalFor(lease, holder, token) !== undefined) return { released: false };
      const now = microTimeNow();
      const next = {
        ...lease.spec,
        holderIdentity: "",
        leaseDurationSeconds: 1,
        acquireTime: now,
        renewTime: now,
      };
      const updated = await this.#replace(name, lease, next, undefined, signal);
      if (updated !== null) return { released: true };
    }
    throw grantorError("server_error", `Lease ${name} kept changing during the release`, { status: 409 });
  }

  /** A retried grant: the original token, and no more time than the original has left. */
  async #replayGrant(name, lease, seconds, attempt, signal) {
    const token = lease.spec.leaseTransitions + 1;
    const left = this.#recent.remainingMs(attempt);
    if (left !== undefined) return { granted: true, token, durationMs: left };
    // Not remembered here: renew, so the full duration counts from now, after the retry was sent.
    const next = { ...lease.spec, leaseDurationSeconds: seconds, renewTime: microTimeNow() };
    const updated = await this.#replace(name, lease, next, requestIdOf(lease), signal);
    if (updated === null) return { granted: false };
    expectSpec(updated, lease.spec.holderIdentity, lease.spec.leaseTransitions);
    return { granted: true, token, durationMs: seconds * 1000 };
  }

  /**
   * Records a sighting of the Lease as `lease` shows it, and returns the core's observation of
   * that name: a new version restarts the wait for its expiry, one seen before does not.
   */
  #observe(name, lease) {
    let observer = this.#observed.get(name);
    this.#observed.delete(name);
    if (observer === undefined) {
      // Every Lease read here carries its duration; the default is never used.
      coreModule();
      observer = new ObserverCore(1000);
      if (this.#observed.size >= MAX_OBSERVATIONS) {
        const oldest = this.#observed.keys().next().value;
        this.#observed.get(oldest).free();
        this.#observed.delete(oldest);
      }
    }
    this.#observed.set(name, observer);
    observer.observe(perf.now(), Date.now(), lease.version, lease.spec.leaseDurationSeconds * 1000);
    return observer;
  }

  #path(name) {
    const collection = `/apis/coordination.k8s.io/v1/namespaces/${this.#namespace}/leases`;
    return name === undefined ? collection : `${collection}/${name}`;
  }

  /** GET: the checked Lease, or null when there is none. */
  async #get(name, signal) {
    const reply = await this.#http.request("GET", this.#path(name), { signal });
    if (reply.status === 404) return null;
    if (reply.status !== 200) throw failure(`GET Lease ${name}`, reply);
    return this.#accept(name, reply, `GET Lease ${name}`);
  }

  /** POST: the created Lease, or null when one already existed (409 AlreadyExists). */
  async #create(name, spec, requestId, signal) {
    const metadata = { name, namespace: this.#namespace };
    if (requestId !== undefined) metadata.annotations = { [REQUEST_ID_ANNOTATION]: requestId };
    const body = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata, spec };
    const reply = await this.#http.request("POST", this.#path(), { json: body, signal });
    if (reply.status === 409) return null;
    if (reply.status !== 201 && reply.status !== 200) throw failure(`POST Lease ${name}`, reply);
    return this.#accept(name, reply, `POST Lease ${name}`);
  }

  /**
   * PUT with the `resourceVersion` read: the updated Lease, or null on 409 Conflict. The object
   * as read is sent back with the new spec (other fields and annotations kept, as client-go
   * does), and the request-id annotation set to `requestId` or removed.
   */
  async #replace(name, lease, spec, requestId, signal) {
    const metadata = { ...lease.raw.metadata };
    const annotations = { ...(metadata.annotations ?? {}) };
    if (requestId === undefined) delete annotations[REQUEST_ID_ANNOTATION];
    else annotations[REQUEST_ID_ANNOTATION] = requestId;
    metadata.annotations = annotations;
    const body = { ...lease.raw, metadata, spec };
    const reply = await this.#http.request("PUT", this.#path(name), { json: body, signal });
    if (reply.status === 409) return null;
    if (reply.status !== 200 && reply.status !== 201) throw failure(`PUT Lease ${name}`, reply);
    return this.#accept(name, reply, `PUT Lease ${name}`);
  }

  /** Parses and checks a Lease reply, and records the observation (as `observer`). */
  #accept(name, reply, what) {
    const lease = parseLease(
      parseJson(what, reply.text, reply.status),
      name,
      this.#namespace,
      what,
      reply.status,
    );
    lease.observer = this.#observe(name, lease);
    return lease;
  }
}

/** A resource as a Lease name: a DNS-1123 subdomain. */
function checkName(resource) {
  if (typeof resource !== "string" || resource.length > 253 || !DNS_SUBDOMAIN.test(resource)) {
    throw grantorError(
      "bad_request",
      "resource must be a Kubernetes object name: lowercase letters, digits, '-' and '.', at most 253",
      { grantorCode: ERROR_CODE.BAD_RESOURCE },
    );
  }
  return resource;
}

/**
 * A Lease from a reply, checked strictly: `{raw, version, spec}` with `spec` normalised (absent
 * fields as the API defines them) and `version` identifying this exact record. The caller adds
 * `observer`.
 */
function parseLease(raw, name, namespace, what, status) {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    throw malformed(what, "not an object", status);
  }
  if (raw.kind !== "Lease" || raw.apiVersion !== "coordination.k8s.io/v1") {
    throw malformed(what, "not a coordination.k8s.io/v1 Lease", status);
  }
  const metadata = raw.metadata;
  if (typeof metadata !== "object" || metadata === null || metadata.name !== name) {
    throw malformed(what, "metadata.name is not the Lease asked for", status);
  }
  if (metadata.namespace !== undefined && metadata.namespace !== namespace) {
    throw malformed(what, "metadata.namespace is not the namespace asked for", status);
  }
  const resourceVersion = metadata.resourceVersion;
  if (typeof resourceVersion !== "string" || resourceVersion === "" || resourceVersion.length > 128) {
    throw malformed(what, "metadata.resourceVersion must be a non-empty string", status);
  }
  const annotations = metadata.annotations;
  if (
    annotations !== undefined &&
    annotations !== null &&
    (typeof annotations !== "object" || Array.isArray(annotations))
  ) {
    throw malformed(what, "metadata.annotations must be an object", status);
  }
  const spec = raw.spec ?? {};
  if (typeof spec !== "object" || Array.isArray(spec)) {
    throw malformed(what, "spec must be an object", status);
  }
  const holderIdentity = spec.holderIdentity ?? "";
  if (typeof holderIdentity !== "string") {
    throw malformed(what, "spec.holderIdentity must be a string", status);
  }
  const leaseTransitions = spec.leaseTransitions ?? 0;
  if (!isCount(leaseTransitions, 0)) {
    throw malformed(what, "spec.leaseTransitions must be an integer from 0 to 2^31 - 1", status);
  }
  const leaseDurationSeconds = spec.leaseDurationSeconds;
  // A held Lease whose duration is unreadable can never be judged expired: refuse it rather than
  // guess (client-go would read it as 0 and take it over at once).
  if (holderIdentity !== "" && !isCount(leaseDurationSeconds, 1)) {
    throw malformed(what, "spec.leaseDurationSeconds must be an integer from 1 to 2^31 - 1", status);
  }
  for (const field of ["acquireTime", "renewTime"]) {
    if (spec[field] !== undefined && spec[field] !== null && typeof spec[field] !== "string") {
      throw malformed(what, `spec.${field} must be a string`, status);
    }
  }
  return {
    raw,
    // Any write changes the resourceVersion; the holder and renewTime are included as well, so a
    // server that reused a version for a different record would still count as a change.
    version: JSON.stringify([resourceVersion, holderIdentity, spec.renewTime ?? null, leaseTransitions]),
    spec: { ...spec, holderIdentity, leaseTransitions, leaseDurationSeconds },
  };
}

function requestIdOf(lease) {
  const value = lease.raw.metadata.annotations?.[REQUEST_ID_ANNOTATION];
  return typeof value === "string" ? value : undefined;
}

/** A write's reply must show what was written: otherwise it is not a grant. */
function expectSpec(lease, holder, transitions) {
  if (lease.spec.holderIdentity !== holder || lease.spec.leaseTransitions !== transitions) {
    throw malformed(`Lease ${lease.raw.metadata.name}`, "the written Lease does not show this grant");
  }
}

/** Why `holder` cannot renew or release grant `token` given the Lease; undefined if it can. */
function refusalFor(lease, holder, token) {
  if (lease === null) return RENEW_REFUSAL.UNKNOWN; // no such Lease
  const grantToken = lease.spec.leaseTransitions + 1;
  if (grantToken < token) return RENEW_REFUSAL.UNKNOWN; // a token never handed out
  if (grantToken > token) return RENEW_REFUSAL.NOT_HOLDER; // granted again since
  if (lease.spec.holderIdentity === "") return RENEW_REFUSAL.EXPIRED; // released, or cleared by someone
  if (lease.spec.holderIdentity !== holder) return RENEW_REFUSAL.NOT_HOLDER;
  return undefined;
}

/** A non-2xx reply: the API server's errors are `Status` objects with a `reason`. */
function failure(what, reply) {
  let status;
  try {
    status = JSON.parse(reply.text);
  } catch {
    status = undefined;
  }
  const grantorCode = typeof status?.reason === "string" ? status.reason : undefined;
  const message = typeof status?.message === "string" ? status.message.slice(0, 300) : undefined;
  return statusFailure(what, reply, { grantorCode, message });
}
