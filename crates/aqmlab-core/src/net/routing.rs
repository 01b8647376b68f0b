//! Static shortest-path routing by hop count. Ties go to the link declared first, so routes
//! do not depend on anything but the topology's description.
//!
//! Two representations, the same routes:
//! - `Tree`: when the links form a forest of duplex links (each link has exactly one link
//!   back, no two links join the same ordered pair, no cycle), as every dumbbell does, the
//!   route is the forest's unique path; it is found from each node's parent and depth, rooted
//!   at each tree's centre, in memory linear in the nodes (a dumbbell of 100,000 flows would
//!   need 80 GB as a table). A forest taller than [`MAX_TREE_HEIGHT`] uses the table.
//! - `Dense`: otherwise, a table of the first link from every node towards every destination,
//!   computed once per destination by a breadth-first search over reversed links.

use super::{LinkId, NodeId};
use crate::sim::{Stopped, WorkBudget};
use std::collections::{HashMap, VecDeque};

const NONE: LinkId = LinkId::MAX;
const NO_NODE: NodeId = NodeId::MAX;
/// Tallest tree routed without a table: a lookup walks up at most this many parents.
pub const MAX_TREE_HEIGHT: u32 = 64;

#[derive(Debug, Clone)]
pub enum RoutingTable {
    Tree(TreeRoutes),
    Dense(DenseRoutes),
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
        budget.spend((n_nodes + links.len()) as u64)?;
        if let Some(tree) = TreeRoutes::new(n_nodes, links) {
            return Ok(RoutingTable::Tree(tree));
        }
        Ok(RoutingTable::Dense(DenseRoutes::compute_within(
            n_nodes,
            links,
            destinations,
            budget,
        )?))
    }

    /// The link to take from `at` towards `dst`, if `dst` is reachable.
    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkId> {
        match self {
            RoutingTable::Tree(t) => t.next_hop(at, dst),
            RoutingTable::Dense(d) => d.next_hop(at, dst),
        }
    }

    /// Bytes the routes take in memory.
    pub fn heap_bytes(&self) -> usize {
        match self {
            RoutingTable::Tree(t) => t.nodes.len() * TreeRoutes::BYTES_PER_NODE as usize,
            RoutingTable::Dense(d) => d.next.len() * std::mem::size_of::<LinkId>(),
        }
    }
}

/// Routes on a forest of duplex links (see the module documentation).
#[derive(Debug, Clone)]
pub struct TreeRoutes {
    /// One entry per node, all of a node's fields together: a route looks up the fields of
    /// its destination and of the node it is at, each one cache line however many nodes.
    nodes: Vec<TreeNode>,
}

#[derive(Debug, Clone, Copy)]
struct TreeNode {
    parent: NodeId,
    /// The link from the node to its parent, and from its parent to it.
    up: LinkId,
    down: LinkId,
    depth: u32,
    /// The tree the node belongs to (its root).
    tree: NodeId,
}

impl TreeRoutes {
    /// Memory per node.
    pub const BYTES_PER_NODE: u64 = 20;

