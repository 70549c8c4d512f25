import { NOT_FOUND_EXCERPT_BYTES, readNotFound } from '../../src/rail/momo-not-found';
import { parseJson } from '../../src/rail/momo-status';

/** Issue 43: a 404 to a status request is `unknown` only when the partner says it does not know the reference. */
const answer = (text: string) => ({ text, json: text.trim() ? parseJson(text) : undefined });

describe('a 404 to a status request', () => {
  test('the partner\'s RESOURCE_NOT_FOUND (MoMo\'s error shape, in any case, with a message) is unknown', () => {
    expect(readNotFound(answer('{"code":"RESOURCE_NOT_FOUND","message":"Requested resource was not found."}'))).toEqual({ status: 'unknown' });
    expect(readNotFound(answer('{"code":" resource_not_found "}'))).toEqual({ status: 'unknown' });
  });

  test.each([
    ['an HTML page of a proxy', '<html><head><title>404 Not Found</title></head><body><center><h1>404 Not Found</h1></center><hr><center>nginx</center></body></html>', /body starts "<html><head><title>404 Not Found<\/title>/],
    ["the API gateway's own answer to a wrong base path", '{ "statusCode": 404, "message": "Resource not found" }', /body starts "\{ "statusCode": 404, "message": "Resource not found" \}"/],
    ['an empty body', '', /empty body/],
    ['another reason', '{"code":"PAYER_NOT_FOUND"}', /reason PAYER_NOT_FOUND/],
    ['a plain text', 'Not Found', /body starts "Not Found"/],
  ])('%s is no answer, never unknown, named with the body\'s first bytes', (_what, text, says) => {
    const read = readNotFound(answer(text));
    expect(read).not.toHaveProperty('status');
    expect('noAnswer' in read && read.noAnswer).toMatch(says);
    expect('noAnswer' in read && read.noAnswer).toMatch(/does not say the partner does not know the reference .*the engine keeps asking/);
  });

  test('a long or binary body is cut to a safe excerpt', () => {
    const read = readNotFound(answer(`\u0000${'x'.repeat(5_000)}`));
    expect('noAnswer' in read).toBe(true);
    const body = /body starts "([^"]*)"/.exec((read as { noAnswer: string }).noAnswer)![1];
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(NOT_FOUND_EXCERPT_BYTES);
    expect(body).not.toMatch(/\u0000/);
  });
});
