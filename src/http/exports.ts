/** Export routes (issue 5): registered by registerExports. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Bindings } from "./common";

export function registerExports(_app: OpenAPIHono<{ Variables: Bindings }>): void {}
