//! The sweep order of `gauss_seidel` with `coloring`: a greedy colouring of the constraint graph
//! (Box2D v3 `constraint_graph.c` orders its solver the same way) — J's blocks in natural order
//! each take the lowest colour no block sharing one of its columns (a body) has taken; the sweep
//! then visits colour by colour, and within a colour each run's blocks in natural order. Blocks
//! of one colour touch disjoint bodies, so their updates do not wait on each other. Blocks that
//! find all [`COLORS`] colours taken go to a last, overflow group, swept in natural order (as
//! Box2D's overflow constraints are).

use crate::sparse::BlockRun;

/// Colours before the overflow group (Box2D v3 uses 24; one machine word of flags here).
pub(super) const COLORS: usize = 64;

/// One stretch of the colouring's order: blocks `start..end` of the flat block list, all of run
/// `run`; `independent` unless they are of the overflow group (whose blocks may share columns, so
/// only the one-block sweep in list order may take them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    pub(super) run: usize,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) independent: bool,
}

/// The sweep order: segments over a flat list of block indices (within their run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Coloring {
    pub(super) segments: Vec<Segment>,
    pub(super) blocks: Vec<u32>,
    /// Colours used, the overflow group counted as one.
    pub(super) colors: usize,
}

impl Coloring {
    /// Colours the blocks of `runs` (columns in `columns`, `ncols` columns in all).
    pub(super) fn of(runs: &[BlockRun], columns: &[u32], ncols: usize) -> Coloring {
        let mut used = vec![0u64; ncols];
        // per colour (the overflow last), per run: the run's blocks of that colour
        let mut groups: Vec<Vec<Vec<u32>>> = vec![vec![Vec::new(); runs.len()]; COLORS + 1];
        for (ri, run) in runs.iter().enumerate() {
            let l = run.ldof;
            for blk in 0..run.blocks {
                let cols = &columns[run.col0 + blk * l..run.col0 + (blk + 1) * l];
                let taken = cols.iter().fold(0u64, |m, &c| m | used[c as usize]);
                let color = (!taken).trailing_zeros() as usize; // COLORS when all are taken
                if color < COLORS {
                    cols.iter().for_each(|&c| used[c as usize] |= 1u64 << color);
                }
                groups[color][ri].push(blk as u32);
            }
        }
        let mut coloring = Coloring::default();
        for (color, group) in groups.iter().enumerate() {
            if group.iter().all(Vec::is_empty) {
                continue;
            }
            coloring.colors += 1;
            for (run, list) in group.iter().enumerate().filter(|(_, l)| !l.is_empty()) {
                let start = coloring.blocks.len();
                coloring.blocks.extend_from_slice(list);
                coloring.segments.push(Segment { run, start, end: coloring.blocks.len(), independent: color < COLORS });
            }
        }
        coloring
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(ldof: usize, blocks: usize) -> BlockRun {
        BlockRun { ldof, rows: 1, blocks, row0: 0, val0: 0, col0: 0 }
    }

    #[test]
    fn a_chain_takes_two_colours_and_no_colour_shares_a_column() {
        // links (i, i+1) of 2 columns each: particles 0..6 in the plane
        let cols: Vec<u32> = (0..5u32).flat_map(|i| [2 * i, 2 * i + 1, 2 * i + 2, 2 * i + 3]).collect();
        let c = Coloring::of(&[run(4, 5)], &cols, 12);
        assert_eq!(c.colors, 2);
        assert_eq!(c.blocks, vec![0, 2, 4, 1, 3]);
        assert_eq!(
            c.segments,
            vec![Segment { run: 0, start: 0, end: 3, independent: true }, Segment { run: 0, start: 3, end: 5, independent: true }]
        );
    }

    #[test]
    fn a_hub_beyond_the_colours_overflows_in_natural_order() {
        // COLORS + 3 blocks all on column 0 (a hub): one colour each, then the overflow group
        let n = COLORS + 3;
        let cols: Vec<u32> = (0..n as u32).flat_map(|i| [0, i + 1]).collect();
        let c = Coloring::of(&[run(2, n)], &cols, n + 1);
        assert_eq!(c.colors, COLORS + 1);
        assert_eq!(&c.blocks[COLORS..], &[COLORS as u32, COLORS as u32 + 1, COLORS as u32 + 2]);
        // only the overflow group's segment is marked dependent
        assert!(c.segments[..COLORS].iter().all(|s| s.independent) && !c.segments[COLORS].independent);
        // every block exactly once
        let mut all = c.blocks.clone();
        all.sort_unstable();
        assert_eq!(all, (0..n as u32).collect::<Vec<_>>());
    }
}
