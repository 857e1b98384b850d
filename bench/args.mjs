// Command-line numbers for the benchmarks that also run alone.

/**
 * The value of `--name N` on the command line, or `fallback`; a positive integer, or with
 * `{ fraction: true }` any positive number.
 */
export function argument(name, fallback, { fraction = false } = {}) {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  const valid = fraction ? Number.isFinite(value) : Number.isSafeInteger(value);
  if (!(valid && value > 0)) throw new Error(`--${name} needs a positive ${fraction ? "number" : "integer"}`);
  return value;
}
