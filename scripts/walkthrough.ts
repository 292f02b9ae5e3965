/**
 * The worked examples of docs/examples.md against a running server, the way a user would send them:
 * one new archive per section (created with the admin key), every curl line sent with fetch, each
 * answer checked for a 2xx and its `# →` text. Prints one line per section and exits 1 on a failure.
 *
 *   npx tsx scripts/walkthrough.ts [--url http://127.0.0.1:8787]   (PAPERGURU_URL, PAPERGURU_ADMIN_KEY)
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { sections, shown } from "./lib/doc-curl";
import { adminKey } from "./lib/server";

const { values } = parseArgs({ options: { url: { type: "string" }, page: { type: "string" } } });
const U = (values.url ?? process.env.PAPERGURU_URL ?? "http://127.0.0.1:8787").replace(/\/$/, "");
const page = values.page ?? join(import.meta.dirname, "..", "docs", "examples.md");
const md = readFileSync(page, "utf8");
const admin = process.env.PAPERGURU_ADMIN_KEY ?? adminKey();

let failed = 0;
for (const name of sections(md, { U }).keys()) {
  if (!name) continue;
  const id = `walk-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const created = await fetch(`${U}/v1/archives`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ id, name: `walkthrough ${name}` }),
  });
  if (created.status !== 201) throw new Error(`creating an archive: ${created.status} ${await created.text()}`);
  const key = ((await created.json()) as { key: { secret: string } }).key.secret;
  const steps = sections(md, { U, A: id, KEY: key }).get(name) ?? [];
  if (!steps.length) continue;
  let problem = "";
  const t0 = performance.now();
  for (const s of steps) {
    const res = await fetch(s.url, { method: s.method, headers: s.headers, body: s.body });
    const text = await res.text();
    if (res.status >= 300) problem = `${res.status} from ${s.line.slice(0, 100)}: ${text.slice(0, 300)}`;
    else {
      const missing = s.expect.find((e) => !shown(text).includes(e));
      if (missing !== undefined) problem = `no "${missing}" in the answer to ${s.line.slice(0, 100)}`;
    }
    if (problem) break;
  }
  const ms = Math.round(performance.now() - t0);
  console.log(
    `${problem ? "FAIL" : "ok  "} ${name}: ${steps.length} requests, ${ms} ms${problem ? `\n     ${problem}` : ""}`,
  );
  if (problem) failed++;
}
process.exit(failed ? 1 : 0);
