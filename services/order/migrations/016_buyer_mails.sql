-- Buyer mail (docs/payments.md#buyer-mail): one row per mail a buyer is owed, written by
-- a trigger on the outbox from the event rows themselves, so the mail is owed exactly when
-- the change that calls for it commits, and by no code path that could forget it.
-- buyer-mail.ts sends each row once and records what happened.
create table buyer_mails (
  id bigserial primary key,
  order_id uuid not null references orders (id),
  store_id uuid not null,
  kind text not null check (kind in ('received', 'reminder', 'receipt', 'refund')),
  -- The refund a refund notice is about; null for the other kinds.
  refund_id uuid,
  -- When the mail is due; for a reminder the order's expires_at, from which the worker
  -- counts back BUYER_REMINDER_BEFORE (a setting of the process, not of the row).
  due_at timestamptz not null,
  -- waiting → sent | skipped (not wanted any more: mail off, order no longer pending) |
  -- failed (refused for good, or out of retries).
  state text not null default 'waiting' check (state in ('waiting', 'sent', 'skipped', 'failed')),
  attempts int not null default 0,
  -- After a failed attempt: not before then. Null: as soon as due.
  next_attempt_at timestamptz,
  last_error text,
  sent_at timestamptz,
  created_at timestamptz not null default clock_timestamp(),
  -- At most one of each per order (and per refund): a replayed event adds nothing.
  unique nulls not distinct (order_id, kind, refund_id),
  check ((kind = 'refund') = (refund_id is not null))
);
-- The worker's claim (db/buyer-mails.ts): first attempts by when they are due (a
-- reminder's counted back from due_at), retries by when they may go again.
create index buyer_mails_first_attempt on buyer_mails (due_at) where state = 'waiting' and next_attempt_at is null;
create index buyer_mails_retry on buyer_mails (next_attempt_at) where state = 'waiting';

-- Only live orders' buyers are mailed (docs/keys.md#test-mode): an event whose payload
-- does not say livemode true owes nothing.
-- Pinned to this schema: the trigger fires under whatever search_path the writer has.
create function buyer_mails_from_outbox() returns trigger language plpgsql set search_path from current as $$
declare
  data json := new.payload -> 'data';
begin
  if data is null or (data ->> 'livemode') is distinct from 'true' then
    return null;
  end if;
  if new.event_type = 'order.created' then
    insert into buyer_mails (order_id, store_id, kind, due_at)
    values (new.order_id, new.store_id, 'received', new.created_at),
           (new.order_id, new.store_id, 'reminder', (data -> 'order' ->> 'expires_at')::timestamptz)
    on conflict do nothing;
  elsif new.event_type = 'order.paid' then
    insert into buyer_mails (order_id, store_id, kind, due_at)
    values (new.order_id, new.store_id, 'receipt', new.created_at)
    on conflict do nothing;
  elsif new.event_type = 'refund.succeeded' then
    insert into buyer_mails (order_id, store_id, kind, refund_id, due_at)
    values (new.order_id, new.store_id, 'refund', (data -> 'refund' ->> 'id')::uuid, new.created_at)
    on conflict do nothing;
  end if;
  return null;
end;
$$;

create trigger buyer_mails_from_outbox after insert on outbox
  for each row execute function buyer_mails_from_outbox();
