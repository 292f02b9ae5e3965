/**
 * Webhook signatures. HMAC-SHA256 over the raw body bytes (never a re-serialised parse), checked
 * with WebCrypto's `verify`, which compares in constant time, so the check leaks no prefix length.
 *
 * - generic (PaperGuru's own, Stripe-style): `X-PaperGuru-Signature: sha256=<hex>` over
 *   `<X-PaperGuru-Timestamp>.<raw body>`; the timestamp (unix seconds) must be within
 *   TIMESTAMP_TOLERANCE_S of the server clock, so a captured delivery cannot be replayed later.
 * - github: `X-Hub-Signature-256: sha256=<hex>` over the raw body (GitHub signs no timestamp; its
 *   replays are stopped by the X-GitHub-Delivery id, which is stored and deduplicated).
 */
import { type Failure, fail, ok, type Result } from "./errors";

/** 5 minutes, as Stripe and Slack use: covers clock skew and GitHub-style retries within a delivery. */
export const TIMESTAMP_TOLERANCE_S = 300;

const enc = new TextEncoder();

function hexToBytes(hex: string): Uint8Array | null {
  if (!/^[0-9a-f]*$/i.test(hex) || hex.length % 2 !== 0) return null;
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function bytesToHex(b: ArrayBuffer | Uint8Array): string {
  return [...(b instanceof Uint8Array ? b : new Uint8Array(b))].map((x) => x.toString(16).padStart(2, "0")).join("");
}

async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
    "verify",
  ]);
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** `sha256=<hex>` signature of bytes (what a sender computes; used by tests, the CLI and docs). */
export async function signBytes(secret: string, data: Uint8Array): Promise<string> {
  const sig = await crypto.subtle.sign("HMAC", await hmacKey(secret), data);
  return `sha256=${bytesToHex(sig)}`;
}

/** The generic webhook's signed payload: `<timestamp>.<raw body>`. */
export function genericSignedPayload(timestamp: string, raw: Uint8Array): Uint8Array {
  return concat(enc.encode(`${timestamp}.`), raw);
}

async function verifyHeader(
  secret: string,
  header: string | null,
  data: Uint8Array,
  field: string,
): Promise<Failure | null> {
  if (!header)
    return fail("unauthorized", `missing ${field} header`, field, "sign the raw body with the webhook secret").error;
  const m = /^sha256=([0-9a-fA-F]{64})$/.exec(header.trim());
  const bytes = m?.[1] ? hexToBytes(m[1]) : null;
  if (!bytes)
    return fail("unauthorized", `${field} must be sha256=<64 hex digits>`, field, "HMAC-SHA256, hex-encoded").error;
  const good = await crypto.subtle.verify("HMAC", await hmacKey(secret), bytes, data);
  return good
    ? null
    : fail(
        "unauthorized",
        "signature does not match the body",
        field,
        "sign the exact raw body bytes with this webhook's secret (HMAC-SHA256)",
      ).error;
}

export async function verifyGeneric(
  secret: string,
  headers: { signature: string | null; timestamp: string | null },
  raw: Uint8Array,
  nowMs: number,
): Promise<Result<void>> {
  const ts = headers.timestamp;
  if (!ts)
    return fail(
      "unauthorized",
      "missing X-PaperGuru-Timestamp header",
      "X-PaperGuru-Timestamp",
      "send the unix time in seconds and sign `<timestamp>.<body>`",
    );
  if (!/^\d{9,11}$/.test(ts))
    return fail("validation", "X-PaperGuru-Timestamp must be unix seconds", "X-PaperGuru-Timestamp", "e.g. 1767225600");
  const bad = await verifyHeader(secret, headers.signature, genericSignedPayload(ts, raw), "X-PaperGuru-Signature");
  if (bad) return { ok: false, error: bad };
  // Checked after the signature, so an attacker cannot probe the window without the secret.
  const skew = Math.abs(nowMs / 1000 - Number(ts));
  if (skew > TIMESTAMP_TOLERANCE_S)
    return fail(
      "unauthorized",
      `stale timestamp: ${Math.round(skew)} s from the server clock (tolerance ${TIMESTAMP_TOLERANCE_S} s)`,
      "X-PaperGuru-Timestamp",
      "sign with the current time; replays of old deliveries are refused",
    );
  return ok(undefined);
}

export async function verifyGithub(secret: string, signature: string | null, raw: Uint8Array): Promise<Result<void>> {
  const bad = await verifyHeader(secret, signature, raw, "X-Hub-Signature-256");
  return bad ? { ok: false, error: bad } : ok(undefined);
}
