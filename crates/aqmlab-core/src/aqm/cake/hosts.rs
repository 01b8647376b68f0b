//! CAKE's host isolation: the per-tin table of source and destination hosts, each with the
//! number of bulk flows it has, and the flow quantum those counts scale.
//!
//! Source: Linux 6.1 `net/sched/sch_cake.c`: `struct cake_host`; `cake_hash` (the
//! `allocate_src` / `allocate_dst` blocks: a host's slot is found by its hash in an 8-way set,
//! [`super::set_ways`], a free slot being one whose bulk count is 0, and the slot's tag set);
//! `cake_inc_srchost_bulk_flow_count` and its three siblings (counts saturate at 0 and at
//! `CAKE_QUEUES`); `cake_get_flow_quantum` (host_load = the larger of the flow's source and
//! destination hosts' bulk counts, each only in the modes that isolate that side, at least 1;
//! quantum = (flow_quantum x quantum_div[host_load] + a random u16) >> 16, with
//! quantum_div[n] = 65535 / n from `cake_init`: flow_quantum / host_load, dithered so that the
//! rounding does not accumulate).

use super::set_ways::{find_way, CAKE_QUEUES};

#[derive(Debug, Clone, Copy, Default)]
struct Host {
    srchost_tag: u32,
    dsthost_tag: u32,
    srchost_bulk_flow_count: u16,
    dsthost_bulk_flow_count: u16,
}

/// Which side of a flow a host is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Src,
    Dst,
}

/// One tin's hosts (`cake_tin_data.hosts`).
#[derive(Debug, Clone)]
pub struct Hosts {
    hosts: Vec<Host>,
}

impl Default for Hosts {
    fn default() -> Self {
        Hosts {
            hosts: vec![Host::default(); CAKE_QUEUES],
        }
    }
}

impl Hosts {
    /// The slot of the host whose hash is `hash` on `side`: its tagged slot, else a slot with
    /// no bulk flows on that side, else its own slot; the slot is tagged with it.
    pub fn slot(&mut self, side: Side, hash: u32) -> u16 {
        let way = match side {
            Side::Src => find_way(
                hash,
                |s| self.hosts[s].srchost_tag == hash,
                |s| self.hosts[s].srchost_bulk_flow_count == 0,
            ),
            Side::Dst => find_way(
                hash,
                |s| self.hosts[s].dsthost_tag == hash,
                |s| self.hosts[s].dsthost_bulk_flow_count == 0,
            ),
        };
        let s = way.slot();
        match side {
            Side::Src => self.hosts[s].srchost_tag = hash,
            Side::Dst => self.hosts[s].dsthost_tag = hash,
        }
        s as u16
    }

    fn count(&mut self, side: Side, slot: u16) -> &mut u16 {
        let h = &mut self.hosts[slot as usize];
        match side {
            Side::Src => &mut h.srchost_bulk_flow_count,
            Side::Dst => &mut h.dsthost_bulk_flow_count,
        }
    }

    /// One more bulk flow of this host (at most `CAKE_QUEUES`).
    pub fn inc(&mut self, side: Side, slot: u16) {
        let c = self.count(side, slot);
        if (*c as usize) < CAKE_QUEUES {
            *c += 1;
        }
    }

    /// One bulk flow fewer (not below 0).
    pub fn dec(&mut self, side: Side, slot: u16) {
        let c = self.count(side, slot);
        *c = c.saturating_sub(1);
    }

    /// The bulk flows of the host in `slot` on `side`.
    pub fn bulk_flows(&self, side: Side, slot: u16) -> u16 {
        let h = &self.hosts[slot as usize];
        match side {
            Side::Src => h.srchost_bulk_flow_count,
            Side::Dst => h.dsthost_bulk_flow_count,
        }
    }

    /// `cake_get_flow_quantum`'s host_load: the larger of the counts of the sides isolated
    /// (`src` / `dst`: the flow's host slots if that side is), at least 1.
    pub fn host_load(&self, src: Option<u16>, dst: Option<u16>) -> u16 {
        let s = src.map_or(1, |s| self.bulk_flows(Side::Src, s));
        let d = dst.map_or(1, |d| self.bulk_flows(Side::Dst, d));
        s.max(d).max(1)
    }
}

/// `cake_get_flow_quantum`: `flow_quantum` shared by `host_load` flows, with `dither` (a random
/// u16) rounding it up or down: (flow_quantum x (65535 / host_load) + dither) >> 16.
pub fn flow_quantum(flow_quantum: u16, host_load: u16, dither: u16) -> u16 {
    let div = 65535 / host_load.max(1) as u32;
    ((flow_quantum as u32 * div + dither as u32) >> 16) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// By hand. One host: 1514 x 65535 = 99,219,990 = 1513 x 65536 + 64,022, so a dither below
    /// 65536 - 64,022 = 1514 gives 1513, any other 1514 (1514 in 97.7 % of draws; mean
    /// 1513.98). Four hosts' worth (host_load 4): 1514 x 16383 = 24,803,862 = 378 x 65536 +
    /// 31,254: 378 below a dither of 34,282, else 379 (mean 378.48 = 1514 / 4 less the
    /// truncation of 65535 / 4). The 300-byte floor at low rates, shared by 5: 300 x 13107 =
    /// 3,932,100 = 59 x 65536 + 65,476: 59 only for a dither below 60, else 60.
    #[test]
    fn the_quantum_is_shared_by_the_host_load_with_dithered_rounding() {
        assert_eq!(flow_quantum(1514, 1, 0), 1513);
        assert_eq!(flow_quantum(1514, 1, 1513), 1513);
        assert_eq!(flow_quantum(1514, 1, 1514), 1514);
        assert_eq!(flow_quantum(1514, 1, u16::MAX), 1514);
        assert_eq!(flow_quantum(1514, 4, 34_281), 378);
        assert_eq!(flow_quantum(1514, 4, 34_282), 379);
        assert_eq!(flow_quantum(300, 5, 59), 59);
        assert_eq!(flow_quantum(300, 5, 60), 60);
    }

    /// A host's slot is found again by its tag; another host of the same set takes the next
    /// way; counts saturate at 0; host_load is the larger side, at least 1.
    #[test]
    fn hosts_are_found_by_tag_and_count_their_bulk_flows() {
        let mut h = Hosts::default();
        let a = h.slot(Side::Src, 3);
        assert_eq!(a, 3);
        // 1027 = 1024 + 3: same slot, other tag; slot 3 has no bulk flow, so it is free and
        // the first free way is its own: the tag is overwritten (Linux frees a host's slot
        // once its count is 0).
        assert_eq!(h.slot(Side::Src, 1027), 3);
        h.inc(Side::Src, 3);
        // Now host 3 (tag 1027) has a bulk flow: host 3 again moves to the next free way.
        assert_eq!(h.slot(Side::Src, 3), 4);
        assert_eq!(h.slot(Side::Src, 1027), 3);
        h.inc(Side::Src, 3);
        h.inc(Side::Dst, 9);
        assert_eq!(h.host_load(Some(3), Some(9)), 2);
        assert_eq!(h.host_load(None, Some(9)), 1);
        assert_eq!(h.host_load(None, None), 1);
        h.dec(Side::Dst, 9);
        h.dec(Side::Dst, 9);
        assert_eq!(h.bulk_flows(Side::Dst, 9), 0);
    }
}
