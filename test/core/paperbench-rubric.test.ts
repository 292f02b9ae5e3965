/**
 * PaperBench rubric scoring (src/core/paperbench): a hand-computed tree, the wire schema's refusals
 * (each naming the path), properties over random trees (score in [0, 1], all leaves 1 → 1, all 0 →
 * 0, monotone in every leaf grade, invariant under scaling one node's children's weights), the
 * judge's answer check, and the 23 real rubrics of ../shared/testdata/paperbench (PAPERBENCH_DATA to
 * point elsewhere; skipped without them) with known grades: all 1 → 1, all 0 → 0, and every third
 * leaf 1 against scores computed independently (by a Python reading of the same files).
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PaperbenchScoreBody } from "../../src/contract";
import { checkVerdict, judgePrompt } from "../../src/core/paperbench/judge";
import {
  type FlatRubric,
  flattenRubric,
  leavesUnder,
  PAPERBENCH_LIMITS,
  type RubricNode,
  rubricExtent,
  scoreRubric,
} from "../../src/core/paperbench/rubric";
import MINI from "../fixtures/paperbench/mini.rubric.json";

const flat = (root: RubricNode, dup: "error" | "shared" = "error"): FlatRubric => {
  const r = flattenRubric(root, dup);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};
const scoreWith = (r: FlatRubric, grades: Record<string, number>) =>
  scoreRubric(r, 0, (leaf) => grades[leaf.id] ?? 0).score[0] as number;

/** A body through the wire schema: the parsed rubric, or the first issue's path and message. */
function parse(rubric: unknown): { ok: true; rubric: RubricNode } | { ok: false; path: string; message: string } {
  const r = PaperbenchScoreBody.safeParse({ rubric });
  if (r.success) return { ok: true, rubric: r.data.rubric };
  const i = r.error.issues[0];
  return { ok: false, path: (i?.path ?? []).join("."), message: i?.message ?? "" };
}

const leaf = (id: string, weight = 1): RubricNode => ({ id, requirements: `req ${id}`, weight, sub_tasks: [] });

