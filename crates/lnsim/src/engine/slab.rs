//! A slab of records kept in parallel columns and indexed by `u32` ids, recycled through a free
//! list: the one packet store of both models (issue 15: the credit-level `PacketStore` and the
//! cycle-level `PacketSlab` each wrote it out; architecture: "flat arrays and integer ids").
//!
//! A wing declares its record's columns (one `Vec` per field group, all of one length) and
//! implements [`Columns`] for them; [`Slab`] hands out the ids: the most recently freed id first
//! (last in, first out), else the next new index, with one row appended to every column. Ids
//! are therefore a deterministic function of the order of `alloc` and `free` calls, which the
//! byte-identical results of a run depend on. Once warm the slab allocates nothing per record,
//! and everything is generic over the column type (monomorphised, no trait objects).

/// A set of parallel columns, one row per record id: what a [`Slab`] stores.
///
/// Every column has [`Columns::len`] rows; [`Columns::push`] appends one row to every column and
/// [`Columns::set`] overwrites one row (an implementation may leave a column a row does not
/// carry, such as a queue link, as it was).
pub trait Columns {
    /// What one record is made of when it is stored.
    type Row;
    /// Appends `row` as a new last row to every column.
    fn push(&mut self, row: Self::Row);
    /// Overwrites row `i` (a freed id being reused) with `row`.
    fn set(&mut self, i: usize, row: Self::Row);
    /// Number of rows (the same in every column).
    fn len(&self) -> usize;
    /// True when no row was ever stored.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Records in the parallel columns `C`, indexed by `u32` ids, with a free list of released ids
/// and a count of live records (issue 15; architecture: "flat arrays and integer ids").
#[derive(Debug, Clone)]
pub struct Slab<C> {
    cols: C,
    /// Released ids, reused last in, first out.
    free: Vec<u32>,
    live: u64,
}

impl<C: Columns + Default> Default for Slab<C> {
    fn default() -> Self {
        Slab {
            cols: C::default(),
            free: Vec::new(),
            live: 0,
        }
    }
}

impl<C: Columns + Default> Slab<C> {
    /// An empty slab.
    pub fn new() -> Self {
        Self::default()
    }
}

impl<C: Columns> Slab<C> {
    /// Stores a record; returns its id: the most recently freed id, else the next new index.
    #[inline]
    pub fn alloc(&mut self, row: C::Row) -> u32 {
        self.live += 1;
        if let Some(i) = self.free.pop() {
            self.cols.set(i as usize, row);
            i
        } else {
            let i = self.cols.len();
            self.cols.push(row);
            i as u32
        }
    }
    /// Releases record `id` (its row stays as it is until the id is reused).
    #[inline]
    pub fn free(&mut self, id: u32) {
        debug_assert!((id as usize) < self.cols.len(), "freeing unknown id {id}");
        self.live -= 1;
        self.free.push(id);
    }
    /// Number of records stored and not yet freed.
    #[inline]
    pub fn live(&self) -> u64 {
        self.live
    }
    /// The columns, read-only (index them by id).
    #[inline]
    pub fn cols(&self) -> &C {
        &self.cols
    }
    /// The columns, to change records in place (index them by id). Rows are added and reused
    /// only through [`Slab::alloc`], which keeps the columns aligned.
    #[inline]
    pub fn cols_mut(&mut self) -> &mut C {
        &mut self.cols
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two columns, the second one not part of a row (like a queue link): `set` leaves it.
    #[derive(Default, Debug)]
    struct Two {
        a: Vec<u64>,
        b: Vec<u8>,
        link: Vec<u32>,
    }

    impl Columns for Two {
        type Row = (u64, u8);
        fn push(&mut self, (a, b): (u64, u8)) {
            self.a.push(a);
            self.b.push(b);
            self.link.push(u32::MAX);
        }
        fn set(&mut self, i: usize, (a, b): (u64, u8)) {
            self.a[i] = a;
            self.b[i] = b;
        }
        fn len(&self) -> usize {
            self.a.len()
        }
    }

    #[test]
    fn new_ids_count_up_and_freed_ids_are_reused_last_in_first_out() {
        let mut s: Slab<Two> = Slab::new();
        assert!(s.cols().is_empty());
        let ids: Vec<u32> = (0..4).map(|k| s.alloc((k, k as u8))).collect();
        assert_eq!(ids, vec![0, 1, 2, 3]);
        s.free(1);
        s.free(3);
        s.free(0);
        // last freed first, then the next new index once the free list is empty
        let again: Vec<u32> = (10..14).map(|k| s.alloc((k, k as u8))).collect();
        assert_eq!(again, vec![0, 3, 1, 4]);
        assert_eq!(s.cols().len(), 5);
    }

    #[test]
    fn columns_stay_aligned_and_reuse_overwrites_the_row() {
        let mut s: Slab<Two> = Slab::default();
        let x = s.alloc((7, 1));
        let y = s.alloc((8, 2));
        s.cols_mut().link[x as usize] = y;
        s.free(x);
        let z = s.alloc((9, 3));
        assert_eq!(z, x);
        let c = s.cols();
        assert_eq!((c.a.len(), c.b.len(), c.link.len()), (2, 2, 2));
        assert_eq!((c.a[z as usize], c.b[z as usize]), (9, 3));
        assert_eq!((c.a[y as usize], c.b[y as usize]), (8, 2));
        // a column outside the row keeps what it held
        assert_eq!(c.link[z as usize], y);
        assert_eq!(c.link[y as usize], u32::MAX);
    }

    #[test]
    fn live_counts_stored_minus_freed() {
        let mut s: Slab<Two> = Slab::new();
        assert_eq!(s.live(), 0);
        let a = s.alloc((1, 1));
        let b = s.alloc((2, 2));
        assert_eq!(s.live(), 2);
        s.free(a);
        assert_eq!(s.live(), 1);
        s.alloc((3, 3));
        s.free(b);
        assert_eq!(s.live(), 1);
        assert_eq!(s.cols().len(), 2);
    }
}
