//! A global allocator that backs every allocation of 2 MiB or more with its own anonymous mapping,
//! aligned to 2 MiB and marked for transparent huge pages; smaller ones go to the system
//! allocator unchanged. The `tinkertoy` binary installs it.
//!
//! Why: a long chain's step streams its vectors, the Jacobian's values and the envelope factor
//! once or twice per Newton iteration. At 10⁵ links that is over 100 MiB, and with 4 KiB pages
//! every 4 KiB of it costs a walk of the page tables once the TLB's reach (a few MiB) is
//! exceeded: the step's cost per link rises with N where the work per link does not. With 2 MiB
//! pages the same TLB covers 512× more. Measured: the chain of `experiments/chain_scaling.yaml`
//! (docs/results.md, "How the rigid cell scales with N").
//!
//! `madvise(MADV_HUGEPAGE)` is a hint: where the kernel has transparent huge pages off ("never")
//! the mapping keeps 4 KiB pages and nothing else changes; with "always" it has them anyway. No
//! value computed depends on it. Off Linux every allocation goes to the system allocator.
//! A large block is rounded up to a whole number of 2 MiB pages (less than 2 MiB more each, mapped
//! lazily like any anonymous memory), and fresh mappings are zero, so `alloc_zeroed` writes
//! nothing.

use std::alloc::{GlobalAlloc, Layout, System};

/// The huge-page size of x86-64 and of AArch64 with 4 KiB base pages \[bytes\]; also the
/// threshold from which an allocation gets its own mapping.
pub const HUGE_PAGE: usize = 2 << 20;

/// The allocator (see the module docs): `#[global_allocator] static A: LargePages = LargePages;`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LargePages;

/// Whether a block of this layout gets its own mapping (the same answer in `alloc` and `dealloc`,
/// which see the same layout).
fn is_large(layout: &Layout) -> bool {
    cfg!(target_os = "linux") && layout.size() >= HUGE_PAGE && layout.align() <= HUGE_PAGE
}

#[cfg(target_os = "linux")]
mod map {
    use super::HUGE_PAGE;

    /// The bytes mapped for a block of `size` bytes: whole huge pages.
    pub(super) fn mapped_len(size: usize) -> Option<usize> {
        size.checked_next_multiple_of(HUGE_PAGE)
    }

    /// A fresh zeroed mapping of `size` bytes (rounded up to whole huge pages) starting on a huge
    /// page, marked for huge pages; null if the kernel refuses.
    pub(super) fn map(size: usize) -> *mut u8 {
        let Some(len) = mapped_len(size) else { return std::ptr::null_mut() };
        let Some(over) = len.checked_add(HUGE_PAGE) else { return std::ptr::null_mut() };
        let prot = libc::PROT_READ | libc::PROT_WRITE;
        let flags = libc::MAP_PRIVATE | libc::MAP_ANONYMOUS;
        // SAFETY: a new anonymous private mapping touches no existing memory.
        let raw = unsafe { libc::mmap(std::ptr::null_mut(), over, prot, flags, -1, 0) };
        if raw == libc::MAP_FAILED {
            return std::ptr::null_mut();
        }
        // map one huge page more than needed, then give back the unaligned head and the tail
        let raw = raw.cast::<u8>();
        let head = raw.align_offset(HUGE_PAGE);
        let start = raw.wrapping_add(head);
        let tail = over - head - len;
        // SAFETY: both ranges lie inside the mapping just made, outside [start, start + len), and
        // nothing refers to them.
        unsafe {
            if head > 0 {
                libc::munmap(raw.cast(), head);
            }
            if tail > 0 {
                libc::munmap(start.wrapping_add(len).cast(), tail);
            }
            // a hint: its failure (huge pages off, an old kernel) leaves ordinary pages
            libc::madvise(start.cast(), len, libc::MADV_HUGEPAGE);
        }
        start
    }

