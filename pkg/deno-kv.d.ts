// "tenure/deno-kv" for TypeScript resolving without package exports (moduleResolution node10),
// which looks for this file beside deno-kv.js; the declarations are in edge.d.ts.
export * from "./edge.js";
