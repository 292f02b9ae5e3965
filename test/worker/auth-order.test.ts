/** The key is checked before anything else is looked at; responses are neither sniffed nor cached. */

import { describe, expect, it } from "vitest";
import { ADMIN, api, newArchive } from "./helpers";
import { WORKER } from "./worker";

describe("order of checks and response headers", () => {
  it("answers 401 to a request without a valid key before validating its body", async () => {
    const { id } = await newArchive("ord");
    for (const key of [null, "pgk_not-a-key"]) {
      const res = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: "not an array" }, key);
      expect(res.status).toBe(401);
      expect(JSON.stringify(res.body)).not.toMatch(/artifacts/);
      const notJson = await api("POST", `/v1/archives/${id}/route`, "{not json", key);
      expect(notJson.status).toBe(401);
    }
  });

  it("admin routes answer an unknown key with 401 and an archive key with 403", async () => {
    const { key } = await newArchive("adm");
    expect((await api("GET", "/v1/archives", undefined, "pgk_unknown")).status).toBe(401);
    expect((await api("GET", "/v1/archives", undefined, key)).status).toBe(403);
    expect((await api("GET", "/v1/archives", undefined, ADMIN)).status).toBe(200);
  });

  it("sets no-store on API responses (secrets are shown once) and nosniff on every response", async () => {
    const res = await WORKER.fetch("http://paperguru.test/v1/archives", {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "headers" }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const health = await WORKER.fetch("http://paperguru.test/healthz");
    expect(health.headers.get("x-content-type-options")).toBe("nosniff");
  });
});
