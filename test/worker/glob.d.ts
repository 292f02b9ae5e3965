/** Vite's import.meta.glob: files matching a pattern, bundled into the test (here: docs/*.md as text). */
interface ImportMeta {
  glob<T = unknown>(
    pattern: string | string[],
    options: { query?: string; import?: string; eager: true },
  ): Record<string, T>;
}
