/**
 * The embedding space guard (docs/models.md, "Embeddings from an endpoint"): the kernel asks it
 * before an ingest writes head vectors and before a query compares its embedding with the archive's
 * vectors and sketches. It reads the archive's recorded space (EmbeddingStore), plans with the pure
 * rules of core/embed/space.ts, and checks the vector index's dimension against the embedder's: a
 * mismatch is a 503 naming EMBEDDING_DIMS and the index, never a write of wrong-size vectors.
 */
import { planSpace, type SpacePlan, type SpaceStatus, sameSpace, spaceLabel, UNKNOWN_MODEL } from "../core/embed/space";
import { FailureError } from "../core/errors";
import type { Clock, Embedder, EmbeddingStore, VectorIndex, VectorIndexShape } from "../core/ports";
import type { VectorSpaceCheck } from "../core/query";
import type { ArchiveSpaceState, EmbeddingSpace } from "../core/types";

export interface VectorSpaceDeps {
  store: EmbeddingStore;
  embedder: Embedder;
  vectors: VectorIndex;
  clock: Clock;
  /**
   * The settings that chose the embedder, for error messages (e.g. "EMBEDDER=openai,
   * EMBEDDING_MODEL=text-embedding-3-small, EMBEDDING_DIMS=1536").
   */
  embedderSettings?: string | undefined;
}

/** What a response says when the archive's vectors were left out (trace.vector_space, ingest's vector_space). */
export interface VectorSpaceNote {
  status: Exclude<SpaceStatus, "current" | "unrecorded">;
  /** The space the archive's vectors are in (null: none recorded). */
  archive: EmbeddingSpace | null;
  /** The configured embedder's space. */
  embedder: EmbeddingSpace;
  /** Since when (ISO 8601) some heads have no vector in the archive's space. */
  stale_since: string | null;
  message: string;
  hint: string;
}

/** An archive with no space recorded and no re-embed running. */
const NO_STATE: ArchiveSpaceState = { space: null, staleSince: null, job: null };

/** Archives whose last query found the space stale, per isolate (bounded: forgotten past this many). */
const MAX_REMEMBERED = 10_000;

/** What an ingest does with its head vectors. */
export interface IngestSpace {
  plan: SpacePlan;
  state: ArchiveSpaceState;
}

export class VectorSpaces {
  readonly configured: EmbeddingSpace;
  /** Namespaces of a local index seen holding the configured dimension (or empty), per isolate. */
  private readonly checked = new Set<string>();
  /** Archives whose last query was answered without semantic seeds. */
  private readonly lastStale = new Set<string>();
  /** The index has one fixed dimension, the embedder's. */
  private fixedOk = false;
  /** The index's dimension is each namespace's own. */
  private perNamespace = false;

  constructor(private readonly d: VectorSpaceDeps) {
    this.configured = { model: d.embedder.model, dims: d.embedder.dims };
  }

  private get settings(): string {
    return this.d.embedderSettings ?? `the embedder ${this.configured.model}`;
  }

  /** The route that moves an archive into the configured space. */
  hint(archiveId: string): string {
    return `POST /v1/archives/${archiveId}/reembed re-embeds every head with the configured embedder (${spaceLabel(this.configured)}); or set EMBEDDER back to the archive's model`;
  }

  private dimsError(shape: VectorIndexShape, dims: number): FailureError {
    return new FailureError({
      kind: "unavailable",
      message: `EMBEDDING_DIMS: ${this.settings} gives ${this.configured.dims}-dimensional vectors, but ${shape.label} holds ${dims}-dimensional ones; nothing was written`,
      field: "EMBEDDING_DIMS",
      hint: shape.fixed
        ? `use a model of ${dims} dimensions (EMBEDDING_MODEL, EMBEDDING_DIMS=${dims}), or create an index of ${this.configured.dims} (wrangler vectorize create <name> --dimensions=${this.configured.dims} --metric=cosine) and bind it as VECTORS`
        : `set EMBEDDING_DIMS to the model's dimension, or POST /v1/archives/<archive>/reembed to rebuild the archive's vectors at ${this.configured.dims}`,
    });
  }

