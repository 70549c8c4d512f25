/** How long a key hash found unknown is answered from memory. */
export const UNKNOWN_KEY_TTL_MS = 60_000;
/** Most key hashes remembered; the least recently seen goes first. */
export const UNKNOWN_KEY_MAX_ENTRIES = 10_000;

/**
 * Hashes of presented API keys that the database does not know (no such key, or revoked), kept for a
 * short time in a bounded LRU so that repeating an unknown key costs no query. Only negative answers
 * are kept: a known key is looked up (and checked for revocation) on every request. Keys are 32
 * random base62 characters, so a key issued later was never presented before; issuing one also
 * forgets its hash here (same process).
 */
export class UnknownKeyCache {
  private readonly entries = new Map<string, number>();

  constructor(
    readonly ttlMs = UNKNOWN_KEY_TTL_MS,
    readonly maxEntries = UNKNOWN_KEY_MAX_ENTRIES,
    private readonly now: () => number = Date.now,
  ) {}

  /** True while `hash` is remembered as unknown (and makes it the most recently seen). */
  has(hash: string): boolean {
    const expires = this.entries.get(hash);
    if (expires === undefined) return false;
    this.entries.delete(hash);
    if (expires <= this.now()) return false;
    this.entries.set(hash, expires);
    return true;
  }

  add(hash: string): void {
    this.entries.delete(hash);
    this.entries.set(hash, this.now() + this.ttlMs);
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(hash: string): void {
    this.entries.delete(hash);
  }

  get size(): number {
    return this.entries.size;
  }
}
