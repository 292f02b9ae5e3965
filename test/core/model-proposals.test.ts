/**
 * The seed systems' model roles over a scripted ChatModel: the shared loop (one call, one retry on an
 * unusable answer, a clear failure otherwise) and each role's checks (ProjectGuard commitments, xKG
 * techniques, SGMC feedback): items must cite what the model was given and quote it verbatim, as
 * anchors that re-slice exactly; items citing nothing it read are dropped.
 */
import { describe, expect, it } from "vitest";
import { spanReslices } from "../../src/core/distill/card";
import type { ChatModel, StructuredOutcome, StructuredRequest } from "../../src/core/ports";
import {
  COMMITMENTS_SCHEMA,
  checkCommitments,
  commitmentsPrompt,
  fitTurns,
  type Turn,
} from "../../src/core/proposals/commitments";
import { checkCritique, critiquePrompt } from "../../src/core/proposals/critique";
import { anchorQuote, propose } from "../../src/core/proposals/propose";
import { checkTechniques, fitSources, type TitledDoc, techniquesPrompt } from "../../src/core/proposals/techniques";

const usage = { inputTokens: 100, outputTokens: 40, requests: 1, ms: 2 };

/** A ChatModel answering from a script (a value, or a whole outcome), recording what it was asked. */
function scripted(answers: Array<StructuredOutcome | unknown>) {
  const asked: StructuredRequest[] = [];
  const model: ChatModel = {
    provider: "openai",
    model: "mock-1",
    async structured(req) {
      asked.push(structuredClone(req));
      const next = answers.shift();
      if (next && typeof next === "object" && "ok" in next) return next as StructuredOutcome;
      return { ok: true, value: next, usage };
    },
  };
  return { model, asked };
}

const malformed: StructuredOutcome = {
  ok: false,
  error: { code: "malformed", message: "not JSON" },
  usage,
};

const TURNS: Turn[] = [
  {
    id: "turn:s1/1000-aaaa",
    version: 1,
    role: "user",
    at: 1000,
    text: "Let's keep the heads in a Durable Object cache. Evict the least recently used head first when it is full.",
  },
  {
    id: "turn:s1/2000-bbbb",
    version: 1,
    role: "assistant",
    at: 2000,
    text: "Done: the cache now evicts by least recent use,\n  with a limit of 10,000 heads.",
  },
];

const goodCommitments = {
  records: [
    {
      kind: "design",
      title: "Heads live in a Durable Object cache",
      content: "Every archive keeps its heads in a Durable Object cache.",
      design: "",
      evidence: [{ turn: "turn:s1/1000-aaaa", quote: "keep the heads in a Durable Object cache" }],
    },
    {
      kind: "decision",
      title: "Evict least recently used heads",
      content: "When the cache is full the least recently used head goes first; the limit is 10,000 heads.",
      design: "Heads live in a Durable Object cache",
      evidence: [
        { turn: "turn:s1/1000-aaaa", quote: "Evict the least recently used head first when it is full." },
        // The model changed the whitespace: located word for word, anchored on the turn's own text.
        { turn: "turn:s1/2000-bbbb", quote: "evicts by least recent use, with a limit of 10,000 heads" },
      ],
    },
  ],
};

