/**
 * The numbers a capital-chunk snapshot stores for enums: an edge type is 4 bits of a slot's type
 * byte, a chunk kind one byte per node. The tables are append-only: a code, once written into a
 * snapshot, names the same type for ever, so a new type is appended (a test pins every code written
 * so far), never inserted, and the order of the API's enums (`EDGE_TYPES`, `CHUNK_KINDS`) is free.
 * A snapshot records how many codes its writer knew; a reader that knows fewer refuses it.
 */
import type { ChunkKind, EdgeType } from "../types";

/** Edge type by stored code (at most 16: 4 bits of the slot's type byte). */
export const EDGE_TYPE_CODES = [
  "cites",
  "benchmarked-on",
  "implements",
  "tests",
  "part-of",
  "depends-on",
  "introduced-by",
  "discussed-in",
  "deprecated-by",
  "motivates",
  "mentions",
  "follows",
] as const satisfies readonly EdgeType[];

/** Chunk kind by stored code (one byte per node). */
export const CHUNK_KIND_CODES = [
  "paper",
  "section",
  "code_unit",
  "benchmark_row",
  "record",
  "decision",
  "note",
  "dataset",
  "technique",
  "design",
  "element",
] as const satisfies readonly ChunkKind[];

// Every member of the API's enums has a stored code (a compile error otherwise).
type Missing<All, Coded> = [Exclude<All, Coded>] extends [never] ? true : Exclude<All, Coded>;
const edgesCoded: Missing<EdgeType, (typeof EDGE_TYPE_CODES)[number]> = true;
const kindsCoded: Missing<ChunkKind, (typeof CHUNK_KIND_CODES)[number]> = true;
void edgesCoded;
void kindsCoded;

const edgeCodes = new Map<string, number>(EDGE_TYPE_CODES.map((t, i) => [t, i]));
const kindCodes = new Map<string, number>(CHUNK_KIND_CODES.map((k, i) => [k, i]));

/** The stored code of an edge type. */
export function edgeCode(type: EdgeType): number {
  const c = edgeCodes.get(type);
  if (c === undefined) throw new UnknownCode(`edge type "${type}" has no stored code`);
  return c;
}

/** The stored code of a chunk kind. */
export function kindCode(kind: ChunkKind): number {
  return kindCodes.get(kind) ?? 0;
}

/** A stored code, or a type, this build does not know (a snapshot or change from a newer build). */
export class UnknownCode extends Error {
  override name = "UnknownCode";
}

/**
 * Refuse a snapshot holding codes this build does not know: the writer's counts (absent in
 * snapshots written before they were recorded) and every kind byte and edge-type nibble.
 */
export function checkCodes(
  writer: { edge: number; kind: number } | undefined,
  kinds: Uint8Array,
  slotTypes: Uint8Array,
  typeMask: number,
): void {
  if (writer && (writer.edge > KNOWN_CODES.edge || writer.kind > KNOWN_CODES.kind))
    throw new UnknownCode(
      `snapshot written with ${writer.edge} edge-type and ${writer.kind} chunk-kind codes; this build knows ${KNOWN_CODES.edge} and ${KNOWN_CODES.kind}`,
    );
  for (let i = 0; i < kinds.length; i++)
    if ((kinds[i] as number) >= KNOWN_CODES.kind)
      throw new UnknownCode(`snapshot node ${i} has chunk-kind code ${kinds[i]}; this build knows ${KNOWN_CODES.kind}`);
  for (let k = 0; k < slotTypes.length; k++)
    if (((slotTypes[k] as number) & typeMask) >= KNOWN_CODES.edge)
      throw new UnknownCode(
        `snapshot slot ${k} has edge-type code ${(slotTypes[k] as number) & typeMask}; this build knows ${KNOWN_CODES.edge}`,
      );
}

/** How many codes of each table this build knows (written into every snapshot). */
export const KNOWN_CODES = { edge: EDGE_TYPE_CODES.length, kind: CHUNK_KIND_CODES.length } as const;
