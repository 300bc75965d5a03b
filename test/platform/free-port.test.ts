import test from "ava";
import { createServer } from "node:net";
import { freePort, PORT_BLOCKS } from "../../platform/net.js";

const blockOf = (port: number) => Math.floor((port - PORT_BLOCKS.first) / PORT_BLOCKS.size);

// This file runs in a process of its own (workerThreads: false), so nothing here
// has called freePort before this test.
test("a block another process owns is never drawn from: ports come from the next free block", async (t) => {
  const natural = process.pid % PORT_BLOCKS.count;
  // Stand in for another test worker whose pid falls in the same block.
  const other = createServer();
  await new Promise<void>((resolve) => {
    other.once("error", () => resolve()); // already owned by a real process: just as good
    other.listen(PORT_BLOCKS.lockPort + natural, "127.0.0.1", () => resolve());
  });
  t.teardown(() => other.close());

  const ports = await Promise.all(Array.from({ length: 40 }, () => freePort()));
  t.is(new Set(ports).size, ports.length, "no port is handed out twice");
  t.false(ports.some((port) => blockOf(port) === natural), `none from block ${natural}: ${ports.join(", ")}`);
  t.is(new Set(ports.map(blockOf)).size, 1, "all from the one block this process owns");
  for (const port of ports) t.true(port >= PORT_BLOCKS.first && port < PORT_BLOCKS.first + PORT_BLOCKS.count * PORT_BLOCKS.size);
});
