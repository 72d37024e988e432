import { createWriteStream } from 'node:fs';
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
    .option('--out <file>', 'write to this file instead of stdout')
    .action(async (o) => {
      const client = await remoteClient(o);
      // imported here, like the importer (import.ts): only this command writes CSV
      const { exportLeads } = await import('../integrations/exporter.js');
      const out = o.out ? createWriteStream(o.out) : process.stdout;
      const { leads } = await exportLeads({ client, campaignId: o.campaign, status: o.status, format: o.format, out });
      if (o.out) {
        out.end();
        await finished(out);
        process.stderr.write(`${leads} leads written to ${o.out}\n`);
      }
    });
}
