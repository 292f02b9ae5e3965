import { describe, expect, it } from "vitest";
import { miniArtifacts } from "../fixtures/mini";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

describe("service surface", () => {
  it("serves /healthz and an OpenAPI 3.1 document generated from the schemas", async () => {
    const h = await api("GET", "/healthz", undefined, null);
    expect(h.body).toMatchObject({ ok: true });
    const doc = await api("GET", "/openapi.json", undefined, null);
    expect(doc.body.openapi).toBe("3.1.0");
    const paths = Object.keys(doc.body.paths);
    for (const p of ["ingest", "route", "expand", "context", "verify", "deprecate", "history"]) {
      expect(paths).toContain(`/v1/archives/{archive}/${p}`);
    }
    expect(doc.body.components.schemas.Artifact).toBeDefined();
    expect(doc.body.components.schemas.EvidenceCard).toBeDefined();
  });

  it("serves the explorer at / and /explore: same-origin script and style only, links for readers without script", async () => {
    for (const path of ["/", "/explore"]) {
      const r = await WORKER.fetch(`http://paperguru.test${path}`);
      expect(r.status).toBe(200);
      expect(r.headers.get("content-type")).toMatch(/^text\/html/);
      const csp = r.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
      const html = await r.text();
      for (const link of ['href="/docs"', 'href="/openapi.json"', "/mcp", 'href="/healthz"'])
        expect(html).toContain(link);
      expect(html).not.toMatch(/<script>|https?:\/\/(?!127)/);
      const js = /src="(\/explore\/app\.js\?v=[0-9a-f]{16})" integrity="sha256-([^"]+)"/.exec(html);
      expect(js).not.toBeNull();
      const asset = await WORKER.fetch(`http://paperguru.test${js?.[1]}`);
      expect(asset.headers.get("cache-control")).toContain("immutable");
      const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(await asset.text()));
      expect(btoa(String.fromCharCode(...new Uint8Array(digest)))).toBe(js?.[2]);
    }
  });

  it("GET /v1/whoami answers the calling key's archives and scopes, and 401 without a valid key", async () => {
    const { id, key } = await newArchive("who");
    const read = (await api("POST", `/v1/archives/${id}/keys`, { scopes: ["read"] })).body;
    const me = await api("GET", "/v1/whoami", undefined, key);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ admin: false, archives: [{ id, scopes: ["read", "write"] }] });
    expect(me.body.archives).toHaveLength(1);
    const ro = await api("GET", "/v1/whoami", undefined, read.secret);
    expect(ro.body).toMatchObject({ admin: false, key_id: read.id, archives: [{ id, scopes: ["read"] }] });
    const admin = await api("GET", "/v1/whoami");
    expect(admin.body.admin).toBe(true);
    expect(admin.body.archives.map((a: { id: string }) => a.id)).toContain(id);
    expect(admin.body.archives[0].scopes).toEqual(["read", "write", "admin"]);
    expect((await api("GET", "/v1/whoami", undefined, null)).status).toBe(401);
    expect((await api("GET", "/v1/whoami", undefined, "pgk_wrong")).status).toBe(401);
    await api("DELETE", `/v1/archives/${id}/keys/${read.id}`);
    const revoked = await api("GET", "/v1/whoami", undefined, read.secret);
    expect(revoked.status).toBe(401);
    expect(revoked.body.error.type).toBe("unauthorized");
  });

  it("answers unknown routes with the error format", async () => {
    const r = await api("GET", "/v2/nothing", undefined, null);
    expect(r.status).toBe(404);
    expect(r.body.error.type).toBe("not_found");
  });
});

