import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  genericSignedPayload,
  signBytes,
  TIMESTAMP_TOLERANCE_S,
  verifyGeneric,
  verifyGithub,
} from "../../src/core/signatures";

const enc = new TextEncoder();

describe("webhook signatures", () => {
  it("GitHub: matches GitHub's documented test vector", async () => {
    // docs.github.com "Validating webhook deliveries": secret "It's a Secret to Everybody",
    // payload "Hello, World!" -> this signature.
    const sig = await signBytes("It's a Secret to Everybody", enc.encode("Hello, World!"));
    expect(sig).toBe("sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17");
    expect((await verifyGithub("It's a Secret to Everybody", sig, enc.encode("Hello, World!"))).ok).toBe(true);
  });

  it("property: any change to the body, the secret or the timestamp fails verification", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ maxLength: 300 }),
        fc.string({ minLength: 16 }),
        fc.nat(255),
        async (body, secret, flip) => {
          const now = 1_767_225_600_000;
          const ts = String(now / 1000);
          const sig = await signBytes(secret, genericSignedPayload(ts, body));
          expect((await verifyGeneric(secret, { signature: sig, timestamp: ts }, body, now)).ok).toBe(true);
          const tampered = new Uint8Array([...body, flip]);
          expect((await verifyGeneric(secret, { signature: sig, timestamp: ts }, tampered, now)).ok).toBe(false);
          expect((await verifyGeneric(`${secret}x`, { signature: sig, timestamp: ts }, body, now)).ok).toBe(false);
          const other = String(now / 1000 + 1);
          expect((await verifyGeneric(secret, { signature: sig, timestamp: other }, body, now)).ok).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("generic: refuses stale or future timestamps and names the header", async () => {
    const body = enc.encode('{"artifacts":[]}');
    const now = Date.now();
    for (const skew of [TIMESTAMP_TOLERANCE_S + 5, -(TIMESTAMP_TOLERANCE_S + 5)]) {
      const ts = String(Math.floor(now / 1000) - skew);
      const sig = await signBytes("a-secret-of-16-chars", genericSignedPayload(ts, body));
      const r = await verifyGeneric("a-secret-of-16-chars", { signature: sig, timestamp: ts }, body, now);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error).toMatchObject({ kind: "unauthorized", field: "X-PaperGuru-Timestamp" });
    }
    const missing = await verifyGeneric(
      "a-secret-of-16-chars",
      { signature: null, timestamp: String(Math.floor(now / 1000)) },
      body,
      now,
    );
    expect(!missing.ok && missing.error.field).toBe("X-PaperGuru-Signature");
    const malformed = await verifyGithub("s", "sha1=abc", body);
    expect(!malformed.ok && malformed.error.message).toMatch(/sha256=/);
  });
});
