/**
 * The shapes of an extraction (src/core/extract.ts): what a model or a dump says of one content, as a
 * version stores it, the version it extends and the writes that extend it. Storage ports
 * (ExtractionStore) and the extraction logic both speak them.
 */
import type { AliasRow, EntityRow } from "./ingest";
import type { RelationInput } from "./relations";
import type { ChangeOp, EntityInput } from "./types";

/** What a model (or a stored extraction) says of one content: entities and triples. */
export interface Extraction {
  entities: EntityInput[];
  relations: RelationInput[];
}

/** An extraction as a version stores it (chunk_versions.extracted) and a dump carries it. */
export interface StoredExtraction extends Extraction {
  /** `provider:model` that answered it. */
  model: string;
  /** When it was applied (transaction time). */
  at: number;
  /** Canonical ids of `entities`: what forgetting and the listing's entity filter look for. */
  ids: string[];
  /** Of `ids`, the ones the extraction posted the version's head under (it did not carry them). */
  added: string[];
}

/** The version an extraction extends, as stored. */
export interface ExtensionTarget {
  chunk: string;
  version: number;
  /** The version's start: the event time of the entities, aliases and postings it gains. */
  validFrom: number;
  /** Canonical entity ids the version carries (declared, relation arguments, identifiers). */
  entities: string[];
  /** Ids its head is posted under already (entities and the names the analyser grounded). */
  posted: string[];
  /** Its declared relations (normalised). */
  relations: RelationInput[];
  /** Its declared entities with names and aliases: relation arguments naming them resolve to them. */
  declared: EntityInput[];
}

/** The writes of one extension; applied only while the version is its chunk's live head, not extracted yet. */
export interface ExtensionPlan {
  chunk: string;
  version: number;
  stored: StoredExtraction;
  entityInserts: EntityRow[];
  aliasInserts: AliasRow[];
  /** entity.upsert and alias.add for what is new, then head.extend (when the head gains entities). */
  ops: ChangeOp[];
}
