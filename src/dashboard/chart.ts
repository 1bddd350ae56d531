// The home screen's chart, drawn on the server as SVG: one stacked bar per day (completed, failed, still
// open), so it needs no script and no charting service.
import type { DayVolume } from '../services/overview.ts';

const WIDTH = 720;
const HEIGHT = 200;
const PAD = { top: 12, right: 12, bottom: 28, left: 36 };
const SERIES = [
  { key: 'completed', label: 'Completed', css: 'bar-ok' },
  { key: 'failed', label: 'Failed', css: 'bar-bad' },
  { key: 'open', label: 'In flight', css: 'bar-wait' },
] as const;

/** A round top for the y axis: 1, 2, 5, 10, 20, 50… */
function niceMax(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value) ?? 10;
  return step * power;
}

export function volumeChart(days: readonly DayVolume[]): string {
  const totals = days.map((d) => d.completed + d.failed + d.open);
  const top = niceMax(Math.max(0, ...totals));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, days.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (n: number) => PAD.top + plotH - (n / top) * plotH;
  const parts: string[] = [];
  // Payments come whole: the middle line is drawn only where it falls on a whole number.
  const ticks = top % 2 === 0 ? [0, top / 2, top] : [0, top];
  for (const tick of ticks) {
    parts.push(
      `<line class="grid" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${y(tick)}" y2="${y(tick)}"/>`,
      `<text class="axis" x="${PAD.left - 6}" y="${y(tick) + 4}" text-anchor="end">${tick}</text>`,
    );
  }
  // Every step-th day is labelled, counted back from the last (today), so the labels stay evenly spaced.
  const step = Math.ceil(days.length / 7);
  days.forEach((day, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let base = 0;
    for (const s of SERIES) {
      const n = day[s.key];
      if (n === 0) continue;
      const h = (n / top) * plotH;
      parts.push(
        `<rect class="${s.css}" x="${x.toFixed(1)}" y="${(y(base) - h).toFixed(1)}" width="${barW.toFixed(1)}" ` +
          `height="${h.toFixed(1)}"><title>${day.day}: ${n} ${s.label.toLowerCase()}</title></rect>`,
      );
      base += n;
    }
    if ((days.length - 1 - i) % step === 0) {
      const label = day.day.slice(5);
      parts.push(
        `<text class="axis" x="${(x + barW / 2).toFixed(1)}" y="${HEIGHT - 8}" text-anchor="middle">${label}</text>`,
      );
    }
  });
  const total = totals.reduce((a, b) => a + b, 0);
  const summary = `Payments per day over the last ${days.length} days: ${total} in all`;
  const legend = SERIES.map((s) => `<span class="key ${s.css}">${s.label}</span>`).join(' ');
  return (
    `<svg class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${summary}">` +
    `<title>${summary}</title>${parts.join('')}</svg><p class="legend">${legend}</p>`
  );
}
