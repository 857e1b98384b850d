// The grantor protocol's rules, rendered from the Rust protocol module and core (src/protocol.rs,
// FailureKind::for_status) by tests/protocol_rules_js.rs, which fails when they disagree.
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
/** The longest duration a holder may ask for: 2^31 - 1 ms. */
export const MAX_DURATION_MS = 2147483647;
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
