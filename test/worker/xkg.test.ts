import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

async function importXkg(archive: string, key: string, body: string, name = "kg.json") {
  const res = await WORKER.fetch(
    `http://paperguru.test/v1/archives/${archive}/import?format=xkg&name=${encodeURIComponent(name)}`,
    { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" }, body },
  );
  // biome-ignore lint/suspicious/noExplicitAny: structural checks
  return { status: res.status, body: (await res.json()) as any };
}

async function exportXkg(archive: string, key: string, query = "") {
  const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${archive}/export?format=xkg${query}`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() };
}

const paper = (title: string, weight: number) => ({
  paper_title: title,
  paper_abstract: "Guidance without a classifier.\n\nA second paragraph.",
  paper_references: ["Denoising Diffusion Probabilistic Models", "Denoising Diffusion Probabilistic Models"],
  resources: ["ImageNet 64x64: the class-conditional benchmark."],
  findings: ["Finding: Same trade-off: FID and IS match classifier guidance."],
  code_file: "README.md\nguidance.py",
  code_overview: "## Overview\nA PyTorch implementation.\n",
  techniques: [
    {
      name: `${title} sampler`,
      description: "Mixes conditional and unconditional scores.",
      weight,
      code: {
        implementation: "import torch\n\ndef guided(eps_c, eps_u, w):\n    return (1 + w) * eps_c - w * eps_u\n",
        test: "assert guided(1.0, 0.0, 0.5) == 1.5\n",
        documentation: "Combines the two score estimates.",
        package: ["torch", "numpy"],
        pass_exec: true,
      },
      components: [
        {
          name: "Conditioning dropout",
          description: "Drop the label with p.",
          weight: 0.5,
          code: null,
          components: [],
        },
      ],
    },
  ],
});

describe("xKG export", () => {
  it("import -> export -> import changes nothing, and the file comes back exactly", async () => {
    const { id, key } = await newArchive("xkg");
    const a = paper("Classifier-Free Diffusion Guidance", 1);
    const b = { ...paper("Score Distillation", 0.25), paper_references: null };
    const first = await importXkg(id, key, `${JSON.stringify(a)}\n${JSON.stringify(b)}\n`);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.counts.created).toBeGreaterThan(10);

    const all = await exportXkg(id, key);
    expect(all.status).toBe(200);
    expect(all.type).toContain("application/x-ndjson");
    const lines = all.text.trim().split("\n");
    expect(lines.map((l) => JSON.parse(l))).toEqual([a, b]);

    const one = await exportXkg(id, key, "&paper=paper:score-distillation");
    expect(one.status).toBe(200);
    expect(JSON.parse(one.text)).toEqual(b);

    // The planning view (seed 003 §2.4): the same paper node and techniques, no code anywhere.
    const plan = await exportXkg(id, key, "&paper=paper:score-distillation&view=planning");
    expect(plan.status, plan.text).toBe(200);
    const planned = JSON.parse(plan.text);
    const noCode = (t: Record<string, unknown>): Record<string, unknown> => {
      const { code: _c, components, ...rest } = t;
      return { ...rest, components: ((components as Array<Record<string, unknown>>) ?? []).map(noCode) };
    };
    const { code: _c, code_file: _f, code_overview: _o, techniques, ...head } = b as Record<string, unknown>;
    expect(planned).toEqual({ ...head, techniques: (techniques as Array<Record<string, unknown>>).map(noCode) });
    expect(plan.text).not.toContain('"code"');
    expect(plan.text).not.toContain("implementation");
    const wrongFormat = await api("GET", `/v1/archives/${id}/export?format=csv&view=planning`, undefined, key);
    expect(wrongFormat.status).toBe(400);
    expect(wrongFormat.body.error.field).toBe("view");

    const again = await importXkg(id, key, all.text, "exported.jsonl");
    expect(again.status).toBe(200);
    expect(again.body.counts).toMatchObject({ created: 0, updated: 0, annotated: 0 });
    // Annotations are written only when their value changes: one event per key, after two imports.
    const code = "paper:classifier-free-diffusion-guidance#t:classifier-free-diffusion-guidance-sampler#code";
    const ann = await api("GET", `/v1/archives/${id}/chunks/${encodeURIComponent(code)}/annotations`, undefined, key);
    expect(ann.status).toBe(200);
    expect(ann.body.events).toHaveLength(1);
    expect(ann.body.values.xkg.value).toMatchObject({ role: "code", package: ["torch", "numpy"], pass_exec: true });
  });

  it("the JSON dump carries annotations: a replayed archive exports the same xKG files", async () => {
    const { id, key } = await newArchive("xkg");
    const a = paper("Classifier-Free Diffusion Guidance", 1);
    await importXkg(id, key, JSON.stringify(a));
    const dump = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/export?format=json`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const text = await dump.text();
    expect(text).toContain('"annotations":[{"key":"xkg"');
    const copy = await newArchive("xkg");
    const replay = async () => {
      const res = await WORKER.fetch(`http://paperguru.test/v1/archives/${copy.id}/import?format=archive`, {
        method: "POST",
        headers: { authorization: `Bearer ${copy.key}`, "content-type": "application/json" },
        body: text,
      });
      // biome-ignore lint/suspicious/noExplicitAny: structural checks
      return (await res.json()) as any;
    };
    const first = await replay();
    expect(first.replay.annotations.applied).toBeGreaterThan(5);
    expect(first.replay.annotations.present).toBe(0);
    const second = await replay();
    expect(second.replay.annotations).toEqual({ applied: 0, present: first.replay.annotations.applied });
    expect(JSON.parse((await exportXkg(copy.id, copy.key)).text)).toEqual(a);
  });

  it("a changed weight updates the annotation; the export as of before the change shows the old one", async () => {
    const { id, key } = await newArchive("xkg");
    const a = paper("Classifier-Free Diffusion Guidance", 1);
    await importXkg(id, key, JSON.stringify(a));
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 5));
    const changed = paper("Classifier-Free Diffusion Guidance", 0.75);
    const res = await importXkg(id, key, JSON.stringify(changed));
    // Only the technique's weight changed: one annotation event, no new version.
    expect(res.body.counts).toMatchObject({ created: 0, updated: 0, annotated: 1 });
    expect(JSON.parse((await exportXkg(id, key)).text)).toEqual(changed);
    expect(JSON.parse((await exportXkg(id, key, `&as_of=${encodeURIComponent(before)}`)).text)).toEqual(a);
  });

  it("names the field for a paper that is not there and for paper without format=xkg; isolates archives", async () => {
    const { id, key } = await newArchive("xkg");
    await importXkg(id, key, JSON.stringify(paper("Classifier-Free Diffusion Guidance", 1)));
    const missing = await exportXkg(id, key, "&paper=paper:nope");
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.text).error.field).toBe("paper");
    const wrong = await api("GET", `/v1/archives/${id}/export?format=csv&paper=x`, undefined, key);
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.field).toBe("paper");
    const other = await newArchive("xkg");
    expect((await exportXkg(id, other.key)).status).toBe(403);
    expect((await exportXkg(other.id, other.key)).text).toBe("");
  });
});

describe("xKG import notes", () => {
  it("a paper cut to the ingest's entity limit (a skip note on its id) still gets its annotation and exports", async () => {
    const { id, key } = await newArchive("xkg-limit");
    const big = {
      ...paper("Many references", 0.5),
      paper_references: Array.from({ length: 210 }, (_, i) => `Ref ${i}`),
    };
    const res = await importXkg(id, key, JSON.stringify(big));
    expect(res.status).toBe(200);
    expect(res.body.skipped.some((s: { reason: string }) => /kept 200 of \d+ entities/.test(s.reason))).toBe(true);
    expect(res.body.counts.annotated).toBe(res.body.counts.created);
    const out = await exportXkg(id, key);
    const titles = out.text
      .split("\n")
      .filter(Boolean)
      .map((l) => (JSON.parse(l) as { paper_title: string }).paper_title);
    expect(titles).toEqual(["Many references"]);
  });
});
