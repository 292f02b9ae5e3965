/** The typed client reads its own writes: it sends the newest bookmark its writes got as `after`. */
import { describe, expect, it } from "vitest";
import { PaperGuruClient } from "../../src/client";

describe("typed client bookmarks", () => {
  it("sends the newest write's bookmark on route and context, per archive, unless the body has one", async () => {
    const sent: Array<{ path: string; body: Record<string, unknown> }> = [];
    let next = 40;
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const path = new URL(String(input)).pathname;
      const body = JSON.parse(String(init?.body ?? "{}")) as Record<string, unknown>;
      sent.push({ path, body });
      const answer = path.endsWith("/ingest")
        ? { results: [], counts: { created: 0, updated: 0, unchanged: 0 }, recorded_at: "", bookmark: String(next++) }
        : {
            as_of: "",
            candidates: [],
            selected: [],
            freshness: { applied: "0", after: null, reached: true, waited_ms: 0 },
          };
      return new Response(JSON.stringify(answer), { status: 200, headers: { "content-type": "application/json" } });
    };
    const pg = new PaperGuruClient("http://pg.test", "k", { fetch });
    await pg.route("a", { query: "q" });
    expect(sent.at(-1)?.body.after).toBeUndefined();
    await pg.ingest("a", { artifacts: [{ id: "n", kind: "note", title: "t", content: "c" }] });
    await pg.ingest("a", { artifacts: [{ id: "n", kind: "note", title: "t", content: "d" }] });
    expect(pg.bookmark("a")).toBe("41");
    await pg.route("a", { query: "q" });
    expect(sent.at(-1)?.body.after).toBe("41");
    await pg.context("a", { query: "q", budget_tokens: 500 });
    expect(sent.at(-1)?.body.after).toBe("41");
    await pg.route("a", { query: "q", after: "7" });
    expect(sent.at(-1)?.body.after).toBe("7");
    await pg.route("b", { query: "q" });
    expect(sent.at(-1)?.body.after).toBeUndefined();
  });
});
