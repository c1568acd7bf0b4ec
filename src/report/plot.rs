//! Figures: log-scale line and scatter plots rendered to PNG and SVG with plotters.
//!
//! Text uses DejaVu Sans embedded in the binary (no fontconfig, no system fonts). A figure is a
//! grid of panels; each panel draws its chart on the left and its legend on the right, so up to
//! ~24 series stay readable. Callers facet (one panel per formulation, say) when there are more.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::Path;
use std::sync::Once;

static SANS: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans.ttf");
static FONT: Once = Once::new();

/// Registers the embedded font for the `sans-serif` family (once per process).
fn register_font() {
    FONT.call_once(|| {
        // The font is compiled in and known to parse; failure here is a build defect.
        if plotters::style::register_font("sans-serif", FontStyle::Normal, SANS).is_err() {
            panic!("embedded DejaVu Sans failed to load");
        }
    });
}

/// Drawing style of a series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Style {
    /// Connected line (markers every few points, so coinciding series stay apart).
    Line,
    /// Line with a marker at every point.
    LineMarkers,
    /// Thin dashed grey guide line (reference slopes), labelled at its small end.
    Guide,
    /// A wide translucent band under the points it joins (the Pareto front).
    Front,
}

/// One series of (x, y) points.
#[derive(Clone, Debug)]
pub(crate) struct Series {
    /// Legend text (wrapped in the legend, never cut).
    pub label: String,
    /// Palette index: the colour of the series' formulation, the same in every plot.
    pub color: usize,
    /// Marker shape and dash pattern index (what distinguishes series of one colour).
    pub variant: usize,
    /// The points; non-positive or non-finite values are dropped on log axes.
    pub points: Vec<(f64, f64)>,
    /// How to draw it.
    pub style: Style,
    /// Rounding noise only: drawn thin and pale and said so in the legend.
    pub faint: bool,
    /// Which of its colour's lines it joins when the figure is aggregated: the cell's
    /// post-step stabilizer, so that stabilized and unstabilized cells stay apart.
    pub group: usize,
}

impl Series {
    /// A series with the default look (no variant, not faint).
    pub(crate) fn new(label: String, color: usize, points: Vec<(f64, f64)>, style: Style) -> Series {
        Series { label, color, variant: 0, points, style, faint: false, group: 0 }
    }
}

/// One chart.
#[derive(Clone, Debug)]
pub(crate) struct Panel {
    /// Panel title.
    pub title: String,
    /// Its series.
    pub series: Vec<Series>,
}

/// A figure: panels sharing axis labels and scales.
#[derive(Clone, Debug)]
pub(crate) struct Figure {
    /// Figure title.
    pub title: String,
    /// x-axis label with unit.
    pub x_label: String,
    /// y-axis label with unit.
    pub y_label: String,
    /// Logarithmic x axis.
    pub x_log: bool,
    /// Logarithmic y axis.
    pub y_log: bool,
    /// The panels, laid out in rows of two (one column if there is one panel).
    pub panels: Vec<Panel>,
}

/// Ten distinct hues (Tableau 10), one per formulation.
const PALETTE: [(u8, u8, u8); 10] = [
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
];

