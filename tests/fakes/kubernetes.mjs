// A fake Kubernetes API server for `coordination.k8s.io/v1` Leases, on 127.0.0.1 with an
// ephemeral port, written from the API's documented behaviour and its source
// (k8s.io/api coordination/v1 types.go, apimachinery meta/v1 micro_time.go and status errors,
// apiserver registry/generic/registry/store.go, kubernetes pkg/apis/coordination/validation).
//
// Reproduced:
// - `GET|PUT|DELETE /apis/coordination.k8s.io/v1/namespaces/{ns}/leases/{name}`,
//   `POST|GET .../namespaces/{ns}/leases`. Objects come back with kind, apiVersion, metadata (name,
//   namespace, uid, resourceVersion, creationTimestamp, labels, annotations) and spec.
// - resourceVersion: one counter for all writes (as etcd's revision), sent as a decimal string the
//   client must treat as opaque; every write changes it. An update that changes nothing is not a
//   write: the object comes back with its resourceVersion unchanged.
// - POST: 201 with the object; 409 `AlreadyExists`; a resourceVersion in the body → 500 as the
//   storage layer answers. PUT: 200; 409 `Conflict` (the real message) when resourceVersion is
//   stale; 422 `Invalid` when it is missing ("must be specified for an update"); a PUT to a
//   missing object creates it (201, `AllowCreateOnUpdate`); 400 when the body's name or
//   namespace disagrees with the URL; uid and creationTimestamp kept from the stored object.
// - Spec decoding: types as the Go structs (a wrong type → 400 "cannot unmarshal ... of type
//   int32"); MicroTime must be RFC 3339 with exactly six fractional digits (else 400, as Go's
//   fixed layout parses) and comes back in UTC; unknown spec fields are dropped with a
//   `Warning: 299` header (field validation "Warn", the default).
// - Validation → 422 `Invalid` with causes: leaseDurationSeconds > 0, leaseTransitions >= 0,
//   names as DNS-1123 subdomains.
// - Errors are `Status` objects (kind, apiVersion "v1", status "Failure", message, reason,
//   details {name, group, kind}, code). Auth with `token` set: `Authorization: Bearer`; a wrong
//   token → 401 `Unauthorized`; none → 403 `Forbidden` for "system:anonymous" (anonymous auth on,
//   as by default). An unknown path → 404 "the server could not find the requested resource";
//   a wrong method → 405 `MethodNotAllowed`; a non-JSON body type → 415.
//
// - List with `fieldSelector=metadata.name=NAME` (the only selector), and watch:
//   `GET .../leases?watch=1&resourceVersion=RV&fieldSelector=...&timeoutSeconds=N` answers 200
//   with newline-delimited `{"type", "object"}` events (ADDED, MODIFIED, DELETED) after RV, then
//   each new one as it happens, until `timeoutSeconds` (default 30 min) runs out. An RV older
//   than the history kept (`compact()` forgets it) gets one `ERROR` event with a 410 `Expired`
//   Status ("too old resource version"), as the watch cache answers; `allowWatchBookmarks` is
//   accepted and no bookmark is sent. `dropWatches()` cuts every watch's connection.
//
// For tests of hostile servers, `intercept` answers chosen requests with any reply instead.
//
// Not reproduced: managedFields and server-side apply, PATCH, other list options, DELETE
// collection, RBAC beyond "this token may do everything", admission, finalizers, the
// coordinated-leader-election fields' validation (strategy, preferredHolder), and
// protobuf or YAML encodings.

import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import { interceptOr } from "./consul.mjs";

const GROUP = "coordination.k8s.io";
const PREFIX = "/apis/coordination.k8s.io/v1/namespaces/";
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MICRO_TIME = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})\.(\d{6})(Z|[+-]\d{2}:\d{2})$/;
const SPEC_FIELDS = {
  holderIdentity: "string",
  leaseDurationSeconds: "int32",
  acquireTime: "MicroTime",
  renewTime: "MicroTime",
  leaseTransitions: "int32",
  strategy: "string",
  preferredHolder: "string",
};

