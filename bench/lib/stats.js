/** Turning samples into the figures of one table row. */
import { median, percentile } from './load.js';

export const fmtMs = (v) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(1)} ms` : '–');
const fmtRps = (v) => (Number.isFinite(v) ? `${Math.round(v).toLocaleString('en-US')} req/s` : '–');
export const fmtRatio = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');

/**
 * A latency row: medians and p99 of leadline and of the floor, and the ratio
 * of the medians (lower is better).
 * @param {number[]} ms @param {number[]} floorMs
 */
export function latencyRow(base, ms, floorMs, target) {
  const value = median(ms);
  const floor = median(floorMs);
  const ratio = value / floor;
  return {
    ...base,
    leadline: fmtMs(value),
    p99: fmtMs(percentile(ms, 99)),
    floor: fmtMs(floor),
    floorP99: fmtMs(percentile(floorMs, 99)),
    ratio: fmtRatio(ratio),
    ratioValue: ratio,
    target: `≤ ${target}× floor`,
    met: ratio <= target,
    samples: ms.length,
  };
}

/** a throughput row: req/s of leadline against a reference (higher is better) */
export function throughputRow(base, rps, refRps, target, targetText) {
  const ratio = rps / refRps;
  return {
    ...base,
    leadline: fmtRps(rps),
    p99: '',
    floor: fmtRps(refRps),
    floorP99: '',
    ratio: fmtRatio(ratio),
    ratioValue: ratio,
    target: targetText ?? `≥ ${target}× floor`,
    met: ratio >= target,
  };
}

export const sum = (xs) => xs.reduce((a, b) => a + b, 0);
