/**
 * The lossless JSON dump: validation and the replay plan that rebuilds an archive from it through the
 * normal write paths (ingest, entity alias / rename / merge, deprecate), so every invariant holds.
 *
 * Order. Operations are replayed in the order the source archive recorded them (`recorded_at`; ties:
 * versions, then entity operations in their original sequence, then deprecations). That order was
 * valid once, so it is valid again: a chunk's version k+1 comes after version k (the "rounds" rule),
 * renames close the name the entity had at that moment, merges come after the aliases added before
 * them, deprecations after the last version. A dump without recorded times degenerates to rounds
 * (version 1 of every chunk, then version 2, ...), then entity operations, then deprecations.
 *
 * Entities. A version stores only canonical entity ids, not what the producer declared. The plan
 * re-declares each entity of each version so that the aliases the ingest creates are exactly the
 * dump's alias rows with that version's valid_from (simulating which names are open at that point),
 * and checks that the rebuilt artifact has the dump's artifact hash (which covers content, head
 * fields, entity ids and declared edges). Mismatches are reported, never hidden.
 */
import { z } from "zod";
import { fail, ok, type Result, schemaFailure } from "../errors";
import { canonicalEntityId, canonicalPaperId, findIdentifiers, normAlias } from "../ids";
import { type ArtifactInput, artifactHashOf, type EntityInput, INGEST_LIMITS, prepareBatch } from "../ingest";
import { noPause, type Pause, pacer } from "../pace";
import { RELATION_LIMITS } from "../relations";
import { CHUNK_KINDS, EDGE_TYPES, ENTITY_TYPES, type EntityType } from "../types";
import {
  type ArchiveDump,
  DUMP_FORMAT,
  DUMP_SCHEMA_VERSION,
  type DumpChunk,
  type DumpExtraction,
  type DumpVersion,
} from "./types";

const ms = z.number().int();
const msOrNull = ms.nullable();

const EdgeSchema = z.object({
  type: z.enum(EDGE_TYPES),
  target: z.string().min(1),
  weight: z.number().optional(),
  valid_from: ms.optional(),
  valid_to: msOrNull.optional(),
  context: z.string().optional(),
});

const RelationSchema = z.object({
  subject: z.string().min(1),
  predicate: z.string().min(1),
  object: z.string().min(1),
  subject_type: z.enum(ENTITY_TYPES).optional(),
  object_type: z.enum(ENTITY_TYPES).optional(),
});

const ExtractionSchema = z.object({
  model: z.string().min(1).max(300),
  at: ms.optional(),
  entities: z
    .array(
      z.object({
        type: z.enum(ENTITY_TYPES),
        id: z.string().min(1).max(300).optional(),
        name: z.string().min(1).max(300),
        aliases: z.array(z.string().max(300)).max(50).optional(),
      }),
    )
    .max(INGEST_LIMITS.maxEntitiesPerArtifact),
  relations: z.array(RelationSchema).max(RELATION_LIMITS.maxRelationsPerArtifact),
});

const VersionSchema = z.object({
  version: z.number().int().min(1),
  kind: z.enum(CHUNK_KINDS),
  title: z.string().min(1),
  synopsis: z.string(),
  content: z.string().min(1),
  content_hash: z.string(),
  artifact_hash: z.string(),
  entities: z.array(z.string()),
  boundaries: z.array(z.string()),
  edges: z.array(EdgeSchema),
  relations: z.array(RelationSchema).optional(),
  extracted: ExtractionSchema.optional(),
  valid_from: ms,
  valid_to: msOrNull,
  recorded_at: ms.default(0),
  source: z.string().default(""),
});

const OpSchema = z.discriminatedUnion("op", [
  z.object({
    op: z.literal("alias"),
    alias: z.string().min(1),
    at: ms,
    recorded_at: ms.default(0),
    seq: ms.default(0),
  }),
  z.object({
    op: z.literal("rename"),
    from: z.string(),
    to: z.string().min(1),
    at: ms,
    recorded_at: ms.default(0),
    seq: ms.default(0),
  }),
  z.object({ op: z.literal("merge"), into: z.string().min(1), at: ms, recorded_at: ms.default(0), seq: ms.default(0) }),
]);

