/**
 * The per-service PostgreSQL roles of docker-compose.yml (docker/postgres/roles.sql), applied to a
 * fresh database on the suite's real PostgreSQL: the migrator applies the migrations; the API and the
 * worker then start (their migration check is a no-op) and read and write rows, but cannot change the
 * schema; Temporal's role cannot even connect; none is a superuser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { migrate, openOrm, type Orm } from '../../src/persistence/orm';

const ROLES_SQL = fs.readFileSync(path.join(__dirname, '..', '..', 'docker', 'postgres', 'roles.sql'), 'utf8');
const ROLES = ['payments_migrator', 'payments_api', 'payments_worker', 'temporal'] as const;
const PASSWORD = randomBytes(12).toString('hex');
const DATABASE = `roles_${randomBytes(4).toString('hex')}`;

function urlFor(role: string | null, database = DATABASE): string {
  const url = new URL(process.env.TEST_DATABASE_URL ?? '');
  if (role) {
    url.username = role;
    url.password = PASSWORD;
  }
  url.pathname = `/${database}`;
  return url.toString();
}

async function withClient<T>(url: string, work: (c: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const superuserUrl = () => process.env.TEST_DATABASE_URL ?? '';
const orms: Orm[] = [];

beforeAll(async () => {
  await withClient(superuserUrl(), (c) => c.query(`create database ${DATABASE}`));
  await withClient(urlFor(null), async (c) => {
    await c.query(ROLES_SQL);
    // Applied twice: init-roles.sh is re-run by hand on an existing volume.
    await c.query(ROLES_SQL);
    for (const role of ROLES) await c.query(`alter role ${role} password '${PASSWORD}'`);
  });
});

afterAll(async () => {
  for (const orm of orms) await orm.close();
  await withClient(superuserUrl(), (c) => c.query(`drop database if exists ${DATABASE} with (force)`));
});

async function ormAs(role: string): Promise<Orm> {
  const orm = await openOrm(urlFor(role), 2);
  orms.push(orm);
  return orm;
}

test('no role is a superuser or may create databases or roles', async () => {
  const rows = await withClient(superuserUrl(), async (c) => (await c.query('select rolname, rolsuper, rolcreatedb, rolcreaterole from pg_roles where rolname = any($1) order by rolname', [ROLES])).rows);
  expect(rows).toHaveLength(ROLES.length);
  for (const r of rows) expect(r).toMatchObject({ rolsuper: false, rolcreatedb: false, rolcreaterole: false });
});

test('payments_migrator applies the migrations and owns what they create', async () => {
  const orm = await ormAs('payments_migrator');
  await migrate(orm);
  const owners = await orm.em.getConnection().execute<Array<{ owner: string }>>(`select distinct tableowner as owner from pg_tables where schemaname = 'public'`);
  expect(owners).toEqual([{ owner: 'payments_migrator' }]);
});

test.each(['payments_api', 'payments_worker'])('%s starts (migration check) and writes rows, but cannot change the schema', async (role) => {
  const orm = await ormAs(role);
  await expect(migrate(orm)).resolves.toBeUndefined();
  const conn = orm.em.getConnection();
  const id = `mrc_roles_${role}`;
  await conn.execute(`insert into merchants (id, name) values ('${id}', 'roles test')`);
  await conn.execute(`update merchants set verified_at = now() where id = '${id}'`);
  await expect(conn.execute(`select id from merchants where id = '${id}'`)).resolves.toEqual([{ id }]);
  await conn.execute(`delete from merchants where id = '${id}'`);
  await expect(conn.execute('create table intruder (id int)')).rejects.toThrow(/permission denied/);
  await expect(conn.execute('drop table merchants')).rejects.toThrow(/must be owner/);
  await expect(conn.execute('alter table charges add column intruder int')).rejects.toThrow(/must be owner/);
});

test('the temporal role cannot connect to the application database', async () => {
  await expect(withClient(urlFor('temporal'), (c) => c.query('select 1'))).rejects.toThrow(/permission denied for database/);
});

test('on a volume from before the split (tables owned by the superuser) the script hands everything to the migrator', async () => {
  const legacy = `${DATABASE}_legacy`;
  await withClient(superuserUrl(), (c) => c.query(`create database ${legacy}`));
  try {
    const superOrm = await openOrm(urlFor(null, legacy), 2);
    await migrate(superOrm);
    await superOrm.close();
    await withClient(urlFor(null, legacy), (c) => c.query(ROLES_SQL));
    const owners = await withClient(urlFor(null, legacy), async (c) => (await c.query(`select distinct tableowner from pg_tables where schemaname = 'public'`)).rows);
    expect(owners).toEqual([{ tableowner: 'payments_migrator' }]);
    const migrator = await openOrm(urlFor('payments_migrator', legacy), 2);
    await expect(migrate(migrator)).resolves.toBeUndefined();
    await migrator.close();
    const api = await openOrm(urlFor('payments_api', legacy), 2);
    await expect(api.em.getConnection().execute('select count(*) from charges')).resolves.toBeDefined();
    await api.close();
  } finally {
    await withClient(superuserUrl(), (c) => c.query(`drop database if exists ${legacy} with (force)`));
  }
});
