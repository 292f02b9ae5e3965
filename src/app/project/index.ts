/**
 * ProjectGuard's use cases: the pre-turn brief (./brief.ts, with its rules) and the whole-state
 * render for a fresh session (./render.ts), and the commitments a model proposes from a session's
 * turns (./commitments.ts).
 */
import type { browseUseCases } from "../browse";
import type { AppDeps } from "../deps";
import { briefUseCases } from "./brief";
import { commitmentUseCases } from "./commitments";
import { evaluationUseCases } from "./evaluation";
import { judgeUseCases } from "./judge";
import { renderUseCases } from "./render";
import { specUseCases } from "./spec";
import { turnConsumer } from "./turns";

export { BRIEF_MIN_SCORE } from "./brief";

export function projectUseCases(d: AppDeps, browse: ReturnType<typeof browseUseCases>) {
  const render = renderUseCases(d, browse);
  return {
    ...render,
    ...briefUseCases(d, render.render),
    ...commitmentUseCases(d),
    ...turnConsumer((archive, b, auth) => commitmentUseCases(d).proposeCommitments(archive, b, auth)),
    ...specUseCases(d),
    ...evaluationUseCases(d),
    ...judgeUseCases(d),
  };
}