fn color(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// Smallest value shown on a log axis; exact zeros (e.g. no drift at all) are drawn here.
pub(crate) const LOG_FLOOR: f64 = 1e-17;

fn usable(v: f64, log: bool) -> Option<f64> {
    if !v.is_finite() {
        None
    } else if log {
        Some(v.max(LOG_FLOOR))
    } else {
        Some(v)
    }
}

/// The axis range: on log axes, whole decades when the data spans two or more, else the data
/// padded by a quarter of a decade each side (fitted, with 1-2-5 ticks); linear axes pad 5 %.
fn range(vals: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in vals {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return if log { (1e-3, 1.0) } else { (0.0, 1.0) };
    }
    if log {
        let (l, h) = (lo.log10(), hi.log10());
        if h - l >= 2.0 {
            (10f64.powf(l.floor()), 10f64.powf(h.ceil()))
        } else {
            let pad = 0.25f64.max((1.0 - (h - l)) / 2.0);
            (10f64.powf(l - pad), 10f64.powf(h + pad))
        }
    } else {
        let pad = if hi > lo { 0.05 * (hi - lo) } else { 0.5 * lo.abs().max(1.0) };
        (lo - pad, hi + pad)
    }
}

/// Labelled ticks of a log axis over [lo, hi]: the decades, thinned to at most 8; when fewer
/// than two fall inside, 1-2-5 multiples, then every integer multiple, so at least two labels.
pub(crate) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let inside = |v: &f64| *v >= lo * (1.0 - 1e-12) && *v <= hi * (1.0 + 1e-12);
    let decades: Vec<f64> = (a..=b).map(|k| 10f64.powi(k)).filter(inside).collect();
    if decades.len() >= 2 {
        let stride = decades.len().div_ceil(8);
        return decades.into_iter().enumerate().filter(|(i, _)| i % stride == 0).map(|(_, v)| v).collect();
    }
    for mults in [&[1.0, 2.0, 5.0][..], &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0][..]] {
        let t: Vec<f64> = (a..=b).flat_map(|k| mults.iter().map(move |m| m * 10f64.powi(k))).filter(inside).collect();
        if t.len() >= 2 {
            return t;
        }
    }
    vec![lo, hi]
}

/// Unlabelled grid lines of a log axis: every integer multiple of each decade when the axis spans
/// at most three decades, else the unlabelled decades only.
fn log_minor(lo: f64, hi: f64) -> Vec<f64> {
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    if b - a > 3 {
        return (a..=b).map(|k| 10f64.powi(k)).filter(|v| *v >= lo && *v <= hi).collect();
    }
    (a..=b).flat_map(|k| (1..10).map(move |m| m as f64 * 10f64.powi(k))).filter(|v| *v >= lo && *v <= hi).collect()
}

