-- A readable audit log (docs/team.md#audit-log): each entry keeps what its target was called
-- when the change was made (an order's SO- reference, a key's name, an endpoint's URL,
-- a product's title), so it still reads right after the thing is renamed or deleted;
-- and a settings change keeps its fields before → after, as [{"field", "before",
-- "after"}] (a secret's values read "(hidden)"). Entries written before this have
-- neither and read by the target's id. Constant defaults: no table rewrite.
alter table audit_log
  add column target_label text not null default '',
  add column changes jsonb not null default '[]';
