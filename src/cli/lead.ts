import type { Command } from 'commander';
import { explainLead } from '../dialer/explain.js';
import { output, UsageError, withStore } from './context.js';

function nextLine(r: { reasons: string[]; nextDueAt: string | null }): string {
  if (r.nextDueAt) return `next due at ${r.nextDueAt}`;
  if (r.reasons.includes('campaign paused')) return 'it will be called once the campaign is resumed (leadline campaign resume)';
  if (r.reasons.includes('already concluded')) return 'it will not be called again';
  if (r.reasons.includes("on the company's do-not-call list"))
    return 'it will not be called while its number is listed (leadline dnc remove takes it off)';
  if (r.reasons.includes('attempts used up')) return 'it will not be called again unless the campaign is recycled';
  return 'no time in the coming week fits both the calling hours and its local window';
}

export function registerLead(program: Command): void {
  const lead = program.command('lead').description('leads');
  lead
    .command('explain')
    .description('say why a lead is or is not due now, and when it next will be')
    .requiredOption('--campaign <id>', 'the campaign')
    .option('--external-id <id>', "the lead's externalId")
    .option('--phone <e164>', "the lead's phoneNumber")
    .option('--json', 'print JSON: {"due", "reasons", "nextDueAt", "zones"} (and "details" where a reason has more to say)')
    .action(async (o) => {
      if ((o.externalId === undefined) === (o.phone === undefined)) throw new UsageError('give exactly one of --external-id or --phone');
      const by = o.externalId !== undefined ? { externalId: o.externalId as string } : { phoneNumber: o.phone as string };
      await withStore(async (store) => {
        const r = await explainLead(store, o.campaign, by, Date.now());
        const hasDetails = Object.keys(r.details).length > 0;
        const json = {
          due: r.due,
          reasons: r.reasons,
          nextDueAt: r.nextDueAt?.toISOString() ?? null,
          zones: r.zones,
          ...(hasDetails ? { details: r.details } : {}),
        };
        const reasons = r.reasons.map((x) => (r.details[x] ? `${x} (${r.details[x]})` : x)).join(', ');
        output(
          o.json,
          json,
          `${r.due ? 'due now' : `not due: ${reasons}\n${nextLine(json)}`}\nlocal time checked in: ${r.zones.join(', ')}`,
        );
      });
    });
}
