import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

/**
 * Webhook secrets at rest: AES-256-GCM under a key derived from WEBHOOK_SECRET_KEY
 * when it is set, else stored as they are (marked so, so turning the key on later
 * still reads old rows).
 */
export function createSecretBox(masterKey: string | undefined) {
  const key = masterKey ? createHash("sha256").update(masterKey, "utf8").digest() : undefined;
  return {
    seal(secret: string): string {
      if (!key) return `plain:${secret}`;
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
      return `aesgcm:${iv.toString("base64")}:${cipher.getAuthTag().toString("base64")}:${sealed.toString("base64")}`;
    },
    open(stored: string): string {
      if (stored.startsWith("plain:")) return stored.slice(6);
      const [scheme, iv, tag, data] = stored.split(":");
      if (scheme !== "aesgcm" || !iv || !tag || !data) throw new Error("unreadable webhook secret");
      if (!key) throw new Error("webhook secrets are encrypted but WEBHOOK_SECRET_KEY is not set");
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64"));
      decipher.setAuthTag(Buffer.from(tag, "base64"));
      return Buffer.concat([decipher.update(Buffer.from(data, "base64")), decipher.final()]).toString("utf8");
    },
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
