/**
 * The page's session: the key (sessionStorage only: never a URL, a cookie or localStorage), the
 * chosen archive, and the typed client (src/client.ts) every screen calls the REST API through.
 */
import { PaperGuruClient, PaperGuruError } from "../client";

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