  /**
   * The index's dimension for this archive (null when already seen to match): a fixed dimension
   * (Vectorize) other than the embedder's is an error for every archive; a local namespace's
   * dimension is read once per isolate while it matches, every time while it does not.
   */
  async shape(archiveId: string): Promise<VectorIndexShape | null> {
    if (this.fixedOk || this.checked.has(archiveId)) return null;
    const shape = await this.d.vectors.shape(archiveId);
    if (shape.fixed) {
      if (shape.dims !== null && shape.dims !== this.configured.dims) throw this.dimsError(shape, shape.dims);
      this.fixedOk = true;
      return shape;
    }
    this.perNamespace = true;
    if (shape.dims !== null && shape.dims !== this.configured.dims) return shape;
    if (this.checked.size >= MAX_REMEMBERED) this.checked.clear();
    this.checked.add(archiveId);
    return shape;
  }

  /** The first use in an isolate learns whether the index has one fixed dimension, and checks it. */
  private async indexCheck(archiveId: string): Promise<void> {
    if (!this.fixedOk && !this.perNamespace) await this.shape(archiveId);
  }

  /**
   * Before a re-embed: a local namespace holding vectors of another dimension is emptied, so that it
   * takes the configured one (a fixed index of another dimension failed the check before).
   */
  async prepareIndex(archiveId: string): Promise<void> {
    const shape = await this.d.vectors.shape(archiveId);
    if (!shape.fixed && shape.dims !== null && shape.dims !== this.configured.dims)
      await this.d.vectors.reset(archiveId);
    this.checked.delete(archiveId);
  }

  /**
   * The space of an archive with none recorded: the configured one, or, when its local index
   * already holds vectors of another dimension (written before spaces were recorded), an unknown
   * model of that dimension, which is stale.
   */
  private unrecorded(shape: VectorIndexShape | null): EmbeddingSpace {
    const held = shape?.dims ?? null;
    return held !== null && held !== this.configured.dims ? { model: UNKNOWN_MODEL, dims: held } : this.configured;
  }

  /** The archive's state, the space recorded first when it has none (an ingest). */
  private async recordedState(archiveId: string): Promise<ArchiveSpaceState> {
    const state = (await this.d.store.state(archiveId)) ?? NO_STATE;
    if (state.space || state.job) return state;
    const space = this.unrecorded(await this.shape(archiveId));
    await this.d.store.adopt(archiveId, space);
    return (await this.d.store.state(archiveId)) ?? { ...state, space };
  }

  /**
   * The archive's state for one query, read once: the index's dimension when this isolate has not
   * checked it yet (the same read answers the index check and an archive with no space recorded),
   * then the recorded space; nothing is recorded.
   */
  private async queryState(archiveId: string): Promise<ArchiveSpaceState> {
    const checked = this.fixedOk || this.perNamespace ? null : await this.shape(archiveId);
    const state = (await this.d.store.state(archiveId)) ?? NO_STATE;
    if (state.space || state.job) return state;
    const space = this.unrecorded(checked ?? (await this.shape(archiveId)));
    return { ...state, space: sameSpace(space, this.configured) ? null : space };
  }

  /** Before an ingest: whether its head vectors are written, the space recorded if none was. */
  async forIngest(archiveId: string): Promise<IngestSpace> {
    await this.indexCheck(archiveId);
    const state = await this.recordedState(archiveId);
    const plan = planSpace(state, this.configured);
    if (plan.writeVectors) {
      const shape = await this.shape(archiveId);
      // A local namespace of another dimension while the archive is recorded in the configured
      // space: the record and the index disagree (never written by this code); refuse.
      if (shape?.dims != null && shape.dims !== this.configured.dims && !state.job)
        throw this.dimsError(shape, shape.dims);
    }
    return { plan, state };
  }

