//! Asks Linux to back the simulator's large arenas (links, agents, flow counters, packets)
//! with transparent huge pages (`madvise(MADV_HUGEPAGE)`, see the kernel's
//! Documentation/admin-guide/mm/transhuge.rst).
//!
//! Why: at 100,000 flows the arenas are hundreds of MB and every event lands on a different
//! link or agent, so on 4 KB pages nearly every access also misses the TLB, and in a virtual
//! machine a TLB miss is a two-level page walk. Many systems (this one included) enable huge
//! pages only for memory that asks (`enabled = madvise`). The advice is only advice: it
//! changes where memory lives, never what it holds, so results are the same with or without
//! it, and a kernel that refuses (or another OS) is ignored.

/// The huge page size on x86-64 and arm64 Linux with 4 KB base pages.
const HUGE_PAGE: usize = 2 << 20;

/// `v`'s elements moved into an allocation of at least `capacity` elements whose whole 2 MB
/// pages were advised before anything touched them. The advice has to come first: memory
/// already faulted in on 4 KB pages stays on them until the kernel's background collapse
/// (khugepaged) gets to it, which at the rate it scans is most of a run later. Allocations
/// under 2 MB are only grown: a huge page would hold mostly memory they do not use.
pub fn with_huge_pages<T>(v: Vec<T>, capacity: usize) -> Vec<T> {
    let capacity = capacity.max(v.len());
    let bytes = capacity.saturating_mul(std::mem::size_of::<T>());
    if bytes < HUGE_PAGE {
        let mut v = v;
        v.reserve(capacity - v.len());
        return v;
    }
    let mut fresh = Vec::with_capacity(capacity);
    let start = (fresh.as_ptr() as usize).next_multiple_of(HUGE_PAGE);
    let end = (fresh.as_ptr() as usize + bytes) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        advise(start, end - start);
    }
    fresh.extend(v);
    fresh
}

#[cfg(target_os = "linux")]
fn advise(start: usize, len: usize) {
    // SAFETY: [start, start + len) lies inside an allocation the caller owns; MADV_HUGEPAGE
    // does not change its contents or its validity, only how the kernel maps it. The return
    // value is ignored on purpose: a refusal (huge pages disabled) leaves 4 KB pages.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_elements_move_unchanged_and_the_capacity_is_at_least_asked() {
        // Whether the kernel took the advice cannot be observed portably; what must hold is
        // that the data is intact and in order, for small and large vectors alike.
        for (n, capacity) in [
            (0, 0),
            (100, 10),
            (100, 1000),
            (1_000_000, 0),
            (1_000, 600_000),
        ] {
            let v: Vec<u64> = (0..n).collect();
            let w = with_huge_pages(v, capacity);
            assert_eq!(w.len(), n as usize);
            assert!(w.capacity() >= capacity.max(n as usize));
            assert!(w.iter().copied().eq(0..n));
        }
    }
}
