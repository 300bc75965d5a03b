// store-admin's command line (docs/cli.md#how-it-runs): the usage text, the options, and
// reading argv into a command and its values. Pure, so the rules are unit-tested; a new
// option is one entry in OPTIONS and its line in USAGE.
import { parseArgs } from "node:util";

/**
 * A wrong invocation: `message` is one line naming what was wrong ("" for no command at
 * all); `command`, when known, is the command it was for (the hint names its area).
 */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
  }
}

/**
 * Every command, one entry per line that starts with two spaces; a deeper-indented line
 * continues the entry above it. The first words of an entry (up to its first option) are
 * its command, which is how the commands are known (`commandOf`) and how `<area> --help`
 * picks its part.
 */
export const USAGE = `usage: store-admin <command> [options]
       store-admin [<area> [<verb>]] --help      this text, or the part of one area or command

  store create --name N [--plan starter|growth|scale] [--bank-name N --bank-code C --account-number A --account-holder H]
  store set-plan --store ID --plan P
  key create --store ID [--name N] [--scopes S1,S2] [--mode live|test]
                                            scopes: catalog:read, catalog:write, orders:read, orders:write,
                                            payments:write; all five unless given. --mode test: an sk_test_ key
                                            that sees and makes test data only (default live)
  key revoke --store ID --key ID
  key list --store ID         every key: name, prefix, mode, scopes, created by, created, last used, revoked (never the key)
  product create --store ID --title T --price N [--slug S] [--status published|draft] [--stock N]
                                            --stock N: track N units on hand (default: stock not tracked)
  product update --store ID --product ID [--title T] [--price N] [--slug S] [--status draft|published|archived]
                 [--stock N|none]           change what is given; --stock none stops tracking stock
  bundle create --store ID --title T --price N (--items ID:Q,ID:Q | --product ID [--product ID ...])
                [--slug S] [--status ...] [--stock N]
                                            --items: each product with how many one bundle holds; --product: one of each
  bundle update --store ID --bundle ID [--title T] [--price N] [--slug S] [--status S] [--stock N|none]
                [--items ID:Q,ID:Q]         --items replaces the bundle's products
  webhook set --store ID --url URL [--mode test|live]
                                            the store's only endpoint of the mode: create it, or replace its URL and secret
  webhook add --store ID --url URL [--description D] [--events T1,T2] [--mode test|live]
                                            a test endpoint receives only test events (default: live)
  webhook list --store ID [--mode test|live]
  webhook update --store ID --endpoint ID [--url U] [--description D] [--events T1,T2|all] [--enabled true|false]
                 [--resend-since ISO]       with the endpoint enabled: send again every event since then that did not reach it
                 [--max-per-second N|none]  at most N deliveries a second (1–1000), or no limit
  webhook remove --store ID --endpoint ID
  webhook rotate --store ID [--endpoint ID]
  webhook test --store ID --endpoint ID     queue a signed webhook.test event
  webhook events --store ID [--order ID|SO-…] [--type T] [--mode test|live]
  webhook replay --store ID --endpoint ID --since ISO
  webhook deliveries --store ID [--order ID|SO-…] [--endpoint ID]
  webhook redeliver --store ID --delivery ID
  webhook listen [--port N] [--secret whsec_…]
                                            a receiver on 127.0.0.1:N (default 9000) that checks each delivery's
                                            signature and prints "verified <type> <id>", or "NOT verified: <reason>"
                                            (answered 400); the secret defaults to WEBHOOK_SECRET
  user invite --store ID --email E [--role owner|developer|support|viewer]
                                            mails a one-time sign-in link, valid 72 h, and prints it as invite_url;
                                            the role defaults to owner
  user list --store ID                      every member with their role
  user role --store ID --user ID --role R   change a member's role; a store keeps at least one owner
  user remove --store ID --user ID [--keep-api-keys]
                                            ends that user's sessions at once; never the last owner; the API keys
                                            they created are revoked unless --keep-api-keys (printed either way)
  order show --store ID --order ID|SO-…     the order with its history
  order mark-paid --store ID --order ID|SO-…
  order cancel --store ID --order ID|SO-…
  order refund --store ID --order ID|SO-… [--amount N] --reason R [--reference R] [--restock]
                                            without --amount: all that is left; a bank transfer's refund records money sent back;
                                            --restock: the order's sold units go back into stock once the refund succeeds
  order export --store ID [--status S] [--search Q]
                                            every order of the filter as CSV on stdout (header row, integer
                                            rupiah, ISO UTC times), newest first
  bank import --store ID --file statement.csv   match a statement (id,occurred_at,amount,type,description) to orders
  bank unmatched --store ID                 credits waiting for review
  bank assign --store ID --mutation ID --order ID|SO-… [--accept-difference]
                                            pay an order with an unmatched credit; a credit that is not the order's
                                            transfer amount is refused, the difference named ("Rp 152 short"),
                                            unless --accept-difference
  bank dismiss --store ID --mutation ID
  audit --store ID [--actor A] [--action A] [--limit N] [--cursor C]
                                            the store's audit log, newest first, as sentences;
                                            next_cursor (when more) gives the next page
  seed                        a demo Growth store, a key, products and a bundle
  status                      health of every service and the gateway; exit 1 if any is down

An order is named by its id or its payment reference (SO-…, any letter case).
The order and bank commands take --mode test to act on the store's test data (default live).
Every command that changes something is written to the store's audit log as "operator".`;

