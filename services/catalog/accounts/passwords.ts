// Dashboard passwords (docs/dashboard.md#sign-in): scrypt with a random salt per password. The
// parameters travel in the stored string (`scrypt$N$r$p$salt$hash`), so they can be
// raised later without making existing passwords unverifiable: an older hash still
// verifies, needsRehash says so, and a sign-in replaces it (member-sessions.ts). scrypt
// runs on libuv's thread pool, never on the event loop.
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { fieldError } from "../validation.js";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "./account-policy.js";

/**
 * OWASP's minimum for scrypt (N = 2^17, r = 8, p = 1): 128 MiB and roughly 0.3 s of one
 * core per hash. libuv's 4 threads may run 4 at once, so a burst of sign-ins holds up to
 * half a GiB while it lasts.
 */
export const SCRYPT_PARAMS = { N: 2 ** 17, r: 8, p: 1 } as const;
/**
 * The memory one hash may use, passed to every scrypt call (Node's default, 32 MiB, is
 * below what SCRYPT_PARAMS need): twice their 128 MiB, so no stored hash can make a
 * verification allocate more.
 */
export const SCRYPT_MAXMEM = 256 * 1024 * 1024;
const SALT_BYTES = 16;
const KEY_BYTES = 32;

// What a stored hash may ask for. The strings are ours, but a damaged row must not be
// able to make one verification allocate gigabytes.
const LIMITS = { N: [2 ** 10, 2 ** 20], r: [1, 32], p: [1, 16], key: [16, 128], salt: [8, 64] } as const;

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** What scrypt allocates for these parameters (OpenSSL's count, which Node checks against maxmem). */
function scryptMemory({ N, r, p }: ScryptParams): number {
  return 128 * r * (N + 2 + p);
}

/** Counted in code points, as a person counts characters; emoji are one each. */
function length(password: string): number {
  let count = 0;
  for (const _ of password) count++;
  return count;
}

/** The password as given; INVALID_ARGUMENT naming `password` when it is not 12 to 1024 characters. */
export function requirePassword(password: string): string {
  const n = length(password);
  if (n < PASSWORD_MIN_LENGTH || n > PASSWORD_MAX_LENGTH) {
    throw fieldError("password", `must be ${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters`);
  }
  return password;
}

/** True when the password could have been accepted: anything else cannot match a stored hash. */
export function isPlausiblePassword(password: string): boolean {
  const n = length(password);
  return n >= PASSWORD_MIN_LENGTH && n <= PASSWORD_MAX_LENGTH;
}

function derive(password: string, salt: Buffer, keyLength: number, { N, r, p }: ScryptParams): Promise<Buffer> {
  // NFC: the same password typed on another keyboard or OS must give the same bytes.
  const bytes = Buffer.from(password.normalize("NFC"), "utf8");
  return new Promise((resolve, reject) => {
    scrypt(bytes, salt, keyLength, { N, r, p, maxmem: SCRYPT_MAXMEM }, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/** The string to store for `password`, with a fresh salt. */
export async function hashPassword(password: string, params: ScryptParams = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, params);
  return ["scrypt", params.N, params.r, params.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

function within(value: number, [min, max]: readonly [number, number]): boolean {
  return Number.isSafeInteger(value) && value >= min && value <= max;
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return undefined;
  const [N, r, p] = parts.slice(1, 4).map((part) => (/^[0-9]{1,8}$/.test(part) ? Number(part) : NaN)) as [number, number, number];
  const salt = Buffer.from(parts[4]!, "base64url");
  const key = Buffer.from(parts[5]!, "base64url");
  const powerOfTwo = (N & (N - 1)) === 0;
  if (!within(N, LIMITS.N) || !powerOfTwo || !within(r, LIMITS.r) || !within(p, LIMITS.p)) return undefined;
  if (scryptMemory({ N, r, p }) > SCRYPT_MAXMEM) return undefined;
  if (!within(salt.length, LIMITS.salt) || !within(key.length, LIMITS.key)) return undefined;
  return { params: { N, r, p }, salt, key };
}

/**
 * True when `password` matches the stored string. A string that does not parse is a
 * mismatch (after the same work as a real check), never an exception.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) {
    await spendVerification(password);
    return false;
  }
  const key = await derive(password, parsed.salt, parsed.key.length, parsed.params);
  return timingSafeEqual(key, parsed.key);
}

/**
 * True when the stored hash was made with other parameters than `target` (an older,
 * weaker N): once it has verified a password, that password should be hashed again and
 * stored. False for a string that does not parse, which verifies nothing.
 */
export function needsRehash(stored: string, target: ScryptParams = SCRYPT_PARAMS): boolean {
  const parsed = parse(stored);
  if (!parsed) return false;
  const { N, r, p } = parsed.params;
  return N !== target.N || r !== target.r || p !== target.p || parsed.key.length !== KEY_BYTES;
}

// The hash of 32 random bytes nobody kept, with the current parameters (SCRYPT_PARAMS):
// made once offline, so even the first unknown-email sign-in of a process costs exactly
// one hash, as long as a real one.
export const DUMMY_HASH = "scrypt$131072$8$1$wHvjDQ4qrLYawptEY1doPw$HpAlLLLcnfQ3rel9ktzvBWoMrHtzc9Uf4fdoLtZxuic";

/**
 * The work of one verification against nothing: an unknown email, or a member without
 * a password, takes as long to refuse as a wrong password hashed with `params`.
 */
export async function spendVerification(password: string, params: ScryptParams = SCRYPT_PARAMS): Promise<void> {
  const stored = parse(DUMMY_HASH)!;
  await derive(password, stored.salt, stored.key.length, params);
}
