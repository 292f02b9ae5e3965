/**
 * Where PaperGuru may send a request: public hosts only. A URL is refused when its host is a
 * loopback, private, link-local, carrier-grade NAT, unique-local, multicast or unspecified address
 * (IPv4 in any notation, IPv6, IPv4-mapped IPv6), a cloud metadata name, a single-label or
 * internal-only name (`localhost`, `*.local`, `*.internal`, `*.lan`, ...), or a wildcard-DNS service
 * that resolves names to any address (`*.nip.io`, `*.sslip.io`, ...). These checks need no DNS;
 * hosts a deployment names in its allow-list (OUTBOUND_ALLOW_HOSTS, for local development) pass.
 * With a resolver (DNS_RESOLVER), a name is also judged by its answers (addressGuard): when a source
 * or a subscription is registered, and again before every request.
 */

import type { Failure } from "./errors";
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

/**
 * Which non-public range an IPv4 address is in, as "class, range" (`loopback, 127.0.0.0/8`), or
 * null when it is public. The one list both the name checks and the DNS checks use.
 */
function v4Class([a, b, c, d]: number[]): string | null {
  if (a === undefined || b === undefined) return "malformed";
  if (a === 0) return "unspecified, 0.0.0.0/8"; // "this" network, 0.0.0.0
  if (a === 10) return "private, 10.0.0.0/8";
  if (a === 127) return "loopback, 127.0.0.0/8";
  if (a === 100 && b >= 64 && b <= 127)
    return b === 100 && c === 100 && d === 200
      ? "carrier-grade NAT, the Alibaba Cloud metadata address"
      : "carrier-grade NAT, 100.64.0.0/10";
  if (a === 169 && b === 254)
    return c === 169 && d === 254 ? "link-local, the cloud metadata address" : "link-local, 169.254.0.0/16";
  if (a === 172 && b >= 16 && b <= 31) return "private, 172.16.0.0/12";
  if (a === 192 && b === 168) return "private, 192.168.0.0/16";
  // IETF protocol assignments 192.0.0.0/24 and documentation 192.0.2.0/24 (the whole /16 is refused).
  if (a === 192 && b === 0) return "IETF-reserved or documentation, 192.0.0.0/16";
  if (a === 198 && (b === 18 || b === 19)) return "benchmarking, 198.18.0.0/15";
  if (a >= 224 && a <= 239) return "multicast, 224.0.0.0/4";
  if (a === 255 && b === 255 && c === 255 && d === 255) return "broadcast, 255.255.255.255";
  if (a >= 240) return "reserved, 240.0.0.0/4";
  return null;
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

/** Which non-public range an IPv6 address (eight groups) is in, as v4Class words it, or null when public. */
function v6Class(g: number[]): string | null {
  const [a = 0] = g;
  if (g.every((x) => x === 0)) return "unspecified, ::";
  if (g.slice(0, 7).every((x) => x === 0) && g[7] === 1) return "loopback, ::1";
  const embedded = (form: string, hi: number, lo: number) => {
    const inner = v4Class([hi >> 8, hi & 255, lo >> 8, lo & 255]);
    return inner ? `${form} ${[hi >> 8, hi & 255, lo >> 8, lo & 255].join(".")}: ${inner}` : null;
  };
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and IPv4-translated
  // (::ffff:0:a.b.c.d, SIIT): judge the embedded address.
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(5) && g[5] === 0xffff) return embedded("IPv4-mapped", g[6] ?? 0, g[7] ?? 0);
  if (zeros(5) && g[5] === 0) return embedded("IPv4-compatible", g[6] ?? 0, g[7] ?? 0);
  if (zeros(4) && g[4] === 0xffff && g[5] === 0) return embedded("IPv4-translated", g[6] ?? 0, g[7] ?? 0);
  // 6to4 (2002:AABB:CCDD::/48) carries the IPv4 address AA.BB.CC.DD.
  if (a === 0x2002) return embedded("6to4 of", g[1] ?? 0, g[2] ?? 0);
  // unique local fc00::/7 (fd00:ec2::254 is AWS metadata)
  if ((a & 0xfe00) === 0xfc00)
    return a === 0xfd00 && g[1] === 0xec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254
      ? "unique-local (private), the AWS metadata address"
      : "unique-local (private), fc00::/7";
  if ((a & 0xffc0) === 0xfe80) return "link-local, fe80::/10";
  // site-local (deprecated, still routed inside some sites)
  if ((a & 0xffc0) === 0xfec0) return "site-local (private), fec0::/10";
  if ((a & 0xff00) === 0xff00) return "multicast, ff00::/8";
  // 64:ff9b::/96 NAT64 and 64:ff9b:1::/48 local NAT64 (reach IPv4 space)
  if (a === 0x64) return "NAT64 (translated to IPv4), 64::/16";
  // Teredo 2001::/32 tunnels to an obfuscated IPv4 address
  if (a === 0x2001 && g[1] === 0) return "Teredo tunnel, 2001::/32";
  if (a === 0x2001 && g[1] === 0xdb8) return "documentation, 2001:db8::/32";
  if (a === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return "discard-only, 100::/64";
  return null;
}

/**
 * The non-public class of an IP address (no brackets), as "class, range", e.g. `loopback, ::1` or
 * `link-local, the cloud metadata address`; null when it is public or not an address.
 */
export function addressClass(address: string): string | null {
  const a = address.toLowerCase();
  const v4 = ipv4(a);
  if (v4) return v4Class(v4);
  const g = ipv6Groups(a);
  return g ? v6Class(g) : null;
}

/** Why a host may not be fetched, or null when it is public. `host` as URL.hostname gives it. */
export function hostRefusal(host: string, allowHosts: readonly string[] = []): string | null {
  const h = host.toLowerCase().replace(/\.$/, "");
  if (allowHosts.includes(h)) return null;
  if (h.startsWith("[") && h.endsWith("]")) {
    const g = ipv6Groups(h.slice(1, -1));
    if (!g) return `host ${host} is not a valid IPv6 address`;
    const cls = v6Class(g);
    return cls ? `host ${host} is not a public address (${cls})` : null;
  }
  const v4 = ipv4(h);
  if (v4) {
    const cls = v4Class(v4);
    return cls ? `host ${host} is not a public address (${cls})` : null;
  }
  if (METADATA_NAMES.has(h)) return `host ${host} is a cloud metadata service`;
  if (h === "localhost" || !h.includes(".")) return `host ${host} is not a public name`;
  if (INTERNAL_SUFFIXES.some((s) => h.endsWith(s))) return `host ${host} is an internal name`;
  if (WILDCARD_DNS.some((s) => h.endsWith(s) || h === s.slice(1)))
    return `host ${host} is a wildcard DNS name that can point at any address`;
  return null;
}

/** Why an address a name resolved to may not be reached, or null when it is public: `10.0.0.8 (private, 10.0.0.0/8)`. */
export function addressRefusal(address: string): string | null {
  const a = address.toLowerCase();
  if (ipv4(a) === null && ipv6Groups(a) === null) return `${address}, which is not an IP address`;
  const cls = addressClass(a);
  return cls ? `${address} (${cls}), not a public address` : null;
}

/** How long a host's DNS answers are reused (well under common record lifetimes). */
const LOOKUP_TTL_MS = 30_000;
/** Hosts whose answers are kept at once (the cache empties when full). */
const LOOKUP_CACHE_HOSTS = 256;

/** An outbound request refused before it was sent (the host resolves to a non-public address). */
export class OutboundRefused extends Error {
  override name = "OutboundRefused";
}

/** Why a host's DNS answers refuse it: the resolver could not answer, there is no address, or one is not public. */
export interface AddressVerdict {
  reason: "unresolved" | "no_address" | "not_public";
  /** `host a.example resolves to 127.0.0.1 (loopback, 127.0.0.0/8), not a public address` */
  message: string;
}

/**
 * Judges a host (as URL.hostname gives it) by its DNS answers; null when it may be reached. IP
 * literals are judged by name (hostRefusal) and allow-listed hosts are not looked up, so both pass.
 */
export type AddressGuard = (host: string) => Promise<AddressVerdict | null>;

/**
 * The one DNS check, shared by every outbound request (guardedFetch) and by the registration of a
 * source or a subscription (registrationRefusal): a host is refused when the resolver cannot answer,
 * when it has no A or AAAA record (nothing public to reach; a local resolver might still answer with
 * a private address), or when one answer is not public (addressRefusal). A run fetches many files
 * from one host: answers are reused for LOOKUP_TTL_MS, so a run of 50 fetches costs 2 lookups, not
 * 100 subrequests.
 */
export function addressGuard(
  resolver: Resolver,
  allowHosts: readonly string[] = [],
  clock: () => number = Date.now,
): AddressGuard {
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
  return async (hostname) => {
    const host = hostname.toLowerCase().replace(/\.$/, "");
    if (ipv4(host) !== null || host.startsWith("[") || allowHosts.includes(host)) return null;
    let answers: string[];
    try {
      answers = await lookup(host);
    } catch (e) {
      return {
        reason: "unresolved",
        message: `host ${host} could not be resolved (${e instanceof Error ? e.message.slice(0, 200) : String(e)})`,
      };
    }
    if (answers.length === 0)
      return { reason: "no_address", message: `host ${host} resolves to no address (no A or AAAA record)` };
    for (const a of answers) {
      const why = addressRefusal(a);
      if (why) return { reason: "not_public", message: `host ${host} resolves to ${why}` };
    }
    return null;
  };
}

/**
 * Fetch only where the guard passes the host: before each request (each redirect hop is its own
 * request). What this cannot see: a name that answers differently between this lookup and the
 * connection (DNS rebinding within the record's lifetime).
 */
export function guardedFetch(http: HttpFetch, guard: AddressGuard): HttpFetch {
  return async (request) => {
    const verdict = await guard(new URL(request.url).hostname);
    if (verdict) throw new OutboundRefused(`${verdict.message}, so it is not fetched`);
    return http(request);
  };
}

/** guardedFetch with its own addressGuard over `resolver`. */
export function resolvingFetch(
  http: HttpFetch,
  resolver: Resolver,
  allowHosts: readonly string[] = [],
  clock: () => number = Date.now,
): HttpFetch {
  return guardedFetch(http, addressGuard(resolver, allowHosts, clock));
}

/**
 * Why a URL being registered (a source's location, a subscription's url) is refused by its DNS
 * answers, as a failure naming `field`; null when it passes. Call it after urlRefusal passed. With no
 * guard (DNS_RESOLVER=none) nothing is looked up: the URL was judged by name, exactly as every fetch
 * judges it then. Every fetch checks again, since answers change.
 */
export async function registrationRefusal(
  guard: AddressGuard | null | undefined,
  url: string,
  field: string,
): Promise<Failure | null> {
  if (!guard) return null;
  const verdict = await guard(new URL(url).hostname);
  if (!verdict) return null;
  const message = `${field} ${verdict.message}, so it is not registered`;
  const hint =
    verdict.reason === "unresolved"
      ? "retry in a moment: the DNS resolver (DNS_RESOLVER) must answer before a URL is accepted (a local server without internet access: DNS_RESOLVER=none judges names only)"
      : verdict.reason === "no_address"
        ? "give a URL whose host has public A or AAAA records"
        : "give a URL whose host resolves only to public addresses; a development server on your own machine or network goes in OUTBOUND_ALLOW_HOSTS";
  // A resolver that cannot answer says nothing about the URL: the service is unavailable (503), and
  // the same registration succeeds once DNS answers.
  return { kind: verdict.reason === "unresolved" ? "unavailable" : "validation", message, field, hint };
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
