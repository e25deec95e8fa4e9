// Tracking numbers as people type or paste them: full-width digits, hyphens of every kind, spaces inside a
// number; numbers separated by new lines, commas, semicolons or tabs.

const DASHES = /[\u2010-\u2015\u2212\u30fc\uff0d\u2043\ufe63-]/g;

/** The pasted text split into the numbers it holds, each as typed (trimmed). */
export function splitNumbers(text) {
  return text.normalize("NFKC").split(/[\n\r,;\t、]+/).map((item) => item.trim()).filter((item) => item !== "");
}

/** Checks one number: `{input, digits}` when it is valid, `{input, error: {code, ...}}` when not. */
export function checkNumber(input) {
  const compact = input.normalize("NFKC").replace(DASHES, "").replace(/\s+/g, "");
  if (!/^[0-9]+$/.test(compact)) return { input, error: { code: "notDigits" } };
  if (compact.length !== 12) return { input, error: { code: "length", count: compact.length } };
  const expected = checkDigit(compact.slice(0, 11));
  const found = Number(compact[11]);
  if (found !== expected) return { input, error: { code: "checkDigit", found, expected } };
  return { input, digits: compact };
}

/** The check digit: the first eleven digits as one number, modulo 7. */
export function checkDigit(eleven) {
  let remainder = 0;
  for (const digit of eleven) remainder = (remainder * 10 + Number(digit)) % 7;
  return remainder;
}

/** `XXXX-XXXX-XXXX`, as Yamato prints it. */
export function formatNumber(digits) {
  return `${digits.slice(0, 4)}-${digits.slice(4, 8)}-${digits.slice(8)}`;
}
