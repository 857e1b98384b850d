// Entry for browsers, workers, bundlers and Deno: fetch and instantiate the WebAssembly module
// next to this file, then expose the API.
import init from "./glue/tenure.js";

await init({ module_or_path: new URL("./glue/tenure_bg.wasm", import.meta.url) });

export { Lease, LeaseHolder, leasedRead } from "./api.js";
export { adviseDuration } from "./advise.js";
export { HttpGrantor } from "./http-grantor.js";
export { EtcdGrantor } from "./etcd-grantor.js";
export { RedisHttpGrantor } from "./redis-http-grantor.js";
export { ConsulGrantor } from "./consul-grantor.js";
export { KubernetesLeaseGrantor } from "./kubernetes-lease-grantor.js";
export { WorkClaimer, Claim } from "./work-claimer.js";
export { LeaseError, LeaseExpiredError, isLeaseError } from "./errors.js";
export { TabLease, FencedStore } from "./tab-lease.js";
