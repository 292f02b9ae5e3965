/**
 * Where PaperGuru may send a request: public hosts only. A URL is refused when its host is a
 * loopback, private, link-local, carrier-grade NAT, unique-local, multicast or unspecified address
 * (IPv4 in any notation, IPv6, IPv4-mapped IPv6), a cloud metadata name, a single-label or
 * internal-only name (`localhost`, `*.local`, `*.internal`, `*.lan`, ...), or a wildcard-DNS service
 * that resolves names to any address (`*.nip.io`, `*.sslip.io`, ...). These checks need no DNS;
 * hosts a deployment names in its allow-list (OUTBOUND_ALLOW_HOSTS, for local development) pass.
 */

import type { HttpFetch, Resolver } from "./ports";

const INTERNAL_SUFFIXES = [
  ".localhost",
  ".local",
  ".internal",
  ".intranet",
  ".lan",
  ".home",
  ".home.arpa",
  ".corp",
  ".private",
  ".localdomain",
  ".arpa",
];
const WILDCARD_DNS = [
  ".nip.io",
  ".sslip.io",
  ".xip.io",
  ".localtest.me",
  ".lvh.me",
  ".traefik.me",
  ".lacolhost.com",
  ".vcap.me",
];
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata", "instance-data", "metadata.azure.com"]);

/** IPv4 dotted quad (the URL parser already turned 2130706433, 0x7f.1 and 017700000001 into it). */
function ipv4(host: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

function privateV4([a, b]: number[]): boolean {
  if (a === undefined || b === undefined) return true;
  return (
    a === 0 || // "this" network, 0.0.0.0
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link-local, cloud metadata 169.254.169.254
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) || // IETF protocol assignments, 192.0.0.0/24 and 192.0.2.0/24
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a >= 224 // multicast, reserved, broadcast
  );
}

/** Expand an IPv6 literal (without brackets) to eight 16-bit groups, or null. */
function ipv6Groups(host: string): number[] | null {
  let h = host;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes two hex groups first.
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(h);
  if (v4?.[1]) {
    const p = ipv4(v4[1]);
    if (!p) return null;
    const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
    h = `${h.slice(0, v4.index)}${hex(p[0] as number, p[1] as number)}:${hex(p[2] as number, p[3] as number)}`;
  }
  const halves = h.split("::");
  if (halves.length > 2) return null;
  const parse = (x: string) =>
    x === "" ? [] : x.split(":").map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? Number.parseInt(g, 16) : Number.NaN));
  const head = parse(halves[0] ?? "");
  const rest = halves.length === 2 ? parse(halves[1] ?? "") : [];
  const known = head.length + rest.length;
  if ((halves.length === 1 && known !== 8) || known > 8) return null;
  const out = [...head, ...new Array<number>(8 - known).fill(0), ...rest];
  return out.some(Number.isNaN) ? null : out;
}

function privateV6(g: number[]): boolean {
  const [a = 0] = g;
  if (g.every((x) => x === 0)) return true; // ::
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return true; // ::1
  const embedded = (hi: number, lo: number) => privateV4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and IPv4-translated
  // (::ffff:0:a.b.c.d, SIIT): judge the embedded address.
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(5) && (g[5] === 0xffff || g[5] === 0)) return embedded(g[6] ?? 0, g[7] ?? 0);
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) return embedded(g[6] ?? 0, g[7] ?? 0);
  // 6to4 (2002:AABB:CCDD::/48) carries the IPv4 address AA.BB.CC.DD.
  if (a === 0x2002) return embedded(g[1] ?? 0, g[2] ?? 0);
  return (
    (a & 0xfe00) === 0xfc00 || // unique local fc00::/7 (fd00:ec2::254 is AWS metadata)
    (a & 0xffc0) === 0xfe80 || // link-local
    (a & 0xffc0) === 0xfec0 || // site-local fec0::/10 (deprecated, still routed inside some sites)
    (a & 0xff00) === 0xff00 || // multicast
    a === 0x64 || // 64:ff9b::/96 NAT64 and 64:ff9b:1::/48 local NAT64 (reach IPv4 space)
    (a === 0x2001 && g[1] === 0) || // Teredo 2001::/32 (tunnels to an obfuscated IPv4 address)
    (a === 0x2001 && g[1] === 0xdb8) || // documentation
    (a === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) // discard-only 100::/64
  );
}

