/** Browse an archive: list chunks and entities page by page, read one chunk, entity or exact content. */
import type { z } from "@hono/zod-openapi";
import type { UseCases } from "../../app";
import * as S from "../../contract";
import { body, failure, json, REPLAYED_HEADER } from "../common";
import { errorResponse as err, errors, modelErrors } from "../docs";
import { archiveGet, archiveItemGet, archivePost, type BodyCall, endpoint, resourceApp } from "../route";

export const browseRoutes = resourceApp();

/**
 * A POST a configured language model answers (docs/models.md), tagged `query`, with write scope: the
 * archive's JSON `request` body in, `result` out, and the model's failures (modelErrors) beside the
 * usual ones.
 */
function modelPost<B extends z.ZodType, R extends z.ZodType<object>>(
  path: string,
  summary: string,
  description: string,
  request: B,
  result: R,
  call: (app: UseCases) => BodyCall<B, R>,
): void {
  archivePost(
    browseRoutes,
    "write",
    {
      path,
      tags: ["query"],
      summary,
      description,
      request,
      result,
      failures: { ...errors(400, 401, 403, 404, 413), ...modelErrors() },
    },
    call,
  );
}

archiveGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/chunks",
    tags: ["browse"],
    summary: "List chunks",
    description:
      "Chunks with a version valid at `as_of` (default now), in id order, filtered by kind, entity, boundary, id prefix or title prefix, one page at a time: pass `next_cursor` back as `cursor` until it is null.",
    query: S.ChunkListQuery,
    result: S.ChunkPage,
  },
  (app) => app.browse.listChunks,
);

archiveItemGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/chunks/{id}",
    tags: ["browse"],
    summary: "One chunk with its history",
    description:
      "The chunk's head, every version (oldest first, with validity, content length and SHA-256, entities, boundaries, declared edges and relations), its edges over time and its deprecation with the reason. Percent-encode the id.",
    item: S.ChunkIdParam,
    result: S.ChunkDetail,
    missing: "No such archive or chunk",
  },
  (app) => app.browse.chunk,
);

archiveItemGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/chunks/{id}/content",
    tags: ["browse"],
    summary: "Exact content of a version",
    description:
      "The stored text of one version (`version`, or the one valid at `as_of`), whole or the span [start, end) in the same offsets as card anchors, at most `max_chars` characters per call; `next_start` continues a cut read.",
    item: S.ChunkIdParam,
    query: S.ContentQuery,
    result: S.ContentSlice,
    missing: "No such archive, chunk or version",
    also: [503],
  },
  (app) => app.browse.content,
);

archiveItemGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/chunks/{id}/diff",
    tags: ["browse"],
    summary: "Line diff between two versions",
    description:
      "What changed between versions `from` and `to` (default: the latest and the one before): line operations with exact [start, end) offsets into both versions (the offsets anchors use) and the unified diff. Versions differing in more than 1,000 lines get 413.",
    item: S.ChunkIdParam,
    query: S.DiffQuery,
    result: S.ChunkDiff,
    missing: "No such archive, chunk or version",
    also: [413, 503],
  },
  (app) => app.browse.diff,
);

archiveGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/entities",
    tags: ["browse"],
    summary: "List entities",
    description:
      "Canonical entities in id order with their current name and alias count, filtered by type or id prefix (merged ones only with merged=true), one page at a time.",
    query: S.EntityListQuery,
    result: S.EntityPage,
  },
  (app) => app.browse.listEntities,
);

archiveItemGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/entities/{id}",
    tags: ["browse"],
    summary: "One entity with its history",
    description:
      "The entity, every name it has had with validity, its events (created, alias, rename, merged_into, absorbed) and the chunk versions mentioning it (at most 500). Percent-encode the id.",
    item: S.EntityIdParam,
    result: S.EntityDetail,
    missing: "No such archive or entity",
  },
  (app) => app.browse.entity,
);

endpoint(
  browseRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/chunks/{id}/annotations",
    tags: ["browse"],
    summary: "Annotate a chunk",
    description:
      "Appends one event to the chunk's annotations: `value` sets a key (a status such as proposed, committed, rejected), `add` adds to it (a counter). Events are never changed; reads fold them as of a time. `at` is the valid time (default now); `event_id` makes a retry the same event.",
    request: { params: S.ArchiveParam.extend(S.ChunkIdParam.shape), ...body(S.AnnotateBody) },
    responses: {
      201: json(
        S.Annotated,
        "Appended; with an `event_id` used before for this chunk and key, the first answer again (header `Idempotent-Replayed: true`), nothing appended",
      ),
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive, chunk or version"),
      409: err(409, "event_id already used for another chunk or key"),
    },
  },
  async (c) => {
    const p = c.req.valid("param");
    const res = await c.var.app.annotations.annotateOnce(
      p.archive,
      p.id,
      c.req.valid("json"),
      c.req.header("authorization"),
    );
    if (!res.ok) return failure(c, res.error);
    if (res.value.replayed) c.header(REPLAYED_HEADER, "true");
    return c.json(res.value.value, 201);
  },
);

archiveItemGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/chunks/{id}/annotations",
    tags: ["browse"],
    summary: "A chunk's annotations as of a time",
    description: "Each key's value at `as_of` (default now), folded from the events up to then, and those events.",
    item: S.ChunkIdParam,
    query: S.AnnotationsQuery,
    result: S.Annotations,
    missing: "No such archive or chunk",
  },
  (app) => app.annotations.read,
);

archiveGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/metrics/dir",
    tags: ["browse"],
    summary: "Dependency integration ratio of a repository",
    description:
      "DIR = |E_used| / |E_total| (ProjectGuard, §4.1) over the code units under `prefix` as of `as_of`: E_total the exported declarations of standalone modules, E_used those that integration code (modules that depend on others and that none depends on) names and depends on. Test modules are left out.",
    query: S.DirQuery,
    result: S.DirResult,
    also: [413],
  },
  (app) => app.metrics.dir,
);

archivePost(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/brief",
    tags: ["query"],
    summary: "Pre-turn brief for a coding agent",
    description:
      "Within `budget_tokens`: the committed designs and decisions relevant to the upcoming request (status annotation `committed` at `as_of`; superseded and deprecated ones are invisible), the modules implementing them to revise (a commitment changed after the module did), preserve (others depend on or test them) or reuse, the exported signatures of the modules to preserve as exact anchors, and the chunks that `motivate` the commitments (resources). With `session_id` and no `recent_requests`, the session's last 5 `user` events join the request. Each commitment carries its spec components (`spec`) when set. With `context` (the agent's window and used tokens), `restart` estimates what the next turns need against what remains and says whether to continue, restart with the rendered state, or narrow the request, with the numbers. Deterministic; the rules are in docs/coding-agents.md.",
    request: S.BriefBody,
    result: S.BriefResult,
    failures: errors(400, 401, 403, 404, 413),
  },
  (app) => app.project.brief,
);

archiveGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/access-counts",
    tags: ["query"],
    summary: "Access counts per channel, per session or per chunk",
    description:
      "How often chunks were routed to (`routing`: selected by /route or /context, heads only), expanded (`expansion`: distilled into a returned card by /expand or /context) and verified (`verification`: an anchor re-checked by /verify), from the access log. `by=session` (default) gives one row per session (calls without `session_id` form the row with key null), `by=chunk` one per chunk; `session_id`, `chunk`, `since` and `until` narrow the accesses counted. Rows are most accesses first (ties by key), `limit` per page (default 50, at most 500): pass `next_cursor` back as `cursor` until it is null. `totals` counts every matching access, `groups` the rows over all pages.",
    query: S.AccessCountsQuery,
    result: S.AccessCounts,
  },
  (app) => app.access.accessCounts,
);

archivePost(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/render",
    tags: ["query"],
    summary: "The whole project state for a fresh session",
    description:
      "Committed designs and decisions (status annotation `committed` at `as_of`) with their text, the chunks that `motivate` them (resources, heads only), then the code units (under `prefix`) with what they implement and depend on and their exported signatures, cut to `budget_tokens` from the end (resources, signatures, modules, decisions, designs) with the token count and what was left out; a budget the list of left-out ids alone exceeds is a 400 naming the budget needed.",
    request: S.RenderBody,
    result: S.RenderResult,
    failures: errors(400, 401, 403, 404, 413),
  },
  (app) => app.project.render,
);

modelPost(
  "/v1/archives/{archive}/commitments/propose",
  "Commitments a model proposes from session turns (ProjectGuard)",
  "Needs a configured language model (DISTILLER or EXTRACTOR and LLM_*, docs/models.md); without one, a 409 naming the setting. The model reads the session's last `last` events (or the turn records in `turns`) at `as_of` and proposes design and decision records. Each must quote the turns it cites verbatim: the quotes are located in the turns and kept as exact anchors; a record without one is dropped, and an answer that is not the schema, or whose every record was dropped, is asked once more with the reason. The prompt lists the kept designs and decisions: a record that revises one is written as that record's next version (status `proposed` again), never as a second record. With `per_turn` the newest event is the turn extracted and a repeat for it (a queue redelivery) answers the first answer and writes nothing; with a model configured, every session append queues that extraction. Kept records are ingested with `discussed-in` edges to their turns (a cited session event is stored as the `record` chunk its id names), source `model:<provider>:<model>`, the status annotation `proposed` (the brief and the render ignore them until a user sets `status` to `committed`) and a `proposal` annotation with the anchors. Ids come from the cited turns and a content hash: a retry writes nothing new, and an existing id is left as it is. A model failure is a 503 and writes nothing. The result says what the model calls spent.",
  S.CommitmentsBody,
  S.CommitmentsResult,
  (app) => app.project.proposeCommitments,
);

