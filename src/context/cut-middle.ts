/**
 * The text cut to at most `max` characters by removing its middle, which
 * keeps how a conversation started and where it stands now.
 *
 * @example
 * cutMiddle('a'.repeat(100), 40); // 'aaaaaaaaa\n[…cut 69 characters…]\naaaaaaaaa' (40 characters or fewer)
 */
export function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (cut: number) => `\n[…cut ${cut} characters…]\n`;
  const room = Math.max(0, max - marker(text.length).length);
  const front = Math.ceil(room / 2);
  const back = room - front;
  return `${text.slice(0, front)}${marker(text.length - room)}${back > 0 ? text.slice(text.length - back) : ''}`.slice(
    0,
    max,
  );
}