describe("the proposal loop", () => {
  const check = (v: unknown) => checkCommitments(v, TURNS, []);
  const ask = (model: ChatModel) =>
    propose({
      model,
      name: "commitments",
      description: "test",
      schema: COMMITMENTS_SCHEMA,
      system: "sys",
      prompt: commitmentsPrompt(TURNS, []),
      maxOutputTokens: 512,
      check,
    });

  it("returns the verified items of a good answer after one call, with its usage", async () => {
    const { model, asked } = scripted([goodCommitments]);
    const out = await ask(model);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.items.map((x) => x.title)).toEqual([
      "Heads live in a Durable Object cache",
      "Evict least recently used heads",
    ]);
    expect(out.dropped).toEqual([]);
    expect(out.usage).toMatchObject({ calls: 1, requests: 1, retries: 0, inputTokens: 100, outputTokens: 40 });
    expect(asked).toHaveLength(1);
    expect(asked[0]?.schema).toEqual(COMMITMENTS_SCHEMA);
    expect(asked[0]?.messages[1]?.content).toContain("[turn turn:s1/1000-aaaa] user");
  });

  it("retries once on a malformed answer, naming the problem", async () => {
    const { model, asked } = scripted([malformed, goodCommitments]);
    const out = await ask(model);
    expect(out.ok && out.items.length).toBe(2);
    expect(out.usage).toMatchObject({ calls: 2, retries: 1 });
    expect(asked[1]?.messages.at(-1)?.content).toMatch(/not usable: not JSON/);
  });

  it("fails as unusable after two malformed answers", async () => {
    const { model } = scripted([malformed, malformed, goodCommitments]);
    const out = await ask(model);
    expect(out).toMatchObject({ ok: false, code: "unusable", attempts: 2 });
    expect(out.usage.calls).toBe(2);
  });

  it("does not retry a failed call (rate limit, outage, refusal)", async () => {
    const { model, asked } = scripted([
      { ok: false, error: { code: "rate_limited", message: "429 until the retries ran out", status: 429 }, usage },
      goodCommitments,
    ]);
    const out = await ask(model);
    expect(out).toMatchObject({ ok: false, code: "rate_limited", attempts: 1 });
    expect(asked).toHaveLength(1);
  });

  it("retries once when every item was dropped, then keeps the verified ones", async () => {
    const bad = {
      records: [
        {
          kind: "design",
          title: "Invented",
          content: "Something nobody said.",
          design: "",
          evidence: [{ turn: "turn:s9/1-zzzz", quote: "keep the heads in a Durable Object cache" }],
        },
      ],
    };
    const { model, asked } = scripted([bad, goodCommitments]);
    const out = await ask(model);
    expect(out.ok && out.items.length).toBe(2);
    expect(out.usage.retries).toBe(1);
    expect(asked[1]?.messages.at(-1)?.content).toMatch(/a turn it was not given/);
  });

  it("answers an empty list when the retry is no better, listing what was dropped", async () => {
    const bad = {
      records: [
        {
          kind: "decision",
          title: "Paraphrased",
          content: "LRU.",
          design: "",
          evidence: [{ turn: "turn:s1/1000-aaaa", quote: "use an LRU policy for the cache" }],
        },
      ],
    };
    const { model } = scripted([bad, bad]);
    const out = await ask(model);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    expect(out.items).toEqual([]);
    expect(out.dropped.map((x) => x.what)).toEqual(["evidence", "item"]);
    expect(out.dropped[0]?.reason).toMatch(/not verbatim in turn:s1\/1000-aaaa/);
  });

  it("an empty answer is a valid answer: no retry", async () => {
    const { model } = scripted([{ records: [] }]);
    const out = await ask(model);
    expect(out).toMatchObject({ ok: true, items: [], dropped: [], attempts: 1 });
  });

  it("retries an answer that is not the schema's object", async () => {
    const { model } = scripted([["not", "an", "object"], goodCommitments]);
    const out = await ask(model);
    expect(out.ok && out.items.length).toBe(2);
  });
});

