/**
 * Code in a prompt (xKG seed 003, Tables 4 and 7): a cap on the UTF-8 bytes of code a result carries
 * (`max_prompt_code_bytes`, 52,100) and the code windows retrieval carries instead of whole code
 * (`code.text_splitter.chunk_size` 350, `chunk_overlap` 100). Shared by /context and /code-pairs.
 */
import { z } from "@hono/zod-openapi";
import { CODE_WINDOW_OVERLAP, CODE_WINDOW_SIZE, CODE_WINDOW_TOP } from "../core/code/windows";

/** The largest code budget a request may ask for (10 MB). */
export const MAX_CODE_BYTES = 10_000_000;
/** Bounds of a code window (characters). */
export const MIN_CODE_WINDOW = 50;
export const MAX_CODE_WINDOW = 20_000;
export const MAX_CODE_WINDOW_TOP = 50;

/** `max_code_bytes`, described for what it caps. */
export function maxCodeBytes(description: string) {
  return z
    .number()
    .int()
    .min(1)
    .max(MAX_CODE_BYTES)
    .optional()
    .openapi({ description: `${description} 1-${MAX_CODE_BYTES.toLocaleString("en-US")}; default no cap.` });
}

const CodeChunksObject = z
  .object({
    size: z
      .number()
      .int()
      .min(MIN_CODE_WINDOW)
      .max(MAX_CODE_WINDOW)
      .default(CODE_WINDOW_SIZE)
      .openapi({
        description: `Window size in characters (${MIN_CODE_WINDOW}-${MAX_CODE_WINDOW.toLocaleString("en-US")}; default ${CODE_WINDOW_SIZE}, xKG's chunk_size).`,
      }),
    overlap: z
      .number()
      .int()
      .min(0)
      .default(CODE_WINDOW_OVERLAP)
      .openapi({
        description: `Characters a window may share with the next (0 to size - 1; default ${CODE_WINDOW_OVERLAP}, xKG's chunk_overlap).`,
      }),
    top: z
      .number()
      .int()
      .min(1)
      .max(MAX_CODE_WINDOW_TOP)
      .default(CODE_WINDOW_TOP)
      .openapi({
        description: `Best windows carried per code unit, before touching ones merge (1-${MAX_CODE_WINDOW_TOP}; default ${CODE_WINDOW_TOP}).`,
      }),
  })
  .strict()
  .refine((o) => o.overlap < o.size, { message: "overlap must be less than size", path: ["overlap"] });

export const CodeChunks = z
  .union([z.boolean(), CodeChunksObject])
  .optional()
  .openapi({
    description: `Code windows: the code carried is the best windows of the unit's text instead of its default span (true or {} for size ${CODE_WINDOW_SIZE}, overlap ${CODE_WINDOW_OVERLAP}): windows of \`size\` characters cut at a line end when one is in their second half, overlapping by at most \`overlap\`, scored against the query with the archive's BM25, the \`top\` best carried as exact spans of the version (merged where they touch, in text order) that POST /verify accepts. false: off.`,
    example: { size: CODE_WINDOW_SIZE, overlap: CODE_WINDOW_OVERLAP },
  });

export type CodeChunksInput = z.infer<typeof CodeChunks>;

/** The windowing a request asks for, with defaults filled in; null when off. */
export function codeChunksOf(c: CodeChunksInput): { size: number; overlap: number; top: number } | null {
  if (c === undefined || c === false) return null;
  if (c === true) return { size: CODE_WINDOW_SIZE, overlap: CODE_WINDOW_OVERLAP, top: CODE_WINDOW_TOP };
  return { size: c.size, overlap: c.overlap, top: c.top };
}

/** An exact span of code carried verbatim (a /verify anchor). */
export const CodeWindow = z
  .object({
    artifact_id: z.string(),
    version: z.number().int(),
    start: z.number().int(),
    end: z.number().int(),
    snippet: z.string().openapi({ description: "The text at [start, end) of that version, verbatim." }),
  })
  .openapi("CodeWindow", {
    description: "One carried window (or touching windows merged): an exact span of the version, as an anchor.",
    example: {
      artifact_id: "repo/src/cache.ts",
      version: 1,
      start: 0,
      end: 46,
      snippet: "export function getHead(id: string): string {\n",
    },
  });

/** What a context card of kind code_unit carries of its code, with max_code_bytes or code_chunks. */
export const CardCode = z
  .object({
    bytes: z.number().int().openapi({ description: "UTF-8 bytes of the card's code: its anchored spans' snippets." }),
    source: z.enum(["card", "windows"]).openapi({
      description: "card: the spans the distiller anchored; windows: the best code windows (code_chunks).",
    }),
    truncated: z
      .boolean()
      .optional()
      .openapi({ description: "true: cut at a line end to fit max_code_bytes (absent: whole)." }),
  })
  .openapi("CardCode", {
    description:
      "A code card's code: carried in anchored_spans only (claim_boundary and logic_sketch, which restate it, are empty).",
    example: { bytes: 812, source: "windows" },
  });
