import { existsSync, statSync } from 'node:fs';
import type { Command } from 'commander';
import type { ImportSummary } from '../integrations/importer.js';
import { output, UsageError } from './context.js';
import { REMOTE_HELP, remoteClient } from './remote.js';

/** --map col=field, repeatable; split at the last "=" since a header may contain one */
function collectMap(raw: string, map: Record<string, string>): Record<string, string> {
  const at = raw.lastIndexOf('=');
  if (at <= 0 || at === raw.length - 1) throw new UsageError(`--map expects COLUMN=FIELD, got "${raw}"`);
  return { ...map, [raw.slice(0, at)]: raw.slice(at + 1) };
}

function summaryText(file: string, campaignId: string, s: ImportSummary): string {
  const lines = [
    `${file} → campaign ${campaignId}: ${s.rows} rows${s.resumedAfterLine ? ` (resumed after line ${s.resumedAfterLine})` : ''} in ${s.seconds.toFixed(1)} s`,
    `  created   ${s.created}`,
    `  skipped   ${s.skipped} (duplicates)`,
    `  rejected  ${s.rejected}${s.rejectsPath ? ` (all of them, with reasons, in ${s.rejectsPath})` : ''}`,
    ...s.rejections.map((r) => `    line ${r.line}: ${r.reason}`),
  ];
  if (s.rejected > s.rejections.length) lines.push(`    … and ${s.rejected - s.rejections.length} more`);
  return lines.join('\n');
}

export function registerImport(program: Command): void {
  program
    .command('import')
    .description('load a CSV into a campaign through the bulk API of a running server; resumable')
    .argument('<file>', 'CSV with a header row')
    .requiredOption('--campaign <id>', 'campaign to load the leads into')
    .option('--url <url>', REMOTE_HELP.url)
    .option('--key <key>', `${REMOTE_HELP.key}; needs write scope`)
    .option(
      '--map <column=field>',
      'read COLUMN as phoneNumber, externalId, priority or scheduledFor, as metadata.KEY, or drop it with -; repeatable',
      collectMap,
      {},
    )
    .option('--country <code>', 'normalise local phone numbers to E.164 with this default country, e.g. US')
    .option('--rejects <file>', 'CSV of the rejected rows with line and reason (default: FILE.rejects.csv)')
    .option('--restart', 'start over, ignoring the saved state of an unfinished run')
    .option('--json', 'print the summary as JSON')
    .action(async (file: string, o) => {
      // imported here: the importer and libphonenumber's metadata are a fifth
      // of every CLI start, and only this command needs them
      const [{ ColumnError, countryCode }, { StateMismatchError }, { importCsv }, { createProgress }, { EncodingError }] =
        await Promise.all([
          import('../integrations/lead-rows.js'),
          import('../integrations/import-state.js'),
          import('../integrations/importer.js'),
          import('../integrations/progress.js'),
          import('../integrations/csv-source.js'),
        ]);
      let country: ReturnType<typeof countryCode> | undefined;
      try {
        country = o.country === undefined ? undefined : countryCode(o.country);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      const client = await remoteClient(o);
      if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`cannot read ${file}`);
      const rejectsPath: string = o.rejects ?? `${file.replace(/\.csv$/i, '')}.rejects.csv`;
      const interrupted = () => {
        process.stderr.write('\ninterrupted: run the same command again to resume after the last acknowledged chunk\n');
        process.exit(130);
      };
      process.once('SIGINT', interrupted);
      try {
        const summary = await importCsv({
          file,
          campaignId: o.campaign,
          client,
          map: o.map,
          country,
          rejectsPath,
          restart: o.restart,
          progress: (totalBytes) => createProgress({ totalBytes }),
        });
        output(o.json, summary, summaryText(file, o.campaign, summary));
      } catch (err) {
        if (err instanceof ColumnError || err instanceof StateMismatchError) throw new UsageError(err.message);
        const message = (err as Error).message;
        if (err instanceof EncodingError) {
          throw new Error(
            `${message}\n(save it as UTF-8, e.g. "CSV UTF-8" in Excel or iconv -f WINDOWS-1252 -t UTF-8, then run again with --restart: rows already sent are skipped as duplicates)`,
          );
        }
        if (String((err as { code?: unknown }).code).startsWith('CSV_')) {
          throw new Error(
            `${file} is not valid CSV: ${message}\n(fix it, then run again with --restart: rows already sent are skipped as duplicates)`,
          );
        }
        throw new Error(`${message}\n(run the same command again to resume after the last acknowledged chunk)`);
      } finally {
        process.removeListener('SIGINT', interrupted);
      }
    });
}
