// The layout the README's "Where things live" describes, read from the imports: the
// gateway and the CLI stand on platform/ and common/, never on a service's code; a
// service never reaches into another service or the gateway, and uses another
// service's generated code only where it is that service's client. And no module
// imports itself back through others, type-only imports included: a circle makes the
// files on it one unit that can be neither read nor moved apart, and with values in it
// the order modules load in decides what each sees.
import test from "ava";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

function sourcesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** Each relative import of `file`, as a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  return [...text.matchAll(/(?:from|import)\s*\(?\s*["'](\.{1,2}\/[^"']+)["']/g)].map((match) =>
    path.relative(ROOT, path.resolve(ROOT, path.dirname(file), match[1]!)),
  );
}

const offending = (files: string[], forbidden: (target: string, file: string) => boolean) =>
  files.flatMap((file) => importsOf(file).filter((target) => forbidden(target, file)).map((target) => `${file} → ${target}`));

test("no gateway file imports from services/: the gateway stands on platform/, common/ and gen/", (t) => {
  const gateway = sourcesUnder("gateway");
  t.true(gateway.length > 40, "the gateway's files were found");
  t.deepEqual(offending(gateway, (target) => target.startsWith("services/")), []);
});

test("platform/ and common/ import no role: not a service, the gateway or the CLI", (t) => {
  const shared = [...sourcesUnder("platform"), ...sourcesUnder("common")];
  t.true(shared.length > 30);
  t.deepEqual(offending(shared, (target) => /^(services|gateway|cli)\//.test(target)), []);
});

const serviceOf = (file: string) => file.split("/")[1]!;

test("a service imports no other service's code and not the gateway", (t) => {
  const services = sourcesUnder("services");
  t.deepEqual(
    offending(services, (target, file) => target.startsWith("gateway/") || (target.startsWith("services/") && serviceOf(target) !== serviceOf(file))),
    [],
  );
});

// Generated code of protos no one service owns.
const SHARED_GEN = [
  "gen/google/", // google.rpc.BadRequest, how every service names the fields a request got wrong
  "gen/audit/", // the audit log's entry, which each service writes and lists for its own changes
  "gen/grpc/", // the standard health protocol every service serves
];

/**
 * Another service's generated code a service may import: only the API of a service it
 * calls, each with the reason it calls it. Anything else (an error type, a shared
 * message) belongs in a shared proto, so that one service's API can change without
 * another's code moving with it.
 */
const CLIENT_OF: Record<string, { file: string; why: string }[]> = {
  catalog: [],
  order: [
    {
      file: "gen/catalog/v1/catalog_pb.js",
      why: "the order service is a client of the catalog: it prices an order from the catalog's items and reads the store's settings",
    },
  ],
  webhook: [
    {
      file: "gen/catalog/v1/account_pb.js",
      why: "the webhook service is a client of the catalog's AccountService: it asks for the store's owners to mail when it disables an endpoint",
    },
  ],
};

test("a service imports its own generated code, the shared protos', and another service's only as that service's client", (t) => {
  const services = sourcesUnder("services");
  t.deepEqual([...new Set(services.map(serviceOf))].sort(), Object.keys(CLIENT_OF).sort(), "every service has an entry, and no more");
  const allowed = (target: string, file: string) =>
    target.startsWith(`gen/${serviceOf(file)}/`) ||
    SHARED_GEN.some((prefix) => target.startsWith(prefix)) ||
    CLIENT_OF[serviceOf(file)]!.some((client) => client.file === target);
  t.deepEqual(
    offending(services, (target, file) => target.startsWith("gen/") && !allowed(target, file)),
    [],
  );
});

test("each client allowance is still used: an allowance nothing needs goes", (t) => {
  const services = sourcesUnder("services");
  for (const [service, clients] of Object.entries(CLIENT_OF)) {
    const imported = new Set(services.filter((file) => serviceOf(file) === service).flatMap(importsOf));
    for (const client of clients) t.true(imported.has(client.file), `services/${service} no longer imports ${client.file}: remove it from CLIENT_OF`);
  }
});

const CODE = ["common", "lean-grpc", "platform", "services", "gateway", "cli"];

/** The source files `file` imports by a relative path (`./x.js` is x.ts or x.tsx). */
function sourceImportsOf(file: string): string[] {
  return importsOf(file)
    .filter((target) => target.endsWith(".js"))
    .map((target) => target.slice(0, -3))
    .flatMap((target) => [`${target}.ts`, `${target}.tsx`].filter((candidate) => existsSync(path.join(ROOT, candidate))));
}

/** Each circle as the files on it, `a → b → a`. */
function circles(files: string[]): string[] {
  const imports = new Map(files.map((file) => [file, sourceImportsOf(file)]));
  const found: string[] = [];
  const done = new Set<string>();
  const walk = (file: string, trail: string[]) => {
    const at = trail.indexOf(file);
    if (at !== -1) return void found.push([...trail.slice(at), file].join(" → "));
    if (done.has(file)) return;
    for (const target of imports.get(file) ?? []) walk(target, [...trail, file]);
    done.add(file);
  };
  for (const file of files) walk(file, []);
  return found;
}

test("no import circle in the code, type-only imports included", (t) => {
  const files = CODE.flatMap(sourcesUnder);
  t.true(files.length > 150, "the code's files were found");
  t.deepEqual(circles(files), []);
});
