const wordPattern = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[\p{L}\p{N}]+/gu;
const cjkPattern = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

/**
 * The terms a text is indexed and searched by, the same for every storage
 * backend: words of letters and digits, lower-cased (`home_city` gives
 * `home` and `city`), and for Chinese, Japanese or Korean runs, which have
 * no spaces, each character and each pair of neighbouring characters, so
 * `上海` matches `我住在上海市` without a dictionary. Unique, in order.
 * With `query`, a run of several such characters gives only its pairs (a
 * lone character would match too much).
 *
 * @example
 * searchTerms('Lives in 上海市');
 * // ['lives', 'in', '上', '海', '市', '上海', '海市']
 * searchTerms('上海', { query: true });
 * // ['上海']
 */
export function searchTerms(text: string, { query = false }: { query?: boolean } = {}): string[] {
  const terms = new Set<string>();
  for (const match of text.normalize('NFKC').toLowerCase().matchAll(wordPattern)) {
    const word = match[0];
    if (!cjkPattern.test(word)) {
      terms.add(word);
      continue;
    }
    const characters = [...word];
    if (!query || characters.length === 1) for (const character of characters) terms.add(character);
    for (let index = 0; index + 1 < characters.length; index += 1) {
      terms.add(`${characters[index]}${characters[index + 1]}`);
    }
  }
  return [...terms];
}