describe("ProjectGuard commitments", () => {
  it("anchors every quote as an exact span of the turn it cites", () => {
    const out = checkCommitments(goodCommitments, TURNS, []);
    if (typeof out === "string") throw new Error(out);
    const decision = out.items[1];
    expect(decision?.sources).toEqual(["turn:s1/1000-aaaa", "turn:s1/2000-bbbb"]);
    for (const a of decision?.anchors ?? []) {
      const turn = TURNS.find((t) => t.id === a.artifact_id) as Turn;
      expect(spanReslices(a, turn.text)).toBe(true);
      expect(a.version).toBe(1);
    }
    // Whitespace the model changed: the anchor is the turn's own text.
    expect(decision?.anchors[1]?.snippet).toBe("evicts by least recent use,\n  with a limit of 10,000 heads");
    // The decision names a design of the same answer by title.
    expect(decision?.design).toBe("title:Heads live in a Durable Object cache");
  });

  it("drops items citing unread turns or quoting what the turn does not say, keeps partial evidence", () => {
    const out = checkCommitments(
      {
        records: [
          {
            kind: "decision",
            title: "Half right",
            content: "Evict by least recent use.",
            design: "",
            evidence: [
              { turn: "turn:s1/1000-aaaa", quote: "Evict the least recently used head first" },
              { turn: "turn:other/5-cccc", quote: "Evict the least recently used head first" },
            ],
          },
          {
            kind: "design",
            title: "Hallucinated",
            content: "Store heads in KV.",
            design: "",
            evidence: [{ turn: "turn:s1/1000-aaaa", quote: "store the heads in Workers KV" }],
          },
          {
            kind: "constraint",
            title: "Wrong kind",
            content: "x",
            design: "",
            evidence: [{ turn: "turn:s1/1000-aaaa", quote: "Evict the least recently used head first" }],
          },
          {
            kind: "decision",
            title: "Too short a quote",
            content: "x",
            design: "",
            evidence: [{ turn: "turn:s1/1000-aaaa", quote: "the" }],
          },
        ],
      },
      TURNS,
      [],
    );
    if (typeof out === "string") throw new Error(out);
    expect(out.items.map((x) => x.title)).toEqual(["Half right"]);
    expect(out.items[0]?.sources).toEqual(["turn:s1/1000-aaaa"]);
    expect(out.dropped.map((x) => [x.index, x.what])).toEqual([
      [0, "evidence"],
      [1, "evidence"],
      [1, "item"],
      [2, "item"],
      [3, "evidence"],
      [3, "item"],
    ]);
    expect(out.dropped[0]?.reason).toMatch(/turn:other\/5-cccc.*not given/);
    expect(out.dropped[4]?.reason).toMatch(/shorter than 12 characters/);
  });

  it("links a decision to a listed design by id; an unknown design is dropped as a link, not the decision", () => {
    const answer = (design: string) => ({
      records: [
        {
          kind: "decision",
          title: "Evict least recently used heads",
          content: "LRU eviction.",
          design,
          evidence: [{ turn: "turn:s1/1000-aaaa", quote: "Evict the least recently used head first" }],
        },
      ],
    });
    const designs = [{ id: "design:storage", title: "Storage" }];
    const linked = checkCommitments(answer("design:storage"), TURNS, designs);
    expect(typeof linked !== "string" && linked.items[0]?.design).toBe("design:storage");
    const unknown = checkCommitments(answer("design:nowhere"), TURNS, designs);
    if (typeof unknown === "string") throw new Error(unknown);
    expect(unknown.items[0]?.design).toBeNull();
    expect(unknown.dropped).toEqual([expect.objectContaining({ what: "link", index: 0 })]);
  });

  it("shows the most recent turns whole within the prompt's budget, oldest first", () => {
    const many: Turn[] = Array.from({ length: 10 }, (_, i) => ({
      id: `t${i}`,
      version: 1,
      role: "user",
      at: i,
      text: `${"word ".repeat(999)}end`,
    }));
    const shown = fitTurns(many, 12_000);
    expect(shown.map((t) => t.id)).toEqual(["t8", "t9"]);
    // A long turn keeps a prefix, so anchors keep their offsets.
    const long = fitTurns([{ ...TURNS[0], text: `${"a".repeat(5990)} tail ${"b".repeat(100)}` } as Turn]);
    expect(long[0]?.text.length).toBeLessThanOrEqual(6000);
    expect(typeof anchorQuote(long[0] as Turn, "b".repeat(20))).toBe("string");
  });
});

const SECTIONS: TitledDoc[] = [
  {
    id: "paper:ccs",
    version: 1,
    title: "Discovering Latent Knowledge",
    text: "Discovering Latent Knowledge\n\nWe propose Contrast-Consistent Search, an unsupervised method.",
  },
  {
    id: "paper:ccs#s2-method",
    version: 2,
    title: "Method",
    text: "We build contrast pairs from each question. We then find a direction in activation space that satisfies logical consistency across the pair.",
  },
];
const CODE: TitledDoc[] = [
  {
    id: "gh:acme/ccs/ccs.py",
    version: 3,
    title: "ccs.py",
    text: "import torch\n\ndef get_consistent_loss(p0, p1):\n    return ((p0 - (1 - p1)) ** 2).mean()\n",
  },
];

