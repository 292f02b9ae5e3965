/**
 * REST refuses fields it does not know (src/http/strict.ts): a misspelled `asOf` used to answer as
 * of now and `budget` with the default budget. Every operation is covered by the OpenAPI-driven
 * test in openapi-fuzz.test.ts; these are the cases an agent meets, with the names they suggest.
 */
import { describe, expect, it } from "vitest";
import { closestName } from "../../src/http/strict";
import { api, newArchive } from "./helpers";

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
