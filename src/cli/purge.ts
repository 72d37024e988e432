/** `leadline purge`: a company's call log and events before a date, for retention policies (src/compliance/purge.ts). */
import type { Command } from 'commander';
import { type PurgeSummary, parseBefore, purgeCompany } from '../compliance/purge.js';
import { arg, output, requireCompany, withStore } from './context.js';

function text(s: PurgeSummary): string {
  return [
    `company ${s.companyId}: removed what was older than ${s.before}`,
    `  attempts deleted             ${s.attemptsDeleted}`,
    `  attempts kept for the caps   ${s.attemptsAnonymised} (their numbers removed; the call caps still count them)`,
    `  attempts in progress, kept   ${s.attemptsInProgress}`,
    `  events deleted               ${s.eventsDeleted}`,
  ].join('\n');
}

export function registerPurge(program: Command): void {
  program
    .command('purge')
    .description("remove a company's call attempts and events older than a date (retention)")
    .requiredOption('--company <id>', 'the company')
    .requiredOption(
      '--before <date>',
      'remove what is older than this: a date (2026-01-31, midnight UTC) or an ISO 8601 time with its zone; in the past',
      arg((raw) => parseBefore(raw, Date.now())),
    )
    .option('--json', 'print JSON: {"companyId", "before", "attemptsDeleted", "attemptsAnonymised", "attemptsInProgress", "eventsDeleted"}')
    .action((o: { company: string; before: number; json?: boolean }) =>
      withStore(async (store) => {
        await requireCompany(store, o.company);
        const summary = await purgeCompany(store, o.company, o.before, Date.now());
        output(o.json, summary, text(summary));
      }),
    );
}
