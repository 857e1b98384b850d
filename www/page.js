// What both demo pages need from their own page: elements by id, and timings from the query string.

/** The element with `id`. */
export const $ = (id) => document.getElementById(id);

/** A positive number from the query string, or the default; anything else stops the page. */
export function numberParam(params, name, fallback) {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const value = Number(raw);
  if (!(Number.isFinite(value) && value > 0)) {
    throw new RangeError(`?${name}= must be a positive number of milliseconds, got "${raw}"`);
  }
  return value;
}
