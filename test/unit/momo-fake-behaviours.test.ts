import fs from 'node:fs';
import path from 'node:path';
import { BEHAVIOUR_BY_SUFFIX, behaviourOf } from '../../src/rail/fake-partner/behaviours';

/** The fake partner's behaviour table, in code and in docs/partner-rail.md: the same suffixes. */
describe("the fake partner's behaviour table", () => {
  test('a party id chooses its behaviour by its last four digits; anything else succeeds', () => {
    expect(behaviourOf('233241230001')).toBe('refuse_later');
    expect(behaviourOf('233241230007')).toBe('slow');
    expect(behaviourOf('GCB:10000009')).toBe('late_callback');
    expect(behaviourOf('233241234567')).toBe('success');
    expect(behaviourOf('0000')).toBe('success');
    expect(behaviourOf('')).toBe('success');
  });

  test('docs/partner-rail.md lists every suffix of the code, and no other', () => {
    const doc = fs.readFileSync(path.resolve(__dirname, '../../docs/partner-rail.md'), 'utf8');
    const section = doc.slice(doc.indexOf('| partyId ends in |'));
    const table = section.slice(0, section.indexOf('\n\n'));
    const suffixes = [...table.matchAll(/^\| `(\d{4})` \|/gm)].map((m) => m[1]);
    expect(suffixes.sort()).toEqual(Object.keys(BEHAVIOUR_BY_SUFFIX).sort());
  });
});
