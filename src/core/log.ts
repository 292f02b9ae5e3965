/**
 * What an unexpected error may write to the log: its name and the first 300 characters of its
 * message, with the request's method and path but never its query or body (a 4 MB id once reached
 * the log through a storage error that echoed its bound parameters).
 */
export function errorLine(where: string, err: unknown): string {
  const e = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return `${where}: ${e.length > 300 ? `${e.slice(0, 300)}… (${e.length} characters)` : e}`;
}
