/**
 * Long work gives the thread back (src/core/pace.ts). Locally the Worker, its Durable Objects and
 * the simulated D1 and R2 share one thread, and workerd takes a new request only when nothing
 * in-process is ready to run: an export reading page after page of local D1 and R2 held /healthz for
 * the whole export (9 s for 10,000 chunks). Here, against the real local D1 and R2: the JSON dump
 * and a rendered export pause between pages of reads, and give the same bytes as without pauses;
 * applying an import plan pauses between records and batches. Pauses are counted, never timed.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { d1Stores } from "../../src/adapters/d1";
import { R2BlobStore } from "../../src/adapters/r2/blob";
import type { ApplyDeps } from "../../src/app/deps";
import type { ExportDeps } from "../../src/app/exports/common";
import { streamArchiveDump } from "../../src/app/exports/dump";
import { renderArchive } from "../../src/app/exports/render";
import { applyPlan } from "../../src/app/intake/apply";
import type { Kernel } from "../../src/app/kernel";
import { PackedBlobStore } from "../../src/core/packs";
import { api, newArchive } from "./helpers";

const NOTES = 450;

async function filled() {
  const a = await newArchive("paced");
  for (let i = 0; i < NOTES; i += 150) {
    const artifacts = Array.from({ length: Math.min(150, NOTES - i) }, (_, k) => ({
      id: `note:${i + k}`,
      kind: "note",
      title: `Note ${i + k}`,
      content: `Note ${i + k} keeps the routing heads of shard ${(i + k) % 7} in memory.`,
      ...((i + k) % 3 === 0 ? { edges: [{ type: "cites", target: `note:${(i + k + 1) % NOTES}` }] } : {}),
    }));
    const r = await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts }, a.key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  }
  return a;
}

function exportDeps(pause?: () => Promise<void>): ExportDeps {
  const stores = d1Stores(env.DB);
  return {
    // The archive exports never reach the kernel (only /export/context does).
    kernel: undefined as unknown as Kernel,
    blobs: new PackedBlobStore(new R2BlobStore(env.CONTENT)),
    reader: stores.exports,
    archives: stores.archives,
    annotations: stores.annotations,
    ...(pause ? { pause } : {}),
  };
}

async function text(s: ReadableStream<Uint8Array> | string): Promise<string> {
  return typeof s === "string" ? s : new Response(s).text();
}

describe("exports pause between pages of reads", () => {
  it("the JSON dump: once per page of 100 chunks, and the same bytes as without pauses", async () => {
    const a = await filled();
    let pauses = 0;
    const now = Date.parse("2026-01-01T00:00:00Z");
    const paced = await text(
      streamArchiveDump(
        exportDeps(async () => void pauses++),
        a.id,
        now,
      ),
    );
    expect(pauses).toBeGreaterThanOrEqual(Math.ceil(NOTES / 100));
    expect(paced).toBe(await text(streamArchiveDump(exportDeps(), a.id, now)));
    expect((JSON.parse(paced) as { chunks: unknown[] }).chunks).toHaveLength(NOTES);
  });

  it("csv and graphml: between pages of chunks, annotations and edges, with the same body", async () => {
    const a = await filled();
    const now = Date.parse("2026-01-01T00:00:00Z");
    for (const format of ["csv", "graphml"] as const) {
      let pauses = 0;
      const paced = await renderArchive(
        exportDeps(async () => void pauses++),
        a.id,
        format,
        undefined,
        now,
      );
      const plain = await renderArchive(exportDeps(), a.id, format, undefined, now);
      expect(paced.ok && plain.ok).toBe(true);
      if (!paced.ok || !plain.ok) return;
      expect(await text(paced.value.body)).toBe(await text(plain.value.body));
      expect(pauses, format).toBeGreaterThanOrEqual(1);
    }
  });
});

describe("applying an import plan pauses", () => {
  it("before each atomic batch, every 20 papers matched against the archive and every 20 deprecations", async () => {
    const none = async () => [];
    const world = new Proxy(
      {},
      {
        get: (_t, name) =>
          ["chunksByIds", "tombstoned"].includes(String(name))
            ? async () => new Map()
            : ["liveEntities", "aliasNormsOf"].includes(String(name))
              ? async () => new Set()
              : name === "latestHead"
                ? async () => null
                : none,
      },
    );
    let batches = 0;
    const kernel = {
      ingest: async (_a: string, items: Array<{ id: string }>) => {
        batches++;
        return { ok: true, value: { results: items.map((x) => ({ id: x.id, status: "created", version: 1 })) } };
      },
      entityOp: async () => ({ ok: true, value: {} }),
      deprecate: async () => ({ ok: true, value: {} }),
      contentOf: async () => "",
    };
    let pauses = 0;
    const deps = {
      kernel: kernel as unknown as Kernel,
      world,
      now: () => 0,
      annotations: {},
      pause: async () => void pauses++,
    } as unknown as ApplyDeps;
    const papers = 1000;
    const out = await applyPlan(deps, "a", {
      artifacts: Array.from({ length: papers }, (_, i) => ({
        id: `paper:work-${i}`,
        kind: "paper" as const,
        title: `Work number ${i} on routing memory`,
        content: `Work number ${i} on routing memory.`,
      })),
      deprecations: Array.from({ length: 60 }, (_, i) => ({ id: `paper:gone-${i}`, reason: "retracted" })),
      skipped: [],
    });
    expect(out.counts.created).toBe(papers);
    expect(batches).toBe(papers / 200);
    expect(pauses).toBeGreaterThanOrEqual(papers / 200 + papers / 20 + 60 / 20);
  });
});
