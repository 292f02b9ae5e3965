/**
 * The documentation's worked examples against a running server, the way their users would run them:
 *  - curl: every curl line of docs/examples.md, one new archive per section (created with the admin
 *    key), each answer checked for a 2xx and its `# →` text;
 *  - http: the `http` blocks of docs/coding-agents.md (ProjectGuard) and docs/research.md (Paper
 *    Circle), each with a new archive, answers checked against the excerpts the pages show;
 *  - mcp: the tool calls of docs/interfaces.md's worked example through the official MCP SDK client
 *    over HTTP (archive "demo" replaced by a new one), none an error; prints each result's size;
 *  - cli (with --cli <dir>): every `paperguru` line of docs/cli.md run by bash in <dir>, where the
 *    packed package is installed (`npm pack`, then `npm install <tgz>` there), with HOME and the
 *    config file in that directory; each must exit 0.
 * Prints one line per part and exits 1 on a failure.
 *
 *   npx tsx scripts/walkthrough.ts [--url http://127.0.0.1:8787] [--cli /tmp/pg-cli]   (PAPERGURU_URL, PAPERGURU_ADMIN_KEY)
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sections, shown } from "./lib/doc-curl";
import { httpSteps, missing } from "./lib/doc-http";
import { adminKey } from "./lib/server";

const { values } = parseArgs({ options: { url: { type: "string" }, cli: { type: "string" } } });
const U = (values.url ?? process.env.PAPERGURU_URL ?? "http://127.0.0.1:8787").replace(/\/$/, "");
const DOCS = join(import.meta.dirname, "..", "docs");
const admin = process.env.PAPERGURU_ADMIN_KEY ?? adminKey();
let failed = 0;

function report(ok: boolean, what: string, detail: string, problem = "") {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}: ${detail}${problem ? `\n     ${problem}` : ""}`);
  if (!ok) failed++;
}

async function newArchive(name: string): Promise<{ id: string; key: string }> {
  const id = `walk-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  const res = await fetch(`${U}/v1/archives`, {
    method: "POST",
    headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
    body: JSON.stringify({ id, name: `walkthrough ${name}` }),
  });
  if (res.status !== 201) throw new Error(`creating an archive: ${res.status} ${await res.text()}`);
  return { id, key: ((await res.json()) as { key: { secret: string } }).key.secret };
}

// ------------------------------------------------------------------ curl: docs/examples.md

const examples = readFileSync(join(DOCS, "examples.md"), "utf8");
for (const name of sections(examples, { U }).keys()) {
  if (!name) continue;
  const a = await newArchive(name);
  const steps = sections(examples, { U, A: a.id, KEY: a.key }).get(name) ?? [];
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
  report(!problem, `curl ${name}`, `${steps.length} requests, ${Math.round(performance.now() - t0)} ms`, problem);
}

// ------------------------------------------------------------------ http blocks: ProjectGuard, Paper Circle

for (const [page, heading, archiveIn] of [
  ["coding-agents.md", "## Worked example: ProjectGuard over REST", "{archive}"],
  ["research.md", "### Worked example: a Paper Circle session", "papers"],
] as const) {
  const steps = httpSteps(readFileSync(join(DOCS, page), "utf8"), heading);
  const a = await newArchive(page);
  let problem = "";
  const t0 = performance.now();
  for (const s of steps) {
    const path = s.path.replace(`/v1/archives/${archiveIn}/`, `/v1/archives/${a.id}/`);
    const res = await fetch(`${U}${path}`, {
      method: s.method,
      headers: { authorization: `Bearer ${a.key}`, "content-type": "application/json", ...s.headers },
      body: s.body,
    });
    const text = await res.text();
    if (res.status >= 300) problem = `${res.status} from ${s.method} ${s.path}: ${text.slice(0, 300)}`;
    else if (s.expect !== undefined) {
      const m = missing(JSON.parse(text), s.expect);
      if (m) problem = `${s.method} ${s.path}: ${m}`;
    }
    if (problem) break;
  }
  report(
    !problem && steps.length > 0,
    `http ${page} ${heading.replace(/^#+ /, "")}`,
    `${steps.length} requests, ${Math.round(performance.now() - t0)} ms`,
    problem,
  );
}

// ------------------------------------------------------------------ MCP: docs/interfaces.md

{
  const doc = readFileSync(join(DOCS, "interfaces.md"), "utf8");
  const heading = "### Worked example: an agent over MCP";
  const start = doc.indexOf(heading);
  const rest = doc.slice(start + heading.length);
  const end = rest.search(/\n##+ /);
  const section = end === -1 ? rest : rest.slice(0, end);
  const calls = [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map(
    (m) => JSON.parse(m[1] as string) as { tool: string; arguments: Record<string, unknown> },
  );
  const a = await newArchive("mcp");
  const client = new Client({ name: "paperguru-walkthrough", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${U}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${a.key}` } },
    }),
  );
  const listed = await client.listTools();
  const sizes: string[] = [];
  let problem = start < 0 ? `no "${heading}" in docs/interfaces.md` : "";
  for (const c of problem ? [] : calls) {
    const r = await client.callTool({ name: c.tool, arguments: { ...c.arguments, archive: a.id } });
    const bytes = JSON.stringify(r.structuredContent ?? r.content).length;
    sizes.push(`${c.tool} ${bytes} B`);
    if (r.isError) {
      problem = `${c.tool} answered an error: ${JSON.stringify(r.content).slice(0, 300)}`;
      break;
    }
  }
  await client.close();
  report(
    !problem && calls.length > 0,
    "mcp docs/interfaces.md",
    `${listed.tools.length} tools listed; ${calls.length} calls (${sizes.join(", ")})`,
    problem,
  );
}

// ------------------------------------------------------------------ CLI: docs/cli.md, the packed package

if (values.cli) {
  const dir = values.cli;
  const lines: string[] = [];
  let inBash = false;
  for (const raw of readFileSync(join(DOCS, "cli.md"), "utf8").split("\n")) {
    if (raw.startsWith("```")) inBash = !inBash && raw.trim() === "```bash";
    else if (inBash && /^(?:npx )?paperguru /.test(raw.trim())) lines.push(raw.trim());
  }
  let problem = "";
  const t0 = performance.now();
  for (const line of lines) {
    const r = spawnSync("bash", ["-o", "pipefail", "-c", line], {
      cwd: dir,
      env: { ...process.env, HOME: dir, PAPERGURU_CONFIG: join(dir, "config.json"), PAPERGURU_URL: U, U },
      encoding: "utf8",
    });
    if (r.status !== 0) {
      problem = `exit ${r.status}: ${line.slice(0, 100)}\n     ${(r.stderr || r.stdout).slice(0, 300)}`;
      break;
    }
  }
  report(
    !problem && lines.length > 0,
    `cli docs/cli.md in ${dir}`,
    `${lines.length} commands, ${Math.round(performance.now() - t0)} ms`,
    problem,
  );
}
process.exit(failed ? 1 : 0);
