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

/** The URL of database `name` on the test server. */
export function databaseUrl(name: string): string {
  const url = new URL(testPostgresUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/** `work` on a session of its own to the test server's admin database, ended after. */
export async function withAdmin<T>(work: (admin: postgres.Sql) => Promise<T>): Promise<T> {
  const admin = postgres(databaseUrl("postgres"), { max: 1, onnotice: () => {} });
  try {
    return await work(admin);
  } finally {
    await admin.end();
  }
}

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** A database of its own for one test file (a copy of `template` when given), on the test server. */
export async function createTestDatabase(prefix = "t", template?: string): Promise<TestDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString("hex")}`.toLowerCase();
  await withAdmin((admin) => admin.unsafe(`create database "${name}"${template ? ` template "${template}"` : ""}`));
  return {
    url: databaseUrl(name),
    name,
    async drop() {
      await withAdmin((admin) => admin.unsafe(`drop database if exists "${name}" with (force)`));
    },
  };
}
