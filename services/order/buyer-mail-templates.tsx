// What a buyer is mailed about an order (docs/payments.md#buyer-mail): "order received" with
// exactly what to pay and by when, a reminder before it lapses, a receipt, a refund notice.
// Each mail has a text part and an HTML part made from the same words (the buyer's
// catalogue, common/i18n/). The HTML is rendered by preact like every page, so every value
// is escaped by the renderer; it is a single 600 px column of tables with inline styles,
// the layout mail clients (Gmail, Outlook, phone apps) all read, no stylesheet, no
// script, no image. Pure: the caller gives the order as it is now.
import type { ComponentChildren } from "preact";
import { renderToString } from "preact-render-to-string";
import { messagesFor, methodIn, wibIn, type Language } from "../../common/i18n/index.js";
import { rupiah } from "../../common/rupiah.js";

export const BUYER_MAIL_KINDS = ["received", "reminder", "receipt", "refund"] as const;
export type BuyerMailKind = (typeof BUYER_MAIL_KINDS)[number];

export interface BuyerMailOrder {
  storeName: string;
  buyerName: string;
  paymentReference: string;
  /** The buyer's page of the order (docs/payments.md#hosted-checkout). */
  checkoutUrl: string;
  amount: number;
  subtotal: number;
  paymentMethod: string;
  expiresAt: string;
  items: { title: string; quantity: number; unitPrice: number; lineTotal: number }[];
  /** A bank-transfer order: where to and exactly how much. */
  bank?: { bankName: string; bankCode: string; accountNumber: string; accountHolder: string; transferAmount: number; uniqueCode: number };
  /** A gateway order: the gateway's payment page. */
  paymentUrl?: string;
  paidAt?: string;
  refundedAmount: number;
}

/** The refund a "refund" mail is about. */
export interface BuyerMailRefund {
  amount: number;
  reason: string;
  createdAt: string;
}

export interface BuyerMail {
  subject: string;
  text: string;
  html: string;
}

