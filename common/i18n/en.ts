// What a buyer reads, in English (docs/payments.md#language). The Indonesian catalogue
// (id.ts) has exactly these keys: the type below makes a missing one a compile error and
// test/common/i18n.unit.test.ts a failing test.
export const en = {
  lang: "en",
  languageName: "English",
  switchTo: "Bahasa Indonesia",

  // Statuses as a buyer reads them.
  status: {
    pending: "Awaiting payment",
    paid: "Paid",
    failed: "Payment failed",
    expired: "Expired",
    cancelled: "Cancelled",
    refunded: "Refunded",
  },

  // Method names that are words, not brands.
  methodBankTransfer: "Bank Transfer",
  methodNone: "No payment needed",
  methodCreditCard: "Credit Card",

  // The checkout page.
  checkout: "Checkout",
  orderRef: (reference: string) => `Order ${reference}`,
  orderSummary: "Order summary",
  subtotal: "Subtotal",
  uniqueCode: "Unique transfer code",
  total: "Total",
  payByTransfer: "Pay by bank transfer",
  transferExactly: "Transfer exactly",
  amountToType: "Amount to type in your banking app:",
  transferExactlyStrong: "Transfer exactly this amount, including the last 3 digits.",
  transferExactlyWhy: (code: string, amount: string) =>
    ` The last digits (unique code ${code}, ${amount}) are how the store recognises your payment. A rounded amount cannot be matched to your order.`,
  bank: "Bank",
  accountNumber: "Account number",
  accountHolder: "Account holder",
  paymentReference: "Payment reference",
  referenceNote: "Put it in the transfer note if your bank allows one.",
  payBefore: "Pay before",
  afterTransfer: "After you transfer, the store confirms your payment and this page shows it as paid.",
  refreshStatus: "Refresh status",
  payOnline: "Pay online",
  amountDue: "Amount due",
  method: "Method",
  payNow: (amount: string) => `Pay ${amount} now`,
  continueSecure: "You will continue on the secure payment page.",
  preparing: "The payment page is being prepared.",
  refreshInMoment: "Refresh this page",
  preparingAfter: " in a moment to continue.",
  paidTitle: "Payment received",
  paidText: "Thank you! This order is paid. The store has been notified.",
  failedTitle: "The payment did not go through",
  failedText: "No payment was taken for this order. Contact the store if you would like to try again.",
  expiredTitle: "This order has expired",
  expiredTransferText: (reference: string) =>
    `It was not paid in time. If you already transferred the money, contact the store with the payment reference ${reference}.`,
  expiredText: "It was not paid in time. Please place a new order with the store.",
  cancelledTitle: "This order was cancelled",
  cancelledText: "The store cancelled this order. Nothing more needs to be paid.",
  refundedTitle: "This order was refunded",
  refundedText: "The payment for this order has been returned.",
  billedTo: "Billed to",
  ordered: "Ordered",
  keepPrivate: "Keep this link private: anyone who has it can see this order.",

  // The sandbox's payment page.
  sandboxBanner: "Sandbox payment · no real money moves",
  sandboxTitle: "Sandbox payment",
  payTo: "Pay to",
  amount: "Amount",
  order: "Order",
  pay: "Pay",
  fail: "Fail",
  nothingToPay: "Nothing to pay",
  orderIs: (status: string) => `This order is ${status}.`,
  seeOrder: "See the order",
  sandboxNotAccepted: "The sandbox payment was not accepted",
  sandboxAnswered: (status: number, message: string) => `The notification endpoint answered ${status}: ${message}.`,
  noDetails: "no details",

  // Pages for what went wrong.
  unavailableTitle: "Temporarily unavailable",
  unavailableText: "We could not load this page just now. Please try again in a moment.",
  tryAgain: "Try again",
  wrongTitle: "Something went wrong",
  wrongText: "This page could not be shown. Please try again later.",
  notFoundTitle: (what: string) => `This ${what} was not found`,
  notFoundText: "Check that you opened the complete link you were given. If you copied it by hand, a character may be missing.",
  things: { order: "order", "payment page": "payment page", "payment link": "payment link" },

  // The page of a payment link, /pay/{slug} (docs/payments.md#payment-links).
  payLink: {
    order: "Order",
    yourDetails: "Your details",
    name: "Name",
    email: "Email",
    phone: "Phone",
    method: "Payment method",
    continue: "Continue to payment",
    problem: "Please check the field marked below.",
    invalid: {
      "buyer.name": "Enter your name.",
      "buyer.email": "Enter a valid email address, such as budi@example.com.",
      "buyer.phone": "Enter 8 to 20 digits, optionally starting with +.",
      payment_method: "Pick a payment method.",
    } as Record<string, string>,
    closedTitle: {
      inactive: "This payment link is no longer active",
      expired: "This payment link has expired",
      used_up: "This payment link has been used up",
    },
    closedText: "It does not take orders any more. Contact the store if you still want to buy.",
    short: (title: string, available: number) => (available > 0 ? `${title}: only ${available} left.` : `${title} is sold out.`),
    busyTitle: "Too many orders right now",
    busyText: "Please try again in a minute.",
    expiredFormTitle: "This form has expired",
    expiredFormText: "Nothing was ordered. Reload the page and try again.",
  },

  // Buyer mail (docs/payments.md#buyer-mail).
  mail: {
    hello: (name: string) => `Hello ${name},`,
    receivedSubject: (store: string, reference: string) => `${store}: order ${reference} received`,
    receivedIntro: (store: string) => `thank you for your order at ${store}. Here is how to pay for it.`,
    reminderSubject: (store: string, reference: string) => `${store}: order ${reference} is still waiting for payment`,
    reminderIntro: (deadline: string) => `your order has not been paid yet. Please pay before ${deadline}, or it lapses.`,
    receiptSubject: (store: string, reference: string) => `${store}: receipt for order ${reference}`,
    receiptIntro: (store: string) => `we have received your payment. ${store} has been told and will take it from here.`,
    refundSubject: (store: string, reference: string) => `${store}: refund for order ${reference}`,
    refundIntro: (amount: string) => `${amount} of your payment has been refunded.`,
    transferExactly: "Transfer exactly",
    includingCode: (code: string) => `including the last 3 digits: the unique code ${code} is how the store recognises your payment.`,
    payOnline: "Pay online",
    payLink: "Pay now",
    paid: "Paid",
    paidAt: "Paid on",
    refunded: "Refunded",
    refundedAt: "Refunded on",
    refundedInAll: "Refunded in all",
    reason: "Reason",
    seeOrder: "See your order",
    footer: (store: string) => `You get this mail because you ordered from ${store}. Reply to the store, not to this address.`,
  },

  // Dates: month names (January first).
  months: ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"],
};

export type Messages = typeof en;