describe("xKG techniques", () => {
  const technique = (over: Record<string, unknown> = {}) => ({
    name: "Contrast-Consistent Search",
    type: "Methodology",
    description: "Finds a direction in activation space consistent across contrast pairs.",
    parent: "",
    evidence: [{ section: "paper:ccs#s2-method", quote: "find a direction in activation space" }],
    code: [{ unit: "gh:acme/ccs/ccs.py", quote: "def get_consistent_loss(p0, p1):" }],
    ...over,
  });

  it("keeps techniques quoting their sections, with verified code links and parents listed before", () => {
    const out = checkTechniques(
      {
        techniques: [
          technique(),
          technique({
            name: "Consistency loss",
            type: "Technique",
            parent: "contrast-consistent search",
            evidence: [{ section: "paper:ccs#s2-method", quote: "satisfies logical consistency across the pair" }],
          }),
        ],
      },
      SECTIONS,
      CODE,
    );
    if (typeof out === "string") throw new Error(out);
    expect(out.dropped).toEqual([]);
    expect(out.items.map((x) => [x.name, x.parent])).toEqual([
      ["Contrast-Consistent Search", null],
      ["Consistency loss", "Contrast-Consistent Search"],
    ]);
    const [first] = out.items;
    expect(first?.anchors[0]).toMatchObject({ artifact_id: "paper:ccs#s2-method", version: 2 });
    expect(spanReslices(first?.anchors[0] as never, SECTIONS[1]?.text ?? "")).toBe(true);
    expect(first?.code[0]?.anchor).toMatchObject({ artifact_id: "gh:acme/ccs/ccs.py", version: 3 });
    expect(spanReslices(first?.code[0]?.anchor as never, CODE[0]?.text ?? "")).toBe(true);
  });

  it("drops techniques citing unread sections, and code links to unread units or misquoted code", () => {
    const out = checkTechniques(
      {
        techniques: [
          technique({ evidence: [{ section: "paper:other#s1", quote: "find a direction in activation space" }] }),
          technique({
            name: "Kept without code",
            code: [
              { unit: "gh:acme/other.py", quote: "def get_consistent_loss(p0, p1):" },
              { unit: "gh:acme/ccs/ccs.py", quote: "def consistent_loss(a, b):" },
            ],
            parent: "Later technique",
          }),
          technique({ name: "Finding", type: "Finding" }),
        ],
      },
      SECTIONS,
      CODE,
    );
    if (typeof out === "string") throw new Error(out);
    expect(out.items.map((x) => x.name)).toEqual(["Kept without code"]);
    expect(out.items[0]?.code).toEqual([]);
    expect(out.items[0]?.parent).toBeNull();
    expect(out.dropped.map((x) => [x.index, x.what])).toEqual([
      [0, "evidence"],
      [0, "item"],
      [1, "link"],
      [1, "link"],
      [1, "link"],
      [2, "item"],
    ]);
  });

  it("shows sections and code under their ids, cut to the prompt's budget", () => {
    const shown = fitSources(SECTIONS, CODE);
    const prompt = techniquesPrompt("Discovering Latent Knowledge", shown.sections, shown.code);
    expect(prompt).toContain("[section paper:ccs#s2-method] Method");
    expect(prompt).toContain("[unit gh:acme/ccs/ccs.py] ccs.py");
    const none = techniquesPrompt("x", shown.sections, []);
    expect(none).toContain("Code units: none given");
  });
});

describe("SGMC feedback from a critique", () => {
  const draft = {
    id: "rev/retrieval#draft",
    version: 3,
    text: "Dense retrievers beat BM25 everywhere [1]. HippoRAG improves recall by 30 points [2].",
  };
  const item = (over: Record<string, unknown> = {}) => ({
    title: "Check each number against its cited passage",
    text: "The cited passage says up to 20 points, not 30.",
    category: "citation",
    quotes: ["HippoRAG improves recall by 30 points"],
    ...over,
  });

  it("anchors the items in the draft version and drops the ones quoting what the draft does not say", () => {
    const out = checkCritique(
      {
        feedback: [
          item(),
          item({ title: "Qualify absolute claims", category: "accuracy", quotes: ["beat BM25 on every benchmark"] }),
          item({ title: "Wrong category", category: "style" }),
        ],
      },
      draft,
    );
    if (typeof out === "string") throw new Error(out);
    expect(out.items.map((x) => x.title)).toEqual(["Check each number against its cited passage"]);
    const a = out.items[0]?.anchors[0];
    expect(a).toMatchObject({ artifact_id: "rev/retrieval#draft", version: 3 });
    expect(spanReslices(a as never, draft.text)).toBe(true);
    expect(out.dropped.map((x) => [x.index, x.what])).toEqual([
      [1, "evidence"],
      [1, "item"],
      [2, "item"],
    ]);
  });

  it("shows the request, the draft and its evidence's exact words", () => {
    const p = critiquePrompt("Check citations.", "Retrieval", draft, [
      { artifactId: "arxiv:2405.14831", snippet: "improves recall@5 by up to 20 points" },
    ]);
    expect(p).toContain("Request: Check citations.");
    expect(p).toContain(draft.text);
    expect(p).toContain('[arxiv:2405.14831] "improves recall@5 by up to 20 points"');
  });
});
