import { env } from "cloudflare:test";
import { DoVectorIndex } from "../../src/adapters/local/do-vectors";
import { R2BlobStore } from "../../src/adapters/r2/blob";
import { objectStoreContract, packedContentContract } from "../contracts/blob.contract";
import { vectorIndexContract } from "../contracts/vector.contract";

objectStoreContract("R2 (local workerd)", () => new R2BlobStore(env.CONTENT));
packedContentContract("R2 (local workerd)", () => new R2BlobStore(env.CONTENT));
vectorIndexContract("LocalVectorIndex Durable Object", () => new DoVectorIndex(env.LOCAL_VECTORS));
