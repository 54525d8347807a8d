// The script of the report page that draws each chart container (`<div class="sr-chart"
// data-chart="…">`, its data escaped into the attribute) with uPlot: rows along x (one category
// each), one coloured series of dots per measure, legend with each value on hover. Plain ES5 so the
// file opens in any browser; uPlot writes labels with textContent, never as HTML.

/** Browser JavaScript, inlined after uPlot's build in the page. */
export const reportChartScript = `(function () {
  var palette = ['#3b6ea8', '#e07b39', '#5a9e4b', '#b8483e', '#7d5ba6', '#8c6d46'];
  var boxes = document.querySelectorAll('.sr-chart[data-chart]');
  for (var b = 0; b < boxes.length; b++) draw(boxes[b]);
  function draw(box) {
    var chart = JSON.parse(box.getAttribute('data-chart'));
    var xs = chart.labels.map(function (_label, index) { return index; });
    var series = [{ label: 'row', value: function (_u, x) { return x == null ? '' : chart.labels[x]; } }];
    chart.series.forEach(function (one, index) {
      var color = palette[index % palette.length];
      series.push({
        label: one.name + (chart.unit ? ' (' + chart.unit + ')' : ''),
        stroke: color,
        paths: function () { return null; },
        points: { show: true, size: 9, fill: color, stroke: color },
      });
    });
    var options = {
      width: Math.max(280, Math.min(box.clientWidth || 760, 960)),
      height: 260,
      scales: { x: { time: false, range: [-0.5, Math.max(chart.labels.length - 0.5, 0.5)] } },
      axes: [
        {
          incrs: [1],
          rotate: chart.labels.length > 4 ? -30 : 0,
          size: chart.labels.length > 4 ? 90 : 40,
          values: function (_u, ticks) {
            return ticks.map(function (tick) { return Number.isInteger(tick) ? (chart.labels[tick] || '').slice(0, 28) : ''; });
          },
        },
        { label: chart.unit || '' },
      ],
      series: series,
    };
    new uPlot(options, [xs].concat(chart.series.map(function (one) { return one.values; })), box);
  }
})();`
