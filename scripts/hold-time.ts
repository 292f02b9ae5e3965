/**
 * `npx tsx scripts/hold-time.ts [--code 1000] [--xkg-kb 84] [--runs 2]`: how long two large requests
 * hold a fresh local Worker. (1) POST /import with format=xkg on a generated xKG JSON file of about
 * `--xkg-kb` KB (one paper: 660 techniques with code and tests, 1,981 chunks, then references);
 * (2) POST /render and the MCP tool `project` (no request: the whole state) over an archive holding
 * `--code` TypeScript code units (ingested through POST /ingest as `code_unit` artifacts, each
 * implementing a decision; designs and decisions committed) at `--budget` tokens (default 200,000).
 * Each request runs `--runs` times. `--ref <commit>` measures that commit instead of the working tree.
 */
import { PaperGuruClient } from "../src/client";
import { harnessFetch, startServer } from "./lib/server";
import { xkgPaper } from "./lib/xkg-fixture";

const args = process.argv.slice(2);
const arg = (name: string, dflt: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) || dflt : dflt;
};
const codeUnits = arg("--code", 1000);
const xkgKb = arg("--xkg-kb", 84);
const runs = arg("--runs", 2);
const budget = arg("--budget", 200_000);
const refAt = args.indexOf("--ref");
const ref = refAt >= 0 ? args[refAt + 1] : undefined;

/** A TypeScript module of ~1 KB with three exported functions and a class. */
function tsModule(i: number): string {
  return [
    `import { helper${(i + 1) % codeUnits} } from "./mod${(i + 1) % codeUnits}";`,
    "",
    `/** Scores the ${i}th shard's candidates by recency and mass. */`,
    `export function score${i}(mass: number, age: number): number {`,
    "  const decay = Math.exp(-age / 86_400_000);",
    "  return mass * decay;",
    "}",
    "",
    `export function helper${i}(ids: string[]): Map<string, number> {`,
    "  const out = new Map<string, number>();",
    "  for (const [k, id] of ids.entries()) out.set(id, k);",
    "  return out;",
    "}",
    "",
    `export async function load${i}(key: string): Promise<string | null> {`,
    `  return key.length > ${i % 97} ? key : null;`,
    "}",
    "",
    `export class Shard${i} {`,
    "  private heads: number[] = [];",
    "  add(x: number): void {",
    "    this.heads.push(x);",
    "  }",
    "}",
    "",
  ].join("\n");
}

const server = await startServer({ fresh: true, snapshot: ref ? { ref } : true });
console.log(`code: ${ref ?? "working tree"}`);
try {
  const admin = new PaperGuruClient(server.url, server.adminKey, { fetch: harnessFetch });
  const timed = async (label: string, f: () => Promise<unknown>) => {
    const t0 = performance.now();
    const r = await f();
    console.log(`${label}: ${((performance.now() - t0) / 1000).toFixed(2)} s`);
    return r;
  };

  // (1) xKG import, each run into a fresh archive (the same file twice into one would be a no-op).
  const body = JSON.stringify(xkgPaper(xkgKb));
  for (let run = 1; run <= runs; run++) {
    const id = `hold-xkg-${run}`;
    const created = await admin.createArchive({ id, name: id });
    const pg = admin.withKey(created.key.secret);
    const r = (await timed(`xkg import ${(body.length / 1024).toFixed(0)} KB run ${run}`, () =>
      pg.request("POST", `/v1/archives/${id}/import?format=xkg&name=gen.json`, body),
    )) as { counts: Record<string, number> };
    console.log(`  counts ${JSON.stringify(r.counts)}`);
  }

  // (2) render over code units.
  const created = await admin.createArchive({ id: "hold-render", name: "hold render" });
  const pg = admin.withKey(created.key.secret);
  const records = 40;
  const artifacts = [];
  for (let i = 0; i < records; i++) {
    const design = i % 4 === 0;
    artifacts.push({
      id: `${design ? "design" : "decision"}:${i}`,
      kind: (design ? "design" : "decision") as "design" | "decision",
      title: `${design ? "Design" : "Decision"} ${i}`,
      content: `Commitment ${i}: shards keep heads in memory and snapshot them every 1,000 changes.`,
      valid_from: "2024-01-01",
      ...(design ? {} : { edges: [{ type: "part-of" as const, target: `design:${i - (i % 4)}` }] }),
    });
  }
  for (let i = 0; i < codeUnits; i++)
    artifacts.push({
      id: `repo/src/mod${i}.ts`,
      kind: "code_unit" as const,
      title: `mod${i}.ts`,
      content: tsModule(i),
      valid_from: "2024-01-01",
      edges: [
        {
          type: "implements" as const,
          target: `decision:${(i % (records - 1)) + 1 - (((i % (records - 1)) + 1) % 4 === 0 ? 1 : 0)}`,
        },
        { type: "depends-on" as const, target: `repo/src/mod${(i + 1) % codeUnits}.ts` },
      ],
    });
  const t0 = performance.now();
  for (let i = 0; i < artifacts.length; i += 200)
    await pg.ingest("hold-render", { artifacts: artifacts.slice(i, i + 200) });
  console.log(`ingested ${artifacts.length} artifacts in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  for (const a of artifacts.filter((x) => x.kind !== "code_unit"))
    await pg.request("POST", `/v1/archives/hold-render/chunks/${encodeURIComponent(a.id)}/annotations`, {
      key: "status",
      value: "committed",
      at: "2024-01-02",
    });
  for (let run = 1; run <= runs; run++) {
    const r = (await timed(`render ${codeUnits} code units run ${run}`, () =>
      pg.request("POST", "/v1/archives/hold-render/render", { budget_tokens: budget }),
    )) as { modules: unknown[]; omitted: string[]; tokens: number };
    console.log(`  ${r.modules.length} modules kept, ${r.omitted.length} omitted, ${r.tokens} tokens`);
  }
  for (let run = 1; run <= runs; run++) {
    await timed(`mcp project ${codeUnits} code units run ${run}`, async () => {
      const res = await harnessFetch(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${created.key.secret}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "project", arguments: { archive: "hold-render", budget_tokens: budget } },
        }),
      });
      const text = await res.text();
      if (!res.ok || text.includes('"isError":true')) console.log(`  ${res.status} ${text.slice(0, 300)}`);
    });
  }
} finally {
  server.stop();
}
