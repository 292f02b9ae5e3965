export function migrationsHash(root: string): string;
export function applyLocalMigrations(opts: {
  root: string;
  state: string | null;
  env: NodeJS.ProcessEnv;
  quiet: boolean;
}): number;
