/**
 * The Worker's configuration, read and validated once: the implementation each port uses and the
 * optional secrets. A typo is an error naming the variable, the value and the allowed values, never
 * a silent fallback to the local implementation.
 */

export const CHOICES = {
  EMBEDDER: ["local", "workers-ai"],
  VECTOR_INDEX: ["local", "vectorize", "none"],
  DISTILLER: ["extractive"],
} as const;

type Choice<K extends keyof typeof CHOICES> = (typeof CHOICES)[K][number];

export interface Config {
  embedder: Choice<"EMBEDDER">;
  vectorIndex: Choice<"VECTOR_INDEX">;
  distiller: Choice<"DISTILLER">;
  adminKey: string | null;
  githubToken: string | null;
  contactEmail: string | null;
  /** Hosts outbound fetches may reach although not public (local development only). */
  allowHosts: string[];
  /** DNS-over-HTTPS endpoint (JSON) that outbound hosts are resolved with; null: names only. */
  dnsResolver: string | null;
}

/** The vars and the bindings the choices depend on (names as in wrangler.toml). */
export interface ConfigInput {
  EMBEDDER?: string | undefined;
  VECTOR_INDEX?: string | undefined;
  DISTILLER?: string | undefined;
  ADMIN_KEY?: string | undefined;
  GITHUB_TOKEN?: string | undefined;
  CONTACT_EMAIL?: string | undefined;
  OUTBOUND_ALLOW_HOSTS?: string | undefined;
  DNS_RESOLVER?: string | undefined;
  AI?: unknown;
  VECTORS?: unknown;
}

export class ConfigError extends Error {}

function choose<K extends keyof typeof CHOICES>(env: ConfigInput, key: K): Choice<K> {
  const allowed = CHOICES[key] as readonly string[];
  const value = env[key];
  if (value === undefined || value === "") return allowed[0] as Choice<K>;
  if (!allowed.includes(value))
    throw new ConfigError(
      `${key}=${JSON.stringify(value)} is not one of: ${allowed.join(", ")} (set it in wrangler.toml [vars])`,
    );
  return value as Choice<K>;
}

const optional = (v: string | undefined) => (v === undefined || v === "" ? null : v);

/** Cloudflare's public resolver, JSON form. */
export const DEFAULT_DNS_RESOLVER = "https://cloudflare-dns.com/dns-query";

function dnsResolver(v: string | undefined): string | null {
  if (v === undefined || v === "") return DEFAULT_DNS_RESOLVER;
  if (v === "none") return null;
  let u: URL | null = null;
  try {
    u = new URL(v);
  } catch {
    u = null;
  }
  if (u?.protocol !== "https:")
    throw new ConfigError(
      `DNS_RESOLVER=${JSON.stringify(v)} is not an https URL of a DNS-over-HTTPS JSON endpoint (e.g. ${DEFAULT_DNS_RESOLVER}) or "none"`,
    );
  return v;
}

/** The validated configuration, or a ConfigError naming the variable at fault. */
export function readConfig(env: ConfigInput): Config {
  const config: Config = {
    embedder: choose(env, "EMBEDDER"),
    vectorIndex: choose(env, "VECTOR_INDEX"),
    distiller: choose(env, "DISTILLER"),
    adminKey: optional(env.ADMIN_KEY),
    githubToken: optional(env.GITHUB_TOKEN),
    contactEmail: optional(env.CONTACT_EMAIL),
    allowHosts: (env.OUTBOUND_ALLOW_HOSTS ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    dnsResolver: dnsResolver(env.DNS_RESOLVER),
  };
  if (config.embedder === "workers-ai" && !env.AI)
    throw new ConfigError("EMBEDDER=workers-ai needs the AI binding (declared in env.production of wrangler.toml)");
  if (config.vectorIndex === "vectorize" && !env.VECTORS)
    throw new ConfigError(
      "VECTOR_INDEX=vectorize needs the VECTORS binding (declared in env.production of wrangler.toml)",
    );
  return config;
}
