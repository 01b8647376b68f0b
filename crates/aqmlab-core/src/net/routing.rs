//! Static shortest-path routing by hop count, computed once per destination by a
//! breadth-first search over reversed links. Ties go to the link declared first, so routes
//! do not depend on anything but the topology's description.

use super::{LinkId, NodeId};
use crate::sim::{Stopped, WorkBudget};
use std::collections::VecDeque;

const NONE: LinkId = LinkId::MAX;

#[derive(Debug, Clone)]
pub struct RoutingTable {
    n_nodes: usize,
    /// For each node, its row in `next` if it is a destination.
    dst_row: Vec<u32>,
    /// next[row * n_nodes + node] = first link from `node` towards the row's destination.
    next: Vec<LinkId>,
}

impl RoutingTable {
    /// Routes towards each of `destinations` over links given as (from, to).
    pub fn compute(n_nodes: usize, links: &[(NodeId, NodeId)], destinations: &[NodeId]) -> Self {
        let mut never_stop = || true;
        Self::compute_within(
            n_nodes,
            links,
            destinations,
            &mut WorkBudget::new(&mut never_stop),
        )
        .expect("never stopped")
    }

    /// [`RoutingTable::compute`], spending `budget` (a search costs about `n_nodes + links`
    /// units) so that a large graph's routing can be interrupted.
    pub fn compute_within(
        n_nodes: usize,
        links: &[(NodeId, NodeId)],
        destinations: &[NodeId],
        budget: &mut WorkBudget,
    ) -> Result<Self, Stopped> {
        let mut incoming: Vec<Vec<LinkId>> = vec![vec![]; n_nodes];
        for (i, &(_, to)) in links.iter().enumerate() {
            incoming[to as usize].push(i as LinkId);
        }
        let mut dst_row = vec![u32::MAX; n_nodes];
        let mut next = Vec::new();
        let mut dist = vec![u32::MAX; n_nodes];
        for &d in destinations {
            if dst_row[d as usize] != u32::MAX {
                continue;
            }
            budget.spend((n_nodes + links.len()) as u64)?;
            let row = (next.len() / n_nodes.max(1)) as u32;
            dst_row[d as usize] = row;
            let base = next.len();
            next.resize(base + n_nodes, NONE);
            dist.iter_mut().for_each(|x| *x = u32::MAX);
            dist[d as usize] = 0;
            let mut frontier = VecDeque::from([d]);
            while let Some(v) = frontier.pop_front() {
                for &l in &incoming[v as usize] {
                    let u = links[l as usize].0;
                    if dist[u as usize] == u32::MAX {
                        dist[u as usize] = dist[v as usize] + 1;
                        next[base + u as usize] = l;
                        frontier.push_back(u);
                    }
                }
            }
        }
        Ok(RoutingTable {
            n_nodes,
            dst_row,
            next,
        })
    }

    /// The link to take from `at` towards `dst`, if `dst` is reachable.
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkId> {
        let row = *self.dst_row.get(dst as usize)?;
        if row == u32::MAX {
            return None;
        }
        let l = self.next[row as usize * self.n_nodes + at as usize];
        (l != NONE).then_some(l)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shortest_hop_path_and_unreachable() {
        // 0 -> 1 -> 2, 0 -> 2 directly, 3 isolated
        let links = [(0, 1), (1, 2), (0, 2)];
        let r = RoutingTable::compute(4, &links, &[2, 3]);
        assert_eq!(r.next_hop(0, 2), Some(2));
        assert_eq!(r.next_hop(1, 2), Some(1));
        assert_eq!(r.next_hop(0, 3), None);
        assert_eq!(r.next_hop(2, 0), None); // 0 is not a destination
    }

    #[test]
    fn ties_go_to_the_first_declared_link() {
        // two parallel paths 0-1-3 and 0-2-3
        let links = [(0, 1), (0, 2), (1, 3), (2, 3)];
        let r = RoutingTable::compute(4, &links, &[3]);
        assert_eq!(r.next_hop(0, 3), Some(0));
    }
}
