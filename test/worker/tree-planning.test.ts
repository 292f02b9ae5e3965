/**
 * GET /tree view=planning (xKG §2.4: the paper node without its code nodes), through REST in
 * workerd: for a root paper, its part-of subtree with its techniques (imported and model-made),
 * sections and findings, without code_unit chunks or an xKG import's code_file / code_overview
 * records; the default view stays SGMC's outline; another view value is a 400 naming `view`.
 */
import { describe, expect, it } from "vitest";
import { api, newArchive } from "./helpers";
import { WORKER } from "./worker";

const KG = {
  paper_title: "Classifier-Free Diffusion Guidance",
  paper_abstract: "Guidance for diffusion models without a classifier.",
  findings: ["Finding: the trade-off matches classifier guidance."],
  code_file: "README.md\nguidance.py",
  code_overview: "## Overview\nA PyTorch implementation.\n",
  techniques: [
    {
      name: "Classifier-free guidance sampling",
      description: "Combine the conditional and unconditional noise predictions with a guidance weight.",
      weight: 1,
      code: {
        implementation: "def guided_eps(c, u, w):\n    return (1 + w) * c - w * u\n",
        test: "assert guided_eps(1.0, 0.0, 0.5) == 1.5\n",
        documentation: "Mixes the two predictions.",
        package: [],
      },
      components: [
        {
          name: "Conditioning dropout",
          description: "Drop the class label with a fixed probability during training.",
          weight: 0.5,
          code: null,
          components: [],
        },
      ],
    },
  ],
};

type Node = { id: string; kind: string; depth: number; parent: string | null };

describe("GET /tree view=planning", () => {
  it("is the paper with its techniques, sections and findings, and none of its code", async () => {
    const { id, key } = await newArchive("plan");
    const imp = await WORKER.fetch(`http://paperguru.test/v1/archives/${id}/import?format=xkg&name=kg.json`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "text/plain" },
      body: JSON.stringify(KG),
    });
    expect(imp.status).toBe(200);
    const papers = await api("GET", `/v1/archives/${id}/chunks?kind=paper`, undefined, key);
    const paper = (papers.body.chunks as Array<{ id: string }>)[0]?.id as string;
    // A section of the paper, a technique a model proposed (as POST /techniques/propose writes one:
    // part-of the paper, no xKG tag), and a code unit part-of the paper.
    const ing = await api(
      "POST",
      `/v1/archives/${id}/ingest`,
      {
        artifacts: [
          {
            id: `${paper}#s:method`,
            kind: "section",
            title: "Method",
            content: "We train one model with and without the label.",
            edges: [{ type: "part-of", target: paper }],
          },
          {
            id: `${paper}#mt:guidance-weight-sweep`,
            kind: "technique",
            title: "Guidance weight sweep",
            content: "Guidance weight sweep\n\nSample at several guidance weights and pick the best FID.",
            edges: [
              { type: "part-of", target: paper },
              { type: "discussed-in", target: `${paper}#s:method` },
            ],
            source: "model:openai:mock-1",
          },
          {
            id: `${paper}#extra-code`,
            kind: "code_unit",
            title: "sweep.py",
            content: "def sweep():\n    return [0.5, 1.0, 2.0]\n",
            edges: [{ type: "part-of", target: paper }],
          },
        ],
      },
      key,
    );
    expect(ing.status, JSON.stringify(ing.body)).toBe(200);

    const res = await api(
      "GET",
      `/v1/archives/${id}/tree?root=${encodeURIComponent(paper)}&view=planning`,
      undefined,
      key,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.view).toBe("planning");
    const nodes = res.body.nodes as Node[];
    const ids = nodes.map((x) => x.id);
    expect(nodes[0]).toMatchObject({ id: paper, kind: "paper", depth: 0, parent: null });
    const technique = ids.find((x) => x.endsWith("#t:classifier-free-guidance-sampling")) as string;
    const component = nodes.find((x) => x.id.endsWith("/conditioning-dropout"));
    expect(technique).toBeTruthy();
    // The component sits under its technique (part-of both; the deeper parent wins).
    expect(component).toMatchObject({ kind: "technique", depth: 2, parent: technique });
    expect(ids).toEqual(
      expect.arrayContaining([`${paper}#s:method`, `${paper}#mt:guidance-weight-sweep`, `${paper}#finding-1`]),
    );
    // No code: neither code units (imported implementation and test, or ingested) nor the code records.
    expect(nodes.filter((x) => x.kind === "code_unit")).toEqual([]);
    expect(ids.some((x) => x.endsWith("#code") || x.endsWith("#test") || x.endsWith("#extra-code"))).toBe(false);
    expect(ids.some((x) => x.endsWith("#code-overview") || x.endsWith("#code-files"))).toBe(false);

    // The default view is SGMC's outline: untagged chunks are not outline nodes.
    const outline = await api("GET", `/v1/archives/${id}/tree?root=${encodeURIComponent(paper)}`, undefined, key);
    expect(outline.status).toBe(200);
    expect(outline.body.view).toBe("outline");
    expect((outline.body.nodes as Node[]).map((x) => x.id)).toEqual([paper]);

    const bad = await api("GET", `/v1/archives/${id}/tree?root=${encodeURIComponent(paper)}&view=code`, undefined, key);
    expect(bad.status).toBe(400);
    expect(bad.body.error.field).toBe("view");
  });
});
