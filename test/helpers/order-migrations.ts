// The order schema as an older release left it, for upgrade tests: a database of the
// test's own migrated with only the order service's migrations named before `upTo`.
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { ExecutionContext } from "ava";
import { ORDER_SCHEMA } from "../../services/order/service.js";
import { schemaBefore } from "./migrations.js";

export const ORDER_MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), "../../services/order/migrations");

/** A pool on a fresh database whose order schema has every migration named before `upTo`; dropped at teardown. */
export function orderSchemaBefore(t: ExecutionContext, upTo: string) {
  return schemaBefore(t, ORDER_SCHEMA, ORDER_MIGRATIONS, upTo);
}

/**
 * A bank-transfer order row as every order schema since 001 holds it, for upgrade tests
 * to insert straight into an older schema: the buyer, store and redirect columns
 * filled, the unique code the amount's difference from the subtotal (10,000 unless
 * given). `fields` may set any other column.
 */
export function bankTransferOrderRow(
  fields: { store_id: string; status: string; payment_reference: string; amount: number; created_at: Date; updated_at: Date; expires_at: Date; subtotal?: number } & Record<string, unknown>,
) {
  const subtotal = fields.subtotal ?? 10_000;
  return {
    payment_kind: "bank_transfer",
    payment_method: "bank_transfer",
    payment_provider: "manual",
    settlement_channel: "seller_bank",
    unique_amount_code: fields.amount - subtotal,
    buyer_name: "Budi",
    buyer_email: "budi@example.co.id",
    buyer_phone: "+6281234567890",
    store_name: "Toko",
    success_url: "https://shop.example/ok",
    return_url: "https://shop.example/back",
    error_url: "https://shop.example/error",
    ...fields,
    subtotal,
  };
}