/// Tick label: powers of ten as `1e-7` (plain 0.01 … 1000), other values with 2 significant digits.
fn tick(v: f64, log: bool) -> String {
    if log && v > 0.0 {
        let e = v.log10();
        if (e - e.round()).abs() < 1e-6 {
            let k = e.round() as i32;
            return if (-2..=3).contains(&k) { crate::params::fmt_num(10f64.powi(k)) } else { format!("1e{k}") };
        }
        return if (1e-2..1e4).contains(&v) { format!("{}", (v * 1e4).round() / 1e4) } else { format!("{v:.0e}") };
    }
    let r = (v * 1e9).round() / 1e9;
    if r != 0.0 && (r.abs() < 1e-3 || r.abs() >= 1e5) { format!("{r:.1e}") } else { format!("{r}") }
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Marker shapes (hollow, so one drawn over another stays visible) and dash patterns
/// (dash, gap in pixels; (0, 0) is solid), indexed by a series' `variant`.
const SHAPES: usize = 6;
const DASHES: [(u32, u32); 4] = [(0, 0), (9, 4), (3, 3), (16, 5)];

/// The marker and dash index a series is drawn with: its `variant`, moved on by one shape and
/// one dash pattern for each time its colour index wraps around the palette, so that an eleventh
/// formulation is not drawn like the first.
fn look(s: &Series) -> usize {
    s.variant + (s.color / PALETTE.len()) * (SHAPES + 1)
}

/// Draws markers of shape `shape` at the points `pts`: `markers!(series chart, …)` on a chart
/// context, `markers!(area a, …)` on a drawing area — one match outside the loop, since each
/// shape is its own element type.
macro_rules! markers {
    (@shape $sink:expr, $how:ident, $pts:expr, $shape:expr, $style:expr) => {{
        let style = $style;
        let pts = $pts;
        match $shape % SHAPES {
            0 => markers!(@$how $sink, pts.map(|q| EmptyElement::at(q) + Circle::new((0, 0), 4, style))),
            1 => markers!(@$how $sink, pts.map(|q| EmptyElement::at(q) + Rectangle::new([(-4, -4), (4, 4)], style))),
            2 => markers!(@$how $sink, pts.map(|q| EmptyElement::at(q) + Polygon::new(vec![(0, -5), (5, 4), (-5, 4)], style))),
            3 => markers!(
                @$how $sink,
                pts.map(|q| EmptyElement::at(q) + Polygon::new(vec![(0, -6), (5, 0), (0, 6), (-5, 0)], style))
            ),
            4 => markers!(@$how $sink, pts.map(|q| {
                EmptyElement::at(q)
                    + PathElement::new(vec![(-5, 0), (5, 0)], style)
                    + PathElement::new(vec![(0, -5), (0, 5)], style)
            })),
            _ => markers!(@$how $sink, pts.map(|q| {
                EmptyElement::at(q)
                    + PathElement::new(vec![(-4, -4), (4, 4)], style)
                    + PathElement::new(vec![(-4, 4), (4, -4)], style)
            })),
        }
    }};
    (@series $sink:expr, $elems:expr) => {{
        $sink.draw_series($elems)?;
    }};
    (@area $sink:expr, $elems:expr) => {{
        for e in $elems {
            $sink.draw(&e)?;
        }
    }};
    (series $sink:expr, $pts:expr, $shape:expr, $style:expr) => {
        markers!(@shape $sink, series, $pts, $shape, $style)
    };
    (area $sink:expr, $pts:expr, $shape:expr, $style:expr) => {
        markers!(@shape $sink, area, $pts, $shape, $style)
    };
}

fn series_style(s: &Series) -> ShapeStyle {
    let c = color(s.color);
    if s.faint { c.mix(0.45).stroke_width(1) } else { c.stroke_width(2) }
}

/// The legend text of a series, wrapped at " · " (or spaces) to lines of at most `width` chars.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut cur = String::new();
    for word in text.split(' ') {
        if !cur.is_empty() && cur.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// Characters per legend line.
const LEGEND_CHARS: usize = 46;
/// Pixels per legend line.
const LEGEND_LINE: i32 = 16;

fn legend_label(s: &Series) -> String {
    if s.faint { format!("{} (rounding level)", s.label) } else { s.label.clone() }
}

/// Legend lines a panel needs.
fn legend_lines(panel: &Panel) -> usize {
    panel.series.iter().map(|s| wrap(&legend_label(s), LEGEND_CHARS).len()).sum::<usize>() + panel.series.len() / 4
}

/// The axis ranges holding every drawable point of the panel's series (guides excluded).
fn data_range(fig: &Figure, panel: &Panel) -> ((f64, f64), (f64, f64)) {
    let pts: Vec<(f64, f64)> = panel
        .series
        .iter()
        .filter(|s| s.style != Style::Guide)
        .flat_map(|s| s.points.iter().filter_map(|&(x, y)| Some((usable(x, fig.x_log)?, usable(y, fig.y_log)?))))
        .collect();
    (range(pts.iter().map(|p| p.0), fig.x_log), range(pts.iter().map(|p| p.1), fig.y_log))
}

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, fig: &Figure, panel: &Panel) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (chart_area, legend_area) = area.split_horizontally(area.dim_in_pixel().0 as i32 * 64 / 100);
    let ((x0, x1), (y0, y1)) = data_range(fig, panel);
    let mut builder = ChartBuilder::on(&chart_area);
    builder.caption(&panel.title, ("sans-serif", 17)).margin(10).x_label_area_size(44).y_label_area_size(84);
    macro_rules! finish {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(fig.x_label.as_str())
                .y_desc(fig.y_label.as_str())
                .label_style(("sans-serif", 13))
                .axis_desc_style(("sans-serif", 15))
                .x_label_formatter(&|v| tick(*v, fig.x_log))
                .y_label_formatter(&|v| tick(*v, fig.y_log))
                .bold_line_style(RGBColor(200, 200, 200))
                .light_line_style(RGBColor(238, 238, 238))
                .draw()?;
            let clip = |v: &(f64, f64)| v.0 >= x0 && v.0 <= x1 && v.1 >= y0 && v.1 <= y1;
            for (k, s) in panel.series.iter().enumerate() {
                let p: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter_map(|&(x, y)| Some((usable(x, fig.x_log)?, usable(y, fig.y_log)?)))
                    .collect();
                let style = series_style(s);
                let (dash, gap) = DASHES[(look(s) / SHAPES) % DASHES.len()];
                match s.style {
                    Style::Front => {
                        chart.draw_series(LineSeries::new(p, RGBColor(0, 0, 0).mix(0.13).stroke_width(11)))?;
                    }
                    Style::Guide => {
                        let guide = RGBColor(90, 90, 90).stroke_width(1);
                        chart.draw_series(DashedLineSeries::new(p.clone(), 6, 4, guide))?;
                        if let Some(&end) = p.iter().filter(|q| clip(q)).last() {
                            chart.draw_series(std::iter::once(Text::new(
                                s.label.clone(),
                                end,
                                ("sans-serif", 12).into_font().color(&RGBColor(70, 70, 70)),
                            )))?;
                        }
                    }
                    Style::Line | Style::LineMarkers => {
                        if dash == 0 {
                            chart.draw_series(LineSeries::new(p.clone(), style))?;
                        } else {
                            chart.draw_series(DashedLineSeries::new(p.clone(), dash, gap, style))?;
                        }
                        // Every point, or ~8 staggered markers along a long time series.
                        let every = if s.style == Style::LineMarkers { 1 } else { (p.len() / 8).max(1) };
                        let offset = if every > 1 { (k * every / 5) % every } else { 0 };
                        markers!(series chart, p.iter().skip(offset).step_by(every).copied(), look(s), style);
                    }
                }
            }
        }};
    }
    match (fig.x_log, fig.y_log) {
        (true, true) => finish!(builder.build_cartesian_2d(
            (x0..x1).log_scale().with_key_points(log_ticks(x0, x1)).with_light_points(log_minor(x0, x1)),
            (y0..y1).log_scale().with_key_points(log_ticks(y0, y1)).with_light_points(log_minor(y0, y1))
        )?),
        (false, true) => finish!(builder.build_cartesian_2d(
            x0..x1,
            (y0..y1).log_scale().with_key_points(log_ticks(y0, y1)).with_light_points(log_minor(y0, y1))
        )?),
        (true, false) => finish!(builder.build_cartesian_2d(
            (x0..x1).log_scale().with_key_points(log_ticks(x0, x1)).with_light_points(log_minor(x0, x1)),
            y0..y1
        )?),
        (false, false) => finish!(builder.build_cartesian_2d(x0..x1, y0..y1)?),
    }
    draw_legend(&legend_area, panel)
}

