import test from "ava";
import { parseStatement, statementLineError, StatementError } from "../../common/bank-statement.js";

const HEADER = "id,occurred_at,amount,type,description";

test("a statement becomes mutations in file order; quoted commas, BOM and CRLF are fine", (t) => {
  const text = `\uFEFF${HEADER}\r\nM-1,2026-11-20T10:00:00+07:00,170906,credit,"TRF FROM BUDI, SO-1"\r\nM-2,2026-11-20T11:00:00+07:00,50000,DEBIT,fee\r\n`;
  t.deepEqual(parseStatement(text), [
    { id: "M-1", occurredAt: "2026-11-20T10:00:00+07:00", amount: 170_906n, type: "credit", description: "TRF FROM BUDI, SO-1" },
    { id: "M-2", occurredAt: "2026-11-20T11:00:00+07:00", amount: 50_000n, type: "debit", description: "fee" },
  ]);
});

test("a wrong header, a short row or a bad amount names the line", (t) => {
  const fails = (text: string, message: RegExp) => t.throws(() => parseStatement(text), { instanceOf: StatementError, message });
  fails("id,amount\nM-1,5", /^line 1: the header must be id,occurred_at,amount,type,description$/);
  fails(`${HEADER}\nM-1,2026-11-20T10:00:00+07:00,5,credit`, /^line 2: expected 5 columns, found 4$/);
  fails(`${HEADER}\nM-1,2026-11-20T10:00:00+07:00,5,credit,x\nM-2,2026-11-20T10:00:00+07:00,1.5,credit,x`, /^line 3: amount/);
  fails(`${HEADER}\nM-1,2026-11-20T10:00:00+07:00,0,credit,x`, /^line 2: amount/);
  fails(`${HEADER}\nM-1,2026-11-20T10:00:00+07:00,-5,credit,x`, /^line 2: amount/);
  fails(`${HEADER}\n`, /no mutations/);
  fails(`${HEADER}\nM-1,"unterminated,5,credit,x`, /not valid CSV/);
});

test("the service's field errors are told by line", (t) => {
  t.is(statementLineError("mutations[3].occurred_at: must have an offset", 0), "line 5: occurred_at: must have an offset");
  t.is(statementLineError("mutations[0].id: at most 100 characters", 500), "line 502: id: at most 100 characters");
  t.is(statementLineError("something else", 0), "something else");
});

test("every line is checked before anything is sent: a bad line 701 of a long statement is found up front", (t) => {
  const rows = Array.from({ length: 800 }, (_, n) => `M-${n},2026-11-20T10:00:00+07:00,${1000 + n},${n === 699 ? "transfer" : "credit"},x`);
  t.throws(() => parseStatement([HEADER, ...rows].join("\n")), { instanceOf: StatementError, message: /^line 701: type must be credit or debit$/ });
  const repeated = [HEADER, "M-1,2026-11-20T10:00:00+07:00,5,credit,a", "M-1,2026-11-20T11:00:00+07:00,6,credit,b"].join("\n");
  t.throws(() => parseStatement(repeated), { instanceOf: StatementError, message: /^line 3: id repeats line 2/ });
  t.throws(() => parseStatement(`${HEADER}\nM-1,2026-11-20T10:00:00,5,credit,a`), { message: /^line 2: occurred_at must be an RFC 3339/ });
});
