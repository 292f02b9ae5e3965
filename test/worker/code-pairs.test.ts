import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

async function importXkg(archive: string, key: string, doc: unknown, validFrom?: string) {
  const q = validFrom ? `&valid_from=${encodeURIComponent(validFrom)}` : "";
  const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${archive}/import?format=xkg&name=kg.json${q}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
    body: JSON.stringify(doc),
  });
  expect(res.status).toBe(200);
  return res.json();
}

const guidance = {
  paper_title: "Classifier-Free Diffusion Guidance",
  paper_abstract: "Guidance for diffusion models without a classifier.",
  techniques: [
    {
      name: "Classifier-free guidance sampling",
      description:
        "At sampling time, combine the conditional and unconditional noise predictions of one diffusion model with a guidance weight to trade diversity for fidelity.",
      weight: 1,
      code: {
        implementation:
          "def guided_eps(eps_cond, eps_uncond, w):\n    # classifier-free guidance: mix conditional and unconditional predictions\n    return (1 + w) * eps_cond - w * eps_uncond\n",
        test: "assert guided_eps(1.0, 0.0, 0.5) == 1.5\n",
        documentation: "Mixes conditional and unconditional noise predictions with guidance weight w.",
        package: ["torch"],
      },
      components: [
        {
          name: "Conditioning dropout",
          description:
            "During training, drop the class label with a fixed probability so the model also learns the unconditional score.",
          weight: 0.5,
          code: null,
          components: [],
        },
      ],
    },
  ],
};

const replay = {
  paper_title: "Rethinking Experience Replay",
  paper_abstract: "Tricks for rehearsal-based continual learning.",
  techniques: [
    {
      name: "Reservoir sampling buffer",
      description: "Keep a fixed-size memory of past examples, each seen example kept with equal probability.",
      weight: 1,
      code: {
        implementation:
          "import random\n\ndef reservoir_add(buffer, item, seen, size):\n    if len(buffer) < size:\n        buffer.append(item)\n    else:\n        j = random.randint(0, seen)\n        if j < size:\n            buffer[j] = item\n",
        test: "",
        documentation: "Reservoir sampling into a fixed-size replay buffer.",
        package: [],
      },
      components: [],
    },
  ],
};

type Pair = {
  technique: { id: string; anchor: { end: number } };
  code: {
    id: string;
    version: number;
    anchor: { artifact_id: string; start: number; end: number };
    bytes: number;
  } | null;
  grounded: boolean;
  score: number;
  parts: { semantic: number; semantic_from: string; lexical: number; route: number };
};

/** The guidance paper again, its conditioning-dropout component now with code (a later import). */
const guidanceWithDropoutCode = structuredClone(guidance);
const dropoutImpl =
  "import torch\n\ndef drop_labels(labels, p_uncond, null_label):\n    # conditioning dropout: replace a label by the null label with probability p_uncond (ω-free)\n    keep = torch.rand(labels.shape) >= p_uncond\n    return torch.where(keep, labels, torch.full_like(labels, null_label))\n";
(guidanceWithDropoutCode.techniques[0] as { components: Array<Record<string, unknown>> }).components[0] = {
  ...(guidance.techniques[0]?.components[0] as Record<string, unknown>),
  code: {
    implementation: dropoutImpl,
    test: "",
    documentation: "Drops class labels to the null label so one model learns the unconditional score.",
    package: ["torch"],
  },
};

