/** The outline tree use case: GET /research/tree. */
import type * as S from "../../contract";
import { ok, type Result } from "../../core/errors";
import type { AppDeps } from "../deps";
import { type In, iso, timeOf } from "../lib/wire";

import { readTree } from "./outline";

export function outlineUseCases(d: AppDeps) {
  return {
    async tree(archive: string, q: In<typeof S.TreeQuery>): Promise<Result<In<typeof S.TreeResult>>> {
      const t = timeOf(d, q.as_of);
      const r = await readTree(d, archive, q.root, t, {
        theta: q.theta,
        dMax: q.d_max,
        words: q.words,
        maxNodes: q.max_nodes,
        ownContent: true,
        view: q.view,
      });
      if (!r.ok) return r;
      return ok({
        root: q.root,
        as_of: iso(t),
        theta: q.theta,
        d_max: q.d_max,
        words: q.words,
        view: q.view,
        ...r.value,
      });
    },
  };
}
