use std::collections::HashMap;
use std::sync::{PoisonError, RwLock};

/// A map shared by every worker thread. Reads and writes hold the lock only
/// for one hash-map operation, so a plain `RwLock` suffices: a value written
/// is visible to every connection once `set` returns.
pub struct Store<V> {
    map: RwLock<HashMap<String, V>>,
}

impl<V> Default for Store<V> {
    fn default() -> Self {
        Self {
            map: RwLock::default(),
        }
    }
}

impl<V: Clone> Store<V> {
    pub fn get(&self, key: &str) -> Option<V> {
        // A panic elsewhere cannot leave the map half-updated (insert and
        // get are single calls), so a poisoned lock is still safe to use.
        let map = self.map.read().unwrap_or_else(PoisonError::into_inner);
        map.get(key).cloned()
    }

    pub fn set(&self, key: String, value: V) {
        let mut map = self.map.write().unwrap_or_else(PoisonError::into_inner);
        map.insert(key, value);
    }
}
