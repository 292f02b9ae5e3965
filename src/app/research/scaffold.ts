/**
 * GET /research/scaffold: the review scaffold (seed 001 §5, the traceable chain from a claim to its
 * source). The outline under a root at `as_of` in tree order; per node its references (cites
 * targets), its draft version valid then (the claims), its hub version, and the evidence: the
 * anchors that draft version rests on (`from: draft`, its `sgmc:evidence` annotation), then the hub's
 * anchors the draft does not use (`from: hub`). Every anchor names an exact (artifact, version, span)
 * that POST /verify re-checks. As JSON, or as a Markdown document of the same content.
 */
import type * as S from "../../contract";
import { fail, ok, type Result } from "../../core/errors";
import type { StoredVersion } from "../../core/ports";
import type { AppDeps } from "../deps";
import { type In, iso, timeOf } from "../lib/wire";
import { readContents } from "./common";
import { draftEvidence } from "./critique";
import { parseHub } from "./hubs";
import { readTree } from "./outline";

type Scaffold = In<typeof S.ScaffoldResult>;

/** Characters of draft versions one scaffold reads. */
const MAX_SCAFFOLD_CHARS = 8 * 1024 * 1024;

export function scaffoldUseCases(d: AppDeps) {
  const chunks = d.stores.chunks;

  return {
    scaffoldMarkdown,
    async scaffold(archive: string, q: In<typeof S.ScaffoldQuery>): Promise<Result<Scaffold>> {
      const t = timeOf(d, q.as_of);
      const tree = await readTree(d, archive, q.root, t, {
        theta: Number.MAX_SAFE_INTEGER,
        dMax: 64,
        words: "references",
        maxNodes: q.max_nodes,
        ownContent: false,
      });
      if (!tree.ok) return tree;
      const nodes = tree.value.nodes;
      const side = nodes.flatMap((n) => [n.draft?.id, n.hub?.id]).filter((x): x is string => x !== undefined);
      const versions = side.length ? await chunks.visibleAt(archive, side, t) : new Map<string, StoredVersion>();
      const reads = [...versions.values()];
      const chars = reads.reduce((n, v) => n + v.contentChars, 0);
      if (chars > MAX_SCAFFOLD_CHARS)
        return fail(
          "too_large",
          `the drafts and hubs under ${q.root} hold ${chars} characters at that time (at most ${MAX_SCAFFOLD_CHARS} per call)`,
          "root",
          "read a deeper root",
        );
      const contents = await readContents(
        d,
        reads.map((v) => v.contentKey),
      );
      const text = (id: string | undefined) => {
        const v = id === undefined ? undefined : versions.get(id);
        return v ? (contents.get(v.contentKey) ?? "") : "";
      };
      // Source titles for anchors outside the node's references.
      const out: Scaffold["nodes"] = [];
      const titles = new Map<string, string>();
      for (const n of nodes) for (const r of n.references) titles.set(r.id, r.title);
      const pending: Array<{ node: number; evidence: Scaffold["nodes"][number]["evidence"] }> = [];
      for (const n of nodes) {
        const dv = n.draft ? versions.get(n.draft.id) : undefined;
        const hv = n.hub ? versions.get(n.hub.id) : undefined;
        const evidence: Scaffold["nodes"][number]["evidence"] = [];
        const key = (a: { artifact_id: string; version: number; start: number; end: number }) =>
          `${a.artifact_id}@${a.version}[${a.start},${a.end})`;
        const seen = new Set<string>();
        if (dv)
          for (const a of (await draftEvidence(d, archive, dv.chunkId, dv.version)).anchors) {
            if (seen.has(key(a))) continue;
            seen.add(key(a));
            evidence.push({ ...a, title: titles.get(a.artifact_id) ?? "", from: "draft" });
          }
        if (hv)
          for (const a of parseHub(text(hv.chunkId)).evidence) {
            if (seen.has(key(a))) continue;
            seen.add(key(a));
            evidence.push({
              artifact_id: a.artifact_id,
              version: a.version,
              start: a.start,
              end: a.end,
              snippet: a.snippet,
              title: a.title || (titles.get(a.artifact_id) ?? ""),
              from: "hub",
            });
          }
        pending.push({ node: out.length, evidence });
        out.push({
          id: n.id,
          version: n.version,
          title: n.title,
          depth: n.depth,
          parent: n.parent,
          references: n.references,
          draft: dv ? { id: dv.chunkId, version: dv.version, text: text(dv.chunkId) } : null,
          hub: hv ? { id: hv.chunkId, version: hv.version } : null,
          evidence,
        });
      }
      const untitled = [
        ...new Set(pending.flatMap((p) => p.evidence.filter((e) => !e.title).map((e) => e.artifact_id))),
      ];
      if (untitled.length) {
        const vs = await chunks.visibleAt(archive, untitled, t);
        for (const p of pending) for (const e of p.evidence) if (!e.title) e.title = vs.get(e.artifact_id)?.title ?? "";
      }
      return ok({
        root: q.root,
        as_of: iso(t),
        nodes: out,
        anchors: out.reduce((n, x) => n + x.evidence.length, 0),
      });
    },
  };
}

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

/** The scaffold as Markdown: a heading per node, its references, its draft, and each anchor. */
export function scaffoldMarkdown(s: Scaffold): string {
  const lines: string[] = [`# Review scaffold: ${s.root}`, "", `As of ${s.as_of}; ${s.anchors} anchors.`, ""];
  for (const n of s.nodes) {
    lines.push(`${"#".repeat(Math.min(n.depth + 2, 6))} ${oneLine(n.title)}`, "", `Node \`${n.id}@v${n.version}\``, "");
    if (n.references.length) {
      lines.push("References:", "");
      for (const r of n.references) lines.push(`- \`${r.id}@v${r.version}\` ${oneLine(r.title)}`);
      lines.push("");
    }
    if (n.draft)
      lines.push(
        `Draft \`${n.draft.id}@v${n.draft.version}\`:`,
        "",
        ...n.draft.text
          .trim()
          .split("\n")
          .map((l) => `> ${l}`),
        "",
      );
    if (n.evidence.length) {
      lines.push("Evidence:", "");
      for (const e of n.evidence)
        lines.push(
          `- \`${e.artifact_id}@v${e.version} [${e.start},${e.end})\` (${e.from}) "${oneLine(e.snippet)}"${e.title ? `: ${oneLine(e.title)}` : ""}`,
        );
      lines.push("");
    }
  }
  return `${lines.join("\n").trimEnd()}\n`;
}
