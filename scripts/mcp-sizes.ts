/**
 * `npx tsx scripts/mcp-sizes.ts [--data ../shared/testdata] [--passages 994]`: what an agent's
 * context pays for the MCP server. Starts a fresh local Worker, stores the HotpotQA passages (title
 * and content, through MCP `remember`), then prints the tools/list response size and, for the
 * HotpotQA questions, the mean size of the `context` tool's text (bytes and cl100k tokens) at
 * budgets 900 / 2,000 / 4,000, without and with the trace; the `route` tool's text at limit 5,
 * the default and with every candidate; and REST /context's card JSON against its budget. Skips
 * cleanly without the data.
 */
import { encode } from "gpt-tokenizer/encoding/cl100k_base";
import { loadHotpot } from "./lib/datasets";
import { startServer } from "./lib/server";

const args = process.argv.slice(2);
const opt = (name: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const data = opt("data") ?? "../shared/testdata";
const hp = loadHotpot(data);
if (!hp) {
  console.log(`no HotpotQA under ${data}: skipped`);
  process.exit(0);
}
const passages = hp.passages.slice(0, Number(opt("passages") ?? hp.passages.length));
const questions = hp.questions.slice(0, Number(opt("questions") ?? 30));

const server = await startServer({ fresh: true });
try {
  const admin = { authorization: `Bearer ${server.adminKey}`, "content-type": "application/json" };
  const created = (await (
    await fetch(`${server.url}/v1/archives`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ id: "mcp-sizes", name: "MCP sizes" }),
    })
  ).json()) as { key: { secret: string } };
  const key = created.key.secret;
  let id = 0;
  const rpc = async (method: string, params: unknown) => {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const text = await res.text();
    return { text, json: JSON.parse(text) };
  };
  for (let i = 0; i < passages.length; i += 100) {
    const artifacts = passages
      .slice(i, i + 100)
      .map((p) => ({ id: p.id, kind: "note", title: p.title, content: p.text }));
    const r = await rpc("tools/call", { name: "remember", arguments: { archive: "mcp-sizes", artifacts } });
    if (r.json.result?.isError) throw new Error(r.json.result.content[0].text);
  }
  const list = await rpc("tools/list", {});
  console.log(
    `tools/list: ${Buffer.byteLength(list.text)} bytes (JSON-RPC response), ${list.json.result.tools.length} tools`,
  );
  console.log(
    `context text over ${questions.length} HotpotQA questions, ${passages.length} passages (mean bytes / mean cl100k tokens / max tokens):`,
  );
  for (const budget of [900, 2000, 4000])
    for (const trace of [false, true]) {
      let bytes = 0;
      let tokens = 0;
      let max = 0;
      for (const q of questions) {
        const r = await rpc("tools/call", {
          name: "context",
          arguments: { archive: "mcp-sizes", query: q.question, budget_tokens: budget, include_trace: trace },
        });
        const text = r.json.result.content[0].text as string;
        const t = encode(text).length;
        bytes += Buffer.byteLength(text);
        tokens += t;
        max = Math.max(max, t);
      }
      console.log(
        `  budget ${budget} ${trace ? "with trace   " : "without trace"}: ${Math.round(bytes / questions.length)} bytes, ${Math.round(tokens / questions.length)} tokens, max ${max}`,
      );
    }
  const mean = async (label: string, run: (q: string) => Promise<string>) => {
    let tokens = 0;
    let max = 0;
    for (const q of questions) {
      const t = encode(await run(q.question)).length;
      tokens += t;
      max = Math.max(max, t);
    }
    console.log(`  ${label}: mean ${Math.round(tokens / questions.length)} tokens, max ${max}`);
  };
  console.log("route text (cl100k tokens):");
  for (const [label, extra] of [
    ["limit 5", { limit: 5 }],
    ["default (limit 10)", {}],
    ["limit 5, include_candidates", { limit: 5, include_candidates: true }],
  ] as const)
    await mean(label, async (query) => {
      const r = await rpc("tools/call", { name: "route", arguments: { archive: "mcp-sizes", query, ...extra } });
      return r.json.result.content[0].text as string;
    });
  console.log("REST /context: cards' JSON (cl100k tokens) against budget_tokens:");
  for (const budget of [900, 2000, 4000]) {
    let worst = 0;
    let cards = 0;
    for (const q of questions) {
      const res = await fetch(`${server.url}/v1/archives/mcp-sizes/context`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ query: q.question, budget_tokens: budget }),
      });
      const body = (await res.json()) as { cards: unknown[] };
      worst = Math.max(worst, encode(JSON.stringify(body.cards)).length / budget);
      cards += body.cards.length;
    }
    console.log(
      `  budget ${budget}: largest cards' JSON / budget ${worst.toFixed(3)}, mean ${(cards / questions.length).toFixed(1)} cards`,
    );
  }
} finally {
  server.stop();
}
