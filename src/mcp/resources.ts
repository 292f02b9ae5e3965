/**
 * MCP resources: each archive the key may read (`paperguru://<archive>`, its metadata and counts as
 * JSON) and each of its chunks (`paperguru://<archive>/chunks/<id>`, the verbatim text of the version
 * valid now; `…/v/<n>` for an exact version). resources/list pages through them, 100 per page.
 */
import type { ListResourcesResult, ReadResourceResult, ResourceTemplate } from "@modelcontextprotocol/sdk/types.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { decodeCursor, encodeCursor } from "../app/lib/wire";
import type { Failure } from "../core/errors";
import type { McpContext } from "./context";

const SCHEME = "paperguru://";
const PAGE = 100;

export const RESOURCE_TEMPLATES: ResourceTemplate[] = [
  {
    uriTemplate: "paperguru://{archive}/chunks/{chunk}",
    name: "chunk",
    title: "A chunk's current text",
    description: "Verbatim content of the version valid now (chunk id percent-encoded).",
    mimeType: "text/plain",
  },
  {
    uriTemplate: "paperguru://{archive}/chunks/{chunk}/v/{version}",
    name: "chunk-version",
    title: "One version's text",
    description: "Verbatim content of that version, also after it was superseded or deprecated.",
    mimeType: "text/plain",
  },
];

export const chunkUri = (archive: string, chunk: string, version?: number) =>
  `${SCHEME}${archive}/chunks/${encodeURIComponent(chunk)}${version === undefined ? "" : `/v/${version}`}`;

interface ListCursor {
  /** Index into the key's readable archives. */
  i: number;
  /** The chunk listing's cursor within that archive; null: the archive resource comes first. */
  c: string | null;
}

function invalid(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, message);
}

function parseCursor(cursor: string | undefined): ListCursor {
  if (cursor === undefined) return { i: 0, c: null };
  const raw = decodeCursor(cursor);
  if (raw.ok && raw.value) {
    try {
      const v = JSON.parse(raw.value) as Partial<ListCursor>;
      if (Number.isInteger(v.i) && (v.c === null || typeof v.c === "string")) return { i: v.i as number, c: v.c };
    } catch {
      // falls through
    }
  }
  throw invalid("cursor is not one this server issued; pass nextCursor unchanged");
}

export async function listResources(ctx: McpContext, cursor: string | undefined): Promise<ListResourcesResult> {
  const archives = await ctx.readable();
  let { i, c } = parseCursor(cursor);
  const resources: ListResourcesResult["resources"] = [];
  while (i < archives.length && resources.length < PAGE) {
    const archive = archives[i] as string;
    if (c === null) {
      const info = await ctx.app.archives.info(archive);
      resources.push({
        uri: `${SCHEME}${archive}`,
        name: archive,
        title: info.archive?.name ?? archive,
        description: `Archive ${archive}: metadata and counts (JSON).`,
        mimeType: "application/json",
      });
    }
    const page = await ctx.app.browse.listChunks(archive, {
      limit: PAGE - resources.length,
      ...(c ? { cursor: c } : {}),
    });
    if (!page.ok) throw invalid(page.error.message);
    for (const ch of page.value.chunks)
      resources.push({
        uri: chunkUri(archive, ch.id),
        name: ch.id,
        title: ch.title,
        description: `${ch.kind} v${ch.version}, ${ch.content_chars} characters`,
        mimeType: "text/plain",
      });
    if (page.value.next_cursor) c = page.value.next_cursor;
    else {
      i++;
      c = null;
    }
    if (resources.length >= PAGE) break;
  }
  const more = i < archives.length;
  return { resources, ...(more ? { nextCursor: encodeCursor(JSON.stringify({ i, c })) } : {}) };
}

function denied(f: Failure): McpError {
  return new McpError(ErrorCode.InvalidParams, `${f.kind}: ${f.message}`, { error: f });
}

export async function readResource(ctx: McpContext, uri: string): Promise<ReadResourceResult> {
  if (!uri.startsWith(SCHEME)) throw invalid(`unknown resource ${uri.slice(0, 200)}; see resources/list`);
  const m = /^([a-z0-9][a-z0-9-]{1,62})(?:\/chunks\/([^/]+)(?:\/v\/(\d{1,7}))?)?$/.exec(uri.slice(SCHEME.length));
  if (!m) throw invalid(`malformed resource URI ${uri.slice(0, 200)}; see resources/templates/list`);
  const archive = m[1] as string;
  const no = await ctx.authorize(archive, "read");
  if (no) throw denied(no);
  if (m[2] === undefined) {
    const info = await ctx.app.archives.info(archive);
    const a = info.archive;
    const body = {
      archive,
      name: a?.name ?? archive,
      description: a?.description ?? "",
      created_at: a?.created_at ?? null,
      counts: info.stats.storage,
    };
    return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(body) }] };
  }
  let chunk: string;
  try {
    chunk = decodeURIComponent(m[2]);
  } catch {
    throw invalid("the chunk id in the URI is not valid percent-encoding");
  }
  const res = await ctx.app.browse.content(archive, chunk, m[3] === undefined ? {} : { version: Number(m[3]) });
  if (!res.ok) throw denied(res.error);
  const v = res.value;
  const text = v.truncated
    ? `${v.text}\n[cut at ${v.end} of ${v.content_chars} characters; use the read tool with start=${v.end}]`
    : v.text;
  return { contents: [{ uri: chunkUri(archive, chunk, v.version), mimeType: "text/plain", text }] };
}
