/** What every MCP handler (tools, resources, prompts) gets for one request. */
import type { Need, UseCases } from "../app";
import type { Failure } from "../core/errors";

export interface McpContext {
  app: UseCases;
  /** The REST authorisation of the request's bearer key for an archive and scope. */
  authorize(archive: string, need: Need): Promise<Failure | null>;
  /** The request's Authorization header (audit rows name the key that deleted something). */
  authorization?: string | undefined;
  /** The archives the request's key may read (resources/list). */
  readable(): Promise<string[]>;
}
