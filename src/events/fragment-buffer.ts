/** The first block's size; each next block doubles, up to `largestBlock`. */
const firstBlock = 64;
/**
 * 65,536 references (512 KiB). A block of 16,384 or more lands in V8's
 * large-object space, which a scavenge never copies: a long stall's text
 * then costs the young-generation collector nothing per fragment (held in
 * blocks that stay regular objects, each scavenge copied them again, and
 * the stalled subscriber's cost to the producer was mostly that).
 */
const largestBlock = 65_536;

/**
 * Text fragments held by reference and joined only when read. Appending
 * stores one reference in a block allocated ahead at its full size, so it
 * allocates nothing per fragment and never copies earlier fragments.
 *
 * @example
 * const pending = new FragmentBuffer();
 * pending.append('Hel');
 * pending.append('lo');
 * pending.take(); // 'Hello'
 * pending.size; // 0
 */
export class FragmentBuffer {
  /** Blocks filled to their last slot, oldest first; never changed once here (another buffer may share them). */
  #full: (readonly string[])[] = [];
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

  /** Appends every fragment of `other`, in order, without copying its full blocks; `other` is left as it was. */
  appendAll(other: FragmentBuffer): void {
    if (other.size === 0) return;
    this.#seal();
    for (const block of other.#full) this.#pushFull(block);
    if (other.#used > 0) this.#pushFull(other.#block.slice(0, other.#used));
  }

  /** Every fragment held, joined in order; the buffer is left empty. */
  take(): string {
    let text = '';
    for (const block of this.#full) text += block.join('');
    if (this.#used > 0)
      text += (this.#used === this.#block.length ? this.#block : this.#block.slice(0, this.#used)).join('');
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

  /** Moves the fragments of the open block among the full blocks, so what is appended next comes after them. */
  #seal(): void {
    if (this.#used === 0) return;
    this.#pushFull(this.#used === this.#block.length ? this.#block : this.#block.slice(0, this.#used));
    this.#block = [];
    this.#used = 0;
  }

  #pushFull(block: readonly string[]): void {
    this.#full.push(block);
    this.#fullSize += block.length;
  }

  #nextBlock(): void {
    const size = this.#block.length;
    if (size > 0) this.#pushFull(this.#block);
    // Filled, so every block holds strings from the start and the store in `append` sees one kind of array.
    this.#block = new Array<string>(Math.min(Math.max(firstBlock, size * 2), largestBlock)).fill('');
    this.#used = 0;
  }
}