archiveGet(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/metrics/grounding",
    tags: ["browse"],
    summary: "Grounding coverage",
    description:
      "Of the chunks of `kind` (default technique) valid at `as_of`, how many something `implements` (xKG: a technique is grounded iff some code implements it), with the ungrounded ones listed.",
    query: S.GroundingQuery,
    result: S.GroundingResult,
  },
  (app) => app.metrics.grounding,
);

modelPost(
  "/v1/archives/{archive}/techniques/propose",
  "Techniques a model proposes from a paper's sections, with their code (xKG)",
  "Needs a configured language model (DISTILLER or EXTRACTOR and LLM_*, docs/models.md); without one, a 409 naming the setting. The model reads the paper chunk and the `section` chunks of its part-of subtree at `as_of`, and the code units linked to it (the subtree's, as an xKG import stores them, and those under `code_prefix`), and proposes the paper's techniques (Methodology or Technique). Each must quote the sections it cites verbatim (kept as exact anchors; a technique without one is dropped) and may link code units by quoting a line of each (a link that does not verify is dropped). An answer that is not the schema, or whose every technique was dropped, is asked once more with the reason. Kept techniques are ingested as `technique` chunks part-of the paper (and of their parent technique) with `discussed-in` edges to their sections, the `method:` entity, source `model:<provider>:<model>` and a `proposal` annotation with the anchors; each code link is an `implements` edge on the code unit's next version. Nothing is marked reviewed (POST /review verifies or flags). Ids come from the paper, the cited sections and a content hash: a retry writes nothing new. A model failure is a 503 and writes nothing. The result says what the model calls spent.",
  S.TechniquesBody,
  S.TechniquesResult,
  (app) => app.techniques.proposeTechniques,
);

modelPost(
  "/v1/archives/{archive}/techniques/rewrite",
  "A technique's code rewritten by a model into one checked code node (xKG)",
  "Needs a configured language model (DISTILLER or EXTRACTOR and LLM_*, docs/models.md); without one, a 409 naming the setting. xKG's code rewriting (seed 003 App. C.3): the model reads the abstract of the technique's paper (the chunk it is part-of), the technique's definition, for a composite technique its sub-techniques (techniques part-of it) with the code implementing each now, and the code units that implement the technique at `as_of` (or `code_units`), at most `max_code_bytes` of code (default 52,100, xKG's cap). It answers one code node (implementation ending in a `# TEST BLOCK`, test, documentation, and the units it took code from, each with a quoted line) or None (`outcome: none`). Checks: (a) every quote is an exact span of its unit; (b) at least 0.5 of the implementation's core lines (not blank, comments, docstrings or the TEST BLOCK) are verbatim, whitespace-normalised, in the code shown; then (c) a second call, the paper's verifier prompt, answers true. A rewrite that passes is stored as a `code_unit` `<technique>#code:<content hash>` that `implements` the technique (with a `tests` unit `<id>#test` when the test is not empty), source `model:<provider>:<model>`, a `proposal` annotation with what was read, the anchors and the checks, and no review (it stays `auto-generated`). One that fails a check comes back with `outcome: proposal` and the reasons, and is stored nowhere. The same answer again writes nothing (`outcome: existing`). A technique that does not exist at `as_of` is a 404 naming `technique`; a chunk of another kind, or a technique no code implements without `code_units`, a 400. A model failure is a 503 and writes nothing.",
  S.RewriteBody,
  S.RewriteResult,
  (app) => app.techniques.rewriteTechnique,
);

archivePost(
  browseRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/code-pairs",
    tags: ["query"],
    summary: "Technique -> code pairs (xKG)",
    description:
      "Routes the query over `technique` chunks only (optionally within one paper's subtree or boundary tags), follows `implements` edges to the code that implements each (exact, from D1, at `as_of`) and returns the (technique, code) pairs whose score (the technique's cosine similarity to the query) is at least `threshold` (default 0.15, measured on the 43 released xKG graphs for reuse; 0.55 asks for the exact technique; docs/coding-agents.md says how), in the router's order, with the score's parts. Each code comes with the anchor of its code span and its size in bytes. Techniques without code come back with `code: null, grounded: false` unless `include_ungrounded` is false. With `verify: true` the configured language model is xKG's verifier (§2.4): it reads the query and the pairs (the first 24, texts cut) in one call and keeps, drops and reorders them, each with a reason; ids it invents and second verdicts are ignored, pairs it gives no verdict are dropped, and `verifier` reports all of it; the code cap applies to what it kept. Without a model, `verify: true` is a 409 naming the setting; a model failure is a 503.",
    request: S.CodePairsBody,
    result: S.CodePairsResult,
    failures: { ...errors(400, 401, 403, 404), ...modelErrors() },
  },
  (app) => app.codePairs.pairs,
);
