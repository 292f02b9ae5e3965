/**
 * Reads for ranking pools and collection statistics, and the stored runs of retrieval evaluations.
 * Records follow the storage conventions of ./storage.ts.
 */

/** A chunk's version visible at t with what discovery reads beside it. */
export interface PaperRow {
  chunkId: string;
  version: number;
  kind: string;
  title: string;
  synopsis: string;
  boundaries: string[];
  entities: string[];
  validFrom: number;
  source: string;
  /** Distinct chunks with a `cites` edge to it valid at t. */
  citesIn: number;
}

/** Exact reads for ranking pools and collection statistics (batched under D1's 100 parameters). */
export interface DiscoveryStore {
  /** The versions of these chunks visible at t (not deprecated at t), with their cites in-degree at t. */
  papersOf(archiveId: string, chunkIds: string[], t: number): Promise<PaperRow[]>;
  /** Chunks visible at t of these kinds (any) with any of these boundaries (any), id order, at most `limit`. */
  papersIn(
    archiveId: string,
    f: {
      kinds?: string[] | undefined;
      boundariesAny?: string[] | undefined;
      /** Leave out chunks carrying this boundary (after the others). */
      boundaryNot?: string | undefined;
    },
    t: number,
    limit: number,
  ): Promise<PaperRow[]>;
  /** Current names of these entities (missing ids are omitted). */
  entityNames(archiveId: string, entityIds: string[]): Promise<Map<string, string>>;
}

/** Figures by K (the keys are the K values). */
export type KFigures = Record<string, number>;

/** The aggregate metrics of a retrieval run. */
export interface RetrievalAggregate {
  queries: number;
  hit_rate: number;
  mrr: number;
  recall: KFigures;
  precision: KFigures;
}

/** One query of a retrieval run: its gold and returned ids and its metrics. */
export interface RetrievalQueryRecord {
  query: string;
  gold: string[];
  returned: string[];
  hit: number;
  reciprocal_rank: number;
  first_rank: number | null;
  recall: KFigures;
  precision: KFigures;
}

/**
 * A stored retrieval-metrics run. Text that is not JSON reads as: `ks` and `perQuery` [], `aggregate`
 * zero queries with empty figures.
 */
export interface RetrievalRunRecord {
  archiveId: string;
  id: string;
  name: string;
  createdAt: number;
  asOf: number;
  ks: number[];
  queries: number;
  aggregate: RetrievalAggregate;
  perQuery: RetrievalQueryRecord[];
  actor: string;
}

export interface RetrievalRunStore {
  insertRun(row: RetrievalRunRecord): Promise<void>;
  getRun(archiveId: string, id: string): Promise<RetrievalRunRecord | null>;
  /** Newest first, strictly before the cursor (created_at, id); `limit + 1` rows tell whether more follow. */
  listRuns(
    archiveId: string,
    before: { createdAt: number; id: string } | null,
    limit: number,
  ): Promise<Array<Omit<RetrievalRunRecord, "perQuery">>>;
}
