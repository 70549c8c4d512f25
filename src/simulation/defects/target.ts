import type { Client } from '@temporalio/client';
import type { Orm } from '../../persistence/orm';
import type { FakePartner } from '../../rail/fake-partner';
import type { ActivityHooks } from '../activity-hooks';
import type { SendHooks } from '../send-hooks';

/**
 * What a defect needs from the engine: the activity hooks of its worker, the run's ORM (the
 * observer's: what a defect changes the books through), the fake partner (double submits), a client
 * of its Temporal (resolution-evidence-final), the hook into outgoing webhooks (unsigned-webhook) and
 * the ORM the API and the worker query through (overdraft-race patches its driver).
 */
export interface DefectTarget {
  hooks: Pick<ActivityHooks, 'afterActivity' | 'aroundActivity'>;
  orm: Orm;
  fakePartner?: FakePartner;
  client?: Client;
  sendHooks?: SendHooks;
  engineOrm?: Orm;
}
