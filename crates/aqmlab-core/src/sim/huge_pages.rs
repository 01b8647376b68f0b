//! Asks Linux to back the simulator's large arenas (links, agents, flow counters, packets)
//! with transparent huge pages (`madvise`, see the kernel's
//! Documentation/admin-guide/mm/transhuge.rst).
//!
//! Why: at 100,000 flows the arenas are hundreds of MB and every event lands on a different
//! link or agent, so on 4 KB pages nearly every access also misses the TLB, and in a virtual
//! machine a TLB miss is a two-level page walk. Many systems (this one included) enable huge
//! pages only for memory that asks (`enabled = madvise`). Advice changes where memory lives,
//! never what it holds, so results are the same with or without it, and a kernel that refuses
//! (an older one, or another OS) is ignored.
//!
//! Memory already in use is collapsed in place (`MADV_COLLAPSE`, Linux 6.1 and later), one
//! 2 MB page at a time, so the peak grows by at most a page. Moving an arena into a fresh
//! advised allocation instead held the old and the new copy at once: 20 MB more peak memory
//! for 25,000 agents, which the memory estimate's calibration caught.

/// The huge page size on x86-64 and arm64 Linux with 4 KB base pages.
const HUGE_PAGE: usize = 2 << 20;

/// Advises huge pages for `v`: the whole 2 MB pages under its elements are collapsed now
/// (`collapse`) or merely advised, the rest of its allocation is advised for when it is
/// touched. Allocations under 2 MB are left alone: a huge page would hold mostly memory they
/// do not use.
pub fn advise_huge_pages<T>(v: &Vec<T>, collapse: bool) {
    let size = std::mem::size_of::<T>();
    let base = v.as_ptr() as usize;
    let (used, allocated) = (v.len() * size, v.capacity() * size);
    if allocated < HUGE_PAGE {
        return;
    }
    let start = base.next_multiple_of(HUGE_PAGE);
    let end = (base + allocated) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        advise(start, end - start, Advice::HugePages);
    }
    // Only under the elements: collapsing fills whole pages, and the spare capacity of a
    // vector that will not grow again would then be resident for nothing.
    let used_end = (base + used) / HUGE_PAGE * HUGE_PAGE;
    if collapse && used_end > start {
        advise(start, used_end - start, Advice::CollapseNow);
    }
}

enum Advice {
    HugePages,
    CollapseNow,
}

#[cfg(target_os = "linux")]
fn advise(start: usize, len: usize, advice: Advice) {
    let advice = match advice {
        Advice::HugePages => libc::MADV_HUGEPAGE,
        // Not in every libc binding; the value is the kernel's (include/uapi/asm-generic/
        // mman-common.h), and a kernel without it answers EINVAL.
        Advice::CollapseNow => 25,
    };
    // SAFETY: [start, start + len) lies inside an allocation the caller owns; neither advice
    // changes its contents or its validity, only how the kernel maps it. The return value is
    // ignored on purpose: a refusal leaves 4 KB pages, which are correct, only slower.
    unsafe {
        libc::madvise(start as *mut libc::c_void, len, advice);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise(_start: usize, _len: usize, _advice: Advice) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_elements_are_unchanged() {
        // Whether the kernel took the advice cannot be observed portably; what must hold is
        // that the data is intact, for small and large vectors, with and without collapse.
        for n in [0u64, 100, 1_000_000] {
            for collapse in [false, true] {
                let mut v: Vec<u64> = Vec::with_capacity(n as usize * 3 / 2);
                v.extend(0..n);
                advise_huge_pages(&v, collapse);
                assert!(v.iter().copied().eq(0..n));
                v.extend(n..2 * n);
                assert!(v.iter().copied().eq(0..2 * n));
            }
        }
    }
}