/// Legend: swatch (dash pattern and marker) + label wrapped over as many lines as it needs.
fn draw_legend<DB: DrawingBackend>(legend_area: &DrawingArea<DB, Shift>, panel: &Panel) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let mut y = 36;
    for s in &panel.series {
        let (dash, gap) = DASHES[(look(s) / SHAPES) % DASHES.len()];
        match s.style {
            Style::Guide => {
                legend_area.draw(&DashedPathElement::new(
                    vec![(4, y), (34, y)],
                    6,
                    4,
                    RGBColor(90, 90, 90).stroke_width(1),
                ))?;
            }
            Style::Front => {
                legend_area
                    .draw(&PathElement::new(vec![(4, y), (34, y)], RGBColor(0, 0, 0).mix(0.13).stroke_width(11)))?;
            }
            _ => {
                let style = series_style(s);
                if dash == 0 {
                    legend_area.draw(&PathElement::new(vec![(4, y), (34, y)], style))?;
                } else {
                    legend_area.draw(&DashedPathElement::new(vec![(4, y), (34, y)], dash, gap, style))?;
                }
                markers!(area legend_area, std::iter::once((19, y)), look(s), style);
            }
        }
        for (i, line) in wrap(&legend_label(s), LEGEND_CHARS).into_iter().enumerate() {
            legend_area.draw(&Text::new(line, (42, y - 7 + i as i32 * LEGEND_LINE), ("sans-serif", 13).into_font()))?;
            if i > 0 {
                y += LEGEND_LINE;
            }
        }
        y += LEGEND_LINE + 3;
    }
    Ok(())
}

