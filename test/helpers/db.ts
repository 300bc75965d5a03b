import { randomBytes } from "node:crypto";
import postgres from "postgres";

/**
 * The PostgreSQL server tests make their databases on: TEST_POSTGRES_URL (which
 * `npm run test:fast` sets to an embedded server when none answers on 5432), else the
 * machine's own on 127.0.0.1:5432.
 */
export function testPostgresUrl(): string {
  return process.env.TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
}

const ADMIN_URL = testPostgresUrl();

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A database of its own for one test file, on the machine's real PostgreSQL. */
export async function createTestDatabase(prefix = "t"): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`.toLowerCase();
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`drop database if exists "${name}" with (force)`);
      } finally {
        await admin.end();
      }
    },
  };
}
