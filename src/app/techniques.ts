/**
 * POST /techniques/propose: xKG's technique extraction (seed 003 §2.2) by the configured language
 * model. The model reads a paper (its chunk and the `section` chunks of its part-of subtree at
 * `as_of`) and the code units linked to it (`code_unit` chunks of the subtree, as an xKG import
 * stores them, and those under `code_prefix`, a repository), and proposes techniques, each quoting
 * the sections it rests on and a line of each code unit that implements it
 * (src/core/proposals/techniques.ts). xKG's write path is ingest: a kept technique becomes a
 * `technique` chunk `part-of` the paper (and its parent technique), with `discussed-in` edges to its
 * sections, the `method:<slug>` entity an import gives it, and source `model:<provider>:<model>`; a
 * code link becomes an `implements` edge on the code unit's next version (as POST /review add_edge
 * writes one), so /code-pairs and /metrics/grounding see it. Nothing is marked reviewed: every node
 * and edge stays `auto-generated` until a user verifies, edits or flags it (POST /review). Ids come
 * from the paper, the sections cited and a content hash: a retry writes nothing new.
 */

import type * as S from "../contract";
import { fail, ok, type Result } from "../core/errors";
import { slug } from "../core/ids";
import type { ArtifactInput } from "../core/ingest";
import type { StoredVersion } from "../core/ports";
import { contentHash, type Dropped, propose } from "../core/proposals/propose";
import {
  checkTechniques,
  fitSources,
  type ProposedTechnique,
  TECHNIQUES_SCHEMA,
  TECHNIQUES_SYSTEM,
  type TitledDoc,
  techniquesPrompt,
} from "../core/proposals/techniques";
import { actorOf } from "./auth";
import type { AppDeps } from "./deps";
import { modelFailure, newProposals } from "./lib/proposals";
import { listProposals, modelUseCase, proposalAnswer } from "./lib/use-case";
import { type In, iso } from "./lib/wire";
import { readContents } from "./research/common";
import { nextArtifact } from "./review/apply";

type Out = In<typeof S.TechniquesResult>;

/** Chunks of a paper's subtree read (sections, elements, code, ...). */
const MAX_SUBTREE = 2000;
const MAX_ID = 512;
const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id, "en", { numeric: true });

async function techniqueId(paper: string, t: ProposedTechnique): Promise<string> {
  const h = await contentHash([t.name, t.type, t.description, ...[...t.sources].sort()]);
  const id = `${paper}#mt:${slug(t.name).slice(0, 48) || "technique"}-${h}`;
  return id.length <= MAX_ID ? id : `technique:${slug(t.name).slice(0, 48) || "technique"}-${h}`;
}

/** The paper and its sections, and the code units linked to it, read at t and fitted to the prompt (fitSources). */
async function readSources(
  d: AppDeps,
  archive: string,
  b: In<typeof S.TechniquesBody>,
  paper: StoredVersion,
  t: number,
): Promise<{ sections: TitledDoc[]; code: TitledDoc[] }> {
  const chunks = d.stores.chunks;
  // The paper's subtree: its sections, and the code an xKG import stores part-of it.
  const subtree = await chunks.subtree(archive, b.paper, t, MAX_SUBTREE);
  const versions = await chunks.visibleAt(archive, subtree, t);
  const sectionVs = [...versions.values()].filter((v) => v.kind === "section" && !v.boundaries.includes("sgmc:draft"));
  const codeVs = [...versions.values()].filter((v) => v.kind === "code_unit" && !v.boundaries.includes("xkg:test"));
  const codeIds = new Set(codeVs.map((v) => v.chunkId));
  if (b.code_prefix !== undefined) {
    const mods = await chunks.codeModules(archive, b.code_prefix, t, b.max_code_units);
    const extra = (
      await chunks.visibleAt(
        archive,
        mods.map((m) => m.chunkId).filter((id) => !codeIds.has(id)),
        t,
      )
    ).values();
    for (const v of extra) codeVs.push(v);
  }
  const code = codeVs.sort((x, y) => byId({ id: x.chunkId }, { id: y.chunkId })).slice(0, b.max_code_units);
  const contents = await readContents(d, [
    paper.contentKey,
    ...sectionVs.map((v) => v.contentKey),
    ...code.map((v) => v.contentKey),
  ]);
  const doc = (v: typeof paper): TitledDoc | null => {
    const text = contents.get(v.contentKey);
    return text === undefined ? null : { id: v.chunkId, version: v.version, title: v.title, text };
  };
  const sections = [paper, ...sectionVs.sort((x, y) => byId({ id: x.chunkId }, { id: y.chunkId }))]
    .map(doc)
    .filter((x): x is TitledDoc => x !== null);
  const units = code.map(doc).filter((x): x is TitledDoc => x !== null);
  return fitSources(sections, units);
}

