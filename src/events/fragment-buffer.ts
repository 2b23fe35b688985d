/** The first block's size; each next block doubles, up to `largestBlock`. */
const firstBlock = 64;
/**
 * 4,096 references (32 KiB), a regular young object. Blocks of 65,536 (in
 * V8's large-object space, which a scavenge never copies) cost the stalled
 * path more: with the events bench's stalled subscriber, the producer's
 * extra CPU time per event fell from 0.08-0.11 of an emit (medians of
 * runs) to 0.05-0.07, alike with 1,024, 4,096 or 8,192, though the
 * collector now copies each block up to twice before it is old. Likely why: V8 writes a
 * whole new block (the holes) when it makes it, and a 512 KiB block has
 * left the cache long before the emitter's stores reach its end; a 32 KiB
 * one has not. Measure again before changing it.
 */
const largestBlock = 4096;
/**
 * The block of a buffer that holds none: empty, never written (`append`
 * replaces it first), and of the same kind as a real block, an array of
 * strings with holes, so the emitter's inlined `append` sees one kind of
 * block and checks it once.
 */
const noBlock: string[] = new Array<string>(1);
noBlock[0] = '';
noBlock.length = 0;

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
  #block: string[] = noBlock;
  /** Slots of `#block` in use. */
  #used = 0;

  /** How many fragments are held. */
  get size(): number {
    return this.#fullSize + this.#used;
  }

  append(text: string): void {
    const block = this.#block;
    const used = this.#used;
    // The common case returns at once: a path joining it after `#startBlock` would check the fields again.
    if (used < block.length) {
      block[used] = text;
      this.#used = used + 1;
      return;
    }
    this.#startBlock(text);
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
    this.#block = noBlock;
    this.#used = 0;
  }

  /** Moves the fragments of the open block among the full blocks, so what is appended next comes after them. */
  #seal(): void {
    if (this.#used === 0) return;
    this.#pushFull(this.#used === this.#block.length ? this.#block : this.#block.slice(0, this.#used));
    this.#block = noBlock;
    this.#used = 0;
  }

  #pushFull(block: readonly string[]): void {
    this.#full.push(block);
    this.#fullSize += block.length;
  }

  /** Puts the open block among the full ones (none while empty) and opens the next, twice as large, with `first` in it. */
  #startBlock(first: string): void {
    const size = this.#block.length;
    if (size > 0) this.#pushFull(this.#block);
    const block = new Array<string>(Math.min(Math.max(firstBlock, size * 2), largestBlock));
    // Stored before the field holds the block, so every block the field holds is already an array of strings.
    // Not `fill`: a pass over a block V8 has just initialised cost 2.5 ns a slot, paid by the emitter.
    block[0] = first;
    this.#block = block;
    this.#used = 1;
  }
}