export const DumpSchema = z.object({
  format: z.literal(DUMP_FORMAT),
  schema_version: z.literal(DUMP_SCHEMA_VERSION),
  exported_at: ms,
  archive: z.object({
    id: z.string(),
    name: z.string(),
    description: z.string().default(""),
    params: z.record(z.string(), z.unknown()).default({}),
  }),
  chunks: z.array(
    z.object({
      id: z.string().min(1),
      kind: z.enum(CHUNK_KINDS),
      latest_version: z.number().int().min(1),
      first_valid_from: ms,
      deprecated_at: msOrNull,
      deprecated_by: z.string().nullable(),
      versions: z.array(VersionSchema).min(1),
      annotations: z
        .array(
          z.object({
            key: z.string().min(1).max(200),
            op: z.enum(["set", "add"]),
            value: z.unknown(),
            version: z.number().int().min(1).nullable(),
            actor: z.string(),
            reason: z.string(),
            at: ms,
            recorded_at: ms,
            event_id: z.string().nullable(),
            seq: z.number().int(),
          }),
        )
        .optional(),
    }),
  ),
  entities: z.array(
    z.object({
      id: z.string().min(1),
      type: z.enum(ENTITY_TYPES),
      name: z.string(),
      created: z.object({ name: z.string(), at: ms, recorded_at: ms }).nullable().default(null),
      merged_into: z.string().nullable().default(null),
      merged_at: msOrNull.default(null),
      aliases: z.array(z.object({ alias: z.string(), valid_from: ms, valid_to: msOrNull })).default([]),
      ops: z.array(OpSchema).default([]),
    }),
  ),
  deprecations: z
    .array(
      z.object({
        id: z.string().min(1),
        at: ms,
        by: z.string().nullable(),
        reason: z.string().default(""),
        recorded_at: ms.default(0),
        version: z.number().int().default(0),
      }),
    )
    .default([]),
  edges: z.array(z.unknown()).default([]),
});

/** Parse and validate a dump; the failure names the JSON path of the first problem. */
export function parseDump(text: string): Result<ArchiveDump> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return fail("validation", "the archive dump is not valid JSON", "body", "send the body of GET /export?format=json");
  }
  const r = DumpSchema.safeParse(raw);
  if (!r.success)
    return {
      ok: false,
      error: schemaFailure(r.error.issues, {
        subject: "body",
        prefix: "archive dump: ",
        fieldFallback: true,
        hint: `send the body of GET /export?format=json (format "${DUMP_FORMAT}", schema_version ${DUMP_SCHEMA_VERSION})`,
      }),
    };
  const dump = r.data as unknown as ArchiveDump;
  // Declared edges keep their original key order (stored as JSON; zod would reorder the keys).
  const rawChunks = (
    raw as { chunks: Array<{ versions: Array<{ edges: ArchiveDump["chunks"][0]["versions"][0]["edges"] }> }> }
  ).chunks;
  for (const [i, c] of dump.chunks.entries())
    for (const [j, v] of c.versions.entries()) {
      const edges = rawChunks[i]?.versions[j]?.edges;
      if (edges) v.edges = edges;
    }
  for (const [i, c] of dump.chunks.entries()) {
    const vs = [...c.versions].sort((a, b) => a.version - b.version);
    for (const [k, v] of vs.entries()) {
      if (v.version !== k + 1)
        return fail("validation", `chunk ${c.id} lacks version ${k + 1}`, `chunks.${i}.versions`, "export again");
      if (k > 0 && v.valid_from <= (vs[k - 1] as DumpVersion).valid_from)
        return fail("validation", `versions of ${c.id} overlap`, `chunks.${i}.versions.${k}.valid_from`);
    }
    c.versions = vs;
  }
  return ok(dump);
}

