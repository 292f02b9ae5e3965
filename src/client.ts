/**
 * A small typed client for the REST API, used by the `paperguru` CLI, the demo, the evaluation and the
 * benchmarks. Request and response types come from the zod schemas the server validates with
 * (src/contract), imported as types only: the client has no runtime dependency on zod, and a
 * schema change breaks callers at compile time.
 *
 * Where a schema is deliberately loose the type says so (`unknown` fields, marked LOOSE). `request()`
 * stays as the raw escape hatch: it knows the response types of the GET routes it can recognise from
 * the path and returns `unknown` for the rest.
 */
import type { z } from "zod";
import type * as S from "./contract";
import {
  CONTEXT_EXPORT_FORMATS,
  type ContextExportFormat,
  EXPORT_FORMATS,
  type ExportFormat,
} from "./core/export/types";

export { CONTEXT_EXPORT_FORMATS, type ContextExportFormat, EXPORT_FORMATS, type ExportFormat };

// ------------------------------------------------------------------ errors

/** The error body every route returns: {error: {type, message, field?, hint?}}. */
export type ErrorBody = z.infer<typeof S.ErrorSchema>;
export type ErrorType = ErrorBody["error"]["type"] | "network" | "invalid_response";

/** A non-2xx answer (or an unreachable server: status 0, type "network"). */
export class PaperGuruError extends Error {
  readonly type: ErrorType;
  readonly field: string | undefined;
  readonly hint: string | undefined;
  constructor(
    readonly status: number,
    readonly body: { error?: { type?: string; message?: string; field?: string; hint?: string } },
  ) {
    super(
      `${status} ${body.error?.type ?? "error"}: ${body.error?.message ?? JSON.stringify(body)}${body.error?.field ? ` (field ${body.error.field})` : ""}`,
    );
    this.name = "PaperGuruError";
    this.type = (body.error?.type as ErrorType | undefined) ?? "internal";
    this.field = body.error?.field;
    this.hint = body.error?.hint;
  }
  /** The server's message alone (without status and type). */
  get serverMessage(): string {
    return this.body.error?.message ?? this.message;
  }
}

// ------------------------------------------------------------------ request types (schema inputs)

export type CreateArchiveBody = z.input<typeof S.CreateArchive>;
export type CreateKeyBody = z.input<typeof S.CreateKey>;
export type Scope = z.infer<typeof S.Scope>;
export type Artifact = z.input<typeof S.ArtifactSchema>;
export type IngestBody = z.input<typeof S.IngestBody>;
export type DeprecateBody = z.input<typeof S.DeprecateBody>;
export type AliasBody = z.input<typeof S.AliasBody>;
export type RenameBody = z.input<typeof S.RenameBody>;
export type MergeBody = z.input<typeof S.MergeBody>;
export type RouteBody = z.input<typeof S.RouteBody>;
export type ContextBody = z.input<typeof S.ContextBody>;
export type ExpandBody = z.input<typeof S.ExpandBody>;
export type Anchor = z.infer<typeof S.AnchorSchema>;
export type VerifyBody = z.input<typeof S.VerifyBody>;
export type SessionEventsBody = z.input<typeof S.SessionEventsBody>;
export type HistoryQuery = z.input<typeof S.HistoryQuery>;
export type ChunkQuery = z.input<typeof S.ChunkQuery>;
export type ResolveQuery = z.input<typeof S.ResolveQuery>;
export type Feed = z.input<typeof S.FeedBody>;
export type CreateWebhook = z.input<typeof S.CreateWebhook>;
export type DeliveryQuery = z.input<typeof S.DeliveryQuery>;
export type CreateSource = z.input<typeof S.CreateSource>;
export type PatchSource = z.input<typeof S.PatchSource>;
export type SourceKind = z.infer<typeof S.SourceKindEnum>;
export type ImportFormat = (typeof S.IMPORT_FORMATS)[number];
export type LogQuery = z.input<typeof S.LogQuery>;
export type ChunkListQuery = z.input<typeof S.ChunkListQuery>;
export type EntityListQuery = z.input<typeof S.EntityListQuery>;
export type ContentQuery = z.input<typeof S.ContentQuery>;
export type DiffQuery = z.input<typeof S.DiffQuery>;
export type AnnotateBody = z.input<typeof S.AnnotateBody>;
export type AnnotationsQuery = z.input<typeof S.AnnotationsQuery>;
export type BriefBody = z.input<typeof S.BriefBody>;
export type RenderBody = z.input<typeof S.RenderBody>;
export type CodePairsBody = z.input<typeof S.CodePairsBody>;
export type DirQuery = z.input<typeof S.DirQuery>;
export type GroundingQuery = z.input<typeof S.GroundingQuery>;
export type ReviewBody = z.input<typeof S.ReviewBody>;
export type ReviewResult = z.infer<typeof S.ReviewResult>;
export type ReviewQuery = z.input<typeof S.ReviewQuery>;
export type ReviewState = z.infer<typeof S.ReviewState>;
export type RetrievalMetricsBody = z.input<typeof S.RetrievalMetricsBody>;
export type RetrievalRun = z.infer<typeof S.RetrievalRun>;
export type RetrievalRunPage = z.infer<typeof S.RetrievalRunPage>;
export type ReviewScoreMetricsBody = z.input<typeof S.ReviewScoreMetricsBody>;
export type PaperbenchScoreBody = z.input<typeof S.PaperbenchScoreBody>;
export type PaperbenchScoreResult = z.infer<typeof S.PaperbenchScoreResult>;
export type ReviewScoreMetrics = z.infer<typeof S.ReviewScoreMetrics>;
export type ReviewersBody = z.input<typeof S.ReviewersBody>;
export type ReviewersResult = z.infer<typeof S.ReviewersResult>;

