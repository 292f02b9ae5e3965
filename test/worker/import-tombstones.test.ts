/**
 * Every import path honours tombstones (src/app/intake/tombstones.ts): a JSON dump taken before a
 * hard delete, re-imported (format=archive), re-creates nothing (the chunk stays 404, /context does
 * not serve it, the answer lists it skipped, its citer counts as present); so do feed JSON, JSON Lines
 * and BibTeX re-imports. With recreate_deleted=true each creates the id again and the deletions audit
 * shows `recreated` by the caller.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const SECRET = "Quillfeather zephyr lantern protocol";

interface ImportAnswer {
  counts: { created: number; skipped: number; failed: number; unchanged: number };
  items: Array<{ id: string; status: string }>;
  failures: Array<{ id: string; message: string }>;
  skipped: Array<{ ref: string; reason: string }>;
  recreated?: string[];
}

async function raw(method: string, path: string, key: string, body?: string) {
  const res = await WORKER.fetch(`http://paperguru.test${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    ...(body === undefined ? {} : { body }),
  });
  return { status: res.status, text: await res.text() };
}

async function importAs(archive: string, key: string, format: string, body: string, recreate = false) {
  const q = `format=${format}&name=f.${format}${recreate ? "&recreate_deleted=true" : ""}`;
  const r = await raw("POST", `/v1/archives/${archive}/import?${q}`, key, body);
  expect(r.status, r.text).toBe(200);
  return JSON.parse(r.text) as ImportAnswer;
}

async function exists(archive: string, key: string, chunk: string): Promise<boolean> {
  const r = await api("GET", `/v1/archives/${archive}/chunks/${encodeURIComponent(chunk)}`, undefined, key);
  expect([200, 404]).toContain(r.status);
  return r.status === 200;
}

async function forget(archive: string, key: string, chunk: string) {
  const r = await api("DELETE", `/v1/archives/${archive}/chunks?chunk=${encodeURIComponent(chunk)}`, undefined, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

async function recreatedOf(archive: string, key: string, chunk: string) {
  const audit = await api("GET", `/v1/archives/${archive}/deletions`, undefined, key);
  expect(audit.status).toBe(200);
  const rows = audit.body.deletions as Array<{ target_id: string; recreated: { at: string; by: string } | null }>;
  const row = rows.find((r) => r.target_id === chunk);
  expect(row, JSON.stringify(rows)).toBeDefined();
  return row?.recreated ?? null;
}

async function contextText(archive: string, key: string, query: string): Promise<string> {
  const r = await api("POST", `/v1/archives/${archive}/context`, { query, budget_tokens: 2000 }, key);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return JSON.stringify(r.body);
}

const note = (id: string, content: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "note",
  title: `Note ${id}`,
  content,
  ...extra,
});

describe("imports honour tombstones", () => {
  it("a dump taken before a delete re-creates nothing; recreate_deleted=true re-creates it, audited", async () => {
    const { id, key } = await newArchive("itomb-dump");
    const ing = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          note("note:secret", `The ${SECRET} keeps the vault keys rotated weekly.`, {
            entities: [{ type: "method", id: "method:quillfeather-rotation", name: "Quillfeather Rotation" }],
          }),
          note("note:cites", "Key rotation follows the vault note.", {
            edges: [{ type: "cites", target: "note:secret" }],
          }),
          note("note:other", "Unrelated: the cafeteria opens at eight."),
        ],
      },
      key,
    );
    expect(ing.status, JSON.stringify(ing.body)).toBe(200);
    // An entity operation on an entity only the deleted chunk names: the dump carries it as a step.
    const alias = await api(
      "POST",
      `/v1/archives/${id}/entities/alias`,
      { entity: "method:quillfeather-rotation", alias: "QF rotation" },
      key,
    );
    expect(alias.status, JSON.stringify(alias.body)).toBeLessThan(300);
    const dump = await raw("GET", `/v1/archives/${id}/export?format=json`, key);
    expect(dump.status).toBe(200);
    expect(dump.text).toContain(SECRET);

    await forget(id, key, "note:secret");
    expect(await exists(id, key, "note:secret")).toBe(false);

    for (let round = 0; round < 2; round++) {
      const res = await importAs(id, key, "archive", dump.text);
      expect(res.counts.created, JSON.stringify(res)).toBe(0);
      expect(res.failures, JSON.stringify(res)).toEqual([]);
      expect(res.skipped.map((s) => s.ref)).toEqual(["note:secret"]);
      expect(res.skipped[0]?.reason).toMatch(/hard-deleted/);
      expect(res.counts.skipped).toBeGreaterThanOrEqual(1);
      expect(res.recreated).toBeUndefined();
      // The citer the delete rewrote (its edge to the deleted id dropped) counts as present.
      expect(res.items.map((i) => i.id)).not.toContain("note:secret");
      expect(await exists(id, key, "note:secret")).toBe(false);
      expect(await contextText(id, key, SECRET)).not.toContain("vault keys rotated");
      expect(await recreatedOf(id, key, "note:secret")).toBeNull();
      // The entity forgotten with it is not made again by the dump's alias operation.
      const ent = await api("GET", `/v1/archives/${id}/entities/method%3Aquillfeather-rotation`, undefined, key);
      expect(ent.status, JSON.stringify(ent.body)).toBe(404);
    }
    // No edge names the deleted id again.
    const hist = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent("note:cites")}`, undefined, key);
    expect(JSON.stringify(hist.body)).not.toContain("note:secret");

    // The explicit flag re-creates it; the audit row records by whom.
    const back = await importAs(id, key, "archive", dump.text, true);
    expect(back.counts.created, JSON.stringify(back)).toBe(1);
    expect(back.recreated).toEqual(["note:secret"]);
    expect(back.skipped.map((s) => s.ref)).not.toContain("note:secret");
    expect(back.failures, JSON.stringify(back)).toEqual([]);
    expect(await exists(id, key, "note:secret")).toBe(true);
    expect((await recreatedOf(id, key, "note:secret"))?.by).toMatch(/^key:/);
    expect(await contextText(id, key, SECRET)).toContain("vault keys rotated");
    const ent = await api("GET", `/v1/archives/${id}/entities/method%3Aquillfeather-rotation`, undefined, key);
    expect(ent.status, JSON.stringify(ent.body)).toBe(200);
  });

  it("feed JSON and JSON Lines re-imports skip a deleted id; recreate_deleted=true re-creates it", async () => {
    const { id, key } = await newArchive("itomb-feed");
    const feed = JSON.stringify({
      artifacts: [
        note("note:jfeed", "Delivered in a feed file."),
        note("note:jlink", "Links to it.", { edges: [{ type: "cites", target: "note:jfeed" }] }),
      ],
    });
    const lines = `${JSON.stringify(note("note:jline", "Delivered as a JSON line."))}\n${JSON.stringify(note("note:jline2", "Another line."))}\n`;
    expect((await importAs(id, key, "json", feed)).counts.created).toBe(2);
    expect((await importAs(id, key, "json", lines)).counts.created).toBe(2);
    await forget(id, key, "note:jfeed");
    await forget(id, key, "note:jline");

    const a = await importAs(id, key, "json", feed);
    expect(a.skipped.map((s) => s.ref)).toEqual(["note:jfeed"]);
    expect(a.counts.created).toBe(0);
    const b = await importAs(id, key, "json", lines);
    expect(b.skipped.map((s) => s.ref)).toEqual(["note:jline"]);
    expect(b.counts.skipped).toBe(1);
    expect(await exists(id, key, "note:jfeed")).toBe(false);
    expect(await exists(id, key, "note:jline")).toBe(false);

    const c = await importAs(id, key, "json", feed, true);
    expect(c.recreated).toEqual(["note:jfeed"]);
    expect(c.skipped).toEqual([]);
    const d = await importAs(id, key, "json", lines, true);
    expect(d.recreated).toEqual(["note:jline"]);
    expect(await exists(id, key, "note:jfeed")).toBe(true);
    expect(await exists(id, key, "note:jline")).toBe(true);
    expect((await recreatedOf(id, key, "note:jfeed"))?.by).toMatch(/^key:/);
    expect((await recreatedOf(id, key, "note:jline"))?.by).toMatch(/^key:/);
  });

  it("a BibTeX re-import skips the deleted paper (its id derived from the entry); recreate_deleted=true brings it back", async () => {
    const { id, key } = await newArchive("itomb-bib");
    const bib = `@article{gutierrez2024hipporag,
  title = {HippoRAG: Neurobiologically Inspired Long-Term Memory for Large Language Models},
  author = {Guti{\\'e}rrez, Bernal Jim{\\'e}nez and Shu, Yiheng},
  eprint = {2405.14831},
  archivePrefix = {arXiv},
  year = {2024}
}
@article{santhanam2022colbertv2,
  title = {ColBERTv2: Effective and Efficient Retrieval via Lightweight Late Interaction},
  author = {Santhanam, Keshav},
  doi = {10.18653/v1/2022.naacl-main.272},
  year = {2022}
}
`;
    const first = await importAs(id, key, "bibtex", bib);
    expect(first.counts.created, JSON.stringify(first)).toBe(2);
    const paper = first.items.find((i) => /hipporag|2405\.14831/i.test(i.id))?.id;
    expect(paper, JSON.stringify(first.items)).toBeDefined();
    const pid = paper as string;
    await forget(id, key, pid);

    const again = await importAs(id, key, "bibtex", bib);
    expect(again.skipped.map((s) => s.ref)).toEqual([pid]);
    expect(again.counts.created).toBe(0);
    expect(await exists(id, key, pid)).toBe(false);
    expect(await recreatedOf(id, key, pid)).toBeNull();

    const back = await importAs(id, key, "bibtex", bib, true);
    expect(back.recreated).toEqual([pid]);
    expect(await exists(id, key, pid)).toBe(true);
    expect((await recreatedOf(id, key, pid))?.by).toMatch(/^key:/);
  });

  it("a Markdown re-import skips the deleted paper too (every parsed format goes through one rule)", async () => {
    const { id, key } = await newArchive("itomb-md");
    const md =
      "---\ntitle: Ward Rotas Considered\ndate: 2024-03-01\n---\n\n# Ward Rotas Considered\n\nNight visits rotate weekly among the staff.\n";
    const first = await importAs(id, key, "markdown", md);
    expect(first.counts.created, JSON.stringify(first)).toBeGreaterThanOrEqual(1);
    const ids = first.items.filter((i) => i.status === "created").map((i) => i.id);
    for (const c of ids) await forget(id, key, c);
    const again = await importAs(id, key, "markdown", md);
    expect(again.counts.created, JSON.stringify(again)).toBe(0);
    expect(again.skipped.map((s) => s.ref).sort()).toEqual([...ids].sort());
    for (const c of ids) expect(await exists(id, key, c)).toBe(false);
  });
});
