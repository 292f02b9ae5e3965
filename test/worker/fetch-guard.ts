/**
 * Every workers-pool test runs with outbound fetch replaced (setup.ts): requests are routed by URL
 * prefix to handlers a test installs with mockFetch(); any other request throws and fails the test.
 */
import { afterEach, beforeEach, expect, vi } from "vitest";

type Handler = (req: Request) => Response | Promise<Response>;

const unmocked: string[] = [];
let routes: Array<[string, Handler]> = [];
export const calls: Request[] = [];

/** Route outbound requests by URL prefix (longest first); replaces the previous table. */
export function mockFetch(table: Record<string, Handler>) {
  routes = Object.entries(table).sort((a, b) => b[0].length - a[0].length);
}

beforeEach(() => {
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const req = new Request(input as RequestInfo, init);
    calls.push(req);
    const hit = routes.find(([prefix]) => req.url.startsWith(prefix));
    if (hit) return hit[1](req);
    unmocked.push(req.url);
    throw new Error(`unmocked outbound request ${req.url}`);
  });
});

afterEach(() => {
  vi.restoreAllMocks();
  routes = [];
  calls.length = 0;
  const leaked = unmocked.splice(0);
  expect(leaked, "tests must not touch the network").toEqual([]);
});
