/**
 * The xKG round trip through the public API, on the released graphs (../shared/testdata/xkg/kg):
 * every file imported with POST /import?format=xkg into one archive, exported with
 * GET /export?format=xkg, compared with the file (parsed JSON, and byte for byte as compact JSON),
 * the export imported again (it must change nothing), and the grounding counts read with
 * GET /metrics/grounding.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { PaperGuruClient } from "../../src/client";
import { harnessFetch, type Server } from "./server";

export interface XkgRoundTrip {
  files: number;
  /** Papers whose export equals the file as parsed JSON / as compact JSON text (key order too). */
  exactJson: number;
  exactBytes: number;
  different: string[];
  firstImport: Record<string, number>;
  /** Counts of importing the export (created and updated must be 0). */
  reimport: Record<string, number>;
  /** Techniques counted in the files (components included), with code, without. */
  techniques: { inFiles: number; withCode: number; grounding: { total: number; grounded: number; ungrounded: number } };
  ms: { import: number; export: number; reimport: number };
}

type Tech = { code?: unknown; components?: Tech[] };

export async function xkgRoundTrip(server: Server, data: string): Promise<XkgRoundTrip | null> {
  const dir = join(data, "xkg", "kg");
  if (!existsSync(dir)) return null;
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort();
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const id = `eval-xkg-rt-${Date.now().toString(36)}`;
  const secret = (await admin.createArchive({ id, name: "xKG round trip" })).key.secret;
  const pg = admin.withKey(secret);
  const sum = (into: Record<string, number>, c: Record<string, number>) => {
    for (const [k, v] of Object.entries(c)) if (typeof v === "number") into[k] = (into[k] ?? 0) + v;
  };
  const originals = new Map<string, unknown>();
  const firstImport: Record<string, number> = {};
  let inFiles = 0;
  let withCode = 0;
  let t = performance.now();
  for (const f of files) {
    const text = readFileSync(join(dir, f), "utf8");
    const doc = JSON.parse(text) as { paper_title: string; techniques: Tech[] };
    originals.set(JSON.stringify(doc), doc);
    const stack = [...doc.techniques];
    while (stack.length) {
      const x = stack.pop() as Tech;
      inFiles++;
      if (x.code) withCode++;
      stack.push(...(x.components ?? []));
    }
    const res = (await pg.importText(id, "xkg", text, f)) as unknown as { counts: Record<string, number> };
    sum(firstImport, res.counts);
  }
  const importMs = performance.now() - t;
  t = performance.now();
  const exported = await pg.export(id, { format: "xkg" });
  const exportMs = performance.now() - t;
  const lines = exported.split("\n").filter(Boolean);
  let exactJson = 0;
  let exactBytes = 0;
  const byTitle = new Map([...originals.values()].map((d) => [(d as { paper_title: string }).paper_title, d]));
  const different: string[] = [];
  for (const line of lines) {
    const got = JSON.parse(line) as { paper_title: string };
    const want = byTitle.get(got.paper_title);
    if (want && isDeepStrictEqual(got, want)) exactJson++;
    else different.push(got.paper_title);
    if (originals.has(line)) exactBytes++;
  }
  t = performance.now();
  const again = (await pg.importText(id, "xkg", exported, "export.jsonl")) as unknown as {
    counts: Record<string, number>;
  };
  const reimportMs = performance.now() - t;
  const g = (await (
    await harnessFetch(`${server.url}/v1/archives/${id}/metrics/grounding`, {
      headers: { authorization: `Bearer ${secret}` },
    })
  ).json()) as { total: number; grounded: number; ungrounded: string[] };
  return {
    files: files.length,
    exactJson,
    exactBytes,
    different,
    firstImport,
    reimport: again.counts,
    techniques: {
      inFiles,
      withCode,
      grounding: { total: g.total, grounded: g.grounded, ungrounded: g.ungrounded.length },
    },
    ms: { import: Math.round(importMs), export: Math.round(exportMs), reimport: Math.round(reimportMs) },
  };
}
