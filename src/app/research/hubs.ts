/**
 * Hubs (Hub-Guided Memory): each gather routes over the node's references only (an exact `only`
 * filter before the top-M cut) and stores the cards' anchors as the next version of `<node>#hub`
 * (kind note, boundary `sgmc:hub`, part-of the node, cites every source it quotes); its content is
 * JSON Lines: a header `{"query"}` and one anchor per line, so every iteration stays readable as of
 * its time and each anchor re-verifies with POST /verify.
 */
import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import { readJsonColumn, type StoredVersion } from "../../core/ports";
import type { AppDeps } from "../deps";
import { versionAt } from "../lib/versions";
import { type In, iso, timeOf } from "../lib/wire";
import { draftId, HUB, hubId, nodeIdCheck, readContents } from "./common";

/** Characters of the previous draft a default gather query takes (Eq. 8). */
const DRAFT_QUERY_CHARS = 2000;

interface EvidenceLine {
  artifact_id: string;
  version: number;
  start: number;
  end: number;
  snippet: string;
  title: string;
}

export function parseHub(content: string): { query: string; evidence: EvidenceLine[] } {
  const lines = content.split("\n").filter((l) => l.length > 0);
  const head = readJsonColumn<{ query?: unknown }>(lines[0] ?? "{}", {});
  const evidence: EvidenceLine[] = [];
  for (const l of lines.slice(1)) {
    const e = readJsonColumn<Partial<EvidenceLine>>(l, {});
    if (typeof e.artifact_id === "string" && typeof e.snippet === "string")
      evidence.push({
        artifact_id: e.artifact_id,
        version: Number(e.version),
        start: Number(e.start),
        end: Number(e.end),
        snippet: e.snippet,
        title: typeof e.title === "string" ? e.title : "",
      });
  }
  return { query: typeof head.query === "string" ? head.query : "", evidence };
}

export function hubUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  return {
    async gather(archive: string, b: In<typeof S.GatherBody>): Promise<Result<In<typeof S.GatherResult>>> {
      const t = timeOf(d, b.as_of);
      const at = timeOf(d, b.at);
      const head = nodeIdCheck(b.node) ?? (await versionAt(chunks, archive, b.node, t, "node"));
      if (!head.ok) return head;
      const node = head.value;
      const cited = [...new Set((await chunks.edgesAt(archive, [b.node], "cites", "out", t)).map((e) => e.to))];
      const refs = cited.length ? await chunks.visibleAt(archive, cited, t) : new Map<string, StoredVersion>();
      if (refs.size === 0)
        return fail(
          "validation",
          `node ${b.node} cites nothing visible at ${iso(t)}: a hub gathers from the node's references`,
          "node",
          "give the node cites edges to its references (POST /revise with edges)",
        );
      let query = b.query;
      if (query === undefined) {
        const draft = (await chunks.visibleAt(archive, [draftId(b.node)], t)).get(draftId(b.node));
        const text = draft ? await d.kernel.contentOf(draft.contentKey) : null;
        query =
          text !== null
            ? `${node.title}. ${text.slice(0, DRAFT_QUERY_CHARS)}`
            : `${node.title}. ${node.synopsis}`.slice(0, 8000);
      }
      const r = await d.kernel.context({
        archiveId: archive,
        query,
        asOf: t,
        budgetTokens: b.budget_tokens,
        maxCards: b.max_cards,
        filter: { only: [...refs.keys()] },
      });
      const titles = new Map(r.cards.map((c) => [c.artifact_id, c.title]));
      const evidence: EvidenceLine[] = r.cards.flatMap((c) =>
        c.anchored_spans.map((a) => ({
          artifact_id: a.artifact_id,
          version: a.version,
          start: a.start,
          end: a.end,
          snippet: a.snippet,
          title: titles.get(a.artifact_id) ?? "",
        })),
      );
      const content = [JSON.stringify({ query }), ...evidence.map((e) => JSON.stringify(e))].join("\n");
      const sources = [...new Set(evidence.map((e) => e.artifact_id))];
      const res = await d.kernel.ingest(archive, [
        {
          id: hubId(b.node),
          kind: "note",
          title: `Hub: ${node.title}`.slice(0, 1000),
          content,
          boundaries: [HUB],
          edges: [{ type: "part-of", target: b.node }, ...sources.map((s) => ({ type: "cites" as const, target: s }))],
          valid_from: at,
        },
      ]);
      if (!res.ok) return res;
      const item = res.value.results[0] as { status: "created" | "updated" | "unchanged"; version: number };
      return ok({
        node: b.node,
        as_of: iso(t),
        hub: { id: hubId(b.node), version: item.version, status: item.status },
        iteration: item.version - 1,
        query,
        references: refs.size,
        cards: r.cards.map((c) => ({
          artifact_id: c.artifact_id,
          version: c.version,
          kind: c.kind,
          title: c.title,
          claim_boundary: c.claim_boundary,
          logic_sketch: c.logic_sketch,
          assumptions: c.assumptions,
          anchored_spans: c.anchored_spans,
          tokens: c.tokens,
          distiller: c.distiller,
        })),
        evidence,
      });
    },

    async hub(archive: string, q: In<typeof S.HubQuery>): Promise<Result<In<typeof S.HubResult>>> {
      const t = timeOf(d, q.as_of);
      const h = await chunks.chunkHistory(archive, hubId(q.node));
      if (!h) return fail("not_found", `node ${q.node} has no hub (${hubId(q.node)})`, "node");
      const versions = h.versions.filter((v) => v.validFrom <= t).sort((a, b) => a.version - b.version);
      const contents = await readContents(
        d,
        versions.map((v) => v.contentKey),
      );
      return ok({
        node: q.node,
        hub: hubId(q.node),
        as_of: iso(t),
        iterations: versions.map((v) => {
          const p = parseHub(contents.get(v.contentKey) ?? "");
          return {
            iteration: v.version - 1,
            version: v.version,
            valid_from: iso(v.validFrom),
            query: p.query,
            evidence: p.evidence,
          };
        }),
      });
    },
  };
}
