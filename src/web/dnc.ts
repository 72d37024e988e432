/**
 * Company settings → Do-not-call list, the data side: the form's numbers and
 * reason read and checked by the API's own rules (E164, MAX_DNC_BATCH,
 * MAX_DNC_REASON, STORABLE_TEXT), then the same service calls as
 * /api/v1/dnc, as the company's company-wide principal.
 */
import { addToDnc, E164, lookUpDnc, MAX_DNC_BATCH, MAX_DNC_REASON, pageDnc, removeFromDnc } from '../compliance/dnc.js';
import { AppError } from '../errors.js';
import type { Store } from '../store/index.js';
import { storable } from '../storable.js';

/** the dashboard's list pages are shorter than the API's default of 1000 */
const PAGE_SIZE = '50';

type DncField = 'numbers' | 'reason' | 'phoneNumber';
export interface DncFieldError {
  field: DncField;
  message: string;
}

/** a form that cannot be written, every field's problem at once; a 400 wherever a page does not show them */
export class DncFormErrors extends AppError {
  constructor(readonly fields: readonly DncFieldError[]) {
    super('validation', fields.map((f) => f.message).join(' '));
  }
}

/** a textarea's numbers: one a line or comma-separated, spaces around them ignored */
const splitNumbers = (text: string): string[] =>
  text
    .split(/[\n,]/)
    .map((n) => n.trim())
    .filter((n) => n !== '');

function numbersProblem(numbers: readonly string[]): string | null {
  if (numbers.length === 0) return 'Give at least one number.';
  if (numbers.length > MAX_DNC_BATCH) return `At most ${MAX_DNC_BATCH} numbers at a time.`;
  const bad = numbers.filter((n) => !E164.test(n));
  if (bad.length === 0) return null;
  const shown = bad.slice(0, 5).map((n) => `"${n}"`);
  return `Not in E.164 format (a plus sign and 2 to 15 digits, the first not 0, e.g. +14155550123): ${shown.join(', ')}${bad.length > 5 ? ` and ${bad.length - 5} more` : ''}.`;
}

/** the numbers (and, when adding, the reason) of a form; DncFormErrors when any is refused, so nothing is written */
export function readDncForm(
  f: { numbers?: string; reason?: string },
  o: { reason: boolean },
): { numbers: string[]; reason: string | null } {
  const numbers = splitNumbers(f.numbers ?? '');
  const reason = o.reason ? (f.reason ?? '').trim() : '';
  const errors: DncFieldError[] = [];
  const numbersError = numbersProblem(numbers);
  if (numbersError) errors.push({ field: 'numbers', message: numbersError });
  if (reason.length > MAX_DNC_REASON) errors.push({ field: 'reason', message: `The reason may be at most ${MAX_DNC_REASON} characters.` });
  else if (!storable(reason)) errors.push({ field: 'reason', message: 'The reason holds a character that cannot be stored.' });
  if (errors.length > 0) throw new DncFormErrors(errors);
  return { numbers: [...new Set(numbers)], reason: reason === '' ? null : reason };
}

/** the number searched for; a "+" typed into the address bar arrives as a space, as in the API */
export function readSearch(raw: string): string {
  const phone = raw.replace(/^ ([1-9][0-9]*)$/, '+$1').trim();
  if (!E164.test(phone)) {
    throw new DncFormErrors([
      { field: 'phoneNumber', message: 'Not in E.164 format: a plus sign and 2 to 15 digits, the first not 0 (e.g. +14155550123).' },
    ]);
  }
  return phone;
}

export class DncDesk {
  constructor(
    private readonly store: Store,
    private readonly now: () => number,
  ) {}

  /** the whole company's list: a dashboard user is company-wide */
  private access = (companyId: string) => ({ companyId, campaignId: null });

  /** through the API's service, so the same transaction appends the `dnc.added` event */
  add(companyId: string, numbers: readonly string[], reason: string | null) {
    return addToDnc(this.store, this.access(companyId), numbers, { source: 'dashboard', reason, now: this.now() });
  }

  remove(companyId: string, numbers: readonly string[]) {
    return removeFromDnc(this.store, this.access(companyId), numbers);
  }

  lookUp(companyId: string, phoneNumber: string) {
    return lookUpDnc(this.store, this.access(companyId), phoneNumber);
  }

  /** a page in number order, with the API's cursor; a cursor that is not ours is a 400 */
  page(companyId: string, cursor: string | undefined) {
    return pageDnc(this.store, this.access(companyId), { limit: PAGE_SIZE, cursor });
  }

  count(companyId: string): Promise<number> {
    return this.store.dnc.count(companyId);
  }
}
