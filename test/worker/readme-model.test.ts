/**
 * README -> paper by the model (xKG App. C.2), through REST and the queue in workerd: a GitHub
 * source run on the Worker wired with DISTILLER=openai (a mocked OpenAI endpoint) queues one
 * `readme_paper` message for a README the rules link to no paper; the queue consumer asks the model
 * and writes the `implements` edge only when the title it answers is written in the README and
 * names a paper of the archive. A model failure is recorded, never fails the ingest, and the rules'
 * result stands.
 */
import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { QueueMessage } from "../../src/app/lib/queue";
import { createApp } from "../../src/http/app";
import worker from "../../src/index";
import { type Env, wire } from "../../src/wiring";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api } from "./helpers";

const CHAT = "https://api.openai.com/v1/chat/completions";
const sent: QueueMessage[] = [];
const producer = {
  async send(body: QueueMessage) {
    sent.push(body);
  },
  async sendBatch(messages: Iterable<{ body: QueueMessage }>) {
    for (const m of messages) sent.push(m.body);
  },
};
const MODEL_ENV = {
  ...env,
  DISTILLER: "openai",
  LLM_BASE_URL: "https://api.openai.com/v1",
  LLM_MODEL: "mock-1",
  LLM_API_KEY: "sk-test",
  DELIVERIES: producer,
};
const NO_MODEL_ENV = { ...env, DELIVERIES: producer };
const withModel = createApp(() => wire(MODEL_ENV as unknown as Env));
const noModel = createApp(() => wire(NO_MODEL_ENV as unknown as Env));

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected structurally in tests
async function call(app: typeof withModel, method: string, path: string, body?: unknown): Promise<any> {
  const res = await app.request(`http://paperguru.test${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: res.status, body: await res.json() };
}

type Chat = number | ((prompt: string) => unknown);

/** GitHub's API for one repository's files, and the chat endpoint answering `chat` in order. */
function serve(repo: string, files: Record<string, string>, chat: Chat[] = []) {
  const commit = "b".repeat(40);
  const prompts: string[] = [];
  mockFetch({
    [`https://api.github.com/repos/${repo}/commits/`]: () =>
      Response.json({ sha: commit, commit: { committer: { date: "2026-11-01T10:00:00Z" }, tree: { sha: commit } } }),
    [`https://api.github.com/repos/${repo}/git/trees/`]: () =>
      Response.json({
        sha: commit,
        truncated: false,
        tree: Object.entries(files).map(([path, body], i) => ({
          path,
          type: "blob",
          mode: "100644",
          sha: String(i + 1).padStart(40, "0"),
          size: body.length,
        })),
      }),
    [`https://api.github.com/repos/${repo}/contents/`]: (req: Request) => {
      const p = decodeURIComponent(new URL(req.url).pathname.replace(`/repos/${repo}/contents/`, ""));
      const body = files[p];
      return body === undefined ? new Response("Not Found", { status: 404 }) : new Response(body);
    },
    [CHAT]: async (req: Request) => {
      const body = (await req.json()) as { messages: Array<{ content: string }> };
      const prompt = body.messages[1]?.content ?? "";
      prompts.push(prompt);
      const next = chat.shift();
      if (next === undefined) throw new Error("the model was called more often than scripted");
      if (typeof next === "number")
        return Response.json(
          { error: { message: "invalid api key", type: "invalid_request_error" } },
          { status: next },
        );
      return Response.json({
        id: "chatcmpl-1",
        choices: [{ index: 0, message: { role: "assistant", content: JSON.stringify(next(prompt)) } }],
        usage: { prompt_tokens: 300, completion_tokens: 20 },
      });
    },
  });
  return prompts;
}

let n = 0;
/** An archive with two papers imported as BibTeX (their titles become aliases); the papers' chunk ids. */
async function archive(): Promise<{ id: string; typed: string; attention: string }> {
  const id = `rdm-${Date.now().toString(36)}-${(n++).toString(36)}`;
  expect((await api("POST", "/v1/archives", { id, name: id })).status).toBe(201);
  const bib = [
    "@inproceedings{typed24, title = {Typed Temporal Graphs for Long Horizons}, author = {Ada Lovelace}, year = {2024}}",
    "@inproceedings{vaswani17, title = {Attention Is All You Need}, author = {Ashish Vaswani}, year = {2017}}",
  ].join("\n");
  const imp = await api("POST", `/v1/archives/${id}/import?format=bibtex`, bib);
  expect(imp.status, JSON.stringify(imp.body)).toBe(200);
  const list = await api("GET", `/v1/archives/${id}/chunks?kind=paper`);
  const papers = list.body.chunks as Array<{ id: string; title: string }>;
  const of = (t: string) => papers.find((p) => p.title.startsWith(t))?.id as string;
  return { id, typed: of("Typed"), attention: of("Attention") };
}

