#!/usr/bin/env node
// The fault proxy from the command line:
//
//   node tests/fault-proxy/cli.mjs --target http://127.0.0.1:8040 [--listen 127.0.0.1:0]
//     [--control 127.0.0.1:0] [--fault '{"kind": "hang"}']
//
// Prints `proxy listening on URL` and `control listening on URL`, one line each, then serves
// until SIGTERM or SIGINT. See README.md for the faults and the control API.

import { parseArgs } from "node:util";
import { startFaultProxy } from "./proxy.mjs";

const usage =
  "usage: cli.mjs --target URL [--listen HOST:PORT] [--control HOST:PORT] [--fault JSON]";

let options;
try {
  ({ values: options } = parseArgs({
    options: {
      target: { type: "string" },
      listen: { type: "string", default: "127.0.0.1:0" },
      control: { type: "string", default: "127.0.0.1:0" },
      fault: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  }));
} catch (error) {
  console.error(`${error.message}\n${usage}`);
  process.exit(2);
}
if (options.help || options.target === undefined) {
  console.error(usage);
  process.exit(options.help ? 0 : 2);
}

const proxy = await startFaultProxy({
  target: options.target,
  listen: options.listen,
  control: options.control,
});
if (options.fault !== undefined) await proxy.set(JSON.parse(options.fault));
console.log(`proxy listening on ${proxy.url}`);
console.log(`control listening on ${proxy.controlUrl}`);

const stop = async () => {
  await proxy.close();
  process.exit(0);
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
