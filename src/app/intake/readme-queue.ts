/**
 * After a GitHub plan is applied (a source run, by request or cron, or a push delivery from the
 * queue): with a language model configured, each README version written that the rules linked to no
 * paper (no `implements` edge: no claim found, or several papers named and none claimed) is queued
 * as one `readme_paper` message. The model is asked from the queue consumer (src/app/readme-paper.ts),
 * never inside the ingest: a run or delivery never waits for a model, and a model failure cannot fail
 * it. A failure to queue is logged and the ingest's result stands.
 */
import type { ImportPlan } from "../../core/formats/types";
import { errorLine } from "../../core/log";
import type { IntakeDeps } from "../deps";
import type { ReadmePaperMessage } from "../lib/queue";
import type { ApplyOutcome } from "./outcome";

/** READMEs queued per plan, the shallowest paths first (the repository's own README before sub-projects'). */
export const MAX_READMES_QUEUED = 3;

const depth = (id: string) => id.split("/").length;

export async function queueReadmePapers(
  deps: Pick<IntakeDeps, "readmeModel" | "queue">,
  archive: string,
  plan: ImportPlan,
  outcome: Pick<ApplyOutcome, "items">,
): Promise<number> {
  if (!deps.readmeModel) return 0;
  const written = new Map<string, number>();
  for (const it of outcome.items)
    if ((it.status === "created" || it.status === "updated") && it.version !== undefined)
      written.set(it.id, it.version);
  const unlinked = plan.artifacts
    .filter(
      (a) =>
        a.boundaries?.includes("role:readme") &&
        !(a.edges ?? []).some((e) => e.type === "implements") &&
        written.has(a.id),
    )
    .map((a) => a.id)
    .sort((x, y) => depth(x) - depth(y) || (x < y ? -1 : 1))
    .slice(0, MAX_READMES_QUEUED);
  let sent = 0;
  for (const chunk of unlinked) {
    const message: ReadmePaperMessage = { kind: "readme_paper", archive, chunk, version: written.get(chunk) as number };
    try {
      await deps.queue.send(message);
      sent++;
    } catch (e) {
      console.error(errorLine(`readme_paper queue ${archive} ${chunk}`, e));
    }
  }
  return sent;
}
