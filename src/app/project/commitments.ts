/**
 * POST /commitments/propose: ProjectGuard's commitment extraction (seed 002, B.1) by the configured
 * language model. The model reads a session's last events (or the turn records a caller names) and
 * proposes design and decision records; each must quote the turns it cites verbatim
 * (src/core/proposals/commitments.ts). Kept records go through ProjectGuard's own review path: they
 * are ingested with `discussed-in` edges to their turns and the status annotation `proposed`, so the
 * brief and the render (committed records only) ignore them until a user sets `status` to `committed`
 * (or `rejected`). A session event a record cites is stored as the `record` chunk its id names
 * (boundaries `session:<id>` and `role:<role>`), so every edge has a target and every anchor verifies
 * with POST /verify. Ids come from the source ids and a content hash: a retry with the same answer
 * writes nothing new, and an id already present is never overwritten (a user may have edited it).
 */

import type * as S from "../../contract";
import { CommitmentsResult } from "../../contract";
import { foldAnnotations } from "../../core/annotations";
import { fail, ok, type Result } from "../../core/errors";
import { slug } from "../../core/ids";
import type { ArtifactInput } from "../../core/ingest";
import {
  COMMITMENTS_SCHEMA,
  COMMITMENTS_SYSTEM,
  checkCommitments,
  commitmentsPrompt,
  type DesignRef,
  fitTurns,
  type ProposedCommitment,
  type RecordRef,
  type Turn,
} from "../../core/proposals/commitments";
import { contentHash, type ProposalOutcome, propose } from "../../core/proposals/propose";
import type { AnchoredSpan } from "../../core/types";
import { actorOf } from "../auth";
import type { AppDeps } from "../deps";
import { type Ingested, modelFailure } from "../lib/proposals";
import { toEvent } from "../lib/records";
import { listProposals, type ModelContext, modelUseCase, proposalAnswer } from "../lib/use-case";
import { type In, iso } from "../lib/wire";

type Out = In<typeof S.CommitmentsResult>;

/** Designs listed to the model (a decision may name one as the design it operationalises). */
const MAX_DESIGNS = 40;
/** The status ProjectGuard's brief and render read; a model's records start `proposed`. */
const STATUS_KEY = "status";
/** Records of each kind listed to the model as revisable, and the characters of each shown. */
const MAX_RECORDS = 40;
const RECORD_CHARS = 300;
/** The annotation on a turn record that holds the answer its extraction gave (`per_turn`). */
export const TURN_KEY = "commitments";

/** The record chunk a session event becomes: the session, the event's time and a hash of it. */
export async function turnChunkId(session: string, e: { role: string; text: string; at: number }): Promise<string> {
  return `turn:${session}/${e.at}-${await contentHash([e.role, e.text], 8)}`;
}

/** A role from a turn record's `role:<role>` boundary, else its title's first word. */
function roleOf(boundaries: readonly string[], title: string): string {
  const tag = boundaries.find((b) => b.startsWith("role:"));
  return tag ? tag.slice(5) : (title.split(/\s+/u)[0] ?? "turn").toLowerCase();
}

/** A record's deterministic id: kind, title slug, and a hash of what it says and what it cites. */
async function recordId(c: ProposedCommitment): Promise<string> {
  const h = await contentHash([c.kind, c.title, c.content, ...[...c.sources].sort()]);
  return `${c.kind}:${slug(c.title).slice(0, 60) || "record"}-${h}`;
}

type Body = In<typeof S.CommitmentsBody>;
type SessionEvent = { role: string; text: string; at: number };
type Proposed = Extract<ProposalOutcome<ProposedCommitment>, { ok: true }>;
type PartOf = (c: ProposedCommitment) => string | null;
type Write = { c: ProposedCommitment; id: string };

