/**
 * Export shapes shared by the pure renderers (src/core/export) and the I/O that gathers them
 * (src/app/exports). Times are epoch milliseconds, exactly as stored.
 */
import type { EdgeInput, EntityInput } from "../ingest";
import type { EdgeRecord, ShownChunk } from "../ports/chunks";
import type { RelationInput } from "../relations";

export const EXPORT_FORMATS = [
  "json",
  "csv",
  "bibtex",
  "csljson",
  "markdown",
  "graphml",
  "mermaid",
  "xkg",
  "html",
  "graph-html",
] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export const CONTEXT_EXPORT_FORMATS = ["json", "markdown", "csljson", "bibtex", "csv"] as const;
export type ContextExportFormat = (typeof CONTEXT_EXPORT_FORMATS)[number];

/** Limits: an archive export reads at most this many chunks (413 beyond). */
export const EXPORT_LIMITS = {
  maxChunks: 50_000,
  /** Mermaid diagrams stay renderable: at most this many nodes and edges (the rest is counted in a comment). */
  mermaidMaxNodes: 200,
  mermaidMaxEdges: 400,
  /** Mermaid labels are clipped to this many characters. */
  mermaidLabelChars: 60,
} as const;

/**
 * Records read between two yields while the bibliographic exports gather their papers' metadata
 * (src/core/pace.ts): ~2,000 are a few tens of ms. The other renderers yield their output as parts
 * (src/core/export/parts.ts), sent a slice at a time.
 */
export const EXPORT_ROW_SLICE = 2000;

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  json: "application/json; charset=utf-8",
  csv: "text/csv; charset=utf-8; header=present",
  bibtex: "application/x-bibtex; charset=utf-8",
  csljson: "application/vnd.citationstyles.csl+json; charset=utf-8",
  markdown: "text/markdown; charset=utf-8",
  graphml: "application/graphml+xml; charset=utf-8",
  mermaid: "text/vnd.mermaid; charset=utf-8",
  xkg: "application/x-ndjson; charset=utf-8",
  html: "text/html; charset=utf-8",
  "graph-html": "text/html; charset=utf-8",
};

export const FILE_EXTENSIONS: Record<ExportFormat, string> = {
  json: "json",
  csv: "csv",
  bibtex: "bib",
  csljson: "csl.json",
  markdown: "md",
  graphml: "graphml",
  mermaid: "mmd",
  xkg: "xkg.jsonl",
  html: "html",
  "graph-html": "graph.html",
};

// ------------------------------------------------------------------ the lossless JSON dump

export const DUMP_FORMAT = "paperguru.archive";
export const DUMP_SCHEMA_VERSION = 1;

export interface DumpVersion {
  version: number;
  kind: string;
  title: string;
  synopsis: string;
  content: string;
  /** SHA-256 of the content (the R2 key is derived from it). */
  content_hash: string;
  /** SHA-256 of the normalised artifact; a replay must reproduce it. */
  artifact_hash: string;
  /** Canonical entity ids, sorted. */
  entities: string[];
  boundaries: string[];
  /** The declared edges of this version, as stored (weights, validity, context). */
  edges: EdgeInput[];
  /** The version's relations (OpenIE triples), as stored; absent when it has none. */
  relations?: RelationInput[] | undefined;
  /**
   * What a language model extracted from this version at ingest (docs/models.md); absent when
   * nothing was. Not covered by artifact_hash: a replay applies it to the replayed version as it
   * was applied (an extension, not a new version), without calling a model.
   */
  extracted?: DumpExtraction | undefined;
  valid_from: number;
  valid_to: number | null;
  recorded_at: number;
  source: string;
}

export interface DumpExtraction {
  /** provider:model that extracted it. */
  model: string;
  /** When it was applied in the source archive (transaction time; a replay records its own). */
  at?: number | undefined;
  /** Its entities with canonical ids, names and aliases (its relations' arguments included). */
  entities: EntityInput[];
  relations: RelationInput[];
}

export interface DumpChunk {
  id: string;
  kind: string;
  latest_version: number;
  first_valid_from: number;
  deprecated_at: number | null;
  deprecated_by: string | null;
  versions: DumpVersion[];
  /** The chunk's annotation events in (at, id) order; absent when it has none. */
  annotations?: DumpAnnotation[] | undefined;
}

