import { createServer } from "node:net";

function tryPort(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
}

const BLOCKS = 24;
const BLOCK_SIZE = 500;
const FIRST_PORT = 20_000;
// One port per block, below the blocks: holding it open is how a process owns its
// block, and the kernel lets go of it when the process ends, however it ends.
const BLOCK_LOCK_PORT = FIRST_PORT - BLOCKS;
/** Where freePort draws from, for the test that proves two processes never share a block. */
export const PORT_BLOCKS = { first: FIRST_PORT, size: BLOCK_SIZE, count: BLOCKS, lockPort: BLOCK_LOCK_PORT } as const;
const handedOut = new Set<number>();
let ownBlock: Promise<number | undefined> | undefined;

function holdPort(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(false));
    server.listen(port, host, () => resolve(true));
  });
}

async function claimBlock(host: string): Promise<number | undefined> {
  const first = process.pid % BLOCKS;
  for (let i = 0; i < BLOCKS; i++) {
    const block = (first + i) % BLOCKS;
    if (await holdPort(BLOCK_LOCK_PORT + block, host)) return block;
  }
  return undefined;
}

/**
 * A TCP port free on loopback right now, drawn below the kernel's ephemeral range
 * (32768 and up on Linux): a port the kernel handed out could be taken by any
 * outgoing connection before the process meant to listen on it does. Each process
 * draws from a block of its own, owned by listening on that block's lock port, and
 * never hands a port out twice, so processes running side by side (test workers,
 * the services they spawn) cannot pick the same port between the check and the
 * listen. With every block taken it falls back to the whole range.
 */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  ownBlock ??= claimBlock(host);
  const block = await ownBlock;
  for (let attempt = 0; attempt < 400; attempt++) {
    const port =
      block !== undefined && attempt < 300
        ? FIRST_PORT + block * BLOCK_SIZE + Math.floor(Math.random() * BLOCK_SIZE)
        : FIRST_PORT + Math.floor(Math.random() * BLOCKS * BLOCK_SIZE);
    if (handedOut.has(port)) continue;
    // Marked before the check, so two calls in flight at once cannot both pass it.
    handedOut.add(port);
    if (await tryPort(port, host)) return port;
    handedOut.delete(port);
  }
  throw new Error("no free port found");
}
