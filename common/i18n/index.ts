// The buyer's language (docs/payments.md#language): Indonesian unless English is
// preferred or picked. One catalogue per language (en.ts, id.ts); amounts are written the
// same way in both ("Rp 85.660"), times in WIB with the language's month names.
import { jakartaParts } from "../jakarta-time.js";
import { BANK_TRANSFER, GATEWAY_METHODS, NO_PAYMENT } from "../payment-methods.js";
import { en, type Messages } from "./en.js";
import { id } from "./id.js";

export type { Messages };
export const LANGUAGES = ["id", "en"] as const;
export type Language = (typeof LANGUAGES)[number];
/** What a buyer gets when nothing says otherwise. */
export const DEFAULT_LANGUAGE: Language = "id";

const CATALOGUES: Record<Language, Messages> = { id, en };

export function isLanguage(value: unknown): value is Language {
  return typeof value === "string" && (LANGUAGES as readonly string[]).includes(value);
}

export function messagesFor(language: Language): Messages {
  return CATALOGUES[language];
}

/** "21 November 2026, 17:40 WIB" / "21 Desember 2026, 17:40 WIB"; an unparsable time as given. */
export function wibIn(language: Language, iso: string): string {
  const parts = jakartaParts(iso);
  if (!parts) return iso;
  return `${parts.day} ${CATALOGUES[language].months[parts.month - 1]} ${parts.year}, ${parts.hour}:${parts.minute} WIB`;
}

/** An order status as a buyer reads it; an unknown one as itself. */
export function statusIn(language: Language, status: string): string {
  return (CATALOGUES[language].status as Record<string, string>)[status] ?? status;
}

/** A payment method's name: brands as they are, words in the buyer's language. */
export function methodIn(language: Language, code: string): string {
  const text = CATALOGUES[language];
  if (code === BANK_TRANSFER.code) return text.methodBankTransfer;
  if (code === NO_PAYMENT.code) return text.methodNone;
  if (code === "credit_card") return text.methodCreditCard;
  return GATEWAY_METHODS.find((method) => method.code === code)?.name ?? code;
}

/** What a page names ("order", "payment page") in the buyer's language. */
export function thingIn(language: Language, what: string): string {
  return (CATALOGUES[language].things as Record<string, string>)[what] ?? what;
}