/** The designs and decisions at t the model may revise (rejected ones left out), with status and content start. */
async function keptRecords(d: AppDeps, archive: string, t: number): Promise<RecordRef[]> {
  const chunks = d.stores.chunks;
  const rows = [
    ...(await chunks.listChunks(archive, { asOf: t, kind: "design" }, null, MAX_RECORDS)),
    ...(await chunks.listChunks(archive, { asOf: t, kind: "decision" }, null, MAX_RECORDS)),
  ];
  if (!rows.length) return [];
  const ids = rows.map((r) => r.chunkId);
  const events = await d.stores.annotations.annotationsOf(archive, ids, STATUS_KEY, t);
  const heads = await chunks.visibleAt(archive, ids, t);
  const out: RecordRef[] = [];
  for (const r of rows) {
    const h = heads.get(r.chunkId);
    if (!h) continue;
    const v = foldAnnotations(events.filter((e) => e.chunkId === r.chunkId).map(toEvent), t).get(STATUS_KEY)?.value;
    const status = typeof v === "string" ? v : "none";
    if (status === "rejected") continue;
    const text = (await d.kernel.contentOf(h.contentKey)) ?? "";
    out.push({
      id: r.chunkId,
      kind: r.kind === "design" ? "design" : "decision",
      title: r.title,
      status,
      content: text.slice(0, RECORD_CHARS),
    });
  }
  return out;
}

/** The answer stored on a turn record by an earlier `per_turn` extraction, or null. */
async function storedAnswer(d: AppDeps, archive: string, turn: string): Promise<Out | null> {
  // Any time: the marker's valid time is when the extraction ran, and a redelivery may name an earlier as_of.
  const events = await d.stores.annotations.annotationsOf(archive, [turn], TURN_KEY, Number.MAX_SAFE_INTEGER);
  const v = foldAnnotations(events.map(toEvent), Number.MAX_SAFE_INTEGER).get(TURN_KEY)?.value;
  if (v === undefined) return null;
  const parsed = CommitmentsResult.safeParse(v);
  return parsed.success ? parsed.data : null;
}

/** The turns to read, oldest first, or why there are none. */
async function readTurns(
  d: AppDeps,
  archive: string,
  b: Body,
  t: number,
): Promise<Result<{ turns: Turn[]; fromSession: Map<string, SessionEvent> }>> {
  const fromSession = new Map<string, SessionEvent>();
  if ((b.session === undefined) === (b.turns === undefined))
    return fail("validation", "give exactly one of session or turns", "session", "name a session, or turn record ids");
  if (b.session !== undefined) {
    const events = await d.stores.sessions.recent(archive, b.session, t, b.last);
    if (events.length === 0)
      return fail("not_found", `session ${b.session} has no events at or before ${iso(t)}`, "session");
    const turns: Turn[] = [];
    for (const e of [...events].reverse()) {
      const id = await turnChunkId(b.session, e);
      if (fromSession.has(id)) continue;
      fromSession.set(id, { role: e.role, text: e.text, at: e.at });
      turns.push({ id, version: 1, role: e.role, text: e.text, at: e.at });
    }
    return ok({ turns, fromSession });
  }
  const ids = [...new Set(b.turns ?? [])];
  const visible = await d.stores.chunks.visibleAt(archive, ids, t);
  const missing = ids.filter((id) => !visible.has(id));
  if (missing.length)
    return fail(
      "not_found",
      `no version valid at ${iso(t)} of ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` and ${missing.length - 5} more` : ""}`,
      "turns",
    );
  const turns: Turn[] = [];
  for (const id of ids) {
    const v = visible.get(id);
    if (!v) continue;
    const text = await d.kernel.contentOf(v.contentKey);
    if (text === null) return fail("unavailable", `the content of ${id} v${v.version} could not be read`, "turns");
    turns.push({ id, version: v.version, role: roleOf(v.boundaries, v.title), text, at: v.validFrom });
  }
  turns.sort((x, y) => x.at - y.at || (x.id < y.id ? -1 : 1));
  return ok({ turns, fromSession });
}

/** Ids first (a decision may name a design of the same answer by title); a revision keeps its record's id. */
async function proposalIds(items: ProposedCommitment[]): Promise<{ ids: string[]; partOf: PartOf }> {
  const ids = await Promise.all(items.map((c) => (c.revises === null ? recordId(c) : c.revises)));
  const byTitle = new Map<string, string>();
  for (const [i, c] of items.entries()) if (c.kind === "design") byTitle.set(c.title.toLowerCase(), ids[i] as string);
  const partOf = (c: ProposedCommitment) =>
    c.design === null
      ? null
      : c.design.startsWith("title:")
        ? (byTitle.get(c.design.slice(6).toLowerCase()) ?? null)
        : c.design;
  return { ids, partOf };
}

