import type { ObjectStore } from "../../core/ports";

/** Objects in R2 (chunk content packs, webhook bodies). R2 allows 1 write/s per key. */
export class R2BlobStore implements ObjectStore {
  constructor(private readonly bucket: R2Bucket) {}

  async put(key: string, text: string): Promise<void> {
    // Content-addressed keys never change bytes, so an existing object means the write already landed.
    if (await this.bucket.head(key)) return;
    await this.bucket.put(key, text, { httpMetadata: { contentType: "text/plain; charset=utf-8" } });
  }

  async get(key: string): Promise<string | null> {
    const obj = await this.bucket.get(key);
    return obj ? obj.text() : null;
  }

  async getRange(key: string, offset: number, length: number): Promise<string | null> {
    let obj: R2ObjectBody | null;
    try {
      obj = await this.bucket.get(key, { range: { offset, length } });
    } catch (e) {
      // R2 refuses a range past the end (a pack emptied by forgetting): that reads as missing.
      const head = await this.bucket.head(key);
      if (!head || offset + length > head.size) return null;
      throw e;
    }
    // One read, not a head and a get; a range cut short by the object's end is missing too.
    if (!obj || obj.size < offset + length) return null;
    return obj.text();
  }

  async getTagged(key: string): Promise<{ text: string; tag: string } | null> {
    const obj = await this.bucket.get(key);
    return obj ? { text: await obj.text(), tag: obj.etag } : null;
  }

  async replaceIf(key: string, text: string, tag: string): Promise<boolean> {
    const res = await this.bucket.put(key, text, {
      onlyIf: { etagMatches: tag },
      httpMetadata: { contentType: "text/plain; charset=utf-8" },
    });
    return res !== null;
  }

  async has(key: string): Promise<boolean> {
    return (await this.bucket.head(key)) !== null;
  }

  async delete(keys: string[]): Promise<void> {
    // R2 deletes at most 1,000 keys per call.
    for (let i = 0; i < keys.length; i += 1000) await this.bucket.delete(keys.slice(i, i + 1000));
  }

  async deletePrefix(prefix: string): Promise<number> {
    let removed = 0;
    let cursor: string | undefined;
    for (;;) {
      const page = await this.bucket.list({ prefix, limit: 1000, ...(cursor ? { cursor } : {}) });
      const keys = page.objects.map((o) => o.key);
      if (keys.length) await this.bucket.delete(keys);
      removed += keys.length;
      if (!page.truncated) return removed;
      cursor = page.cursor;
    }
  }
}