/** The techniques to write as chunks, part-of the paper (and their parent technique), discussed-in their sections. */
function techniqueArtifacts(
  paperId: string,
  title: string,
  writes: readonly { item: ProposedTechnique; id: string }[],
  idOf: Map<string, string>,
  now: number,
  source: string,
): ArtifactInput[] {
  const paperTitle = title.length > 150 ? `${title.slice(0, 149)}…` : title;
  const techniques: ArtifactInput[] = writes.map(({ item: x, id }) => {
    const parent = x.parent === null ? undefined : idOf.get(x.parent.toLowerCase());
    return {
      id,
      kind: "technique" as const,
      title: `${x.name} (${paperTitle})`,
      content: `${x.name}\n\n${x.description}`,
      entities: [{ type: "method" as const, id: `method:${slug(x.name).slice(0, 200)}`, name: x.name }],
      edges: [
        { type: "part-of" as const, target: paperId },
        ...(parent ? [{ type: "part-of" as const, target: parent }] : []),
        ...x.sources.map((s) => ({
          type: "discussed-in" as const,
          target: s,
          context: x.anchors.find((a) => a.artifact_id === s)?.snippet,
        })),
      ],
      valid_from: now,
      source,
    };
  });
  return techniques;
}

/** The next version of each code unit linked, with its new implements edges; a unit that takes none drops its links. */
async function codeLinkVersions(
  d: AppDeps,
  archive: string,
  writes: readonly { item: ProposedTechnique; id: string }[],
  ids: readonly string[],
  items: readonly ProposedTechnique[],
  now: number,
  dropped: Dropped[],
): Promise<ArtifactInput[]> {
  // Each code unit linked gets one next version with its new implements edges.
  const links = new Map<string, string[]>();
  for (const { item: x, id } of writes) for (const c of x.code) links.set(c.id, [...(links.get(c.id) ?? []), id]);
  const codeVersions: ArtifactInput[] = [];
  for (const [unit, targets] of links) {
    const next = await nextArtifact(d, archive, unit, now, (a) => {
      for (const target of targets)
        if (!a.edges.some((e) => e.type === "implements" && e.target === target))
          a.edges.push({ type: "implements", target });
      return ok(undefined);
    });
    if (next.ok) codeVersions.push(next.value);
    else
      for (const target of targets)
        dropped.push({
          index: ids.indexOf(target),
          title: items[ids.indexOf(target)]?.name ?? target,
          what: "link",
          reason: `${unit} takes no new version now: ${next.error.message}`,
        });
  }
  return codeVersions;
}

export function techniqueUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  return {
    proposeTechniques: modelUseCase(d, actorOf, {
      async run(c, b: In<typeof S.TechniquesBody>): Promise<Result<Out>> {
        const { archive, t, now } = c;
        const paper = (await chunks.visibleAt(archive, [b.paper], t)).get(b.paper);
        if (!paper) return fail("not_found", `chunk ${b.paper} has no version valid at ${iso(t)}`, "paper");

        const shown = await readSources(d, archive, b, paper, t);

        const outcome = await propose({
          model: c.model,
          name: "techniques",
          description: "The paper's implementable techniques, each quoting its sections and the code implementing it.",
          schema: TECHNIQUES_SCHEMA,
          system: TECHNIQUES_SYSTEM,
          prompt: techniquesPrompt(paper.title, shown.sections, shown.code),
          maxOutputTokens: 4096,
          check: (v) => checkTechniques(v, shown.sections, shown.code),
        });
        if (!outcome.ok) return modelFailure(outcome);
        const dropped = [...outcome.dropped];

        const ids = await Promise.all(outcome.items.map((x) => techniqueId(b.paper, x)));
        const idOf = new Map(outcome.items.map((x, i) => [x.name.toLowerCase(), ids[i] as string]));
        const { writes, written } = await newProposals(chunks, archive, outcome.items, ids, b.dry_run);

        if (!b.dry_run && writes.length) {
          const techniques = techniqueArtifacts(b.paper, paper.title, writes, idOf, now, `model:${c.name}`);
          const codeVersions = await codeLinkVersions(d, archive, writes, ids, outcome.items, now, dropped);
          const kept = await c.keep(
            [...techniques, ...codeVersions],
            writes.map(({ item: x, id }) => ({
              id,
              provenance: {
                model: c.name,
                read: [...shown.sections, ...shown.code].map((s) => s.id),
                sources: [...x.sources, ...x.code.map((u) => u.id)],
                anchors: [...x.anchors, ...x.code.map((u) => u.anchor)],
                type: x.type,
              },
            })),
          );
          if (!kept.ok) return kept;
        }

        return ok(
          proposalAnswer(
            c,
            b.dry_run,
            { read: { sections: shown.sections.map((s) => s.id), code_units: shown.code.map((u) => u.id) } },
            listProposals(
              outcome.items,
              ids,
              (x) => ({
                name: x.name,
                type: x.type,
                description: x.description,
                parent: x.parent === null ? null : (idOf.get(x.parent.toLowerCase()) ?? null),
                sources: x.sources,
                anchors: x.anchors,
                code: x.code,
              }),
              written,
            ),
            { dropped, usage: outcome.usage },
          ),
        );
      },
    }),
  };
}