/** `GET /v1/archives/{a}/export?format=&as_of=&paper=&collection=&within=&view=` (the schema describes each field). */
export type ExportQuery = z.infer<typeof S.ExportQuery>;
/** The body of `POST /export/context`: a context request plus the format. */
export type ExportContextBody = ContextBody & { format: ContextExportFormat };

// ------------------------------------------------------------------ response types (schema outputs)

export type IngestResult = z.infer<typeof S.IngestResult>;
export type ChunkDiff = z.infer<typeof S.ChunkDiff>;
export type Annotated = z.infer<typeof S.Annotated>;
export type Annotations = z.infer<typeof S.Annotations>;
export type Brief = z.infer<typeof S.BriefResult>;
export type Render = z.infer<typeof S.RenderResult>;
export type CodePairs = z.infer<typeof S.CodePairsResult>;
export type DirResult = z.infer<typeof S.DirResult>;
export type GroundingResult = z.infer<typeof S.GroundingResult>;
export type Card = z.infer<typeof S.CardSchema>;
export type RouteResponse = z.infer<typeof S.RouteResponse>;
/** A /route answer with its trace (include_trace: true). */
export type TracedRoute = RouteResponse & { trace: z.infer<typeof S.TraceSchema> };
export type ExpandResponse = z.infer<typeof S.ExpandResponse>;
export type ContextResponse = z.infer<typeof S.ContextResponse>;
export type Archive = z.infer<typeof S.ArchiveSchema>;
export type CreatedArchive = z.infer<typeof S.ArchiveCreated>;
export type ArchiveList = z.infer<typeof S.ArchiveList>;
/** Capital-chunk statistics are a loose object (measured estimates whose fields grow). */
export type ArchiveInfo = z.infer<typeof S.ArchiveInfo>;
export type CreatedKey = z.infer<typeof S.KeyIssued>;
export type Key = z.infer<typeof S.KeySchema>;
export type KeyList = z.infer<typeof S.KeyList>;
export type KeyRevoked = z.infer<typeof S.KeyRevoked>;
export type Deprecated = z.infer<typeof S.Deprecated>;
export type Ok = z.infer<typeof S.OkResult>;
export type ChunkDetail = z.infer<typeof S.ChunkDetail>;
export type EntityDetail = z.infer<typeof S.EntityDetail>;
/** `history?chunk=` answers the chunk's detail (as GET /chunks/{id}). */
export type ChunkHistory = ChunkDetail;
/** `history?entity=` answers the entity's detail (as GET /entities/{id}). */
export type EntityHistory = EntityDetail;
export type ChunkPage = z.infer<typeof S.ChunkPage>;
export type ChunkSummary = ChunkPage["chunks"][number];
export type EntityPage = z.infer<typeof S.EntityPage>;
export type ContentSlice = z.infer<typeof S.ContentSlice>;
export type NeighboursResponse = z.infer<typeof S.Neighbours>;
export type ResolveResponse = z.infer<typeof S.Resolved>;
export type VerifyResponse = z.infer<typeof S.VerifyResponse>;
export type VerifyResult = VerifyResponse["results"][number];
export type SessionAppended = z.infer<typeof S.SessionAppended>;
export type CreatedWebhook = z.infer<typeof S.WebhookCreated>;
export type WebhookList = z.infer<typeof S.WebhookList>;
export type Deleted = z.infer<typeof S.Deleted>;
export type Delivery = z.infer<typeof S.DeliverySchema>;
export type DeliveryList = z.infer<typeof S.DeliveryList>;
export type Replayed = z.infer<typeof S.Replayed>;
export type ImportCounts = z.infer<typeof S.ApplyCountsSchema>;
export type ImportResult = z.infer<typeof S.ImportResult>;
export type Source = z.infer<typeof S.SourceSchema>;
export type SourceList = z.infer<typeof S.SourceList>;
export type SourceRun = z.infer<typeof S.SourceRun>;
/** Entries' `counts` is `unknown` in the schema (the counts of the run). */
export type IngestLog = z.infer<typeof S.IngestLog>;
export type LogEntry = IngestLog["entries"][number];
export type Snapshot = z.infer<typeof S.Snapshot>;
export type Forgotten = z.infer<typeof S.Forgotten>;
export type Deletions = z.infer<typeof S.Deletions>;
export type PutSubscription = z.input<typeof S.PutSubscription>;
export type SubscriptionCreated = z.infer<typeof S.SubscriptionCreated>;
export type SubscriptionList = z.infer<typeof S.SubscriptionList>;
export type EventListQuery = z.input<typeof S.EventListQuery>;
export type EventList = z.infer<typeof S.EventList>;
export type Redelivered = z.infer<typeof S.Redelivered>;
export type Evicted = z.infer<typeof S.Evicted>;
export type ReembedStatus = z.infer<typeof S.ReembedStatus>;
export type ReembedStarted = z.infer<typeof S.ReembedStarted>;
export type ReembedBody = z.input<typeof S.ReembedBody>;
export type WhoAmI = z.infer<typeof S.WhoAmI>;

