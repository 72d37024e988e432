/**
 * Calls per hour over the last 24 hours, by outcome: an inline SVG drawn on
 * the server (no script, no chart library), with a table of the same numbers
 * for screen readers and for anyone who wants them exact.
 */
import type { HourlyCalls } from '../../store/attempts.js';
import { type Html, html } from '../html.js';

const HOUR_MS = 3_600_000;
const HOURS = 24;
const WIDTH = 720;
const HEIGHT = 180;
const BOTTOM = 20;
/** a few outcomes get their own colour; the rest share one, open calls another (SVG fill attributes: no inline style, which the CSP refuses) */
const COLOURS: Record<string, string> = {
  answered: '#157f3b',
  success: '#157f3b',
  completed: '#157f3b',
  'no-answer': '#c98a1b',
  busy: '#b5541a',
  voicemail: '#7a5cc2',
  failed: '#b42318',
  unknown: '#8a94a3',
};
const OTHER = '#4a6fa5';
const OPEN = '#c9d0da';

export interface CallChart {
  /** the first hour shown (hour numbers as HourlyCalls has them) */
  from: number;
  rows: readonly HourlyCalls[];
}

const colour = (outcome: string | null) => (outcome === null ? OPEN : (COLOURS[outcome] ?? OTHER));
const label = (outcome: string | null) => outcome ?? 'in progress';
const hh = (hour: number) => new Date(hour * HOUR_MS).toISOString().slice(11, 13);

export function callChart(c: CallChart): Html {
  const outcomes = [...new Set(c.rows.map((r) => r.outcome))].sort((a, b) => label(a).localeCompare(label(b)));
  const byHour = Array.from({ length: HOURS }, (_, i) => c.rows.filter((r) => r.hour === c.from + i));
  const totals = byHour.map((rows) => rows.reduce((n, r) => n + r.calls, 0));
  const max = Math.max(1, ...totals);
  const slot = WIDTH / HOURS;
  const scale = (HEIGHT - BOTTOM) / max;
  const bars = byHour.map((rows, i) => {
    let y = HEIGHT - BOTTOM;
    const segments = outcomes.flatMap((o) => {
      const n = rows.find((r) => r.outcome === o)?.calls ?? 0;
      if (n === 0) return [];
      const h = n * scale;
      y -= h;
      return [
        html`<rect x="${(i * slot + 2).toFixed(1)}" y="${y.toFixed(1)}" width="${(slot - 4).toFixed(1)}" height="${h.toFixed(1)}" fill="${colour(o)}"><title>${hh(c.from + i)}:00 UTC: ${n} ${label(o)}</title></rect>`,
      ];
    });
    const tick =
      i % 3 === 0
        ? html`<text x="${(i * slot + slot / 2).toFixed(1)}" y="${HEIGHT - 5}" text-anchor="middle">${hh(c.from + i)}</text>`
        : '';
    return html`${segments}${tick}`;
  });
  const total = totals.reduce((a, b) => a + b, 0);
  return html`<figure class="chart">
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title" preserveAspectRatio="none">
<title id="chart-title">Calls per hour over the last 24 hours: ${total} calls, at most ${max === 1 && total === 0 ? 0 : max} in one hour</title>
<line x1="0" y1="${HEIGHT - BOTTOM}" x2="${WIDTH}" y2="${HEIGHT - BOTTOM}" stroke="#d7dce4"></line>
${bars}
</svg>
<figcaption>${
    outcomes.length
      ? outcomes.map(
          (o) =>
            html`<span class="key"><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${colour(o)}"></rect></svg> ${label(o)}</span>`,
        )
      : html`<span class="muted">No calls in the last 24 hours.</span>`
  } <span class="muted">· hours in UTC · busiest hour ${max === 1 && total === 0 ? 0 : max} calls</span></figcaption>
</figure>`;
}
