/** The first block's size; each next block doubles, up to `largestBlock`. */
const firstBlock = 64;
/** 8,192 references (64 KiB): a long stall adds a block rarely, and a block stays a regular heap object. */
const largestBlock = 8192;

/**
 * Text fragments held by reference and joined only when read. Appending
 * stores one reference in a block allocated ahead at its full size, so it
 * allocates nothing per fragment and never copies earlier fragments (a
 * growing array would copy each one several times). Joining costs about as
 * much per fragment as emitting an event, so it is left to whoever reads
 * the text.
 *
 * @example
 * const pending = new FragmentBuffer();
 * pending.append('Hel');
 * pending.append('lo');
 * pending.append('!');
 * pending.textFrom(1); // 'lo!'
 * pending.take(); // 'Hello!'
 * pending.size; // 0
 */
export class FragmentBuffer {
  /** Blocks filled to their last slot, oldest first. */
  #full: string[][] = [];
  /** Fragments in `#full`. */
  #fullSize = 0;
  #block: string[] = [];
  /** Slots of `#block` in use. */
  #used = 0;

  /** How many fragments are held. */
  get size(): number {
    return this.#fullSize + this.#used;
  }

  append(text: string): void {
    if (this.#used === this.#block.length) this.#nextBlock();
    this.#block[this.#used] = text;
    this.#used += 1;
  }

  /** The fragments from the `start`th (0 for the first held) to the last, joined in order; nothing is removed. */
  textFrom(start: number): string {
    let text = '';
    let first = 0;
    for (const block of this.#full) {
      if (start < first + block.length) text += (start > first ? block.slice(start - first) : block).join('');
      first += block.length;
    }
    return text + this.#block.slice(Math.max(0, start - first), this.#used).join('');
  }

  /** Every fragment held, joined in order; the buffer is left empty. */
  take(): string {
    const text = this.textFrom(0);
    this.clear();
    return text;
  }

  /** Forgets every fragment. */
  clear(): void {
    this.#full = [];
    this.#fullSize = 0;
    this.#block = [];
    this.#used = 0;
  }

  #nextBlock(): void {
    const size = this.#block.length;
    if (size > 0) {
      this.#full.push(this.#block);
      this.#fullSize += size;
    }
    // Filled, so every block holds strings from the start and the store in `append` sees one kind of array.
    this.#block = new Array<string>(Math.min(Math.max(firstBlock, size * 2), largestBlock)).fill('');
    this.#used = 0;
  }
}
