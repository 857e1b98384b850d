// Type-checks tenure/durable-object and DurableObjectGrantor the way the guide and
// examples/cloudflare-durable-object use them, with bindings typed as a Worker's own (no Workers
// types package needed).
import { DurableObjectGrantor, HttpGrantor, LeaseHolder, type DurableObjectGrantorOptions } from "tenure";
import { LeaseGrantorObject, type LeaseGrantorObjectOptions } from "tenure/durable-object";

interface DurableObjectId {
  toString(): string;
  equals(other: DurableObjectId): boolean;
}
interface Env {
  GRANTOR: {
    idFromName(name: string): DurableObjectId;
    newUniqueId(): DurableObjectId;
    get(id: DurableObjectId): { fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> };
  };
  MAX_LEASE_MS: string;
}

/** A subclass with its own settings, bound in wrangler.toml under this name. */
export class BillingGrantor extends LeaseGrantorObject {
  grantorOptions(env: Env): LeaseGrantorObjectOptions {
    return { minDurationMs: 1_000, maxDurationMs: Number(env.MAX_LEASE_MS), clockSkewMs: 50 };
  }

  async fetch(request: Request): Promise<Response> {
    const reply: Response = await super.fetch(request);
    return reply;
  }
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const options: DurableObjectGrantorOptions = { namespace: env.GRANTOR, name: "billing", timeoutMs: 5_000 };
    const grantor = new DurableObjectGrantor({ ...options, batchRenewals: { maxDelayMs: 100 } });
    const http: HttpGrantor = grantor;
    const holder = new LeaseHolder(http, { resource: "invoices/run", holderId: "edge", leaseMs: 5_000, marginMs: 1_000 });
    const held = await holder.acquire();
    if (!held.acquired) return Response.json({ busyWith: held.holder ?? null }, { status: 409 });
    const { accepted }: { accepted: boolean } = await grantor.fencedWrite("invoices/run", { run: 1 }, held.token);
    for await (const change of grantor.observe("invoices/run", { signal: request.signal })) {
      if (change.holder === null) break;
    }
    await holder.release();
    // @ts-expect-error the binding replaces baseUrl
    new DurableObjectGrantor({ namespace: env.GRANTOR, baseUrl: "https://grantor.example" });
    // @ts-expect-error a namespace binding is required
    new DurableObjectGrantor({ name: "billing" });
    // @ts-expect-error a name is a string
    new DurableObjectGrantor({ namespace: env.GRANTOR, name: 7 });
    return Response.json({ accepted });
  },
};
