//! Figures: log-scale line and scatter plots rendered to PNG and SVG with plotters.
//!
//! Text uses DejaVu Sans embedded in the binary (no fontconfig, no system fonts). A figure is a
//! grid of panels; each panel draws its chart on the left and its legend on the right, so up to
//! ~24 series stay readable. Callers facet (one panel per formulation, say) when there are more.

use plotters::coord::Shift;
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
pub enum Style {
    /// Connected line.
    Line,
    /// Line with a marker at every point.
    LineMarkers,
    /// Thin dashed guide line (reference slopes).
    Guide,
}

/// One series of (x, y) points.
#[derive(Clone, Debug)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Palette index (stable colour per series identity).
    pub color: usize,
    /// The points; non-positive or non-finite values are dropped on log axes.
    pub points: Vec<(f64, f64)>,
    /// How to draw it.
    pub style: Style,
}

/// One chart.
#[derive(Clone, Debug)]
pub struct Panel {
    /// Panel title.
    pub title: String,
    /// Its series.
    pub series: Vec<Series>,
}

/// A figure: panels sharing axis labels and scales.
#[derive(Clone, Debug)]
pub struct Figure {
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

/// Tableau-20 palette: ten hues, each in a dark and a light shade.
const PALETTE: [(u8, u8, u8); 20] = [
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
    (174, 199, 232),
    (255, 187, 120),
    (152, 223, 138),
    (255, 152, 150),
    (197, 176, 213),
    (196, 156, 148),
    (247, 182, 210),
    (199, 199, 199),
    (219, 219, 141),
    (158, 218, 229),
];

fn color(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// Smallest value shown on a log axis; exact zeros (e.g. no drift at all) are drawn here.
pub const LOG_FLOOR: f64 = 1e-17;

fn usable(v: f64, log: bool) -> Option<f64> {
    if !v.is_finite() {
        None
    } else if log {
        Some(v.max(LOG_FLOOR))
    } else {
        Some(v)
    }
}

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
        let (l, h) = (lo.log10().floor(), hi.log10().ceil());
        let h = if h <= l { l + 1.0 } else { h };
        (10f64.powf(l), 10f64.powf(h))
    } else {
        let pad = if hi > lo { 0.05 * (hi - lo) } else { 0.5 * lo.abs().max(1.0) };
        (lo - pad, hi + pad)
    }
}

/// Tick label: powers of ten as `1e-7` on log axes (plain 0.01 … 1000), short numbers otherwise.
fn tick(v: f64, log: bool) -> String {
    if log && v > 0.0 {
        let e = v.log10();
        if (e - e.round()).abs() < 1e-6 {
            let k = e.round() as i32;
            return if (-2..=3).contains(&k) { crate::params::fmt_num(10f64.powi(k)) } else { format!("1e{k}") };
        }
        return format!("{v:.0e}");
    }
    let r = (v * 1e9).round() / 1e9;
    if r != 0.0 && (r.abs() < 1e-3 || r.abs() >= 1e5) { format!("{r:.1e}") } else { format!("{r}") }
}

type DrawResult = Result<(), Box<dyn std::error::Error>>;