  /**
   * After an ingest committed new versions: heads written without a vector in the archive's space
   * mark it stale. Read again first: a re-embed that started or finished meanwhile may have moved
   * the space the vectors just written belong to.
   */
  async afterIngest(archiveId: string, before: IngestSpace): Promise<void> {
    let stale = !before.plan.writeVectors;
    if (!stale) {
      const now = (await this.d.store.state(archiveId)) ?? before.state;
      stale = !planSpace(now, this.configured).writeVectors;
    }
    if (stale) await this.d.store.markStale(archiveId, this.d.clock.now());
  }

  /**
   * A note for a response when the archive's vectors are not all in the configured space (null
   * when they are): for a query, why semantic seeds were skipped; for an ingest, whether its head
   * vectors were written.
   */
  note(
    archiveId: string,
    plan: SpacePlan,
    state: ArchiveSpaceState,
    use: "query" | "ingest" = "query",
  ): VectorSpaceNote | null {
    if (plan.semantic) return null;
    const status = plan.status === "reembedding" ? "reembedding" : "stale";
    const archive = state.space;
    const want = spaceLabel(this.configured);
    const other = archive && !sameSpace(archive, this.configured) ? archive : null;
    const running = state.job ? ` (a re-embed into ${spaceLabel(state.job.target)} is running)` : "";
    const why =
      status === "reembedding"
        ? `a re-embed into ${want} is running`
        : other
          ? `the archive's vectors are in ${spaceLabel(other)}, the embedder gives ${want}${running}`
          : `some heads have no vector in ${want}${running}`;
    const effect =
      use === "ingest"
        ? plan.writeVectors
          ? `this batch's head vectors were written in ${want}`
          : "this batch's head vectors were not written (the two spaces cannot share an index); the archive is marked for a re-embed"
        : `semantic seeds were skipped${status === "reembedding" ? " until it finishes" : " (no score compares two spaces)"}; lexical, entity, graph and recency routing answered`;
    return {
      status,
      archive,
      embedder: this.configured,
      stale_since: state.staleSince === null ? null : new Date(state.staleSince).toISOString(),
      message: `${why}: ${effect}`,
      hint:
        status === "reembedding" ? `GET /v1/archives/${archiveId}/reembed reports its progress` : this.hint(archiveId),
    };
  }

  /** For one query: the check core/query.ts waits on, and the note for its response. */
  forQuery(archiveId: string): { check: VectorSpaceCheck; note(): Promise<VectorSpaceNote | null> } {
    const read = this.queryState(archiveId).then((state) => {
      const plan = planSpace(state, this.configured);
      if (plan.semantic) this.lastStale.delete(archiveId);
      else {
        if (this.lastStale.size >= MAX_REMEMBERED) this.lastStale.clear();
        this.lastStale.add(archiveId);
      }
      return { state, plan };
    });
    const usable = read.then((r) => r.plan.semantic);
    // Handled here so that a failure the route has not awaited yet is not reported as unhandled.
    usable.catch(() => {});
    return {
      check: { usable, waitBeforeEmbedding: this.lastStale.has(archiveId) },
      note: async () => {
        const r = await read;
        return this.note(archiveId, r.plan, r.state);
      },
    };
  }

  /** Embed with the configured embedder; a failure (endpoint down, wrong dimension) is a 503 naming it. */
  async embed(texts: string[]): Promise<Float32Array[]> {
    let vecs: Float32Array[];
    try {
      vecs = await this.d.embedder.embed(texts);
    } catch (e) {
      throw new FailureError({
        kind: "unavailable",
        message: `embedding: ${e instanceof Error ? e.message : String(e)}`,
        field: "EMBEDDER",
        hint: "check EMBEDDING_BASE_URL, EMBEDDING_MODEL and EMBEDDING_DIMS (docs/models.md); nothing was written",
      });
    }
    const wrong = vecs.find((v) => v.length !== this.configured.dims);
    if (wrong)
      throw new FailureError({
        kind: "unavailable",
        message: `EMBEDDING_DIMS: ${this.settings} answered ${wrong.length}-dimensional vectors, expected ${this.configured.dims}; nothing was written`,
        field: "EMBEDDING_DIMS",
        hint: "set EMBEDDING_DIMS to the model's output dimension",
      });
    return vecs;
  }
}
