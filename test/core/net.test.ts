import { describe, expect, it } from "vitest";
import { DohResolver } from "../../src/adapters/dns/doh";
import {
  addressClass,
  addressGuard,
  addressRefusal,
  hostRefusal,
  OutboundRefused,
  registrationRefusal,
  resolvingFetch,
  urlRefusal,
} from "../../src/core/net";

describe("outbound requests go only to public hosts", () => {
  it("refuses private, loopback, link-local, metadata, internal and wildcard-DNS targets", () => {
    for (const url of [
      "https://169.254.169.254/latest/meta-data/",
      "https://10.0.0.8/feed.json",
      "https://192.168.1.2/x",
      "https://172.20.0.1/x",
      "https://127.0.0.1/x",
      "https://2130706433/x", // 127.0.0.1 as one number
      "https://0x7f.0.0.1/x",
      "https://0/x",
      "https://100.64.0.1/x",
      "https://localhost/x",
      "https://api.localhost/x",
      "https://metadata.google.internal/computeMetadata/v1/",
      "https://[::1]/x",
      "https://[fd00:ec2::254]/latest/meta-data/",
      "https://[fe80::1]/x",
      "https://[::ffff:169.254.169.254]/x",
      "https://[::ffff:7f00:1]/x",
      "https://[::ffff:0:127.0.0.1]/x", // IPv4-translated (SIIT)
      "https://[::ffff:0:a9fe:a9fe]/x", // the same form, metadata address in hex
      "https://[2002:7f00:1::]/x", // 6to4 of 127.0.0.1
      "https://[2002:a9fe:a9fe::1]/x", // 6to4 of 169.254.169.254
      "https://[fec0::1]/x", // site-local
      "https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x", // Teredo
      "https://[64:ff9b:1::a00:1]/x", // local-use NAT64
      "https://10.0.0.1.nip.io/x",
      "https://app.sslip.io/x",
      "https://printer.local/x",
      "https://intranet/x",
      "https://user:pw@example.org/x",
      "http://example.org/x",
      "ftp://example.org/x",
      "file:///etc/passwd",
    ])
      expect(urlRefusal(url), url).not.toBeNull();
  });

  it("accepts public https hosts, and allow-listed hosts for local development", () => {
    for (const url of [
      "https://export.arxiv.org/api/query",
      "https://api.openalex.org/works",
      "https://raw.githubusercontent.com/o/r/main/x.md",
      "https://93.184.216.34/x",
      "https://[2606:4700::6810:85e5]/x",
      "https://[2002:5db8:d822::1]/x", // 6to4 of the public 93.184.216.34
    ])
      expect(urlRefusal(url), url).toBeNull();
    expect(urlRefusal("http://export.arxiv.org/api/query", { allowHttpHosts: ["export.arxiv.org"] })).toBeNull();
    expect(urlRefusal("http://localhost:8080/feed.json", { allowHosts: ["localhost"] })).toBeNull();
    expect(hostRefusal("127.0.0.1", ["127.0.0.1"])).toBeNull();
  });
});