/** One mail in the buyer's language; `refund` is required for a refund notice. */
export function renderBuyerMail(kind: BuyerMailKind, language: Language, order: BuyerMailOrder, refund?: BuyerMailRefund): BuyerMail {
  if (kind === "refund" && !refund) throw new Error("a refund notice needs its refund");
  const text = messagesFor(language);
  const mail = text.mail;
  const deadline = wibIn(language, order.expiresAt);
  const subject = {
    received: mail.receivedSubject,
    reminder: mail.reminderSubject,
    receipt: mail.receiptSubject,
    refund: mail.refundSubject,
  }[kind](order.storeName, order.paymentReference);
  const intro = {
    received: () => mail.receivedIntro(order.storeName),
    reminder: () => mail.reminderIntro(deadline),
    receipt: () => mail.receiptIntro(order.storeName),
    refund: () => mail.refundIntro(rupiah(refund!.amount)),
  }[kind]();

  // Label and value rows, shared by both parts, so they never say different things.
  const rows: [string, string][] = [[text.paymentReference, order.paymentReference]];
  const asksForMoney = kind === "received" || kind === "reminder";
  if (asksForMoney && order.bank) {
    rows.push(
      [text.bank, order.bank.bankCode ? `${order.bank.bankName} (${order.bank.bankCode})` : order.bank.bankName],
      [text.accountNumber, order.bank.accountNumber],
      [text.accountHolder, order.bank.accountHolder],
      [text.payBefore, deadline],
    );
  } else if (asksForMoney) {
    rows.push([text.method, methodIn(language, order.paymentMethod)], [text.amountDue, rupiah(order.amount)], [text.payBefore, deadline]);
  }
  if (kind === "receipt") {
    rows.push([mail.paid, rupiah(order.amount)], [text.method, methodIn(language, order.paymentMethod)]);
    if (order.paidAt) rows.push([mail.paidAt, wibIn(language, order.paidAt)]);
  }
  if (kind === "refund" && refund) {
    rows.push([mail.refunded, rupiah(refund.amount)], [mail.refundedAt, wibIn(language, refund.createdAt)], [mail.refundedInAll, rupiah(order.refundedAmount)]);
    if (refund.reason) rows.push([mail.reason, refund.reason]);
  }
  const transfer = asksForMoney && order.bank ? order.bank : undefined;
  const payUrl = asksForMoney && !order.bank ? (order.paymentUrl ?? order.checkoutUrl) : undefined;

  const plain = [
    mail.hello(order.buyerName),
    "",
    intro,
    "",
    ...(transfer
      ? [`${mail.transferExactly}: ${rupiah(transfer.transferAmount)} (${transfer.transferAmount})`, mail.includingCode(String(transfer.uniqueCode)), ""]
      : []),
    ...(payUrl ? [`${mail.payLink}: ${payUrl}`, ""] : []),
    ...rows.map(([label, value]) => `${label}: ${value}`),
    "",
    `${text.orderSummary}:`,
    ...order.items.map((item) => `- ${item.quantity} × ${item.title} (${rupiah(item.unitPrice)}): ${rupiah(item.lineTotal)}`),
    ...(order.bank && order.bank.uniqueCode > 0 ? [`${text.uniqueCode}: + ${rupiah(order.bank.uniqueCode)}`] : []),
    `${text.total}: ${rupiah(order.amount)}`,
    "",
    `${mail.seeOrder}: ${order.checkoutUrl}`,
    "",
    "--",
    mail.footer(order.storeName),
    "",
  ].join("\n");

  const html =
    "<!doctype html>\n" +
    renderToString(
      <Frame language={language} title={subject}>
        <p style={P}>{mail.hello(order.buyerName)}</p>
        <p style={P}>{intro}</p>
        {transfer && (
          <>
            <p style="margin:16px 0 0;color:#5b6678;font-size:14px">{mail.transferExactly}</p>
            <p style="margin:2px 0 4px;font-size:28px;font-weight:800;color:#1b2330">{rupiah(transfer.transferAmount)}</p>
            <p style={`${P};font-size:14px`}>{mail.includingCode(String(transfer.uniqueCode))}</p>
          </>
        )}
        {payUrl && (
          <p style="margin:16px 0">
            <a href={payUrl} style="display:inline-block;background:#1556d6;color:#ffffff;font-weight:700;text-decoration:none;padding:12px 20px;border-radius:8px">
              {mail.payLink} · {rupiah(order.amount)}
            </a>
          </p>
        )}
        <table role="presentation" width="100%" cellPadding="0" cellSpacing="0" style="border-collapse:collapse;margin:12px 0">
          {rows.map(([label, value]) => (
            <tr>
              <td style={`${CELL};color:#5b6678;width:40%`}>{label}</td>
              {/* The reference's hyphen would let a phone break "SO-" from the rest. */}
              <td style={`${CELL};font-weight:600${value === order.paymentReference ? ";white-space:nowrap" : ""}`}>{value}</td>
            </tr>
          ))}
        </table>
        <p style="margin:16px 0 4px;font-weight:700">{text.orderSummary}</p>
        <table role="presentation" width="100%" cellPadding="0" cellSpacing="0" style="border-collapse:collapse">
          {order.items.map((item) => (
            <tr>
              <td style={CELL}>
                {item.quantity} × {item.title}
              </td>
              <td style={`${CELL};text-align:right;white-space:nowrap`}>{rupiah(item.lineTotal)}</td>
            </tr>
          ))}
          {order.bank && order.bank.uniqueCode > 0 && (
            <tr>
              <td style={`${CELL};color:#5b6678`}>{text.uniqueCode}</td>
              <td style={`${CELL};text-align:right;white-space:nowrap`}>+ {rupiah(order.bank.uniqueCode)}</td>
            </tr>
          )}
          <tr>
            <td style={`${CELL};font-weight:800`}>{text.total}</td>
            <td style={`${CELL};font-weight:800;text-align:right;white-space:nowrap`}>{rupiah(order.amount)}</td>
          </tr>
        </table>
        <p style="margin:20px 0 0">
          <a href={order.checkoutUrl} style="color:#1556d6">
            {mail.seeOrder}
          </a>
        </p>
        <p style="margin:24px 0 0;color:#7a8597;font-size:12px">{mail.footer(order.storeName)}</p>
      </Frame>,
    );
  return { subject, text: plain, html };
}

const P = "margin:0 0 12px";
const CELL = "padding:6px 0;border-bottom:1px solid #eef0f4;vertical-align:top;font-size:15px";

function Frame({ language, title, children }: { language: Language; title: string; children: ComponentChildren }) {
  return (
    <html lang={language}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{title}</title>
      </head>
      <body style="margin:0;padding:0;background:#f3f5f9">
        <table role="presentation" width="100%" cellPadding="0" cellSpacing="0" style="background:#f3f5f9">
          <tr>
            <td align="center" style="padding:16px 8px">
              <table
                role="presentation"
                width="100%"
                cellPadding="0"
                cellSpacing="0"
                style="max-width:600px;background:#ffffff;border-radius:12px;font-family:Arial,Helvetica,sans-serif;color:#1b2330;font-size:15px;line-height:1.5"
              >
                <tr>
                  <td style="padding:20px 20px 24px">{children}</td>
                </tr>
              </table>
            </td>
          </tr>
        </table>
      </body>
    </html>
  );
}
