/**
 * Keeps the beginning and the end of a command's output, however much it prints: everything in
 * between is counted and dropped, so a command printing gigabytes neither blocks on a full pipe nor
 * fills memory.
 */
export class OutputCapture {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  private total = 0;

  /**
   * @param maxChars what {@link text} may return at most (plus the truncation notes)
   * @param tailShare the part of `maxChars` kept for the end of the output
   */
  constructor(
    private readonly maxChars: number,
    private readonly tailShare = 0.2,
  ) {}

  /** Bytes kept from the start: one per character at least, so `maxChars` characters always fit. */
  private get headLimit(): number {
    return this.maxChars;
  }

  private get tailLimit(): number {
    return Math.floor(this.maxChars * this.tailShare);
  }

  /** Bytes seen so far. */
  get totalBytes(): number {
    return this.total;
  }

  push(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    if (this.headBytes < this.headLimit) {
      const take = Math.min(rest.length, this.headLimit - this.headBytes);
      this.head.push(Buffer.from(rest.subarray(0, take)));
      this.headBytes += take;
      rest = rest.subarray(take);
    }
    const limit = this.tailLimit;
    if (rest.length === 0 || limit === 0) return;
    if (rest.length >= limit) {
      this.tail = [Buffer.from(rest.subarray(rest.length - limit))];
      this.tailBytes = limit;
      return;
    }
    this.tail.push(Buffer.from(rest));
    this.tailBytes += rest.length;
    while (this.tail.length > 1 && this.tailBytes - this.tail[0]!.length >= limit) {
      this.tailBytes -= this.tail.shift()!.length;
    }
  }

  /** The output as text: all of it if it fits, else its start and end with a note saying how much was cut. */
  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    if (this.total === this.headBytes && head.length <= this.maxChars) return head;

    const tailText = Buffer.concat(this.tail).toString('utf8');
    const tailChars = Math.min(tailText.length, this.tailLimit);
    const shownTail = tailChars > 0 ? tailText.slice(tailText.length - tailChars) : '';
    const shownHead = head.slice(0, Math.max(0, this.maxChars - shownTail.length));
    const shown = Buffer.byteLength(shownHead) + Buffer.byteLength(shownTail);
    const omitted = Math.max(0, this.total - shown);
    const middle = shownTail === '' ? '' : `\n[… ${omitted} bytes omitted …]\n${shownTail}`;
    return `${shownHead}${middle}\n[output truncated: ${shown} of ${this.total} bytes shown]`;
  }
}