describe("PaperBench rubric scoring", () => {
  it("scores the fixture by hand: a parent is the weighted mean of its children", () => {
    const r = flat(MINI as RubricNode);
    expect(r.nodes.map((n) => n.id)).toEqual([
      "root",
      "setup",
      "setup-data",
      "setup-model",
      "method",
      "method-ppr",
      "method-run",
      "results",
    ]);
    const grades = { "setup-data": 1, "setup-model": 0, "method-ppr": 1, "method-run": 0, results: 1 };
    const { score, contribution } = scoreRubric(r, 0, (l) => grades[l.id as keyof typeof grades] ?? 0);
    // setup (1 + 0) / 2 = 0.5; method (3·1 + 1·0) / 4 = 0.75; root (2·0.5 + 3·0.75 + 1·1) / 6.
    expect(score[1]).toBe(0.5);
    expect(score[4]).toBe(0.75);
    expect(score[0]).toBeCloseTo(4.25 / 6, 15);
    // method-ppr counts for 3/6 · 3/4 of the root; the leaves' shares sum to 1.
    expect(contribution[5]).toBeCloseTo(0.375, 15);
    const leaves = leavesUnder(r, 0);
    expect(leaves.reduce((s, l) => s + (contribution[l.index] as number), 0)).toBeCloseTo(1, 12);
    // A subtree alone: method's own score.
    expect(scoreRubric(r, 4, (l) => grades[l.id as keyof typeof grades] ?? 0).score[4]).toBe(0.75);
    expect(leavesUnder(r, 4).map((l) => l.id)).toEqual(["method-ppr", "method-run"]);
  });

  it("refuses bad rubrics with the path of the node at fault", () => {
    const neg = parse({ ...leaf("r"), sub_tasks: [leaf("a"), { ...leaf("b"), weight: -1 }] });
    expect(neg).toMatchObject({ ok: false, path: "rubric.sub_tasks.1.weight" });
    const nan = parse({ ...leaf("r"), sub_tasks: [{ ...leaf("a"), weight: "2" }] });
    expect(nan).toMatchObject({ ok: false, path: "rubric.sub_tasks.0.weight" });
    const unknown = parse({ ...leaf("r"), sub_tasks: [{ ...leaf("a"), score: 1 }] });
    expect(unknown).toMatchObject({ ok: false, path: "rubric.sub_tasks.0" });
    const noId = parse({ requirements: "x", weight: 1, sub_tasks: [] });
    expect(noId).toMatchObject({ ok: false, path: "rubric.id" });

    // Too deep or too large: one issue on `rubric`, before the schema recurses (no stack overflow).
    let deep: RubricNode = leaf("bottom");
    for (let i = 0; i < 20_000; i++) deep = { ...leaf(`n${i}`), sub_tasks: [deep] };
    const d = parse(deep);
    expect(d).toMatchObject({ ok: false, path: "rubric" });
    expect(d.ok ? "" : d.message).toContain("deeper than 64");
    const wide = {
      ...leaf("r"),
      sub_tasks: Array.from({ length: PAPERBENCH_LIMITS.maxNodes }, (_, i) => leaf(`l${i}`)),
    };
    expect(rubricExtent(wide).over).toBe("nodes");
    expect(parse(wide)).toMatchObject({ ok: false, path: "rubric" });
    const fits = { ...leaf("r"), sub_tasks: wide.sub_tasks.slice(1) };
    expect(rubricExtent(fits)).toEqual({ nodes: PAPERBENCH_LIMITS.maxNodes, depth: 1, over: null });

    // Zero total child weight and duplicated ids: flattenRubric's refusals.
    const zero = flattenRubric(
      { ...leaf("r"), sub_tasks: [leaf("a"), { ...leaf("m"), sub_tasks: [leaf("b", 0), leaf("c", 0)] }] },
      "error",
    );
    expect(zero.ok ? null : zero.error).toMatchObject({ kind: "validation", field: "rubric.sub_tasks.1.sub_tasks" });
    const dup = { ...leaf("r"), sub_tasks: [{ ...leaf("m"), sub_tasks: [leaf("x")] }, leaf("x")] };
    const refused = flattenRubric(dup, "error");
    expect(refused.ok ? null : refused.error).toMatchObject({ field: "rubric.sub_tasks.1.id" });
    expect(refused.ok ? "" : refused.error.message).toContain("rubric.sub_tasks.0.sub_tasks.0");
    const shared = flattenRubric(dup, "shared");
    expect(shared.ok).toBe(true);
    if (shared.ok) expect(shared.value.byId.get("x")).toEqual([2, 3]);
    // Shared ids must be identical leaves.
    const differ = flattenRubric(
      { ...leaf("r"), sub_tasks: [leaf("x"), { ...leaf("x"), requirements: "other" }] },
      "shared",
    );
    expect(differ.ok).toBe(false);
    const parentDup = flattenRubric(
      { ...leaf("r"), sub_tasks: [{ ...leaf("x"), sub_tasks: [leaf("y")] }, leaf("x")] },
      "shared",
    );
    expect(parentDup.ok).toBe(false);
  });

  it("checks the judge's answers and shows the leaf in its context", () => {
    expect(checkVerdict({ score: 1, reason: "The README shows the PPR code." })).toEqual({
      items: [{ score: 1, reason: "The README shows the PPR code." }],
      dropped: [],
    });
    expect(checkVerdict({ score: 0.25, reason: "  partly\n met " })).toMatchObject({
      items: [{ reason: "partly met" }],
    });
    expect(checkVerdict({ score: 1.5, reason: "x" })).toContain("outside [0, 1]");
    expect(checkVerdict({ score: -0.1, reason: "x" })).toContain("outside [0, 1]");
    expect(checkVerdict({ score: "1", reason: "x" })).toContain("not a number");
    expect(checkVerdict({ score: 1, reason: "  " })).toContain("reason");
    expect(checkVerdict({ score: 1, reason: "x".repeat(501) })).toContain("at most 500");
    expect(checkVerdict([1])).toContain("not a JSON object");
    const r = flat(MINI as RubricNode);
    const p = judgePrompt(r, r.nodes[5] as NonNullable<(typeof r.nodes)[number]>, "We ran PPR. ".repeat(5000));
    expect(p).toContain("Personalized PageRank runs from the query's entities");
    expect(p).toContain("  - The routing method has been implemented");
    expect(p).toContain("Code Development / Method Implementation");
    expect(p).toContain(`the first ${PAPERBENCH_LIMITS.judgeEvidenceChars} of 60000 characters`);
  });
});