/** Why a host may not be fetched, or null when it is public. `host` as URL.hostname gives it. */
export function hostRefusal(host: string, allowHosts: readonly string[] = []): string | null {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (allowHosts.includes(h)) return null;
  if (h.startsWith("[") && h.endsWith("]")) {
    const g = ipv6Groups(h.slice(1, -1));
    if (!g) return `host ${host} is not a valid IPv6 address`;
    return privateV6(g) ? `host ${host} is a private, loopback or link-local address` : null;
  }
  const v4 = ipv4(h);
  if (v4) return privateV4(v4) ? `host ${host} is a private, loopback, link-local or reserved address` : null;
  if (METADATA_NAMES.has(h)) return `host ${host} is a cloud metadata service`;
  if (h === "localhost" || !h.includes(".")) return `host ${host} is not a public name`;
  if (INTERNAL_SUFFIXES.some((s) => h.endsWith(s))) return `host ${host} is an internal name`;
  if (WILDCARD_DNS.some((s) => h.endsWith(s) || h === s.slice(1)))
    return `host ${host} is a wildcard DNS name that can point at any address`;
  return null;
}

/** Why an address a name resolved to may not be reached, or null when it is public. */
export function addressRefusal(address: string): string | null {
  const a = address.toLowerCase();
  const v4 = ipv4(a);
  if (v4) return privateV4(v4) ? `${address} is a private, loopback, link-local or reserved address` : null;
  const g = ipv6Groups(a);
  if (!g) return `${address} is not an IP address`;
  return privateV6(g) ? `${address} is a private, loopback, link-local or translated address` : null;
}

/** How long a host's DNS answers are reused (well under common record lifetimes). */
const LOOKUP_TTL_MS = 30_000;
/** Hosts whose answers are kept at once (the cache empties when full). */
const LOOKUP_CACHE_HOSTS = 256;

/** An outbound request refused before it was sent (the host resolves to a non-public address). */
export class OutboundRefused extends Error {
  override name = "OutboundRefused";
}

/**
 * Fetch only where the host resolves to public addresses: before each request (each redirect hop is
 * its own request), the host's A and AAAA answers are checked with addressRefusal; one non-public
 * answer refuses it. IP literals were judged by name (urlRefusal); allow-listed hosts are not looked
 * up. What this cannot see: a name that answers differently between this lookup and the connection
 * (DNS rebinding within the record's lifetime).
 */
export function resolvingFetch(
  http: HttpFetch,
  resolver: Resolver,
  allowHosts: readonly string[] = [],
  clock: () => number = Date.now,
): HttpFetch {
  // A run fetches many files from one host: its answers are reused for LOOKUP_TTL_MS, so a run of 50
  // fetches costs 2 lookups, not 100 subrequests.
  const cache = new Map<string, { at: number; answers: Promise<string[]> }>();
  const lookup = (host: string) => {
    const now = clock();
    const hit = cache.get(host);
    if (hit && now - hit.at < LOOKUP_TTL_MS) return hit.answers;
    if (cache.size >= LOOKUP_CACHE_HOSTS) cache.clear();
    const answers = resolver.addresses(host);
    cache.set(host, { at: now, answers });
    answers.catch(() => cache.delete(host));
    return answers;
  };
  return async (request) => {
    const host = new URL(request.url).hostname.toLowerCase().replace(/\.$/, "");
    const literal = ipv4(host) !== null || host.startsWith("[");
    if (!literal && !allowHosts.includes(host)) {
      let answers: string[];
      try {
        answers = await lookup(host);
      } catch (e) {
        throw new OutboundRefused(
          `host ${host} could not be resolved (${e instanceof Error ? e.message.slice(0, 200) : String(e)}), so it is not fetched`,
        );
      }
      for (const a of answers) {
        const why = addressRefusal(a);
        if (why) throw new OutboundRefused(`host ${host} resolves to ${why}`);
      }
    }
    return http(request);
  };
}

/**
 * Why a URL may not be fetched, or null: https to a public host; http only to hosts in
 * `allowHttpHosts` (a documented http endpoint) or the allow-list; no embedded credentials.
 */
export function urlRefusal(
  raw: string,
  opts: { allowHosts?: readonly string[]; allowHttpHosts?: readonly string[] } = {},
): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "is not an absolute URL";
  }
  if (u.username || u.password) return "must not embed credentials";
  const allow = opts.allowHosts ?? [];
  const host = u.hostname.toLowerCase();
  if (u.protocol !== "https:" && u.protocol !== "http:") return `uses ${u.protocol} (only https is fetched)`;
  if (u.protocol === "http:" && !allow.includes(host) && !(opts.allowHttpHosts ?? []).includes(host))
    return "uses http: (only https is fetched, except for hosts in OUTBOUND_ALLOW_HOSTS)";
  return hostRefusal(host, allow);
}
