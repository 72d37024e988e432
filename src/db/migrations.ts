/**
 * Migrations live in code (not files on disk) so the compiled package carries
 * them. Two processes starting at once must migrate once, so we wrap the
 * Migrator in one transaction ourselves: BEGIN IMMEDIATE on
 * SQLite (the other process waits on busy_timeout, then finds nothing left
 * to do), a transaction-level advisory lock on PostgreSQL (see migrate).
 */
import { type Kysely, type Migration, type MigrationProvider, Migrator, sql } from 'kysely';
import type { Dialect } from './index.js';
import { core } from './migrations/0001_core.js';
import { dialer } from './migrations/0002_dialer.js';
import { dashboard } from './migrations/0003_dashboard.js';
import { leadsAnalyze } from './migrations/0004_leads_analyze.js';
import { leadZones } from './migrations/0005_lead_zones.js';
import { simulateSettings } from './migrations/0006_simulate_settings.js';
import { unclaimedAttempting } from './migrations/0007_unclaimed_attempting.js';
import { nanpZones } from './migrations/0008_nanp_zones.js';
import { dialerProduction } from './migrations/0009_dialer_production.js';
import { timezoneNarrows } from './migrations/0010_timezone_narrows.js';
import { compliance } from './migrations/0011_compliance.js';
import { webhooks } from './migrations/0012_webhooks.js';
import { platformProviders } from './migrations/0013_platform_providers.js';
import { callingGates } from './migrations/0014_calling_gates.js';
import { numberDigests } from './migrations/0015_number_digests.js';
import { regionalRules } from './migrations/0016_regional_rules.js';
import { campaignPacing } from './migrations/0017_campaign_pacing.js';
import { leadSearch } from './migrations/0018_lead_search.js';
import { attemptsAccepted } from './migrations/0019_attempts_accepted.js';
import { oneProviderCallIndex } from './migrations/0020_one_provider_call_index.js';
import { byteOrderIdentifiers } from './migrations/0021_byte_order_identifiers.js';
import { webhookGeneration } from './migrations/0022_webhook_generation.js';
import { campaignRevision } from './migrations/0023_campaign_revision.js';
import { attemptsPending } from './migrations/0024_attempts_pending.js';
import { lateNotPlaced } from './migrations/0025_late_not_placed.js';

/** every migration, by name; names sort in the order they run */
export function migrations(dialect: Dialect): Record<string, Migration> {
  return {
    '0001_core': core(dialect),
    '0002_dialer': dialer(dialect),
    '0003_dashboard': dashboard(dialect),
    '0004_leads_analyze': leadsAnalyze(dialect),
    '0005_lead_zones': leadZones(dialect),
    '0006_simulate_settings': simulateSettings(dialect),
    '0007_unclaimed_attempting': unclaimedAttempting(dialect),
    '0008_nanp_zones': nanpZones(dialect),
    '0009_dialer_production': dialerProduction(dialect),
    '0010_timezone_narrows': timezoneNarrows(dialect),
    '0011_compliance': compliance(dialect),
    '0012_webhooks': webhooks(dialect),
    '0013_platform_providers': platformProviders(dialect),
    '0014_calling_gates': callingGates(dialect),
    '0015_number_digests': numberDigests(dialect),
    '0016_regional_rules': regionalRules(),
    '0017_campaign_pacing': campaignPacing(dialect),
    '0018_lead_search': leadSearch(dialect),
    '0019_attempts_accepted': attemptsAccepted(),
    '0020_one_provider_call_index': oneProviderCallIndex(),
    '0021_byte_order_identifiers': byteOrderIdentifiers(dialect),
    '0022_webhook_generation': webhookGeneration(),
    '0023_campaign_revision': campaignRevision(dialect),
    '0024_attempts_pending': attemptsPending(),
    '0025_late_not_placed': lateNotPlaced(dialect),
  };
}

async function run(db: Kysely<any>, dialect: Dialect): Promise<string[]> {
  const provider: MigrationProvider = { getMigrations: async () => migrations(dialect) };
  // the caller holds the transaction (migrate below): Kysely must not open its own
  const { error, results } = await new Migrator({ db, provider, disableTransactions: true }).migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/**
 * One transaction on one connection for the whole run. On PostgreSQL the
 * lock is the transaction's (pg_advisory_xact_lock): Kysely's Migrator takes
 * a session-level lock on a connection outside its transaction, and behind
 * PgBouncer in transaction mode that lock stayed on a server connection the
 * next client was handed, so processes starting together ran the same
 * migration at once (test/db/migrate-processes.test.ts through PgBouncer).
 * Answers the names of the migrations it applied, in order.
 */
export async function migrate(db: Kysely<any>, dialect: Dialect): Promise<string[]> {
  return db.connection().execute(async (conn) => {
    await sql.raw(dialect === 'postgres' ? 'begin' : 'begin immediate').execute(conn);
    try {
      if (dialect === 'postgres') {
        // no time limit for a migration (src/db/postgres.ts, migrateUntimed); for this transaction only
        await sql`set local statement_timeout = 0`.execute(conn);
        await sql`select pg_advisory_xact_lock(hashtext('leadline migrate'))`.execute(conn);
      }
      const applied = await run(conn, dialect);
      await sql`commit`.execute(conn);
      return applied;
    } catch (err) {
      await sql`rollback`.execute(conn);
      throw err;
    }
  });
}
