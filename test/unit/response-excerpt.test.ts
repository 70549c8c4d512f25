import { cutUtf8, responseExcerpt, safeExcerpt } from '../../src/domain/response-excerpt';

const utf8 = (s: string) => new TextEncoder().encode(s);
const bytesOf = (s: string) => Buffer.byteLength(s, 'utf8');
// What PostgreSQL text refuses or what no reader wants: NUL and C0 controls other than \t \n \r.
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

describe('response excerpt', () => {
  test('plain UTF-8 is kept as it is, tab, newline and carriage return included', () => {
    expect(responseExcerpt(utf8('ok\tfine\r\nAma Mensah · ₵150'), 1024)).toBe('ok\tfine\r\nAma Mensah · ₵150');
  });

  test('NUL and other C0 controls become U+FFFD', () => {
    expect(responseExcerpt(Uint8Array.from([0x61, 0x00, 0x62, 0x07, 0x1b, 0x63]), 1024)).toBe('a\uFFFDb\uFFFD\uFFFDc');
  });

  test('UTF-16 and binary come out as valid UTF-8 without controls', () => {
    for (const raw of [Buffer.from('\uFEFF{"error":"bad"}', 'utf16le'), Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x80, 0xc3])]) {
      const text = responseExcerpt(raw, 1024);
      expect(text).not.toMatch(UNSAFE);
      expect(Buffer.from(text, 'utf8').toString('utf8')).toBe(text); // round-trips: valid UTF-8
    }
    expect(responseExcerpt(Buffer.from('{"a":1}', 'utf16le'), 1024)).toBe('{\uFFFD"\uFFFDa\uFFFD"\uFFFD:\uFFFD1\uFFFD}\uFFFD');
  });

  test('cut at 1 KiB of UTF-8 on a character boundary', () => {
    // 1023 ASCII bytes then a 3-byte character: the character does not fit, and is not half-kept.
    const text = responseExcerpt(utf8('x'.repeat(1023) + '€€€'), 1024);
    expect(text).toBe('x'.repeat(1023));
    const euros = responseExcerpt(utf8('€'.repeat(400)), 1024);
    expect(euros).toBe('€'.repeat(341));
    expect(bytesOf(euros)).toBeLessThanOrEqual(1024);
  });

  test('replacement characters never push the excerpt past the limit', () => {
    const text = responseExcerpt(new Uint8Array(2048).fill(0xff), 1024); // each invalid byte becomes 3 bytes of U+FFFD
    expect(bytesOf(text)).toBeLessThanOrEqual(1024);
    expect(text).toBe('\uFFFD'.repeat(341));
  });

  test('safeExcerpt is idempotent, replaces lone surrogates and leaves pairs alone', () => {
    const once = safeExcerpt('a\u0000b\uD800c😀', 1024);
    expect(once).toBe('a\uFFFDb\uFFFDc😀');
    expect(safeExcerpt(once, 1024)).toBe(once);
    expect(cutUtf8('😀😀', 7)).toBe('😀');
  });
});
