// Entry for workerd (Cloudflare Workers): a Worker may neither fetch its own files nor compile
// WebAssembly from bytes at run time, so the module arrives as an import, compiled at deploy time.
import module from "./glue/tenure_bg.wasm";
import { provideCore } from "./core.js";

provideCore(() => module);

export { Lease, LeaseHolder, leasedRead } from "./api.js";
export { adviseDuration } from "./advise.js";
export { HttpGrantor } from "./http-grantor.js";
export { DurableObjectGrantor } from "./durable-object-grantor.js";
export { observe, Observation } from "./observe.js";
export { EtcdGrantor } from "./etcd-grantor.js";
export { RedisHttpGrantor } from "./redis-http-grantor.js";
export { ConsulGrantor } from "./consul-grantor.js";
export { KubernetesLeaseGrantor } from "./kubernetes-lease-grantor.js";
export { WorkClaimer, Claim } from "./work-claimer.js";
export { LeaseError, LeaseExpiredError, isLeaseError } from "./errors.js";
// TabLease and FencedStore need IndexedDB: in workerd they throw ERR_TAB_UNSUPPORTED when constructed.
export { TabLease, FencedStore } from "./tab-lease.js";
