import { memberSourceJson, minifyJson } from '../../src/support/raw-json';

describe('metadata kept as sent', () => {
  test('keeps key order (integer-like keys too), number spelling and escapes; drops whitespace', () => {
    const text = '{ "amount": 1, "metadata": { "zeta" : "a b", "10": [1, 2.50, 1e3, "\\" x"], "n": null }, "x": 2 }';
    expect(memberSourceJson(text, 'metadata', JSON.parse(text).metadata)).toBe('{"zeta":"a b","10":[1,2.50,1e3,"\\" x"],"n":null}');
  });

  test('a repeated member resolves as JSON.parse does (the parsed value wins)', () => {
    const text = '{"metadata":{"a":1},"metadata":{"b":2}}';
    expect(memberSourceJson(text, 'metadata', JSON.parse(text).metadata)).toBe('{"b":2}');
  });

  test('minify leaves string contents alone', () => {
    expect(minifyJson('{"a" : "x\\u0041  y" , "b":[ ]}')).toBe('{"a":"x\\u0041  y","b":[]}');
  });
});
