//! A map that forgets its least recently set entries beyond a limit, so that what a grantor
//! remembers (lease and claim secrets, observations of Kubernetes Leases, etcd lease IDs) costs
//! bounded memory however long it lives.

/// Entries sorted by key, each with when it was last set. A sorted list rather than a hash map:
/// far smaller in WebAssembly, and a lookup or an insertion costs nothing next to the network
/// call it goes with.
pub struct BoundedMap<K, V> {
    entries: Vec<(K, u64, V)>,
    touches: u64,
    limit: usize,
}

impl<K: Ord, V> BoundedMap<K, V> {
    /// Remembers nothing yet, and at most `limit` entries.
    pub fn new(limit: usize) -> BoundedMap<K, V> {
        BoundedMap {
            entries: Vec::new(),
            touches: 0,
            limit,
        }
    }

    fn find(&self, key: &K) -> Result<usize, usize> {
        self.entries.binary_search_by(|entry| entry.0.cmp(key))
    }

    /// The value of `key`, if remembered.
    pub fn get(&self, key: &K) -> Option<&V> {
        self.find(key)
            .ok()
            .and_then(|i| self.entries.get(i))
            .map(|e| &e.2)
    }

    /// Remembers `value` for `key` as the newest entry, forgetting the oldest beyond the limit.
    pub fn set(&mut self, key: K, value: V) {
        match self.find(&key) {
            Ok(i) => {
                self.touches += 1;
                if let Some(entry) = self.entries.get_mut(i) {
                    entry.1 = self.touches;
                    entry.2 = value;
                }
            }
            Err(_) => {
                self.touch_or_insert(key, || value);
            }
        }
    }

    /// The value of `key`, made the newest entry; `make` gives it when `key` is new, and the
    /// oldest entry beyond the limit is forgotten.
    pub fn touch_or_insert(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        self.touches += 1;
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(mut i) => {
                if self.entries.len() >= self.limit {
                    let oldest =
                        (0..self.entries.len()).min_by_key(|&i| self.entries.get(i).map(|e| e.1));
                    if let Some(oldest) = oldest {
                        self.entries.remove(oldest);
                        i -= usize::from(oldest < i);
                    }
                }
                self.entries.insert(i, (key, 0, make()));
                i
            }
        };
        let touches = self.touches;
        let entry = &mut self.entries[i];
        entry.1 = touches;
        &mut entry.2
    }

    /// Forgets `key`.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        self.find(key).ok().map(|i| self.entries.remove(i).2)
    }
}
