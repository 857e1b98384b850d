// The WebAssembly core as bytes inside the JavaScript (scripts/build writes them as base64), so
// any bundler, with no asset handling configured, and any runtime that may compile WebAssembly
// from bytes gets it with the code: no file URL to resolve, copy or serve.
import { CORE_BASE64 } from "./glue/core-base64.js";

function decode(base64) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(base64);
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/**
 * Compiles the inline core synchronously: it is small enough for every engine's main thread
 * (Chromium refuses synchronous compiles only above 8 MB).
 */
export function inlineCoreModule() {
  return new WebAssembly.Module(decode(CORE_BASE64));
}
