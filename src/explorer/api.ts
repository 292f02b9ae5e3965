/**
 * The page's session: the key (sessionStorage only: never a URL, a cookie or localStorage), the
 * chosen archive, and the typed client (src/client.ts) every screen calls the REST API through.
 */
import { PaperGuruClient, PaperGuruError, type RouteBody, type RouteResponse } from "../client";

const KEY = "paperguru.explorer.key";
const ARCHIVE = "paperguru.explorer.archive";

export interface ArchiveAccess {
  id: string;
  name: string;
  scopes: Array<"read" | "write" | "admin">;
}

export interface Session {
  client: PaperGuruClient;
  archive: ArchiveAccess;
  /** The key may write (replay, redeliver): write controls render only then. */
  canWrite: boolean;
  /** The admin key: the only one that may list an archive's webhooks. */
  isAdmin: boolean;
}

export const storedKey = (): string | null => sessionStorage.getItem(KEY);
export const storedArchive = (): string | null => sessionStorage.getItem(ARCHIVE);
export function remember(key: string, archive: string | null): void {
  sessionStorage.setItem(KEY, key);
  if (archive) sessionStorage.setItem(ARCHIVE, archive);
  else sessionStorage.removeItem(ARCHIVE);
}
export function forget(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(ARCHIVE);
}

export const clientFor = (key: string) => new PaperGuruClient(location.origin, key);

/** A failure as one line for the page (the server's message and hint). */
export function describeError(e: unknown): string {
  if (e instanceof PaperGuruError) {
    const hint = e.hint ? ` (${e.hint})` : "";
    return `${e.status ? `${e.status} ` : ""}${e.serverMessage}${hint}`;
  }
  return e instanceof Error ? e.message : String(e);
}

/** ISO time shortened for display: 2025-01-10 09:30 (UTC). */
export function shortTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)}`;
}

/**
 * `POST …/route` with its trace asked for explicitly (`include_trace: true`): the route panel reads
 * the trace (mentions, seeds, diffusion mass, router steps), whatever the server's default.
 */
export function routeWithTrace(client: PaperGuruClient, archive: string, body: RouteBody): Promise<RouteResponse> {
  const withTrace: RouteBody & { include_trace: boolean } = { ...body, include_trace: true };
  return client.route(archive, withTrace);
}

type Trace = NonNullable<RouteResponse["trace"]>;
const NO_TRACE: Trace = {
  mentions: [],
  seeds: [],
  diffusion: { touched: 0, steps: 0, mass: [] },
  router_steps: [],
  filtered_by_time: 0,
  candidate_pool: 0,
  timings_ms: {},
};

/** A route's trace, or an empty one if a server answered without it (the panel then shows none). */
export function traceOf(route: { trace?: Trace }): Trace {
  return route.trace ?? NO_TRACE;
}
