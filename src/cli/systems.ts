/**
 * The seed systems' command groups, each a thin caller of its REST routes through the typed client,
 * one file each: `project` (ProjectGuard, projectguard.ts), `xkg` (xkg.ts), `research` (SGMC, sgmc.ts),
 * `papers` (Paper Circle, paper-circle.ts), discovery (discover.ts) and `paperbench` (paperbench.ts);
 * plus `annotate`, `annotations`, `access` and `diff` on any chunk (chunks.ts). Every command prints
 * readable text, or the server's JSON with --json.
 */
import { CHUNK_COMMANDS } from "./chunks";
import type { Command } from "./command";
import { DISCOVERY_COMMANDS } from "./discover";
import { PAPER_CIRCLE_COMMANDS } from "./paper-circle";
import { PAPERBENCH_COMMANDS } from "./paperbench";
import { PROJECTGUARD_COMMANDS } from "./projectguard";
import { SGMC_COMMANDS } from "./sgmc";
import { XKG_COMMANDS } from "./xkg";

/** In help order: the chunk commands, then each system's group. */
export const SYSTEM_COMMANDS: Command[] = [
  ...CHUNK_COMMANDS,
  ...PROJECTGUARD_COMMANDS,
  ...XKG_COMMANDS,
  ...SGMC_COMMANDS,
  ...PAPER_CIRCLE_COMMANDS,
  ...DISCOVERY_COMMANDS,
  ...PAPERBENCH_COMMANDS,
];