/** Responses `request()` knows from the path (GET only); anything else is `unknown`. */
type KnownGet<P extends string> = P extends `/v1/archives/${string}/resolve?${string}`
  ? ResolveResponse
  : P extends `/v1/archives/${string}/history?${string}`
    ? ChunkHistory | EntityHistory
    : P extends `/v1/archives/${string}/ingest-log${string}`
      ? IngestLog
      : P extends `/v1/archives/${string}/sources`
        ? SourceList
        : unknown;

const trimSlash = (s: string) => s.replace(/\/+$/, "");
const enc = encodeURIComponent;

export interface ClientOptions {
  /** Aborts every request of this client (e.g. on Ctrl-C). */
  signal?: AbortSignal | undefined;
  /** A fetch to use instead of the global one (tests). */
  fetch?: typeof fetch | undefined;
}

/** Bodies above this many characters are sent on a connection of their own (see send()). */
const LARGE_BODY_CHARS = 1_000_000;

export class PaperGuruClient {
  constructor(
    readonly baseUrl: string,
    private key: string,
    private readonly options: ClientOptions = {},
  ) {}

  readonly #bookmarks = new Map<string, string>();

  withKey(key: string): PaperGuruClient {
    return new PaperGuruClient(this.baseUrl, key, this.options);
  }

