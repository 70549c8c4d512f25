import { createSimTemplate, simServerUrl, type SimTemplate } from '../../src/simulation/sim-database';

/**
 * One template database for the file (migrated once, src/simulation/sim-database.ts), made before its
 * tests and dropped after them: every session of the file starts from a copy of it. Returns a getter
 * (the template exists only once `beforeAll` ran).
 */
export function simTemplateForFile(): () => SimTemplate {
  let template: SimTemplate | undefined;
  beforeAll(async () => {
    template = await createSimTemplate(simServerUrl());
  }, 120_000);
  afterAll(async () => {
    await template?.drop();
  });
  return () => {
    if (!template) throw new Error('the simulation template is made in beforeAll: call the getter inside a test');
    return template;
  };
}
