/**
 * Anthropic Messages API: POST {baseUrl}/messages. Structured output through one tool whose
 * input_schema is the request's schema and a tool_choice that forces it; the answer is the
 * tool_use block's input. The system prompt goes in the top-level `system` field. 529 (overloaded)
 * is retried like any 5xx.
 */
import type { StructuredOutcome, StructuredRequest } from "../../core/ports";
import { type Attempt, BudgetedChat, count, endpoint, type HttpModelOptions, usageOf } from "./http";
import { isRecord, parseJsonAnswer } from "./json";

export const ANTHROPIC_BASE_URL = "https://api.anthropic.com/v1";
export const ANTHROPIC_VERSION = "2023-06-01";

export interface AnthropicChatOptions extends Omit<HttpModelOptions, "baseUrl" | "apiKey"> {
  /** Default https://api.anthropic.com/v1. */
  baseUrl?: string | undefined;
  /** Sent as `x-api-key`. */
  apiKey?: string | undefined;
}

/** The Messages API body for a structured request. */
export function anthropicBody(model: string, req: StructuredRequest): Record<string, unknown> {
  const system = req.messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  const body: Record<string, unknown> = {
    model,
    max_tokens: req.maxOutputTokens,
    temperature: req.temperature ?? 0,
    messages: req.messages.filter((m) => m.role !== "system").map((m) => ({ role: m.role, content: m.content })),
    tools: [{ name: req.name, description: req.description, input_schema: req.schema }],
    tool_choice: { type: "tool", name: req.name },
  };
  if (system !== "") body.system = system;
  return body;
}

/** The tool_use input of a Messages answer. */
export function readMessage(body: unknown, req: StructuredRequest): Attempt<unknown> {
  const usage = usageOf(body);
  const tokens = { inputTokens: count(usage.input_tokens), outputTokens: count(usage.output_tokens) };
  const blocks = isRecord(body) && Array.isArray(body.content) ? body.content.filter(isRecord) : [];
  const stop = isRecord(body) ? body.stop_reason : undefined;
  if (stop === "max_tokens")
    return {
      kind: "fail",
      error: {
        code: "malformed",
        message: `the answer was cut at the token cap (max_tokens ${req.maxOutputTokens}) before its tool_use was complete`,
      },
      tokens,
    };
  const tool =
    blocks.find((b) => b.type === "tool_use" && b.name === req.name) ?? blocks.find((b) => b.type === "tool_use");
  if (tool && "input" in tool) return { kind: "ok", value: tool.input, tokens };
  // No tool call: a JSON object in the text is still the answer (the adapter's repair).
  const text = blocks
    .filter((b) => b.type === "text" && typeof b.text === "string")
    .map((b) => b.text as string)
    .join("\n");
  const parsed = parseJsonAnswer(text);
  if (parsed.ok) return { kind: "ok", value: parsed.value, tokens };
  return {
    kind: "fail",
    error: {
      code: "malformed",
      message: `the answer has no tool_use block (stop_reason ${String(stop)}): ${text.slice(0, 200) || "(no text)"}`,
    },
    tokens,
  };
}

export class AnthropicChat extends BudgetedChat {
  readonly provider = "anthropic";

  constructor(private readonly opts: AnthropicChatOptions) {
    super(opts);
  }

  protected answer(req: StructuredRequest): Promise<StructuredOutcome> {
    const key = this.opts.apiKey;
    const headers: Record<string, string> = { "anthropic-version": ANTHROPIC_VERSION };
    if (key) headers["x-api-key"] = key;
    const post = {
      url: endpoint(this.opts.baseUrl ?? ANTHROPIC_BASE_URL, "messages"),
      headers,
      body: anthropicBody(this.model, req),
      secret: key,
    };
    return this.loop.post(this.opts.fetch, post, (b) => readMessage(b, req));
  }
}