/// Height of one row of panels: the chart (440 px) or the tallest legend, whichever is more.
fn row_height(panels: &[Panel]) -> u32 {
    let lines = panels.iter().map(legend_lines).max().unwrap_or(0) as u32;
    440u32.max(50 + lines * (LEGEND_LINE as u32 + 3))
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, fig: &Figure) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    // The title shrinks to fit the width (about 0.55 em per character) rather than being cut.
    let width = root.dim_in_pixel().0 as f64;
    let px = (width / (0.55 * fig.title.chars().count().max(1) as f64)).clamp(12.0, 21.0) as u32;
    let titled = root.titled(&fig.title, ("sans-serif", px))?;
    let cols = columns(fig);
    let heights: Vec<u32> = fig.panels.chunks(cols).map(row_height).collect();
    let mut rest = titled;
    for (row, panels) in fig.panels.chunks(cols).enumerate() {
        let (this, below) = rest.split_vertically(heights[row]);
        let areas = this.split_evenly((1, cols));
        for (area, panel) in areas.iter().zip(panels) {
            draw_panel(area, fig, panel)?;
        }
        rest = below;
    }
    root.present()?;
    Ok(())
}

/// Panels per row: two, or one when there is one panel or a legend is long (so the chart, which
/// stretches to the legend's height, keeps a sensible aspect).
fn columns(fig: &Figure) -> usize {
    if fig.panels.len() > 1 && fig.panels.iter().all(|p| legend_lines(p) <= 26) { 2 } else { 1 }
}

/// Size in pixels of a figure: 1100 wide per column; each row of panels as high as its chart or
/// its longest legend.
pub(crate) fn size(fig: &Figure) -> (u32, u32) {
    let cols = columns(fig);
    let h: u32 = fig.panels.chunks(cols).map(row_height).sum();
    (1100 * cols as u32, 40 + h.max(440))
}

/// The font database the rasteriser resolves `sans-serif` in: the embedded DejaVu Sans only.
fn fontdb() -> std::sync::Arc<resvg::usvg::fontdb::Database> {
    static DB: std::sync::OnceLock<std::sync::Arc<resvg::usvg::fontdb::Database>> = std::sync::OnceLock::new();
    DB.get_or_init(|| {
        let mut db = resvg::usvg::fontdb::Database::new();
        db.load_font_data(SANS.to_vec());
        db.set_sans_serif_family("DejaVu Sans");
        std::sync::Arc::new(db)
    })
    .clone()
}

/// Rasterises an SVG document to PNG with resvg (proper glyph advances and side bearings,
/// anti-aliased), using only the embedded font.
pub(crate) fn rasterise(svg: &str, png: &Path) -> DrawResult {
    std::fs::write(png, pixmap(svg)?.encode_png()?)?;
    Ok(())
}

/// An SVG document rendered on white by resvg with the embedded font.
pub(crate) fn pixmap(svg: &str) -> Result<resvg::tiny_skia::Pixmap, Box<dyn std::error::Error>> {
    let opt = resvg::usvg::Options { fontdb: fontdb(), ..Default::default() };
    let tree = resvg::usvg::Tree::from_str(svg, &opt)?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("figure has an empty size")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(&tree, resvg::tiny_skia::Transform::default(), &mut pixmap.as_mut());
    Ok(pixmap)
}

/// Renders `fig` to `<stem>.svg` (plotters) and `<stem>.png` (that SVG rasterised by resvg).
pub(crate) fn render(fig: &Figure, stem: &Path) -> DrawResult {
    register_font();
    let (w, h) = size(fig);
    let mut svg = String::new();
    draw(SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area(), fig)?;
    std::fs::write(stem.with_extension("svg"), &svg)?;
    rasterise(&svg, &stem.with_extension("png"))?;
    Ok(())
}
