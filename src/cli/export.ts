import { randomBytes } from 'node:crypto';
import { createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { finished } from 'node:stream/promises';
import { type Command, Option } from 'commander';
import { LEAD_STATUSES } from '../leads/lifecycle.js';
import { REMOTE_HELP, remoteClient } from './remote.js';

export function registerExport(program: Command): void {
  program
    .command('export')
    .description("write every lead of a campaign (following the list cursor to the end) from a running server's API")
    .requiredOption('--campaign <id>', 'campaign to export')
    .option('--url <url>', REMOTE_HELP.url)
    .option('--key <key>', `${REMOTE_HELP.key}; read scope is enough`)
    .addOption(new Option('--status <status>', 'only leads in this status').choices(LEAD_STATUSES))
    .addOption(
      new Option('--format <format>', 'csv (metadata as one JSON column) or ndjson (one Lead per line)')
        .choices(['csv', 'ndjson'])
        .default('csv'),
    )
    .option('--out <file>', 'write to this file (replaced only once the export is complete) instead of stdout')
    .action(async (o) => {
      const client = await remoteClient(o);
      // imported here, like the importer (import.ts): only this command writes CSV
      const { exportLeads } = await import('../integrations/exporter.js');
      const run = (out: NodeJS.WritableStream) => exportLeads({ client, campaignId: o.campaign, status: o.status, format: o.format, out });
      if (!o.out) {
        await run(process.stdout);
        return;
      }
      const { leads } = await writeWhole(o.out, run);
      process.stderr.write(`${leads} leads written to ${o.out}\n`);
    });
}

/**
 * Writes through a temporary file beside `path` and renames it over `path`
 * only when `write` has finished: an export that fails half-way (a refused
 * key, the server gone, a full disk) leaves the earlier file as it was, not a
 * header-only one.
 */
async function writeWhole<T>(path: string, write: (out: NodeJS.WritableStream) => Promise<T>): Promise<T> {
  // same directory, so the rename is atomic; a fresh name (wx), so nothing else is overwritten
  const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  // the file it replaces may have been made private (0600): keep that
  const mode = (statSync(path, { throwIfNoEntry: false })?.mode ?? 0o666) & 0o777;
  const out = createWriteStream(tmp, { flags: 'wx', mode });
  // a stream error (the directory missing, the disk full) would otherwise leave write() waiting for 'drain'
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  try {
    const result = await Promise.race([write(out), failed]);
    out.end();
    await finished(out);
    renameSync(tmp, path);
    return result;
  } catch (err) {
    out.destroy();
    // after 'close' the file is open nowhere, so it can be removed for good
    await finished(out).catch(() => undefined);
    rmSync(tmp, { force: true });
    throw err;
  }
}
