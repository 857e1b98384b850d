// Runs the fault proxy through its command line, as a separate process, and controls it over its
// HTTP control API.

import { spawn } from "node:child_process";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";
import { faultControl } from "../../fault-proxy/control-client.mjs";

const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "fault-proxy", "cli.mjs");

/** Resolves `{ url, controlUrl, control, stop }` once the proxy prints both addresses. */
export async function startFaultProxyProcess({ target }) {
  const child = spawn(process.execPath, [cli, "--target", target, "--listen", "127.0.0.1:0"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  let stderr = "";
  child.stderr.on("data", (chunk) => (stderr += chunk));
  const addresses = {};
  try {
    await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`fault proxy did not start: ${stderr}`)), 10_000);
      createInterface({ input: child.stdout }).on("line", (line) => {
        const match = /^(proxy|control) listening on (http:\/\/\S+)$/.exec(line);
        if (match) addresses[match[1]] = match[2];
        if (addresses.proxy && addresses.control) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`fault proxy exited with ${code}: ${stderr}`));
      });
    });
  } catch (error) {
    child.kill("SIGKILL");
    throw error;
  }
  return {
    url: addresses.proxy,
    controlUrl: addresses.control,
    control: faultControl(addresses.control),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}
