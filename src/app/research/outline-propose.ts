/**
 * POST /outline/propose: A_O (seed 001, Eq. 2) for one outline node. The inputs are the node's
 * references (its cites targets at `as_of`) with their titles and abstracts (synopsis, then the
 * first 1,200 characters of the content). Method `model`: the configured language model proposes the
 * sub-outlines, each citing the references it came from (ids outside the inputs are dropped, a
 * direction left with none too; src/core/proposals/sgmc-outline.ts). Method `names`: references are
 * grouped by the names they share (src/core/research/outline-names.ts), no model. `auto`: the model
 * when one is configured, else names. Unless `dry_run`, every direction is written as an outline
 * node `<node>/<slug>` (kind section, boundaries `outline` and `order:<n>`, part-of the node, cites
 * its references, source `model:<provider>:<model>` or `sgmc:names`), valid from `at`; the same
 * proposal again changes nothing (`unchanged`). GET /tree then shows the new level.
 */

import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { StoredVersion } from "../../core/ports";
import { propose } from "../../core/proposals/propose";
import {
  checkOutline,
  OUTLINE_SYSTEM,
  type OutlineReference,
  outlinePrompt,
  outlineSchema,
} from "../../core/proposals/sgmc-outline";
import { groupByNames } from "../../core/research/outline-names";
import type { AppDeps } from "../deps";
import { modelFailure, modelName, noModel, usageView } from "../lib/proposals";
import { archiveUseCase } from "../lib/use-case";
import { type In, iso, timeOf } from "../lib/wire";
import { nodeIdCheck, OUTLINE, readContents } from "./common";
import { titleKey } from "./references";

type Out = In<typeof S.OutlineProposeResult>;

/** References one call reads (their contents are read for the abstracts). */
const MAX_REFERENCES = 300;
const ABSTRACT_CHARS = 1_200;

const slug = (title: string) => titleKey(title).replace(/ /g, "-").slice(0, 80).replace(/-+$/, "") || "direction";

