// The package's entry instantiates its WebAssembly with a top-level await, which needs an ES2022
// target, and, in the worker, the ES module format (Vite's default worker format is IIFE).
export default {
  build: { target: "es2022" },
  worker: { format: "es" },
};
