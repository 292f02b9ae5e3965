/** Literature-review memory (SGMC): outline tree, evidence hubs, section drafts, convergence, assembly, feedback. */
import { z } from "@hono/zod-openapi";
import * as S from "../../contract";
import { allow, body, failure, json, REPLAYED_HEADER } from "../common";
import { errorResponse as err, errors, modelErrors } from "../docs";
import { archiveGet, archivePost, endpoint, resourceApp } from "../route";

export const researchRoutes = resourceApp();

archiveGet(
  researchRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/tree",
    tags: ["research"],
    summary: "Outline tree (SGMC Tree-Guided Memory)",
    description:
      "The outline under `root` as of `as_of`, read exactly from D1: nodes are chunks with the boundary `outline` linked part-of their parent (the root needs no tag), in pre-order with children ordered by an `order:<n>` boundary, then id. Per node: depth (root 0), references (its cites targets), word count of titles and synopses (the node's and its references'), the split flag φ = words > θ (Eq. 3), its draft and hub; `done` is Eq. 5 (every leaf has φ = 0 or depth ≥ d_max). More than `max_nodes` chunks in the subtree is a 413. `view=planning` is xKG's planning view (seed 003 §2.4, the paper node without its code nodes): for a root paper, its part-of subtree with its techniques (imported or model-made), sections, findings and resources, untagged, and without `code_unit` chunks, an xKG import's code_file and code_overview records, or SGMC drafts and hubs; another view value is a 400 naming `view`.",
    query: S.TreeQuery,
    result: S.TreeResult,
    missing: "No such archive, or no root at as_of",
    also: [413],
  },
  (app) => app.research.tree,
);

archivePost(
  researchRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/hubs/gather",
    tags: ["research"],
    summary: "Gather evidence into a node's hub (one iteration)",
    description:
      "Routes the query over the node's references only (its cites targets at `as_of`, an exact filter before the top-M cut), distills cards within `budget_tokens` and stores their anchors as the next version of the hub chunk `<node>#hub` (JSON Lines; part-of the node, cites every quoted source), valid from `at`. The same evidence again is `unchanged`. Default query: the node's title and synopsis, or its title and current draft (Eq. 6, 8).",
    request: S.GatherBody,
    result: S.GatherResult,
    failures: {
      ...errors(400, 401, 403, 409, 413),
      404: err(404, "No such archive, or no node at as_of"),
    },
  },
  (app) => app.research.gather,
);

archiveGet(
  researchRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/hubs",
    tags: ["research"],
    summary: "A node's hub, iteration by iteration",
    description:
      "Every hub version valid from `as_of` or earlier (iteration t = version - 1) with its query and evidence anchors, each re-checkable with POST /verify.",
    query: S.HubQuery,
    result: S.HubResult,
    missing: "No such archive or hub",
  },
  (app) => app.research.hub,
);

archivePost(
  researchRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/drafts",
    tags: ["research"],
    summary: "Store the next draft of a section",
    description:
      "The next version of `<node>#draft` (kind section, part-of the node), valid from `at`. Every `evidence` anchor must verify (else 400 naming `evidence.<i>`); the version cites their artifacts and keeps the anchors (GET /drafts returns them).",
    request: S.DraftBody,
    result: S.DraftResult,
    failures: {
      ...errors(400, 401, 403, 409, 413),
      404: err(404, "No such archive, or no node at `at`"),
    },
  },
  (app) => app.research.draft,
);

archiveGet(
  researchRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/drafts",
    tags: ["research"],
    summary: "A node's draft as of a time",
    description: "The draft version valid at `as_of`: its text, the sources it cites and the anchors it rests on.",
    query: S.DraftQuery,
    result: S.DraftView,
    missing: "No such archive or draft",
  },
  (app) => app.research.readDraft,
);

archiveGet(
  researchRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/convergence",
    tags: ["research"],
    summary: "ROUGE-1 between consecutive drafts and Eq. 10's stop",
    description:
      "ROUGE-1 precision, recall and F1 (as rouge-score computes them) of each version of `draft` against the one before, over the versions valid from `as_of` or earlier, and the stop iteration t* of Eq. 10: the first t ≥ 1 with ψ(M^(t), M^(t-1)) > ε, else t_max once that many iterations exist (t = version index from 0). ε defaults to 0.9 (PaperGuru's choice; the seed gives none), t_max to 4.",
    query: S.ConvergenceQuery,
    result: S.ConvergenceResult,
    missing: "No such archive or chunk",
    also: [413, 503],
  },
  (app) => app.research.convergence,
);

