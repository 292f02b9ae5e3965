import { describe, expect, it } from "vitest";
import { retryAfter } from "../../src/app/intake/github";
import { retryDelaySeconds } from "../../src/app/lib/queue";

describe("backoff inputs", () => {
  const now = Date.parse("2026-11-23T00:00:00Z");
  it("reads Retry-After in seconds or as a date, and GitHub's exhausted quota", () => {
    expect(retryAfter(new Response(null, { status: 503, headers: { "retry-after": "120" } }), now)).toBe(120);
    expect(
      retryAfter(new Response(null, { status: 429, headers: { "retry-after": "Mon, 23 Nov 2026 00:10:00 GMT" } }), now),
    ).toBe(600);
    const github = new Response(null, {
      status: 403,
      headers: { "x-ratelimit-remaining": "0", "x-ratelimit-reset": String(now / 1000 + 1800) },
    });
    expect(retryAfter(github, now)).toBe(1800);
    expect(retryAfter(new Response(null, { status: 403, headers: { "x-ratelimit-remaining": "12" } }), now)).toBeNull();
    expect(retryAfter(new Response(null, { status: 500 }), now)).toBeNull();
  });

  it("retries deliveries after 10, 20, 40, 80 s, capped at 10 minutes", () => {
    expect([1, 2, 3, 4, 10].map(retryDelaySeconds)).toEqual([10, 20, 40, 80, 600]);
  });
});
