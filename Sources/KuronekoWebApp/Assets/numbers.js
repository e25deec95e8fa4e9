// Tracking numbers as people type or paste them: full-width digits and letters, hyphens of every kind,
// spaces inside a number; numbers separated by new lines, commas, semicolons or tabs. The forms are the
// server's (TrackingNumber): 12 digits (Yamato, Sagawa, ゆうパック; the last the first eleven mod 7), 10
// (Sagawa), 11 (Japan Post's 書留; the last the first ten mod 7), 13 (Japan Post), and international
// numbers like EN123456785JP (the ninth digit by the UPU S10 weights).

const DASHES = /[\u2010-\u2015\u2212\u30fc\uff0d\u2043\ufe63-]/g;

/** The pasted text split into the numbers it holds, each as typed (trimmed). */
export function splitNumbers(text) {
  return text.normalize("NFKC").split(/[\n\r,;\t、]+/).map((item) => item.trim()).filter((item) => item !== "");
}

/** Checks one number: `{input, digits}` when it is valid, `{input, error: {code, ...}}` when not. */
export function checkNumber(input) {
  const compact = input.normalize("NFKC").replace(DASHES, "").replace(/\s+/g, "").toUpperCase();
  if (/^[A-Z]{2}[0-9]{9}[A-Z]{2}$/.test(compact)) {
    const expected = s10CheckDigit(compact.slice(2, 10));
    const found = Number(compact[10]);
    if (found !== expected) return { input, error: { code: "checkDigit", found, expected } };
    return { input, digits: compact };
  }
  if (!/^[0-9]+$/.test(compact)) return { input, error: { code: "notDigits" } };
  if (compact.length < 10 || compact.length > 13) return { input, error: { code: "length", count: compact.length } };
  if (compact.length === 11 || compact.length === 12) {
    const expected = checkDigit(compact.slice(0, -1));
    const found = Number(compact[compact.length - 1]);
    if (found !== expected) return { input, error: { code: "checkDigit", found, expected } };
  }
  return { input, digits: compact };
}

/** The check digit of the 12- and 11-digit forms: the digits before it as one number, modulo 7. */
export function checkDigit(leading) {
  let remainder = 0;
  for (const digit of leading) remainder = (remainder * 10 + Number(digit)) % 7;
  return remainder;
}

/** The UPU S10 check digit of eight serial digits. */
export function s10CheckDigit(serial) {
  const weights = [8, 6, 4, 2, 3, 5, 9, 7];
  const sum = [...serial].reduce((total, digit, index) => total + Number(digit) * weights[index], 0);
  const check = 11 - (sum % 11);
  return check === 10 ? 0 : check === 11 ? 5 : check;
}

/** As its carrier prints it: `XXXX-XXXX-XXXX` for 12 digits, `XXX-XX-XXXXX-X` for 書留, the rest as they are. */
export function formatNumber(digits) {
  if (/^[0-9]{12}$/.test(digits)) return `${digits.slice(0, 4)}-${digits.slice(4, 8)}-${digits.slice(8)}`;
  if (/^[0-9]{11}$/.test(digits)) return `${digits.slice(0, 3)}-${digits.slice(3, 5)}-${digits.slice(5, 10)}-${digits.slice(10)}`;
  return digits;
}
