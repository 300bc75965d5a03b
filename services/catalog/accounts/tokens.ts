// Invitation and session tokens: 32 random bytes, base64url, handed out once and kept
// only as SHA-256. 256 bits of randomness make a fast, unsalted hash enough; a stolen
// table gives nobody a usable token.
import { createHash, randomBytes } from "node:crypto";

const TOKEN_BYTES = 32;
/** base64url of 32 bytes: 43 characters, no padding. Anything else is refused before any lookup. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export function generateToken(): string {
  return randomBytes(TOKEN_BYTES).toString("base64url");
}

export function isWellFormedToken(token: string): boolean {
  return TOKEN_PATTERN.test(token);
}

export function hashToken(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}
