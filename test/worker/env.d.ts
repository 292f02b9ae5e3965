import type { Env as AppEnv } from "../../src/wiring";

declare global {
  namespace Cloudflare {
    interface Env extends AppEnv {}
  }
}
