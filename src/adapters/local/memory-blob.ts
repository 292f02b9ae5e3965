import type { ObjectStore } from "../../core/ports";

/** In-process ObjectStore for Node tests and benchmarks; a tag is the object's write count. */
export class MemoryBlobStore implements ObjectStore {
  private readonly objects = new Map<string, string>();
  private readonly tags = new Map<string, number>();
  private writes = 0;

  async put(key: string, text: string): Promise<void> {
    if (!this.objects.has(key)) this.#write(key, text);
  }

  async getRange(key: string, offset: number, length: number): Promise<string | null> {
    const text = this.objects.get(key);
    if (text === undefined) return null;
    const bytes = new TextEncoder().encode(text);
    if (offset + length > bytes.length) return null;
    return new TextDecoder().decode(bytes.subarray(offset, offset + length));
  }

  async getTagged(key: string): Promise<{ text: string; tag: string } | null> {
    const text = this.objects.get(key);
    return text === undefined ? null : { text, tag: String(this.tags.get(key)) };
  }

  async replaceIf(key: string, text: string, tag: string): Promise<boolean> {
    if (String(this.tags.get(key)) !== tag) return false;
    this.#write(key, text);
    return true;
  }

  #write(key: string, text: string): void {
    this.objects.set(key, text);
    this.tags.set(key, ++this.writes);
  }

  async get(key: string): Promise<string | null> {
    return this.objects.get(key) ?? null;
  }

  async has(key: string): Promise<boolean> {
    return this.objects.has(key);
  }

  async delete(keys: string[]): Promise<void> {
    for (const k of keys) {
      this.objects.delete(k);
      this.tags.delete(k);
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    let removed = 0;
    for (const k of [...this.objects.keys()])
      if (k.startsWith(prefix)) {
        this.objects.delete(k);
        this.tags.delete(k);
        removed++;
      }
    return removed;
  }
}
