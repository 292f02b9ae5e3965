import type { BlobStore } from "../../core/ports";

/** Chunk contents in R2: one immutable object per content hash (R2 allows 1 write/s per key). */
export class R2BlobStore implements BlobStore {
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

  async has(key: string): Promise<boolean> {
    return (await this.bucket.head(key)) !== null;
  }
}
