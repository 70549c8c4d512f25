import type { Harness } from './harness';

/**
 * A test trigger on `charges`: a status change of a charge whose `your_reference` is listed in
 * `table` raises `errcode` (22023: refused for good, the step does not retry; 40001: transient, it
 * retries); every other write goes through. `remove()` drops the trigger, its function and the table.
 */
export async function installChargeStatusTrigger(h: Harness, name: string, errcode: '22023' | '40001'): Promise<{ remove(): Promise<void> }> {
  const sql = (text: string) => h.orm.em.getConnection().execute(text);
  await sql(`create table if not exists ${name}_charges (reference text primary key)`);
  await sql(`create or replace function ${name}() returns trigger language plpgsql as $$
    begin
      if new.status <> old.status and exists (select 1 from ${name}_charges where reference = new.your_reference) then
        raise exception 'test: charge % refused', new.id using errcode = '${errcode}';
      end if;
      return new;
    end $$`);
  await sql(`create trigger ${name} before update on charges for each row execute function ${name}()`);
  return {
    async remove() {
      await sql(`drop trigger if exists ${name} on charges`).catch(() => undefined);
      await sql(`drop function if exists ${name}()`).catch(() => undefined);
      await sql(`drop table if exists ${name}_charges`).catch(() => undefined);
    },
  };
}
