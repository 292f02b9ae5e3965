#!/usr/bin/env node
// Runs the TypeScript CLI through tsx (a dependency of the repository checkout).
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