    /// Returns a block of `size` bytes made by [`map`] to the kernel.
    ///
    /// # Safety
    /// `ptr` came from `map(size)` and is not used afterwards.
    pub(super) unsafe fn unmap(ptr: *mut u8, size: usize) {
        if let Some(len) = mapped_len(size) {
            // SAFETY: by the caller, [ptr, ptr + len) is exactly one mapping made by `map`.
            unsafe { libc::munmap(ptr.cast(), len) };
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod map {
    pub(super) fn map(_size: usize) -> *mut u8 {
        unreachable!("is_large is false off Linux")
    }
    pub(super) unsafe fn unmap(_ptr: *mut u8, _size: usize) {
        unreachable!("is_large is false off Linux")
    }
}

// SAFETY: small blocks are the system allocator's own; a large block is one mapping of at least
// `size` bytes aligned to HUGE_PAGE ≥ its alignment, owned by the caller until `dealloc`, which
// sees the same layout and so the same `is_large`.
unsafe impl GlobalAlloc for LargePages {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if is_large(&layout) {
            map::map(layout.size())
        } else {
            // SAFETY: forwarded with the caller's guarantees
            unsafe { System.alloc(layout) }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if is_large(&layout) {
            // a fresh anonymous mapping reads as zeros
            map::map(layout.size())
        } else {
            // SAFETY: forwarded with the caller's guarantees
            unsafe { System.alloc_zeroed(layout) }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if is_large(&layout) {
            // SAFETY: a large layout's block came from `map` (see above)
            unsafe { map::unmap(ptr, layout.size()) }
        } else {
            // SAFETY: forwarded with the caller's guarantees
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `new_size` with `layout.align()` is a valid layout
        let new_layout = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        if !is_large(&layout) && !is_large(&new_layout) {
            // SAFETY: forwarded with the caller's guarantees
            return unsafe { System.realloc(ptr, layout, new_size) };
        }
        // SAFETY: as `alloc`; the copy stays within both blocks, which do not overlap
        unsafe {
            let new = self.alloc(new_layout);
            if !new.is_null() {
                std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
                self.dealloc(ptr, layout);
            }
            new
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `len` bytes of a pattern through the allocator's block and reads them back.
    fn fill(p: *mut u8, len: usize, seed: u8) {
        for i in 0..len {
            // SAFETY: p is a live block of at least len bytes
            unsafe { p.add(i).write((i as u8).wrapping_mul(31).wrapping_add(seed)) };
        }
    }

    fn holds(p: *const u8, len: usize, seed: u8) -> bool {
        // SAFETY: p is a live block of at least len bytes
        (0..len).all(|i| unsafe { p.add(i).read() } == (i as u8).wrapping_mul(31).wrapping_add(seed))
    }

    #[test]
    fn large_blocks_are_aligned_zeroed_and_keep_their_bytes_through_realloc() {
        let a = LargePages;
        let small = Layout::from_size_align(1000, 8).unwrap();
        let large = Layout::from_size_align(HUGE_PAGE + 12_345, 64).unwrap();
        // SAFETY: layouts of non-zero size; each block is freed with its own layout
        unsafe {
            let z = a.alloc_zeroed(large);
            assert!(!z.is_null());
            if cfg!(target_os = "linux") {
                assert_eq!(z as usize % HUGE_PAGE, 0, "a large block starts on a huge page");
            }
            assert!((0..large.size()).all(|i| z.add(i).read() == 0));
            a.dealloc(z, large);

            // small -> large -> larger -> small: the bytes kept survive each move
            let (n1, n2) = (large.size(), 3 * HUGE_PAGE + 1);
            let with_size = |n| Layout::from_size_align(n, small.align()).unwrap();
            let p = a.alloc(small);
            fill(p, small.size(), 7);
            let p = a.realloc(p, small, n1);
            assert!(holds(p, small.size(), 7));
            fill(p, n1, 9);
            let p = a.realloc(p, with_size(n1), n2);
            assert!(holds(p, n1, 9));
            let p = a.realloc(p, with_size(n2), 500);
            assert!(holds(p, 500, 9));
            a.dealloc(p, with_size(500));
        }
    }
}
