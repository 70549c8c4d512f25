/**
 * A reproduction written by `npm run simulate` (issue 33, docs/simulation.md, src/simulation/repro-file.ts).
 * Seed 1000: after step 113 (dispute_evidence {"text":"Delivery note 6845: the customer signed for the goods."}) the invariant
 * "no forbidden transition, no payment in two terminal states" failed:
 *   dispute dp_jhK3I79rMZcx1SAOUwc1MU4F: status under_review, but its last event says needs_response
 * The shrinker cut the plan from 114 steps to the 5 below (steps keep their number in
 * the original plan). The test replays them on a fresh engine with every invariant and expects none to
 * fail: it fails while the defect is there, and guards the fix once it is gone.
 */
import { startEngine } from '../../src/simulation/engine';
import { ALL_INVARIANTS } from '../../src/simulation/invariants';
import { runPlan } from '../../src/simulation/run';
import type { Plan } from '../../src/simulation/types';

const PLAN: Plan = {
  "seed": 1000,
  "steps": [
    {
      "n": 0,
      "kind": "create_merchant",
      "params": {
        "name": "Sim 1000 #1",
        "review_threshold": 2200,
        "verified": true,
        "settlement_account": "001484504295",
        "ref_index": 0
      }
    },
    {
      "n": 77,
      "kind": "sandbox_charge",
      "refs": [
        {
          "kind": "merchant",
          "index": 0
        }
      ],
      "params": {
        "amount": 17594,
        "currency": "GHS",
        "channel": "mobile_money",
        "momo_network_id": "3f9c2b1e-8a4d-4c6e-9b7a-1d2e3f4a5b01",
        "identifier": "233242727540",
        "outcome": "succeed",
        "idempotency_key": "ebab8e14-1afb-4601-845d-cf6d49efa2b6",
        "ref_index": 25,
        "request_index": 41
      }
    },
    {
      "n": 80,
      "kind": "time_jump",
      "params": {
        "ms": 45000
      }
    },
    {
      "n": 81,
      "kind": "dispute",
      "refs": [
        {
          "kind": "charge",
          "index": 25
        }
      ],
      "params": {
        "amount": null,
        "reason": "credit_not_processed",
        "idempotency_key": "1c54fdb5-6e2b-40ec-a8a9-1b115e90fec1",
        "ref_index": 5,
        "request_index": 44
      }
    },
    {
      "n": 113,
      "kind": "dispute_evidence",
      "refs": [
        {
          "kind": "dispute",
          "index": 5
        }
      ],
      "params": {
        "text": "Delivery note 6845: the customer signed for the goods."
      }
    }
  ]
};

test("simulation seed 1000 (5 of 114 steps): no forbidden transition, no payment in two terminal states holds after every step", async () => {
  const engine = await startEngine({ seed: PLAN.seed });
  try {
    const result = await runPlan(engine, PLAN, ALL_INVARIANTS);
    const failure = result.failure && { step: result.failure.step, violations: result.failure.violations };
    expect(failure).toBeNull();
    // Added by hand: the run took the path of the report (the evidence recorded, the dispute under review).
    expect(result.trace.at(-1)).toMatchObject({ kind: 'dispute_evidence', result: 'done' });
    expect(result.trace.at(-1)!.detail).toContain('under_review');
  } finally {
    await engine.close();
  }
}, 600_000);
