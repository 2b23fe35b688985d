/**
 * Words that say nothing about which tool is meant ("please", "my", "can
 * you"): dropped from queries and documents alike.
 */
const englishStopWords = new Set(
  (
    'a an and are as at be been but by can could do does did for from have has had he her his how i if in into is it ' +
    'its me my no not of on or our please she so some than that the their them then there these they this to too ' +
    'us was we were what when where which who why will with would you your yours want need like just also any ' +
    'get got let lets would should may might must am shall hi hello thanks thank ok okay'
  ).split(' '),
);

/** Han, kana and Hangul: scripts written without spaces, indexed as character bigrams. */
const cjkRun = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
/** Everything else worth a word: letters and digits. */
const wordRun = /[\p{L}\p{N}]+/gu;

/**
 * Splits a text into search terms, the same way for tool definitions and
 * queries: identifiers split at `_`, `-`, `.` and camelCase humps
 * (`getOrderStatus` → get, order, status), lower-cased, common English
 * words dropped, a light stemming (refunds → refund, cancelled → cancel,
 * booking → book), identifiers with three or more digits dropped (order
 * numbers name no tool), and runs of Chinese, Japanese or Korean characters
 * turned into overlapping character bigrams (查询订单 → 查询, 询订, 订单),
 * a single character standing alone kept as it is.
 *
 * @example
 * tokenizeForSearch('cancelOrder: 取消订单'); // ['cancel', 'order', '取消', '消订', '订单']
 */
export function tokenizeForSearch(text: string): string[] {
  const terms: string[] = [];
  for (const match of text.matchAll(cjkRun)) {
    const run = [...match[0]];
    if (run.length === 1) terms.push(run[0] as string);
    for (let index = 0; index + 1 < run.length; index += 1) terms.push(`${run[index]}${run[index + 1]}`);
  }
  const spaced = text
    .replace(cjkRun, ' ')
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2');
  for (const match of spaced.matchAll(wordRun)) {
    const word = match[0].toLowerCase();
    if (englishStopWords.has(word) || /\d.*\d.*\d/.test(word)) continue;
    terms.push(stem(word));
  }
  return terms;
}

/** A light suffix stripper: enough to meet "refunds" with "refund", not a linguist's stemmer. */
function stem(word: string): string {
  if (word.length <= 3 || !/^[a-z]+$/.test(word)) return word;
  let stemmed = word;
  if (stemmed.endsWith('ies') && stemmed.length > 4) stemmed = `${stemmed.slice(0, -3)}y`;
  else if (stemmed.endsWith('sses')) stemmed = stemmed.slice(0, -2);
  else if (/(?:xes|ches|shes)$/.test(stemmed)) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith('s') && !/(?:ss|us|is)$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  if (stemmed.endsWith('ing') && stemmed.length > 5) stemmed = undouble(stemmed.slice(0, -3));
  else if (stemmed.endsWith('ed') && stemmed.length > 4) stemmed = undouble(stemmed.slice(0, -2));
  return stemmed;
}

/** shipp → ship, cancell → cancel; "call", "fill", "install" and "pass" stay. */
function undouble(word: string): string {
  if (/([b-df-hj-kmnp-rtvwy])\1$/.test(word)) return word.slice(0, -1);
  return /ell$/.test(word) && word.length > 5 ? word.slice(0, -1) : word;
}
