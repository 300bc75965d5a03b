-- A payment by a bank mutation keeps the credit's amount in its history row: a person may
-- assign a credit that differs from the order's transfer amount (docs/reconciliation.md#review),
-- and the order's history then says what actually arrived. Null for every other change.
alter table order_status_history add column amount_received bigint;
-- Payments made before this column: the mutation that paid the order is still recorded
-- with its order and amount.
update order_status_history h set amount_received = m.amount
from bank_mutations m
where h.cause = 'bank_mutation' and m.order_id = h.order_id and m.mutation_id = h.detail;