/** A new record's id already present is left as it is; a revision is ingested (unchanged when the same). */
async function newWrites(
  d: AppDeps,
  archive: string,
  items: ProposedCommitment[],
  ids: string[],
): Promise<{ existing: Set<string>; writes: Write[] }> {
  const existing = new Set<string>();
  for (const [i, c] of items.entries())
    if (c.revises === null && (await d.stores.chunks.chunkRow(archive, ids[i] as string)))
      existing.add(ids[i] as string);
  const writes = items.flatMap((c, i) => (existing.has(ids[i] as string) ? [] : [{ c, id: ids[i] as string }]));
  return { existing, writes };
}

/** The session events the new records cite (and, per turn, the turn itself) become turn records. */
function turnArtifacts(
  b: Body,
  fromSession: Map<string, SessionEvent>,
  writes: Write[],
  turnId: string | null,
): ArtifactInput[] {
  const cited = new Set([...writes.flatMap((w) => w.c.sources), ...(turnId ? [turnId] : [])]);
  return [...cited].flatMap((id) => {
    const e = fromSession.get(id);
    if (!e || b.session === undefined) return [];
    return [
      {
        id,
        kind: "record" as const,
        title: `${e.role} turn, ${iso(e.at)}`,
        content: e.text,
        boundaries: [`session:${b.session}`, `role:${e.role}`],
        valid_from: e.at,
        source: `session:${b.session}`,
      },
    ];
  });
}

/** The records to write, with `discussed-in` edges to their turns and `part-of` to their design. */
function recordArtifacts(writes: Write[], partOf: PartOf, now: number, name: string): ArtifactInput[] {
  return writes.map(({ c, id }) => {
    const design = partOf(c);
    return {
      id,
      kind: c.kind,
      title: c.title,
      content: c.content,
      edges: [
        ...c.sources.map((s) => ({
          type: "discussed-in" as const,
          target: s,
          context: c.anchors.find((a) => a.artifact_id === s)?.snippet,
        })),
        ...(design && design !== id ? [{ type: "part-of" as const, target: design }] : []),
      ],
      valid_from: now,
      source: `model:${name}`,
    };
  });
}

/** Ingest the turn records and the records, then mark each new or changed record `proposed` with its provenance. */
async function writeProposals(
  m: ModelContext,
  turns: Turn[],
  artifacts: ArtifactInput[],
  writes: Write[],
): Promise<Result<Ingested>> {
  const { name } = m;
  return m.keep(artifacts, ({ versions, statusOf }) =>
    // A revision the record already says is not a new proposal.
    writes.flatMap(({ c, id }) => {
      if (c.revises !== null && statusOf.get(id) === "unchanged") return [];
      const version = versions.get(id) ?? 1;
      const anchors = c.anchors.map((a) => ({ ...a, version: versions.get(a.artifact_id) ?? a.version }));
      return [
        {
          id,
          provenance: { model: name, read: turns.map((x) => x.id), sources: c.sources, anchors },
          also: {
            key: STATUS_KEY,
            value: "proposed",
            reason:
              c.revises === null
                ? `proposed by ${name}; set committed to brief it, rejected to drop it`
                : `revision v${version} proposed by ${name}; set committed to brief it again`,
            eventId: c.revises === null ? `${STATUS_KEY}:proposed:${id}` : `${STATUS_KEY}:proposed:${id}@v${version}`,
          },
        },
      ];
    }),
  );
}

/** The answer: what was read, each proposal with its id and what was written of it. */
function answerOf(
  m: ModelContext,
  b: Body,
  turns: Turn[],
  outcome: Proposed,
  ids: string[],
  partOf: PartOf,
  existing: Set<string>,
  { versions, statusOf }: Ingested,
) {
  const anchorsOut = (xs: AnchoredSpan[]) =>
    xs.map((a) => ({ ...a, version: versions.get(a.artifact_id) ?? a.version }));
  const written = (id: string, c: ProposedCommitment) => {
    if (existing.has(id)) return "existing" as const;
    if (b.dry_run) return "dry_run" as const;
    if (c.revises !== null) return statusOf.get(id) === "unchanged" ? ("existing" as const) : ("revised" as const);
    return "created" as const;
  };
  return proposalAnswer(
    m,
    b.dry_run,
    { read: turns.map((x) => ({ id: x.id, version: x.version, role: x.role })) },
    listProposals(
      outcome.items,
      ids,
      (c) => ({
        kind: c.kind,
        title: c.title,
        content: c.content,
        part_of: partOf(c),
        revises: c.revises,
        sources: c.sources,
        anchors: anchorsOut(c.anchors),
        status: "proposed" as const,
      }),
      written,
    ),
    outcome,
  );
}