describe("POST /code-pairs", () => {
  it("routes over techniques, follows implements to code, flags ungrounded ones, respects threshold and as_of", async () => {
    const { id, key } = await newArchive("pairs");
    await importXkg(id, key, guidance, "2024-01-01T00:00:00Z");
    const beforeReplay = "2024-06-01T00:00:00Z";
    await importXkg(id, key, replay, "2025-01-01T00:00:00Z");
    const ask = (body: Record<string, unknown>) => api("POST", `/v1/archives/${id}/code-pairs`, body, key);

    const res = await ask({
      query: "classifier-free guidance: mix conditional and unconditional predictions",
      threshold: -1,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const pairs: Pair[] = res.body.pairs;
    const top = pairs[0] as Pair;
    expect(top.technique.id).toMatch(/#t:classifier-free-guidance-sampling$/);
    expect(top.code?.id).toBe(`${top.technique.id}#code`);
    expect(top.grounded).toBe(true);
    expect(top.technique.anchor.end).toBeGreaterThan(50);
    // The score is the technique's cosine, reported again among its parts.
    expect(top.parts.semantic).toBe(top.score);
    expect(top.parts.semantic_from).toBe("index");
    expect(top.parts.route).toBeGreaterThan(0);
    // The code anchor spans the implementation only (the documentation is stored after it), and it
    // reads back verbatim; bytes count UTF-8.
    const impl = guidance.techniques[0]?.code.implementation as string;
    expect(top.code?.anchor).toMatchObject({ artifact_id: top.code?.id, start: 0, end: impl.length });
    expect(top.code?.bytes).toBe(new TextEncoder().encode(impl).length);
    const span = await api(
      "GET",
      `/v1/archives/${id}/chunks/${encodeURIComponent(top.code?.id as string)}/content?start=0&end=${top.code?.anchor.end}`,
      undefined,
      key,
    );
    expect(span.body.text).toBe(impl);
    // The component without code comes back flagged; tests are never paired (only implements is followed).
    const dropout = pairs.find((p) => p.technique.id.endsWith("/conditioning-dropout"));
    expect(dropout).toMatchObject({ code: null, grounded: false });
    expect(pairs.some((p) => p.code?.id.endsWith("#test"))).toBe(false);
    const grounded = await ask({
      query: "conditioning dropout of the class label",
      threshold: -1,
      include_ungrounded: false,
    });
    expect(grounded.body.pairs.every((p: Pair) => p.grounded)).toBe(true);

    // A threshold above every score returns nothing and counts what it dropped.
    const none = await ask({ query: "reservoir sampling replay buffer", threshold: 0.999 });
    expect(none.body.pairs).toEqual([]);
    expect(none.body.below_threshold).toBeGreaterThan(0);
    // Scores are in [-1, 1] and ordered pairs clear the threshold.
    const some = await ask({ query: "reservoir sampling replay buffer", threshold: 0.05 });
    for (const p of some.body.pairs as Pair[]) expect(p.score).toBeGreaterThanOrEqual(0.05);
    expect((some.body.pairs as Pair[])[0]?.code?.id).toMatch(/reservoir-sampling-buffer#code$/);

    // As of before the second import, its technique and code do not exist.
    const early = await ask({ query: "reservoir sampling replay buffer", threshold: -1, as_of: beforeReplay });
    expect((early.body.pairs as Pair[]).some((p) => p.technique.id.includes("reservoir"))).toBe(false);

    // within one paper's subtree.
    const paper = top.technique.id.split("#")[0] as string;
    const inside = await ask({ query: "reservoir sampling replay buffer", threshold: -1, within: paper });
    expect((inside.body.pairs as Pair[]).length).toBeGreaterThan(0);
    expect((inside.body.pairs as Pair[]).every((p) => p.technique.id.startsWith(paper))).toBe(true);
    // Boundary tags: every imported technique carries xkg:technique, none carries the other tag.
    const tagged = await ask({
      query: "reservoir sampling replay buffer",
      threshold: -1,
      boundaries_any: ["xkg:technique"],
    });
    expect((tagged.body.pairs as Pair[]).some((p) => p.technique.id.includes("reservoir"))).toBe(true);
    const untagged = await ask({
      query: "reservoir sampling replay buffer",
      threshold: -1,
      boundaries_all: ["xkg:technique", "package:torch"],
    });
    expect(untagged.body.pairs).toEqual([]);
  });

  it("pairs code added to a technique later only from then on", async () => {
    const { id, key } = await newArchive("pairs");
    await importXkg(id, key, guidance, "2024-01-01T00:00:00Z");
    await importXkg(id, key, guidanceWithDropoutCode, "2024-09-01T00:00:00Z");
    const ask = (as_of?: string) =>
      api(
        "POST",
        `/v1/archives/${id}/code-pairs`,
        { query: "conditioning dropout of the class label", threshold: -1, ...(as_of ? { as_of } : {}) },
        key,
      );
    const dropout = (pairs: Pair[]) => pairs.find((p) => p.technique.id.endsWith("/conditioning-dropout"));
    const before = await ask("2024-06-01T00:00:00Z");
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(dropout(before.body.pairs)).toMatchObject({ grounded: false, code: null });
    const now = await ask();
    const later = dropout(now.body.pairs) as Pair;
    expect(later).toMatchObject({ grounded: true });
    expect(later.code?.id).toBe(`${later.technique.id}#code`);
    expect(later.code?.anchor.end).toBe(dropoutImpl.length);
    // "ω" is 2 bytes in UTF-8 and one UTF-16 unit: bytes and the anchor's length differ by one.
    expect(later.code?.bytes).toBe(dropoutImpl.length + 1);
  });

  it("names the field of bad input, and another archive's key is refused", async () => {
    const { id, key } = await newArchive("pairs");
    const bad = await api("POST", `/v1/archives/${id}/code-pairs`, { query: "x", threshold: 2 }, key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("threshold");
    const extra = await api("POST", `/v1/archives/${id}/code-pairs`, { query: "x", kinds: ["paper"] }, key);
    expect(extra.status).toBe(400);
    const limit = await api("POST", `/v1/archives/${id}/code-pairs`, { query: "x", limit: 51 }, key);
    expect(limit.status).toBe(400);
    expect(limit.body.error.field).toBe("limit");
    const tags = await api(
      "POST",
      `/v1/archives/${id}/code-pairs`,
      { query: "x", boundaries_any: "xkg:technique" },
      key,
    );
    expect(tags.status).toBe(400);
    expect(tags.body.error.field).toBe("boundaries_any");
    const empty = await api("POST", `/v1/archives/${id}/code-pairs`, { query: "" }, key);
    expect(empty.status).toBe(400);
    expect(empty.body.error.field).toBe("query");
    const other = await newArchive("pairs");
    expect((await api("POST", `/v1/archives/${id}/code-pairs`, { query: "x" }, other.key)).status).toBe(403);
  });
});

describe("POST /code-pairs with max_code_bytes", () => {
  it("holds the code spans together to the cap: whole spans first, one cut at a line end, the rest left out", async () => {
    const { id, key } = await newArchive("pairs-cap");
    await importXkg(id, key, guidanceWithDropoutCode);
    await importXkg(id, key, replay);
    const ask = (body: Record<string, unknown>) => api("POST", `/v1/archives/${id}/code-pairs`, body, key);
    const query = "guidance sampling, conditioning dropout and a reservoir replay buffer";
    const all = await ask({ query, threshold: -1, include_ungrounded: false });
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    const whole: Pair[] = all.body.pairs;
    expect(whole.length).toBeGreaterThanOrEqual(3);
    const sizes = whole.map((p) => p.code?.bytes ?? 0);
    expect(all.body.code_bytes).toBe(sizes.reduce((a, b) => a + b, 0));
    expect(all.body.code_left_out).toBe(0);

    // A cap that takes the first span whole and part of the second.
    const first = sizes[0] as number;
    const cap = first + Math.floor((sizes[1] as number) / 2);
    const capped = await ask({ query, threshold: -1, include_ungrounded: false, max_code_bytes: cap });
    expect(capped.status, JSON.stringify(capped.body)).toBe(200);
    const pairs: Array<Pair & { code: (NonNullable<Pair["code"]> & { truncated?: boolean }) | null }> =
      capped.body.pairs;
    expect(pairs.map((p) => p.technique.id)).toEqual(whole.map((p) => p.technique.id));
    expect(pairs[0]?.code).toEqual(whole[0]?.code);
    const cut = pairs[1]?.code;
    expect(cut?.truncated).toBe(true);
    expect(cut?.bytes).toBeLessThanOrEqual(cap - first);
    expect(cut?.bytes).toBeGreaterThan(0);
    // The cut span reads back as whole lines of the original.
    const text = await api(
      "GET",
      `/v1/archives/${id}/chunks/${encodeURIComponent(cut?.id as string)}/content?start=0&end=${cut?.anchor.end}`,
      undefined,
      key,
    );
    expect(text.body.text.endsWith("\n")).toBe(true);
    expect(new TextEncoder().encode(text.body.text).length).toBe(cut?.bytes);
    // Later pairs get what is left, cut the same way, or no code once nothing whole-lined fits.
    for (const p of pairs.slice(2)) {
      expect(p.grounded).toBe(true);
      if (p.code) expect(p.code.truncated).toBe(true);
    }
    expect(capped.body.code_left_out).toBe(pairs.filter((p) => p.code === null).length);
    expect(capped.body.code_bytes).toBe(pairs.reduce((a, p) => a + (p.code?.bytes ?? 0), 0));
    expect(capped.body.code_bytes).toBeLessThanOrEqual(cap);
    // A cap smaller than any first line leaves every pair without code.
    const tiny = await ask({ query, threshold: -1, include_ungrounded: false, max_code_bytes: 5 });
    expect(tiny.body.code_bytes).toBe(0);
    expect(tiny.body.code_left_out).toBe(whole.length);

    const bad = await ask({ query, max_code_bytes: 0 });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("max_code_bytes");
  });
});
