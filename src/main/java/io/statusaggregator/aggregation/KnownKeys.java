package io.statusaggregator.aggregation;

import io.statusaggregator.ingest.ObjectStateKey;

/**
 * The keys of objects seen before, found from a record's key bytes. Nearly every record is of an object seen before
 * (a Machine's status changes many times in its life): its key is then the one already held, found by comparing bytes,
 * not parsed, checked and made into new strings again; and every map the book looks it up in meets the same instance.
 * A key is held from the object's first record to its tombstone; all are dropped when a partition is revoked. Pure;
 * on the aggregation thread only.
 */
final class KnownKeys {
    private static final int FIRST_CAPACITY = 1 << 10;

    /** Open addressing with linear probing, at most half full; a key's home slot is the hash of its encoded bytes. */
    private ObjectStateKey[] slots = new ObjectStateKey[FIRST_CAPACITY];
    private int size;

    /** The key held for {@code bytes}, or null when none is (not seen yet, or not a key this application writes). */
    ObjectStateKey find(byte[] bytes) {
        if (bytes == null) {
            return null;
        }
        int mask = slots.length - 1;
        for (int slot = home(hash(bytes), mask); ; slot = (slot + 1) & mask) {
            ObjectStateKey held = slots[slot];
            if (held == null || encodes(bytes, held)) {
                return held;
            }
        }
    }

    /** Holds {@code key}, parsed from a record's key bytes, until {@link #forget} or {@link #clear}. */
    void hold(ObjectStateKey key) {
        if (2 * (size + 1) > slots.length) {
            ObjectStateKey[] old = slots;
            slots = new ObjectStateKey[old.length * 2];
            size = 0;
            for (ObjectStateKey held : old) {
                if (held != null) {
                    insert(held);
                }
            }
        }
        insert(key);
    }

    /** The object is gone (its tombstone): its key is no longer held. */
    void forget(ObjectStateKey key) {
        int mask = slots.length - 1;
        int slot = home(hash(key), mask);
        while (slots[slot] != null && !slots[slot].equals(key)) {
            slot = (slot + 1) & mask;
        }
        if (slots[slot] == null) {
            return;
        }
        slots[slot] = null;
        size--;
        // Moves back each key after it that could not have stood in the freed slot's place, so no search stops short.
        for (int next = (slot + 1) & mask; slots[next] != null; next = (next + 1) & mask) {
            int home = home(hash(slots[next]), mask);
            boolean between = slot <= next ? slot < home && home <= next : slot < home || home <= next;
            if (!between) {
                slots[slot] = slots[next];
                slots[next] = null;
                slot = next;
            }
        }
    }

    /** Drops every key (a partition was revoked: its objects are another instance's now). */
    void clear() {
        slots = new ObjectStateKey[FIRST_CAPACITY];
        size = 0;
    }

    int size() {
        return size;
    }

    private void insert(ObjectStateKey key) {
        int mask = slots.length - 1;
        int slot = home(hash(key), mask);
        while (slots[slot] != null) {
            if (slots[slot].equals(key)) {
                slots[slot] = key;
                return;
            }
            slot = (slot + 1) & mask;
        }
        slots[slot] = key;
        size++;
    }

    private static int home(int hash, int mask) {
        return (hash * 0x9E3779B9 >>> 16 ^ hash) & mask;
    }

    /** The hash of the encoded key's bytes, from its bytes. */
    private static int hash(byte[] bytes) {
        int hash = 0;
        for (byte b : bytes) {
            hash = 31 * hash + b;
        }
        return hash;
    }

    /** The same hash, from a held key's parts (all ASCII: a parsed key is). */
    private static int hash(ObjectStateKey key) {
        int hash = hash(0, key.clusterName());
        hash = hash(31 * hash + '/', key.kind().qualifiedName());
        hash = hash(31 * hash + '/', key.key().namespace());
        return hash(31 * hash + '/', key.key().name());
    }

    private static int hash(int hash, String part) {
        for (int i = 0; i < part.length(); i++) {
            hash = 31 * hash + part.charAt(i);
        }
        return hash;
    }

    /** Whether {@code bytes} are {@code key} encoded ({@link ObjectStateKey#encode}), compared part by part. */
    private static boolean encodes(byte[] bytes, ObjectStateKey key) {
        int at = part(bytes, 0, key.clusterName());
        at = part(bytes, slash(bytes, at), key.kind().qualifiedName());
        at = part(bytes, slash(bytes, at), key.key().namespace());
        at = part(bytes, slash(bytes, at), key.key().name());
        return at == bytes.length;
    }

    /** Where {@code part} ends in {@code bytes} if they hold it at {@code from}; -1 when not. */
    private static int part(byte[] bytes, int from, String part) {
        int length = part.length();
        if (from < 0 || from + length > bytes.length) {
            return -1;
        }
        for (int i = 0; i < length; i++) {
            if (bytes[from + i] != part.charAt(i)) {
                return -1;
            }
        }
        return from + length;
    }

    private static int slash(byte[] bytes, int at) {
        return at >= 0 && at < bytes.length && bytes[at] == '/' ? at + 1 : -1;
    }
}
