import { toolListing } from "../src/mcp/server";
const l = toolListing();
for (const t of l) console.log(t.name, JSON.stringify(t).length);
const ctx = l.find((t) => t.name === "context")!;
for (const [k, v] of Object.entries(ctx.inputSchema.properties as object)) console.log("  ", k, JSON.stringify(v).length);
console.log("total", JSON.stringify(l).length);
console.log(JSON.stringify((ctx.inputSchema.properties as any).filter));
console.log(JSON.stringify((ctx.inputSchema.properties as any).follow));
console.log(JSON.stringify((ctx.inputSchema.properties as any).ranking));