archivePost(
  researchRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/assemble",
    tags: ["research"],
    summary: "Assemble the finished sections within a budget",
    description:
      "The outline's nodes in tree order, each with a finished draft (Eq. 10's stop reached at `as_of`, unless require_converged is false) rendered as a Markdown heading (level = depth + 1) and the draft version valid at `as_of`, while the total stays within `budget_tokens` (cl100k_base); a section that does not fit is skipped and later ones still tried. `left_out` names every node not rendered and why (no_draft, not_converged, budget).",
    request: S.AssembleBody,
    result: S.AssembleResult,
    failures: {
      ...errors(400, 401, 403, 413, 503),
      404: err(404, "No such archive, or no root at as_of"),
    },
  },
  (app) => app.research.assemble,
);

endpoint(
  researchRoutes,
  "read",
  {
    method: "post",
    path: "/v1/archives/{archive}/feedback/select",
    tags: ["research"],
    summary: "Select feedback by Eq. 12 (SGMC Self-Loop Memory)",
    description:
      'Among the feedback records (chunks with the boundary `feedback`, and `scope` if given) valid at `as_of`, those with the fewest revisions (annotation `revisions`), and of those the most used (annotation `uses`); ties go to the oldest by first valid time (`tie: newest` for the newest), then id. Count a use or a revision with POST /chunks/{id}/annotations `{key: "uses" | "revisions", add: 1, event_id}`. A record a model proposed (POST /feedback/propose) counts only once a user verified or edited it by `as_of` (POST /review); until then it is in `pending_proposals`. With `event_id` (write key), the selection is counted as a use of the selected record (usage(r) of Eq. 12), once per id: a repeat gets the first answer with the header `Idempotent-Replayed: true`; nothing to select is then a 409.',
    request: { params: S.ArchiveParam, ...body(S.FeedbackSelectBody) },
    responses: { 200: json(S.FeedbackSelectResult), ...errors(400, 401, 403, 404, 409, 413, 503) },
  },
  async (c) => {
    const { archive } = c.req.valid("param");
    const b = c.req.valid("json");
    // Recording a use writes: an event_id needs the write scope the route itself does not.
    if (b.event_id !== undefined) await allow(c, archive, "write");
    const res = await c.var.app.research.selectOnce(archive, b, c.req.header("authorization"));
    if (!res.ok) return failure(c, res.error);
    if (res.value.replayed) c.header(REPLAYED_HEADER, "true");
    return c.json(res.value.value, 200);
  },
);

archivePost(
  researchRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/feedback/propose",
    tags: ["research"],
    summary: "Feedback records a model proposes from its critique of a draft (SGMC Self-Loop Memory)",
    description:
      "Needs a configured language model (DISTILLER or EXTRACTOR and LLM_*, docs/models.md); without one, a 409 naming the setting. The drafting prompts stay the agent's: the model reads the draft `<node>#draft` at `as_of` (or `version`), the sources its evidence anchors quote and the critique `request`, and proposes feedback items (a checklist title, what is wrong and how to fix it, a category), each quoting the draft's words it is about: the quotes are located in that version and kept as exact anchors; an item without one is dropped, and an answer that is not the schema, or whose every item was dropped, is asked once more with the reason. Kept items are ingested as `note` chunks with the boundaries `feedback`, `feedback:<category>` and `scope`, an `introduced-by` edge to the draft, source `model:<provider>:<model>` and a `proposal` annotation with the anchors. They are proposals: /feedback/select leaves them out until a user verifies or edits them (POST /review). Ids come from the draft version and a content hash: a retry writes nothing new. A model failure is a 503 and writes nothing. The result says what the model calls spent.",
    request: S.FeedbackProposeBody,
    result: S.FeedbackProposeResult,
    failures: {
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive, or no draft of the node at as_of (or of that version)"),
      ...modelErrors(),
    },
  },
  (app) => app.research.proposeFeedback,
);

