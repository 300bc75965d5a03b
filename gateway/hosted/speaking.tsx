// The pieces every hosted page shows in the buyer's language (docs/payments.md#language).
import { messagesFor, statusIn, wibIn, type Language, type Messages } from "../../common/i18n/index.js";

/** What every part of a page needs to speak the buyer's language. */
export interface Speaking {
  language: Language;
  text: Messages;
}

export function speaking(language: Language): Speaking {
  return { language, text: messagesFor(language) };
}

/** A time in WIB in the buyer's language, with the exact instant in `datetime`. */
export function BuyerTime({ iso, language }: { iso: string; language: Language }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time dateTime={iso} title={iso}>
      {wibIn(language, iso)}
    </time>
  );
}

export function BuyerStatus({ status, language }: { status: string; language: Language }) {
  return <span class={`badge badge-${status}`}>{statusIn(language, status)}</span>;
}