  private async send(method: string, path: string, body?: unknown, contentType = "application/json") {
    const payload =
      body === undefined
        ? undefined
        : typeof body === "string"
          ? body
          : body instanceof Uint8Array
            ? // A copy typed Uint8Array<ArrayBuffer>, which the DOM's BodyInit takes (the explorer's build).
              new Uint8Array(body)
            : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, "content-type": contentType };
    // After a multi-megabyte body the local runtime (wrangler dev) has left the next request on the
    // kept-alive socket waiting 300 s for headers (a 7 MB dump import, then any call); large uploads
    // close their connection. Not reproduced since (3 of 3 dump imports of 7.4 MB answered at once
    // on a reused connection); kept because it costs one connection. Browsers drop the header.
    if (payload !== undefined && payload.length > LARGE_BODY_CHARS) headers.connection = "close";
    const init: RequestInit = { method, headers, body: payload, signal: this.options.signal ?? null };
    const target = `${trimSlash(this.baseUrl)}${path}`;
    const doFetch = this.options.fetch ?? fetch;
    let res: Response;
    try {
      res = await doFetch(target, init);
    } catch (first) {
      if (this.options.signal?.aborted) throw first;
      // A pooled keep-alive socket the server already closed fails before the request is sent;
      // one retry is safe because every write in this API is idempotent.
      try {
        res = await doFetch(target, init);
      } catch (e) {
        if (this.options.signal?.aborted) throw e;
        const cause = e instanceof Error ? ((e.cause as Error | undefined)?.message ?? e.message) : String(e);
        throw new PaperGuruError(0, {
          error: {
            type: "network",
            message: `cannot reach PaperGuru at ${this.baseUrl} (${cause})`,
            hint: "start it with `npm start`, or set the URL (--url, PAPERGURU_URL or `paperguru config set url`)",
          },
        });
      }
    }
    const text = await res.text();
    if (!res.ok) {
      let parsed: PaperGuruError["body"];
      try {
        parsed = text ? (JSON.parse(text) as PaperGuruError["body"]) : {};
      } catch {
        parsed = { error: { type: "internal", message: text.slice(0, 500) || res.statusText } };
      }
      if (!parsed.error) parsed = { error: { type: "internal", message: text.slice(0, 500) || res.statusText } };
      throw new PaperGuruError(res.status, parsed);
    }
    return {
      text,
      contentType: res.headers.get("content-type") ?? "",
      replayed: res.headers.get("idempotent-replayed") === "true",
    };
  }

  /** The raw escape hatch: any route, JSON in and out. Typed for the GET routes in KnownGet. */
  async request<P extends string>(
    method: string,
    path: P,
    body?: unknown,
    contentType = "application/json",
  ): Promise<KnownGet<P>> {
    const { text } = await this.send(method, path, body, contentType);
    try {
      return (text ? JSON.parse(text) : {}) as KnownGet<P>;
    } catch {
      throw new PaperGuruError(200, {
        error: {
          type: "invalid_response",
          message: `expected JSON from ${method} ${path}, got: ${text.slice(0, 200)}`,
        },
      });
    }
  }

  /** A typed JSON call (the route's response type is given by the method below). */
  private call<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    return this.request(method, path, body, contentType) as Promise<T>;
  }

  /** A typed JSON write and whether the answer is the stored first answer of its `event_id` given again. */
  private async callOnce<T>(path: string, body: unknown): Promise<{ answer: T; replayed: boolean }> {
    const { text, replayed } = await this.send("POST", path, body);
    try {
      return { answer: JSON.parse(text) as T, replayed };
    } catch {
      throw new PaperGuruError(200, {
        error: { type: "invalid_response", message: `expected JSON from POST ${path}, got: ${text.slice(0, 200)}` },
      });
    }
  }

  // ---------------------------------------------------------------- the calling key (any key)
  /** The archives this key reaches and its scopes there. */
  whoami() {
    return this.call<WhoAmI>("GET", "/v1/whoami");
  }

  // ---------------------------------------------------------------- archives and keys (admin key)
  createArchive(body: CreateArchiveBody) {
    return this.call<CreatedArchive>("POST", "/v1/archives", body);
  }
  listArchives() {
    return this.call<ArchiveList>("GET", "/v1/archives");
  }
  /** Archive metadata and statistics (any key of the archive). */
  archive(id: string) {
    return this.call<ArchiveInfo>("GET", `/v1/archives/${enc(id)}`);
  }
  createKey(archive: string, body: CreateKeyBody = {}) {
    return this.call<CreatedKey>("POST", `/v1/archives/${enc(archive)}/keys`, body);
  }
  listKeys(archive: string) {
    return this.call<KeyList>("GET", `/v1/archives/${enc(archive)}/keys`);
  }
  revokeKey(archive: string, keyId: string) {
    return this.call<KeyRevoked>("DELETE", `/v1/archives/${enc(archive)}/keys/${enc(keyId)}`);
  }
  /** Re-embed the archive with the configured embedder (write key): a queued job (docs/models.md). */
  reembed(archive: string, body: ReembedBody = {}) {
    return this.call<ReembedStarted>("POST", `/v1/archives/${enc(archive)}/reembed`, body);
  }
  /** The archive's embedding space and its re-embed's progress (any key of the archive). */
  reembedStatus(archive: string) {
    return this.call<ReembedStatus>("GET", `/v1/archives/${enc(archive)}/reembed`);
  }

  // ---------------------------------------------------------------- ingest and lifecycle
  async ingest(archive: string, body: IngestBody) {
    return this.#remember(archive, await this.call<IngestResult>("POST", `/v1/archives/${enc(archive)}/ingest`, body));
  }
  async revise(archive: string, body: Artifact) {
    return this.#remember(archive, await this.call<IngestResult>("POST", `/v1/archives/${enc(archive)}/revise`, body));
  }

  /**
   * The newest bookmark this client's writes to `archive` were answered with: its route and context
   * send it as `after` unless the body has one, so this client reads its own writes.
   */
  bookmark(archive: string): string | undefined {
    return this.#bookmarks.get(archive);
  }
  #remember<T extends { bookmark?: string }>(archive: string, r: T): T {
    const prev = this.#bookmarks.get(archive);
    if (r.bookmark !== undefined && (prev === undefined || Number(r.bookmark) > Number(prev)))
      this.#bookmarks.set(archive, r.bookmark);
    return r;
  }
  #after<T extends { after?: string | undefined }>(archive: string, body: T): T {
    const b = this.#bookmarks.get(archive);
    return body.after !== undefined || b === undefined ? body : { ...body, after: b };
  }
  deprecate(archive: string, body: DeprecateBody) {
    return this.call<Deprecated>("POST", `/v1/archives/${enc(archive)}/deprecate`, body);
  }
  alias(archive: string, body: AliasBody) {
    return this.call<Ok>("POST", `/v1/archives/${enc(archive)}/entities/alias`, body);
  }
  rename(archive: string, body: RenameBody) {
    return this.call<Ok>("POST", `/v1/archives/${enc(archive)}/entities/rename`, body);
  }
  merge(archive: string, body: MergeBody) {
    return this.call<Ok>("POST", `/v1/archives/${enc(archive)}/entities/merge`, body);
  }
  history(archive: string, q: { chunk: string }): Promise<ChunkHistory>;
  history(archive: string, q: { entity: string }): Promise<EntityHistory>;
  history(archive: string, q: HistoryQuery): Promise<ChunkHistory | EntityHistory>;
  history(archive: string, q: HistoryQuery) {
    return this.call<ChunkHistory | EntityHistory>("GET", `/v1/archives/${enc(archive)}/history?${qs(q)}`);
  }
  // ---------------------------------------------------------------- browse
  /** One page of chunks (filters and `cursor` = the previous page's next_cursor). */
  chunks(archive: string, q: ChunkListQuery = {}) {
    return this.call<ChunkPage>("GET", `/v1/archives/${enc(archive)}/chunks?${qs(q)}`);
  }
  /** Every chunk matching the filters, page by page. */
  async *allChunks(archive: string, q: Omit<ChunkListQuery, "cursor"> = {}): AsyncGenerator<ChunkSummary> {
    let cursor: string | undefined;
    do {
      const p = await this.chunks(archive, { ...q, cursor });
      yield* p.chunks;
      cursor = p.next_cursor ?? undefined;
    } while (cursor);
  }
  /** A chunk: head, every version, edges, deprecation. */
  chunk(archive: string, id: string) {
    return this.call<ChunkDetail>("GET", `/v1/archives/${enc(archive)}/chunks/${enc(id)}`);
  }
  /** A version's exact content or a span of it. */
  content(archive: string, id: string, q: ContentQuery = {}) {
    return this.call<ContentSlice>("GET", `/v1/archives/${enc(archive)}/chunks/${enc(id)}/content?${qs(q)}`);
  }
  /** Line diff between two versions (default: the latest and the one before). */
  diff(archive: string, id: string, q: DiffQuery = {}) {
    return this.call<ChunkDiff>("GET", `/v1/archives/${enc(archive)}/chunks/${enc(id)}/diff?${qs(q)}`);
  }
  /** Append a status (`value`) or counter (`add`) event to a chunk. */
  annotate(archive: string, id: string, body: AnnotateBody) {
    return this.call<Annotated>("POST", `/v1/archives/${enc(archive)}/chunks/${enc(id)}/annotations`, body);
  }
  /** annotate, and whether the answer is a retry's (the first answer of its `event_id` again). */
  annotateOnce(archive: string, id: string, body: AnnotateBody) {
    return this.callOnce<Annotated>(`/v1/archives/${enc(archive)}/chunks/${enc(id)}/annotations`, body);
  }
  /** A chunk's annotation values as of a time, with the events. */
  annotations(archive: string, id: string, q: AnnotationsQuery = {}) {
    return this.call<Annotations>("GET", `/v1/archives/${enc(archive)}/chunks/${enc(id)}/annotations?${qs(q)}`);
  }
  /** ProjectGuard's pre-turn brief for the upcoming request. */
  brief(archive: string, body: BriefBody) {
    return this.call<Brief>("POST", `/v1/archives/${enc(archive)}/brief`, body);
  }
  /** The whole committed project state within a budget. */
  render(archive: string, body: RenderBody = {}) {
    return this.call<Render>("POST", `/v1/archives/${enc(archive)}/render`, body);
  }
  /** xKG: techniques routed for the query, paired with the code implementing them. */
  codePairs(archive: string, body: CodePairsBody) {
    return this.call<CodePairs>("POST", `/v1/archives/${enc(archive)}/code-pairs`, body);
  }
  /** The dependency integration ratio of the code under a prefix. */
  dir(archive: string, q: DirQuery) {
    return this.call<DirResult>("GET", `/v1/archives/${enc(archive)}/metrics/dir?${qs(q)}`);
  }
  /** Chunks of a kind that something implements, and the others. */
  grounding(archive: string, q: GroundingQuery = {}) {
    return this.call<GroundingResult>("GET", `/v1/archives/${enc(archive)}/metrics/grounding?${qs(q)}`);
  }
  entities(archive: string, q: EntityListQuery = {}) {
    return this.call<EntityPage>("GET", `/v1/archives/${enc(archive)}/entities?${qs(q)}`);
  }
  entity(archive: string, id: string) {
    return this.call<EntityDetail>("GET", `/v1/archives/${enc(archive)}/entities/${enc(id)}`);
  }

  appendSession(archive: string, session: string, body: SessionEventsBody) {
    return this.call<SessionAppended>("POST", `/v1/archives/${enc(archive)}/sessions/${enc(session)}/events`, body);
  }

  // ---------------------------------------------------------------- queries
  resolve(archive: string, q: ResolveQuery) {
    return this.call<ResolveResponse>("GET", `/v1/archives/${enc(archive)}/resolve?${qs(q)}`);
  }
  neighbours(archive: string, q: ChunkQuery) {
    return this.call<NeighboursResponse>("GET", `/v1/archives/${enc(archive)}/neighbours?${qs(q)}`);
  }
  route(archive: string, body: RouteBody) {
    return this.call<RouteResponse>("POST", `/v1/archives/${enc(archive)}/route`, this.#after(archive, body));
  }

  /** `route` with its trace (include_trace: true), typed so. */
  async routeTraced(archive: string, body: RouteBody): Promise<TracedRoute> {
    const r = await this.route(archive, { ...body, include_trace: true });
    if (!r.trace) throw new Error("POST /route answered without the trace include_trace asked for");
    return { ...r, trace: r.trace };
  }
  expand(archive: string, body: ExpandBody) {
    return this.call<ExpandResponse>("POST", `/v1/archives/${enc(archive)}/expand`, body);
  }
  context(archive: string, body: ContextBody) {
    return this.call<ContextResponse>("POST", `/v1/archives/${enc(archive)}/context`, this.#after(archive, body));
  }
  verify(archive: string, body: VerifyBody) {
    return this.call<VerifyResponse>("POST", `/v1/archives/${enc(archive)}/verify`, body);
  }

  // ---------------------------------------------------------------- export (text bodies)
  /** `GET /export?format=&as_of=`: the archive as of a time, in a citation or graph format. */
  async export(archive: string, q: ExportQuery): Promise<string> {
    return (await this.send("GET", `/v1/archives/${enc(archive)}/export?${qs(q)}`)).text;
  }
  /** `POST /export/context`: the cards a context request returns, in an export format. */
  async exportContext(archive: string, body: ExportContextBody): Promise<string> {
    return (await this.send("POST", `/v1/archives/${enc(archive)}/export/context`, body)).text;
  }

  // ---------------------------------------------------------------- ingest from the world
  /**
   * Import a file's text (format: bibtex | markdown | fulltext | xkg | json | bbl); returns counts and
   * merges. `validFrom` (ISO) replaces the event time of every record (default: the file's dates).
   * `paper` (format bbl, required there) is the chunk id of the paper whose reference list it is.
   */
  importText(archive: string, format: ImportFormat, text: string, name: string, validFrom?: string, paper?: string) {
    const q = new URLSearchParams({
      format,
      name,
      ...(validFrom ? { valid_from: validFrom } : {}),
      ...(paper !== undefined ? { paper } : {}),
    });
    return this.call<ImportResult>(
      "POST",
      `/v1/archives/${enc(archive)}/import?${q}`,
      text,
      "text/plain; charset=utf-8",
    );
  }
  /** Import a binary file (format: pdf) from its bytes; returns counts like importText. */
  importBytes(archive: string, format: "pdf", bytes: Uint8Array, name: string, validFrom?: string) {
    const q = new URLSearchParams({ format, name, ...(validFrom ? { valid_from: validFrom } : {}) });
    return this.call<ImportResult>("POST", `/v1/archives/${enc(archive)}/import?${q}`, bytes, "application/pdf");
  }
  sources(archive: string) {
    return this.call<SourceList>("GET", `/v1/archives/${enc(archive)}/sources`);
  }
  source(archive: string, id: string) {
    return this.call<Source>("GET", `/v1/archives/${enc(archive)}/sources/${enc(id)}`);
  }
  addSource(archive: string, body: CreateSource) {
    return this.call<Source>("POST", `/v1/archives/${enc(archive)}/sources`, body);
  }
  patchSource(archive: string, id: string, body: PatchSource) {
    return this.call<Source>("PATCH", `/v1/archives/${enc(archive)}/sources/${enc(id)}`, body);
  }
  deleteSource(archive: string, id: string) {
    return this.call<Deleted>("DELETE", `/v1/archives/${enc(archive)}/sources/${enc(id)}`);
  }
  runSource(archive: string, id: string) {
    return this.call<SourceRun>("POST", `/v1/archives/${enc(archive)}/sources/${enc(id)}/run`);
  }
  putWebhook(archive: string, name: string, body: CreateWebhook) {
    return this.call<CreatedWebhook>("PUT", `/v1/archives/${enc(archive)}/webhooks/${enc(name)}`, body);
  }
  webhooks(archive: string) {
    return this.call<WebhookList>("GET", `/v1/archives/${enc(archive)}/webhooks`);
  }
  deleteWebhook(archive: string, name: string) {
    return this.call<Deleted>("DELETE", `/v1/archives/${enc(archive)}/webhooks/${enc(name)}`);
  }
  deliveries(archive: string, name: string, q: DeliveryQuery = {}) {
    return this.call<DeliveryList>("GET", `/v1/archives/${enc(archive)}/webhooks/${enc(name)}/deliveries?${qs(q)}`);
  }
  delivery(archive: string, name: string, delivery: string) {
    return this.call<Delivery>("GET", `/v1/archives/${enc(archive)}/webhooks/${enc(name)}/deliveries/${enc(delivery)}`);
  }
  replayDelivery(archive: string, name: string, delivery: string) {
    return this.call<Replayed>(
      "POST",
      `/v1/archives/${enc(archive)}/webhooks/${enc(name)}/deliveries/${enc(delivery)}/replay`,
    );
  }
  ingestLog(archive: string, q: LogQuery = {}) {
    return this.call<IngestLog>("GET", `/v1/archives/${enc(archive)}/ingest-log?${qs(q)}`);
  }

  // ---------------------------------------------------------------- hard deletes
  /** Delete a chunk with every version for good (audited). */
  forgetChunk(archive: string, chunk: string) {
    return this.call<Forgotten>("DELETE", `/v1/archives/${enc(archive)}/chunks?${qs({ chunk })}`);
  }
  /** Delete an entity and its mentions for good (audited). */
  forgetEntity(archive: string, entity: string) {
    return this.call<Forgotten>("DELETE", `/v1/archives/${enc(archive)}/entities?${qs({ entity })}`);
  }
  /** The audit trail of hard deletes in an archive, newest first. */
  deletions(archive: string, limit?: number) {
    return this.call<Deletions>("GET", `/v1/archives/${enc(archive)}/deletions?${qs({ limit })}`);
  }
  /** Delete a whole archive (admin key). */
  deleteArchive(archive: string) {
    return this.call<Forgotten>("DELETE", `/v1/archives/${enc(archive)}`);
  }

  // ---------------------------------------------------------------- outbound events
  subscribe(archive: string, name: string, body: PutSubscription) {
    return this.call<SubscriptionCreated>("PUT", `/v1/archives/${enc(archive)}/subscriptions/${enc(name)}`, body);
  }
  subscriptions(archive: string) {
    return this.call<SubscriptionList>("GET", `/v1/archives/${enc(archive)}/subscriptions`);
  }
  unsubscribe(archive: string, name: string) {
    return this.call<Deleted>("DELETE", `/v1/archives/${enc(archive)}/subscriptions/${enc(name)}`);
  }
  events(archive: string, name: string, q: EventListQuery = {}) {
    return this.call<EventList>("GET", `/v1/archives/${enc(archive)}/subscriptions/${enc(name)}/events?${qs(q)}`);
  }
  redeliver(archive: string, name: string, event: string) {
    return this.call<Redelivered>(
      "POST",
      `/v1/archives/${enc(archive)}/subscriptions/${enc(name)}/events/${enc(event)}/redeliver`,
    );
  }

  // ---------------------------------------------------------------- operations (admin key)
  snapshot(archive: string) {
    return this.call<Snapshot>("POST", `/v1/archives/${enc(archive)}/admin/snapshot`);
  }
  evict(archive: string) {
    return this.call<Evicted>("POST", `/v1/archives/${enc(archive)}/admin/evict`);
  }

  // ---------------------------------------------------------------- research memory (SGMC)
  /** The outline tree under a root, exactly from D1, with φ (Eq. 3) and Eq. 5's done flag. */
  tree(archive: string, q: z.input<typeof S.TreeQuery>) {
    return this.call<z.infer<typeof S.TreeResult>>("GET", `/v1/archives/${enc(archive)}/tree?${qs(q)}`);
  }
  /** One hub iteration: evidence from the node's references, stored as the next hub version. */
  gather(archive: string, body: z.input<typeof S.GatherBody>) {
    return this.call<z.infer<typeof S.GatherResult>>("POST", `/v1/archives/${enc(archive)}/hubs/gather`, body);
  }
  /** A node's hub iterations as of a time. */
  hub(archive: string, q: z.input<typeof S.HubQuery>) {
    return this.call<z.infer<typeof S.HubResult>>("GET", `/v1/archives/${enc(archive)}/hubs?${qs(q)}`);
  }
  /** The next draft of a node's section (its evidence anchors must verify). */
  draft(archive: string, body: z.input<typeof S.DraftBody>) {
    return this.call<z.infer<typeof S.DraftResult>>("POST", `/v1/archives/${enc(archive)}/drafts`, body);
  }
  /** A node's draft as of a time, with the anchors it rests on. */
  readDraft(archive: string, q: z.input<typeof S.DraftQuery>) {
    return this.call<z.infer<typeof S.DraftView>>("GET", `/v1/archives/${enc(archive)}/drafts?${qs(q)}`);
  }
  /** ROUGE-1 between consecutive versions of a chunk and Eq. 10's stop iteration. */
  convergence(archive: string, q: z.input<typeof S.ConvergenceQuery>) {
    return this.call<z.infer<typeof S.ConvergenceResult>>("GET", `/v1/archives/${enc(archive)}/convergence?${qs(q)}`);
  }
  /** The finished sections in tree order within a budget. */
  assemble(archive: string, body: z.input<typeof S.AssembleBody>) {
    return this.call<z.infer<typeof S.AssembleResult>>("POST", `/v1/archives/${enc(archive)}/assemble`, body);
  }
  /** Eq. 12: among the feedback records with the fewest revisions, the most used. */
  selectFeedback(archive: string, body: z.input<typeof S.FeedbackSelectBody> = {}) {
    return this.call<z.infer<typeof S.FeedbackSelectResult>>(
      "POST",
      `/v1/archives/${enc(archive)}/feedback/select`,
      body,
    );
  }
  /** Eq. 12 with the selection counted as a use (event_id), and whether the answer is a retry's. */
  selectFeedbackOnce(archive: string, body: z.input<typeof S.FeedbackSelectBody> & { event_id: string }) {
    return this.callOnce<z.infer<typeof S.FeedbackSelectResult>>(`/v1/archives/${enc(archive)}/feedback/select`, body);
  }
  /** A_S: a node's (or the given) references by citations, incomplete entries removed, the top Q_k unique. */
  selectReferences(archive: string, body: z.input<typeof S.ReferencesSelectBody>) {
    return this.call<z.infer<typeof S.ReferencesSelectResult>>(
      "POST",
      `/v1/archives/${enc(archive)}/references/select`,
      body,
    );
  }
  /** xKG: techniques a model proposes from a paper's sections, with their code links (needs a model). */
  proposeTechniques(archive: string, body: z.input<typeof S.TechniquesBody>) {
    // TechniquesResult's proposal fields are spread into it untyped (src/contract/proposals.ts `common`).
    type Out = z.infer<typeof S.TechniquesResult> & {
      read: { sections: string[]; code_units: string[] };
      proposals: Array<{
        id: string;
        name: string;
        type: string;
        parent: string | null;
        written: string;
        code: unknown[];
      }>;
    };
    return this.call<Out>("POST", `/v1/archives/${enc(archive)}/techniques/propose`, body);
  }
  /** xKG: a technique's code rewritten by a model into one checked code node (needs a model). */
  rewriteTechnique(archive: string, body: z.input<typeof S.RewriteBody>) {
    return this.call<z.infer<typeof S.RewriteResult>>("POST", `/v1/archives/${enc(archive)}/techniques/rewrite`, body);
  }
  /** A_O: sub-outlines of a node from its references, by the model or by shared names. */
  proposeOutline(archive: string, body: z.input<typeof S.OutlineProposeBody>) {
    return this.call<z.infer<typeof S.OutlineProposeResult>>(
      "POST",
      `/v1/archives/${enc(archive)}/outline/propose`,
      body,
    );
  }
  /** The self-loop on a node's draft: review with r*, refine, until no feedback or x_max (needs a model). */
  feedbackLoop(archive: string, body: z.input<typeof S.FeedbackLoopBody>) {
    return this.call<z.infer<typeof S.FeedbackLoopResult>>("POST", `/v1/archives/${enc(archive)}/feedback/loop`, body);
  }
  /** The review scaffold as JSON. */
  scaffold(archive: string, q: Omit<z.input<typeof S.ScaffoldQuery>, "format">) {
    return this.call<z.infer<typeof S.ScaffoldResult>>(
      "GET",
      `/v1/archives/${enc(archive)}/scaffold?${qs({ ...q, format: "json" })}`,
    );
  }
  /** The review scaffold as Markdown. */
  async scaffoldMarkdown(archive: string, q: Omit<z.input<typeof S.ScaffoldQuery>, "format">): Promise<string> {
    const { text } = await this.send(
      "GET",
      `/v1/archives/${enc(archive)}/scaffold?${qs({ ...q, format: "markdown" })}`,
    );
    return text;
  }
  // ---------------------------------------------------------------- discovery
  /** Collection statistics and insights (kinds and boundaries_any comma-separated). */
  stats(archive: string, q: z.input<typeof S.StatsQuery> = {}) {
    return this.call<z.infer<typeof S.StatsResponse>>("GET", `/v1/archives/${enc(archive)}/stats?${qs(q)}`);
  }
  /** Paper Circle's ranking modes (weights, λ), views, sorts and defaults, without a query. */
  rankingModes(archive: string) {
    return this.call<z.infer<typeof S.RankingModesResponse>>("GET", `/v1/archives/${enc(archive)}/ranking/modes`);
  }
  /** A query's structured spec (§3.2): keywords, required, negative, related, titles, years. */
  querySpec(archive: string, body: z.input<typeof S.QuerySpecBody>) {
    return this.call<z.infer<typeof S.QuerySpecSchema>>("POST", `/v1/archives/${enc(archive)}/query-spec`, body);
  }
  /** Score statistics and the leaderboard of a query's ranked pool (E.3). */
  rankingStats(archive: string, body: z.input<typeof S.RankingStatsBody>) {
    return this.call<z.infer<typeof S.RankingStatsResponse>>(
      "POST",
      `/v1/archives/${enc(archive)}/ranking/stats`,
      body,
    );
  }
  /** One-shot discovery across the scholarly engines (C.2); stores nothing. */
  discover(archive: string, body: z.input<typeof S.DiscoverBody>) {
    return this.call<z.infer<typeof S.DiscoverResponse>>("POST", `/v1/archives/${enc(archive)}/discover`, body);
  }
  /** Accesses per channel (routing, expansion, verification) per session or per chunk. */
  accessCounts(archive: string, q: z.input<typeof S.AccessCountsQuery> = {}) {
    return this.call<z.infer<typeof S.AccessCounts>>("GET", `/v1/archives/${enc(archive)}/access-counts?${qs(q)}`);
  }
  // ---------------------------------------------------------------- papers
  /** Where in one paper something is discussed: sections, elements, exact snippets. */
  locate(archive: string, body: z.input<typeof S.LocateBody>) {
    return this.call<z.infer<typeof S.LocateResult>>("POST", `/v1/archives/${enc(archive)}/locate`, body);
  }
  /** Coverage of a paper's sections, figures, tables and equations. */
  coverage(archive: string, q: z.input<typeof S.CoverageQuery>) {
    return this.call<z.infer<typeof S.CoverageResult>>("GET", `/v1/archives/${enc(archive)}/coverage?${qs(q)}`);
  }
  // ---------------------------------------------------------------- review and retrieval metrics
  /** verify, edit, add_edge, remove_edge or flag a node or an edge. */
  review(archive: string, body: ReviewBody) {
    return this.call<ReviewResult>("POST", `/v1/archives/${enc(archive)}/review`, body);
  }
  /** review, and whether the answer is a retry's (the first answer of its `event_id` again). */
  reviewOnce(archive: string, body: ReviewBody) {
    return this.callOnce<ReviewResult>(`/v1/archives/${enc(archive)}/review`, body);
  }
  /** A node's (chunk) or an edge's (from, type, to) review status and history as of a time. */
  reviewState(archive: string, q: ReviewQuery) {
    return this.call<ReviewState>("GET", `/v1/archives/${enc(archive)}/review?${qs(q)}`);
  }
  /** Hit rate, MRR, Recall@K and Precision@K of the router against gold ids; the run is stored. */
  retrievalMetrics(archive: string, body: RetrievalMetricsBody) {
    return this.call<RetrievalRun>("POST", `/v1/archives/${enc(archive)}/metrics/retrieval`, body);
  }
  retrievalRuns(archive: string, q: { limit?: number; cursor?: string } = {}) {
    return this.call<RetrievalRunPage>("GET", `/v1/archives/${enc(archive)}/metrics/retrieval/runs?${qs(q)}`);
  }
  retrievalRun(archive: string, run: string) {
    return this.call<RetrievalRun>("GET", `/v1/archives/${enc(archive)}/metrics/retrieval/runs/${enc(run)}`);
  }
  /** A PaperBench rubric tree scored from leaf grades or the leaf judge: the weighted score and every node's. */
  paperbenchScore(archive: string, body: PaperbenchScoreBody) {
    return this.call<PaperbenchScoreResult>("POST", `/v1/archives/${enc(archive)}/paperbench/score`, body);
  }
  /** Review-score metrics (MSE, MAE, RMSE, Pearson, Spearman, accuracy within ±t) of predicted vs human scores. */
  reviewScores(archive: string, body: ReviewScoreMetricsBody) {
    return this.call<ReviewScoreMetrics>("POST", `/v1/archives/${enc(archive)}/metrics/review-scores`, body);
  }
  /** Reviewer reports for a paper from the configured model, every claim anchored (409 without a model). */
  reviewers(archive: string, body: ReviewersBody) {
    return this.call<ReviewersResult>("POST", `/v1/archives/${enc(archive)}/reviewers`, body);
  }
}

/** A query string from defined values. */
function qs(q: object): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined && v !== null) p.set(k, String(v));
  return p.toString();
}
