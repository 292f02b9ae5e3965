/**
 * ProjectGuard's use cases: the pre-turn brief (./brief.ts, with its rules) and the whole-state
 * render for a fresh session (./render.ts), and the commitments a model proposes from a session's
 * turns (./commitments.ts).
 */
import type { browseUseCases } from "../browse";
import type { AppDeps } from "../deps";
import { briefUseCases } from "./brief";
import { commitmentUseCases } from "./commitments";
import { renderUseCases } from "./render";

export { BRIEF_MIN_SCORE } from "./brief";

export function projectUseCases(d: AppDeps, browse: ReturnType<typeof browseUseCases>) {
  return { ...renderUseCases(d, browse), ...briefUseCases(d), ...commitmentUseCases(d) };
}
