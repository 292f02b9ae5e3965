/**
 * MCP prompts that put the memory to work: `brief` (evidence on a topic as of a time, with citation
 * rules) and `changes` (what the archive says about a topic at two times: cards that appeared, moved
 * to another version or disappeared). Both run `context` under the caller's key and return one user
 * message with the evidence inlined.
 */
import type { GetPromptResult, Prompt } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import * as S from "../contract";
import type { McpContext } from "./context";

export const PROMPTS: Prompt[] = [
  {
    name: "brief",
    title: "Brief me on a topic as of a time",
    description: "Evidence cards on the topic from the archive as it was at as_of, with rules for citing them.",
    arguments: [
      { name: "archive", description: "Archive id", required: true },
      { name: "topic", description: "What to brief on", required: true },
      { name: "as_of", description: "ISO 8601 time (default now)" },
      { name: "budget", description: "Token budget for the evidence (default 2000)" },
    ],
  },
  {
    name: "changes",
    title: "What changed about a topic",
    description: "The evidence on a topic at two times: what appeared, changed version or disappeared.",
    arguments: [
      { name: "archive", description: "Archive id", required: true },
      { name: "topic", description: "The topic", required: true },
      { name: "since", description: "ISO 8601 start time", required: true },
      { name: "until", description: "ISO 8601 end time (default now)" },
    ],
  },
];

type Card = z.infer<typeof S.CardSchema>;

function bad(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function arg(args: Record<string, string>, name: string, required: boolean): string | undefined {
  const v = args[name]?.trim();
  if (required && !v) throw bad(`argument ${name} is required`);
  return v || undefined;
}

function time(args: Record<string, string>, name: string, required: boolean): string | undefined {
  const v = arg(args, name, required);
  if (v !== undefined && !S.Time.safeParse(v).success)
    throw bad(`argument ${name} must be an ISO 8601 date or date-time, e.g. 2024-05-23 or 2024-05-23T12:00:00Z`);
  return v;
}

const cite = (c: Card) => `${c.artifact_id} v${c.version}`;

function renderCard(c: Card, i: number): string {
  const lines = [`${i + 1}. ${c.title || c.artifact_id} [${cite(c)}]`];
  if (c.claim_boundary) lines.push(`   Claim: ${c.claim_boundary}`);
  if (c.logic_sketch) lines.push(`   Sketch: ${c.logic_sketch}`);
  if (c.assumptions.length) lines.push(`   Assumptions: ${c.assumptions.join("; ")}`);
  lines.push(`   Anchors: ${c.anchored_spans.map((a) => `${a.start}-${a.end}`).join(", ")}`);
  return lines.join("\n");
}

async function context(ctx: McpContext, archive: string, query: string, asOf: string | undefined, budget: number) {
  const no = await ctx.authorize(archive, "read");
  if (no) throw new McpError(ErrorCode.InvalidParams, `${no.kind}: ${no.message}`, { error: no });
  return ctx.app.query.context(archive, { query, budget_tokens: budget, as_of: asOf });
}

export async function renderPrompt(
  ctx: McpContext,
  name: string,
  args: Record<string, string>,
): Promise<GetPromptResult> {
  if (name === "brief") {
    const archive = arg(args, "archive", true) as string;
    const topic = arg(args, "topic", true) as string;
    const asOf = time(args, "as_of", false);
    const budgetArg = arg(args, "budget", false);
    const budget = budgetArg === undefined ? 2000 : Number(budgetArg);
    if (!Number.isInteger(budget) || budget < 50 || budget > 200_000)
      throw bad("argument budget must be an integer from 50 to 200000");
    const r = await context(ctx, archive, topic, asOf, budget);
    const text = [
      `Brief me on: ${topic} (as of ${r.as_of}).`,
      `Use only the evidence below from PaperGuru archive ${archive}. Cite each statement as [artifact_id vN start-end]; where the evidence is silent, say so instead of guessing. Call verify with an anchor before quoting it verbatim.`,
      "",
      r.cards.length
        ? `Evidence (${r.cards.length} cards, ${r.budget.cards} tokens):\n${r.cards.map(renderCard).join("\n")}`
        : `Evidence: none. ${r.evidence.note ?? "No card fits the budget."}`,
    ].join("\n");
    return {
      description: `Brief on ${topic} as of ${r.as_of}`,
      messages: [{ role: "user", content: { type: "text", text } }],
    };
  }
  if (name === "changes") {
    const archive = arg(args, "archive", true) as string;
    const topic = arg(args, "topic", true) as string;
    const since = time(args, "since", true) as string;
    const until = time(args, "until", false);
    const [before, after] = [
      await context(ctx, archive, topic, since, 2000),
      await context(ctx, archive, topic, until, 2000),
    ];
    const was = new Map(before.cards.map((c) => [c.artifact_id, c]));
    const now = new Map(after.cards.map((c) => [c.artifact_id, c]));
    const added = after.cards.filter((c) => !was.has(c.artifact_id));
    const changed = after.cards.filter((c) => {
      const b = was.get(c.artifact_id);
      return b !== undefined && b.version !== c.version;
    });
    const gone = before.cards.filter((c) => !now.has(c.artifact_id));
    const section = (title: string, cards: Card[]) =>
      `${title} (${cards.length}):${cards.length ? `\n${cards.map(renderCard).join("\n")}` : " none"}`;
    const text = [
      `What changed about: ${topic}, between ${before.as_of} and ${after.as_of}?`,
      `Evidence from PaperGuru archive ${archive}, read as of each time. Summarise the changes and cite [artifact_id vN start-end].`,
      "",
      section("New since then", added),
      section("Now in a different version", changed),
      section("No longer in the evidence (superseded, deprecated or outranked)", gone),
    ].join("\n");
    return {
      description: `Changes on ${topic} from ${before.as_of} to ${after.as_of}`,
      messages: [{ role: "user", content: { type: "text", text } }],
    };
  }
  throw bad(`unknown prompt ${name}; prompts/list has ${PROMPTS.map((p) => p.name).join(", ")}`);
}
