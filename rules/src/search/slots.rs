//! Large tables the search reads at random: the transposition table and the
//! evaluation cache, in memory the kernel may back with huge pages.
//!
//! Every probe of a table of many megabytes lands on a different page, and
//! with ordinary 4 KiB pages nearly every one also misses the processor's
//! address-translation cache; on a virtual machine each such miss walks two
//! sets of page tables. Backed by 2 MiB pages the same table needs a few
//! dozen translations instead of thousands. Linux gives huge pages to the
//! regions a program asks for (`madvise`) when they are aligned to 2 MiB,
//! so the table starts at such a boundary inside a slightly larger vector.

use std::ops::{Index, IndexMut};

/// The size of a huge page on x86-64 and most 64-bit Arm kernels.
const HUGE_PAGE: usize = 2 << 20;

/// A fixed number of slots of `T`.
pub(super) struct Slots<T> {
    store: Vec<T>,
    /// Where the slots start in `store` (the first element at or after a
    /// huge-page boundary).
    start: usize,
    len: usize,
}

impl<T: Copy> Slots<T> {
    /// `len` slots holding `fill`.
    pub(super) fn new(len: usize, fill: T) -> Slots<T> {
        let size = std::mem::size_of::<T>().max(1);
        let bytes = len * size;
        if bytes < HUGE_PAGE {
            return Slots { store: vec![fill; len], start: 0, len };
        }
        let mut store = Vec::with_capacity(len + HUGE_PAGE / size + 1);
        let address = store.as_ptr() as usize;
        let gap = (HUGE_PAGE - address % HUGE_PAGE) % HUGE_PAGE;
        let start = gap.div_ceil(size);
        advise_huge_pages(address + gap, bytes - bytes % HUGE_PAGE);
        // The first touch of each page happens here, after the advice.
        store.resize(start + len, fill);
        Slots { store, start, len }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Every slot holds `fill` again.
    pub(super) fn fill(&mut self, fill: T) {
        self.store[self.start..].iter_mut().for_each(|s| *s = fill);
    }
}

impl<T> Index<usize> for Slots<T> {
    type Output = T;

    #[inline]
    fn index(&self, i: usize) -> &T {
        &self.store[self.start + i]
    }
}

impl<T> IndexMut<usize> for Slots<T> {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.store[self.start + i]
    }
}

/// Asks the kernel to back `bytes` bytes from `address` (a huge-page
/// boundary) with huge pages. Only advice: where it is not taken, or on
/// other systems, the table works the same with ordinary pages.
#[cfg(target_os = "linux")]
fn advise_huge_pages(address: usize, bytes: usize) {
    if bytes == 0 {
        return;
    }
    // SAFETY: the range lies within the vector's allocation (its capacity
    // covers the gap to the boundary and every slot after it), which lives
    // as long as the table; MADV_HUGEPAGE changes how the kernel backs the
    // memory, never its contents, and a failure is harmless.
    unsafe {
        libc::madvise(address as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_address: usize, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_hold_what_is_written_small_and_large() {
        for len in [16usize, 1 << 20] {
            let mut s = Slots::new(len, (0u64, 0i32));
            assert_eq!(s.len(), len);
            s[0] = (1, 2);
            s[len - 1] = (3, 4);
            assert_eq!(s[0], (1, 2));
            assert_eq!(s[len - 1], (3, 4));
            assert_eq!(s[len / 2], (0, 0));
            s.fill((9, 9));
            assert_eq!(s[0], (9, 9));
            assert_eq!(s[len - 1], (9, 9));
        }
    }
}
