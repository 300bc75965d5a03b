-- Sends whose attempt could not be recorded (docs/webhooks.md#recording-attempts): counted when a delivery is
-- leased, cleared when its attempt is recorded. A lease also moves next_attempt_at to
-- the schedule's next step, so an attempt that is sent but never recorded is not sent
-- again before that step, and a delivery with two such sends in a row (or one past the
-- end of the schedule) ends as failed instead of being sent forever.
alter table deliveries add column unrecorded_sends int not null default 0;
