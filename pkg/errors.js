// Errors thrown by tenure. Every one is an Error with a stable `code`; check with isLeaseError(),
// which works across realms and duplicated bundles where `instanceof` does not.

/** The base class of every error tenure throws. */
export class LeaseError extends Error {
  constructor(code, message, options = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "LeaseError";
    this.code = code;
    if (options.field !== undefined) this.field = options.field;
    if (options.reason !== undefined) this.reason = options.reason;
  }
}

/** Thrown by Lease#assertHeld() when the lease is not safely held. */
export class LeaseExpiredError extends LeaseError {
  constructor({ remainingMs, requiredMarginMs }) {
    super(
      "ERR_LEASE_EXPIRED",
      `lease is not safely held: ${remainingMs} ms remain, more than ${requiredMarginMs} ms required`,
    );
    this.name = "LeaseExpiredError";
    this.remainingMs = remainingMs;
    this.requiredMarginMs = requiredMarginMs;
  }
}

const NAMES = new Set(["LeaseError", "LeaseExpiredError"]);

/** True for any error tenure threw, from any copy of the package. */
export function isLeaseError(value) {
  return (
    typeof value === "object" &&
    value !== null &&
    NAMES.has(value.name) &&
    typeof value.code === "string" &&
    value.code.startsWith("ERR_")
  );
}

/**
 * Re-creates an error thrown by the WebAssembly layer as the exported LeaseError class, with the
 * fields it carries (`field`, `missing`, ...) and its `cause`.
 */
export function fromCore(error) {
  if (error instanceof LeaseError || !(error instanceof Error) || error.name !== "LeaseError") {
    return error;
  }
  const { name, code, cause, ...fields } = error;
  return Object.assign(new LeaseError(code, error.message, { cause }), fields);
}
