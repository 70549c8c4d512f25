import { API_BODY, findJsonProblem, FOREIGN_BODY } from '../../src/http/json-guard';

/** src/http/json-guard.ts: what JSON.parse lets through silently (issue 32, "Hostile bodies"). */
describe('findJsonProblem', () => {
  test.each([
    ['{"amount":1,"amount":2}', 'amount', /more than once/],
    ['{"a":{"x":1},"b":{"x":1,"x":1}}', 'b.x', /more than once/],
    ['{"\\u0061":1,"a":2}', 'a', /more than once/],
    ['{"__proto__":{}}', '__proto__', /not allowed/],
    ['{"metadata":[{"constructor":1}]}', 'metadata.0.constructor', /not allowed/],
    ['{"amount":9007199254740992}', 'amount', /beyond 2\^53/],
    ['{"metadata":{"n":-9007199254740992}}', 'metadata.n', /beyond 2\^53/],
    ['{"metadata":{"n":1e309}}', 'metadata.n', /too large/],
    ['{"amount":1.0}', 'amount', /whole number/],
    ['{"amount":1e2}', 'amount', /whole number/],
    ['{"amount":1E+2}', 'amount', /whole number/],
    ['{"amount":-0}', 'amount', /whole number/],
    ['{"amount":0.5}', 'amount', /whole number/],
  ])('%s: refused, naming %s', (text, param, message) => {
    const problem = findJsonProblem(text, API_BODY);
    expect(problem?.param).toBe(param);
    expect(problem?.message).toMatch(message);
  });

  test.each([
    '{"amount":9007199254740991}',
    '{"amount":-9007199254740991}',
    '{"amount":0}',
    '{"metadata":{"a":1.5,"b":1e2,"c":-0,"d":1.0,"e":[{"x":1},{"x":2}]}}',
    '{"a":{"x":1},"b":{"x":1}}',
    '{"prototype":1,"proto":2,"__proto":3}',
    '{"text":"\\"amount\\":1,\\"amount\\":2 __proto__ 1.5"}',
  ])('%s: accepted', (text) => {
    expect(findJsonProblem(text, API_BODY)).toBeUndefined();
  });

  test('a foreign body (the partner callback) has no integer fields, the other rules hold', () => {
    expect(findJsonProblem('{"amount":"1.5","fee":1.5,"x":-0}', FOREIGN_BODY)).toBeUndefined();
    expect(findJsonProblem('{"status":"SUCCESSFUL","status":"FAILED"}', FOREIGN_BODY)?.param).toBe('status');
    expect(findJsonProblem('{"n":12345678901234567890}', FOREIGN_BODY)?.param).toBe('n');
  });

  test('a body that is not an object names no field for its own numbers', () => {
    expect(findJsonProblem('1.5', API_BODY)).toEqual({ message: expect.stringMatching(/^The body must be a whole number/) });
  });
});