    /// The forest's routes, or None if the links are not a forest of duplex links no taller
    /// than [`MAX_TREE_HEIGHT`] from each tree's centre.
    pub fn new(n_nodes: usize, links: &[(NodeId, NodeId)]) -> Option<Self> {
        let mut by_ends: HashMap<(NodeId, NodeId), LinkId> = HashMap::with_capacity(links.len());
        for (i, &(a, b)) in links.iter().enumerate() {
            if a == b || by_ends.insert((a, b), i as LinkId).is_some() {
                return None;
            }
        }
        // Neighbours in the order links were declared, each edge once per end.
        let mut adjacency: Vec<Vec<(NodeId, LinkId, LinkId)>> = vec![vec![]; n_nodes];
        for (i, &(a, b)) in links.iter().enumerate() {
            let back = *by_ends.get(&(b, a))?;
            adjacency[a as usize].push((b, i as LinkId, back));
        }
        let mut routes = TreeRoutes {
            nodes: vec![
                TreeNode {
                    parent: NO_NODE,
                    up: NONE,
                    down: NONE,
                    depth: 0,
                    tree: NO_NODE,
                };
                n_nodes
            ],
        };
        let mut dist = vec![u32::MAX; n_nodes];
        let mut parent_of = vec![NO_NODE; n_nodes];
        for start in 0..n_nodes as NodeId {
            if routes.nodes[start as usize].tree != NO_NODE {
                continue;
            }
            // The centre: the middle of a longest path, found by two searches (on a graph
            // with a cycle this finds some node, and `root_at` then refuses the graph).
            let (a, _) = farthest(&adjacency, start, &mut dist, &mut parent_of);
            let (b, length) = farthest(&adjacency, a, &mut dist, &mut parent_of);
            let mut centre = b;
            for _ in 0..length / 2 {
                centre = parent_of[centre as usize];
            }
            if length.div_ceil(2) > MAX_TREE_HEIGHT {
                return None;
            }
            routes.root_at(&adjacency, centre)?;
        }
        Some(routes)
    }

    /// Hangs the tree containing `root` from it; None if it has a cycle.
    fn root_at(&mut self, adjacency: &[Vec<(NodeId, LinkId, LinkId)>], root: NodeId) -> Option<()> {
        self.nodes[root as usize].tree = root;
        let mut frontier = VecDeque::from([root]);
        while let Some(v) = frontier.pop_front() {
            for &(u, out, back) in &adjacency[v as usize] {
                if u == self.nodes[v as usize].parent {
                    continue;
                }
                if self.nodes[u as usize].tree != NO_NODE {
                    return None; // reached twice: a cycle
                }
                self.nodes[u as usize] = TreeNode {
                    parent: v,
                    up: back,
                    down: out,
                    depth: self.nodes[v as usize].depth + 1,
                    tree: root,
                };
                frontier.push_back(u);
            }
        }
        Some(())
    }

    #[inline]
    pub fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkId> {
        let (a, d) = (at as usize, dst as usize);
        let (here, there) = (self.nodes.get(a)?, self.nodes.get(d)?);
        if a == d || here.tree != there.tree {
            return None;
        }
        // Down if `dst` lies below `at`: its ancestor one level below `at` is a child of `at`.
        let below = here.depth + 1;
        let mut x = there;
        while x.depth > below {
            x = &self.nodes[x.parent as usize];
        }
        if x.depth == below && x.parent == at {
            Some(x.down)
        } else {
            Some(here.up)
        }
    }
}

/// The node farthest from `from` by hop count (the first found at that distance), its
/// distance, and in `parent_of` each reached node's predecessor on the search. `dist` and
/// `parent_of` are all unset on entry; `dist` is unset again on return.
fn farthest(
    adjacency: &[Vec<(NodeId, LinkId, LinkId)>],
    from: NodeId,
    dist: &mut [u32],
    parent_of: &mut [NodeId],
) -> (NodeId, u32) {
    let mut seen = vec![from];
    dist[from as usize] = 0;
    let mut best = (from, 0);
    let mut i = 0;
    while let Some(&v) = seen.get(i) {
        i += 1;
        let dv = dist[v as usize];
        if dv > best.1 {
            best = (v, dv);
        }
        for &(u, _, _) in &adjacency[v as usize] {
            if dist[u as usize] == u32::MAX {
                dist[u as usize] = dv + 1;
                parent_of[u as usize] = v;
                seen.push(u);
            }
        }
    }
    for v in seen {
        dist[v as usize] = u32::MAX;
    }
    best
}

/// Routes as a dense table (see the module documentation).
#[derive(Debug, Clone)]
pub struct DenseRoutes {
    n_nodes: usize,
    /// For each node, its row in `next` if it is a destination.
    dst_row: Vec<u32>,
    /// next[row * n_nodes + node] = first link from `node` towards the row's destination.
    next: Vec<LinkId>,
}

impl DenseRoutes {
    fn compute_within(
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
        Ok(DenseRoutes {
            n_nodes,
            dst_row,
            next,
        })
    }

