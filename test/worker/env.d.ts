// The test pool's env: the generated bindings (worker-configuration.d.ts) plus what the tests bind.
declare global {
  namespace Cloudflare {
    interface Env {
      TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
    }
  }
}

export {};
