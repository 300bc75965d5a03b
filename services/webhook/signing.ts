import { createHmac, randomBytes } from "node:crypto";

// Standard Webhooks (https://www.standardwebhooks.com/): secrets are `whsec_` + base64
// of random bytes; the signature is base64 HMAC-SHA256 over "{id}.{timestamp}.{body}".

export function generateSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith("whsec_") ? secret.slice(6) : secret, "base64");
}

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const mac = createHmac("sha256", secretBytes(secret)).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64");
  return `v1,${mac}`;
}

/** Every live secret signs: several signatures, space-separated, during a rotation. */
export function signatureHeader(secrets: string[], id: string, timestamp: number, body: string): string {
  return secrets.map((secret) => sign(secret, id, timestamp, body)).join(" ");
}
