/**
 * Workers AI text generation over the `AI` binding, JSON mode: `ai.run(model, {messages,
 * response_format: {type: "json_schema", json_schema}, max_tokens, temperature})`; the answer is in
 * `response`, a string or already an object. The binding has no HTTP status: every thrown error
 * (capacity, network, timeout) is retried and ends as `unavailable`.
 */
import type { StructuredOutcome, StructuredRequest } from "../../core/ports";
import { type Attempt, BudgetedChat, completionTokens, type RetryOptions } from "./http";
import { isRecord, parseJsonAnswer } from "./json";

/** What this adapter uses of the `AI` binding (env.AI satisfies it; tests pass a stub). */
export interface AiRunner {
  run(model: string, inputs: Record<string, unknown>): Promise<unknown>;
}

export interface WorkersAiChatOptions extends RetryOptions {
  ai: AiRunner;
  /** e.g. @cf/meta/llama-3.3-70b-instruct-fp8-fast. */
  model: string;
}

/** The parsed answer of a Workers AI text-generation result. */
export function readAiResult(result: unknown): Attempt<unknown> {
  const tokens = completionTokens(result);
  const response = isRecord(result) ? result.response : undefined;
  if (typeof response === "string") {
    const parsed = parseJsonAnswer(response);
    if (parsed.ok) return { kind: "ok", value: parsed.value, tokens };
    return {
      kind: "fail",
      error: { code: "malformed", message: `the answer is not JSON: ${response.slice(0, 200) || "(empty)"}` },
      tokens,
    };
  }
  if (typeof response === "object" && response !== null) return { kind: "ok", value: response, tokens };
  return { kind: "fail", error: { code: "malformed", message: "the result has no `response`" }, tokens };
}

export class WorkersAiChat extends BudgetedChat {
  readonly provider = "workers-ai";

  constructor(private readonly opts: WorkersAiChatOptions) {
    super(opts);
  }

  protected answer(req: StructuredRequest): Promise<StructuredOutcome> {
    const inputs = {
      messages: req.messages.map((m) => ({ role: m.role, content: m.content })),
      response_format: { type: "json_schema", json_schema: req.schema },
      max_tokens: req.maxOutputTokens,
      temperature: req.temperature ?? 0,
    };
    // A thrown error becomes a retried `unavailable` in the loop (the binding takes no signal; a
    // run past the timeout is abandoned).
    return this.loop.run(async () => readAiResult(await this.opts.ai.run(this.model, inputs)));
  }
}
