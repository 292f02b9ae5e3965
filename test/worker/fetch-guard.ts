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

/**
 * The DNS-over-HTTPS resolver (DEFAULT_DNS_RESOLVER) answers every name with one public IPv4
 * address and no IPv6 address, unless mockDns gives the name its own answers (`[]`: no address,
 * NXDOMAIN; `["SERVFAIL"]`: the resolver cannot answer). Lookups are kept in `lookups`, not `calls`.
 */
const DOH = "https://cloudflare-dns.com/dns-query";
let dns: Record<string, string[]> = {};
export const lookups: string[] = [];
export function mockDns(table: Record<string, string[]>) {
  dns = table;
}
function answerDns(req: Request): Response {
  const u = new URL(req.url);
  const name = u.searchParams.get("name") ?? "";
  const type = u.searchParams.get("type") === "AAAA" ? 28 : 1;
  lookups.push(`${name} ${type === 1 ? "A" : "AAAA"}`);
  const all = dns[name] ?? ["93.184.216.34"];
  if (all[0] === "SERVFAIL") return Response.json({ Status: 2 });
  if (all.length === 0) return Response.json({ Status: 3 });
  const data = all.filter((a) => (type === 1) === /^\d+\.\d+\.\d+\.\d+$/.test(a));
  return Response.json({ Status: 0, Answer: data.map((d) => ({ name, type, TTL: 300, data: d })) });
}

/**
 * Install the mock for the test file being run: setup.ts calls it once per file. (A module-level
 * beforeEach would register once per runtime, and a runtime runs many files.)
 */
export function installFetchGuard(): void {
  beforeEach(() => {
    vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const req = new Request(input as RequestInfo, init);
      if (req.url.startsWith(DOH)) return answerDns(req);
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
    dns = {};
    lookups.length = 0;
    const leaked = unmocked.splice(0);
    expect(leaked, "tests must not touch the network").toEqual([]);
  });
}
