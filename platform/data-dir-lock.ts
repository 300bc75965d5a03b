// One process at a time on a DATA_DIR (its embedded PostgreSQL, mail files, demo key).
// A second `npm start` in the same folder used to take the first one's database for a
// leftover and stop it. The lock is a file created exclusively, holding the owner's pid
// and start time; a lock whose owner is gone (killed with -9) is taken over, and a pid
// reused by some other process does not count as the owner, thanks to the start time.
import { readFileSync } from "node:fs";
import { mkdir, readFile, unlink, writeFile } from "node:fs/promises";
import path from "node:path";

export const LOCK_FILE = "start.lock";

interface LockOwner {
  pid: number;
  /** The process's start in clock ticks since boot (Linux /proc), or null elsewhere. */
  started: string | null;
}

export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`DATA_DIR ${dataDir} is in use by another run (pid ${pid}): stop it first, or give this one another DATA_DIR`);
  }
}

/** Field 22 of /proc/<pid>/stat: when the process started; null where there is no /proc. */
function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces; count from after its closing paren.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

function running(owner: LockOwner): boolean {
  try {
    process.kill(owner.pid, 0);
  } catch (error) {
    // EPERM: it exists but is someone else's.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return owner.started === null || processStart(owner.pid) === owner.started;
}

/**
 * Takes DATA_DIR for this process, or throws DataDirInUse naming the owner. Resolves
 * with the release, which removes the file only while it is still this process's.
 */
export async function lockDataDir(dataDir: string): Promise<() => Promise<void>> {
  const dir = path.resolve(dataDir);
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, started: processStart(process.pid) };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await writeFile(file, JSON.stringify(me), { flag: "wx", mode: 0o600 });
      return async () => {
        const holder = await readFile(file, "utf8").catch(() => "");
        if (holder === JSON.stringify(me)) await unlink(file).catch(() => {});
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    let owner: LockOwner | undefined;
    try {
      owner = JSON.parse(await readFile(file, "utf8")) as LockOwner;
    } catch {
      // Unreadable or half written: a run that died while taking it.
    }
    if (owner && Number.isInteger(owner.pid) && running(owner)) throw new DataDirInUse(dir, owner.pid);
    // Stale: its owner is gone. Remove it and try again; if two runs do this at once,
    // only one creates the file and the other finds it owned.
    await unlink(file).catch(() => {});
  }
  throw new Error(`could not take ${file}`);
}
