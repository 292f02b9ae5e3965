/**
 * Query use cases: route, expand, budgeted context, anchor verification and session events
 * (src/app/operations.ts does the work).
 */
import type { z } from "zod";
import type * as S from "../contract";
import type { AppDeps } from "./deps";
import * as Op from "./operations";

type In<T extends z.ZodType> = z.infer<T>;

export function queryUseCases(d: AppDeps) {
  const kernel = d.kernel;
  const reads = { discovery: d.stores.discovery, annotations: d.stores.annotations };
  return {
    route: (archive: string, b: In<typeof S.RouteBody>) => Op.routeOp(kernel, d.stores.chunks, archive, b, reads),
    expand: (archive: string, b: In<typeof S.ExpandBody>) => Op.expandOp(kernel, d.stores.chunks, archive, b),
    context: (archive: string, b: In<typeof S.ContextBody>) => Op.contextOp(kernel, d.stores.chunks, archive, b, reads),
    verify: (archive: string, b: In<typeof S.VerifyBody>) => Op.verifyOp(kernel, archive, b),
    appendSession: (archive: string, session: string, b: In<typeof S.SessionEventsBody>) =>
      Op.appendSessionOp(kernel, archive, session, b),
  };
}
