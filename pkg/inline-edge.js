// The grantor's WebAssembly module as bytes inside the JavaScript (scripts/build writes them as
// base64), for runtimes that may compile WebAssembly from bytes: Deno, Deno Deploy, Node.
import { EDGE_BASE64 } from "./glue-edge/core-base64.js";

/** Compiles the inline module. */
export function inlineEdgeModule() {
  return new WebAssembly.Module(Uint8Array.from(atob(EDGE_BASE64), (c) => c.charCodeAt(0)));
}