/** Register a github source and run it now (the run answers before any model is asked). */
async function run(app: typeof withModel, id: string, location: string) {
  const src = await call(app, "POST", `/v1/archives/${id}/sources`, { kind: "github", location });
  expect(src.status, JSON.stringify(src.body)).toBe(201);
  const res = await call(app, "POST", `/v1/archives/${id}/sources/${src.body.id}/run`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.run;
}

/** Deliver the queued messages to the Worker's queue handler (with the model); their outcome. */
async function deliver(messages: QueueMessage[], attempts = 1) {
  const batch = createMessageBatch(
    "paperguru-deliveries",
    messages.map((body, i) => ({ id: `r${i}`, timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch as MessageBatch<QueueMessage>, MODEL_ENV as never, ctx);
  return getQueueResult(batch, ctx);
}

async function readme(id: string, chunk: string) {
  const r = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent(chunk)}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const edges = (r.body.edges as Array<{ src: string; dst: string; type: string; context?: string | null }>).filter(
    (e) => e.src === chunk && e.type === "implements",
  );
  const notes = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent(chunk)}/annotations?key=readme_paper`);
  return { versions: r.body.versions.length as number, edges, annotations: notes.body };
}

const SEVERAL =
  "# Temporal graphs\n\nThis repository builds on Typed Temporal Graphs for Long Horizons.\nRelated: arXiv:2405.14831, arXiv:2310.01234.\n";

describe("README -> paper by the model (xKG App. C.2)", () => {
  it("links a README the rules leave unlinked when the answered title is in it and names an archive paper", async () => {
    const { id, typed } = await archive();
    sent.length = 0;
    serve("acme/temporal", { "README.md": SEVERAL, "src/a.ts": "export const a = 1;\n" });
    const r = await run(withModel, id, "acme/temporal");
    // The run finished without the model (none is scripted yet): the rules named several papers, no edge.
    expect(r.status).toBe("ok");
    expect(r.counts).toMatchObject({ created: 2 });
    const chunk = "gh:acme/temporal/README.md";
    expect((await readme(id, chunk)).edges).toEqual([]);
    expect(sent).toEqual([{ kind: "readme_paper", archive: id, chunk, version: 1 }]);

    const prompts = serve("acme/temporal", {}, [() => ({ paper_title: "Typed Temporal Graphs for Long Horizons" })]);
    const q = await deliver(sent.slice(0, 1));
    expect(q.explicitAcks).toEqual(["r0"]);
    expect(prompts.length).toBe(1);
    expect(prompts[0]).toContain("Analyze this GitHub repository acme/temporal");
    expect(prompts[0]).toContain("builds on Typed Temporal Graphs");
    const after = await readme(id, chunk);
    expect(after.versions).toBe(2);
    expect(after.edges.map((e) => e.dst)).toEqual([typed]);
    expect(after.edges[0]?.context).toBe("model:openai:mock-1: Typed Temporal Graphs for Long Horizons");
    expect(JSON.stringify(after.annotations)).toContain('"status":"linked"');
    // The ingest log reports the model's answer.
    const log = await api("GET", `/v1/archives/${id}/ingest-log`);
    expect(JSON.stringify(log.body)).toContain("readme_paper");

    // Redelivered: acknowledged, no model call (none is scripted), nothing new.
    serve("acme/temporal", {}, []);
    expect((await deliver(sent.slice(0, 1))).explicitAcks).toEqual(["r0"]);
    expect((await readme(id, chunk)).versions).toBe(2);
  });

  it("rejects a title the README does not write, and one no archive paper has; a model failure keeps the rules' result", async () => {
    const { id } = await archive();
    sent.length = 0;
    serve("acme/none", { "README.md": "# Utilities\n\nHelpers for graph experiments.\n" });
    await run(withModel, id, "acme/none");
    serve("acme/other", {
      "README.md": "# Other\n\nThe official implementation of Sparse Mixtures Of Graph Experts.\n",
    });
    await run(withModel, id, "acme/other");
    serve("acme/broken", { "README.md": SEVERAL });
    const broken = await run(withModel, id, "acme/broken");
    // The rules' statement found a title no paper of the archive has: their edge, no model asked.
    expect(sent.map((m) => (m as { chunk: string }).chunk)).toEqual([
      "gh:acme/none/README.md",
      "gh:acme/broken/README.md",
    ]);
    expect(broken.status).toBe("ok");

    // An invented title (a paper of the archive, but the README never writes it) is refused.
    serve("x/y", {}, [() => ({ paper_title: "Attention Is All You Need" }), 401]);
    const q = await deliver(sent);
    expect(q.explicitAcks).toEqual(["r0", "r1"]);
    const none = await readme(id, "gh:acme/none/README.md");
    expect(none.versions).toBe(1);
    expect(none.edges).toEqual([]);
    expect(JSON.stringify(none.annotations)).toContain("the README does not write this title");
    // The model failed (401): recorded as failed, acknowledged; the README and the run stand.
    const failed = await readme(id, "gh:acme/broken/README.md");
    expect(failed.versions).toBe(1);
    expect(failed.edges).toEqual([]);
    expect(JSON.stringify(failed.annotations)).toContain('"status":"failed"');
    const log = await api("GET", `/v1/archives/${id}/ingest-log`);
    expect(JSON.stringify(log.body)).toMatch(/readme_paper[\s\S]*rejected|rejected[\s\S]*readme_paper/);

    // A title the README writes but no archive paper has is refused too.
    sent.length = 0;
    serve("acme/survey", { "README.md": "# Survey\n\nWe reproduce Sparse Mixtures Of Graph Experts here.\n" });
    await run(withModel, id, "acme/survey");
    serve("x/y", {}, [() => ({ paper_title: "Sparse Mixtures Of Graph Experts" })]);
    await deliver(sent);
    const survey = await readme(id, "gh:acme/survey/README.md");
    expect(survey.edges).toEqual([]);
    expect(JSON.stringify(survey.annotations)).toContain("no paper of the archive has this title");
  });

  it("queues nothing without a model", async () => {
    const { id } = await archive();
    sent.length = 0;
    serve("acme/plain", { "README.md": SEVERAL });
    const r = await run(noModel, id, "acme/plain");
    expect(r.status).toBe("ok");
    expect(sent).toEqual([]);
  });
});