class ApiError extends Error {
  constructor(code, reason, message, details) {
    super(message);
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  get body() {
    const body = {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      reason: this.reason,
    };
    if (this.details !== undefined) body.details = this.details;
    body.code = this.code;
    return body;
  }
}

const leaseDetails = (name) => ({ name, group: GROUP, kind: "leases" });
const notFound = (name) =>
  new ApiError(404, "NotFound", `leases.${GROUP} "${name}" not found`, leaseDetails(name));
const conflict = (name) =>
  new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on leases.${GROUP} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    leaseDetails(name),
  );
const badRequest = (message) => new ApiError(400, "BadRequest", message);
const cannotDecode = (detail) => badRequest(`Lease in version "v1" cannot be handled as a Lease: ${detail}`);

function invalid(kind, name, causes) {
  const message = `${kind}.${GROUP} "${name}" is invalid: ${causes.map((c) => `${c.field}: ${c.message}`).join(", ")}`;
  return new ApiError(422, "Invalid", message, {
    name,
    group: GROUP,
    kind,
    causes: causes.map((c) => ({ reason: "FieldValueInvalid", message: c.message, field: c.field })),
  });
}

/** MicroTime as the API server stores and sends it: UTC, six fractional digits. */
function normalizeMicroTime(text) {
  const match = MICRO_TIME.exec(text);
  if (match === null) {
    throw cannotDecode(
      `parsing time "${text}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "${text}"`,
    );
  }
  const seconds = Date.parse(`${match[1]}${match[3]}`);
  if (!Number.isFinite(seconds)) throw cannotDecode(`parsing time "${text}": out of range`);
  return `${new Date(seconds).toISOString().slice(0, 19)}.${match[2]}Z`;
}

/** Decodes a body's spec as the Go structs do; unknown fields are dropped and reported. */
function decodeSpec(input, warnings) {
  if (input === undefined || input === null) return {};
  if (typeof input !== "object" || Array.isArray(input)) {
    throw cannotDecode("json: cannot unmarshal into Go struct field Lease.spec of type v1.LeaseSpec");
  }
  const spec = {};
  for (const [field, value] of Object.entries(input)) {
    const type = SPEC_FIELDS[field];
    if (type === undefined) {
      warnings.push(`unknown field "spec.${field}"`);
      continue;
    }
    if (value === null) continue;
    const wrong = () =>
      cannotDecode(
        `json: cannot unmarshal ${typeof value} into Go struct field LeaseSpec.spec.${field} of type ${type === "MicroTime" ? "string" : type}`,
      );
    if (type === "string") {
      if (typeof value !== "string") throw wrong();
      spec[field] = value;
    } else if (type === "int32") {
      if (!Number.isInteger(value) || value < -(2 ** 31) || value > 2 ** 31 - 1) throw wrong();
      spec[field] = value;
    } else {
      if (typeof value !== "string") throw wrong();
      spec[field] = normalizeMicroTime(value);
    }
  }
  return spec;
}

