/** Literature-review memory (SGMC): outline tree, evidence hubs, section drafts, convergence, assembly, feedback. */
import * as S from "../../contract";
import { body, failure, json } from "../common";
import { errorResponse as err, errors, modelErrors } from "../docs";
import { endpoint, resourceApp } from "../route";

export const researchRoutes = resourceApp();

endpoint(
  researchRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/tree",
    tags: ["research"],
    summary: "Outline tree (SGMC Tree-Guided Memory)",
    description:
      "The outline under `root` as of `as_of`, read exactly from D1: nodes are chunks with the boundary `outline` linked part-of their parent (the root needs no tag), in pre-order with children ordered by an `order:<n>` boundary, then id. Per node: depth (root 0), references (its cites targets), word count of titles and synopses (the node's and its references'), the split flag φ = words > θ (Eq. 3), its draft and hub; `done` is Eq. 5 (every leaf has φ = 0 or depth ≥ d_max). More than `max_nodes` chunks in the subtree is a 413.",
    request: { params: S.ArchiveParam, query: S.TreeQuery },
    responses: {
      200: json(S.TreeResult),
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive, or no root at as_of"),
    },
  },
  async (c) => {
    const res = await c.var.app.research.tree(c.req.valid("param").archive, c.req.valid("query"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);

endpoint(
  researchRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/hubs/gather",
    tags: ["research"],
    summary: "Gather evidence into a node's hub (one iteration)",
    description:
      "Routes the query over the node's references only (its cites targets at `as_of`, an exact filter before the top-M cut), distills cards within `budget_tokens` and stores their anchors as the next version of the hub chunk `<node>#hub` (JSON Lines; part-of the node, cites every quoted source), valid from `at`. The same evidence again is `unchanged`. Default query: the node's title and synopsis, or its title and current draft (Eq. 6, 8).",
    request: { params: S.ArchiveParam, ...body(S.GatherBody) },
    responses: {
      200: json(S.GatherResult),
      ...errors(400, 401, 403, 409, 413),
      404: err(404, "No such archive, or no node at as_of"),
    },
  },
  async (c) => {
    const res = await c.var.app.research.gather(c.req.valid("param").archive, c.req.valid("json"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);

endpoint(
  researchRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/hubs",
    tags: ["research"],
    summary: "A node's hub, iteration by iteration",
    description:
      "Every hub version valid from `as_of` or earlier (iteration t = version - 1) with its query and evidence anchors, each re-checkable with POST /verify.",
    request: { params: S.ArchiveParam, query: S.HubQuery },
    responses: { 200: json(S.HubResult), ...errors(400, 401, 403), 404: err(404, "No such archive or hub") },
  },
  async (c) => {
    const res = await c.var.app.research.hub(c.req.valid("param").archive, c.req.valid("query"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);

endpoint(
  researchRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/drafts",
    tags: ["research"],
    summary: "Store the next draft of a section",
    description:
      "The next version of `<node>#draft` (kind section, part-of the node), valid from `at`. Every `evidence` anchor must verify (else 400 naming `evidence.<i>`); the version cites their artifacts and keeps the anchors (GET /drafts returns them).",
    request: { params: S.ArchiveParam, ...body(S.DraftBody) },
    responses: {
      200: json(S.DraftResult),
      ...errors(400, 401, 403, 409, 413),
      404: err(404, "No such archive, or no node at `at`"),
    },
  },
  async (c) => {
    const res = await c.var.app.research.draft(c.req.valid("param").archive, c.req.valid("json"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);

endpoint(
  researchRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/drafts",
    tags: ["research"],
    summary: "A node's draft as of a time",
    description: "The draft version valid at `as_of`: its text, the sources it cites and the anchors it rests on.",
    request: { params: S.ArchiveParam, query: S.DraftQuery },
    responses: { 200: json(S.DraftView), ...errors(400, 401, 403), 404: err(404, "No such archive or draft") },
  },
  async (c) => {
    const res = await c.var.app.research.readDraft(c.req.valid("param").archive, c.req.valid("query"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);

endpoint(
  researchRoutes,
  "read",
  {
    method: "get",
    path: "/v1/archives/{archive}/convergence",
    tags: ["research"],
    summary: "ROUGE-1 between consecutive drafts and Eq. 10's stop",
    description:
      "ROUGE-1 precision, recall and F1 (as rouge-score computes them) of each version of `draft` against the one before, over the versions valid from `as_of` or earlier, and the stop iteration t* of Eq. 10: the first t ≥ 1 with ψ(M^(t), M^(t-1)) > ε, else t_max once that many iterations exist (t = version index from 0). ε defaults to 0.9 (PaperGuru's choice; the seed gives none), t_max to 4.",
    request: { params: S.ArchiveParam, query: S.ConvergenceQuery },
    responses: {
      200: json(S.ConvergenceResult),
      ...errors(400, 401, 403, 413, 503),
      404: err(404, "No such archive or chunk"),
    },
  },
  async (c) => {
    const res = await c.var.app.research.convergence(c.req.valid("param").archive, c.req.valid("query"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);

endpoint(
  researchRoutes,
  "read",
  {
    method: "post",
    path: "/v1/archives/{archive}/assemble",
    tags: ["research"],
    summary: "Assemble the finished sections within a budget",
    description:
      "The outline's nodes in tree order, each with a finished draft (Eq. 10's stop reached at `as_of`, unless require_converged is false) rendered as a Markdown heading (level = depth + 1) and the draft version valid at `as_of`, while the total stays within `budget_tokens` (cl100k_base); a section that does not fit is skipped and later ones still tried. `left_out` names every node not rendered and why (no_draft, not_converged, budget).",
    request: { params: S.ArchiveParam, ...body(S.AssembleBody) },
    responses: {
      200: json(S.AssembleResult),
      ...errors(400, 401, 403, 413, 503),
      404: err(404, "No such archive, or no root at as_of"),
    },
  },
  async (c) => {
    const res = await c.var.app.research.assemble(c.req.valid("param").archive, c.req.valid("json"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
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
      'Among the feedback records (chunks with the boundary `feedback`, and `scope` if given) valid at `as_of`, those with the fewest revisions (annotation `revisions`), and of those the most used (annotation `uses`); ties go to the oldest by first valid time (`tie: newest` for the newest), then id. Count a use or a revision with POST /chunks/{id}/annotations `{key: "uses" | "revisions", add: 1, event_id}`. A record a model proposed (POST /feedback/propose) counts only once a user verified or edited it by `as_of` (POST /review); until then it is in `pending_proposals`.',
    request: { params: S.ArchiveParam, ...body(S.FeedbackSelectBody) },
    responses: { 200: json(S.FeedbackSelectResult), ...errors(400, 401, 403, 404, 413) },
  },
  async (c) => {
    const res = await c.var.app.research.selectFeedback(c.req.valid("param").archive, c.req.valid("json"));
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);

endpoint(
  researchRoutes,
  "write",
  {
    method: "post",
    path: "/v1/archives/{archive}/feedback/propose",
    tags: ["research"],
    summary: "Feedback records a model proposes from its critique of a draft (SGMC Self-Loop Memory)",
    description:
      "Needs a configured language model (DISTILLER or EXTRACTOR and LLM_*, docs/models.md); without one, a 409 naming the setting. The drafting prompts stay the agent's: the model reads the draft `<node>#draft` at `as_of` (or `version`), the sources its evidence anchors quote and the critique `request`, and proposes feedback items (a checklist title, what is wrong and how to fix it, a category), each quoting the draft's words it is about: the quotes are located in that version and kept as exact anchors; an item without one is dropped, and an answer that is not the schema, or whose every item was dropped, is asked once more with the reason. Kept items are ingested as `note` chunks with the boundaries `feedback`, `feedback:<category>` and `scope`, an `introduced-by` edge to the draft, source `model:<provider>:<model>` and a `proposal` annotation with the anchors. They are proposals: /feedback/select leaves them out until a user verifies or edits them (POST /review). Ids come from the draft version and a content hash: a retry writes nothing new. A model failure is a 503 and writes nothing. The result says what the model calls spent.",
    request: { params: S.ArchiveParam, ...body(S.FeedbackProposeBody) },
    responses: {
      200: json(S.FeedbackProposeResult),
      ...errors(400, 401, 403, 413),
      404: err(404, "No such archive, or no draft of the node at as_of (or of that version)"),
      ...modelErrors(),
    },
  },
  async (c) => {
    const res = await c.var.app.research.proposeFeedback(
      c.req.valid("param").archive,
      c.req.valid("json"),
      c.req.header("authorization"),
    );
    return res.ok ? c.json(res.value, 200) : failure(c, res.error);
  },
);