export interface ReplayItem {
  chunk: string;
  version: number;
  artifact: ArtifactInput;
  artifactHash: string;
  contentHash: string;
  /** The extraction the version carried: applied to it right after its ingest. */
  extracted?: DumpExtraction | undefined;
}

export type ReplayStep =
  | { step: "ingest"; items: ReplayItem[] }
  | { step: "alias"; entity: string; alias: string; at: number }
  | { step: "rename"; entity: string; newName: string; at: number }
  | { step: "merge"; entity: string; into: string; at: number }
  | { step: "deprecate"; chunk: string; by: string | null; at: number; reason: string };

export interface ReplayPlan {
  steps: ReplayStep[];
  /** Versions whose rebuilt artifact does not hash like the dump's (should be empty). */
  mismatches: Array<{ chunk: string; version: number; expected: string; got: string | null }>;
  counts: { versions: number; entityOps: number; deprecations: number };
}

type Event =
  | { t: number; rank: 0; k1: number; k2: string; chunk: DumpChunk; v: DumpVersion }
  | { t: number; rank: 1; k1: number; k2: string; entity: string; op: ArchiveDump["entities"][number]["ops"][number] }
  | { t: number; rank: 2; k1: number; k2: string; dep: ArchiveDump["deprecations"][number] };

const cmp = (a: Event, b: Event) =>
  a.t - b.t || a.rank - b.rank || a.k1 - b.k1 || (a.k2 < b.k2 ? -1 : a.k2 > b.k2 ? 1 : 0);

/** A name with no letters or digits: declares an entity without adding an alias. */
const NO_ALIAS = "-";

function entityTypeOf(id: string, known: string | undefined): EntityType {
  if (known && (ENTITY_TYPES as readonly string[]).includes(known)) return known as EntityType;
  if (canonicalPaperId(id)) return "paper";
  const p = id.split(":")[0] ?? "";
  return (ENTITY_TYPES as readonly string[]).includes(p) ? (p as EntityType) : "concept";
}

/** Versions and operations planned between two pauses (each version is rebuilt, hashed and checked). */
const REPLAY_EVENTS_PER_PAUSE = 50;

