/**
 * Descriptions the OpenAPI document carries for parameters and named schemas that the zod schemas
 * leave undescribed. Parameters are named the same way across the API (an `archive` is always the
 * archive id), so one table per name serves every route; a test fails when a parameter or a schema
 * of the document has no description, so a new one is described here or in its schema.
 */

/** `in:name` -> description; `in:name@segment` applies on paths containing `/segment/`. */
const PARAMS: Record<string, string> = {
  "path:archive": "Archive id (2-63 of a-z, 0-9 and -). An archive key reaches only its own archive.",
  "path:key": "Key id (k_…), as listed by GET /v1/archives/{archive}/keys; not the secret.",
  "path:name@webhooks": "Webhook endpoint name (1-63 of a-z, 0-9, - and _), as given to PUT …/webhooks/{name}.",
  "path:name@subscriptions": "Subscriber name (1-63 of a-z, 0-9, - and _), as given to PUT …/subscriptions/{name}.",
  "path:delivery": "Delivery id: the producer's X-PaperGuru-Delivery or X-GitHub-Delivery header value.",
  "path:event": "Event id (evt_…), as listed by GET …/subscriptions/{name}/events.",
  "path:source": "Source id, as returned when the source was added.",
  "path:session":
    "Session id (1-200 characters, percent-encoded): the same id route, expand and context take as session_id.",
  "query:limit": "Page size, 1-500 (default 100).",
  "query:chunk": "Chunk id as stored, e.g. arxiv:2405.14831 (percent-encoded).",
  "query:entity": "Canonical entity id, e.g. method:hipporag (GET …/resolve finds it from a name).",
  "query:mention": "A name, alias or identifier as written, e.g. HippoRAG or arXiv:2405.14831v2 (≤ 300 characters).",
  "query:status": "Only items in this state.",
  "query:before": "Only entries with a smaller id: the last id of the previous page.",
  "query:as_of": "ISO 8601 date or date-time: answer as the archive was then (default: now).",
};

