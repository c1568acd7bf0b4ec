//! The broad phase: a uniform grid of hashed cells (spatial hashing; Teschner et al. 2003,
//! "Optimized spatial hashing for collision detection of deformable objects"), shared by the 3D
//! and the 2D detector.
//!
//! The cell side s is twice the median extent of the shapes' boxes, so a box no larger than s
//! touches at most two cells per axis (8 in space, 4 in the plane); the few boxes larger than s
//! (a slab under a stack, a long bar) are "big" and tested against every other box. Each small
//! box is entered in the cells it touches, the entries are sorted by hashed cell with a counting
//! sort, and the boxes sharing a cell are tested for overlap; a pair is reported only from the
//! cell holding the lower corner of the two boxes' intersection (a point inside both, so the
//! cell is one of both), so it is reported once. At a fixed density of bodies of bounded size
//! each box meets O(1) others: the work is linear in the number of shapes, where sorting and
//! sweeping along one axis meets every box whose x interval overlaps (≈ N^(2/3) per box in a
//! uniform scatter in space, √N in the plane). The workspaces are kept across detections, so a
//! warm detector does not allocate.

/// A box in D dimensions: lower and upper corner.
pub(super) type Bounds<const D: usize> = ([f64; D], [f64; D]);

/// One small box entered in one cell.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    slot: u32,
    shape: u32,
    cell: [i64; 3],
}

/// The grid's workspaces, reused across detections.
#[derive(Debug, Default)]
pub(super) struct Grid {
    extents: Vec<f64>,
    big: Vec<u32>,
    entries: Vec<Entry>,
    sorted: Vec<Entry>,
    counts: Vec<u32>,
}

fn overlap<const D: usize>(a: &Bounds<D>, b: &Bounds<D>) -> bool {
    (0..D).all(|k| a.0[k] <= b.1[k] && b.0[k] <= a.1[k])
}

fn cell_of<const D: usize>(p: &[f64; D], side: f64) -> [i64; 3] {
    let mut c = [0i64; 3];
    for k in 0..D {
        c[k] = (p[k] / side).floor() as i64;
    }
    c
}