describe("names are resolved before a request is sent", () => {
  const answers: Record<string, string[]> = {
    "public.example": ["93.184.216.34", "2606:4700::6810:85e5"],
    "loop.example": ["127.0.0.1"],
    "meta.example": ["93.184.216.34", "169.254.169.254"],
    "v6loop.example": ["::1"],
    "mapped.example": ["::ffff:192.168.0.1"],
    "sixtofour.example": ["2002:7f00:1::"],
  };
  const resolver = {
    lookups: [] as string[],
    async addresses(host: string) {
      this.lookups.push(host);
      if (host === "broken.example") throw new Error("SERVFAIL");
      return answers[host] ?? [];
    },
  };
  const sent: string[] = [];
  const http = async (req: Request) => {
    sent.push(req.url);
    return new Response("ok");
  };
  const guarded = resolvingFetch(http, resolver, ["dev.example"]);

  it("refuses a name with any non-public answer, or one the resolver cannot answer; sends nothing", async () => {
    for (const host of ["loop", "meta", "v6loop", "mapped", "sixtofour", "broken"]) {
      const err = await guarded(new Request(`https://${host}.example/x`)).catch((e: unknown) => e);
      expect(err, host).toBeInstanceOf(OutboundRefused);
    }
    expect(sent).toEqual([]);
  });

  it("sends to public names, IP literals (judged by name) and allow-listed hosts", async () => {
    resolver.lookups.length = 0;
    expect((await guarded(new Request("https://public.example/x"))).status).toBe(200);
    await guarded(new Request("https://93.184.216.34/x"));
    await guarded(new Request("https://[2606:4700::6810:85e5]/x"));
    await guarded(new Request("http://dev.example:8080/x"));
    expect(resolver.lookups).toEqual(["public.example"]);
    expect(sent).toHaveLength(4);
  });

  it("looks a host up once per 30 s, whatever the number of requests to it", async () => {
    let t = 0;
    const counted = {
      n: 0,
      async addresses() {
        counted.n++;
        return ["93.184.216.34"];
      },
    };
    const f = resolvingFetch(http, counted, [], () => t);
    for (let i = 0; i < 50; i++) await f(new Request(`https://files.example/${i}`));
    expect(counted.n).toBe(1);
    t = 31_000;
    await f(new Request("https://files.example/again"));
    expect(counted.n).toBe(2);
  });

  it("judges answers as addresses", () => {
    for (const a of ["10.1.2.3", "127.0.0.53", "::1", "fe80::1", "fd12::1", "::ffff:0:10.0.0.1", "64:ff9b::a00:1"])
      expect(addressRefusal(a), a).not.toBeNull();
    for (const a of ["1.1.1.1", "2606:4700:4700::1111"]) expect(addressRefusal(a), a).toBeNull();
    expect(addressRefusal("not-an-address")).not.toBeNull();
  });

  it("reads DNS-over-HTTPS JSON answers (A and AAAA, CNAME steps skipped; NXDOMAIN is no address)", async () => {
    const asked: string[] = [];
    const doh = new DohResolver(async (req) => {
      const u = new URL(req.url);
      asked.push(`${u.searchParams.get("name")} ${u.searchParams.get("type")} ${req.headers.get("accept")}`);
      const name = u.searchParams.get("name");
      if (name === "gone.example") return Response.json({ Status: 3 });
      if (name === "fail.example") return Response.json({ Status: 2 });
      if (name === "down.example") return new Response("no", { status: 502 });
      return u.searchParams.get("type") === "A"
        ? Response.json({
            Status: 0,
            Answer: [
              { name, type: 5, data: "edge.example." },
              { name: "edge.example.", type: 1, data: "104.16.1.1" },
            ],
          })
        : Response.json({ Status: 0, Answer: [{ name: "edge.example.", type: 28, data: "2606:4700::1" }] });
    }, "https://resolver.example/dns-query");
    expect(await doh.addresses("www.example")).toEqual(["104.16.1.1", "2606:4700::1"]);
    expect(asked).toContain("www.example A application/dns-json");
    expect(await doh.addresses("gone.example")).toEqual([]);
    await expect(doh.addresses("fail.example")).rejects.toThrow(/status 2/);
    await expect(doh.addresses("down.example")).rejects.toThrow(/HTTP 502/);
  });
});

