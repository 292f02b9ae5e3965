/**
 * REST refuses fields it does not know (src/http/strict.ts): a misspelled `asOf` used to answer as
 * of now and `budget` with the default budget. Every operation is covered by the OpenAPI-driven
 * test in openapi-fuzz.test.ts; these are the cases an agent meets, with the names they suggest.
 */
import { describe, expect, it } from "vitest";
import { closestName } from "../../src/http/strict";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

describe("strict requests", () => {
  it("names an unknown body field and the known name it was likely meant to be", async () => {
    const a = await newArchive("strict");
    const asOf = await api("POST", `/v1/archives/${a.id}/context`, { query: "HippoRAG", asOf: "2024-01-01" }, a.key);
    expect(asOf.status).toBe(400);
    expect(asOf.body.error.field).toBe("asOf");
    expect(asOf.body.error.message).toContain("did you mean as_of?");
    expect(asOf.body.error.hint).toContain("send as_of instead of asOf");

    const budget = await api("POST", `/v1/archives/${a.id}/context`, { query: "HippoRAG", budget: 500 }, a.key);
    expect(budget.status).toBe(400);
    expect(budget.body.error.field).toBe("budget");
    // Too far from any name to guess: the hint lists what the body takes.
    expect(budget.body.error.hint).toContain("budget_tokens");
  });

  it("finds unknown fields at any depth, and stores nothing of a refused batch", async () => {
    const a = await newArchive("strict");
    const r = await api(
      "POST",
      `/v1/archives/${a.id}/ingest`,
      {
        artifacts: [
          { id: "note:a", kind: "note", title: "A", content: "Alpha." },
          { id: "note:b", kind: "note", title: "B", content: "Beta.", valid_form: "2024-01-01" },
        ],
      },
      a.key,
    );
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe("artifacts.1.valid_form");
    expect(r.body.error.message).toContain("did you mean valid_from?");
    expect((await api("GET", `/v1/archives/${a.id}/chunks/note%3Aa`, undefined, a.key)).status).toBe(404);

    const nested = await api(
      "POST",
      `/v1/archives/${a.id}/route`,
      { query: "alpha", filter: { kind: ["note"] } },
      a.key,
    );
    expect(nested.status).toBe(400);
    expect(nested.body.error.field).toBe("filter.kind");
    expect(nested.body.error.message).toContain("did you mean kinds?");
  });

  it("refuses an unknown query parameter, and keeps the documented camelCase kernel parameters", async () => {
    const a = await newArchive("strict");
    const q = await api("GET", `/v1/archives/${a.id}/chunks?limt=5`, undefined, a.key);
    expect(q.status).toBe(400);
    expect(q.body.error.field).toBe("limt");
    expect(q.body.error.message).toContain("did you mean limit?");

    const id = `strict-params-${Date.now().toString(36)}`;
    const made = await api("POST", "/v1/archives", { id, name: id, params: { topM: 256 } });
    expect(made.status).toBe(201);
    const wrong = await api("POST", "/v1/archives", { id: `${id}-2`, name: id, params: { top_mm: 256 } });
    expect(wrong.status).toBe(400);
  });

  it("suggests a name only when it is close", () => {
    expect(closestName("asOf", ["query", "as_of", "budget_tokens"])).toBe("as_of");
    expect(closestName("valid_form", ["valid_from", "valid_to"])).toBe("valid_from");
    expect(closestName("budget", ["query", "as_of", "budget_tokens"])).toBeNull();
    expect(closestName("x", [])).toBeNull();
  });
});

describe("errors that say the expected format", () => {
  it("a malformed as_of names the field and the formats it takes", async () => {
    const a = await newArchive("asof");
    const r = await api("POST", `/v1/archives/${a.id}/context`, { query: "owls", as_of: "yesterday" }, a.key);
    expect(r.status).toBe(400);
    expect(r.body.error.field).toBe("as_of");
    expect(r.body.error.message).toContain("ISO 8601 date (2024-05-23) or date-time");
  });

  it("a JSON body sent without its content-type says to set the header", async () => {
    const a = await newArchive("ctype");
    const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${a.id}/context`, {
      method: "POST",
      headers: { authorization: `Bearer ${a.key}` },
      body: JSON.stringify({ query: "owls" }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { field?: string; hint?: string } };
    expect(body.error.field).toBe("content-type");
    expect(body.error.hint).toContain("content-type: application/json");
  });
});

describe("methods and paths an agent guesses", () => {
  it("a route's path asked with another method is a 405 with Allow, an unknown path a 404", async () => {
    const a = await newArchive("method");
    const get = await api("GET", `/v1/archives/${a.id}/context`, undefined, a.key);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(get.body.error.type).toBe("method_not_allowed");
    expect(get.body.error.message).toContain("takes POST");
    // A path with several methods lists them all (GET brings HEAD).
    const put = await api("PUT", `/v1/archives/${a.id}/chunks/note%3Ax`, {}, a.key);
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, DELETE");
    expect((await api("GET", `/v1/archives/${a.id}/no-such-thing`, undefined, a.key)).status).toBe(404);
  });

  it("DELETE …/chunks/{id} deletes as DELETE …/chunks?chunk= does", async () => {
    const a = await newArchive("bypath");
    const note = { id: "note:a/b", kind: "note", title: "Gone", content: "The owl roosts in the Kestrel tower." };
    expect((await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: [note] }, a.key)).status).toBe(200);
    const path = `/v1/archives/${a.id}/chunks/${encodeURIComponent(note.id)}`;
    expect((await api("GET", path, undefined, a.key)).status).toBe(200);
    const gone = await api("DELETE", path, undefined, a.key);
    expect(gone.status).toBe(200);
    expect((await api("GET", path, undefined, a.key)).status).toBe(404);
    expect((await api("DELETE", path, undefined, a.key)).status).toBe(404);
  });
});
