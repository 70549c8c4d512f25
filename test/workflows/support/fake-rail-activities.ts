import type { RailActivities, RailSubmitOutcome } from '../../../activities/types';
import type { RailStepRequest } from '../../../src/domain/live-rail';
import type { RailStatus } from '../../../src/rail/partner-rail';

/**
 * In-memory stand-in for the partner rail's activities (activities/rail.ts). By default the worker
 * has no rail (`no_rail`: a live payment fails at once with partner_unavailable). `partner(...)`
 * scripts one: the submission's answer and the statuses answered in turn (the last one repeats).
 */
export class FakeRail {
  readonly submits: RailStepRequest[] = [];
  readonly statusCalls: RailStepRequest[] = [];
  private submitAnswer: RailSubmitOutcome = { kind: 'no_rail' };
  private statuses: RailStatus[] = [{ status: 'pending' }];

  partner(submit: RailSubmitOutcome, statuses: RailStatus[]): this {
    this.submitAnswer = submit;
    this.statuses = statuses.length ? statuses : [{ status: 'pending' }];
    return this;
  }

  readonly activities: RailActivities = {
    railSubmit: async (request) => {
      this.submits.push(request);
      return this.submitAnswer;
    },
    railStatus: async (request) => {
      this.statusCalls.push(request);
      return this.statuses.length > 1 ? this.statuses.shift()! : this.statuses[0];
    },
  };
}