describe("the class of a non-public address is named", () => {
  it("names loopback, private, link-local, metadata, unique-local and embedded forms", () => {
    const cases: Array<[string, string | null]> = [
      ["127.0.0.1", "loopback, 127.0.0.0/8"],
      ["::1", "loopback, ::1"],
      ["169.254.169.254", "link-local, the cloud metadata address"],
      ["169.254.1.1", "link-local, 169.254.0.0/16"],
      ["10.9.8.7", "private, 10.0.0.0/8"],
      ["172.16.0.1", "private, 172.16.0.0/12"],
      ["192.168.0.1", "private, 192.168.0.0/16"],
      ["100.100.100.200", "carrier-grade NAT, the Alibaba Cloud metadata address"],
      ["0.0.0.0", "unspecified, 0.0.0.0/8"],
      ["fd00:ec2::254", "unique-local (private), the AWS metadata address"],
      ["fd12::1", "unique-local (private), fc00::/7"],
      ["fe80::1", "link-local, fe80::/10"],
      ["::ffff:10.0.0.1", "IPv4-mapped 10.0.0.1: private, 10.0.0.0/8"],
      ["2002:7f00:1::", "6to4 of 127.0.0.1: loopback, 127.0.0.0/8"],
      ["239.1.1.1", "multicast, 224.0.0.0/4"],
      ["93.184.216.34", null],
      ["2606:4700::6810:85e5", null],
      ["::ffff:93.184.216.34", null],
    ];
    for (const [a, cls] of cases) expect(addressClass(a), a).toBe(cls);
    expect(addressRefusal("127.0.0.1")).toBe("127.0.0.1 (loopback, 127.0.0.0/8), not a public address");
    expect(hostRefusal("[::1]")).toBe("host [::1] is not a public address (loopback, ::1)");
  });
});

describe("registration judges a URL's host by the same DNS answers as a fetch", () => {
  const answers: Record<string, string[]> = {
    "public.example": ["93.184.216.34"],
    "loop.example": ["127.0.0.1"],
    "meta.example": ["93.184.216.34", "169.254.169.254"],
    "dev.example": ["127.0.0.1"],
  };
  const asked: string[] = [];
  const resolver = {
    async addresses(host: string) {
      asked.push(host);
      if (host === "broken.example") throw new Error("SERVFAIL");
      return answers[host] ?? [];
    },
  };
  const guard = addressGuard(resolver, ["dev.example"]);

  it("refuses non-public answers, no answer and no resolver answer, naming the field, the address and its class", async () => {
    const loop = await registrationRefusal(guard, "https://loop.example/hook", "url");
    expect(loop).toMatchObject({
      kind: "validation",
      field: "url",
      message:
        "url host loop.example resolves to 127.0.0.1 (loopback, 127.0.0.0/8), not a public address, so it is not registered",
    });
    expect(loop?.hint).toContain("OUTBOUND_ALLOW_HOSTS");
    const meta = await registrationRefusal(guard, "https://meta.example/", "location");
    expect(meta?.field).toBe("location");
    expect(meta?.message).toContain("169.254.169.254 (link-local, the cloud metadata address)");
    expect((await registrationRefusal(guard, "https://gone.example/", "url"))?.message).toContain(
      "resolves to no address",
    );
    const broken = await registrationRefusal(guard, "https://broken.example/", "url");
    expect(broken?.message).toContain("could not be resolved (SERVFAIL)");
    // A resolver that cannot answer is the service's trouble: 503 (unavailable), retry later.
    expect(broken?.kind).toBe("unavailable");
    expect(broken?.hint).toContain("retry");
    expect(meta?.kind).toBe("validation");
  });

  it("accepts public answers; allow-listed hosts and IP literals are not looked up; no guard judges names only", async () => {
    asked.length = 0;
    expect(await registrationRefusal(guard, "https://public.example/hook", "url")).toBeNull();
    expect(await registrationRefusal(guard, "http://dev.example:8080/hook", "url")).toBeNull();
    expect(await registrationRefusal(guard, "https://93.184.216.34/hook", "url")).toBeNull();
    expect(asked).toEqual(["public.example"]);
    // DNS_RESOLVER=none: nothing is looked up, at registration as at every fetch.
    expect(await registrationRefusal(null, "https://loop.example/hook", "url")).toBeNull();
  });

  it("a fetch refuses a name with no address as registration does", async () => {
    const f = resolvingFetch(async () => new Response("ok"), resolver);
    const err = await f(new Request("https://gone.example/x")).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundRefused);
    expect(String(err)).toContain("resolves to no address (no A or AAAA record), so it is not fetched");
  });
});
