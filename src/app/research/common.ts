/**
 * What the research use cases share: the boundaries and ids of outline nodes, hubs, drafts and
 * feedback records, the bounds on what one call reads, and the bounded content reader.
 */
import { fail } from "../../core/errors";
import { RESEARCH_DRAFT, RESEARCH_HUB } from "../../core/query";
import type { AppDeps } from "../deps";

export const OUTLINE = "outline";
/** Hubs and drafts carry these tags; general routes leave them out unless asked (core/query.ts routeFilter). */
export const HUB = RESEARCH_HUB;
export const DRAFT = RESEARCH_DRAFT;
export const FEEDBACK = "feedback";
export const EVIDENCE_KEY = "sgmc:evidence";
export const hubId = (node: string) => `${node}#hub`;
export const draftId = (node: string) => `${node}#draft`;

/** Chunk ids are at most 512 characters; the hub and draft ids add 6. */
const MAX_NODE_ID = 506;
/** Contents read at once (R2's simultaneous connections per request). */
const READS = 6;
/** Characters of draft versions one convergence or assembly call reads. */
export const MAX_READ_CHARS = 16 * 1024 * 1024;

/** Contents by key, READS at a time; a key whose content cannot be read is absent. */
export async function readContents(d: AppDeps, keys: string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const uniq = [...new Set(keys)];
  for (let i = 0; i < uniq.length; i += READS)
    await Promise.all(
      uniq.slice(i, i + READS).map(async (k) => {
        const c = await d.kernel.contentOf(k);
        if (c !== null) out.set(k, c);
      }),
    );
  return out;
}

export const nodeIdCheck = (node: string) =>
  node.length > MAX_NODE_ID
    ? fail("validation", `node ids are at most ${MAX_NODE_ID} characters here`, "node", "use a shorter node id")
    : null;
