// Porch console: draws the overview's usage charts with uPlot (served as uplot.js) from the
// numbers the page embeds as JSON (#usage-chart-data). The page's tables hold the same numbers,
// so nothing is lost without this script.

const uPlot = window.uPlot;
const dataBlock = document.getElementById('usage-chart-data');
const CHART_HEIGHT_PX = 240;
const HALF_DAY_S = 43_200;
/** Distinguishable in light and dark, and ordered so neighbours differ in lightness too. */
const PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];

function cssVariable(element, name) {
  return getComputedStyle(element).getPropertyValue(name).trim();
}

/**
 * Stacked bars: series i is drawn at the sum of groups 0..i, tallest first so each shorter one
 * covers the bottom of the one behind it.
 */
function stackedOptions(element, chart, field, width) {
  const text = cssVariable(element, '--text-muted');
  const grid = cssVariable(element, '--border');
  const format = (value) => (value == null ? '—' : value.toLocaleString('en', { maximumFractionDigits: field === 'tokens' ? 0 : 3 }));
  const bars = uPlot.paths.bars({ size: [0.7, 40], align: 0 });
  const ordered = chart.series.map((series) => ({ series, index: series.colour })).reverse();
  return {
    width,
    height: CHART_HEIGHT_PX,
    // The days are UTC days, as the captions and tables say: ticks and labels in UTC too, never the
    // browser's zone (regression: west of UTC each bar sat a day before its tick).
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    // Half a day of room on each side, so the first and last days' bars are whole.
    scales: { x: { time: true, range: (_u, min, max) => [min - HALF_DAY_S, max + HALF_DAY_S] } },
    // The legend names the groups; the numbers are in the page's tables.
    legend: { live: false },
    axes: [
      { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid } },
      { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: 60, values: (_u, values) => values.map(format) },
    ],
    series: [
      { label: 'Day', value: (_u, seconds) => (seconds == null ? '—' : new Date(seconds * 1000).toISOString().slice(0, 10)) },
      ...ordered.map(({ series, index }) => ({
        label: series.label,
        fill: PALETTE[index % PALETTE.length],
        stroke: PALETTE[index % PALETTE.length],
        width: 0,
        paths: bars,
        points: { show: false },
      })),
    ],
  };
}

function stackedData(chart, field) {
  const sums = [];
  let running = chart.days.map(() => 0);
  for (const series of chart.series) {
    running = running.map((total, day) => total + (series[field][day] ?? 0));
    sums.push(running);
  }
  return [chart.days, ...sums.reverse()];
}

function draw() {
  if (!uPlot || !dataBlock) return;
  const all = JSON.parse(dataBlock.textContent ?? '{}');
  for (const element of document.querySelectorAll('[data-usage-chart]')) {
    const field = element.getAttribute('data-usage-chart') === 'credits' ? 'credits' : 'tokens';
    // A group with nothing to draw (a workflow's own row has no tokens) would only crowd the legend.
    // Colours follow the group's place in the full list, so both charts colour a group alike.
    const series = all.series.map((group, colour) => ({ ...group, colour })).filter((group) => group[field].some((value) => value > 0));
    const chart = { ...all, series };
    const width = () => Math.max(element.clientWidth, 280);
    const plot = new uPlot(stackedOptions(element, chart, field, width()), stackedData(chart, field), element);
    new ResizeObserver(() => plot.setSize({ width: width(), height: CHART_HEIGHT_PX })).observe(element);
  }
}

draw();
