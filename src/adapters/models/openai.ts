/**
 * Chat completions on any OpenAI-compatible server (OpenAI, vLLM, Ollama, llama.cpp, TGI, ...):
 * POST {baseUrl}/chat/completions with a strict `json_schema` response format. A server that
 * refuses `response_format` gets the request once more without it, the schema then asked for in the
 * system message, and this instance never sends it again.
 */
import type { ChatMessage, ModelFailure, StructuredOutcome, StructuredRequest } from "../../core/ports";
import { type Attempt, addUsage, BudgetedChat, bearerPost, completionTokens, type HttpModelOptions } from "./http";
import { isRecord, parseJsonAnswer } from "./json";

export type OpenAiChatOptions = HttpModelOptions;

/** A rejection that means "this server does not take response_format / json_schema". */
export function refusesResponseFormat(error: ModelFailure): boolean {
  if (error.code !== "rejected" || (error.status !== 400 && error.status !== 422)) return false;
  const m = error.message;
  if (/response_format|json_schema|response format|json schema/i.test(m)) return true;
  // "Unsupported parameter: 'max_tokens'" (OpenAI's reasoning models) is about another field.
  if (/\b(max_tokens|temperature|messages|model)\b/.test(m)) return false;
  return (
    /\b(unknown|unrecognized|unrecognised|unexpected|extra|unsupported|not permitted|not allowed)\b/i.test(m) &&
    /\b(field|fields|parameter|parameters|param|argument|arguments|key|keys|property|properties|inputs)\b/i.test(m)
  );
}

/** The messages with the schema asked for in the system message (first one, created when missing). */
export function jsonInstruction(req: StructuredRequest): ChatMessage[] {
  const ask =
    `Answer with one JSON object and nothing else: no prose, no code fence. ` +
    `It is ${req.name}: ${req.description} It must match this JSON Schema:\n${JSON.stringify(req.schema)}`;
  const [first, ...rest] = req.messages;
  if (first?.role === "system") return [{ role: "system", content: `${first.content}\n\n${ask}` }, ...rest];
  return [{ role: "system", content: ask }, ...req.messages];
}

function contentText(content: unknown): string | null {
  if (typeof content === "string") return content;
  // Some servers answer content parts: [{type: "text", text}].
  if (Array.isArray(content))
    return content.map((p) => (isRecord(p) && typeof p.text === "string" ? p.text : "")).join("");
  return null;
}

/** The parsed answer of a chat completion body. */
export function readCompletion(body: unknown, maxOutputTokens: number): Attempt<unknown> {
  const tokens = completionTokens(body);
  const choice = isRecord(body) && Array.isArray(body.choices) ? body.choices[0] : undefined;
  const message = isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
  if (!message)
    return { kind: "fail", error: { code: "malformed", message: "the answer has no choices[0].message" }, tokens };
  if (typeof message.refusal === "string" && message.refusal !== "")
    return { kind: "fail", error: { code: "rejected", message: `the model refused: ${message.refusal}` }, tokens };
  const text = contentText(message.content) ?? "";
  const parsed = parseJsonAnswer(text);
  if (parsed.ok) return { kind: "ok", value: parsed.value, tokens };
  const cut = isRecord(choice) && choice.finish_reason === "length";
  const message_ = cut
    ? `the answer was cut at the token cap (max_tokens ${maxOutputTokens}) before its JSON was complete`
    : `the answer is not JSON: ${text.slice(0, 200) || "(empty)"}`;
  return { kind: "fail", error: { code: "malformed", message: message_ }, tokens };
}

export class OpenAiChat extends BudgetedChat {
  readonly provider = "openai";
  /** False once the server refused response_format: later requests ask in the system message. */
  private jsonSchema = true;

  constructor(private readonly opts: OpenAiChatOptions) {
    super(opts);
  }

  /** Whether this instance still sends `response_format` (false after a server refused it). */
  get usesResponseFormat(): boolean {
    return this.jsonSchema;
  }

  protected async answer(req: StructuredRequest): Promise<StructuredOutcome> {
    if (!this.jsonSchema) return this.send(req, false);
    const first = await this.send(req, true);
    if (first.ok || !refusesResponseFormat(first.error)) return first;
    this.jsonSchema = false;
    const second = await this.send(req, false);
    return { ...second, usage: addUsage(first.usage, second.usage) };
  }

  private send(req: StructuredRequest, withSchema: boolean): Promise<StructuredOutcome> {
    const body: Record<string, unknown> = {
      model: this.model,
      messages: withSchema ? req.messages : jsonInstruction(req),
      temperature: req.temperature ?? 0,
      max_tokens: req.maxOutputTokens,
    };
    if (withSchema)
      body.response_format = {
        type: "json_schema",
        json_schema: { name: req.name, description: req.description, schema: req.schema, strict: true },
      };
    const post = bearerPost(this.opts, "chat/completions", body);
    return this.loop.post(this.opts.fetch, post, (b) => readCompletion(b, req.maxOutputTokens));
  }
}
