/**
 * Bytes of the MCP tools/list listing per tool (what every agent's context pays), without a server:
 * `npx tsx scripts/mcp-listing.ts`. The whole JSON-RPC response adds ~40 bytes of envelope;
 * test/worker/mcp.test.ts fails above 12,288 bytes.
 */
import { toolListing } from "../src/mcp/server";

const tools = toolListing();
const rows = tools.map((t) => ({ name: t.name, bytes: JSON.stringify(t).length }));
for (const r of rows.sort((a, b) => b.bytes - a.bytes)) console.log(`${String(r.bytes).padStart(6)}  ${r.name}`);
console.log(`${String(JSON.stringify({ tools }).length).padStart(6)}  total (tools array)`);
