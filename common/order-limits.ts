// The bounds that docs/api.md#creating-an-order and docs/refunds.md#what-can-be-refunded put on what a client sends for an order or a refund.
// The order service enforces them and the OpenAPI document states them, both from here,
// so the reference cannot promise a bound the service does not keep. Bank mutations'
// bounds (docs/reconciliation.md#the-api) are in bank-mutations.ts.

export const MAX_ITEMS_PER_ORDER = 50;
export const MAX_ITEM_QUANTITY = 1000;
export const MAX_BUYER_NAME_LENGTH = 100;
export const BUYER_PHONE = /^\+?[0-9]{8,20}$/;
export const MAX_EXTERNAL_ID_LENGTH = 64;
export const MAX_REDIRECT_URL_LENGTH = 2048;
/** The bank-transfer code added to a subtotal: 1 to this. */
export const MAX_UNIQUE_CODE = 999;
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
export const MAX_REFUND_REASON_LENGTH = 200;
export const MAX_REFUND_REFERENCE_LENGTH = 100;
/** An order's metadata (docs/orders.md#metadata): at most this many keys, after a change is merged. */
export const MAX_METADATA_KEYS = 20;
/** A metadata key: 1 to this many characters. */
export const MAX_METADATA_KEY_LENGTH = 40;
/** A metadata value: at most this many characters. */
export const MAX_METADATA_VALUE_LENGTH = 500;
