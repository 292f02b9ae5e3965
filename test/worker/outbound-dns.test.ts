/**
 * Outbound requests are resolved first (DNS over HTTPS, mocked by fetch-guard.ts): a public name
 * whose answers include a loopback, private, link-local or metadata address is never fetched. Such a
 * name is refused when it is registered (registration-dns.test.ts); here the names answered publicly
 * when they were registered and point elsewhere by the time they are fetched.
 */
import { describe, expect, it } from "vitest";
import { calls, lookups, mockDns, mockFetch } from "./fetch-guard";
import { api, newArchive } from "./helpers";

async function addSource(archive: string, key: string, location: string): Promise<string> {
  const add = await api("POST", `/v1/archives/${archive}/sources`, { kind: "url", location }, key);
  expect(add.status, JSON.stringify(add.body)).toBe(201);
  return add.body.id as string;
}

async function runSource(archive: string, key: string, id: string) {
  const run = await api("POST", `/v1/archives/${archive}/sources/${id}/run`, undefined, key);
  expect(run.status, JSON.stringify(run.body)).toBe(200);
  return run.body;
}

describe("outbound hosts are resolved before they are fetched", () => {
  it("refuses names that resolve to non-public addresses, and fetches public ones", async () => {
    const { id, key } = await newArchive("dns");
    // Registered while every name answers with a public address (fetch-guard's default) ...
    const hosts = ["localho", "meta", "v6", "ula", "mapped"];
    const ids: string[] = [];
    for (const host of hosts) ids.push(await addSource(id, key, `https://${host}.example.com/feed.json`));
    // ... then the names point at loopback, metadata and private addresses.
    mockDns({
      "localho.example.com": ["127.0.0.1"],
      "meta.example.com": ["169.254.169.254"],
      "v6.example.com": ["93.184.216.34", "::1"],
      "ula.example.com": ["fd00:ec2::254"],
      "mapped.example.com": ["::ffff:10.0.0.1"],
    });
    const served: string[] = [];
    const feed = (req: Request) => {
      served.push(new URL(req.url).host);
      return Response.json({ artifacts: [{ id: "note:fed", kind: "note", title: "Fed", content: "From a feed." }] });
    };
    mockFetch({
      "https://localho.example.com/": feed,
      "https://meta.example.com/": feed,
      "https://v6.example.com/": feed,
      "https://ula.example.com/": feed,
      "https://mapped.example.com/": feed,
      "https://public.example.com/": feed,
    });
    for (const [i, host] of hosts.entries()) {
      const r = await runSource(id, key, ids[i] as string);
      expect(r.run.status, host).toBe("error");
      expect(r.source.status.last_error, host).toMatch(/resolves to .*(private|loopback|link-local)/);
    }
    expect(served).toEqual([]);
    expect(calls.filter((c) => c.url.includes(".example.com"))).toEqual([]);
    expect(lookups).toContain("localho.example.com A");

    const ok = await runSource(id, key, await addSource(id, key, "https://public.example.com/feed.json"));
    expect(ok.run.status, JSON.stringify(ok)).toBe("ok");
    expect(served).toEqual(["public.example.com"]);
  });
});
