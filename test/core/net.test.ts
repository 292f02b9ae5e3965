import { describe, expect, it } from "vitest";
import { hostRefusal, urlRefusal } from "../../src/core/net";

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
