/**
 * xKG's model-made techniques in the xKG export, and the code rewriting step (POST
 * /techniques/rewrite), in workerd with real local D1 / R2: the Worker wired with DISTILLER=openai
 * against a mocked OpenAI endpoint, and the default Worker (no model) for the 409.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app";
import { type Env, wire } from "../../src/wiring";
import { mockFetch } from "./fetch-guard";
import { ADMIN, api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const CHAT = "https://api.openai.com/v1/chat/completions";
const withModel = createApp(() =>
  wire({
    ...env,
    DISTILLER: "openai",
    LLM_BASE_URL: "https://api.openai.com/v1",
    LLM_MODEL: "mock-1",
    LLM_API_KEY: "sk-test",
  } as unknown as Env),
);

// biome-ignore lint/suspicious/noExplicitAny: response bodies are inspected structurally in tests
async function modelApi<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const res = await withModel.request(`http://paperguru.test${path}`, {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${ADMIN}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as T };
}

/** The mocked chat endpoint: each call answers the next function of `script` with the prompt it was sent. */
function model(script: Array<(prompt: string, schema: string) => unknown>) {
  const seen: Array<{ prompt: string; schema: string }> = [];
  mockFetch({
    [CHAT]: async (req) => {
      const body = (await req.json()) as {
        messages: Array<{ role: string; content: string }>;
        response_format?: { json_schema?: { name?: string } };
      };
      const asked = { prompt: body.messages[1]?.content ?? "", schema: body.response_format?.json_schema?.name ?? "" };
      seen.push(asked);
      const next = script.shift();
      if (next === undefined) throw new Error("the model was called more often than scripted");
      return Response.json({
        id: "chatcmpl-1",
        choices: [
          { index: 0, message: { role: "assistant", content: JSON.stringify(next(asked.prompt, asked.schema)) } },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 30 },
      });
    },
  });
  return seen;
}

const listed = (prompt: string, kind: "section" | "unit") =>
  [...prompt.matchAll(new RegExp(`^\\[${kind} (\\S+)\\]`, "gmu"))].map((m) => m[1] as string);

const CODE = "import torch\n\ndef ccs_loss(p0, p1):\n    return ((p0 - (1 - p1)) ** 2).mean()\n";

function paperArtifacts(paper: string) {
  return [
    {
      id: paper,
      kind: "paper",
      title: "Discovering Latent Knowledge",
      content: "We propose Contrast-Consistent Search (CCS), an unsupervised way to find truth directions.",
    },
    {
      id: `${paper}#s2`,
      kind: "section",
      title: "Method",
      content:
        "We build contrast pairs from each yes-no question. We then learn a probe whose probabilities on the two halves of a pair sum to one.",
      edges: [{ type: "part-of", target: paper }],
    },
    { id: "gh:acme/ccs/loss.py", kind: "code_unit", title: "loss.py", content: CODE },
  ];
}

/** Two techniques (CCS, and contrast pairs as its component), CCS implemented by loss.py. */
const techniques = (prompt: string) => {
  const [, method] = listed(prompt, "section");
  return {
    techniques: [
      {
        name: "Contrast-Consistent Search",
        type: "Methodology",
        description: "Learns a probe whose probabilities on the two halves of a contrast pair sum to one.",
        parent: "",
        evidence: [
          { section: method, quote: "learn a probe whose probabilities on the two halves of a pair sum to one" },
        ],
        code: [{ unit: "gh:acme/ccs/loss.py", quote: "def ccs_loss(p0, p1):" }],
      },
      {
        name: "Contrast pairs",
        type: "Technique",
        description: "Each yes-no question becomes a pair of statements.",
        parent: "Contrast-Consistent Search",
        evidence: [{ section: method, quote: "We build contrast pairs from each yes-no question." }],
        code: [],
      },
    ],
  };
};

const IMPLEMENTATION =
  'import torch\n\ndef ccs_loss(p0: torch.Tensor, p1: torch.Tensor) -> torch.Tensor:\n    """The consistency loss."""\n    return ((p0 - (1 - p1)) ** 2).mean()\n\n# TEST BLOCK\nif __name__ == "__main__":\n    print(ccs_loss(torch.rand(2), torch.rand(2)))\n';
