// How the chat page's approval card and the approver's desk show a tool's
// argument fields: one rule for both pages. A tool declares a field's look
// in its definition (`display: { amount_cents: { kind: 'money', currency:
// 'CNY' } }`) and the server sends it with the arguments; without one, a
// number under a `…_cents` name reads as an amount with two decimals and
// anything else as it is. Dates always carry the month's name, never
// 06/12/2026.

/** Field names in Chinese, for the fields both pages show most; any other keeps its name. */
const chineseLabels = {
  order_id: '订单号',
  amount: '金额',
  reason: '原因',
  reason_category: '原因类别',
  note: '备注',
  refund_no: '退款单号',
};

/** The locale a page language formats with: British English puts the day first and names the month. */
function formatLocale(lang) {
  return lang === 'zh-CN' ? 'zh-CN' : 'en-GB';
}

/**
 * `order_id` → "Order id" in English; Chinese keeps the field name.
 *
 * @example
 * humanize('apply_refund', 'en'); // 'Apply refund'
 */
export function humanize(name, lang = 'en') {
  const words = String(name).replaceAll('_', ' ');
  return lang === 'zh-CN' ? words : words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * An instant with the month's name, the time and the time zone.
 *
 * @example
 * formatDateTime('2026-12-06T09:17:17Z', 'en'); // '6 Dec 2026, 09:17:17 UTC'
 * formatDateTime('2026-12-06T09:17:17Z', 'zh-CN'); // '2026年12月6日 UTC 09:17:17'
 */
export function formatDateTime(value, lang) {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleString(formatLocale(lang), { dateStyle: 'medium', timeStyle: 'long' });
}

/**
 * A calendar day (`2026-12-06`) with the month's name, whatever the reader's time zone.
 *
 * @example
 * formatDate('2026-12-06', 'en'); // '6 Dec 2026'
 */
export function formatDate(value, lang) {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(String(value)) ? `${value}T00:00:00Z` : value;
  const date = new Date(day);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.toLocaleDateString(formatLocale(lang), { dateStyle: 'medium', timeZone: 'UTC' });
}

/**
 * An amount of money: "200.00 CNY" in English (the code, as "¥" is also the
 * yen's sign), "¥200.00" in Chinese. `unit: 'minor'` (the default) counts
 * the currency's smallest unit (fen, cents; none for JPY).
 *
 * @example
 * formatMoney({ value: 20000, currency: 'CNY', lang: 'en' }); // '200.00 CNY'
 * formatMoney({ value: 20000, currency: 'CNY', lang: 'zh-CN' }); // '¥200.00'
 */
export function formatMoney({ value, currency, unit = 'minor', lang }) {
  let digits;
  try {
    digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    return String(value);
  }
  const amount = unit === 'major' ? value : value / 10 ** digits;
  if (lang === 'zh-CN') return new Intl.NumberFormat('zh-CN', { style: 'currency', currency }).format(amount);
  const number = new Intl.NumberFormat('en', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return `${number.format(amount)} ${currency}`;
}

/**
 * One argument field as a person reads it: its label (`labels[name]` first,
 * by default the Chinese names of common fields in zh-CN, else the
 * humanized name, without a `_cents` ending) and its value.
 *
 * @example
 * describeField({ field: 'amount_cents', value: 20000, display: { kind: 'money', currency: 'CNY' }, lang: 'en' });
 * // { label: 'Amount', shown: '200.00 CNY' }
 */
export function describeField({ field, value, display, lang, labels = lang === 'zh-CN' ? chineseLabels : {} }) {
  const cents = field.endsWith('_cents') && typeof value === 'number';
  const key = cents ? field.slice(0, -'_cents'.length) : field;
  const label = labels[key] ?? labels[field] ?? humanize(key, lang);
  if (display?.kind === 'money' && typeof value === 'number') {
    return { label, shown: formatMoney({ value, currency: display.currency, unit: display.unit, lang }) };
  }
  if (display?.kind === 'date' && (typeof value === 'string' || typeof value === 'number')) {
    return { label, shown: formatDate(value, lang) };
  }
  if (display?.kind === 'datetime' && (typeof value === 'string' || typeof value === 'number')) {
    return { label, shown: formatDateTime(value, lang) };
  }
  if (cents) return { label, shown: (value / 100).toFixed(2) };
  return { label, shown: typeof value === 'string' ? value : JSON.stringify(value) };
}