    #[inline]
    fn next_hop(&self, at: NodeId, dst: NodeId) -> Option<LinkId> {
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

    fn dense(n: usize, links: &[(NodeId, NodeId)]) -> DenseRoutes {
        let all: Vec<NodeId> = (0..n as NodeId).collect();
        let mut never_stop = || true;
        DenseRoutes::compute_within(n, links, &all, &mut WorkBudget::new(&mut never_stop)).unwrap()
    }

    /// Duplex links (both directions, in a shuffled declaration order) joining each node
    /// i > 0 of a random forest to a random earlier node, or to none (a new tree).
    fn random_forest(n: usize, seed: u64) -> Vec<(NodeId, NodeId)> {
        let mut rng = crate::sim::RngStream::new(seed, crate::sim::StreamKind::Agent, 0);
        let mut links = vec![];
        for v in 1..n {
            if rng.uniform() < 0.1 {
                continue;
            }
            let p = (rng.uniform() * v as f64) as NodeId;
            if rng.uniform() < 0.5 {
                links.extend([(p, v as NodeId), (v as NodeId, p)]);
            } else {
                links.extend([(v as NodeId, p), (p, v as NodeId)]);
            }
        }
        for i in (1..links.len()).rev() {
            let j = (rng.uniform() * (i + 1) as f64) as usize;
            links.swap(i, j);
        }
        links
    }

    #[test]
    fn tree_routes_are_the_table_routes_on_random_forests() {
        for seed in 0..200 {
            let n = 2 + seed as usize % 60;
            let links = random_forest(n, seed);
            let tree = TreeRoutes::new(n, &links).expect("a forest of duplex links");
            let table = dense(n, &links);
            for at in 0..n as NodeId {
                for dst in 0..n as NodeId {
                    assert_eq!(
                        tree.next_hop(at, dst),
                        table.next_hop(at, dst),
                        "seed {seed}: from {at} to {dst}"
                    );
                }
            }
        }
    }

    #[test]
    fn what_is_not_a_short_forest_of_duplex_links_gets_the_table() {
        // A cycle.
        let ring = [(0, 1), (1, 0), (1, 2), (2, 1), (2, 0), (0, 2)];
        assert!(TreeRoutes::new(3, &ring).is_none());
        assert!(matches!(
            RoutingTable::compute(3, &ring, &[0]),
            RoutingTable::Dense(_)
        ));
        // A one-way link, a self loop, two links over the same pair.
        assert!(TreeRoutes::new(2, &[(0, 1)]).is_none());
        assert!(TreeRoutes::new(2, &[(0, 0), (0, 1), (1, 0)]).is_none());
        assert!(TreeRoutes::new(2, &[(0, 1), (1, 0), (0, 1)]).is_none());
        // A path of 2 x MAX_TREE_HEIGHT + 2 edges is too tall from its centre; one edge less
        // is not.
        let path = |n: NodeId| -> Vec<(NodeId, NodeId)> {
            (1..n).flat_map(|v| [(v - 1, v), (v, v - 1)]).collect()
        };
        let h = MAX_TREE_HEIGHT as NodeId;
        assert!(TreeRoutes::new(2 * h as usize + 3, &path(2 * h + 3)).is_none());
        let tall = path(2 * h + 1);
        let tree = TreeRoutes::new(2 * h as usize + 1, &tall).expect("height 64 from the centre");
        let table = dense(2 * h as usize + 1, &tall);
        assert_eq!(tree.next_hop(0, 2 * h), table.next_hop(0, 2 * h));
        assert_eq!(tree.next_hop(2 * h, 0), table.next_hop(2 * h, 0));
    }

    #[test]
    fn ties_go_to_the_first_declared_link() {
        // two parallel paths 0-1-3 and 0-2-3
        let links = [(0, 1), (0, 2), (1, 3), (2, 3)];
        let r = RoutingTable::compute(4, &links, &[3]);
        assert_eq!(r.next_hop(0, 3), Some(0));
    }
}