/** The turn's answer, kept on its record: a redelivery of this turn replays it (first one wins). */
async function keepTurnAnswer(
  d: AppDeps,
  m: ModelContext,
  turnId: string,
  answer: Out,
  versions: Map<string, number>,
): Promise<Result<Out>> {
  const first = await d.stores.annotations.appendAnnotation({
    archiveId: m.archive,
    chunkId: turnId,
    version: versions.get(turnId) ?? 1,
    key: TURN_KEY,
    op: "set",
    value: answer,
    actor: await m.actor(),
    reason: `commitments extracted by ${m.name}`,
    at: m.now,
    recordedAt: d.clock.now(),
    eventId: `${TURN_KEY}:${turnId}`,
  });
  if (first.duplicate) {
    const stored = await storedAnswer(d, m.archive, turnId);
    if (stored) return ok({ ...stored, replayed: true });
  }
  return ok({ ...answer, replayed: false });
}

/** POST /commitments/propose: read the turns, ask the model, write what it proposes (unless dry_run). */
async function proposeCommitments(d: AppDeps, m: ModelContext, b: Body): Promise<Result<Out>> {
  const { archive, now, t } = m;
  const read = await readTurns(d, archive, b, t);
  if (!read.ok) return read;
  // per_turn: the turn just finished is the newest event read; a turn extracted before answers again.
  let turnId: string | null = null;
  if (b.per_turn) {
    if (b.session === undefined)
      return fail("validation", "per_turn needs session", "per_turn", "name the session whose turn just finished");
    turnId = [...read.value.turns].sort((x, y) => y.at - x.at)[0]?.id ?? null;
    const stored = turnId ? await storedAnswer(d, archive, turnId) : null;
    if (stored) return ok({ ...stored, replayed: true });
  }
  const turns = fitTurns(read.value.turns);
  const designs: DesignRef[] = (
    await d.stores.chunks.listChunks(archive, { asOf: t, kind: "design" }, null, MAX_DESIGNS)
  ).map((r) => ({ id: r.chunkId, title: r.title }));
  const kept = await keptRecords(d, archive, t);
  const outcome = await propose({
    model: m.model,
    name: "commitments",
    description:
      "The design and decision records the session's turns commit to (new ones, or revisions of kept ones), each quoting its turns.",
    schema: COMMITMENTS_SCHEMA,
    system: COMMITMENTS_SYSTEM,
    prompt: commitmentsPrompt(turns, designs, kept),
    maxOutputTokens: 2048,
    check: (v) => checkCommitments(v, turns, designs, kept),
  });
  if (!outcome.ok) return modelFailure(outcome);

  const { ids, partOf } = await proposalIds(outcome.items);
  const { existing, writes } = await newWrites(d, archive, outcome.items, ids);
  let written: Ingested = { versions: new Map(), statusOf: new Map() };
  if (!b.dry_run && (writes.length || turnId)) {
    const artifacts = [
      ...turnArtifacts(b, read.value.fromSession, writes, turnId),
      ...recordArtifacts(writes, partOf, now, m.name),
    ];
    const w = await writeProposals(m, turns, artifacts, writes);
    if (!w.ok) return w;
    written = w.value;
  }

  const answer = answerOf(m, b, turns, outcome, ids, partOf, existing, written);
  if (turnId && !b.dry_run) return keepTurnAnswer(d, m, turnId, answer, written.versions);
  return ok(answer);
}

export function commitmentUseCases(d: AppDeps) {
  return {
    proposeCommitments: modelUseCase(d, actorOf, { run: (m, b: Body) => proposeCommitments(d, m, b) }),
  };
}
