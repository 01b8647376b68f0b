//! A tin's three flow lists (new, old, decaying) as intrusive doubly linked lists over the
//! queue indices: a queue is on at most one, joins a tail and may leave from anywhere
//! (Linux's `struct list_head flowchain` with `list_add_tail`, `list_move_tail`,
//! `list_del_init`, `list_first_entry` in sch_cake.c). Nothing allocates after construction.

const NIL: u16 = u16::MAX;

/// One of the lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum List {
    New = 0,
    Old = 1,
    Decaying = 2,
}

#[derive(Debug, Clone, Copy)]
struct Node {
    prev: u16,
    next: u16,
    on: Option<List>,
}

#[derive(Debug, Clone)]
pub struct FlowLists {
    nodes: Vec<Node>,
    head: [u16; 3],
    tail: [u16; 3],
    len: [u32; 3],
}

impl FlowLists {
    /// Lists over `n` queues (at most 65535), all empty.
    pub fn new(n: usize) -> Self {
        debug_assert!(n < NIL as usize);
        FlowLists {
            nodes: vec![
                Node {
                    prev: NIL,
                    next: NIL,
                    on: None,
                };
                n
            ],
            head: [NIL; 3],
            tail: [NIL; 3],
            len: [0; 3],
        }
    }

    pub fn front(&self, l: List) -> Option<usize> {
        let h = self.head[l as usize];
        (h != NIL).then_some(h as usize)
    }

    pub fn is_empty(&self, l: List) -> bool {
        self.head[l as usize] == NIL
    }

    pub fn len(&self, l: List) -> u32 {
        self.len[l as usize]
    }

    /// `list_del_init`: queue `i` leaves whichever list it is on.
    pub fn remove(&mut self, i: usize) {
        let Node { prev, next, on } = self.nodes[i];
        let Some(l) = on else { return };
        let l = l as usize;
        match prev {
            NIL => self.head[l] = next,
            p => self.nodes[p as usize].next = next,
        }
        match next {
            NIL => self.tail[l] = prev,
            n => self.nodes[n as usize].prev = prev,
        }
        self.len[l] -= 1;
        self.nodes[i] = Node {
            prev: NIL,
            next: NIL,
            on: None,
        };
    }

    /// `list_move_tail` (`list_add_tail` for a queue on no list).
    pub fn move_tail(&mut self, l: List, i: usize) {
        self.remove(i);
        let li = l as usize;
        let t = self.tail[li];
        self.nodes[i] = Node {
            prev: t,
            next: NIL,
            on: Some(l),
        };
        match t {
            NIL => self.head[li] = i as u16,
            t => self.nodes[t as usize].next = i as u16,
        }
        self.tail[li] = i as u16;
        self.len[li] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queues_join_tails_and_leave_from_anywhere() {
        let mut l = FlowLists::new(8);
        l.move_tail(List::New, 3);
        l.move_tail(List::New, 5);
        l.move_tail(List::New, 1);
        assert_eq!(l.front(List::New), Some(3));
        // 5 leaves from the middle for old_flows; 3 moves to the tail of old_flows.
        l.move_tail(List::Old, 5);
        l.move_tail(List::Old, 3);
        assert_eq!((l.len(List::New), l.len(List::Old)), (1, 2));
        assert_eq!(l.front(List::New), Some(1));
        assert_eq!(l.front(List::Old), Some(5));
        l.remove(5);
        assert_eq!(l.front(List::Old), Some(3));
        l.remove(3);
        l.remove(3);
        assert!(l.is_empty(List::Old));
        l.remove(1);
        assert!(l.is_empty(List::New) && l.is_empty(List::Decaying));
    }
}
