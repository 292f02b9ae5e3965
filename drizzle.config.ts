import { defineConfig } from "drizzle-kit";

// Offline generation only (`npm run db:generate`); wrangler applies migrations/ to D1.
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/adapters/d1/schema.ts",
  out: "./migrations",
});
