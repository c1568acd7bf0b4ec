//! The files of an animation: the recorded positions of a report's cells read back as tracks, and
//! the frames written as one animated PNG (`tinkertoy animate`; the frames are drawn by
//! [`super::drawing::animation_svgs`]).

use super::drawing::Track;
use crate::input::FileError;
use std::path::Path;

/// Writes `<stem>.png`, an animated PNG (APNG: every frame in full colour, played by browsers
/// and by GitHub's Markdown) of `svgs` at `fps` frames per second, looping.
pub(crate) fn write_apng(svgs: &[String], fps: u16, stem: &Path) -> Result<(), FileError> {
    let path = stem.with_extension("png");
    let fail = |e: &dyn std::fmt::Display| FileError::new(&path, e.to_string());
    let pixmaps: Vec<resvg::tiny_skia::Pixmap> =
        svgs.iter().map(|s| super::plot::pixmap(s).map_err(|e| fail(&e))).collect::<Result<_, _>>()?;
    let (w, h) = pixmaps.first().map(|p| (p.width(), p.height())).ok_or_else(|| fail(&"no frames"))?;
    let file = std::fs::File::create(&path).map_err(|e| FileError::io(&path, &e))?;
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.set_animated(pixmaps.len() as u32, 0).map_err(|e| fail(&e))?;
    enc.set_frame_delay(1, fps.max(1)).map_err(|e| fail(&e))?;
    let mut writer = enc.write_header().map_err(|e| fail(&e))?;
    for p in &pixmaps {
        if (p.width(), p.height()) != (w, h) {
            return Err(fail(&"frames of different sizes"));
        }
        // tiny-skia keeps premultiplied alpha; the frames are opaque (white background), so the
        // bytes are the colours.
        writer.write_image_data(p.data()).map_err(|e| fail(&e))?;
    }
    writer.finish().map_err(|e| fail(&e))
}

/// The most panels an animation puts side by side.
pub(super) const MAX_TRACKS: usize = 6;

/// The recorded positions of `cells` (all recorded cells when empty, at most [`MAX_TRACKS`]) from
/// a report directory's `states.csv` (a run with `record: [q]`), labelled from its `summary.csv`;
/// `nq` is the model's number of position coordinates.
pub(crate) fn tracks_from_report(dir: &Path, cells: &[usize], nq: usize) -> Result<Vec<Track>, FileError> {
    let read = |name: &str| {
        csv::Reader::from_path(dir.join(name)).map_err(|e| {
            let reason = match e.into_kind() {
                csv::ErrorKind::Io(io) => crate::experiment::config::io_reason(&io),
                other => format!("{other:?}"),
            };
            FileError::new(dir.join(name), format!("cannot read: {reason}"))
        })
    };
    // Labels: formulation · solver · integrator · h or tol, and how the run ended.
    let mut labels = std::collections::BTreeMap::new();
    let mut summary = read("summary.csv")?;
    let (summary_path, states_path) = (dir.join("summary.csv"), dir.join("states.csv"));
    let in_summary = |reason: String| FileError::new(&summary_path, reason);
    let in_states = |reason: String| FileError::new(&states_path, reason);
    let head = summary.headers().map_err(|e| in_summary(e.to_string()))?.clone();
    let col = |n: &str| head.iter().position(|h| h == n).ok_or_else(|| in_summary(format!("no column `{n}`")));
    let (c, f, s, i, h, tol, st) = (
        col("cell")?,
        col("formulation")?,
        col("solver")?,
        col("integrator")?,
        col("h")?,
        col("tolerance")?,
        col("status")?,
    );
    for r in summary.records() {
        let r = r.map_err(|e| in_summary(e.to_string()))?;
        let step = if r[h].is_empty() { format!("tol={}", &r[tol]) } else { format!("h={}", &r[h]) };
        let id: usize = r[c].parse().map_err(|_| in_summary(format!("bad cell `{}`", &r[c])))?;
        labels.insert(id, format!("#{id} {} · {} · {} · {step} ({})", &r[f], &r[s], &r[i], &r[st]));
    }
    // States: rows (cell, t, q[k], value), in time order per cell.
    let mut states: std::collections::BTreeMap<usize, Vec<(f64, Vec<f64>)>> = std::collections::BTreeMap::new();
    let mut reader = read("states.csv")?;
    for r in reader.records() {
        let r = r.map_err(|e| in_states(e.to_string()))?;
        let Some(k) = r.get(2).and_then(|n| n.strip_prefix("q[")).and_then(|n| n.strip_suffix(']')) else { continue };
        let (Ok(id), Ok(t), Ok(k), Ok(x)) =
            (r[0].parse::<usize>(), r[1].parse::<f64>(), k.parse::<usize>(), r[3].parse::<f64>())
        else {
            return Err(in_states(format!("unreadable row {:?}", r.iter().collect::<Vec<_>>())));
        };
        if !cells.is_empty() && !cells.contains(&id) {
            continue;
        }
        if k >= nq {
            return Err(in_states(format!(
                "q[{k}] but the model has {nq} position coordinates; is this the model's report?"
            )));
        }
        let track = states.entry(id).or_default();
        if track.last().is_none_or(|s| s.0 != t) {
            track.push((t, vec![f64::NAN; nq]));
        }
        if let Some(last) = track.last_mut() {
            last.1[k] = x;
        }
    }
    if let Some(missing) = cells.iter().find(|c| !states.contains_key(c)) {
        return Err(in_states(format!("cell {missing} has no recorded positions")));
    }
    if states.is_empty() {
        return Err(in_states("holds no recorded positions; run the experiment with `record: [q]`".into()));
    }
    if states.len() > MAX_TRACKS {
        return Err(in_states(format!(
            "{} cells have recorded positions; choose at most {MAX_TRACKS} with --cells",
            states.len()
        )));
    }
    Ok(states
        .into_iter()
        .map(|(id, s)| Track { label: labels.remove(&id).unwrap_or_else(|| format!("#{id}")), states: s })
        .collect())
}
