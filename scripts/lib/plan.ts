/**
 * What the ingest planner and the query pipeline derive from what a user sends, for in-process
 * measurements and tests of the capital chunk: change-log ops from artifacts, a route input from a
 * query (analysed as the query pipeline does, without vectors).
 */
import { type ArtifactInput, planIngest, prepareBatch } from "../../src/core/ingest";
import { queryTerms } from "../../src/core/text/lexical";
import { extractMentions } from "../../src/core/text/mentions";
import type { ChangeOp, RouteInput } from "../../src/core/types";

/** The change-log ops of ingesting the artifacts into an empty archive, in batches of 200. */
export async function plannedOps(artifacts: ArtifactInput[], start = Date.UTC(2025, 0, 1)): Promise<ChangeOp[]> {
  const ops: ChangeOp[] = [];
  for (let i = 0; i < artifacts.length; i += 200) {
    const prep = prepareBatch(artifacts.slice(i, i + 200));
    if (!prep.ok) throw new Error(prep.error.message);
    const plan = await planIngest(
      "a",
      prep.value,
      { chunks: new Map(), entities: new Set(), aliases: new Set() },
      start + i,
      async () => "",
    );
    if (!plan.ok) throw new Error(plan.error.message);
    ops.push(...plan.value.ops);
  }
  return ops;
}

/** A route input for a plain-text query. */
export function queryInput(query: string, asOf = Date.UTC(2030, 0, 1), limit = 10): RouteInput {
  const { identifiers, candidates } = extractMentions(query);
  return {
    mentions: candidates,
    identifiers: identifiers.map((x) => x.id),
    boundaries: [],
    semantic: [],
    querySketch: new Uint8Array(32),
    terms: queryTerms(query),
    asOf,
    now: asOf,
    limit,
  };
}
