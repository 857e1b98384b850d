var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __typeError = (msg) => {
  throw TypeError(msg);
};
var __defNormalProp = (obj, key, value) => key in obj ? __defProp(obj, key, { enumerable: true, configurable: true, writable: true, value }) : obj[key] = value;
var __export = (target, all) => {
  for (var name in all)
    __defProp(target, name, { get: all[name], enumerable: true });
};
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toCommonJS = (mod) => __copyProps(__defProp({}, "__esModule", { value: true }), mod);
var __publicField = (obj, key, value) => __defNormalProp(obj, typeof key !== "symbol" ? key + "" : key, value);
var __accessCheck = (obj, member, msg) => member.has(obj) || __typeError("Cannot " + msg);
var __privateGet = (obj, member, getter) => (__accessCheck(obj, member, "read from private field"), getter ? getter.call(obj) : member.get(obj));
var __privateAdd = (obj, member, value) => member.has(obj) ? __typeError("Cannot add the same private member more than once") : member instanceof WeakSet ? member.add(obj) : member.set(obj, value);
var __privateSet = (obj, member, value, setter) => (__accessCheck(obj, member, "write to private field"), setter ? setter.call(obj, value) : member.set(obj, value), value);
var __privateMethod = (obj, member, method) => (__accessCheck(obj, member, "access private method"), method);

// pkg/tabs.js
var tabs_exports = {};
__export(tabs_exports, {
  FencedStore: () => FencedStore,
  LeaseError: () => LeaseError,
  LeaseExpiredError: () => LeaseExpiredError,
  TabLease: () => TabLease,
  isLeaseError: () => isLeaseError
});
module.exports = __toCommonJS(tabs_exports);

// pkg/errors.js
var LeaseError = class extends Error {
  constructor(code, message, options = {}) {
    super(message, options.cause === void 0 ? void 0 : { cause: options.cause });
    this.name = "LeaseError";
    this.code = code;
    if (options.field !== void 0) this.field = options.field;
    if (options.reason !== void 0) this.reason = options.reason;
  }
};
var LeaseExpiredError = class extends LeaseError {
  constructor({ remainingMs, requiredMarginMs }) {
    super(
      "ERR_LEASE_EXPIRED",
      `lease is not safely held: ${remainingMs} ms remain, more than ${requiredMarginMs} ms required`
    );
    this.name = "LeaseExpiredError";
    this.remainingMs = remainingMs;
    this.requiredMarginMs = requiredMarginMs;
  }
};
var NAMES = /* @__PURE__ */ new Set(["LeaseError", "LeaseExpiredError"]);
function isLeaseError(value) {
  return typeof value === "object" && value !== null && NAMES.has(value.name) && typeof value.code === "string" && value.code.startsWith("ERR_");
}
function fromCore(error) {
  if (error instanceof LeaseError || !(error instanceof Error) || error.name !== "LeaseError") {
    return error;
  }
  const { name, code, cause, ...fields } = error;
  return Object.assign(new LeaseError(code, error.message, { cause }), fields);
}

// pkg/glue-tabs/tenure.js
var FencedStoreCore = class {
  __destroy_into_raw() {
    const ptr = this.__wbg_ptr;
    this.__wbg_ptr = 0;
    FencedStoreCoreFinalization.unregister(this);
    return ptr;
  }
  free() {
    const ptr = this.__destroy_into_raw();
    wasm.__wbg_fencedstorecore_free(ptr, 0);
  }
  /**
   * The TabLease name whose epochs fence this store.
   */
  get name() {
    let deferred1_0;
    let deferred1_1;
    try {
      const ret = wasm.fencedstorecore_name(this.__wbg_ptr);
      deferred1_0 = ret[0];
      deferred1_1 = ret[1];
      return getStringFromWasm0(ret[0], ret[1]);
    } finally {
      wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
    }
  }
  /**
   * The store of the TabLease name `name` (`ERR_LEASE_CONFIG` for a bad name,
   * `ERR_TAB_UNSUPPORTED` without IndexedDB).
   */
  constructor(name) {
    const ret = wasm.fencedstorecore_new(name);
    if (ret[2]) {
      throw takeFromExternrefTable0(ret[1]);
    }
    this.__wbg_ptr = ret[0];
    FencedStoreCoreFinalization.register(this, this.__wbg_ptr, this);
    return this;
  }
  /**
   * Resolves `{value, epoch}` (the epoch that wrote it), or `null` when `key` was never
   * written.
   */
  read(key) {
    const ret = wasm.fencedstorecore_read(this.__wbg_ptr, key);
    return ret;
  }
  /**
   * Writes `value` under `key` if `epoch` is the newest epoch of the name; resolves
   * `{accepted, epoch}`, `epoch` being the newest one.
   */
  write(key, value, epoch) {
    const ret = wasm.fencedstorecore_write(this.__wbg_ptr, key, value, epoch);
    return ret;
  }
};
if (Symbol.dispose) FencedStoreCore.prototype[Symbol.dispose] = FencedStoreCore.prototype.free;
var TabLeaseCore = class {
  __destroy_into_raw() {
    const ptr = this.__wbg_ptr;
    this.__wbg_ptr = 0;
    TabLeaseCoreFinalization.unregister(this);
    return ptr;
  }
  free() {
    const ptr = this.__destroy_into_raw();
    wasm.__wbg_tableasecore_free(ptr, 0);
  }
  /**
   * Withdraws the candidacy of an `acquire()` nobody waits for any more (not active).
   */
  abandon() {
    wasm.tableasecore_abandon(this.__wbg_ptr);
  }
  /**
   * Releases, stops the engine and removes every listener; resolves once done, or
   * `undefined` when already closed.
   */
  close() {
    const ret = wasm.tableasecore_close(this.__wbg_ptr);
    return ret;
  }
  /**
   * Whether `close()` was called.
   */
  get closed() {
    const ret = wasm.tableasecore_closed(this.__wbg_ptr);
    return ret !== 0;
  }
  /**
   * The epoch of the current or most recent hold, or `undefined`.
   */
  get epoch() {
    const ret = wasm.tableasecore_epoch(this.__wbg_ptr);
    return ret[0] === 0 ? void 0 : ret[1];
  }
  /**
   * Global mode: the grantor token of the current or most recent grant, or `undefined`.
   */
  get grantorToken() {
    const ret = wasm.tableasecore_grantorToken(this.__wbg_ptr);
    return ret[0] === 0 ? void 0 : ret[1];
  }
  /**
   * `"worker"` or `"inline"`.
   */
  get heartbeat() {
    let deferred1_0;
    let deferred1_1;
    try {
      const ret = wasm.tableasecore_heartbeat(this.__wbg_ptr);
      deferred1_0 = ret[0];
      deferred1_1 = ret[1];
      return getStringFromWasm0(ret[0], ret[1]);
    } finally {
      wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
    }
  }
  /**
   * Whether this tab is the active one now, judged on this context's clocks.
   */
  get isActive() {
    const ret = wasm.tableasecore_isActive(this.__wbg_ptr);
    return ret !== 0;
  }
  /**
   * Becomes a candidate.
   */
  join() {
    wasm.tableasecore_join(this.__wbg_ptr);
  }
  /**
   * The heartbeat lease, in ms.
   */
  get leaseMs() {
    const ret = wasm.tableasecore_leaseMs(this.__wbg_ptr);
    return ret;
  }
  /**
   * The margin, in ms.
   */
  get marginMs() {
    const ret = wasm.tableasecore_marginMs(this.__wbg_ptr);
    return ret;
  }
  /**
   * `"web-locks"`, or `"lease"` where Web Locks are missing or disabled.
   */
  get mode() {
    let deferred1_0;
    let deferred1_1;
    try {
      const ret = wasm.tableasecore_mode(this.__wbg_ptr);
      deferred1_0 = ret[0];
      deferred1_1 = ret[1];
      return getStringFromWasm0(ret[0], ret[1]);
    } finally {
      wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
    }
  }
  /**
   * The role's name.
   */
  get name() {
    let deferred1_0;
    let deferred1_1;
    try {
      const ret = wasm.tableasecore_name(this.__wbg_ptr);
      deferred1_0 = ret[0];
      deferred1_1 = ret[1];
      return getStringFromWasm0(ret[0], ret[1]);
    } finally {
      wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
    }
  }
  /**
   * Checks `options` (errors name the option; `ERR_TAB_UNSUPPORTED` where IndexedDB is
   * missing) and starts following the page's lifecycle. `workerSource` is the heartbeat
   * worker's script, `coreModule` the compiled core it is given; `notify(kind, a, b)` hears
   * `("active", epoch, grantorToken)`, `("inactive", reason, voluntary)` and
   * `("failed", error)`.
   */
  constructor(name, options, worker_source, core_module, notify) {
    const ret = wasm.tableasecore_new(name, options, worker_source, core_module, notify);
    if (ret[2]) {
      throw takeFromExternrefTable0(ret[1]);
    }
    this.__wbg_ptr = ret[0];
    TabLeaseCoreFinalization.register(this, this.__wbg_ptr, this);
    return this;
  }
  /**
   * Steps down and withdraws; resolves once the role is free for the next tab.
   */
  release() {
    const ret = wasm.tableasecore_release(this.__wbg_ptr);
    return ret;
  }
  /**
   * The heartbeat's interval, in ms.
   */
  get renewIntervalMs() {
    const ret = wasm.tableasecore_renewIntervalMs(this.__wbg_ptr);
    return ret;
  }
  /**
   * `"idle"`, `"waiting"`, `"active"` or `"closed"`, judged on this context's clocks now.
   */
  get state() {
    let deferred1_0;
    let deferred1_1;
    try {
      const ret = wasm.tableasecore_state(this.__wbg_ptr);
      deferred1_0 = ret[0];
      deferred1_1 = ret[1];
      return getStringFromWasm0(ret[0], ret[1]);
    } finally {
      wasm.__wbindgen_free(deferred1_0, deferred1_1, 1);
    }
  }
};
if (Symbol.dispose) TabLeaseCore.prototype[Symbol.dispose] = TabLeaseCore.prototype.free;
function __wbg_get_imports() {
  const import0 = {
    __proto__: null,
    __wbg_String_4f8b1910c73d8edd: function(arg0) {
      const ret = String(arg0);
      return ret;
    },
    __wbg___wbindgen_boolean_get_4f1baf9a00be3c74: function(arg0) {
      const v = arg0;
      const ret = typeof v === "boolean" ? v : void 0;
      return isLikeNone(ret) ? 16777215 : ret ? 1 : 0;
    },
    __wbg___wbindgen_is_function_741ff2bb612836f5: function(arg0) {
      const ret = typeof arg0 === "function";
      return ret;
    },
    __wbg___wbindgen_is_null_c22311b1cc228e3a: function(arg0) {
      const ret = arg0 === null;
      return ret;
    },
    __wbg___wbindgen_is_object_8b968c3ab8e96595: function(arg0) {
      const val = arg0;
      const ret = typeof val === "object" && val !== null;
      return ret;
    },
    __wbg___wbindgen_is_undefined_be5b34249ff1fc15: function(arg0) {
      const ret = arg0 === void 0;
      return ret;
    },
    __wbg___wbindgen_number_get_934b640d0889af78: function(arg0, arg1) {
      const obj = arg1;
      const ret = typeof obj === "number" ? obj : void 0;
      getDataViewMemory0().setFloat64((arg0 >>> 0) + 8 * 1, isLikeNone(ret) ? 0 : ret, true);
      getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, !isLikeNone(ret), true);
    },
    __wbg___wbindgen_string_get_7ce8eee7fd327545: function(arg0, arg1) {
      const obj = arg1;
      const ret = typeof obj === "string" ? obj : void 0;
      var ptr1 = isLikeNone(ret) ? 0 : passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
      var len1 = WASM_VECTOR_LEN;
      getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
      getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
    },
    __wbg___wbindgen_throw_4c88d8bf264fd984: function(arg0, arg1) {
      throw new Error(getStringFromWasm0(arg0, arg1));
    },
    __wbg__wbg_cb_unref_09736879a3f67559: function(arg0) {
      arg0._wbg_cb_unref();
    },
    __wbg_abort_75a93bc755ef5425: function() {
      return handleError(function(arg0) {
        arg0.abort();
      }, arguments);
    },
    __wbg_abort_f8d1589eb0c65ee2: function(arg0) {
      arg0.abort();
    },
    __wbg_addEventListener_847fd86b8c33ec43: function() {
      return handleError(function(arg0, arg1, arg2, arg3) {
        arg0.addEventListener(getStringFromWasm0(arg1, arg2), arg3);
      }, arguments);
    },
    __wbg_add_c133d31369f0ece2: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = arg0.add(arg1, arg2);
        return ret;
      }, arguments);
    },
    __wbg_allSettled_d9d5b2fd4eaa59fd: function(arg0) {
      const ret = Promise.allSettled(arg0);
      return ret;
    },
    __wbg_assign_6b6bb30388088072: function(arg0, arg1) {
      const ret = Object.assign(arg0, arg1);
      return ret;
    },
    __wbg_bound_2eafc1bd1cffbb0e: function() {
      return handleError(function(arg0, arg1) {
        const ret = IDBKeyRange.bound(arg0, arg1);
        return ret;
      }, arguments);
    },
    __wbg_call_275b78b3b6520b92: function() {
      return handleError(function(arg0, arg1, arg2, arg3, arg4) {
        const ret = arg0.call(arg1, arg2, arg3, arg4);
        return ret;
      }, arguments);
    },
    __wbg_call_40b008ba32f73991: function() {
      return handleError(function(arg0, arg1) {
        const ret = arg0.call(arg1);
        return ret;
      }, arguments);
    },
    __wbg_call_a410eb4b59ed5965: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = arg0.call(arg1, arg2);
        return ret;
      }, arguments);
    },
    __wbg_clearTimeout_3629d6209dfcc46e: function(arg0) {
      const ret = clearTimeout(arg0);
      return ret;
    },
    __wbg_close_70d38255291ae4c8: function(arg0) {
      arg0.close();
    },
    __wbg_close_83412466bf4e34fb: function(arg0) {
      arg0.close();
    },
    __wbg_cmp_003f82fce8b8f349: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = arg0.cmp(arg1, arg2);
        return ret;
      }, arguments);
    },
    __wbg_commit_4b61872764bf439b: function() {
      return handleError(function(arg0) {
        arg0.commit();
      }, arguments);
    },
    __wbg_contains_c7099563ab57a776: function(arg0, arg1, arg2) {
      const ret = arg0.contains(getStringFromWasm0(arg1, arg2));
      return ret;
    },
    __wbg_createObjectStore_f7cf854ebb8a2b7f: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = arg0.createObjectStore(getStringFromWasm0(arg1, arg2));
        return ret;
      }, arguments);
    },
    __wbg_createObjectURL_45693a1454d24dac: function() {
      return handleError(function(arg0, arg1) {
        const ret = URL.createObjectURL(arg1);
        const ptr1 = passStringToWasm0(ret, wasm.__wbindgen_malloc, wasm.__wbindgen_realloc);
        const len1 = WASM_VECTOR_LEN;
        getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 1, len1, true);
        getDataViewMemory0().setInt32((arg0 >>> 0) + 4 * 0, ptr1, true);
      }, arguments);
    },
    __wbg_data_c7e5e8500f1bca2f: function(arg0) {
      const ret = arg0.data;
      return ret;
    },
    __wbg_delete_a1677b105dc0626e: function() {
      return handleError(function(arg0, arg1) {
        const ret = arg0.delete(arg1);
        return ret;
      }, arguments);
    },
    __wbg_error_029b9735617abe23: function() {
      return handleError(function(arg0) {
        const ret = arg0.error;
        return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
      }, arguments);
    },
    __wbg_error_37b241daaafbc352: function(arg0) {
      const ret = arg0.error;
      return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
    },
    __wbg_getRandomValues_4289a1e234b226bb: function(arg0) {
      crypto.getRandomValues(arg0);
    },
    __wbg_get_2080c49015e35254: function() {
      return handleError(function(arg0, arg1) {
        const ret = Reflect.get(arg0, arg1);
        return ret;
      }, arguments);
    },
    __wbg_get_3e7d0feae205d645: function() {
      return handleError(function(arg0, arg1) {
        const ret = arg0.get(arg1);
        return ret;
      }, arguments);
    },
    __wbg_get_bb8b6b35041e00c9: function() {
      return handleError(function(arg0, arg1) {
        const ret = Reflect.get(arg0, arg1 >>> 0);
        return ret;
      }, arguments);
    },
    __wbg_instanceof_IdbRequest_b569d50ff3c32e39: function(arg0) {
      let result;
      try {
        result = arg0 instanceof IDBRequest;
      } catch (_) {
        result = false;
      }
      const ret = result;
      return ret;
    },
    __wbg_key_6e6cd11010a229d7: function() {
      return handleError(function(arg0) {
        const ret = arg0.key;
        return ret;
      }, arguments);
    },
    __wbg_length_186163212ffe79c3: function(arg0) {
      const ret = arg0.length;
      return ret;
    },
    __wbg_new_37eb45aaf5eeb820: function() {
      const ret = new Array();
      return ret;
    },
    __wbg_new_5f28518387ad0e34: function() {
      return handleError(function() {
        const ret = new AbortController();
        return ret;
      }, arguments);
    },
    __wbg_new_787b9fb330d55d78: function(arg0, arg1) {
      const ret = new Error(getStringFromWasm0(arg0, arg1));
      return ret;
    },
    __wbg_new_b00e30ff1da50918: function() {
      return handleError(function(arg0, arg1) {
        const ret = new BroadcastChannel(getStringFromWasm0(arg0, arg1));
        return ret;
      }, arguments);
    },
    __wbg_new_ba40181b3f24ac80: function(arg0, arg1) {
      try {
        var state0 = { a: arg0, b: arg1 };
        var cb0 = (arg02, arg12) => {
          const a = state0.a;
          state0.a = 0;
          try {
            return wasm_bindgen__convert__closures_____invoke__hb98d63cc49481475(a, state0.b, arg02, arg12);
          } finally {
            state0.a = a;
          }
        };
        const ret = new Promise(cb0);
        return ret;
      } finally {
        state0.a = 0;
      }
    },
    __wbg_new_cd4348290afae586: function() {
      const ret = new Object();
      return ret;
    },
    __wbg_new_df63236ec481fcd7: function() {
      return handleError(function(arg0, arg1) {
        const ret = new Worker(getStringFromWasm0(arg0, arg1));
        return ret;
      }, arguments);
    },
    __wbg_new_with_length_01b143a7e5dd5a3e: function(arg0) {
      const ret = new Uint8Array(arg0 >>> 0);
      return ret;
    },
    __wbg_new_with_str_sequence_and_options_ea4ce88081790553: function() {
      return handleError(function(arg0, arg1) {
        const ret = new Blob(arg0, arg1);
        return ret;
      }, arguments);
    },
    __wbg_now_a6ada84cb3f4f297: function() {
      const ret = performance.now();
      return ret;
    },
    __wbg_now_bc38352b4a9bcf01: function() {
      const ret = Date.now();
      return ret;
    },
    __wbg_objectStoreNames_2b913d9b7111553d: function(arg0) {
      const ret = arg0.objectStoreNames;
      return ret;
    },
    __wbg_objectStore_a2b5ae038954c7ba: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = arg0.objectStore(getStringFromWasm0(arg1, arg2));
        return ret;
      }, arguments);
    },
    __wbg_of_027eb15371aac932: function(arg0) {
      const ret = Array.of(arg0);
      return ret;
    },
    __wbg_of_e7ea0fcd535c1444: function(arg0, arg1) {
      const ret = Array.of(arg0, arg1);
      return ret;
    },
    __wbg_openCursor_8fae543a573ea831: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = arg0.openCursor(arg1, __wbindgen_enum_IdbCursorDirection[arg2]);
        return ret;
      }, arguments);
    },
    __wbg_openKeyCursor_0fd569e75e8de6fe: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = arg0.openKeyCursor(arg1, __wbindgen_enum_IdbCursorDirection[arg2]);
        return ret;
      }, arguments);
    },
    __wbg_open_0b7832f51fde5a5f: function() {
      return handleError(function(arg0, arg1, arg2, arg3) {
        const ret = arg0.open(getStringFromWasm0(arg1, arg2), arg3 >>> 0);
        return ret;
      }, arguments);
    },
    __wbg_postMessage_408dcc1ee376f42d: function() {
      return handleError(function(arg0, arg1) {
        arg0.postMessage(arg1);
      }, arguments);
    },
    __wbg_postMessage_61772322081d1756: function() {
      return handleError(function(arg0, arg1) {
        arg0.postMessage(arg1);
      }, arguments);
    },
    __wbg_postMessage_d9b34e55bfab4bdd: function() {
      return handleError(function(arg0, arg1) {
        arg0.postMessage(arg1);
      }, arguments);
    },
    __wbg_preventDefault_cfb06b02e7406899: function(arg0) {
      arg0.preventDefault();
    },
    __wbg_prototypesetcall_13162965d1fe7aa3: function(arg0, arg1, arg2) {
      Uint8Array.prototype.set.call(getArrayU8FromWasm0(arg0, arg1), arg2);
    },
    __wbg_push_c9f4893fc209f768: function(arg0, arg1) {
      const ret = arg0.push(arg1);
      return ret;
    },
    __wbg_put_45e63ad2e48de8d7: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = arg0.put(arg1, arg2);
        return ret;
      }, arguments);
    },
    __wbg_queueMicrotask_02d630739c50692b: function(arg0) {
      queueMicrotask(arg0);
    },
    __wbg_reject_334b730b3c00849b: function(arg0) {
      const ret = Promise.reject(arg0);
      return ret;
    },
    __wbg_removeEventListener_4e20bd5fac3de092: function() {
      return handleError(function(arg0, arg1, arg2, arg3) {
        arg0.removeEventListener(getStringFromWasm0(arg1, arg2), arg3);
      }, arguments);
    },
    __wbg_request_613a5d2037f6cbba: function(arg0, arg1, arg2, arg3, arg4) {
      const ret = arg0.request(getStringFromWasm0(arg1, arg2), arg3, arg4);
      return ret;
    },
    __wbg_resolve_dbf78ab4942478b0: function(arg0) {
      const ret = Promise.resolve(arg0);
      return ret;
    },
    __wbg_result_11a492b710594c52: function() {
      return handleError(function(arg0) {
        const ret = arg0.result;
        return ret;
      }, arguments);
    },
    __wbg_setTimeout_fbd69c6576710fc6: function() {
      return handleError(function(arg0, arg1) {
        const ret = setTimeout(arg0, arg1);
        return ret;
      }, arguments);
    },
    __wbg_set_2793479888329cb6: function() {
      return handleError(function(arg0, arg1, arg2) {
        const ret = Reflect.set(arg0, arg1, arg2);
        return ret;
      }, arguments);
    },
    __wbg_set_durability_76d5bb6d7f5bd864: function(arg0, arg1) {
      arg0.durability = __wbindgen_enum_IdbTransactionDurability[arg1];
    },
    __wbg_set_name_822e3903f3184979: function(arg0, arg1, arg2) {
      arg0.name = getStringFromWasm0(arg1, arg2);
    },
    __wbg_set_onabort_7ebb01d240653002: function(arg0, arg1) {
      arg0.onabort = arg1;
    },
    __wbg_set_onclose_8b9109d9c7acaf7a: function(arg0, arg1) {
      arg0.onclose = arg1;
    },
    __wbg_set_oncomplete_0d4e18f44844f3be: function(arg0, arg1) {
      arg0.oncomplete = arg1;
    },
    __wbg_set_onerror_01c46f9c43941951: function(arg0, arg1) {
      arg0.onerror = arg1;
    },
    __wbg_set_onerror_8346fd6e80c876c8: function(arg0, arg1) {
      arg0.onerror = arg1;
    },
    __wbg_set_onmessage_4565eb0ef03ee0f9: function(arg0, arg1) {
      arg0.onmessage = arg1;
    },
    __wbg_set_onmessage_62a5679af20d7bf7: function(arg0, arg1) {
      arg0.onmessage = arg1;
    },
    __wbg_set_onmessage_fb42c85f5237566a: function(arg0, arg1) {
      arg0.onmessage = arg1;
    },
    __wbg_set_onsuccess_8fa3ed2b93e36cae: function(arg0, arg1) {
      arg0.onsuccess = arg1;
    },
    __wbg_set_onupgradeneeded_e977e06888863122: function(arg0, arg1) {
      arg0.onupgradeneeded = arg1;
    },
    __wbg_set_onversionchange_c2fa20847e387f80: function(arg0, arg1) {
      arg0.onversionchange = arg1;
    },
    __wbg_set_signal_0ca6048a7a54da7f: function(arg0, arg1) {
      arg0.signal = arg1;
    },
    __wbg_set_steal_60003bf6fadc9c99: function(arg0, arg1) {
      arg0.steal = arg1 !== 0;
    },
    __wbg_set_type_609b0cea6429d7bb: function(arg0, arg1, arg2) {
      arg0.type = getStringFromWasm0(arg1, arg2);
    },
    __wbg_signal_fac908876f45725d: function(arg0) {
      const ret = arg0.signal;
      return ret;
    },
    __wbg_static_accessor_GLOBAL_THIS_003ee833af9699fc: function() {
      const ret = typeof globalThis === "undefined" ? void 0 : globalThis;
      return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
    },
    __wbg_static_accessor_GLOBAL_e4293fb22cbe77da: function() {
      const ret = typeof global === "undefined" ? void 0 : global;
      return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
    },
    __wbg_static_accessor_SELF_53bb20457401453d: function() {
      const ret = typeof self === "undefined" ? void 0 : self;
      return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
    },
    __wbg_static_accessor_TIME_ORIGIN_ca12f19fe323e6a0: function() {
      const ret = performance.timeOrigin;
      return ret;
    },
    __wbg_static_accessor_WINDOW_b5e0810bfecb7feb: function() {
      const ret = typeof window === "undefined" ? void 0 : window;
      return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
    },
    __wbg_terminate_72951fee87f2d80a: function(arg0) {
      arg0.terminate();
    },
    __wbg_then_665823b195634099: function(arg0, arg1) {
      const ret = arg0.then(arg1);
      return ret;
    },
    __wbg_transaction_45e27b813691848b: function() {
      return handleError(function(arg0, arg1, arg2, arg3, arg4) {
        const ret = arg0.transaction(getArrayJsValueViewFromWasm0(arg1, arg2), __wbindgen_enum_IdbTransactionMode[arg3], arg4);
        return ret;
      }, arguments);
    },
    __wbg_transaction_a26f26d9d5badcda: function(arg0) {
      const ret = arg0.transaction;
      return isLikeNone(ret) ? 0 : addToExternrefTable0(ret);
    },
    __wbg_value_fee1bb7efea77e71: function() {
      return handleError(function(arg0) {
        const ret = arg0.value;
        return ret;
      }, arguments);
    },
    __wbindgen_generic_0000000000000001: function(arg0, arg1) {
      const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__he5ff5a6db65ddc42);
      return ret;
    },
    __wbindgen_generic_0000000000000002: function(arg0, arg1) {
      const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__h650ab4797f53c6db);
      return ret;
    },
    __wbindgen_generic_0000000000000003: function(arg0, arg1) {
      const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__ha5b26f4b1c9b67de);
      return ret;
    },
    __wbindgen_generic_0000000000000004: function(arg0, arg1) {
      const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__ha5b26f4b1c9b67de_25);
      return ret;
    },
    __wbindgen_generic_0000000000000005: function(arg0, arg1) {
      const ret = makeMutClosure(arg0, arg1, wasm_bindgen__convert__closures_____invoke__hb8aec563b5962948);
      return ret;
    },
    __wbindgen_generic_0000000000000006: function(arg0) {
      const ret = arg0;
      return ret;
    },
    __wbindgen_generic_0000000000000007: function(arg0, arg1) {
      const ret = getStringFromWasm0(arg0, arg1);
      return ret;
    },
    __wbindgen_init_externref_table: function() {
      const table = wasm.__wbindgen_externrefs;
      table.set(0, void 0);
      table.set(1024, void 0);
      table.set(1025, null);
      table.set(1026, true);
      table.set(1027, false);
    }
  };
  return {
    __proto__: null,
    "./tenure_bg.js": import0
  };
}
function wasm_bindgen__convert__closures_____invoke__hb8aec563b5962948(arg0, arg1) {
  wasm.wasm_bindgen__convert__closures_____invoke__hb8aec563b5962948(arg0, arg1);
}
function wasm_bindgen__convert__closures_____invoke__h650ab4797f53c6db(arg0, arg1, arg2) {
  wasm.wasm_bindgen__convert__closures_____invoke__h650ab4797f53c6db(arg0, arg1, arg2);
}
function wasm_bindgen__convert__closures_____invoke__ha5b26f4b1c9b67de(arg0, arg1, arg2) {
  wasm.wasm_bindgen__convert__closures_____invoke__ha5b26f4b1c9b67de(arg0, arg1, arg2);
}
function wasm_bindgen__convert__closures_____invoke__ha5b26f4b1c9b67de_25(arg0, arg1, arg2) {
  wasm.wasm_bindgen__convert__closures_____invoke__ha5b26f4b1c9b67de_25(arg0, arg1, arg2);
}
function wasm_bindgen__convert__closures_____invoke__he5ff5a6db65ddc42(arg0, arg1, arg2) {
  const ret = wasm.wasm_bindgen__convert__closures_____invoke__he5ff5a6db65ddc42(arg0, arg1, arg2);
  return ret;
}
function wasm_bindgen__convert__closures_____invoke__hb98d63cc49481475(arg0, arg1, arg2, arg3) {
  wasm.wasm_bindgen__convert__closures_____invoke__hb98d63cc49481475(arg0, arg1, arg2, arg3);
}
var __wbindgen_enum_IdbCursorDirection = ["next", "nextunique", "prev", "prevunique"];
var __wbindgen_enum_IdbTransactionDurability = ["default", "strict", "relaxed"];
var __wbindgen_enum_IdbTransactionMode = ["readonly", "readwrite", "versionchange", "readwriteflush", "cleanup"];
var FencedStoreCoreFinalization = typeof FinalizationRegistry === "undefined" ? { register: () => {
}, unregister: () => {
} } : new FinalizationRegistry((ptr) => wasm.__wbg_fencedstorecore_free(ptr, 1));
var TabLeaseCoreFinalization = typeof FinalizationRegistry === "undefined" ? { register: () => {
}, unregister: () => {
} } : new FinalizationRegistry((ptr) => wasm.__wbg_tableasecore_free(ptr, 1));
function addToExternrefTable0(obj) {
  const idx = wasm.__externref_table_alloc();
  wasm.__wbindgen_externrefs.set(idx, obj);
  return idx;
}
var CLOSURE_DTORS = typeof FinalizationRegistry === "undefined" ? { register: () => {
}, unregister: () => {
} } : new FinalizationRegistry((state) => wasm.__wbindgen_destroy_closure(state.a, state.b));
function getArrayJsValueViewFromWasm0(ptr, len) {
  ptr = ptr >>> 0;
  const mem = getDataViewMemory0();
  const result = [];
  for (let i = ptr; i < ptr + 4 * len; i += 4) {
    result.push(wasm.__wbindgen_externrefs.get(mem.getUint32(i, true)));
  }
  return result;
}
function getArrayU8FromWasm0(ptr, len) {
  ptr = ptr >>> 0;
  return getUint8ArrayMemory0().subarray(ptr / 1, ptr / 1 + len);
}
var cachedDataViewMemory0 = null;
function getDataViewMemory0() {
  if (cachedDataViewMemory0 === null || cachedDataViewMemory0.buffer.detached === true || cachedDataViewMemory0.buffer.detached === void 0 && cachedDataViewMemory0.buffer !== wasm.memory.buffer) {
    cachedDataViewMemory0 = new DataView(wasm.memory.buffer);
  }
  return cachedDataViewMemory0;
}
function getStringFromWasm0(ptr, len) {
  ptr = ptr >>> 0;
  return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}
var cachedUint8ArrayMemory0 = null;
function getUint8ArrayMemory0() {
  if (cachedUint8ArrayMemory0 === null || cachedUint8ArrayMemory0.byteLength === 0) {
    cachedUint8ArrayMemory0 = new Uint8Array(wasm.memory.buffer);
  }
  return cachedUint8ArrayMemory0;
}
function handleError(f, args) {
  try {
    return f.apply(this, args);
  } catch (e) {
    const idx = addToExternrefTable0(e);
    wasm.__wbindgen_exn_store(idx);
  }
}
function isLikeNone(x) {
  return x === void 0 || x === null;
}
function makeMutClosure(arg0, arg1, f) {
  const state = { a: arg0, b: arg1, cnt: 1 };
  const real = (...args) => {
    state.cnt++;
    const a = state.a;
    state.a = 0;
    try {
      return f(a, state.b, ...args);
    } finally {
      state.a = a;
      real._wbg_cb_unref();
    }
  };
  real._wbg_cb_unref = () => {
    if (--state.cnt === 0) {
      wasm.__wbindgen_destroy_closure(state.a, state.b);
      state.a = 0;
      CLOSURE_DTORS.unregister(state);
    }
  };
  CLOSURE_DTORS.register(real, state, state);
  return real;
}
function passStringToWasm0(arg, malloc, realloc) {
  if (realloc === void 0) {
    const buf = cachedTextEncoder.encode(arg);
    const ptr2 = malloc(buf.length, 1) >>> 0;
    getUint8ArrayMemory0().subarray(ptr2, ptr2 + buf.length).set(buf);
    WASM_VECTOR_LEN = buf.length;
    return ptr2;
  }
  let len = arg.length;
  let ptr = malloc(len, 1) >>> 0;
  const mem = getUint8ArrayMemory0();
  let offset = 0;
  for (; offset < len; offset++) {
    const code = arg.charCodeAt(offset);
    if (code > 127) break;
    mem[ptr + offset] = code;
  }
  if (offset !== len) {
    if (offset !== 0) {
      arg = arg.slice(offset);
    }
    ptr = realloc(ptr, len, len = offset + arg.length * 3, 1) >>> 0;
    const view = getUint8ArrayMemory0().subarray(ptr + offset, ptr + len);
    const ret = cachedTextEncoder.encodeInto(arg, view);
    offset += ret.written;
    ptr = realloc(ptr, len, offset, 1) >>> 0;
  }
  WASM_VECTOR_LEN = offset;
  return ptr;
}
function takeFromExternrefTable0(idx) {
  const value = wasm.__wbindgen_externrefs.get(idx);
  wasm.__externref_table_dealloc(idx);
  return value;
}
var cachedTextDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
cachedTextDecoder.decode();
var MAX_SAFARI_DECODE_BYTES = 2146435072;
var numBytesDecoded = 0;
function decodeText(bytes) {
  numBytesDecoded += bytes.length;
  if (numBytesDecoded >= MAX_SAFARI_DECODE_BYTES) {
    cachedTextDecoder = new TextDecoder("utf-8", { ignoreBOM: true });
    cachedTextDecoder.decode();
    numBytesDecoded = bytes.length;
  }
  return cachedTextDecoder.decode(bytes);
}
var cachedTextEncoder = new TextEncoder();
if (!("encodeInto" in cachedTextEncoder)) {
  cachedTextEncoder.encodeInto = function(arg, view) {
    const buf = cachedTextEncoder.encode(arg);
    view.set(buf);
    return {
      read: arg.length,
      written: buf.length
    };
  };
}
var WASM_VECTOR_LEN = 0;
var wasmModule;
var wasmInstance;
var wasm;
function __wbg_finalize_init(instance, module2) {
  wasmInstance = instance;
  wasm = instance.exports;
  wasmModule = module2;
  cachedDataViewMemory0 = null;
  cachedUint8ArrayMemory0 = null;
  wasm.__wbindgen_start();
  return wasm;
}
function initSync(module2) {
  if (wasm !== void 0) return wasm;
  if (module2 !== void 0) {
    if (Object.getPrototypeOf(module2) === Object.prototype) {
      ({ module: module2 } = module2);
    } else {
      console.warn("using deprecated parameters for `initSync()`; pass a single object instead");
    }
  }
  const imports = __wbg_get_imports();
  if (!(module2 instanceof WebAssembly.Module)) {
    module2 = new WebAssembly.Module(module2);
  }
  const instance = new WebAssembly.Instance(module2, imports);
  return __wbg_finalize_init(instance, module2);
}

// pkg/glue-tabs/core-base64.js
var CORE_BASE64 = "AGFzbQEAAAABxQRWYAF/AGACf38AYAN/f38AYAJ/fwF/YAF/AX9gBH9/f38AYAN/f38Bf2ACb28AYAFvAW9gAn9/AW9gAW8AYAFvAX9gAm9vAW9gAAF/YAV/f39/fwBgAAF8YAAAYAR/f39/AX9gAX8Cf39gAAJ/f2AFf39/f38Bf2ADb29vAW9gAAFvYAJ/bwBgAX8Bb2ADf39vAGADf35+AGABfwF8YANvb28Bf2AEb39/bwBgA29/fwFvYAJvfwBgA29vfwFvYANvf38AYAJvfwFvYAR/f35+AGADf39+AGAEf39/fABgAn9/AX5gA398fABgBn9/f39/fwF/YAd/fn5+fn5+AGADf35+AX5gA39/fAF/YAJ/fgBgAX8Cf3xgAAN/f39gAAJ/fGACb28Bf2AFb29vb28Bb2AEb39/fwFvYAVvf39/bwFvYAVvf39vbwFvYANvf38Bf2ABfAFvYAl/f35+fn5+fn8AYAN/fn8Bf2AIf35+fn5+fn4AYAZ/f39/f38AYAR/fn5/AGADfn9/AGACf3wAYAZ/f39+f38AYAZ/f399f38AYAZ/f398f38AYAN/fnwBf2ACfnwBfmAFf39+f38Bf2AFf398f38Bf2AFf399f38Bf2AFf399f38AYAV/f35/fwBgBX9/fH9/AGACf34BfmAEf39/fAF/YAJ+fAF/YAR/f35/AGADf35+AX9gBW9vb29vA39/f2AEf29vbwFvYAFvA39/f2AEf39vbwBgA39/bwFvYAJ/bwFvYAF8AXxgAXwBfwKBK2sOLi90ZW51cmVfYmcuanMbX193YmdfcHVzaF9jOWY0ODkzZmMyMDlmNzY4ADAOLi90ZW51cmVfYmcuanMdX193YmdfYXNzaWduXzZiNmJiMzAzODgwODgwNzIADA4uL3RlbnVyZV9iZy5qcxtfX3diZ19jYWxsX2E0MTBlYjRiNTllZDU5NjUAFQ4uL3RlbnVyZV9iZy5qcxtfX3diZ19jYWxsXzI3NWI3OGIzYjY1MjBiOTIAMQ4uL3RlbnVyZV9iZy5qcxpfX3diZ19uZXdfYmE0MDE4MWIzZjI0YWM4MAAJDi4vdGVudXJlX2JnLmpzGl9fd2JnX25vd19hNmFkYTg0Y2IzZjRmMjk3AA8OLi90ZW51cmVfYmcuanMaX193Ymdfbm93X2JjMzgzNTJiNGE5YmNmMDEADw4uL3RlbnVyZV9iZy5qcxtfX3diZ190aGVuXzY2NTgyM2IxOTU2MzQwOTkADA4uL3RlbnVyZV9iZy5qczJfX3diZ19zdGF0aWNfYWNjZXNzb3JfVElNRV9PUklHSU5fY2ExMmYxOWZlMzIzZTZhMAAPDi4vdGVudXJlX2JnLmpzHV9fd2JnX1N0cmluZ180ZjhiMTkxMGM3M2Q4ZWRkAAgOLi90ZW51cmVfYmcuanMlX193YmdfcXVldWVNaWNyb3Rhc2tfMDJkNjMwNzM5YzUwNjkyYgAKDi4vdGVudXJlX2JnLmpzJl9fd2JnX2dldFJhbmRvbVZhbHVlc180Mjg5YTFlMjM0YjIyNmJiAAoOLi90ZW51cmVfYmcuanMiX193Ymdfc2V0X29uZXJyb3JfODM0NmZkNmU4MGM4NzZjOAAHDi4vdGVudXJlX2JnLmpzIl9fd2JnX3Bvc3RNZXNzYWdlXzYxNzcyMzIyMDgxZDE3NTYABw4uL3RlbnVyZV9iZy5qcyRfX3diZ19zZXRfb25tZXNzYWdlX2ZiNDJjODVmNTIzNzU2NmEABw4uL3RlbnVyZV9iZy5qcxpfX3diZ19uZXdfZGY2MzIzNmVjNDgxZmNkNwAJDi4vdGVudXJlX2JnLmpzIF9fd2JnX3Rlcm1pbmF0ZV83Mjk1MWZlZTg3ZjJkODBhAAoOLi90ZW51cmVfYmcuanMaX193Ymdfa2V5XzZlNmNkMTEwMTBhMjI5ZDcACA4uL3RlbnVyZV9iZy5qcxtfX3diZ19vcGVuXzBiNzgzMmY1MWZkZTVhNWYAMg4uL3RlbnVyZV9iZy5qcxpfX3diZ19jbXBfMDAzZjgyZmNlOGI4ZjM0OQAcDi4vdGVudXJlX2JnLmpzIl9fd2JnX3NldF9vbmVycm9yXzAxYzQ2ZjljNDM5NDE5NTEABw4uL3RlbnVyZV9iZy5qcyJfX3diZ190cmFuc2FjdGlvbl9hMjZmMjZkOWQ1YmFkY2RhAAsOLi90ZW51cmVfYmcuanMkX193Ymdfc2V0X29uc3VjY2Vzc184ZmEzZWQyYjkzZTM2Y2FlAAcOLi90ZW51cmVfYmcuanMcX193YmdfZXJyb3JfMDI5Yjk3MzU2MTdhYmUyMwALDi4vdGVudXJlX2JnLmpzHV9fd2JnX3Jlc3VsdF8xMWE0OTJiNzEwNTk0YzUyAAgOLi90ZW51cmVfYmcuanMsX193YmdfaW5zdGFuY2VvZl9JZGJSZXF1ZXN0X2I1NjlkNTBmZjNjMzJlMzkACw4uL3RlbnVyZV9iZy5qcydfX3diZ19hZGRFdmVudExpc3RlbmVyXzg0N2ZkODZiOGMzM2VjNDMAHQ4uL3RlbnVyZV9iZy5qcypfX3diZ19yZW1vdmVFdmVudExpc3RlbmVyXzRlMjBiZDVmYWMzZGUwOTIAHQ4uL3RlbnVyZV9iZy5qcyJfX3diZ19zZXRfb25jbG9zZV84YjkxMDlkOWM3YWNhZjdhAAcOLi90ZW51cmVfYmcuanMnX193Ymdfb2JqZWN0U3RvcmVOYW1lc18yYjkxM2Q5YjcxMTE1NTNkAAgOLi90ZW51cmVfYmcuanMoX193YmdfY3JlYXRlT2JqZWN0U3RvcmVfZjdjZjg1NGViYjhhMmI3ZgAeDi4vdGVudXJlX2JnLmpzKl9fd2JnX3NldF9vbnZlcnNpb25jaGFuZ2VfYzJmYTIwODQ3ZTM4N2Y4MAAHDi4vdGVudXJlX2JnLmpzIl9fd2JnX3RyYW5zYWN0aW9uXzQ1ZTI3YjgxMzY5MTg0OGIAMw4uL3RlbnVyZV9iZy5qcxxfX3diZ19jbG9zZV83MGQzODI1NTI5MWFlNGM4AAoOLi90ZW51cmVfYmcuanMcX193YmdfYm91bmRfMmVhZmMxYmQxY2ZmYmIwZQAMDi4vdGVudXJlX2JnLmpzHl9fd2JnX3JlcXVlc3RfNjEzYTVkMjAzN2Y2Y2JiYQA0Di4vdGVudXJlX2JnLmpzIV9fd2JnX3NldF9zaWduYWxfMGNhNjA0OGE3YTU0ZGE3ZgAHDi4vdGVudXJlX2JnLmpzIF9fd2JnX3NldF9zdGVhbF82MDAwM2JmNmZhZGM5Yzk5AB8OLi90ZW51cmVfYmcuanMbX193YmdfZGF0YV9jN2U1ZTg1MDBmMWJjYTJmAAgOLi90ZW51cmVfYmcuanMfX193YmdfY29udGFpbnNfYzcwOTk1NjNhYjU3YTc3NgA1Di4vdGVudXJlX2JnLmpzGl9fd2JnX2FkZF9jMTMzZDMxMzY5ZjBlY2UyABUOLi90ZW51cmVfYmcuanMaX193YmdfcHV0XzQ1ZTYzYWQyZTQ4ZGU4ZDcAFQ4uL3RlbnVyZV9iZy5qcyFfX3diZ19vcGVuQ3Vyc29yXzhmYWU1NDNhNTczZWE4MzEAIA4uL3RlbnVyZV9iZy5qcxpfX3diZ19nZXRfM2U3ZDBmZWFlMjA1ZDY0NQAMDi4vdGVudXJlX2JnLmpzJF9fd2JnX29wZW5LZXlDdXJzb3JfMGZkNTY5ZTc1ZThkZTZmZQAgDi4vdGVudXJlX2JnLmpzHV9fd2JnX2RlbGV0ZV9hMTY3N2IxMDVkYzA2MjZlAAwOLi90ZW51cmVfYmcuanMiX193Ymdfc2V0X29uYWJvcnRfN2ViYjAxZDI0MDY1MzAwMgAHDi4vdGVudXJlX2JnLmpzIl9fd2JnX29iamVjdFN0b3JlX2EyYjVhZTAzODk1NGM3YmEAHg4uL3RlbnVyZV9iZy5qcyVfX3diZ19zZXRfb25jb21wbGV0ZV8wZDRlMThmNDQ4NDRmM2JlAAcOLi90ZW51cmVfYmcuanMcX193YmdfYWJvcnRfNzVhOTNiYzc1NWVmNTQyNQAKDi4vdGVudXJlX2JnLmpzHF9fd2JnX2Vycm9yXzM3YjI0MWRhYWFmYmMzNTIACw4uL3RlbnVyZV9iZy5qcx1fX3diZ19jb21taXRfNGI2MTg3Mjc2NGJmNDM5YgAKDi4vdGVudXJlX2JnLmpzGl9fd2JnX25ld181ZjI4NTE4Mzg3YWQwZTM0ABYOLi90ZW51cmVfYmcuanMcX193YmdfYWJvcnRfZjhkMTU4OWViMGM2NWVlMgAKDi4vdGVudXJlX2JnLmpzHV9fd2JnX3NpZ25hbF9mYWM5MDg4NzZmNDU3MjVkAAgOLi90ZW51cmVfYmcuanMfX193Ymdfc2V0X3R5cGVfNjA5YjBjZWE2NDI5ZDdiYgAhDi4vdGVudXJlX2JnLmpzIl9fd2JnX3Bvc3RNZXNzYWdlX2Q5YjM0ZTU1YmZhYjRiZGQABw4uL3RlbnVyZV9iZy5qcyRfX3diZ19zZXRfb25tZXNzYWdlXzYyYTU2NzlhZjIwZDdiZjcABw4uL3RlbnVyZV9iZy5qcxpfX3diZ19uZXdfYjAwZTMwZmYxZGE1MDkxOAAJDi4vdGVudXJlX2JnLmpzHF9fd2JnX2Nsb3NlXzgzNDEyNDY2YmY0ZTM0ZmIACg4uL3RlbnVyZV9iZy5qcypfX3diZ19zZXRfb251cGdyYWRlbmVlZGVkX2U5NzdlMDY4ODg4NjMxMjIABw4uL3RlbnVyZV9iZy5qcxxfX3diZ192YWx1ZV9mZWUxYmI3ZWZlYTc3ZTcxAAgOLi90ZW51cmVfYmcuanMlX193Ymdfc2V0X2R1cmFiaWxpdHlfNzZkNWJiNmQ3ZjViZDg2NAAfDi4vdGVudXJlX2JnLmpzIl9fd2JnX3Bvc3RNZXNzYWdlXzQwOGRjYzFlZTM3NmY0MmQABw4uL3RlbnVyZV9iZy5qcyRfX3diZ19zZXRfb25tZXNzYWdlXzQ1NjVlYjBlZjAzZWUwZjkABw4uL3RlbnVyZV9iZy5qcyZfX3diZ19jcmVhdGVPYmplY3RVUkxfNDU2OTNhMTQ1NGQyNGRhYwAXDi4vdGVudXJlX2JnLmpzOF9fd2JnX25ld193aXRoX3N0cl9zZXF1ZW5jZV9hbmRfb3B0aW9uc19lYTRjZTg4MDgxNzkwNTUzAAwOLi90ZW51cmVfYmcuanMlX193YmdfcHJldmVudERlZmF1bHRfY2ZiMDZiMDJlNzQwNjg5OQAKDi4vdGVudXJlX2JnLmpzIV9fd2JnX3NldFRpbWVvdXRfZmJkNjljNjU3NjcxMGZjNgAiDi4vdGVudXJlX2JnLmpzI19fd2JnX2NsZWFyVGltZW91dF8zNjI5ZDYyMDlkZmNjNDZlAAgOLi90ZW51cmVfYmcuanMmX193YmdfbmV3X3dpdGhfbGVuZ3RoXzAxYjE0M2E3ZTVkZDVhM2UAGA4uL3RlbnVyZV9iZy5qcx1fX3diZ19sZW5ndGhfMTg2MTYzMjEyZmZlNzljMwALDi4vdGVudXJlX2JnLmpzJ19fd2JnX3Byb3RvdHlwZXNldGNhbGxfMTMxNjI5NjVkMWZlN2FhMwAZDi4vdGVudXJlX2JnLmpzG19fd2JnX2NhbGxfNDBiMDA4YmEzMmY3Mzk5MQAMDi4vdGVudXJlX2JnLmpzGl9fd2JnX25ld18zN2ViNDVhYWY1ZWViODIwABYOLi90ZW51cmVfYmcuanMZX193Ymdfb2ZfMDI3ZWIxNTM3MWFhYzkzMgAIDi4vdGVudXJlX2JnLmpzGV9fd2JnX29mX2U3ZWEwZmNkNTM1YzE0NDQADA4uL3RlbnVyZV9iZy5qcxpfX3diZ19uZXdfNzg3YjlmYjMzMGQ1NWQ3OAAJDi4vdGVudXJlX2JnLmpzH19fd2JnX3NldF9uYW1lXzgyMmUzOTAzZjMxODQ5NzkAIQ4uL3RlbnVyZV9iZy5qcxpfX3diZ19uZXdfY2Q0MzQ4MjkwYWZhZTU4NgAWDi4vdGVudXJlX2JnLmpzMl9fd2JnX3N0YXRpY19hY2Nlc3Nvcl9HTE9CQUxfVEhJU18wMDNlZTgzM2FmOTY5OWZjAA0OLi90ZW51cmVfYmcuanMrX193Ymdfc3RhdGljX2FjY2Vzc29yX1NFTEZfNTNiYjIwNDU3NDAxNDUzZAANDi4vdGVudXJlX2JnLmpzLV9fd2JnX3N0YXRpY19hY2Nlc3Nvcl9HTE9CQUxfZTQyOTNmYjIyY2JlNzdkYQANDi4vdGVudXJlX2JnLmpzLV9fd2JnX3N0YXRpY19hY2Nlc3Nvcl9XSU5ET1dfYjVlMDgxMGJmZWNiN2ZlYgANDi4vdGVudXJlX2JnLmpzIV9fd2JnX2FsbFNldHRsZWRfZDlkNWIyZmQ0ZWFhNTlmZAAIDi4vdGVudXJlX2JnLmpzHV9fd2JnX3JlamVjdF8zMzRiNzMwYjNjMDA4NDliAAgOLi90ZW51cmVfYmcuanMeX193YmdfcmVzb2x2ZV9kYmY3OGFiNDk0MjQ3OGIwAAgOLi90ZW51cmVfYmcuanMaX193YmdfZ2V0XzIwODBjNDkwMTVlMzUyNTQADA4uL3RlbnVyZV9iZy5qcxpfX3diZ19zZXRfMjc5MzQ3OTg4ODMyOWNiNgAcDi4vdGVudXJlX2JnLmpzGl9fd2JnX2dldF9iYjhiNmIzNTA0MWUwMGM5ACIOLi90ZW51cmVfYmcuanMnX193YmdfX193YmluZGdlbl90aHJvd180Yzg4ZDhiZjI2NGZkOTg0AAEOLi90ZW51cmVfYmcuanMpX193YmdfX193YmluZGdlbl9pc19udWxsX2MyMjMxMWIxY2MyMjhlM2EACw4uL3RlbnVyZV9iZy5qcytfX3diZ19fX3diaW5kZ2VuX2lzX29iamVjdF84Yjk2OGMzYWI4ZTk2NTk1AAsOLi90ZW51cmVfYmcuanMsX193YmdfX193YmluZGdlbl9udW1iZXJfZ2V0XzkzNGI2NDBkMDg4OWFmNzgAFw4uL3RlbnVyZV9iZy5qcyxfX3diZ19fX3diaW5kZ2VuX3N0cmluZ19nZXRfN2NlOGVlZTdmZDMyNzU0NQAXDi4vdGVudXJlX2JnLmpzLV9fd2JnX19fd2JpbmRnZW5fYm9vbGVhbl9nZXRfNGYxYmFmOWEwMGJlM2M3NAALDi4vdGVudXJlX2JnLmpzLV9fd2JnX19fd2JpbmRnZW5faXNfZnVuY3Rpb25fNzQxZmYyYmI2MTI4MzZmNQALDi4vdGVudXJlX2JnLmpzLl9fd2JnX19fd2JpbmRnZW5faXNfdW5kZWZpbmVkX2JlNWIzNDI0OWZmMWZjMTUACw4uL3RlbnVyZV9iZy5qcyRfX3diZ19fd2JnX2NiX3VucmVmXzA5NzM2ODc5YTNmNjc1NTkACg4uL3RlbnVyZV9iZy5qcx9fX3diaW5kZ2VuX2luaXRfZXh0ZXJucmVmX3RhYmxlABAOLi90ZW51cmVfYmcuanMjX193YmluZGdlbl9nZW5lcmljXzAwMDAwMDAwMDAwMDAwMDEACQ4uL3RlbnVyZV9iZy5qcyNfX3diaW5kZ2VuX2dlbmVyaWNfMDAwMDAwMDAwMDAwMDAwMgAJDi4vdGVudXJlX2JnLmpzI19fd2JpbmRnZW5fZ2VuZXJpY18wMDAwMDAwMDAwMDAwMDAzAAkOLi90ZW51cmVfYmcuanMjX193YmluZGdlbl9nZW5lcmljXzAwMDAwMDAwMDAwMDAwMDQACQ4uL3RlbnVyZV9iZy5qcyNfX3diaW5kZ2VuX2dlbmVyaWNfMDAwMDAwMDAwMDAwMDAwNQAJDi4vdGVudXJlX2JnLmpzI19fd2JpbmRnZW5fZ2VuZXJpY18wMDAwMDAwMDAwMDAwMDA2ADYOLi90ZW51cmVfYmcuanMjX193YmluZGdlbl9nZW5lcmljXzAwMDAwMDAwMDAwMDAwMDcACQPlA+MDAQEBAAEBAQMFAhQCBQ4GAAIRBQECBCMOAQABAAIaAgEBASQDAQUaJAEDAwEDNwUOAg0NAgA4BQAFAQMOAgIBGgIAAQEAAAEGJQ4ABQ4CAAIBAQECJgMBOQACJwECAA4FOjsBBTwCAQAoKQQ9AigBAgUAPj9AQQAAAQUBAAYEDkICARQCAgAqAAUABRQBARElAgIBAQIFAgEBAQEBAgEGAQICAAEBAUNERQYCAgICKwZGR0gDAgEDAAUAAUkrIwJKAwIGAAUAJwMFAQECAgECAiYCAQAFAwEAAREDSwJMLAYCBA4CBQEBAQUAAQMUAAEFBQABAgEBAAABAQEBKk0AA04BAwAAAAAAAAAQAABPAAAAAAAAAAECAQICAgICAgIABQMBBA8PAABQKQAAAAAAAQEBAS0SEi0SEhIEABEAAAAAAAABAAABAA0BAAAAUQAAAAAAAABSAwAABABTAwAAAAAAAAAAAAEAAAAAAAEDAwMAAAAAAAAAAAAAAAACAAIBAQYZGQADAAADDREDAAAAAAABAwIBAwMYGAIDAQEBBAQEBAYQAwMDAwMDAAAAAAAAAAAAAAAAAFQEBAQDBAQEEAEBAQMDAAQEAAAAAFUEAAEBAAAAAQAAABAbGxsEBAQQAgIsBAsCcAG6AboBbwCECAUDAQARBhkDfwFBgIDAAAt/AEGIq8AAC38AQciswAALB7wJKQZtZW1vcnkCABpfX3diZ19mZW5jZWRzdG9yZWNvcmVfZnJlZQCDAhdfX3diZ190YWJsZWFzZWNvcmVfZnJlZQCEAhRmZW5jZWRzdG9yZWNvcmVfbmFtZQCkAxNmZW5jZWRzdG9yZWNvcmVfbmV3AJMDFGZlbmNlZHN0b3JlY29yZV9yZWFkAMYDFWZlbmNlZHN0b3JlY29yZV93cml0ZQD4Ag5zZXJ2ZVRhYkVuZ2luZQDDBBR0YWJsZWFzZWNvcmVfYWJhbmRvbgCwBBJ0YWJsZWFzZWNvcmVfY2xvc2UAggQTdGFibGVhc2Vjb3JlX2Nsb3NlZACxBBJ0YWJsZWFzZWNvcmVfZXBvY2gAoQMZdGFibGVhc2Vjb3JlX2dyYW50b3JUb2tlbgCeAxZ0YWJsZWFzZWNvcmVfaGVhcnRiZWF0AKMDFXRhYmxlYXNlY29yZV9pc0FjdGl2ZQCyBBF0YWJsZWFzZWNvcmVfam9pbgCzBBR0YWJsZWFzZWNvcmVfbGVhc2VNcwDEBBV0YWJsZWFzZWNvcmVfbWFyZ2luTXMAxQQRdGFibGVhc2Vjb3JlX21vZGUAnwMRdGFibGVhc2Vjb3JlX25hbWUAoAMQdGFibGVhc2Vjb3JlX25ldwDrAhR0YWJsZWFzZWNvcmVfcmVsZWFzZQCDBBx0YWJsZWFzZWNvcmVfcmVuZXdJbnRlcnZhbE1zAMYEEnRhYmxlYXNlY29yZV9zdGF0ZQCiAw9fX2Fib3J0X2hhbmRsZXIDARVfX2luc3RhbmNlX3Rlcm1pbmF0ZWQDAj13YXNtX2JpbmRnZW5fX2NvbnZlcnRfX2Nsb3N1cmVzX19fX19pbnZva2VfX2hiOThkNjNjYzQ5NDgxNDc1ALgDPXdhc21fYmluZGdlbl9fY29udmVydF9fY2xvc3VyZXNfX19fX2ludm9rZV9faGU1ZmY1YTZkYjY1ZGRjNDIAwAM9d2FzbV9iaW5kZ2VuX19jb252ZXJ0X19jbG9zdXJlc19fX19faW52b2tlX19oNjUwYWI0Nzk3ZjUzYzZkYgDtAz13YXNtX2JpbmRnZW5fX2NvbnZlcnRfX2Nsb3N1cmVzX19fX19pbnZva2VfX2hhNWIyNmY0YjFjOWI2N2RlAO4DQHdhc21fYmluZGdlbl9fY29udmVydF9fY2xvc3VyZXNfX19fX2ludm9rZV9faGE1YjI2ZjRiMWM5YjY3ZGVfMjUA7gM9d2FzbV9iaW5kZ2VuX19jb252ZXJ0X19jbG9zdXJlc19fX19faW52b2tlX19oYjhhZWM1NjNiNTk2Mjk0OACuAxFfX3diaW5kZ2VuX21hbGxvYwCyAhJfX3diaW5kZ2VuX3JlYWxsb2MAxAIPX193YmluZGdlbl9mcmVlAOkDFF9fd2JpbmRnZW5fZXhuX3N0b3JlAOgDF19fZXh0ZXJucmVmX3RhYmxlX2FsbG9jAJ0BFV9fd2JpbmRnZW5fZXh0ZXJucmVmcwEBGl9fd2JpbmRnZW5fZGVzdHJveV9jbG9zdXJlAN0CGV9fZXh0ZXJucmVmX3RhYmxlX2RlYWxsb2MA5gEQX193YmluZGdlbl9zdGFydABjCegCAQBBAQu5Aa4DlQKfAnDlAb8EwQFkZmhlZ8IDhgSKAdUD8AOOAe8D8gLcAe4C4QHxA/ACtQHiApwEwwHDA5sEer4E7wKfAZ8E8QLfA8EE5gKkAeUCccEE5AKPAsIE4wKFAd4DiARtiQOXAoQDzgKFA5YChgO6AYMDxAGIA6gBhwPQAfsDngGhBH/4A3TlA6cBygO4AZADhgGsAckEtQKuAfoDdscEyASfBO4BwARzvgS6AvcDowGgBH2ZA4kBngR3/AKrAfkDmQG0AocE5AFp6wGaApoC2wH5AckBgALJAaMC+QHJAckByQHJAfkByQGbAvYBkQLJAcsBywHLAfYBkgL2AckBnALdAckB9gHLAckBywH2Ad4BkwKdAt8B9gHJAdgBzQPOA88D0AOcAYAD6QKRA5IDasoEugTqAsUDiQKXAY0EgAS9Av8DrAS/A9YCrQHZAbsE6wPqA/MD2AOBBK4ErwSUAaUBDAEFCtutBeMDwz0EGn8JfgJ8AW8jAEHgAmsiAiQAIAJB+AFqENwCAkACQAJAIAAoAgAiAygCEARAAkBBCCABKQMAIhynQQRrIBxCA1gbQQdrDgICAAQLIAEQ4QMMAwsgAisD+AEhJSADQRBqIQcgAyACKwOAAiImOQPoBSADICU5A+AFIANBfzYCECACQfgBaiAlICYQsQIgAikDgAIhHCACKQP4ASEdIANBIGohAAJAAkACQAJAAkACQAJAAkACQAJAAkBBCCABKQMAIh6nQQRrIB5CA1gbQQFrDgoBCgIDBAUGBwgJAAsjAEHQAGsiASQAIAFBCGoiBiAAIB0gHBCBAQJAIAAtAOABIgRBCEYNACAAQQE6AJgFIAAtAJkFRQRAIABBAToAmQUgAUICNwMIIABBsAFqIAYQ+AEgAC0A4AEhBAsgBEEHRwRAIAQNASAAEPQCDAELIABBADoA4QELIAFB0ABqJAAMCwsgAS0ACCEEIwBBEGsiASQAIAEgACAdIBwQgQEgAEEAIARBARCQASABQRBqJAAMCgsjAEHQAGsiASQAIAFBCGogACAdIBwQgQEgACABKQMIIhwgASkDECIdEKoBAkACQCAALQDgASIEQQFHBEAgBEEGRg0BDAILIAAgHCAdEJEBDAELAkAgACkDoAFCAlIEQCAALQDcBEEBcQ0BCyAAKQOgA1BFDQEgAEIBNwOgAyAAIAApA5AFIhw3A6gDIAAgHEIBfDcDkAUgAUIENwMIIAEgHDcDECAAQbABaiABQQhqEPgBDAELIABBA0EAQQAQoQELIAFB0ABqJAAMCQsjAEEQayIBJAAgASAAIB0gHBCBASAALQDgAUEIRwRAIABBAUEAQQIQkAELIAFBEGokAAwICyMAQRBrIgEkACABIAAgHSAcEIEBIAAtAJoFQQFGBEAgAEEAOgCaBSAAELABCyABQRBqJAAMBwsjAEEQayIBJAAgASAAIB0gHBCBASAAIAEpAwAgASkDCBCqASABQRBqJAAMBgsjAEEwayIEJAAgBCAAIB0gHBCBASAEKQMIIR0gBCkDACEcAkACQCABQQhqIgEpAwBCAlEEQCABKQMIIR4gAEHgBGoQzAMgACAdNwPwBCAAIBw3A+gEIAAgHjcD4AQgACABKQMQNwP4BCAAIAEoAhg2AoAFIAAtAOABQQFGDQEMAgsgBCABQTD8CgAAIAAgHCAEEKABIARBGGoQmgRFDQEgAC0A4AFBAUcNAQsgACAcIB0QkQELIARBMGokAAwFCyABKQMwIR4gAkFAayIEIAFBMPwKAAAjAEGQA2siASQAIAFByAJqIAAgHSAcEIEBIAEpA9ACIR0gASkDyAIhHCAEKQMAIh9CA1IEQCAAIBwgBEEAIB9CAlIbEKABGgsgAUEEaiAAQdAEahCKAgJAAkACQAJAAkACQAJAAkACQAJAAkACQAJAAkACQAJAIAAtAOABQQFrDgcAAQIOBwMEDgsgACkD6AFCAVINDSAAKQPwASAeUg0NIABCADcD6AEgACAcIB0QkQEMDQsgACkD6AFCAFINDCAAKQPwASAeUg0MIAQpAwBCA1INAyAAIBwQyQIMDAsgACkDiAJCAVINCyAAKQOQAiAeUg0LIAQpAwBCA1INAwwKCyAAKQOgA0IBUg0KIAApA6gDIB5SDQogAEIANwOgAyAEKQMAQgJ9Ih5CAVYNBCAep0EBaw0FDAoLIAAtAOIBQQFHDQkgACkD6AEgHlENBgwJCyAAIBwgHRCIAQwICyABQcgCaiAAELsBIAAtAOABQQNGBEAgACABKQPIAjcD+AEgACABKQPQAkIBfDcDgAILIAAQuQEgAUHYAmoQ2wMMBwsgACkD6AEgHlINBiAEKQMAQgJaDQQgBEEYaiABQQRqEIwDRQ0EIAQpAxAgACkD0ANSDQQgAUEQaiIGIABB8AFqEKkBIAAgHCAdIAYQzAEMBgsgACkD0AMiHiAEKQMQUg0AIARBGGogAUEEahCMAw0BCyAAQQRBAEEAEKEBDAQLIAFBmAJqIgYgBEEw/AoAACABIABB8AFqIBwgHRDnAjcD4AIgASAeNwPYAiABQQE6ANACIAFCCjcDyAIgAEGwAWogAUHIAmoQ+AEgBhDJAyABQQRqEJoEDAQLAkAgBCkDAEICWg0AIARBGGogAUEEaiIGEIwDRQ0AIAQpAxAgACkD8AFSDQAgAEEAOgDiASAAIAApA5AFIhw3A+gBIAAgHEIBfDcDkAUgAUHIAmogBEEw/AoAACAAIAEpA/ACNwP4ASABQeACahCaBCAAEPABIAYQmgQMBAsgACAALQDhARCxASABQQRqEJoEIAQQ4QMMAwsgABDCAgsgABD0AgsgAUEEahCaBCAEKQMAQgJaDQAgBEEYahCaBAsgAUGQA2okAAwECyABKQMIIR4gAS0AECEEIwBB8AhrIgEkACABIAAgHSAcEIEBIAEpAwghHSABKQMAIRwCQAJAAkACQCAAKQOQAUIBUQRAIAApA5gBIB5RDQELAkACQAJAAkACQAJAAkACQAJAAkACQAJAAkACQCAAKAJwBEAgACkDeCAeUQ0BCyABIABB4AFqIgYQlgEgAS0AAEECaw4GAQIREQMNEQsgACkDiAEhHSAAKQOAASEeIABCADcDcCAEDRAgAUGQBmoiBCAAIB1BABDIAiABIB5CAXwiHjcDuAYgACAcIAQQoAEaIABCATcDkAEgACAAKQOQBSIcNwOYASAAIBxCAXw3A5AFIAEgACAdQQIQyAIgASAeNwNAIAEgHDcDOCABQgA3AyggAEGwAWogARD4ASABQagGahCaBAwQCyABKQMIQgFSDQ8gASkDECAeUg0PIARBAWsOAgQCAwsgASkDKEICUg0OIAEpAzAgHlINDiAEDQUgAUGQBGogACAcIB0gASkDCCABKQMQIAEpAxhCAXwgASkDIEEBEJgBIAAtANwEDQQMDQsgASkD0AFCAlINDSABKQPYASAeUg0NIARBAWsOAgYIBwsgACAcEMkCDAwLIAFBkAJqIgQgACAcIB0gASkDKCABKQMwIAEpAxhCAXwgASkDIEEAEJgBIAApA6ABQgJRDQkgACAEEOMBDAsLIAEoAgRBAWoiBEEITwRAIAAgHBCmAiEdIAAtAOABQQJHDQsgAEICNwPoASAAQQA2AuQBIABCfyAcIB18Ih0gHCAdVhs3A/ABDAsLIABCADcD6AEgACAENgLkASAAQQI6AOABIAAgACkDkAUiHDcD8AEgACAcQgF8NwOQBSABQgQ3A5AGIAEgHDcDmAYgAEGwAWogAUGQBmoQ+AEMCgsgACkDoAFCAlENCCABQZAEaiAcIB0Q6AINAQsgABD0AgwICyAAEMICIABCATcDoAEgACAAKQOQBSIcNwOoASAAIBxCAXw3A5AFIAFBAToAoAYgASAcNwOYBiABQgY3A5AGIABBsAFqIAFBkAZqEPgBIAAgHDcD6AEgAEEEOgDgASAAQfABaiABQZAEakGAAvwKAAAMBwsgAEEEQQBBABChAQwGCyAGLQAAQQZHDQUgASkD6AEhHyABKQPgASEeIAApA9gDISAgAUGQCGoiBCAAIAApA9ADQQEQyAIgASAgQgF8IiA3A7gIIAAgHCAEEKABGiAALQDgAUEGRwRAIAFBqAhqEJoEDAYLIABBADYC4AMgACAgNwPYAyAAKQO4BCEgIABB8AFqIgQgACkD0AMgHiAfIBwgHSAAKQOoBBCUAyAAQgA3A7ADIAAgHEJ/IB4gIHwiHyAeIB9WGyIeIBwgHlYbNwO4AyAAKQPQAyEeIAQgHCAdEOcCIR8gBCAcIB0Q6AIgAUGYBmogAUGQCGpBMPwKAAAgAUIINwOQBiAAQbABaiIGIAFBkAZqEPgBRQRAIABBBUEAQQAQoQEMBgsgASAfNwOoBiABIB43A6AGIAFBAToAmAYgAUIKNwOQBiAGIAFBkAZqEPgBDAULIAYtAABBBkcNBCAAIAAoAuADQQFqIgQ2AuADIAAgBBC7AiEdIAAtAOABQQZHDQQgAEIANwOwAyAAQn8gHCAdfCIdIBwgHVYbNwO4AwwECyABKQMIIB5SDQMgAS0AASEGAkACQAJAAkAgBEEBaw4CAQIACyABKQMYIR0gAUHACGoiBCAAIAEpAxBBAhDIAiABIB1CAXw3A+gIIAAgHCAEEKABGiABQZgGaiAEQTD8CgAAIAFCCDcDkAYgAEGwAWogAUGQBmoQ+AEMAQsgASgCBEEBSw0BCyAAIAYQsQEMBAsgACAAKQOQBSIcQgF8NwOQBSAALQDgAUEHRgRAIABBAToA4gEgACAcNwPoASAAIAAoAuQBQQFrNgLkAQsgAUIENwOQBiABIBw3A5gGIABBsAFqIAFBkAZqEPgBDAMLIABCADcDkAEMAgsgACAcIB0gAUGQAmoQzAEMAQsgAUGQBmoiBCABQZAEakGAAvwKAAAgACAcIB0gBBDMAQsgAUHwCGokAAwDCyABKQMIIR4gAS0AECEEIwBB4AJrIgEkACABQdAAaiIGIAAgHSAcEIEBAkAgACkDoAEiHFANACAAKQOoASAeUg0AAkACQAJAAkACQCAEBEAgAEIANwOgASAGIABB4AFqEJYBIAEtAFBBAWsOBgIDBgQEAQYLIAEpA1ghHCABKQNQIR0gACAeNwOoASAAQgI3A6ABAkAgAC0A4AFBAWsOBAUGBgAGCyAAKQPoASAeUg0FIAFB0ABqIgQgAEHwAWoiBhCpASAAIAApA5AFIhxCAXw3A5AFIAFCBDcDCCABIBw3AxAgAEGwAWogAUEIahD4ASAAIBw3A+gBIABBBToA4AEgBiAEQYAC/AoAAAwFCyAAQQNBAEEAEKEBDAQLIAAtAJgFRQ0DIAAQ4gEMAwsgHEICUg0CIAEoAlhBAUcNACAAIAEpA3A3A4gBIAAgASkDaDcDgAEgACABKQNgNwN4IABCATcDcAsgABD0AgwBCyAAIB0gHBCRAQsgAUHgAmokAAwCCyACQfgBaiABKwMIENYBIAItAPgBDQEgAikDgAIhHiMAQRBrIgEkACABIAAgHSAcEIEBAkAgAC0A4AFBBkcNACAAKQPQAyAeUg0AIABBAkEAQQAQoQELIAFBEGokAAwBCyABQQhqQRBBGCABKQMIQgJRG2oQmgQMAQsgByAHKAIAQQFqIgE2AgAgAQ0AIANBfzYCECADLQC0BkUEQCADQQA2AhAgA0EBOgC0BiADQdABaiEMIANB5AZqIRIgA0GcBmohEyADQZQGaiEUIANBkAZqIQ0gA0HwBWohBCACQfwBaiEQIAJBgAJqIRUgAkHQAWohFiACQbwBaiEXIAJB+AFqQQFyIQ8gAkG/AWohBiACQbsBaiERQQAhAQNAIAENAiAHQX82AgAgAkHwAGohAQJAIAwoAgwiBUUEQCABQgs3AwAMAQsgDCAFQQFrNgIMIAwgDCgCCCIFQQFqIgggDCgCACIKQQAgCCAKTxtrNgIIIAEgDCgCBCAFQcgAbGpByAD8CgAACyAHIAcoAgAiBUEBaiIBNgIAAkACQAJAAkACQAJAIAIpA3AiH0ILUgRAIAIpA3ghHSACKQOgASEgIAIpA5gBISEgAikDkAEhIiACKQOIASEeIAIpA4ABIRwCQAJAAkACQAJAAkACQAJAAkACQEEDIB+nQQJrIB9CAVgbQQFrDggBAgMEBQYICQALIAFB/v///wdNBEAgDSgCAA0PC0GomMAAQRAQoQJFDQ4gAiADKALYBiADKALcBhCHAiACIAIoAgQiATYC/AEgAiACKAIAIgU2AvgBIAVBAXFFBEAgAiABNgK4ASADIAMoAgRBAWoiBTYCBCAFRQ0QQQRBBBDBAyIFIAM2AgAgAiAFQYyEwAAQlAQiCDYC+AEgAkG4AWoiCigCACUBIAJB+AFqIgUEfyAFKAIABUEACyUBEDkgAygCEARAIAUQnQQgChDSAwwQCyADQX82AhAgDRC2AyADIAg2ApgGIAMgATYClAYgA0EBNgKQBiADIAMoAhBBAWo2AhAMDwsgEBDSAwwOCyABDQ0gB0EANgIAIA0pAgAhHCANQQA2AgAgAiANKAIINgKAAiACIBw3A/gBIBynQQFxRQ0NIAIgAigC/AE2ArgBIAJBuAFqIgEQtgQgARDSAyAVEJ0EDA0LIAMgAygCBEEBaiIBNgIEIAFFDQ0gAkEIaiADKALMBiADKALQBkQAAAAAAADwfxD6ASACKQMIIRwgAkEBOgCCAiACQQA7AYACIAJBBjYC/AEgAkG0nMAANgL4AUEEQQgQwQMiBSAcNwIAQQhBEBDBAyIBIAM2AgggASAdNwMAIAJB+AFqIAVBhJ7AACABQZSewAAQggEMDAsgAikDsAEhIyACKQOoASEkIAIgIjcD2AEgAiAeNwPQASACIBw3A8gBIAIgHTcDwAEgAiAfNwO4ASADIAMoAgRBAWoiATYCBCABRQ0MIAMoAtAGIQEgAygCzAYhBSACQQA2AtgCIAJB+AFqIgggAkG4AWogAkHQAmoQmwEgCBCAASELIAgQvQMgBSABICNCAXwiHLoQmQIhCCACQRhqIAUgAUQAAAAAAADwfxD6ASACKAIcIQogAigCGCEJICFCAVIEf0ECBSACQRBqIAUgASAguhD6ASACKAIUIRggAigCEAshBSACQQE6AIICIAJBgQI7AYACIAJBBjYC/AEgAkG0nMAANgL4AUEEQRgQwQMiASAINgIUIAEgCzYCECABIBg2AgwgASAFNgIIIAEgCjYCBCABIAk2AgBBCEEYEMEDIgUgAzYCECAFICQ3AwggBSAcNwMAIAJB+AFqIAFBpJ7AACAFQbSewAAQggEMAwsgAygC4AZBAUcNCiAcp0EBcQ0GIAJBKGoQjQIgAkEgaiACKAIoIAIoAiwQqQIgAiACKAIkIgs2ArwBIAIgAigCICIFNgK4ASACEPQDNgLoAUEAIQEgBUEBcUUNCSACIBcQpAQ2AvgBIAJB6AFqKAIAJQEgAkH4AWoiASgCACUBECQgARDSA0EBIQEMCQsgAQ0JIAMoApwGIQEgA0ECNgKcBiABQQJGDQkgAygCoAYhBSADKAKkBkEBRgRAIAIgAygCqAY2AvgBIAJB+AFqIggQtQQgCBDSAwsgAUEBRw0JIAIgBTYC0AIgAkGACDYCuAEgAkEwaiACQdACaiIBIAJBuAFqIgUQ/AEgAiACKQMwNwL4ASAQENIDIAUQ0gMgARDSAwwJCyACICA3A+ABIAIgIjcD0AEgAiAeNwPIASACIBw3A8ABIAIgHTcDuAEgAiAhNwPYASABQf7///8HSw0AIAcgBUECajYCACANKAIAQQFGBEAgFBCOAyEBIAcgBygCAEEBazYCACACIAE2AvABIAIgIUIwiKdB/wFxQQJ0IgEoApCiQDYC3AIgAiABKAKEokA2AtgCIAIgIDcD0AIgAkH4AWoiASACQbgBaiACQdACaiIFEJsBIAIgARCAATYC9AEgAkE4aiACQfABaiIIIAJB9AFqIgoQtwIgAiACKQM4NwLQAiAFENMDIAoQ0gMgARC9AyAIENIDDAELIAcgATYCAAsgFhCaBAwHCyABDQYgAy0A6AZBAXFFDQYgA0IBNwPQBSADQQA2AhAgAyADKwOIBkQAAAAAAADwP6AiJTkD2AUgAyAlOQOIBiACICU5A4ACIAJBAjoA+AEgAygCwAYgAkH4AWogAygCxAYoAhQRAQAMBgsCQAJAAkACQAJAIB2nQf8BcUEBaw4EAAECAwQLIAFB/v///wdLDQkgAykDwAVCAVINCSADKQPIBSAcUg0JIAJB+AFqIgEgByAcIB4QqAIgBiACKQOQAjcAGCAGIAIpA4gCNwAQIAYgAikDgAI3AAggBiACKQP4ATcAACACQQQ6APgBIA8gAkG4AWpBJ/wKAAAgAygCwAYgASADKALEBigCFBEBAAwJCyABRQRAIANCADcDwAULIAJB+AFqIgEgHUIIiKdB/wFxQQJ0IgUoArSiQCAFKAKcokAQ7wEgESACKAKAAjYACCARIAIpAvgBNwAAIA8gAikAuAE3AAAgDyACKQC/ATcAByACQQU6APgBIAIgHLo5A4gCIAMoAsAGIAEgAygCxAYoAhQRAQAMCAsgAkEIOgD4ASADKALABiACQfgBaiADKALEBigCFBEBAAwHCwJAIAFFBEAgBCkDACEcIARBAjYCACACIAQpAxA3A8gBIAIgBCkDCDcDwAEgAiAcNwO4AQwBCyACQQI2ArgBCyACQbgBahDcAyACQQk6APgBIAMoAsAGIAJB+AFqIAMoAsQGKAIUEQEADAYLIAENAyADIBw3A8gFIANCATcDwAUMAwsgAQ0IIANBADoAtAYgA0F/NgIQQgAhHAJAAkACQAJAIAJBuAFqIgECfgJAAkACQAJAAkAgAC0A4AFBAWsOBgACCAMDAQgLIAEgACkDgAI3AwggASAAKQP4ASIcNwMADAULIAEgAEHwAWoQkAIgASkDACEcIAApA7ADUA0CDAQLIAApA+gBQgJSDQUgACkD8AEMAgsgASAAQfABahCQAiABKQMAIRwMAgsgACkDuAMiHSABKQMIIh4gHSAeVBsgHSAcpxsLIhw3AwggAUIBNwMAIAAoAlBBAXENAQwDCyAcUA0CIAAoAlBBAXFFDQIgASkDCCEcCyABIAApA1giHSAcIBwgHVQbNwMIQgEhHAsgASAcNwMACwJAIAIpA7gBIhxQDQAgBCgCAEECRg0AIAMpA4AGIAIpA8ABUQ0CCyAEKQMAIR0gBEECNgIAIAIgBCkDEDcDiAIgB0EANgIAIAIgBCkDCDcDgAIgAiAdNwP4ASACQfgBahDcAyAcp0UNCCACKQPAASEcEI8DISUgAyADKAIEQQFqIgA2AgQgAEUNBSMAQRBrIgAkACMAQRBrIgEkAEEEQQQQwQMiByADNgIAIAFBCGoiBkHsgsAANgIEIAYgBzYCACABKAIIQeyCwAAQkwQhByABQRBqJAAgACAHNgIMIAAgAEEMakQAAMD////fQUQAAAAAAAAAACAcukQAAAAAAECPQKMgJaGbIiUgJUQAAAAAAAAAAGMbIiUgJUQAAMD////fQWQb/AMQ/wEgACgCACAAKAIEEMcDIQYgAkHwAGoiASAHNgIMIAFBATYCCCABIAY2AgQgAUEBNgIAIABBEGokACADKAIQBEAgARCmAwwJCyADQX82AhAgBBDcAyADIBw3A4AGIAQgAikCeDcCCCAEIAIpAnA3AgAgAyADKAIQQQFqNgIQDAgLQQAhASACQQA2ArgBIAIQ9AM2AugBIAJB6AFqKAIAJQFBARAlDAILIAdBADYCAAwGCyACQfgBaiIBIAcgHCAeEKgCIAYgAikDkAI3ABggBiACKQOIAjcAECAGIAIpA4ACNwAIIAYgAikD+AE3AAAgAkEDOgD4ASAPIAJBuAFqQSf8CgAAIAMoAsAGIAEgAygCxAYoAhQRAQAMAQsgBygCAARAIAJB6AFqENIDIAJBuAFqENMDDAELIANBfzYCECADIAMoArAGQQFqIgg2ArAGIBMQvAMgAyAINgKsBiADIAs2AqgGIAMgATYCpAYgA0EANgKcBiADIAMoAhBBAWo2AhAgAyADKAIEQQFqIgE2AgQgAUUNASACIAg2AoACIAIgAzYChAIgAiAdNwP4ASMAQRBrIgEkAEEIQRAQwQMiCyACQfgBaiIKIgUpAwg3AwggCyAFKQMANwMAIAFBCGoiBUGUgsAANgIEIAUgCzYCACABKAIIQZSCwAAQZCEnEJ0BIgkgJyYBIAFBEGokACACIAk2AuwBIBIoAgAlASADKALYBiADKALcBiACQegBaiIZKAIAJQEgAkHsAWooAgAlARAjIScQnQEiASAnJgEgAyADKAIEQQFqIgs2AgQgAiABNgLwASALRQ0BQQhBGBDBAyIFIAM2AhAgBSAINgIMIAUgCTYCCCAFIB03AwAgAiACQfABaiIaEKUENgL4ASACIAoQpwQ2AvQBIAoQ0gMjAEEgayIBJAAgAUIANwIUIAFBFGoQpQMiCCAIKAIAQQFqIgk2AgAgCUUEQAALIAEgCDYCHCABQcCTwAA2AhggASAFNgIUIwBBEGsiBSQAQQRBDBDBAyIJIAFBFGoiDigCCDYCCCAJIA4pAgA3AgAgBUEIaiIOQdiBwAA2AgQgDiAJNgIAIAUoAghB2IHAABCSBCEJIAVBEGokACABIAk2AhAgAUEQahCOAyEbIAFBCGogCEEIahCNAyABKAIMIQUgASgCCCIOELsDIA4gCTYCBCAOQQE2AgAgBSAFKAIAQQFqNgIAIAgQlwMgAUEgaiQAIAIgGzYC0AIgAiACQfQBaiIBIAJB0AJqIgUQ9gM2AvgBIAoQ0gMgBRDSAyABENIDIBoQ0gMgGRDSAwsgBygCACEBDAELCwALIAdBADYCAAsgAkHgAmokAAvpGAQHfwd+AXwBbyMAQeACayICJAACQAJAAkACQAJAAkACQAJAAkACQAJAAkACQAJAAkACQAJAAkACQAJAIAEtAABBAWsODAECAwQFBgcICQoLDAALAkAgACgCACIDKAIQRQRAIANBAToA1QQgAygCqAQhASADKAKkBCEEIANCgICAgIABNwKkBCADKAKsBCEFIANBADYCrAQgBEGAgICAeEcNAQtBCCEBQQAhBUEAIQQLIAIgBDYCqAEgAiABNgKkASACIAE2AqABIAIgASAFQQd0IgRqNgKsASACQZABaiEFA0AgBEUNDSACIAFBgAFqIgM2AqQBIAEoAmwiBkGHgICAeEYNDSACQSBqIgcgAUHsAPwKAAAgBSABKQNwNwMAIAUgASkDeDcDCCACIAY2AowBIAAgBxBvIARBgAFrIQQgAyEBDAALAAsgACgCACIAKAIQDREgACABLQABOgDUBAwRCyABKwMIIRAgAkGFgICAeDYCjAIgAiAQOQOgASAAIAJBoAFqEG8MEAsgACgCACIDKAIQDQ8gASsDCCEQIANBfzYCECADLQDWBA0LIAMtANgEQQFxRQ0LIAMgEDkDqAMgA0IBNwOgAyACQaABaiABQQhqEIMBAkAgAikDoAFCAVEEQCACKQOoASEKIAIpA7ABIQsgAikDuAEhDCACKQPAASEJIAIpA8gBIQ0gAikD0AEhDiACKQPYASEPIwBBEGsiBCQAIARCATcDACAEIAk3AwggA0EgaiIBQfACaiAEEIUEBEAgAUIANwNwIAEpA7gBIAEpA7ABQgKFhFBFBEAgAUIANwOgAiABQgA3A+ACCyABIAk3A/gCIAFCATcD8AILIAEgCiALIAwgCSANIA4gDxDCASAEQRBqJAAMAQsgA0IANwOQASADQgA3A5ADIAMpA9gBIAMpA9ABQgKFhFANACADQgA3A8ACIANCADcDgAMLIAMgAygCEEEBajYCECAAQeyOwABBBxB7DA8LIAAoAgAiAygCEEUEQCADQX82AhAgAkGgAWogAUEIahCDASACKQOgAUIBUQRAIAIpA6gBIQogAikDsAEhCyACKQO4ASEMIAIpA8ABIQkgAikDyAEhDSACKQPQASEOIAIpA9gBIQ8CQCADQSBqIgEpA/ACQgFSDQAgASkD+AIgCVINACABIAogCyAMIAkgDSAOIA8QwgELCyADIAMoAhBBAWo2AhALIABB7I7AAEEHEHsMDgsgASsDECEQIAIgASgCDDYC0AIgAiABKQIENwPIAiAAKAIAIgMoAhANCyADQX82AhAgAkGgAWogEBDWASACLQCgAQ0KIAIpA6gBIQkjAEEQayIEJAAgBEIBNwMAIAQgCTcDCAJAIANBIGoiAUHwAmogBBCFBCIFDQAgAUIANwNwIAFCADcD8AIgASkDuAEgASkDsAFCAoWEUA0AIAFCADcDoAIgAUIANwPgAgsgBEEQaiQAIAMgAygCEEEBajYCECAFQQFzRQ0LIAAgAigCzAIgAigC0AIQewwLCyAAKAIAIgMoAhBFBEAgASsDCCEQIANBfzYCECACQaABaiABQQhqEIMBAkAgAikDoAFCAVEEQCACKQOoASEKIAIpA7ABIQsgAikDuAEhDCACKQPAASEJIAIpA8gBIQ0gAikD0AEhDiACKQPYASEPIwBBEGsiBCQAIANBIGoiASkDuAEgASkDsAFCAoWEQgBSIAEpA/ACQgBScSIFBEAgBEIBNwMAIAQgCTcDCCABQeACaiAEEIUEBEAgASAJNwPoAiABQgE3A+ACIAFCADcDoAILIAFBsAFqIAogCyAMIAkgDSAOIA8QwgELIARBEGokACAFRQ0BIAMgEDkDuAMgA0IBNwOwAwwBCyADKQPYASADKQPQAUIChYRQDQAgA0IANwPAAiADQgA3A4ADCyADIAMoAhBBAWo2AhALIABB847AAEEMEHsMDAsgACgCACIBKAIQRQRAIAEpA9gBIAEpA9ABQgKFhFBFBEAgAUIANwPAAiABQgA3A4ADCyABQQA2AhALIABB847AAEEMEHsMCwsCQAJAIAAoAgAiACgCEA0AIAApArQEIQkgAEEANgK4BCAAKAKwBCEBIABCgICAgMAANwOwBCABQYCAgIB4Rg0AIAIgCTcCqAIgAiABNgKkAgwBCyACQQA2AqwCIAJCgICAgMAANwKkAgsgAkGkAmoQrwEMCgsgACgCAEEQahCEAQwJCyACIAEpAxg3A8ACIAIgASkDEDcDuAIgAiABKQMINwOwAiACQRhqEI0CIAJBEGogAigCGCACKAIcEKkCIAIgAigCFDYCzAIgAiACKAIQIgM2AsgCIAJBzAJqIQQgACgCACEAAkAgA0EBRw0AIAAoAhANACAAQX82AhAgAisDsAIhECAEEI4DIQYgACgCxAQiBSAAKAK8BEYEQCMAQRBrIgEkACABQQhqIABBvARqIgcgBygCAEEIQRAQtAEgASgCCCIHQYGAgIB4RwRAIAcgASgCDBDRAwALIAFBEGokAAsgACgCwAQgBUEEdGoiASAGNgIIIAEgEDkDACAAIAVBAWo2AsQEIAAgACgCEEEBajYCEAsgAEHABWoiBiACKAK8AiACKALAAhCtAiEFIwBBEGsiASQAIAEgBTYCDCABQQxqEIsEIQcgAkEIaiIIIAU2AgQgCCAHQQFzNgIAIAFBEGokACACKAIIIQEgAiACKAIMIgU2AqQBIAIgATYCoAECQAJAIAFBAXFFBEAgAiAFNgLYAiACEPQDNgKgASACQaABaiIBKAIAJQEgAkHEAmooAgAlARABIREQnQEiBSARJgEgAiAFNgLcAiABENIDIANBAXEEQCACIAQQpAQ2AqABIAJB3AJqQdCXwABBBiABEK8CIAEQ0gMLIAIgAkHYAmogBiACQdwCahDzASACKAIEIQEgAigCAEEBRw0BIAIgATYCoAEgAiACQaABaiIBEKgENgLUAgwCCyACQaQBahDSAyACQYAINgKgASACIAJBoAFqIgEQqQQ2AtQCIAEQ0gMMCQsgAiABNgKgASACIAJBoAFqIgEQqQQ2AtQCCyABENIDIAJB3AJqENIDIAJB2AJqENIDDAcLIAAoAgAiACgCEA0HIAErAwghECAAQX82AhAgACgCxARBBHQhASAAKALABEEIayEEA0AgAUUNAyABQRBrIQEgBEEIaiAEQRBqIQQrAwAgEGINAAsgBBCOAyEBIAAgACgCEEEBajYCECACIAE2AqABIAJBoAFqIgAQtQQgABDSAwwHCyACIAEoAgw2AtACIAIgASkCBDcDyAIgAkGgAWoiAUGMlsAAQR0Q7wEgASACKALMAiACKALQAhC5AiACQamWwABBDiACKAKkASACKAKoAUEAIAIQ0wE2AtwCIAAgAkHcAmoiABDGASAAENIDIAEQmgQgAkHIAmoQmgQMBgsjAEEQayIDJAAgAyACQaABaiIANgIMIAAoAgwgACgCBCIBa0EHdiEAA0AgAARAIABBAWshACABEPsCIAFBgAFqIQEMAQsLIwBBEGsiACQAIAAgA0EMaigCACIBKAIANgIMIAAgASgCCDYCCCAAQQhqEJcEIABBEGokACADQRBqJAAMBQsgAEEANgIQDAQLIANBADYCEAwDCyADQQA2AhALIAJByAJqEJoEDAELIAIrA7ACIRAgACAAKAIEQQFqIgE2AgQgAUUEQAALQQhBEBDBAyIDIAA2AgggAyAQOQMAIAIgAkHUAmoiBxClBDYCoAEgAiACQaABaiIEEKcENgLYAiAEENIDIwBBIGsiACQAIABCADcCFCAAQRRqEKUDIgEgASgCAEEBaiIFNgIAIAVFBEAACyAAIAE2AhwgAEGgk8AANgIYIAAgAzYCFCMAQRBrIgMkAEEEQQwQwQMiBSAAQRRqIgYoAgg2AgggBSAGKQIANwIAIANBCGoiBkHEgcAANgIEIAYgBTYCACADKAIIQcSBwAAQkgQhBSADQRBqJAAgACAFNgIQIABBEGoQjgMhCCAAQQhqIAFBCGoQjQMgACgCDCEDIAAoAggiBhC7AyAGIAU2AgQgBkEBNgIAIAMgAygCAEEBajYCACABEJcDIABBIGokACACIAg2AtwCIAIgAkHYAmoiACACQdwCaiIBEPYDNgKgASAEENIDIAEQ0gMgABDSAyAHENIDIAJByAJqENMDIAJBsAJqEOIDCyACQeACaiQAC8APAwZ/A34IfCMAQbAFayICJAAgAiABNgIUIAIgAkEUahCjBDYCnAEgAiACQZwBaiIBNgKkAyACQaACaiABQfuawABBARDaAgJAAkAgAigCoAIiAUGAgICAeEYNACACIAIpAqQCIgg3AvgDIAIgATYC9AMCQAJAAkACQCAIpyIBIAhCIIinIgNB5pvAAEEEEKcDRQRAIAEgA0Hwm8AAQQQQpwNFDQFBgICAgHghAQwDCyACIAJBnAFqQeqbwABBBhCtAjYCkAQgAiACQZAEaiIBQb+ZwABBBhCtAjYClAQgAkGgAmoiAyABQbSPwABBBBDaAgJ/QYCAgIB4IAIoAqACIgRBgICAgHhGDQAaIAIgAikCpAI3ApwEIAIgBDYCmAQgAyABQf2awABBCBDaAgJAIAIoAqACIgRBgICAgHhGDQAgAiACKQKkAjcCqAQgAiAENgKkBCADIAFB9I/AAEEHENsCIAIoAqACRQRAIAJBpARqEJoEDAELIAIrA6gCIQsgAkGgAmogAkGQBGpB+4/AAEEIENsCIAIoAqACRQRAIAJBpARqEJoEDAELIAIpA6gCIQkgAkGgAmogAkGQBGpBg5DAAEEPENsCIAIoAqACRQRAIAJBpARqEJoEDAELIAIrA6gCIQwCQCACQZAEakGsmsAAQQgQygJB/wFxIgdBAkYNAAJAIAJBlARqEIwEBEBBgICAgHghBQwBC0EAIQEDQCABQTBHBEAgAkHwBGogAWpCADcDACABQQhqIQEMAQsLIAJCgICAgOAANwKoAiACIAJBoAVqIgM2AqQCIAJBsAJqQZibwABBMPwKAAAgAkIANwLgAiACQagCaiEFIAJB8ARqIQEDQAJAIAEgA0YNACACIAFBCGo2AqACIAJBCGogBRDVAiACKAIIIgNFDQAgAkGgBWogAkGUBGogAyACKAIMENsCIAIoAqAFRQ0DIAEgAisDqAU5AwAgAigCpAIhAyACKAKgAiEBDAELCyACKwPwBCENIAIrA/gEIQ4gAisDgAUhDyACKwOIBSEQIAIrA5AFIREgAisDmAUhEiACQaACaiACQZQEaiIBQYWbwABBCBDaAiACKAKgAiIFQYCAgIB4Rg0BIAIpAqQCIQggAkHIAGogAUGNm8AAQQgQ2gIgAiASOQNAIAIgETkDOCACIBA5AzAgAiAPOQMoIAIgDjkDICACIA05AxggAkGwBGogAkEYakE8/AoAAAsgAiACKAKgBDYCiAQgAiACKQKYBDcDgAQgAikCqAQhCiACKAKkBAwCCyACQaQEahCaBAsgAkGYBGoQmgRBgICAgHgLIQEgAkGUBGoQ0gMgAUGAgICAeEcNASACQZAEahDSAwwDCyABIANB9JvAAEEFEKcDBEBBgYCAgHghAQwCCwJAIAEgA0H5m8AAQQUQpwNFBEAgASADQf6bwABBBRCnA0UNAUGDgICAeCEBDAMLIAJBoAJqIAJBpANqEPwDIAIoAqACRQ0DIAIrA6gCIQtBgoCAgHghAQwCCyABIANBg5zAAEEFEKcDBEBBhICAgHghAQwCCwJAIAEgA0GInMAAQQQQpwNFBEAgASADQYycwABBBhCnA0UNBCACQaACaiACQZwBakHnmsAAQQIQ2wIgAigCoAINAQwECyACQaACaiACQaQDahD8AyACKAKgAkUNAyACKwOoAiELQYWAgIB4IQEMAgsgAisDqAIhCyACQZwBaiIGQZKcwABBAhDKAkH/AXEiBEECRg0CQYaAgIB4IQEgBkH+k8AAQQUQrQIhBgwBCyACQbgDaiACQbAEakE8/AoAACACIAIoAogENgKwAyACIAIpA4AENwOoAyAJQiiIpyEDIAlCIIinIQQgAkGQBGoQ0gMgCachBgsgAkH0A2oQmgQgAUGHgICAeEYNASACIAM7ACUgAkEnaiADQRB2OgAAIAIgDDkDKCACIAQ6ACQgAiAGNgIgIAIgCzkDGCACQTBqIAJBuANqQTz8CgAAIAIgCDcDcCACIAU2AmwgAiAHOgCQASACIAo3A4gBIAIgAikDqAM3A3ggAiACKAKwAzYCgAEgAiABNgKEASACQZwBahDSAwJAAkACQAJAAkACQCABQQBOBEAgAkGgAWoiASACQRhqQYAB/AoAACAAQQhqIgMQjgMhBUEEQQQQwQMiBCAFNgIAIAIgAUEBIARBkJ/AABB4IAIoAgQhASACKAIAQQFxRQ0BIAIgATYCsAQgAkGgAmoiAEEEciACQbAEaiIBEIICIAJBDDoAoAIgAyAAEH4gABCkAiABENIDDAILIAAoAgAiA0H/////B08NBCAAIANBAWo2AgAgACgCBCIBRQ0DIAEgASgCAEEBaiIDNgIAIAMNAgALIAAoAgANBCAAQX82AgAgAEEEahDyAyAAIAE2AgQgACAAKAIAQQFqNgIACyACKAKEAUEATg0GIAJBGGoQ+wIMBgsgACAAKAIAQQFrNgIAIAIgATYCsAQgAkGgAmoiACACQRhqQYAB/AoAACACQbAEaiIBIAAQjAEgARCrAwwFCyAAIAM2AgAgAkEYahD7AgwEC0G4n8AAEPcCAAtBqJ/AABD2AgALIAJB9ANqEJoECyACQZwBahDSAwsgAkEUahDSAyACQbAFaiQAC5wSAwl/A3wBbyMAQYAEayIBJAACQAJAIAAoAgAiAygCEA0AIAMtANYEDQAgA0EANgIQIANBAToA2AQCQCADKALAA0ECRw0AIANBwANqIQkgAUEwaiIEQRwQ0QIgBEHllsAAQQQQuQIgAUEMELgEIgQ2ArQBIAQQvQQgAUEANgLYASABQgA3A9ABIAFBtAFqIgQgAUHQAWpBDBCLAiABIAEoAtgBNgL4AiABIAEpA9ABNwLwAiAEENIDIAFB8AJqIQQDQCACQQxHBEAgAUEwaiIFIAIgBGotAAAiBkEEdi0A55RAEPcBIAUgBkEPcS0A55RAEPcBIAJBAWohAgwBCwsgASABKQIwNwMgIAEgASgCODYCKCABQdABaiADQdAFahCKAiABQegCaiABQSBqEIoCIAMrA+AEIQogAysD6AQhCyADKwPwBCEMIAMtAN0FIQIgAUHIAGoiBCADQfgEahDNASABIAI6AKgBIAEgDDkDQCABIAs5AzggASAKOQMwIAEgASgC2AE2ApgBIAEgASkC0AE3A5ABIAEgASkC6AI3ApwBIAEgASgC8AI2AqQBAkAgAygCEEUEQCADQX82AhAgA0GYBGoQmgQgAyABKAIoNgKgBCADIAEpAyA3ApgEIAMgAygCEEEBajYCEAwBCyABIAEoAig2AvACIAEgASkDIDcD6AIgAUHoAmoQmgQLAkACfwJAIAMtANwFRQRAQQEhBiADIAMoAgRBAWoiAjYCBCACDQEMBgsgAUHoAmohBSMAQRBrIgIkAAJAAkBBAEH4lMAAKAIAEQQAIgRFDQAgBCgCACIHQf////8HSQRAIAQgB0EBajYCACACQQRqIARBBGoQtAMgBCAEKAIAQQFrNgIAIAIoAgRBgYCAgHhGDQEgBSACKAIMNgIIIAUgAikCBDcCACACQRBqJAAMAgtBjJXAABD3AgALEPUCAAsCQAJAAkAgASgC6AIiBUGAgICAeEcEQCABKALwAiEEIAEoAuwCIQIMAQsgARD0AzYCyAEgAUHIAWoiBCgCACUBQfyUwABBDxA3IAEgA0HEBWoQpQQ2AugCIwBBEGsiAiQAIAFB6AJqIgcoAgAlASAEKAIAJQEQQiENEJ0BIgUgDSYBIAJBCGoQlQNBASEEIAFBEGoiBgJ/IAIoAghBAUYEQCACKAIMDAELQQAhBCAFCzYCBCAGIAQ2AgAgAkEQaiQAIAEoAhQhAgJAIAEoAhBBAUcEQCABIAI2AswBIAFB6AJqIgQQ0gMjAEEgayICJAAgAkEYaiABQcwBaiIHKAIAJQEQQSACKAIcIQUgAigCGCEGIAJBEGoQlQMCQCACKAIQQQFGBEAgAigCFCEFIARBgICAgHg2AgAgBCAFNgIEDAELIAJBCGogBiAFEP4DIAIoAgghBiACKAIMIQgjAEEQayIFJAAgBUEIaiAGIAgQvAIgBSgCCCEGIAQgBSgCDCIINgIIIAQgBjYCBCAEIAg2AgAgBUEQaiQACyACQSBqJAAgASgC7AIhAiABKALoAiIFQYCAgIB4Rw0BCyAHENIDIAFByAFqENIDDAILIAEgASgC8AIiBDYC2AEgASACNgLUASABIAU2AtABIAFB0AFqIQgjAEEQayIGJAACQEEAQfiUwAAoAgARBAAiBwRAIAZBBGogCBCKAiAHKAIARQ0BQZyVwAAQ9gIACxD1AgALIAdBfzYCACAHQQRqENsDIAcgBigCDDYCDCAHIAYpAgQ3AgQgByAHKAIAQQFqNgIAIAZBEGokACABQcwBahDSAyABQcgBahDSAwsgASAENgK8ASABIAI2ArgBIAEgBTYCtAEjAEEQayIFJAAgAiAEEA8hDRCdASIEIA0mASAFQQhqEJUDQQEhAiABQQhqIgcCfyAFKAIIQQFGBEAgBSgCDAwBC0EAIQIgBAs2AgQgByACNgIAIAVBEGokACABKAIMIQIgASgCCEEBRgRAIAFBtAFqEJoEDAELIAEgAjYCsAEgAUG0AWoQmgQgARD0AzYC0AEgAUH+lcAAQQQQ2gM2AugCIAFB0AFqIgRBgpbAAEEEIAFB6AJqIgUQrwIgBRDSAyAEQYaWwABBBiADQcgFahCvAiABIAFBsAFqIgUgBBC2AiABKAIAQQFHDQEgASgCBCECIAUQtAQgBBDSAyAFENIDC0Gql8AADAILIAMgAygCBEEBaiIENgIEIARFDQVBBEEEEMEDIgQgAzYCACAEQeSDwAAQlAQhBCADIAMoAgRBAWoiBTYCBCABIAQ2AsABIAVFDQVBBEEEEMEDIgUgAzYCACABIAVB0IPAABCRBCIHNgLEASABQbABaiIFIAFBwAFqEJsDIAUgAUHEAWoQmgMgAUHQAWoQ0gNBACEFQQAhBgwCC0EEQQQQwQMiAiADNgIAIAFByANqIAFBkAFqEIoCIAFB1ANqIAFBnAFqEIoCIAErAzAhCiABKwM4IQsgASsDQCEMIAEtAKgBIQUgAUGAA2ogBBDNASABIAU6AOADIAEgDDkD+AIgASALOQPwAiABIAo5A+gCIAFBGGogAUHoAmpBACACQeyWwAAQeCABKAIcIQIgASgCGEEBaiIFQQJHBEBBJiEEDAILQYSXwAALIQMgASACNgLQASABQamWwABBDiADQSYgAUHQAWoiAxDtATYC6AIgACABQegCaiICEMYBIAIQ0gMgAxDSAyABQTBqEL4DDAELIAEgBjoAtAEgAygCEEUEQCADQX82AhAgASAHNgL0AiABIAQ2AvACIAEgAjYC7AIgASAFNgLoAiABQfgCaiIGIAFBMGpBgAH8CgAAIAEgAUG0AWo2AvgDIAkQ4AMgAyAHNgLMAyADIAQ2AsgDIAMgAjYCxAMgAyAFNgLAAyADIAEtALQBIgI6ANUEAkAgAkUEQCADQaQEaiAGENkCDAELIAYQvgMLIAMgAygCEEEBajYCEAwBCyABIAc2AtwBIAEgBDYC2AEgASACNgLUASABIAU2AtABIAFB4AFqIgMgAUEwakGAAfwKAAAgASABQbQBajYC4AIgAUHQAWoQ8wIgAxC+AwsgAUGAgICAeDYC1AMgACABQegCahBvCyABQYAEaiQADwsAC6cOAgh/BnwjAEHAA2siAiQAAkACQAJAAkAgACgCACIDKAIQRQRAIANBfzYCECACQaABaiABQYAB/AoAACACKAKMAiEAIAJBEGoiBiABQYAB/AoAACADLQDVBA0BIAMoAsADQQJGBEAgBhD7AgwDCyADQaQEaiABENkCDAILIAJBoAFqIgAgAUGAAfwKAAAgABD7AgwDCwJAAkACQCADKALAAw4DAQACAAsgA0HwA2oiACgCDCIFIAAoAgAiBEYEQCAAKAIAIQUgABCwAgJAIAAoAggiBiAFIAAoAgwiB2tNDQAgBSAGayIEIAcgBGsiB0sgACgCACIJIAVrIAdPcUUEQCAJIARrIQUgBEEHdCIEBEAgACgCBCIHIAVBB3RqIAcgBkEHdGogBPwKAAALIAAgBTYCCAwBCyAHQQd0IgRFDQAgACgCBCIGIAVBB3RqIAYgBPwKAAALIAAoAgAhBCAAKAIMIQULIAAgBUEBajYCDCAAKAIEIAAoAgggBWoiACAEQQAgACAETxtrQQd0aiABQYAB/AoAAEEBIQUgAygC/ANBAUYhBEGHgICAeCEADAMLIANBxANqEI4DIQggAiABKQN4NwOoAiACIAEpA3A3A6ACDAILIAJBEGoQ+wILQYiAgIB4IQALIAMgAygCEEEBajYCECAAQYmAgIB4Rg0AIAIgCDYCFCACIAQ6ABEgAiAFOgAQIAJBGGogAUHsAPwKAAAgAiACKQOgAjcDiAEgAiACKQOoAjcDkAEgAiAANgKEASAAQYiAgIB4Rg0AAkACQCAFBEAgBARAIAMgAygCBEEBaiIBNgIEIAFFDQJBBEEEEMEDIgEgAzYCACACIAFBwJTAABDAASIBNgKgASABELwEIAJBoAFqENIDCyAAQYeAgIB4Rg0DIAJBGGoQ+wIMAwsgAEGHgICAeEYNASACIAg2ApwBIAJBoAFqIAJBGGpBgAH8CgAAAkACQAJAAkACQAJAAkACQAJAIAIoAowCIgBBH3UgAEH/////B2txQQFrDgcBAgMEBQYHAAsgAkHmm8AAQQQQqwIiATYCtAIgAhD0AyIFNgK4AiACIAIoAoQCIAIoAogCENoDNgLAAiACQbgCaiIDQbSPwABBBCACQcACaiIAEK8CIAAQ0gMgAiACKAKQAiACKAKUAhDaAzYCwAIgA0H9msAAQQggABCvAiAAENIDIAIgAisDoAEQtwQ2AsACIANB9I/AAEEHIAAQrwIgABDSAyACIAIrA6gBELcENgLAAiADQfuPwABBCCAAEK8CIAAQ0gMgAiACKwOwARC3BDYCwAIgA0GDkMAAQQ8gABCvAiAAENIDIAJBgghBgwggAi0AmAIbNgLAAiADQayawABBCCAAEK8CIAAQ0gMgAigC9AFBgICAgHhHBEAgAhD0AyIDNgK8AiACIAIoAvgBIAIoAvwBENoDNgLAAiACQbwCaiIEQYWbwABBCCAAEK8CIAAQ0gMgAigC6AFBgICAgHhHBEAgAiACKALsASACKALwARDaAzYCwAIgBEGNm8AAQQggABCvAiAAENIDCyACKwO4ASEKIAIrA8ABIQsgAisDyAEhDCACKwPQASENIAIrA9gBIQ4gAisD4AEhDyACQoCAgIDgADcDwAIgAkHIAmpBmJvAAEEw/AoAACACQgA3A7ADIAIgDzkDqAMgAiAOOQOgAyACIA05A5gDIAIgDDkDkAMgAiALOQOIAyACIAo5A4ADIAJCgICAgOAANwP4AiACQYADaiEEA0ACQCACQQhqIAJBwAJqENUCIAIoAggiBkUNACACKAL4AiIAIAIoAvwCRg0AIAIoAgwhByACIABBAWo2AvgCIAIgBCAAQQN0aisDABC3BDYCvAMgAkG8AmogBiAHIAJBvANqIgAQrwIgABDSAwwBCwsgAiADNgK8AyACQbgCakG/mcAAQQYgAkG8A2oiABCvAiAAENIDCyACIAU2AsACIAJBtAJqQeqbwABBBiACQcACaiIAEK8CIAAQ0gMMBwtB8JvAAEEEEKsCIQEMBgtB9JvAAEEFEKsCIQEMBQtB+ZvAAEEFIAIrA6ABEKcCIQEMBAtB/pvAAEEFEKsCIQEMAwtBg5zAAEEFEKsCIQEMAgtBiJzAAEEEIAIrA6ABEKcCIQEMAQsgAkGMnMAAQQYQqwIiATYCvAMgAiACKwOgARC3BDYCwAIgAkG8A2oiA0HnmsAAQQIgAkHAAmoiABCvAiAAENIDIAJBgghBgwggAi0ArAEbNgLAAiADQZKcwABBAiAAEK8CIAAQ0gMgA0H+k8AAQQUgAkGoAWoQrwILIAIgATYCvAIgAiACQZwBaiIAIAJBvAJqIgEQtgIgAiACKQMANwLAAiACQcACahDTAyABENIDIAJBoAFqEPsCIAAQ0gMMAgsACyACQRBqQQRyENIDCyACQcADaiQAC9cKAwd/An4BfCMAQfABayICJAACQCAAKAIAIgMoAhANACADQX82AhACfCADLQDYBEEBRwRAQgIhCUQAAAAAAAAAAAwBCyADQYACOwHYBCADKQOQAyEJIAMpA5gDIAJBqAFqIANBmARqEIoCIAMoAhBBAWohBLoLIQsgAyAENgIQIAIgAigCsAE2AjggAiACKQOoATcDMCAJQgJRDQAgAiACKAI4NgIgIAIgAikDMDcDGCAAQeyPwABBCBCYAgJAQaiYwABBEBChAkUgCadBAXFFcg0AIAJBjAFqIgBBuJjAAEELEO8BIAAgAygC1AUgAygC2AUQuQIgAkEQaiACKAKQASACKAKUARCHAiACIAIoAhQiATYCKCACIAIoAhAiBDYCJCAEQQFxRQRAIAIgATYCLCACKAIcIQEgAigCICEEIAJB4ABqQaWcwABBBxDvASACQewAaiABIAQQ7wEgAkGAgICAeDYC4AEgAiALOQNIIAJCATcDQCACQgA3AzAgAkGCBDsBhAEgAkIANwNQIAJBgICAgHg2AtQBIAJCADcDmAEgAkGAgICAeDYCyAEgAkIANwOoASACQYIEOwHsASACQgA3A7gBIAIgAigC6AE2AoABIAIgAikD4AE3A3ggAkHIAWoQ2wMgAkHUAWoQ2wMgAiACQTBqIgQQgAE2AogBIAJBCGogAkEsaiIBIAJBiAFqIgUQtwIgAiACKQMINwKYASACQZgBahDTAyAFENIDIAQQvQMgARC2BCABENIDIAAQmgQMAQsgAkGMAWoQmgQgAkEoahDSAwsCQCADKAIQDQAgA0F/NgIQAkACQAJAIAMtANcEDQAgAygCwAMhASADQQI2AsADIAMoAsQDIQACQCABDgMDAAEACyAAIAAoAgBBAWoiATYCACABDQEACyADQQA2AhAMAgsgA0HAA2oQ4AMgAyAANgLEAyADQQE2AsADIAMgAygCEEEBajYCECACIAA2AowBIAJCBTcDmAEgAkEBOgCgASACQYwBaiIAIAJBmAFqEGsgABCrAwwBCyADKQPIAyEJIANBADYCECACIAk3AjggAiAANgI0IAJBADYCMCACIAA2AogBIAJBiAFqIgBBABCbAyAAQQAQmgMgABC0BAJAIAMoAhBFBEAgA0EAOgDVBCADQX82AhAgAygCrAQhACADQQA2AqwEIAMoAqgEIQQDQCAABEAgAEEBayEAIAQQ+wIgBEGAAWohBAwBCwsgAygCxAQhBiADKALABCEAIANCCDcCwAQgAygCsAQhByADKAK0BCEFIANCgICAgMAANwOwBCADKAK4BCEBIAMoArwEIQQgA0IANwO4BCADIAMoAhBBAWo2AhAgBEGAgICAeEcNAQtBBCEFQQAhAUEAIQdBACEGQQghAEEAIQQLIAJBOGogAiABNgKUASACIAU2ApABIAIgBzYCjAEgAiAAIAZBBHQiBWo2AqQBIAIgBDYCoAEgAiAANgKcASACIAA2ApgBA0AgBQRAIAIgAEEQaiIBNgKcASACIAAoAgg2AiQgBUEQayEFIAJBJGoiABC1BCAAENIDIAEhAAwBCwsjAEEQayIDJAAgAyACQZgBaiIANgIMIAAoAgQiBEEIaiEBIAAoAgwgBGtBBHYhAANAIAAEQCAAQQFrIQAgARDSAyABQRBqIQEMAQsLIwBBEGsiACQAIAAgA0EMaigCACIBKAIANgIMIAAgASgCCDYCCCAAQQhqEJkEIABBEGokACADQRBqJAAgAkGMAWoQrwEgAkGIAWoQ0gMQnQQgAkE8ahCdBAsgAkEYahCaBAsgAkHwAWokAAufCAMEfwJ8AX4jAEGAAWsiAiQAIAIgATYCDCAAEMwCIgAEQCACIAA2AhAgAiACQQxqEKMENgIUIAIgAkEUaiIANgJEIAIgADYCSCACQdgAaiAAQfuawABBARDaAgJAIAIoAlgiAEGAgICAeEYNACACIAIpAlwiCDcCUCACIAA2AkwCQAJ/QQAgCKciASAIQiCIpyIAQbSawABBBRCnAw0AGgJ/AkACQAJAAkACQAJAAkACQCABIABBrJrAAEEIEKcDRQRAIAEgAEG5msAAQQQQpwMNASABIABBvZrAAEEEEKcDDQggASAAQcGawABBBxCnAw0HIAEgAEHImsAAQQgQpwMNAyABIABBv5nAAEEGEKcDDQUgASAAQdWawABBChCnA0UNAkEHDAoLIAJBFGpBjJTAAEEFEMoCQf8BcSIBQQJGDQpBAQwJCyACQdgAaiACQcQAahD8AyACKAJYRQ0JIAIrA2AhBkECDAgLQQggASAAQd+awABBBBCnAw0HGkEJIAEgAEGHj8AAQQYQpwMNBxogASAAQeOawABBBBCnAw0BIAEgAEHzmsAAQQUQpwNFBEAgASAAQdaXwABBBhCnA0UNCSACQdgAaiACQRRqQfiawABBAxDaAiACKAJYIgBBgICAgHhGDQkgAisCXCEGQQwMCAsgAkHYAGogAkHEAGoQ/AMgAigCWEUNCCACKwNgIQZBCwwHCyACQdgAaiACQRRqQdCawABBBRDbAiACKAJYDQIMBwsgAkHYAGoiBCACQRRqIgNB55rAAEECENsCIAIoAlhFDQYgAisDYCEGIAQgA0HpmsAAQQYQ2gJEAAAAgAAAAAAgAisDWCACKAJYQYCAgIB4RhsiB72nQYCAgIB4Rg0GIAIoAmAhBCADQe+awABBBBCtAiEDQQoMBQsgAkHYAGogAkHIAGoQvQEgAigCWEUNBSACKQN4IQggAigCdCEDIAIoAnAhBCACKwNoIQcgAisDYCEGQQYMAwsgAisDYCEHIAJB2ABqIAJBFGpB+JPAAEEGENoCIAIoAlgiAEGAgICAeEYNBCACKwJcIQZBBQwDCyACQdgAaiACQcgAahC9ASACKAJYRQ0DIAIpA3ghCCACKAJ0IQMgAigCcCEEIAIrA2ghByACKwNgIQZBBAwBCyACQdgAaiACQcgAahC9ASACKAJYRQ0CIAIpA3ghCCACKAJ0IQMgAigCcCEEIAIrA2ghByACKwNgIQZBAwsLIQUgAkHMAGoQmgQgAiAINwM4IAIgAzYCNCACIAQ2AjAgAiAHOQMoIAIgBjkDICACIAA2AhwgAiABOgAZIAIgBToAGCACQRBqIAJBGGoQbAwBCyACQcwAahCaBAsgAkEQahCsAyACQRRqENIDCyACQQxqENIDIAJBgAFqJAALwQYBCH8CQAJAIAEgAEEDakF8cSIDIABrIgdJDQAgASAHayIIQQJ2IgZFDQBBACEBIAAgA0cEQCAAIANrIgNBfE0EQANAIAEgACAEaiICLAAAQb9/SmogAkEBaiwAAEG/f0pqIAJBAmosAABBv39KaiACQQNqLAAAQb9/SmohASAEQQRqIgQNAAsLIAAgBGohAgNAIAEgAiwAAEG/f0pqIQEgAkEBaiECIANBAWoiAw0ACwsgACAHaiEDAkAgCEEDcSIARQ0AIAMgCEH8////B3FqIgQsAABBv39KIQUgAEEBRg0AIAUgBCwAAUG/f0pqIQUgAEECRg0AIAUgBCwAAkG/f0pqIQULIAEgBWohBANAIAMhACAGRQ0CQcABIAYgBkHAAU8bIgVBA3EhBwJAIAVBAnQiA0HwB3EiAUUEQEEAIQIMAQsgACABaiEIQQAhAiAAIQEDQCACIAEoAgAiCUF/c0EHdiAJQQZ2ckGBgoQIcWogAUEEaigCACICQX9zQQd2IAJBBnZyQYGChAhxaiABQQhqKAIAIgJBf3NBB3YgAkEGdnJBgYKECHFqIAFBDGooAgAiAkF/c0EHdiACQQZ2ckGBgoQIcWohAiABQRBqIgEgCEcNAAsLIAYgBWshBiAAIANqIQMgAkEIdkH/gfwHcSACQf+B/AdxakGBgARsQRB2IARqIQQgB0UNAAsCfyAAIAVB/AFxQQJ0aiIAKAIAIgFBf3NBB3YgAUEGdnJBgYKECHEiASAHQQFGDQAaIAEgACgCBCIDQX9zQQd2IANBBnZyQYGChAhxaiIBIAdBAkYNABogACgCCCIAQX9zQQd2IABBBnZyQYGChAhxIAFqCyIAQQh2Qf+BHHEgAEH/gfwHcWpBgYAEbEEQdiAEaiEEDAELIAFFBEBBAA8LIAFBA3EhAkEAIQMgAUEETwRAIAFBfHEhBgNAIAQgACADaiIBLAAAQb9/SmogAUEBaiwAAEG/f0pqIAFBAmosAABBv39KaiABQQNqLAAAQb9/SmohBCAGIANBBGoiA0cNAAsgAkUNAQsgACADaiEBA0AgBCABLAAAQb9/SmohBCABQQFqIQEgAkEBayICDQALCyAEC+oGAwh/A34CfCMAQZACayIEJAAgBEEwaiAAQSj8CgAAIAQgATYCiAICQAJAAkAgAkEBRgRAIARBiAJqENIDDAELIARBKGogARDSAiAEQSBqIAQoAiggBCgCLBCpAgJAAkAgBCgCIEEBcQRAIAQgBCgCJDYCjAIgBEEYaiAEQYwCahCGAiAEQRBqIAQoAhggBCgCHBCpAiAEKAIQQQFGBEAgBCAEKAIUIgA2ArABIARBsAFqIgEQiQRFDQIgARDSAwsgBEGMAmoQ0gMLDAELIAQgADYCXCAEQQhqIARB3ABqIgAQiAIgBEGwAWoiASAEKAIIIAQoAgwQxQIQiwEgBCAAEIUCIARBgAFqIAEgBCgCACAEKAIEEL8BEI0BIAAQ0gMgBEGMAmoQ0gMgBCkDgAEhDCAEKAKIASEDIAAgBEGMAWpBJPwKAABCASENIAxCAn0iDkIBWARAQgAhDSAOp0EBaw0BDAILIAQgAzYCuAEgBCAMNwOwASAEQbwBaiAEQdwAakEk/AoAACAEKQPAASEMIARByAFqEJoEIAQrAzAiDyAMuiIQYg0AIAQoAkghBSAEKAJEIQYgBCgCQCEBIAQoAjwhAiAEKAJMIQAgBCAEKAJQNgKMAiAEIAA2AogCIAQgAiABENoDNgKwASAEQbABaiIAEKUEIQMgABDSAyAEIAIgARDaAzYCsAEgACAEQYgCaiIHEP0DIQggABDSAyAEIA8QtwQ2ArABIARBjAJqIgkgABDAAiEKIAAQ0gMgBBD0AyILNgKAASAEIA8QtwQ2ArABIARBgAFqQdCawABBBSAAEK8CIAAQ0gMgBEKAgICAIDcCsAEgABClAyICIAIoAgBBAWoiATYCACABBEAgBEEAOgC6ASAEQQE7AbgBIARBBjYCtAEgBEHunMAANgKwAUEIQSAQwQMiASACNgIYIAEgCzYCFCABIAg2AhAgASAKNgIMIAEgAzYCCCABIA85AwBBBEEMEMEDIgMgBTYCCCADIAY2AgQgAyACNgIAIAAgAUHEnsAAIANB1J7AABCCASAJENIDIAcQ0gMgBEE4ahCaBAwECwALIARBxABqIARByABqQQBBACANIBAQ4AEQtgEMAQsgBEHEAGogBEHIAGpBASADELYBCyAEQTBqEP0CCyAEQZACaiQAC+AIAQp/IwBB4AFrIgMkACAAKAIAIQUgACgCBCEHIAMgAjYCLCADIAE2AiggAyAHNgIkIAMgBTYCIEEEIQAgA0EsaiEJAkACQCADQSBqEMwCIgQEQCADIAQ2AjAgAyAHNgI0QQAhAiADAn9BACAEKAIQDQAaIARBfzYCECAEQdADahDcAyAEQQI2AtADIAQoAsgEIQYgBEEANgLIBCAEKALQBCAEKALMBCEFIARCBDcCzAQgBCAEKAIQQQFqNgIQQQAgBkGAgICAeEYNABogBCgCwANBAkchCiECIAUhACAGCzYCWCADIAA2AlQgAyAANgJQIAMgACACQQR0IgJqNgJcIANB7ABqIQsgA0HoAGohDCADQeQAaiEFA0ACQCACRQ0AIAMgAEEQaiIBNgJUIAMgACkCBDcDOCADIAAoAgw2AkAgACgCACIGRQ0AIAUgAygCQDYCCCAFIAMpAzg3AgAgAyAGNgJgIAMoAmQhCCMAQRBrIgAkACAMKAIAJQEgBiAIIAsoAgAlARAbIABBCGoQlQMgACgCDCEGIANBGGoiCCAAKAIIQQFxNgIAIAggBjYCBCAAQRBqJAAgAyADKQMYNwJIIAJBEGshAiADQcgAahDTAyADQeAAahDdAyABIQAMAQsLIwBBEGsiBSQAIAUgA0HQAGoiBiIANgIMIAAoAgwgACgCBCIBa0EEdiECA0AgAgRAIAJBAWshAiABEN0DIAFBEGohAQwBCwsjAEEQayIAJAAgACAFQQxqKAIAIgEoAgA2AgwgACABKAIINgIIIABBCGoQlQQgAEEQaiQAIAVBEGokAAJAIApFBEAgA0GACDYCUCADQRBqIANBNGoiACAGEPwBIAMgAykDEDcCYCADQeQAahDSAyAGENIDIAAQ0gMMAQsgBCAEKAIEQQFqIgA2AgQgAEUNAyMAQRBrIgAkACMAQRBrIgEkAEEEQQQQwQMiAiAENgIAIAFBCGoiBUHYgsAANgIEIAUgAjYCACABKAIIQdiCwAAQkwQhAiABQRBqJAAgACACNgIMIAAgAEEMakHoBxD/ASAAKAIAIAAoAgQQxwMhBSADQdAAaiIBIAI2AgwgAUEBNgIIIAEgBTYCBCABQQE2AgAgAEEQaiQAAkAgBCgCEEUEQCAEQX82AhAgBEGQBGoQ0wMgBCAHNgKUBCAEQQE2ApAEIARB4ANqENwDIAQgAykCWDcC6AMgBCADKQJQNwLgAyAEIAQoAhBBAWo2AhAMAQsgAyADKQJYNwNoIAMgAykCUDcDYCADIAc2AnAgA0HwAGoQ0gMgA0HgAGoQpgMLIANBhICAgHg2AswBIANBMGogA0HgAGoQbwsgA0EwahCsAyAJENIDIANBIGoQ+gIMAQsgA0GACDYCUCADQQhqIANBJGoiACADQdAAaiIBEPwBIAMgAykDCDcCYCADQeQAahDSAyABENIDIAkQ0gMgA0EgahD6AiAAENIDCyADQeABaiQADwsAC6sFAgh/AX5BK0GAgMQAIAAoAggiCEGAgIABcSIGGyELIAZBFXYgBGohBgJAIAhBgICABHFFBEBBACEBDAELAkAgAkEQTwRAIAEgAhByIQUMAQsgAkUNACACQQNxIQkgAkEETwRAIAJBDHEhDANAIAUgASAHaiIKLAAAQb9/SmogCkEBaiwAAEG/f0pqIApBAmosAABBv39KaiAKQQNqLAAAQb9/SmohBSAMIAdBBGoiB0cNAAsgCUUNAQsgASAHaiEHA0AgBSAHLAAAQb9/SmohBSAHQQFqIQcgCUEBayIJDQALCyAFIAZqIQYLAkAgAC8BDCIJIAZLBEACQAJAIAhBgICACHFFBEAgCSAGayEJQQAhBUEAIQYCQAJAAkAgCEEddkEDcUEBaw4DAAEAAgsgCSEGDAELIAlB/v8DcUEBdiEGCyAIQf///wBxIQogACgCBCEIIAAoAgAhAANAIAVB//8DcSAGQf//A3FPDQJBASEHIAVBAWohBSAAIAogCCgCEBEDAEUNAAsMBAsgACAAKQIIIg2nQYCAgP95cUGwgICAAnI2AghBASEHIAAoAgAiCCAAKAIEIgogCyABIAIQ1wINA0EAIQUgCSAGa0H//wNxIQEDQCAFQf//A3EgAU8NAiAFQQFqIQUgCEEwIAooAhARAwBFDQALDAMLQQEhByAAIAggCyABIAIQ1wINAiAAIAMgBCAIKAIMEQYADQJBACEFIAkgBmtB//8DcSEBA0AgBUH//wNxIgIgAUkhByABIAJNDQMgBUEBaiEFIAAgCiAIKAIQEQMARQ0ACwwCCyAIIAMgBCAKKAIMEQYADQEgACANNwIIQQAPC0EBIQcgACgCACIGIAAoAgQiACALIAEgAhDXAg0AIAYgAyAEIAAoAgwRBgAhBwsgBwveCQMIfwF+AW8jAEHQAGsiAyQAAkACQAJAIAFBAUYEQCAAKAIAIAAoAgRBgAhBASACEM0CDAELIAMgAjYCLCADEPQDNgIwIANBMGoiBCgCACUBIAAtABlBAXRBAnEQPiAALQAYIQIgAyAAKAIIIgUgACgCDCIGENoDNgI0IwBBEGsiASQAIANBLGoiBygCACUBIANBNGoiCEEBIAIgBCgCACUBECAhDBCdASIJIAwmASABQQhqEJUDQQEhAiADQSBqIgoCfyABKAIIQQFGBEAgASgCDAwBC0EAIQIgCQs2AgQgCiACNgIAIAFBEGokACADKAIkIQEgAygCIEEBRw0BIAMgATYCQEEAIAMQpQIgACgCACAAKAIEQYAIQQEgA0FAayIBQcycwABBCxDnARDNAiABENIDIAgQ0gMgBBDSAyAHENIDCyAAQRBqELUDDAELIAMgATYCOCMAQRBrIgEkACADQThqKAIAJQEgBSAGEC8hDBCdASIEIAwmASABQQhqEJUDQQEhAiADQRhqIgUCfyABKAIIQQFGBEAgASgCDAwBC0EAIQIgBAs2AgQgBSACNgIAIAFBEGokACAAKAIQIQQgAygCHCEBIAMoAhghBiADIAAoAhQiBTYCRCADIAQ2AkBBASECAkAgBkEBRgRAIANBQGsQtQMMAQsgAyABNgJMIwBBEGsiASQAIAEgBDYCCCABIAU2AgwgASAEIANBzABqIgQgBSgCDBECACABKQMAIQsgAUEIahCwAyADQRBqIAs3AwAgAUEQaiQAIAMoAhQhASADKAIQIQIgBBDSAwsgAkEBRgRAIAMgATYCTCADIANBOGoiARDDAiADIAMpAwA3AkAgA0FAaxDTAyAAKAIAIAAoAgRBgAhBASADQcwAaiIAQZGUwABBBxDnARDNAiAAENIDIAEQ0gMgA0E0ahDSAyADQTBqENIDIANBLGoQ0gMMAQsgAC0AGgRAIwBBEGsiAiQAIANBOGooAgAlARAzIAJBCGoQlQMgAigCDCEEIANBCGoiBSACKAIIQQFxNgIAIAUgBDYCBCACQRBqJAAgAyADKQMINwJAIANBQGsQ0wMLIAMgA0E4ajYCQCADIANBQGsiAkHgjcAAENkDNgI8IAApAgAhCyADKAI4IQBBBEEQEMEDIgQgATYCDCAEIAA2AgggBCALNwIAIAMgA0E8aiIHEKUENgJAIAMgAhCnBDYCSCACENIDIwBBIGsiACQAIABCADcCFCAAQRRqEKUDIgEgASgCAEEBaiIFNgIAIAVFBEAACyAAIAE2AhwgAEHQk8AANgIYIAAgBDYCFCMAQRBrIgQkAEEEQQwQwQMiBSAAQRRqIgYoAgg2AgggBSAGKQIANwIAIARBCGoiBkGwgcAANgIEIAYgBTYCACAEKAIIQbCBwAAQkgQhBSAEQRBqJAAgACAFNgIQIABBEGoQjgMhCCAAQQhqIAFBCGoQjQMgACgCDCEEIAAoAggiBhC7AyAGIAU2AgQgBkEBNgIAIAQgBCgCAEEBajYCACABEJcDIABBIGokACADIAg2AkwgAyADQcgAaiIAIANBzABqIgEQ9gM2AkAgAhDSAyABENIDIAAQ0gMgBxDSAyADQTRqENIDIANBMGoQ0gMgA0EsahDSAwsgA0HQAGokAAv2BAIEfwJ+IwBB0ABrIgQkACAEIAE2AiggBCAEQShqNgIsIARBIGogBEEsaiIFQQAQ1wEgBCgCICEBIAQoAiQhBiAEQRhqIAVBARDXASAEIAY2AkQgBCABNgJAIAQgBCgCHCIHNgJMIAQgBCgCGCIFNgJIAkAgBUEBcSABQQFGcUUEQCABQQFxBEAgBEHEAGoQ0gMLIAVBAUYEQCAEQcwAahDSAwsgACgCECEBIAApAwggBCADNgJEIAQgAjYCQCAEIAJBAXEEfyADBSAEQUBrENMDQYAICzYCNCAEQQE6ADAgASAEQTBqEM8BDAELIAQgBjYCOCAEIAc2AjwCQAJAAkACQCACQQFGBEAgBCADNgIwIARBQGsiASAEQThqEP4BIAQoAkAiAkECRw0BIAEQ0wMgACgCECEBIAApAwghCAwCCyAEQRBqIARBPGoQhgIgBEEIaiAEKAIQIAQoAhQQqQICf0EAIAQoAghBAUcNABogBCAEKAIMIgE2AkAgBEFAayICEIkEBEAgAhDSA0EADAELIAQgATYCQCAEIARBQGsiARCFAiAEKAIAIAQoAgQQvwEhCCABENIDQQELIQEgACgCECECIAApAwggBEEAOgBAIAQgASAIIAApAwBRcToAQSACIARBQGsQzwEgBEE8ahDSAyAEQThqENIDDAQLIARBQGsQ0wMgACgCECEBIAApAwghCCACQQFGDQELIAQgAzYCRCAEQQE7AUAgCCABIARBQGsQzwEMAQsgBEEAOwFAIAggASAEQUBrEM8BIARBMGoQ0gMLIARBPGoQ0gMgBEE4ahDSAwsgBEEoahDSAyAEQdAAaiQAC7QMAgt/BX4jAEGgAmsiBSQAIAUgBDYCFCAFIAM2AhAgBSACOgAPIAUgAS0AeEEBRwR/QQAFIAUQyAEgBSAFKAIEIg02AhwgBSgCAAsiCjYCGCAFIAEoAnQ2AmAgBSABKQJsNwNYIAVB6ABqQfSPwABBByABKwMAELMBAkACQAJAIAUoAmhBAUYEQCAFKAJsIQIgBUHYAGoQmgQMAQsgBSkDcCERIAVB6ABqQfuPwABBCCABKwMIELMBIAUoAmhBAUYEQCAFKAJsIQIgBUHYAGoQmgQMAQsgBSkDcCEQIAVB6ABqQYOQwABBDyABKwMQELMBIAUoAmhBAUYEQCAFKAJsIQIgBUHYAGoQmgQMAQsgBSkDcCESIAVBCBC4BCIGNgKcAiAGEL0EIAVCADcDaCAFQZwCaiIGIAVB6ABqQQgQiwIgBSkDaCETIAYQ0gMgBUEgaiEGIAVB2ABqIQcgCkEARyEOQfuPwAAhC0EIIQxBzZDAACEIQRYhCQJAAkACQCAQUA0AIBAgEVoEQEHbkcAAIQhBGSEJDAELQYOQwAAhC0EPIQwgElANACASIBEgEH0iFEIAIBEgFFobVA0BQfSRwAAhCEEkIQkLIAZBgICAgHg2AiggBiAJNgIMIAYgCDYCCCAGIAw2AgQgBiALNgIAIAcQmgQMAQsgBiACOgA1IAYgDjoANCAGIBM3AyAgBkLAmgw3AxggBiASNwMQIAYgEDcDCCAGIBE3AwAgBiAHKAIINgIwIAYgBykCADcCKAsgBSgCSCIHQYCAgIB4Rw0BIAYQ1QEhAgsgBUEYahDTAyAFQRBqENgCIAFB4ABqEJoEIAFBGGoQ4wNBASEPDAELIAUoAiAhBiAFQfQAaiAFQSBqIgJBBHJBJPwKAAAgBSAFKAJUNgKkASAFIAUpAkw3ApwBIAJBuJjAAEELEO8BIAIgASgCZCABKAJoELkCIAVBqAFqIAFBGGpByAD8CgAAIAUgBDYC9AEgBSADNgLwASAFIAc2ApgBIAUgBjYCcCAFIA02AmwgBSAKNgJoIAUgASgCaDYCgAIgBSABKQNgNwP4ASAFIAUpAiA3AoQCIAUgBSgCKDYCjAIgBSAFQQ9qNgKQAiMAQZABayIBJABBEEHwBhCQBCICRQRAQRBB8AYQrQQACyACQoCAgIAQNwMAIAFCADcDKCABQgA3AzAgAUIANwM4IAVB6ABqIgMpAyghESADKQMIIRAgAygCjAEhBiADKAKIASEHIAMoAqgBLQAAIQggAygCfCIEQYCAgIB4RwRAIAMpA4ABIRIgAUFAayIJIANBQGtBPPwKAAAgASASNwOAASABIAQ2AnwgAkECNgIEIAEgAjYCjAEgAUGMAWoQ+QIgCRDkAwsgAkIANwMoIAJCADcDICACQgA3A1AgAkEANgIQIAIgASkDIDcDWCACIAEpAyg3A2AgAiABKQMwNwNoIAIgASkDODcDcCACIBA3A8gEIAIgEDcDwAQgAkIANwOgBCACQgA3A5AEIAJBADoAgAIgAkGBgICAeDYC8AEgAkIANwPYASACQoCAgICAATcD0AEgAkIANwPAASACQgA3A7ABIAJCADcDkAEgAUIANwMQIAFCADcDGCADKQMAIRAgAiARNwPoBCACQYCAgIB4NgKYBSACIBE3A6gFIAJCADcDsAUgAkEANgC3BSACQgA3A8AFIAJCADcD0AUgAiADKQMgNwPgBCACIAMpAxg3A9gEIAIgAykDEDcD0AQgAiADKQMwNwPwBCACIAMpAzg3A/gEIAIgASkDGDcD6AUgAiABKQMQNwPgBSACIAEpAwg3A9gFIAIgBjYCxAYgAiAHNgLABiACQQA6ALQGIAJBADYCsAYgAkECNgKcBiACQQA2ApAGIAJCADcDiAYgAkECNgLwBSACIARBgICAgHhHOgDpBiACIBA3A+AGIAIgCDoA6AYgAiADKQOQATcDyAYgAiADKAKYATYC0AYgAiADKAKkATYC3AYgAiADKQKcATcC1AYgAkEBNgIAIAFBkAFqJAAgBSACKALgBjoAaSAFQQE6AGggAigCwAYgAyACKALEBigCFBEBAAsgACACNgIEIAAgDzYCACAFQaACaiQAC84EAQZ/AkACQCAAKAIIIgdBgICAwAFxRQ0AAkACQAJAAkAgB0GAgICAAXEEQCAALwEOIgYNAUEAIQIMAgsgAkEQTwRAIAEgAhByIQMMBAsgAkUNAyACQQNxIQUgAkEETwRAIAJBDHEhCANAIAMgASAEaiIGLAAAQb9/SmogBkEBaiwAAEG/f0pqIAZBAmosAABBv39KaiAGQQNqLAAAQb9/SmohAyAIIARBBGoiBEcNAAsgBUUNBAsgASAEaiEEA0AgAyAELAAAQb9/SmohAyAEQQFqIQQgBUEBayIFDQALDAMLIAEgAmohCEEAIQIgASEEIAYhBQNAIAQiAyAIRg0CIAICfyADQQFqIAMsAAAiBEEATg0AGiADQQJqIARBYEkNABogA0EEQQMgBEFvSxtqCyIEIANraiECIAVBAWsiBQ0ACwtBACEFCyAGIAVrIQMLIAMgAC8BDCIETw0AIAQgA2shBkEAIQNBACEFAkACQAJAIAdBHXZBA3FBAWsOAgABAgsgBiEFDAELIAZB/v8DcUEBdiEFCyAHQf///wBxIQggACgCBCEHIAAoAgAhAANAIANB//8DcSAFQf//A3FJBEBBASEEIANBAWohAyAAIAggBygCEBEDAEUNAQwDCwtBASEEIAAgASACIAcoAgwRBgANAUEAIQMgBiAFa0H//wNxIQEDQCADQf//A3EiAiABSSEEIAEgAk0NAiADQQFqIQMgACAIIAcoAhARAwBFDQALDAELIAAoAgAgASACIAAoAgQoAgwRBgAhBAsgBAuZBQIHfwJ8IwBBwAFrIgEkACAAKAIoIQQgAEEANgIoAn8CQCAEBEAgACgCLCECIAFBQGsgAEEo/AoAACABIAI2AmwgASAENgJoIAFB8ABqIABBKPwKAAAgAUE4aiABQfgAaiIFEIYCIAEgASgCOCABKAI8EMUCNgKwASABIAFBsAFqIgNB0JrAAEEFEK0CNgKcASADENIDIAMgAUGcAWoQuAIgAUHoAGohBiABKwO4AUQAAAAAAAAAACABKAKwARsiCCABKwNwIglkDQEgAUEwaiABQfwAaiIHIAFBgAFqIAFBhAFqEPUBQQEhACABKAI0IQIgASgCMEEBRwRAIAEgAjYCsAEgAUEoaiAHIAFBiAFqIAFBjAFqEPUBIAEoAiwhAiABKAIoIQAgAxDSAwsgASAANgKgASABIAI2AqQBIABBAXEEQCABIAI2AqgBIAFBIGoiACAFKAIAJQEQFSICNgIEIAAgAkEARzYCACABKAIgQQFGBEAgASABKAIkNgKsASABQRhqIAFBrAFqIgAQwwIgASABKQMYNwKwASABQbABahDTAyAAENIDCyABQagBaiICQemfwABBBRDnASEAIAIQ0gNBAQwDC0EBQgEgCRDgASEAIAFBpAFqENIDQQAMAgtBqILAAEEcEKsEAAtBAEIBIAgQ4AEhAEEACyEFIAFBEGogASgCkAFBCGpB8J/AABCBAyABKAIUIQIgASgCECIDEMgDIAMgADYCBCADIAU2AgAgAiACKAIAQQFqNgIAIAFBnAFqENIDIAFB8ABqEL4CIAFBCGogBEEIahCNAyABKAIIIgAoAgAgASgCDCECIABBADYCACAAKAIEIAIgAigCAEEBajYCABCCAyAGEK0DIAFBwAFqJAALyAYDB38EfgJ8IwBBkAFrIgMkACADQQhqENwCAkAgACgCACIEKAIQDQAgAysDECEOIAMrAwghDyAEQRBqIQYgBEF/NgIQIAQtANYEQQFGBEAgBiAGKAIAQQFqNgIADAELIAQpA5gDIQ0gBCgCkAMhCCADQQhqIA8gDhCxAgJAAn4CQCAIAn8gAykDCCEKIAMpAxAhDEEEIARBIGoiBSkD8AJQDQAaAkACfwJAAkAgBSAKIAwQ6AJFBEAgBUIANwNwIAVCADcD8AIgBSkDuAEgBSkDsAFCAoWEUEUNAUEBDAULIAUpA7gBIAUpA7ABQgKFhFANAyAFKQPgAlBFDQFBAwwECyAFQgA3A+ACQQEMAQsgBUGwAWoiByAKIAwQ6AINAUECIAcpAwggBykDAEIChYRQDQIaIAVCADcD4AJBAgshCSAFQgA3A6ACCyAJC0H/AXEiBUEBRnEiByAFcgRAIAQtANoEDQFCAgwCCyAELQDaBAR+QgMFIARBAToA2gQgBCsDuAMhDyAEKQOwAyELIAQrA6gDIQ4gBCkDoAMLIQogBiAGKAIAQQFqNgIADAILIARBADoA2gQgBEHQA2oQ3AMgBEECNgLQAyADQQhqQfOOwABB7I7AACAFQQJGIgQbIAEgBUEDSSIBG0EMQQcgBBsgAiABGxDvASADNQIQIQsgAysDCCEOQgULIQogBiAGKAIAQQFqNgIAIAcEQCADQYKAgIB4NgJ0IAMgDbo5AwggACADQQhqEG8LCwJAAkACQEECIAqnQQJrIApCAVgbQQFrDgMAAQIDCyAAEKIBDAILIAAQogEgAyAKIA4QxgI2AowBIAMgCyAPEMYCNgIIIAZB7JXAAEEGIANBjAFqIgAgA0EIaiIBEOkBIAEQ0gMgABDSAwwBCyADIAunIgA2AhAgAyAOOQMIQQEhAQJAIA69QiCIpyICIABB/47AAEEIEKcDDQAgAiAAQeyPwABBCBCnAw0AIAIgAEGHj8AAQQYQpwMhAQsgAyACIAAQ2gM2AogBIANBgghBgwggARs2AowBIAZBoJjAAEEIIANBiAFqIgAgA0GMAWoiARDpASABENIDIAAQ0gMgA0EIahCaBAsgA0GQAWokAAvpAwEIfyMAQRBrIgYkAAJ/AkAgA0EBcUUEQCACLQAAIgQNAUEADAILIAAgAiADQQF2IAEoAgwRBgAMAQsgASgCDCEKA0AgAkEBaiEFAkACQAJAAkAgBMBBAEgEQCAEQYABRg0BIARBwAFHDQMgBiABNgIEIAYgADYCACAGQqCAgIAGNwIIIAMgB0EDdGoiAigCACAGIAIoAgQRAwBFDQJBAQwGCyAAIAUgBCAKEQYARQRAIAQgBWohAgwEC0EBDAULIAAgAkEDaiIFIAIvAAEiAiAKEQYARQRAIAIgBWohAgwDC0EBDAQLIAdBAWohByAFIQIMAQtBoICAgAYhCyAEQQFxBEAgAigAASELIAJBBWohBQtBACEJAn8gBEECcUUEQEEAIQggBQwBCyAFLwAAIQggBUECagshAiAEQQRxBEAgAi8AACEJIAJBAmohAgsgBEEIcQRAIAIvAAAhByACQQJqIQILIARBEHEEQCADIAhBA3RqLwEEIQgLIAYgBEEgcQR/IAMgCUEDdGovAQQFIAkLOwEOIAYgCDsBDCAGIAs2AgggBiABNgIEIAYgADYCAEEBIAMgB0EDdGoiBSgCACAGIAUoAgQRAwANAhogB0EBaiEHCyACLQAAIgQNAAtBAAsgBkEQaiQAC7AEAgJ/An4jAEGgAmsiBCQAIAAoAgghBSAAKQMAIQcgBCABNgLoAQJAIAJBAUYEQCAEQegBahDSA0IDIQYMAQsgBEEwaiABENICIARBKGogBCgCMCAEKAI0EKkCQgIhBgJAIAQoAihBAXFFDQAgBCAEKAIsNgI8IARBIGogBEE8ahCGAiAEQRhqIAQoAiAgBCgCJBCpAgJAIAQoAhhBAUYEQCAEIAQoAhwiAzYCkAEgBEGQAWoiABCJBEUNASAAENIDCyAEQTxqENIDDAELIAQgAzYC/AEgBEEQaiAEQfwBaiIAEIgCIARBkAFqIgEgBCgCECAEKAIUEMUCEIsBIARBCGogABCFAiAEQeAAaiABIAQoAgggBCgCDBC/ARCNASAAENIDIARBPGoQ0gMgBCgCaCEDIAQpA2AhBgsgBEE8aiAEQewAakEk/AoAAAsgBCADNgJoIAQgBjcDYCAEQewAaiAEQTxqQST8CgAAIAQgBTYC8AEgBCAHNwPoAQJAIARB8AFqIgAQzAIiAQRAIAQgATYC+AECQCAGQgNRBEAgBCADNgKQASAEQZABahDSAwwBCyAEQfwBaiAEQTxqQST8CgAACyAEIAM2ApgBIAQgBjcDkAEgBCAHNwPAASAEQZwBaiAEQfwBakEk/AoAACAEQfgBaiIBIARBkAFqEGsgARCrAwwBCyAGQgNSBEAgBEHgAGoQyQMMAQsgBEHoAGoQ0gMLIAAQ+QIgBEGgAmokAAupBQEEfyMAQSBrIgIkAAJAAkACQAJAAkACQAJAAkACQAJAAkACQAJAAkAgAS0AAEEBaw4MAQIDBAUGBwgJCgsMAAtBtJrAAEEFEKsCIQMMDAsgAkGsmsAAQQgQqwIiAzYCHCACQYIIQYMIIAEtAAEbNgIQIAJBHGpBjJTAAEEFIAJBEGoiARCvAiABENIDDAsLQbmawABBBCABKwMIEKcCIQMMCgtBvZrAAEEEIAFBCGoQsgEhAwwJC0HBmsAAQQcgAUEIahCyASEDDAgLIAJByJrAAEEIEKsCIgM2AhwgAiABKwMQELcENgIQIAJBHGoiBUHQmsAAQQUgAkEQaiIEEK8CIAQQ0gMgAiABKAIIIAEoAgwQ2gM2AhAgBUH4k8AAQQYgBBCvAiAEENIDDAcLQb+ZwABBBiABQQhqELIBIQMMBgtB1ZrAAEEKEKsCIQMMBQtB35rAAEEEEKsCIQMMBAtBh4/AAEEGEKsCIQMMAwsgAkHjmsAAQQQQqwIiAzYCHCACIAErAwgQtwQ2AhAgAkEcaiIFQeeawABBAiACQRBqIgQQrwIgBBDSAyACIAEoAhQgASgCGBDaAzYCECAFQemawABBBiAEEK8CIAQQ0gMgBUHvmsAAQQQgAUEcahCvAgwCC0HzmsAAQQUgASsDCBCnAiEDDAELIAJB1pfAAEEGEKsCIgM2AhwgAiABKAIIIAEoAgwQ2gM2AhAgAkEcakH4msAAQQMgAkEQaiIBEK8CIAEQ0gMLIAIgAzYCGCMAQRBrIgEkACAAKAIAJQEgAkEYaiIAKAIAJQEQPyABQQhqEJUDIAEoAgwhAyACQQhqIgQgASgCCEEBcTYCACAEIAM2AgQgAUEQaiQAIAIgAikDCDcCECACQRBqENMDIAAQ0gMgAkEgaiQAC70GAgx/AnwjAEHQAWsiAyQAIAArAwAhDyAAKAIIIQAgAyACNgIoIAMgATYCJCADIAA2AhggAyAPOQMQAkAgA0EYaiIMEMwCIgUEQCADIAU2AiwgBSgCECIARQRAIAVBfzYCECMAQRBrIggkACAIIANBEGo2AgwgCEEMaiEGQQAhAAJAIAVBvARqIgkoAggiCkUNACAGKAIAIg0rAwAhECAJKAIEIgshBANAIBAgBCsDAGIEQCAEQRBqIQQgCiAAQQFqIgBHDQEMAgsLIARBCGoQ0gMgC0EQaiEOIAAhBwNAIABBAWohBiAOIABBBHRqIQQDQCAGIApPBEAgCSAHNgIIDAMLIAQrAwAgDSsDAGEEQCAEQQhqENIDIARBEGohBCAGQQFqIQYMAQsLIAsgB0EEdGoiACAEKQMINwMIIAAgBCkDADcDACAHQQFqIQcgBiEADAALAAsgCEEQaiQAIAUgBSgCEEEBaiIANgIQCwJAIAFBAXEEQCADIAI2AkQgAxD0AyIBNgLMASADQcgAaiIAIANBxABqEIICIAMgAygCTCADKAJQENoDNgIwIANBzAFqQeCUwABBByADQTBqIgIQrwIgAhDSAyAAEJoEIANBDDYCdCADQb+VwAA2AnAgA0ELNgJsIANBtJXAADYCaCADQQY2AmQgA0Hgk8AANgJgIANBBDYCXCADQbCVwAA2AlggA0EENgJUIANBrJXAADYCUCADQoCAgIDQADcCSANAAkAgA0EIaiADQcgAahCgAiADKAIIIgBFDQAgAyADQcQAaiAAIAMoAgwiAhCtAjYCMCADQTBqIgYQjARFBEAgA0HMAWogACACIAYQrwILIANBMGoQ0gMMAQsLIANBADoAPCADIA85AzAgAyABNgI4IANBxABqENIDIAUoAhAhAAwBCyADQQE6ADwgAyAPOQMwIAMgAjYCOAsCQAJAIABFBEAgBUEANgIQIAUoAsADQQJHDQELIANBOGoQ0gMMAQsgAyADKQM4NwNQIAMgAykDMDcDSCADQYaAgIB4NgK0ASADQSxqIANByABqEG8LIANBLGoQrAMMAQsgA0EoahDSAwsgDBD6AiADQdABaiQAC6MEAwZ/AXwBfiMAQSBrIgEkACABEPQDIgU2AhQgACgCMEGAgICAeEcEQCABIAAoAjQgACgCOBDaAzYCHCABQRRqQYKWwABBBCABQRxqIgIQrwIgAhDSAwsgACkDAEIBUQRAIAEgACsDCBC3BDYCHCABQRRqQZScwABBAyABQRxqIgIQrwIgAhDSAwsgAUEIaiAAQTxqELEDIAEoAgwhBiABKAIIIQJBgQghAyABQYEINgIcQYEIIQQgAgRAIAIgBhDaAyEEIAFBHGoQ0gMLIAEgBDYCGCABQRRqQZecwABBBiABQRhqIgIQrwIgAhDSAyAAKwMYIQcgACkDECABQYEINgIcQgFRBEAgBxC3BCEDIAFBHGoQ0gMLIAEgAzYCGCABQRRqIgJB0JrAAEEFIAFBGGoiAxCvAiADENIDIAAoAkhBgICAgHhHBEAgASAAKAJMIAAoAlAQ2gM2AhwgAkGwlcAAQQQgAUEcaiICEK8CIAIQ0gMLIAApAyBCAVEEQCABIAArAygQtwQ2AhwgAUEUakH0j8AAQQcgAUEcaiICEK8CIAIQ0gMLIAAtAFQiAkECRwRAIAFBgghBgwggAkEBcRs2AhwgAUEUakGMlMAAQQUgAUEcaiICEK8CIAIQ0gMLIAAtAFUiAEECRwRAIAFBgghBgwggAEEBcRs2AhwgAUEUakGdnMAAQQggAUEcaiIAEK8CIAAQ0gMLIAFBIGokACAFC6UDAgh+AX8CQCABKQNQQgFRBEAgASkDYCEIIAMgASkDWCIJIAIgAiAJVBsiAn0iBiABKQNAIgRCqMMBfSIFVEIAIAIgA1atfSIDIAEpA0giByAEIAVWrXxCAX0iBVMgAyAFURsEQCABQgA3AwggASkDACEFIAFCATcDACABKQMgIQogASACNwMgIAEgCjcDOCABIAVCAYM3AzAgASAIIAQgCXwiBX0iCkKowwF9Igs3AxAgASAKIAtWrSAFIAhWrSAHIAQgBVatfHxCf4V8NwMYCyABIAMgByAEIAZWIAMgB1MgAyAHURsiDBsiBzcDSCABIAYgBCAMGyIENwNAQn8gCEJ/IAYgBH0iBUKpwwFUIAMgB30gBCAGVq19IgRCAFMgBFAiDBsEfkIABSABIAY3A0AgASADNwNIIAVCfyAMGwsgAiAJfSIDQgAgAiADWhsiA3wiBiADIAZWG3wiAyADIAhUGyEDDAELIAEgAyACfTcDQCABQgAgAiADVq19NwNICyABIAM3A2AgASACNwNYIAFCATcDUCAAIAM3AwggACACNwMAC/MIAwR/AX4BbyMAQUBqIgUkACAAKQIAIQkgAC8BCCEGIAAtAAohB0EEQRwQwQMiACAHOgAaIAAgBjsBGCAAIAI2AhQgACABNgIQIAAgCTcCCCAAIAQ2AgQgACADNgIAIAVBGGohAyMAQRBrIgIkACACQbycwAA2AgwgAiAANgIIAn8CQEEAQficwAAoAgARBAAiAQRAIAIgAUG0ncAAEIEDIAIoAgQhBAJAAkAgAigCACIBKAIAQQFrDgIAAQMLIAEoAgwiBiABKAIERgRAIAFBBGoQrgILIAEoAgggBkEDdGoiB0G8nMAANgIEIAcgADYCACABIAZBAWo2AgxBAQwDCyABQQRqEI4DIQFBAAwCCyACQQhqELUDEPUCAAtBBEEIEMEDIgZBvJzAADYCBCAGIAA2AgAgARDhAiABQQE2AgwgASAGNgIIIAFCgYCAgBA3AgBBAgshBiAEIAQoAgBBAWo2AgAgA0G8nMAANgIMIAMgADYCCCADIAE2AgQgAyAGNgIAIAJBEGokAAJAAkACQCAFKAIYQQFrDgICAQALIAUoAiAgBSgCJEEAIAUoAhwQ0wIMAQsgBUEQahDSAQJAAkACQCAFKAIQQQFHDQAgBSAFKAIUNgI8IwBBEGsiACQAIAVBPGoiAigCACUBQeOcwABBC0EBEBIhChCdASIDIAomASAAQQhqEJUDQQEhASAFQQhqIgQCfyAAKAIIQQFGBEAgACgCDAwBC0EAIQEgAws2AgQgBCABNgIAIABBEGokACAFKAIIIAUoAgwhACACENIDDgMCAQABCyAFQdecwABBDBDaAzYCPEEBIAVBPGoiAEGMk8AAQQQQ5wEQkwEgABDSAwwCCyAFIAA2AjxBASAFQTxqIgBBjJPAAEEEEOcBEJMBIAAQ0gMMAQsgBSAANgIoIAVBKGoiARCOAyECQQRBBBDBAyIDIAI2AgAgBSADQaiDwAAQkwQiBDYCLCABKAIAJQEgBUEsaiICBH8gAigCAAVBAAslARA8IAUgATYCPCAFIAVBPGoiAkGIjsAAENkDNgIwQQRBCBDBAyIDIAA2AgQgAyAENgIAIAUgBUEwaiIHEKUENgI8IAUgAhCnBDYCNCACENIDIwBBIGsiACQAIABCADcCFCAAQRRqEKUDIgEgASgCAEEBaiIENgIAIARFBEAACyAAIAE2AhwgAEGQk8AANgIYIAAgAzYCFCMAQRBrIgMkAEEEQQwQwQMiBCAAQRRqIgYoAgg2AgggBCAGKQIANwIAIANBCGoiBkHsgcAANgIEIAYgBDYCACADKAIIQeyBwAAQkgQhBCADQRBqJAAgACAENgIQIABBEGoQjgMhCCAAQQhqIAFBCGoQjQMgACgCDCEDIAAoAggiBhC7AyAGIAQ2AgQgBkEBNgIAIAMgAygCAEEBajYCACABEJcDIABBIGokACAFIAg2AjggBSAFQTRqIgAgBUE4aiIBEPYDNgI8IAIQ0gMgARDSAyAAENIDIAcQ0gMLIAVBQGskAAupBAMGfgJ/BHwjAEEgayIIJAAgCEEIaiIJENwCIAkgCCsDCCIKIAgrAxAQxQECQCAIKQMIQgFRDQAgCCkDGCEFIAgpAxAhBiAJIAErAwAQ1gEgCC0ACEEBRg0AIAErAxAiC70iAkL///////////8AgyIDUCACQgF9Qv////////8HVHIgA0KAgICAgICACH1CgICAgICAgPD/AFQgAkIAWXFyRQ0AIAErAxgiDL0iAkL///////////8AgyIDUCACQgF9Qv////////8HVHIgA0KAgICAgICACH1CgICAgICAgPD/AFQgAkIAWXFyRQ0AIAgpAxAhAyAKEKIEIgq9IgJC////////////AIMiBFAgAkIBfUL/////////B1RyIARCgICAgICAgAh9QoCAgICAgIDw/wBUIAJCAFlxckUNACABKwMIIg29IgJC////////////AIMiBFAgAkIBfUL/////////B1RyIARCgICAgICAgAh9QoCAgICAgIDw/wBUIAJCAFlxckUNACAAIAxEAAAAAABAj0CiRAAAAAAAAOA/oPwHNwM4IAAgC0QAAAAAAECPQKJEAAAAAAAA4D+g/Ac3AzAgACADNwMgIAAgBTcDECAAIAY3AwggACANRAAAAAAAQI9AokQAAAAAAADgP6D8BzcDKCAAIApEAAAAAABAj0CiRAAAAAAAAOA/oPwHNwMYQgEhBwsgACAHNwMAIAhBIGokAAurAwIGfwJ+IwBB4ABrIgEkAEECIQIgACgCAEUEQCAAQX82AgAgACAAKAKwAwR/QQAFIABBtANqEI4DIQNBASEEIAAoAgBBAWoLNgIAIAAoAoAEIQIgAEEANgKABCAAKQLQAyEHIABBAjYC0AMgASAHNwMoIAEgACkC2AM3AzAgACgChAQhBQsgAUEANgJEIAFBADYCPCABQQI2AkwgAUHMAGohAAJAAkAgAkECRwRAIAEgASkDMDcDICABIAEpAyg3AxggAUE8aiIGENMDIAFBxABqENMDIAAQ3AMgASABKQMYNwMIIAEgASkDIDcDECABIAM2AiwgASAENgIoIAFBCGoQ3AMgAkEBcUUNASABIAU2AlwgBARAIAEgAzYCPCAGELQEIAYQ0gMLIAFBgAg2AhggASABQdwAaiIAIAFBGGoiAhD8ASABIAEpAwA3AjwgAUFAaxDSAyACENIDIAAQ0gMMAgsgASAAKQIIIgc3AyAgASAAKQIAIgg3AxggASAINwMIIAEgBzcDECABQQA2AiggAUEIahDcAwsgAUEoahDTAwsgAUHgAGokAAuuAwMBfwF+AXwjAEHgAmsiAiQAIAIgATYCCCAAEMwCIgAEQCACIAA2AgwgAiACQQhqEKMEIgA2AkQCQCACQcQAaiIBEIoERQRAIAEQ0gMMAQsgAkHIAGoiASAAEIsBIAIgAigCgAE2AqwBIAIgAigCfEEAIAIoAnhBgICAgHhHGzYCqAECQCACQagBaiIAQaycwAAQ7QJFBEAgAiACKQNIIAIrA1AQ6gEiAzcDoAEgACABQdgA/AoAACACIAJBoAFqNgKAAiADUARAQgMhAyACQgM3AxAgABC9AwwCCyACQYgCaiIAIAJByABqQdgA/AoAACACQRBqIAAgAxCNASACKQMQIQMMAQtCAyEDIAIoAoQBIgBBgICAgHhHBEAgAisDYCEEIAIpA1ghAyACIAIpA4gBNwIkIAIgADYCICACIAMgBBDqATcDGEICIQMLIAIgAzcDECACQfgAahDbAyACQZABahDbAwsgA0IDUQ0AIAJBsAFqIAJBEGpBMPwKAAAgAkILNwOoASACQQxqIAJBqAFqEGsLIAJBDGoQqwMLIAJBCGoQ0gMgAkHgAmokAAv9AwELfyMAQYAEayIBJAAgASAAKAIANgIAAkAgARDMAiIABEAgASAANgIEIABB8ANqIQQgAUH4AGohByABQZQCaiEJIAFBoAFqIQogAUGAA2ohCANAAkAgACgCEA0AIABBfzYCECAAAn8gAC0AwANBAXFFBEBBh4CAgHghAkEADAELIAAoAsQDIgUgBSgCAEEBaiICNgIAIAJFDQQgASAFNgKMAiABQZACaiECAkAgBCgCDCIDRQRAIAJBh4CAgHg2AmwMAQsgBCADQQFrNgIMIAQgBCgCCCIDQQFqIgYgBCgCACILQQAgBiALTxtrNgIIIAIgBCgCBCADQQd0akGAAfwKAAALAkAgASgC/AIiAkGHgICAeEYEQCABQYwCahCrAwwBCyABQZADaiIDIAFBkAJqQewA/AoAACABIAgpAwg3A5ABIAEgCCkDADcDiAEgCiADQewA/AoAAAsgACgCEEEBags2AhAgAUGQAmogAUGcAWoiA0HwAPwKAAAgASABKQOQATcDmAMgASABKQOIATcDkAMgAkGHgICAeEYNACABIAU2ApwBIAFBCGoiBiAJQewA/AoAACAHIAEpA5ADNwMAIAcgASkDmAM3AwggASACNgJ0IAMgBhCMASADEKsDDAELCyABQQRqEKwDCyABEPoCIAFBgARqJAAPCwALogcCCn8BbyMAQUBqIgMkACADQQA2AhwgA0KAgICAwAA3AhQgA0EIahDSASADIAMoAgw2AjQgAyADKAIIIgQ2AjAgA0EwahDTAyAERQRAIANBFGpBmJLAAEEJEMcCCyADELMDEI4DNgIwIAMgA0EwaiIEQaGSwABBBhCtAjYCICAEENIDIAMgA0EgakGnksAAQQ8QrQI2AjAgBBCLBCAEENIDRQRAIANBFGpBtpLAAEEWEMcCCyADKAIcBH8gA0EkaiILIAEgAhDvASALQcySwABBBxC5AiADQTBqIQYgAygCGCECIAMoAhwhASMAQTBrIgQkAAJAAkAgAQRAIAJBCGohCCABQQN0IgVBCGsiCkEDdkEFbCEHIAIhAQJAA0AgBUUNASAFQQhrIQUgASgCBCEJIAFBCGohASAHIAlqIgcgCU8NAAsjAEEQayIAJAAgAEE1NgIEIABBmI3AADYCACAAIACtQoCAgIDQFoQ3AwhBoYbAACAAQQhqQdCNwAAQywIACyAEQQhqIAcQjgIgBEEANgIcIAQgBCkDCDcCFCAEQRRqIAIoAgAiASABIAIoAgRqIAFrELkCIAcgBCgCHCICayEBIAQoAhggAmohBQNAIApFDQIgCCgCACEJIAgoAgQhAiAEQSBqIgwgBSABQQUQzwIgBCgCLCEBIAQoAighBSAEKAIgIAQoAiRB05LAAEEFEIsDIAwgBSABIAIQzwIgBCgCLCEBIAQoAighBSAEKAIgIAQoAiQgCSACEIsDIApBCGshCiAIQQhqIQgMAAsACyAGQQA2AgggBkKAgICAEDcCAAwBCyAGIAQpAhQ3AgAgBiAHIAFrNgIICyAEQTBqJAAgCyADKAI0IAMoAjgQuQIgBhCaBCALQdiSwABBGhC5AiADQfKSwABBEyADKAIoIAMoAixBACADENMBIgI2AjwgAygCGCIBIAMoAhxBA3RqIQgjAEEQayIEJAAQSiENEJ0BIgcgDSYBIAQgBzYCDCAEQQxqIQojAEEQayIFJAADQCABIAhHBEAgBSABKAIAIAFBBGooAgAQ2gM2AgwgCigCACUBIAVBDGoiCSgCACUBEAAaIAFBCGohASAJENIDDAELCyAFQRBqJAAgBEEQaiQAIAMgBzYCMCADQTxqQYWTwABBByAGEK8CIAYQ0gMgCxCaBEEBBUEACyEBIANBIGoQ0gMgA0EUahCYBCAAIAI2AgQgACABNgIAIANBQGskAAuWAwICfwF+IwBB8ABrIgMkACAALQDgAUECRgRAIAMgABC7AQJAAkACQAJAIAMtABxFDQAgAyADKAIYNgIkIAMgAygCFEEAIAMoAhBBgICAgHhHGzYCICADIAApAtQENwIoIANBIGogA0EoaiIEEO0CQQFzRQ0AIAQgACABEJIBAkAgAykDKEIBUQRAIAMpAzBQDQELIANBEGohBCAAIAEQpgIhAiAALQDgAUECRw0EIABCAjcD6AEgAEEANgLkASAAQn8gASACfCICIAEgAlYbNwPwAQwECyAAIAApA5AFIgVCAXw3A5AFIAAtAOABQQJGDQEgAykDCEIBfCEBDAILIAAgACkDkAUiBUIBfDcDkAULIAAgAjcDkAIgACABNwOIAiAAIAMpAwA3A/gBIAAgBTcD8AEgAEIBNwPoASAAIAMpAwhCAXwiATcDgAILIANBKGoiBCAAIAFBABDIAiADIAU3A2AgA0IANwNQIAMgAykDADcDaCAAQbABaiAEEPgBIANBEGohBAsgBBDbAwsgA0HwAGokAAv1BAIHfwFvIwBBMGsiAyQAAn8CQAJAAkACQCABKAIIIgVBAkcEQCABKAIMIQQgBUEBcQ0BIAMgBDYCLCMAQRBrIgQkACACKAIAJQEgA0EsaiIIKAIAJQEQLSEKEJ0BIgYgCiYBIARBCGoQlQNBASEFIANBGGoiBwJ/IAQoAghBAUYEQCAEKAIMDAELQQAhBSAGCzYCBCAHIAU2AgAgBEEQaiQAIAMoAhwhBCADKAIYQQFGBEAgCBDSAwwCCyADIAQ2AiggA0EoahDSAyADQSxqENIDCyMAQRBrIgQkACACKAIAJQEgAUEQaiIFKAIAJQEgAUEUaiIIKAIAJQEQKCEKEJ0BIgcgCiYBIARBCGoQlQNBASEGIANBEGoiCQJ/IAQoAghBAUYEQCAEKAIMDAELQQAhBiAHCzYCBCAJIAY2AgAgBEEQaiQAIAMoAhQhBCADKAIQQQFxRQ0BCyABQRBqENIDIAFBFGoQ0gMgAUEEaiEIDAELIAMgBDYCJCABKAIEIQQgASgCAEUEQCADIAQ2AiwjAEEQayIBJAAgAigCACUBIANBLGoiBigCACUBQQIQLCEKEJ0BIgQgCiYBIAFBCGoQlQNBASECIANBCGoiBwJ/IAEoAghBAUYEQCABKAIMDAELQQAhAiAECzYCBCAHIAI2AgAgAUEQaiQAIAMoAgwhBCADKAIIQQFHDQIgBhDSAwsgA0EkahDSAyAFENIDC0EBDAELIAMgBDYCKCADQSxqENIDIANBJGoiASADQShqIgIQ/QMhBCACENIDIAEQ0gMgBRDSA0EACyEBIAgQ0gMgACAENgIEIAAgATYCACADQTBqJAALkQMCBH8BfiMAQUBqIgIkACAAKAIAIQMgAEEANgIAIAMEQCAAKQIEIQYgAiADNgIUIAIgBjcCGCACIAE2AiAgAkEIaiACQSBqQQAQgQIgAiACKAIIIAIoAgwQngI2AiQgAiACQSRqIgFB4JPAAEEGEK0CNgI8IAJBMGoiACACQTxqIgQQ/QEgAiACKAI4NgIsIAIgAigCNEEAIAIoAjBBgICAgHhHGzYCKCACQShqQfCTwAAQ7QIhBSAAENsDIAQQ0gMgBqchAAJAIAVFBEAgAyAAQQEgAUH4k8AAQQYQrQIQ0wIMAQsgAyAAQQAgAkEkakH+k8AAQQUQrQIQ0wILIAJBJGoQ0gMgAkEgahDSAyACIAZCIIinQQhqEI0DIAIoAgAiACgCACEDIAIoAgQhASAAQQA2AgAgACgCBCEEIAEgASgCAEEBajYCACMAQRBrIgAkACAAIAQ2AgwgACADNgIIIABBCGoQuwMgAEEQaiQAIAJBHGoQqgMgAkFAayQADwsgARCWA0GogsAAQRwQqwQAC4MDAwJ/A34DfCMAQTBrIgIkACACIAE2AgQCQCACQQRqEIoERQRAIABBgICAgHg2AjwgAEIANwMAIABBgICAgHg2AjAgAEGAgICAeDYCSCAAQgA3AxAgAEGCBDsBVCAAQgA3AyAMAQsgAEEwaiACQQRqIgFBgpbAAEEEENoCIAJBIGoiAyABQZScwABBAxDbAiACKQMgIQQgAisDKCEHIAJBCGogAUGXnMAAQQYQ2gIgAyABQdCawABBBRDbAiACKQMgIQUgAisDKCEIIAJBFGogAUGwlcAAQQQQ2gIgAyABQfSPwABBBxDbAiACKQMgIQYgAisDKCEJIAFBjJTAAEEFEMoCIQMgAUGdnMAAQQgQygIhASAAIAc5AwggACAENwMAIAAgCDkDGCAAIAU3AxAgACADOgBUIAAgCTkDKCAAIAY3AyAgACACKQIINwI8IAAgAigCEDYCRCAAIAIpAhQ3AkggACACKAIcNgJQIAAgAToAVQsgAkEEahDSAyACQTBqJAAL7AICA38BfCMAQdAAayICJAACQAJAAkACQAJAAkACQAJAIAEoAmwiBEEfdSAEQf////8Ha3FBAWsOBwABAgMEBQYHCyACQgQ3AwggACACQQhqEGsMBgsgAkIFNwMIIAJBADoAECAAIAJBCGoQawwFCyABKwMAIQUgAkIGNwMIIAIgBTkDECAAIAJBCGoQawwECyACQgc3AwggACACQQhqEGsMAwsgAkIINwMIIAAgAkEIahBrDAILIAAoAgAiAygCEA0BAkAgAykD0AVCAVEEQCADKwPYBSABKwMAYQ0BCyADQQA2AhAMAgsgA0EANgIQIANCADcD0AUgAkIJNwMIIAAgAkEIahBrDAELIAIgASkDCDcDSCACIAEpAwA3A0AgACgCAC0A6QZFBEAgAkHIAGoQ0gMMAQsgAiABKQMINwMQIAIgASkDADcDCCACQRBqENIDCyAEQYaAgIB4RwRAIAEQ+wILIAJB0ABqJAALmgMDB38FfgJ8IwBBEGsiBCQAIAErAxghDyABKQMQIQsgASgCRCEHIAEoAkAhCCABKAI8IQUgBEEIaiABQcgAaiIJELEDAkAgBCgCCCIDBEACf0EAIAMgBCgCDCIGQaSPwABBBRCnAw0AGkEBIAMgBkGpj8AAQQQQpwMNABpBAkEDIAMgBkGtj8AAQQcQpwMbC0H/AXEiA0EDRw0BC0EBIQMLAkAgASkDIEIBUg0AIAErAygiEL0iCkL///////////8AgyIMUCAKQgF9Qv////////8HVHIgDEKAgICAgICACH1CgICAgICAgPD/AFQgCkIAWXFyRQ0AIBBEAAAAAABAj0CiRAAAAAAAAOA/oPwHIQ1CASEOCyAAIAI3AyggACADOgAmIAAgCyAPEOoBNwMQIAAgDTcDCCAAIA43AwAgAEEAIAcgBUGAgICAeEYiAxs2AiAgAEEBIAggAxs2AhwgAEEAIAUgAxs2AhggACABLQBVQQFGOgAlIAAgAS0AVEEBcToAJCABQTBqENsDIAkQ2wMgBEEQaiQAC9kCAgJ/AX4jAEHgAGsiAiQAIAAoAgwhAyAAQQA2AgwgAwRAIAIgAzYCDCACIAAoAgg2AgggAiAAKQMANwMAIAIgATYCFAJAIAJBDGoiAxDMAiIARQRAQYAIIQEMAQsgAiAANgIYIAJBADYCHCACIAJBHGo2AiggAiACQShqQfSNwAAQ2QMiATYCJAJAAkAgACgCEEUEQCAAQX82AhAgACgCnAZBAkcEQCAAKAKsBiACKAIIRg0CCyAAQQA2AhALIAJBJGoQ0gNBgAghAQwBCyACKQIcIQQgAkEANgIcIABBnAZqENMDIAAgBDcCnAYgACAAKAIQQQFqNgIQIAJBADoAOCACIAIpAwA3AzAgAkIONwMoIAJBGGogAkEoahBrCyACQRxqENMDIAJBGGoQqwMLIAJBFGoQ0gMgAxD5AiACQeAAaiQAIAEPCyABEJYDQaiCwABBHBCrBAALkQQBB38jAEEwayICJAAgAkEUaiABEP0BAn8gAigCFEGAgICAeEcEQCACIAIpAhQ3AwggAiACKAIcIgQ2AhAgAigCDAwBCyACQQA2AhAgAkKAgICAEDcDCEEBCyEDQQAhASACQQA7ASwgAiADNgIkIAIgAyAEajYCKEG3fiEGA0ACQCACAn8gAUH//wNxRQRAQQAhAUEAIQgCQCACQSRqIgQoAgAiAyAEKAIERg0AQQEhCCAEIANBAWo2AgAgAy0AACIBwEEATg0AIAQgA0ECajYCACADLQABQT9xIQUgAUEfcSEHIAFB3wFNBEAgB0EGdCAFciEBDAELIAQgA0EDajYCACADLQACQT9xIAVBBnRyIQUgAUHwAUkEQCAFIAdBDHRyIQEMAQsgBCADQQRqNgIAIAdBEnRBgIDwAHEgAy0AA0E/cSAFQQZ0cnIhAQsgAiABNgIEIAIgCDYCACACKAIAQQFxBEAgAigCBCIBQf//A00EQCACLwEsIQEMBAsgAUH/B3FBgLh/cgwCCwJAIAZBt35NBEAgAkE0NgIgIAJBuI/AADYCHCACQQQ2AhggAkG0j8AANgIUIAJBFGoQ1QEhASAAQYCAgIB4NgIAIAAgATYCBCACQQhqEJoEDAELIAAgAigCEDYCCCAAIAIpAwg3AgALIAJBMGokAA8LQQALIgE7ASwLIAZBAWohBgwACwAL4QIBAn8jAEGgBmsiBCQAIABBADoAmAUCQCACRQ0AIAAtAJkFQQFxRQ0AIABBADoAmQUgBEIDNwMAIABBsAFqIAQQ+AELIAQgAEHgAWoiBRCWAQJAAkACQAJAAkACQAJAAkACQCAELQAAQQJrDgcCAAQEBQEIBwsgBCkDKEICUQ0CDAYLIAUtAABBB0YNBAwGCyAEKQMIQgFSDQQgACAEKQMgNwOIASAAIAQpAxg3A4ABIAAgBCkDEDcDeCAAQgE3A3AMBAsgACAEKQMgNwOIASAAIAQpAxg3A4ABIAAgBCkDMDcDeCAAQgE3A3AMAwsgBEGQAmoiBSAEQRBqQYAC/AoAACAEQaAEaiAFQYAC/AoAACAAQQY6AOABIABB4QFqIARBkQRqQY8C/AoAAAsgACABIAIgAxChAQwCCyAAQQIgAyAELQABQQJGGzoA4QEMAQsgACADELEBCyAEQaAGaiQAC8QCAgF/An4jAEEgayIDJAACQCAALQCYBUEBRw0AIAApA6ABQgJRBEAgACABNwPwASAAQgI3A+gBIABBADYC5AEgAEECOgDgASAAIAEgAhCIAQwBCyADIAAgARCSAQJAAkAgAykDAEIBUQRAIAMpAwgiBFANASAALQDgAUEBRw0DIABCATcD+AEgAEJ/IAEgACkDuAQiAkJ/IARC6Ad8IgUgBCAFVhsiBCACIARUG3wiAiABIAJWGzcDgAIMAwsgAC0A4AFBAUYNAQwCCyADIAAQuwEgAEIANwOIAiAAIAI3A/ABIAAgATcD6AEgAEEDOgDgASAAIAMpAwA3A/gBIAAgAykDCEIBfDcDgAIgABCiAiADQRBqENsDDAELIABCATcD+AEgAEJ/IAEgACkDuAR8IgIgASACVhs3A4ACCyADQSBqJAALqAMCA38DfiMAQSBrIgQkAAJAIAEoAtABQYGAgIB4RgRAIABCADcDAAwBCyABQfADaiIDKAIAIQUgA0IBNwMAIAMgAiADKQMIIgYgAiAGVhsgAiAFGyIGNwMIIARBCGoiBSADKQMQQgFRBH4gBUJ/IAMpAyhCAXwiByAHUBsiByAGIAMpAyB9IghCACAGIAhaG30iBkIAIAYgB1gbNwMIQgEFQgALNwMAIAQpAxAgASkDqAQgBCgCCBshBgJAAkACQCABKAL4BEGAgICAeEcEQCAEIAFB0AFqELEDIAQgBCkDADcCGCAEIAEpAvwENwIIIARBGGogBRDtAiABKQPIASABKQPgBFFxIQMgAS0A3ARFDQEgAw0CDAMLQQAhAyABLQDcBA0CCyABKQPAAVBFBEAgA0F/cyABLQDdAUECR3ENAgsgAEIANwMIIABCATcDAAwCCyAAQgE3AwAgACAGIAEpA8AEIgcgAiABKQPoBH0iCEIAIAIgCFobfSICQgAgAiAHWBsiAiACIAZWGzcDCAwBCyAAQgE3AwAgACAGNwMICyAEQSBqJAALrgUCCH8BfiMAQTBrIgIkACACIAE2AgggAiAANgIEIAJBCGohBSAAQQFxBH9BAAVBAEGMncAAKAIAEQQAIgFFBEAQ9QIACyABIAEoAgBBAWoiAzYCACAFEI4DIQRBBEEIEMEDIgEgBDYCBCABIAM2AgAgAiABQbyDwAAQkwQiBDYCDCAFKAIAJQEgAkEMaiIBBH8gASgCAAVBAAslARAfIAUoAgAlASABBH8gASgCAAVBAAslARAcIAUQjgMhBkECCyEBIAIgBDYCLCACIAM2AiggAiAGNgIkIAIgATYCICACQRBqIQQgAkEgaiEGIwBBIGsiASQAAkACQEEAQficwAAoAgARBAAiA0UEQCAGEOECDAELIAFBCGogA0GQncAAEIEDIAEoAggiAygCDCEJIAMpAgQhCiABKAIMIQcgAyAGKQIINwIIIAMoAgAhCCADIAYpAgA3AgAgByAHKAIAQQFqNgIAIAEgCjcDECABIAk2AhggCEEDRw0BCxD1AgALIAQgCDYCACAEIAEpAxA3AgQgBCABKAIYNgIMIAFBIGokAAJAIAIoAhBBAUYEQCACKAIcIQMgAigCGCEBIAIgAigCFDYCKCACIAE2AiQgAiABNgIgIAIgASADQQN0IgRqNgIsA0AgBARAIAIgAUEIaiIDNgIkIAEoAgAgASgCBCAAIAUQjgMQ0wIgBEEIayEEIAMhAQwBCwsjAEEQayIEJAAgBCACQSBqIgA2AgwgACgCDCAAKAIEIgFrQQN2IQMDQCADBEAgA0EBayEDIAEQtQMgAUEIaiEBDAELCyMAQRBrIgAkACAAIARBDGooAgAiASgCADYCDCAAIAEoAgg2AgggAEEIahCYBCAAQRBqJAAgBEEQaiQADAELIAJBEGoQ4QILIAUQ0gMgAkEwaiQAC4cCAQd/IwBBEGsiAyQAQQohAiAAKAIAIgQhACAEQegHTwRAA0AgA0EGaiACaiIFQQRrIAAiBiAAQZDOAG4iAEGQzgBsayIHQf//A3FB5ABuIghBAXQvANanQDsAACAFQQJrIAcgCEHkAGxrQf//A3FBAXQvANanQDsAACACQQRrIQIgBkH/rOIESw0ACwsgAEEJSwRAIAJBAmsiAiADQQZqaiAAIABB//8DcUHkAG4iAEHkAGxrQf//A3FBAXQvANanQDsAAAtBACAEIAAbRQRAIAJBAWsiAiADQQZqaiAAQQF0LQDXp0A6AAALIAFBAUEAIANBBmogAmpBCiACaxB1IANBEGokAAuVAgEIfyMAQRBrIgQkACAEQQhqIAAgARDaAUEAIQECQCAEKAIIQQFHDQAgBCgCDCIAQRxLDQAgAEECdEHAq8AAaiIDKAIAIgEEQCADIAEoAgA2AgAMAQtBACEBAkBBgIAEQQggAHQiAyADQYCABE8bIgJBAWsiBkG0rMAAKAIAakEAIAJrIgdxIgAgA2oiBSAASUG4rMAAKAIAIgggBUlyRQRAIAAhAQwBCyACIANqIgJBEHYgAkH4/wNxQQBHaiIJQAAiAkF/Rg0BQbiswAAgAiAJakEQdDYCACAAIAJBEHQiACAGaiAHcSICIAAgCEYiABshASAFIAIgA2ogABshBQtBtKzAACAFNgIACyAEQRBqJAAgAQvOAgEBfwJAAkACQAJAAkACQAJAAkAgAS0AACICQQFrDgcAAQIDBAUGBwsgACABKQMYNwMYIAAgASkDCDcDCCAAIAEpAyA3AyAgACABKQMQNwMQQQEhAgwGCyABKAIEIQIgAEEIaiABQQhqQTD8CgAAIAAgAjYCBEECIQIMBQsgACABKQMwNwMwIAAgASkDKDcDKCAAIAEpAyA3AyAgACABKQMYNwMYIAAgASkDEDcDECAAIAEpAwg3AwhBAyECDAQLIABBEGogAUEQahCpASAAIAEpAwg3AwhBBCECDAMLIABBEGogAUEQahCpASAAIAEpAwg3AwhBBSECDAILIABBEGogAUEQahCpAUEGIQIMAQsgACABKQMYNwMYIAAgASkDEDcDECAAIAEpAwg3AwggACABKAIENgIEIAAgAS8AATsAAUEHIQILIAAgAjoAAAuJAgEGfyAAKAIIIgQhAgJ/QQEgAUGAAUkNABpBAiABQYAQSQ0AGkEDQQQgAUGAgARJGwsiBiAAKAIAIARrSwR/IAAgBCAGEMcBIAAoAggFIAILIAAoAgRqIQICQCABQYABTwRAIAFBP3FBgH9yIQUgAUEGdiEDIAFBgBBJBEAgAiAFOgABIAIgA0HAAXI6AAAMAgsgAUEMdiEHIANBP3FBgH9yIQMgAUH//wNNBEAgAiAFOgACIAIgAzoAASACIAdB4AFyOgAADAILIAIgBToAAyACIAM6AAIgAiAHQT9xQYB/cjoAASACIAFBEnZBcHI6AAAMAQsgAiABOgAACyAAIAQgBmo2AghBAAuwAgICfwF+IwBBsAJrIgkkACAJQQhqIgogASAHQQAQyAIgCSAIOgAtIAkgBjcDMCABIAIgChCgARogCUFAayAKQTD8CgAAIAlCCDcDOCABQbABaiAJQThqEPgBIAlCADcDiAEgCUIANwOAASAJQgA3A/ABIAlCADcDsAEgCUIANwPAASAJQgA3A8gBIAlCADcD0AEgCSABKQOwBDcDoAIgCSABKQOoBCILNwOYAiAJIAkpAzg3A7gBIAlBgAFqIgggByAEIAUgAiADIAsQlAMgACAGNwPoASAAIAc3A+ABIAEpA7gEIQMgACAIQbAB/AoAACAAQQA2AvABIABCADcDwAEgAEIANwOwASAAIAJCfyADIAR8IgMgAyAEVBsiAyACIANWGzcDyAEgCUGwAmokAAuXAgEEfyMAQSBrIgQkACAEIAE2AgggBCAAKAIAQQhqQdCfwAAQgQMgBCgCACIBKAIAIQYgBCgCBCEFIAFBAjYCACABKAIEIQEgBSAFKAIAQQFqNgIAIAAoAgQhBSAAKAIIIQcgBCADNgIYIAQgAjYCFCAEIAE2AhAgBCAGNgIMAkACfyAGQQFGBEAgASEDQQEMAQtBACACQQFGDQAaIAZBAkcEQCAFIAdBACABEL8CDAILIARB4J/AAEEJENoDNgIcIARBHGoiAUHpn8AAQQUQ5wEhAyABENIDQQELIAUgB0EBIAMQvwIgBkUEQCAEQRBqENIDCyACcUUNACAEQRhqENIDCyAEQQhqENIDIAAQrwMgBEEgaiQAC6cDAQR/IwBBMGsiBSQAIAUgAzYCGCAAKAIAIgAgACgCBEEBaiIGNgIEIAUgAjYCFCAGBEBBBEEIEMEDIgYgBDYCBCAGIAA2AgAgBSAGQfiDwAAQkQQiBDYCHCAFIAEQjgMiBjYCICMAQRBrIgEkACAFQSBqKAIAJQEgAiADIAVBHGooAgAlARAaIAFBCGoQlQMgASgCDCEIIAVBCGoiByABKAIIQQFxNgIAIAcgCDYCBCABQRBqJAAgBSAFKQMINwIkIAVBJGoQ0wMCQCAAKAIQRQRAIABBfzYCECAAKALQBCIIIAAoAsgERgRAIwBBEGsiASQAIAFBCGogAEHIBGoiByAHKAIAQQRBEBC0ASABKAIIIgdBgYCAgHhHBEAgByABKAIMENEDAAsgAUEQaiQACyAAKALMBCAIQQR0aiIBIAQ2AgwgASAGNgIIIAEgAzYCBCABIAI2AgAgACAIQQFqNgLQBCAAIAAoAhBBAWo2AhAMAQsgBSAENgIsIAUgBjYCKCAFIAVBFGo2AiQgBUEoahDSAyAFQSxqEJ0ECyAFQTBqJAAPCwALqAIDAn8CfAN+IwBBMGsiAyQAAn4gAigCCCIERQRAIANBgICAgHg2AgxCAAwBCyADQQxqIAQgAigCDBDvASACKQMAuiEFQgELIQcgA0EYaiABQRhqEIoCIAEpAxAhCCADQSRqIAEtACZBAnQiAigC+KFAIAIoAuyhQBDvASABKQMAQgFSBH5CAAUgASkDCLpEAAAAAABAj0CjIQZCAQshCSAAIAMpAgw3AjAgACADKAIUNgI4IAAgBTkDCCAAIAc3AwAgACADKQIYNwI8IAAgAygCIDYCRCAAQgE3AxAgACADKQIkNwJIIAAgAygCLDYCUCAAIAi6OQMYIAEtACQhAiAAQQIgAS0AJWs6AFUgACACOgBUIAAgBjkDKCAAIAk3AyAgA0EwaiQAC5QCAQR/IwBBMGsiACQAIABBIGpB0KLAABDQAiAAKAIgIQEgACAAKAIkIgI2AiwgACABNgIoQQEhAyABQQFHBEAgAEEYakHYosAAENACIAAoAhwhAiAAKAIYIQMgAEEoahDTAwsgACADNgIoIAAgAjYCLEEBIQEgA0EBRwRAIABBEGpBzKLAABDQAiAAKAIUIQIgACgCECEBIABBKGoQ0wMLIAAgATYCKCAAIAI2AixBASEDIAFBAUcEQCAAQQhqQdSiwAAQ0AIgACgCDCECIAAoAgghAyAAQShqENMDC0GACCEBIANBAUYEQCAAIAI2AiggAEEoaiIBEIwEBH8gARDSA0GACAUgAgshAQsgAEEwaiQAIAELsAQBC38jAEEQayIGJAACQEGMq8AAKAIADQBBjKvAAEF/NgIAQZyrwAAoAgAiAkGYq8AAKAIAIgBGBEAgAiIAQZCrwAAoAgAiAUYEQNBvQYABIAAgAEGAAU0bIgf8DwEiAUF/Rg0CAkBBoKvAACgCACIARQRAQaCrwAAgATYCAAwBCyAAIAJqIAFHDQMLIwBBEGsiBCQAIARBCGohCUGYq8AAKAIAIQBBBCEBIwBBEGsiBSQAQZCrwAAoAgAgAGsgB08Ef0GBgICAeAUgBUEIaiEKIwBBEGsiAyQAAn9BACAAIAdqIgEgB0kNABogA0EEakGQq8AAIAFBBEEEEKYBIAMoAgRBAUYEQCADKAIMIQggAygCCAwBCyADKAIIIQBBkKvAACABNgIAQZSrwAAgADYCAEGBgICAeAshACAKIAg2AgQgCiAANgIAIANBEGokACAFKAIMIQEgBSgCCAshACAJIAE2AgQgCSAANgIAIAVBEGokACAEKAIMIQggBkEIaiIAIAQoAgg2AgAgACAINgIEIARBEGokACAGKAIIQYGAgIB4Rw0CQZCrwAAoAgAhAUGYq8AAKAIAIQALIAAgAU8NAUGUq8AAKAIAIABBAnRqIAJBAWo2AgBBmKvAACAAQQFqIgA2AgALIAAgAk0NAEGcq8AAQZSrwAAoAgAgAkECdGooAgA2AgBBjKvAAEGMq8AAKAIAQQFqNgIAQaCrwAAoAgAgBkEQaiQAIAJqDwsAC/UBAQR/IwBBIGsiAyQAIAAoAgAhBCADIAAoAgQ2AgwgAyAENgIIIAMgBDYCGEEBIQAgA0EYaiIFEJ0EIANBDGohBCABQQFHBEAgAyACNgIYIAMgBBCGAiADKAIEIQIgAygCACEAIAUQ0gMLIAMgADYCECADIAI2AhQgAEEBRwR/QQAFIANBFGogA0EYaiAEEP4BAkAgAygCGCICQQJHBEAgAygCHCEGDAELIANBGGoQ0wNBACECCyADIAZBgAggAkEBcRs2AhggA0EYaiIBQYyTwABBBBDnASECIAEQ0gMQ0gNBAQsgAhCTASAEENIDIANBIGokAAvzAgIFfwFvIwBB0ABrIgEkACABQRhqIAAQhgIgASABKAIcIgA2AiwgASABKAIYIgI2AigCQCACQQFxRQRAIAEgADYCICABQSBqKAIAJQEQHSEGEJ0BIgAgBiYBIAEgADYCJCABQfScwAA2AkAgAUEGNgI8IAFB7pzAADYCOCABQQY2AjQgAUG0nMAANgIwIAFCgICAgDA3AiggAUEENgJEIAFBzABqIQQDQAJAIAFBEGogAUEoahCgAiABKAIQIgJFDQAgAUEkaigCACUBIAIgASgCFCIDECcNASMAQRBrIgAkACABQSBqKAIAJQEgAiADEB4hBhCdASIDIAYmASAAQQhqEJUDQQEhAiABQQhqIgUCfyAAKAIIQQFGBEAgACgCDAwBC0EAIQIgAws2AgQgBSACNgIAIABBEGokACABIAEpAwg3AkggBBDSAwwBCwsgAUEkahDSAyABQSBqENIDDAELIAFBLGoQ0gMLIAFB0ABqJAAL6QICA38EfiMAQTBrIgMkAAJ+IAIEQCACKQMoIQYgA0EkaiACQRhqEIoCIAIpAxAhByACLQAmIgRFBEAgAi0AJSEFCyADIAY3AwAgAyADKQIkNwMQIAMgAygCLDYCGCADIAQ6AB0gAyAHNwMIIAMgBUEBcToAHCACKQMIIQcgAikDAAwBCyADQYCAgIB4NgIQIANCADcDACADQgA3AwggA0GABjsBHEIACyEIIABB8ANqIgIoAgAhBCACQgE3AwAgAiABIAIpAwgiCSABIAlWGyABIAQbIgE3AwggAigCECACKQMYIAZRcSIERQRAIAIgATcDICACIAY3AxggAkIBNwMQIAIgByACKQMwIAinQQFxGzcDKAsCQCAERSICRQRAIANBEGoQ2wMMAQsgAEHAAWoQywMgACADKQMYNwPYASAAIAMpAxA3A9ABIAAgAykDCDcDyAEgACADKQMANwPAAQsgA0EwaiQAIAILlQICAX8CfiMAQdAAayIEJAACQAJAAkAgAC0A4AFBBkcNACAAKQPQAyEFIAFB/wFxQQNPBEAgBCAFNwMYIARBADoAEiAEIAE6ABEgBEECOgAQIARCCjcDCCAAQbABaiAEQQhqEPgBIAAQwgIMAQsgACkD2AMhBiAEIAU3AxggBCABOgARIARBAjoAECAEQgo3AwggBCACQQFzOgASIABBsAFqIARBCGoQ+AEgABDCAiACRQ0BCyAAIAMQsQEMAQsgACAGNwP4ASAAIAU3A/ABIABBAjYC5AEgAEEAOgDiASAAIAM6AOEBIABBBzoA4AEgACAAKQOQBSIFNwPoASAAIAVCAXw3A5AFIAAQ8AELIARB0ABqJAAL9QQDBX8EfgJ8IwBBMGsiAiQAIAAoAgAiACgCEEUEQCAAQX82AhAgAkEgaiIDAn4CQCAAQSBqIgEpA3BCAVINAEJ/IAEpA3giBiABKQOQASIHIAEpA6ABfSIIQgAgByAIWht8IgcgBiAHVhshBgJAIAEpA7gBIAEpA7ABQgKFhFANACABKALgAkUNACABKQOgAkIBUg0BQn8gASkDqAIiByABKQPAAiIIIAEpA9ACfSIJQgAgCCAJWht8IgggByAIVhsiByAGIAYgB1YbIQYLIAMgBjcDCEIBDAELQgALNwMAIAIpAyBCAVEEQCACKQMoukQAAAAAAECPQKMhCgsgAEEANgIQCxCPAyELIAAgACgCBEEBaiIBNgIEIAEEQCMAQRBrIgEkACMAQRBrIgMkAEEEQQQQwQMiBCAANgIAIANBCGoiBUHEgsAANgIEIAUgBDYCACADKAIIQcSCwAAQkwQhBCADQRBqJAAgASAENgIMIAEgAUEMakQAAAAAAAAAAEQAAAAAAAAAACAKIAuhIgogCkQAAAAAAAAAAGMbIAogCmIbRAAAAAAAAPA/oCIKRAAAwP///99BIApEAADA////30FjG/wDEP8BIAEoAgAgASgCBBDHAyEFIAJBEGoiAyAENgIMIANBATYCCCADIAU2AgQgA0EBNgIAIAFBEGokAAJAIAAoAhAEQCACIAIpAhg3AyggAiACKQIQNwMgIAJBIGoQpgMMAQsgACkC0AMhBiAAIAIpAhA3AtADIAApAtgDIQcgACACKQIYNwLYAyACIAc3AwggAiAGNwMAIAanQQNGDQAgAhDcAwsgAkEwaiQADwsAC+gBAQF/IwBBIGsiBCQAIAQgACkCADcCDCAEIAE2AhhBASEAAkAgAkEBRgRAIARBGGoQ0gMMAQsgBCABNgIcIAQgBEEcaiIBEIYCIAQoAgQhAyAEKAIAIQAgARDSAwsgBEEMaiIBIARBEGogAEEBcQR/QQEFIAQgAzYCFEGBCCEDIARBFGoiABCMBEUEQCAEIABB/pPAAEEFEK0CNgIYIAQgAEHQmsAAQQUQrQI2AhwgBEEYaiIAIARBHGoiAhDAAiEDIAIQ0gMgABDSAwsgBEEUahDSA0EACyADELYBIAEQ9wMgBEEgaiQAC4ECAQJ/IwBBMGsiAiQAIAIgATYCCCACQQhqIgEoAgAlARBDIAAQzAIiAARAIAIgADYCDCACIAFB4JTAAEEHEK0CNgIsIAJBIGogAkEsahD9AQJAIAIoAiBBgICAgHhHBEAgAiACKAIoNgIYIAIgAikCIDcDEAwBCyACQRBqQbeWwABBLhDvAQsgAkEsaiIAENIDIAJBIGoiAUGMlsAAQR0Q7wEgASACKAIUIAIoAhgQuQIgAkGplsAAQQ4gAigCJCACKAIoQQAgAhDTATYCLCACQQxqIgMgABDGASAAENIDIAEQmgQgAkEQahCaBCADEKwDCyACQQhqENIDIAJBMGokAAvdAQECfyMAQRBrIgMkACAAKAIAIQACfwJAIAEoAggiAkGAgIAQcUUEQCACQYCAgCBxDQEgACABEJQBDAILIAAoAgAhAkEAIQADQCAAIANqQQ9qIAJBD3EtAKinQDoAACAAQQFrIQAgAkEEdiICDQALIAFB3KnAAEECIAAgA2pBEGpBACAAaxB1DAELIAAoAgAhAkEAIQADQCAAIANqQQ9qIAJBD3EtAN6pQDoAACAAQQFrIQAgAkEEdiICDQALIAFB3KnAAEECIAAgA2pBEGpBACAAaxB1CyADQRBqJAAL5gECA38BfiMAQSBrIgUkAEEBIQdBBCEGAkACQCAErSACrX4iCEIgiKcNACAIpyICQYCAgIB4IANrSw0AIAVBFGogASADIAQQswICfyAFKAIYBEAgBSgCHCIBRQRAIAVBCGogAyACEN4CIAUoAgghBCAFKAIMDAILIAUoAhQgASADIAIQ9QMhBCACDAELIAUgAyACEN4CIAUoAgAhBCAFKAIECyAERQRAIAAgAzYCBEEIIQYMAgsgACAENgIEQQAhB0EIIQYhAgwBC0EAIQILIAAgBmogAjYCACAAIAc2AgAgBUEgaiQAC/IBAQN/IwBB0ABrIgMkACADIAI2AhAgAyABNgIMIAMgACgCCDYCGCADQRhqEJ0EIANBEGohBAJAAkACQCABRQ0AIABBEGoiARDMAiICRQ0AIAMgAjYCFCACKAIQDQEgAkF/NgIQAkAgAigCnAZBAkYNACACKAKsBiAAKAIMRw0AIAJBnAZqELwDIAJBAjYCnAYgAigCEEEBaiEFCyACIAU2AhAMAQsgBBDSAyAAQRBqIQEMAQsgA0EBOgAoIANCDjcDGCADIAApAwA3AyAgA0EUaiIAIANBGGoQayAAEKsDIAQQ0gMLIAEQ+QIgA0HQAGokAAuZAgMFfwJ+AXwjAEEgayIDJAAgACgCACIAKAIIIQQgAEGAgICAeDYCCCADIAI2AhAgAyABNgIMAkAgBEGAgICAeEcEQCAAKAIcIQUgACgCGCEGIAApAgwhCCAAKwMAIQogAyAAKAIUIgAoAgQgACgCCEQAAAAAAADwfxD6ASADKQMAIQkgA0EBOgAeIANBADsBHCADQQY2AhggA0G0nMAANgIUQQRBCBDBAyIHIAk3AgBBCEEoEMEDIgAgBTYCICAAIAY2AhwgACACNgIYIAAgATYCFCAAIAg3AgwgACAENgIIIAAgCjkDACADQRRqIAdBxJ3AACAAQdSdwAAQggEMAQsgA0EQahDSAyADQQxqENIDCyADQSBqJAALpAICAn8FfiMAQSBrIQIgASkDoAEhByABKQOYASEIIAEpA+gBIQQgASkD4AEhBSABKQNwQgFRBEAgAiABKQOQATcDGCACIAEpA4gBNwMQIAIgASkDgAE3AwggAiABKQN4NwMAQgEhBgsgACAENwPoASAAIAU3A+ABIAAgASkD2AE3A9gBIAAgASkD0AE3A9ABIAAgASkDyAE3A8gBIAAgASkDwAE3A8ABIAEpA7ABIQQgASkDuAEhBSABKALwASEDIAAgAUHwAPwKAAAgACAGNwNwIAAgAzYC8AEgACAHNwOgASAAIAg3A5gBIAAgBTcDuAEgACAENwOwASAAIAIpAwA3A3ggACACKQMINwOAASAAIAIpAxA3A4gBIAAgAikDGDcDkAEL+AEBAX8CQAJAAkACQAJAIAAtAOABIgNBDnFBBEYEfyAAQfABaiABIAIQ6AJFDQEgAC0A4AEFIAMLQQFrDgYCAQQEBAMECyAAEMICIAAQ9AIMAwsgACkD6AFCAlINAiABIAApA/ABVA0CIAAgASACEIgBDwsgACkD6AFQRQ0BAkAgACkD+AFCAVINACABIAApA4ACVA0AIAAQ9AEPCyAAIAEgAhCRAQ8LIABB8AFqIAEgAhDoAkUEQCAAQQVBAEEAEKEBDwsgACkDsANCAFINACABIAApA7gDVA0AIAAgAjcDwAMgACABNwO4AyAAQgE3A7ADIAAQogILC60DAQZ/IwBBQGoiAyQAIANBCGogAiABQQhqEPsBQQEhBiADKAIMIQQCQCADKAIIQQFGBEAgARD8AgwBCyADIAQ2AhAgAhCOAyECIAMgA0EQaiIGEI4DNgIgIAMgAjYCJCADIAErAwA5AxggAyABKAIMNgIoIAMgASkDEDcCLCADIAEoAgg2AjQgAyABKAIYNgI4IwBBQGoiASQAIAFCADcCECABQRBqEKUDIgIgAigCAEEBaiIENgIAIARFBEAACyABQRBqIgUgA0EYakEo/AoAACABIAI2AjgjAEEQayIEJABBCEEwEMEDIgcgBUEw/AoAACAEQQhqIgVBlIPAADYCBCAFIAc2AgAgBCgCCEGUg8AAEJMEIQUgBEEQaiQAIAEgBTYCDCABQQxqEI4DIQggASACQQhqEI0DIAEoAgQhBCABKAIAIgcQ1AMgByAFNgIEIAdBATYCACAEIAQoAgBBAWo2AgAgAhCYAyABQUBrJAAgAyAINgIUIAYgA0EUaiIBEJwDIAEQ0gMgBhDSA0EAIQZBgAghBAsgACAENgIEIAAgBjYCACADQUBrJAALmgIBCH8jAEGAAWsiASQAIAEgACgCADYCACABEMwCIgAEQCABIAA2AgQgAEGABGohAiABQdgAakEBciEFIAFBMGpBAXIhBgNAAkAgACgCEA0AIABBfzYCECABQTBqIQMCQCACKAIMIgRFBEAgA0ENOgAADAELIAIgBEEBazYCDCACIAIoAggiBEEBaiIHIAIoAgAiCEEAIAcgCE8bazYCCCADIAIoAgQgBEEobGpBKPwKAAALIAAgACgCEEEBajYCECABLQAwIgNBDkYNACABQQlqIgQgBkEn/AoAACADQQ1GDQAgASADOgBYIAUgBEEn/AoAACABQQRqIAFB2ABqEGwMAQsLIAFBBGoQrAMLIAEQ+gIgAUGAAWokAAvoAQICfwF+IwBBMGsiAiQAIAEoAgBBgICAgHhGBEAgASgCDCEDIAJBADYCLCACQoCAgIAQNwIkIAJBJGpB6KXAACADKAIAIgMoAgAgAygCBBB8GiACIAIoAiwiAzYCICACIAIpAiQiBDcDGCABIAM2AgggASAENwIACyABKAIIIQMgAUEANgIIIAEpAgAhBCABQoCAgIAQNwIAIAIgAzYCECACIAQ3AwhBDEEEEI8EIgFFBEBBBEEMEK0EAAsgASACKAIQNgIIIAEgAikDCDcCACAAQfSmwAA2AgQgACABNgIAIAJBMGokAAvkAwEHfyMAQTBrIgUkAAJAAkAgABDMAiIEBEAgBSAENgIEAkAgBCgCEARAIAVBCGoiACABQSj8CgAAIAAQpAIMAQsgBEF/NgIQIARBgARqIgAoAgwiAyAAKAIAIgJGBEAgACgCACEDIwBBEGsiAiQAIAJBCGogACAAKAIAQQhBKBC0ASACKAIIIgZBgYCAgHhHBEAgBiACKAIMENEDAAsgAkEQaiQAAkAgACgCCCIGIAMgACgCDCIHa00NACADIAZrIgIgByACayIHSyAAKAIAIgggA2sgB09xRQRAIAggAmshAyACQShsIgIEQCAAKAIEIgcgA0EobGogByAGQShsaiAC/AoAAAsgACADNgIIDAELIAdBKGwiAkUNACAAKAIEIgYgA0EobGogBiAC/AoAAAsgACgCACECIAAoAgwhAwsgACADQQFqNgIMIAAoAgQgACgCCCADaiIAIAJBACAAIAJPG2tBKGxqIAFBKPwKAAAgBCAEKAIQQQFqNgIQIAQoAowEQQFHDQAgBCAEKAIEQQFqIgA2AgQgAEUNA0EEQQQQwQMiACAENgIAIAUgAEHQlMAAEMABIgA2AgggABC8BCAFQQhqENIDCyAFQQRqEKwDDAELIAEQpAILIAVBMGokAA8LAAuxAgEFfyMAQTBrIgEkACAAKAIIIQMgACgCBCECIAEgACgCADYCGCABIAI2AhQgASACNgIQIAEgAiADQQJ0IgBqNgIcIAFBKGohBANAIAAEQCABIAJBBGoiAzYCFCABIAIoAgA2AiAgAUGACDYCLCABQQhqIAFBIGoiAiABQSxqIgUQ/AEgASABKQMINwIkIAQQ0gMgAEEEayEAIAUQ0gMgAhDSAyADIQIMAQsLIwBBEGsiAyQAIAMgAUEQaiIANgIMIAAoAgwgACgCBCICa0ECdiEAA0AgAARAIABBAWshACACENIDIAJBBGohAgwBCwsjAEEQayIAJAAgACADQQxqKAIAIgIoAgA2AgwgACACKAIINgIIIABBCGoQlgQgAEEQaiQAIANBEGokACABQTBqJAAL1gECAn8CfiMAQdAAayIBJAACQAJAAkACQCAALQDgAUEDaw4EAQMDAAMLIAApA7ADQgFRDQEMAgsgACkDiAJQRQ0BIAAQuQEMAQsgAEICNwOwAyAAIAApA8ADNwPIAyAAIAApA7gDNwPAAyAAIAApA5AFIgQ3A7gDIAAgBEIBfDcDkAUgACkD2AMhAyABQQhqIgIgACAAKQPQA0EBEMgCIAEgAzcDSCABIAQ3A0AgASADQkB8NwM4IAEgA0LAAFatNwMwIABBsAFqIAIQ+AELIAFB0ABqJAALvQEBAn8jAEHQAGsiAiQAAkAgAUH/AXFFBEAgAC0AmAVFBEAgAEEAOgDgAQwCCyAAEPQCDAELIAAQwgIgAC0AmQUEQCAAQQA6AJkFIAJCAzcDCCAAQbABaiACQQhqEPgBCyACQgo3AwggAkEDOgAQIABBsAFqIgMgAkEIahD4ASABQf8BcUECRwRAIABBADoA4AEMAQsgAEEIOgDgASACQgo3AwggAkEEOgAQIAMgAkEIahD4AQsgAkHQAGokAAuuAQECfyMAQRBrIgMkACADIAAgARCrAiIENgIIIAMgAisDABC3BDYCDCADQQhqIgFByJvAAEEFIANBDGoiABCvAiAAENIDIAMgAisDCBC3BDYCDCABQc2bwABBCyAAEK8CIAAQ0gMgAyACKwMQELcENgIMIAFB2JvAAEEGIAAQrwIgABDSAyADIAIrAxgQtwQ2AgwgAUHem8AAQQggABCvAiAAENIDIANBEGokACAEC+ABAQF/IwBBEGsiBCQAIAACfyAEAn8gA71C////////////AINCgICAgICAgPj/AFoEQCAEQeOQwAA2AgggBCACNgIEIAQgATYCAEEXDAELIANEAAAAAAAAAABlRQRAIANEAADA////30FkBEAgBEH6kMAANgIIIAQgAjYCBCAEIAE2AgBBGQwCCyAAIANEAAAAAABAj0CiRAAAAAAAAOA/oPwHNwMIQQAMAgsgBEHNkMAANgIIIAQgAjYCBCAEIAE2AgBBFgs2AgwgACAEENUBNgIEQQELNgIAIARBEGokAAu6AwIJfwF+IwBBEGsiByQAAkAgBEUNACACQQFqIgJFDQAgB0EEaiEJIAIgASgCAEEBdCIGIAIgBksbIgJBCEEEQQEgBEGBCEkbIARBAUYbIgogAiAKSxsiDCECIwBBIGsiBSQAQQEhC0EEIQgCQAJAIAStIAKtfiIOQiCIpw0AIA6nIgJBgICAgHggA2tLDQBBACEIIAVBHGohBgJAIARFDQAgASgCACINRQ0AIAUgAzYCHCAEIA1sIQggASgCBCEEIAVBGGohBgsgBiAINgIAAn8gBSgCHARAIAUoAhgiBkUEQCAFQRBqIAMgAhDeAiAFKAIQIQQgBSgCFAwCCyAEIAYgAyACEPUDIQQgAgwBCyAFQQhqIAMgAhDeAiAFKAIIIQQgBSgCDAsgBEUEQCAJIAM2AgRBCCEIDAILIAkgBDYCBEEAIQtBCCEIIQIMAQtBACECCyAIIAlqIAI2AgAgCSALNgIAIAVBIGokACAHKAIEQQFGBEAgBygCDCEKIAcoAgghBgwBCyAHKAIIIQIgASAMNgIAIAEgAjYCBEGBgICAeCEGCyAAIAo2AgQgACAGNgIAIAdBEGokAAu+AQICfwF+IwBB4ABrIgEkACAAKAIAIQIgAEEANgIAIAIEQCABIAI2AgggAUEIahDMAiIABEAgASAANgIMAkAgACgCEEUEQCAAKQPwBSEDIABBAjYC8AUgASAAKQOABjcDICABIAApA/gFNwMYIAEgAzcDEAwBCyABQQI2AhALIAFBEGoQ3AMgAUIKNwMoIAFBDGoiACABQShqEGsgABCrAwsgAUEIahD5AiABQeAAaiQADwtBqILAAEEcEKsEAAumAQEBfyMAQSBrIgQkAAJ/IAJBAUYEQCAEIAM2AhwgBEGACDYCFCAEIAEgBEEUaiIAIARBHGoiARDzASAEKAIAIQMgBCgCBAwBCyAEIAM2AhwgBEGACDYCFCAEQQhqIAAgBEEUaiIAIARBHGoiARDzASAEKAIIIQMgBCgCDAshAiAAENIDIAEQ0gMgBCADNgIUIAQgAjYCGCAEQRhqENIDIARBIGokAAuVAgECfyMAQSBrIgUkAEHkrMAAQeSswAAoAgAiBkEBajYCAAJAAkACQAJAAn9BACAGQQBIDQAaQQFB0KzAAC0AAA0AGkHQrMAAQQE6AABBzKzAAEHMrMAAKAIAQQFqNgIAQQILQf8BcQ4DAwEAAQtB2KzAACgCACIGQQBIDQJB2KzAACAGQQFqNgIAQdyswAAoAgBFDQEgBUEIaiAAIAEoAhQRAQAgBSAEOgAdIAUgAzoAHCAFIAI2AhggBSAFKQMINwIQQdyswAAoAgAgBUEQakHgrMAAKAIAKAIUEQEADAELIAUgACABKAIYEQEADAELQdiswABB2KzAACgCAEEBazYCAEHQrMAAQQA6AAAgA0UNAAALAAvDAQECfyMAQRBrIgMkAAJ/IAFBAXFFBEAgAyACNgIMIABBCGohASADQQxqENIDQQAMAQsgAyACNgIIIAMgAEEIaiIBKAIAJQEQMiICNgIEIAMgAkEARzYCACADAn8gAygCAEEBcQRAIAMoAgQMAQtBoJ3AAEETEKYECzYCDCADQQxqIgJBzJzAAEELEOcBIQQgAhDSAyADQQhqENIDQQELIQIgACgCACAAKAIEIAAoAgwgAiAEEM0CIAEQ0gMgA0EQaiQAC8wBAgF/An4jAEHwAGsiASQAIAAgACkDkAUiAkIBfDcDkAUgAC0A4AFBA0YEQCAAIAI3A5ACIABCAjcDiAIgACkD+AEhAyABIAAgACkDgAJBABDIAiABIAEoAiA2AkggASABKQMYNwNAIAEgAzcDaCABIAI3A2AgAUIANwNQIAEgAS0AJjoATiABQQE6AE0gASABLQAkOgBMIAEgASkDEDcDOCABIAEpAwg3AzAgASABKQMANwMoIABBsAFqIAFBKGoQ+AELIAFB8ABqJAALnQMBBX8jAEEQayIDJAAgAyACNgIAAkAgACgCACgCACICQX9GDQAgAiACKAIEQQFqIgQ2AgQgBA0AAAsgACgCBCEAQQRBCBDBAyIEIAE2AgQgBCACNgIAIAMgABClBDYCDCADIANBDGoiBhCnBDYCBCAGENIDIwBBIGsiACQAIABCADcCFCAAQRRqEKUDIgEgASgCAEEBaiICNgIAIAJFBEAACyAAIAE2AhwgAEGwk8AANgIYIAAgBDYCFCMAQRBrIgIkAEEEQQwQwQMiBCAAQRRqIgUoAgg2AgggBCAFKQIANwIAIAJBCGoiBUGAgsAANgIEIAUgBDYCACACKAIIQYCCwAAQkgQhBCACQRBqJAAgACAENgIQIABBEGoQjgMhByAAQQhqIAFBCGoQjQMgACgCDCECIAAoAggiBRC7AyAFIAQ2AgQgBUEBNgIAIAIgAigCAEEBajYCACABEJcDIABBIGokACADIAc2AgggAyADQQRqIgAgA0EIaiIBEPYDNgIMIAYQ0gMgARDSAyAAENIDIAMQ0gMgA0EQaiQAC9QBAgF/AX4jAEFAaiICJAACQAJAIAEoAtABQYGAgIB4Rg0AIAEpA8ABIQMgAkEwaiABQdABahC0AyACIAEvAdwBOwE8IAIgAzcDECACIAEpA8gBNwMYIAIgAikCNDcDACACIAIoAjw2AgggAigCMCIBQYGAgIB4Rg0AIAAgAikDGDcDCCAAIAIpAxA3AwAgACABNgIQIAAgAikDADcCFCAAIAIoAgg2AhwMAQsgAEGAgICAeDYCECAAQgA3AwAgAEIANwMIIABBgAY7ARwLIAJBQGskAAuFAgIGfwFvIwBBIGsiAiQAIAJBCGoQ0gECfwJAIAIoAghBAXFFBEBBAiEBIAJBAjsBFAwBCyACIAIoAgw2AhwgAkEUaiEEIwBBEGsiAyQAIAJBHGoiBSgCACUBIAEoAgAlASIIIAgQEyEGIANBCGoQlQNBASEBAkAgAygCCEEBRgRAIAQgAygCDDYCBAwBCyAEIAY7AQJBACEBCyAEIAE7AQAgA0EQaiQAIAUQ0gMgAi8BFCIBQQJGIAFBAXFyDQBBAAwBC0GAoMAAQQ9Bj6DAAEE/QQAgAhDTASEHQQELIQMgAUEBRgRAIAJBGGoQ0gMLIAAgBzYCBCAAIAM2AgAgAkEgaiQAC78BAwF/A3wBfiMAQRBrIgIkACACIAEoAgAiAUHIm8AAQQUQ2wICQCACKQMAQgFSDQAgAisDCCEDIAIgAUHNm8AAQQsQ2wIgAikDAEIBUg0AIAIrAwghBCACIAFB2JvAAEEGENsCIAIpAwBCAVINACACKwMIIQUgAiABQd6bwABBCBDbAiACKQMAQgFSDQAgACACKwMIOQMgIAAgBTkDGCAAIAQ5AxAgACADOQMIQgEhBgsgACAGNwMAIAJBEGokAAuqAQEDfyMAQRBrIgQkACAEQQhqIgMgAjYCBCADQQA2AgACQCAEKAIMIgUgBCgCCCICRgRAIABCADcCCCAAQgA3AgAMAQsgACABKAIIIAJqIgMgASgCACIBQQAgASADTRtrIgM2AgAgBSACayICIAEgA2siBU0EQCAAQgA3AgggACACIANqNgIEDAELIABBADYCCCAAIAE2AgQgACACIAVrNgIMCyAEQRBqJAALmAEDAn8BfAF+IwBBMGsiAiQAQQEhAyAAQQFHBEAgAiABNgIYIAJBEGogAkEYaiIAQQEQgQIgAigCFCEBIAIoAhAhAyAAENIDCyACQQhqIAMgARCpAiACKAIIQQFHBH5CAAUgAiACKAIMNgIsIAJBGGogAkEsaiIAELgCIAAQ0gMgAisDICEEIAIpAxgLIAQQ6gEgAkEwaiQAC/ABAQR/IwBBIGsiAiQAIAJCADcCFCACQRRqEKUDIgQgBCgCAEEBaiIDNgIAIANFBEAACyACIAQ2AhwgAiABNgIYIAIgADYCFCMAQRBrIgAkAEEEQQwQwQMiASACQRRqIgMoAgg2AgggASADKQIANwIAIABBCGoiA0GAg8AANgIEIAMgATYCACAAKAIIQYCDwAAQkwQhASAAQRBqJAAgAiABNgIQIAJBEGoQjgMgAkEIaiAEQQhqEI0DIAIoAgwhACACKAIIIgMQ1AMgAyABNgIEIANBATYCACAAIAAoAgBBAWo2AgAgBBCYAyACQSBqJAALpAEBA38jAEEgayIBJAAgARCzAxCOAzYCECABIAFBEGoiAkHLlcAAQQgQrQI2AgQgAhDSAyABIAFBBGpBgJjAAEEPEK0CNgIcIAIgAUEcaiIDEP0BIAEgASgCGDYCDCABIAEoAhRBACABKAIQQYCAgIB4Rxs2AgggAUEIakGYmMAAEO0CIAIQ2wMgAxDSAwRAIAAQigMLIAFBBGoQ0gMgAUEgaiQAC5MBAQF+AkBCfyACQqjDAXwiCCACIAhWGyAGVA0AIAUgAyAHfSIHQgAgAyAHWhsiAyACIAZ9IgZCACACIAZaGyIGIAMgBlYbIgNYDQAgACAEIAEgACkDmAEiBCADIAV9fCIDQgAgAyAEWBsiA30iBEIAIAEgBFobIAIgA30iA0IAIAIgA1obIAEgAiAAKQOYARDUAQsLwwECA38BfiMAQSBrIgEkACAAKAIAIQIgAEEANgIAIAIEQCAAKQIEIQQgASACNgIUIAEgBDcCGCMAQRBrIgAkACAAIAI2AgggACAEpyIDNgIMIAIgAygCDBEAACAAQQhqELADIABBEGokACABQQhqIARCIIinQQhqEI0DIAEoAggiACgCACABKAIMIQIgAEEANgIAIAAoAgQgAiACKAIAQQFqNgIAEIIDIAFBHGoQrQMgAUEgaiQADwtBqILAAEEcEKsEAAuxAQECfyMAQSBrIgMkACAAKAIAIgAoAgAhBCAAQQA2AgAgAyACNgIQIAMgATYCDAJAIARBAUYEQCAAKAIEIQAgA0EBOgAeIANBADsBHCADQQY2AhggA0HunMAANgIUQQRBBBDBAyIEIAA2AgBBBEEIEMEDIgAgAjYCBCAAIAE2AgAgA0EUaiAEQeSdwAAgAEH0ncAAEIIBDAELIANBEGoQ0gMgA0EMahDSAwsgA0EgaiQAC9wBAQN+QgEhBQJAIAG9IgNC////////////AIMiBFAgA0IBfUL/////////B1RyIARCgICAgICAgAh9QoCAgICAgIDw/wBUIANCAFlxckUNACACvSIDQv///////////wCDIgRQIANCAX1C/////////wdUciAEQoCAgICAgIAIfUKAgICAgICA8P8AVCADQgBZcXJFDQAgACACRAAAAAAAQI9AokQAAAAAAADgP6D8BzcDECAAIAFEAAAAAABAj0CiRAAAAAAAAOA/oPwHNwMIQgAhBQsgACAFNwMAC8QBAgN/AX4jAEEQayICJAAgACgCACIDQRBqIQQgAygCEEUEQCADQQE7ANcECyAAQYePwABBBhCYAiACQYAINgIAIARB1pfAAEEGIAEgAhDpASACENIDAkACQCAEKAIADQAgAykCtAQhBSADQQA2ArgEIAMoArAEIQAgA0KAgICAwAA3A7AEIABBgICAgHhGDQAgAiAFNwIIIAIgADYCBAwBCyACQQA2AgwgAkKAgICAwAA3AgQLIAJBBGoQrwEgAkEQaiQAC4ECAQZ/IwBBEGsiAyQAIAIgASACaiIESwRAQQBBABDRAwALIANBBGohBSAAKAIAIgIhBiAAKAIEIQhBASEHQQQhAQJAQQggBCACQQF0IgIgAiAESRsiAiACQQhNGyIEIgJB/////wdLBEBBACECDAELAkACQAJ/IAYEQCAIIAZBASACEPUDDAELIAJFBEBBASEBDAILIAJBARCPBAsiAQ0AIAVBATYCBAwBCyAFIAE2AgRBACEHC0EIIQELIAEgBWogAjYCACAFIAc2AgAgAygCBEEBRgRAIAMoAgggAygCDBDRAwALIAMoAgghASAAIAQ2AgAgACABNgIEIANBEGokAAueAQEFfyMAQRBrIgEkACABELMDEI4DNgIMIAEgAUEMaiIDQYOUwABBCRCtAjYCCCABIAFBCGoiAkGMlMAAQQUQrQIiBDYCBCACENIDIAMQ0gMgASABQQRqQZGUwABBBxCtAjYCCCACEIsEIAEgBDYCDEEBIQJFBEAgAxDSA0EAIQILIAFBCGoQ0gMgACAENgIEIAAgAjYCACABQRBqJAALAwAAC5MBAQF/IwBBIGsiBCQAIAQgASACIAMQrQI2AgwgAAJ/IARBDGoiARCMBEUEQCAEQRBqIAEQuAIgBCgCEARAIAAgBCsDGDkDECAAQgE3AwhBAAwCCyAAQRA2AhAgAEGfocAANgIMIAAgAzYCCCAAIAI2AgRBAQwBCyAAQgA3AwhBAAs2AgAgBEEMahDSAyAEQSBqJAALAwAAC6YBAgF/AX4jAEGQAmsiBCQAAkAgAC0AmAVFBEAgACADEOMBDAELIAMgASACEOgCRQRAIAAQwgIgABD0AgwBCyADKQPgASEFIAMgASACEOcCIQEgBEEPaiADQYAC/AoAACAAQQY6AOABIABB4QFqIARBjwL8CgAAIAQgATcDGCAEIAU3AxAgBEEAOgAIIARCCjcDACAAQbABaiAEEPgBCyAEQZACaiQAC5oBAQF/IwBB0ABrIgIkAAJAIAEoAjxBgICAgHhHBEAgAkHEAGogAUE8ahCKAiACQThqIAFBMGoQtAMgAiABKwMoOQMwIAIgASsDIDkDKCACIAErAxg5AyAgAiABKwMQOQMYIAIgASsDCDkDECACIAErAwA5AwggACACQQhqQcgA/AoAAAwBCyAAQYCAgIB4NgI8CyACQdAAaiQAC50BAwF/AX4BfCMAQSBrIgQkACAEQQhqIAEgAiADEMoBAkAgBCgCCEEBRgRAIAQoAgwhASAEKQMQIQUgACAEKAIYNgIMIAAgBTcCBCAAIAE2AgAMAQsgBCkDEEIBUQRAIAQrAxghBiAAQQA2AgAgACAGOQMIDAELIABBCzYCDCAAQa+hwAA2AgggACADNgIEIAAgAjYCAAsgBEEgaiQAC4gBAQR/IwBB0ABrIgMkACADIAE2AgggAyAANwMAIAItAAEhASACLQAAIQQgA0EIaiIFEMwCIgYEQCADIAY2AhQgAyAANwMgIANCDTcDGCADQQIgAUF/c0EBcSAEQQFxGzoAKCADQRRqIgEgA0EYahBrIAEQqwMLIAIQ1gMgBRD5AiADQdAAaiQAC88BAQN/IwBBEGsiAyQAIAMgAjYCCAJAIAAoAgAoAgAiACgCEEUEQCAAQX82AhAgACgCuAQiBSAAKAKwBEYEQCMAQRBrIgIkACACQQhqIABBsARqIgQgBCgCAEEEQQQQtAEgAigCCCIEQYGAgIB4RwRAIAQgAigCDBDRAwALIAJBEGokAAsgACgCtAQgBUECdGogATYCACAAIAVBAWo2ArgEIAAgACgCEEEBajYCEAwBCyADIAE2AgwgA0EMahDSAwsgA0EIahDSAyADQRBqJAALjQEBAn8CQCABBEAgASgCACICQf////8HTwRAIABBzwA2AgggAEHegMAANgIEIABBADYCAA8LIAEgAkEBajYCACABQQhrIgIgAigCAEEBaiIDNgIAIANFDQEgACACNgIIIAAgATYCBCAAIAFBBGo2AgAPCyAAQRs2AgggAEHDgMAANgIEIABBADYCAA8LAAuGAQEFfyMAQRBrIgEkACABELMDEI4DNgIMIAEgAUEMaiIDQZiSwABBCRCtAiIENgIEIAMQ0gMgASABQQRqQYyTwABBBBCtAjYCCCABQQhqEIsEIAEgBDYCDEEBIQJFBEAgAxDSA0EAIQILIAFBCGoQ0gMgACAENgIEIAAgAjYCACABQRBqJAALhgEBAX8jAEEQayIGJAAgBiACIAMQpgQiAzYCBCAGQQRqIgIoAgAlAUGQocAAQQoQTiAGIAAgARDaAzYCCCACQayVwABBBCAGQQhqIgAQrwIgABDSAyAEBEAgBiAEIAUQ2gM2AgwgAkGaocAAQQUgBkEMaiIAEK8CIAAQ0gMLIAZBEGokACADC/kBAgJ/A34jAEEQayIHJAAgByAAIAQgBRCBASAHKQMIIQkgBykDACEKIAApA2AiBCAFfUIAIAAoAlBBAXEiCBshC0IAIAQgBVStfUIAIAgbIQQCQCAAKAIAQQFxRQ0AIAApAyAgAlgNAEIAIAApAxggACgCMCAAKQM4IAJWcSIIGyEEQgAgACkDECAIGyELCyAAIAY3A5ABIAAgATcDiAEgACAKIAIgAiAKVhs3A3ggAEIBNwNwIAAgCUJ/IAtCACAEQgBZG0J/IARCACAEQgBVGyIBQgBXIAFQchsgA3wiASABIANUGyIBIAEgCVYbNwOAASAHQRBqJAALdAEFfyMAQRBrIgEkACAAKAIIIQUgACgCACEDIAFBBGoiAiAAKAIEIgQgACgCDCIAakEBahDRAiACIAMgBBC5AiACQSAQ9wEgAiAFIAAQuQJBiJnAAEEQIAEoAgggASgCDCADIAQQ0wEgAhCaBCABQRBqJAALjAEAIAACfwJAAkACQCABIAFhBEAgAUQAAAAAAAAAAGMNASABmUQAAAAAAADwf2EgASABnaFEAAAAAAAAAABicg0CIAFE////////P0NkRQRAIAAgAfwHNwMIQQAMBQsgAEEDOgABDAMLIABBADoAAQwCCyAAQQE6AAFBAQwCCyAAQQI6AAELQQELOgAAC3sBAX8jAEEgayIDJAAgA0EYaiABKAIAIAIQgQIgA0EQaiADKAIYIAMoAhwQqQIgAygCEEEBcQR/IANBCGogAygCFBDSAiADIAMoAgggAygCDBCpAiADKAIEIQIgAygCAAVBAAshASAAIAI2AgQgACABNgIAIANBIGokAAsDAAALkQECAn8BfiMAQSBrIgIkACABKAIAQYCAgIB4RgRAIAEoAgwhAyACQQA2AhwgAkKAgICAEDcCFCACQRRqQeilwAAgAygCACIDKAIAIAMoAgQQfBogAiACKAIcIgM2AhAgAiACKQIUIgQ3AwggASADNgIIIAEgBDcCAAsgAEH0psAANgIEIAAgATYCACACQSBqJAALXwACf0EAIAFBgIAESw0AGkEAQX8gASACIAEgAksbIgFBAWtndkEAIAFBAk8bIgFBf0YNABogAUEBamgiAUEDayICQQAgASACTxshAUEBCyECIAAgATYCBCAAIAI2AgALcwEBfyMAQRBrIgQkACAEQQA2AgAgBCADNgIEIAEEQCAEQQhqIAEgAyACKAIQEQIAIAAgBC0ACCIBNgIIIAAgBCgCDEEAIAEbNgIEIABBACAELQAJIAEbNgIAIARBEGokAA8LIAQQ5gNB3KLAAEEyEKsEAAtrAQJ/IwBBEGsiASQAIAAoAgAhAiAAQQA2AgAgAgRAIAEgAjYCCCABQQhqEMwCIgAEQCABIAA2AgwgAUEMaiIAQeyOwABBBxB7IAAQrAMLIAFBCGoQ+gIgAUEQaiQADwtBqILAAEEcEKsEAAsDAAALAwAACwMAAAtvAQN/IwBBEGsiAyQAIAMQ9AMiBDYCBCADQYIIQYMIIAAbNgIIIANBBGoiAEHOoMAAQQggA0EIaiIFEK8CIAUQ0gMgAyABIAIQxgI2AgwgAEHQmsAAQQUgA0EMaiIAEK8CIAAQ0gMgA0EQaiQAIAQLZgECfyMAQRBrIgEkACAAKAIAIQIgAEEANgIAIAIEQCABIAI2AgggAUEIahDMAiIABEAgASAANgIMIABBEGoQhAEgAUEMahCsAwsgAUEIahD6AiABQRBqJAAPC0GogsAAQRwQqwQAC3UCAX8BfiMAQdAAayIBJAACQCAALQDcBEEBRw0AIAApA6ABQgBSDQAgAEIBNwOgASAAIAApA5AFIgI3A6gBIAAgAkIBfDcDkAUgAUEAOgAYIAEgAjcDECABQgY3AwggAEGwAWogAUEIahD4AQsgAUHQAGokAAt2AgJ/AX4jAEHQAGsiAiQAIABCATcDkAEgACAAKQOQBSIENwOYASAAIARCAXw3A5AFIAJBCGoiAyAAIAEpA+ABQQIQyAIgAiAENwNAIAJCADcDMCACIAEpA+gBNwNIIABBsAFqIAMQ+AEgABD0AiACQdAAaiQAC2sBAX8jAEEQayIEJAAgBEEANgIIIAQgAzYCDCABBEAgBCABIAMgAigCEBECACAEKAIEIQEgACAEKAIAIgI2AgQgACABQQAgAkEBcRs2AgAgBEEQaiQADwsgBEEIahDmA0HcosAAQTIQqwQAC2oBAn8jAEEQayICJAAgAiABQcOYwABBCRCtAjYCDCACQQxqIgEQxAMhAyABENIDAkAgA0H/AXFBAUcNACAAKAIAIgEoAhANACABLQDZBCABQQA6ANkERQ0AIAAQbgsgABCKAyACQRBqJAALgwEBAX8CQCAAQYQITwRAIADQbyYBQYyrwAAoAgANAUGMq8AAQX82AgAgAEGgq8AAKAIAIgFJDQEgACABayIAQZirwAAoAgBPDQFBlKvAACgCACAAQQJ0akGcq8AAKAIANgIAQZyrwAAgADYCAEGMq8AAQYyrwAAoAgBBAWo2AgALDwsAC2wBAn8jAEEQayIDJAAgA0EEaiIEQZiUwABBChDvASAEIAEgAhC5AiAEQaKUwABBCRC5AiADQauUwABBDyADKAIIIAMoAgwgABDtASIBNgIAIANBupTAAEEFIAAQrwIgBBCaBCADQRBqJAAgAQt6AQJ/IwBBgAFrIgEkAAJAAkAgACgCACICKAIQDQAgAigCwANBAkYNACACLQDXBEEBcQ0AIAEgADYCACABQdiOwAAQ2QMhAiABQYGAgIB4NgJsIAAgARBvDAELIAFBgAg2AgAgARCpBCECIAEQ0gMLIAFBgAFqJAAgAgvMAQICfwFvIwBBIGsiBSQAIAVBgAg2AhggBSABIAIQ2gM2AhwjAEEQayIBJAAgAEG8BWooAgAlASAFQRhqIgIoAgAlASAFQRxqIgYoAgAlASADKAIAJQEgBCgCACUBEAMhBxCdASIDIAcmASABQQhqEJUDQQEhACAFQQhqIgQCfyABKAIIQQFGBEAgASgCDAwBC0EAIQAgAws2AgQgBCAANgIAIAFBEGokACAFIAUpAwg3AhAgBUEUahDSAyAGENIDIAIQ0gMgBUEgaiQAC3QBAn4CQCAAQgFSDQAgAb0iAEL///////////8AgyICUCAAQgF9Qv////////8HVHIgAkKAgICAgICACH1CgICAgICAgPD/AFQgAEIAWXFyRQ0AIAH8B0IAIAEgAZ1hG0IAIAFE////////P0NlGyEDCyADC2QBAX8jAEEQayIDJAAgAQRAIANBCGogASACKAIQEQEAIAMoAgwhASAAIAMoAggiAjYCCCAAIAFBACACQQFxIgIbNgIEIABBACABIAIbNgIAIANBEGokAA8LQdyiwABBMhCrBAAL0gIBCn8jAEEQayIGJAACQCAAIAEoAggiBSABKAIASQR/IwBBEGsiByQAIAEoAgAgBUkEQEGzpcAAQckAQdilwAAQywIACyMAQRBrIgMkACADQQxqIQggBkEIaiEJIAdBCGohCiABKAIAIgQEQCADQQE2AgwgBCECIAEoAgQhBCADQQhqIQgLIAggAjYCAAJAIAMoAgwiAgRAIAMoAgghCwJAIAVFBEAgBCACIAsQ5wMgAUEBNgIEDAELIAQgCyACIAUiCBD1AyIERQ0CIAEgBDYCBAsgASAFNgIAC0GBgICAeCECCyAKIAg2AgQgCiACNgIAIANBEGokACAHKAIMIQIgCSAHKAIINgIAIAkgAjYCBCAHQRBqJAAgBigCCCICQYGAgIB4Rw0BIAEoAggFIAULNgIEIAAgASgCBDYCACAGQRBqJAAPCyACIAYoAgwQ0QMAC1wBAn8jAEEgayIFJAAgBUEIaiIGIAIgAxDvASAFQRRqIgIgBBCCAiAGIAUoAhggBSgCHBC5AiACEJoEIAAgASAFKAIMIAUoAhBBACAFENMBIAYQmgQgBUEgaiQAC7kBAgR/AW8jAEEQayIDJABBASEFIAEoAgQhBCABKAIAQQFHBEAgAyAENgIMIwBBEGsiASQAIAIoAgAlASADQQxqIgYoAgAlAUECECohBxCdASIEIAcmASABQQhqEJUDQQEhAiADAn8gASgCCEEBRgRAIAEoAgwMAQtBACECIAQLNgIEIAMgAjYCACABQRBqJAAgAygCBCEEIAMoAgAhBSAGENIDCyAAIAU2AgAgACAENgIEIANBEGokAAtcAQN/IwBBEGsiAyQAIANBCGogAhCOAiADKAIIIQUgAygCDCEEIABBADYCCCAAIAQ2AgQgACAFNgIAIAIEQCACBEAgBCABIAL8CgAACyAAIAI2AggLIANBEGokAAtoAgJ/An4jAEHQAGsiASQAIAAtAOABQQdGBEAgACkD6AEhAyAAKQP4ASEEIAFBCGoiAiAAIAApA/ABQQIQyAIgASAENwNIIAEgAzcDQCABQgA3AzAgAEGwAWogAhD4AQsgAUHQAGokAAtUAQJ+IAApA3BCAVEEfiAAKQOQASIEIAIgACkDgAF9IgNCACACIANaGyICIAEgACkDeH0iA0IAIAEgA1obIgEgASACVBt9IgFCACABIARYGwVCAAsLbwEBfwJAAkACQAJAAkACQCAAKAIAIgAtABRBAWsOAwECAQALIABBCGooAgBB/////wdPDQMgACgCDA0CCw8LIABBAzoAFA8LIAAgACgCAEEBaiIBNgIAIAFFDQEgAEEBOgAUAAtBiKTAABD3AgsAC2sCAX8BbyMAQRBrIgQkACABKAIAJQEgAigCACUBIAMoAgAlARACIQUQnQEiASAFJgEgBEEIahCVA0EBIQMgAAJ/IAQoAghBAUYEQCAEKAIMDAELQQAhAyABCzYCBCAAIAM2AgAgBEEQaiQAC2kCAX8BfiMAQdAAayIBJAAgACAAKQOQBSICQgF8NwOQBSAALQDgAUEBRgRAIABCADcD+AEgACACNwPwASAAQgE3A+gBIAFCBDcDCCABIAI3AxAgAEGwAWogAUEIahD4AQsgAUHQAGokAAtrAgF/AW8jAEEQayIEJAAgASgCACUBIAIoAgAlASADKAIAJQEQKSEFEJ0BIgEgBSYBIARBCGoQlQNBASEDIAACfyAEKAIIQQFGBEAgBCgCDAwBC0EAIQMgAQs2AgQgACADNgIAIARBEGokAAsDAAALWQEDfyAAKAIIIQIgAEEBQQIgAUGAAUkbIgMQnQMgACgCBCAAKAIIaiIEIAFB/wBLBH8gBCABQT9xQYABcjoAASABQQZ2QUByBSABCzoAACAAIAIgA2o2AggLrgIBBX8gACgCDCIDIAAoAgAiAkYEQCAAKAIAIQMjAEEQayICJAAgAkEIaiAAIAAoAgBBCEHIABC0ASACKAIIIgRBgYCAgHhHBEAgBCACKAIMENEDAAsgAkEQaiQAAkAgACgCCCIEIAMgACgCDCIFa00NACADIARrIgIgBSACayIFSyAAKAIAIgYgA2sgBU9xRQRAIAYgAmshAyACQcgAbCICBEAgACgCBCIFIANByABsaiAFIARByABsaiAC/AoAAAsgACADNgIIDAELIAVByABsIgJFDQAgACgCBCIEIANByABsaiAEIAL8CgAACyAAKAIAIQIgACgCDCEDCyAAIANBAWo2AgwgACgCBCAAKAIIIANqIgAgAkEAIAAgAk8ba0HIAGxqIAFByAD8CgAACwMAAAu7AQMEfwF+AW8jAEEQayIEJAAgBCABIAJEAAAAAAAAAAAQmQI2AgggBCABIAIgAxCZAjYCDCMAQRBrIgEkACAEQQhqIgUoAgAlASAEQQxqIgYoAgAlARAiIQkQnQEiByAJJgEgAUEIahCVA0EBIQIgBAJ/IAEoAghBAUYEQCABKAIMDAELQQAhAiAHCzYCBCAEIAI2AgAgAUEQaiQAIAQpAwAhCCAGENIDIAUQ0gMgACAINwMAIARBEGokAAtkAgF/AW8jAEEQayIDJAAgASgCACUBIAIoAgAlARArIQQQnQEiASAEJgEgA0EIahCVA0EBIQIgAAJ/IAMoAghBAUYEQCADKAIMDAELQQAhAiABCzYCBCAAIAI2AgAgA0EQaiQAC2QCAX8BbyMAQRBrIgMkACABKAIAJQEgAigCACUBEEkhBBCdASIBIAQmASADQQhqEJUDQQEhAiAAAn8gAygCCEEBRgRAIAMoAgwMAQtBACECIAELNgIEIAAgAjYCACADQRBqJAALZwECfyMAQRBrIgIkACACQQhqIAEoAgAlARBeAkAgAigCCCIBRQRAQYCAgIB4IQEMAQsgAiABIAIoAgwQvAIgAigCACEDIAAgAigCBCIBNgIIIAAgAzYCBAsgACABNgIAIAJBEGokAAtRAQF/IwBBEGsiAiQAIAEoAgAlARAXIQEgAkEIahCVAyAAAn8gAigCCEEBRgRAIAIoAgwhAUECDAELIAFBAEcLNgIAIAAgATYCBCACQRBqJAALXwIBfwFvIwBBEGsiAyQAIAEoAgAlASACEEQhBBCdASICIAQmASADQQhqEJUDQQEhASAAAn8gAygCCEEBRgRAIAMoAgwMAQtBACEBIAILNgIEIAAgATYCACADQRBqJAALXAEBfyMAQRBrIgQkACAEQQA2AgAgBCACNgIEIAQgAzYCDCAEQQA2AgggAARAIAAgAiADIAEoAhARAgAgBEEQaiQADwsgBEEIahDmAyAEEOYDQdyiwABBMhCrBAALXwIBfwFvIwBBEGsiAyQAIAEoAgAlASACEFkhBBCdASICIAQmASADQQhqEJUDQQEhASAAAn8gAygCCEEBRgRAIAMoAgwMAQtBACEBIAILNgIEIAAgATYCACADQRBqJAALywECBH8BbyMAQRBrIgMkACADIAFB4JTAAEEHEK0CNgIMIANBDGoiAhCMBAR/IAEFIAEgAiACEIkEGwsoAgAlARAJIQYQnQEiAiAGJgEjAEEQayIBJAAgASACNgIMIwBBEGsiBCQAIARBBGoiAiABQQxqIgUQ/QECQCACKAIAQYCAgIB4RwRAIAAgAigCCDYCCCAAIAIpAgA3AgAMAQtBmKTAAEExEKsEAAsgBEEQaiQAIAUQ0gMgAUEQaiQAIANBDGoQ0gMgA0EQaiQAC1IBAn8jAEEQayICJAACQCAABEAgAEEIayIAKAIAIQMgAiAANgIMIAJBDGoQqAMgAUUgA0EBR3ENASACQRBqJAAPCxCqBAALQYSAwABBPxCrBAALUgECfyMAQRBrIgIkAAJAIAAEQCAAQQhrIgAoAgAhAyACIAA2AgwgAkEMahCpAyABRSADQQFHcQ0BIAJBEGokAA8LEKoEAAtBhIDAAEE/EKsEAAtdAgJ/AW8jAEEQayICJAAgASgCACUBEBEhBBCdASIDIAQmASACQQhqEJUDQQEhASAAAn8gAigCCEEBRgRAIAIoAgwMAQtBACEBIAMLNgIEIAAgATYCACACQRBqJAALXQICfwFvIwBBEGsiAiQAIAEoAgAlARAYIQQQnQEiAyAEJgEgAkEIahCVA0EBIQEgAAJ/IAIoAghBAUYEQCACKAIMDAELQQAhASADCzYCBCAAIAE2AgAgAkEQaiQAC1oCAX8BbyMAQRBrIgMkACABIAIQOiEEEJ0BIgEgBCYBIANBCGoQlQNBASECIAACfyADKAIIQQFGBEAgAygCDAwBC0EAIQIgAQs2AgQgACACNgIAIANBEGokAAtdAgJ/AW8jAEEQayICJAAgASgCACUBED0hBBCdASIDIAQmASACQQhqEJUDQQEhASAAAn8gAigCCEEBRgRAIAIoAgwMAQtBACEBIAMLNgIEIAAgATYCACACQRBqJAALVQEBfwJAAkAgACgCACAAKAIIIgNrIAJJBEAgACADIAIQxwEgACgCCCEDDAELIAJFDQELIAJFDQAgACgCBCADaiABIAL8CgAACyAAIAIgA2o2AghBAAtbAQJ/AkACQCABKAIIIgJFBEBBASEBDAELIAEoAgQhAyACQQEQjwQiAUUNASACRQ0AIAEgAyAC/AoAAAsgACACNgIIIAAgATYCBCAAIAI2AgAPC0EBIAIQ0QMAC/MBAQJ/IwBBEGsiAyQAIAAoAgAlARBHIQQgAyACNgIMIAMgBDYCCCACIARHBEAjAEEQayIBJAAgASADQQxqNgIMIAEgA0EIajYCCCMAQUBqIgAkACAAQbinwAA2AgQgACABQQhqNgIAIABBuKfAADYCDCAAIAFBDGo2AgggAEG0qsAAKAIANgIUIABBqKrAACgCADYCECAAIABBCGqtQoCAgICwFoQ3AzAgACAArUKAgICAsBaENwMoIAAgAEEQaq1CgICAgNAWhDcDIEHmhMAAIABBIGpB2KPAABDLAgALIAEgAiAAKAIAJQEQSCADQRBqJAALVQEBfyMAQRBrIgMkACADQQhqIAEgAhDaAQJAIAMoAghBAUcNACADKAIMIgFBHEsNACAAIAFBAnRBwKvAAGoiASgCADYCACABIAA2AgALIANBEGokAAtWAgN/AW8jAEEQayIBJAAQNCEEEJ0BIgMgBCYBIAFBCGoQlQNBASECIAACfyABKAIIQQFGBEAgASgCDAwBC0EAIQIgAws2AgQgACACNgIAIAFBEGokAAvIAQEEfyMAQRBrIgMkACMAQRBrIgQkACADQQRqIgICfwJAAkAgAUH/////B00EQCABDQEgAkEBNgIIIAJBADYCBEEADAMLIAJBADYCBAwBCyAEQQhqQQEgARDeAiAEKAIIIgUEQCACIAU2AgggAiABNgIEQQAMAgsgAiABNgIIIAJBATYCBAtBAQs2AgAgBEEQaiQAIAMoAgghASADKAIEQQFGBEAgASADKAIMENEDAAsgACADKAIMNgIEIAAgATYCACADQRBqJAALTQEBfyMAQRBrIgIkACACIAE2AgggABDMAiIBBEAgAiABNgIMIAJBDGoiASACQQhqIAAoAgQRAQAgARCsAwsgAkEIahDSAyACQRBqJAALSQEDfiAAIAEpA3BCAVEEfiAAQn8gASkDeCIDIAEpA5ABIgIgASkDoAF9IgRCACACIARaG3wiAiACIANUGzcDCEIBBUIACzcDAAsDAAALAwAACwMAAAtDAQN/AkAgAkUNAANAIAAtAAAiAyABLQAAIgRGBEAgAEEBaiEAIAFBAWohASACQQFrIgINAQwCCwsgAyAEayEFCyAFC0kBAX8jAEEQayIDJAAgA0EANgIIIAMgAjYCDCAABEAgACACIAEoAhARAQAgA0EQaiQADwsgAyADQQhqEOwCQbSEwABBMhCrBAALWgEBfyMAQRBrIgMkACADIAI2AgwgAyABNgIIIAAoAgAiACADQQhqIgEQnAMgACgCACUBIANBDGoiAAR/IAAoAgAFQQALJQEQFCAAENIDIAEQ0gMgA0EQaiQAC2sBAX8jAEEQayIDJAAgAyACNgIMIAMgATYCCCAAKAIAIgEoAgAlASADQQhqIgAEfyAAKAIABUEACyUBEDAgASgCACUBIANBDGoiAQR/IAEoAgAFQQALJQEQLiABENIDIAAQ0gMgA0EQaiQAC1YBAX8gACgCACIDKAIQRQRAIANCADcDkAEgA0IANwOQAyADKQPYASADKQPQAUIChYRQRQRAIANCADcDwAIgA0IANwOAAwsgA0EANgIQCyAAIAEgAhB7C0UBAn8jAEEQayIDJAAgAyAAIAEQ2gM2AgggAyACELcENgIMIANBCGoiACADQQxqIgEQ/QMgARDSAyAAENIDIANBEGokAAtHAQF/IwBBEGsiAyQAIANBADYCCCADIAI2AgwgAARAIAAgAiABKAIQEQMAIANBEGokAA8LIANBCGoQ5gNB3KLAAEEyEKsEAAsDAAALAwAACwMAAAtHAQF/IwBBEGsiAiQAIAIgADYCBCACIAE2AgggAkGACDYCDCACQQhqIAJBDGogAEEBcSIAGxDSAyACQRBqJABBgAggASAAGwtHAQF/IwBBEGsiAyQAIANBADYCCCADIAI2AgwgAARAIAAgAiABKAIQEQEAIANBEGokAA8LIANBDGoQ0gNBtITAAEEyEKsEAAtFAQF/IAEoAgAiAiABKAIERgR/QQAFIAEgAkEBajYCACABIAJBA3RqIgEoAgwhAiABKAIICyEBIAAgAjYCBCAAIAE2AgALRgECfyMAQRBrIgIkACACELMDEI4DNgIMIAIgAkEMaiIDIAAgARCtAjYCCCACQQhqIgAQiwQgABDSAyADENIDIAJBEGokAAtPAQF/IwBB0ABrIgEkAAJAIAAtAN0ERQRAIAAQsAEMAQsgAC0AmgUNACAAQQE6AJoFIAFCCTcDCCAAQbABaiABQQhqEPgBCyABQdAAaiQAC0kBAX8jAEEQayIEJAAgBEEANgIIIAQgAjYCDCAABEAgACACIAMgASgCEBECACAEQRBqJAAPCyAEQQhqEOYDQdyiwABBMhCrBAALQwEBfwJAAkAgAC0AACIBQQtNBEBBASABdEHfF3ENASABQQVHDQIgAEEEahCaBA8LIABBBGoQmgQLDwsgAEEIahDiAwv2AQEFfyMAQSBrIgIkACACIAE2AgwgAiAANgIIIAJBEGohASACQQhqIQQjAEEgayIAJAACQEEAQficwAAoAgARBAAiAwRAIABBCGogA0H8nMAAEIEDQQMhBSAAKAIMIQYCQCAAKAIIIgMoAgBBAkcNACAEKAIAQQFGBEAgBCgCBCADKAIIRw0BCyADQQA2AgAgACADKAIMNgIYIAAgAykCBDcDEEECIQULIAEgBTYCACABIAApAxA3AgQgASAAKAIYNgIMIAYgBigCAEEBajYCACAAQSBqJAAMAQsQ9QIACyACKAIQQQNHBEAgARDhAgsgAkEgaiQAC0gCAn8BfiMAQRBrIgIkACACIAAgARCSASACKQMIIQEgAigCACEDIAApA6gEIQQgAkEQaiQAQugHIAEgBCADGyIBIAFC6AdYGwtJAQF/IwBBEGsiAyQAIAMgACABEKsCIgA2AgggAyACELcENgIMIANBCGpB/JrAAEEBIANBDGoiARCvAiABENIDIANBEGokACAAC1QBAXwgACABKAIAQf7///8HTQR8IAErA9gFIQQgASsD0AUFRAAAAAAAAAAACxCiBDkDGCAAIAQ5AxAgACACujkDACAAIAO6RAAAAAAAQI9AozkDCAtDAQF/IwBBEGsiAyQAIAMgAjYCDCADIAE2AgggAUEBRgRAIANBDGoQ0gMLIAAgAjYCBCAAIAFBAXM2AgAgA0EQaiQAC0IBAX8jAEEQayIEJAAgBCAAKAIAIAEgAhCtAiIANgIMIARBDGoiARCMBARAIAMQtwQhACABENIDCyAEQRBqJAAgAAtHAQJ/IwBBEGsiAiQAIAIQ9AMiAzYCCCACIAAgARDaAzYCDCACQQhqQfuawABBASACQQxqIgAQrwIgABDSAyACQRBqJAAgAwtFAQF/IwBBEGsiAyQAIANBBGogACABIAIQswICQCADKAIIIgBFDQAgAygCDCIBRQ0AIAMoAgQgASAAEIQECyADQRBqJAALlwECAn8BbyMAQRBrIgMkACADIAEgAhDaAzYCDCMAQRBrIgEkACAAKAIAJQEgA0EMaiICKAIAJQEQVyEFEJ0BIgQgBSYBIAFBCGoQlQNBASEAIAMCfyABKAIIQQFGBEAgASgCDAwBC0EAIQAgBAs2AgQgAyAANgIAIAFBEGokACADKAIAIAMoAgQQngIgAhDSAyADQRBqJAALCwAgAEEIQQQQzAQLmgEBAn8jAEEQayIEJAAgBCABIAIQ2gM2AgwgBEEEaiEBIwBBEGsiAiQAIAAoAgAlASAEQQxqIgUoAgAlASADKAIAJQEQWCEDIAJBCGoQlQNBASEAAkAgAigCCEEBRgRAIAEgAigCDDYCBAwBC0EAIQAgASADQQBHOgABCyABIAA6AAAgAkEQaiQAIAEQ1gMgBRDSAyAEQRBqJAALDAAgAEGAAUEIEMwEC0wBAn8jAEEgayIDJAAgA0EIaiABIAIQxQEgAEL///////////8AIAMpAxggAygCCCIEGzcDCCAAQgAgAykDECAEGzcDACADQSBqJAALOgEBfwJAIAFpQQFHDQAgAUEAIABBgICAgHggAWtNGyICRQ0AIAAEQCAAIAIQjwQiAUUNAQsgAQ8LAAtAAQN/QQQhBAJAIANFDQAgASgCACIFRQ0AIAAgAjYCBCAAIAEoAgQ2AgAgAyAFbCEGQQghBAsgACAEaiAGNgIACz4BAX8jAEEwayICJAAgAiAAKAIANgIEIAJBCGoiACABQSj8CgAAIAJBBGoiASAAEIcEIAEQ0gMgAkEwaiQACz4BAX8jAEEwayICJAAgAiAAKAIANgIEIAJBCGoiACABQSj8CgAAIAJBBGoiASAAEK4BIAEQ+gIgAkEwaiQAC0cBAX8jAEEQayIDJAAgASgCACUBIAIoAgAlARANIANBCGoQlQMgAygCDCEBIAAgAygCCEEBcTYCACAAIAE2AgQgA0EQaiQAC0cBAX8jAEEQayIDJAAgASgCACUBIAIoAgAlARA4IANBCGoQlQMgAygCDCEBIAAgAygCCEEBcTYCACAAIAE2AgQgA0EQaiQACzsBAX8jAEEQayICJAAgAiABKAIAJQEQXSAAIAIoAgAEfiAAIAIrAwg5AwhCAQVCAAs3AwAgAkEQaiQACzwBAX8gACACEJ0DIAAoAgghAyAAIAIEfyACBEAgACgCBCADaiABIAL8CgAACyAAKAIIBSADCyACajYCCAtBAgF/AX4jAEEQayIDJAAgAyABKAIANgIMIAMgAiADQQxqIgEQ+wEgAykDACEEIAEQ0gMgACAENwMAIANBEGokAAvCAgIHfgF/IAApA7gEIgNC6AcgA0IDiCICIAJC6AdYGyICIAIgA1YbIQIjAEEQayIJJAAgCUIBQT8gASABQQBHayIBIAFBP08brYYiBEL/////D4MiBSACQv////8PgyIGfiIHIAYgBEIgiCIEfiIGIAUgAkIgiCIIfnwiAkIghnwiBTcDACAJIAUgB1StIAQgCH4gAiAGVK1CIIYgAkIgiIR8fDcDCCADIAMgCSkDACICIAIgA1YbIAkpAwhCAFIbIgJCAYgiAyACVARAIABBiAVqIgAgACkDAELrh9aF6Mih5OEAfSIENwMAIAMgBEIeiCAEhUK5y5Pn0e2RrL9/fiIEQhuIIASFQuujxJmxt5LolH9+IgRCH4ggBIVCfyACIAN9QgF8IgIgAlAbgnwhAwsgCUEQaiQAQgEgAyADQgFYGwtAAQF/IwBBIGsiAyQAIAMgAjYCHCADIAE2AhggAyACNgIUIANBCGogA0EUahDsASAAIAMpAwg3AwAgA0EgaiQAC0YBAn8gASgCBCECIAEoAgAhA0EIQQQQjwQiAUUEQEEEQQgQrQQACyABIAI2AgQgASADNgIAIABB2KbAADYCBCAAIAE2AgALOgAgAEEIahDSAyAAQQxqENIDIABBEGoQ0gMgAEEUahDSAyAAQRhqENIDIABBHGoQ0gMgAEEgahCvAws6AQF/IwBBEGsiBCQAIAQgATYCDCAEIAA2AgggBEEIaiIAIARBDGogAiADELYBIAAQ9wMgBEEQaiQAC0EBA38jAEEQayICJAAgAhD0AyIDNgIMIAJBDGoiBEH+k8AAQQUgABCvAiAEQdCawABBBSABEK8CIAJBEGokACADCz8BAX8jAEEgayICJAAgAiABKAIINgIYIAIgASkCADcDECACQQhqIAJBEGoQ7AEgACACKQMINwMAIAJBIGokAAs+AQF/IwBB0ABrIgEkACAAKQOgAVBFBEAgAEIANwOgASABQgc3AwggAEGwAWogAUEIahD4AQsgAUHQAGokAAtAAQF/IwBBEGsiAiQAIAEoAgAlARAxIAJBCGoQlQMgAigCDCEBIAAgAigCCEEBcTYCACAAIAE2AgQgAkEQaiQACzcAAkAgA2lBAUcNACADQQAgAUGAgICAeCADa00bIgNFDQAgACABIAMgAhD1AyIARQ0AIAAPCwALOQEBfyMAQRBrIgIkACACIAE2AgwgAiAANgIIIABBAUYEQCACQQxqENIDQYAIIQELIAJBEGokACABCzoBAn8jAEEQayICJABBgQghAyACQYEINgIMIABCAVEEQCABELcEIQMgAkEMahDSAwsgAkEQaiQAIAMLPAECfyAAKAIIIgMgACgCAEYEQCAAEK4CCyAAKAIEIANBA3RqIgQgAjYCBCAEIAE2AgAgACADQQFqNgIIC0IAIABBGGogAUHQBGoQigIgACADOgAmIAAgAjcDECAAQQA6ACUgAEIBNwMAIAAgAS0A3AQ6ACQgACABKQOoBDcDCAs+AQF+IABBARC7AiECIAAtAOABQQJGBEAgAEICNwPoASAAQQA2AuQBIABCfyABIAJ8IgIgASACVhs3A/ABCws1AQF/IwBBEGsiAyQAIAMgACABIAIQrQI2AgwgA0EMaiIAEMQDIAAQ0gMgA0EQaiQAQf8BcQvgAQIBfwF+IwBBIGsiAyQAIAMgATYCECADIAA2AgwgA0EBOwEcIAMgAjYCGCADIANBDGo2AhQjAEEQayIBJAAgA0EUaiIAKQIAIQQgASAANgIMIAEgBDcCBCMAQRBrIgAkACABQQRqIgEoAgAiAigCBCIDQQFxBEAgAigCACECIAAgA0EBdjYCBCAAIAI2AgAgAEGApsAAIAEoAgQgASgCCCIALQAIIAAtAAkQtwEACyAAQYCAgIB4NgIAIAAgATYCDCAAQZymwAAgASgCBCABKAIIIgAtAAggAC0ACRC3AQALNAECfwJAIAAoAgAiAEF/Rg0AIAAoAgAiAUUNACAAIAFBAWoiATYCACAAIQIgAQ0AAAsgAgs6AQF/IwBBEGsiBSQAIAUgADYCCCAFIAE2AgwgACACIAMgBCABKAIMEQUAIAVBCGoQsAMgBUEQaiQACzsBAX8jAEEQayIDJAAgAyACNgIMIAAoAgAiABDTAyAAIAE2AgQgAEEBNgIAIANBDGoQ0gMgA0EQaiQACzwAIAIgA0kEQEHsjMAAQRNBiI3AABDLAgALIAAgAzYCBCAAIAE2AgAgACACIANrNgIMIAAgASADajYCCAvuAQIDfwF+QQEhAwJAAkACQEEBIAEoAgAiASgCACICQQJrIAJBAU0bQQFrDgICAAELEI4EAAsjAEEQayICJAAgASkCACEFIAFBBDYCACACIAU3AwgCQCAFp0ECRgRAIAIgBUIgiKcRAAAgAigCACEEIAEgAigCBDYCBCABIAQ2AgAgBEEBTQ0BQY6jwABBuKPAABDXAwALIAJBCGoiACgCAEEBTQRAIAAQ0wMLQY6jwABByKPAABDXAwALIAJBEGokAAsCQCABKAIAQQFHBEBBACEDDAELIAFBBGoQjgMhAQsgACABNgIEIAAgAzYCAAs1AgF/AX4jAEEQayICJAAgAkEIaiABEI4CIAIpAwghAyAAQQA2AgggACADNwIAIAJBEGokAAs7AQJ/IwBBEGsiAiQAIAIgATYCDCACQQxqKAIAJQEQGUEARyEDIAAgATYCBCAAIANFNgIAIAJBEGokAAs4AQF/IwBBEGsiBCQAIAQgADYCCCAEIAE2AgwgACACIAMgASgCDBECACAEQQhqELADIARBEGokAAs8AgF/AX5BGCEBAkACQAJAQQMgACkDACICp0ECayACQgFYG0EDaw4EAQICAAILQSAhAQsgACABahCaBAsLNgEBfyMAQRBrIgIkACACQQhqIAEQoAIgAigCDCEBIAAgAigCCDYCACAAIAE2AgQgAkEQaiQACz8AIAAoAgBBgICAgHhHBEAgASAAKAIEIAAoAggQ7AMPCyABKAIAIAEoAgQgACgCDCgCACIAKAIAIAAoAgQQfAs4AAJAIAJBgIDEAEYNACAAIAIgASgCEBEDAEUNAEEBDwsgA0UEQEEADwsgACADIAQgASgCDBEGAAs2AQJ/IAAoAgQiAigCACIBBEAgACgCACABEQAACyACKAIEIgEEQCAAKAIAIAEgAigCCBCEBAsLNwEBfyAAKAIIIgIgACgCAEYEQCAAELACCyAAKAIEIAJBB3RqIAFBgAH8CgAAIAAgAkEBajYCCAszAQF/IwBBEGsiBCQAIAQgASACIAMQrQI2AgwgACAEQQxqIgAQ/QEgABDSAyAEQRBqJAALMwEBfyMAQRBrIgQkACAEIAEgAiADEK0CNgIMIAAgBEEMaiIAELgCIAAQ0gMgBEEQaiQACzYCAX8BfCMAQRBrIgEkABCPAyECIAEQBjkDCCAAIAFBCGorAwA5AwggACACOQMAIAFBEGokAAszAQF/AkAgAEUNACABKAIAIgIEQCAAIAIRAAALIAEoAgQiAkUNACAAIAEoAgggAhDnAwsLHgAgAgRAIAIgARCPBCEBCyAAIAI2AgQgACABNgIACzUBAX8CfyABKAIARQRAIAEoAgghAiABKAIEDAELIAEQuQNBAAshASAAIAI2AgQgACABNgIACzUBAX8CfyABKAIARQRAIAEoAgghAiABKAIEDAELIAEQugNBAAshASAAIAI2AgQgACABNgIAC18BAn8CQAJAAkAgACgCAA4CAQIACyAAQQRqENIDIABBDGoQnQQLDwsgAEEEaiICIgEoAgghACABKAIEIQEDQCAABEAgAEEBayEAIAEQtQMgAUEIaiEBDAELCyACEJgECy8BAn8gACgCACIBBEAgACgCBCgCACICBEAgASACEQAACyAAELADIABBCGoQrQMLCy8BAX8jAEEQayICJAAgAiAAKAIANgIMIAJBDGoiACABEIUBIAAQ+QIgAkEQaiQACy8BAX8jAEEQayICJAAgAiAAKQIANwIIIAJBCGoiACABEI8CIAAQ+gIgAkEQaiQACy4BAX8jAEEQayICJAAgAiAAKAIANgIMIAJBDGoiACABEHEgABD6AiACQRBqJAALLwEBfyMAQRBrIgIkACACIAAoAgA2AgwgAkEMaiIAIAEQpAEgABD6AiACQRBqJAALLgEBfyMAQRBrIgMkACADIAAgASACEIEBIAAgAykDACADKQMIEPEBIANBEGokAAtLAQF/IwBBEGsiAyQAIAMgACABIAIQgQECfyADKQMAIQEgAykDCCECQQAgACkDcFANABogACABIAIQ8QEgACkDoAFWCyADQRBqJAALLQEBfyMAQRBrIgEkACABIABBCGs2AgwgAUEMaiIAEPIBIAAQsgMgAUEQaiQAC7EBAQJ/IwBBEGsiACQAIAEoAgBB6KbAAEELIAEoAgQoAgwRBgAhAyAAQQhqIgJBADoABSACIAM6AAQgAiABNgIAIAItAAQhASACLQAFBEAgAgJ/QQEgAUEBcQ0AGiACKAIAIgEtAApBgAFxRQRAIAEoAgBByafAAEECIAEoAgQoAgwRBgAMAQsgASgCAEHIp8AAQQEgASgCBCgCDBEGAAsiAToABAsgAEEQaiQAIAFBAXEL5iMDEn8GfgN8IwBBEGsiCyQAEJ0BIgUgACYBEJ0BIgYgASYBEJ0BIgcgAiYBEJ0BIgkgAyYBEJ0BIgogBCYBIwBB8ABrIggkACAIIAY2AgwgCCAFNgIIIAggBzYCECAIIAk2AhQgCCAKNgIYIAggCEHvAGoiBTYCaCAIIAU2AmQgCCAFNgJgIAggCEEYajYCXCAIIAU2AlggCCAFNgJUIAggBTYCUCAIIAhBFGo2AkwgCCAFNgJIIAggBTYCRCAIIAU2AkAgCCAIQRBqNgI8IAggBTYCOCAIIAU2AjQgCCAFNgIwIAggCEEMajYCLCAIIAU2AiggCCAFNgIkIAggBTYCICAIIAhBCGo2AhwjAEEQayINJAAgDUEIaiEPIAhBHGoiBSgCACgCACEGIAUoAhAoAgAhByAFKAIgKAIAIRAgBSgCMCgCACERIAUoAkAoAgAhEiMAQdAJayIFJAAgBSAHNgIYIAUgBjYCFCAFIBI2AvgFIAUgETYC9AUgBSAQNgLwBSAFQaAIaiIJIAVBFGoQjwEgBSgCpAghBwJAIAUoAqAIIhNBgICAgHhHBEAgBSAFKAKoCDYChAYgBSAHNgKABiAFIBM2AvwFIAUgBUEYaiIHNgKIBiAFEPQDNgKMBiAFIAVBiAZqIgZB9I/AAEEHRAAAAAAAiLNAEKoCNgKQBiAFIAZB+4/AAEEIRAAAAAAAQI9AEKoCNgKUBiAFQYwGaiIGQfSPwABBByAFQZAGahCvAiAGQfuPwABBCCAFQZQGahCvAiAFIAdBg5DAAEEPEK0CNgKgCCAGQYOQwABBDyAJEK8CIAkQ0gMgBUGICGogBkGDkMAAQQ8QygECQAJAAkACQAJAIAUoAogIQQFGBEAgBSAFKAKYCDYCsAYgBSAFKQOQCDcDqAYgBSAFKAKMCDYCpAYMAQsgBSsDmAghHSAFKQOQCCEXIAVBiAhqIAVBjAZqQZORwABBEBDKASAFKAKICEEBRgRAIAUgBSgCmAg2ArAGIAUgBSkDkAg3A6gGIAUgBSgCjAg2AqQGDAELIAUrA5gIIR4gBSkDkAghGCAFQYgIaiAFQYwGakGjkcAAQQwQygEgBSgCiAhBAUYEQCAFIAUoApgINgKwBiAFIAUpA5AINwOoBiAFIAUoAowINgKkBgwBCyAFKwOYCCEfIAUpA5AIIRogBUGICGogBUGMBmpBr5HAAEEPEMoBIAUoAogIQQFGBEAgBSAFKAKYCDYCsAYgBSAFKQOQCDcDqAYgBSAFKAKMCDYCpAYMAQsgBSAFKwOYCDkD2AggBSAFKQOQCDcD0AggBSAfOQPICCAFIBo3A8AIIAUgHjkDuAggBSAYNwOwCCAFIB05A6gIIAUgFzcDoAggBUGICGogBUGMBmpB9I/AAEEHEM4BIAUoAogIIgYEQCAFIAUrA5AIOQKsBiAFIAUoAowINgKoBiAFIAY2AqQGDAELIAUrA5AIIR0gBUGICGogBUGMBmpB+4/AAEEIEM4BIAUoAogIIgZFDQEgBSAFKwOQCDkCrAYgBSAFKAKMCDYCqAYgBSAGNgKkBgsgBUEBNgKgBgwBCyAFKwOQCCEeIAVBoAhqIQcgBUGgBmoiBgJ/AkACQAJ/IB29Qv///////////wCDQv/////////3/wBWBEBCgICAgPACIRdB45DAAAwBCyAdRAAAAAAAAAAAZQRAQoCAgIDgAiEXQc2QwAAMAQsgHUQAAMD////fQWRFDQFCgICAgJADIRdB+pDAAAshByAGQQc2AgggBkH0j8AANgIEIAYgFyAHrYQ3AgwMAQsCQAJ/IB69Qv///////////wCDQv/////////3/wBWBEBCgICAgPACIRdB45DAAAwBCyAeRAAAAAAAAAAAZQRAQoCAgIDgAiEXQc2QwAAMAQsgHkQAAMD////fQWRFDQFCgICAgJADIRdB+pDAAAshByAGQQg2AgggBkH7j8AANgIEIAYgFyAHrYQ3AgwMAQsCQAJ+AkAgHkQAAAAAAECPQKJEAAAAAAAA4D+g/AciGyAdRAAAAAAAQI9AokQAAAAAAADgP6D8ByIaVARAIAcoAgAEQCAHKwMIIh29Qv///////////wCDQv/////////3/wBWBEBB45DAACEHQoCAgIDwAiEXDAULIB1EAAAAAAAAAABlBEBBzZDAACEHQoCAgIDgAiEXDAULIB1EAADA////30FkRQ0CQfqQwAAhB0KAgICAkAMhFwwECyAaQgOADAILIAZBGTYCECAGQduRwAA2AgwgBkEINgIIIAZB+4/AADYCBAwDCyAdRAAAAAAAQI9AokQAAAAAAADgP6D8BwshF0HNkMAAIQlBFiEKAkACQCAbUARAQfuPwAAhDEEIIQ4MAQtBg5DAACEMQQ8hDiAXUA0AIBcgGiAbfSIYQgAgGCAaWBtUDQFB9JHAACEJQSQhCgsgBiAKNgIQIAYgCTYCDCAGIA42AgggBiAMNgIEDAILIBchGCAHKQMQQgFRBEACQAJ/IAcrAxgiHb1C////////////AINC//////////f/AFYEQEKAgICA8AIhF0HjkMAADAELIB1EAAAAAAAAAABlBEBCgICAgOACIRdBzZDAAAwBCyAdRAAAwP///99BZEUNAUKAgICAkAMhF0H6kMAACyEHIAZBEDYCCCAGQZORwAA2AgQgBiAXIAethDcCDAwDCyAdRAAAAAAAQI9AokQAAAAAAADgP6D8ByEYCwJAAn4CQCAHKAIgBEAgBysDKCIdvUL///////////8Ag0L/////////9/8AVgRAQoCAgIDwAiEXQeOQwAAhBwwECyAdRAAAAAAAAAAAZQRAQoCAgIDgAiEXQc2QwAAhBwwECyAdRAAAwP///99BZEUNAUKAgICAkAMhF0H6kMAAIQcMAwsgF0LoByAXQgOIIhkgGULoB1gbIhkgFyAZVBsMAQsgHUQAAAAAAECPQKJEAAAAAAAA4D+g/AcLIRkCQAJAIAcoAjAEQAJ/IAcrAzgiHb1C////////////AINC//////////f/AFYEQEKAgICA8AIhF0HjkMAADAELIB1EAAAAAAAAAABlBEBCgICAgOACIRdBzZDAAAwBCyAdRAAAwP///99BZEUNAkKAgICAkAMhF0H6kMAACyEHIAZBDzYCCCAGQa+RwAA2AgQgBiAXIAethDcCDAwFCyAZIBcgFyAZVBshHAwBCyAdRAAAAAAAQI9AokQAAAAAAADgP6D8ByIcIBlaDQAgBkEdNgIQIAZBvpHAADYCDCAGQQ82AgggBkGvkcAANgIEDAMLIAZCADcDOCAGIBw3AzAgBiAZNwMoIAYgGDcDICAGIBc3AxggBiAbNwMQIAYgGjcDCEEADAMLIAZBDDYCCCAGQaORwAA2AgQgBiAXIAethDcCDAwBCyAGQQ82AgggBkGDkMAANgIEIAYgFyAHrYQ3AgwLQQELNgIAIAUoAqAGQQFHDQELIAVBoAZqQQRyENUBIQcMAQsgBSkDuAYhGiAFKQOwBiEXIAUpA6gGIRggBUGgCGoiBiAFQZAGahC4AiAFKwOoCCEdIAUoAqAIIQ4gBiAFQZQGahC4AiAFKwOoCCEeIAUoAqAIIRQgBRCzAxCOAzYCoAggBSAGQcuVwABBCBCtAjYCoAYgBUGgBmoiBxCMBCEKIAcQ0gMgBhDSA0HMmMAAQQYQoQIhByAFIAVBGGpB0pjAAEEJEK0CNgKYBgJAAn8CQAJAAkAgBUGYBmoiCRCMBA0AIAkQiQQNACAGIAkQ/QEgBSgCoAhBgICAgHhHBEAgBSgCpAgiBiAFKAKoCCIJQfiVwABBBhCnAw0CIAYgCUHylcAAQQYQpwMNAwtB+JjAABDVASEHIAVBoAhqENsDDAQLIAcgCkEBc3EMAgsgBUGgCGoQ2wNBASAHDQEaQYiZwABBEEGYmcAAQSdB0pjAAEEJENMBIQcMAgsgBUGgCGoQ2wNBAAshFSAFIAVBGGpBv5nAAEEGEK0CNgKcBgJAAkAgBUGcBmoiBhCMBA0AIAYQiQQNAEGImcAAQRBBxZnAAEHfAEG/mcAAQQYQ0wEhBwwBCyAFQYCAgIB4NgLcBiAFQYAINgKICCAFQQhqQaSawABBCBCHAQJAAn8gBSgCCEEBRgRAIAUoAgwMAQsgBSAFQRhqQayawABBCBCtAjYCoAggBUGgCGoiBhDEAyEWIAYQ0gMjAEEgayEHAkACQAJ/IBdQBEBBDiEHQc2QwAAhCUEWIQpBv5DAAAwBCyAXIBhUDQFBCiEHQZyQwAAhCUEjIQpBkpDAAAshDCAGQgA3AwggBkICNwMAIAYgCjYCHCAGIAk2AhggBiAHNgIUIAYgDDYCEAwBCyAGQgA3AwggBkIANwMAIAZCADcDMCAGIAcpAwA3AzggBkIANwNAIAZCADcDSCAGQgA3A1AgBiAYNwOYASAGQgA3A3AgBiAYQgF9IhhCfyAXQtCGA3wiGSAXIBlWGyIXIBcgGFYbNwOgASAHQgA3AxggB0IANwMQIAdCADcDCAsgBSkDqAgiFyAFKQOgCCIYQgKFhEIAUg0BIAVBsAhqENUBCyEHIAVBiAhqENIDIAVBoAZqEOMDDAELIAUoArAIIQkgBUHsBmogBUG0CGpBnAH8CgAAQQAhDEEAIQcgFkH/AXEiCgRAIAUQyAEgBSAFKAIENgKkCCAFIAUoAgAiBjYCoAggBUGgCGoQ0wMgBkEARyEHCyAFKQKABiEZIAVBiAVqIAVBoAZqIgZByAD8CgAAIAVBADsA6QQgBUEANgDlBCAFQZwGahDSAyAFQZgGahDSAyAFQZQGahDSAyAFQZAGahDSAyAFQYwGahDSAyAFIBc3AzggBSAYNwMwIAUgCTYCQCAFQQA2AiAgBUHEAGogBUHsBmpBnAH8CgAAIAVCADcD6AEgBUICNwPgASAFIApBAEc6AO0FIAUgFToA7AUgBSAZNwLkBSAFIBM2AuAFIAUgEjYC3AUgBSARNgLYBSAFIBA2AtQFIAVBgAg2AtAFIAUgGrpEAAAAAABAj0CjOQOABSAFIB5EAAAAAAAAAAAgFBs5A/gEIAUgHUQAAAAAAAAAACAOGzkD8AQgBSAHOgDkBCAFQQA2AuAEIAVCgICAgMAANwPYBCAFQgg3A9AEIAVCADcDyAQgBUKAgICAwAA3A8AEIAVCCDcDuAQgBUIANwOwBCAFQoCAgIAQNwOoBCAFQQA2AqAEIAVCADcDmAQgBUKAgICAgAE3A5AEIAVCADcDiAQgBUKAgICAgAE3A4AEIAVBAjYC8AMgBUECNgLgAyAFQQI2AtADIAVCADcDwAMgBUIANwOwAyAFQgA3A6ADIAVCADcDkAMjAEHgBWsiCSQAIAlBEGogBUEgakHQBfwKAABBEEHgBRDBAyIHQoGAgIAQNwMAIAdBCGogCUEIakHYBfwKAAAgCUHgBWokACAFIAc2AhwgBRCzAxCOAzYCoAggBSAFQaAIaiIJQcuVwABBCBCtAjYCoAYgBhCMBCAGENIDIAkQ0gMNBCAFELMDEI4DNgKgBiAFIAZBy5XAAEEIEK0CNgKgCCAFQRxqIgogBkHsj8AAQQhBBBCaASAKIAZB3JfAAEEIQQUQmgEgCiAJQeSXwABBBkEGEJoBIAogCUHql8AAQRBBBxCaASAKIAZB+pfAAEEGQQYQmgEgCRDSAyAGENIDDAQLIAVBnAZqENIDCyAFQZgGahDSAwsgBUGUBmoQ0gMgBUGQBmoQ0gMgBUGMBmoQ0gMgBUH8BWoQmgQLIAVB+AVqENIDIAVB9AVqENIDIAVB8AVqENIDQQEhDAsgBUEYahDSAyAFQRRqENIDIA8gBzYCBCAPIAw2AgAgBUHQCWokACANKAIMIQUgCCANKAIINgIAIAggBTYCBCANQRBqJABBASEFIAgoAgQhBiAIKAIAQQFHBEBBBEEQEMEDIgUgBjYCDCAFQQA2AgggBUKBgICAEDcCACAFQQhqIQZBACEFCyALIAU2AgggCyAGQQAgBRs2AgQgC0EAIAYgBRs2AgAgCEHwAGokACALKAIAIAsoAgQgCygCCCALQRBqJAALMAEBfwJAIAEoAgAiAgRAIAEoAgQhAQwBCyABQQRqENIDCyAAIAE2AgQgACACNgIACzoBA38gACgCACICIAEoAgAiA3JFIQQgAkUgA0VyBH8gBAUgACgCACAAKAIEIAEoAgAgASgCBBCnAwsLLQEBfyMAQRBrIgEkACABIAAoAgA2AgwgAUEMaiIAEOEBIAAQ7wMgAUEQaiQACy0BAX8jAEEQayIBJAAgASAAKAIANgIMIAFBDGoiABCfASAAENIDIAFBEGokAAstAQF/IwBBEGsiASQAIAEgACgCADYCDCABQQxqIgAQtQEgABDxAyABQRBqJAALLgEBfyMAQRBrIgEkACABIAApAgA3AgggAUEIahDfAyABQQxqENIDIAFBEGokAAstAQF/IwBBEGsiASQAIAEgACgCADYCDCABQQxqIgAQ3AEgABDvAyABQRBqJAALLwEBfyAAQQRqIQEgACgCAEUEQCABENIDIABBCGoQnQQgAEEMahCdBA8LIAEQqwMLNwAgAC0AmAVFBEAgAEEAOgDgAQ8LIAAQ4gEgAEIANwP4ASAAQgA3A+gBIABBAToA4AEgABD0AQswAQF/IwBBEGsiACQAIAAgAEEPaq1CgICAgLAUhDcDAEHYhcAAIABBpIzAABDLAgALDgAgAEKAgICA4BYQzQQLDgAgAEKAgICA8BYQzQQLwgYDCH8BfAF+EJ0BIgQgASYBEJ0BIgUgAiYBEJ0BIgcgAyYBIwBB0ABrIgYkACAGIAU2AhAgBiAENgIMIAYgBzYCFCAGIAA2AkggBiAGQc8AaiIANgJEIAYgADYCQCAGIAA2AjwgBiAGQRRqNgI4IAYgADYCNCAGIAA2AjAgBiAANgIsIAYgBkEQajYCKCAGIAA2AiQgBiAANgIgIAYgADYCHCAGIAZBDGo2AhgjAEHgAGsiBSQAIAVBLGoiBCAGQRhqIgAoAjAQ0QEgBUEANgI4IAVBADYCQCAFQQA2AkggBSAAKAIAKAIAIgc2AjwgBSAAKAIQKAIAIgk2AkQgBSAAKAIgKAIAIgg2AkwgBSgCLEUEQCAFQSBqIAVByABqEOwCIAUoAiAhByAFKAIkIQkgBUEYaiAFQUBrEOwCIAUoAhghBiAFKAIcIQggBUEQaiAFQThqEOwCIAUoAhAhCiAFKAIUIQsgBUEIaiAEEOACIAUoAggiACAKIAAbIgQgBiAEGyIGIAcgBhsiB0EBIAcbIAUoAgwgCyAAGyAIIAQbIAkgBhtBACAHGxCrBAALIAUgBSgCNDYCWCAFIAUpAiwiDTcDUCANpyEAIwBBQGoiBCQAIAQgCTYCECAEIAc2AgwgBCAINgIUIARBGGoiCCAEQRRqELgCAn8CQAJAIAQpAxhCAVINACAEKwMgIgxEAAAAAAAA8D9mRSAMRP///////z9DZUVyIAwgDJ2hRAAAAAAAAAAAYnINACAEIARBDGoQvAEgBCgCAEEBcQRAIAQgBCgCBDYCGCAIEKgEIQAgCBDSAwwCCyAEQSBqIgggABCKAiAEIAk2AjQgBCAHNgIwIAQgADYCLCAEIAw5AxggBCAEQRhqNgI8IARBPGpBxI7AABDZAyEAIAQoAiBBgICAgHhHBEAgCBCaBCAEQTBqENIDIARBNGoQ0gMLIARBFGoMAgsgBEHhoMAAQQ9B8KDAAEEgQQAgBBDTATYCGCAEQRhqIgcQqAQhACAHENIDCyAEQRRqENIDIARBEGoQ0gMgBEEMagsQ0gMgBEFAayQAIAVB0ABqELoDIAVB4ABqJAAgBkHQAGokACAAJQEgABDmAQsMACAAQRBB8AYQywQLDAAgAEEQQeAFEMsECzkBAX8CQAJAAkAgACgCbCIBQR91IAFB/////wdrcQ4HAQICAgICAgALIABBCGoQ0gMPCyAAEL4DCwsqACAAQQhqENIDIABBDGoQ0gMgAEEQahDSAyAAQRRqENIDIABBGGoQrwMLKgAgAEEUahDSAyAAQRhqENIDIABBCGoQmgQgAEEcahDSAyAAQSBqENIDCwsAIABBBEEYEMsECwsAIABBBEEUEMsECzABAX8gAUEIayICIAIoAgBBAWoiAjYCACACRQRAAAsgACABNgIEIABB6KPAADYCAAsqACABKAIARQRAIAFBfzYCACAAIAE2AgQgACABQQRqNgIADwsgAhD2AgALKgEBfyMAQRBrIgIkACACIAE2AgwgAiAANgIIIAJBCGoQ1AMgAkEQaiQACyoBAX8jAEEQayIDJAAgAyAAKAIANgIMIANBDGogASACEMQBIANBEGokAAsqAQF/IwBBEGsiAyQAIAMgACgCADYCDCADQQxqIAEgAhDOAiADQRBqJAALKgEBfyMAQRBrIgMkACADIAAoAgA2AgwgA0EMaiABIAIQlgIgA0EQaiQACyoBAX8jAEEQayIDJAAgAyAAKQIANwIIIANBCGogASACELoBIANBEGokAAsqAQF/IwBBEGsiAyQAIAMgACgCADYCDCADQQxqIAEgAhDQASADQRBqJAALKgEBfyMAQRBrIgMkACADIAAoAgA2AgwgA0EMaiABIAIQqAEgA0EQaiQACyoBAX8jAEEQayIDJAAgAyAAKAIANgIMIANBDGogASACEJcCIANBEGokAAsyAQF/IwBBgAFrIgEkACAAQeyOwABBBxB7IAFBg4CAgHg2AmwgACABEG8gAUGAAWokAAtqACABIANGBEAgAQRAIAAgAiAB/AoAAAsPCyMAQSBrIgAkACAAIAM2AgggACABNgIMIAAgAEEMaq1CgICAgIAXhDcDGCAAIABBCGqtQoCAgICAF4Q3AxBByovAACAAQRBqQYiNwAAQywIACycBAX8gACgCCCICIAEoAghGBH8gACgCBCABKAIEIAIQlAIFQQELRQsuACABKAIABEBB5KTAAEHPABCrBAALIAFBfzYCACAAIAE2AgQgACABQQRqNgIACykBAX8gACgCACIAQYAITyAAQYQISXEEfyAABRCdASIBIAAlASYBIAELCyUCAX8BfCMAQRBrIgAkACAAEAU5AwggAEEIaisDACAAQRBqJAALJQIBfwF8IwBBEGsiACQAIAAQCDkDCCAAQQhqKwMAIABBEGokAAsmAQF/IwBBEGsiASQAIAEgAEEIazYCDCABQQxqEPIBIAFBEGokAAsmAQF/IwBBEGsiASQAIAEgAEEIazYCDCABQQxqELIDIAFBEGokAAvaAwEGfyMAQRBrIgQkABCdASIBIAAmASMAQTBrIgMkACADIAE2AgwgAyADQS9qIgE2AiggAyABNgIkIAMgATYCICADIANBDGo2AhwgA0EQaiECIANBHGooAgAoAgAhBSMAQTBrIgEkACABIAU2AhQgAUEkaiABQRRqEI8BIAEoAighBQJAIAEoAiQiBkGAgICAeEYEQCACQYCAgIB4NgIAIAIgBTYCBAwBCyABIAEoAiw2AiAgASAFNgIcIAEgBjYCGCABQQhqQdagwABBCxCHASABKAIIQQFGBEAgASgCDCEFIAJBgICAgHg2AgAgAiAFNgIEIAFBGGoQmgQMAQsgAiABKAIgNgIIIAIgASkCGDcCAAsgAUEUahDSAyABQTBqJAAgBAJ/IAMoAhBBgICAgHhGBEAgAygCFCEBQQEMAQsjAEEQayIBJAAgAUEANgIAIAEgA0EQaiICKQIANwIEIAEgAigCCDYCDEEEQRgQwQMiAkKBgICAEDcCACACIAEpAgA3AgggAiABKQIINwIQIAFBEGokACACQQhqIQFBAAsiAjYCCCAEIAFBACACGzYCBCAEQQAgASACGzYCACADQTBqJAAgBCgCACAEKAIEIAQoAgggBEEQaiQACyoAIAFCgICAgICAgBBaBEAgAEIANwNwDwsgACABIAIgAyAEIAUgBhDUAQstAQF+QcCswAApAwAhAUHArMAAQgA3AwAgACABQiCIPgIEIAAgAadBAUY2AgALIwEBfyMAQRBrIgEkACABIAA2AgwgAUEMahDSAyABQRBqJAALIwEBfyMAQRBrIgEkACABIAA2AgwgAUEMahCqAyABQRBqJAALIwEBfyMAQRBrIgEkACABIAA2AgwgAUEMahCtAyABQRBqJAALIgAgAEEIahDIAyAAQRBqENIDIABBFGoQ0gMgAEEEahDSAwsaACAAKAIAJQEgAQR/IAEoAgAFQQALJQEQDAsaACAAKAIAJQEgAQR/IAEoAgAFQQALJQEQDgsaACAAKAIAJQEgAQR/IAEoAgAFQQALJQEQFgveAQEFfyAAKAIAIAAoAggiAmsgAUkEQCMAQRBrIgQkACAEQQhqIQUjAEEQayIDJAACf0EAIAEgASACaiICSw0AGiADQQRqIAAgAiAAKAIAQQF0IgEgASACSRsiAUEIIgYgAUEISxsiAUEBQQEQpgEgAygCBEEBRgRAIAMoAgwhBiADKAIIDAELIAMoAgghAiAAIAE2AgAgACACNgIEQYGAgIB4CyEAIAUgBjYCBCAFIAA2AgAgA0EQaiQAIAQoAggiAEGBgICAeEcEQCAAIAQoAgwQ0QMACyAEQRBqJAALC+wBAwN/AX4BfCMAQRBrIgIkACMAQRBrIgMkACMAQTBrIgEkACABQRRqIAAQ0QECQCABKAIUBEAgASABKAIcNgIoIAEgASkCFCIENwMgIAMgBKcoAgAiACgCEAR+QgAFIAMgACsDuAM5AwggACkDsAMLNwMAIAFBIGoQuQMgAUEwaiQADAELIAFBCGogAUEUahDfAiABKAIIIgBBASAAGyABKAIMQQAgABsQqwQACyADKwMIIQUgAiADKQMAIgQ+AgAgAiAFRAAAAAAAAAAAIASnGzkDCCADQRBqJAAgAigCACACKwMIIAJBEGokAAuEAgIFfwF+IwBBEGsiAyQAIwBBIGsiAiQAIwBBMGsiASQAIAFBFGoiBCAAENEBIAEoAhRFBEAgAUEIaiAEEN8CIAEoAggiAEEBIAAbIAEoAgxBACAAGxCrBAALIAJBFGohBCABIAEoAhw2AiggASABKQIUIgY3AyACfyAGpygCACIAKAIQBEBB05XAACEAQQUMAQtB2JXAAEHTlcAAIAAtANQEIgUbIQBBCUEFIAUbCyEFIAQgACAFEO8BIAFBIGoQuQMgAUEwaiQAIAJBCGogBBDBAiACIAIoAgggAigCDBD+AyADIAIpAwA3AgAgAkEgaiQAIAMoAgAgAygCBCADQRBqJAALzgECBH8BfiMAQRBrIgMkACMAQSBrIgIkACMAQTBrIgEkACABQRRqIgQgABDRASABKAIURQRAIAFBCGogBBDfAiABKAIIIgBBASAAGyABKAIMQQAgABsQqwQACyABIAEoAhw2AiggASABKQIUIgU3AyAgAkEUaiIAIAWnKAIAQdAFahCKAiABQSBqELkDIAFBMGokACACQQhqIAAQwQIgAiACKAIIIAIoAgwQ/gMgAyACKQMANwIAIAJBIGokACADKAIAIAMoAgQgA0EQaiQAC+wBAwN/AX4BfCMAQRBrIgIkACMAQRBrIgMkACMAQTBrIgEkACABQRRqIAAQ0QECQCABKAIUBEAgASABKAIcNgIoIAEgASkCFCIENwMgIAMgBKcoAgAiACgCEAR+QgAFIAMgACsDqAM5AwggACkDoAMLNwMAIAFBIGoQuQMgAUEwaiQADAELIAFBCGogAUEUahDfAiABKAIIIgBBASAAGyABKAIMQQAgABsQqwQACyADKwMIIQUgAiADKQMAIgQ+AgAgAiAFRAAAAAAAAAAAIASnGzkDCCADQRBqJAAgAigCACACKwMIIAJBEGokAAvHAgIGfwF+IwBBEGsiBSQAIwBBIGsiAyQAIwBBMGsiASQAIAFBFGoiBCAAENEBIAEoAhRFBEAgAUEIaiAEEN8CIAEoAggiAEEBIAAbIAEoAgxBACAAGxCrBAALIANBFGohBCABIAEoAhw2AiggASABKQIUIgc3AyACQAJAIAenIgIoAgAiACgCEA0AIAAtANYEDQAgAkHsjsAAQQcQe0ECIQIgACgCEEUEQCAALQDYBCEGIAAtANoEIQILIARB7JXAAEHllcAAQeGVwAAgAkECRyAGcSIAGyACQQFxIgIbQQZBB0EEIAAbIAIbEO8BDAELIARBh4/AAEEGEO8BCyABQSBqELkDIAFBMGokACADQQhqIAQQwQIgAyADKAIIIAMoAgwQ/gMgBSADKQMANwIAIANBIGokACAFKAIAIAUoAgQgBUEQaiQAC9sBAgR/AX4jAEEQayIDJAAjAEEgayICJAAjAEEwayIBJAAgAUEUaiIEIAAQ0QEgASgCFEUEQCABQQhqIAQQ3wIgASgCCCIAQQEgABsgASgCDEEAIAAbEKsEAAsgASABKAIcNgIoIAEgASkCFCIFNwMgIAJBFGoiAEH4lcAAQfKVwAAgBacoAgAtANwFG0EGEO8BIAFBIGoQuQMgAUEwaiQAIAJBCGogABDBAiACIAIoAgggAigCDBD+AyADIAIpAwA3AgAgAkEgaiQAIAMoAgAgAygCBCADQRBqJAALxwECBH8BfiMAQRBrIgMkACMAQSBrIgIkACMAQTBrIgEkACABQRRqIgQgABDRASABKAIURQRAIAFBCGogBBDgAiABKAIIIgBBASAAGyABKAIMQQAgABsQqwQACyABIAEoAhw2AiggASABKQIUIgU3AyAgAkEUaiIAIAWnEIoCIAFBIGoQugMgAUEwaiQAIAJBCGogABDBAiACIAIoAgggAigCDBD+AyADIAIpAwA3AgAgAkEgaiQAIAMoAgAgAygCBCADQRBqJAALLAEBf0EEQRQQwQMiAUKBgICAEDcCACABIAApAgA3AgggASAAKAIINgIQIAELagICfwFvIwBBEGsiAiQAIAAoAgAgAEEANgIAQQFGBEAgACgCBCIBJQEgARDmARBFIQMQnQEiASADJgEgAiABNgIMIAJBDGoQ0gMLIAJBEGokACAAKAIABEAgAEEEahDSAwsgAEEIahDUAwsXACABIANGBH8gACACIAEQlAIFQQELRQtUAQF/IAAoAgAiASABKAIAQQFrIgE2AgAgAUUEQCMAQRBrIgEkACABIABBBGo2AgwgASAAKAIAIgA2AgggAEEMahCaBCABQQhqEP4CIAFBEGokAAsLegECfyAAKAIAIgEgASgCAEEBayIBNgIAIAFFBEAjAEEQayIBJAAgASAAQQRqNgIMIAEgACgCACIANgIIIABBDGoQrAMCQCABQQhqKAIAIgBBf0YNACAAIAAoAgRBAWsiAjYCBCACDQAgAEEQQQQQhAQLIAFBEGokAAsLVAEBfyAAKAIAIgEgASgCAEEBayIBNgIAIAFFBEAjAEEQayIBJAAgASAAQQRqNgIMIAEgACgCACIANgIIIABBDGoQuwMgAUEIahD/AiABQRBqJAALC+ECAQd/IAAoAgAiASABKAIAQQFrIgE2AgAgAUUEQCMAQRBrIgQkACAEIABBBGo2AgwgBCAAKAIAIgA2AgggAEHIBmoQmgQgAEHUBmoQmgQgAEHgBmoQ0wMgAEHABmoQ2AIgAEHwBGoQmgQgAEHgAWoQywMgAEGABWoQzAMjAEEQayIBJAAgASAAQdABaiIGIgIgAigCDBC+ASABKAIEIAEoAgAhAyACKAIEIQUgASABKAIMIAEoAggiAms2AgQgASAFIAJByABsajYCACADayECIAUgA0HIAGxqIQMDQCACBEAgAkEBayECIAMQ1AIgA0HIAGohAwwBCwsgASgCBCECIAEoAgAhAwNAIAIEQCACQQFrIQIgAxDUAiADQcgAaiEDDAELCyABQRBqJAAgBkEIQcgAEKwCIABB8AVqENwDIABBkAZqELYDIABBnAZqELwDIARBCGoQ+QIgBEEQaiQACwv7BQEHfyAAKAIAIgEgASgCAEEBayIBNgIAIAFFBEAjAEEQayIFJAAgBSAAQQRqNgIMIAUgACgCACIDNgIIIANB0AVqEJoEIANB+ARqEOMDIANBwAVqENIDIANBxAVqENIDIANByAVqENIDIANBzAVqENIDIANBmARqEJoEIANBwANqEOADIANBpARqIgIiACgCCCEBIAAoAgQhAANAIAEEQCABQQFrIQEgABD7AiAAQYABaiEADAELCyACEJcEIANB0ANqENwDIANB4ANqENwDIANBkARqENMDIANBsARqIgIiACgCCCEBIAAoAgQhAANAIAEEQCABQQFrIQEgABDSAyAAQQRqIQAMAQsLIAIQlgQgA0G8BGoiAiIAKAIEQQhqIQEgACgCCCEAA0AgAARAIABBAWshACABENIDIAFBEGohAQwBCwsgAhCZBCMAQRBrIgIkACACIANB8ANqIgYiACAAKAIMEL4BIAIoAgQgAigCACEBIAAoAgQhBCACIAIoAgwgAigCCCIAazYCBCACIAQgAEEHdGo2AgAgAWshACAEIAFBB3RqIQEDQCAABEAgAEEBayEAIAEQ+wIgAUGAAWohAQwBCwsgAigCBCEAIAIoAgAhAQNAIAAEQCAAQQFrIQAgARD7AiABQYABaiEBDAELCyACQRBqJAAgBhCXBCMAQRBrIgIkACACIANBgARqIgYiACAAKAIMEL4BIAIoAgQgAigCACEBIAAoAgQhBCACIAIoAgwgAigCCCIAazYCBCACIAQgAEEobGo2AgAgAWshACAEIAFBKGxqIQEDQCAABEAgAEEBayEAIAEQpAIgAUEoaiEBDAELCyACKAIEIQAgAigCACEBA0AgAARAIABBAWshACABEKQCIAFBKGohAQwBCwsgAkEQaiQAIAZBCEEoEKwCIANByARqIgMoAgghACADKAIEIQEDQCAABEAgAEEBayEAIAEQ3QMgAUEQaiEBDAELCyADEJUEIAVBCGoQ+gIgBUEQaiQACwtUAQF/IAAoAgAiASABKAIAQQFrIgE2AgAgAUUEQCMAQRBrIgEkACABIABBBGo2AgwgASAAKAIAIgA2AgggAEEMahDUAyABQQhqEP8CIAFBEGokAAsLHQAgAARAIAAgASgCEBEAAA8LQbSEwABBMhCrBAALVAEBfyAAKAIAIgEgASgCAEEBayIBNgIAIAFFBEAjAEEQayIBJAAgASAAQQRqNgIMIAEgACgCACIANgIIIABBDGoQyAMgAUEIahD/AiABQRBqJAALCyIBAn8gACgCBCIBKAIEIgIEQCAAKAIAIAIgASgCCBCEBAsLJQAgACABKAIINgIEIAAgASgCBEEAIAEoAgBBgICAgHhHGzYCAAteAQF/IAAoAgAiASABKAIAQQFrIgE2AgAgAUUEQCMAQRBrIgEkACABIABBBGo2AgwgASAAKAIAIgA2AgggAEEMaiIAKAIABEAgABDYAgsgAUEIahD+AiABQRBqJAALC64BAQN/AkACQAJAQYCrwAAoAgBBAWsOAgABAgtBhKvAAA8LEI4EAAsCfyMAQRBrIgAkAEGAq8AAKAIAIQFBgKvAAEECNgIAIABBhKvAACgCACICNgIMIAAgATYCCCABRQRAQYSrwAAgAhENADYCAEGAq8AAQQE2AgAgAEEQaiQAQYSrwAAMAQsgAEEIaiIAKAIAQQFGBEAgAEEEahDSAwtBjqPAAEHIo8AAENcDAAsLJAAgASgCAEGAgICAeEcEQCAAIAEQigIPCyAAQYCAgIB4NgIACyABAX8gACgCBCgCACIBBEAgACgCACABEQAACyAAELADCxoAIAAoAgAEQCAAQQRqENIDIABBCGoQnQQLCyYBAX8gACgCACIBKAIQRQRAIAFBADsB2AQLIABB/47AAEEIEJgCCx8AIAAgARCdASIAIAImASAAEJ0BIgAgAyYBIAAQgAILHgEBfyAAKAIEIgEgASgCAEEBazYCACAAQQhqEKkDCx4BAX8gACgCBCIBIAEoAgBBAWs2AgAgAEEIahCoAwsZACAAKAIABEAgAEEEaiIAELkEIAAQ0gMLCxoAIAAoAgBBAkcEQCAAENMDIABBCGoQ0wMLCxsAIABBMGoQ2wMgAEE8ahDbAyAAQcgAahDbAwscACAAQeAAahCaBCAAQewAahCaBCAAQRhqEOMDCx0BAX8gACgCACIBQQBKBEAgACgCBCABQQEQhAQLCx0AIAAgARCdASIAIAImASAAEJoCIgAlASAAEOYBCxsBAX8gACABEJAEIgJFBEAgACABEK0EAAsgAgsXACAAKAIABEAgABC1AyAAQQhqEKoDCwsXACAAKAIoBEAgABC+AiAAQShqEK0DCwsbAEECIAAoAgAlARBfIgBBAEcgAEH///8HRhsLGgEBfyAAKAIAIgEEQCAAKAIEIAFBARCEBAsLvgMCBH8BfhCdASICIAEmASMAQSBrIgMkACADIAI2AgQgAyAANgIYIAMgA0EfaiIANgIUIAMgADYCECADIAA2AgwgAyADQQRqNgIIIwBBQGoiAiQAIAJBHGoiACADQQhqIgQoAhAQ0QEgAkEANgIoIAIgBCgCACgCACIFNgIsIAIoAhxFBEAgAkEQaiACQShqEOwCIAIoAhAhAyACKAIUIQQgAkEIaiAAEOACIAIoAggiACADIAAbIgNBASADGyACKAIMIAQgABtBACADGxCrBAALIAIgAigCJDYCOCACIAIpAhwiBjcDMCAGpyEEIwBBIGsiACQAIAAgBTYCECAAQQhqIABBEGoQvAECQCAAKAIIQQFGBEAgACAAKAIMNgIUIABBFGoiBRCoBCEEIAUQ0gMMAQsgACAEKAIEIAQoAggQ2gM2AhQgAEEUaiIEIABBEGoQ/QMhBSAEENIDIABBATYCFCAAIAU2AhggACAENgIcIABBHGpBsI7AABDZAyEEIAAoAhRFDQAgAEEYahDSAwsgAEEQahDSAyAAQSBqJAAgAkEwahC6AyACQUBrJAAgA0EgaiQAIAQlASAEEOYBCxcAIABBAUYEQEG6ocAAQTEQqwQACyABCxUAIAAoAgBBAkcEQCAAQQRqENIDCwsVACAAKQMAQgJSBEAgAEEYahCaBAsLFwAgAEEIahDSAyAAELUDIABBDGoQ0gMLGQAgACgCEEGBgICAeEcEQCAAQRBqENsDCwsZACAAKAIYQYCAgIB4RwRAIABBGGoQmgQLCxcBAX8gABBQIgE2AgQgACABQQBHNgIACxcBAX8gABBRIgE2AgQgACABQQBHNgIACxcBAX8gABBSIgE2AgQgACABQQBHNgIACxcBAX8gABBTIgE2AgQgACABQQBHNgIACx8AIAAEQCAAIAEQrQQAC0GEp8AAQSNBmKfAABDLAgALFQAgACgCACIAQYQITwRAIAAQ5gELCxIAIAAoAgAEQCAAQQRqENIDCwsSACAAKAIABEAgAEEEahCdBAsLEgAgACgCDARAIABBDGoQ+QILCxIAIAAtAAAEQCAAQQRqENIDCwsNACAAQdEAIAEQywIACxgAIAEoAgAgASgCBCAAKAIAIAAoAgQQfAsXAQFvIAAgARAEIQIQnQEiACACJgEgAAsXAQFvIAAgARBqIQIQnQEiACACJgEgAAsWACAAKAIAQYCAgIB4RwRAIAAQmgQLCxIAIAAoAgBBAkcEQCAAEKYDCwsSACAAQQhqENIDIABBDGoQnQQLEgAgAEEIahDSAyAAQQRqEPIDCxgAQQEgACgCABClAiAAQQRqKAIAJQEQIQsSACAAKAIAQQJHBEAgABDzAgsLEgAgACkDAEIDUgRAIAAQyQMLCxIAIABBCGoQmgQgAEEUahDSAwsWACAAKAI8QYCAgIB4RwRAIAAQ5AMLCxIAIABBPGoQmgQgAEEwahDbAwsSACAAQQhqEJ0EIABBEGoQ+QILEwAgACgCAEUEQCAAQQRqENIDCwsQACACBEAgACACIAEQhAQLCxMAQcCswAAgAK1CIIZCAYQ3AwALEAAgAQRAIAAgASACEIQECwscACAAQdCmwAApAgA3AgggAEHIpsAAKQIANwIACxwAIABBwKbAACkCADcCCCAAQbimwAApAgA3AgALFgAgACgCACABIAIgACgCBCgCDBEGAAsUACAAIAEQnQEiACACJgEgABCVAgsUACAAIAEQnQEiACACJgEgABCfAgsPACAAKAIABEAgABD6AgsLDgAgACABEI4BIAAQ1QMLDwAgACgCAARAIAAQ+QILCw8AIAAoAgAEQCAAEKsDCwsUACAAKAIAIAEgACgCBCgCDBEDAAsVAgFvAX8QTyEAEJ0BIgEgACYBIAELogEBA38jAEEQayIEJAAgBEEIaiACIAEQ2gEgBCgCDCEGIAQgAiADENoBIAQoAgAhBQJAAkACQCAEKAIIQQFGBEAgBUEBRw0CIAYgBCgCBEYNAQwCCyAFQQFGDQELIAAhBQwBCyACIAMQlQEiBUUEQEEAIQUMAQsgAyABIAEgA0sbIgMEQCAFIAAgA/wKAAALIAAgAiABEIwCCyAEQRBqJAAgBQshAQFvIAAoAgAlASABKAIAJQEQByECEJ0BIgAgAiYBIAALDwAgABDSAyAAQQRqENIDCw8AIAAQ+gIgAEEEahDSAwsPACAAEK8DIABBBGoQ9wMLDwAgABC1AyAAQRBqELUDCw8AIAAQnQQgAEEEahDSAwsTACAAIAEoAgBB/JrAAEEBENsCCyEBAW8gACgCACUBIAEoAgAlARBMIQIQnQEiACACJgEgAAsQACAAIAI2AgQgACABNgIACxMAIABB2KbAADYCBCAAIAE2AgALEQAgASAAKAIAIAAoAgQQ7AMLEAAgASAAKAIAIAAoAgQQeQvbAgMHfwF+AW8jAEEQayIDJAAjAEEwayIBJAAgAUEUaiICIAAQ0QEgASgCFEUEQCABIAIQ3wIgASgCACIAQQEgABsgASgCBEEAIAAbEKsEAAsgASABKAIcNgIoIAEgASkCFCIINwMgIAFBCGohBSMAQRBrIgAkAAJAAkACQCAIpyIEKAIAIgIoAhANACACLQDWBA0AIAQQtwMgAigCEEUEQCACQQE6ANYECyAAIAQQ6AE2AgBBASEGIAIgAigCBEEBaiIENgIEIARFDQEgACACNgIEIAAgADYCDCAAIABBBGoiAjYCCCAAQQhqQZyOwAAQ2QMhByACEPoCIAAQ0gMLIAUgBzYCBCAFIAY2AgAgAEEQaiQADAELAAsgASkDCCEIIAFBIGoQuQMgA0EIaiAINwMAIAFBMGokACADKAIMQQAgAygCCEEBcRshACADQRBqJAAgACUBIAAQ5gELzAEDA38BfgFvIwBBMGsiASQAIAFBFGoiAiAAENEBIAEoAhRFBEAgAUEIaiACEN8CIAEoAggiAEEBIAAbIAEoAgxBACAAGxCrBAALIAEgASgCHDYCKCABIAEpAhQiBDcDICMAQRBrIgAkAAJAAkAgBKciAigCACIDKAIQDQAgAy0A1gQNACACELcDIAIQ6AEhAgwBCyAAQYAINgIMIABBDGoiAxCpBCECIAMQ0gMLIABBEGokACABQSBqELkDIAFBMGokACACJQEgAhDmAQsLACAAIAIgARCMAgs5AQF/An8gASgCACECAn8gACkDAEIBUQRAQQAgAkUNARogACkDCCABKQMIUQwCCyACQQFzCwtBAXMLDgAgACABEIoBIAAQwgMLDQAgACABEH4gARCkAgsNACAAIAEQbSAAEN4DCw4AIAAoAgAlARBbQQBHCw4AIAAoAgAlARBcQQBHCw4AIAAoAgAlARBgQQBHCw4AIAAoAgAlARBhQQBHCw8AIABB6KXAACABIAIQfAsTAEGeqcAAQd0AQcypwAAQywIACwkAIAEgABCVAQsJACABIAAQjwQLFwEBbyAAIAEQZiECEJ0BIgAgAiYBIAALFwEBbyAAIAEQZSECEJ0BIgAgAiYBIAALFwEBbyAAIAEQaCECEJ0BIgAgAiYBIAALFwEBbyAAIAEQZyECEJ0BIgAgAiYBIAALCwAgAEEEQRAQrAILCwAgAEEEQQQQrAILDAAgAEEIQYABEKwCCwsAIABBBEEIEKwCCwsAIABBCEEQEKwCCwsAIABBAUEBEKwCCwsAIAAQeiAAEMMDCwwAIAAQwwEgABDiAgsMACAAELkEIAAQ0gMLCgAgAEEQahD5AgsKACAAQQRqENIDCwoAIABBCGoQ+QILCgAgAEEIahD6AgtyAQJ/IAACfwJAAkACQEGAgMAAKAIAIgEoAgBBAWsOAgABAgsgAUEIagwCCxCOBAALAn8gASgCACABQQI2AgBFBEAgASABKAIEEQ8AOQMIIAFBATYCACABQQhqDAELQbSMwABB3IzAABDXAwALCysDAKALGgEBbyAAKAIAJQEQJiEBEJ0BIgAgASYBIAALGgEBbyAAKAIAJQEQNiEBEJ0BIgAgASYBIAALGgEBbyAAKAIAJQEQSyEBEJ0BIgAgASYBIAALFwEBbyAAIAEQTSECEJ0BIgAgAiYBIAALGgEBbyAAKAIAJQEQVCEBEJ0BIgAgASYBIAALGgEBbyAAKAIAJQEQVSEBEJ0BIgAgASYBIAALGgEBbyAAKAIAJQEQViEBEJ0BIgAgASYBIAALDQBByaTAAEEbEKsEAAsJACAAIAEQWgALDAAgACABKQIANwMACz4BAX8jAEEQayICJAAgAiABNgIMIAIgADYCCCACQQhqIgAoAgAgACgCBEHUrMAAKAIAIgBBogEgABsRAQAACw0AIAFBjqrAAEEYEHkLDQAgAUHuqcAAQSAQeQuoAQIDfwF+IwBBMGsiASQAIAFBFGoiAiAAENEBIAEoAhRFBEAgAUEIaiACEN8CIAEoAggiAEEBIAAbIAEoAgxBACAAGxCrBAALIAEgASgCHDYCKCABIAEpAhQiBDcDICMAQRBrIgAkACAEpyICKAIAIgMoAhBFBEAgA0EAOgDYBAsgACACEOgBNgIMIABBDGoQ0gMgAEEQaiQAIAFBIGoQuQMgAUEwaiQAC5gBAgJ/AX4CfyMAQTBrIgEkACABQRRqIAAQ0QEgASgCFARAIAEgASgCHDYCKCABIAEpAhQiAzcDIEECIQAgA6coAgAiAigCEEUEQCACLQDWBCEACyABQSBqELkDIAFBMGokACAAQQJGIAByQQFxDAELIAFBCGogAUEUahDfAiABKAIIIgBBASAAGyABKAIMQQAgABsQqwQACwuUAQICfwF+IwBBMGsiASQAIAFBFGoiAiAAENEBIAEoAhRFBEAgAUEIaiACEN8CIAEoAggiAEEBIAAbIAEoAgxBACAAGxCrBAALIAEgASgCHDYCKCABIAEpAhQiAzcDICADpyIAQeyOwABBBxB7IAAoAgAiACgCEAR/QQAFIAAtANoEC0EBcSABQSBqELkDIAFBMGokAAtyAgJ/AX4jAEEwayIBJAAgAUEUaiICIAAQ0QEgASgCFEUEQCABQQhqIAIQ3wIgASgCCCIAQQEgABsgASgCDEEAIAAbEKsEAAsgASABKAIcNgIoIAEgASkCFCIDNwMgIAOnEG4gAUEgahC5AyABQTBqJAALCwAgACgCACUBEBALCwAgACgCACUBEDULCwAgACgCACUBEDsLFwIBbwF/IAAQaSEBEJ0BIgIgASYBIAILFQEBbyAAEEYhARCdASIAIAEmASAACwsAIAAoAgAlARBiCwwAQeiswABBAToAAAsJACAAQQA2AgALCAAgACUBEAoLCAAgACUBEAsLBwAgABDSAwsHACAAEIoDCwcAIAAQ/QILBwAgABD6AgsHACAAEPkCC6cBAQV/IwBBIGsiACQAIAAQswMQjgM2AgggACAAQQhqIgIQjgM2AgwgAEEMaiIDEI4DIQEgAEIANwIUIAAgATYCHEEEQQwQwQMiASAAQRRqIgQoAgg2AgggASAEKQIANwIAIAAgAUGghMAAEJQENgIQIAIoAgAlASAAQRBqIgEEfyABKAIABUEACyUBEEAgA0HonsAAEH4gAxDSAyACENIDIABBIGokAAt5AwJ/AX4BfCMAQTBrIgEkACABQRRqIgIgABDRASABKAIURQRAIAFBCGogAhDfAiABKAIIIgBBASAAGyABKAIMQQAgABsQqwQACyABIAEoAhw2AiggASABKQIUIgM3AyAgA6coAgArA+AEIAFBIGoQuQMgAUEwaiQAC3kDAn8BfgF8IwBBMGsiASQAIAFBFGoiAiAAENEBIAEoAhRFBEAgAUEIaiACEN8CIAEoAggiAEEBIAAbIAEoAgxBACAAGxCrBAALIAEgASgCHDYCKCABIAEpAhQiAzcDICADpygCACsD6AQgAUEgahC5AyABQTBqJAALeQMCfwF+AXwjAEEwayIBJAAgAUEUaiICIAAQ0QEgASgCFEUEQCABQQhqIAIQ3wIgASgCCCIAQQEgABsgASgCDEEAIAAbEKsEAAsgASABKAIcNgIoIAEgASkCFCIDNwMgIAOnKAIAKwPwBCABQSBqELkDIAFBMGokAAsHAEGoq8AACwcAQbyrwAALBwBB0KrAAAsDAAALLwEBfwJAIAAoAgAiAEF/Rg0AIAAgACgCBEEBayIDNgIEIAMNACAAIAIgARCEBAsLQwEBfyMAQRBrIgMkACADQQhqIAAgACgCACACIAEQtAEgAygCCCIAQYGAgIB4RwRAIAAgAygCDBDRAwALIANBEGokAAsoAQF/IwBBEGsiAiQAIAIgAkEPaq0gAYQ3AwBBoYbAACACIAAQywIACwvtKgUAQYCAwAAL4R5AFRAAYXR0ZW1wdGVkIHRvIHRha2Ugb3duZXJzaGlwIG9mIFJ1c3QgdmFsdWUgd2hpbGUgaXQgd2FzIGJvcnJvd2VkbnVsbCBwb2ludGVyIHBhc3NlZCB0byBydXN0cmVjdXJzaXZlIHVzZSBvZiBhbiBvYmplY3QgZGV0ZWN0ZWQgd2hpY2ggd291bGQgbGVhZCB0byB1bnNhZmUgYWxpYXNpbmcgaW4gcnVzdAAAAA0AAAAMAAAABAAAAA4AAAAPAAAADQAAAAwAAAAEAAAADgAAAA8AAAANAAAADAAAAAQAAAAOAAAADwAAAA0AAAAMAAAABAAAAA4AAAAPAAAADQAAAAwAAAAEAAAADgAAAA8AAAAQAAAAEAAAAAgAAAARAAAAEgAAAEZuT25jZSBjYWxsZWQgbW9yZSB0aGFuIG9uY2UTAAAABAAAAAQAAAAUAAAAFQAAABMAAAAEAAAABAAAABYAAAAXAAAAGAAAAAQAAAAEAAAAGQAAABoAAAAbAAAADAAAAAQAAAAcAAAAHQAAAB4AAAAwAAAACAAAAB8AAAAgAAAAIQAAAAQAAAAEAAAAIgAAACMAAAAkAAAACAAAAAQAAAAlAAAAJgAAACcAAAAEAAAABAAAACgAAAApAAAAJwAAAAQAAAAEAAAAKgAAACsAAAAsAAAACAAAAAQAAAAtAAAALgAAAC8AAAAEAAAABAAAADAAAAAxAAAAMgAAAAwAAAAEAAAAMwAAADQAAABjbG9zdXJlIGludm9rZWQgcmVjdXJzaXZlbHkgb3IgYWZ0ZXIgYmVpbmcgZHJvcHBlZBBhc3NlcnRpb24gYGxlZnQgwBcgcmlnaHRgIGZhaWxlZAogIGxlZnQ6IMAJCiByaWdodDogwAAQYXNzZXJ0aW9uIGBsZWZ0IMAQIHJpZ2h0YCBmYWlsZWQ6IMAJCiAgbGVmdDogwAkKIHJpZ2h0OiDAAEhjYW5ub3QgYWNjZXNzIGEgVGhyZWFkIExvY2FsIFN0b3JhZ2UgdmFsdWUgZHVyaW5nIG9yIGFmdGVyIGRlc3RydWN0aW9uOiDAAC9ydXN0Yy81OTgwNzYxNmUxZmEyNTQwNzI0YmZiYWMxNGQ3OTc2ZDdlNGEzODYwL2xpYnJhcnkvY29yZS9zcmMvY2VsbC9sYXp5LnJzAC9ydXN0Yy81OTgwNzYxNmUxZmEyNTQwNzI0YmZiYWMxNGQ3OTc2ZDdlNGEzODYwL2xpYnJhcnkvYWxsb2Mvc3JjL3N0ci5ycwAvcnVzdGMvNTk4MDc2MTZlMWZhMjU0MDcyNGJmYmFjMTRkNzk3NmQ3ZTRhMzg2MC9saWJyYXJ5L3N0ZC9zcmMvdGhyZWFkL2xvY2FsLnJzAC9yb290Ly5jYXJnby9yZWdpc3RyeS9zcmMvaW5kZXguY3JhdGVzLmlvLTE5NDljZjhjNmI1YjU1N2YvanMtc3lzLTAuMy4xMDcvc3JjL2Z1dHVyZXMvanNwaS5ycwBzcmMvd2FzbS90YWJzL3N0b3JlLnJzAHNyYy93YXNtL3RhYnMvZW5naW5lLnJzAHNyYy93YXNtL3RhYnMvcGFnZS5ycwAvcnVzdGMvNTk4MDc2MTZlMWZhMjU0MDcyNGJmYmFjMTRkNzk3NmQ3ZTRhMzg2MC9saWJyYXJ5L2FsbG9jL3NyYy9jb2xsZWN0aW9ucy92ZWNfZGVxdWUvbW9kLnJzAC9ydXN0Yy81OTgwNzYxNmUxZmEyNTQwNzI0YmZiYWMxNGQ3OTc2ZDdlNGEzODYwL2xpYnJhcnkvYWxsb2Mvc3JjL3Jhd192ZWMvbW9kLnJzAHNyYy93YXNtL3RhYnMvZmVuY2VkLnJzAC9yb290Ly5jYXJnby9yZWdpc3RyeS9zcmMvaW5kZXguY3JhdGVzLmlvLTE5NDljZjhjNmI1YjU1N2YvanMtc3lzLTAuMy4xMDcvc3JjL2xpYi5ycwAmY29weV9mcm9tX3NsaWNlOiBzb3VyY2Ugc2xpY2UgbGVuZ3RoICjAKykgZG9lcyBub3QgbWF0Y2ggZGVzdGluYXRpb24gc2xpY2UgbGVuZ3RoICjAASkAAAC6AxAATwAAAN8BAAAZAAAAaW50ZXJuYWwgZXJyb3I6IGVudGVyZWQgdW5yZWFjaGFibGUgY29kZSMDEABNAAAA7QAAAEwAAABtaWQgPiBsZW4AAACtBBAAXgAAAIYGAAAkAAAAcQMQAEgAAACxAAAAFgAAAGF0dGVtcHQgdG8gam9pbiBpbnRvIGNvbGxlY3Rpb24gd2l0aCBsZW4gPiB1c2l6ZTo6TUFYAAAAcQMQAEgAAACaAAAACgAAAAAAAAAEAAAABAAAADUAAAA2AAAAAAAAAAQAAAAEAAAANwAAADgAAAAAAAAABAAAAAQAAAA5AAAAOgAAAAAAAAAIAAAABAAAADsAAAA8AAAAAAAAAAQAAAAEAAAAPQAAAD4AAAAAAAAABAAAAAQAAAA/AAAAQAAAAAAAAAAEAAAABAAAAEEAAABCAAAAZXhwaXJlZGdyYW50b3JfbG9zdHJlbGVhc2VkY2xvc2VkeWllbGRlZHN0b2xlbnN1cGVyc2VkZWRncmFudGJlYXRyZWxlYXNlbmFtZW11c3QgYmUgYSBub24tZW1wdHkgc3RyaW5nIG9mIGF0IG1vc3QgMjAwIGNoYXJhY3RlcnNwYWdlaGlkZWxlYXNlTXNtYXJnaW5Nc3JlbmV3SW50ZXJ2YWxNc2R1cmF0aW9uTXNtdXN0IGJlIGdyZWF0ZXIgdGhhbiBzYWZldHlNYXJnaW5Nc3NhZmV0eU1hcmdpbk1zbXVzdCBiZSBncmVhdGVyIHRoYW4gMG11c3QgYmUgYSBmaW5pdGUgbnVtYmVybXVzdCBiZSBhdCBtb3N0IDJeMzEtMSBtc3JlcXVlc3RUaW1lb3V0TXNyZXRyeURlbGF5TXNyZXRyeURlbGF5TWF4TXNtdXN0IGJlIGF0IGxlYXN0IHJldHJ5RGVsYXlNc211c3QgYmUgbGVzcyB0aGFuIGxlYXNlTXNtdXN0IGJlIGxlc3MgdGhhbiBsZWFzZU1zIC0gbWFyZ2luTXNpbmRleGVkREJjcnlwdG9nZXRSYW5kb21WYWx1ZXNjcnlwdG8uZ2V0UmFuZG9tVmFsdWVzIG5lZWRzICBhbmQgLCB3aGljaCB0aGlzIHJ1bnRpbWUgbGFja3NFUlJfVEFCX1VOU1VQUE9SVEVEbWlzc2luZ29wZW5DAAAACAAAAAQAAABEAAAARQAAABAAAAAIAAAARgAAAEcAAAAIAAAABAAAAEgAAABJAAAAGAAAAAgAAABKAAAASwAAABAAAAAEAAAATAAAAHN0YXR1c2Z1bGZpbGxlZADmCRAACQAAAHJlYXNvbnZhbHVlbmF2aWdhdG9ybG9ja3NyZXF1ZXN0SW5kZXhlZERCICBmYWlsZWQ6IEVSUl9UQUJfU1RPUkFHRWNhdXNlACcAAAAEAAAABAAAAE4AAAAnAAAABAAAAAQAAABPAAAAbWVzc2FnZTAxMjM0NTY3ODlhYmNkZWYAUAAAAHRleHQvamF2YXNjcmlwdACXBBAAFQAAAIMAAAAyAAAAlwQQABUAAACKAAAAIgAAAGNvZGVraW5kZ3JhbnRvckNvZGVyZXRyeUFmdGVyTXNkb2N1bWVudGxlYXNld2ViLWxvY2tzaWRsZXdhaXRpbmdhY3RpdmVpbmxpbmV3b3JrZXJjb3JldHlwZW1vZHVsZXRoZSBoZWFydGJlYXQgd29ya2VyIGZhaWxlZDogRVJSX1RBQl9XT1JLRVJjb3VsZCBub3Qgc3RhcnQgaXQgKHdvcmtlci1zcmMgYmxvYjogYWxsb3dlZD8pdGFiLQAAACcAAAAEAAAABAAAAFEAAABSAAAAUgAAAHRoZSBoZWFydGJlYXQgZW5naW5lIGNvdWxkIG5vdCBzdGFydDogdGhlIGhlYXJ0YmVhdCB3b3JrZXIgY291bGQgbm90IHN0YXJ0OiBzaWduYWxmYWlsZWRwYWdlc2hvd3Jlc3VtZXZpc2liaWxpdHljaGFuZ2VvbmxpbmV2aXNpYmlsaXR5U3RhdGV2aXNpYmxlAAAPDBAABwAAAGluYWN0aXZlQnJvYWRjYXN0Q2hhbm5lbHRlbnVyZS10YWI6cGVyc2lzdGVkV29ya2VyaGVhcnRiZWF0bXVzdCBiZSAid29ya2VyIiBvciAiaW5saW5lIgBSDBAACQAAAFsMEAAcAAAARVJSX0xFQVNFX0NPTkZJR2hlYXJ0YmVhdDogV29ya2VyIGlzIG5vdCBhdmFpbGFibGUgaGVyZWdsb2JhbGdsb2JhbCBtb2RlIG5lZWRzIGEgbGVhc2UgaG9sZGVyLCB3aGljaCAidGVudXJlL3RhYnMiIGxlYXZlcyBvdXQ6IGltcG9ydCBUYWJMZWFzZSBmcm9tICJ0ZW51cmUiVGFiTGVhc2V3ZWJMb2Nrc3JlYWR5cGluZ3JvbGVyZW5ld2Vkcm9sZUxvc3RlcG9jaGdsb2JhbExvc3RsZWZ0Y2FsbGlkbWV0aG9kYXJnc2Fib3J0d2h5dG5pbnN0YW5jZXJlc291cmNlaG9sZGVySWQAAAD0BxAABwAAAPsHEAAIAAAAAwgQAA8AAACTCBAAEAAAAKMIEAAMAAAArwgQAA8AAAB0b2tlbnJlbWFpbmluZ01zd2FsbE1zb3JpZ2luTXNpbml0Y29uZmlnam9pbmxlYXZleWllbGRjaGVja2Nsb3NlcG9uZ2Fuc3dlcm9rc2VxaG9sZGVydGFrZW92ZXJsZWF2aW5nJQ4QAAcAAABsZWFzZXMAAFMAAAAcAAAABAAAAFQAAAB0cmFuc2FjdGlvbm5vIGluZGV4ZWREQnRlbnVyZS10YWJzZmVuY2VkbWV0YVUAAABoBBAAFgAAAJwAAAAjAAAAVgAAAGgEEAAWAAAAkQAAADAAAAB0cmFuc2FjdGlvbiBhYm9ydGVkAGgEEAAWAAAAPQAAACMAAABXAAAACAAAAAQAAABYAAAAWQAAACgAAAAIAAAAWgAAAFsAAAAEAAAABAAAAFwAAABdAAAACAAAAAQAAABeAAAAVwAAAAgAAAAEAAAAWAAAAF8AAAAQAAAACAAAAGAAAABhAAAAGAAAAAQAAABiAAAAYwAAABgAAAAIAAAAZAAAAGUAAAAgAAAACAAAAGYAAABnAAAADAAAAAQAAABoAEGQn8AAC60LIQAAAAQAAAAEAAAAaQAAAGoAAABqAAAAfwQQABcAAABBAgAAKAAAAH8EEAAXAAAARgIAAB4AAABncmFudGVkAF0FEAAXAAAAzwAAACMAAABubyBhbnN3ZXJ3cml0ZQAAXQUQABcAAADHAAAAGwAAAEVSUl9MRUFTRV9VU0FHRWtleSBtdXN0IGJlIGEgdmFsaWQgSW5kZXhlZERCIGtleSAoc3RyaW5nLCBudW1iZXIsIGRhdGUsIGFycmF5KWFjY2VwdGVkRmVuY2VkU3RvcmVFUlJfTEVBU0VfVE9LRU5lcG9jaCBtdXN0IGJlIGEgcG9zaXRpdmUgaW50ZWdlckxlYXNlRXJyb3JmaWVsZG11c3QgYmUgYSBudW1iZXJpcyByZXF1aXJlZGNhbGxlZCBgUmVzdWx0Ojp1bndyYXBfdGhyb3coKWAgb24gYW4gYEVycmAgdmFsdWUABQAAAAQAAAAHAAAApAcQAKkHEACtBxAAyA8QAKkHEAB/BxAABwAAAAQAAAAIAAAACAAAAAYAAAAHAAAABgAAAAoAAAAHAAAAfwcQAIcHEACNBxAAlAcQAJoHEABsBxAAYBUQAGgVEABwFRAAeBUQAGNsb3N1cmUgaW52b2tlZCByZWN1cnNpdmVseSBvciBhZnRlciBiZWluZyBkcm9wcGVkaW50ZXJuYWwgZXJyb3I6IGVudGVyZWQgdW5yZWFjaGFibGUgY29kZQAAIwMQAE0AAAD+AAAALgAAACMDEABNAAAA7QAAAEwAAAB1BRAAVAAAAPk7AAABAAAAnAAAAJ0AAACeAAAAnwAAAAoEEABdAAAAyAAAACwAAAAKBBAAXQAAALsAAAAgAAAAY2FsbGVkIGBPcHRpb246OnVud3JhcF90aHJvdygpYCBvbiBhIGBOb25lYCB2YWx1ZW51bGwgcG9pbnRlciBwYXNzZWQgdG8gcnVzdHJlY3Vyc2l2ZSB1c2Ugb2YgYW4gb2JqZWN0IGRldGVjdGVkIHdoaWNoIHdvdWxkIGxlYWQgdG8gdW5zYWZlIGFsaWFzaW5nIGluIHJ1c3RUcmllZCB0byBzaHJpbmsgdG8gYSBsYXJnZXIgY2FwYWNpdHkADAUQAFAAAAAsAwAACQAAAKQAAAAMAAAABAAAAKUAAACmAAAApwAAAAAAAAAIAAAABAAAAKgAAACpAAAAqgAAAKsAAACsAAAAEAAAAAQAAACtAAAArgAAAK8AAACwAAAAbV3L1ixQ62N4QaZXcRuLuRWiXFU0VQfUU3itgVHwo/cAAAAACAAAAAQAAACxAAAAQWNjZXNzRXJyb3IApAAAAAwAAAAEAAAAsgAAAGNhcGFjaXR5IG92ZXJmbG93AAAADAUQAFAAAAAcAAAABQAAADAxMjM0NTY3ODlhYmNkZWYAAAAABAAAAAQAAAC5AAAAfSB9PT0hPW1hdGNoZXMwMDAxMDIwMzA0MDUwNjA3MDgwOTEwMTExMjEzMTQxNTE2MTcxODE5MjAyMTIyMjMyNDI1MjYyNzI4MjkzMDMxMzIzMzM0MzUzNjM3MzgzOTQwNDE0MjQzNDQ0NTQ2NDc0ODQ5NTA1MTUyNTM1NDU1NTY1NzU4NTk2MDYxNjI2MzY0NjU2NjY3Njg2OTcwNzE3MjczNzQ3NTc2Nzc3ODc5ODA4MTgyODM4NDg1ODY4Nzg4ODk5MDkxOTI5Mzk0OTU5Njk3OTg5OUxhenlDZWxsIGluc3RhbmNlIGhhcyBwcmV2aW91c2x5IGJlZW4gcG9pc29uZWQjAxAATQAAAHQBAAAFAAAAMHgwMTIzNDU2Nzg5QUJDREVGUmVmQ2VsbCBhbHJlYWR5IG11dGFibHkgYm9ycm93ZWRSZWZDZWxsIGFscmVhZHkgYm9ycm93ZWQAAMsTEADNExAAzxMQAAIAAAACAAAABwBBxKrAAAsBTQBB16rAAAsygAAAAAAAAAAAAgAAAJcAAAACAAAAmAAAAAIAAACZAAAAAgAAAJoAAAAAAAAAmwAAAKEAQZSrwAALAQQAlAEPdGFyZ2V0X2ZlYXR1cmVzCCsPbXV0YWJsZS1nbG9iYWxzKxNub250cmFwcGluZy1mcHRvaW50KwtidWxrLW1lbW9yeSsIc2lnbi1leHQrD3JlZmVyZW5jZS10eXBlcysKbXVsdGl2YWx1ZSsPYnVsay1tZW1vcnktb3B0KxZjYWxsLWluZGlyZWN0LW92ZXJsb25n";

// pkg/inline-core.js
function decode(base64) {
  if (typeof Uint8Array.fromBase64 === "function") return Uint8Array.fromBase64(base64);
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}
function inlineCoreModule() {
  return new WebAssembly.Module(decode(CORE_BASE64));
}

// pkg/core.js
var source = inlineCoreModule;
var compiled = null;
function coreModule() {
  var _a2;
  if (compiled === null) {
    let module2;
    try {
      module2 = source();
      initSync({ module: module2 });
    } catch (error) {
      throw new LeaseError("ERR_CORE_UNAVAILABLE", `the WebAssembly core could not be loaded: ${(_a2 = error == null ? void 0 : error.message) != null ? _a2 : error}`, {
        cause: error
      });
    }
    compiled = module2;
  }
  return compiled;
}

// pkg/glue-tabs/tab-worker-source.js
var tab_worker_source_default = '(()=>{var v=class{__destroy_into_raw(){let e=this.__wbg_ptr;return this.__wbg_ptr=0,S.unregister(this),e}free(){let e=this.__destroy_into_raw();o.__wbg_fencedstorecore_free(e,0)}get name(){let e,t;try{let n=o.fencedstorecore_name(this.__wbg_ptr);return e=n[0],t=n[1],i(n[0],n[1])}finally{o.__wbindgen_free(e,t,1)}}constructor(e){let t=o.fencedstorecore_new(e);if(t[2])throw k(t[1]);return this.__wbg_ptr=t[0],S.register(this,this.__wbg_ptr,this),this}read(e){return o.fencedstorecore_read(this.__wbg_ptr,e)}write(e,t,n){return o.fencedstorecore_write(this.__wbg_ptr,e,t,n)}};Symbol.dispose&&(v.prototype[Symbol.dispose]=v.prototype.free);var E=class{__destroy_into_raw(){let e=this.__wbg_ptr;return this.__wbg_ptr=0,I.unregister(this),e}free(){let e=this.__destroy_into_raw();o.__wbg_tableasecore_free(e,0)}abandon(){o.tableasecore_abandon(this.__wbg_ptr)}close(){return o.tableasecore_close(this.__wbg_ptr)}get closed(){return o.tableasecore_closed(this.__wbg_ptr)!==0}get epoch(){let e=o.tableasecore_epoch(this.__wbg_ptr);return e[0]===0?void 0:e[1]}get grantorToken(){let e=o.tableasecore_grantorToken(this.__wbg_ptr);return e[0]===0?void 0:e[1]}get heartbeat(){let e,t;try{let n=o.tableasecore_heartbeat(this.__wbg_ptr);return e=n[0],t=n[1],i(n[0],n[1])}finally{o.__wbindgen_free(e,t,1)}}get isActive(){return o.tableasecore_isActive(this.__wbg_ptr)!==0}join(){o.tableasecore_join(this.__wbg_ptr)}get leaseMs(){return o.tableasecore_leaseMs(this.__wbg_ptr)}get marginMs(){return o.tableasecore_marginMs(this.__wbg_ptr)}get mode(){let e,t;try{let n=o.tableasecore_mode(this.__wbg_ptr);return e=n[0],t=n[1],i(n[0],n[1])}finally{o.__wbindgen_free(e,t,1)}}get name(){let e,t;try{let n=o.tableasecore_name(this.__wbg_ptr);return e=n[0],t=n[1],i(n[0],n[1])}finally{o.__wbindgen_free(e,t,1)}}constructor(e,t,n,_,a){let s=o.tableasecore_new(e,t,n,_,a);if(s[2])throw k(s[1]);return this.__wbg_ptr=s[0],I.register(this,this.__wbg_ptr,this),this}release(){return o.tableasecore_release(this.__wbg_ptr)}get renewIntervalMs(){return o.tableasecore_renewIntervalMs(this.__wbg_ptr)}get state(){let e,t;try{let n=o.tableasecore_state(this.__wbg_ptr);return e=n[0],t=n[1],i(n[0],n[1])}finally{o.__wbindgen_free(e,t,1)}}};Symbol.dispose&&(E.prototype[Symbol.dispose]=E.prototype.free);function O(){o.serveTabEngine()}function q(){return{__proto__:null,"./tenure_bg.js":{__proto__:null,__wbg_String_4f8b1910c73d8edd:function(e){return String(e)},__wbg___wbindgen_boolean_get_4f1baf9a00be3c74:function(e){let t=e,n=typeof t=="boolean"?t:void 0;return f(n)?16777215:n?1:0},__wbg___wbindgen_is_function_741ff2bb612836f5:function(e){return typeof e=="function"},__wbg___wbindgen_is_null_c22311b1cc228e3a:function(e){return e===null},__wbg___wbindgen_is_object_8b968c3ab8e96595:function(e){let t=e;return typeof t=="object"&&t!==null},__wbg___wbindgen_is_undefined_be5b34249ff1fc15:function(e){return e===void 0},__wbg___wbindgen_number_get_934b640d0889af78:function(e,t){let n=t,_=typeof n=="number"?n:void 0;l().setFloat64((e>>>0)+8,f(_)?0:_,!0),l().setInt32((e>>>0)+0,!f(_),!0)},__wbg___wbindgen_string_get_7ce8eee7fd327545:function(e,t){let n=t,_=typeof n=="string"?n:void 0;var a=f(_)?0:L(_,o.__wbindgen_malloc,o.__wbindgen_realloc),s=R;l().setInt32((e>>>0)+4,s,!0),l().setInt32((e>>>0)+0,a,!0)},__wbg___wbindgen_throw_4c88d8bf264fd984:function(e,t){throw new Error(i(e,t))},__wbg__wbg_cb_unref_09736879a3f67559:function(e){e._wbg_cb_unref()},__wbg_abort_75a93bc755ef5425:function(){return c(function(e){e.abort()},arguments)},__wbg_abort_f8d1589eb0c65ee2:function(e){e.abort()},__wbg_addEventListener_847fd86b8c33ec43:function(){return c(function(e,t,n,_){e.addEventListener(i(t,n),_)},arguments)},__wbg_add_c133d31369f0ece2:function(){return c(function(e,t,n){return e.add(t,n)},arguments)},__wbg_allSettled_d9d5b2fd4eaa59fd:function(e){return Promise.allSettled(e)},__wbg_assign_6b6bb30388088072:function(e,t){return Object.assign(e,t)},__wbg_bound_2eafc1bd1cffbb0e:function(){return c(function(e,t){return IDBKeyRange.bound(e,t)},arguments)},__wbg_call_275b78b3b6520b92:function(){return c(function(e,t,n,_,a){return e.call(t,n,_,a)},arguments)},__wbg_call_40b008ba32f73991:function(){return c(function(e,t){return e.call(t)},arguments)},__wbg_call_a410eb4b59ed5965:function(){return c(function(e,t,n){return e.call(t,n)},arguments)},__wbg_clearTimeout_3629d6209dfcc46e:function(e){return clearTimeout(e)},__wbg_close_70d38255291ae4c8:function(e){e.close()},__wbg_close_83412466bf4e34fb:function(e){e.close()},__wbg_cmp_003f82fce8b8f349:function(){return c(function(e,t,n){return e.cmp(t,n)},arguments)},__wbg_commit_4b61872764bf439b:function(){return c(function(e){e.commit()},arguments)},__wbg_contains_c7099563ab57a776:function(e,t,n){return e.contains(i(t,n))},__wbg_createObjectStore_f7cf854ebb8a2b7f:function(){return c(function(e,t,n){return e.createObjectStore(i(t,n))},arguments)},__wbg_createObjectURL_45693a1454d24dac:function(){return c(function(e,t){let n=URL.createObjectURL(t),_=L(n,o.__wbindgen_malloc,o.__wbindgen_realloc),a=R;l().setInt32((e>>>0)+4,a,!0),l().setInt32((e>>>0)+0,_,!0)},arguments)},__wbg_data_c7e5e8500f1bca2f:function(e){return e.data},__wbg_delete_a1677b105dc0626e:function(){return c(function(e,t){return e.delete(t)},arguments)},__wbg_error_029b9735617abe23:function(){return c(function(e){let t=e.error;return f(t)?0:g(t)},arguments)},__wbg_error_37b241daaafbc352:function(e){let t=e.error;return f(t)?0:g(t)},__wbg_getRandomValues_4289a1e234b226bb:function(e){crypto.getRandomValues(e)},__wbg_get_2080c49015e35254:function(){return c(function(e,t){return Reflect.get(e,t)},arguments)},__wbg_get_3e7d0feae205d645:function(){return c(function(e,t){return e.get(t)},arguments)},__wbg_get_bb8b6b35041e00c9:function(){return c(function(e,t){return Reflect.get(e,t>>>0)},arguments)},__wbg_instanceof_IdbRequest_b569d50ff3c32e39:function(e){let t;try{t=e instanceof IDBRequest}catch{t=!1}return t},__wbg_key_6e6cd11010a229d7:function(){return c(function(e){return e.key},arguments)},__wbg_length_186163212ffe79c3:function(e){return e.length},__wbg_new_37eb45aaf5eeb820:function(){return new Array},__wbg_new_5f28518387ad0e34:function(){return c(function(){return new AbortController},arguments)},__wbg_new_787b9fb330d55d78:function(e,t){return new Error(i(e,t))},__wbg_new_b00e30ff1da50918:function(){return c(function(e,t){return new BroadcastChannel(i(e,t))},arguments)},__wbg_new_ba40181b3f24ac80:function(e,t){try{var n={a:e,b:t},_=(s,u)=>{let b=n.a;n.a=0;try{return $(b,n.b,s,u)}finally{n.a=b}};return new Promise(_)}finally{n.a=0}},__wbg_new_cd4348290afae586:function(){return new Object},__wbg_new_df63236ec481fcd7:function(){return c(function(e,t){return new Worker(i(e,t))},arguments)},__wbg_new_with_length_01b143a7e5dd5a3e:function(e){return new Uint8Array(e>>>0)},__wbg_new_with_str_sequence_and_options_ea4ce88081790553:function(){return c(function(e,t){return new Blob(e,t)},arguments)},__wbg_now_a6ada84cb3f4f297:function(){return performance.now()},__wbg_now_bc38352b4a9bcf01:function(){return Date.now()},__wbg_objectStoreNames_2b913d9b7111553d:function(e){return e.objectStoreNames},__wbg_objectStore_a2b5ae038954c7ba:function(){return c(function(e,t,n){return e.objectStore(i(t,n))},arguments)},__wbg_of_027eb15371aac932:function(e){return Array.of(e)},__wbg_of_e7ea0fcd535c1444:function(e,t){return Array.of(e,t)},__wbg_openCursor_8fae543a573ea831:function(){return c(function(e,t,n){return e.openCursor(t,T[n])},arguments)},__wbg_openKeyCursor_0fd569e75e8de6fe:function(){return c(function(e,t,n){return e.openKeyCursor(t,T[n])},arguments)},__wbg_open_0b7832f51fde5a5f:function(){return c(function(e,t,n,_){return e.open(i(t,n),_>>>0)},arguments)},__wbg_postMessage_408dcc1ee376f42d:function(){return c(function(e,t){e.postMessage(t)},arguments)},__wbg_postMessage_61772322081d1756:function(){return c(function(e,t){e.postMessage(t)},arguments)},__wbg_postMessage_d9b34e55bfab4bdd:function(){return c(function(e,t){e.postMessage(t)},arguments)},__wbg_preventDefault_cfb06b02e7406899:function(e){e.preventDefault()},__wbg_prototypesetcall_13162965d1fe7aa3:function(e,t,n){Uint8Array.prototype.set.call(H(e,t),n)},__wbg_push_c9f4893fc209f768:function(e,t){return e.push(t)},__wbg_put_45e63ad2e48de8d7:function(){return c(function(e,t,n){return e.put(t,n)},arguments)},__wbg_queueMicrotask_02d630739c50692b:function(e){queueMicrotask(e)},__wbg_reject_334b730b3c00849b:function(e){return Promise.reject(e)},__wbg_removeEventListener_4e20bd5fac3de092:function(){return c(function(e,t,n,_){e.removeEventListener(i(t,n),_)},arguments)},__wbg_request_613a5d2037f6cbba:function(e,t,n,_,a){return e.request(i(t,n),_,a)},__wbg_resolve_dbf78ab4942478b0:function(e){return Promise.resolve(e)},__wbg_result_11a492b710594c52:function(){return c(function(e){return e.result},arguments)},__wbg_setTimeout_fbd69c6576710fc6:function(){return c(function(e,t){return setTimeout(e,t)},arguments)},__wbg_set_2793479888329cb6:function(){return c(function(e,t,n){return Reflect.set(e,t,n)},arguments)},__wbg_set_durability_76d5bb6d7f5bd864:function(e,t){e.durability=G[t]},__wbg_set_name_822e3903f3184979:function(e,t,n){e.name=i(t,n)},__wbg_set_onabort_7ebb01d240653002:function(e,t){e.onabort=t},__wbg_set_onclose_8b9109d9c7acaf7a:function(e,t){e.onclose=t},__wbg_set_oncomplete_0d4e18f44844f3be:function(e,t){e.oncomplete=t},__wbg_set_onerror_01c46f9c43941951:function(e,t){e.onerror=t},__wbg_set_onerror_8346fd6e80c876c8:function(e,t){e.onerror=t},__wbg_set_onmessage_4565eb0ef03ee0f9:function(e,t){e.onmessage=t},__wbg_set_onmessage_62a5679af20d7bf7:function(e,t){e.onmessage=t},__wbg_set_onmessage_fb42c85f5237566a:function(e,t){e.onmessage=t},__wbg_set_onsuccess_8fa3ed2b93e36cae:function(e,t){e.onsuccess=t},__wbg_set_onupgradeneeded_e977e06888863122:function(e,t){e.onupgradeneeded=t},__wbg_set_onversionchange_c2fa20847e387f80:function(e,t){e.onversionchange=t},__wbg_set_signal_0ca6048a7a54da7f:function(e,t){e.signal=t},__wbg_set_steal_60003bf6fadc9c99:function(e,t){e.steal=t!==0},__wbg_set_type_609b0cea6429d7bb:function(e,t,n){e.type=i(t,n)},__wbg_signal_fac908876f45725d:function(e){return e.signal},__wbg_static_accessor_GLOBAL_THIS_003ee833af9699fc:function(){let e=typeof globalThis>"u"?void 0:globalThis;return f(e)?0:g(e)},__wbg_static_accessor_GLOBAL_e4293fb22cbe77da:function(){let e=typeof global>"u"?void 0:global;return f(e)?0:g(e)},__wbg_static_accessor_SELF_53bb20457401453d:function(){let e=typeof self>"u"?void 0:self;return f(e)?0:g(e)},__wbg_static_accessor_TIME_ORIGIN_ca12f19fe323e6a0:function(){return performance.timeOrigin},__wbg_static_accessor_WINDOW_b5e0810bfecb7feb:function(){let e=typeof window>"u"?void 0:window;return f(e)?0:g(e)},__wbg_terminate_72951fee87f2d80a:function(e){e.terminate()},__wbg_then_665823b195634099:function(e,t){return e.then(t)},__wbg_transaction_45e27b813691848b:function(){return c(function(e,t,n,_,a){return e.transaction(X(t,n),K[_],a)},arguments)},__wbg_transaction_a26f26d9d5badcda:function(e){let t=e.transaction;return f(t)?0:g(t)},__wbg_value_fee1bb7efea77e71:function(){return c(function(e){return e.value},arguments)},__wbindgen_generic_0000000000000001:function(e,t){return w(e,t,P)},__wbindgen_generic_0000000000000002:function(e,t){return w(e,t,z)},__wbindgen_generic_0000000000000003:function(e,t){return w(e,t,V)},__wbindgen_generic_0000000000000004:function(e,t){return w(e,t,N)},__wbindgen_generic_0000000000000005:function(e,t){return w(e,t,B)},__wbindgen_generic_0000000000000006:function(e){return e},__wbindgen_generic_0000000000000007:function(e,t){return i(e,t)},__wbindgen_init_externref_table:function(){let e=o.__wbindgen_externrefs;e.set(0,void 0),e.set(1024,void 0),e.set(1025,null),e.set(1026,!0),e.set(1027,!1)}}}}function B(r,e){o.wasm_bindgen__convert__closures_____invoke__hb8aec563b5962948(r,e)}function z(r,e,t){o.wasm_bindgen__convert__closures_____invoke__h650ab4797f53c6db(r,e,t)}function V(r,e,t){o.wasm_bindgen__convert__closures_____invoke__ha5b26f4b1c9b67de(r,e,t)}function N(r,e,t){o.wasm_bindgen__convert__closures_____invoke__ha5b26f4b1c9b67de_25(r,e,t)}function P(r,e,t){return o.wasm_bindgen__convert__closures_____invoke__he5ff5a6db65ddc42(r,e,t)}function $(r,e,t,n){o.wasm_bindgen__convert__closures_____invoke__hb98d63cc49481475(r,e,t,n)}var T=["next","nextunique","prev","prevunique"],G=["default","strict","relaxed"],K=["readonly","readwrite","versionchange","readwriteflush","cleanup"],S=typeof FinalizationRegistry>"u"?{register:()=>{},unregister:()=>{}}:new FinalizationRegistry(r=>o.__wbg_fencedstorecore_free(r,1)),I=typeof FinalizationRegistry>"u"?{register:()=>{},unregister:()=>{}}:new FinalizationRegistry(r=>o.__wbg_tableasecore_free(r,1));function g(r){let e=o.__externref_table_alloc();return o.__wbindgen_externrefs.set(e,r),e}var j=typeof FinalizationRegistry>"u"?{register:()=>{},unregister:()=>{}}:new FinalizationRegistry(r=>o.__wbindgen_destroy_closure(r.a,r.b));function X(r,e){r=r>>>0;let t=l(),n=[];for(let _=r;_<r+4*e;_+=4)n.push(o.__wbindgen_externrefs.get(t.getUint32(_,!0)));return n}function H(r,e){return r=r>>>0,p().subarray(r/1,r/1+e)}var d=null;function l(){return(d===null||d.buffer.detached===!0||d.buffer.detached===void 0&&d.buffer!==o.memory.buffer)&&(d=new DataView(o.memory.buffer)),d}function i(r,e){return r=r>>>0,Y(p().subarray(r,r+e))}var m=null;function p(){return(m===null||m.byteLength===0)&&(m=new Uint8Array(o.memory.buffer)),m}function c(r,e){try{return r.apply(this,e)}catch(t){let n=g(t);o.__wbindgen_exn_store(n)}}function f(r){return r==null}function w(r,e,t){let n={a:r,b:e,cnt:1},_=(...a)=>{n.cnt++;let s=n.a;n.a=0;try{return t(s,n.b,...a)}finally{n.a=s,_._wbg_cb_unref()}};return _._wbg_cb_unref=()=>{--n.cnt===0&&(o.__wbindgen_destroy_closure(n.a,n.b),n.a=0,j.unregister(n))},j.register(_,n,n),_}function L(r,e,t){if(t===void 0){let u=y.encode(r),b=e(u.length,1)>>>0;return p().subarray(b,b+u.length).set(u),R=u.length,b}let n=r.length,_=e(n,1)>>>0,a=p(),s=0;for(;s<n;s++){let u=r.charCodeAt(s);if(u>127)break;a[_+s]=u}if(s!==n){s!==0&&(r=r.slice(s)),_=t(_,n,n=s+r.length*3,1)>>>0;let u=p().subarray(_+s,_+n),b=y.encodeInto(r,u);s+=b.written,_=t(_,n,s,1)>>>0}return R=s,_}function k(r){let e=o.__wbindgen_externrefs.get(r);return o.__externref_table_dealloc(r),e}var h=new TextDecoder("utf-8",{ignoreBOM:!0});h.decode();var J=2146435072,A=0;function Y(r){return A+=r.length,A>=J&&(h=new TextDecoder("utf-8",{ignoreBOM:!0}),h.decode(),A=r.length),h.decode(r)}var y=new TextEncoder;"encodeInto"in y||(y.encodeInto=function(r,e){let t=y.encode(r);return e.set(t),{read:r.length,written:t.length}});var R=0,Q,Z,o;function ee(r,e){return Z=r,o=r.exports,Q=e,d=null,m=null,o.__wbindgen_start(),o}function F(r){if(o!==void 0)return o;r!==void 0&&(Object.getPrototypeOf(r)===Object.prototype?{module:r}=r:console.warn("using deprecated parameters for `initSync()`; pass a single object instead"));let e=q();r instanceof WebAssembly.Module||(r=new WebAssembly.Module(r));let t=new WebAssembly.Instance(r,e);return ee(t,r)}var x=class extends Error{constructor(e,t,n={}){super(t,n.cause===void 0?void 0:{cause:n.cause}),this.name="LeaseError",this.code=e,n.field!==void 0&&(this.field=n.field),n.reason!==void 0&&(this.reason=n.reason)}};function W(){throw new Error("the page did not post its core")}var C=W,M=null;function D(r){C=r}function U(){var r;if(M===null){let e;try{e=C(),F({module:e})}catch(t){throw new x("ERR_CORE_UNAVAILABLE",`the WebAssembly core could not be loaded: ${(r=t==null?void 0:t.message)!=null?r:t}`,{cause:t})}M=e}return M}globalThis.onmessage=r=>{var t,n;if(((t=r.data)==null?void 0:t.type)!=="core")return;globalThis.onmessage=null;let{module:e}=r.data;D(()=>e);try{U()}catch(_){globalThis.postMessage({t:"failed",why:`loading the core: ${(n=_==null?void 0:_.message)!=null?n:_}`});return}O()};})();\n';

// pkg/tab-lease.js
function construct(make) {
  const module2 = coreModule();
  try {
    return make(module2);
  } catch (error) {
    throw fromCore(error);
  }
}
function rethrow(error) {
  throw fromCore(error);
}
function rethrowLater(error) {
  queueMicrotask(() => {
    throw error;
  });
}
function closedError() {
  return new LeaseError("ERR_TAB_CLOSED", "this TabLease was closed");
}
var _a, _core, _hold, _ended, _broken, _waiters, _store, _TabLease_instances, fencedStore_fn, grant_fn, settleWaiters_fn, on_fn;
var TabLease = class {
  constructor(name, options = {}) {
    __privateAdd(this, _TabLease_instances);
    __privateAdd(this, _core);
    /** Aborted when the hold ends; null while not active. */
    __privateAdd(this, _hold, null);
    __privateAdd(this, _ended, AbortSignal.abort(new LeaseError("ERR_LEASE_NOT_HELD", "this tab is not active")));
    __privateAdd(this, _broken, null);
    __privateAdd(this, _waiters, /* @__PURE__ */ new Set());
    __privateAdd(this, _store, null);
    /** Called with `{epoch, grantorToken, signal}` when this tab becomes the active one. */
    __publicField(this, "onActive", null);
    /** Called with the reason when this tab stops being the active one. */
    __publicField(this, "onInactive", null);
    var _a2, _b;
    __privateSet(this, _core, construct(
      (module2) => new TabLeaseCore(name, options, tab_worker_source_default, module2, (kind, a, b) => __privateMethod(this, _TabLease_instances, on_fn).call(this, kind, a, b))
    ));
    this.onActive = (_a2 = options == null ? void 0 : options.onActive) != null ? _a2 : null;
    this.onInactive = (_b = options == null ? void 0 : options.onInactive) != null ? _b : null;
  }
  /** The role's name. */
  get name() {
    return __privateGet(this, _core).name;
  }
  /** Heartbeat lease duration, in ms. */
  get leaseMs() {
    return __privateGet(this, _core).leaseMs;
  }
  /** Stop believing with this much of the lease left, in ms. */
  get marginMs() {
    return __privateGet(this, _core).marginMs;
  }
  /** How often the active tab writes its heartbeat, in ms. */
  get renewIntervalMs() {
    return __privateGet(this, _core).renewIntervalMs;
  }
  /** `"worker"` (a dedicated worker beats, immune to main-thread timer throttling) or `"inline"`. */
  get heartbeat() {
    return __privateGet(this, _core).heartbeat;
  }
  /** `"web-locks"`, or `"lease"` where Web Locks are missing or disabled. */
  get mode() {
    return __privateGet(this, _core).mode;
  }
  /** `"idle"`, `"waiting"` (a candidate), `"active"` or `"closed"`. */
  get state() {
    return __privateGet(this, _core).state;
  }
  /** Whether this tab is the active one now, judged on this context's clocks at each read. */
  get isActive() {
    return __privateGet(this, _core).isActive;
  }
  /** The epoch of the current or most recent hold (a fencing token), or null before any. */
  get epoch() {
    var _a2;
    return (_a2 = __privateGet(this, _core).epoch) != null ? _a2 : null;
  }
  /** In global mode, the grantor's token of the current or most recent grant, else null. */
  get grantorToken() {
    var _a2;
    return (_a2 = __privateGet(this, _core).grantorToken) != null ? _a2 : null;
  }
  /** Aborts when this tab stops being active; already aborted while it is not. */
  get signal() {
    return __privateGet(this, _core).isActive ? __privateGet(this, _hold).signal : __privateGet(this, _ended);
  }
  /** Throws a LeaseError (`ERR_LEASE_NOT_HELD`) unless this tab is active right now. */
  assertActive() {
    if (!this.isActive) {
      throw new LeaseError("ERR_LEASE_NOT_HELD", `tab lease "${this.name}" is not held by this tab`);
    }
  }
  /**
   * Becomes a candidate and resolves `{epoch, grantorToken}` once this tab is active. Aborting
   * `signal` rejects with its reason and, unless the tab is active, withdraws the candidacy.
   */
  acquire({ signal } = {}) {
    if (__privateGet(this, _core).closed) return Promise.reject(closedError());
    if (__privateGet(this, _broken) !== null) return Promise.reject(__privateGet(this, _broken));
    if (signal == null ? void 0 : signal.aborted) return Promise.reject(signal.reason);
    __privateGet(this, _core).join();
    if (this.isActive) return Promise.resolve(__privateMethod(this, _TabLease_instances, grant_fn).call(this));
    return new Promise((resolve, reject) => {
      const waiter = { resolve, reject, signal, onAbort: null };
      if (signal !== void 0) {
        waiter.onAbort = () => {
          __privateGet(this, _waiters).delete(waiter);
          reject(signal.reason);
          if (__privateGet(this, _waiters).size === 0 && __privateGet(this, _hold) === null) __privateGet(this, _core).abandon();
        };
        signal.addEventListener("abort", waiter.onAbort, { once: true });
      }
      __privateGet(this, _waiters).add(waiter);
    });
  }
  /**
   * Steps down (if active) and withdraws the candidacy; resolves once the role is free for the
   * next tab. `acquire()` again to rejoin.
   */
  async release() {
    await __privateGet(this, _core).release();
  }
  /**
   * Releases, stops the heartbeat worker and removes every listener. The instance is `"closed"`
   * from the call on; the promise resolves once the role is free and the worker stopped.
   */
  async close() {
    const closing = __privateGet(this, _core).close();
    if (closing === void 0) return;
    __privateMethod(this, _TabLease_instances, settleWaiters_fn).call(this, (waiter) => waiter.reject(closedError()));
    await closing;
  }
  /** `await using tab = new TabLease(...)` closes it at the end of the scope. */
  [(_a = Symbol.asyncDispose) != null ? _a : /* @__PURE__ */ Symbol.for("Symbol.asyncDispose")]() {
    return this.close();
  }
  /** Writes `value` under `key` in this name's FencedStore with this tab's epoch. */
  fencedWrite(key, value) {
    if (this.epoch === null) {
      return Promise.reject(new LeaseError("ERR_LEASE_NOT_HELD", "this tab has never been active"));
    }
    return __privateMethod(this, _TabLease_instances, fencedStore_fn).call(this).write(key, value, this.epoch);
  }
  /** Reads `key` from this name's FencedStore. */
  fencedRead(key) {
    return __privateMethod(this, _TabLease_instances, fencedStore_fn).call(this).read(key);
  }
};
_core = new WeakMap();
_hold = new WeakMap();
_ended = new WeakMap();
_broken = new WeakMap();
_waiters = new WeakMap();
_store = new WeakMap();
_TabLease_instances = new WeakSet();
fencedStore_fn = function() {
  var _a2;
  (_a2 = __privateGet(this, _store)) != null ? _a2 : __privateSet(this, _store, new FencedStore(this.name));
  return __privateGet(this, _store);
};
grant_fn = function() {
  return { epoch: this.epoch, grantorToken: this.grantorToken };
};
settleWaiters_fn = function(settle) {
  var _a2;
  for (const waiter of __privateGet(this, _waiters)) {
    (_a2 = waiter.signal) == null ? void 0 : _a2.removeEventListener("abort", waiter.onAbort);
    settle(waiter);
  }
  __privateGet(this, _waiters).clear();
};
/** What the core tells: this tab became active, stopped being active, or cannot take part. */
on_fn = function(kind, a, b) {
  var _a2, _b;
  if (kind === "active") {
    __privateSet(this, _hold, new AbortController());
    const grant = { epoch: a, grantorToken: b };
    __privateMethod(this, _TabLease_instances, settleWaiters_fn).call(this, (waiter) => waiter.resolve(grant));
    try {
      (_a2 = this.onActive) == null ? void 0 : _a2.call(this, { ...grant, signal: __privateGet(this, _hold).signal });
    } catch (error) {
      rethrowLater(error);
    }
  } else if (kind === "inactive") {
    const error = b ? new LeaseError("ERR_LEASE_RELEASED", `tab lease released: ${a}`, { reason: a }) : new LeaseError("ERR_LEASE_LOST", `tab lease lost: ${a}`, { reason: a });
    const hold = __privateGet(this, _hold);
    __privateSet(this, _hold, null);
    __privateSet(this, _ended, AbortSignal.abort(error));
    hold == null ? void 0 : hold.abort(error);
    try {
      (_b = this.onInactive) == null ? void 0 : _b.call(this, a);
    } catch (thrown) {
      rethrowLater(thrown);
    }
  } else if (kind === "failed") {
    __privateSet(this, _broken, fromCore(a));
    __privateMethod(this, _TabLease_instances, settleWaiters_fn).call(this, (waiter) => waiter.reject(__privateGet(this, _broken)));
  }
};
var _core2;
var FencedStore = class {
  constructor(name) {
    __privateAdd(this, _core2);
    __privateSet(this, _core2, construct(() => new FencedStoreCore(name)));
  }
  /** The TabLease name whose epochs fence this store. */
  get name() {
    return __privateGet(this, _core2).name;
  }
  /**
   * Writes `value` (anything structured-cloneable) under `key` (any IndexedDB key) if `epoch` is
   * the newest epoch of the name. Resolves `{accepted, epoch}`, `epoch` being the newest one.
   */
  write(key, value, epoch) {
    return __privateGet(this, _core2).write(key, value, epoch).catch(rethrow);
  }
  /** Resolves `{value, epoch}` (the epoch that wrote it), or null when `key` was never written. */
  read(key) {
    return __privateGet(this, _core2).read(key).catch(rethrow);
  }
};
_core2 = new WeakMap();
