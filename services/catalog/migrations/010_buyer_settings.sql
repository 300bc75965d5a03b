-- What a store tells its buyers (docs/payments.md#buyer-mail): whether they are mailed, and in
-- which language. On, in Indonesian, for every store until its owner says otherwise.
alter table stores
  add column email_buyers boolean not null default true,
  add column buyer_language text not null default 'id' check (buyer_language in ('id', 'en'));
