// The pieces every hosted page shows in the buyer's language (docs/payments.md#language).
import { messagesFor, statusIn, wibIn, type Language, type Messages } from "../../common/i18n/index.js";
import { rupiah } from "../../common/rupiah.js";

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

/** An order's lines as the buyer reads them: title, quantity × unit price, line total. */
export function ItemLines({ items }: { items: { title: string; quantity: number | bigint; unitPrice: number | bigint; lineTotal: number | bigint }[] }) {
  return (
    <ul class="items">
      {items.map((item) => (
        <li>
          <div>
            <div class="item-title">{item.title}</div>
            <div class="muted">
              <span class="qty">{item.quantity}</span> × <span class="unit-price">{rupiah(item.unitPrice)}</span>
            </div>
          </div>
          <div class="num line-total">{rupiah(item.lineTotal)}</div>
        </li>
      ))}
    </ul>
  );
}
