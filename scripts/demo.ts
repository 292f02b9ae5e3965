/**
 * `npm run demo`: against a running PaperGuru (PAPERGURU_URL, default http://127.0.0.1:8787),
 * create an archive, ingest the sample archive of real RAG/memory papers (with a revision, a
 * deprecation and a rename), run context queries and print the evidence cards, then verify anchors.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PaperGuruClient, PaperGuruError } from "../src/client";
import { adminKey } from "./lib/server";

const here = dirname(fileURLToPath(import.meta.url));
const url = process.env.PAPERGURU_URL ?? "http://127.0.0.1:8787";

interface Sample {
  archive: { name: string; description?: string };
  batches: Array<{ label: string; artifacts: Array<Record<string, unknown>> }>;
  lifecycle: Array<Record<string, string>>;
  queries: Array<{ query: string; as_of?: string; budget_tokens?: number; why?: string }>;
}

const wrap = (s: string, width = 96, indent = "      ") => {
  const words = s.split(/\s+/);
  const lines: string[] = [];
  let cur = "";
  for (const w of words) {
    if ((cur + w).length > width) {
      lines.push(cur.trimEnd());
      cur = "";
    }
    cur += `${w} `;
  }
  if (cur.trim()) lines.push(cur.trimEnd());
  return lines.map((l) => indent + l).join("\n");
};

async function main() {
  const sample = JSON.parse(readFileSync(join(here, "sample", "archive.json"), "utf8")) as Sample;
  const admin = new PaperGuruClient(url, adminKey());
  try {
    await fetch(`${url}/healthz`);
  } catch {
    console.error(`PaperGuru is not reachable at ${url}. Start it with \`npm start\` (or set PAPERGURU_URL).`);
    process.exit(1);
  }
  const id = `demo-${Date.now().toString(36)}`;
  const created = await admin.createArchive({ id, name: sample.archive.name, description: sample.archive.description });
  const pg = admin.withKey(created.key.secret);
  console.log(`archive ${id} created (key ${created.key.id}, scopes ${created.key.scopes.join("+")})\n`);

  for (const batch of sample.batches) {
    const t0 = performance.now();
    const res = await pg.ingest(id, { artifacts: batch.artifacts as never });
    console.log(
      `ingest "${batch.label}": ${batch.artifacts.length} artifacts -> created ${res.counts.created}, updated ${res.counts.updated}, unchanged ${res.counts.unchanged} (${(performance.now() - t0).toFixed(0)} ms)`,
    );
  }
  // Retrying the last batch is a no-op (webhooks and queues retry; ingest must be idempotent).
  const last = sample.batches[sample.batches.length - 1];
  const again = await pg.ingest(id, { artifacts: last?.artifacts as never });
  console.log(`retry of "${last?.label}" (idempotent): unchanged ${again.counts.unchanged}/${last?.artifacts.length}`);

  for (const op of sample.lifecycle) {
    if (op.op === "deprecate") await pg.deprecate(id, { id: op.id as string, by: op.by, at: op.at, reason: op.reason });
    else if (op.op === "rename")
      await pg.rename(id, { entity: op.entity as string, new_name: op.new_name as string, at: op.at });
    else if (op.op === "alias")
      await pg.alias(id, { entity: op.entity as string, alias: op.alias as string, at: op.at });
    console.log(
      `lifecycle ${op.op}: ${op.id ?? op.entity} ${op.by ? `-> ${op.by}` : ""}${op.new_name ? `-> "${op.new_name}"` : ""}${op.alias ? `+ "${op.alias}"` : ""} at ${op.at ?? "now"}`,
    );
  }

  let anchors = 0;
  let verified = 0;
  for (const q of sample.queries) {
    const res = await pg.context(id, {
      query: q.query,
      as_of: q.as_of,
      budget_tokens: q.budget_tokens ?? 900,
      include_trace: true,
    });
    console.log(`\n${"=".repeat(100)}\nQ: ${q.query}${q.as_of ? `   (as of ${q.as_of})` : ""}`);
    if (q.why) console.log(`   ${q.why}`);
    console.log(
      `   mentions: ${(res.trace?.mentions ?? []).map((m) => `${m.text} -> ${m.entity}`).join(", ") || "none"}`,
    );
    console.log(
      `   budget ${res.budget.total} tokens (${res.budget.tokenizer}): cards ${res.budget.cards}, short-term ${res.budget.short_term}, left ${res.budget.remaining}; ${(res.trace?.timings_ms.total ?? 0).toFixed(1)} ms`,
    );
    for (const [i, c] of res.cards.entries()) {
      console.log(`\n   [${i + 1}] ${c.title}  <${c.artifact_id} v${c.version}, ${c.kind}, ${c.tokens} tok>`);
      console.log(`      claim: ${c.claim_boundary}`);
      if (c.logic_sketch) console.log(wrap(`sketch: ${c.logic_sketch}`));
      if (c.assumptions.length) console.log(wrap(`assumptions: ${c.assumptions.join("; ")}`));
      for (const a of c.anchored_spans)
        console.log(
          `      anchor ${a.artifact_id} v${a.version} [${a.start},${a.end}): "${a.snippet.slice(0, 80)}${a.snippet.length > 80 ? "…" : ""}"`,
        );
    }
    const all = res.cards.flatMap((c) => c.anchored_spans);
    if (all.length) {
      const v = await pg.verify(id, { anchors: all });
      anchors += all.length;
      verified += v.results.filter((r) => r.verified).length;
    }
  }
  const stats = await pg.archive(id);
  const cap = stats.stats.capital;
  console.log(`\n${"=".repeat(100)}`);
  console.log(`anchors verified: ${verified}/${anchors}`);
  console.log(
    `capital chunk: ${cap.heads} heads, ${cap.edges} edges, ${cap.entities} entities, ${cap.bytes.total} bytes (${(cap.bytes_per_head as number).toFixed(0)} bytes/head)`,
  );
  console.log(`storage: ${JSON.stringify(stats.stats.storage)}`);
}

main().catch((e) => {
  console.error(e instanceof PaperGuruError ? e.message : e);
  process.exit(1);
});
