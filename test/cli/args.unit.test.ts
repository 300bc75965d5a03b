// store-admin's command line (cli/args.ts, docs/cli.md#how-it-runs): help asked for in any
// of its spellings, a wrong option named in one line, each note under its own command.
import test from "ava";
import { COMMANDS, parseCommandLine, usageErrorText, usageFor, UsageError, USAGE } from "../../cli/args.js";
import { orderKeyOf } from "../../common/order-reference.js";

function usageError(argv: string[]): UsageError {
  try {
    parseCommandLine(argv);
  } catch (error) {
    if (error instanceof UsageError) return error;
    throw error;
  }
  throw new Error(`${argv.join(" ")} was accepted`);
}

test("--help, -h and help ask for the usage, whatever else is on the line; an area or a command gets its part", (t) => {
  for (const argv of [["--help"], ["-h"], ["help"], ["--oder", "-h"]]) t.deepEqual(parseCommandLine(argv), { kind: "help", text: USAGE }, argv.join(" "));
  for (const argv of [["order", "--help"], ["help", "order"], ["order", "-h", "--store", "x"]]) {
    const help = parseCommandLine(argv);
    t.is(help.kind, "help");
    const text = help.kind === "help" ? help.text : "";
    t.regex(text, /^usage: store-admin/);
    t.regex(text, /order mark-paid --store ID --order ID\|SO-…/);
    t.notRegex(text, /webhook add|bank assign/, "only the order commands");
  }
  const refund = parseCommandLine(["order", "refund", "--help"]);
  t.true(refund.kind === "help" && refund.text.includes("order refund") && !refund.text.includes("order export"));
});

test("the refund note sits under order refund, and every command's continuation lines stay with it", (t) => {
  const lines = USAGE.split("\n");
  const note = lines.findIndex((line) => line.includes("without --amount: all that is left"));
  t.regex(lines[note - 1]!, /^ {2}order refund /);
  t.regex(usageFor("order refund"), /without --amount/);
  t.notRegex(usageFor("order export"), /without --amount/);
  t.regex(usageFor("order export"), /as CSV on stdout/);
  t.true(COMMANDS.includes("webhook listen") && COMMANDS.includes("status") && COMMANDS.includes("order show"));
});

test("no command at all is a usage error with no message: the whole usage is printed", (t) => {
  const error = usageError([]);
  t.is(error.message, "");
  t.is(usageErrorText(error), USAGE + "\n");
});

test("an unknown option is named in one line with the command and where its usage is", (t) => {
  const error = usageError(["order", "mark-paid", "--store", "s", "--oder", "o"]);
  t.is(usageErrorText(error), 'store-admin: unknown option --oder for "order mark-paid" (see store-admin order --help)\n');
  t.is(usageErrorText(usageError(["store", "create", "-x"])), 'store-admin: unknown option -x for "store create" (see store-admin store --help)\n');
  t.is(usageErrorText(usageError(["--colour", "red"])), "store-admin: unknown option --colour (see store-admin --help)\n");
});

test("an option without its value, or a flag given one, is named in one line", (t) => {
  t.is(usageErrorText(usageError(["order", "cancel", "--store"])), 'store-admin: option --store needs a value for "order cancel" (see store-admin order --help)\n');
  // Not "--order" taken as the store id.
  t.is(usageError(["order", "cancel", "--store", "--order", "o"]).message, 'option --store needs a value for "order cancel"');
  t.is(usageError(["user", "remove", "--keep-api-keys=yes"]).message, 'option --keep-api-keys takes no value for "user remove"');
  // Written with "=", a value may start with a dash.
  const run = parseCommandLine(["order", "export", "--store", "s", "--search=-x"]);
  t.true(run.kind === "run" && run.values.search === "-x");
});

test("an unknown command, or a word too many, is named; a run gets its command and values", (t) => {
  t.is(usageErrorText(usageError(["store", "destroy"])), 'store-admin: unknown command "store destroy" (see store-admin store --help)\n');
  t.is(usageError(["status", "now"]).message, 'unexpected argument "now" for "status"');
  t.deepEqual(parseCommandLine(["bundle", "create", "--product", "a", "--product", "b", "--keep-api-keys"]), {
    kind: "run",
    command: "bundle create",
    values: { product: ["a", "b"], "keep-api-keys": true },
  });
  t.like(parseCommandLine(["status"]), { kind: "run", command: "status" });
});

test("an order is named by its id or its payment reference, in any letter case, as the dashboard's search takes it", (t) => {
  t.deepEqual(orderKeyOf("SO-7LJPQ2MXK4TB"), { paymentReference: "SO-7LJPQ2MXK4TB" });
  t.deepEqual(orderKeyOf(" so-7ljpq2mxk4tb "), { paymentReference: "SO-7LJPQ2MXK4TB" });
  t.deepEqual(orderKeyOf("0B5F3C1E-9A2D-4C8B-8E1F-2A3B4C5D6E7F"), { orderId: "0b5f3c1e-9a2d-4c8b-8e1f-2a3b4c5d6e7f" });
  t.is(orderKeyOf("not an order"), undefined);
  t.is(orderKeyOf(""), undefined);
});
