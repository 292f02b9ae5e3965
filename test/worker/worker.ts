/**
 * The Worker's fetch handler, called in-process. Tests use this instead of SELF.fetch: in
 * vitest-pool-workers 0.15.1 every SELF.fetch wraps the handler's prototype in one more Proxy, so
 * each request costs more than the one before it (a /healthz answer took 3 ms after 100 requests
 * and 74 ms after 500 in one file; workers-sdk issue 15446) and deep chains overflow the stack.
 * Work the handler hands to `ctx.waitUntil` is finished before the response is returned.
 */
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import entry from "../../src/index";

export const WORKER = {
  async fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const ctx = createExecutionContext();
    const res = await entry.fetch(new Request(input, init), env as never, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  },
};
