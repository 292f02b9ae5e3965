import type { BlobStore } from "../../core/ports";

/** In-process BlobStore for Node tests and benchmarks. */
export class MemoryBlobStore implements BlobStore {
  private readonly objects = new Map<string, string>();

  async put(key: string, text: string): Promise<void> {
    if (!this.objects.has(key)) this.objects.set(key, text);
  }

  async get(key: string): Promise<string | null> {
    return this.objects.get(key) ?? null;
  }

  async has(key: string): Promise<boolean> {
    return this.objects.has(key);
  }

  async delete(keys: string[]): Promise<void> {
    for (const k of keys) this.objects.delete(k);
  }

  async deletePrefix(prefix: string): Promise<number> {
    let removed = 0;
    for (const k of [...this.objects.keys()])
      if (k.startsWith(prefix)) {
        this.objects.delete(k);
        removed++;
      }
    return removed;
  }
}