const goodRewrite = () => ({
  none: false,
  implementation: IMPLEMENTATION,
  test: "assert float(ccs_loss(torch.ones(1), torch.zeros(1))) == 0.0\n",
  documentation: "Computes the consistency term of the CCS loss.",
  sources: [{ id: "gh:acme/ccs/loss.py", quote: "def ccs_loss(p0, p1):" }],
});
const verdict = (v: boolean) => () => ({
  verdict: v,
  reason: v ? "Follows loss.py exactly." : "Adds a training loop.",
});

/** An archive with a paper, its techniques proposed (CCS and its component); the CCS technique id. */
async function proposed(paper: string) {
  const a = await newArchive("xrw");
  expect((await api("POST", `/v1/archives/${a.id}/ingest`, { artifacts: paperArtifacts(paper) })).status).toBe(200);
  model([techniques]);
  const res = await modelApi("POST", `/v1/archives/${a.id}/techniques/propose`, { paper, code_prefix: "gh:acme/" });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const [ccs, pairs] = res.body.proposals as Array<{ id: string }>;
  return { a, ccs: ccs?.id as string, pairs: pairs?.id as string };
}

async function exportText(archive: string, query: string) {
  const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${archive}/export?format=xkg${query}`, {
    headers: { authorization: `Bearer ${ADMIN}` },
  });
  return { status: res.status, text: await res.text() };
}

describe("model-made techniques in export?format=xkg", () => {
  it("a plain paper with proposed techniques: all papers, one paper, the planning view", async () => {
    const { a, ccs, pairs } = await proposed("paper:ccs");
    const all = await exportText(a.id, "");
    expect(all.status).toBe(200);
    const lines = all.text.trim().split("\n");
    expect(lines).toHaveLength(1);
    const p = JSON.parse(lines[0] as string);
    expect(p).toMatchObject({
      paper_title: "Discovering Latent Knowledge",
      paper_abstract: "We propose Contrast-Consistent Search (CCS), an unsupervised way to find truth directions.",
      paper_references: [],
    });
    expect(p.techniques).toHaveLength(1);
    const t = p.techniques[0];
    expect(t).toMatchObject({
      name: "Contrast-Consistent Search",
      type: "Methodology",
      origin: "model:openai:mock-1",
      review: "auto-generated",
    });
    expect(t.code).toEqual([
      {
        implementation: CODE,
        test: "",
        documentation: "",
        package: [],
        id: "gh:acme/ccs/loss.py",
        origin: expect.any(String),
      },
    ]);
    expect(t.components.map((c: { name: string; type: string }) => [c.name, c.type])).toEqual([
      ["Contrast pairs", "Technique"],
    ]);
    expect(ccs).toMatch(/^paper:ccs#mt:/);
    expect(pairs).toMatch(/^paper:ccs#mt:/);

    const one = await exportText(a.id, "&paper=paper%3Accs");
    expect(one.status).toBe(200);
    expect(JSON.parse(one.text)).toEqual(p);
    const plan = JSON.parse((await exportText(a.id, "&paper=paper%3Accs&view=planning")).text);
    expect(plan.techniques[0]).not.toHaveProperty("code");
    expect(plan.techniques[0].components[0]).not.toHaveProperty("code");
    expect(plan.techniques[0].origin).toBe("model:openai:mock-1");
    // A reviewed technique says so.
    await api("POST", `/v1/archives/${a.id}/review`, { op: "verify", chunk: ccs });
    const reviewed = JSON.parse((await exportText(a.id, "&paper=paper%3Accs")).text);
    expect(reviewed.techniques[0].review).toBe("human-verified");
    // A chunk that is no paper and holds nothing of xKG is still a 404.
    expect((await exportText(a.id, "&paper=gh%3Aacme%2Fccs%2Floss.py")).status).toBe(404);
  });

  it("techniques under the technique: fallback id are found by the paper's part-of edges", async () => {
    const paper = `paper:${"x".repeat(470)}`;
    const { a, ccs } = await proposed(paper);
    expect(ccs).toMatch(/^technique:contrast-consistent-search-/);
    const one = await exportText(a.id, `&paper=${encodeURIComponent(paper)}`);
    expect(one.status).toBe(200);
    const p = JSON.parse(one.text);
    expect(p.techniques.map((t: { name: string }) => t.name)).toEqual(["Contrast-Consistent Search"]);
    expect(p.techniques[0].components).toHaveLength(1);
  });

  it("an imported paper keeps its released techniques; the model's come after them", async () => {
    const a = await newArchive("xrw");
    const file = {
      paper_title: "Classifier-Free Diffusion Guidance",
      paper_abstract: "Guidance without a classifier, mixing conditional and unconditional scores.",
      paper_references: [],
      resources: [],
      findings: [],
      code_file: "",
      code_overview: "",
      techniques: [{ name: "Guided sampler", description: "Mixes scores.", weight: 1, code: null, components: [] }],
    };
    const imp = await WORKER.fetch(`http://paperguru.test/v1/archives/${a.id}/import?format=xkg&name=kg.json`, {
      method: "POST",
      headers: { authorization: `Bearer ${ADMIN}`, "content-type": "text/plain" },
      body: JSON.stringify(file),
    });
    expect(imp.status).toBe(200);
    const before = await exportText(a.id, "");
    expect(JSON.parse(before.text)).toEqual(file);
    const paper = "paper:classifier-free-diffusion-guidance";
    model([
      () => ({
        techniques: [
          {
            name: "Score mixing",
            type: "Technique",
            description: "Mixes conditional and unconditional scores.",
            parent: "",
            evidence: [{ section: paper, quote: "mixing conditional and unconditional scores" }],
            code: [],
          },
        ],
      }),
    ]);
    const res = await modelApi("POST", `/v1/archives/${a.id}/techniques/propose`, { paper });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const after = JSON.parse((await exportText(a.id, "")).text);
    expect(after.techniques[0]).toEqual(file.techniques[0]);
    expect(after.techniques[1]).toMatchObject({ name: "Score mixing", type: "Technique", code: [], components: [] });
    expect(JSON.parse((await exportText(a.id, `&paper=${encodeURIComponent(paper)}`)).text)).toEqual(after);
  });
});

