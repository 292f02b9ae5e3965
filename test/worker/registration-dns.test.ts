/**
 * A source's location and a subscription's url are judged by their DNS answers when they are
 * registered (created or changed), not only when they are fetched: a public name that resolves to a
 * loopback, private, link-local, metadata or unique-local address is refused with a 400 naming the
 * field, the address and its class. DNS is mocked (fetch-guard.ts); nothing else is sent.
 */
import { describe, expect, it } from "vitest";
import { calls, lookups, mockDns } from "./fetch-guard";
import { api, newArchive } from "./helpers";

/** Per test, so the guard's 30 s answer cache never carries one test's answers into another. */
let round = 0;
function names() {
  round++;
  const n = (label: string) => `${label}-${round}.example.com`;
  const table: Record<string, { answers: string[]; class: RegExp }> = {
    [n("loop4")]: { answers: ["127.0.0.1"], class: /127\.0\.0\.1 \(loopback, 127\.0\.0\.0\/8\)/ },
    [n("loop6")]: { answers: ["::1"], class: /::1 \(loopback, ::1\)/ },
    [n("meta")]: {
      answers: ["169.254.169.254"],
      class: /169\.254\.169\.254 \(link-local, the cloud metadata address\)/,
    },
    [n("ten")]: { answers: ["10.20.30.40"], class: /10\.20\.30\.40 \(private, 10\.0\.0\.0\/8\)/ },
    [n("ula")]: { answers: ["fd12:3456::1"], class: /fd12:3456::1 \(unique-local \(private\), fc00::\/7\)/ },
    [n("awsmeta")]: {
      answers: ["fd00:ec2::254"],
      class: /fd00:ec2::254 \(unique-local \(private\), the AWS metadata address\)/,
    },
    // One non-public answer among public ones is enough.
    [n("mixed")]: {
      answers: ["93.184.216.34", "2606:4700::1", "192.168.1.9"],
      class: /192\.168\.1\.9 \(private, 192\.168\.0\.0\/16\)/,
    },
    [n("mapped")]: { answers: ["::ffff:127.0.0.1"], class: /IPv4-mapped 127\.0\.0\.1: loopback/ },
    [n("nxdomain")]: { answers: [], class: /resolves to no address/ },
    [n("servfail")]: { answers: ["SERVFAIL"], class: /could not be resolved \(resolver status 2\)/ },
  };
  mockDns({
    ...Object.fromEntries(Object.entries(table).map(([k, v]) => [k, v.answers])),
    [n("public")]: ["93.184.216.34", "2606:4700::6810:85e5"],
  });
  return { refused: table, public: n("public") };
}

describe("registration resolves the host of a URL it is given", () => {
  it("refuses a source whose location resolves to a non-public address, and accepts a public one", async () => {
    const { id, key } = await newArchive("regdns");
    const { refused, public: pub } = names();
    for (const [host, { class: cls }] of Object.entries(refused)) {
      const res = await api(
        "POST",
        `/v1/archives/${id}/sources`,
        { kind: "url", location: `https://${host}/feed.json` },
        key,
      );
      // A resolver that cannot answer is the service's trouble, not the URL's: 503, retry later.
      const unresolved = cls.source.includes("could not be resolved");
      expect(res.status, host).toBe(unresolved ? 503 : 400);
      expect(res.body.error.type, host).toBe(unresolved ? "unavailable" : "validation");
      expect(res.body.error.field, host).toBe("location");
      expect(res.body.error.message, host).toMatch(new RegExp(`^location host ${host.replaceAll(".", "\\.")} `));
      expect(res.body.error.message, host).toMatch(cls);
      expect(res.body.error.message, host).toContain("so it is not registered");
      expect(res.body.error.hint, host).toBeTruthy();
    }
    const hint = (
      await api(
        "POST",
        `/v1/archives/${id}/sources`,
        { kind: "url", location: `https://${Object.keys(refused)[0]}/x` },
        key,
      )
    ).body.error.hint;
    expect(hint).toContain("OUTBOUND_ALLOW_HOSTS");
    // A scholarly source with its own base URL is judged the same way.
    const openalex = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "openalex", location: `https://${Object.keys(refused)[3]}`, query: "memory" },
      key,
    );
    expect(openalex.status).toBe(400);
    expect(openalex.body.error.message).toMatch(/private, 10\.0\.0\.0\/8/);
    expect((await api("GET", `/v1/archives/${id}/sources`, undefined, key)).body.sources).toEqual([]);

    const ok = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "url", location: `https://${pub}/feed.json`, paused: true },
      key,
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(lookups).toContain(`${pub} A`);
    expect(lookups).toContain(`${pub} AAAA`);
    // Only DNS lookups were made: registration fetches nothing.
    expect(calls).toEqual([]);
  });

  it("refuses a subscription whose url resolves to a non-public address, on create and on change", async () => {
    const { id, key } = await newArchive("regsub");
    const { refused, public: pub } = names();
    for (const [host, { class: cls }] of Object.entries(refused)) {
      const res = await api(
        "PUT",
        `/v1/archives/${id}/subscriptions/s-${host.split(".")[0]}`,
        { url: `https://${host}/hook` },
        key,
      );
      expect(res.status, host).toBe(cls.source.includes("could not be resolved") ? 503 : 400);
      expect(res.body.error.field, host).toBe("url");
      expect(res.body.error.message, host).toMatch(new RegExp(`^url host ${host.replaceAll(".", "\\.")} `));
      expect(res.body.error.message, host).toMatch(cls);
    }
    expect((await api("GET", `/v1/archives/${id}/subscriptions`, undefined, key)).body.subscriptions).toEqual([]);

    const created = await api("PUT", `/v1/archives/${id}/subscriptions/ops`, { url: `https://${pub}/hook` }, key);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    // Changing the url to a name that points at the metadata service is refused; the old url stays.
    const meta = Object.keys(refused).find((h) => h.startsWith("meta-")) as string;
    const changed = await api("PUT", `/v1/archives/${id}/subscriptions/ops`, { url: `https://${meta}/hook` }, key);
    expect(changed.status).toBe(400);
    expect(changed.body.error.field).toBe("url");
    expect(changed.body.error.message).toMatch(/link-local, the cloud metadata address/);
    const list = await api("GET", `/v1/archives/${id}/subscriptions`, undefined, key);
    expect(list.body.subscriptions.map((s: { url: string }) => s.url)).toEqual([`https://${pub}/hook`]);
    expect(calls).toEqual([]);
  });

  it("still refuses IP literals and internal names by name, without a lookup", async () => {
    const { id, key } = await newArchive("reglit");
    for (const url of [
      "https://127.0.0.1/hook",
      "https://[::1]/hook",
      "https://[fd00::1]/hook",
      "https://10.0.0.1/hook",
    ]) {
      const res = await api("PUT", `/v1/archives/${id}/subscriptions/lit`, { url }, key);
      expect(res.status, url).toBe(400);
      expect(res.body.error.message, url).toMatch(/is not a public address \((loopback|unique-local|private)/);
    }
    expect(lookups).toEqual([]);
  });
});