/** Build the replay plan (pure; `pause` is taken between slices of events). */
export async function planReplay(dump: ArchiveDump, pause: Pause = noPause): Promise<ReplayPlan> {
  const pace = pacer(pause, REPLAY_EVENTS_PER_PAUSE);
  const events: Event[] = [];
  for (const c of dump.chunks)
    for (const v of c.versions) events.push({ t: v.recorded_at, rank: 0, k1: v.version, k2: c.id, chunk: c, v });
  for (const e of dump.entities)
    for (const op of e.ops) events.push({ t: op.recorded_at, rank: 1, k1: op.seq, k2: e.id, entity: e.id, op });
  for (const d of dump.deprecations) events.push({ t: d.recorded_at, rank: 2, k1: d.at, k2: d.id, dep: d });
  events.sort(cmp);

  const entityById = new Map(dump.entities.map((e) => [e.id, e]));
  // Alias rows of the dump by (entity, valid_from): what an ingest at that time must create.
  const rowsAt = new Map<string, Array<{ alias: string; norm: string }>>();
  for (const e of dump.entities) {
    // In the order the source archive added them (its alias ops), so the target's history matches.
    const opIndex = new Map<string, number>();
    e.ops.forEach((op, i) => {
      if (op.op === "alias" && !opIndex.has(op.alias)) opIndex.set(op.alias, i);
    });
    const order = (a: string) => opIndex.get(a) ?? e.ops.length;
    const rows = [...e.aliases].sort((x, y) => x.valid_from - y.valid_from || order(x.alias) - order(y.alias));
    for (const a of rows) {
      const key = `${e.id}\u0000${a.valid_from}`;
      rowsAt.set(key, [...(rowsAt.get(key) ?? []), { alias: a.alias, norm: normAlias(a.alias) }]);
    }
  }
  // The simulated alias table and entity names, as the target archive will hold them step by step.
  const sim = {
    names: new Map<string, string>(),
    open: new Map<string, { text: string; froms: number[] }>(),
    claimed: new Set<string>(),
  };
  const openKey = (e: string, n: string) => `${e}\u0000${n}`;
  const addOpen = (e: string, text: string, from: number) => {
    const n = normAlias(text);
    if (!n) return;
    const k = openKey(e, n);
    if (sim.claimed.has(`${k}\u0000${from}`)) return;
    const cur = sim.open.get(k);
    if (cur) cur.froms.push(from);
    else sim.open.set(k, { text, froms: [from] });
    sim.claimed.add(`${k}\u0000${from}`);
  };

  const plan: ReplayPlan = { steps: [], mismatches: [], counts: { versions: 0, entityOps: 0, deprecations: 0 } };
  let batch: ReplayItem[] = [];
  let batchT = Number.NaN;
  const flush = () => {
    if (batch.length) plan.steps.push({ step: "ingest", items: batch });
    batch = [];
  };

  for (const ev of events) {
    await pace();
    // An alias the ingest before it already creates (same entity, name and time: the ingest's own
    // alias event) is no step of its own, so it neither costs an entity operation nor splits the
    // ingest batches (a dump of 994 passages with declared entities replayed one artifact at a time).
    if (ev.rank === 1 && ev.op.op === "alias") {
      const cur = sim.open.get(openKey(ev.entity, normAlias(ev.op.alias)));
      if (cur?.froms.includes(ev.op.at)) {
        plan.counts.entityOps++;
        continue;
      }
    }
    if (ev.rank !== 0) flush();
    if (ev.rank === 0) {
      const { chunk, v } = ev;
      if (ev.t !== batchT || batch.length >= INGEST_LIMITS.maxArtifacts || batch.some((b) => b.chunk === chunk.id))
        flush();
      batchT = ev.t;
      const artifact = await rebuildArtifact(chunk, v, entityById, rowsAt, sim, openKey);
      const got = await artifactHashOf(artifact);
      if (got !== v.artifact_hash)
        plan.mismatches.push({ chunk: chunk.id, version: v.version, expected: v.artifact_hash, got });
      // Apply the ingest's alias effects to the simulation (what planIngest will do).
      const prepared = prepareBatch([artifact]);
      if (prepared.ok)
        for (const row of prepared.value.items[0]?.entityRows ?? []) {
          if (!sim.names.has(row.entityId)) sim.names.set(row.entityId, row.name);
          for (const alias of row.aliases) {
            const n = normAlias(alias);
            if (n && !sim.open.has(openKey(row.entityId, n))) addOpen(row.entityId, alias, v.valid_from);
          }
        }
      // The extension's alias effects too (planExtension's, at the version's start).
      for (const e of v.extracted?.entities ?? []) {
        const id = canonicalEntityId(e.type, e.id ?? e.name);
        if (!sim.names.has(id)) sim.names.set(id, e.name);
        const names = [e.name, ...(e.aliases ?? [])];
        if (e.id && !canonicalPaperId(e.id)) names.push(e.id.replace(/^[a-z_]+:/i, ""));
        for (const alias of names) {
          const n = normAlias(alias);
          if (n && !sim.open.has(openKey(id, n))) addOpen(id, alias, v.valid_from);
        }
      }
      batch.push({
        chunk: chunk.id,
        version: v.version,
        artifact,
        artifactHash: v.artifact_hash,
        contentHash: v.content_hash,
        ...(v.extracted ? { extracted: v.extracted } : {}),
      });
      plan.counts.versions++;
    } else if (ev.rank === 1) {
      const { op, entity } = ev;
      plan.counts.entityOps++;
      if (op.op === "alias") {
        addOpen(entity, op.alias, op.at);
        plan.steps.push({ step: "alias", entity, alias: op.alias, at: op.at });
      } else if (op.op === "rename") {
        const oldName = sim.names.get(entity) ?? op.from;
        const oldNorm = normAlias(oldName);
        addOpen(entity, op.to, op.at);
        if (oldNorm !== normAlias(op.to)) {
          const k = openKey(entity, oldNorm);
          const cur = sim.open.get(k);
          if (cur) {
            cur.froms = cur.froms.filter((f) => f > op.at);
            if (!cur.froms.length) sim.open.delete(k);
          }
        }
        sim.names.set(entity, op.to);
        plan.steps.push({ step: "rename", entity, newName: op.to, at: op.at });
      } else {
        plan.steps.push({ step: "merge", entity, into: op.into, at: op.at });
      }
    } else {
      plan.counts.deprecations++;
      const d = ev.dep;
      plan.steps.push({ step: "deprecate", chunk: d.id, by: d.by, at: d.at, reason: d.reason });
    }
  }
  flush();
  return plan;
}