describe("POST /techniques/rewrite", () => {
  it("answers 409 naming the setting when no model is configured", async () => {
    const a = await newArchive("xrw");
    const res = await api("POST", `/v1/archives/${a.id}/techniques/rewrite`, { technique: "paper:x#mt:y" });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/no model configured: set DISTILLER or EXTRACTOR and LLM_\*/);
  });

  it("stores a rewrite that passes every check; a retry writes nothing new; the export shows it", async () => {
    const { a, ccs, pairs } = await proposed("paper:ccs");
    const seen = model([goodRewrite, verdict(true), goodRewrite, verdict(true)]);
    const res = await modelApi("POST", `/v1/archives/${a.id}/techniques/rewrite`, { technique: ccs });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      outcome: "stored",
      paper: "paper:ccs",
      read: { code_units: ["gh:acme/ccs/loss.py"], sub_techniques: [pairs] },
      checks: { quotes: { ok: true }, core: { lines: 3, found: 2, ok: true }, verifier: { verdict: true } },
      reasons: [],
    });
    expect(res.body.id).toMatch(new RegExp(`^${ccs.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}#code:[0-9a-f]{12}$`));
    expect(res.body.test_id).toBe(`${res.body.id}#test`);
    expect(seen.map((s) => s.schema)).toEqual(["rewrite", "verify_rewrite"]);
    // The composite prompt: CCS has a sub-technique, shown with its (no) code; the abstract is there.
    expect(seen[0]?.prompt).toContain("Sub-techniques and associated code (1):");
    expect(seen[0]?.prompt).toContain("We propose Contrast-Consistent Search (CCS)");
    expect(seen[1]?.prompt).toContain("Implemented code block:");

    const code = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(res.body.id)}`);
    expect(code.body.kind).toBe("code_unit");
    expect(JSON.stringify(code.body)).toContain("model:openai:mock-1");
    expect(code.body.edges.some((e: { type: string; dst: string }) => e.type === "implements" && e.dst === ccs)).toBe(
      true,
    );
    const review = await api("GET", `/v1/archives/${a.id}/review?chunk=${encodeURIComponent(res.body.id)}`);
    expect(review.body.status).toBe("auto-generated");
    const anchors = res.body.rewrite.sources.map((s: { anchor: unknown }) => s.anchor);
    expect((await api("POST", `/v1/archives/${a.id}/verify`, { anchors })).body.all_verified).toBe(true);

    const again = await modelApi("POST", `/v1/archives/${a.id}/techniques/rewrite`, { technique: ccs });
    expect(again.body).toMatchObject({ outcome: "existing", id: res.body.id });
    const after = await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(res.body.id)}`);
    expect(after.body.versions).toHaveLength(1);

    const p = JSON.parse((await exportText(a.id, "&paper=paper%3Accs")).text);
    const rewritten = p.techniques[0].code.find((c: { id: string }) => c.id === res.body.id);
    expect(rewritten).toMatchObject({
      // The answer's fields are stored trimmed.
      implementation: IMPLEMENTATION.trim(),
      test: goodRewrite().test.trim(),
      documentation: goodRewrite().documentation,
      origin: "model:openai:mock-1",
    });
  });

  it("keeps a rewrite that fails a check as a proposal only; None stores nothing", async () => {
    const { a, ccs } = await proposed("paper:ccs");
    const invented = () => ({
      ...goodRewrite(),
      implementation: "import numpy as np\n\ndef train(x):\n    w = np.zeros(3)\n    return w @ x\n",
    });
    const seen = model([invented, goodRewrite, verdict(false), () => ({ ...goodRewrite(), none: true })]);
    const ask = () => modelApi("POST", `/v1/archives/${a.id}/techniques/rewrite`, { technique: ccs });
    const rules = await ask();
    expect(rules.body).toMatchObject({
      outcome: "proposal",
      checks: { core: { ok: false }, verifier: { verdict: null } },
    });
    expect(rules.body.reasons[0]).toMatch(/core lines/);
    expect(seen).toHaveLength(1);
    const judged = await ask();
    expect(judged.body).toMatchObject({ outcome: "proposal", checks: { verifier: { verdict: false } } });
    expect(judged.body.reasons[0]).toMatch(/verifier answered false/);
    const none = await ask();
    expect(none.body).toMatchObject({ outcome: "none", id: null, rewrite: null });
    const stored = await api("GET", `/v1/archives/${a.id}/chunks?prefix=${encodeURIComponent(`${ccs}#code:`)}`);
    expect(stored.body.chunks).toEqual([]);
  });

  it("names the field of a bad id; dry_run writes nothing", async () => {
    const { a, ccs } = await proposed("paper:ccs");
    const ask = (body: Record<string, unknown>) => modelApi("POST", `/v1/archives/${a.id}/techniques/rewrite`, body);
    const missing = await ask({ technique: "paper:ccs#mt:nothing" });
    expect([missing.status, missing.body.error.field]).toEqual([404, "technique"]);
    const section = await ask({ technique: "paper:ccs#s2" });
    expect([section.status, section.body.error.field]).toEqual([400, "technique"]);
    const unit = await ask({ technique: ccs, code_units: ["gh:none.py"] });
    expect([unit.status, unit.body.error.field]).toEqual([404, "code_units"]);
    const notCode = await ask({ technique: ccs, code_units: ["paper:ccs#s2"] });
    expect([notCode.status, notCode.body.error.field]).toEqual([400, "code_units"]);
    model([goodRewrite, verdict(true)]);
    const dry = await ask({ technique: ccs, dry_run: true, code_units: ["gh:acme/ccs/loss.py"] });
    expect(dry.body).toMatchObject({ outcome: "dry_run", dry_run: true });
    expect((await api("GET", `/v1/archives/${a.id}/chunks/${encodeURIComponent(dry.body.id)}`)).status).toBe(404);
  });
});
