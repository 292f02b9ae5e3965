/**
 * Assembly: the drafts of the outline under a root, in pre-order, as one text within a token budget;
 * a node without a draft, with an unconverged draft (when convergence is required) or over the
 * budget is left out with its reason.
 */
import type * as S from "../../contract";
import { SGMC_DEFAULTS } from "../../contract/research";
import { ok, type Result } from "../../core/errors";
import { countTokens } from "../../core/text/tokenizer";
import type { AppDeps } from "../deps";
import { type In, iso, timeOf } from "../lib/wire";

import { draftConvergence } from "./draft-convergence";
import { readTree, type TreeOpts } from "./outline";

/** How assembly reads the outline: SGMC's default θ and d_max, every word, no node content (φ is not used). */
const ASSEMBLY_TREE = {
  theta: SGMC_DEFAULTS.theta,
  dMax: SGMC_DEFAULTS.dMax,
  words: "all",
  ownContent: false,
} as const satisfies Omit<TreeOpts, "maxNodes">;

export function assemblyUseCases(d: AppDeps) {
  return {
    async assemble(archive: string, b: In<typeof S.AssembleBody>): Promise<Result<In<typeof S.AssembleResult>>> {
      const t = timeOf(d, b.as_of);
      const tree = await readTree(d, archive, b.root, t, { ...ASSEMBLY_TREE, maxNodes: b.max_nodes });
      if (!tree.ok) return tree;
      const sections: In<typeof S.AssembleResult>["sections"] = [];
      const leftOut: In<typeof S.AssembleResult>["left_out"] = [];
      const parts: string[] = [];
      let used = 0;
      for (const n of tree.value.nodes) {
        if (!n.draft) {
          leftOut.push({ node: n.id, reason: "no_draft", tokens: null });
          continue;
        }
        const c = await draftConvergence(d, archive, n.draft.id, t, b.epsilon, b.t_max, "f1", b.t_max + 1);
        if (!c.ok) return c;
        if (b.require_converged && c.value.stop === null) {
          leftOut.push({ node: n.id, reason: "not_converged", tokens: null });
          continue;
        }
        const v = (await d.stores.chunks.visibleAt(archive, [n.draft.id], t)).get(n.draft.id);
        const text = v ? ((await d.kernel.contentOf(v.contentKey)) ?? "") : "";
        const block = `${"#".repeat(Math.min(n.depth + 1, 6))} ${n.title}\n\n${text.trim()}\n\n`;
        const tokens = countTokens(block);
        if (used + tokens > b.budget_tokens) {
          leftOut.push({ node: n.id, reason: "budget", tokens });
          continue;
        }
        used += tokens;
        parts.push(block);
        sections.push({
          node: n.id,
          depth: n.depth,
          draft: n.draft.id,
          version: v?.version ?? n.draft.version,
          tokens,
        });
      }
      const text = parts.join("");
      return ok({
        root: b.root,
        as_of: iso(t),
        text,
        tokens: text.length ? countTokens(text) : 0,
        budget_tokens: b.budget_tokens,
        sections,
        left_out: leftOut,
      });
    },
  };
}