fn draw_panel<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, fig: &Figure, panel: &Panel) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let (chart_area, legend_area) = area.split_horizontally(area.dim_in_pixel().0 as i32 * 68 / 100);
    let pts: Vec<(f64, f64)> = panel
        .series
        .iter()
        .flat_map(|s| s.points.iter().filter_map(|&(x, y)| Some((usable(x, fig.x_log)?, usable(y, fig.y_log)?))))
        .collect();
    let (x0, x1) = range(pts.iter().map(|p| p.0), fig.x_log);
    let (y0, y1) = range(pts.iter().map(|p| p.1), fig.y_log);
    let mut builder = ChartBuilder::on(&chart_area);
    builder.caption(&panel.title, ("sans-serif", 18)).margin(8).x_label_area_size(44).y_label_area_size(84);
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
                .light_line_style(RGBColor(235, 235, 235))
                .draw()?;
            for s in &panel.series {
                let p: Vec<(f64, f64)> = s
                    .points
                    .iter()
                    .filter_map(|&(x, y)| Some((usable(x, fig.x_log)?, usable(y, fig.y_log)?)))
                    .collect();
                let c = color(s.color);
                match s.style {
                    Style::Line => {
                        chart.draw_series(LineSeries::new(p, c.stroke_width(2)))?;
                    }
                    Style::LineMarkers => {
                        chart.draw_series(LineSeries::new(p.clone(), c.stroke_width(2)))?;
                        chart.draw_series(p.into_iter().map(|q| Circle::new(q, 4, c.filled())))?;
                    }
                    Style::Guide => {
                        chart.draw_series(DashedLineSeries::new(p, 6, 4, BLACK.mix(0.55).stroke_width(1)))?;
                    }
                }
            }
        }};
    }
    match (fig.x_log, fig.y_log) {
        (true, true) => finish!(builder.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?),
        (false, true) => finish!(builder.build_cartesian_2d(x0..x1, (y0..y1).log_scale())?),
        (true, false) => finish!(builder.build_cartesian_2d((x0..x1).log_scale(), y0..y1)?),
        (false, false) => finish!(builder.build_cartesian_2d(x0..x1, y0..y1)?),
    }
    // Legend: one row per series, colour swatch + label, clipped to the legend area.
    let row = 17;
    let max_rows = ((legend_area.dim_in_pixel().1 as i32 - 40) / row).max(1) as usize;
    for (i, s) in panel.series.iter().enumerate().take(max_rows) {
        let y = 40 + i as i32 * row;
        let style =
            if s.style == Style::Guide { BLACK.mix(0.55).stroke_width(1) } else { color(s.color).stroke_width(3) };
        legend_area.draw(&PathElement::new(vec![(4, y), (26, y)], style))?;
        let mut text = s.label.clone();
        if text.chars().count() > 52 {
            text = text.chars().take(51).collect::<String>() + "…";
        }
        legend_area.draw(&Text::new(text, (32, y - 7), ("sans-serif", 13).into_font()))?;
    }
    if panel.series.len() > max_rows {
        let y = 40 + max_rows as i32 * row;
        legend_area.draw(&Text::new(
            format!("… {} more", panel.series.len() - max_rows),
            (32, y - 7),
            ("sans-serif", 13).into_font(),
        ))?;
    }
    Ok(())
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, fig: &Figure) -> DrawResult
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let titled = root.titled(&fig.title, ("sans-serif", 22))?;
    let cols = if fig.panels.len() > 1 { 2 } else { 1 };
    let rows = fig.panels.len().div_ceil(cols).max(1);
    let areas = titled.split_evenly((rows, cols));
    for (area, panel) in areas.iter().zip(&fig.panels) {
        draw_panel(area, fig, panel)?;
    }
    root.present()?;
    Ok(())
}

/// Size in pixels of a figure: 1100 wide per column, 440 high per row of panels.
pub fn size(fig: &Figure) -> (u32, u32) {
    let cols = if fig.panels.len() > 1 { 2 } else { 1 };
    let rows = fig.panels.len().div_ceil(cols).max(1) as u32;
    (1100 * cols as u32, 40 + 440 * rows)
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
fn rasterise(svg: &str, png: &Path) -> DrawResult {
    let opt = resvg::usvg::Options { fontdb: fontdb(), ..Default::default() };
    let tree = resvg::usvg::Tree::from_str(svg, &opt)?;
    let size = tree.size().to_int_size();
    let mut pixmap = resvg::tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("figure has an empty size")?;
    pixmap.fill(resvg::tiny_skia::Color::WHITE);
    resvg::render(&tree, resvg::tiny_skia::Transform::default(), &mut pixmap.as_mut());
    std::fs::write(png, pixmap.encode_png()?)?;
    Ok(())
}

/// Renders `fig` to `<stem>.svg` (plotters) and `<stem>.png` (that SVG rasterised by resvg).
pub fn render(fig: &Figure, stem: &Path) -> DrawResult {
    register_font();
    let (w, h) = size(fig);
    let mut svg = String::new();
    draw(SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area(), fig)?;
    std::fs::write(stem.with_extension("svg"), &svg)?;
    rasterise(&svg, &stem.with_extension("png"))?;
    Ok(())
}
