// The internal token (INTERNAL_TOKEN): the shared secret that makes a caller of an
// internal service one of ours. The actor headers (common/actor.ts) only say who acts;
// anybody who can reach a service port could state them, so with a token set every
// service refuses, as UNAUTHENTICATED and before any handler runs, a call that does not
// carry it as `authorization: Bearer <token>`. The standard health service is exempt:
// probes (compose healthchecks, Kubernetes' gRPC probe) send no metadata, and it tells
// nothing but SERVING or NOT_SERVING. Never logged.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import type { Logger } from "./logger.js";

/** Where `npm start` keeps the token it made, under DATA_DIR (its owner alone may read it). */
export const INTERNAL_TOKEN_FILE = "internal-token";

/**
 * What a token may look like: the Bearer scheme's token68 characters (base64 or
 * base64url), at least 32 of them, so it travels in a header as it is and cannot be
 * a word someone guesses.
 */
export const INTERNAL_TOKEN_PATTERN = /^[A-Za-z0-9._~+/-]{32,}=*$/;

const AUTHORIZATION = "authorization";
/**
 * Sent with every refusal: the HTTP way of saying which credential was wanted, so a
 * caller tells "the service does not take my internal token" from a refused API key
 * or password, which are UNAUTHENTICATED too.
 */
const CHALLENGE = { name: "www-authenticate", value: 'Bearer realm="internal"' } as const;

/** A new token: 32 random bytes, base64url (43 characters). */
export function makeInternalToken(): string {
  return randomBytes(32).toString("base64url");
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/** The token a request carries, or undefined; the scheme word is case-insensitive. */
function presented(header: string | null): string | undefined {
  const match = header ? /^bearer +(\S+)$/i.exec(header.trim()) : null;
  return match?.[1];
}

/**
 * The server's check, run before the handler on every path a call can take (the lean
 * gRPC path, Connect's handlers, in-process calls). Digests of equal length are
 * compared in constant time, so the answer's timing says nothing about the token.
 * Refusals are logged at most once a minute, with how many there were.
 */
export function requireInternalToken(token: string, logger: Logger, service: string): Interceptor {
  const expected = digest(token);
  let refused = 0;
  let loggedAt = 0;
  const refuse = (why: string) => {
    refused++;
    const now = Date.now();
    if (now - loggedAt >= 60_000) {
      logger.warn({ service, refused, why }, "internal calls refused: they did not carry the internal token (INTERNAL_TOKEN)");
      loggedAt = now;
      refused = 0;
    }
    return new ConnectError(`${why}: this service takes internal calls only with its internal token (INTERNAL_TOKEN)`, Code.Unauthenticated, {
      [CHALLENGE.name]: CHALLENGE.value,
    });
  };
  return (next) => async (request) => {
    if (request.service.typeName === Health.typeName) return next(request);
    const given = presented(request.header.get(AUTHORIZATION));
    if (given === undefined) throw refuse("no internal token");
    if (!timingSafeEqual(digest(given), expected)) throw refuse("wrong internal token");
    return next(request);
  };
}

/** Whether `error` is a service refusing the caller's internal token (not a key or a password). */
export function isInternalTokenRefusal(error: unknown): boolean {
  return error instanceof ConnectError && error.code === Code.Unauthenticated && error.metadata.get(CHALLENGE.name) === CHALLENGE.value;
}

/**
 * The client's side: every call carries `token` when there is one. A service refusing
 * it is the calling process's configuration, not its caller's input: the call fails
 * UNAVAILABLE (a gateway answers 503, never 401 to a client whose key is fine) with a
 * message that names the variable and `caller` (the calling role), which the gateway
 * logs as the reason of its 503 and the CLI prints.
 */
export function internalTokenInterceptor(token: string | undefined, caller: string): Interceptor {
  const value = token === undefined ? undefined : `Bearer ${token}`;
  return (next) => async (request) => {
    if (value !== undefined) request.header.set(AUTHORIZATION, value);
    try {
      return await next(request);
    } catch (error) {
      if (!isInternalTokenRefusal(error)) throw error;
      const service = request.service.typeName;
      throw new ConnectError(
        token === undefined
          ? `${service} asks for the internal token, and INTERNAL_TOKEN is not set for ${caller}`
          : `${service} refused the internal token of ${caller}: its INTERNAL_TOKEN differs from the service's`,
        Code.Unavailable,
      );
    }
  };
}

/**
 * `npm start`'s token: INTERNAL_TOKEN when set (kept as it is, written nowhere), else
 * the one kept in DATA_DIR by an earlier start, else a new one written there with mode
 * 0600, where `store-admin` finds it. Created exclusively, so two starts on one
 * DATA_DIR at once end up with the same token.
 */
export async function keepInternalToken(dataDir: string, set: string | undefined): Promise<string> {
  if (set !== undefined) return set;
  const file = path.resolve(dataDir, INTERNAL_TOKEN_FILE);
  const kept = async () => {
    const text = (await readFile(file, "utf8").catch(() => "")).trim();
    if (!INTERNAL_TOKEN_PATTERN.test(text)) return undefined;
    // A copy restored with wider permissions is narrowed again: it is a credential.
    await chmod(file, 0o600);
    return text;
  };
  const found = await kept();
  if (found) return found;
  await mkdir(dataDir, { recursive: true });
  const made = makeInternalToken();
  try {
    await writeFile(file, made + "\n", { mode: 0o600, flag: "wx" });
    return made;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // Another start wrote it meanwhile, or the file holds no token: that one, or replace it.
  const raced = await kept();
  if (raced) return raced;
  await writeFile(file, made + "\n", { mode: 0o600 });
  await chmod(file, 0o600);
  return made;
}

/** The token `npm start` keeps in `dataDir`, if any (`store-admin` without INTERNAL_TOKEN). */
export function keptInternalToken(dataDir: string): string | undefined {
  const file = path.resolve(dataDir, INTERNAL_TOKEN_FILE);
  try {
    const kept = readFileSync(file, "utf8").trim();
    return INTERNAL_TOKEN_PATTERN.test(kept) ? kept : undefined;
  } catch {
    return undefined;
  }
}
