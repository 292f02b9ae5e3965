/**
 * Review use cases: human verification of nodes and edges (statuses as append-only annotation events,
 * edits and edge changes as new versions through the kernel's ingest, so an edge removed at t is
 * closed at t and every read as of an earlier time still sees it), and retrieval metrics against gold
 * ids, run through the router and stored so runs compare over time.
 */
import type { AppDeps } from "../deps";
import { reviewApplyUseCases } from "./apply";
import { retrievalUseCases } from "./retrieval";
import { reviewerUseCases } from "./reviewers";
import { reviewScoreUseCases } from "./scores";
import { reviewStateUseCases } from "./state";

export { nodeStatuses } from "./common";

export function reviewUseCases(d: AppDeps) {
  return {
    ...reviewApplyUseCases(d),
    ...reviewStateUseCases(d),
    ...retrievalUseCases(d),
    ...reviewScoreUseCases(d),
    ...reviewerUseCases(d),
  };
}
