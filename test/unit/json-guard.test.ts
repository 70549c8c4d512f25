import { API_BODY, findJsonProblem, FOREIGN_BODY, writtenInteger } from '../../src/http/json-guard';

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
    ['{"amount":9007199254740993.0}', 'amount', /beyond 2\^53/],
    ['{"amount":1e16}', 'amount', /beyond 2\^53/],
    ['{"amount":90071992547409920e-1}', 'amount', /beyond 2\^53/],
    ['{"amount":0.5}', 'amount', /whole number/],
    ['{"amount":1.5}', 'amount', /whole number/],
    ['{"amount":4503599627370496.5}', 'amount', /whole number/],
    ['{"amount":1.000000000000000000001}', 'amount', /whole number/],
    ['{"amount":15e-1}', 'amount', /whole number/],
    ['{"amount":1e-400}', 'amount', /whole number/],
  ])('%s: refused, naming %s', (text, param, message) => {
    const problem = findJsonProblem(text, API_BODY);
    expect(problem?.param).toBe(param);
    expect(problem?.message).toMatch(message);
  });

  test.each([
    '{"amount":9007199254740991}',
    '{"amount":-9007199254740991}',
    '{"amount":0}',
    '{"amount":1.0}',
    '{"amount":1e2}',
    '{"amount":1E+2}',
    '{"amount":150E2}',
    '{"amount":15000.000}',
    '{"amount":-0}',
    '{"amount":90071992547409910e-1}',
    '{"amount":0.0e5}',
    '{"metadata":{"a":1.5,"b":1e2,"c":-0,"d":1.0,"e":[{"x":1},{"x":2}],"f":6.02e23,"g":4503599627370496.5}}',
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

  test('writtenInteger reads the text, never the rounded double', () => {
    expect(['9007199254740991', '-9007199254740991', '9.007199254740991e15', '0.0', '-0', '10e0', '1e1'].map(writtenInteger)).toEqual(Array(7).fill('safe'));
    expect(['9007199254740992', '-9007199254740992', '1e16', '1e999999999', '12345678901234567890'].map(writtenInteger)).toEqual(Array(5).fill('unsafe'));
    expect(['0.1', '4503599627370496.5', '1e-1', '1.0000000000000000001', '5e-999999999'].map(writtenInteger)).toEqual(Array(5).fill('fraction'));
  });
});
