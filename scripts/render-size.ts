/**
 * `npx tsx scripts/render-size.ts [--kb 300]`: POST /render on a generated project state of about
 * that many KB (ProjectGuard's states average 286-390 KB): designs and decisions with ~1.5 KB of text
 * each, all committed, and code units with three exported functions each. Prints the state size, the
 * tokens and latency of a render at the full and at an 8,000-token budget. Starts a fresh local Worker.
 */
import { PaperGuruClient } from "../src/client";
import { startServer } from "./lib/server";

const args = process.argv.slice(2);
const kb = Number(args[args.indexOf("--kb") + 1] ?? 300) || 300;
const server = await startServer({ fresh: true });
try {
  const admin = new PaperGuruClient(server.url, server.adminKey);
  const created = await admin.createArchive({ id: "render-size", name: "render size" });
  const pg = admin.withKey(created.key.secret);
  const para = (i: number) =>
    `Commitment ${i}: the routing surface keeps heads in memory and snapshots them every 1,000 changes; eviction follows least recent use; version ${i} of the rule. `.repeat(
      9,
    );
  const records = Math.round((kb * 1024) / 1600);
  const artifacts = [];
  for (let i = 0; i < records; i++) {
    const design = i % 4 === 0;
    artifacts.push({
      id: `${design ? "design" : "decision"}:${i}`,
      kind: (design ? "design" : "decision") as "design" | "decision",
      title: `${design ? "Design" : "Decision"} ${i}`,
      content: para(i),
      valid_from: "2024-01-01",
      ...(design ? {} : { edges: [{ type: "part-of" as const, target: `design:${i - (i % 4)}` }] }),
    });
  }
  for (let i = 0; i < records / 4; i++)
    artifacts.push({
      id: `repo/mod${i}.ts`,
      kind: "code_unit" as const,
      title: `mod${i}.ts`,
      content: `export function a${i}(x: number): number {\n  return x;\n}\nexport function b${i}(s: string): string {\n  return s;\n}\nexport class C${i} {}\n`,
      valid_from: "2024-01-01",
      edges: [{ type: "implements" as const, target: `decision:${(i * 4 + 1) % records}` }],
    });
  for (let i = 0; i < artifacts.length; i += 200)
    await pg.ingest("render-size", { artifacts: artifacts.slice(i, i + 200) });
  for (const a of artifacts.filter((x) => x.kind !== "code_unit"))
    await pg.request("POST", `/v1/archives/render-size/chunks/${encodeURIComponent(a.id)}/annotations`, {
      key: "status",
      value: "committed",
      at: "2024-01-02",
    });
  for (const budget of [200_000, 8000]) {
    const t0 = performance.now();
    const r = (await pg.request("POST", "/v1/archives/render-size/render", { budget_tokens: budget })) as {
      tokens: number;
      state_chars: number;
      omitted: string[];
      designs: unknown[];
      decisions: unknown[];
      modules: unknown[];
    };
    const ms = performance.now() - t0;
    console.log(
      `render budget ${budget}: state ${(r.state_chars / 1024).toFixed(0)} KB (${records} records, ${Math.round(records / 4)} modules), result ${r.tokens} tokens, ${r.designs.length}+${r.decisions.length} records and ${r.modules.length} modules kept, ${r.omitted.length} omitted, ${ms.toFixed(0)} ms`,
    );
  }
} finally {
  server.stop();
}
