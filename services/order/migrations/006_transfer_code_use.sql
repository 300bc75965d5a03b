-- Transfer codes are handed out least recently used first (docs/reconciliation.md#unique-codes), so a late or
-- repeated transfer for an old order is as unlikely as can be to find a new one with
-- its amount. A reservation row now outlives its order's claim: when the order is paid
-- or refunded the row stays, with `reserved_until` the time of that change, and a row
-- whose time has passed says when its amount was last used. An amount with no row was
-- never used.
--
-- Until now a paid order's row was deleted, and 004 copied only the codes then held.
-- Each amount with no row gets one from its newest order's release, computed as
-- bank-matching.ts reservationAfter does with the default 7-day grace, so the codes used
-- just before this upgrade do not look never used after it.
insert into transfer_amount_reservations (store_id, amount, order_id, reserved_until)
select distinct on (store_id, amount) store_id, amount, id, released
from (
  select o.store_id, o.amount, o.id,
    case o.status
      when 'paid' then o.updated_at
      when 'refunded' then o.updated_at
      when 'expired' then o.expires_at + interval '7 days'
      else o.updated_at + interval '7 days'
    end as released
  from orders o
  where o.payment_kind = 'bank_transfer' and o.status <> 'pending'
    and not exists (select 1 from transfer_amount_reservations r where r.store_id = o.store_id and r.amount = o.amount)
) used
order by store_id, amount, released desc, id
on conflict do nothing;
