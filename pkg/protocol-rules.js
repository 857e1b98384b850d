// The grantor protocol's rules, rendered from the Rust protocol module and core (src/protocol.rs,
// FailureKind::for_status, REMEMBERED_LEASES) by tests/protocol_rules_js.rs, which fails when
// they disagree.
// Do not edit: run `TENURE_WRITE_RULES=1 cargo test -p tenure --test protocol_rules_js`.

/** The first token a grantor issues. */
export const FIRST_TOKEN = 1;
/** The largest token: 2^53 - 1. */
export const MAX_TOKEN = 9007199254740991;
/** The longest resource name. */
export const MAX_RESOURCE_LENGTH = 256;
/** The longest holder identity. */
export const MAX_HOLDER_LENGTH = 256;
/** The longest request id. */
export const MAX_REQUEST_ID_LENGTH = 128;
/** The shortest duration a holder may ask for. */
export const MIN_DURATION_MS = 1;
/** The longest duration a holder may ask for: 2^31 - 1 ms. */
export const MAX_DURATION_MS = 2147483647;
/** How many leases a client remembers something about (a secret, what batching learned). */
export const REMEMBERED_LEASES = 65536;
/** The most bytes a client reads of a reply other than a batch's. */
export const MAX_REPLY_BYTES = 65536;
/** The most bytes a queue item's payload takes as the grantor stores it. */
export const MAX_PAYLOAD_BYTES = 38912;
/** The most bytes a completion's result takes as the grantor stores it. */
export const MAX_RESULT_BYTES = 8192;
/** The most bytes a failure's error takes as the grantor stores it. */
export const MAX_ERROR_BYTES = 16384;
/** The most bytes a fenced write's payload takes as the grantor stores it. */
export const MAX_FENCED_PAYLOAD_BYTES = 64512;
/** The most bytes a client reads of the reply to a batch of `renewals` renewals. */
export function maxBatchReplyBytes(renewals) {
  return 1024 + renewals * 1024;
}
/** The characters of names, holders and request ids: printable ASCII. */
export const NAME_PATTERN = /^[\x20-\x7e]+$/;
/** The failure kind of each HTTP status, as runs `[first, last, kind]` covering 0 to 999. */
export const STATUS_KINDS = [
  [0, 407, "bad_request"],
  [408, 408, "timed_out"],
  [409, 428, "bad_request"],
  [429, 429, "rate_limited"],
  [430, 499, "bad_request"],
  [500, 999, "server_error"],
];
/** The protocol error codes whose failure kind is not `bad_request` (every other code's is). */
export const CODE_KINDS = {
  request_timeout: "timed_out",
  rate_limited: "rate_limited",
  internal: "server_error",
  not_implemented: "server_error",
  storage_unavailable: "server_error",
};
/** The protocol's error codes, by their names in upper case. */
export const ERROR_CODE = Object.freeze({
  BAD_JSON: "bad_json",
  WRONG_TYPE: "wrong_type",
  UNKNOWN_FIELD: "unknown_field",
  MISSING_FIELD: "missing_field",
  BAD_QUERY: "bad_query",
  BAD_RESOURCE: "bad_resource",
  BAD_HOLDER: "bad_holder",
  BAD_REQUEST_ID: "bad_request_id",
  BAD_DURATION: "bad_duration",
  BAD_TOKEN: "bad_token",
  BAD_QUEUE: "bad_queue",
  BAD_WORKER: "bad_worker",
  BAD_DEDUPE_KEY: "bad_dedupe_key",
  BAD_ITEM_ID: "bad_item_id",
  BAD_MAX_ATTEMPTS: "bad_max_attempts",
  BAD_ITEMS: "bad_items",
  BAD_BATCH: "bad_batch",
  UNAUTHORIZED: "unauthorized",
  FORBIDDEN: "forbidden",
  FORBIDDEN_NAMESPACE: "forbidden_namespace",
  ADMIN_ONLY: "admin_only",
  BAD_LEASE_SECRET: "bad_lease_secret",
  BAD_CLAIM_SECRET: "bad_claim_secret",
  ORIGIN_NOT_ALLOWED: "origin_not_allowed",
  NOT_FOUND: "not_found",
  NO_SUCH_ITEM: "no_such_item",
  METHOD_NOT_ALLOWED: "method_not_allowed",
  REQUEST_TIMEOUT: "request_timeout",
  REQUEST_ID_REUSED: "request_id_reused",
  STALE_CLAIM: "stale_claim",
  TOKEN_EXHAUSTED: "token_exhausted",
  BODY_TOO_LARGE: "body_too_large",
  VALUE_TOO_LARGE: "value_too_large",
  UNSUPPORTED_MEDIA_TYPE: "unsupported_media_type",
  RATE_LIMITED: "rate_limited",
  INTERNAL: "internal",
  NOT_IMPLEMENTED: "not_implemented",
  STORAGE_UNAVAILABLE: "storage_unavailable",
});
/** The refusal of a request field the grantor does not know (it did nothing else). */
export const UNKNOWN_FIELD_REFUSAL = Object.freeze({ status: 400, code: "unknown_field" });
/** Why a grantor refuses a renewal, by the reasons' names in upper case. */
export const RENEW_REFUSAL = Object.freeze({
  EXPIRED: "expired",
  REVOKED: "revoked",
  NOT_HOLDER: "not_holder",
  UNKNOWN: "unknown",
});
