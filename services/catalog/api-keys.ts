import { createHash, randomBytes } from "node:crypto";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const KEY_PREFIX = "sk_live_";
const RANDOM_LENGTH = 40;
/** What a well-formed key looks like; anything else is refused before any lookup. */
export const API_KEY_PATTERN = /^sk_live_[0-9A-Za-z]{32,128}$/;

/** `sk_live_` and 40 base62 characters (~238 bits), drawn without modulo bias. */
export function generateApiKey(): string {
  let out = "";
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(64)) {
      // 248 = 62 * 4: bytes above it would favour the first characters.
      if (byte < 248 && out.length < RANDOM_LENGTH) out += ALPHABET[byte % 62];
    }
  }
  return KEY_PREFIX + out;
}

export function hashApiKey(key: string): Buffer {
  return createHash("sha256").update(key, "utf8").digest();
}

/** The part of a key shown in listings. */
export function keyPrefix(key: string): string {
  return key.slice(0, KEY_PREFIX.length + 4);
}
