import { randomBytes } from "node:crypto";
import { reservePrivateNats, type PrivateNats } from "./private-nats.js";

/**
 * Stream, consumer and catalog-change subject names of their own, so tests on the
 * shared NATS never meet. (The subject starts apart from every stream's `<stream>.>`.)
 */
export function uniqueBusNames(prefix = "T") {
  const tag = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString("hex")}`.toUpperCase();
  return { EVENTS_STREAM: tag, EVENTS_CONSUMER: `c-${tag.toLowerCase()}`, CATALOG_EVENTS_SUBJECT: `catalog_${tag.toLowerCase()}` };
}

export const SHARED_NATS_URL = process.env.TEST_NATS_URL ?? "nats://127.0.0.1:4222";

/**
 * A nats-server with JetStream of this test's own, on a free port and a temporary
 * store directory, already answering: for tests that stop and start NATS without
 * disturbing the others. (reservePrivateNats leaves it stopped until asked.)
 */
export async function startPrivateNats(): Promise<PrivateNats> {
  const nats = await reservePrivateNats();
  await nats.start();
  return nats;
}
