/**
 * Request-level limits shared by every interface (REST, MCP). Per-artifact and per-batch limits are
 * INGEST_LIMITS in src/core/ingest.ts.
 */

/**
 * One request body at most: 32 MiB. A batch of 200 artifacts at the 2 MiB content cap would be
 * larger, so the request itself is capped too (Workers accept up to 100 MB).
 */
export const MAX_REQUEST_BYTES = 32 * 1024 * 1024;