async function rebuildArtifact(
  chunk: DumpChunk,
  v: DumpVersion,
  entityById: Map<string, ArchiveDump["entities"][number]>,
  rowsAt: Map<string, Array<{ alias: string; norm: string }>>,
  sim: { names: Map<string, string>; open: Map<string, { text: string; froms: number[] }>; claimed: Set<string> },
  openKey: (e: string, n: string) => string,
): Promise<ArtifactInput> {
  const found = new Map(
    findIdentifiers(`${v.title}\n${v.synopsis}\n${v.content.slice(0, 200_000)}`).map((x) => [x.id, x.text]),
  );
  const declared: EntityInput[] = [];
  for (const id of v.entities) {
    const ent = entityById.get(id);
    const wanted: string[] = [];
    const seen = new Set<string>();
    for (const row of rowsAt.get(`${id}\u0000${v.valid_from}`) ?? []) {
      const k = openKey(id, row.norm);
      if (!row.norm || seen.has(row.norm) || sim.open.has(k) || sim.claimed.has(`${k}\u0000${v.valid_from}`)) continue;
      seen.add(row.norm);
      wanted.push(row.alias);
    }
    const isNew = !sim.names.has(id);
    const createdName = ent?.created?.name ?? ent?.name ?? id;
    // Found in the text, created here without aliases: the ingest derives it by itself.
    if (isNew && wanted.length === 0 && found.get(id) === createdName) continue;
    const name = isNew ? createdName : (wanted[0] ?? NO_ALIAS);
    const aliases = wanted.filter((a) => normAlias(a) !== normAlias(name));
    declared.push({ type: entityTypeOf(id, ent?.type), id, name, ...(aliases.length ? { aliases } : {}) });
  }
  const synopsis = v.synopsis && v.synopsis.trim() === v.synopsis ? v.synopsis : undefined;
  const artifact: ArtifactInput = {
    id: chunk.id,
    kind: v.kind as ArtifactInput["kind"],
    title: v.title,
    ...(synopsis !== undefined ? { synopsis } : {}),
    content: v.content,
    entities: declared,
    boundaries: v.boundaries,
    edges: v.edges,
    ...(v.relations?.length ? { relations: v.relations } : {}),
    valid_from: v.valid_from,
    source: v.source,
  };
  // Identifiers in the text that the source version did not ground were suppressed by an id-like alias
  // of a declared paper (its DOI written in the text, say): declare that alias again (it is open).
  const prepared = prepareBatch([artifact]);
  if (prepared.ok) {
    const want = new Set(v.entities);
    const extra = (prepared.value.items[0]?.entityIds ?? []).filter((x) => !want.has(x));
    for (const x of extra) {
      for (const d of declared) {
        if (d.type !== "paper") continue;
        const text = [...sim.open.entries()].find(
          ([k, o]) => k.startsWith(`${d.id}\u0000`) && canonicalPaperId(o.text) === x,
        )?.[1].text;
        if (text) {
          d.aliases = [...(d.aliases ?? []), text];
          break;
        }
      }
    }
  }
  return artifact;
}
