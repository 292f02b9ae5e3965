import type { HttpFetch, Resolver } from "../../core/ports";

/** How long one lookup may take before the request it guards is refused. */
const LOOKUP_TIMEOUT_MS = 5000;
const A = 1;
const AAAA = 28;

interface DnsJson {
  Status?: number;
  Answer?: Array<{ type?: number; data?: string }>;
}

/**
 * DNS over HTTPS, JSON form (`application/dns-json`, as Cloudflare's 1.1.1.1 and Google's 8.8.8.8
 * serve it): one GET per record type, A and AAAA, answers of those types kept (CNAME steps are
 * followed by the resolver). NXDOMAIN answers no addresses; any other failure throws.
 */
export class DohResolver implements Resolver {
  constructor(
    private readonly http: HttpFetch,
    private readonly endpoint: string,
  ) {}

  async addresses(host: string): Promise<string[]> {
    const [v4, v6] = await Promise.all([this.#lookup(host, A), this.#lookup(host, AAAA)]);
    return [...v4, ...v6];
  }

  async #lookup(host: string, type: number): Promise<string[]> {
    const url = `${this.endpoint}?name=${encodeURIComponent(host)}&type=${type === A ? "A" : "AAAA"}`;
    const res = await this.http(
      new Request(url, { headers: { accept: "application/dns-json" }, signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) }),
    );
    if (!res.ok) throw new Error(`resolver answered HTTP ${res.status}`);
    const body = (await res.json()) as DnsJson;
    // 0 NOERROR, 3 NXDOMAIN: both are answers; anything else (SERVFAIL, REFUSED) is not.
    if (body.Status !== 0 && body.Status !== 3) throw new Error(`resolver status ${body.Status}`);
    return (body.Answer ?? []).flatMap((r) => (r.type === type && typeof r.data === "string" ? [r.data] : []));
  }
}
