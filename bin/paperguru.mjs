#!/usr/bin/env node
// Inside the repository checkout: the TypeScript sources through tsx (a dev dependency).
// Installed from the package tarball (no src/): the bundle `npm pack` built (scripts/build-package.mjs).
import { existsSync } from "node:fs";

const source = new URL("../src/cli/main.ts", import.meta.url);
let main;
if (existsSync(source)) {
  const { register } = await import("tsx/esm/api");
  register();
  ({ main } = await import(source.href));
} else {
  ({ main } = await import("../dist/pkg/cli.mjs"));
}
process.exitCode = await main(process.argv.slice(2));
