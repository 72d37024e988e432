/**
 * A PostgreSQL server that stops answering without closing the connection:
 * the statement fails after the client-side read timeout (a 503 upstream),
 * and the connection it hung on is dropped rather than handed to the next
 * statement (src/db/index.ts, callbackQueries()).
 */
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/index.js';
import { createTestStore, type TestStore } from '../helpers/db.js';
import { serviceAvailable } from '../helpers/services.js';

/** forwards to the server; while stalled, the server's answers are swallowed (the socket stays open) */
async function stallingProxy(target: { host: string; port: number }) {
  let stalled = false;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!stalled) client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    stall: (on: boolean) => {
      stalled = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe.skipIf(!(await serviceAvailable('postgres')))('PostgreSQL that stops answering', () => {
  let store: TestStore;
  let proxy: Awaited<ReturnType<typeof stallingProxy>>;
  let db: Store;

  beforeAll(async () => {
    store = await createTestStore('postgres');
    await (await store.open()).close();
    const url = new URL(store.url);
    proxy = await stallingProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    // one connection, so that a hung one would be the one the next statement gets;
    // read timeout = statement timeout + 1 s
    db = openStore({ kind: 'postgres', url: url.toString() }, { pgPoolSize: 1, pgStatementTimeoutMs: 300 });
  });
  afterAll(async () => {
    await db?.close().catch(() => {});
    await proxy?.close();
    await store?.drop();
  });

  it('fails the statement after the read timeout, and the next statement gets a working connection', async () => {
    expect((await sql<{ n: number }>`select 1 as n`.execute(db.kysely)).rows).toEqual([{ n: 1 }]);
    proxy.stall(true);
    const started = Date.now();
    await expect(sql`select 2`.execute(db.kysely)).rejects.toThrow('Query read timeout');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(Date.now() - started).toBeLessThan(3000);
    proxy.stall(false);
    expect((await sql<{ n: number }>`select 3 as n`.execute(db.kysely)).rows).toEqual([{ n: 3 }]);
  });

  it('rolls a transaction back when one of its statements times out', async () => {
    proxy.stall(true);
    const tx = db.writeTx(async (t) => {
      await sql`select 4`.execute(t);
    });
    await expect(tx).rejects.toThrow('Query read timeout');
    proxy.stall(false);
    expect((await sql<{ n: number }>`select 5 as n`.execute(db.kysely)).rows).toEqual([{ n: 5 }]);
  });
});
