import type { Env } from "../../src/wiring";

declare global {
  namespace Cloudflare {
    interface Env extends import("../../src/wiring").Env {}
  }
}
export type { Env };