export function outlineProposeUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  return {
    proposeOutline: archiveUseCase(d, {
      check: (b: In<typeof S.OutlineProposeBody>) =>
        nodeIdCheck(b.node) ?? (b.method === "model" && !d.models.llm ? noModel() : null),
      async run({ archive, t }, b): Promise<Result<Out>> {
        const model = d.models.llm;
        const at = timeOf(d, b.at);
        const node = (await chunks.visibleAt(archive, [b.node], t)).get(b.node);
        if (!node) return fail("not_found", `chunk ${b.node} has no version valid at ${iso(t)}`, "node");
        const cited = [...new Set((await chunks.edgesAt(archive, [b.node], "cites", "out", t)).map((e) => e.to))];
        if (cited.length > MAX_REFERENCES)
          return fail(
            "too_large",
            `node ${b.node} cites ${cited.length} references at that time (at most ${MAX_REFERENCES} per call)`,
            "node",
            "select the top Q_k first (POST /references/select) and outline from those",
          );
        const visible = cited.length ? await chunks.visibleAt(archive, cited, t) : new Map<string, StoredVersion>();
        const refs = cited.map((id) => visible.get(id)).filter((v) => v !== undefined);
        if (refs.length === 0)
          return fail(
            "validation",
            `node ${b.node} cites nothing visible at ${iso(t)}: A_O outlines from the node's references`,
            "node",
            "give the node cites edges to its references (POST /revise with edges)",
          );
        const inputs = new Set(refs.map((r) => r.chunkId));
        const useModel = b.method === "model" || (b.method === "auto" && model !== null);

        let method: Out["method"];
        let directions: Array<{ title: string; synopsis: string; references: string[]; names: string[] }>;
        let unassigned: string[];
        let dropped: Out["dropped"] = [];
        let usage: Out["usage"] = null;
        if (useModel && model) {
          const contents = await readContents(
            d,
            refs.filter((r) => r.contentChars > 0).map((r) => r.contentKey),
          );
          const docs: OutlineReference[] = refs.map((r) => ({
            id: r.chunkId,
            title: r.title,
            abstract: [r.synopsis, (contents.get(r.contentKey) ?? "").slice(0, ABSTRACT_CHARS)]
              .filter(Boolean)
              .join(" "),
          }));
          const outcome = await propose({
            model,
            name: "outline",
            description: "Sub-directions of the section, each citing the references it comes from.",
            schema: outlineSchema(b.max_directions),
            system: OUTLINE_SYSTEM,
            prompt: outlinePrompt(node.title, node.synopsis, docs, b.max_directions),
            maxOutputTokens: 2048,
            check: (value) => checkOutline(value, inputs),
          });
          if (!outcome.ok) return modelFailure(outcome);
          method = "model";
          directions = outcome.items.slice(0, b.max_directions).map((x) => ({ ...x, names: [] }));
          const used = new Set(directions.flatMap((x) => x.references));
          unassigned = refs.map((r) => r.chunkId).filter((id) => !used.has(id));
          dropped = outcome.dropped.map((x) => ({ index: x.index, title: x.title, reason: `${x.what}: ${x.reason}` }));
          usage = usageView(outcome.usage);
        } else {
          const papers = await d.stores.discovery.papersOf(archive, [...inputs], t);
          const entities = new Map(papers.map((p) => [p.chunkId, p.entities]));
          const ids = [...new Set(papers.flatMap((p) => p.entities))];
          const labels = ids.length ? await d.stores.discovery.entityNames(archive, ids) : new Map<string, string>();
          const g = groupByNames(
            refs.map((r) => ({ id: r.chunkId, title: r.title, entities: entities.get(r.chunkId) ?? [] })),
            labels,
            { minShared: b.min_shared, maxDirections: b.max_directions },
          );
          const titleOf = new Map(refs.map((r) => [r.chunkId, r.title]));
          method = "names";
          directions = g.groups.map((x) => ({
            title: x.label.charAt(0).toUpperCase() + x.label.slice(1),
            synopsis: `${x.references.length} references share "${x.label}": ${x.references
              .map((id) => titleOf.get(id) ?? id)
              .join("; ")}`.slice(0, 1000),
            references: x.references,
            names: [x.name],
          }));
          unassigned = g.unassigned;
        }

        // Ids: <node>/<slug>, made unique within this proposal.
        const taken = new Set<string>();
        const planned = directions.map((x, i) => {
          let id = `${b.node}/${slug(x.title)}`.slice(0, 512);
          for (let n = 2; taken.has(id); n++) id = `${b.node}/${slug(x.title)}-${n}`.slice(0, 512);
          taken.add(id);
          return { ...x, id, order: i + 1 };
        });
        const written = new Map<string, "created" | "updated" | "unchanged">();
        if (!b.dry_run && planned.length) {
          const res = await d.kernel.ingest(
            archive,
            planned.map((x) => ({
              id: x.id,
              kind: "section" as const,
              title: x.title,
              synopsis: x.synopsis.slice(0, 500),
              content: `${x.title}. ${x.synopsis}`,
              boundaries: [OUTLINE, `order:${x.order}`],
              edges: [
                { type: "part-of" as const, target: b.node },
                ...x.references.map((r) => ({ type: "cites" as const, target: r })),
              ],
              valid_from: at,
              source: method === "model" && model ? `model:${modelName(model)}` : "sgmc:names",
            })),
          );
          if (!res.ok) return res;
          for (const r of res.value.results) written.set(r.id, r.status as "created" | "updated" | "unchanged");
        }
        return ok({
          node: b.node,
          as_of: iso(t),
          method,
          model: method === "model" && model ? modelName(model) : null,
          dry_run: b.dry_run,
          read: refs.map((r) => r.chunkId),
          directions: planned.map((x) => ({
            id: x.id,
            title: x.title,
            synopsis: x.synopsis,
            order: x.order,
            references: x.references,
            names: x.names,
            written: b.dry_run ? ("dry_run" as const) : (written.get(x.id) ?? "unchanged"),
          })),
          unassigned,
          dropped,
          usage,
        });
      },
    }),
  };
}
