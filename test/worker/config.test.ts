import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import worker from "../../src/index";

describe("a misconfigured deployment", () => {
  it("answers 503 naming the variable, its value and the allowed values, on REST and MCP", async () => {
    const bad = { ...env, EMBEDDER: "workers_ai" } as unknown as typeof env;
    for (const path of ["/v1/archives", "/mcp"]) {
      const res = await worker.fetch(
        new Request(`http://paperguru.test${path}`, { method: "POST", headers: { authorization: "Bearer x" } }),
        bad,
        createExecutionContext(),
      );
      expect(res.status).toBe(503);
      const body = (await res.json()) as { error: { type: string; message: string } };
      expect(body.error.type).toBe("unavailable");
      expect(body.error.message).toContain('EMBEDDER="workers_ai" is not one of: local, workers-ai');
    }
    // The real configuration still serves.
    const ok = await worker.fetch(new Request("http://paperguru.test/healthz"), env, createExecutionContext());
    expect(ok.status).toBe(200);
  });
});