export interface DumpAnnotation {
  key: string;
  op: "set" | "add";
  value: unknown;
  version: number | null;
  actor: string;
  reason: string;
  at: number;
  recorded_at: number;
  /** The caller's idempotency key; a replay uses `dump:<seq>` when there was none. */
  event_id: string | null;
  /** The event's sequence number in the source archive. */
  seq: number;
}

export interface DumpAlias {
  alias: string;
  valid_from: number;
  valid_to: number | null;
}

/** Entity lifecycle operations that the API performed (ingest-created aliases are not ops). */
export type DumpEntityOp =
  | { op: "alias"; alias: string; at: number; recorded_at: number; seq: number }
  | { op: "rename"; from: string; to: string; at: number; recorded_at: number; seq: number }
  | { op: "merge"; into: string; at: number; recorded_at: number; seq: number };

export interface DumpEntity {
  id: string;
  type: string;
  /** Current name (after renames). */
  name: string;
  /** The name and time it was created with (from its history), if recorded. */
  created: { name: string; at: number; recorded_at: number } | null;
  merged_into: string | null;
  merged_at: number | null;
  aliases: DumpAlias[];
  ops: DumpEntityOp[];
}

export interface DumpDeprecation {
  id: string;
  at: number;
  by: string | null;
  reason: string;
  recorded_at: number;
  /** The version that the deprecation closed. */
  version: number;
}

export interface DumpEdge {
  src: string;
  dst: string;
  type: string;
  weight: number;
  valid_from: number;
  valid_to: number | null;
  /** Version of the source chunk that declared the edge (the deprecated version for deprecated-by). */
  version: number;
  context: string | null;
}

export interface ArchiveDump {
  format: typeof DUMP_FORMAT;
  schema_version: typeof DUMP_SCHEMA_VERSION;
  exported_at: number;
  archive: { id: string; name: string; description: string; params: Record<string, unknown> };
  chunks: DumpChunk[];
  entities: DumpEntity[];
  deprecations: DumpDeprecation[];
  /** The stored edge table (declared and lifecycle edges), for readers; a replay re-derives it. */
  edges: DumpEdge[];
}

// ------------------------------------------------------------------ renderer inputs

/** One chunk at one version, as the listing formats (csv, bibtex, csljson, markdown) see it. */
export interface ChunkRecord extends ShownChunk {
  id: string;
  source: string;
  /** Content of that version, when the format needs it (bibtex, csljson). */
  content?: string | undefined;
  /** Types and names of the chunk's entities, when the format needs them. */
  entityInfo?: Array<{ id: string; type: string; name: string }> | undefined;
  /** Identifier-like aliases of the chunk's own entity (its DOI when keyed by arXiv id, ...). */
  aliases?: string[] | undefined;
  /** Human-verification status at the export's time (auto-generated, human-verified, human-edited, flagged). */
  reviewStatus?: string | undefined;
}

export interface GraphNode {
  id: string;
  kind: string;
  /** 0 for targets outside the archive (external nodes). */
  version: number;
  title: string;
  deprecatedAt: number | null;
  external: boolean;
  /** Human-verification status of the chunk, when the export reads statuses (never for external nodes). */
  reviewStatus?: string | undefined;
}

/** A stored edge as the graph formats see it. */
export interface GraphEdge
  extends Pick<EdgeRecord, "src" | "dst" | "type" | "weight" | "validFrom" | "validTo" | "context"> {
  /** Human-verification status of the edge, when the export reads statuses. */
  reviewStatus?: string | undefined;
}

export function iso(t: number | null | undefined): string {
  return t === null || t === undefined ? "" : new Date(t).toISOString();
}

/** Records grouped by kind, kinds in sorted order, records in their order within each. */
export function byKind(records: readonly ChunkRecord[]): Array<[string, ChunkRecord[]]> {
  const out = new Map<string, ChunkRecord[]>();
  // Pushed in place: copying the kind's list for each record was quadratic (10,000 notes: 0.6 s).
  for (const r of records) {
    const rows = out.get(r.kind);
    if (rows) rows.push(r);
    else out.set(r.kind, [r]);
  }
  return [...out].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}
