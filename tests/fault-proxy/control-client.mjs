// A client for the fault proxy's control API, with the same `set`/`heal`/`stats` shape as the
// in-process proxy handle. Uses only `fetch`, so it runs in Node and in a page alike.

export function faultControl(controlUrl) {
  const base = controlUrl.endsWith("/") ? controlUrl.slice(0, -1) : controlUrl;
  const call = async (method, path, body) => {
    const response = await fetch(base + path, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const value = await response.json();
    if (!response.ok) throw new Error(`fault proxy control: ${value.error ?? response.status}`);
    return value;
  };
  return {
    /** Switches to `fault` (null heals); resolves the fault in force. */
    async set(fault) {
      return (await call("PUT", "/fault", fault)).fault;
    },
    async heal() {
      return (await call("DELETE", "/fault")).fault;
    },
    stats() {
      return call("GET", "/stats");
    },
  };
}