// ------------------------------------------------------------------ properties

/** A random rubric: nested up to 4 children per parent, integer or fractional weights (hundredths; one positive per parent). */
const rubricArb: fc.Arbitrary<RubricNode> = fc.letrec<{ node: RubricNode }>((tie) => ({
  node: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc
      .record({
        weight: fc.oneof(
          fc.integer({ min: 0, max: 5 }),
          fc.integer({ min: 0, max: 1000 }).map((x) => x / 100),
        ),
      })
      .map((w) => ({
        id: "",
        requirements: "leaf",
        weight: w.weight,
        sub_tasks: [],
      })),
    fc
      .record({
        weight: fc.integer({ min: 0, max: 5 }),
        children: fc.array(tie("node"), { minLength: 1, maxLength: 4 }),
      })
      .map(({ weight, children }) => {
        // At least one positive weight among the children.
        const first = children[0] as RubricNode;
        if (!children.some((c) => c.weight > 0)) children[0] = { ...first, weight: 1 };
        return { id: "", requirements: "parent", weight, sub_tasks: children };
      }),
  ),
})).node;

/** The rubric with unique ids (pre-order numbers) and its leaf ids. */
function numbered(root: RubricNode): { root: RubricNode; leaves: string[] } {
  let n = 0;
  const leaves: string[] = [];
  const walk = (x: RubricNode): RubricNode => {
    const id = `n${n++}`;
    const sub_tasks = x.sub_tasks.map(walk);
    if (!sub_tasks.length) leaves.push(id);
    return { ...x, id, sub_tasks };
  };
  return { root: walk(root), leaves };
}

const treeWithGrades = rubricArb.chain((raw) => {
  const t = numbered(raw);
  return fc
    .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: t.leaves.length, maxLength: t.leaves.length })
    .map((gs) => ({ ...t, grades: Object.fromEntries(t.leaves.map((id, i) => [id, gs[i] as number])) }));
});

