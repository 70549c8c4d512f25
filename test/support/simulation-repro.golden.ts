/**
 * A reproduction written by `npm run simulate` (issue 33, docs/simulation.md, src/simulation/repro-file.ts).
 * Seed 1234: after step 4 (sandbox_charge {"amount":1500,"outcome":"succeeded","note":null,"live":false}) the invariant
 * "balances" failed:
 *   merchant m_1 sandbox available 0 but its succeeded charges say 1455
 *   a second * / line with a break
 * The shrinker cut the plan from 200 steps to the 2 below (steps keep their number in
 * the original plan). The test replays them on a fresh engine with every invariant and expects none to
 * fail: it fails while the defect is there, and guards the fix once it is gone.
 */
import { startEngine } from '../../src/simulation/engine';
import { ALL_INVARIANTS } from '../../src/simulation/invariants';
import { runPlan } from '../../src/simulation/run';
import type { Plan } from '../../src/simulation/types';

const PLAN: Plan = {
  "seed": 1234,
  "steps": [
    {
      "n": 0,
      "kind": "create_merchant",
      "params": {
        "name": "m0 */ not a comment end"
      }
    },
    {
      "n": 4,
      "kind": "sandbox_charge",
      "refs": [
        {
          "kind": "merchant",
          "index": 0
        }
      ],
      "params": {
        "amount": 1500,
        "outcome": "succeeded",
        "note": null,
        "live": false
      }
    }
  ]
};

test("simulation seed 1234 (2 of 200 steps): balances holds after every step", async () => {
  const engine = await startEngine({ seed: PLAN.seed });
  try {
    const result = await runPlan(engine, PLAN, ALL_INVARIANTS);
    const failure = result.failure && { step: result.failure.step, violations: result.failure.violations };
    expect(failure).toBeNull();
  } finally {
    await engine.close();
  }
}, 600_000);
