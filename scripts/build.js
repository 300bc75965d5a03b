#!/usr/bin/env node
// `npm run build`: every role compiled to plain ESM JavaScript, so `node dist/gateway/main.js`
// (and each services/*/main.js, cli/start.js, cli/store-admin.js, cli/probe.js) runs
// without a TypeScript loader. The image runs this output (Dockerfile).
//
//   node scripts/build.js [--out-dir <dir>]     (default: dist beside this folder)
//
// 1. tsc -p tsconfig.build.json: the source tree as it is (gen/, lean-grpc/, common/,
//    platform/, services/, gateway/, cli/), type-checked, JSX through preact's runtime, imports
//    already written with their `.js` names.
// 2. The files the code reads beside itself at run time, copied to the same place in
//    the output: each role's SQL migrations (found through `import.meta.url`, so the
//    same lookup works from the source under tsx and from the output under node).
// Plain JavaScript on purpose: it runs before anything is compiled.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);
const at = args.indexOf("--out-dir");
if (args.length > 0 && (at === -1 || !args[at + 1] || args.length !== 2)) {
  process.stderr.write("usage: node scripts/build.js [--out-dir <dir>]\n");
  process.exit(2);
}
/** The source folders compiled (tsconfig.build.json's "include"), whose run-time files are copied too. */
const SOURCE_DIRS = ["common", "lean-grpc", "platform", "services", "gateway", "cli", "gen"];
/** What the code reads at run time beside its own module, by name. */
const RUNTIME_FILE = /\.sql$/;

const outDir = at === -1 ? path.join(root, "dist") : path.resolve(args[at + 1]);
// The output directory is emptied first, so it must be one this script made: absent,
// empty, or holding the marker a previous build left. Never the source, nor anything
// above it.
const MARKER = ".store-order-build";
/** @type {(dir: string, parent: string) => boolean} */
const within = (dir, parent) => {
  const relative = path.relative(parent, dir);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
};
const kept = [...SOURCE_DIRS, "node_modules"].map((dir) => path.join(root, dir));
const ours = !existsSync(outDir) || readdirSync(outDir).length === 0 || existsSync(path.join(outDir, MARKER));
if (within(root, outDir) || kept.some((dir) => within(dir, outDir) || within(outDir, dir)) || !ours) {
  process.stderr.write(`refusing to build into ${outDir}: it holds the source or files this script did not write\n`);
  process.exit(2);
}

const started = Date.now();
rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, MARKER), "Output of scripts/build.js; removed and rewritten by each build.\n");

const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const compiled = spawnSync(process.execPath, [tsc, "-p", path.join(root, "tsconfig.build.json"), "--outDir", outDir], {
  cwd: root,
  stdio: "inherit",
});
if (compiled.status !== 0) {
  process.stderr.write(`tsc failed (exit ${compiled.status ?? compiled.signal}); nothing usable in ${outDir}\n`);
  process.exit(1);
}

let copied = 0;
/**
 * Copies every run-time file under `dir` (relative to the root) to the same place in the output.
 * @param {string} dir
 */
function copyRuntimeFiles(dir) {
  for (const name of readdirSync(path.join(root, dir))) {
    const relative = path.join(dir, name);
    if (name === "node_modules") continue;
    if (statSync(path.join(root, relative)).isDirectory()) {
      copyRuntimeFiles(relative);
    } else if (RUNTIME_FILE.test(name)) {
      mkdirSync(path.join(outDir, dir), { recursive: true });
      cpSync(path.join(root, relative), path.join(outDir, relative));
      copied++;
    }
  }
}
for (const dir of SOURCE_DIRS) copyRuntimeFiles(dir);

// Each entry a role or the operator runs: a build without one of them is no build.
for (const entry of ["gateway/main.js", "services/catalog/main.js", "services/order/main.js", "services/webhook/main.js", "cli/start.js", "cli/store-admin.js", "cli/probe.js"]) {
  if (!existsSync(path.join(outDir, entry))) {
    process.stderr.write(`build incomplete: ${entry} missing from ${outDir}\n`);
    process.exit(1);
  }
}
const shown = within(outDir, root) ? path.relative(root, outDir) : outDir;
process.stdout.write(`built ${shown} in ${((Date.now() - started) / 1000).toFixed(1)} s (${copied} migration files copied)\n`);