describe("PaperBench scoring properties", () => {
  it("the score is in [0, 1]; all leaves 1 give exactly 1, all 0 exactly 0", () => {
    fc.assert(
      fc.property(treeWithGrades, ({ root, leaves, grades }) => {
        const r = flat(root);
        const s = scoreWith(r, grades);
        expect(s).toBeGreaterThanOrEqual(0);
        expect(s).toBeLessThanOrEqual(1);
        expect(scoreWith(r, Object.fromEntries(leaves.map((id) => [id, 1])))).toBe(1);
        expect(scoreWith(r, Object.fromEntries(leaves.map((id) => [id, 0])))).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it("is monotone in every leaf grade", () => {
    fc.assert(
      fc.property(
        treeWithGrades,
        fc.nat(),
        fc.double({ min: 0, max: 1, noNaN: true }),
        ({ root, leaves, grades }, pick, to) => {
          const r = flat(root);
          const id = leaves[pick % leaves.length] as string;
          const before = scoreWith(r, grades);
          const old = grades[id] as number;
          const after = scoreWith(r, { ...grades, [id]: to });
          if (to >= old) expect(after).toBeGreaterThanOrEqual(before);
          else expect(after).toBeLessThanOrEqual(before);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is invariant under scaling the weights of one node's children", () => {
    fc.assert(
      fc.property(
        treeWithGrades,
        fc.nat(),
        fc.double({ min: 0.01, max: 1000, noNaN: true }),
        ({ root, grades }, pick, k) => {
          const r = flat(root);
          const parents = r.nodes.filter((n) => n.children.length > 0);
          if (!parents.length) return;
          const p = parents[pick % parents.length] as (typeof parents)[number];
          const before = scoreRubric(r, 0, (l) => grades[l.id] ?? 0).score;
          const scaled: FlatRubric = {
            byId: r.byId,
            nodes: r.nodes.map((n) => (n.parent === p.index ? { ...n, weight: n.weight * k } : n)),
          };
          const after = scoreRubric(scaled, 0, (l) => grades[l.id] ?? 0).score;
          for (let i = 0; i < before.length; i++) expect(after[i]).toBeCloseTo(before[i] as number, 10);
        },
      ),
      { numRuns: 300 },
    );
  });
});

// ------------------------------------------------------------------ the 23 PaperBench rubrics

const DATA = resolve(
  process.env.PAPERBENCH_DATA ?? join(__dirname, "..", "..", "..", "shared", "testdata", "paperbench"),
);
const FILES = existsSync(DATA)
  ? readdirSync(DATA)
      .filter((f) => f.endsWith(".rubric.json"))
      .sort()
  : [];

/** Every third leaf (in pre-order, by first occurrence of its id) graded 1, the rest 0: computed independently. */
const EVERY_THIRD: Record<string, number> = {
  "adaptive-pruning": 0.32356849782063446,
  "all-in-one": 0.3397719434996221,
  bam: 0.3712195338526357,
  bbox: 0.3495986883486883,
  "bridging-data-gaps": 0.33072240259740265,
  fre: 0.30880318755318753,
  ftrl: 0.3387654012654013,
  lbcs: 0.5114170376878238,
  "lca-on-the-line": 0.3526197733890042,
  "mechanistic-understanding": 0.3807319223985891,
  pinn: 0.37663817663817667,
  rice: 0.36578091318832057,
  "robust-clip": 0.31754629629629627,
  "sample-specific-masks": 0.331591668766272,
  sapg: 0.3277777777777777,
  "self-composing-policies": 0.33644200199573004,
  "self-expansion": 0.34651706104252394,
  "semantic-self-consistency": 0.3095734126984127,
  "sequential-neural-score-estimation": 0.37722542589104596,
  "stay-on-topic-with-classifier-free-guidance": 0.31721450617283947,
  "stochastic-interpolants": 0.32311759362484,
  "test-time-model-adaptation": 0.3600977072310406,
  "what-will-my-model-forget": 0.36471850487475493,
};

describe.skipIf(FILES.length === 0)(`the 23 PaperBench rubrics (${DATA})`, () => {
  it("are all there", () => {
    expect(FILES.map((f) => f.replace(".rubric.json", ""))).toEqual(Object.keys(EVERY_THIRD).sort());
  });

  it("score 1 with every leaf 1, 0 with every leaf 0, and the known mixed scores", () => {
    let leafTotal = 0;
    for (const f of FILES) {
      const name = f.replace(".rubric.json", "");
      const parsed = parse(JSON.parse(readFileSync(join(DATA, f), "utf8")));
      expect(parsed.ok, `${f}: ${parsed.ok ? "" : `${parsed.path}: ${parsed.message}`}`).toBe(true);
      if (!parsed.ok) continue;
      // bbox and bridging-data-gaps repeat three leaves each (same id, same requirements).
      const strict = flattenRubric(parsed.rubric, "error");
      expect(strict.ok, f).toBe(!["bbox", "bridging-data-gaps"].includes(name));
      const r = flat(parsed.rubric, "shared");
      const leaves = leavesUnder(r, 0);
      leafTotal += leaves.length;
      expect(scoreRubric(r, 0, () => 1).score[0], f).toBe(1);
      expect(scoreRubric(r, 0, () => 0).score[0], f).toBe(0);
      const grade = new Map<string, number>();
      leaves.forEach((l, i) => {
        if (!grade.has(l.id)) grade.set(l.id, i % 3 === 0 ? 1 : 0);
      });
      expect(scoreRubric(r, 0, (l) => grade.get(l.id) ?? 0).score[0], f).toBeCloseTo(EVERY_THIRD[name] as number, 12);
    }
    // The README's count of leaf requirements.
    expect(leafTotal).toBe(8921);
  });
});