/// A hash of a cell into `mask + 1` slots (a power of two).
fn slot(cell: &[i64; 3], mask: u32) -> u32 {
    let h = (cell[0] as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ (cell[1] as u64).wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
        ^ (cell[2] as u64).wrapping_mul(0x1656_67b1_9e37_79f9);
    ((h ^ (h >> 29)) as u32) & mask
}

impl Grid {
    /// The pairs (i < j) of `boxes` that overlap and that `accept` takes (shapes on different
    /// bodies), into `pairs`, sorted.
    pub(super) fn pairs<const D: usize>(
        &mut self,
        boxes: &[Bounds<D>],
        accept: impl Fn(u32, u32) -> bool,
        pairs: &mut Vec<(u32, u32)>,
    ) {
        pairs.clear();
        let extent = |b: &Bounds<D>| (0..D).map(|k| b.1[k] - b.0[k]).fold(0.0f64, f64::max);
        self.extents.clear();
        self.extents.extend(boxes.iter().map(extent));
        if boxes.len() < 2 {
            return;
        }
        let mid = self.extents.len() / 2;
        let median = *self.extents.select_nth_unstable_by(mid, f64::total_cmp).1;
        let side = if median.is_finite() && median > 0.0 { 2.0 * median } else { 1.0 };
        self.big.clear();
        self.entries.clear();
        let mask = (4 * boxes.len()).next_power_of_two() as u32 - 1;
        for (i, b) in boxes.iter().enumerate() {
            if !(extent(b) <= side) {
                self.big.push(i as u32);
                continue;
            }
            let (lo, hi) = (cell_of(&b.0, side), cell_of(&b.1, side));
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        let cell = [x, y, z];
                        self.entries.push(Entry { slot: slot(&cell, mask), shape: i as u32, cell });
                    }
                }
            }
        }
        self.sort_by_slot(mask);
        self.small_pairs(boxes, side, &accept, pairs);
        for (k, &a) in self.big.iter().enumerate() {
            // Against every small box, and against the big ones after it.
            let small = (0..boxes.len() as u32).filter(|&b| !(extent(&boxes[b as usize]) > side));
            for b in small.chain(self.big[k + 1..].iter().copied()) {
                if overlap(&boxes[a as usize], &boxes[b as usize]) && accept(a, b) {
                    pairs.push((a.min(b), a.max(b)));
                }
            }
        }
        pairs.sort_unstable();
    }

    /// `entries` into `sorted`, ordered by slot (a counting sort: linear, stable).
    fn sort_by_slot(&mut self, mask: u32) {
        self.counts.clear();
        self.counts.resize(mask as usize + 2, 0);
        for e in &self.entries {
            self.counts[e.slot as usize + 1] += 1;
        }
        for k in 1..self.counts.len() {
            self.counts[k] += self.counts[k - 1];
        }
        self.sorted.clear();
        self.sorted.resize(self.entries.len(), Entry::default());
        for e in &self.entries {
            let at = &mut self.counts[e.slot as usize];
            self.sorted[*at as usize] = *e;
            *at += 1;
        }
    }

    /// The overlapping pairs of small boxes, each from the one cell that holds the lower corner
    /// of the two boxes' intersection.
    fn small_pairs<const D: usize>(
        &self,
        boxes: &[Bounds<D>],
        side: f64,
        accept: &impl Fn(u32, u32) -> bool,
        pairs: &mut Vec<(u32, u32)>,
    ) {
        let mut start = 0;
        while start < self.sorted.len() {
            let slot = self.sorted[start].slot;
            let end = start + self.sorted[start..].iter().take_while(|e| e.slot == slot).count();
            let group = &self.sorted[start..end];
            for (k, ea) in group.iter().enumerate() {
                for eb in &group[k + 1..] {
                    let (a, b) = (ea.shape, eb.shape);
                    if ea.cell != eb.cell || a == b {
                        continue;
                    }
                    let (ba, bb) = (&boxes[a as usize], &boxes[b as usize]);
                    if !overlap(ba, bb) {
                        continue;
                    }
                    let mut corner = [0.0; D];
                    for (c, (x, y)) in corner.iter_mut().zip(ba.0.iter().zip(&bb.0)) {
                        *c = x.max(*y);
                    }
                    if cell_of(&corner, side) == ea.cell && accept(a, b) {
                        pairs.push((a.min(b), a.max(b)));
                    }
                }
            }
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The grid finds exactly the overlapping pairs that all-pairs testing finds: boxes of mixed
    /// sizes (some big, some touching, some far), in space and in the plane, each pair once.
    #[test]
    fn the_grid_finds_the_pairs_all_pairs_testing_finds() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut uniform = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut boxes3 = Vec::new();
        let mut boxes2 = Vec::new();
        for i in 0..600 {
            // Every 50th box is 20 times the others: the big ones.
            let size = if i % 50 == 0 { 2.0 } else { 0.1 + 0.1 * uniform() };
            let lo = [3.0 * uniform() - 1.5, 3.0 * uniform() - 1.5, 3.0 * uniform() - 1.5];
            boxes3.push((lo, [lo[0] + size, lo[1] + size, lo[2] + size]));
            boxes2.push(([lo[0], lo[1]], [lo[0] + size, lo[1] + size]));
        }
        let accept = |a: u32, b: u32| !(a + b).is_multiple_of(7); // some pairs on one body
        fn brute<const D: usize>(boxes: &[Bounds<D>], accept: impl Fn(u32, u32) -> bool) -> Vec<(u32, u32)> {
            let mut out = Vec::new();
            for a in 0..boxes.len() as u32 {
                for b in a + 1..boxes.len() as u32 {
                    if overlap(&boxes[a as usize], &boxes[b as usize]) && accept(a, b) {
                        out.push((a, b));
                    }
                }
            }
            out
        }
        let (mut grid, mut pairs) = (Grid::default(), Vec::new());
        grid.pairs(&boxes3, accept, &mut pairs);
        let want = brute(&boxes3, accept);
        assert!(want.len() > 1000, "{} pairs: the test must have many", want.len());
        assert_eq!(pairs, want);
        grid.pairs(&boxes2, accept, &mut pairs);
        assert_eq!(pairs, brute(&boxes2, accept));
    }
}
