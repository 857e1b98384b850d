// The grantor protocol's rules as the adapters apply them: the limits on names, tokens, durations
// and replies, and what an HTTP status or a protocol error code stands for. The values come from
// protocol-rules.js, rendered from the Rust protocol module (a test fails when they disagree), so
// nothing here states a rule of its own, and the adapters need not load the WebAssembly core.

import {
  CODE_KINDS,
  ERROR_CODE,
  FIRST_TOKEN,
  MAX_DURATION_MS,
  MAX_ERROR_BYTES,
  MAX_HOLDER_LENGTH,
  MAX_REPLY_BYTES,
  MAX_REQUEST_ID_LENGTH,
  MAX_RESOURCE_LENGTH,
  MAX_TOKEN,
  MIN_DURATION_MS,
  NAME_PATTERN,
  REMEMBERED_LEASES,
  RENEW_REFUSAL,
  STATUS_KINDS,
  UNKNOWN_FIELD_REFUSAL,
  maxBatchReplyBytes,
} from "./protocol-rules.js";

export { ERROR_CODE, MAX_ERROR_BYTES, MAX_REPLY_BYTES, REMEMBERED_LEASES, RENEW_REFUSAL, maxBatchReplyBytes };

const LIMITS = Object.freeze({
  maxToken: MAX_TOKEN,
  maxResourceLength: MAX_RESOURCE_LENGTH,
  maxHolderLength: MAX_HOLDER_LENGTH,
  maxRequestIdLength: MAX_REQUEST_ID_LENGTH,
  maxDurationMs: MAX_DURATION_MS,
});

/** `{maxToken, maxResourceLength, maxHolderLength, maxRequestIdLength, maxDurationMs}`. */
export function limit() {
  return LIMITS;
}

/** Whether `token` is one a grantor can have issued: an integer from 1 to 2^53 - 1. */
export function issuedToken(token) {
  return Number.isSafeInteger(token) && token >= FIRST_TOKEN && token <= MAX_TOKEN;
}

/** Whether `name` is 1 to `maxLength` printable ASCII characters. */
export function validName(name, maxLength) {
  return typeof name === "string" && name.length <= maxLength && NAME_PATTERN.test(name);
}

/** Whether `durationMs` is a duration a holder may ask for: an integer from 1 to 2^31 - 1. */
export function requestDuration(durationMs) {
  return Number.isSafeInteger(durationMs) && durationMs >= MIN_DURATION_MS && durationMs <= MAX_DURATION_MS;
}

/** The failure kind of a non-2xx reply: `rate_limited`, `timed_out`, `server_error` or `bad_request`. */
export function statusKind(status) {
  const run = STATUS_KINDS.find(([first, last]) => status >= first && status <= last);
  return run?.[2] ?? "bad_request";
}

/** The failure kind a reply carrying the protocol error `code` stands for. */
export function codeKind(code) {
  return (typeof code === "string" && Object.hasOwn(CODE_KINDS, code) && CODE_KINDS[code]) || "bad_request";
}

/**
 * Whether the grantor failure `error` is the refusal of a request field the grantor does not
 * know: it did nothing, and the request may go again without the field.
 */
export function refusesUnknownField(error) {
  return error?.status === UNKNOWN_FIELD_REFUSAL.status && error?.grantorCode === UNKNOWN_FIELD_REFUSAL.code;
}