archivePost(
  researchRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/references/select",
    tags: ["research"],
    summary: "A_S: a node's references by citations, incomplete entries removed, the top Q_k unique (SGMC §3.3)",
    description:
      "The candidates are the node's cites targets at `as_of` (or `ids`). An entry without a title, an abstract (content that is more than a bibliography line) or a year (`require` narrows these) is removed before the top Q_k and listed in `incomplete` with the fields it lacks; an entry with the normalised title of a better-ranked one is a duplicate. Ranked by citations (the `citations` annotation, else the archive's cites edges to it at as_of), then year, then id. Nothing is written.",
    request: S.ReferencesSelectBody,
    result: S.ReferencesSelectResult,
    failures: {
      ...errors(400, 401, 403),
      404: err(404, "No such archive, or no node at as_of"),
    },
  },
  (app) => app.research.selectReferences,
);

archivePost(
  researchRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/outline/propose",
    tags: ["research"],
    summary: "A_O: sub-outlines of a node from its references' titles and abstracts (SGMC Eq. 2)",
    description:
      "method `model` asks the configured language model (409 naming the setting without one): each direction cites the references it came from, and ids outside the node's references are dropped (a direction left with none too). method `names` groups the references by the names they share (grounded entities other than people and venues, then title terms), without a model; `auto` (default) takes the model when configured. Unless `dry_run`, each direction is written as an outline node `<node>/<slug>` (boundaries outline and order:<n>, part-of the node, cites its references), valid from `at`; the same proposal again is `unchanged`.",
    request: S.OutlineProposeBody,
    result: S.OutlineProposeResult,
    failures: {
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive, or no node at as_of"),
      ...modelErrors(),
    },
  },
  (app) => app.research.proposeOutline,
);

archivePost(
  researchRoutes,
  "write",
  {
    path: "/v1/archives/{archive}/feedback/loop",
    tags: ["research"],
    summary: "The Self-Loop Memory on a draft: review with r*, refine, until no feedback or x_max (SGMC Eqs. 11-14)",
    description:
      "Needs a configured language model (409 naming the setting without one). Y^(0) is the node's current draft. For x = 0 … x_max − 1: the model reviews Y^(x) referring to r* (Eq. 12 within `scope`; `checklist: none` for none), and the review is kept as the next version of `<node>#review` (boundary sgmc:review); a review without feedback stops the loop (`no_feedback`); else the model rewrites the draft following it (Eq. 14), stored as the next draft version with the anchors of the version it revised (they must still verify). A model failure is a 503; iterations before it stay stored.",
    request: S.FeedbackLoopBody,
    result: S.FeedbackLoopResult,
    failures: {
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive, or no draft of the node"),
      ...modelErrors(),
    },
  },
  (app) => app.research.feedbackLoop,
);

endpoint(
  researchRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/scaffold",
    tags: ["research"],
    summary: "Review scaffold: the outline with each node's references, draft and evidence anchors (SGMC §5)",
    description:
      "The outline under `root` as of `as_of` in tree order; per node its references, the draft version valid then, its hub version and the evidence: the anchors the draft version rests on (`from: draft`), then the hub's other anchors (`from: hub`), each an exact (artifact, version, span) POST /verify re-checks. `format=markdown`: the same as a Markdown document.",
    request: { params: S.ArchiveParam, query: S.ScaffoldQuery },
    responses: {
      200: {
        description: "The scaffold as JSON, or as Markdown with format=markdown",
        content: {
          "application/json": { schema: S.ScaffoldResult },
          "text/markdown": { schema: z.string(), example: "# Review scaffold: review:eeg\n\n## Features\n…" },
        },
      },
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive, or no root at as_of"),
    },
  },
  async (c) => {
    const q = c.req.valid("query");
    const res = await c.var.app.research.scaffold(c.req.valid("param").archive, q);
    if (!res.ok) return failure(c, res.error);
    if (q.format === "markdown")
      return c.body(c.var.app.research.scaffoldMarkdown(res.value), 200, {
        "content-type": "text/markdown; charset=utf-8",
      });
    return c.json(res.value, 200);
  },
);