function validate(kind, name, spec, creating) {
  const causes = [];
  if (creating && (name.length > 253 || !DNS_SUBDOMAIN.test(name))) {
    causes.push({
      field: "metadata.name",
      message: `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
    });
  }
  if (spec.leaseDurationSeconds !== undefined && spec.leaseDurationSeconds <= 0) {
    causes.push({
      field: "spec.leaseDurationSeconds",
      message: `Invalid value: ${spec.leaseDurationSeconds}: must be greater than 0`,
    });
  }
  if (spec.leaseTransitions !== undefined && spec.leaseTransitions < 0) {
    causes.push({
      field: "spec.leaseTransitions",
      message: `Invalid value: ${spec.leaseTransitions}: must be greater than or equal to 0`,
    });
  }
  if (causes.length > 0) throw invalid(kind, name, causes);
}

function stringMap(value, field) {
  if (value === undefined || value === null) return undefined;
  if (
    typeof value !== "object" ||
    Array.isArray(value) ||
    Object.values(value).some((v) => typeof v !== "string")
  ) {
    throw cannotDecode(
      `json: cannot unmarshal into Go struct field ObjectMeta.metadata.${field} of type map[string]string`,
    );
  }
  return { ...value };
}

/** The name a list's `fieldSelector` asks for (`metadata.name=NAME`), or undefined for all. */
function selectedName(url) {
  const selector = url.searchParams.get("fieldSelector");
  if (selector === null) return undefined;
  const match = /^metadata\.name==?(.*)$/.exec(selector);
  if (match === null) throw badRequest(`unable to parse requirement: ${selector}`);
  return match[1];
}

/**
 * Starts the fake API server. Options: `token` (the bearer token every request must carry; none =
 * no authentication). Resolves `{url, close(), lease(namespace, name), intercept, requests}`.
 */
export async function startKubernetesFake({ token } = {}) {
  let revision = 1000;
  const leases = new Map(); // "ns/name" -> stored object
  const requests = [];
  // Every write as a watch event, oldest first, from `compactedAt` on.
  const history = [];
  let compactedAt = revision;
  const watches = new Set(); // {namespace, name, res}

  const emit = (type, namespace, object) => {
    const event = { type, namespace, rv: revision, object: structuredClone(object) };
    history.push(event);
    for (const watch of watches) sendEvent(watch, event);
  };
  const sendEvent = (watch, event) => {
    if (event.namespace !== watch.namespace) return;
    if (watch.name !== undefined && event.object.metadata.name !== watch.name) return;
    watch.res.write(`${JSON.stringify({ type: event.type, object: event.object })}\n`);
  };

  const authenticate = (req, verb, namespace, name) => {
    if (token === undefined) return;
    const header = req.headers.authorization;
    if (header === undefined) {
      const what = name === undefined ? `leases.${GROUP}` : `leases.${GROUP} "${name}"`;
      throw new ApiError(
        403,
        "Forbidden",
        `${what} is forbidden: User "system:anonymous" cannot ${verb} resource "leases" in API group "${GROUP}" in the namespace "${namespace}"`,
        name === undefined ? { group: GROUP, kind: "leases" } : leaseDetails(name),
      );
    }
    if (header !== `Bearer ${token}`) throw new ApiError(401, "Unauthorized", "Unauthorized");
  };

  /** The body of a write as a Lease: metadata and spec decoded, warnings collected. */
  const decodeLease = (req, text, warnings) => {
    const type = req.headers["content-type"] ?? "";
    if (!/^application\/json(;|$)/i.test(type)) {
      throw new ApiError(
        415,
        "UnsupportedMediaType",
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf`,
      );
    }
    let input;
    try {
      input = JSON.parse(text);
    } catch (error) {
      throw cannotDecode(error.message);
    }
    if (typeof input !== "object" || input === null || Array.isArray(input)) {
      throw cannotDecode("expected an object");
    }
    if (
      (input.kind !== undefined && input.kind !== "Lease") ||
      (input.apiVersion !== undefined && input.apiVersion !== `${GROUP}/v1`)
    ) {
      throw badRequest(
        `the API version in the data (${input.apiVersion}) does not match the expected API version (${GROUP}/v1)`,
      );
    }
    const metadata = input.metadata ?? {};
    if (typeof metadata !== "object" || Array.isArray(metadata)) {
      throw cannotDecode("metadata must be an object");
    }
    if (metadata.resourceVersion !== undefined && typeof metadata.resourceVersion !== "string") {
      throw cannotDecode(
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.resourceVersion of type string",
      );
    }
    return {
      metadata: {
        name: metadata.name,
        namespace: metadata.namespace,
        uid: metadata.uid,
        resourceVersion: metadata.resourceVersion,
        labels: stringMap(metadata.labels, "labels"),
        annotations: stringMap(metadata.annotations, "annotations"),
      },
      spec: decodeSpec(input.spec, warnings),
    };
  };

  const store = (namespace, name, decoded, previous) => {
    revision += 1;
    const metadata = {
      name,
      namespace,
      uid: previous?.metadata.uid ?? randomUUID(),
      resourceVersion: String(revision),
      creationTimestamp: previous?.metadata.creationTimestamp ?? `${new Date().toISOString().slice(0, 19)}Z`,
    };
    if (decoded.metadata.labels !== undefined) metadata.labels = decoded.metadata.labels;
    if (decoded.metadata.annotations !== undefined) metadata.annotations = decoded.metadata.annotations;
    const object = { kind: "Lease", apiVersion: `${GROUP}/v1`, metadata, spec: decoded.spec };
    leases.set(`${namespace}/${name}`, object);
    emit(previous === undefined ? "ADDED" : "MODIFIED", namespace, object);
    return object;
  };

  const same = (a, b) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

  const route = (req, text, warnings) => {
    const url = new URL(req.url, "http://fake");
    if (!url.pathname.startsWith(PREFIX)) {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
    }
    const parts = url.pathname.slice(PREFIX.length).split("/");
    const [namespace, collection, name] = parts;
    if (parts.length < 2 || parts.length > 3 || collection !== "leases" || namespace === "" || name === "") {
      throw new ApiError(404, "NotFound", "the server could not find the requested resource", {});
    }
    const key = `${namespace}/${name}`;
    const methods = name === undefined ? ["GET", "POST"] : ["GET", "PUT", "DELETE"];
    if (!methods.includes(req.method)) {
      throw new ApiError(
        405,
        "MethodNotAllowed",
        `the server does not allow this method on the requested resource`,
        {},
      );
    }
    const verb = {
      GET: name === undefined ? "list" : "get",
      POST: "create",
      PUT: "update",
      DELETE: "delete",
    }[req.method];
    authenticate(req, verb, namespace, name);

    const selected = selectedName(url);
    if (req.method === "GET" && name === undefined && ["1", "true"].includes(url.searchParams.get("watch"))) {
      return [200, { watch: { namespace, name: selected, from: url.searchParams.get("resourceVersion") } }];
    }
    if (req.method === "GET" && name === undefined) {
      const items = [...leases.entries()]
        .filter(([k]) => k.startsWith(`${namespace}/`))
        .map(([, v]) => v)
        .filter((v) => selected === undefined || v.metadata.name === selected);
      return [
        200,
        {
          kind: "LeaseList",
          apiVersion: `${GROUP}/v1`,
          metadata: { resourceVersion: String(revision) },
          items,
        },
      ];
    }
    if (req.method === "GET") {
      const lease = leases.get(key);
      if (lease === undefined) throw notFound(name);
      return [200, lease];
    }
    if (req.method === "POST") {
      const decoded = decodeLease(req, text, warnings);
      const newName = decoded.metadata.name ?? "";
      if (decoded.metadata.namespace !== undefined && decoded.metadata.namespace !== namespace) {
        throw badRequest(
          "the namespace of the provided object does not match the namespace sent on the request",
        );
      }
      validate("Lease", newName, decoded.spec, true);
      if (decoded.metadata.resourceVersion) {
        throw new ApiError(
          500,
          "InternalError",
          "Internal error occurred: resourceVersion should not be set on objects to be created",
        );
      }
      if (leases.has(`${namespace}/${newName}`)) {
        throw new ApiError(
          409,
          "AlreadyExists",
          `leases.${GROUP} "${newName}" already exists`,
          leaseDetails(newName),
        );
      }
      return [201, store(namespace, newName, decoded, undefined)];
    }
    if (req.method === "PUT") {
      const decoded = decodeLease(req, text, warnings);
      if (decoded.metadata.name !== name) {
        throw badRequest(
          `the name of the object (${decoded.metadata.name}) does not match the name on the URL (${name})`,
        );
      }
      if (decoded.metadata.namespace !== undefined && decoded.metadata.namespace !== namespace) {
        throw badRequest(
          "the namespace of the provided object does not match the namespace sent on the request",
        );
      }
      const existing = leases.get(key);
      if (existing === undefined) {
        validate("Lease", name, decoded.spec, true);
        return [201, store(namespace, name, decoded, undefined)];
      }
      if (!decoded.metadata.resourceVersion) {
        throw invalid("leases", name, [
          {
            field: "metadata.resourceVersion",
            message: "Invalid value: 0x0: must be specified for an update",
          },
        ]);
      }
      if (decoded.metadata.resourceVersion !== existing.metadata.resourceVersion) throw conflict(name);
      if (decoded.metadata.uid !== undefined && decoded.metadata.uid !== existing.metadata.uid) {
        throw invalid("Lease", name, [
          { field: "metadata.uid", message: `Invalid value: "${decoded.metadata.uid}": field is immutable` },
        ]);
      }
      validate("Lease", name, decoded.spec, false);
      const unchanged =
        same(decoded.spec, existing.spec) &&
        same(decoded.metadata.labels, existing.metadata.labels) &&
        same(decoded.metadata.annotations, existing.metadata.annotations);
      if (unchanged) return [200, existing];
      return [200, store(namespace, name, decoded, existing)];
    }
    // DELETE, with optional preconditions.
    const existing = leases.get(key);
    if (existing === undefined) throw notFound(name);
    let options = {};
    if (text !== "") {
      try {
        options = JSON.parse(text);
      } catch (error) {
        throw badRequest(error.message);
      }
    }
    const wanted = options?.preconditions?.resourceVersion;
    if (wanted !== undefined && wanted !== existing.metadata.resourceVersion) {
      throw new ApiError(
        409,
        "Conflict",
        `Operation cannot be fulfilled on leases.${GROUP} "${name}": the ResourceVersion in the precondition (${wanted}) does not match the ResourceVersion in record (${existing.metadata.resourceVersion}). The object might have been modified`,
        leaseDetails(name),
      );
    }
    revision += 1;
    leases.delete(key);
    emit("DELETED", namespace, { ...existing, metadata: { ...existing.metadata, resourceVersion: String(revision) } });
    return [
      200,
      {
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Success",
        details: { ...leaseDetails(name), uid: existing.metadata.uid },
      },
    ];
  };

  /** Starts a watch: past events after `from`, then new ones, until `timeoutSeconds`. */
  const startWatch = (req, res, { namespace, name, from }) => {
    res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
    const watch = { namespace, name, res };
    const since = from === null || from === "" || from === "0" ? revision : Number(from);
    if (!(since >= compactedAt)) {
      const status = new ApiError(410, "Expired", `too old resource version: ${from} (${compactedAt})`).body;
      res.end(`${JSON.stringify({ type: "ERROR", object: status })}\n`);
      return;
    }
    for (const event of history) if (event.rv > since) sendEvent(watch, event);
    const seconds = Number(new URL(req.url, "http://fake").searchParams.get("timeoutSeconds") ?? 1800);
    const timer = setTimeout(() => res.end(), seconds * 1000);
    watches.add(watch);
    res.on("close", () => {
      clearTimeout(timer);
      watches.delete(watch);
    });
  };

  const answer = (req, res, text) => {
    const warnings = [];
    let status;
    let body;
    try {
      [status, body] = route(req, text, warnings);
      if (body?.watch !== undefined) return startWatch(req, res, body.watch);
    } catch (error) {
      // Anything but an ApiError is a bug in the fake: answer it as an internal error.
      const apiError = error instanceof ApiError ? error : new ApiError(500, "InternalError", error.message);
      status = apiError.code;
      body = apiError.body;
    }
    const headers = { "content-type": "application/json" };
    if (warnings.length > 0) headers.warning = warnings.map((w) => `299 - ${JSON.stringify(w)}`).join(", ");
    res.writeHead(status, headers);
    res.end(JSON.stringify(body));
  };

  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const record = { method: req.method, path: req.url, headers: { ...req.headers }, body: text };
      requests.push(record);
      if (handle.intercept !== undefined) {
        interceptOr(handle.intercept, record, res, () => answer(req, res, text));
      } else {
        answer(req, res, text);
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();

  const handle = {
    url: `http://127.0.0.1:${port}`,
    requests,
    /**
     * Assign `(request) => reply | undefined` (or a promise of one) to answer a request yourself,
     * e.g. with a hostile reply: `{status, headers?, body}`. Undefined lets the fake answer.
     */
    intercept: undefined,
    /** The stored Lease object (a copy), or undefined. */
    lease: (namespace, name) => {
      const lease = leases.get(`${namespace}/${name}`);
      return lease === undefined ? undefined : structuredClone(lease);
    },
    /** Forgets the watch history: a watch from an older resourceVersion gets 410. */
    compact: () => {
      history.length = 0;
      compactedAt = revision;
    },
    /** Cuts the connection of every watch. */
    dropWatches: () => {
      for (const watch of [...watches]) watch.res.destroy();
    },
    /** How many watches are open. */
    watchCount: () => watches.size,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
  return handle;
}
