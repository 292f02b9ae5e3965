/**
 * A hard delete leaves a tombstone: a source run and a re-import of the same file do not bring the
 * chunk back (each reports it skipped), nor an edge to it; a webhook delivery that carried it loses
 * its raw body, so it cannot be replayed; an explicit POST /ingest creates it again, and the
 * deletions audit shows when and by whom.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { createWebhook, mockFetch, sendGeneric, waitDelivery } from "./world";

const note = (id: string, content: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "note",
  title: `Note ${id}`,
  content,
  ...extra,
});

async function exists(archive: string, key: string, chunk: string): Promise<boolean> {
  const r = await api("GET", `/v1/archives/${archive}/chunks/${encodeURIComponent(chunk)}`, undefined, key);
  return r.status === 200;
}

async function forget(archive: string, key: string, chunk: string) {
  const r = await api("DELETE", `/v1/archives/${archive}/chunks?chunk=${encodeURIComponent(chunk)}`, undefined, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

describe("deleted chunks stay deleted under automation", () => {
  it("replays, source runs and re-imports skip a deleted id; an explicit ingest creates it again", async () => {
    const { id, key } = await newArchive("tomb");

    // A webhook delivery creates note:hook; after the delete, replaying that delivery does not.
    const secret = await createWebhook(id, "feed", "generic");
    const sent = await sendGeneric(
      id,
      "feed",
      secret,
      { artifacts: [note("note:hook", "Delivered by a hook."), note("note:kept", "Also delivered.")] },
      { delivery: "h1" },
    );
    expect(sent.status).toBe(202);
    expect(await waitDelivery(id, key, "feed", "h1")).toMatchObject({ status: "ingested", result: { created: 2 } });
    await forget(id, key, "note:hook");
    // The delivery's raw body carried the deleted chunk: it is gone, so the delivery cannot be replayed.
    const replay = await api("POST", `/v1/archives/${id}/webhooks/feed/deliveries/h1/replay`, undefined, key);
    expect(replay.status, JSON.stringify(replay.body)).toBe(409);
    expect(replay.body.error.message).toMatch(/raw body was removed by a hard delete/);
    expect(await exists(id, key, "note:hook")).toBe(false);
    expect(await exists(id, key, "note:kept")).toBe(true);
    const bodies = await env.CONTENT.list({ prefix: `archives/${id}/webhooks/feed/` });
    expect(bodies.objects).toEqual([]);

    // A source whose feed still (or again) lists note:src.
    let feed = [note("note:src", "From the feed."), note("note:cites", "Cites it.", { edges: [] })];
    mockFetch({ "https://feeds.example.org/": () => Response.json({ artifacts: feed }) });
    const src = await api(
      "POST",
      `/v1/archives/${id}/sources`,
      { kind: "url", location: "https://feeds.example.org/a.json" },
      key,
    );
    expect(src.status, JSON.stringify(src.body)).toBe(201);
    const run = async () => {
      const r = await api("POST", `/v1/archives/${id}/sources/${src.body.id}/run`, undefined, key);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body;
    };
    expect((await run()).run.status).toBe("ok");
    await forget(id, key, "note:src");
    feed = [
      note("note:src", "From the feed, changed."),
      note("note:cites", "Cites it, changed.", { edges: [{ type: "cites", target: "note:src" }] }),
    ];
    const again = await run();
    expect(again.run.status, JSON.stringify(again)).toBe("ok");
    expect(await exists(id, key, "note:src")).toBe(false);
    // The edge to the deleted id is dropped with it: no row names it.
    const edges = await env.DB.prepare("SELECT COUNT(*) AS n FROM edges WHERE archive_id = ? AND dst = ?")
      .bind(id, "note:src")
      .first<{ n: number }>();
    expect(edges?.n).toBe(0);

    // A re-import of the same file.
    const file = JSON.stringify({ artifacts: [note("note:imp", "Imported from a file.")] });
    const imp = () =>
      api("POST", `/v1/archives/${id}/import?format=json&name=notes.json`, file, key).then((r) => {
        expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
        return r.body;
      });
    await imp();
    await forget(id, key, "note:imp");
    const reimported = await imp();
    expect(JSON.stringify(reimported)).toContain("hard-deleted");
    expect(await exists(id, key, "note:imp")).toBe(false);

    // An explicit ingest creates the id again; the audit says when and by whom; automation applies again.
    const explicit = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      { artifacts: [note("note:imp", "Written again.")] },
      key,
    );
    expect(explicit.body.results[0]).toMatchObject({ id: "note:imp", status: "created", version: 1 });
    const audit = await api("GET", `/v1/archives/${id}/deletions`, undefined, key);
    const rows = audit.body.deletions as Array<{ target_id: string; recreated: { at: string; by: string } | null }>;
    expect(rows.find((r) => r.target_id === "note:imp")?.recreated?.by).toMatch(/^key:/);
    expect(rows.find((r) => r.target_id === "note:hook")?.recreated).toBeNull();
    await imp();
    expect(await exists(id, key, "note:imp")).toBe(true);
  });

  it("an id another explicit write made again (a new hub after its cascade delete) is live for automation", async () => {
    const { id, key } = await newArchive("tomb-hub");
    const ok = async (path: string, body: unknown) => {
      const r = await api("POST", `/v1/archives/${id}${path}`, body, key);
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      return r.body;
    };
    await ok("/ingest", {
      artifacts: [
        note("note:z", "Ward rota for night visits."),
        note("note:y", "Ward rota for day visits."),
        note("paper:q", "A survey of ward rotas.", {
          edges: [
            { type: "cites", target: "note:z" },
            { type: "cites", target: "note:y" },
          ],
        }),
      ],
    });
    await ok("/hubs/gather", { node: "paper:q", query: "ward rota visits" });
    await forget(id, key, "note:z");
    expect(await exists(id, key, "paper:q#hub")).toBe(false);
    await ok("/hubs/gather", { node: "paper:q", query: "ward rota visits" });
    expect(await exists(id, key, "paper:q#hub")).toBe(true);
    const file = JSON.stringify({ artifacts: [note("paper:q#hub", "A note filed under the hub's id.")] });
    const imp = await ok("/import?format=json&name=hub.json", file);
    expect(JSON.stringify(imp)).not.toContain("hard-deleted");
    const h = await api("GET", `/v1/archives/${id}/history?chunk=${encodeURIComponent("paper:q#hub")}`, undefined, key);
    expect(h.body.versions.length).toBeGreaterThanOrEqual(2);
  });

  it("audit rows are append-only: a second delete adds a row and the first keeps its re-creation", async () => {
    const { id, key } = await newArchive("tomb-audit");
    const ingest = async (content: string) => {
      const r = await api("POST", `/v1/archives/${id}/ingest`, { artifacts: [note("note:twice", content)] }, key);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    };
    type Row = { id: number; target_id: string; recreated: { at: string; by: string } | null };
    const audit = async (): Promise<Row[]> => {
      const r = await api("GET", `/v1/archives/${id}/deletions`, undefined, key);
      return (r.body.deletions as Row[]).filter((d) => d.target_id === "note:twice").sort((a, b) => a.id - b.id);
    };
    await ingest("First text.");
    await forget(id, key, "note:twice");
    await ingest("Second text.");
    const [first] = await audit();
    expect(first?.recreated?.by).toMatch(/^key:/);
    await forget(id, key, "note:twice");
    const twice = await audit();
    expect(twice).toHaveLength(2);
    expect(twice[0]).toEqual(first);
    expect(twice[1]?.recreated).toBeNull();
    // The second delete is the live one: automation skips the id again, and a third write re-creates it.
    expect(await exists(id, key, "note:twice")).toBe(false);
    await ingest("Third text.");
    const thrice = await audit();
    expect(thrice[0]).toEqual(first);
    expect(thrice[1]?.recreated?.by).toMatch(/^key:/);
  });
});
