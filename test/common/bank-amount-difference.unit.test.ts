// The words for a credit whose amount is not the order's: one wording for the dashboard,
// the order service's refusal, the CLI and the order's history.
import test from "ava";
import { amountDifferenceText, amountReceivedText } from "../../common/bank-mutations.js";

test("a difference reads as rupiah short or over, with the Indonesian thousands separator", (t) => {
  t.is(amountDifferenceText(65_000, 65_152), "Rp 152 short");
  t.is(amountDifferenceText(66_152n, 65_152n), "Rp 1.000 over");
  t.is(amountDifferenceText(1, 1_234_568), "Rp 1.234.567 short");
  t.is(amountDifferenceText(65_152, 65_152), "");
});

test("the amount received names the difference only when there is one", (t) => {
  t.is(amountReceivedText(65_000, 65_152), "Rp 65.000 received, Rp 152 short");
  t.is(amountReceivedText(85_084n, 85_084n), "Rp 85.084 received");
});
