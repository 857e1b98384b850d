// The package's browser entry instantiates its WebAssembly with a top-level await, which needs
// an ES2022 target.
export default {
  build: { target: "es2022" },
};