/** Every option of every command (node:util parseArgs's table). */
export const OPTIONS = {
  name: { type: "string" },
  plan: { type: "string" },
  "bank-name": { type: "string" },
  "bank-code": { type: "string" },
  "account-number": { type: "string" },
  "account-holder": { type: "string" },
  store: { type: "string" },
  key: { type: "string" },
  order: { type: "string" },
  url: { type: "string" },
  delivery: { type: "string" },
  title: { type: "string" },
  price: { type: "string" },
  slug: { type: "string" },
  status: { type: "string" },
  search: { type: "string" },
  product: { type: "string", multiple: true },
  bundle: { type: "string" },
  items: { type: "string" },
  stock: { type: "string" },
  restock: { type: "boolean" },
  endpoint: { type: "string" },
  description: { type: "string" },
  events: { type: "string" },
  enabled: { type: "string" },
  since: { type: "string" },
  "resend-since": { type: "string" },
  "max-per-second": { type: "string" },
  type: { type: "string" },
  email: { type: "string" },
  user: { type: "string" },
  role: { type: "string" },
  scopes: { type: "string" },
  mode: { type: "string" },
  "keep-api-keys": { type: "boolean" },
  "accept-difference": { type: "boolean" },
  file: { type: "string" },
  mutation: { type: "string" },
  amount: { type: "string" },
  reason: { type: "string" },
  reference: { type: "string" },
  actor: { type: "string" },
  action: { type: "string" },
  limit: { type: "string" },
  cursor: { type: "string" },
  port: { type: "string" },
  secret: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

export type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>["values"];

interface Entry {
  command: string;
  text: string;
}

/** USAGE's entries, each with its command ("order refund") and its lines. */
function entries(): Entry[] {
  const found: Entry[] = [];
  for (const line of USAGE.split("\n")) {
    const start = /^ {2}([a-z][a-z-]*(?: [a-z][a-z-]*)?)(?: |$)/.exec(line);
    if (start) found.push({ command: start[1]!, text: line });
    else if (/^ {3,}\S/.test(line) && found.length > 0) found.at(-1)!.text += "\n" + line;
  }
  return found;
}

const ENTRIES = entries();

/** The commands USAGE lists: "store create", …, "audit", "status". */
export const COMMANDS: readonly string[] = ENTRIES.map((entry) => entry.command);

/** The areas (first words), so `order --help` and `help order` find their part. */
const areaOf = (command: string) => command.split(" ")[0]!;

/**
 * The usage of `topic` (an area such as "order", or a command such as "order refund"):
 * the head of USAGE, that area's or command's entries, and the closing notes. Unknown or
 * no topic: the whole text.
 */
export function usageFor(topic?: string): string {
  const picked = topic ? ENTRIES.filter((entry) => entry.command === topic || areaOf(entry.command) === topic) : [];
  if (picked.length === 0) return USAGE;
  const exact = picked.filter((entry) => entry.command === topic);
  const head = USAGE.slice(0, USAGE.indexOf("\n\n"));
  const tail = USAGE.slice(USAGE.lastIndexOf("\n\n"));
  return `${head}\n\n${(exact.length > 0 ? exact : picked).map((entry) => entry.text).join("\n")}${tail}`;
}

/** `store-admin <area> --help`, the pointer printed after a usage error. */
export function helpHint(command: string | undefined): string {
  const area = command ? areaOf(command) : undefined;
  return area && COMMANDS.some((known) => areaOf(known) === area) ? `store-admin ${area} --help` : "store-admin --help";
}

/**
 * How a usage error is printed: one line, with where to read more; with no command at all,
 * the usage. `command`: the command being run, when the error does not name one.
 */
export function usageErrorText(error: UsageError, command?: string): string {
  return error.message ? `store-admin: ${error.message} (see ${helpHint(error.command ?? command)})\n` : USAGE + "\n";
}

export type CommandLine =
  | { kind: "help"; text: string }
  | { kind: "run"; command: string; values: Values };

/**
 * argv → the command and its values, or the help asked for. Throws UsageError with one
 * line naming what is wrong (an unknown command or option, an option without its value)
 * and `command` set to what was recognised, for the hint.
 */
export function parseCommandLine(argv: string[]): CommandLine {
  // Loose first, with tokens: strict parseArgs would stop at the first problem with a
  // message of its own ("Unknown option '--oder'. To specify a positional argument…").
  const { tokens, positionals } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: false, tokens: true });
  const asksHelp = tokens.some((token) => token.kind === "option" && token.name === "help") || positionals[0] === "help";
  const words = positionals[0] === "help" ? positionals.slice(1) : positionals;
  const command = COMMANDS.find((known) => known === words.slice(0, 2).join(" ")) ?? COMMANDS.find((known) => known === words[0]);
  if (asksHelp) return { kind: "help", text: usageFor(command ?? words[0]) };
  if (words.length === 0) throw new UsageError("");

  const where = command ? ` for "${command}"` : "";
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const option = (OPTIONS as Record<string, { type: "string" | "boolean" } | undefined>)[token.name];
    if (!option) throw new UsageError(`unknown option ${token.rawName}${where}`, command ?? words[0]);
    // A string option followed by another option (or nothing) was given no value: the
    // loose parse would take "--order" as the value of "--store".
    if (option.type === "string" && (token.value === undefined || (!token.inlineValue && token.value.startsWith("-")))) {
      throw new UsageError(`option ${token.rawName} needs a value${where}`, command ?? words[0]);
    }
    if (option.type === "boolean" && token.inlineValue) throw new UsageError(`option ${token.rawName} takes no value${where}`, command ?? words[0]);
  }
  if (!command) throw new UsageError(`unknown command "${words.join(" ")}"`, words[0]);
  const extra = words.slice(command.split(" ").length);
  if (extra.length > 0) throw new UsageError(`unexpected argument "${extra[0]}"${where}`, command);
  // Every token is known and well formed: the strict parse now only builds the values.
  const { values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  return { kind: "run", command, values };
}
