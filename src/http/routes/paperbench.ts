/** PaperBench (seed 000 §4, seed 003): rubric trees scored from leaf grades or the leaf judge. */
import * as S from "../../contract";
import { errorResponse as err, errors } from "../docs";
import { archivePost, resourceApp } from "../route";

export const paperbenchRoutes = resourceApp();

archivePost(
  paperbenchRoutes,
  "read",
  {
    path: "/v1/archives/{archive}/paperbench/score",
    tags: ["paperbench"],
    summary: "A PaperBench rubric tree scored: the weighted replication score and every node's",
    description:
      "The rubric is a PaperBench `*.rubric.json` as it is (at most 5,000 nodes, 64 levels). Leaves are graded in [0, 1] by `grades` (leaf id → grade) and, with `judge`, the leaves `grades` leaves out by the configured language model (without one, a 409 naming the setting): one call per leaf with the leaf's requirement, its ancestors' and the evidence given, answered `{score, reason}` with the score in [0, 1] and a short reason, else asked once more; at most `max_leaves` leaves per request. A parent's score is the weighted mean of its children's (PaperBench's rule; weights are relative to siblings), the root's is the replication score. A leaf without a grade scores 0 and is listed in `missing` (`missing: error` makes that a 400). Refused with a 400 naming the path: a negative weight, a parent whose sub_tasks' weights sum to 0, a duplicated id (unless `duplicate_ids: shared` and the nodes are identical leaves), a grade for an unknown id or a parent. Reads and stores nothing of the archive.",
    request: S.PaperbenchScoreBody,
    result: S.PaperbenchScoreResult,
    failures: {
      ...errors(400, 401, 403, 413, 503),
      404: err(404, "No such archive"),
      409: err(409, "`judge` without a configured language model (the message names the setting)"),
    },
  },
  (app) => app.paperbench.score,
);
