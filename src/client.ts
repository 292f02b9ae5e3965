/**
 * A small typed client for the REST API. Request types come from the same zod schemas the server
 * validates with, so a schema change breaks callers at compile time. Used by the demo and benchmarks.
 */
import type { z } from "@hono/zod-openapi";
import type * as S from "./http/schemas";

export class PaperGuruError extends Error {
  constructor(
    readonly status: number,
    readonly body: { error?: { type?: string; message?: string; field?: string; hint?: string } },
  ) {
    super(
      `${status} ${body.error?.type ?? "error"}: ${body.error?.message ?? JSON.stringify(body)}${body.error?.field ? ` (field ${body.error.field})` : ""}`,
    );
  }
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies are JSON documented in /openapi.json
type Json = any;

export class PaperGuruClient {
  constructor(
    readonly baseUrl: string,
    private key: string,
  ) {}

  withKey(key: string): PaperGuruClient {
    return new PaperGuruClient(this.baseUrl, key);
  }

  async request(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<Json> {
    const init = {
      method,
      headers: { authorization: `Bearer ${this.key}`, "content-type": contentType },
      body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
    };
    const target = `${this.baseUrl.replace(/\/$/, "")}${path}`;
    let res: Response;
    try {
      res = await fetch(target, init);
    } catch {
      // A pooled keep-alive socket the server already closed fails before the request is sent;
      // one retry is safe because every write in this API is idempotent.
      res = await fetch(target, init);
    }
    const text = await res.text();
    const parsed = text ? JSON.parse(text) : {};
    if (!res.ok) throw new PaperGuruError(res.status, parsed);
    return parsed;
  }

  createArchive(body: z.input<typeof S.CreateArchive>) {
    return this.request("POST", "/v1/archives", body);
  }
  archive(id: string) {
    return this.request("GET", `/v1/archives/${id}`);
  }
  ingest(archive: string, body: z.input<typeof S.IngestBody>) {
    return this.request("POST", `/v1/archives/${archive}/ingest`, body);
  }
  deprecate(archive: string, body: z.input<typeof S.DeprecateBody>) {
    return this.request("POST", `/v1/archives/${archive}/deprecate`, body);
  }
  alias(archive: string, body: z.input<typeof S.AliasBody>) {
    return this.request("POST", `/v1/archives/${archive}/entities/alias`, body);
  }
  rename(archive: string, body: z.input<typeof S.RenameBody>) {
    return this.request("POST", `/v1/archives/${archive}/entities/rename`, body);
  }
  merge(archive: string, body: z.input<typeof S.MergeBody>) {
    return this.request("POST", `/v1/archives/${archive}/entities/merge`, body);
  }
  route(archive: string, body: z.input<typeof S.RouteBody>) {
    return this.request("POST", `/v1/archives/${archive}/route`, body);
  }
  expand(archive: string, body: z.input<typeof S.ExpandBody>) {
    return this.request("POST", `/v1/archives/${archive}/expand`, body);
  }
  context(archive: string, body: z.input<typeof S.ContextBody>) {
    return this.request("POST", `/v1/archives/${archive}/context`, body);
  }
  verify(archive: string, body: z.input<typeof S.VerifyBody>) {
    return this.request("POST", `/v1/archives/${archive}/verify`, body);
  }
  history(archive: string, q: { chunk?: string; entity?: string }) {
    const qs = q.chunk ? `chunk=${encodeURIComponent(q.chunk)}` : `entity=${encodeURIComponent(q.entity ?? "")}`;
    return this.request("GET", `/v1/archives/${archive}/history?${qs}`);
  }
  appendSession(archive: string, session: string, body: z.input<typeof S.SessionEventsBody>) {
    return this.request("POST", `/v1/archives/${archive}/sessions/${session}/events`, body);
  }
  snapshot(archive: string) {
    return this.request("POST", `/v1/archives/${archive}/admin/snapshot`);
  }
  evict(archive: string) {
    return this.request("POST", `/v1/archives/${archive}/admin/evict`);
  }

  /** Import a file's text (format: bibtex | markdown | fulltext | xkg | json); returns counts and merges. */
  importText(archive: string, format: string, text: string, name: string) {
    const qs = new URLSearchParams({ format, name });
    return this.request("POST", `/v1/archives/${archive}/import?${qs}`, text, "text/plain; charset=utf-8");
  }
  sources(archive: string) {
    return this.request("GET", `/v1/archives/${archive}/sources`);
  }
  addSource(archive: string, body: unknown) {
    return this.request("POST", `/v1/archives/${archive}/sources`, body);
  }
  ingestLog(archive: string) {
    return this.request("GET", `/v1/archives/${archive}/ingest-log`);
  }
}