/** Named schema -> description. */
const SCHEMAS: Record<string, string> = {
  Feed: "A signed feed delivery: artifacts to store and chunks to deprecate, applied as one ingest.",
  Artifact:
    "One thing to remember: a paper, section, code unit, benchmark row, note, decision, dataset or technique. Re-using an id adds a version.",
  Healthz: "The health check's answer.",
  ArchiveCreated: "A new archive and its first key (read and write); the secret is shown once.",
  Archive: "An archive: id, name, description, kernel parameter overrides and creation time.",
  CreateArchive: "A new archive: id (generated when absent), name, description and optional kernel parameters.",
  KernelParams:
    "Overrides of the routing kernel's parameters (snake_case; the camelCase names of before are accepted too). Unknown names are refused.",
  ArchiveList: "Every archive (admin key).",
  ArchiveInfo: "An archive with its storage counts and its capital-chunk statistics (measured, snake_case).",
  WhoAmI: "The calling key: admin or one archive key, and the archives it reaches with their scopes.",
  KeyIssued: "A new key: the secret is shown once; only its SHA-256 is stored.",
  CreateKey: "Scopes (read, write) and an optional label for a new key.",
  KeyList: "The archive's keys (never their secrets), revoked ones included.",
  Key: "A key: id, label, scopes, creation and revocation times.",
  KeyRevoked: "The id of the key just revoked.",
  IngestResult:
    "Per artifact: created, updated (a new version) or unchanged, with the version; counts; the transaction time.",
  IngestBatch: "1-200 artifacts stored atomically: all or none.",
  Deprecated: "The chunk retired, its successor and its last version.",
  Deprecate: "Retire a chunk at a time, optionally naming its successor and the reason.",
  Forgotten: "What a hard delete removed, with the audit row's id.",
  Deletions: "Audit rows of hard deletes, newest first.",
  Deletion: "One audit row: target, id, who, when, counts; never content.",
  Ok: "The operation succeeded.",
  Alias: "Add a name an entity is also known by, from a time on.",
  Rename: "Rename an entity from a time on; the old name resolves as a historical alias.",
  Merge: "Merge an entity into another from a time on.",
  ChunkDetail: "One chunk: head, every version, its edges over time and its deprecation.",
  VersionView:
    "One version of a chunk: validity, content length and hashes, entities, tags, declared edges and relations.",
  EdgeView: "A typed edge with its validity and the version that declared it.",
  EntityDetail:
    "One entity: names over time, events (created, alias, rename, merges) and the chunk versions mentioning it.",
  Neighbours: "A chunk's head and its bounded neighbour table valid at as_of, heaviest first.",
  Resolved: "The entity a mention denotes as of a time, or the candidates of an ambiguous name.",
  ChunkPage: "One page of chunks valid at as_of, in id order; next_cursor continues.",
  ChunkSummary: "A listed chunk: its head and the version valid at the listing's as_of.",
  ContentSlice: "The exact text of one version, whole or a span, with where to continue a cut read.",
  EntityPage: "One page of entities in id order; next_cursor continues.",
  EntitySummary: "A listed entity: current name, number of names, merge state.",
  RouteResponse: "Candidates with per-expert scores, the router's selection and the trace.",
  Candidate:
    "A ranked chunk: score (the lexical expert plus bounded shares of the others), relevance (0-1, comparable across queries), expert scores and diffusion mass.",
  Evidence:
    "What the relevance floors left of a /context answer: whether any chunk reached min_relevance (found), the floors, the best relevance, how many selected chunks were left out, and a note to put in the prompt when nothing was found.",
  Trace: "How a query was routed: mentions resolved, seeds, diffusion, router steps, timings in ms.",
  RouteRequest: "A query to route (head-only: no content is read).",
  ExpandResponse: "Evidence cards for the chunks asked for, what was skipped, and the tokens used.",
  EvidenceCard:
    "A claim with its logic sketch, assumptions and anchors: exact [start, end) spans of one version's content.",
  Anchor: "An exact span [start, end) of one version of an artifact and the text it holds.",
  ExpandRequest: "Chunks (optionally exact versions) to turn into evidence cards within a budget.",
  ContextResponse:
    "Evidence cards within the budget, the session window, the budget's use, skipped chunks and the trace.",
  ContextRequest: "A query, a token budget and optionally a time, tags and a session.",
  VerifyResponse: "Per anchor: does the snippet equal the stored text at [start, end)?",
  VerifyRequest: "Anchors to re-check, as cards return them.",
  SessionAppended: "How many events were appended and their tokens.",
  SessionEvents: "Turns of an agent session (role, text, time).",
  WebhookCreated: "A webhook endpoint: where producers send, the secret (shown once) and the headers it reads.",
  CreateWebhook: "Kind (generic or github), optional secret and branches.",
  WebhookList: "The archive's webhook endpoints (never their secrets).",
  Deleted: "The name or id of what was deleted.",
  WebhookReceipt: "A delivery's receipt: queued, a duplicate of one already received, or ignored.",
  DeliveryList: "A webhook's deliveries, newest first.",
  Delivery: "One delivery: status, attempts, result counts or error.",
  Replayed: "A delivery queued again.",
  SubscriptionCreated: "A subscriber with its secret (shown once).",
  Subscription: "A subscriber: URL and event types (never the secret).",
  PutSubscription: "Where to send events, which types, and optionally your own secret.",
  SubscriptionList: "The archive's subscribers.",
  EventList: "Events sent to a subscriber, newest first; next_cursor continues.",
  Event: "One event for one subscriber: type, delivery status, attempts, last HTTP status and error, the body sent.",
  Redelivered: "An event queued again.",
  Source: "A scheduled source with its schedule and the status of its last run.",
  CreateSource: "A source to poll: kind, location and interval.",
  SourceList: "The archive's sources.",
  PatchSource: "Pause, resume or reschedule a source.",
  SourceRun: "The outcome of running a source now and its status after.",
  ApplyCounts: "What an import or a source run did: created, updated, unchanged, deprecated, merged, skipped, failed.",
  IngestLog: "Runs of webhooks, sources and imports, newest first.",
  ImportResult: "An import's counts, merges and failures.",
  Snapshot: "A capital-chunk snapshot written now.",
  Evicted: "The archive whose in-memory capital chunk was dropped.",
  ContextExportRequest: "A context request plus the export format of its cards.",
  Filter:
    "What a query may return, applied to every head before the top-M cut and to every router target: kinds, boundary tags (any or all), a part-of subtree, grounding, a minimum similarity.",
  Follow: "Exact neighbours to attach to each card: an edge type, a direction and how many per card.",
  DirResult:
    "The dependency integration ratio of a repository's code as of a time, with the module sets and the unused exports it was computed from.",
  BriefRequest:
    "The upcoming request (and the session's last ones), a time, a token budget and optionally a repository prefix.",
  BriefResult:
    "What to know before the next request: committed designs and decisions, modules to preserve, revise or reuse, exported signatures as anchors, within the budget.",
  RenderRequest: "A time, a token budget and optionally a repository prefix.",
  RenderResult:
    "The whole committed state (designs, decisions with their text, code units with links and signatures) within the budget, with its token count and what was left out.",
  ChunkDiff: "The line operations and unified diff between two versions of a chunk, with offsets into both.",
  CodePairsRequest:
    "A technique described in words, a time, how many techniques to route, a score threshold and optionally one paper's subtree.",
  CodePairs:
    "(technique, code) pairs above the threshold, each with exact anchors; techniques without code flagged as ungrounded.",
  GroundingResult: "How many chunks of a kind are implemented by something, and which are not.",
  Annotate: "One annotation event: set a key's value (a status) or add to it (a counter), from a time on.",
  Annotated: "The event appended (or the one a repeated event_id names) and the key's value now.",
  Annotations: "A chunk's annotation values as of a time and the events they fold.",
  OutlineTree:
    "An outline tree read exactly from D1 as of a time: nodes in tree order with depth, children, references, word counts, φ (Eq. 3), draft and hub; whether the tree is done (Eq. 5) and which leaves to split.",
  GatherRequest:
    "An outline node, optionally a query, the time its references are read at, the hub version's time and a budget.",
  Gathered:
    "One hub iteration: the cards gathered from the node's references and the hub version that stores their anchors.",
  Hub: "A node's hub iteration by iteration as of a time, each with its query and evidence anchors.",
  DraftRequest: "An outline node, the next section draft and the anchors it rests on (each must verify).",
  Drafted: "The draft version stored, the sources it cites and its anchors.",
  Draft: "A node's draft valid at a time: its text, the sources it cites and the anchors it rests on.",
  Convergence: "ROUGE-1 between consecutive versions of a draft and Eq. 10's stop iteration.",
  AssembleRequest: "An outline root, a time, a token budget and Eq. 10's ε and t_max for what counts as finished.",
  Assembled:
    "The finished sections in tree order within the budget, with their token counts and what was left out and why.",
  FeedbackSelectRequest:
    "Optionally a scope boundary, a time, the tie-break and an event id that counts the selection as a use.",
  FeedbackSelected:
    "The feedback record Eq. 12 selects (fewest revisions, then most used) and the records with the fewest revisions.",
  CommitmentsRequest: "The session (or turn records) a model reads for ProjectGuard commitments, and dry_run.",
  CommitmentsResult:
    "The turns read, the design and decision records proposed (status proposed, discussed-in their turns, verbatim anchors), what was dropped and the model's usage.",
  TechniquesRequest: "The paper whose sections a model reads for xKG techniques, and the code units it may link.",
  TechniquesResult:
    "The sections and code read, the techniques proposed (part-of the paper, discussed-in their sections, implemented by the code linked), what was dropped and the model's usage.",
  FeedbackProposeRequest: "The draft a model critiques for SGMC feedback records, the critique request and scope.",
  FeedbackProposeResult:
    "The draft version read, the feedback records proposed (pending review, anchored in the draft), what was dropped and the model's usage.",
  ReferencesSelectRequest: "An outline node (or candidate ids), Q_k, the fields a complete entry has and a time.",
  ReferencesSelected:
    "A_S's top Q_k complete unique references by citations, and the entries removed as incomplete (with the fields they lack) or duplicate.",
  OutlineProposeRequest: "An outline node, the method (model, names or auto), bounds, dry_run and the new nodes' time.",
  OutlineProposed:
    "A_O's directions, each citing the references it came from and written as an outline node, the references in none, and what was dropped.",
  FeedbackLoopRequest: "A node whose draft the self-loop refines, the context request, r*'s scope and x_max.",
  FeedbackLoop:
    "Each review iteration (the draft version reviewed, the review version, its feedback, the refined version), why the loop stopped and the model's usage.",
  ReviewScaffold:
    "The outline in tree order with each node's references, draft and evidence anchors to exact spans of its sources.",
};

interface Doc {
  paths?: Record<string, Record<string, { parameters?: Array<{ in?: string; name?: string; description?: string }> }>>;
  components?: { schemas?: Record<string, { description?: string }> };
}

/** Fill in the descriptions the tables give (a description already written in a schema wins). */
export function describeDocument<T>(doc: T): T {
  const d = doc as Doc;
  for (const [path, item] of Object.entries(d.paths ?? {}))
    for (const op of Object.values(item)) {
      if (!op || typeof op !== "object" || !Array.isArray(op.parameters)) continue;
      for (const p of op.parameters) {
        if (p.description) continue;
        const base = `${p.in}:${p.name}`;
        const segment = Object.keys(PARAMS).find(
          (k) => k.startsWith(`${base}@`) && path.includes(`/${k.slice(base.length + 1)}/`),
        );
        const text = (segment && PARAMS[segment]) ?? PARAMS[base];
        if (text) p.description = text;
      }
    }
  for (const [name, s] of Object.entries(d.components?.schemas ?? {}))
    if (!s.description && SCHEMAS[name]) s.description = SCHEMAS[name];
  return doc;
}
