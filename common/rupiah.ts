// How every page and mail writes money: integer rupiah with Indonesian digit grouping,
// the same in both buyer languages ("Rp 85.660").

/** 435228 → "435.228". */
export function groupDigits(amount: bigint | number): string {
  const text = BigInt(amount).toString();
  const negative = text.startsWith("-");
  const digits = negative ? text.slice(1) : text;
  return (negative ? "-" : "") + digits.replace(/\B(?=(\d{3})+(?!\d))/g, ".");
}

/** 435228 → "Rp 435.228". */
export function rupiah(amount: bigint | number): string {
  return `Rp ${groupDigits(amount)}`;
}