describe("auth and isolation", () => {
  it("requires keys, enforces scopes, and revocation", async () => {
    const { id, key } = await newArchive("auth");
    expect((await api("POST", `/v1/archives/${id}/route`, { query: "x" }, null)).status).toBe(401);
    expect((await api("POST", `/v1/archives/${id}/route`, { query: "x" }, "pgk_wrong")).status).toBe(401);
    expect((await api("POST", "/v1/archives", { name: "nope" }, key)).status).toBe(403);
    const ro = await api("POST", `/v1/archives/${id}/keys`, { scopes: ["read"], label: "reader" });
    expect(ro.status).toBe(201);
    const roKey = ro.body.secret as string;
    expect((await api("POST", `/v1/archives/${id}/route`, { query: "x" }, roKey)).status).toBe(200);
    const denied = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [miniArtifacts[1]] }, roKey);
    expect(denied.status).toBe(403);
    expect(denied.body.error.message).toContain("write");
    const keys = await api("GET", `/v1/archives/${id}/keys`);
    expect(JSON.stringify(keys.body)).not.toContain(roKey);
    expect((await api("DELETE", `/v1/archives/${id}/keys/${ro.body.id}`)).status).toBe(200);
    expect((await api("POST", `/v1/archives/${id}/route`, { query: "x" }, roKey)).status).toBe(401);
    expect((await api("GET", "/v1/archives/does-not-exist")).status).toBe(404);
    const dupe = await api("POST", "/v1/archives", { id, name: "again" });
    expect(dupe.status).toBe(409);
    const badParams = await api("POST", "/v1/archives", { name: "p", params: { alpha: 1.5 } });
    expect(badParams.status).toBe(400);
    expect(badParams.body.error.field).toBe("params.alpha");
    // snake_case, and the camelCase names of before as an alias.
    const tuned = await api("POST", "/v1/archives", { name: "p", params: { push_epsilon: 1e-4, maxFrontier: 4096 } });
    expect(tuned.status).toBe(201);
    expect(tuned.body.archive.params).toEqual({ push_epsilon: 1e-4, max_frontier: 4096 });
    const stats = await api("GET", `/v1/archives/${tuned.body.archive.id}`, undefined, tuned.body.key.secret);
    expect(stats.body.stats.capital.params.push_epsilon).toBe(1e-4);
    expect(stats.body.stats.capital.params.max_frontier).toBe(4096);
    const hubs = await api("POST", "/v1/archives", { name: "p", params: { degree_exponent: 0.5 } });
    expect(hubs.status).toBe(201);
    const hubStats = await api("GET", `/v1/archives/${hubs.body.archive.id}`, undefined, hubs.body.key.secret);
    expect(hubStats.body.stats.capital.params.degree_exponent).toBe(0.5);
    const badHubs = await api("POST", "/v1/archives", { name: "p", params: { degree_exponent: 3 } });
    expect(badHubs.status).toBe(400);
    expect(badHubs.body.error.field).toBe("params.degree_exponent");
    const unknown = await api("POST", "/v1/archives", { name: "p", params: { top_n: 3 } });
    expect(unknown.status).toBe(400);
  });

  it("a key of one archive can neither read nor write another, and queries never cross archives", async () => {
    const a = await newArchive("iso-a");
    const b = await newArchive("iso-b");
    await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: miniArtifacts }, a.key);
    expect((await api("POST", `/v1/archives/${b.id}/route`, { query: "HippoRAG" }, a.key)).status).toBe(403);
    expect((await api("POST", `/v1/archives/${b.id}/ingest`, { artifacts: [miniArtifacts[0]] }, a.key)).status).toBe(
      403,
    );
    const rb = await api("POST", `/v1/archives/${b.id}/route`, { query: "HippoRAG PageRank arXiv:2405.14831" }, b.key);
    expect(rb.status).toBe(200);
    expect(rb.body.candidates).toEqual([]);
    const vb = await api(
      "POST",
      `/v1/archives/${b.id}/verify`,
      { anchors: [{ artifact_id: "arxiv:2405.14831", version: 1, start: 0, end: 8, snippet: "HippoRAG" }] },
      b.key,
    );
    expect(vb.body.results[0].reason).toBe("version_not_found");
  });
});
