// Porch console: draws the overview's usage charts with uPlot (served as uplot.js) from the
// numbers the page embeds as JSON (#usage-chart-data). The page's tables hold the same numbers,
// so nothing is lost without this script.

const uPlot = window.uPlot;
const dataBlock = document.getElementById('usage-chart-data');
const CHART_HEIGHT_PX = 240;
const HALF_DAY_S = 43_200;
/**
 * Distinguishable in light and dark (each at least 3:1 against both backgrounds), and ordered so
 * neighbours differ in lightness too. The page sends at most this many groups
 * (CHART_SERIES_LIMIT in pages/run/usage-chart.tsx), the smaller ones summed as one "other" bar
 * in OTHER_COLOUR, so no colour stands for two groups.
 */
const PALETTE = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];
const OTHER_COLOUR = '#7b8494';
/** From this tick value on, an axis labels in compact notation (10K, 1.25M), so its labels stay short. */
const COMPACT_FROM = 10_000;
const compact = new Intl.NumberFormat('en', { notation: 'compact', maximumFractionDigits: 2 });
/** Room between the axis's labels and the chart's edge, so the widest label never touches it. */
const AXIS_LABEL_MARGIN_PX = 4;

/**
 * The y axis as wide as its longest label, measured in the axis's own font (regression: a fixed
 * 60 px cut labels off from 1,000,000). uPlot calls it again until the size settles.
 */
function axisSize(u, values, axisIndex, cycle) {
  const axis = u.axes[axisIndex];
  if (cycle > 1) return axis._size;
  const longest = (values ?? []).reduce((found, value) => (String(value).length > found.length ? String(value) : found), '');
  u.ctx.font = axis.font[0];
  return Math.ceil(axis.ticks.size + axis.gap + u.ctx.measureText(longest).width / devicePixelRatio) + AXIS_LABEL_MARGIN_PX;
}

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
  // One notation per axis: compact for all its ticks once the largest reaches COMPACT_FROM. uPlot's
  // ticks are multiples of 1, 2, 2.5 or 5 times a power of ten, so two decimals keep them exact.
  const tickLabels = (_u, values) =>
    values.some((value) => Math.abs(value) >= COMPACT_FROM) ? values.map((value) => compact.format(value)) : values.map(format);
  const bars = uPlot.paths.bars({ size: [0.7, 40], align: 0 });
  const ordered = chart.series.map((series) => ({ series, colour: series.other ? OTHER_COLOUR : PALETTE[series.colour % PALETTE.length] })).reverse();
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
      { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid }, size: axisSize, values: tickLabels },
    ],
    series: [
      { label: 'Day', value: (_u, seconds) => (seconds == null ? '—' : new Date(seconds * 1000).toISOString().slice(0, 10)) },
      ...ordered.map(({ series, colour }) => ({
        label: series.label,
        fill: colour,
        stroke: colour,
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
