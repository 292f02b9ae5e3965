/**
 * Literature-review memory (SGMC, seed 001 §3) on the kernel; nothing here is stored apart from
 * chunks, versions, edges and annotations.
 *
 * - Outline (Tree-Guided Memory): outline nodes are chunks carrying the boundary `outline`, linked
 *   `part-of` their parent; a node's references are its `cites` edges. The tree under a root is read
 *   exactly from D1 at `as_of` (the part-of subtree, then the edges among its nodes), never from the
 *   bounded neighbour tables. A node with several part-of parents in the tree hangs under the deepest
 *   one. Children are ordered by an `order:<n>` boundary (ascending; nodes without one after those
 *   with one), then by id. Word count (Eq. 3's complexity, "the number of words"): the node's own
 *   text (its content at `as_of`; title and synopsis when the content is empty) plus the titles and
 *   synopses of its references, the seed's abstracts (`words=own|references` count one part;
 *   `references` reads no node content). A word is a run of non-space characters holding a letter or
 *   digit.
 * - Hubs (Hub-Guided Memory): each gather routes over the node's references only (an exact `only`
 *   filter before the top-M cut) and stores the cards' anchors as the next version of `<node>#hub`
 *   (kind note, boundary `sgmc:hub`, part-of the node, cites every source it quotes); its content is
 *   JSON Lines: a header `{"query"}` and one anchor per line, so every iteration stays readable as of
 *   its time and each anchor re-verifies with POST /verify.
 * - Drafts: `<node>#draft` (kind section, boundary `sgmc:draft`, part-of the node) gets one version per
 *   iteration; a version cites the artifacts of the anchors it rests on, which must verify when it is
 *   written, and the anchors are kept as the annotation `sgmc:evidence` of that version.
 * - Feedback (Self-Loop Memory): chunks with the boundary `feedback`, counters as the annotations
 *   `revisions` and `uses` (add events), selected by Eq. 12 (src/core/research/feedback.ts); a
 *   configured model may propose them from a critique of a draft (./critique.ts), pending review;
 *   the self-loop (./self-loop.ts) reviews and refines a draft through the model, each review a
 *   version of `<node>#review`.
 * - A_S (./references.ts): a node's references ranked by citations, incomplete entries removed, the
 *   top Q_k unique. A_O (./outline-propose.ts): sub-outlines from the references' titles and
 *   abstracts, by the model or by shared names, written as outline nodes. The review scaffold
 *   (./scaffold.ts): the outline with each node's references, draft and evidence anchors.
 */
import type { AppDeps } from "../deps";
import { assemblyUseCases } from "./assemble";
import { critiqueUseCases } from "./critique";
import { draftUseCases } from "./drafts";
import { feedbackUseCases } from "./feedback";
import { hubUseCases } from "./hubs";
import { outlineProposeUseCases } from "./outline-propose";
import { referenceUseCases } from "./references";
import { scaffoldUseCases } from "./scaffold";
import { selfLoopUseCases } from "./self-loop";
import { outlineUseCases } from "./tree";

export { DRAFT, draftId, EVIDENCE_KEY, FEEDBACK, HUB, hubId, OUTLINE } from "./common";
export { readTree, type TreeNodeOut, wordCount } from "./outline";

export function researchUseCases(d: AppDeps) {
  return {
    ...outlineUseCases(d),
    ...hubUseCases(d),
    ...draftUseCases(d),
    ...assemblyUseCases(d),
    ...feedbackUseCases(d),
    ...critiqueUseCases(d),
    ...selfLoopUseCases(d),
    ...referenceUseCases(d),
    ...outlineProposeUseCases(d),
    ...scaffoldUseCases(d),
  };
}
